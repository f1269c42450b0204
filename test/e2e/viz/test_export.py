# SPDX-License-Identifier: BSD-3-Clause
"""vt-export --chrome on the trace of a real run (Open MPI, 4 ranks, 2 threads each, a counter
plugin): the JSON parses (plain and gzip), one thread per location with its name, every begin
has its end on its thread, timestamps never decrease per thread, message flows pair up between
the right ranks with the right sizes, and the numbers of slices, counter samples and flows are
the numbers of Enter, Metric and send events python3-otf2 reads. A window keeps exactly the
activations that overlap it, cut at its edges. A longer trace written with python3-otf2 (a
TSC-like clock, a region name larger than vt-export's output buffer) comes out with every
timestamp exactly as floor((ticks - offset) * 1e9 / resolution) ns, and every name whole."""
import collections
import gzip
import json
import os
import random
import re
import subprocess

import vttest
import vizprog
from vttest import otf2

VT_EXPORT = os.path.join(vttest.BUILD_ROOT, 'tools', 'vt-export', 'vt-export')


def export(*args):
    p = subprocess.run([VT_EXPORT] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def load(t, path, what):
    opener = gzip.open if path.endswith('.gz') else open
    try:
        with opener(path, 'rt', encoding='utf-8') as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        t.fail('%s: valid JSON' % what, repr(e))
        return None


def per_thread(t, events, what, window=None):
    """Checks balance and order per thread; returns {tid: [(name, begin_ts, end_ts)]}."""
    stacks = collections.defaultdict(list)
    last = {}
    slices = collections.defaultdict(list)
    unbalanced, backwards, outside = [], [], []
    for e in events:
        if e['ph'] not in 'BEC':
            continue
        tid = e['tid']
        if e['ts'] < last.get(tid, -1):
            backwards.append(e)
        last[tid] = e['ts']
        if window and not window[0] - 0.001 <= e['ts'] <= window[1] + 0.001:
            outside.append(e)
        if e['ph'] == 'B':
            stacks[tid].append((e['name'], e['ts']))
        elif e['ph'] == 'E':
            if not stacks[tid]:
                unbalanced.append(e)
                continue
            name, begin = stacks[tid].pop()
            slices[tid].append((name, begin, e['ts']))
    open_left = {tid: s for tid, s in stacks.items() if s}
    t.eq((unbalanced, open_left), ([], {}), '%s: every B has its E on its thread' % what)
    t.eq(backwards[:3], [], '%s: timestamps never decrease per thread' % what)
    if window:
        t.eq(outside[:3], [], '%s: every timestamp inside the window' % what)
    return slices


def check_full(t, facts, doc, what):
    ev = doc['traceEvents']
    names = {(e['pid'], e['tid']): e['args']['name'] for e in ev
             if e['ph'] == 'M' and e['name'] == 'thread_name'}
    t.eq(sorted(tid for _, tid in names), list(range(len(facts.locations))),
         '%s: one thread per location' % what)
    t.eq([names[k] for k in sorted(names, key=lambda k: k[1])],
         [name for _, name, _ in facts.locations], '%s: threads named as the locations' % what)
    procs = {e['pid']: e['args']['name'] for e in ev
             if e['ph'] == 'M' and e['name'] == 'process_name'}
    t.eq(sorted(procs.values()), sorted(set(g for _, _, g in facts.locations)),
         '%s: one process per location group (rank)' % what)
    t.eq(len(procs), vizprog.NP, '%s: 4 processes' % what)
    slices = per_thread(t, ev, what)
    ref_of = {i: ref for i, (ref, _, _) in enumerate(facts.locations)}
    got = {ref_of[tid]: sorted(s) for tid, s in slices.items()}
    want = {ref: sorted((n, round(facts.us(b), 3), round(facts.us(e), 3)) for n, b, e in s)
            for ref, s in facts.slices.items()}
    got = {ref: [(n, round(b, 3), round(e, 3)) for n, b, e in s] for ref, s in got.items()}
    t.eq(got, want, '%s: per location the slices python3-otf2 reads (name, begin, end)' % what)
    count = collections.Counter(e['name'] for e in ev if e['ph'] == 'B')
    t.eq(dict(count), dict(facts.enters), '%s: B events per region = Enter events' % what)
    t.eq(count['kernel'], vizprog.NP * vizprog.THREADS * vizprog.CALLS,
         '%s: kernel 32 times' % what)
    t.eq(sum(e['ph'] == 'E' for e in ev), sum(len(s) for s in facts.slices.values()),
         '%s: E events = Leave events' % what)
    counters = collections.Counter(ref_of[e['tid']] for e in ev if e['ph'] == 'C')
    t.eq(dict(counters), dict(facts.metrics), '%s: counter samples per location = Metric '
         'events' % what)
    t.check(sum(counters.values()) > 0 and all(
        e['name'] == 'x (%s)' % facts.locations[e['tid']][1] and set(e['args']) == {'x'}
        for e in ev if e['ph'] == 'C'), '%s: counter tracks named after the plugin\'s '
        'counter and the location' % what)
    # Flows: one s and one f per message, from the sender's thread to the receiver's (and,
    # of category pthread, one from each pthread_create to the thread it made).
    flows = collections.defaultdict(dict)
    for e in ev:
        if e['ph'] in 'sf':
            flows[e['id']][e['ph']] = e
    t.check(all(set(f) == {'s', 'f'} for f in flows.values()), '%s: every flow has its start '
            'and its end' % what)
    every = len(flows)
    created = {i: f for i, f in flows.items() if f['s'].get('cat') == 'pthread'}
    t.eq(len(created), facts.thread_creates, '%s: a pthread flow per ThreadCreate event' % what)
    flows = {i: f for i, f in flows.items() if f['s'].get('cat') == 'mpi'}
    rank = facts.rank_of
    got = sorted((rank[ref_of[f['s']['tid']]], rank[ref_of[f['f']['tid']]],
                  f['s']['args']['bytes']) for f in flows.values())
    want = sorted((rank[s], r, n) for s, r, n in facts.sends)
    t.eq(got, want, '%s: flows = sends (sender rank, receiver rank, bytes)' % what)
    t.eq(got, sorted((r, (r + 1) % 4, 64 * (r + 1)) for r in range(4)),
         '%s: rank r sent 64 (r + 1) bytes to r + 1' % what)
    inside = all(any(n == 'MPI_Send' and b <= f['s']['ts'] <= e for n, b, e in
                     slices[f['s']['tid']]) and
                 any(n == 'MPI_Recv' and b <= f['f']['ts'] <= e for n, b, e in
                     slices[f['f']['tid']]) for f in flows.values())
    t.check(inside, '%s: flows start inside MPI_Send and end inside MPI_Recv' % what)
    t.eq(doc['otherData']['flows'], every, '%s: otherData counts the flows' % what)


def check_window(t, facts, path, d):
    kernels = sorted(b for s in facts.slices.values() for n, b, e in s if n == 'kernel')
    all_times = [x for s in facts.slices.values() for _, b, e in s for x in (b, e)]
    # From the 10th kernel's start to the 20th's, in seconds after the clock's offset.
    lo, hi = kernels[9], kernels[19]
    s0 = (lo - facts.offset) / facts.resolution
    s1 = (hi - facts.offset) / facts.resolution
    t0 = facts.offset + int(s0 * facts.resolution)
    t1 = facts.offset + int(s1 * facts.resolution)
    out = os.path.join(d, 'window.json')
    code, _, err = export('--chrome', '--window', '%.17g:%.17g' % (s0, s1), '-o', out, path)
    t.eq((code, err), (0, ''), 'window: exit 0')
    doc = load(t, out, 'window')
    if not doc:
        return
    slices = per_thread(t, doc['traceEvents'], 'window', (facts.us(t0), facts.us(t1)))
    want = sum(1 for s in facts.slices.values() for n, b, e in s
               if n == 'kernel' and b <= t1 and e >= t0)
    got = sum(1 for s in slices.values() for n, _, _ in s if n == 'kernel')
    t.eq(got, want, 'window: the kernel activations that overlap it (%d)' % want)
    t.check(0 < want < len(kernels) and min(all_times) < t0,
            'window: a proper part of the trace', '%d of %d' % (want, len(kernels)))
    t.check(all(e['ph'] != 's' or facts.us(t0) - 0.001 <= e['ts'] for e in doc['traceEvents']),
            'window: flows only inside it')


def write_large(path, resolution, long_name):
    """One thread: PAIRS short activations of 'r' at irregular times (equal ones too, and
    whole seconds, where a conversion that rounds wrong shows), and in the middle one of a
    region with long_name. Returns the Enter/Leave times in order."""
    rng = random.Random(13)
    times = []
    with otf2.writer.open(path, timer_resolution=resolution) as trace:
        d = trace.definitions
        proc = d.location_group('Process 0', system_tree_parent=d.system_tree_node('node'))
        short, big = d.region('r'), d.region(long_name)
        w = trace.event_writer('Master thread', group=proc)
        first = now = 10**12 + 12345  # the clock's offset: the first event's time
        for i in range(PAIRS):
            if i % 1000 == 1:  # a whole second after the offset: a whole number of ns
                now = first + -(-(now - first) // resolution) * resolution
            region = big if i == PAIRS // 2 else short
            for kind in (otf2.events.Enter, otf2.events.Leave):
                w(kind(now, region))
                times.append(now)
                now += rng.choice((0, 1, 7, 2596, 2597, rng.randrange(10**7)))
    return times


PAIRS = 40000  # 80000 events, about 4 MB of JSON: the 1 MiB output buffer fills several times


def check_large(t, d):
    resolution = 2596130195  # a TSC's rate: no whole number of ticks per nanosecond
    long_name = 'n' * (3 << 19) + '"'  # 1.5 MiB and a quote: longer than the buffer
    path = os.path.join(d, 'large')
    times = write_large(path, resolution, long_name)
    anchor = os.path.join(path, 'traces.otf2')
    with otf2.reader.open(anchor) as r:
        offset = r.definitions.clock_properties.global_offset
    out = os.path.join(d, 'large.json')
    code, _, err = export('--chrome', anchor, '-o', out)
    t.eq((code, err), (0, ''), 'large: exit 0')
    with open(out, encoding='utf-8') as f:
        text = f.read()
    want = ['%d.%03d' % divmod((x - offset) * 10**9 // resolution, 1000) for x in times]
    got = re.findall(r'^,?\{"ph":"[BE]",[^\n]*?"ts":([0-9.]+)', text, re.M)
    t.eq(len(got), len(want), 'large: one B or E per Enter or Leave')
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    t.eq(bad[:3], [], 'large: every timestamp floor((ticks - offset) * 1e9 / resolution) ns')
    try:
        doc = json.loads(text)
    except ValueError as e:
        t.fail('large: valid JSON', repr(e))
        return
    names = collections.Counter(e['name'] for e in doc['traceEvents'] if e['ph'] == 'B')
    t.eq(dict(names), {'r': PAIRS - 1, long_name: 1}, 'large: every name whole')
    per_thread(t, doc['traceEvents'], 'large')


def body(t):
    _, path = vizprog.traced_run(t)
    facts = vizprog.Facts(path)
    d = t.newdir('export')
    for name in ('trace.json', 'trace.json.gz'):
        out = os.path.join(d, name)
        code, stdout, err = export('--chrome', path, '-o', out)
        t.eq((code, stdout, err), (0, '', ''), '%s: exit 0, nothing printed' % name)
        if name.endswith('.gz'):
            with open(out, 'rb') as f:
                t.eq(f.read(2), b'\x1f\x8b', '%s: gzip-compressed' % name)
        doc = load(t, out, name)
        if doc:
            check_full(t, facts, doc, name)
    check_window(t, facts, path, d)
    check_large(t, d)


vttest.main('viz_export', body)
