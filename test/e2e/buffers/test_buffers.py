# SPDX-License-Identifier: BSD-3-Clause
"""e2e "buffers": a tiny VT_BUFFER_SIZE makes hundreds of flushes and loses nothing;
VT_MAX_FLUSHES=1 stops recording with a warning and a MeasurementOnOff marker. Both with
the background flush thread (VT_FLUSH_THREAD=yes, the default) and without."""

import vttest

NCALLS = 200000  # tick() calls in buffers.c
SMALL = '4k'


def body(t):
    exe, plain_exe = t.parallel(
        lambda instrument: t.compile('buffers', ['buffers.c'], compiler='gcc', opt='-O2',
                                     instrument=instrument), [True, False])
    plain = t.run(plain_exe, label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')

    # Every event kept, however many flushes it takes: 4k, and 1k, the documented minimum
    # (docs/environment.md: below it is an error, see the badinput case).
    flushes = {}
    for size, flush_thread, at_least in ((SMALL, None, 100), (SMALL, 'no', 100),
                                         ('1k', None, 400)):
        env = {'VT_BUFFER_SIZE': size}
        if flush_thread:
            env['VT_FLUSH_THREAD'] = flush_thread
        what = ' '.join('%s=%s' % kv for kv in sorted(env.items()))
        run = t.run(exe, env=env, label='small')
        t.same_as_plain(run, plain, what)
        t.clean_run(run, what)
        tr = t.trace(run, what)
        t.eq([l.name for l in tr.locations], ['Master thread'], '%s: one location' % what)
        master = tr.loc('Master thread')
        t.enter_counts(master, {'main': 1, 'tick': NCALLS}, what)
        flushes[what] = len(master.flushes)
        t.check(len(master.flushes) >= at_least,
                '%s: at least %d BufferFlush events' % (what, at_least),
                'got %d' % len(master.flushes))
        t.check(all(stop >= start for start, stop in master.flushes),
                '%s: every BufferFlush ends after it starts' % what)
        t.no_onoff(tr, what)
        t.eq(set(master.kinds), {'Enter', 'Leave', 'BufferFlush'}, '%s: event kinds' % what)
    small, tiny = 'VT_BUFFER_SIZE=%s' % SMALL, 'VT_BUFFER_SIZE=1k'
    t.check(flushes[tiny] > 2 * flushes[small],
            'a 1k buffer flushes more than twice as often as a %s one' % SMALL, repr(flushes))

    # VT_MAX_FLUSHES=1: one flush, then recording stops for the thread, said on stderr and
    # marked in the trace; the program is not disturbed and the trace stays balanced.
    for flush_thread in (None, 'no'):
        env = {'VT_BUFFER_SIZE': SMALL, 'VT_MAX_FLUSHES': '1'}
        if flush_thread:
            env['VT_FLUSH_THREAD'] = flush_thread
        what = ' '.join('%s=%s' % kv for kv in sorted(env.items()))
        run = t.run(exe, env=env, label='maxflush')
        t.same_as_plain(run, plain, what)
        t.eq(run.errors, [], '%s: no vt error' % what)
        t.eq(len([w for w in run.warnings if 'VT_MAX_FLUSHES' in w]), 1,
             '%s: one "vt[PID]: warning:" line mentioning VT_MAX_FLUSHES' % what)
        t.vt_pids(run, what)
        tr = t.trace(run, what)
        t.eq([l.name for l in tr.locations], ['Master thread'], '%s: one location' % what)
        master = tr.loc('Master thread')
        t.eq([m for _, m in master.onoff], ['OFF'], '%s: one MeasurementOnOff(OFF) marker' % what)
        t.eq(len(master.flushes), 1, '%s: exactly one BufferFlush' % what)
        ticks = master.enters.get('tick', 0)
        t.check(0 < ticks < NCALLS, '%s: some but not all tick() calls recorded' % what,
                'got %d of %d' % (ticks, NCALLS))
        t.eq(master.enters.get('main', 0), 1, '%s: main entered once' % what)
        if master.onoff:
            after = master.kinds_seq[master.onoff[0][0] + 1:]
            t.check('Enter' not in after and 'BufferFlush' not in after,
                    '%s: nothing recorded after the OFF marker (Leaves of open regions at '
                    'most)' % what, 'kinds after: %r' % sorted(set(after)))


vttest.main('buffers', body)
