# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_abort_trace": an MPI rank that ends without the others writes what it has into an
archive of its own, NAME.abort-RANK.otf2, without MPI (docs/mpi.md, "When a run does not end
normally"):

- MPI_Abort: rank 1 calls work() 7 times, sends 3 messages to rank 0 and receives its reply,
  then calls MPI_Abort(MPI_COMM_WORLD, 3). The job ends as without vt (mpirun's status 3, the
  program's stdout lines), vt says in one line where rank 1's archive is, and the archive,
  read by python3-otf2, otf2-print and vt-profile, holds exactly rank 1's events up to the
  call (7 work() calls, the 3 sends and the receive with their tags and sizes), its
  definitions (location group "MPI Rank 1", its master thread as location 1), a HIGH marker
  and the property VT::END saying it aborted. The same for Fortran's MPI_Abort (use
  mpi_f08, whose entry points vt wraps for both MPIs), and for a rank whose threads sent
  messages: all its locations are in its archive.
- A terminating signal: with "term", rank 0 is sent SIGTERM by a timer while it waits in
  MPI_Recv, after it received those messages and replied. It writes its archive the same way
  and ends by the signal: mpirun's status is as without vt.

What is not checked, because it does not happen every time: the archives of the ranks that
the launcher ends after an abort. Open MPI sends them SIGTERM, then SIGKILL one second later
(odls_base_sigkill_timeout), so they usually write theirs, but a loaded machine may kill one
while it writes; MPICH's hydra sends SIGKILL at once. They are listed in the log.

An abort makes the launcher tear down its output forwarding while lines may be in flight
(test mpi_abort): each run's stdout lines must be the program's, and one of the runs of a
variant must have them all. vt's line is one of them (hydra lost it in about 1 of 10 runs):
it must be right where it is there, and there in one of the runs of a variant.
"""

import os
import re

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI, Var

VARIANTS = [(OPENMPI, 4), (MPICH, 2)]
REPEAT = 2
WORK, MSGS = 7, 3

# vt's one line for a rank that ended alone.
ALONE = re.compile(r'^warning: (\S+) on rank (\d+): the trace of this rank alone written to '
                   r'(\S+\.otf2) \((\d+) events?, (\d+) locations?\)$')


def alone_lines(run):
    """[(why, rank, path, events, locations)] of vt's lines for ranks that ended alone."""
    out = []
    for m in run.messages:
        a = ALONE.match(m)
        if a:
            out.append((a.group(1), int(a.group(2)), a.group(3), int(a.group(4)),
                        int(a.group(5))))
    return out


def check_archive(t, run, rank, why, end, enters, steps, last, what, size):
    """Rank's own archive: read by every reader, its one location and group, exactly the
    Enter counts enters and the MPI events steps, last the innermost region at the end, the
    marker and VT::END text end, and vt's one line for it, if the launcher passed it on.
    Returns whether it did."""
    prefix = '%s.abort-%d' % (run.prefix, rank)
    tr = t.trace(run, what, prefix=prefix, notice=False)
    path = tr.path
    lines = [l for l in alone_lines(run) if l[1] == rank]
    t.check(lines in ([], [(why, rank, path, tr.events, 1)]),
            '%s: at most one line for rank %d, naming its archive, its events and locations'
            % (what, rank), repr(lines))
    mt = vtmpi.read_mpi(path)
    t.eq(sorted((l.ref, l.name, l.group) for l in mt.locs.values()),
         [(rank, 'Master thread', 'MPI Rank %d' % rank)],
         '%s: the archive holds rank %d\'s master thread alone, location %d' % (what, rank, rank))
    t.eq([g[0] for g in mt.groups], ['MPI Rank %d' % rank], '%s: one location group' % what)
    t.eq(mt.comm_locations, [rank], '%s: the MPI locations: rank %d\'s' % (what, rank))
    t.enter_counts(tr.loc('Master thread'), enters, what)
    seq = vttest.enter_leave_sequence(path)['Master thread']
    opened = []
    for kind, region in seq[:-len(last)]:
        if kind == 'Enter':
            opened.append(region)
        else:
            opened.pop()
    t.eq(opened, last, '%s: the regions open when the rank ended' % what)
    t.eq(seq[-len(last):], [('Leave', r) for r in reversed(last)],
         '%s: they are left at the end' % what)
    binding = vtmpi.match_sequence(t, mt.sequence(rank), steps, what)
    if steps:
        c = mt.comms.get(binding.get('comm:WORLD'))
        t.eq((c.name, c.members) if c else None, ('MPI_COMM_WORLD', ()),
             '%s: the messages\' communicator is MPI_COMM_WORLD, members not listed (the '
             'other ranks are not in the archive)' % what)
    props = vttest.otf2_properties(path)
    t.eq((props.get('VT::END'), props.get('VT::MPI::RANK'), props.get('VT::MPI::SIZE')),
         (end, str(rank), str(size)), '%s: properties VT::END, VT::MPI::RANK and SIZE' % what)
    t.eq(vttest.otf2_markers(path), [('vt', 'HIGH', end)], '%s: a HIGH marker where it ended' % what)
    return bool(lines)


def no_half_written(t, run, what):
    """What the run leaves in VT_PFORM_GDIR: the run's unfinished archive (its directory;
    an anchor or definitions there would be empty; the directory .NAME.vt-XXXXXX it was written in) and the ranks' .abort-R archives (the rank under test's is
    checked complete by check_archive; one the launcher's SIGKILL cut short has an empty
    anchor), nothing else: no name the next run would take for a finished trace."""
    names = sorted(os.listdir(run.gdir))
    base = run.prefix
    bad = []
    for n in names:
        path = os.path.join(run.gdir, n)
        if n in (base + '.otf2', base + '.def'):
            if os.path.getsize(path) != 0:
                bad.append('%s is not empty' % n)
        elif n == base:
            continue
        elif re.match(r'\.' + re.escape(base) + r'\.vt-\w{6}$', n):
            continue  # vt's own directory the run's archive was written in
        else:
            m = re.match(re.escape(base) + r'\.abort-(\d+)(\.otf2|\.def|\.marker)?$', n)
            if not m:
                bad.append('%s: not expected' % n)
    t.eq(bad, [], '%s: only the run\'s unfinished archive and the ranks\' own ones' % what)
    t.note('%s: trace directory holds %r' % (what, names))


def body(t):
    exes = vtmpi.build_all(t, 'abort_work', ['abort_work.c'], [OPENMPI, MPICH])
    W = Var('comm:WORLD')
    for impl, np in VARIANTS:
        expected = sorted(['rank %d: started' % r for r in range(np)] + ['rank 1: aborting'])
        plain = vtmpi.mpirun(t, impl, np, exes[(impl, False)], label='plain-%s%d' % (impl, np))
        t.eq(plain.status, 3, '%s np %d uninstrumented: mpirun exits with MPI_Abort\'s code'
             % (impl, np))
        plain_term = vtmpi.mpirun(t, impl, np, exes[(impl, False)], args=['term'],
                                  label='plainterm-%s%d' % (impl, np))
        t.check(plain_term.status != 0, '%s np %d uninstrumented, SIGTERM: mpirun fails'
                % (impl, np), 'status %d' % plain_term.status)
        vtmpi.require_runtime(impl)
        complete = said = 0
        for i in range(REPEAT):
            what = '%s np %d MPI_Abort run %d' % (impl, np, i + 1)
            run = vtmpi.mpirun(t, impl, np, exes[(impl, True)], timeout=60,
                               label='%s%d-%d' % (impl, np, i + 1))
            t.eq(run.status, plain.status, '%s: exit status as uninstrumented' % what)
            t.check(set(run.lines) <= set(expected) and len(run.lines) <= len(expected),
                    '%s: stdout lines are the program\'s' % what, repr(run.lines))
            complete += run.lines == expected
            t.eq(run.errors, [], '%s: no vt error' % what)
            vtmpi.messages_well_formed(t, run, what)
            vtmpi.no_crash(t, run, what)
            t.eq(run.leftovers, [], '%s: no process of the run outlives mpirun' % what)
            others = [l for l in alone_lines(run) if l[1] != 1]
            t.eq([l[0] for l in others], ['SIGTERM'] * len(others),
                 '%s: the other ranks that wrote theirs say SIGTERM' % what)
            t.note('%s: the other ranks wrote %r' % (what, others))
            said += check_archive(
                t, run, 1, 'MPI_Abort', 'MPI_Abort, errorcode 3',
                {'main': 1, 'MPI_Init': 1, 'MPI_Comm_rank': 1, 'work': WORK, 'MPI_Send': MSGS,
                 'MPI_Recv': 1, 'give_up': 1, 'MPI_Abort': 1},
                vtmpi.steps_of(*[vtmpi.send('MPI_Send', 0, W, 10 + k, 4 * (k + 1))
                                 for k in range(MSGS)],
                               vtmpi.recv('MPI_Recv', 0, W, 20, 8)),
                ['main', 'give_up', 'MPI_Abort'], what, np)
            no_half_written(t, run, what)
        t.check(complete > 0, '%s np %d: at least one run has every stdout line' % (impl, np),
                '%d of %d' % (complete, REPEAT))
        t.check(said > 0, '%s np %d: at least one run has vt\'s line for rank 1' % (impl, np),
                '%d of %d' % (said, REPEAT))

        # The next run into the same directory: not "trace exists"; a name of its own.
        what = '%s np %d MPI_Abort, the next run' % (impl, np)
        again = vtmpi.mpirun(t, impl, np, exes[(impl, True)], timeout=60,
                             env={'VT_PFORM_GDIR': run.gdir}, label='%s%d-again' % (impl, np))
        t.eq(again.status, 3, '%s: exit status 3' % what)
        t.eq([m for m in again.messages if 'exists' in m], [], '%s: no "trace exists"' % what)
        anchor = os.path.join(run.gdir, run.prefix + '.1.abort-1.otf2')
        t.check(os.path.isfile(anchor) and os.path.getsize(anchor) > 0,
                '%s: rank 1 writes NAME.1.abort-1.otf2' % what,
                repr(sorted(os.listdir(run.gdir))))
        t.eq([l[2] for l in alone_lines(again) if l[1] == 1 and l[2] != anchor], [],
             '%s: vt\'s line, if passed on, names it' % what)

        what = '%s np %d SIGTERM' % (impl, np)
        run = vtmpi.mpirun(t, impl, np, exes[(impl, True)], args=['term'], timeout=60,
                           label='%s%d-term' % (impl, np))
        t.eq(run.status, plain_term.status, '%s: exit status as uninstrumented' % what)
        # (hydra prints its report of the signal on stdout, with a PID)
        t.eq([l for l in run.lines if l.startswith('rank ')],
             [l for l in plain_term.lines if l.startswith('rank ')],
             '%s: the program\'s stdout lines as uninstrumented' % what)
        t.eq(len(run.lines), len(plain_term.lines), '%s: as many stdout lines' % what)
        t.eq(run.errors, [], '%s: no vt error' % what)
        vtmpi.messages_well_formed(t, run, what)
        t.eq(run.leftovers, [], '%s: no process of the run outlives mpirun' % what)
        t.note('%s: vt said %r' % (what, run.messages))
        said = check_archive(
            t, run, 0, 'SIGTERM', 'SIGTERM',
            {'main': 1, 'MPI_Init': 1, 'MPI_Comm_rank': 1, 'MPI_Recv': MSGS + 1,
             'MPI_Send': 1, 'arm_sigterm': 1, 'wait_forever': 1},
            vtmpi.steps_of(*[vtmpi.recv('MPI_Recv', 1, W, 10 + k, 4 * (k + 1))
                             for k in range(MSGS)],
                           vtmpi.send('MPI_Send', 1, W, 20, 8)),
            ['main', 'wait_forever', 'MPI_Recv'], what, np)
        t.note('%s: vt\'s line for rank 0 %s' % (what, 'passed on' if said else 'lost'))
        no_half_written(t, run, what)

    # Fortran's MPI_Abort (use mpi_f08: Open MPI's and MPICH's own entry points).
    for impl in (OPENMPI, MPICH):
        what = '%s np 2 Fortran MPI_Abort' % impl
        exe, plain_exe = t.parallel(
            lambda inst: vtmpi.compile_fortran(t, impl, 'abort_f', ['abort_f.f90'], opt='-O0',
                                               instrument=inst), [True, False])
        plain = vtmpi.mpirun(t, impl, 2, plain_exe, label='plain-f-%s' % impl)
        t.eq(plain.status, 4, '%s uninstrumented: mpirun exits with MPI_ABORT\'s code' % what)
        run = vtmpi.mpirun(t, impl, 2, exe, timeout=60, label='f-%s' % impl)
        t.eq(run.status, plain.status, '%s: exit status as uninstrumented' % what)
        t.eq(run.errors, [], '%s: no vt error' % what)
        check_archive(t, run, 1, 'MPI_Abort', 'MPI_Abort, errorcode 4',
                      {'main': 1, 'abort_f': 1, 'MPI_Init': 1, 'MPI_Comm_rank': 1, 'work': 5,
                       'MPI_Abort': 1}, [], ['main', 'abort_f', 'MPI_Abort'], what, 2)


    # Threads: every location of the rank moves into its archive, with its own events.
    what = 'openmpi np 3 threads MPI_Abort'
    exe, plain_exe = t.parallel(
        lambda inst: vtmpi.compile(t, OPENMPI, 'abort_threads', ['abort_threads.c'],
                                   flags=['-pthread'], instrument=inst), [True, False])
    plain = vtmpi.mpirun(t, OPENMPI, 3, plain_exe, label='plain-threads')
    t.eq(plain.status, 5, '%s uninstrumented: mpirun exits with MPI_Abort\'s code' % what)
    run = vtmpi.mpirun(t, OPENMPI, 3, exe, timeout=60, label='threads')
    t.eq(run.status, plain.status, '%s: exit status as uninstrumented' % what)
    t.eq(run.errors, [], '%s: no vt error' % what)
    tr = t.trace(run, what, prefix=run.prefix + '.abort-1', notice=False)
    lines = [l for l in alone_lines(run) if l[1] == 1]
    t.check(lines in ([], [('MPI_Abort', 1, tr.path, tr.events, 3)]),
            '%s: at most one line for rank 1, naming its archive, its events and locations'
            % what, repr(lines))
    mt = vtmpi.read_mpi(tr.path)
    t.eq(sorted((l.ref, l.name, l.group) for l in mt.locs.values()),
         [(1, 'Master thread', 'MPI Rank 1'), ((1 << 32) | 1, 'Thread 1', 'MPI Rank 1'),
          ((2 << 32) | 1, 'Thread 2', 'MPI Rank 1')],
         '%s: rank 1\'s three threads, with their ids of a whole trace' % what)
    # (which thread is "Thread 1" depends on which recorded first)
    sends = []
    for k in range(2):
        loc = mt.locs[((k + 1) << 32) | 1]
        t.enter_counts(tr.loc(loc.name), {'body': 1, 'work': 3, 'MPI_Send': 1}, what)
        sends += [(e.region, e.kind, e.field('receiver'), e.field('msg_tag'),
                   e.field('msg_length')) for e in loc.events]
        t.eq(len(loc.events), 1, '%s: %s has one MPI event' % (what, loc.name))
    t.eq(sorted(sends), [('MPI_Send', 'MpiSend', 0, 30 + k, 4) for k in range(2)],
         '%s: the threads\' messages to rank 0, tags 30 and 31' % what)
    # With VT_PTHREAD (on by default) main's pthread_create and pthread_join are regions.
    t.enter_counts(tr.loc('Master thread'), {'main': 1, 'MPI_Init_thread': 1,
                                             'MPI_Comm_rank': 1, 'MPI_Abort': 1,
                                             'pthread_create': 2, 'pthread_join': 2}, what)
    t.eq(vttest.otf2_properties(tr.path).get('VT::END'), 'MPI_Abort, errorcode 5',
         '%s: property VT::END' % what)


vttest.main('mpi_abort_trace', body)
