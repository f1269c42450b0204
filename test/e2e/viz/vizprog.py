# SPDX-License-Identifier: BSD-3-Clause
"""What the viewers' tests share: the traced program (viz_prog.c: Open MPI, 4 ranks, 2 threads
each, the sample plugin "random" as counter) and the facts python3-otf2 reads from its
trace."""
import collections
import os

import otf2events
import vtmpi
import vttest
from vtmpi import OPENMPI
from vttest import otf2

NP = 4
THREADS = 2
CALLS = 4


def traced_run(t, what='viz program', env=None):
    """Builds and runs the program (env: more variables); returns the run and the anchor
    file of its trace."""
    vtmpi.require_runtime(OPENMPI)
    exe = vtmpi.compile(t, OPENMPI, 'viz_prog', [t.source('viz_prog.c')], flags=['-pthread'])
    plugins = os.path.join(vttest.BUILD_ROOT, 'samples', 'plugins')
    given = {'VT_PLUGIN_CNTR_PATH': plugins, 'VT_PLUGIN_CNTR_METRICS': 'random_x',
             'RANDOM_SEED': '7'}
    given.update(env or {})
    run = vtmpi.mpirun(t, OPENMPI, NP, exe, env=given)
    vtmpi.clean_run(t, run, what)
    tr = t.trace(run, what)
    return run, tr.path


class Facts:
    """The trace as python3-otf2 reads it: per location its activations (region, enter,
    leave), metric events, and the messages (sender location, receiver rank, bytes)."""

    def __init__(self, path):
        self.locations = []  # (ref, name, group name)
        self.slices = collections.defaultdict(list)  # ref -> [(name, enter, leave)]
        self.metrics = collections.Counter()  # ref -> metric events
        self.enters = collections.Counter()  # region name -> Enter events
        self.sends = []  # (sender ref, receiver rank, bytes)
        self.recvs = []  # (receiver ref, sender rank, bytes)
        self.rank_of = {}  # location ref -> MPI rank
        self.events = 0  # of every kind
        self.coll_ends = collections.Counter()  # collective op name -> CollectiveEnd events
        self.thread_creates = 0  # ThreadCreate events (pthread_create)
        with otf2.reader.open(path) as reader:
            defs = reader.definitions
            self.resolution = defs.clock_properties.timer_resolution
            self.offset = defs.clock_properties.global_offset
            for loc in defs.locations:
                self.locations.append((loc._ref, loc.name, loc.group.name))
            for g in defs.groups:
                if str(g.group_type).endswith('COMM_LOCATIONS') and \
                        str(g.paradigm).endswith('MPI'):
                    for rank, loc in enumerate(g.members):
                        for other in defs.locations:
                            if other.group._ref == loc.group._ref:
                                self.rank_of[other._ref] = rank
            stacks = collections.defaultdict(list)
            for loc, ev in otf2events.events(reader):
                self.events += 1
                if isinstance(ev, otf2.events.Enter):
                    stacks[loc._ref].append((ev.region.name, ev.time))
                    self.enters[ev.region.name] += 1
                elif isinstance(ev, otf2.events.Leave):
                    name, begin = stacks[loc._ref].pop()
                    self.slices[loc._ref].append((name, begin, ev.time))
                elif isinstance(ev, otf2.events.Metric):
                    self.metrics[loc._ref] += 1
                elif isinstance(ev, otf2.events.ThreadCreate):
                    self.thread_creates += 1
                elif isinstance(ev, (otf2.events.MpiSend, otf2.events.MpiIsend)):
                    self.sends.append((loc._ref, ev.receiver, ev.msg_length))
                elif isinstance(ev, otf2.events.MpiCollectiveEnd):
                    self.coll_ends[str(ev.collective_op).rsplit('.', 1)[-1].lower()] += 1
                elif isinstance(ev, (otf2.events.MpiRecv, otf2.events.MpiIrecv)):
                    self.recvs.append((loc._ref, ev.sender, ev.msg_length))

    def us(self, ticks):
        """A timestamp as the viewers give it: microseconds after the clock's offset, to the
        whole nanosecond below."""
        return ((ticks - self.offset) * 10**9 // self.resolution) / 1000
