# SPDX-License-Identifier: BSD-3-Clause
"""e2e "diskfull": VT_PFORM_GDIR on a 2 MiB tmpfs and a program making tens of MB of events.

The first failed write stops recording for the run with one line ("disk full: recording
stopped at ..."), libotf2 prints nothing on the program's stderr, the program's output and
exit status are those of its plain build, and what was written stays readable: the event
files cut to whole chunks, the definitions and the anchor written into the room vt kept
for them, each location's event count the number of events its file holds. On a disk full
from the start, the trace cannot be written at all and vt says so in one line.

Needs root to mount the tmpfs: skipped (exit 77) where mount is not permitted.
"""

import os
import re
import subprocess
import sys

import vttest

DISK = '2m'
CALLS = 1500000  # per thread: 3M events, ~36 MB each, on a 2 MiB disk
STOPPED = re.compile(r'^error: disk full: recording stopped at \d+\.\d{3} s \((.+): '
                     r'No space left on device\); the events written before stay in the '
                     r'trace$')
INCOMPLETE = re.compile(r'^warning: incomplete trace written to (.+\.otf2) \((\d+) events?, '
                        r'(\d+) locations?\): recording stopped at the first failed write$')
UNREADABLE = re.compile(r'^error: the trace (.+\.otf2) is incomplete and cannot be read: its '
                        r'definitions could not be written \(No space left on device\)$')


def mount_small(path):
    """Mounts a 2 MiB tmpfs at path; None when it worked, else why not."""
    os.makedirs(path, exist_ok=True)
    p = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=' + DISK, 'tmpfs', path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return None if p.returncode == 0 else (p.stdout.strip() or 'status %d' % p.returncode)


def umount(path):
    subprocess.run(['umount', '-l', path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def fill(path, leave):
    """Fills the disk at path but for `leave` bytes."""
    st = os.statvfs(path)
    free = st.f_bavail * st.f_frsize
    with open(os.path.join(path, 'filler'), 'wb') as f:
        f.write(b'\0' * max(0, free - leave))


def other_lines(run, *patterns):
    return [m for m in run.messages
            if (m.startswith('error:') or m.startswith('warning:') or 'trace written' in m)
            and not any(p.match(m) for p in patterns)]


def body(t):
    exe, plain_exe = t.parallel(
        lambda instrument: t.compile('diskfull', ['diskfull.c'], compiler='gcc', opt='-O0',
                                     flags=['-pthread'], instrument=instrument), [True, False])
    plain = t.run(plain_exe, args=[str(CALLS)], label='plain')
    t.eq(plain.status, 3, 'uninstrumented: exit status 3')

    disk = os.path.join(t.work, 'disk')
    why = mount_small(disk)
    if why:
        print('SKIP: cannot mount a %s tmpfs at %s (%s); the test needs root' % (DISK, disk, why))
        sys.exit(77)
    try:
        full_during_run(t, exe, plain, disk)
    finally:
        umount(disk)
    why = mount_small(disk)
    if why:
        raise vttest.Failure('second mount failed: %s' % why)
    try:
        full_from_start(t, exe, plain, disk)
    finally:
        umount(disk)


def full_during_run(t, exe, plain, disk):
    what = 'disk full during the run'
    gdir = os.path.join(disk, 'traces')
    os.makedirs(gdir)
    run = t.run(exe, args=[str(CALLS)], gdir=gdir, label='full')
    t.same_as_plain(run, plain, what)
    t.vt_pids(run, what)
    stopped = [m for m in run.messages if STOPPED.match(m)]
    t.eq(len(stopped), 1, '%s: one "disk full: recording stopped at" line' % what)
    if stopped:
        path = STOPPED.match(stopped[0]).group(1)
        t.check(re.match(re.escape(os.path.join(gdir, 'diskfull.vt')) + r'/\d+\.evt$', path),
                '%s: the line names the event file that failed' % what, path)
    done = [INCOMPLETE.match(m) for m in run.messages if INCOMPLETE.match(m)]
    t.eq(len(done), 1, '%s: one "incomplete trace written to" line' % what)
    t.eq(other_lines(run, STOPPED, INCOMPLETE), [], '%s: no other vt error or warning' % what)
    t.check(not any('[OTF2]' in l for l in run.program_stderr),
            '%s: no libotf2 error printing on stderr' % what, repr(run.program_stderr[:3]))
    anchor = run.anchor()
    if not done or not t.check(os.path.isfile(anchor), '%s: anchor written' % what):
        return
    t.eq(os.path.realpath(done[0].group(1)), os.path.realpath(anchor),
         '%s: the line names the anchor' % what)
    events, nlocs = int(done[0].group(2)), int(done[0].group(3))
    evdir = anchor[:-len('.otf2')]
    t.eq(sorted(f for f in os.listdir(evdir) if not re.match(r'^\d+\.(evt|def)$', f)), [],
         '%s: nothing but event and definition files in the archive (no reserve left)' % what)

    tr = vttest.read_trace(anchor)
    t.eq(len(tr.locations), nlocs, '%s: python3-otf2: the locations the line gives' % what)
    t.eq(tr.events, events, '%s: python3-otf2: the events the line gives' % what)
    t.check(events > 10000, '%s: the events written before the disk filled are there' % what,
            '%d events' % events)
    for loc in tr.locations:
        t.eq(loc.events, loc.number_of_events,
             '%s: %s: events read = the definition\'s event count' % (what, loc.name))
        bad = [p for p in loc.problems if not p.startswith('regions still open at the end')]
        t.eq(bad, [], '%s: %s: time-ordered, Leaves match' % (what, loc.name))
        t.eq(set(loc.enters) - {'main', 'worker', 'leaf'}, set(),
             '%s: %s: only the program\'s regions' % (what, loc.name))
    t.check(sum(loc.enters['leaf'] for loc in tr.locations) > 5000,
            '%s: leaf entered thousands of times in what was written' % what)
    # The thread that started after the disk filled is defined, with an id of its own.
    t.eq(sorted(l.name for l in tr.locations), ['Master thread', 'Thread 1', 'Thread 2'],
         '%s: every thread is a location, also the one that started later' % what)
    locs, problems = vttest.read_with_otf2_print(anchor)
    t.eq(problems, [], '%s: otf2-print reads what was written cleanly' % what)
    t.eq({lid: (l['events'], l['defined_events']) for lid, l in locs.items()},
         {l.ref: (l.events, l.number_of_events) for l in tr.locations},
         '%s: otf2-print: the same events per location' % what)


def full_from_start(t, exe, plain, disk):
    what = 'disk full from the start'
    gdir = os.path.join(disk, 'traces')
    os.makedirs(gdir)
    fill(disk, 0)
    run = t.run(exe, args=[str(CALLS)], gdir=gdir, label='nospace')
    t.same_as_plain(run, plain, what)
    t.vt_pids(run, what)
    t.eq(len([m for m in run.messages if STOPPED.match(m)]), 1,
         '%s: one "disk full: recording stopped at" line' % what)
    lost = [UNREADABLE.match(m) for m in run.messages if UNREADABLE.match(m)]
    t.eq(len(lost), 1, '%s: one line: the trace is incomplete and cannot be read' % what)
    t.eq(other_lines(run, STOPPED, UNREADABLE), [], '%s: no other vt error or warning' % what)
    t.check(not any('[OTF2]' in l for l in run.program_stderr),
            '%s: no libotf2 error printing on stderr' % what, repr(run.program_stderr[:3]))
    t.check(not os.path.exists(run.anchor()), '%s: no anchor of an unreadable trace' % what)


vttest.main('diskfull', body)
