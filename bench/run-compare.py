#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""vt against the tracers users would pick instead (uftrace, LTTng-UST, XRay), per call at 1 and 2 threads, in one run."""

# Usage: bench/run-compare.py BUILD_DIR [--calls N] [--threads 1,2] [--runs R] [--only a,b]
#                             [--json FILE] [--wait-quiet S]
# Builds bench/compare.c once per variant, runs every (variant, threads) pair round-robin R
# times and prints, per pair, the loop's wall time per call (median and minimum over runs, the
# slowest thread's loop), what it adds to the plain program, the CPU per call of everything
# the run took (the process, the processes it waited for, and LTTng's daemons), the records
# and bytes written, and the growth of the added cost from the first to the last thread
# count. A tracer whose Debian package is missing is skipped with a line saying so.
# scripts/install-deps.sh installs uftrace, lttng-tools and liblttng-ust-dev. docs/bench.md.

import argparse
import glob
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import benchlib

SRC_DIR = os.path.dirname(os.path.abspath(__file__))
CFLAGS = ["-O2", "-pthread"]
LTTNG_EVENTS = "lttng_ust_cyg_profile_fast:*"


def cpu_busy_s():
    """Seconds of CPU the whole machine spent busy since boot (/proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def daemons_cpu_s(prefix):
    """CPU seconds of the running processes whose name starts with prefix (LTTng's daemons,
    which do the tracer's writing outside the traced process)."""
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/stat" % pid) as f:
                st = f.read()
        except OSError:
            continue
        name = st[st.index("(") + 1:st.rindex(")")]
        if name.startswith(prefix):
            fields = st[st.rindex(")") + 2:].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def tree_size(path):
    n = 0
    for root, _, files in os.walk(path):
        n += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return n


class Variant:
    """One way of tracing compare.c: how it is built, how a run is wrapped, what it wrote."""

    def __init__(self, name, build, note, env=None, needs=None):
        self.name, self.build, self.note = name, build, note
        self.env = env or {}
        self.needs = needs  # a command that must exist, or None
        self.exe = None

    def command(self, out, calls, threads):
        return [self.exe, str(calls), str(threads)]

    def environ(self, out):
        return self.env

    def records(self, out, stderr):
        """(records written, bytes written), either None when the variant writes nothing."""
        return None, None

    def before(self, out):
        pass

    def after(self, out):
        return ""


class Vt(Variant):
    def environ(self, out):
        return dict(self.env, VT_PFORM_GDIR=out)

    def records(self, out, stderr):
        m = re.search(r"\((\d+) events", stderr)
        return (int(m.group(1)) if m else None), tree_size(out)


class Uftrace(Variant):
    def command(self, out, calls, threads):
        return ["uftrace", "record", "--no-libcall", "-d", os.path.join(out, "d"), self.exe,
                str(calls), str(threads)]

    def records(self, out, stderr):
        d = os.path.join(out, "d")
        dat = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)
                  if f.endswith(".dat") and not f.startswith("perf"))
        return dat // 16, tree_size(out)  # a uftrace record is 16 bytes


class Xray(Variant):
    def environ(self, out):
        return dict(self.env, XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic "
                    "verbosity=0 xray_logfile_base=%s/xray-log." % out)

    def records(self, out, stderr):
        size = tree_size(out)
        return max(size - 32, 0) // 32, size  # a 32-byte file header, 32-byte records


class Lttng(Variant):
    def before(self, out):
        sh = benchlib.sh
        sh(["lttng", "create", "vt-compare", "--output=" + os.path.join(out, "lt")])
        sh(["lttng", "enable-channel", "-u", "ch", "--subbuf-size=4M", "--num-subbuf=8",
            "--blocking-timeout=inf"])
        sh(["lttng", "enable-event", "-u", "-c", "ch", LTTNG_EVENTS])
        sh(["lttng", "start"])

    def after(self, out):
        said = benchlib.sh(["lttng", "stop"]) + benchlib.sh(["lttng", "destroy"])
        m = re.search(r"([\d,]+) events? (?:were|was) discarded", said)
        return m.group(1) if m else ""

    def records(self, out, stderr):
        return None, tree_size(out)


def variants(build):
    build = os.path.abspath(build)
    vtcc = os.path.join(build, "vtcc", "vtcc")
    floor = os.path.join(build, "bench")
    src = os.path.join(SRC_DIR, "compare.c")
    fi = ["gcc", *CFLAGS, "-finstrument-functions", src]
    return [
        Variant("plain", ["gcc", *CFLAGS, src], "gcc -O2, no instrumentation"),
        Variant("empty-hooks", fi + ["-DCOMPARE_EMPTY_HOOKS"],
                "-finstrument-functions with hooks that do nothing"),
        Variant("floor", fi + ["-L" + floor, "-Wl,-rpath," + floor, "-lvtfloor"],
                "-finstrument-functions, hooks that store a TSC stamp and the address in a "
                "thread's ring (libvtfloor): the technique's floor"),
        Vt("vt", [vtcc, *CFLAGS, src], "vtcc (GCC plugin), default settings"),
        Vt("vt-own", [vtcc, *CFLAGS, src],
           "the vt binary with VT_MODE=ring: the events stay in memory, nothing is encoded "
           "in the loop: the program thread's own cost", env={"VT_MODE": "ring"}),
        Vt("vt-inline", [vtcc, *CFLAGS, src], "the vt binary with VT_FLUSH_THREAD=no: each "
           "thread encodes and writes its own full halves, no writer thread",
           env={"VT_FLUSH_THREAD": "no"}),
        Vt("vt-compinst", [vtcc, "-vt:inst", "compinst", *CFLAGS, src],
           "vtcc -vt:inst compinst (-finstrument-functions)"),
        Uftrace("uftrace", ["gcc", *CFLAGS, "-pg", src],
                "gcc -pg, uftrace record --no-libcall", needs="uftrace"),
        Lttng("lttng-ust", fi, "-finstrument-functions, liblttng-ust-cyg-profile-fast, a "
              "blocking channel (no event discarded) of 8 x 4 MiB",
              env={"LD_PRELOAD": "liblttng-ust-cyg-profile-fast.so",
                   "LTTNG_UST_ALLOW_BLOCKING": "1"}, needs="lttng"),
        Xray("xray", ["clang", *CFLAGS, "-fxray-instrument", "-fxray-instruction-threshold=1",
                      src],
             "clang -fxray-instrument, basic mode, every call logged "
             "(func_duration_threshold_us=0)",
             env={"XRAY_BASIC_OPTIONS": "func_duration_threshold_us=0 "
                  "thread_buffer_size=1048576"}, needs="clang"),
    ]


def start_lttng_daemon():
    """Starts a session daemon when none runs; the pid to stop at the end, or None."""
    if daemons_cpu_s("lttng-sessiond") > 0 or subprocess.run(
            ["pgrep", "-x", "lttng-sessiond"], stdout=subprocess.DEVNULL).returncode == 0:
        return None
    benchlib.sh(["lttng-sessiond", "--daemonize", "--no-kernel"])
    time.sleep(1)
    p = subprocess.run(["pgrep", "-x", "-o", "lttng-sessiond"], stdout=subprocess.PIPE,
                       universal_newlines=True)
    return int(p.stdout.split()[0]) if p.stdout.strip() else None


def children_cpu_s():
    """User + system CPU of this script's finished children and what they waited for, and
    the system part alone."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime, ru.ru_stime


def free_page_reporting():
    """Whether a virtio balloon hands the guest's free memory back to the host
    (VIRTIO_BALLOON_F_REPORTING, feature bit 5): then a write that needs fresh page-cache
    pages pays a fault on the host, seen here as system time (docs/bench.md)."""
    for f in glob.glob("/sys/bus/virtio/drivers/virtio_balloon/*/features"):
        with open(f) as fh:
            bits = fh.read().strip()
        if len(bits) > 5 and bits[5] == "1":
            return True
    return False


def run_once(v, calls, threads, work):
    """One run of a variant: a dict of what was measured."""
    out = tempfile.mkdtemp(prefix="out-", dir=work)
    try:
        v.before(out)
        env = dict(os.environ, **v.environ(out))
        d0, (c0, s0), b0, t0 = (daemons_cpu_s("lttng-"), children_cpu_s(), cpu_busy_s(),
                                time.monotonic())
        p = subprocess.run(v.command(out, calls, threads), env=env, cwd=out,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        wall = time.monotonic() - t0
        c1, s1 = children_cpu_s()
        cpu = c1 - c0 + daemons_cpu_s("lttng-") - d0
        busy = cpu_busy_s() - b0
        lost = v.after(out)
        if p.returncode != 0:
            sys.exit("run-compare: %s (%d threads) failed with %d: %s" % (
                v.name, threads, p.returncode, p.stderr.strip()[-400:]))
        m = re.search(r"max_ns=(\d+) sum_ns=(\d+)", p.stdout)
        if not m:
            sys.exit("run-compare: %s printed no result: %s" % (v.name, p.stdout[-200:]))
        records, size = v.records(out, p.stderr)
        return {"loop_ns": int(m.group(1)), "cpu_s": cpu, "sys_s": s1 - s0, "others": max(busy - cpu, 0) / wall,
                "records": records, "bytes": size, "lost": lost}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", help="vt's meson build directory (vtcc, bench/libvtfloor.so)")
    ap.add_argument("--calls", type=int, default=10000000, help="calls per thread")
    ap.add_argument("--threads", default="1,2", help="thread counts, ','-separated")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", help="variants to run, ','-separated (plain always runs)")
    ap.add_argument("--json", help="write every run's figures to this file")
    ap.add_argument("--wait-quiet", type=float, default=0, metavar="S",
                    help="before each run wait up to S seconds for the rest of the machine "
                    "to use under 0.3 CPUs")
    a = ap.parse_args()
    counts = [int(t) for t in a.threads.split(",")]
    want = set(a.only.split(",")) | {"plain"} if a.only else None
    work = tempfile.mkdtemp(prefix="vt-compare-")
    daemon = None
    try:
        vs = []
        for v in variants(a.build):
            if want is not None and v.name not in want:
                continue
            if v.needs and not shutil.which(v.needs):
                print("skipped %s: %s not installed (scripts/install-deps.sh)" % (v.name, v.needs))
                continue
            v.exe = os.path.join(work, v.name)
            benchlib.sh(v.build + ["-o", v.exe])
            vs.append(v)
        if any(isinstance(v, Lttng) for v in vs):
            daemon = start_lttng_daemon()
        res = {(v.name, t): [] for v in vs for t in counts}
        for r in range(a.runs):
            for t in counts:
                for v in vs:
                    if a.wait_quiet > 0:
                        wait_quiet(a.wait_quiet)
                    res[(v.name, t)].append(run_once(v, a.calls, t, work))
            print("run %d of %d done" % (r + 1, a.runs), file=sys.stderr)
        report(vs, counts, res, a)
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"calls": a.calls, "runs": a.runs, "variants": {
                    v.name: v.note for v in vs}, "results": {
                    "%s/%d" % k: rs for k, rs in res.items()}}, f, indent=1)
    finally:
        if daemon:
            subprocess.run(["kill", str(daemon)])
        shutil.rmtree(work, ignore_errors=True)


def wait_quiet(timeout):
    """Waits at most timeout seconds until the machine's other work is under 0.3 CPUs."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        b0 = cpu_busy_s()
        time.sleep(0.5)
        if (cpu_busy_s() - b0) / 0.5 < 0.3:
            return


def report(vs, counts, res, a):
    """The table: per variant and thread count, ns per call and CPU per call, added to plain."""
    calls = a.calls
    med = {}
    print("calls per thread %d, runs %d; ns per call: the slowest thread's loop, median (min);"
          " CPU: everything the run took, per call of all threads (sys: its system part, the"
          " traced process's)" % (calls, a.runs))
    if free_page_reporting():
        print("note: this VM's balloon reports free memory to the host: a run whose writes need"
              " fresh page-cache pages pays host faults, seen as system time (docs/bench.md)")
    print("%-12s %3s %16s %8s %10s %9s %7s %12s %9s %6s %s" % (
        "variant", "thr", "ns/call (min)", "added", "CPU ns", "CPU add", "sys", "records",
        "MB", "load", "lost"))
    for v in vs:
        for t in counts:
            rs = res[(v.name, t)]
            ns = [r["loop_ns"] / calls for r in rs]
            cpu = [r["cpu_s"] * 1e9 / (calls * t) for r in rs]
            med[(v.name, t)] = (statistics.median(ns), statistics.median(cpu))
            base = med.get(("plain", t), (0, 0))
            rec = rs[-1]["records"]
            size = rs[-1]["bytes"]
            lost = ",".join(sorted({r["lost"] for r in rs if r["lost"]})) or "-"
            sys_ns = statistics.median(r.get("sys_s", 0) * 1e9 / (calls * t) for r in rs)
            print("%-12s %3d %8.2f (%5.2f) %8.2f %10.2f %9.2f %7.2f %12s %9s %6.2f %s" % (
                v.name, t, med[(v.name, t)][0], min(ns), med[(v.name, t)][0] - base[0],
                med[(v.name, t)][1], med[(v.name, t)][1] - base[1], sys_ns,
                "-" if rec is None else rec, "-" if size is None else "%.0f" % (size / 1e6),
                statistics.median(r["others"] for r in rs), lost))
    lo, hi = counts[0], counts[-1]
    if lo != hi:
        print("\ngrowth of the added ns per call from %d to %d threads (wall; CPU)" % (lo, hi))
        for v in vs:
            if v.name == "plain":
                continue
            a0 = med[(v.name, lo)][0] - med[("plain", lo)][0]
            a1 = med[(v.name, hi)][0] - med[("plain", hi)][0]
            c0 = med[(v.name, lo)][1] - med[("plain", lo)][1]
            c1 = med[(v.name, hi)][1] - med[("plain", hi)][1]
            print("%-12s %6.2fx %6.2fx" % (v.name, a1 / a0 if a0 > 0 else float("nan"),
                                            c1 / c0 if c0 > 0 else float("nan")))
    if ("vt", lo) in med and ("vt-own", lo) in med:
        print("\nvt's writer targets (issue 30), wall medians: vt's added ns per call over its "
              "program thread's own (vt-own), and its growth with threads")
        for t in counts:
            own = med[("vt-own", t)][0] - med[("plain", t)][0]
            full = med[("vt", t)][0] - med[("plain", t)][0]
            print("  %d thread(s): %.2f / %.2f ns = %.2fx%s" % (
                t, full, own, full / own, " (target <= 1.3x)" if t == 1 else ""))
        if lo != hi:
            g = (med[("vt", hi)][0] - med[("plain", hi)][0]) / (
                med[("vt", lo)][0] - med[("plain", lo)][0])
            print("  growth from %d to %d threads: %.2fx (target <= 1.2x)" % (lo, hi, g))

if __name__ == "__main__":
    main()
