# SPDX-License-Identifier: BSD-3-Clause
"""vt-sim --explain-waits: per wait-state pattern, the run replayed with the delaying
computation balanced. Traces written here with python3-otf2, each worked out by hand (a rank
10 ms late at 4 barriers, an Allreduce, a chain of two Late Senders); then a vtcc-built
program (Open MPI, 3 ranks, ../viz/waits_prog.c: rank 1 40 ms late at 4 barriers), where
the balance of every barrier is computed here from the trace (the latest arrival less the
second latest, as far as the late rank's computation since its last barrier allows), and
the prediction must be the run less exactly that; the waits agree with vt-profile --waits.
Bad input: one line, exit 2."""
import json
import os
import subprocess

import otf2events
import vtmpi
import vttest
from vtmpi import OPENMPI, ROOT_NONE
from vttest import otf2
from waittrace import Ranks, ms, write_chain

VT_SIM = os.environ.get('VT_SIM', 'vt-sim')
VT_PROFILE = os.environ.get('VT_PROFILE', 'vt-profile')
K, DELAY_MS = 4, 40
PATTERNS = ['late_sender', 'wait_barrier', 'wait_nxn', 'late_broadcast', 'early_reduce']


def explain(t, path, what, *args):
    p = subprocess.run([VT_SIM, '--explain-waits', path] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    t.eq((p.returncode, p.stderr), (0, ''), '%s: exit 0, nothing on stderr' % what)
    return p.stdout


def explain_json(t, path, what):
    out = explain(t, path, what, '--format', 'json')
    try:
        j = json.loads(out)
    except ValueError as e:
        t.fail('%s: JSON parses' % what, '%s\n%s' % (e, out))
        return None
    t.eq([p['pattern'] for p in j['patterns']], PATTERNS, '%s: the patterns replayed' % what)
    return j


def pattern(j, key):
    return [p for p in j['patterns'] if p['pattern'] == key][0]


# Collectives as vt's runtime marks them.
ROLES = {'MPI_Barrier': otf2.RegionRole.BARRIER, 'MPI_Allreduce': otf2.RegionRole.COLL_ALL2ALL}


# K barriers: each rank works from the previous barrier's end (2 ms; rank 1 12 ms) and enters
# MPI_Barrier; all leave 1 ms after the last entered. Iteration i runs from 13 i to 13 (i + 1).
#   waits: ranks 0 and 2 wait 10 ms at each barrier: 2K waits, 20K ms, K delays of rank 1.
#   balance: 10 ms of rank 1's work per barrier (the others arrived together): 10K ms, all
#     in its work since the barrier before. Replayed, each iteration takes 3 ms: 3K ms.
def write_barriers(path):
    ev = otf2.events
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        T = Ranks(trace, ['main', 'work', 'MPI_Barrier'], ROLES)
        for r in range(3):
            w, enter, leave = T.writer(r)
            enter(0, 'main')
            for i in range(K):
                t0 = 13 * i
                arrive = t0 + (12 if r == 1 else 2)
                enter(t0, 'work')
                leave(arrive, 'work')
                enter(arrive, 'MPI_Barrier')
                w(ev.MpiCollectiveBegin(ms(arrive)))
                w(ev.MpiCollectiveEnd(ms(t0 + 13), otf2.CollectiveOp.BARRIER, T.world,
                                      ROOT_NONE, 0, 0))
                leave(t0 + 13, 'MPI_Barrier')
            leave(13 * K, 'main')


# An Allreduce: every rank in main 0..23, solve 1..11 (rank 1: 1..21), MPI_Allreduce until 22.
#   waits: ranks 0 and 2 wait 10 ms (Wait at NxN), one delay of rank 1; balance 10 ms of its
#   solve; replayed, the Allreduce ends at 12 and main at 13.
def write_allreduce(path):
    ev = otf2.events
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        T = Ranks(trace, ['main', 'solve', 'MPI_Allreduce'], ROLES)
        for r in range(3):
            w, enter, leave = T.writer(r)
            arrive = 21 if r == 1 else 11
            enter(0, 'main')
            enter(1, 'solve')
            leave(arrive, 'solve')
            enter(arrive, 'MPI_Allreduce')
            w(ev.MpiCollectiveBegin(ms(arrive)))
            w(ev.MpiCollectiveEnd(ms(22), otf2.CollectiveOp.ALLREDUCE, T.world, ROOT_NONE, 4,
                                  4))
            leave(22, 'MPI_Allreduce')
            leave(23, 'main')


# A chain of Late Senders: rank 0 produces 1..31 and sends (MPI_Send 31..32); rank 1 waits in
# MPI_Recv from 1, receives at 32, relays 32..42, sends to rank 2 (42..43); rank 2 waits in
# MPI_Recv from 1, receives at 44, posts 44..50. Main ends at 40, 45, 50.
#   waits: rank 1 30 ms (for rank 0's send at 31), rank 2 41 ms (for rank 1's at 42).
#   balance: rank 0's 30 ms from its produce; rank 1's 41 ms wanted, but since its last
#     synchronisation (the receive at 32) it computed 10 ms (relay): 10. 40 ms in all.
#   replayed: rank 0 sends at 1 (main ends 10); rank 1 receives at 2 (1 ms after the send,
#     as before), relays 0 ms, sends at 2; rank 2 receives at 4, posts until 10. 10 ms.
# (the trace: waittrace.write_chain)



def rows(j):
    return {p['pattern']: (p['waits'], p['wait_ticks'], p['delays'], p['planned_ticks'],
                           p['balanced_ticks'], p['predicted_ticks'], p['shorter_ticks'])
            for p in j['patterns']}


def none(run):
    return (0, 0, 0, 0, 0, run, 0)


def check_by_hand(t, d):
    cases = [
        ('barriers', write_barriers, 13 * K,
         {'wait_barrier': (2 * K, ms(20 * K), K, ms(10 * K), ms(10 * K), ms(3 * K),
                           ms(10 * K))}),
        ('allreduce', write_allreduce, 23,
         {'wait_nxn': (2, ms(20), 1, ms(10), ms(10), ms(13), ms(10))}),
        ('chain', write_chain, 50,
         {'late_sender': (2, ms(71), 2, ms(40), ms(40), ms(10), ms(40))}),
    ]
    for name, write, run, want in cases:
        write(os.path.join(d, name))
        path = os.path.join(d, name, 'traces.otf2')
        j = explain_json(t, path, name)
        if not j:
            continue
        t.eq((j['timer_resolution'], j['length_ticks'], j['run_ticks']),
             (10**9, ms(run), ms(run)), '%s: the run, %d ms' % (name, run))
        expect = {k: want.get(k, none(ms(run))) for k in PATTERNS}
        t.eq(rows(j), expect, '%s: waits, delays, balance and prediction per pattern, as '
             'worked out by hand' % name)
    # The text of the barriers, as a person reads it.
    text = explain(t, os.path.join(d, 'barriers', 'traces.otf2'), 'barriers, text')
    line = '%-24s %7d %12.6f %7d %12.6f %13.6f %12.6f %7.2f%%' % (
        'Wait at Barrier', 2 * K, 0.020 * K, K, 0.010 * K, 0.003 * K, 0.010 * K,
        100.0 * 10 / 13)
    t.check(line in text.splitlines() and
            'run: %.6f s to its last event (the trace: %.6f s)' % (0.013 * K, 0.013 * K)
            in text.splitlines(), 'barriers, text: the run and the Wait at Barrier line',
            text)


def barrier_balance(path):
    """Per MPI_Barrier (the k-th of each rank together): the latest arrival less the second
    latest, at most the late rank's time outside MPI calls since its previous barrier's end
    (its first event before the first). Returns the barriers with a late rank, their sum."""
    with otf2.reader.open(path) as r:
        per = {}
        for loc, ev in otf2events.events(r):
            per.setdefault(loc._ref, []).append(ev)
    arrivals, segments = {}, {}
    for loc, evs in per.items():
        stack, outside, last, mine, since = [], [], evs[0].time, [], evs[0].time
        for ev in evs:
            kind = type(ev).__name__
            if kind not in ('Enter', 'Leave'):
                continue
            if not any(x.paradigm == otf2.Paradigm.MPI for x in stack) and ev.time > last:
                outside.append((last, ev.time))
            last = ev.time
            if kind == 'Enter':
                stack.append(ev.region)
                if ev.region.name == 'MPI_Barrier':
                    mine.append((ev.time, since))
            else:
                stack.pop()
                if ev.region.name == 'MPI_Barrier':
                    since = ev.time
        arrivals[loc], segments[loc] = mine, outside
    n = min(len(a) for a in arrivals.values())
    delays, total = 0, 0
    for k in range(n):
        at = sorted(((arrivals[loc][k][0], loc) for loc in arrivals), reverse=True)
        want = at[0][0] - at[1][0]
        if not want:
            continue
        loc = at[0][1]
        arrive, since = arrivals[loc][k]
        free = sum(min(b, arrive) - max(a, since) for a, b in segments[loc]
                   if b <= arrive and b > since)
        delays += 1
        total += min(want, free)
    return delays, total


def check_run(t):
    vtmpi.require_runtime(OPENMPI)
    exe = vtmpi.compile(t, OPENMPI, 'waits_prog',
                        [os.path.join(t.src, '..', 'viz', 'waits_prog.c')], opt='-O0')
    r = vtmpi.mpirun(t, OPENMPI, 3, exe, args=[str(K), str(DELAY_MS)])
    vtmpi.clean_run(t, r, 'waits program')
    path = t.trace(r, 'waits program').path
    j = explain_json(t, path, 'waits program')
    p = subprocess.run([VT_PROFILE, '--waits', '--format', 'json', path],
                       stdout=subprocess.PIPE, universal_newlines=True, timeout=120)
    W = {x['pattern']: (x['instances'], x['time_ticks']) for x in json.loads(p.stdout)['patterns']}
    if not j:
        return
    t.eq({x['pattern']: (x['waits'], x['wait_ticks']) for x in j['patterns']},
         {k: W[k] for k in PATTERNS}, 'waits program: the waits per pattern are vt-profile '
         '--waits\'s')
    b = pattern(j, 'wait_barrier')
    delays, total = barrier_balance(path)
    t.eq((b['delays'], b['planned_ticks'], b['balanced_ticks']), (delays, total, total),
         'waits program: Wait at Barrier: a delay per barrier with a late rank, each '
         'balanced by the latest arrival less the second latest, as this test reads them')
    t.eq((b['predicted_ticks'], b['shorter_ticks']), (j['run_ticks'] - total, total),
         'waits program: Wait at Barrier: the run predicted shorter by exactly the balance')
    res = j['timer_resolution']
    t.check(b['delays'] >= K and total >= K * res * DELAY_MS // 2000,
            'waits program: Wait at Barrier: at least the %d late barriers, at least half of '
            '%d x %d ms balanced' % (K, K, DELAY_MS), repr(b))
    ls = pattern(j, 'late_sender')
    t.check(ls['delays'] == 1 and 0 < ls['shorter_ticks'] <= ls['balanced_ticks'],
            'waits program: Late Sender: rank 2\'s one delay, the run shorter by at most its '
            'balance', repr(ls))


def check_usage(t, path):
    for args, text in [(['--explain-waits', path, '--format', 'xml'], "expected text or json"),
                       (['--explain-waits', path, '-s', 'identity'], 'without -s and -o'),
                       (['--format', 'json', path, '-s', 'identity', '-o', 'x.otf2'],
                        'goes with IN.otf2 alone')]:
        p = subprocess.run([VT_SIM] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=60)
        t.check(p.returncode == 2 and p.stdout == '' and len(p.stderr.splitlines()) == 1 and
                text in p.stderr, 'usage: %s: one line, exit 2' % ' '.join(args[1:]),
                repr((p.returncode, p.stdout, p.stderr)))
    p = subprocess.run([VT_SIM, '--explain-waits', path + '.none'], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    t.check(p.returncode == 1 and p.stdout == '' and len(p.stderr.splitlines()) == 1 and
            path + '.none' in p.stderr, 'a missing trace: one line naming it, exit 1',
            repr((p.returncode, p.stderr)))


def body(t):
    d = t.newdir('by-hand')
    check_by_hand(t, d)
    check_usage(t, os.path.join(d, 'barriers', 'traces.otf2'))
    check_run(t)


if __name__ == '__main__':  # test_sim_par imports the traces worked out here
    vttest.main('sim_waits', body)
