# SPDX-License-Identifier: BSD-3-Clause
"""e2e "rusage": getrusage fields as counters (VT_RUSAGE, VT_RUSAGE_INTV), the metric source
of runtime/src/metrics/vt_metric_rusage.c. rusage.c runs two threads that each fault in 20
fresh mappings of 1 MiB:
- VT_RUSAGE=minflt:utime:maxrss with VT_RUSAGE_INTV=0: every Enter and Leave of each thread
  carries the three values; they never decrease; each thread's minflt grows by at least the
  pages it touched (counted per thread); maxrss covers a block;
- VT_RUSAGE=all with a long interval: each thread records each of the 9 fields once;
- a bad VT_RUSAGE: one line naming it, no counter, the trace and the program as usual."""

import vtmetrics
import vttest

ROUNDS, PAGES = 20, (1 << 20) // 4096
THREADS = ['Master thread', 'Thread 1']
ALL = ['utime', 'stime', 'maxrss', 'minflt', 'majflt', 'inblock', 'oublock', 'nvcsw', 'nivcsw']


def values(t, run, what):
    """{location name: [(event index, {counter: value})]} of the Enter/Leave events, and the
    metric view."""
    tr = t.trace(run, what)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    return {name: vtmetrics.values_per_event(mv, mv.loc(name).ref) for name in THREADS}, mv


def body(t):
    exe, plain_exe = t.parallel(
        lambda inst: t.compile('rusage', [t.source('rusage.c')], opt='-O1', flags=['-pthread'],
                               instrument=inst), [True, False])
    plain = t.run(plain_exe, label='plain')
    t.eq(plain.stdout, 'rounds %d per thread\n' % ROUNDS, 'uninstrumented: both threads ran')

    what = 'minflt:utime:maxrss at every event'
    run = t.run(exe, env={'VT_RUSAGE': 'minflt:utime:maxrss', 'VT_RUSAGE_INTV': '0'},
                label='three')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    seqs, mv = values(t, run, what)
    for name, unit, mode in (('utime', 'us', 'ACCUMULATED_START'),
                             ('maxrss', 'KiB', 'ABSOLUTE_POINT'),
                             ('minflt', '#', 'ACCUMULATED_START')):
        m = mv.member(name)
        t.eq((m.unit, m.mode, m.value_type), (unit, mode, 'UINT64'),
             '%s: %s in %s, %s' % (what, name, unit, mode))
    t.eq(sorted(m.name for m in mv.members.values()), ['maxrss', 'minflt', 'utime'],
         '%s: exactly the three counters are defined' % what)
    for name, seq in seqs.items():
        w = '%s: %s' % (what, name)
        # touch() ROUNDS times inside work(), and main() around it on the master thread,
        # with its pthread_create and pthread_join (VT_PTHREAD, on by default).
        want = 2 * (ROUNDS + 1) + (6 if name == 'Master thread' else 0)
        t.eq(len(seq), want, '%s: every Enter and Leave recorded' % w)
        t.eq([sorted(v) for v in seq if sorted(v) != ['maxrss', 'minflt', 'utime']], [],
             '%s: each carries exactly the three values' % w)
        for c in ('minflt', 'utime', 'maxrss'):
            got = [v.get(c, 0) for v in seq]
            t.eq([i for i in range(1, len(got)) if got[i] < got[i - 1]], [],
                 '%s: %s never decreases' % (w, c))
        grew = seq[-1].get('minflt', 0) - seq[0].get('minflt', 0)
        t.check(grew >= ROUNDS * PAGES, '%s: minflt grew by at least the %d pages touched'
                % (w, ROUNDS * PAGES), 'grew by %d' % grew)
        t.check(seq[-1].get('maxrss', 0) >= 1024, '%s: maxrss covers a 1 MiB block' % w,
                repr(seq[-1]))

    what = 'all, once per thread'
    run = t.run(exe, env={'VT_RUSAGE': 'all', 'VT_RUSAGE_INTV': '100000'}, label='all')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    seqs, mv = values(t, run, what)
    t.eq(sorted(m.name for m in mv.members.values()), sorted(ALL),
         '%s: the 9 fields are defined' % what)
    for name, seq in seqs.items():
        t.eq([sorted(v) for v in seq if v], [sorted(ALL)],
             '%s: %s records every field once, at its first event' % (what, name))
        t.check(bool(seq and seq[0]), '%s: %s: at its first event' % (what, name))

    what = 'a bad VT_RUSAGE'
    run = t.run(exe, env={'VT_RUSAGE': 'utime:bogus'}, label='bad')
    t.same_as_plain(run, plain, what)
    t.eq(run.errors, ["error: VT_RUSAGE='utime:bogus': 'bogus' is not a field; expected all, "
                      "or fields separated by ':' of utime, stime, maxrss, minflt, majflt, "
                      "inblock, oublock, nvcsw, nivcsw; no rusage counters are recorded"],
         '%s: one line names it and says what is expected' % what)
    tr = t.trace(run, what)
    mv = vtmetrics.read_metrics(tr.path)
    t.eq(len(mv.members), 0, '%s: no counter is defined' % what)
    t.enter_counts(tr.loc('Thread 1'), {'work': 1, 'touch': ROUNDS}, what)


vttest.main('rusage', body)
