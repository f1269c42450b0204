#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs what vt needs, builds it and runs every test; ends with "N passed, N failed".
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

sh scripts/install-deps.sh
build=${VT_TEST_BUILD:-build-test}
[ -d "$build" ] || meson setup "$build" >/dev/null
ninja -C "$build"
rc=0
meson test -C "$build" --print-errorlogs --num-processes 2 "$@" || rc=$?
# The closing line CI reads, counted from meson's own log.
/usr/bin/python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line).get("result")
    if r == "OK" or r == "EXPECTEDFAIL":
        passed += 1
    elif r == "SKIP":
        skipped += 1
    else:
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
