#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Measures the per-call cost of vt's hot path against the -finstrument-functions floor, and
what counter plugins add to it."""

# Usage: bench/run-overhead.py BUILD_DIR [--quick] [--runs N] [--calls N] [--only a,b] ...
# Builds bench/overhead.c once per distinct build command (plain, against libvtfloor, with the
# build tree's vtcc and each instrumentation method), runs every variant round-robin, then
# times the compilation of a large generated file with each compiler plugin; prints tables
# and writes JSON to bench/results/. Only the standard library is used. See docs/bench.md.

import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import benchlib

SRC_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT_DIR = os.path.dirname(SRC_DIR)


@dataclass
class Tools:
    """What a variant's build command may use."""
    cc: str
    cflags: list
    src: str
    vtcc: str
    floor_dir: str
    filter: str  # the filter file (for compile-time filtering)


@dataclass
class Variant:
    """One way of building and running bench/overhead.c; one row of the report."""
    name: str
    build: Callable[[Tools], list]  # compiler command without "-o OUT"
    traces: bool = False             # runs get VT_PFORM_GDIR=<fresh dir>; the archive is measured
    records: bool = True             # with traces: every call is in the trace (not filtered)
    env: dict = field(default_factory=dict)  # values may use {filter}
    target: Optional[float] = None   # max (added cost / floor's added cost), checked in the report
    role: str = ""                   # "base" and "floor" are what the others are compared with
    note: str = ""
    extra: bool = False              # run only when named in --only, or with --all
    floor: str = ""                  # the floor variant to compare with (default: role "floor")
    base: str = ""                   # the uninstrumented variant to subtract (default: role "base")
    # Counter plugin variants (--plugins): the vt variant without plugins they are compared
    # with, per event; the synchronous values each Enter/Leave carries; the (library,
    # counter) reads that are the plugin's own work per event; a callback plugin's stats.
    ref: str = ""
    values: int = 0
    reads: tuple = ()
    callback: bool = False
    event_target: Optional[float] = None  # max ns per event over ref, minus the plugin's work


def _plain(t):
    return [t.cc, *t.cflags, t.src]


def _floor(t):
    return [t.cc, *t.cflags, "-finstrument-functions", t.src,
            "-L" + t.floor_dir, "-Wl,-rpath," + t.floor_dir, "-lvtfloor"]


def _vt_compinst(t):
    return [t.vtcc, "-vt:inst", "compinst", *t.cflags, t.src]


# clang's own reference points, for the LLVM plugin: a different compiler makes a different
# loop, so its added cost is measured against clang's uninstrumented build and floor.
def _plain_clang(t):
    return ["clang", *t.cflags, t.src]


def _floor_clang(t):
    return ["clang", *t.cflags, "-finstrument-functions", t.src,
            "-L" + t.floor_dir, "-Wl,-rpath," + t.floor_dir, "-lvtfloor"]


def _vt_compinst_clang(t):
    return [t.vtcc, "-vt:cc", "clang", "-vt:inst", "compinst", *t.cflags, t.src]


# The user API and perfstubs: the function is a region of its own (vtcc -vt:inst manual, so
# the compiler does not instrument it too).
def _vt_user(t):
    return [t.vtcc, "-vt:inst", "manual", "-DBENCH_USER", *t.cflags, t.src]


def _vt_perfstubs(t):
    return [t.vtcc, "-vt:inst", "manual", "-DBENCH_PERFSTUBS", *t.cflags, t.src]


# PAPI: compinst with the benchmark's SDE library linked in (its event is registered at load).
def _vt_compinst_sde(t):
    return [t.vtcc, "-vt:inst", "compinst", *t.cflags, t.src, "-L" + t.floor_dir,
            "-Wl,-rpath," + t.floor_dir, "-Wl,--no-as-needed", "-lbenchsde"]


def _vt_gcc(t):
    return [t.vtcc, "-vt:cc", "gcc", "-vt:inst", "gcc", *t.cflags, t.src]


def _vt_gcc_ctfilter(t):
    return [t.vtcc, "-vt:cc", "gcc", "-vt:inst", "gcc", "-vt:filter", t.filter, *t.cflags,
            t.src]


def _vt_llvm(t):
    return [t.vtcc, "-vt:cc", "clang", "-vt:inst", "llvm", *t.cflags, t.src]


def _vt_llvm_ctfilter(t):
    return [t.vtcc, "-vt:cc", "clang", "-vt:inst", "llvm", "-vt:filter", t.filter, *t.cflags,
            t.src]


# Adding a variant is one entry here. Variants with the same build command share one binary.
VARIANTS = [
    Variant("uninstrumented", _plain, role="base", note="no instrumentation"),
    Variant("floor", _floor, role="floor", note="libvtfloor: rdtsc + address into a TLS ring"),
    Variant("vt", _vt_compinst, traces=True, target=2.0,
            note="vtcc -vt:inst compinst, trace written, default buffer"),
    Variant("vt-filtered", _vt_compinst, traces=True, target=1.5,
            env={"VT_FILTER_SPEC": "{filter}"}, records=False,
            note="filter: empty_function -- 0"),
    Variant("vt-buf1M", _vt_compinst, traces=True, env={"VT_BUFFER_SIZE": "1M"},
            note="VT_BUFFER_SIZE=1M"),
    Variant("vt-buf64M", _vt_compinst, traces=True, env={"VT_BUFFER_SIZE": "64M"},
            note="VT_BUFFER_SIZE=64M"),
    Variant("floor-fresh", _floor, env={"VTFLOOR_BUFFER_SIZE": "1G"}, role="floor",
            note="floor with a 1G ring: every record on a fresh page", extra=True),
    Variant("vt-noflush", _vt_compinst, traces=True, env={"VT_BUFFER_SIZE": "1G"},
            floor="floor-fresh", note="VT_BUFFER_SIZE=1G: no flush in the loop", extra=True),
    Variant("vt-off", _vt_compinst, env={"VT_ON": "no"},
            note="VT_ON=no: what tracing switched off costs", extra=True),
    Variant("vt-monotonic", _vt_compinst, traces=True, env={"VT_TIMER": "monotonic"},
            note="VT_TIMER=monotonic: the clock's share", extra=True),
    # The compiler plugins: a static descriptor per function, no address table.
    Variant("vt-gcc", _vt_gcc, traces=True, target=2.0,
            note="vtcc -vt:inst gcc (GCC plugin), trace written, default buffer"),
    Variant("vt-gcc-filtered", _vt_gcc, traces=True, target=1.5, records=False,
            env={"VT_FILTER_SPEC": "{filter}"}, note="GCC plugin, run-time filter"),
    Variant("vt-gcc-ctfilter", _vt_gcc_ctfilter, traces=True, target=0.1, records=False,
            note="GCC plugin, -vt:filter (compile time): the function is not instrumented"),
    Variant("vt-gcc-noflush", _vt_gcc, traces=True, env={"VT_BUFFER_SIZE": "1G"},
            floor="floor-fresh", target=1.0, extra=True,
            note="GCC plugin, VT_BUFFER_SIZE=1G: the hot path alone"),
    # The user API and perfstubs, against the compinst cost of a call (the vt variant).
    Variant("vt-user", _vt_user, traces=True, target=1.2, floor="vt", extra=True,
            note="VT_USER_START/END around the body (vtcc -vt:inst manual), vs vt"),
    Variant("vt-perfstubs", _vt_perfstubs, traces=True, floor="vt", extra=True,
            note="a perfstubs timer pair through dlsym'd ps_tool_timer_start/stop, vs vt"),
    Variant("uninst-clang", _plain_clang, role="base",
            note="clang, no instrumentation: the base of the clang variants"),
    Variant("floor-clang", _floor_clang, role="floor", base="uninst-clang",
            note="clang -finstrument-functions + libvtfloor: the floor of the clang variants"),
    Variant("vt-clang", _vt_compinst_clang, traces=True, target=2.0, base="uninst-clang",
            floor="floor-clang", note="vtcc -vt:cc clang -vt:inst compinst"),
    Variant("vt-llvm", _vt_llvm, traces=True, target=2.0, base="uninst-clang",
            floor="floor-clang", note="vtcc -vt:inst llvm (LLVM plugin), default buffer"),
    Variant("vt-llvm-filtered", _vt_llvm, traces=True, target=1.5, records=False,
            base="uninst-clang", floor="floor-clang", env={"VT_FILTER_SPEC": "{filter}"},
            note="LLVM plugin, run-time filter"),
    Variant("vt-llvm-ctfilter", _vt_llvm_ctfilter, traces=True, target=0.1, records=False,
            base="uninst-clang", floor="floor-clang",
            note="LLVM plugin, -vt:filter (compile time)"),
]


# The counter plugins of bench/plugin-sync.c and bench/plugin-callback.c, built by meson into
# BUILD/bench ({plugins} in env values).
def _plugin_env(metrics, **more):
    return dict({"VT_PLUGIN_CNTR_PATH": "{plugins}", "VT_PLUGIN_CNTR_METRICS": metrics}, **more)


PLUGIN_VARIANTS = [
    Variant("vt-sync1", _vt_compinst, traces=True, env=_plugin_env("benchsync_const0"),
            ref="vt", values=1, reads=(("benchsync", "const0"),), event_target=10.0,
            extra=True, note="one synchronous counter returning a constant"),
    Variant("vt-sync1-inc", _vt_compinst, traces=True, env=_plugin_env("benchsync_inc0"),
            ref="vt", values=1, reads=(("benchsync", "inc0"),), event_target=10.0, extra=True,
            note="one synchronous counter returning a thread-local increment"),
    Variant("vt-sync10", _vt_compinst, traces=True, env=_plugin_env("benchsync_const*"),
            ref="vt", values=10, reads=(("benchsync", "const0"),) * 10, extra=True,
            note="ten synchronous counters returning constants"),
    Variant("vt-sync1-noflush", _vt_compinst, traces=True,
            env=_plugin_env("benchsync_const0", VT_BUFFER_SIZE="2G"), ref="vt-noflush",
            floor="floor-fresh", values=1, reads=(("benchsync", "const0"),), event_target=10.0,
            extra=True, note="vt-sync1 with VT_BUFFER_SIZE=2G: no flush in the loop"),
    Variant("vt-sync10-noflush", _vt_compinst, traces=True,
            env=_plugin_env("benchsync_const*", VT_BUFFER_SIZE="8G"), ref="vt-noflush",
            floor="floor-fresh", values=10, reads=(("benchsync", "const0"),) * 10, extra=True,
            note="vt-sync10 with VT_BUFFER_SIZE=8G: no flush in the loop (3.5 GB resident)"),
    Variant("vt-papi-sde1", _vt_compinst_sde, traces=True,
            env={"VT_METRICS": "sde:::Benchsde::count"}, ref="vt", values=1,
            reads=(("papi", "sde:::Benchsde::count"),), event_target=10.0, extra=True,
            note="one PAPI software-defined counter (VT_METRICS), read at every event"),
    Variant("vt-callback", _vt_compinst, traces=True, env=_plugin_env("benchcb_values"),
            ref="vt", callback=True, extra=True,
            note="a callback plugin's thread sending 10^6 values/s"),
]
VARIANTS += PLUGIN_VARIANTS
# --plugins: these and what they are compared with.
PLUGIN_SET = ["uninstrumented", "floor", "vt", "floor-fresh", "vt-noflush"] + \
    [v.name for v in PLUGIN_VARIANTS]
CALLBACK_RE = re.compile(r"benchcb: sent=(\d+) ok=(\d+) buffer_full=(\d+) trace_off=(\d+) "
                         r"seconds=([0-9.]+)")

FILTER_TEXT = "# The overhead benchmark's filter: never record the measured function.\n" \
              "empty_function -- 0\n"
NOTICE_RE = re.compile(r"trace written to (\S+) \((\d+) events?, (\d+) locations?\)")


def log(msg):
    sys.stdout.flush()
    print("run-overhead: " + msg, file=sys.stderr, flush=True)


def parse_args():
    p = argparse.ArgumentParser(
        description="vt's overhead benchmark: ns per call of an empty function, per variant.")
    p.add_argument("build_dir", help="a meson build directory of vt (already built)")
    p.add_argument("--quick", action="store_true",
                   help="3 runs of 10^6 calls: checks that everything works")
    p.add_argument("--runs", type=int, help="timed runs per variant (default 7, quick 3)")
    p.add_argument("--calls", type=int, help="calls per run (default 10^7, quick 10^6)")
    p.add_argument("--only", help="comma-separated variant names (default: all but extras)")
    p.add_argument("--all", action="store_true", help="also run the extra variants")
    p.add_argument("--plugins", action="store_true",
                   help="only the counter plugin variants and the ones they are compared with "
                   "(%s)" % ", ".join(PLUGIN_SET))
    p.add_argument("--cc", default=os.environ.get("CC", "cc"),
                   help="C compiler for every variant; vtcc gets it as VT_CC (default: $CC or cc)")
    p.add_argument("--cflags", default="-O2", help="flags for every variant (default: -O2)")
    p.add_argument("--pin", type=int, metavar="CPU", help="pin the runs to one CPU")
    p.add_argument("--noise-limit", type=float, default=0.25, metavar="CPUS",
                   help="a run during which the rest of the machine used more CPUs than this is "
                   "noisy (default 0.25)")
    p.add_argument("--retries", type=int, default=3,
                   help="repeat a noisy run up to this often, keep the quietest (default 3)")
    p.add_argument("--wait-quiet", type=float, default=120, metavar="SECONDS",
                   help="before each round, wait up to this long for the machine to be quiet "
                   "(default 120; 0: never wait)")
    p.add_argument("--work-dir",
                   help="binaries and traces (default: BUILD_DIR/bench/overhead-work)")
    p.add_argument("--keep-traces", action="store_true",
                   help="keep the last trace of each variant in WORK_DIR/traces-kept/<variant>")
    p.add_argument("--json", help="result file (default: bench/results/overhead-<time>.json)")
    p.add_argument("--list", action="store_true", help="list the variants and exit")
    p.add_argument("--no-compile-time", dest="compile_time", action="store_false",
                   help="skip the compile-time measurement of the plugins")
    p.add_argument("--compile-time-only", action="store_true",
                   help="only the compile-time measurement, no variant")
    p.add_argument("--compile-runs", type=int,
                   help="compilations per configuration (default 5, quick 1)")
    p.add_argument("--compile-functions", type=int,
                   help="functions in the generated file (default 500, quick 200)")
    a = p.parse_args()
    a.runs = a.runs or (3 if a.quick else 7)
    a.compile_runs = a.compile_runs or (1 if a.quick else 5)
    a.compile_functions = a.compile_functions or (200 if a.quick else 500)
    a.calls = a.calls or (10**6 if a.quick else 10**7)
    if a.runs < 1 or a.calls < 1:
        p.error("--runs and --calls must be positive")
    return a


def clean_env():
    """The caller's environment without VT_* settings (only the variant's own apply) and without
    loader overrides (meson sets LD_LIBRARY_PATH for benchmarks; binaries use their rpath)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VT_", "VTFLOOR_")) and k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    env["LC_ALL"] = "C"
    return env



def file_digest(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()[:16]
    except OSError:
        return None


def machine_info(args, build_dir, vt_info):
    info = {"kernel": platform.release(), "arch": platform.machine(), "cpus": os.cpu_count()}
    flags = set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, val = line.partition(":")
                key = key.strip()
                if key == "model name" and "cpu_model" not in info:
                    info["cpu_model"] = val.strip()
                elif key == "flags" and not flags:
                    flags = set(val.split())
    except OSError:
        pass
    info["tsc_flags"] = sorted(flags & {"tsc", "constant_tsc", "nonstop_tsc", "tsc_known_freq",
                                        "rdtscp"})
    info["hypervisor"] = "hypervisor" in flags
    try:
        with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
            info["clocksource"] = f.read().strip()
    except OSError:
        info["clocksource"] = None
    info["compiler"] = benchlib.first_line([args.cc, "--version"])
    try:
        with open(os.path.join(build_dir, "meson-info", "intro-buildoptions.json")) as f:
            opts = {o["name"]: o["value"] for o in json.load(f)}
        info["buildtype"] = opts.get("buildtype")
        info["optimization"] = opts.get("optimization")
        info["b_ndebug"] = opts.get("b_ndebug")
    except (OSError, ValueError, KeyError):
        info["buildtype"] = None
    info["git"] = benchlib.first_line(["git", "-C", ROOT_DIR, "describe", "--always", "--dirty"])
    info["libvt_sha256"] = file_digest(os.path.join(build_dir, "runtime", "libvt.so"))
    info["vt_info"] = None
    if os.access(vt_info, os.X_OK):
        try:
            out = subprocess.run([vt_info], capture_output=True, text=True, timeout=20,
                                 env=clean_env())
            text = (out.stdout + out.stderr).strip()
            info["vt_info"] = text if out.returncode == 0 else \
                "vt-info exited %d: %s" % (out.returncode, text[:500])
        except (OSError, subprocess.SubprocessError) as e:
            info["vt_info"] = "vt-info failed: %s" % e
    return info


def build(variants, tools, work, env):
    """Compiles each distinct command once. Returns {variant name: (binary or None, error)}."""
    out, done = {}, {}
    for v in variants:
        cmd = v.build(tools)
        key = tuple(cmd)
        if key not in done:
            exe = os.path.join(work, "overhead-" + v.name)
            if cmd[0] == tools.vtcc and not os.access(tools.vtcc, os.X_OK):
                done[key] = (None, "vtcc not built: %s" % tools.vtcc, cmd)
            else:
                try:
                    r = subprocess.run(cmd + ["-o", exe], capture_output=True, text=True,
                                       env=env, timeout=300)
                    if r.returncode == 0:
                        done[key] = (exe, None, cmd)
                    else:
                        done[key] = (None, "build failed (%d): %s" % (
                            r.returncode, (r.stderr or r.stdout).strip()[-600:]), cmd)
                except (OSError, subprocess.SubprocessError) as e:
                    done[key] = (None, "build failed: %s" % e, cmd)
        out[v.name] = done[key]
    return out


def tree_bytes(path):
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(d, f)).st_size
            except OSError:
                pass
    return total


def has_archive(path):
    for d, _, files in os.walk(path):
        if any(f.endswith(".otf2") for f in files):
            return True
    return False


HZ = os.sysconf("SC_CLK_TCK")


def cpu_busy_s():
    """Seconds all CPUs spent busy since boot (user, system, irq, steal) from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal ...
    return (v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)) / HZ


def others_load(seconds):
    """CPUs' worth of work done by everything on the machine over the next `seconds`."""
    b0 = cpu_busy_s()
    time.sleep(seconds)
    b1 = cpu_busy_s()
    return None if b0 is None or b1 is None else (b1 - b0) / seconds


def wait_quiet(limit, timeout):
    """Waits (at most `timeout` s) until the rest of the machine uses under `limit` CPUs."""
    t_end = time.monotonic() + timeout
    load = others_load(0.5)
    while load is not None and load > limit and time.monotonic() < t_end:
        time.sleep(1.5)
        load = others_load(0.5)
    return load


def run_once(runner, exe, calls, env, trace_root, keep_dir, work):
    """One run: loop time from the program; wall time, ru_maxrss and exit from bench-run."""
    tdir = tempfile.mkdtemp(prefix="run-", dir=trace_root) if trace_root else None
    if tdir:
        env = dict(env, VT_PFORM_GDIR=tdir)
    out_path = os.path.join(work, "last.stdout")
    err_path = os.path.join(work, "last.stderr")
    res_path = os.path.join(work, "last.result")
    res = {}
    try:
        with open(out_path, "w") as out, open(err_path, "w") as err:
            busy0 = cpu_busy_s()
            r = subprocess.run([runner, res_path, exe, str(calls)], env=env, stdout=out,
                               stderr=err, cwd=tdir or work)
            busy1 = cpu_busy_s()
        with open(out_path, errors="replace") as f:
            stdout = f.read()
        with open(err_path, errors="replace") as f:
            res["stderr"] = f.read()[-2000:]
        m = None
        if r.returncode == 0:
            with open(res_path) as f:
                m = re.search(r"wall_ns=(\d+) cpu_ns=(\d+) maxrss_kib=(\d+) exit=(\d+)",
                              f.read())
        if m is None:
            res.update(exit=-1, loop_ns=None, wall_s=None, maxrss_kib=None)
            res["stderr"] += "\nbench-run failed (%d)" % r.returncode
            return res
        res["wall_s"] = int(m.group(1)) / 1e9
        res["cpu_s"] = int(m.group(2)) / 1e9
        res["maxrss_kib"] = int(m.group(3))
        res["exit"] = int(m.group(4))
        # What the rest of the machine did meanwhile, in CPUs (/proc/stat ticks are 10 ms, so
        # this is rough for short runs): the noise indicator of the run.
        if busy0 is not None and busy1 is not None and res["wall_s"] > 0:
            res["others_cpus"] = max(0.0, (busy1 - busy0 - res["cpu_s"]) / res["wall_s"])
        m = re.search(r"calls=(\d+) loop_ns=(\d+)", stdout)
        res["loop_ns"] = int(m.group(2)) if m else None
        if tdir:
            res["trace_bytes"] = tree_bytes(tdir)
            res["trace_written"] = has_archive(tdir)
            n = NOTICE_RE.search(res["stderr"])
            res["events_reported"] = int(n.group(2)) if n else None
            if keep_dir:
                shutil.rmtree(keep_dir, ignore_errors=True)
                shutil.move(tdir, keep_dir)
    finally:
        if tdir:
            shutil.rmtree(tdir, ignore_errors=True)
    return res


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarize(v, runs, calls):
    ns = [r["loop_ns"] / calls for r in runs if r.get("loop_ns")]
    s = {
        "name": v.name, "note": v.note, "env": v.env, "runs": len(runs),
        "ns_per_call": med(ns), "ns_per_call_min": min(ns) if ns else None,
        "ns_per_call_max": max(ns) if ns else None, "ns_per_call_all": ns,
        "loop_s": med([r["loop_ns"] / 1e9 for r in runs if r.get("loop_ns")]),
        "wall_s": med([r["wall_s"] for r in runs]),
        # Start-up plus finalize (trace writing): the run outside the timed loop.
        "outside_loop_s": med([r["wall_s"] - r["loop_ns"] / 1e9 for r in runs if r.get("loop_ns")]),
        "maxrss_kib": med([r["maxrss_kib"] for r in runs]),
        "cpu_s": med([r.get("cpu_s") for r in runs]),
        "others_cpus": med([r.get("others_cpus") for r in runs]),
        "others_cpus_max": max([r.get("others_cpus", 0) for r in runs], default=None),
        "attempts": sum(r.get("attempts", 1) for r in runs),
    }
    if v.callback:
        stats = [CALLBACK_RE.search(r.get("stderr", "")) for r in runs]
        stats = [[float(x) for x in m.groups()] for m in stats if m]
        s["callback_runs"] = len(stats)
        if stats:
            for i, key in enumerate(("sent", "accepted", "buffer_full", "trace_off")):
                s["callback_" + key] = med([x[i] for x in stats])
            s["callback_refused_max"] = max(x[2] + x[3] for x in stats)
            s["callback_rate"] = med([x[0] / x[4] for x in stats if x[4] > 0])
    if v.traces:
        s["buffer_size"] = v.env.get("VT_BUFFER_SIZE", "8M (default)")
        s["trace_written"] = all(r.get("trace_written") for r in runs)
        s["trace_bytes"] = med([r.get("trace_bytes") for r in runs])
        s["events_reported"] = med([r.get("events_reported") for r in runs])
    return s


def derive(summaries, variants, calls):
    by = {s["name"]: s for s in summaries}
    base = next((by[v.name] for v in variants if v.role == "base" and v.name in by), None)
    default_floor = next((by[v.name] for v in variants if v.role == "floor" and v.name in by),
                         None)
    # What the instrumented program would write: enter+exit per call, the warm-up call, main.
    expected_events = 2 * (calls + 1) + 2
    default_base = base
    for v in variants:
        s = by.get(v.name)
        if s is None or s["ns_per_call"] is None:
            continue
        base = by.get(v.base) if v.base else default_base
        floor = by.get(v.floor) if v.floor else default_floor
        s["floor"] = floor["name"] if floor and v.role != "floor" else None
        s["base"] = base["name"] if base and v.role != "base" else None
        if s.get("cpu_s") is not None:
            # CPU time of the whole run, all threads (a background writer included), per call.
            s["cpu_ns_per_call"] = s["cpu_s"] * 1e9 / calls
        if base and base["ns_per_call"] is not None:
            s["added_ns"] = s["ns_per_call"] - base["ns_per_call"]
            s["added_ns_min"] = s["ns_per_call_min"] - base["ns_per_call_min"]
            if floor and floor.get("added_ns") and v.role not in ("base", "floor"):
                s["added_vs_floor"] = s["added_ns"] / floor["added_ns"]
                # The best runs: the least disturbed estimate on a shared machine.
                s["added_vs_floor_min"] = s["added_ns_min"] / floor["added_ns_min"]
            if s.get("cpu_ns_per_call") is not None and base.get("cpu_ns_per_call") is not None:
                s["added_cpu_ns"] = s["cpu_ns_per_call"] - base["cpu_ns_per_call"]
                if floor and floor.get("added_cpu_ns") and v.role not in ("base", "floor"):
                    s["added_cpu_vs_floor"] = s["added_cpu_ns"] / floor["added_cpu_ns"]
        if v.traces and s.get("trace_written"):
            rep = s.get("events_reported")
            s["events"] = rep
            # A runtime that drops or filters wrongly would make every figure here a lie.
            if v.records and rep is not None and rep < expected_events:
                s["warning"] = "trace has %d events, expected %d" % (rep, expected_events)
            if not v.records and rep is not None and rep >= 2 * calls:
                s["warning"] = "filter not applied: %d events" % rep
            if v.records:
                ev = rep or expected_events
                s["events"] = ev
                s["events_per_s_loop"] = 2 * calls / s["loop_s"] if s["loop_s"] else None
                s["events_per_s_wall"] = ev / s["wall_s"] if s["wall_s"] else None
                s["bytes_per_event"] = s["trace_bytes"] / ev if ev else None
        if v.target is not None:
            r = s.get("added_vs_floor")
            s["target"] = v.target
            # Without a trace the runtime did not do its work: no verdict.
            valid = r is not None and (not v.traces or s.get("trace_written")) and \
                not s.get("warning")
            s["target_met"] = r <= v.target if valid else None
    return expected_events


def plugin_reads(program, plugin_dir, variants, env, args):
    """The plugin's own work: ns per get_current_value of each (library, counter) the
    variants read, timed without vt by bench/plugin-read (median of 5 runs of 10^8, each
    on a quiet machine as the variants' runs are)."""
    out = {}
    for v in variants:
        for lib, counter in v.reads:
            if (lib, counter) in out:
                continue
            times = []
            for _ in range(5):
                if args.wait_quiet > 0:
                    wait_quiet(args.noise_limit, args.wait_quiet)
                # ("papi", EVENT): PAPI_read of EVENT, timed by bench/papi-read.
                cmd = [os.path.join(plugin_dir, "papi-read"), counter, "1000000"] \
                    if lib == "papi" else \
                    [program, os.path.join(plugin_dir, "lib%s.so" % lib), counter, "100000000"]
                r = subprocess.run(cmd, capture_output=True, text=True, env=env)
                m = re.search(r"read_ns=([0-9.]+)", r.stdout)
                if r.returncode != 0 or not m:
                    log("plugin-read %s %s failed: %s" % (lib, counter, r.stderr.strip()))
                    break
                times.append(float(m.group(1)))
            out[(lib, counter)] = med(times)
    return out


def derive_plugins(summaries, variants, calls, expected_events, reads):
    """Per plugin variant: the cost per event over its vt variant without plugins (2 events
    per call), the plugin's own work per event, and a check of the values in the trace."""
    by = {s["name"]: s for s in summaries}
    for v in variants:
        s, ref = by.get(v.name), by.get(v.ref)
        if not v.ref or s is None or s.get("ns_per_call") is None:
            continue
        s["ref"] = v.ref
        s["values_per_event"] = v.values
        own = [reads.get(r) for r in v.reads]
        s["plugin_ns_per_event"] = sum(own) if own and None not in own else (0.0 if not own
                                                                              else None)
        if ref is None or ref.get("ns_per_call") is None:
            continue
        s["added_ns_per_event"] = (s["ns_per_call"] - ref["ns_per_call"]) / 2
        s["added_ns_per_event_min"] = (s["ns_per_call_min"] - ref["ns_per_call_min"]) / 2
        if s.get("cpu_ns_per_call") is not None and ref.get("cpu_ns_per_call") is not None:
            s["added_cpu_ns_per_event"] = (s["cpu_ns_per_call"] - ref["cpu_ns_per_call"]) / 2
        if s["plugin_ns_per_event"] is not None:
            s["host_ns_per_event"] = s["added_ns_per_event"] - s["plugin_ns_per_event"]
            s["host_ns_per_event_min"] = s["added_ns_per_event_min"] - s["plugin_ns_per_event"]
        # Every event of the program carries the values (BufferFlush records do not); a
        # callback plugin's accepted values are events of their own location.
        rep = s.get("events_reported")
        want = expected_events * (1 + v.values)
        if v.callback:
            want += int(s.get("callback_accepted") or 0)
        s["events_expected_min"] = want
        if rep is not None and rep < want:
            s["warning"] = "trace has %d events, expected at least %d" % (rep, want)
        if v.callback and not s.get("callback_runs"):
            s["warning"] = "the callback plugin reported nothing (benchcb: line missing)"
        if v.event_target is not None:
            h = s.get("host_ns_per_event")
            s["event_target"] = v.event_target
            s["event_target_met"] = None if h is None or s.get("warning") else \
                h <= v.event_target


def print_plugins(res, p):
    rows = [s for s in res["variants"] if s.get("ref")]
    if not rows:
        return
    p()
    p("counter plugins: cost per event over the vt variant without plugins (2 events per call)")
    hdr = "%-18s %-11s %7s %8s %9s %8s %8s %9s %10s %8s" % (
        "variant", "vs", "values", "ns/call", "+ns/event", "(min)", "plugin", "vt's part",
        "+cpu/event", "B/event")
    p(hdr)
    p("-" * len(hdr))
    for s in rows:
        p("%-18s %-11s %7s %8s %9s %8s %8s %9s %10s %8s" % (
            s["name"], s["ref"], s.get("values_per_event", 0), fmt(s["ns_per_call"], ".2f"),
            fmt(s.get("added_ns_per_event"), "+.2f"), fmt(s.get("added_ns_per_event_min"),
                                                          "+.2f"),
            fmt(s.get("plugin_ns_per_event"), ".2f"), fmt(s.get("host_ns_per_event"), "+.2f"),
            fmt(s.get("added_cpu_ns_per_event"), "+.2f"), fmt(s.get("bytes_per_event"), ".2f")))
    for s in rows:
        if "callback_sent" in s:
            p("%s: values sent %d (%.0f/s), accepted %d, refused: buffer full %d, trace off %d"
              " (medians over %d runs; most refused in one run: %d)" % (
                  s["name"], s["callback_sent"], s.get("callback_rate") or 0,
                  s["callback_accepted"], s["callback_buffer_full"], s["callback_trace_off"],
                  s["callback_runs"], s["callback_refused_max"]))
    for s in rows:
        if "event_target" in s:
            verdict = {True: "ok", False: "OVER TARGET", None: "n/a"}[s.get("event_target_met")]
            p("target: %-18s vt's part per event %s ns (fastest runs %s); target <= %.1f: %s"
              % (s["name"], fmt(s.get("host_ns_per_event"), ".2f"),
                 fmt(s.get("host_ns_per_event_min"), ".2f"), s["event_target"], verdict))
    p("(+ns/event: (ns/call - the vs variant's ns/call) / 2, median runs, (min) from the fastest;"
      " plugin: get_current_value's own time per event, timed without vt (bench/plugin-read);"
      " vt's part: +ns/event minus plugin; +cpu/event: the same over CPU time of the whole run,"
      " all threads; B/event: archive bytes over all events, values included)")


# ---------------------------------------------------------------------------------------
# Compile time: what each way of instrumenting adds to compiling a large file

def generate_big_file(path, n):
    """A C file of n functions of typical size (a loop, branches, a call to the previous
    function, a static helper), about 25 lines each; nothing in it is from a system header."""
    out = ["/* Generated by bench/run-overhead.py: a large file for compile-time figures. */",
           "extern volatile long big_sink;", "volatile long big_sink;"]
    for i in range(n):
        prev = "f%d(x - 1, y)" % (i - 1) if i else "x"
        out.append("""
static long helper%(i)d(long a, long b)
{
	return (a * %(k)d + b) ^ (a >> 3);
}

long f%(i)d(long x, long y)
{
	long acc = 0;
	for (long j = 0; j < (x & 15); j++) {
		if ((j + y) %% 3 == 0)
			acc += helper%(i)d(j, y);
		else if (j & 1)
			acc -= j * %(k)d;
		else
			acc ^= big_sink;
	}
	switch (y & 3) {
	case 0: acc += %(k)d; break;
	case 1: acc -= x; break;
	default: acc += x > 0 ? %(prev)s : 0; break;
	}
	big_sink += acc;
	return acc;
}""" % {"i": i, "k": i * 7 + 3, "prev": prev})
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def compile_time(args, tools, work, env):
    """Median wall time of compiling the generated file per compiler, -O level and method,
    and its ratio to the plain compilation (same compiler and level)."""
    src = os.path.join(work, "big.c")
    generate_big_file(src, args.compile_functions)
    obj = os.path.join(work, "big.o")
    configs = []
    for cc, plugin in (("gcc", "gcc"), ("clang", "llvm")):
        for opt in ("-O0", "-O2"):
            for method in ("plain", "compinst", plugin):
                cmd = [cc] if method == "plain" else \
                    [tools.vtcc, "-vt:cc", cc, "-vt:inst", method]
                configs.append({"compiler": cc, "opt": opt, "method": method,
                                "command": cmd + [opt, "-c", src, "-o", obj], "times": []})
    for c in configs:  # a warm-up each, which also checks the command works
        r = subprocess.run(c["command"], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            c["error"] = (r.stderr or r.stdout).strip()[-400:]
    log("compile time: %d functions, %d configurations x %d runs" % (
        args.compile_functions, len(configs), args.compile_runs))
    # CPU time (user + system of the driver and everything it ran) is the figure: on a
    # shared VM, wall time varies by 2x between identical compilations, CPU time far less.
    for _ in range(args.compile_runs):
        if args.wait_quiet > 0:
            wait_quiet(args.noise_limit, args.wait_quiet)
        for c in configs:
            if c.get("error"):
                continue
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(c["command"], capture_output=True, env=env)
            wall = time.perf_counter() - t0
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            c["times"].append(wall)
            c.setdefault("cpu_times", []).append(r1.ru_utime - r0.ru_utime +
                                                 r1.ru_stime - r0.ru_stime)
    plain = {}
    for c in configs:
        c["seconds"] = med(c["times"]) if c["times"] else None
        cpu = c.get("cpu_times") or []
        c["cpu_seconds"] = med(cpu) if cpu else None
        c["cpu_seconds_min"] = min(cpu) if cpu else None
        if c["method"] == "plain":
            plain[(c["compiler"], c["opt"])] = c
    for c in configs:
        p = plain.get((c["compiler"], c["opt"]))
        ok = p and c["cpu_seconds"] and p["cpu_seconds"]
        c["ratio"] = c["cpu_seconds"] / p["cpu_seconds"] if ok else None
        c["ratio_min"] = c["cpu_seconds_min"] / p["cpu_seconds_min"] if ok else None
    return {"functions": args.compile_functions, "lines": sum(1 for _ in open(src)),
            "runs": args.compile_runs, "configs": configs}


def print_compile_time(ct, out=sys.stdout):
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p()
    p("compile time of a generated file of %d functions (%d lines), %d runs" % (
        ct["functions"], ct["lines"], ct["runs"]))
    hdr = "%-8s %-4s %-10s %9s %9s %9s %9s %9s" % (
        "compiler", "-O", "method", "cpu s", "min", "x plain", "(min)", "wall s")
    p(hdr)
    p("-" * len(hdr))
    for c in ct["configs"]:
        if c.get("error"):
            p("%-8s %-4s %-10s n/a: %s" % (c["compiler"], c["opt"], c["method"],
                                          c["error"].splitlines()[-1][:80]))
            continue
        p("%-8s %-4s %-10s %9s %9s %9s %9s %9s" % (
            c["compiler"], c["opt"], c["method"], fmt(c["cpu_seconds"], ".3f"),
            fmt(c["cpu_seconds_min"], ".3f"), fmt(c["ratio"], ".2f"),
            fmt(c["ratio_min"], ".2f"), fmt(c["seconds"], ".3f")))
    p("(cpu s: user + system time of the compiler driver and what it ran, median and min over"
      " the runs; x plain: over the same compiler and -O without vt; wall s: median)")


def fmt(x, spec, none="-"):
    return none if x is None else format(x, spec)


def print_report(res, out=sys.stdout):
    m = res["machine"]
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p()
    p("vt overhead benchmark, %s" % res["date"])
    p("  machine : %s, %s cpus, kernel %s%s" % (m.get("cpu_model"), m.get("cpus"), m.get("kernel"),
                                                 ", VM" if m.get("hypervisor") else ""))
    p("  clock   : clocksource %s; cpu flags %s" % (m.get("clocksource"),
                                                     " ".join(m.get("tsc_flags") or [])))
    p("  build   : meson buildtype %s (libvt, libvtfloor); variants: %s %s" % (
        m.get("buildtype"), m.get("compiler"), res["cflags"]))
    p("  runs    : median of %d runs of %d calls (+1 untimed warm-up run per variant)" % (
        res["runs"], res["calls"]))
    if m.get("vt_info"):
        p("  vt-info :")
        for line in m["vt_info"].splitlines()[:40]:
            p("    " + line)
    else:
        p("  vt-info : not available")
    p()
    cols = ("%-17s %8s %7s %7s %8s %7s %7s %9s %7s %7s %7s %6s")
    hdr = cols % ("variant", "ns/call", "min", "max", "added", "x floor", "(min)", "cpu/call",
                  "(cpu) x", "wall s", "outside", "noise")
    p(hdr)
    p("-" * len(hdr))
    for s in res["variants"]:
        if s.get("error"):
            p("%-17s %s" % (s["name"], "n/a: " + s["error"].splitlines()[0][:90]))
            continue
        p(cols % (
            s["name"], fmt(s["ns_per_call"], ".2f"), fmt(s["ns_per_call_min"], ".2f"),
            fmt(s["ns_per_call_max"], ".2f"), fmt(s.get("added_ns"), "+.2f"),
            fmt(s.get("added_vs_floor"), ".2f"), fmt(s.get("added_vs_floor_min"), ".2f"),
            fmt(s.get("cpu_ns_per_call"), ".2f"), fmt(s.get("added_cpu_vs_floor"), ".2f"),
            fmt(s["wall_s"], ".3f"), fmt(s.get("outside_loop_s"), ".3f"),
            fmt(s.get("others_cpus"), ".2f")))
    p()
    hdr = "%-17s %13s %10s %11s %10s %8s %11s %11s" % (
        "variant", "buffer", "maxrss MiB", "trace MB", "events", "B/event", "Mev/s loop",
        "Mev/s wall")
    p(hdr)
    p("-" * len(hdr))
    for s in res["variants"]:
        if s.get("error") or s["ns_per_call"] is None:
            continue
        tw = s.get("trace_written")
        p("%-17s %13s %10s %11s %10s %8s %11s %11s" % (
            s["name"], s.get("buffer_size", "-"),
            fmt(s["maxrss_kib"] and s["maxrss_kib"] / 1024, ".1f"),
            fmt(s.get("trace_bytes") and s["trace_bytes"] / 1e6, ".2f") if tw is not False
            else "no trace",
            fmt(s.get("events"), "d"), fmt(s.get("bytes_per_event"), ".2f"),
            fmt(s.get("events_per_s_loop") and s["events_per_s_loop"] / 1e6, ".1f"),
            fmt(s.get("events_per_s_wall") and s["events_per_s_wall"] / 1e6, ".1f")))
    p()
    for s in res["variants"]:
        if "target" in s:
            r = s.get("added_vs_floor")
            verdict = {True: "ok", False: "OVER TARGET", None: "n/a"}[s.get("target_met")]
            if s.get("trace_written") is False:
                verdict += " (no trace was written)"
            elif s.get("warning"):
                verdict += " (%s)" % s["warning"]
            p("target: %-12s added / floor's added = %s (best runs %s, CPU time %s); "
              "target <= %.1f: %s" % (
                  s["name"], fmt(r, ".2f"), fmt(s.get("added_vs_floor_min"), ".2f"),
                  fmt(s.get("added_cpu_vs_floor"), ".2f"), s["target"], verdict))
    print_plugins(res, p)
    for s in res["variants"]:
        if s.get("warning"):
            p("WARNING: %s: %s" % (s["name"], s["warning"]))
    p()
    p("variants:")
    for s in res["variants"]:
        p("  %-17s %s%s" % (s["name"], s["note"],
                            "; compared with " + s["floor"] if s.get("floor") not in (None, "floor")
                            else ""))
    p("(ns/call: the timed loop on the program's thread, median, min and max over the runs; added:"
      " minus uninstrumented; x floor: added / floor's added, (min): the same from the fastest"
      " runs; cpu/call: CPU time of the whole run, all threads, per call, and (cpu) x its added"
      " part / the floor's; wall s: the whole run, outside: wall minus the loop, i.e."
      " start-up and finalize with trace writing; noise: CPUs the rest of the machine used"
      " during the runs, median; events and Mev/s count the trace's events, 2 per call;"
      " B/event = archive bytes / events; Mev/s wall divides by the whole run including"
      " start-up and trace writing)")


def main():
    args = parse_args()
    variants = [v for v in VARIANTS if args.all or not v.extra]
    if args.list:
        for v in VARIANTS:
            print("%-17s %s%s" % (v.name, v.note, " (extra)" if v.extra else ""))
        return 0
    if args.plugins and not args.only:
        args.only = ",".join(PLUGIN_SET)
    if args.only:
        names = args.only.split(",")
        unknown = [n for n in names if n not in {v.name for v in VARIANTS}]
        if unknown:
            log("unknown variant(s): %s (see --list)" % ", ".join(unknown))
            return 2
        variants = [v for v in VARIANTS if v.name in names]

    if args.compile_time_only:
        variants, args.compile_time = [], True
    build_dir = os.path.abspath(args.build_dir)
    floor_lib = os.path.join(build_dir, "bench", "libvtfloor.so")
    runner = os.path.join(build_dir, "bench", "bench-run")
    plugin_dir = os.path.join(build_dir, "bench")
    plugin_read = os.path.join(build_dir, "bench", "plugin-read")
    needs_plugins = any(v.ref for v in variants)
    for f in (floor_lib, runner) + ((plugin_read,) if needs_plugins else ()):
        if not os.path.exists(f):
            log("%s is missing; build first: ninja -C %s" % (f, args.build_dir))
            return 2
    work = os.path.abspath(args.work_dir or os.path.join(build_dir, "bench", "overhead-work"))
    os.makedirs(work, exist_ok=True)
    trace_root = os.path.join(work, "traces")
    os.makedirs(trace_root, exist_ok=True)
    filter_path = os.path.join(work, "filter.txt")
    with open(filter_path, "w") as f:
        f.write(FILTER_TEXT)
    if args.pin is not None:
        os.sched_setaffinity(0, {args.pin})

    tools = Tools(cc=args.cc, cflags=args.cflags.split(), src=os.path.join(SRC_DIR, "overhead.c"),
                  vtcc=os.path.join(build_dir, "vtcc", "vtcc"),
                  floor_dir=os.path.dirname(floor_lib), filter=filter_path)
    base_env = clean_env()
    build_env = dict(base_env, VT_CC=args.cc)
    built = build(variants, tools, work, build_env)

    # Warm-up run (untimed) per variant; it also sorts out the variants that do not work.
    ready, errors = [], {}
    for v in variants:
        exe, err, _ = built[v.name]
        if exe is None:
            errors[v.name] = err
            log("%s: %s" % (v.name, err.splitlines()[0]))
            continue
        env = dict(base_env, **{k: x.format(filter=filter_path, plugins=plugin_dir)
                                for k, x in v.env.items()})
        r = run_once(runner, exe, args.calls, env, trace_root if v.traces else None, None, work)
        if r["exit"] != 0 or r["loop_ns"] is None:
            errors[v.name] = "run failed (exit %s): %s" % (r["exit"], r["stderr"].strip()[-600:])
            log("%s: %s" % (v.name, errors[v.name]))
            continue
        if v.traces and not r["trace_written"]:
            log("%s: no trace was written (runtime not ready?); timing it anyway" % v.name)
        ready.append((v, exe, env))

    reads = plugin_reads(plugin_read, plugin_dir, [v for v, _, _ in ready], base_env, args) \
        if needs_plugins else {}
    if reads:
        log("plugin reads without vt: %s" % ", ".join(
            "%s_%s %s ns" % (lib, c, fmt(ns, ".2f")) for (lib, c), ns in sorted(reads.items())))

    # The machine may be shared: wait for quiet before each round, and repeat a run during
    # which the rest of the machine was busy (keeping the quietest attempt).
    runs = {v.name: [] for v, _, _ in ready}
    for i in range(args.runs):
        load = wait_quiet(args.noise_limit, args.wait_quiet) if args.wait_quiet > 0 else None
        log("round %d/%d%s" % (i + 1, args.runs,
                               "" if load is None else " (machine load before: %.2f CPUs)" % load))
        for v, exe, env in ready:
            keep = os.path.join(work, "traces-kept", v.name) \
                if args.keep_traces and v.traces and i == args.runs - 1 else None
            best = None
            for attempt in range(1 + args.retries):
                r = run_once(runner, exe, args.calls, env, trace_root if v.traces else None,
                             keep, work)
                r["attempts"] = attempt + 1
                if r["exit"] != 0 or r["loop_ns"] is None:
                    best = r
                    break
                if best is None or r.get("others_cpus", 0) < best.get("others_cpus", 0):
                    best = r
                if r.get("others_cpus", 0) <= args.noise_limit:
                    break
            r = best
            if r["exit"] != 0 or r["loop_ns"] is None:
                log("%s: run %d failed (exit %s): %s" % (v.name, i + 1, r["exit"],
                                                          r["stderr"].strip()[-300:]))
                continue
            if r.get("others_cpus", 0) > args.noise_limit:
                log("%s: run %d: the machine stayed busy (others used %.2f CPUs)" % (
                    v.name, i + 1, r["others_cpus"]))
            runs[v.name].append(r)

    summaries = []
    for v in variants:
        if v.name in errors:
            summaries.append({"name": v.name, "note": v.note, "error": errors[v.name],
                              "command": built[v.name][2], "ns_per_call": None})
            continue
        s = summarize(v, runs[v.name], args.calls)
        s["command"] = built[v.name][2]
        last = runs[v.name][-1] if runs[v.name] else {}
        s["stderr_last_run"] = last.get("stderr", "")[-1000:]
        summaries.append(s)
    expected = derive(summaries, variants, args.calls)
    if needs_plugins:
        derive_plugins(summaries, variants, args.calls, expected, reads)

    res = {
        "benchmark": "overhead",
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "quick": args.quick, "runs": args.runs, "calls": args.calls,
        "expected_events": expected, "cc": args.cc, "cflags": args.cflags,
        "pinned_cpu": args.pin, "build_dir": build_dir,
        "machine": machine_info(args, build_dir,
                                os.path.join(build_dir, "tools", "vt-info", "vt-info")),
        "variants": summaries,
    }
    print_report(res)
    if args.compile_time:
        res["compile_time"] = compile_time(args, tools, work, build_env)
        print_compile_time(res["compile_time"])

    path = args.json
    if path is None:
        rdir = os.path.join(SRC_DIR, "results")
        os.makedirs(rdir, exist_ok=True)
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        path = os.path.join(rdir, "overhead-%s%s.json" % (stamp, "-quick" if args.quick else ""))
    with open(path, "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")
    print("\nresults written to %s" % path)
    ok = not errors and all(runs.values()) and \
        all(s.get("trace_written") is not False and not s.get("warning") for s in summaries)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
