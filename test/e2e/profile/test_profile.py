# SPDX-License-Identifier: BSD-3-Clause
"""vt-profile on traces written here with python3-otf2, with hand-computed expected numbers."""
import csv
import io
import json
import os
import struct
import subprocess
import sys
import tempfile

import otf2

VT_PROFILE = os.environ.get("VT_PROFILE", "vt-profile")

# Under a sanitizer build, leaks inside libotf2 itself are not vt-profile's to fix.
ENV = dict(os.environ)
ENV["LSAN_OPTIONS"] = ":".join(filter(None, [
    ENV.get("LSAN_OPTIONS"),
    "print_suppressions=0",
    "suppressions=" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "lsan.supp")]))

passed = 0
failed = 0


def check(what, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s%s" % (what, (": " + str(detail)) if detail else ""))


def equal(what, got, want):
    check(what, got == want, "got %r, want %r" % (got, want))


def run(*args):
    p = subprocess.run([VT_PROFILE] + [str(a) for a in args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=ENV)
    return p.returncode, p.stdout, p.stderr


def run_json(*args):
    code, out, err = run("--format", "json", *args)
    try:
        return code, json.loads(out), err
    except ValueError as e:
        check("JSON output of %s parses" % (args,), False, "%s\n%s" % (e, out))
        return code, None, err


def new_trace(path):
    return otf2.writer.open(path, timer_resolution=1000000000)


# ---------------------------------------------------------------------------------------------
# A consistent trace: two locations, recursion (direct and through another region), nesting,
# a BufferFlush, a MeasurementOnOff and two event kinds vt-profile only counts.
# Expected numbers are worked out in the comments, in ticks (= ns at 1 GHz).
def write_good(path):
    with new_trace(path) as trace:
        d = trace.definitions
        node = d.system_tree_node("node")
        proc = d.location_group("Process 0", system_tree_parent=node)
        main = d.region("main", source_file="main.c", begin_line_number=10)
        compute = d.region("compute", source_file="work.c", begin_line_number=20)
        fib = d.region("fib", source_file="fib.c", begin_line_number=5)
        leaf = d.region("leaf")
        iofn = d.region("io", source_file="io.c", begin_line_number=42)
        d.region("never_called")

        w = trace.event_writer("Master thread", group=proc)
        w(otf2.events.Enter(100, main))                  # main [100,400]      300
        w(otf2.events.ThreadFork(105, otf2.Paradigm.OPENMP, 4))
        w(otf2.events.Enter(110, compute))               # compute [110,260]   150, excl 150-80
        w(otf2.events.Enter(120, fib))                   # fib [120,200]  80, excl 80-40 = 40
        w(otf2.events.Enter(130, fib))                   # fib [130,170]  40, excl 40-10 = 30
        w(otf2.events.Enter(140, fib))                   # fib [140,150]  10, excl 10-5  = 5
        w(otf2.events.Enter(142, leaf))                  # leaf [142,147]  5
        w(otf2.events.Leave(147, leaf))
        w(otf2.events.Leave(150, fib))
        w(otf2.events.Leave(170, fib))
        w(otf2.events.Leave(200, fib))
        w(otf2.events.Leave(260, compute))
        w(otf2.events.BufferFlush(270, 290))
        w(otf2.events.Enter(300, iofn))                  # io [300,340] 40
        w(otf2.events.Leave(340, iofn))
        w(otf2.events.Enter(350, fib))                   # fib [350,360] 10
        w(otf2.events.Leave(360, fib))
        w(otf2.events.ThreadJoin(395, otf2.Paradigm.OPENMP))
        w(otf2.events.Leave(400, main))                  # main excl 300-150-40-10 = 100
        w(otf2.events.MeasurementOnOff(410, otf2.MeasurementMode.OFF))

        w = trace.event_writer("Thread 1", group=proc)
        w(otf2.events.Enter(1000, compute))              # compute [1000,1200] 200, excl 200-90
        w(otf2.events.Enter(1010, fib))                  # fib [1010,1100] 90, excl 90-40
        w(otf2.events.Enter(1020, compute))              # compute [1020,1060] 40, excl 40-20
        w(otf2.events.Enter(1030, leaf))                 # leaf [1030,1050] 20
        w(otf2.events.Leave(1050, leaf))
        w(otf2.events.Leave(1060, compute))
        w(otf2.events.Leave(1100, fib))
        w(otf2.events.Leave(1200, compute))
        w(otf2.events.Enter(1300, iofn))                 # io [1300,1301] 1
        w(otf2.events.Leave(1301, iofn))


# name: (file, line, calls, incl, excl, {location name: calls})
GOOD_REGIONS = {
    "compute": ("work.c", 20, 3, 150 + 200, 70 + 130, {"Master thread": 1, "Thread 1": 2}),
    "fib": ("fib.c", 5, 5, 80 + 10 + 90, 40 + 30 + 5 + 10 + 50,
            {"Master thread": 4, "Thread 1": 1}),
    "main": ("main.c", 10, 1, 300, 100, {"Master thread": 1}),
    "io": ("io.c", 42, 2, 41, 41, {"Master thread": 1, "Thread 1": 1}),
    "leaf": ("", 0, 2, 25, 25, {"Master thread": 1, "Thread 1": 1}),
}
GOOD_ORDER_EXCL = ["compute", "fib", "main", "io", "leaf"]
GOOD_ORDER_CALLS = ["fib", "compute", "io", "leaf", "main"]   # ties by name
GOOD_ORDER_NAME = ["compute", "fib", "io", "leaf", "main"]


def test_good(path):
    code, prof, err = run_json(path)
    equal("good trace: exit code", code, 0)
    equal("good trace: nothing on stderr", err, "")
    if prof is None:
        return
    equal("trace path", prof["trace"], path)
    equal("timer_resolution", prof["timer_resolution"], 1000000000)
    equal("duration_ticks", prof["duration_ticks"], 1301 - 100)
    equal("total_events", prof["total_events"], 20 + 10)
    equal("total_excl_ticks", prof["total_excl_ticks"], 200 + 135 + 100 + 41 + 25)
    equal("no problems", prof["problems"], [])

    locs = {loc["name"]: loc for loc in prof["locations"]}
    equal("location names", sorted(locs), ["Master thread", "Thread 1"])
    ids = {name: loc["id"] for name, loc in locs.items()}
    for name, events, enters in (("Master thread", 20, 8), ("Thread 1", 10, 5)):
        loc = locs.get(name, {})
        equal("%s: group" % name, loc.get("group"), "Process 0")
        equal("%s: events" % name, loc.get("events"), events)
        equal("%s: enters" % name, loc.get("enters"), enters)
        equal("%s: leaves" % name, loc.get("leaves"), enters)
    equal("Master thread: flush_ticks", locs["Master thread"].get("flush_ticks"), 20)

    equal("regions in exclusive order", [r["name"] for r in prof["regions"]], GOOD_ORDER_EXCL)
    for r in prof["regions"]:
        want = GOOD_REGIONS.get(r["name"])
        if want is None:
            continue
        file, line, calls, incl, excl, per_loc = want
        n = r["name"]
        equal("%s: file" % n, r["file"], file)
        equal("%s: line" % n, r["line"], line)
        equal("%s: calls" % n, r["calls"], calls)
        equal("%s: incl_ticks" % n, r["incl_ticks"], incl)
        equal("%s: excl_ticks" % n, r["excl_ticks"], excl)
        equal("%s: calls_per_location" % n, r["calls_per_location"],
              {str(ids[loc]): c for loc, c in per_loc.items()})

    events = prof["events"]
    for kind, n in (("Enter", 13), ("Leave", 13), ("BufferFlush", 1), ("MeasurementOnOff", 1),
                    ("ThreadFork", 1), ("ThreadJoin", 1)):
        equal("events[%s]" % kind, events.get(kind), n)
    equal("event kinds add up", sum(events.values()), 30)

    # Sorting and cutting.
    for key, order in (("calls", GOOD_ORDER_CALLS), ("name", GOOD_ORDER_NAME),
                       ("excl", GOOD_ORDER_EXCL)):
        code, p, _ = run_json("--sort", key, path)
        equal("--sort %s: order" % key, p and [r["name"] for r in p["regions"]], order)
    code, p, _ = run_json("--top", "2", path)
    equal("--top 2", p and [r["name"] for r in p["regions"]], GOOD_ORDER_EXCL[:2])

    # Per-location profile in JSON.
    code, p, _ = run_json("--per-location", path)
    if p:
        t1 = [loc for loc in p["locations"] if loc["name"] == "Thread 1"][0]
        got = {r["name"]: (r["calls"], r["incl_ticks"], r["excl_ticks"]) for r in t1["regions"]}
        equal("--per-location: Thread 1", got, {"compute": (2, 200, 130), "fib": (1, 90, 50),
                                                 "leaf": (1, 20, 20), "io": (1, 1, 1)})

    # Text: header line, the table and every region's name.
    code, out, err = run(path)
    equal("text: exit code", code, 0)
    lines = out.splitlines()
    equal("text: header", lines[0] if lines else None,
          "profile of %s: 2 locations, 30 events, duration 1.201 us" % path)
    check("text: column titles", any("calls" in l and "incl/call" in l and "region" in l
                                     for l in lines), out)
    for name in GOOD_REGIONS:
        check("text: region %s listed" % name,
              any(l.split()[-1:] == [name] for l in lines), out)
    check("text: never_called not listed", "never_called" not in out, out)
    row = [l for l in lines if l.endswith(" compute")]
    check("text: compute row", row and row[0].split()[:8] ==
          ["39.92%", "200", "ns", "350", "ns", "3", "117", "ns"], row)
    code, out, _ = run("--per-location", path)
    check("text --per-location: location headers",
          'location %d "Thread 1" (group "Process 0"): 10 events' % ids["Thread 1"] in out, out)

    # CSV.
    code, out, _ = run("--format", "csv", path)
    rows = list(csv.DictReader(io.StringIO(out)))
    equal("csv: regions", [r["region"] for r in rows], GOOD_ORDER_EXCL)
    fib = [r for r in rows if r["region"] == "fib"]
    check("csv: fib", fib and (fib[0]["location"], fib[0]["calls"], fib[0]["incl_ticks"],
                               fib[0]["excl_ticks"]) == ("all", "5", "180", "135"), fib)


# ---------------------------------------------------------------------------------------------
# A broken trace: unbalanced Enter/Leave on one location, a decreasing timestamp and a Leave
# with nothing open on the other. OTF2's writer refuses a decreasing timestamp, so the event is
# written with a marker timestamp that is then patched in the event file.
MARKER = 0x1B2C3D4E5F


def write_bad(path):
    with new_trace(path) as trace:
        d = trace.definitions
        proc = d.location_group("Process 0", system_tree_parent=d.system_tree_node("node"))
        a, b, c = d.region("a"), d.region("b"), d.region("c")

        w = trace.event_writer("Master thread", group=proc)
        w(otf2.events.Enter(10, a))
        w(otf2.events.Enter(20, b))
        w(otf2.events.Leave(30, a))          # innermost open region is b
        w(otf2.events.Enter(40, c))
        w(otf2.events.Enter(50, b))
        w(otf2.events.Leave(60, b))          # c is left open

        w = trace.event_writer("Thread 1", group=proc)
        w(otf2.events.Enter(100, a))
        w(otf2.events.Leave(MARKER, a))      # patched to 50 below
        w(otf2.events.Enter(MARKER + 100, b))
        w(otf2.events.Leave(MARKER + 110, b))
        w(otf2.events.Leave(MARKER + 120, c))  # nothing open
    evt_dir = os.path.join(path, "traces")
    patched = 0
    for f in os.listdir(evt_dir):
        if not f.endswith(".evt"):
            continue
        data = open(os.path.join(evt_dir, f), "rb").read()
        needle = struct.pack("<Q", MARKER)
        patched += data.count(needle)
        with open(os.path.join(evt_dir, f), "wb") as out:
            out.write(data.replace(needle, struct.pack("<Q", 50)))
    equal("bad trace: marker timestamp patched once", patched, 1)


def test_bad(path):
    code, prof, err = run_json(path)
    equal("bad trace: exit code", code, 1)
    if prof is None:
        return
    ids = {loc["name"]: loc["id"] for loc in prof["locations"]}
    got = sorted((p["kind"], p["location"], p["region"], p["time"]) for p in prof["problems"])
    want = sorted([
        ("leave-mismatch", ids["Master thread"], "a", 30),
        ("open-at-end", ids["Master thread"], "c", 60),
        ("time-decrease", ids["Thread 1"], None, 50),
        ("leave-unmatched", ids["Thread 1"], "c", MARKER + 120),
    ])
    equal("bad trace: problems", got, want)
    equal("bad trace: problems_total", prof.get("problems_total"), 4)
    check("bad trace: messages", all(p["message"] for p in prof["problems"]), prof["problems"])

    code, out, err = run(path)
    equal("bad trace text: exit code", code, 1)
    warnings = [l for l in out.splitlines() if l.startswith("warning: ")]
    equal("bad trace text: one warning per problem", len(warnings), 4)
    check("bad trace text: warnings come last", out.splitlines()[-4:] == warnings, out)


def test_unreadable(tmp):
    missing = os.path.join(tmp, "missing", "traces.otf2")
    code, out, err = run(missing)
    equal("missing file: exit code", code, 2)
    equal("missing file: stdout empty", out, "")
    lines = err.splitlines()
    equal("missing file: one line on stderr", len(lines), 1)
    check("missing file: the line names the file", lines and missing in lines[0], err)

    garbage = os.path.join(tmp, "garbage.otf2")
    with open(garbage, "w") as f:
        f.write("this is not an OTF2 anchor file\n")
    code, out, err = run(garbage)
    equal("garbage file: exit code", code, 2)
    equal("garbage file: one line on stderr", len(err.splitlines()), 1, )
    check("garbage file: the line names the file", garbage in err, err)

    for args in (["--format", "xml", garbage], ["--top", "x", garbage], [], ["--bogus", garbage]):
        code, out, err = run(*args)
        equal("usage error %s: exit code" % args, code, 2)
        equal("usage error %s: one line" % args, len(err.splitlines()), 1)
    code, out, _ = run("--help")
    check("--help", code == 0 and "--per-location" in out, out)
    code, out, _ = run("--version")
    check("--version", code == 0 and out.startswith("vt-profile"), out)


def main():
    with tempfile.TemporaryDirectory(prefix="vt-profile-test.") as tmp:
        good = os.path.join(tmp, "good", "traces.otf2")
        write_good(os.path.dirname(good))
        test_good(good)
        bad = os.path.join(tmp, "bad", "traces.otf2")
        write_bad(os.path.dirname(bad))
        test_bad(bad)
        test_unreadable(tmp)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
