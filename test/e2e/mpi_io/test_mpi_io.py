# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_io": MPI-IO as OTF2 models it, on 4 ranks of Open MPI (ompio) and 2 of MPICH
(ROMIO); mpi_io.c says what the program does. Per rank, exactly: IoCreateHandle at the open
(read-write, created), each read and write as IoOperationBegin/-Complete with its mode,
flags (COLLECTIVE for _all and _ordered, NON_BLOCKING for the i- and split forms), bytes
requested and done (0 past the end of the file) and one matching id; non-blocking ones
IoOperationIssued in the call and complete in MPI_Wait, split collectives at _end; IoSeek
with the offsets reached; IoDestroyHandle at the close; the open that fails leaves no
handle. One IoHandle definition, of the MPI-IO paradigm, named after the file, on
MPI_COMM_WORLD."""

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI, Var

F, W = Var('fh:F'), Var('comm:WORLD')
INT = 4
NB, COLL = 1, 2
DATA = 'data.bin'


class Ops:
    def __init__(self):
        self.n = 0

    def op(self, region, mode, flags, requested, done=None, issued=False, complete_in=None):
        """The events of one operation: begin (and issued) in region, complete in
        complete_in (default: region)."""
        self.n += 1
        k = Var('op:%d' % self.n)
        ev = [(region, 'IoOperationBegin', F, mode, flags, requested, k)]
        if issued:
            ev.append((region, 'IoOperationIssued', F, k))
        end = [(complete_in or region, 'IoOperationComplete', F,
                requested if done is None else done, k)]
        return ev, end


def steps(r, n):
    base, mine = 2048 + 64 * r, 512 + 32 * r
    o = Ops()
    out = [('MPI_File_open', 'IoCreateHandle', F, 'READ_WRITE', 1, 0)]

    def blocking(region, mode, flags, requested, done=None):
        b, e = o.op(region, mode, flags, requested, done)
        out.extend(b + e)

    blocking('MPI_File_write_at', 'WRITE', 0, 4 * INT)
    blocking('MPI_File_write_at_all', 'WRITE', COLL, 2 * INT)
    out.append(('MPI_File_seek', 'IoSeek', F, mine, 'FROM_START', mine))
    blocking('MPI_File_write', 'WRITE', 0, 3 * INT)
    blocking('MPI_File_write_shared', 'WRITE', 0, INT)
    blocking('MPI_File_write_ordered', 'WRITE', COLL, 2 * INT)
    b, e = o.op('MPI_File_iwrite_at', 'WRITE', NB, 5 * INT, issued=True, complete_in='MPI_Wait')
    out.extend(b + e)
    b, e = o.op('MPI_File_write_all_begin', 'WRITE', NB | COLL, 2 * INT, issued=True,
                complete_in='MPI_File_write_all_end')
    out.extend(b + e)
    blocking('MPI_File_read_at', 'READ', 0, 4 * INT)
    blocking('MPI_File_read_at_all', 'READ', COLL, 2 * INT)
    out.append(('MPI_File_seek', 'IoSeek', F, mine, 'FROM_START', mine))
    blocking('MPI_File_read', 'READ', 0, 3 * INT)
    b, e = o.op('MPI_File_iread_at', 'READ', NB, 5 * INT, issued=True, complete_in='MPI_Wait')
    out.extend(b + e)
    b, e = o.op('MPI_File_read_at_all_begin', 'READ', NB | COLL, 4 * INT, issued=True,
                complete_in='MPI_File_read_at_all_end')
    out.extend(b + e)
    out.append(('MPI_File_seek_shared', 'IoSeek', F, 0, 'FROM_START', 0))
    blocking('MPI_File_read_ordered', 'READ', COLL, INT)
    blocking('MPI_File_read_at', 'READ', 0, 4 * INT, done=0)  # past the end
    out.append(('MPI_File_close', 'IoDestroyHandle', F))
    return [[e] for e in out]


ENTERS = {'main': 1, 'MPI_Init': 1, 'MPI_Finalize': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1,
          'MPI_File_open': 2, 'MPI_File_write_at': 1, 'MPI_File_write_at_all': 1,
          'MPI_File_seek': 2, 'MPI_File_write': 1, 'MPI_File_write_shared': 1,
          'MPI_File_write_ordered': 1, 'MPI_File_iwrite_at': 1, 'MPI_Wait': 2,
          'MPI_File_write_all_begin': 1, 'MPI_File_write_all_end': 1, 'MPI_File_sync': 1,
          'MPI_File_read_at': 2, 'MPI_File_read_at_all': 1, 'MPI_File_read': 1,
          'MPI_File_iread_at': 1, 'MPI_File_read_at_all_begin': 1,
          'MPI_File_read_at_all_end': 1, 'MPI_File_seek_shared': 1,
          'MPI_File_read_ordered': 1, 'MPI_Get_count': 1, 'MPI_File_close': 1}


def check(t, run, plain, impl, n, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    t.check(all(l.endswith('bad open failed') for l in run.lines),
            '%s: the open of a file in no directory failed for the program' % what)
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_layout(t, tr, mt, what, n)
    locs = {l.ref: l for l in tr.locations}
    bind = {}
    for r in range(n):
        w = '%s: rank %d' % (what, r)
        loc = locs.get(r)
        if not t.check(loc is not None, '%s: location %d exists' % (w, r)):
            continue
        t.enter_counts(loc, ENTERS, w)
        bind[r] = vtmpi.match_sequence(t, mt.sequence(r), steps(r, n), w)
    refs = set(bind.get(r, {}).get('fh:F') for r in range(n))
    if t.check(len(refs) == 1 and None not in refs,
               '%s: the file handle has one definition on all ranks' % what,
               'per rank: %r' % refs):
        world = bind.get(0, {}).get('comm:WORLD')
        if world is None:
            world = [c.ref for c in mt.comms.values() if c.name == 'MPI_COMM_WORLD'][0]
        t.eq(mt.io_handles.get(refs.pop()), (DATA, DATA, 'MPI-IO', world),
             '%s: the handle: its name and file, MPI-IO, MPI_COMM_WORLD' % what)
    t.eq(len(mt.io_handles), 1, '%s: one I/O handle defined' % what)


def body(t):
    variants = [(OPENMPI, 4), (MPICH, 2)]
    exes = vtmpi.build_all(t, 'mpi_io', ['mpi_io.c'], [OPENMPI, MPICH])
    plains = {}
    for impl, n in variants:
        plain = vtmpi.mpirun(t, impl, n, exes[(impl, False)], args=[DATA],
                             label='plain-%s%d' % (impl, n))
        t.eq((plain.status, len(plain.lines)), (0, n),
             '%s np %d uninstrumented: status 0, one line per rank' % (impl, n))
        plains[impl] = plain
    for impl, n in variants:
        vtmpi.require_runtime(impl)
        run = vtmpi.mpirun(t, impl, n, exes[(impl, True)], args=[DATA], label='%s%d' % (impl, n))
        check(t, run, plains[impl], impl, n, '%s np %d' % (impl, n))


vttest.main('mpi_io', body)
