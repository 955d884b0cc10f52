#!/usr/bin/env bash
# Rewrites the report golden files from the current formatter. Review the diff before
# committing: a golden file is a reviewed statement of the output, not a snapshot.
set -euo pipefail
build="${1:-$(dirname "$0")/../../../build/qt6}"
PW_REGENERATE_GOLDEN=1 "$build/tests/core/tst_report" formats
git -C "$(dirname "$0")" diff --stat -- .
