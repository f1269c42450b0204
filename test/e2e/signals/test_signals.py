# SPDX-License-Identifier: BSD-3-Clause
"""e2e "signals": a program ended by a terminating signal (raised, a fault, abort(), or
sent from outside) leaves its trace: every event up to the signal, closed regions, a marker
where the signal arrived and the property VT::END naming it, one line saying so; and the
process ends as the uninstrumented one does (same stdout, same status: killed by the same
signal). A handler of the program's own still runs (exit from it writes the trace as exit
does; re-raising with SIG_DFL is the signal's ending); an ignored signal changes nothing;
_exit() writes no trace, as documented (docs/security.md). A signal that comes while vt
writes the trace at exit waits for the trace, then ends the process."""

import os
import signal
import subprocess
import time

import vttest

# how the program ends: (argument, signal or None, vt line expected)
RAISED = [('term', signal.SIGTERM), ('int', signal.SIGINT), ('hup', signal.SIGHUP),
          ('quit', signal.SIGQUIT), ('segv', signal.SIGSEGV), ('bus', signal.SIGBUS),
          ('abort', signal.SIGABRT), ('pipe', signal.SIGPIPE)]


def check_ending(t, run, sig, what):
    name = 'SIG' + signal.Signals(sig).name[3:]
    lines = [m for m in run.messages if 'writing the trace before the program ends' in m]
    t.eq(lines, ['%s: writing the trace before the program ends' % name],
         '%s: one line says the trace is written at the signal' % what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    t.eq(vttest.otf2_properties(tr.path).get('VT::END'), name,
         '%s: python3-otf2: property VT::END names the signal' % what)
    t.eq(vttest.otf2_print_properties(tr.path).get('VT::END'), name,
         '%s: otf2-print -I: property VT::END names the signal' % what)
    t.eq(vttest.otf2_markers(tr.path), [('vt', 'HIGH', name)], '%s: a marker where it arrived' % what)
    return tr


def body(t):
    exe, plain = t.parallel(lambda a: t.compile(*a), [
        ('endings', ['endings.c'], 'c', 'gcc', '-O2', ['-pthread']),
        ('endings-plain', ['endings.c'], 'c', 'gcc', '-O2', ['-pthread'], False)])

    for how, sig in RAISED:
        what = how
        ref = t.run(plain, [how], label='plain-' + how)
        t.eq(ref.status, -sig, '%s: the plain build is killed by the signal' % what)
        run = t.run(exe, [how], label=how)
        t.same_as_plain(run, ref, what)
        tr = check_ending(t, run, sig, what)
        t.enter_counts(tr.loc('Master thread'), {'main': 1, 'work': 25}, what)

    # A fault on a second thread while main waits for it: that thread writes the trace of
    # both, then the process ends with SIGSEGV.
    ref = t.run(plain, ['thread-segv'], label='plain-thread-segv')
    t.eq(ref.status, -signal.SIGSEGV, 'thread-segv: the plain build is killed by SIGSEGV')
    run = t.run(exe, ['thread-segv'], label='thread-segv')
    t.same_as_plain(run, ref, 'thread-segv')
    tr = check_ending(t, run, signal.SIGSEGV, 'thread-segv')
    t.eq(len(tr.locations), 2, 'thread-segv: both threads are in the trace')
    # VT_PTHREAD (on by default): main is inside the pthread_join region when the fault ends
    # the process (the runtime closes it like main), or, when the thread ran to its fault
    # before main got a CPU back from pthread_create (a loaded machine), not yet in it.
    master = tr.loc('Master thread')
    joins = master.enters.get('pthread_join', 0)
    t.check(joins in (0, 1), 'thread-segv: main: pthread_join entered once or not yet',
            '%d' % joins)
    t.enter_counts(master, dict({'main': 1, 'work': 100, 'pthread_create': 1},
                                **({'pthread_join': 1} if joins else {})),
                   'thread-segv: main')
    others = [l for l in tr.locations if l.name != 'Master thread']
    if others:
        t.enter_counts(others[0], {'faulting_thread': 1, 'work': 25, 'fault': 1},
                       'thread-segv: the faulting thread, up to the fault')

    # Sent from outside while the program is busy in instrumented code.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        what = 'kill -%s' % signal.Signals(sig).name
        d = t.newdir('spin')
        p = subprocess.Popen([exe, 'spin'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             cwd=d, env=dict({k: v for k, v in os.environ.items()
                                              if not k.startswith('VT_')},
                                             VT_PFORM_GDIR=d, VT_BUFFER_SIZE='64k'),
                             universal_newlines=True)
        first = p.stdout.readline()
        time.sleep(0.05)
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
        run = vttest.Run([exe, 'spin'], {'VT_PFORM_GDIR': d, 'VT_BUFFER_SIZE': '64k'}, d, d, p, first + out, err)
        t.eq((run.status, run.stdout), (-sig, 'spinning\n'),
             '%s: killed by the signal, output as without vt' % what)
        tr = check_ending(t, run, sig, what)
        t.check(tr.loc('Master thread').enters.get('work', 0) > 1000,
                '%s: the calls before the signal are recorded' % what,
                repr(tr.loc('Master thread').enters))

    # A signal while vt writes the trace at exit (6 million events in memory: a fraction of
    # a second): the trace is finished first, then the process ends with the signal.
    d = t.newdir('late')
    env = dict({k: v for k, v in os.environ.items() if not k.startswith('VT_')},
               VT_PFORM_GDIR=d, VT_BUFFER_SIZE='256M')
    p = subprocess.Popen([exe, 'many'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=d,
                         env=env, universal_newlines=True)
    first = p.stdout.readline()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    run = vttest.Run([exe, 'many'], {'VT_PFORM_GDIR': d}, d, d, p, first + out, err)
    t.eq((run.status, run.stdout), (-signal.SIGINT, 'returning from main\n'),
         'SIGINT at exit: the process ends with the signal')
    t.eq(run.errors + run.warnings, [], 'SIGINT at exit: no vt error or warning')
    said = [m for m in run.messages if 'SIGINT' in m]
    t.check(said in (['SIGINT while the trace is written: the process ends with it once the '
                      'trace is complete'],
                     ['SIGINT: writing the trace before the program ends']),
            'SIGINT at exit: one line says what vt did', repr(run.messages))
    # Every call's Enter and Leave, and no BufferFlush: the buffer held the run, and vt's own
    # event writer (archive/vt_evtw.h) records none when it writes its chunks, where libotf2
    # recorded one per chunk pool written.
    kinds = subprocess.run('otf2-print %s | cut -d" " -f1 | sort | uniq -c' % run.anchor(),
                           shell=True, stdout=subprocess.PIPE, universal_newlines=True)
    kinds = {k: int(n) for n, k in (line.split() for line in kinds.stdout.splitlines()
                                    if len(line.split()) == 2)}
    t.eq((kinds.get('ENTER'), kinds.get('LEAVE')), (3000001, 3000001),
         'SIGINT at exit: otf2-print reads every call')
    t.eq(kinds.get('BUFFER_FLUSH', 0), 0, 'SIGINT at exit: no flush recorded')
    t.eq([n for _, n, _ in run.written], [6000002], 'SIGINT at exit: the whole trace written')

    # The program's own handler runs; its exit() writes the trace as exit does.
    ref = t.run(plain, ['handled'], label='plain-handled')
    t.eq((ref.status, ref.stdout), (7, 'before the end\nhandled\n'), 'handled: plain run')
    run = t.run(exe, ['handled'], label='handled')
    t.same_as_plain(run, ref, 'handled')
    t.clean_run(run, 'handled')
    t.check(not any('before the program ends' in m for m in run.messages),
            'handled: vt left the signal to the program')
    tr = t.trace(run, 'handled')
    t.enter_counts(tr.loc('Master thread'), {'main': 1, 'work': 25, 'handler_exit': 1},
                   'handled')

    # A handler that restores SIG_DFL and raises again: the signal's ending, with the trace.
    ref = t.run(plain, ['reraise'], label='plain-reraise')
    run = t.run(exe, ['reraise'], label='reraise')
    t.same_as_plain(run, ref, 'reraise')
    t.eq(run.stdout, 'before the end\nreraise\n', 'reraise: the program\'s handler ran')
    tr = check_ending(t, run, signal.SIGINT, 'reraise')
    t.enter_counts(tr.loc('Master thread'),
                   {'main': 1, 'work': 25, 'handler_reraise': 1}, 'reraise')

    # An ignored signal: nothing happens, the run ends normally.
    ref = t.run(plain, ['ignored'], label='plain-ignored')
    run = t.run(exe, ['ignored'], label='ignored')
    t.same_as_plain(run, ref, 'ignored')
    t.eq((run.status, run.stdout), (0, 'before the end\nafter\n'), 'ignored: ran to its end')
    t.clean_run(run, 'ignored')
    tr = t.trace(run, 'ignored')
    t.eq(vttest.otf2_properties(tr.path).get('VT::END'), None, 'ignored: no VT::END property')

    # _exit(): no atexit handler runs, and no trace is written (docs/security.md).
    ref = t.run(plain, ['_exit'], label='plain-_exit')
    run = t.run(exe, ['_exit'], label='_exit')
    t.same_as_plain(run, ref, '_exit')
    t.eq(run.status, 5, '_exit: the program\'s status')


vttest.main('signals', body)
