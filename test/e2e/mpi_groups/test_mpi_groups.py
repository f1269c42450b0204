# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_groups": VT_MPI_GROUPS. A program calls one function of every group (and
MPI_Wtime 1000 times) on 2 ranks of Open MPI and of MPICH; per setting, each rank enters
exactly the MPI regions of the groups chosen (MPI_Init and MPI_Finalize always), the trace
stays consistent (no message or request event of a group that is off), and a bad value is
one line naming VT_MPI_GROUPS and the valid names, then the default."""

import os
import re
import subprocess

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

# The MPI functions mpi_groups.c calls, with their group (runtime/mpi/mpi.spec).
CALLS = {
    'MPI_Comm_rank': 'QUERY', 'MPI_Comm_size': 'QUERY', 'MPI_Wtime': 'QUERY',
    'MPI_Comm_dup': 'CG', 'MPI_Comm_free': 'CG', 'MPI_Barrier': 'COLL',
    'MPI_Get_processor_name': 'ENV', 'MPI_Error_class': 'ERR',
    'MPI_Status_set_elements': 'EXT', 'MPI_Info_create': 'MISC', 'MPI_Info_free': 'MISC',
    'MPI_Sendrecv': 'P2P', 'MPI_Irecv': 'XNONBLOCK', 'MPI_Isend': 'XNONBLOCK',
    'MPI_Waitall': 'P2P', 'MPI_Test': 'XREQTEST', 'MPI_Ibarrier': 'COLL', 'MPI_Wait': 'P2P',
    'MPI_Win_create': 'RMA', 'MPI_Win_fence': 'RMA', 'MPI_Win_free': 'RMA',
    'MPI_Comm_get_parent': 'SPAWN', 'MPI_Dims_create': 'TOPO',
    'MPI_Type_contiguous': 'TYPE', 'MPI_Type_commit': 'TYPE', 'MPI_Type_free': 'TYPE',
    'MPI_File_open': 'IO', 'MPI_File_close': 'IO',
}
ALWAYS = {'MPI_Init', 'MPI_Finalize'}
GROUPS = sorted(set(CALLS.values()))
DEFAULT = set(GROUPS) - {'QUERY'}
P2P_EVENTS = ('MpiSend', 'MpiRecv', 'MpiIsend', 'MpiIrecv', 'MpiIsendComplete',
              'MpiIrecvRequest')


def chosen(setting):
    """The groups a VT_MPI_GROUPS value chooses (None: unset), as vt_mpi_core.c does."""
    if setting is None:
        return set(DEFAULT)
    g = set()
    for w in setting.split(','):
        sign = w[0] if w[0] in '+-' else '+'
        w = w.lstrip('+-')
        bits = {'DEFAULT': DEFAULT, 'ALL': set(GROUPS)}.get(w, {w})
        g = g - bits if sign == '-' else g | bits
    if 'P2P' not in g:
        g -= {'XNONBLOCK', 'XREQTEST'}
    return g


def regions(setting):
    g = chosen(setting)
    return ALWAYS | {f for f, grp in CALLS.items() if grp in g}


def check(t, run, plain, setting, what):
    vtmpi.same_as_plain(t, run, plain, what, stderr=setting != 'P2P,BOGUS')
    tr, mt = vtmpi.trace(t, run, what)
    locs = {l.ref: l for l in tr.locations}
    want = regions(setting)
    for r in range(2):
        w = '%s: rank %d' % (what, r)
        if not t.check(r in locs, '%s: location %d exists' % (w, r)):
            continue
        got = {k for k, v in locs[r].enters.items() if v and k.startswith('MPI_')}
        t.check(got == want, '%s: the MPI regions entered' % w,
                'missing %r, extra %r' % (sorted(want - got), sorted(got - want)))
        if 'MPI_Wtime' in want:
            t.eq(locs[r].enters.get('MPI_Wtime'), 1000, '%s: MPI_Wtime entered 1000 times' % w)
        kinds = dict(locs[r].kinds)
        p2p = {k: kinds.get(k, 0) for k in P2P_EVENTS}
        if 'P2P' in chosen(setting):
            t.eq(p2p, {'MpiSend': 1, 'MpiRecv': 1, 'MpiIsend': 1, 'MpiIrecv': 1,
                       'MpiIsendComplete': 1, 'MpiIrecvRequest': 1},
                 '%s: the point-to-point events' % w)
        else:
            t.eq(sum(p2p.values()), 0, '%s: no point-to-point event' % w)
        nbc = (kinds.get('NonBlockingCollectiveRequest', 0),
               kinds.get('NonBlockingCollectiveComplete', 0))
        t.eq(nbc, (1, 1) if 'COLL' in chosen(setting) else (0, 0),
             '%s: the non-blocking barrier requested and completed' % w)
    vtmpi.check_messages(t, mt, what, count=4 if 'P2P' in chosen(setting) else 0)
    if setting == 'ALL' and vttest.VT_SCORE:
        # vt-score's advice: the queries (MPI_Wtime's 2000 calls) dominate this trace
        out = subprocess.run([vttest.VT_SCORE, tr.path], stdout=subprocess.PIPE,
                             universal_newlines=True).stdout
        lines = out[out.find('MPI groups that dominate'):].splitlines()
        t.check(len(lines) >= 3 and lines[1].split()[0] == 'QUERY'
                and lines[1].endswith('leave it out: VT_MPI_GROUPS=DEFAULT')
                and lines[2].split()[:3] == ['MPI_Wtime', '(2000', 'calls)'],
                '%s: vt-score advises VT_MPI_GROUPS=DEFAULT for QUERY, MPI_Wtime first' % what,
                out)


def documented_queries(t):
    """docs/mpi.md lists exactly the functions of mpi.spec's group QUERY (what DEFAULT
    leaves out)."""
    root = vttest.SOURCE_ROOT
    spec = [l.split() for l in open(os.path.join(root, 'runtime', 'mpi', 'mpi.spec'))
            if l.strip() and not l.startswith('#')]
    query = {f[0] for f in spec if f[2] == 'QUERY'}
    doc = open(os.path.join(root, 'docs', 'mpi.md')).read()
    para = doc[doc.find('`DEFAULT` is every group but `QUERY`'):doc.find('`ALL` adds them.')]
    listed = set(re.findall(r'`(MPI_\w+)`', para))
    t.check(listed == query, 'docs/mpi.md lists exactly the %d functions of group QUERY'
            % len(query), 'not listed %r, listed but not QUERY %r'
            % (sorted(query - listed), sorted(listed - query)))


def body(t):
    documented_queries(t)
    exes = vtmpi.build_all(t, 'mpi_groups', ['mpi_groups.c'], [OPENMPI, MPICH])
    for impl in (OPENMPI, MPICH):
        vtmpi.require_runtime(impl)
        plain = vtmpi.mpirun(t, impl, 2, exes[(impl, False)], label='plain-%s' % impl)
        t.eq((plain.status, len(plain.lines)), (0, 2),
             '%s uninstrumented: status 0, one line per rank' % impl)
        for setting in (None, 'ALL', 'DEFAULT,-P2P', 'COLL,+QUERY', 'ALL,-XREQTEST,-RMA',
                        'P2P,BOGUS'):
            what = '%s np 2 VT_MPI_GROUPS=%s' % (impl, setting or '(unset)')
            run = vtmpi.mpirun(t, impl, 2, exes[(impl, True)],
                               env={'VT_MPI_GROUPS': setting},
                               label='%s-%s' % (impl, (setting or 'default').replace(',', '_')))
            if setting == 'P2P,BOGUS':
                bad = [m for m in run.warnings if 'VT_MPI_GROUPS' in m]
                t.check(len(bad) == 1, '%s: one warning names VT_MPI_GROUPS' % what,
                        repr(run.warnings))
                t.check(bad and all(n in bad[0] for n in GROUPS + ['DEFAULT', 'ALL']),
                        '%s: the warning names the valid groups' % what, repr(bad))
                check(t, run, plain, None, what)
            else:
                vtmpi.clean_run(t, run, what)
                check(t, run, plain, setting, what)


vttest.main('mpi_groups', body)
