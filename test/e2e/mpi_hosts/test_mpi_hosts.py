# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_hosts": one Open MPI run across two hosts made on this machine from network
and UTS namespaces (a veth pair between them, hostnames h1 and h2), launched by Open MPI's
own rsh launcher through an agent that enters the other host's namespaces. vt must work
unchanged: one trace, each host a node of the system tree holding its ranks, every message
matched and received after it was sent (or early by no more than the measured clock offsets'
stated uncertainty: vtmpi.check_messages)."""

import vthosts
import vtmpi
import vttest
from vtmpi import OPENMPI


def body(t):
    vtmpi.require_runtime(OPENMPI)
    exe = vtmpi.compile(t, OPENMPI, 'mpi_hosts', ['mpi_hosts.c'])
    with vthosts.Hosts(['h1', 'h2']) as hosts:
        for per_host in (1, 2):
            np = 2 * per_host
            what = '%d ranks on 2 hosts' % np
            run = hosts.mpirun(t, exe, per_host, label='hosts%d' % np)
            t.eq(run.status, 0, '%s: exit status 0' % what)
            want = sorted('rank %d on %s: sum %d' % (r, 'h1' if r < per_host else 'h2',
                                                     np * (np - 1) // 2) for r in range(np))
            t.eq(sorted(run.stdout.splitlines()), want,
                 '%s: every rank ran on its host and computed the sum' % what)
            t.eq(run.errors + run.warnings, [], '%s: no vt error or warning' % what)
            tr = t.trace(run, what, prefix='mpi_hosts.vt')
            mt = vtmpi.read_mpi(tr.path)
            # Each host is a node of the system tree and holds exactly its ranks.
            placed = sorted((g[0], g[2][0] if g[2] else None) for g in mt.groups)
            want = sorted(('MPI Rank %d' % r, 'h1' if r < per_host else 'h2')
                          for r in range(np))
            t.eq(placed, want, '%s: each rank below its host\'s system tree node' % what)
            locs = {l.ref: l for l in tr.locations}
            for r in range(np):
                if not t.check(r in locs, '%s: rank %d has location %d' % (what, r, r)):
                    continue
                t.enter_counts(locs[r], {'main': 1, 'ring': 1, 'MPI_Init': 1,
                                     'MPI_Comm_rank': 1, 'MPI_Comm_size': 1,
                                     'MPI_Send': 3, 'MPI_Recv': 3, 'MPI_Allreduce': 1,
                                     'MPI_Get_processor_name': 1, 'MPI_Finalize': 1},
                               '%s: rank %d' % (what, r))
            vtmpi.check_messages(t, mt, what, count=3 * np)


vttest.main('mpi_hosts', body)
