# SPDX-License-Identifier: BSD-3-Clause
"""e2e "plugins_mpi": the counter plugin host in MPI runs (docs/dev/plugin-host.md, step 5):
PER_PROCESS counters on every rank from its first event, PER_HOST ones in MPI_Init on the
lowest rank of each host, ONCE ones in MPI_Init on rank 0 only; every process loads every
plugin (get_info, init, get_event_info, finalize); Score-P version 1 plugins get
synchronize(BEGIN_MPP) with is_responsible true exactly where they added counters.
Open MPI on 2 and 4 ranks, MPICH on 2 (PER_PROCESS), and Open MPI across two hosts made of
namespaces (PER_HOST: one instance per host). Checked from the plugins' log (calls per
process) and from the unified trace (values per rank, METRIC locations and their scopes;
asynchronous timestamps shifted by the rank's clock offset only)."""

import collections
import os

import vthosts
import vtmetrics
import vtmpi
import vtplugins
import vttest
from vtmpi import MPICH, OPENMPI
from vtplugins import Expect, Use, Variant

PROG = 'mpi_prog'
K = 6
ENTERS = {'main': 1, 'log_rank': 1, 'work': K, 'nap': 1, 'MPI_Init': 1, 'MPI_Comm_rank': 1,
          'MPI_Comm_size': 1, 'MPI_Barrier': 1, 'MPI_Allreduce': 1, 'MPI_Finalize': 1}
# Enter/Leave events of a rank before MPI_Init adds counters: Enter main, Enter MPI_Init.
BEFORE_INIT = 2
# The Leaves vt adds when it ends recording in MPI_Finalize (of MPI_Finalize and main): they
# carry each synchronous counter's last value read (docs/plugins.md).
AFTER_FINALIZE = 2

SCOPES = [Use('vt', 'tpsyncprocess', 'sync', 'process', ['c1'], ['c1']),
          Use('vt', 'tpsynchost', 'sync', 'host', ['c2'], ['c2']),
          Use('vt', 'tppmonce', 'pm', 'once', ['d'], ['d']),
          Use('vt', 'tpeventhost', 'event', 'host', ['f'], ['f']),
          Use('scorep', 'sphost1', 'strict', 'host', ['a'], ['a'], version=1)]
PER_PROCESS = [Use('vt', 'tpsyncprocess', 'sync', 'process', ['c1'], ['c1']),
               Use('vt', 'tppmprocess', 'pm', 'process', ['d'], ['d'])]


def owns(u, rank, ranks):
    """Whether rank adds u's counters: every rank, the lowest of its host, or rank 0."""
    host = ranks[rank][2]
    if u.per == 'process':
        return True
    if u.per == 'host':
        return rank == min(r for r, v in ranks.items() if v[2] == host)
    return rank == 0


def check_run(t, run, log, uses, np, what, prefix=None, hosts=None):
    """The log's and the trace's view of one MPI run with the plugins uses; hosts: {rank:
    host name} the ranks must have run on."""
    tr = t.trace(run, what, prefix=prefix)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    ranks = log.ranks()
    t.eq(sorted(ranks), list(range(np)), '%s: every rank logged its pid' % what)
    if hosts is not None:
        t.eq({r: v[2] for r, v in ranks.items()}, hosts, '%s: each rank on its host' % what)
    if sorted(ranks) != list(range(np)):
        return
    for r in range(np):
        loc = mv.locations.get(r)
        ok = loc is not None and loc.name == 'Master thread' and \
            mv.groups[loc.group].name == 'MPI Rank %d' % r
        if t.check(ok, '%s: location %d is rank %d\'s master thread' % (what, r, r)):
            t.eq(dict(vtplugins.enter_counts(mv, r)), ENTERS, '%s: rank %d: Enter counts'
                 % (what, r))
    t.eq(sorted(l.ref for l in mv.locs_of_type('CPU_THREAD')), list(range(np)),
         '%s: one CPU location per rank (plugin threads not traced)' % what)
    pids = sorted(v[0] for v in ranks.values())
    sync_entries = collections.defaultdict(list)  # rank -> [(Counter, class, first)]
    n_async = 0
    for u in uses:
        w = '%s: %s' % (what, u.lib)
        t.eq(log.pids(u.lib), pids, '%s: loaded by every rank' % w)
        occ = vtplugins.OCCURRENCE.get(u.sync, vtplugins.ASYNC_OCCURRENCE)
        classes = {name: vtplugins.check_member(t, mv, u.member(name), occ[0], occ[1], w)
                   for name in u.expansion}
        owners_all = []
        for r, (pid, tid, host) in sorted(ranks.items()):
            mine = owns(u, r, ranks)
            if mine:
                owners_all.append(r)
            proc = log.process(u.lib, pid)
            exp = Expect(u.iface, u.sync, u.request, u.expansion, [tid] if mine else [], tid,
                         version=u.version, responsible=mine, mpi=True)
            owners = vtplugins.check_calls(t, proc, exp, '%s: rank %d' % (what, r))
            for c in owners.get(tid, []):
                if not u.is_async:
                    first = 0 if u.per == 'process' else BEFORE_INIT
                    sync_entries[r].append((c, classes.get(c.name), first))
                    continue
                n_async += 1
                cw = '%s: rank %d: %r' % (w, r, c)
                t.eq(len(c.samples()), 4, '%s: the plugin took 4 values' % cw)
                t.eq([x for b in c.batches() for x in b], c.samples(),
                     '%s: get_all_values returned every value once, in order' % cw)
                scope = vtplugins.scope_of(mv, u.per, r)
                vtplugins.check_async_counter(t, mv, c, r, scope, classes.get(c.name),
                                              '%s: rank %d' % (w, r), time_shift=True)
                if u.per == 'host':
                    node = mv.nodes.get(scope[1])
                    t.eq(node and node.name, host, '%s: scope is the node of host %s'
                         % (cw, host))
                elif u.per == 'once':
                    t.eq(node_parent(mv, scope[1]), None, '%s: scope is the root node' % cw)
        want = {'process': list(range(np)), 'once': [0],
                'host': sorted(min(r for r, v in ranks.items() if v[2] == h)
                               for h in set(v[2] for v in ranks.values()))}[u.per]
        t.eq(owners_all, want, '%s: %s counters on ranks %r' % (w, u.per, want))
    for r in range(np):
        entries = sorted(sync_entries.get(r, []), key=lambda e: e[0].add.index)
        if not entries:
            vtplugins.check_no_metrics(t, mv, r, what)
            continue
        cs = [c for c, _, _ in entries]
        vtplugins.check_sync_location(t, mv, r, cs, {c: cls for c, cls, _ in entries},
                                      {c: vtplugins.sync_answers(c) for c in cs},
                                      '%s: rank %d' % (what, r),
                                      first={c: f for c, _, f in entries}, last=AFTER_FINALIZE)
    t.eq(len(mv.locs_of_type('METRIC')), n_async,
         '%s: one METRIC location per asynchronous counter instance' % what)


def node_parent(mv, ref):
    n = mv.nodes.get(ref)
    return n.parent if n is not None else 'no such node'


def body(t):
    vtmpi.require_runtime(OPENMPI)
    plugdir = t.newdir('plugins')
    uses = SCOPES + PER_PROCESS
    specs = sorted(set((u.lib, tuple(u.defines())) for u in uses if u.iface == 'vt'))
    vtplugins.build_plugins(t, plugdir, specs, vtplugins.prog_source(t, 'tp_vt.c'))
    specs = sorted(set((u.lib, tuple(u.defines())) for u in uses if u.iface == 'scorep'))
    vtplugins.build_plugins(t, plugdir, specs,
                            os.path.join(os.path.dirname(t.src), 'plugins_scorep',
                                         'tp_scorep.c'))
    impls = [OPENMPI] + ([MPICH] if vtmpi.runtime_built(MPICH) else [])
    if MPICH not in impls:
        t.fail('vt\'s MPI runtime for MPICH is built', vtmpi.runtime_path(MPICH))
    exes = {}
    for impl in impls:
        for inst in (True, False):
            exes[(impl, inst)] = vtmpi.compile(t, impl, PROG, [PROG + '.c'], opt='-O0',
                                               instrument=inst)
    runs = [(OPENMPI, 2, SCOPES), (OPENMPI, 4, SCOPES)]
    if MPICH in impls:
        runs.append((MPICH, 2, PER_PROCESS))
    for impl, np, us in runs:
        what = '%s np %d' % (impl, np)
        plain = vtmpi.mpirun(t, impl, np, exes[(impl, False)], label='plain-%s%d' % (impl, np))
        t.eq((plain.status, len(plain.lines)), (0, np),
             '%s uninstrumented: status 0, one line per rank' % what)
        log_path = os.path.join(t.newdir('log-%s%d' % (impl, np)), 'plugins.log')
        env = Variant(what, us).plugin_env(plugdir)
        env['TP_LOG'] = log_path
        run = vtmpi.mpirun(t, impl, np, exes[(impl, True)], env=env,
                           label='%s%d' % (impl, np))
        vtmpi.same_as_plain(t, run, plain, what)
        vtmpi.clean_run(t, run, what)
        check_run(t, run, vtplugins.read_log(log_path), us, np, what)
    # Two hosts, two ranks on each: PER_HOST counters on ranks 0 (h1) and 2 (h2).
    with vthosts.Hosts(['h1', 'h2']) as hosts:
        what = 'Open MPI np 4 on 2 hosts'
        log_path = os.path.join(t.newdir('log-hosts'), 'plugins.log')
        env = Variant(what, SCOPES).plugin_env(plugdir)
        env['TP_LOG'] = log_path
        run = hosts.mpirun(t, exes[(OPENMPI, True)], per_host=2, env=env, label='hosts4')
        t.eq(run.status, 0, '%s: exit status 0' % what)
        t.eq(sorted(run.stdout.splitlines()),
             sorted('rank %d of 4: sum 6, sink %d' % (r, K * (K - 1) // 2) for r in range(4)),
             '%s: every rank\'s line' % what)
        t.eq(run.errors + run.warnings, [], '%s: no vt error or warning' % what)
        check_run(t, run, vtplugins.read_log(log_path), SCOPES, 4, what,
                  prefix=PROG + '.vt', hosts={r: hosts.host_of_rank(r, 2) for r in range(4)})


vttest.main('plugins_mpi', body)
