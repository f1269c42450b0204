#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs vt's tests with the runtime (libvt, libvt-mpi, and the unit tests of its modules)
# built with sanitizers; the programs vtcc builds, the compiler plugins and the tools stay as
# they are. docs/dev/sanitizers.md says what it finds and what it cannot.
#
#   scripts/test-sanitize.sh asan [TEST...]   AddressSanitizer + UndefinedBehaviorSanitizer,
#                                             every test by default (what CI runs)
#   scripts/test-sanitize.sh tsan [TEST...]   ThreadSanitizer, the threaded tests by default
#
# Other arguments go to `meson test` (e.g. --suite unit). The build directory is build-asan or
# build-tsan (VT_TEST_BUILD overrides).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

kind=${1:-asan}
[ $# -gt 0 ] && shift
case "$kind" in
asan)
	san=address,undefined
	build=${VT_TEST_BUILD:-build-asan}
	# libasan comes in with libvt, after libc: its link-order check is off. Leaks are not
	# checked (plugins stay loaded on purpose), and the signals the programs and vt handle
	# are left to them (vt's own handler writes the trace at SIGSEGV, SIGABRT, ...).
	ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:halt_on_error=1:handle_segv=0
	ASAN_OPTIONS=$ASAN_OPTIONS:handle_sigbus=0:handle_abort=0:handle_sigfpe=0:handle_sigill=0
	export ASAN_OPTIONS
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	export UBSAN_OPTIONS
	# The programs under test get libasan first: behind libc (as a dependency of libvt) it
	# is initialised after other libraries' constructors, and crashes in some programs
	# (its TLS set-up, in a program linked with -lm).
	VT_TEST_PRELOAD=$(gcc -print-file-name=libasan.so)
	export VT_TEST_PRELOAD
	default=""
	;;
tsan)
	san=thread
	build=${VT_TEST_BUILD:-build-tsan}
	TSAN_OPTIONS=halt_on_error=1:report_signal_unsafe=0:suppressions=$here/scripts/tsan.supp
	export TSAN_OPTIONS
	# The programs under test (only them: vttest.py) get libtsan first, so that its
	# pthread_create sees the threads libvt's wrapper starts.
	VT_TEST_PRELOAD=$(gcc -print-file-name=libtsan.so)
	export VT_TEST_PRELOAD
	default="pthreads openmp exitpaths threads_short sighandler unit-buffer"
	;;
*)
	echo "usage: $0 asan|tsan [meson test arguments]" >&2
	exit 2
	;;
esac

# Tests that cannot run under a sanitizer skip themselves (setuid: the loader drops
# ASAN_OPTIONS in a secure process; ulimit -v: the shadow memory needs terabytes of
# address space).
VT_TEST_SANITIZE=$kind
export VT_TEST_SANITIZE

if [ ! -d "$build" ]; then
	meson setup "$build" -Druntime_sanitize="$san" >/dev/null
else
	meson configure "$build" -Druntime_sanitize="$san"
fi
ninja -C "$build"
if [ $# -eq 0 ]; then
	# shellcheck disable=SC2086 # the default list is words
	set -- $default
fi
exec meson test -C "$build" --print-errorlogs --num-processes 2 "$@"
