#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The main job: install what vt needs, build it, trace the sample program, show the profile.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

sh scripts/install-deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
echo "== built vt in $here/build"

out=$(mktemp -d /tmp/vt-demo.XXXXXX)
echo "== compiling samples/demo/demo.c with vtcc"
build/vtcc/vtcc -vt:verbose -vt:mt -g -O2 samples/demo/demo.c -o "$out/demo"
echo "== running it (trace goes to $out)"
(cd "$out" && ./demo)
echo "== what was traced"
build/tools/vt-profile/vt-profile --top 10 "$out/demo.vt.otf2"
echo "== per thread: Enter events by location (read with otf2-print, a reader vt did not write)"
otf2-print "$out/demo.vt.otf2" | awk '$1 == "ENTER" { n[$2]++ } END { for (l in n) print "location " l ": " n[l] " calls" }' | sort
echo "== the trace: $out/demo.vt.otf2 (open it with Vampir or any OTF2 reader)"
