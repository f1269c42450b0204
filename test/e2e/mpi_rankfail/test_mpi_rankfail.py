# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_rankfail": one MPI rank cannot write its part of the trace (issue 27).

Rank 1 sees the trace directory read-only (a read-only bind mount in a mount namespace of
its own), or writes into a VT_PFORM_GDIR of its own on a full tmpfs. The other ranks' events
are whole and the trace reads with python3-otf2 and otf2-print: every rank's location is
defined, rank 1's without events, the others' with exactly the events of a run where every
rank could write; the trace property VT::MPI::RANKS_NOT_WRITTEN is "1". Rank 1 says so in
one line, rank 0 names it in one line, the program's output and exit status are those of its
plain build. Open MPI np 3 and MPICH np 2.
Skipped (77) where mounts are refused (the test needs root).
"""

import os
import re
import subprocess
import sys

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

PREFIX = 'rankfail'
# Rank 1 of the run, as the launcher's environment names it, is made unable to write.
WRAPPER = r'''#!/bin/sh
r=${OMPI_COMM_WORLD_RANK:-$PMI_RANK}
if [ "$r" = 1 ]; then
  case $RANKFAIL_HOW in
  readonly)
    exec unshare -m --propagation private sh -c \
      'mount --bind -o ro "$VT_PFORM_GDIR" "$VT_PFORM_GDIR" && exec "$0" "$@"' "$@";;
  full)
    VT_PFORM_GDIR=$RANKFAIL_FULL
    export VT_PFORM_GDIR;;
  esac
fi
exec "$@"
'''
REASON = {'readonly': 'Read-only file system', 'full': 'No space left on device'}
STOPPED = re.compile(r'^error: (writing the trace failed|disk full): recording stopped at '
                     r'\d+\.\d{3} s \((.+): (.+)\); the events written before stay in the '
                     r'trace$')
OWN = re.compile(r'^error: rank 1 could not write its part of the trace (\S+\.otf2) \((.+)\): '
                 r'its events are not in the trace$')
NAMED = re.compile(r'^error: rank 1 could not write its part of the trace (\S+\.otf2): its '
                   r'locations are in it without events$')
INCOMPLETE = re.compile(r'^warning: incomplete trace written to (.+\.otf2) \((\d+) events?, '
                        r'(\d+) locations?\): recording stopped at the first failed write$')


def mount(args, path):
    p = subprocess.run(['mount'] + args + [path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return None if p.returncode == 0 else (p.stdout.strip() or 'status %d' % p.returncode)


def fill(path):
    """Writes into path until its file system is full."""
    with open(os.path.join(path, 'fill'), 'wb') as f:
        try:
            while True:
                f.write(b'\0' * 65536)
                f.flush()
        except OSError:
            pass


def body(t):
    p = subprocess.run(['unshare', '-m', '--propagation', 'private', 'true'],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    full = os.path.join(t.work, 'full')
    os.makedirs(full)
    why = mount(['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs'], full) if p.returncode == 0 \
        else p.stdout.strip()
    if why:
        print('SKIP: cannot make a mount namespace or mount a tmpfs (%s); the test needs '
              'root' % why)
        sys.exit(77)
    try:
        for impl in (OPENMPI, MPICH):
            os.makedirs(os.path.join(full, impl.name))
        fill(full)
        wrapper = os.path.join(t.work, 'rank1.sh')
        with open(wrapper, 'w') as f:
            f.write(WRAPPER)
        os.chmod(wrapper, 0o755)
        for impl, np in ((OPENMPI, 3), (MPICH, 2)):
            vtmpi.require_runtime(impl)
            exe, plain_exe = t.parallel(
                lambda inst: vtmpi.compile(t, impl, 'mpi_rankfail', ['mpi_rankfail.c'],
                                           opt='-O0', instrument=inst), [True, False])
            plain = vtmpi.mpirun(t, impl, np, plain_exe, label='plain-%s' % impl)
            t.eq((plain.status, len(plain.lines)), (0, np),
                 '%s np %d uninstrumented: status 0, one line per rank' % (impl, np))
            whole = vtmpi.mpirun(t, impl, np, exe, env={'VT_FILE_PREFIX': PREFIX},
                                 label='whole-%s' % impl)
            t.eq(whole.status, 0, '%s np %d, every rank writes: status 0' % (impl, np))
            counts = {l.ref: l.number_of_events
                      for l in vttest.read_trace(os.path.join(whole.gdir, PREFIX + '.otf2'))
                      .locations}
            t.eq(sorted(counts), list(range(np)),
                 '%s np %d, every rank writes: one location per rank' % (impl, np))
            for how in ('readonly', 'full'):
                run = vtmpi.mpirun(t, impl, np, wrapper, args=[exe],
                                   env={'VT_FILE_PREFIX': PREFIX, 'RANKFAIL_HOW': how,
                                        'RANKFAIL_FULL': os.path.join(full, impl.name)},
                                   label='%s-%s' % (how, impl))
                check(t, run, plain, counts, impl, np, how)
    finally:
        subprocess.run(['umount', '-l', full])


def check(t, run, plain, counts, impl, np, how):
    what = '%s np %d, rank 1 %s' % (impl, np, 'read-only' if how == 'readonly'
                                    else 'on a full disk')
    anchor = os.path.join(run.gdir, PREFIX + '.otf2')
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.no_crash(t, run, what)
    t.eq(run.leftovers, [], '%s: no process of the run outlives mpirun' % what)
    stopped = [m for m in map(STOPPED.match, run.messages) if m]
    t.eq([m.group(3) for m in stopped], [REASON[how]],
         '%s: rank 1\'s one "recording stopped" line, with why' % what)
    own = [m for m in map(OWN.match, run.messages) if m]
    t.eq([m.group(2) for m in own], [REASON[how]],
         '%s: rank 1 says in one line that its events are not in the trace' % what)
    named = [m.group(1) for m in map(NAMED.match, run.messages) if m]
    t.eq(named, [anchor], '%s: rank 0 names rank 1 in one line' % what)
    others = sum(n for ref, n in counts.items() if ref != 1)
    done = [(m.group(1), int(m.group(2)), int(m.group(3)))
            for m in map(INCOMPLETE.match, run.messages) if m]
    t.eq(done, [(anchor, others, np)],
         '%s: "incomplete trace written": the other ranks\' events, every location' % what)
    t.eq([m for m in run.errors + run.warnings
          if not (STOPPED.match(m) or OWN.match(m) or NAMED.match(m) or INCOMPLETE.match(m))],
         [], '%s: no other vt error or warning' % what)
    files = ['%d.%s' % (r, ext) for r in range(np) for ext in ('def', 'evt')]
    t.eq(sorted(os.listdir(os.path.join(run.gdir, PREFIX))), sorted(files),
         '%s: the archive directory holds each rank\'s event and definition file' % what)
    if not os.path.exists(anchor):
        t.fail('%s: the anchor is written' % what, anchor)
        return
    tr = vttest.read_trace(anchor)
    want = {ref: 0 if ref == 1 else n for ref, n in counts.items()}
    t.eq({l.ref: l.number_of_events for l in tr.locations}, want,
         '%s: python3-otf2: every rank\'s location; rank 1\'s without events, the others\' '
         'with the events of the run where every rank writes' % what)
    t.eq({l.ref: l.events for l in tr.locations}, want,
         '%s: python3-otf2: the events read are those the definitions count' % what)
    for l in tr.locations:
        if l.ref != 1:
            t.eq((l.enters['leaf'], l.problems), (1000 * (l.ref + 1), []),
                 '%s: rank %d: all its calls of leaf, balanced, time-ordered' % (what, l.ref))
    props = vttest.otf2_properties(anchor)
    t.eq(props.get('VT::MPI::RANKS_NOT_WRITTEN'), '1',
         '%s: the trace property VT::MPI::RANKS_NOT_WRITTEN names rank 1' % what)
    t.check('VT::SETTINGS::VT_PFORM_GDIR' in props, '%s: the settings are written too' % what,
            repr(sorted(props)[:5]))
    locs, problems = vttest.read_with_otf2_print(anchor)
    t.eq(problems, [], '%s: otf2-print reads the trace cleanly' % what)
    t.eq({lid: (l['events'], l['defined_events']) for lid, l in locs.items()},
         {ref: (n, n) for ref, n in want.items()},
         '%s: otf2-print: the same events per location' % what)


vttest.main('mpi_rankfail', body)
