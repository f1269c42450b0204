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

A program that takes vt's descriptors (dup2 of a file of its own over 3..63 after the event
file was opened) gets exactly what it wrote into its file, as in its plain build: vt notices
at its next flush that the descriptor no longer refers to the event file, says so in one
line, and stops recording; the trace holds the events written before (all of them before the
theft: leaf, none of leaf2) and reads with python3-otf2 and otf2-print. With the flush
thread (steal-thread) the program's dup2 waits while vt writes; whether the event file was
opened before the theft depends on timing, so there the trace is either stopped as above or
whole, and the program's file is always exact. The same stop as with steal when the
program closes them with the bare close_range system call. closefrom(3) and close_range(3,
~0U, 0) spare vt's descriptors (the plain program never had them): the trace is whole.
"""

import os
import re


import vttest

CALLS = 300000
TAKEN = re.compile(r'^error: descriptor (\d+) of the trace file (.+) was (closed|reused for '
                   r'another file) by the program: recording stopped at \d+\.\d{3} s; the '
                   r'events written before stay in the trace$')
INCOMPLETE = re.compile(r'^warning: incomplete trace written to (.+\.otf2) \((\d+) events?, '
                        r'1 location\): recording stopped at a descriptor the program took$')
# Small buffers, written by the thread that fills them: the event file is opened and written
# before the theft, and the flush that notices it comes from the thief's own thread.
STEAL_ENV = {'VT_BUFFER_SIZE': '256k', 'VT_FLUSH_THREAD': 'no'}
FD_LINES = {'steal': ''.join('fd %d\n' % k for k in range(3, 64))}


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

    taken_descriptors(t, exe, plain_exe)


def taken_descriptors(t, exe, plain_exe):
    for what in ('steal', 'steal-thread', 'sys_close_range', 'closefrom', 'close_range'):
        how = what.split('-')[0]
        env = {'VT_BUFFER_SIZE': '1M'} if what == 'steal-thread' else STEAL_ENV
        runs = {}
        for label, prog in (('plain-' + what, plain_exe), (what, exe)):
            own = os.path.join(t.newdir(label + '-own'), 'own.txt')
            run = t.run(prog, args=[str(CALLS), how, own], env=env, label=label)
            with open(own, 'rb') as f:
                runs[label] = (run, f.read().decode('latin-1'))
        plain, plain_file = runs['plain-' + what]
        run, own_file = runs[what]
        t.eq((plain.status, plain.stdout), (5, 'took 3..63: %s\n' % how),
             'uninstrumented %s: the program ran' % how)
        t.eq(plain_file, FD_LINES.get(how, 'fd 3\n'),
             'uninstrumented %s: its file holds its lines' % how)
        t.same_as_plain(run, plain, what)
        differ = next((i for i, (a, b) in enumerate(zip(own_file, plain_file)) if a != b),
                      min(len(own_file), len(plain_file)))
        t.check(own_file == plain_file,
                '%s: the program\'s file holds exactly what it wrote' % what,
                '%d bytes (plain: %d), first difference at byte %d: %r' %
                (len(own_file), len(plain_file), differ, own_file[differ:differ + 40]))
        t.vt_pids(run, what)
        whole = what == 'steal-thread' and not any(TAKEN.match(m) for m in run.messages)
        if whole:
            t.note('steal-thread: the event file was opened after the theft')
        if how in ('closefrom', 'close_range') or whole:
            t.clean_run(run, what)
            tr = t.trace(run, what)
            t.enter_counts(tr.loc('Master thread'),
                           {'main': 1, 'take': 1, 'leaf': CALLS, 'leaf2': CALLS},
                           '%s: vt\'s descriptors were spared, the trace is whole' % what)
            continue
        taken = [TAKEN.match(m) for m in run.messages if TAKEN.match(m)]
        t.eq(len(taken), 1, '%s: one "descriptor N of the trace file ... by the program" line'
             % what)
        if taken:
            t.check(int(taken[0].group(1)) >= 10, '%s: the line names vt\'s descriptor' % what,
                    taken[0].group(1))
            t.eq(taken[0].group(2), run.anchor()[:-len('.otf2')] + '/0.evt',
                 '%s: the line names the event file' % what)
            t.eq(taken[0].group(3), 'closed' if how == 'sys_close_range'
                 else 'reused for another file', '%s: the line says what happened' % what)
        done = [INCOMPLETE.match(m) for m in run.messages if INCOMPLETE.match(m)]
        t.eq(len(done), 1, '%s: one "incomplete trace written to" line' % what)
        t.eq([m for m in run.errors + run.warnings
              if not TAKEN.match(m) and not INCOMPLETE.match(m)], [],
             '%s: no other vt error or warning' % what)
        anchor = run.anchor()
        if not done or not t.check(os.path.isfile(anchor), '%s: anchor written' % what):
            continue
        tr = vttest.read_trace(anchor)
        t.eq((tr.events, len(tr.locations)), (int(done[0].group(2)), 1),
             '%s: python3-otf2: the events and locations the line gives' % what)
        loc = tr.loc('Master thread')
        t.eq(loc.events, loc.number_of_events,
             '%s: events read = the definition\'s event count' % what)
        t.eq([p for p in loc.problems if not p.startswith('regions still open at the end')],
             [], '%s: time-ordered, Leaves match' % what)
        # With the flush thread, what libotf2 had not yet written out is lost: maybe all.
        t.check(0 < loc.enters['leaf'] <= CALLS or what == 'steal-thread',
                '%s: the events before the theft are there (leaf entered)' % what,
                '%d times' % loc.enters['leaf'])
        t.eq(loc.enters['leaf2'], 0, '%s: nothing after the theft (leaf2 never entered)' % what)
        locs, problems = vttest.read_with_otf2_print(anchor)
        t.eq(problems, [], '%s: otf2-print reads what was written cleanly' % what)
        t.eq({lid: (l['events'], l['defined_events']) for lid, l in locs.items()},
             {loc.ref: (loc.events, loc.number_of_events)},
             '%s: otf2-print: the same events' % what)


vttest.main('closefd', body)
