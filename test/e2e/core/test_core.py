# SPDX-License-Identifier: BSD-3-Clause
"""e2e "core": the buffer reservation and foreign code, end to end. A synchronous counter
plugin with 60 counters (many.c) that sets errno at every read traces prog.c:
- with the default buffer, every event carries all 60 values, exactly as read;
- with VT_BUFFER_SIZE=1k (halves of 32 records) an event with 60 values cannot fit: one
  line says so at start, 31 counters are kept (the event and its values fill half a buffer
  exactly), the others are left out, and the trace holds every event with its 31 values
  (the run used to crash with an invalid write);
- in both, the program's errno after each instrumented call is what it set, and its output
  and exit status are those of the uninstrumented program."""

import vtmetrics
import vtplugins
import vttest

N = 200  # calls of work(): 2 * (N + 1) Enter/Leave events with main
LEFT_OUT = (r'^error: VT_BUFFER_SIZE=1024: an event and the values of its synchronous '
            r'counters must fit in half the buffer \(31 values, at most 64\): 29 of 60 '
            r'synchronous counters are left out, from k31 on; raise VT_BUFFER_SIZE$')


def check_values(t, run, kept, what):
    tr = t.trace(run, what)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    t.eq(sorted(m.name for m in mv.members.values()), sorted('k%d' % j for j in range(60)),
         '%s: all 60 counters are defined' % what)
    classes = {mv.class_of('k%d' % j).ref: j for j in range(60)}
    master = mv.loc('Master thread')
    # The n-th Enter or Leave (from 1) carries kj = j * 1000 + n for each kept counter j,
    # in the order the counters were added, at the event's own time.
    got, want, n, at = [], [], 0, None
    for ev in mv.events[master.ref]:
        if ev.kind in ('Enter', 'Leave'):
            n += 1
            at = ev.time
            want += [(n, at, j, j * 1000 + n) for j in range(kept)]
        elif ev.kind == 'Metric':
            got.append((n, ev.time, classes.get(ev.metric), ev.values[0]))
    t.eq(n, 2 * (N + 1), '%s: every Enter and Leave is recorded' % what)
    t.eq(len(got), 2 * (N + 1) * kept, '%s: %d values per event' % (what, kept))
    t.eq(got, want, '%s: every value as read, with its event, in order' % what)


def body(t):
    plugdir = t.newdir('plugins')
    vtplugins.build_plugin(t, plugdir, 'many', t.source('many.c'))
    exe, plain_exe = t.parallel(
        lambda inst: t.compile('prog', [t.source('prog.c')], opt='-O0', instrument=inst),
        [True, False])
    plain = t.run(plain_exe, args=[str(N)], label='plain')
    t.eq(plain.stdout, 'calls %d, errno changed in 0\n' % N, 'uninstrumented: errno kept')
    env = {'VT_PLUGIN_CNTR_PATH': plugdir, 'VT_PLUGIN_CNTR_METRICS': 'many_*'}

    run = t.run(exe, args=[str(N)], env=env, label='60 counters')
    t.same_as_plain(run, plain, '60 counters, default buffer')
    t.clean_run(run, '60 counters, default buffer')
    check_values(t, run, 60, '60 counters, default buffer')

    run = t.run(exe, args=[str(N)], env=dict(env, VT_BUFFER_SIZE='1k'), label='1k buffer')
    what = '60 counters, VT_BUFFER_SIZE=1k'
    t.same_as_plain(run, plain, what)
    t.eq(len(vtplugins.vt_lines(run, LEFT_OUT)), 1, '%s: one line says which and why' % what)
    t.eq(run.errors + run.warnings, vtplugins.vt_lines(run, LEFT_OUT),
         '%s: no other error or warning' % what)
    check_values(t, run, 31, what)


vttest.main('core', body)
