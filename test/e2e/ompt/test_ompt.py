# SPDX-License-Identifier: BSD-3-Clause
"""e2e "ompt": OpenMP through OMPT inside libvt (LLVM's libomp): regions of every construct,
thread teams as communicators with their members, fork/join, locks with their acquisition
order, exact counts per thread, in C (clang, gcc) and Fortran (gfortran);
VT_OPENMP=off|regions|all and a bad value. constructs.c (clang): nest locks (inner levels are
calls, not acquisitions), omp_test_lock failing then succeeding (libomp reports a test as an
omp_set_lock; a failed one leaves nothing), masked, taskgroup, ordered and taskloop."""

import collections
import json
import os
import subprocess

import otf2events
import vttest

# By hand, from ompt.c (omp_set_num_threads(2), max active levels 2). The outer team is
# the main thread and the first thread libomp starts ("Thread 1"); the nested region makes
# each of them fork an inner team with a thread of its own (which of "Thread 2" and
# "Thread 3" joins which is up to libomp).
REPS, CRIT, TASKS = 3, 4, 4
# Enter counts per construct (the region name before " @") on each outer thread, as libomp
# reports the code clang makes (its __kmpc_* entry points).
OUTER = {
    '!$omp parallel': REPS + 1 + 1 + 1,  # loops, the region, the nested outer and inner
    '!$omp for': REPS,
    # each loop's, the sections', the single's, the region's join, the outer and the
    # inner nested region's joins
    '!$omp implicit barrier': REPS + 1 + 1 + 1 + 1 + 1,
    '!$omp sections': 1,
    '!$omp barrier': 1,
    '!$omp single': 1,
}
# The same program compiled by gcc calls libomp's GOMP_* entry points, which report less
# and otherwise: no loop of a combined parallel loop, the sections as a loop, and the
# barriers gcc makes itself (the explicit one, those ending sections and single) as
# barriers of the implementation.
OUTER_GOMP = {
    '!$omp parallel': REPS + 1 + 1 + 1,
    '!$omp for': 1,
    '!$omp implicit barrier': REPS + 1 + 1 + 1,
    '!$omp implementation barrier': 3,
    '!$omp single': 1,
}
LOCKS = {'!$omp critical': CRIT, 'omp_set_lock': 1, 'omp_unset_lock': 1}
INNER = {'!$omp parallel': 1, '!$omp implicit barrier': 1}
# Thread-model events per role: forks are made by the main thread (REPS + 2 + its inner
# team) and by Thread 1 (its inner team); each outer member begins REPS + 2 teams and one
# inner team.
EVENTS_MAIN = {'ThreadFork': REPS + 3, 'ThreadJoin': REPS + 3, 'ThreadTeamBegin': REPS + 3,
               'ThreadTeamEnd': REPS + 3}
EVENTS_T1 = {'ThreadFork': 1, 'ThreadJoin': 1, 'ThreadTeamBegin': REPS + 3,
             'ThreadTeamEnd': REPS + 3}
EVENTS_INNER = {'ThreadTeamBegin': 1, 'ThreadTeamEnd': 1}
EVENTS_LOCKS = {'ThreadAcquireLock': CRIT + 1, 'ThreadReleaseLock': CRIT + 1}
THREAD_KINDS = ('ThreadFork', 'ThreadJoin', 'ThreadTeamBegin', 'ThreadTeamEnd',
                'ThreadAcquireLock', 'ThreadReleaseLock', 'ThreadTaskCreate',
                'ThreadTaskSwitch', 'ThreadTaskComplete')

# (compiler, -O level, whether region names are checked to the source line): at -O2 clang
# tail-calls the runtime from the outer region, so the nested region's return address is
# in libomp, named after its function there. gcc compiles and clang -fopenmp links (libomp):
# the gcc variant is gcc's code on libomp, whatever vtcc -fopenmp links with gcc.
VARIANTS = [('clang', '-O0', True), ('clang', '-O2', False), ('gcc', '-O0', False)]


def build(t, cc, opt):
    if cc != 'gcc':
        return t.compile('ompt', ['ompt.c'], compiler=cc, opt=opt, flags=['-fopenmp', '-g'])
    obj = t.compile('ompt.o', ['ompt.c'], compiler=cc, opt=opt, flags=['-fopenmp', '-g', '-c'])
    return t.compile('ompt', [obj], compiler='clang', opt=opt, flags=['-fopenmp'],
                     outdir=os.path.dirname(obj))


def construct(name):
    return name.split(' @')[0]


def read(path):
    """Per location: Enter counts by construct, thread-model events in order (kind, detail),
    and the OpenMP team communicators by name: [member location names in order]."""
    vttest.require_otf2()
    otf2 = vttest.otf2
    locs = collections.OrderedDict()
    teams = {}
    with otf2.reader.open(path, batch_events=10000) as r:
        for c in r.definitions.comms:
            g = c.group
            if str(g.paradigm).endswith('OPENMP'):
                teams[c.name] = [m.name for m in g.members]
        for l in r.definitions.locations:
            locs[l.name] = {'enters': collections.Counter(), 'names': collections.Counter(),
                            'events': [], 'last': {}}
        for l, ev in otf2events.events(r):
            d = locs[l.name]
            kind = type(ev).__name__
            if kind == 'Enter':
                d['enters'][construct(ev.region.name)] += 1
                d['names'][ev.region.name] += 1
            elif kind in ('ThreadTeamBegin', 'ThreadTeamEnd'):
                d['events'].append((kind, ev.thread_team.name))
                d['last'][kind] = ev.time
            elif kind == 'ThreadFork':
                d['events'].append((kind, ev.number_of_requested_threads))
            elif kind in ('ThreadAcquireLock', 'ThreadReleaseLock'):
                d['events'].append((kind, (ev.lock_id, ev.acquisition_order)))
            elif kind in ('ThreadTaskCreate', 'ThreadTaskSwitch', 'ThreadTaskComplete'):
                c = ev.creating_thread
                d['events'].append((kind, (ev.thread_team.name, getattr(c, 'name', c),
                                           ev.generation_number)))
            elif kind in THREAD_KINDS:
                d['events'].append((kind, None))
                d['last'][kind] = ev.time
    return locs, teams


def omp_counts(d):
    return {k: v for k, v in d['enters'].items() if k.startswith('!$omp') or k.startswith('omp_')}


TASK_KINDS = ('ThreadTaskCreate', 'ThreadTaskSwitch', 'ThreadTaskComplete')
TASK_REGIONS = ('!$omp taskwait', '!$omp task', '!$omp task untied', '!$omp task create')


def kinds(d):
    """Thread-model events by kind, but the tasks' (which thread runs a task varies)."""
    return dict(collections.Counter(k for k, _ in d['events'] if k not in TASK_KINDS))


def check_tasks(t, what, locs, teams, all_):
    """The single's thread creates TASKS tied tasks and an untied one (generations
    1..TASKS + 1, itself their creating thread, its number in the team) in as many task
    create regions, and waits once. A tied task runs in one piece: one switch to it, its
    region, its completion on that thread. The untied one may be suspended and resumed on
    another thread: each piece is a switch to it and a region of its own there, and it
    completes where its last piece ran. Each thread switches back only to its own implicit
    task (generation 0)."""
    n = TASKS + 1
    ev = {name: [(k, x) for k, x in d['events'] if k in TASK_KINDS]
          for name, d in locs.items()}
    total = collections.Counter(k for e in ev.values() for k, _ in e)
    regions = collections.Counter()
    for d in locs.values():
        regions.update({k: v for k, v in d['enters'].items() if k in TASK_REGIONS})
    if not all_:
        t.eq(dict(total), {}, '%s: no task events' % what)
        t.eq(dict(regions), {'!$omp taskwait': 1}, '%s: only the taskwait region' % what)
        return
    pieces = regions['!$omp task untied']
    t.check(pieces >= 1, '%s: the untied task ran in at least one piece' % what, repr(regions))
    t.eq(dict(regions), {'!$omp taskwait': 1, '!$omp task': TASKS, '!$omp task untied': pieces,
                         '!$omp task create': n},
         '%s: task regions: one taskwait, %d tied task bodies, %d creations' % (what, TASKS, n))
    t.eq((total['ThreadTaskCreate'], total['ThreadTaskComplete']), (n, n),
         '%s: %d tasks created and completed' % (what, n))
    maker = [name for name, d in locs.items() if d['enters'].get('!$omp taskwait')]
    if len(maker) != 1:
        return
    maker = maker[0]
    num = {(team, name): i for team, members in teams.items() for i, name in enumerate(members)}
    made = [x for k, x in ev[maker] if k == 'ThreadTaskCreate']
    t.eq(sorted(x[2] for x in made), list(range(1, n + 1)),
         '%s: the single\'s thread creates generations 1..%d' % (what, n))
    t.check(all(x[1] == num.get((x[0], maker)) for x in made),
            '%s: created by %s itself' % (what, maker), repr(made))
    runs = collections.Counter()
    last = {}
    bad = []
    for name, e in ev.items():
        for k, x in e:
            if k == 'ThreadTaskSwitch' and x[2]:
                runs[x] += 1
                last[x] = name
            elif k == 'ThreadTaskSwitch' and x[1] != num.get((x[0], name)):
                bad.append('%s returns to another thread\'s implicit task %r' % (name, x))
            elif k == 'ThreadTaskComplete' and last.get(x) != name:
                bad.append('%r completes on %s, not where it last ran' % (x, name))
    untied = [x for x in made if x[2] == n]
    want = collections.Counter({x: 1 for x in made if x[2] != n})
    want.update({x: pieces for x in untied})
    t.eq(dict(runs), dict(want), '%s: one switch to each tied task, one per piece of the '
         'untied one' % what)
    t.check(not bad, '%s: tasks complete where they last ran; threads return to their own '
            'implicit task' % what, repr(bad))


def check_teams(t, what, locs, teams):
    """The teams' members, and every ThreadTeamBegin/End on a member of its team, nested."""
    outer = [n for n, m in teams.items() if m == ['Master thread', 'Thread 1']]
    t.eq(len(outer), 1, '%s: one team comm of the main thread and Thread 1 (%r)' % (what, teams))
    inner = sorted(m for m in teams.values() if m != ['Master thread', 'Thread 1'])
    ok = (len(inner) == 2 and sorted(m[0] for m in inner) == ['Master thread', 'Thread 1']
          and sorted(m[1] for m in inner) == ['Thread 2', 'Thread 3'])
    t.check(ok, '%s: two inner team comms: the main thread and Thread 1 each with one of '
            'Thread 2, Thread 3 (thread 0 first)' % what, repr(teams))
    t.eq(len(teams), 3, '%s: 3 OpenMP team communicators for 6 + 2 team instances' % what)
    for name, d in locs.items():
        stack, bad = [], []
        for kind, team in d['events']:
            if kind == 'ThreadTeamBegin':
                if name not in teams.get(team, []):
                    bad.append('begins %s, not a member' % team)
                stack.append(team)
            elif kind == 'ThreadTeamEnd':
                if not stack or stack.pop() != team:
                    bad.append('ends %s, not the innermost team begun' % team)
        t.check(not bad and not stack, '%s: %s: team begins and ends nest, on members only'
                % (what, name), repr(bad + stack))
    if outer:
        seq = [team for kind, team in locs['Master thread']['events']
               if kind == 'ThreadTeamBegin']
        t.eq(seq[:REPS + 2], [outer[0]] * (REPS + 2),
             '%s: the main thread\'s top-level regions are all one team' % what)


def check_locks(t, what, locs):
    """Each lock's acquisitions over all threads are ordered 1..n; each release follows its
    acquisition on the same thread with the same order."""
    orders = collections.defaultdict(list)
    bad = []
    for name, d in locs.items():
        held = []
        for kind, detail in d['events']:
            if kind == 'ThreadAcquireLock':
                orders[detail[0]].append(detail[1])
                held.append(detail)
            elif kind == 'ThreadReleaseLock':
                if detail not in held:
                    bad.append('%s releases %r not held' % (name, detail))
                else:
                    held.remove(detail)
        bad += ['%s holds %r at the end' % (name, h) for h in held]
    t.eq(sorted(len(o) for o in orders.values()), [2, 2 * CRIT],
         '%s: two locks: the omp lock (2 acquisitions) and the critical section (%d)'
         % (what, 2 * CRIT))
    t.check(all(sorted(o) == list(range(1, len(o) + 1)) for o in orders.values()),
            '%s: acquisition orders of each lock are 1..n' % what, repr(dict(orders)))
    t.check(not bad, '%s: every release matches an acquisition of its thread' % what,
            repr(bad))


def check_names(t, what, locs):
    src = t.source('ompt.c')
    want = {
        '!$omp parallel': vttest.line_of(src, r'omp parallel for'),
        '!$omp for': vttest.line_of(src, r'omp parallel for'),
        '!$omp sections': vttest.line_of(src, r'omp sections'),
        '!$omp critical': vttest.line_of(src, r'omp critical'),
        '!$omp barrier': vttest.line_of(src, r'omp barrier'),
        '!$omp single': vttest.line_of(src, r'omp single'),
    }
    names = set()
    for d in locs.values():
        names |= set(d['names'])
    for c, line in sorted(want.items()):
        t.check('%s @ompt.c:%d' % (c, line) in names, '%s: region "%s @ompt.c:%d"'
                % (what, c, line), repr(sorted(n for n in names if n.startswith(c))))
    nested = vttest.line_of(src, r'omp parallel num_threads')
    t.check('!$omp parallel @ompt.c:%d' % (nested + 2) in names,
            '%s: the nested region is named at its line' % what,
            repr(sorted(n for n in names if n.startswith('!$omp parallel'))))
    t.check(all(n in ('omp_set_lock', 'omp_unset_lock') or ' @ompt.c:' in n
                for n in names if n.startswith('!$omp') or n.startswith('omp_')),
            '%s: every construct is named at its source line' % what,
            repr(sorted(n for n in names if ' @ompt.c:' not in n)))


def check_run(t, what, exe, plain, mode, names, args=(), prefix=None, outer=OUTER):
    env = {'OMP_NUM_THREADS': '4'}  # the program asks for 2 itself
    if mode:
        env['VT_OPENMP'] = mode
    run = t.run(exe, args=args, env=env, label='run')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    tr = t.trace(run, what, prefix=prefix)
    locs, teams = read(tr.path)
    all_ = mode in (None, 'all')
    if mode == 'off':
        # the inner workers run no function of the program: no events, no location
        t.eq(list(locs)[:2], ['Master thread', 'Thread 1'],
             '%s: the main thread and its worker have locations' % what)
        for name, d in locs.items():
            t.eq(omp_counts(d), {}, '%s: %s: no OpenMP regions' % (what, name))
            t.eq(kinds(d), {}, '%s: %s: no thread-model events' % (what, name))
        t.eq(teams, {}, '%s: no OpenMP team communicators' % what)
        return
    t.eq(list(locs), ['Master thread', 'Thread 1', 'Thread 2', 'Thread 3'],
         '%s: four locations: main, its worker, the two inner workers' % what)
    if len(locs) != 4:
        return
    for name in ('Master thread', 'Thread 1'):
        want = dict(outer, **(LOCKS if all_ else {}))
        got = omp_counts(locs[name])
        for k in TASK_REGIONS:
            got.pop(k, None)
        t.eq(got, want, '%s: %s: Enter counts of the OpenMP constructs' % (what, name))
    check_tasks(t, what, locs, teams, all_)
    for name in ('Thread 2', 'Thread 3'):
        t.eq(omp_counts(locs[name]), INNER, '%s: %s: Enter counts of the OpenMP constructs'
             % (what, name))
        t.eq(kinds(locs[name]), EVENTS_INNER, '%s: %s: thread-model events' % (what, name))
    for name, want in (('Master thread', EVENTS_MAIN), ('Thread 1', EVENTS_T1)):
        t.eq(kinds(locs[name]), dict(want, **(EVENTS_LOCKS if all_ else {})),
             '%s: %s: thread-model events' % (what, name))
        forks = [d for k, d in locs[name]['events'] if k == 'ThreadFork']
        t.check(forks and all(n == 2 for n in forks),
                '%s: %s: every fork requests 2 threads' % (what, name), repr(forks))
    # Every barrier's threads are all there: the outer team's on both outer threads, the
    # inner teams' on all four.
    m, w = locs['Master thread']['names'], locs['Thread 1']['names']
    barriers = sorted(n for n in set(m) | set(w) if 'barrier' in n)
    t.check(barriers and all(m[n] == w[n] for n in barriers),
            '%s: every barrier region is entered as often by both outer threads' % what,
            repr([(n, m[n], w[n]) for n in barriers]))
    check_teams(t, what, locs, teams)
    # libomp reports a worker's end of its last region never: it ends when its team joined.
    joins = [locs[n]['last'].get('ThreadJoin', 0) for n in ('Master thread', 'Thread 1')]
    ends = {n: locs[n]['last'].get('ThreadTeamEnd') for n in ('Thread 1', 'Thread 2', 'Thread 3')}
    t.check(ends['Thread 1'] is not None and ends['Thread 1'] <= joins[0],
            '%s: Thread 1\'s last team ends by the main thread\'s last join' % what,
            repr((ends, joins)))
    t.check(all(e is not None and e <= max(joins) for e in ends.values()),
            '%s: the inner workers\' teams end by their forking threads\' joins' % what,
            repr((ends, joins)))
    if all_:
        check_locks(t, what, locs)
    if names:
        check_names(t, what, locs)
    check_profile(t, what, tr.path, locs)


def check_profile(t, what, path, locs):
    """vt-profile --threads on the real trace: its counts per thread and its calls per
    construct and thread are the events python3-otf2 read."""
    p = subprocess.run([vttest.VT_PROFILE, '--threads', '--format', 'json', path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if not t.check(p.returncode == 0, '%s: vt-profile --threads works' % what, p.stderr[-300:]):
        return
    doc = json.loads(p.stdout)
    fields = {'forks': 'ThreadFork', 'teams': 'ThreadTeamBegin',
              'tasks_created': 'ThreadTaskCreate', 'task_switches': 'ThreadTaskSwitch',
              'tasks_completed': 'ThreadTaskComplete', 'locks': 'ThreadAcquireLock'}
    got = {th['name']: {f: th[f] for f in fields} for th in doc['threads']}
    want = {name: {f: sum(1 for k, _ in d['events'] if k == kind) for f, kind in fields.items()}
            for name, d in locs.items()}
    t.eq(got, want, '%s: vt-profile --threads: thread-model events per thread' % what)
    calls = {(c['name'], th['name']): th['calls'] for c in doc['constructs']
             for th in c['threads']}
    t.check(calls and all(n == locs[loc]['names'][name] for (name, loc), n in calls.items()),
            '%s: vt-profile --threads: calls per construct and thread = Enter events' % what,
            repr([(k, n, locs[k[1]]['names'][k[0]]) for k, n in calls.items()
                  if n != locs[k[1]]['names'][k[0]]][:5]))
    # vt-export --chrome keeps every team membership as a span and the task and lock events
    out = os.path.join(os.path.dirname(path), 'chrome.json')
    exe = os.path.join(vttest.BUILD_ROOT, 'tools', 'vt-export', 'vt-export')
    p = subprocess.run([exe, '--chrome', path, '-o', out], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if t.check(p.returncode == 0, '%s: vt-export --chrome works' % what, p.stderr[-300:]):
        with open(out) as f:
            phases = collections.Counter((e.get('ph'), e.get('cat'))
                                         for e in json.load(f)['traceEvents'])
        teams = sum(1 for d in locs.values() for k, _ in d['events'] if k == 'ThreadTeamBegin')
        t.eq((phases[('b', 'openmp')], phases[('e', 'openmp')]), (teams, teams),
             '%s: vt-export --chrome: a span per team membership' % what)
    parallel = [c for c in doc['constructs'] if c['kind'] == 'parallel']
    t.check(parallel and all(c['work']['max_ticks'] >= c['work']['mean_ticks'] > 0
                             for c in parallel),
            '%s: vt-profile --threads: every parallel region has work, max >= mean' % what)


def early(t):
    """OpenMP in a constructor, before main: both regions are there, one team."""
    exe = t.compile('early', ['early.c'], compiler='clang', opt='-O0', flags=['-fopenmp', '-g'])
    run = t.run(exe, label='early')
    t.eq(run.status, 0, 'early: exit status 0')
    t.clean_run(run, 'early')
    tr = t.trace(run, 'early')
    locs, teams = read(tr.path)
    t.eq(list(teams.values()), [['Master thread', 'Thread 1']], 'early: one team comm')
    if list(locs) == ['Master thread', 'Thread 1']:
        t.eq(kinds(locs['Master thread']), {'ThreadFork': 2, 'ThreadJoin': 2,
                                            'ThreadTeamBegin': 2, 'ThreadTeamEnd': 2},
             'early: the constructor\'s region and main\'s: fork, join, team events')
        t.eq(omp_counts(locs['Thread 1']), {'!$omp parallel': 2, '!$omp implicit barrier': 2},
             'early: Thread 1 in both regions')
    else:
        t.fail('early: two locations', repr(list(locs)))


# By hand, from constructs.c: per thread, exact; the singles' work (a taskgroup of 2 tasks, a
# taskloop of 4 tasks in its implicit taskgroup) is on whichever thread ran each single, and
# the tasks on whichever thread took them: those are counted over both threads.
CONSTRUCTS_EACH = {'!$omp parallel': 1, 'omp_set_nest_lock': 2, 'omp_unset_nest_lock': 2,
                   'omp_set_lock': 1, 'omp_unset_lock': 1, '!$omp barrier': 2,
                   '!$omp single': 2, '!$omp for': 1, '!$omp ordered': 2,
                   # the ends of the two singles, the loop and the region
                   '!$omp implicit barrier': 4}
CONSTRUCTS_TOTAL = {'!$omp masked': 1, '!$omp taskgroup': 2, '!$omp task create': 6,
                    '!$omp task': 6, '!$omp taskloop': 1}
# Acquisitions per thread: the nest lock once (its outer level), the test lock once (the
# master's test that succeeded, the worker's set), each ordered iteration.
CONSTRUCTS_EVENTS = {'ThreadAcquireLock': 4, 'ThreadReleaseLock': 4}


def constructs_case(t):
    exe = t.compile('constructs', ['constructs.c'], compiler='clang', opt='-O0',
                    flags=['-fopenmp', '-g'])
    what = 'constructs.c (clang -O0)'
    run = t.run(exe, label='constructs')
    t.eq((run.status, run.stdout), (0, 'nested = 2, tested = 1, failed > 0: 1, grouped = 2, '
                                       'order = 1234, looped = 28\n'), '%s: the program ran' % what)
    t.clean_run(run, what)
    locs, _ = read(t.trace(run, what, prefix='constructs.vt').path)
    t.eq(list(locs), ['Master thread', 'Thread 1'], '%s: two threads' % what)
    total = collections.Counter()
    for name, d in locs.items():
        counts = omp_counts(d)
        t.eq({k: counts.get(k, 0) for k in CONSTRUCTS_EACH}, CONSTRUCTS_EACH,
             '%s: %s: the constructs every thread runs' % (what, name))
        t.eq(counts.get('omp_test_lock', 0), 0,
             '%s: %s: no omp_test_lock region (libomp reports tests as sets)' % (what, name))
        t.eq({k: v for k, v in kinds(d).items() if k in CONSTRUCTS_EVENTS}, CONSTRUCTS_EVENTS,
             '%s: %s: lock acquisitions and releases' % (what, name))
        total.update({k: counts.get(k, 0) for k in CONSTRUCTS_TOTAL})
        total.update(k for k, _ in d['events'] if k in TASK_KINDS)
    t.eq(locs['Master thread']['enters']['!$omp masked'], 1, '%s: the masked region is the '
         'master\'s' % what)
    t.eq(dict(total), dict(CONSTRUCTS_TOTAL, ThreadTaskCreate=6, ThreadTaskSwitch=12,
                           ThreadTaskComplete=6),
         '%s: over both threads: taskgroups, tasks, the taskloop' % what)


def body(t):
    exes = t.parallel(lambda v: build(t, v[0], v[1]), VARIANTS)
    plain_exe = t.compile('ompt', ['ompt.c'], compiler='clang', opt='-O0', flags=['-fopenmp'],
                          instrument=False)
    plain = t.run(plain_exe, env={'OMP_NUM_THREADS': '4'}, label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    for (cc, opt, names), exe in zip(VARIANTS, exes):
        check_run(t, '%s %s' % (cc, opt), exe, plain, None, names,
                  outer=OUTER_GOMP if cc == 'gcc' else OUTER)
    # The same constructs in Fortran: gfortran's code (its GOMP_* calls, as gcc's C) on the
    # libomp vtfort links, with omp_lib's locks and the program's regions around them.
    fexe = t.compile('ompt_f', ['ompt.f90'], lang='fortran', opt='-O0', flags=['-fopenmp', '-g'])
    fplain = t.run(t.compile('ompt_f', ['ompt.f90'], lang='fortran', opt='-O0',
                             flags=['-fopenmp'], instrument=False),
                   env={'OMP_NUM_THREADS': '4'}, label='plain-f')
    check_run(t, 'gfortran -O0', fexe, fplain, None, False, outer=OUTER_GOMP)
    cc, opt, _ = VARIANTS[0]
    for mode in ('all', 'regions', 'off'):
        check_run(t, '%s %s VT_OPENMP=%s' % (cc, opt, mode), exes[0], plain, mode, False)
    # The program nobody rebuilt, under vtrun: the same OpenMP events (libomp, loaded before
    # the preloaded libvt, may start its tool before vt has started).
    vtrun = os.path.join(os.path.dirname(vttest.VTCC), 'vtrun')
    check_run(t, 'vtrun (clang -O0, not rebuilt)', vtrun, plain, None, False, args=[plain_exe],
              prefix='ompt.vt')
    early(t)
    constructs_case(t)
    # A bad value: the config table's one line, and the program runs untraced.
    run = t.run(exes[0], env={'VT_OPENMP': 'some'}, label='bad')
    t.eq(run.status, 0, 'VT_OPENMP=some: the program runs')
    bad = [m for m in run.errors if 'VT_OPENMP' in m]
    t.check(len(bad) == 1 and 'off' in bad[0] and 'regions' in bad[0] and 'all' in bad[0],
            'VT_OPENMP=some: one error line naming the variable and the choices', repr(run.errors))
    t.eq(os.listdir(run.gdir), [], 'VT_OPENMP=some: no trace')


vttest.main('ompt', body)
