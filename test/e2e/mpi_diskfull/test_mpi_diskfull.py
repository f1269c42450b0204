# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_diskfull": a full disk under MPI (2 MiB tmpfs, Open MPI np 2).

Rank 0's writes fail; it stops recording with one line and every rank writes its
definitions into an archive opened again collectively (libotf2's collectives must match
across ranks), with the event files moved back beside them: the trace reads, rank 1's
events whole, rank 0's those its file holds. No rank crashes, the output and exit status
are those of the plain build. Skipped (77) where mount is refused.
"""

import os
import re
import subprocess
import sys

import vtmpi
import vttest
from vtmpi import OPENMPI

STOPPED = re.compile(r'^error: disk full: recording stopped at \d+\.\d{3} s \((.+): '
                     r'No space left on device\); the events written before stay in the '
                     r'trace$')
INCOMPLETE = re.compile(r'^warning: incomplete trace written to (.+\.otf2) \((\d+) events?, '
                        r'(\d+) locations?\): recording stopped at the first failed write$')


def body(t):
    vtmpi.require_runtime(OPENMPI)
    exe, plain_exe = t.parallel(
        lambda instrument: vtmpi.compile(t, OPENMPI, 'mpi_diskfull', ['mpi_diskfull.c'],
                                         opt='-O0', instrument=instrument), [True, False])
    plain = vtmpi.mpirun(t, OPENMPI, 2, plain_exe, label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    disk = os.path.join(t.work, 'disk')
    os.makedirs(disk)
    p = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', disk],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode != 0:
        print('SKIP: cannot mount a 2 MiB tmpfs at %s (%s); the test needs root'
              % (disk, p.stdout.strip()))
        sys.exit(77)
    try:
        check(t, exe, plain, disk)
    finally:
        subprocess.run(['umount', '-l', disk])


def check(t, exe, plain, disk):
    what = 'openmpi np 2, disk full'
    run = vtmpi.mpirun(t, OPENMPI, 2, exe, env={'VT_PFORM_GDIR': disk}, label='full')
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.no_crash(t, run, what)
    t.eq(len([m for m in run.messages if STOPPED.match(m)]), 1,
         '%s: one "disk full: recording stopped at" line' % what)
    done = [INCOMPLETE.match(m) for m in run.messages if INCOMPLETE.match(m)]
    t.eq(len(done), 1, '%s: one "incomplete trace written to" line' % what)
    t.eq([m for m in run.errors + run.warnings if not STOPPED.match(m) and
          not INCOMPLETE.match(m)], [], '%s: no other vt error or warning' % what)
    anchor = os.path.join(disk, 'mpi_diskfull.vt.otf2')
    t.eq(sorted(os.listdir(disk)), ['mpi_diskfull.vt', 'mpi_diskfull.vt.def',
                                    'mpi_diskfull.vt.otf2'],
         '%s: the archive and nothing else on the disk' % what)
    if not done:
        return
    tr = vttest.read_trace(anchor)
    t.eq((tr.events, len(tr.locations)), (int(done[0].group(2)), int(done[0].group(3))),
         '%s: python3-otf2: the events and locations the line gives' % what)
    for loc in tr.locations:
        t.eq(loc.events, loc.number_of_events,
             '%s: location %d: events read = the definition\'s event count' % (what, loc.ref))
    rank1 = [l for l in tr.locations if l.ref == 1]
    if t.eq(len(rank1), 1, '%s: rank 1 has its location' % what):
        t.eq(rank1[0].problems, [], '%s: rank 1 balanced, time-ordered' % what)
        t.eq(rank1[0].enters['leaf'], 1000, '%s: rank 1: all its 1000 calls of leaf' % what)
    rank0 = [l for l in tr.locations if l.ref == 0]
    if t.eq(len(rank0), 1, '%s: rank 0 has its location' % what):
        t.check(10000 < rank0[0].enters['leaf'] < 3000000,
                '%s: rank 0: the calls written before the disk filled' % what,
                '%d' % rank0[0].enters['leaf'])
    locs, problems = vttest.read_with_otf2_print(anchor)
    t.eq(problems, [], '%s: otf2-print reads the trace cleanly' % what)
    t.eq({lid: (l['events'], l['defined_events']) for lid, l in locs.items()},
         {l.ref: (l.events, l.number_of_events) for l in tr.locations},
         '%s: otf2-print: the same events per location' % what)


vttest.main('mpi_diskfull', body)
