# SPDX-License-Identifier: BSD-3-Clause
"""e2e "vtrun": programs nobody rebuilt, run with vt's runtime preloaded.
- an MPI program built with plain mpicc, run as `mpirun -np 4 vtrun ./app` (Open MPI) and at
  -np 2 with MPICH: the same output as without vt, and per rank the same MPI events (sends,
  receives, collectives) and MPI regions as its vtcc-built twin;
- -vt:OPTION VALUE sets VT_OPTION (the archive's name with -vt:file-prefix);
- a statically linked program: one line, run untraced, its output and exit status kept;
- the program's exit status and arguments pass through; an unknown option or a missing
  program: one line, status 2 or 127;
- the MPI runs again with -vt:sampling yes: the same MPI events, and samples on every rank."""

import collections
import os
import subprocess

import vtmpi
import vtsamples
import vttest
from vtmpi import MPICH, OPENMPI

VTRUN = os.path.join(os.path.dirname(vttest.VTCC), 'vtrun')
MPI_KINDS = ('MpiSend', 'MpiRecv', 'MpiCollectiveBegin', 'MpiCollectiveEnd')


def mpi_shape(tr, mt):
    """Per rank: its MPI event kinds and MPI regions entered, counted."""
    out = {}
    for loc in tr.locations:
        kinds = {k: n for k, n in loc.kinds.items() if k in MPI_KINDS}
        regions = {r: n for r, n in loc.enters.items() if r.startswith('MPI_')}
        out[loc.ref] = (kinds, regions)
    return out


def mpi_case(t, impl, np):
    exes = vtmpi.build_all(t, 'vtrun_mpi', ['vtrun_mpi.c'], [impl])
    plain_exe, twin = exes[(impl, False)], exes[(impl, True)]
    vtmpi.require_runtime(impl)
    what = '%s np %d' % (impl, np)
    plain = vtmpi.mpirun(t, impl, np, plain_exe, label='plain-%s' % impl)
    t.eq((plain.status, len(plain.lines)), (0, np), '%s: plain run' % what)
    ref = vtmpi.mpirun(t, impl, np, twin, label='twin-%s' % impl)
    tr_ref, mt_ref = vtmpi.trace(t, ref, '%s: vtcc twin' % what)
    # vtrun in front of the plain program: mpirun runs vtrun, vtrun execs the program.
    run = vtmpi.mpirun(t, impl, np, VTRUN, args=[plain_exe], label='vtrun-%s' % impl)
    run.exe = plain_exe  # the archive is named after the program
    vtmpi.same_as_plain(t, run, plain, '%s: vtrun' % what)
    vtmpi.clean_run(t, run, '%s: vtrun' % what)
    tr, mt = vtmpi.trace(t, run, '%s: vtrun' % what)
    got, want = mpi_shape(tr, mt), mpi_shape(tr_ref, mt_ref)
    t.eq(sorted(got), list(range(np)), '%s: one location per rank' % what)
    for r in range(np):
        t.eq(got.get(r), want.get(r), '%s: rank %d: MPI events and regions as the twin\'s'
             % (what, r))
        kinds = got.get(r, ({}, {}))[0]
        t.eq((kinds.get('MpiSend'), kinds.get('MpiRecv'), kinds.get('MpiCollectiveEnd', 0) >= 3),
             (1, 1, True), '%s: rank %d: its send, receive and collectives' % (what, r))
    vtmpi.check_messages(t, mt, '%s: vtrun' % what, count=np)
    # Sampled too (wall time: MPI waits count): the same MPI events, and samples of every
    # rank that reach main.
    run = vtmpi.mpirun(t, impl, np, VTRUN, args=['-vt:sampling', 'yes', '-vt:sampling-source',
                                                 'wall', plain_exe],
                       label='vtrun-sampling-%s' % impl)
    run.exe = plain_exe
    what += ', sampled'
    vtmpi.same_as_plain(t, run, plain, '%s: vtrun' % what)
    vtmpi.clean_run(t, run, '%s: vtrun' % what)
    tr, mt = vtmpi.trace(t, run, '%s: vtrun' % what)
    got = mpi_shape(tr, mt)
    for r in range(np):
        t.eq(got.get(r), want.get(r), '%s: rank %d: MPI events and regions as the twin\'s'
             % (what, r))
    vtmpi.check_messages(t, mt, '%s: vtrun' % what, count=np)
    s = vtsamples.read(tr.path)
    for r in range(np):
        mains = [x for x in s.by_ref.get(r, []) if 'main' in x.names]
        t.check(len(mains) >= 5, '%s: rank %d: samples below main' % (what, r),
                '%d of %d' % (len(mains), len(s.by_ref.get(r, []))))


def body(t):
    exe = t.compile('exit3', ['exit3.c'], opt='-O1', instrument=False)
    r = t.run(VTRUN, args=['-vt:file-prefix', 'named', exe, 'a', 'b c'], label='exit3')
    t.eq((r.status, r.stdout), (3, 'a b c\n'), 'status and arguments pass through')
    t.eq([os.path.basename(p) for p, _, _ in r.written], ['named.otf2'],
         '-vt:file-prefix names the archive')
    static = t.compile('exit3-static', ['exit3.c'], opt='-O1', flags=['-static'],
                       instrument=False)
    r = t.run(VTRUN, args=[static, 'x'], label='static')
    t.eq((r.status, r.stdout), (3, 'x\n'), 'a static program runs untraced, as it would')
    t.eq(r.stderr.strip().splitlines(),
         ['vtrun: %s is statically linked: no library can be preloaded into it; running it '
          'untraced' % static], 'a static program: one line')
    for args, status, line in (
            (['-vt:no-such', '1', exe], 2, "vtrun: unknown option '-vt:no-such' (vtrun --help "
                                           "lists them)"),
            (['./does-not-exist'], 127, 'vtrun: ./does-not-exist: no such program (or not '
                                        'executable)')):
        p = subprocess.run([VTRUN] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        t.eq((p.returncode, p.stderr.strip()), (status, line), 'vtrun %s' % ' '.join(args))
    p = subprocess.run([VTRUN, '--help'], stdout=subprocess.PIPE, universal_newlines=True)
    t.check(p.returncode == 0 and '-vt:buffer-size' in p.stdout and 'VT_BUFFER_SIZE' in p.stdout,
            'vtrun --help lists -vt:buffer-size for VT_BUFFER_SIZE')
    mpi_case(t, OPENMPI, 4)
    mpi_case(t, MPICH, 2)


vttest.main('vtrun', body)
