#!/usr/bin/env bash
# Rewrites every golden corpus from the current code, then shows what changed:
#   facts/        the fact extractor's references (facts/regenerate.sh)
#   report/       the gate report in each format (tst_report formats)
#   ledger/       the ledger writers' exact text (tst_ledgerformats golden)
#   ledgerforms/  what the workbench's ledger forms write (tst_ledgerforms)
# Usage: tests/golden/regenerate-all.sh [BUILD_DIR]   (default build/qt6, built with tests)
# Review the diff before committing: a golden file is a reviewed statement of the output,
# not a snapshot.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build/qt6}" && pwd)
for test in tests/core/tst_report tests/core/tst_ledgerformats tests/gui/tst_ledgerforms; do
  if [ ! -x "$build/$test" ]; then
    echo "regenerate-all: $build/$test is not built (cmake --build $build --target ${test##*/})" >&2
    exit 1
  fi
done
"$here/facts/regenerate.sh"
"$here/report/regenerate.sh" "$build"
"$here/ledger/regenerate.sh" "$build"
QT_QPA_PLATFORM=offscreen PW_REGENERATE_GOLDEN=1 "$build/tests/gui/tst_ledgerforms"
git -C "$here" status --short -- .
git -C "$here" diff --stat -- .
