# SPDX-License-Identifier: BSD-3-Clause
"""e2e "nofd": no free file descriptor when libotf2 opens an event file.

The program takes every descriptor RLIMIT_NOFILE allows, then makes events: with
VT_FLUSH_THREAD=no the first flush cannot open the event file. Recording stops with one
line, libotf2 prints nothing on the program's stderr (before, it repeated its errors at ~14
MB/s and the program hung), the program runs on unchanged, and the definitions and the
anchor are still written with the descriptor vt kept for them: the trace reads, with the
events its files hold (none). A program that takes every descriptor just before it ends (its
events still in memory): "trace written" is not said for events that could not be written;
the trace says what it holds. With the writer thread (the default), which has a descriptor
table of its own, the program's descriptors do not matter while it runs: the trace is whole
(exactly CALLS calls of leaf). When the only free descriptors are below 10 (where vt keeps
libotf2's files from landing while it can), libotf2 gets one of them: the trace is whole.
"""

import os
import re

import vttest

CALLS = 1000000
STOPPED = re.compile(r'^error: no free file descriptor: recording stopped at \d+\.\d{3} s '
                     r'\((.+): Too many open(?:ed)? files\); the events written before stay '
                     r'in the trace$')
INCOMPLETE = re.compile(r'^warning: incomplete trace written to (.+\.otf2) \((\d+) events?, '
                        r'(\d+) locations?\): recording stopped at the first failed write$')


def body(t):
    exe, plain_exe = t.parallel(
        lambda instrument: t.compile('nofd', ['nofd.c'], compiler='gcc', opt='-O0',
                                     instrument=instrument), [True, False])
    for args in ([str(CALLS)], [str(CALLS), 'keep'], ['1000', 'late']):
        what = {1: 'descriptors given back at the end', 2: 'descriptors kept at the end'}[
            len(args)] if args[-1] != 'late' else 'every descriptor taken at the end'

        plain = t.run(plain_exe, args=args, label='plain')
        t.eq(plain.status, 0, '%s: uninstrumented: exit status 0' % what)
        # The writer thread has a descriptor table of its own (below): written inline.
        run = t.run(exe, args=args, env={'VT_FLUSH_THREAD': 'no'}, timeout=60, label='nofd')
        t.same_as_plain(run, plain, what)
        t.vt_pids(run, what)
        stopped = [m for m in run.messages if STOPPED.match(m)]
        t.eq(len(stopped), 1, '%s: one "no free file descriptor: recording stopped" line'
             % what)
        if stopped:
            t.check(re.search(r'nofd\.vt/0\.evt\'?$', STOPPED.match(stopped[0]).group(1)),
                    '%s: the line names the event file' % what, stopped[0])
        done = [INCOMPLETE.match(m) for m in run.messages if INCOMPLETE.match(m)]
        t.eq(len(done), 1, '%s: one "incomplete trace written to" line' % what)
        t.eq(run.written, [], '%s: no "trace written to" line for it' % what)
        others = [m for m in run.errors + run.warnings
                  if not STOPPED.match(m) and not INCOMPLETE.match(m)]
        t.eq(others, [], '%s: no other vt error or warning' % what)
        t.eq(len(run.stderr.splitlines()), len(run.vt) + len(plain.program_stderr),
             '%s: stderr holds vt\'s lines and nothing else (no libotf2 flood)' % what)
        anchor = run.anchor()
        if not done or not t.check(os.path.isfile(anchor), '%s: anchor written' % what):
            continue
        events, nlocs = int(done[0].group(2)), int(done[0].group(3))
        tr = vttest.read_trace(anchor)
        t.eq((tr.events, len(tr.locations)), (events, nlocs),
             '%s: python3-otf2: the events and locations the line gives' % what)
        for loc in tr.locations:
            t.eq(loc.events, loc.number_of_events,
                 '%s: %s: events read = the definition\'s event count' % (what, loc.name))
        t.eq(sorted(r.name for r in tr.regions if r.name in ('main', 'leaf')),
             ['leaf', 'main'], '%s: the program\'s regions are defined' % what)
        locs, problems = vttest.read_with_otf2_print(anchor)
        t.eq(problems, [], '%s: otf2-print reads the trace cleanly' % what)
        t.eq({lid: l['defined_events'] for lid, l in locs.items()},
             {l.ref: l.number_of_events for l in tr.locations},
             '%s: otf2-print: the same locations and event counts' % what)


    # The writer thread (the default) leaves the program's descriptor table as it starts
    # and keeps of its copy only vt's descriptors: the program's have no part in it.
    for args in ([str(CALLS)], [str(CALLS), 'keep']):
        what = 'writer thread, descriptors %s at the end' % (
            'kept' if len(args) == 2 else 'given back')
        plain = t.run(plain_exe, args=args, label='plain')
        run = t.run(exe, args=args, timeout=60, label='writer')
        t.same_as_plain(run, plain, what)
        t.clean_run(run, what)
        tr = t.trace(run, what)
        t.enter_counts(tr.loc('Master thread'), {'main': 1, 'leaf': CALLS}, what)

    what = 'only descriptors below 10 free'
    args = ['100000', 'low']
    plain = t.run(plain_exe, args=args, label='plain')
    run = t.run(exe, args=args, timeout=60, label='low')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    t.enter_counts(tr.loc('Master thread'), {'main': 1, 'leaf': 100000}, what)


vttest.main('nofd', body)
