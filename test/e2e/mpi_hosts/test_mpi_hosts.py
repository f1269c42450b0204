# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_hosts": one Open MPI run across two hosts made on this machine from network
and UTS namespaces (a veth pair between them, hostnames h1 and h2), launched by Open MPI's
own rsh launcher through an agent that enters the other host's namespaces. vt must work
unchanged: one trace, each host a node of the system tree holding its ranks, every message
matched and received after it was sent."""

import os
import subprocess

import vtmpi
import vttest
from vtmpi import OPENMPI

# Unique per run, short enough for interface names (15 characters at most).
TAG = 'vt%d' % (os.getpid() % 100000)
NET = '10.%d.%d' % (200 + os.getpid() % 50, os.getpid() % 250)
HOSTS = [('h1', '%s-1' % TAG, '%s.1' % NET), ('h2', '%s-2' % TAG, '%s.2' % NET)]

AGENT = '''#!/bin/sh
# Open MPI's rsh agent here: "agent HOST COMMAND...", HOST one of this test's hosts.
host=$1; shift
case "$host" in
%s
*) echo "agent: unknown host $host" >&2; exit 1 ;;
esac
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$0"; exec sh -c "$1"' "$name" "$*"
'''


def ip(*args):
    p = subprocess.run(['ip'] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode != 0:
        raise vttest.Failure('ip %s: %s' % (' '.join(args), p.stdout.strip()))


def make_hosts():
    for _, ns, _ in HOSTS:
        ip('netns', 'add', ns)
    ip('link', 'add', TAG + 'a', 'type', 'veth', 'peer', 'name', TAG + 'b')
    for (name, ns, addr), dev in zip(HOSTS, (TAG + 'a', TAG + 'b')):
        ip('link', 'set', dev, 'netns', ns)
        ip('-n', ns, 'addr', 'add', addr + '/24', 'dev', dev)
        ip('-n', ns, 'link', 'set', dev, 'up')
        ip('-n', ns, 'link', 'set', 'lo', 'up')


def remove_hosts():
    for _, ns, _ in HOSTS:
        subprocess.run(['ip', 'netns', 'del', ns], stderr=subprocess.DEVNULL)


def run_across(t, exe, per_host, label):
    """mpirun on h1 with per_host ranks on each host; returns a vttest.Run."""
    base = t.newdir(label)
    gdir = os.path.join(base, 'trace')
    os.makedirs(gdir)
    agent = os.path.join(base, 'agent.sh')
    cases = '\n'.join('%s) ns=%s; name=%s ;;' % (addr, ns, name) for name, ns, addr in HOSTS)
    with open(agent, 'w') as f:
        f.write(AGENT % cases)
    os.chmod(agent, 0o755)
    hosts = ','.join('%s:%d' % (addr, per_host) for _, _, addr in HOSTS)
    mpirun = ['mpirun', '--allow-run-as-root', '--oversubscribe', '--host', hosts,
              '-np', str(2 * per_host), '--mca', 'plm_rsh_agent', agent,
              '--mca', 'oob_tcp_if_include', NET + '.0/24',
              '--mca', 'btl', 'self,tcp', '--mca', 'btl_tcp_if_include', NET + '.0/24',
              '-x', 'VT_PFORM_GDIR=' + gdir, exe]
    cmd = ['ip', 'netns', 'exec', HOSTS[0][1], 'unshare', '--uts', 'sh', '-c',
           'hostname h1; exec "$@"', 'sh'] + mpirun
    env = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=base, env=env,
                         universal_newlines=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, err = p.communicate()
        raise vttest.Failure('timed out: %s\n%s%s' % (' '.join(cmd), out, err))
    print('run: %s -> status %d' % (' '.join(cmd), p.returncode))
    for line in (out + err).splitlines()[:20]:
        print('  ' + line)
    return vttest.Run(cmd, {'VT_PFORM_GDIR': gdir}, base, gdir, p, out, err)


def body(t):
    vtmpi.require_runtime(OPENMPI)
    exe = vtmpi.compile(t, OPENMPI, 'mpi_hosts', ['mpi_hosts.c'])
    try:
        make_hosts()
        for per_host in (1, 2):
            np = 2 * per_host
            what = '%d ranks on 2 hosts' % np
            run = run_across(t, exe, per_host, 'hosts%d' % np)
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
    finally:
        remove_hosts()


vttest.main('mpi_hosts', body)
