#!/bin/sh
# Regenerate the golden references for the fact extractor:
# one extractor batch per input/*.py (id = file name, path = tests/<file name>),
# pretty JSON (indent=2, sort_keys=True) of that file object to reference/<name>.json.
# Interpreter: $PW_PYTHON (default /usr/bin/python3). Review every changed
# reference by eye before committing it: the point is that they are right.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
py=${PW_PYTHON:-/usr/bin/python3}
mkdir -p "$here/reference"
exec "$py" "$here/check.py" --python "$py" --regenerate "$@"
