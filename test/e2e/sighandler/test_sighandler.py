# SPDX-License-Identifier: BSD-3-Clause
"""e2e "sighandler": a SIGALRM handler that calls instrumented functions, every 500 us, into
busy instrumented code: every call of the handler's functions and of the busy code is in the
trace, counted exactly against what the program counted itself, with the default buffer and
with a small one (many flushes interrupted by the handler), in calls of 1 us and in a tight
loop of calls (most signals then land inside vt's recording), and with flushes written by the
thread itself (VT_FLUSH_THREAD=no: a half of 2M records encoded while the handler keeps coming,
on a loaded machine longer than the side area's first 512 records last), and vt reports no
dropped event."""

import re

import vttest

# label, work() calls, loop iterations in each, environment
VARIANTS = [('1 us calls, default buffer', 300000, 1000, {}),
            ('1 us calls, 64k buffer', 300000, 1000, {'VT_BUFFER_SIZE': '64k'}),
            ('tight loop, 64k buffer', 1000000, 1, {'VT_BUFFER_SIZE': '64k'}),
            ('tight loop, 64M buffer written inline', 1100000, 1,
             {'VT_BUFFER_SIZE': '64M', 'VT_FLUSH_THREAD': 'no'})]


def body(t):
    exe = t.compile('alarm', ['alarm.c'], 'c', 'gcc', '-O2')
    for label, n, inner, env in VARIANTS:
        run = t.run(exe, [str(n), str(inner)], env=env, label='run', timeout=300)
        m = re.match(r'^work (\d+) tick (\d+) tock (\d+)\n$', run.stdout)
        if not t.check(m and run.status == 0, '%s: the program ran' % label, run.stdout):
            continue
        work, tick, tock = (int(g) for g in m.groups())
        t.check(tick > 5 and tick == tock, '%s: the handler ran (%d times)' % (label, tick))
        t.clean_run(run, label)
        t.check(not any('not recorded' in x for x in run.messages),
                '%s: no event dropped' % label, repr(run.messages))
        tr = t.trace(run, label, profile=False)
        t.enter_counts(tr.loc('Master thread'),
                       {'main': 1, 'work': work, 'on_alarm': tick, 'tick': tick,
                        'tock': tock}, label)


vttest.main('sighandler', body)
