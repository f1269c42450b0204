# SPDX-License-Identifier: BSD-3-Clause
"""e2e "ring": VT_MODE=ring keeps each thread's last VT_RING_SIZE bytes of events. A program
of phases A, B, C (ring.c) with a ring that holds C and the end of B: the trace has C's calls
exactly, none of A's, balanced, the frames open at the window's start (main, phase_b)
entered there with the attribute vt::entered_before_window, then MeasurementOnOff(ON); a
fatal signal writes the same window; VT_USER_SNAPSHOT() in the middle of B writes
NAME.snap-1 with B's end and nothing of C while the run goes on to its own trace; a larger
ring keeps more; bad VT_MODE and VT_RING_SIZE values get one error line."""

import os
import signal

import otf2
import vttest

NA, NB, NC = 5000, 20000, 2000  # ring.c's calls of work_a, work_b, work_c
NW = 20000  # work_w calls of each of ring.c's threads
ATTR = 'vt::entered_before_window'
BUFFER = 64 * 1024
RING = 128 * 1024
RECORD = 16  # bytes of a raw record (runtime/src/record/vt_rec.h)


def events_of(path, loc_name):
    """The events of location loc_name with python3-otf2: (kind, time, region name or
    measurement mode or '', attributes by name)."""
    out = []
    with otf2.reader.open(path) as reader:
        for loc, ev in reader.events:
            if loc.name != loc_name:
                continue
            kind = type(ev).__name__
            what = ev.region.name if hasattr(ev, 'region') else \
                str(getattr(ev, 'measurement_mode', '')).rsplit('.', 1)[-1]
            attrs = {a.name: v for a, v in ev.attributes.items()} if ev.attributes else {}
            out.append((kind, ev.time, what, attrs))
    return out


def check_start(t, tr, loc_name, outer, leaf, what):
    """A location's window start: Enters of the open frames (outer, and leaf when the window
    starts inside one of its calls), each marked with its real Enter time, then one
    MeasurementOnOff(ON), all at the window's first time, then the window's first event;
    no other event marked. Returns the frames."""
    evs = events_of(tr.path, loc_name)
    if evs and evs[0][0] == 'ThreadBegin':
        evs = evs[1:]  # a thread's location begins with it (at the window's start)
    marks = [(w, ts, a[ATTR]) for k, ts, w, a in evs if ATTR in a]
    frames = [w for w, _, _ in marks]
    t.check(frames in (outer, outer + [leaf]),
            '%s: %s: the open frames are %r (and %s if the window starts in it)'
            % (what, loc_name, outer, leaf), repr(frames))
    n = len(frames)
    head = [(k, w) for k, _, w, _ in evs[:n + 2]]
    first = ('Leave', leaf) if frames == outer + [leaf] else ('Enter', leaf)
    t.eq(head, [('Enter', f) for f in frames] + [('MeasurementOnOff', 'ON'), first],
         '%s: %s: the window opens with the marked frames, the marker, then its events'
         % (what, loc_name))
    start = evs[0][1] if evs else None
    t.check(all(ts == start for _, ts, _, _ in evs[:n + 1]),
            '%s: %s: open frames and marker at the window\'s start' % (what, loc_name),
            repr(evs[:n + 1]))
    t.check(all(v < start for _, _, v in marks) and
            [v for _, _, v in marks] == sorted(v for _, _, v in marks),
            '%s: %s: each mark holds its real Enter time, before the window, outer first'
            % (what, loc_name), repr(marks))
    t.eq([(k, w) for k, _, w, _ in evs].count(('MeasurementOnOff', 'ON')), 1,
         '%s: %s: one MeasurementOnOff(ON)' % (what, loc_name))
    return frames


def printed_marks(path):
    """The regions of the ENTER lines otf2-print shows with ATTR among their attributes."""
    rc, out, err = vttest.otf2_print([path])
    marks, last_enter = [], None
    for line in out.splitlines():
        if line.startswith('ENTER'):
            last_enter = line.split('Region: "', 1)[1].split('"', 1)[0]
        elif 'ADDITIONAL ATTRIBUTES' in line and '"%s"' % ATTR in line:
            marks.append(last_enter)
        elif line.strip() and not line.startswith(' '):
            last_enter = None
    return rc, marks


def check_window(t, run, what, ring, prefix=None, notice=True, c_calls=NC, b_max=NB):
    """The window of one ring-mode trace: C's calls exactly (c_calls), no A, some of B, the
    open frames marked and MeasurementOnOff(ON) at the window's start. Returns work_b's
    Enters."""
    tr = t.trace(run, what, prefix=prefix, notice=notice)
    t.eq([l.name for l in tr.locations], ['Master thread'], '%s: one location' % what)
    m = tr.loc('Master thread')
    t.eq(m.enters.get('work_c', 0), c_calls, '%s: work_c calls' % what)
    t.eq(m.enters.get('phase_c', 0), 1 if c_calls else 0, '%s: phase_c entries' % what)
    t.eq((m.enters.get('work_a', 0), m.enters.get('phase_a', 0)), (0, 0),
         '%s: nothing of phase A' % what)
    b = m.enters.get('work_b', 0)
    t.check(0 < b < b_max, '%s: the end of phase B so far, not all of it' % what,
            'work_b: %d' % b)
    # Memory bound: the window is at most the ring and the half being filled.
    t.check(m.events <= (ring + BUFFER // 2) // RECORD + 3,
            '%s: at most VT_RING_SIZE + half of VT_BUFFER_SIZE of records' % what,
            '%d events' % m.events)
    frames = check_start(t, tr, 'Master thread', ['main', 'phase_b'], 'work_b', what)
    rc, printed = printed_marks(tr.path)
    t.eq((rc, printed), (0, frames), '%s: otf2-print shows the same marks' % what)
    return b


def body(t):
    exe, plain_exe = t.parallel(
        lambda instrument: t.compile('ring', ['ring.c'], compiler='gcc', opt='-O0',
                                     flags=['-pthread'], instrument=instrument), [True, False])
    plain = t.run(plain_exe, label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    ring_env = {'VT_MODE': 'ring', 'VT_BUFFER_SIZE': str(BUFFER), 'VT_RING_SIZE': '128k'}

    # The file mode (the default) keeps everything: the control of the counts below.
    what = 'VT_MODE=file'
    run = t.run(exe, env={'VT_MODE': 'file', 'VT_BUFFER_SIZE': str(BUFFER)}, label='file')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    t.enter_counts(tr.loc('Master thread'),
                   {'main': 1, 'phase_a': 1, 'phase_b': 1, 'phase_c': 1, 'work_a': NA,
                    'work_b': NB, 'work_c': NC}, what)
    t.no_onoff(tr, what)
    t.eq([e for e in events_of(tr.path, 'Master thread') if e[3]], [],
         '%s: no event has attributes' % what)

    # Ring mode, to the end of main: the window holds C and B's end.
    what = 'VT_MODE=ring 128k'
    run = t.run(exe, env=ring_env, label='ring')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    b_small = check_window(t, run, what, RING)

    # A ring twice as large keeps more of B (and still nothing of A).
    what = 'VT_MODE=ring 256k'
    run = t.run(exe, env=dict(ring_env, VT_RING_SIZE='256k'), label='ring2')
    t.same_as_plain(run, plain, what)
    b_large = check_window(t, run, what, 2 * RING)
    t.check(b_large > b_small + (RING // RECORD) // 2 * 9 // 10,
            'a ring of 256k keeps about 128k more of phase B than one of 128k',
            'work_b: %d against %d' % (b_large, b_small))

    # A fatal signal in phase C: the trace of the last window is written.
    what = 'VT_MODE=ring, SIGSEGV'
    ref = t.run(plain_exe, args=['segv'], label='plain-segv')
    t.eq(ref.status, -signal.SIGSEGV, '%s: the plain build is killed by SIGSEGV' % what)
    run = t.run(exe, args=['segv'], env=ring_env, label='segv')
    t.eq(run.status, -signal.SIGSEGV, '%s: killed by SIGSEGV as the plain build' % what)
    t.eq(run.errors, [], '%s: no vt error' % what)
    check_window(t, run, what, RING)

    # VT_USER_SNAPSHOT() after NB / 2 + 1 calls of work_b: NAME.snap-1 holds the window then
    # (B's, nothing of C), written by a process of vt's while the run goes on; the run's own
    # trace is the end's window, as without the snapshot.
    what = 'VT_USER_SNAPSHOT in phase B'
    run = t.run(exe, args=['snap'], env=ring_env, label='snap')
    t.eq((run.status, run.stdout), (0, 'snapshot: 0\n' + plain.stdout),
         '%s: the program goes on, VT_USER_SNAPSHOT returned 0' % what)
    t.eq(run.errors, [], '%s: no vt error' % what)
    snap_prefix = run.prefix + '.snap-1'
    written = sorted(os.path.basename(p) for p, _, _ in run.written)
    t.eq(written, sorted([run.prefix + '.otf2', snap_prefix + '.otf2']),
         '%s: two "trace written" lines: the snapshot and the run' % what)
    check_window(t, run, what + ': snapshot', RING, prefix=snap_prefix,
                 notice=False, c_calls=0, b_max=NB // 2 + 2)
    props = vttest.otf2_properties(run.anchor(snap_prefix))
    t.eq(props.get('VT::SNAPSHOT'), 'in phase B',
         '%s: the snapshot\'s property VT::SNAPSHOT says why' % what)
    check_window(t, run, what + ': final trace', RING, notice=False)
    t.check('VT::SNAPSHOT' not in vttest.otf2_properties(run.anchor()),
            '%s: the run\'s trace has no VT::SNAPSHOT property' % what)

    # Two threads of NW calls each: each thread's window starts in its start routine, marked,
    # and keeps the number its creator gave it (ThreadBegin matches the ThreadCreate) though
    # its first event left the ring.
    what = 'VT_MODE=ring, two threads'
    run = t.run(exe, args=['threads'], env=ring_env, label='threads')
    t.eq((run.status, run.stdout), (0, 'threads done\n'), '%s: the program\'s output' % what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    workers = sorted(l.name for l in tr.locations if l.name != 'Master thread')
    t.eq(len(workers), 2, '%s: two thread locations besides the master' % what)
    t.eq(dict(tr.loc('Master thread').enters), {'main': 1, 'pthread_create': 2,
                                                'pthread_join': 2},
         '%s: the master holds its whole run' % what)
    created, begun = [], []
    with otf2.reader.open(tr.path) as reader:
        for loc, ev in reader.events:
            kind = type(ev).__name__
            if kind == 'ThreadCreate':
                created.append(ev.sequence_count)
            elif kind == 'ThreadBegin':
                begun.append(ev.sequence_count)
    t.check(len(created) == 2 and sorted(created) == sorted(begun),
            '%s: each ThreadBegin carries its ThreadCreate\'s number' % what,
            'created %r, begun %r' % (created, begun))
    for name in workers:
        w = tr.loc(name)
        n = w.enters.get('work_w', 0)
        t.check(0 < n < NW, '%s: %s: the last of its work_w calls' % (what, name), repr(n))
        check_start(t, tr, name, ['worker'], 'work_w', what)
    t.eq(events_of(tr.path, 'Master thread')[0][3], {},
         '%s: nothing marked on the master, whose window is its whole run' % what)

    # Outside ring mode a snapshot is refused in one warning; the program goes on.
    what = 'VT_USER_SNAPSHOT in file mode'
    run = t.run(exe, args=['snap'], env={'VT_BUFFER_SIZE': str(BUFFER)}, label='snapfile')
    t.eq((run.status, run.stdout), (0, 'snapshot: -1\n' + plain.stdout),
         '%s: VT_USER_SNAPSHOT returned -1' % what)
    t.eq([w for w in run.warnings if 'snapshot' in w],
         ['warning: snapshot (in phase B): not written: snapshots are taken in ring mode '
          '(VT_MODE=ring)'],
         '%s: one warning naming VT_MODE' % what)
    tr = t.trace(run, what)
    t.enter_counts(tr.loc('Master thread'),
                   {'main': 1, 'phase_a': 1, 'phase_b': 1, 'phase_c': 1, 'work_a': NA,
                    'work_b': NB, 'work_c': NC}, what)

    # Bad values: one error line naming the variable and the value; the program runs as plain.
    for env, words in (({'VT_MODE': 'circle'}, ['VT_MODE', 'circle', 'file', 'ring']),
                       ({'VT_MODE': 'ring', 'VT_RING_SIZE': '12x'}, ['VT_RING_SIZE', '12x']),
                       ({'VT_MODE': 'ring', 'VT_RING_SIZE': '512'}, ['VT_RING_SIZE', '512'])):
        what = ' '.join('%s=%s' % kv for kv in sorted(env.items()))
        run = t.run(exe, env=env, label='bad')
        t.same_as_plain(run, plain, what)
        t.eq(len(run.errors), 1, '%s: exactly one "vt[PID]: error:" line' % what)
        t.check(run.errors and all(w in run.errors[0] for w in words),
                '%s: the error line names %s' % (what, ' and '.join(words)), repr(run.errors))


vttest.main('ring', body)
