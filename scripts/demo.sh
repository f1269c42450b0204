#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The main job: install what vt needs, build it, trace the sample programs (threads, then MPI
# under mpirun), show what was traced.
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

echo "== compiling the MPI sample samples/mpi/heat.c with vtcc over mpicc (MPI mode is automatic)"
build/vtcc/vtcc -vt:cc mpicc -vt:verbose -g -O2 samples/mpi/heat.c -o "$out/heat" -lm
echo "== running it on 4 ranks under mpirun, with two sample counter plugins: page faults per"
echo "   thread (perf_event_open, synchronous) and the host's load average (a callback plugin)"
echo "   VT_REPORT=yes: the run also writes an HTML report next to its trace (vt-report)"
(cd "$out" && VT_PLUGIN_CNTR_PATH="$here/build/samples/plugins" \
  VT_PLUGIN_CNTR_METRICS='perfsw_page-faults:hostload_load1' VT_REPORT=yes \
  mpirun --allow-run-as-root --oversubscribe -x VT_PLUGIN_CNTR_PATH -x VT_PLUGIN_CNTR_METRICS \
  -x VT_REPORT -np 4 ./heat)
echo "== what was traced"
build/tools/vt-profile/vt-profile --top 10 "$out/heat.vt.otf2"
echo "== messages and collectives per rank (otf2-print)"
otf2-print "$out/heat.vt.otf2" | awk '$1 == "MPI_SEND" { s[$2]++ } $1 == "MPI_RECV" { r[$2]++ }
  $1 == "MPI_COLLECTIVE_END" { c[$2]++ }
  END { for (l in s) print "location " l ": " s[l] " sends, " r[l] " receives, " c[l] " collectives" }' | sort
echo "== counter values in the trace, per metric (otf2-print)"
otf2-print "$out/heat.vt.otf2" | awk '$1 == "METRIC" { if (match($0, /\("[^"]*"/)) n[substr($0, RSTART + 2, RLENGTH - 3)]++ }
  END { for (m in n) print m ": " n[m] " values" }' | sort
echo "== the trace: $out/heat.vt.otf2"
echo "== call paths and MPI statistics (vt-profile --call-tree --depth 3, --mpi)"
build/tools/vt-profile/vt-profile --call-tree --depth 3 "$out/heat.vt.otf2" | head -20
build/tools/vt-profile/vt-profile --mpi "$out/heat.vt.otf2"
build/tools/vt-export/vt-export --chrome "$out/heat.vt.otf2" -o "$out/heat.json.gz"
echo "== the report: $out/heat.vt.html (open it in a browser: timeline, profiles, MPI summary)"
echo "== for Perfetto (ui.perfetto.dev) or chrome://tracing: $out/heat.json.gz"
