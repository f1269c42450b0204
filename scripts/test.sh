#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs what vt needs, builds it and runs every test, then again with the runtime under
# AddressSanitizer+UBSan; ends with "N passed, N failed, N skipped".
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

sh scripts/install-deps.sh
build=${VT_TEST_BUILD:-build-test}
[ -d "$build" ] || meson setup "$build" >/dev/null
ninja -C "$build"
rc=0
meson test -C "$build" --print-errorlogs --num-processes 2 "$@" || rc=$?
logs="$build/meson-logs/testlog.json"
# Then every test again with the runtime built with AddressSanitizer and UBSan
# (docs/dev/sanitizers.md), but for the install test, which checks files, not the runtime.
# Only when no test is named; VT_TEST_ASAN=no leaves it out.
if [ $# -eq 0 ] && [ "${VT_TEST_ASAN:-yes}" != no ]; then
	VT_TEST_BUILD="$build-asan" sh scripts/test-sanitize.sh asan --no-suite install || rc=$?
	logs="$logs $build-asan/meson-logs/testlog.json"
fi
# The closing line CI reads, counted from meson's own logs (one line per run before it).
# shellcheck disable=SC2086 # the logs are words
/usr/bin/python3 - $logs <<'PY'
import json, sys
total = [0, 0, 0]
for log in sys.argv[1:]:
    passed = failed = skipped = 0
    try:
        lines = open(log).readlines()
    except OSError:
        lines = ['{"result": "ERROR"}']  # the run did not get as far as its tests
    for line in lines:
        r = json.loads(line).get("result")
        if r == "OK" or r == "EXPECTEDFAIL":
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
    if len(sys.argv) > 2:
        print(f"{log}: {passed} passed, {failed} failed, {skipped} skipped")
    total = [total[0] + passed, total[1] + failed, total[2] + skipped]
print(f"{total[0]} passed, {total[1]} failed, {total[2]} skipped")
PY
exit $rc
