# SPDX-License-Identifier: BSD-3-Clause
"""vt-profile --threads on test/lib/omptrace.py's OpenMP trace: exact per-thread times, imbalance."""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

import omptrace

VT_PROFILE = os.environ.get("VT_PROFILE", "vt-profile")
ENV = dict(os.environ)
ENV["LSAN_OPTIONS"] = ":".join(filter(None, [
    ENV.get("LSAN_OPTIONS"), "print_suppressions=0",
    "suppressions=" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "lsan.supp")]))

passed = failed = 0


def check(what, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok: %s" % what)
    else:
        failed += 1
        print("FAIL: %s%s" % (what, (": " + str(detail)) if detail else ""))


def equal(what, got, want):
    check(what, got == want, "got %r, want %r" % (got, want))


def run(*args):
    p = subprocess.run([VT_PROFILE] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, env=ENV)
    return p.returncode, p.stdout, p.stderr


def test_json(path):
    code, out, err = run("--threads", "--format", "json", path)
    equal("json: exit 0, nothing on stderr", (code, err), (0, ""))
    doc = json.loads(out)
    threads = {t["name"]: t for t in doc["threads"]}
    equal("json: a row per thread", sorted(threads), sorted(omptrace.EXPECTED_THREADS))
    for name, want in omptrace.EXPECTED_THREADS.items():
        t = threads.get(name, {})
        got = {k: t.get(k + "_ticks", t.get(k)) for k in want}
        equal("json: %s: times and counts" % name, got, want)
    cons = {c["name"]: c for c in doc["constructs"]}
    equal("json: every parallel and barrier region", sorted(cons),
          sorted(omptrace.EXPECTED_CONSTRUCTS))
    for name, (kind, per) in omptrace.EXPECTED_CONSTRUCTS.items():
        c = cons.get(name)
        if not c:
            continue
        equal("json: %s: kind" % name, c["kind"], kind)
        got = {t["name"]: (t["work_ticks"], t["wait_ticks"]) for t in c["threads"]}
        equal("json: %s: work and wait per thread" % name, got, per)
        work = [w for w, _ in per.values()]
        mean = sum(work) / len(work)
        equal("json: %s: max, mean, max/mean, max-mean" % name,
              (c["work"]["max_ticks"], c["work"]["mean_ticks"],
               round(c["work"]["max_over_mean"], 6), c["work"]["max_minus_mean_ticks"]),
              (max(work), mean, round(max(work) / mean, 6), max(work) - mean))
    # the largest max - mean first: IB1 (40), P1 (40; names break the tie), P2 (35), B2, IB2
    equal("json: most imbalanced first", [c["name"] for c in doc["constructs"]],
          [omptrace.IB1, omptrace.P1, omptrace.P2, omptrace.B2, omptrace.IB2])
    code, out, _ = run("--threads", "--format", "json", "--top", "2", path)
    equal("json: --top 2", [c["name"] for c in json.loads(out)["constructs"]],
          [omptrace.IB1, omptrace.P1])


def test_text(path):
    code, out, err = run("--threads", path)
    equal("text: exit 0", (code, err), (0, ""))
    lines = out.splitlines()
    row = [l.split() for l in lines if l.endswith("  Master thread") and "created" not in l]
    equal("text: Master thread's row", row[0] if row else None,
          "520 ns 140 ns 100 ns 120 ns 40 ns 20 ns 0 ns 2 1 1 Master thread".split())
    check("text: P2's summary line",
          "parallel %s: work max 290 ns, mean 255 ns, max/mean 1.137, max-mean 35 ns" % omptrace.P2
          in lines, out)
    check("text: B2's summary line",
          "barrier %s: waiting max 80 ns, mean 50 ns, max/mean 1.600, max-mean 30 ns" % omptrace.B2
          in lines, out)
    i = lines.index("parallel %s: work max 160 ns, mean 120 ns, max/mean 1.333, max-mean 40 ns"
                    % omptrace.P1) if any(l.startswith("parallel " + omptrace.P1) for l in lines) else -1
    equal("text: P1's threads: calls, work, barrier", [l.split() for l in lines[i + 2:i + 4]],
          [["1", "160", "ns", "40", "ns", "Master", "thread"],
           ["1", "80", "ns", "120", "ns", "OpenMP", "thread", "1"]])


def test_csv(path):
    code, out, err = run("--threads", "--format", "csv", path)
    equal("csv: exit 0", (code, err), (0, ""))
    first, second = out.split("\n\n")
    rows = {r["location"]: r for r in csv.DictReader(io.StringIO(first))}
    equal("csv: WORKER's barrier and task ticks",
          (rows[omptrace.WORKER]["barrier_ticks"], rows[omptrace.WORKER]["task_ticks"]),
          ("150", "220"))
    cons = [(r["region"], r["location"], r["work_ticks"], r["wait_ticks"])
            for r in csv.DictReader(io.StringIO(second))]
    equal("csv: a row per construct and thread", len(cons), 10)
    check("csv: P2 on the worker", (omptrace.P2, omptrace.WORKER, "290", "30") in cons, cons)


def test_pthreads(d):
    path = omptrace.write_pthreads(os.path.join(d, "pth"))
    code, out, err = run("--threads", "--format", "json", path)
    equal("pthreads: exit 0, nothing on stderr", (code, err), (0, ""))
    doc = json.loads(out)
    threads = {t["name"]: t for t in doc["threads"]}
    for name, want in omptrace.EXPECTED_PTHREADS.items():
        t = threads.get(name, {})
        equal("pthreads: %s: times and counts" % name,
              {k: t.get(k + "_ticks", t.get(k)) for k in want}, want)
    equal("pthreads: no parallel or barrier region", doc["constructs"], [])
    code, out, err = run("--threads", path)
    check("pthreads text: no imbalance to show",
          "  (no parallel or barrier region was entered)" in out.splitlines(), out)


def test_no_threads(d):
    import otf2
    path = os.path.join(d, "plain")
    with otf2.writer.open(path, timer_resolution=1000) as tr:
        r = tr.definitions.region("main")
        node = tr.definitions.system_tree_node("node")
        proc = tr.definitions.location_group("Process 0", system_tree_parent=node)
        w = tr.event_writer("Master thread", group=proc)
        w(otf2.events.Enter(1, r))
        w(otf2.events.Leave(2, r))
    code, out, err = run("--threads", path + "/traces.otf2")
    equal("no thread model: exit 0", code, 0)
    check("no thread model: said so", "(no OpenMP region, no thread event)" in out, out)
    code, out, err = run("--threads", "--imbalance", path + "/traces.otf2")
    equal("--threads with --imbalance: usage error, one line", (code, len(err.splitlines())),
          (2, 1))


def main():
    with tempfile.TemporaryDirectory() as d:
        path = omptrace.write(os.path.join(d, "omp"))
        test_json(path)
        test_text(path)
        test_csv(path)
        test_pthreads(d)
        test_no_threads(d)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
