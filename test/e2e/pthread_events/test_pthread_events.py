# SPDX-License-Identifier: BSD-3-Clause
"""e2e "pthread_events": VT_PTHREAD: pthread_create/join, a shared mutex, trylock and a
condition variable hand-off as OTF2 thread-model events, with exact counts per location: built
with vtcc (gcc -O0, clang -O2), and the plain gcc build nobody rebuilt under vtrun (the same
pthread events; no regions of the program's own functions)."""

import collections
import os

import vttest

try:
    import otf2
except ImportError:  # vttest.require_otf2 says so
    otf2 = None

# By hand, from pthread_events.c (NTHREADS 4, K 5): the main thread trylocks and unlocks
# the shared mutex once, creates 4 threads, waits once on the condition variable (locking
# the hand-off mutex before, unlocking it after) and joins the 4 threads. Each thread locks
# and unlocks the shared mutex K times; thread 0 then locks the hand-off mutex, signals
# and unlocks it.
N, K = 4, 5
MAIN = {'pthread_mutex_trylock': 1, 'pthread_mutex_unlock': 2, 'pthread_create': N,
        'pthread_mutex_lock': 1, 'pthread_cond_wait': 1, 'pthread_join': N}
THREAD = {'pthread_mutex_lock': K, 'pthread_mutex_unlock': K}
THREAD0 = {'pthread_mutex_lock': K + 1, 'pthread_mutex_unlock': K + 1,
           'pthread_cond_signal': 1}
PTHREAD_KINDS = ('ThreadCreate', 'ThreadWait', 'ThreadAcquireLock', 'ThreadReleaseLock')
VARIANTS = [('gcc', '-O0'), ('clang', '-O2')]


def thread_events(path):
    """Per location (by name): the list of (kind, fields) of its thread-model events, in
    order, read with python3-otf2; and the paradigm of each pthread_* region."""
    vttest.require_otf2()
    per = collections.defaultdict(list)
    paradigms = {}
    with otf2.reader.open(path) as reader:
        for r in reader.definitions.regions:
            if r.name.startswith('pthread_'):
                paradigms[r.name] = str(r.paradigm).rsplit('.', 1)[-1]
        for loc, ev in reader.events:
            kind = type(ev).__name__
            if kind in ('ThreadBegin', 'ThreadEnd', 'ThreadCreate', 'ThreadWait'):
                per[loc.name].append((kind, ev.sequence_count))
            elif kind in ('ThreadAcquireLock', 'ThreadReleaseLock'):
                per[loc.name].append((kind, (str(ev.model).rsplit('.', 1)[-1], ev.lock_id,
                                             ev.acquisition_order)))
    return per, paradigms


def check_events(t, tr, what, instrumented=True):
    names = [l.name for l in tr.locations]
    t.eq(names, ['Master thread'] + ['Thread %d' % i for i in range(1, N + 1)],
         '%s: one location per thread' % what)
    if len(names) != N + 1:
        return
    master = tr.loc('Master thread')
    threads = tr.locations[1:]
    pthread_enters = lambda loc: {k: v for k, v in loc.enters.items()
                                  if k.startswith('pthread_') and v}
    t.eq(pthread_enters(master), MAIN, '%s: master: Enter counts of the pthread regions'
         % what)
    got = sorted((pthread_enters(l) for l in threads), key=lambda d: -len(d))
    t.eq(got, [THREAD0] + [THREAD] * (N - 1),
         '%s: threads: Enter counts of the pthread regions (as a multiset)' % what)
    # the program's own functions are there too (when it was built with vtcc)
    if instrumented:
        t.eq(master.enters['main'], 1, '%s: master: main entered once' % what)
        t.eq(sorted(l.enters['add'] for l in threads), [1] * N,
             '%s: add once per thread' % what)
    else:
        t.eq(sorted(n for l in tr.locations for n, v in l.enters.items()
                    if v and not n.startswith('pthread_')), [],
             '%s: no region but the pthread calls' % what)

    per, paradigms = thread_events(tr.path)
    t.eq(paradigms, {name: 'PTHREAD' for name in set(MAIN) | set(THREAD0)},
         '%s: the pthread regions have paradigm PTHREAD' % what)
    count = lambda name, kind: sum(1 for k, _ in per[name] if k == kind)
    t.eq([(count('Master thread', k)) for k in PTHREAD_KINDS], [N, N, 3, 3],
         '%s: master: ThreadCreate, ThreadWait, ThreadAcquireLock, ThreadReleaseLock' % what)
    got = sorted([count(l.name, k) for k in PTHREAD_KINDS] for l in threads)
    t.eq(got, sorted([[0, 0, K, K]] * (N - 1) + [[0, 0, K + 1, K + 1]]),
         '%s: threads: no ThreadCreate/Wait, K (thread 0: K + 1) acquisitions and releases'
         % what)

    # Sequence numbers: each ThreadCreate's is one thread's ThreadBegin's and ThreadEnd's,
    # and a ThreadWait names each of them once.
    creates = [s for k, s in per['Master thread'] if k == 'ThreadCreate']
    waits = [s for k, s in per['Master thread'] if k == 'ThreadWait']
    begins = {l.name: [s for k, s in per[l.name] if k == 'ThreadBegin'] for l in threads}
    ends = {l.name: [s for k, s in per[l.name] if k == 'ThreadEnd'] for l in threads}
    t.check(all(s > 2 ** 32 for s in creates) and len(set(creates)) == N,
            '%s: ThreadCreate numbers are distinct and above 2^32' % what, repr(creates))
    t.eq(sorted(s for b in begins.values() for s in b), sorted(creates),
         '%s: ThreadCreate seq == ThreadBegin seq of a thread, one each' % what)
    t.eq(begins, ends, '%s: every thread\'s ThreadEnd carries its ThreadBegin\'s seq' % what)
    t.eq(sorted(waits), sorted(creates), '%s: ThreadWait seq == a ThreadEnd seq, each once'
         % what)
    for l in threads:
        evs = per[l.name]
        t.check(evs and evs[0][0] == 'ThreadBegin' and evs[-1][0] == 'ThreadEnd',
                '%s: %s: ThreadBegin first, ThreadEnd last' % (what, l.name), repr(evs[:2]))

    # Locks: the same mutex has one number everywhere; its acquisition orders are 0..n-1
    # over the process, increasing on each location; each release repeats its acquisition.
    acq = collections.defaultdict(list)
    paired = True
    models = set()
    for loc in [master] + threads:
        held = {}
        last = {}
        for kind, val in per[loc.name]:
            if kind == 'ThreadAcquireLock':
                model, lock, order = val
                models.add(model)
                acq[lock].append(order)
                t.check(order > last.get(lock, -1), '%s: %s: lock %d orders increase'
                        % (what, loc.name, lock), '%d after %d' % (order, last.get(lock, -1)))
                last[lock] = order
                held[lock] = order
            elif kind == 'ThreadReleaseLock':
                model, lock, order = val
                models.add(model)
                paired = paired and held.pop(lock, None) == order
        paired = paired and not held
    t.check(paired, '%s: every release follows its acquisition, with its order' % what)
    t.eq(models, {'PTHREAD'}, '%s: lock events have model PTHREAD' % what)
    t.eq(len(acq), 2, '%s: two mutexes, two lock numbers' % what)
    sizes = sorted(len(v) for v in acq.values())
    t.eq(sizes, [3, 1 + N * K], '%s: acquisitions of the hand-off and the shared mutex' % what)
    for lock, orders in acq.items():
        t.eq(sorted(orders), list(range(len(orders))),
             '%s: lock %d: acquisition orders are 0..%d' % (what, lock, len(orders) - 1))
    # The shared mutex: the master's trylock came first (order 0), and each thread's K
    # acquisitions use that number too.
    shared = [lock for lock, v in acq.items() if len(v) == 1 + N * K]
    if shared:
        first = [v for k, v in per['Master thread'] if k == 'ThreadAcquireLock'][0]
        t.eq(first, ('PTHREAD', shared[0], 0), '%s: trylock acquired the shared mutex first'
             % what)


def check_none(t, tr, what):
    """VT_PTHREAD=no: no pthread region and no event of the pthread model."""
    regions = sorted(n for n, v in tr.enters().items() if n.startswith('pthread_') and v)
    t.eq(regions, [], '%s: no pthread regions entered' % what)
    kinds = tr.kinds()
    t.eq({k: kinds[k] for k in PTHREAD_KINDS if kinds[k]}, {},
         '%s: no ThreadCreate, ThreadWait or lock events' % what)
    per, _ = thread_events(tr.path)
    begins = sorted(s for l in tr.locations for k, s in per[l.name] if k == 'ThreadBegin')
    t.eq(begins, list(range(1, len(tr.locations))),
         '%s: ThreadBegin carries the location index, as without VT_PTHREAD' % what)


def body(t):
    exes = t.parallel(lambda v: t.compile('pthread_events', ['pthread_events.c'],
                                          compiler=v[0], opt=v[1], flags=['-pthread']),
                      VARIANTS)
    plain_exe = t.compile('pthread_events', ['pthread_events.c'], compiler='gcc', opt='-O0',
                          flags=['-pthread'], instrument=False)
    plain = t.run(plain_exe, label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    t.eq(plain.stdout, 'counter = %d\n' % (100 + K * sum(range(1, N + 1))),
         'uninstrumented: the counter')
    for (cc, opt), exe in zip(VARIANTS, exes):
        what = '%s %s' % (cc, opt)
        run = t.run(exe, label='run-%s%s' % (cc, opt))
        t.same_as_plain(run, plain, what)
        t.clean_run(run, what)
        check_events(t, t.trace(run, what), what)

    what = 'vtrun, not rebuilt'
    vtrun = os.path.join(os.path.dirname(vttest.VTCC), 'vtrun')
    run = t.run(vtrun, args=[plain_exe], label='vtrun')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    check_events(t, t.trace(run, what, prefix='pthread_events.vt'), what, instrumented=False)

    what = 'VT_PTHREAD=no'
    run = t.run(exes[0], env={'VT_PTHREAD': 'no'}, label='off')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    check_none(t, t.trace(run, what), what)

    what = 'VT_PTHREAD=maybe'
    run = t.run(exes[0], env={'VT_PTHREAD': 'maybe'}, label='bad')
    t.same_as_plain(run, plain, what)
    t.eq(len(run.errors), 1, '%s: one error line' % what)
    t.check(run.errors and 'VT_PTHREAD' in run.errors[0] and 'maybe' in run.errors[0],
            '%s: the error names the variable and the value' % what, repr(run.errors))
    t.eq(os.listdir(run.gdir), [], '%s: no trace' % what)


vttest.main('pthread_events', body)
