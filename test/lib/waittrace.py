# SPDX-License-Identifier: BSD-3-Clause
"""Hand-written traces for the wait-state tests (three MPI ranks, or one plain location,
written with python3-otf2 in nanosecond ticks) and vt-profile run on them."""
import json
import os
import subprocess

from vttest import otf2

VT_PROFILE = os.environ.get('VT_PROFILE', 'vt-profile')
MS = 10**6  # ticks: the traces here count nanoseconds


def ms(x):
    return int(round(x * MS))


def profile(*args):
    """vt-profile ARGS: (status, stdout, stderr)."""
    p = subprocess.run([VT_PROFILE] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def profile_json(t, mode, what, *args):
    """vt-profile MODE --format json ARGS: (status, the parsed JSON or None, stderr)."""
    code, out, err = profile(mode, '--format', 'json', *args)
    try:
        return code, json.loads(out), err
    except ValueError as e:
        t.fail('%s: JSON parses' % what, '%s\n%s%s' % (e, out, err))
        return code, None, err


class Ranks:
    """Three MPI ranks, one location each, in MPI_COMM_WORLD; regions by name, an MPI_
    region with the role roles gives it (point-to-point unless said)."""

    def __init__(self, trace, names, roles=None):
        d = trace.definitions
        host = d.system_tree_node('host')
        self.locs = [d.location('Master thread', group=d.location_group(
            'MPI Rank %d' % r, system_tree_parent=host)) for r in range(3)]
        d.group('MPI locations', group_type=otf2.GroupType.COMM_LOCATIONS,
                paradigm=otf2.Paradigm.MPI, members=self.locs)
        self.world = d.comm('MPI_COMM_WORLD', group=d.group(
            'MPI_COMM_WORLD', group_type=otf2.GroupType.COMM_GROUP,
            paradigm=otf2.Paradigm.MPI, members=[0, 1, 2]))
        self.R = {}
        for n in names:
            mpi = n.startswith('MPI_')
            role = (roles or {}).get(n, otf2.RegionRole.POINT2POINT) if mpi \
                else otf2.RegionRole.FUNCTION
            self.R[n] = d.region(n, source_file='c.c', paradigm=otf2.Paradigm.MPI if mpi
                                 else otf2.Paradigm.USER, region_role=role)
        self.trace = trace

    def writer(self, rank):
        """(write, enter(ms, name), leave(ms, name)) of rank's location."""
        w = self.trace.event_writer_from_location(self.locs[rank])
        ev = otf2.events

        def enter(t, n):
            w(ev.Enter(ms(t), self.R[n]))

        def leave(t, n):
            w(ev.Leave(ms(t), self.R[n]))
        return w, enter, leave


def write_plain(path):
    """One location, main from 0 to 5 ms: no communicator, nothing waits."""
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        g = trace.definitions.location_group(
            'Process', system_tree_parent=trace.definitions.system_tree_node('host'))
        w = trace.event_writer_from_location(trace.definitions.location('Master thread',
                                                                        group=g))
        main = trace.definitions.region('main')
        w(otf2.events.Enter(0, main))
        w(otf2.events.Leave(ms(5), main))


# A chain of two Late Senders: rank 0 produces from 1 to 31 and sends to rank 1 (MPI_Send
# 31..32); rank 1 waits in MPI_Recv from 1, receives at 32, relays 32..42 and sends to rank 2
# (MPI_Send 42..43); rank 2 waits in MPI_Recv from 1, receives at 44, posts 44..50. Main:
# 0..40, 0..45, 0..50. unmatched: rank 0 also sends tag 99 to rank 2 (33..34), never
# received. What each tool makes of it: the tests that use it.
def write_chain(path, unmatched=False):
    ev = otf2.events
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        T = Ranks(trace, ['main', 'produce', 'relay', 'post', 'MPI_Send', 'MPI_Recv'])
        w, enter, leave = T.writer(0)
        enter(0, 'main')
        enter(1, 'produce')
        leave(31, 'produce')
        enter(31, 'MPI_Send')
        w(ev.MpiSend(ms(31), 1, T.world, 0, 8))
        leave(32, 'MPI_Send')
        if unmatched:  # never received: a problem, the rest unchanged
            enter(33, 'MPI_Send')
            w(ev.MpiSend(ms(33), 2, T.world, 99, 8))
            leave(34, 'MPI_Send')
        leave(40, 'main')
        w, enter, leave = T.writer(1)
        enter(0, 'main')
        enter(1, 'MPI_Recv')
        w(ev.MpiRecv(ms(32), 0, T.world, 0, 8))
        leave(32, 'MPI_Recv')
        enter(32, 'relay')
        leave(42, 'relay')
        enter(42, 'MPI_Send')
        w(ev.MpiSend(ms(42), 2, T.world, 0, 8))
        leave(43, 'MPI_Send')
        leave(45, 'main')
        w, enter, leave = T.writer(2)
        enter(0, 'main')
        enter(1, 'MPI_Recv')
        w(ev.MpiRecv(ms(44), 1, T.world, 0, 8))
        leave(44, 'MPI_Recv')
        enter(44, 'post')
        leave(50, 'post')
        leave(50, 'main')
