# SPDX-License-Identifier: BSD-3-Clause
"""e2e "closefd": after close(1), the program's output never lands in the trace.

libotf2 opened the event file at the lowest free descriptor, so after the program's
close(1) its later output went into the trace file, and the descriptor leaked into every
child. Now vt's descriptors (and libotf2's files) stay at fd 10 or above with close-on-exec:
the program's write to fd 1 fails as in its plain build, its own open gets fd 1, its child
inherits the descriptors of the plain build, and the trace reads whole.

A program that puts a file of its own on fd 2 (close(2) then open, or dup2) never finds vt's
lines in it: vt writes only to the standard error it started with, and nowhere once that is
gone; the trace is written all the same.
"""

import os


import vttest

CALLS = 300000


def body(t):
    exe, plain_exe = t.parallel(
        lambda instrument: t.compile('closefd', ['closefd.c'], compiler='gcc', opt='-O0',
                                     instrument=instrument), [True, False])
    plain = t.run(plain_exe, args=[str(CALLS)], label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    t.check('write to fd 1: Bad file descriptor' in plain.program_stderr,
            'uninstrumented: the write to the closed fd 1 fails', repr(plain.program_stderr))
    t.check('open: fd 1' in plain.program_stderr,
            'uninstrumented: the program\'s open gets fd 1', repr(plain.program_stderr))
    for env in ({}, {'VT_BUFFER_SIZE': '256k'}, {'VT_BUFFER_SIZE': '256k',
                                                  'VT_FLUSH_THREAD': 'no'}):
        what = 'close(1) %s' % (' '.join('%s=%s' % kv for kv in sorted(env.items())) or
                                'defaults')
        run = t.run(exe, args=[str(CALLS)], env=env, label='closefd')
        t.same_as_plain(run, plain, what)
        t.clean_run(run, what)
        tr = t.trace(run, what)
        t.enter_counts(tr.loc('Master thread'), {'main': 1, 'leaf': CALLS}, what)
        with open(run.anchor()[:-len('.otf2')] + '/0.evt', 'rb') as f:
            t.check(b'into the trace?' not in f.read(),
                    '%s: the program\'s output is not in the event file' % what)

    for how in ('close2', 'dup2'):
        for label, prog in (('plain-' + how, plain_exe), (how, exe)):
            log = os.path.join(t.newdir(label + '-log'), 'own.log')
            run = t.run(prog, args=['1000', how, log], label=label)
            t.eq((run.status, run.stdout), (0, 'done 5\n'), '%s: the program ran' % label)
            with open(log) as f:
                t.eq(f.read(), 'mine\n', '%s: its own file on fd 2 holds only its line' % label)
            if prog is exe:
                t.eq(run.stderr, '', '%s: vt wrote nothing on the program\'s fd 2' % how)
                tr = t.trace(run, how, notice=False)
                t.enter_counts(tr.loc('Master thread'), {'main': 1, 'leaf': 1000},
                               '%s: the trace is written' % how)


vttest.main('closefd', body)
