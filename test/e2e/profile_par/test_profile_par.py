# SPDX-License-Identifier: BSD-3-Clause
"""vt-profile-mpi --waits, --critical-path and --mpi on 2 and 4 processes (Open MPI) and
vt-profile-mpich on 2 (MPICH) print what vt-profile prints, byte for byte (text, JSON, CSV),
with its exit status:
on a trace written with python3-otf2 (every pattern, an OpenMP team; once with an unmatched
send), on test/lib/omptrace.py's (OpenMP alone), and on traces of vtcc-built programs run
under Open MPI: samples/mpi/heat.c (halo messages, Allreduce), bench/waits-app.c (messages,
Allreduce, Bcast, Barrier; its ranks drift apart), test/e2e/profile/waits_prog.c (rank 1
sleeps before its send) and test/e2e/mpi_threads/mpi_threads.c (MPI from pthreads and an
OpenMP thread: several locations per rank). python3-otf2 says that each trace has what it is
here for. Each trace's text report again with --window 8 (an exchange about every 8 records:
ends, Leaves and completions in different exchanges); on waits-app, --stats shows that no
process holds more than a few windows of records at once (--waits and --mpi). --mpi's
serial JSON report also against python3-otf2's events (messages, bytes, collectives,
problems). --critical-path also on
waittrace's chain of two Late Senders (its path and delay costs known to the tick) and on
test/e2e/profile/critpath_prog.c (rank 1's solve sleeps 300 ms more before an Allreduce on 3
ranks: the path and the largest delay cost name rank 1's solve)."""
import json
import os
import re
import subprocess
import sys

import omptrace
import otf2events
import vtmpi
import vttest
import waittrace
from vtmpi import MPICH, OPENMPI
from vttest import otf2
from waittrace import ms

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'profile'))
import test_profile_waits  # noqa: E402  (its trace by hand with every pattern)

VT_PROFILE = os.environ.get('VT_PROFILE', 'vt-profile')
PAR = {'openmpi': os.environ.get('VT_PROFILE_MPI', ''),
       'mpich': os.environ.get('VT_PROFILE_MPICH', '')}
SRC = os.environ.get('VT_SOURCE_ROOT',
                     os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
RUNS = ((OPENMPI, 2), (OPENMPI, 4), (MPICH, 2))
# Exchanges about every 8 records a process reads (--window 8): many exchanges, a message's
# ends and a send's Leave or completion in different ones.
SMALL = ('--window', '8')


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout, p.stderr.decode(errors='replace')


def parallel(impl, np, args):
    return run(list(impl.launcher) + ['-np', str(np), PAR[impl.name]] + args)


def content(path):
    """Per kind the events python3-otf2 reads, and the most locations of one process."""
    kinds, per_group = {}, {}
    with otf2.reader.open(path) as reader:
        for loc in reader.definitions.locations:
            per_group[loc.group.name] = per_group.get(loc.group.name, 0) + 1
        for loc, ev in otf2events.events(reader):
            kinds[type(ev).__name__] = kinds.get(type(ev).__name__, 0) + 1
    return kinds, max(per_group.values())


def same(t, path, what, status=0, mode='--waits'):
    """Each format's serial report, then each parallel run's, compared byte for byte; the
    serial JSON report. --waits: CSV on Open MPI's 2 processes only; --critical-path and --mpi:
    every format on every run."""
    report = None
    for fmt in ('text', 'json', 'csv'):
        code, want, err = run([VT_PROFILE, mode, '--format', fmt, path])
        t.eq(code, status, '%s: vt-profile %s --format %s exits %d' % (what, mode, fmt, status))
        if fmt == 'json':
            report = json.loads(want.decode())
        for impl, np in RUNS:
            if fmt == 'csv' and (impl, np) != (OPENMPI, 2) and mode == '--waits':
                continue
            label = '%s: %s --format %s on %d processes (%s)' % (what, mode, fmt, np, impl)
            code, got, perr = parallel(impl, np, [mode, '--format', fmt, path])
            t.eq(code, status, '%s: exits %d' % (label, status))
            t.check(got == want, '%s: the same bytes as vt-profile' % label,
                    '--- vt-profile\n%s\n--- parallel\n%s\n%s'
                    % (want.decode(), got.decode(), perr))
            if fmt != 'text':
                continue
            code, got, perr = parallel(impl, np, list(SMALL) + [mode, path])
            t.eq(code, status, '%s, %s: exits %d' % (label, ' '.join(SMALL), status))
            t.check(got == want, '%s, %s: the same bytes as vt-profile' % (label, ' '.join(SMALL)),
                    '--- vt-profile\n%s\n--- parallel\n%s\n%s'
                    % (want.decode(), got.decode(), perr))
    return report


def both(t, path, what, status=0):
    """--waits, --critical-path and --mpi compared; the serial JSON reports of the first two
    (--mpi's: check_mpi)."""
    check_mpi(t, path, what, status)
    return same(t, path, what, status), same(t, path, what, status, '--critical-path')


def check_mpi(t, path, what, status):
    """--mpi compared, and its serial JSON report against python3-otf2's events: as many
    messages as receives (every receive matched), their bytes those of the sends, one
    collective instance per CollectiveEnd of a communicator's member over the members;
    problems: the unmatched send (status 1) or none."""
    report = same(t, path, what, status, '--mpi')
    sends, recvs, ends = [], 0, 0
    with otf2.reader.open(path) as reader:
        for loc, ev in otf2events.events(reader):
            name = type(ev).__name__
            if name in ('MpiSend', 'MpiIsend'):
                sends.append(ev.msg_length)
            elif name in ('MpiRecv', 'MpiIrecv'):
                recvs += 1
            elif name == 'MpiCollectiveEnd':
                ends += 1
    t.eq((report['messages'], report['problems']), (len(sends) - status, status),
         '%s: --mpi counts every send but the unmatched one, %d problem(s)' % (what, status))
    t.eq(report['messages'], recvs, '%s: --mpi counts a message per receive' % what)
    if not status:
        t.eq(report['bytes'], sum(sends), '%s: --mpi: the bytes of every send' % what)
    t.check(report['collectives'] <= ends and (ends == 0) == (report['collectives'] == 0),
            '%s: --mpi: at most a collective per member\'s end, none without ends' % what,
            '%d collectives, %d ends' % (report['collectives'], ends))
    return report


def instances(report, pattern):
    return [p['instances'] for p in report['patterns'] if p['pattern'] == pattern][0]


def check_by_hand(t):
    d = t.newdir('by-hand')
    for name, status in (('waits', 0), ('unmatched', 1)):
        test_profile_waits.write_waits(os.path.join(d, name), unmatched=name == 'unmatched')
        report, cp = both(t, os.path.join(d, name, 'traces.otf2'), 'by hand, ' + name, status)
        # Every pattern has its instances (test_profile_waits checks their values).
        t.eq([p['instances'] for p in report['patterns']], [2, 1, 1, 2, 2, 2, 1, 2],
             'by hand, %s: the instances of each pattern' % name)
        t.eq((report['problems'], cp['problems']), (status, status),
             'by hand, %s: problems (--waits, --critical-path)' % name)
        t.check(cp['waits_followed'] > 0 and cp['delay_costs'],
                'by hand, %s: a critical path through waits, delay costs' % name, repr(cp))
    check_chain(t, d)
    # Threads outside MPI (test/lib/omptrace.py: OpenMP barriers that wait): process 0's.
    report, _ = both(t, omptrace.write(os.path.join(d, 'omp')), 'omptrace')
    t.eq(instances(report, 'omp_barrier'), 3, 'omptrace: 3 OpenMP barrier waits')
    return os.path.join(d, 'waits', 'traces.otf2')


def check_chain(t, d):
    """waittrace's chain (rank 0 produces 30 ms, rank 1 waits for it, relays 10 ms, rank 2
    waits for that): test_profile_critpath's values, here from 4 processes (on 3 ranks: one
    reads nothing) and MPICH's 2."""
    waittrace.write_chain(os.path.join(d, 'chain'))
    path = os.path.join(d, 'chain', 'traces.otf2')
    same(t, path, 'chain', 0, '--critical-path')
    for impl, np in ((OPENMPI, 4), (MPICH, 2)):
        code, out, err = parallel(impl, np, ['--critical-path', '--format', 'json', path])
        j = json.loads(out.decode()) if code == 0 and out else {}
        t.eq((j.get('length_ticks'), j.get('waits_followed'), j.get('delay_cost_ticks')),
             (ms(50), 2, ms(71)),
             'chain on %d processes (%s): 50 ms through both waits, 71 ms of costs' % (np, impl))
        t.eq([(c['rank'], c['path'], c['pattern'], c['waits'], c['cost_ticks'])
              for c in j.get('delay_costs', [])],
             [(1, ['main', 'relay'], 'late_sender', 1, ms(41)),
              (0, ['main', 'produce'], 'late_sender', 1, ms(30))],
             'chain on %d processes (%s): each Late Sender to its sender\'s computation'
             % (np, impl))


def program(t, name, source, np, args=(), flags=(), env=None):
    vtmpi.require_runtime(OPENMPI)
    exe = vtmpi.compile(t, OPENMPI, name, [source], flags=flags)
    if os.environ.get('VT_TEST_PRELOAD'):
        # scripts/test-sanitize.sh: the sanitizer's runtime before libvt in every rank, as
        # vttest.Test.run does for one process (heat, with -lm, crashed without it).
        env = dict(env or {}, LD_PRELOAD=os.environ['VT_TEST_PRELOAD'])
    r = vtmpi.mpirun(t, OPENMPI, np, exe, args=args, env=env, timeout=240, label=name)
    vtmpi.clean_run(t, r, name)
    return t.trace(r, name).path


def check_programs(t):
    heat = program(t, 'heat', os.path.join(SRC, 'samples', 'mpi', 'heat.c'), 4, flags=['-lm'])
    kinds, _ = content(heat)
    t.check(kinds.get('MpiSend', 0) > 100 and kinds.get('MpiCollectiveEnd', 0) > 4,
            'heat: python3-otf2 reads messages and collectives', repr(kinds))
    report, _ = both(t, heat, 'heat')
    # Four ranks never enter 200 Allreduces at the same tick.
    t.check(instances(report, 'wait_nxn') > 0, 'heat: NxN waits to compare',
            repr(report['patterns']))

    app = program(t, 'waits-app', os.path.join(SRC, 'bench', 'waits-app.c'), 4, args=['3000'])
    kinds, _ = content(app)
    t.eq((kinds.get('MpiSend'), kinds.get('MpiRecv')), (4 * 3000, 4 * 3000),
         'waits-app: python3-otf2 reads a send and a receive per rank and iteration')
    report, cp = both(t, app, 'waits-app')
    t.check(cp['waits_followed'] > 10 and len(cp['delay_costs']) > 1,
            'waits-app: a critical path through many waits to compare', repr(cp)[:2000])
    t.check(instances(report, 'wait_nxn') > 0 and instances(report, 'wait_barrier') > 0,
            'waits-app: NxN and barrier waits to compare', repr(report['patterns']))
    check_bounded(t, app)

    # An injected delay: rank 1 sleeps 300 ms before the send rank 0 waits for.
    late = program(t, 'waits_prog', os.path.join(SRC, 'test', 'e2e', 'profile', 'waits_prog.c'),
                   2)
    report, _ = both(t, late, 'waits_prog')
    t.eq(instances(report, 'late_sender'), 1, 'waits_prog: its one Late Sender')

    threads = program(t, 'mpi_threads',
                      os.path.join(SRC, 'test', 'e2e', 'mpi_threads', 'mpi_threads.c'), 4,
                      flags=['-fopenmp', '-pthread'], env={'OMP_NUM_THREADS': '2'})
    kinds, most = content(threads)
    t.check(most >= 3 and kinds.get('MpiSend', 0) > 0 and kinds.get('ThreadTeamBegin', 0) > 0,
            'mpi_threads: python3-otf2 reads messages from several locations per rank and an '
            'OpenMP team', '%r, %d locations' % (kinds, most))
    report, _ = both(t, threads, 'mpi_threads')
    t.check(sum(p['instances'] for p in report['patterns']) > 0,
            'mpi_threads: waits to compare', repr(report['patterns']))


def check_delay(t):
    """An injected delay (test/e2e/profile/critpath_prog.c, 3 ranks): rank 1's solve sleeps
    350 ms, the others' 50 ms, then all enter an Allreduce. On 2 processes (one reads ranks 0,
    the other 1 and 2) the path runs through rank 1's solve and no other rank's, and the
    largest delay cost is rank 1's solve, for the 2 others' waits in MPI_Allreduce."""
    prog = program(t, 'critpath_prog',
                   os.path.join(SRC, 'test', 'e2e', 'profile', 'critpath_prog.c'), 3,
                   flags=['-O0'])
    same(t, prog, 'critpath_prog', 0, '--critical-path')
    for impl, np in RUNS:
        code, out, err = parallel(impl, np, ['--critical-path', '--format', 'json', prog])
        j = json.loads(out.decode()) if code == 0 and out else {}
        res = j.get('timer_resolution', 0)
        solves = [(c['rank'], c['time_ticks']) for c in j.get('call_paths', [])
                  if c['path'][-1:] == ['solve']]
        t.check(len(solves) == 1 and solves[0][0] == 1 and solves[0][1] >= res * 350 // 1000,
                'critpath_prog on %d processes (%s): the path runs through rank 1\'s solve '
                '(350 ms or more), no other rank\'s' % (np, impl), repr(solves))
        top = j['delay_costs'][0] if j.get('delay_costs') else {}
        t.eq((top.get('rank'), top.get('path', [])[-1:], top.get('pattern'),
              top.get('wait_path', [])[-1:], top.get('waits')),
             (1, ['solve'], 'wait_nxn', ['MPI_Allreduce'], 2),
             'critpath_prog on %d processes (%s): the largest delay cost is rank 1\'s solve, '
             'for 2 waits in MPI_Allreduce' % (np, impl))


def check_bounded(t, trace):
    """What a process holds is bounded by the window, not its share: with --window 64 on 4
    processes each sends 6000 or more records (a quarter of the 24000 message ends at least)
    in an exchange about every 64, and holds at most 256 records at once (--stats counts
    them; 6000 without the windows); for --waits and --mpi."""
    for mode in ('--waits', '--mpi'):
        bounded(t, trace, mode)
    for bad in ('0', 'x'):
        code, out, err = parallel(OPENMPI, 2, ['--waits', '--window', bad, trace])
        lines = [x for x in err.splitlines() if x.startswith('vt-profile:')]
        t.check(code == 2 and lines and '--window' in lines[0] and repr(bad) in lines[0],
                'usage: --window %s exits 2, the line names --window and %s' % (bad, bad), err)
    code, out, err = run([VT_PROFILE, '--stats', trace])
    t.check(code == 2 and '--window and --stats go with --waits, --critical-path or --mpi' in err,
            'usage: --stats without --waits, --critical-path or --mpi exits 2 and says so', err)


def bounded(t, trace, mode):
    code, want, _ = run([VT_PROFILE, mode, '--format', 'json', trace])
    code, got, err = parallel(OPENMPI, 4, [mode, '--format', 'json', '--window', '64',
                                           '--stats', trace])
    t.check((code, got) == (0, want), 'bounded %s: --window 64 --stats, the serial bytes' % mode,
            err)
    stats = {}
    for line in err.splitlines():
        m = re.match(r'vt-profile: process (\d) of 4: (\d+) records sent in (\d+) exchanges, '
                     r'at most (\d+) held at once, peak RSS (\d+) KiB$', line)
        if m:
            stats[int(m.group(1))] = [int(x) for x in m.groups()[1:]]
    t.check(sorted(stats) == [0, 1, 2, 3], 'bounded %s: a --stats line per process' % mode, err)
    for p, (records, exchanges, held, rss) in sorted(stats.items()):
        t.check(records >= 4 * 3000 * 2 // 4 and exchanges >= records // 65 and held <= 256,
                'bounded %s: process %d sent its ends in windows, held at most 256' % (mode, p),
                '%d records, %d exchanges, %d held' % (records, exchanges, held))
    t.check(sum(v[0] for v in stats.values()) >= 4 * 3000 * 2,
            'bounded %s: every send and receive sent to its owner' % mode, repr(stats))


def check_usage(t, trace):
    code, out, err = parallel(OPENMPI, 2, ['--imbalance', trace])
    t.eq(code, 2, 'usage: --imbalance on 2 processes exits 2')
    t.check('only --waits, --critical-path and --mpi run on more than one process' in err,
            'usage: --imbalance on 2 processes says only --waits, --critical-path and --mpi '
            'run there', err)
    code, out, err = parallel(OPENMPI, 2, ['--waits', trace + '.none'])
    lines = [x for x in err.splitlines() if x.startswith('vt-profile:')]
    t.eq((code, len(lines)), (2, 1), 'bad trace on 2 processes: exit 2, one line')
    t.check(lines and lines[0].startswith('vt-profile: %s.none: ' % trace),
            'bad trace on 2 processes: the line names the trace', err)
    code, out, err = parallel(OPENMPI, 1, ['--waits', '--format', 'json', trace])
    code1, want, err1 = run([VT_PROFILE, '--waits', '--format', 'json', trace])
    t.eq((code, out), (code1, want), 'one process: vt-profile-mpi is vt-profile')


def body(t):
    vttest.skip_under_sanitizer('the sanitizer builds libvt only, not vt-profile-mpi, and the '
                                'traces it reads come from programs other tests run '
                                'sanitized')
    for impl in ('openmpi', 'mpich'):
        if not PAR[impl] or not os.access(PAR[impl], os.X_OK):
            t.fail('the %s vt-profile is built' % impl, repr(PAR[impl]))
            return
    check_usage(t, check_by_hand(t))
    check_programs(t)
    check_delay(t)


vttest.main('profile_par', body)
