# SPDX-License-Identifier: BSD-3-Clause
"""Several "hosts" on this machine for Open MPI runs across hosts: each host is a network
namespace (the hosts joined by a veth pair) whose processes also get a UTS namespace with
the host's name. Open MPI's rsh launcher reaches the other host through an agent script
that enters its namespaces. (The approach of test/e2e/mpi_hosts, as a reusable helper.)

    with vthosts.Hosts(['h1', 'h2']) as hosts:
        run = hosts.mpirun(t, exe, per_host=2, env={'VT_FOO': 'x'}, label='hosts4')

Needs root (ip netns, unshare); Hosts() raises vttest.Failure when it cannot set up.
"""

import os
import subprocess

import vttest

_AGENT = '''#!/bin/sh
# Open MPI's rsh agent: "agent HOST COMMAND...", HOST the address of one of the hosts.
host=$1; shift
case "$host" in
%s
*) echo "agent: unknown host $host" >&2; exit 1 ;;
esac
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$0"; exec sh -c "$1"' "$name" "$*"
'''


def _ip(*args):
    p = subprocess.run(['ip'] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode != 0:
        raise vttest.Failure('ip %s: %s' % (' '.join(args), p.stdout.strip()))


class Hosts:
    """Two hosts (names) in namespaces unique to this process, removed on exit."""

    def __init__(self, names=('h1', 'h2')):
        if len(names) != 2:
            raise ValueError('two hosts: one veth pair joins them')
        pid = os.getpid()
        # Interface names have at most 15 characters; the subnet differs between processes.
        self.tag = 'vp%d' % (pid % 100000)
        self.net = '10.%d.%d' % (150 + pid % 50, pid % 250)
        self.hosts = [(name, '%s-%d' % (self.tag, i + 1), '%s.%d' % (self.net, i + 1))
                      for i, name in enumerate(names)]

    def __enter__(self):
        try:
            for _, ns, _ in self.hosts:
                _ip('netns', 'add', ns)
            a, b = self.tag + 'a', self.tag + 'b'
            _ip('link', 'add', a, 'type', 'veth', 'peer', 'name', b)
            for (_, ns, addr), dev in zip(self.hosts, (a, b)):
                _ip('link', 'set', dev, 'netns', ns)
                _ip('-n', ns, 'addr', 'add', addr + '/24', 'dev', dev)
                _ip('-n', ns, 'link', 'set', dev, 'up')
                _ip('-n', ns, 'link', 'set', 'lo', 'up')
        except Exception:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        for _, ns, _ in self.hosts:
            subprocess.run(['ip', 'netns', 'del', ns], stderr=subprocess.DEVNULL)
        return False

    def host_of_rank(self, rank, per_host):
        return self.hosts[rank // per_host][0]

    def mpirun(self, t, exe, per_host, env=None, label='hosts', timeout=120):
        """Open MPI's mpirun, started on the first host, with per_host ranks on each; env is
        given to every rank (-x); VT_PFORM_GDIR is a fresh directory. Returns a vttest.Run
        whose env holds what was given."""
        base = t.newdir(label)
        gdir = os.path.join(base, 'trace')
        os.makedirs(gdir)
        agent = os.path.join(base, 'agent.sh')
        cases = '\n'.join('%s) ns=%s; name=%s ;;' % (addr, ns, name)
                          for name, ns, addr in self.hosts)
        with open(agent, 'w') as f:
            f.write(_AGENT % cases)
        os.chmod(agent, 0o755)
        # every MPI function recorded, as vtmpi.mpirun does (VT_MPI_GROUPS=ALL)
        given = {'VT_PFORM_GDIR': gdir, 'VT_MPI_GROUPS': 'ALL'}
        given.update(env or {})
        hosts = ','.join('%s:%d' % (addr, per_host) for _, _, addr in self.hosts)
        cmd = ['mpirun', '--allow-run-as-root', '--oversubscribe', '--host', hosts,
               '-np', str(per_host * len(self.hosts)), '--mca', 'plm_rsh_agent', agent,
               '--mca', 'oob_tcp_if_include', self.net + '.0/24',
               '--mca', 'btl', 'self,tcp', '--mca', 'btl_tcp_if_include', self.net + '.0/24']
        for k, v in sorted(given.items()):
            cmd += ['-x', '%s=%s' % (k, v)]
        cmd.append(exe)
        first = self.hosts[0]
        full = ['ip', 'netns', 'exec', first[1], 'unshare', '--uts', 'sh', '-c',
                'hostname "$0"; shift; exec "$@"', first[0], 'sh'] + cmd
        penv = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
        p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=base,
                             env=penv, universal_newlines=True, errors='replace',
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            out, err = p.communicate()
            raise vttest.Failure('timed out: %s\n%s%s' % (' '.join(full), out, err))
        print('run: %s -> status %d' % (' '.join(full), p.returncode))
        for line in (out + err).splitlines()[:20]:
            print('  ' + line)
        run = vttest.Run(full, given, base, gdir, p, out, err)
        return run
