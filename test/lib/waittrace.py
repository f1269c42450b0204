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
