# SPDX-License-Identifier: BSD-3-Clause
"""e2e "exitpaths": a process that execs writes its trace first; threads still running
through exit() leave a complete, balanced trace behind."""

import vttest

EXEC_FORMS = [('execv', 'replaced by execv\n'), ('execl', 'replaced by execl\n')]


def body(t):
    exes = t.parallel(lambda a: t.compile(*a), [
        ('execs', ['execs.c'], 'c', 'gcc', '-O2'),
        ('execs-plain', ['execs.c'], 'c', 'gcc', '-O2', (), False),
        ('spinners', ['spinners.c'], 'c', 'gcc', '-O2', ['-pthread'])])
    execs, plain, spinners = exes

    # exec: the trace is written before the image is replaced; main's region is closed
    # then, and the new program's output is the program's output.
    for form, output in EXEC_FORMS:
        ref = t.run(plain, [form], label='plain-' + form)
        run = t.run(execs, [form], label=form)
        t.same_as_plain(run, ref, form)
        t.eq(run.stdout, output, '%s: the new program ran' % form)
        t.clean_run(run, form)
        tr = t.trace(run, form)
        t.enter_counts(tr.loc('Master thread'), {'main': 1, 'before': 7}, form)

    # A failed exec: the trace was written all the same; the process goes on untraced and
    # ends as it would without vt.
    ref = t.run(plain, ['fail'], label='plain-fail')
    run = t.run(execs, ['fail'], label='fail')
    t.same_as_plain(run, ref, 'failed exec')
    t.eq(run.status, 4, 'failed exec: the program\'s own exit status')
    tr = t.trace(run, 'failed exec')
    t.enter_counts(tr.loc('Master thread'), {'main': 1, 'before': 7}, 'failed exec')

    # Threads that never stop: exit() writes the trace while they keep filling tiny buffers
    # (hundreds of hand-overs to the writer thread). Several runs, since it is a race.
    for i in range(4):
        what = 'spinners run %d' % i
        run = t.run(spinners, env={'VT_BUFFER_SIZE': '4k'}, label='spin%d' % i)
        t.eq((run.status, run.stdout), (0, 'main done\n'), '%s: status and output' % what)
        t.eq(run.errors, [], '%s: no vt errors' % what)
        t.check('OTF2' not in run.stderr, '%s: libotf2 reported no error' % what,
                run.stderr[:500])
        tr = t.trace(run, what)
        t.eq(len(tr.locations), 3, '%s: 3 locations' % what)
        t.eq(tr.loc('Master thread').enters.get('spin'), 100000,
             '%s: every call of main is there' % what)
        for loc in tr.locations[1:]:
            t.check(loc.enters.get('spin', 0) > 0, '%s: %s recorded calls' % (what, loc.name))


vttest.main('exitpaths', body)
