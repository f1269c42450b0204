# SPDX-License-Identifier: BSD-3-Clause
"""e2e "pthreads": 3 threads + main: 4 locations, exact counts on each, balanced even
where a thread ends in pthread_exit() and the program in exit()."""

import vttest

# By hand, from pthreads.c: main calls work() 2 times and ends the program in quit() with
# exit(); thread n (0..2) runs thread_main, which calls work() (n + 1) * 10 times; thread 2
# ends in finish() with pthread_exit(). Regions left open by exit() and pthread_exit() are
# closed by the runtime (the balance checks of every trace see to that). Which thread
# becomes "Thread 1" depends on which produces its first event first, so the thread
# locations are matched as a multiset.
# With VT_PTHREAD (default yes) main's 3 pthread_create and 3 pthread_join calls are regions
# too (test/e2e/pthread_events checks their events).
MASTER = {'main': 1, 'work': 2, 'quit': 1, 'pthread_create': 3, 'pthread_join': 3}
THREADS = [{'thread_main': 1, 'work': 10}, {'thread_main': 1, 'work': 20},
           {'thread_main': 1, 'work': 30, 'finish': 1}]
# (compiler, -O level, how threads are asked for: -pthread, or vtcc's -vt:mt)
VARIANTS = [('gcc', '-O0', '-pthread'), ('gcc', '-O2', '-vt:mt'), ('clang', '-O2', '-pthread')]


def build(t, cc, opt, mt, instrument=True):
    return t.compile('pthreads', ['pthreads.c'], compiler=cc, opt=opt, flags=[mt],
                     instrument=instrument)


def body(t):
    exes = t.parallel(lambda v: build(t, *v), VARIANTS + [('gcc', '-O0', '-pthread', False)])
    plain = t.run(exes[-1], label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    for (cc, opt, mt), exe in zip(VARIANTS, exes):
        what = '%s %s %s' % (cc, opt, mt)
        run = t.run(exe, label='run-%s%s' % (cc, opt))
        t.same_as_plain(run, plain, what)
        t.clean_run(run, what)
        tr = t.trace(run, what)
        t.eq([(l.ref, l.name) for l in tr.locations],
             [(0, 'Master thread'), (1, 'Thread 1'), (2, 'Thread 2'), (3, 'Thread 3')],
             '%s: N+1 locations, master is location 0' % what)
        if len(tr.locations) != 4:
            continue
        t.enter_counts(tr.loc('Master thread'), MASTER, what)
        got = sorted((dict(l.enters) for l in tr.locations[1:]), key=lambda d: d.get('work', 0))
        t.eq(got, THREADS, '%s: per-thread Enter counts (as a multiset)' % what)
        # Not a check: a thread can be preempted between getting its number and taking the
        # timestamp of its first event, so the numbers follow the first events only roughly.
        firsts = [l.first_time for l in tr.locations]
        if firsts != sorted(firsts):
            t.note('%s: thread numbers are not in the order of first-event timestamps: %r'
                   % (what, firsts))


vttest.main('pthreads', body)
