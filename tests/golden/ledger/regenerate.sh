#!/usr/bin/env bash
# Rewrites the ledger golden files (the exact text the ledger writers produce: appended
# freeze and waiver blocks, a renewal spliced in place, a closed journal row, a fixture
# digest ledger) from the current writers. Review the diff before committing: a golden
# file is a reviewed statement of the output, not a snapshot.
set -euo pipefail
build="${1:-$(dirname "$0")/../../../build/qt6}"
PW_REGENERATE_GOLDEN=1 "$build/tests/core/tst_ledgerformats" golden
git -C "$(dirname "$0")" diff --stat -- .
