# SPDX-License-Identifier: BSD-3-Clause
"""vt-profile --critical-path: the critical path and delay costs of traces written here with
python3-otf2 (an Allreduce rank 1 is 10 ms late for, a chain of two Late Senders, two sends
in a row; each worked out by hand), usage, then a vtcc-built MPI program (Open MPI, 3 ranks)
whose rank 1's solve sleeps 300 ms longer."""
import csv
import io
import os

import vtmpi
import vttest
from vtmpi import OPENMPI, ROOT_NONE
from vttest import otf2
from waittrace import Ranks, ms, profile, profile_json, write_chain, write_plain


# ---------------------------------------------------------------------------------------------
# Allreduce: every rank in main from 0 to 23; in solve from 1 to 11 (ranks 0, 2) or to 21
# (rank 1), then in MPI_Allreduce until 22. Ranks 0 and 2 wait from 11 to 21 (Wait at NxN).
#   critical path: all end at 23, rank 0 (the lowest) first: its Allreduce 21..22 and main
#     22..23 after its wait, then rank 1 from 0: main 0..1, solve 1..21. 23 ms in all.
#   delay costs: rank 1 since its start (no synchronisation before): solve 20, main 1; rank 0
#     (2) before its wait: solve 10, main 1. Excess: solve 10 -> each 10 ms wait to rank 1's
#     solve: 2 waits, 20 ms.
def write_allreduce(path):
    ev = otf2.events
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        T = Ranks(trace, ['main', 'solve', 'MPI_Allreduce'])
        for r in range(3):
            w, enter, leave = T.writer(r)
            enter(0, 'main')
            enter(1, 'solve')
            leave(21 if r == 1 else 11, 'solve')
            enter(21 if r == 1 else 11, 'MPI_Allreduce')
            w(ev.MpiCollectiveBegin(ms(21 if r == 1 else 11)))
            w(ev.MpiCollectiveEnd(ms(22), otf2.CollectiveOp.ALLREDUCE, T.world, ROOT_NONE, 4,
                                  4))
            leave(22, 'MPI_Allreduce')
            leave(23, 'main')


ALLREDUCE_TEXT = '''Critical path of {path}: 23.000 ms, through 1 wait

per location:
          time    share  rank  location
     21.000 ms   91.30%     1  Master thread (MPI Rank 1)
      2.000 ms    8.70%     0  Master thread (MPI Rank 0)

per call path:
          time    share  rank  call path
     20.000 ms   86.96%     1  main > solve
      1.000 ms    4.35%     0  main
      1.000 ms    4.35%     0  main > MPI_Allreduce
      1.000 ms    4.35%     1  main

Delay costs: 20.000 ms of waiting, per delaying rank and call path
          cost   waits  rank  delaying call path  <-  pattern: waiting call path
     20.000 ms       2     1  main > solve  <-  Wait at NxN: main > MPI_Allreduce
'''


# A chain of two Late Senders: rank 0 produces from 1 to 31 and sends to rank 1 (MPI_Send
# 31..32); rank 1 waits in MPI_Recv from 1, receives at 32, relays 32..42 and sends to rank 2
# (MPI_Send 42..43); rank 2 waits in MPI_Recv from 1, receives at 44, posts 44..50. Main:
# 0..40, 0..45, 0..50.
#   critical path: from rank 2's end at 50: its MPI_Recv 42..44 and post 44..50; rank 1 from
#     its send at 42 back to its wait's end at 31: MPI_Recv 31..32, relay 32..42; rank 0 from
#     31: main 0..1, produce 1..31. 50 ms, 2 waits.
#   delay costs: rank 2 waited 41 ms (1..42); rank 1 since its last synchronisation (the
#     receive at 32): relay 10, rank 2 before its wait: main 1 -> 41 ms to rank 1's relay.
#     Rank 1 waited 30 ms (1..31); rank 0 from 0: produce 30, main 1; rank 1: main 1 -> 30 ms
#     to rank 0's produce. (Scalasca would carry part of rank 2's wait on to rank 0's produce
#     as a long-term cost; vt does not.)
# (the trace: waittrace.write_chain)



# Two sends: rank 0 computes a 0..10, sends (an MPI_Send of no time at 10), computes b
# 10..30, sends at 30; rank 1 waits in MPI_Recv 1..10 (receives at 11) and 11..30 (receives
# at 31), ends at 32. Rank 0's send at 10 is a synchronisation point: the second wait, 19 ms,
# is all b's (from 10 to 30), not shared with a; the first, 9 ms, is a's.
#   critical path: rank 1 from 30 to 32 (MPI_Recv 30..31, main 31..32), rank 0 from 0 to 30
#     (b 20, a 10): 32 ms through 1 wait.
def write_two_sends(path):
    ev = otf2.events
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        T = Ranks(trace, ['main', 'a', 'b', 'MPI_Send', 'MPI_Recv'])
        w, enter, leave = T.writer(0)
        enter(0, 'main')
        for name, begin, end in (('a', 0, 10), ('b', 10, 30)):
            enter(begin, name)
            leave(end, name)
            enter(end, 'MPI_Send')
            w(ev.MpiSend(ms(end), 1, T.world, 0, 8))
            leave(end, 'MPI_Send')
        leave(30, 'main')
        w, enter, leave = T.writer(1)
        enter(0, 'main')
        for begin, end in ((1, 11), (11, 31)):
            enter(begin, 'MPI_Recv')
            w(ev.MpiRecv(ms(end), 0, T.world, 0, 8))
            leave(end, 'MPI_Recv')
        leave(32, 'main')


def check_allreduce(t, path):
    code, out, err = profile('--critical-path', path)
    t.eq((code, err, out), (0, '', ALLREDUCE_TEXT.format(path=path)),
         'allreduce, text: the path through rank 1\'s solve, its 2 x 10 ms delay cost')
    code, j, err = profile_json(t, '--critical-path', 'allreduce', path)
    t.eq((code, err), (0, ''), 'allreduce, JSON: exit 0')
    if not j:
        return
    t.eq((j['length_ticks'], j['waits_followed'], j['delay_cost_ticks'], j['problems']),
         (ms(23), 1, ms(20), 0), 'allreduce, JSON: length, waits followed, costs, problems')
    t.eq([(c['rank'], c['time_ticks']) for c in j['locations']], [(1, ms(21)), (0, ms(2))],
         'allreduce, JSON: per location')
    t.eq([(c['rank'], c['path'], c['time_ticks']) for c in j['call_paths']],
         [(1, ['main', 'solve'], ms(20)), (0, ['main'], ms(1)),
          (0, ['main', 'MPI_Allreduce'], ms(1)), (1, ['main'], ms(1))],
         'allreduce, JSON: per call path')
    t.eq([(c['rank'], c['path'], c['pattern'], c['wait_path'], c['waits'], c['cost_ticks'])
          for c in j['delay_costs']],
         [(1, ['main', 'solve'], 'wait_nxn', ['main', 'MPI_Allreduce'], 2, ms(20))],
         'allreduce, JSON: the delay cost, 2 x 10 ms to rank 1\'s solve')
    code, out, err = profile('--critical-path', '--format', 'csv', path)
    rows = list(csv.reader(io.StringIO(out)))
    t.eq((code, rows[0] if rows else None),
         (0, ['section', 'location', 'rank', 'path', 'pattern', 'wait_path', 'waits',
              'time_ticks', 'time_s']), 'allreduce, CSV: exit 0, the header')
    t.eq([(r[0], r[2], r[3], r[4], r[5], r[6], int(r[7])) for r in rows[1:]],
         [('length', '', '', '', '', '1', ms(23)),
          ('location', '1', '', '', '', '', ms(21)), ('location', '0', '', '', '', '', ms(2)),
          ('path', '1', 'main;solve', '', '', '', ms(20)),
          ('path', '0', 'main', '', '', '', ms(1)),
          ('path', '0', 'main;MPI_Allreduce', '', '', '', ms(1)),
          ('path', '1', 'main', '', '', '', ms(1)),
          ('delay_cost', '1', 'main;solve', 'wait_nxn', 'main;MPI_Allreduce', '2', ms(20))],
         'allreduce, CSV: the same rows')


def check_chain(t, path):
    code, j, err = profile_json(t, '--critical-path', 'chain', path)
    t.eq((code, err), (0, ''), 'chain: exit 0')
    if not j:
        return
    t.eq((j['length_ticks'], j['waits_followed'], j['delay_cost_ticks']),
         (ms(50), 2, ms(71)), 'chain, JSON: 50 ms through both waits, 71 ms of costs')
    t.eq([(c['rank'], c['time_ticks']) for c in j['locations']],
         [(0, ms(31)), (1, ms(11)), (2, ms(8))], 'chain, JSON: per location')
    t.eq([(c['rank'], c['path'], c['time_ticks']) for c in j['call_paths']],
         [(0, ['main', 'produce'], ms(30)), (1, ['main', 'relay'], ms(10)),
          (2, ['main', 'post'], ms(6)), (2, ['main', 'MPI_Recv'], ms(2)),
          (0, ['main'], ms(1)), (1, ['main', 'MPI_Recv'], ms(1))],
         'chain, JSON: per call path, rank 0\'s produce, rank 1\'s relay, rank 2\'s end')
    t.eq([(c['rank'], c['path'], c['pattern'], c['wait_path'], c['waits'], c['cost_ticks'])
          for c in j['delay_costs']],
         [(1, ['main', 'relay'], 'late_sender', ['main', 'MPI_Recv'], 1, ms(41)),
          (0, ['main', 'produce'], 'late_sender', ['main', 'MPI_Recv'], 1, ms(30))],
         'chain, JSON: each Late Sender to its sender\'s computation')
    code, out, err = profile('--critical-path', path)
    lines = out.splitlines()
    t.check(code == 0 and lines[0] == 'Critical path of %s: 50.000 ms, through 2 waits' % path
            and '     41.000 ms       1     1  main > relay  <-  Late Sender: main > MPI_Recv'
            in lines
            and '     30.000 ms       1     0  main > produce  <-  Late Sender: main > MPI_Recv'
            in lines, 'chain, text: the summary and the two delay costs', out)


def check_two_sends(t, path):
    code, j, err = profile_json(t, '--critical-path', 'two sends', path)
    t.eq((code, err), (0, ''), 'two sends: exit 0')
    if not j:
        return
    t.eq((j['length_ticks'], j['waits_followed'],
          [(c['rank'], c['path'], c['time_ticks']) for c in j['call_paths']]),
         (ms(32), 1, [(0, ['main', 'b'], ms(20)), (0, ['main', 'a'], ms(10)),
                      (1, ['main'], ms(1)), (1, ['main', 'MPI_Recv'], ms(1))]),
         'two sends: the path, rank 0\'s b and a after rank 1\'s end')
    t.eq([(c['rank'], c['path'], c['waits'], c['cost_ticks']) for c in j['delay_costs']],
         [(0, ['main', 'b'], 1, ms(19)), (0, ['main', 'a'], 1, ms(9))],
         'two sends: each wait to the computation since the sender\'s previous send')


def check_problems(t, unmatched, chain):
    code, j, err = profile_json(t, '--critical-path', 'unmatched send', unmatched)
    _, want, _ = profile_json(t, '--critical-path', 'chain again', chain)
    t.check(code == 1 and len(err.splitlines()) == 1 and 'has no matching receive' in err,
            'unmatched send: one warning line, exit 1', repr((code, err)))
    keys = ('length_ticks', 'waits_followed', 'delay_cost_ticks', 'delay_costs')
    t.check(j and want and j['problems'] == 1
            and all(j[k] == want[k] for k in keys),
            'unmatched send: one problem, the same path and costs', repr(j))


def check_no_waits(t, d):
    """One location, main from 0 to 5 ms: the path is its main, no delay cost."""
    path = os.path.join(d, 'plain')
    write_plain(path)
    code, out, err = profile('--critical-path', os.path.join(path, 'traces.otf2'))
    lines = out.splitlines()
    t.check(code == 0 and err == '' and lines[0].endswith(': 5.000 ms, through 0 waits')
            and '      5.000 ms  100.00%     -  main' in lines
            and lines[-1] == 'Delay costs: none (no MPI wait)',
            'no MPI: the path is main, no delay cost, exit 0', repr((code, out, err)))


def check_usage(t, path):
    for args, text in [(['--critical-path', '--waits'], 'exclude each other'),
                       (['--critical-path', '--top', '3'], 'do not go with --critical-path')]:
        code, out, err = profile(*(args + [path]))
        t.check(code == 2 and out == '' and len(err.splitlines()) == 1 and text in err,
                'usage: %s: one line, exit 2' % ' '.join(args), repr((code, out, err)))


def check_mpi_program(t):
    vtmpi.require_runtime(OPENMPI)
    exe = vtmpi.compile(t, OPENMPI, 'critpath_prog', [t.source('critpath_prog.c')],
                        opt='-O0')
    r = vtmpi.mpirun(t, OPENMPI, 3, exe)
    vtmpi.clean_run(t, r, 'mpi program')
    tr = t.trace(r, 'mpi program')
    code, j, err = profile_json(t, '--critical-path', 'mpi program', tr.path)
    t.eq((code, err), (0, ''), 'mpi program: exit 0')
    if not j:
        return
    res = j['timer_resolution']
    # solve sleeps at least 350 ms on rank 1, 50 ms on the others: rank 1's all on the path.
    solves = [(c['rank'], c['time_ticks']) for c in j['call_paths']
              if c['path'][-1:] == ['solve']]
    t.check(len(solves) == 1 and solves[0][0] == 1
            and res * 350 // 1000 <= solves[0][1] <= res * 6,
            'mpi program: the path runs through rank 1\'s solve (350 ms up to 6 s), no other '
            'rank\'s', repr(solves))
    # The others wait about 300 ms each in MPI_Allreduce, for rank 1's solve.
    top = j['delay_costs'][0] if j['delay_costs'] else {}
    t.check(top.get('rank') == 1 and top.get('path', [])[-1:] == ['solve']
            and top.get('pattern') == 'wait_nxn'
            and top.get('wait_path', [])[-1:] == ['MPI_Allreduce'] and top.get('waits') == 2
            and 2 * res * 200 // 1000 <= top.get('cost_ticks', 0) <= 2 * res * 6,
            'mpi program: the largest delay cost is rank 1\'s solve, for 2 waits in '
            'MPI_Allreduce (2 x 200 ms up to 2 x 6 s)', repr(j['delay_costs']))


def body(t):
    d = t.newdir('by-hand')
    write_allreduce(os.path.join(d, 'allreduce'))
    write_chain(os.path.join(d, 'chain'))
    allreduce = os.path.join(d, 'allreduce', 'traces.otf2')
    check_allreduce(t, allreduce)
    check_chain(t, os.path.join(d, 'chain', 'traces.otf2'))
    write_two_sends(os.path.join(d, 'two'))
    check_two_sends(t, os.path.join(d, 'two', 'traces.otf2'))
    write_chain(os.path.join(d, 'unmatched'), unmatched=True)
    check_problems(t, os.path.join(d, 'unmatched', 'traces.otf2'),
                   os.path.join(d, 'chain', 'traces.otf2'))
    check_no_waits(t, d)
    check_usage(t, allreduce)
    check_mpi_program(t)


vttest.main('profile_critpath', body)
