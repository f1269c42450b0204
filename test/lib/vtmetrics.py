# SPDX-License-Identifier: BSD-3-Clause
"""Metrics in a trace, read two ways: python3-otf2 (read_metrics) and otf2-print's text
(read_metrics_print), into the same shape, so tests check one and compare the other.

    mv = vtmetrics.read_metrics(path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(path), what)
    member = mv.member('c1')                  # the MetricMember named c1
    cls = mv.class_of('c1')                   # the MetricClass of that one member
    for inst in mv.instances_of('c1'): ...    # its MetricInstances
    for ev in mv.events[loc_ref]: ...         # Ev(kind, time, region, metric, values)

Enumerations are kept as their names ('ACCUMULATED_START', 'UINT64', 'METRIC', ...), which
is what otf2-print prints as well. Values are Python ints for UINT64 and INT64 and floats
for DOUBLE; otf2-print prints doubles with %g, so the comparison of the two readers
compares doubles as '%g' text (see norm_value).

vt writes the values of a thread's strict synchronous counters at an event as one Metric
event of a class with a member per counter. Both readers keep the events as read in
mv.raw_events and give in mv.events each such event as one event per member, of the class
of that member alone (which vt defines for every counter), in the order of the members: so
what a test asserts per counter holds of the values, whichever form vt wrote them in.
"""

import collections
import re

from vttest import Failure, otf2, otf2_print, otf2_print_events, print_kind, require_otf2
import otf2events


def _name(v):
    return str(v).rsplit('.', 1)[-1] if v is not None else None


Member = collections.namedtuple(
    'Member', 'ref name description metric_type mode value_type base exponent unit')
Class = collections.namedtuple('Class', 'ref members occurrence recorder_kind')
# scope_type: LOCATION, LOCATION_GROUP, SYSTEM_TREE_NODE or GROUP; scope: its reference
Instance = collections.namedtuple('Instance', 'ref metric_class recorder scope_type scope')
LocDef = collections.namedtuple('LocDef', 'ref name type group')
GroupDef = collections.namedtuple('GroupDef', 'ref name type node')
NodeDef = collections.namedtuple('NodeDef', 'ref name class_name parent')
# kind: 'Enter', 'Leave', 'Metric', 'BufferFlush', ...; region: for Enter/Leave; metric:
# the metric reference (class or instance) and values a tuple, for Metric events.
Ev = collections.namedtuple('Ev', 'kind time region metric values')


class MetricView:
    """The definitions and events of a trace that tests of metrics need."""

    def __init__(self, path):
        self.path = path
        self.members = {}  # ref -> Member
        self.classes = {}  # ref -> Class
        self.instances = {}  # ref -> Instance
        self.locations = {}  # ref -> LocDef
        self.groups = {}  # ref -> GroupDef
        self.nodes = {}  # ref -> NodeDef
        self.events = collections.defaultdict(list)  # location ref -> [Ev], by member
        self.raw_events = None  # location ref -> [Ev], as written (see the module's text)
        self.clock = None  # (ticks per second, global offset, length)

    # -- look-ups --------------------------------------------------------------------------

    def loc(self, name):
        found = [l for l in self.locations.values() if l.name == name]
        if len(found) != 1:
            raise Failure('%s: %d locations named %r (have %r)'
                          % (self.path, len(found), name,
                             sorted(l.name for l in self.locations.values())))
        return found[0]

    def locs_of_type(self, type_name):
        return sorted((l for l in self.locations.values() if l.type == type_name),
                      key=lambda l: l.ref)

    def members_named(self, name):
        return [m for m in self.members.values() if m.name == name]

    def member(self, name):
        found = self.members_named(name)
        if len(found) != 1:
            raise Failure('%s: %d metric members named %r' % (self.path, len(found), name))
        return found[0]

    def classes_of(self, name):
        """The metric classes whose only member is named name."""
        refs = set(m.ref for m in self.members_named(name))
        return [c for c in self.classes.values() if len(c.members) == 1 and c.members[0] in refs]

    def class_of(self, name):
        found = self.classes_of(name)
        if len(found) != 1:
            raise Failure('%s: %d metric classes of the one member %r'
                          % (self.path, len(found), name))
        return found[0]

    def instances_of(self, name):
        refs = set(c.ref for c in self.classes_of(name))
        return sorted((i for i in self.instances.values() if i.metric_class in refs),
                      key=lambda i: i.ref)

    def member_of_metric(self, ref):
        """The Member a Metric event's reference (class or instance) stands for, if the
        class has exactly one member."""
        if ref in self.instances:
            ref = self.instances[ref].metric_class
        c = self.classes.get(ref)
        if c is None or len(c.members) != 1:
            return None
        return self.members.get(c.members[0])

    def metric_events(self, loc_ref):
        return [e for e in self.events.get(loc_ref, []) if e.kind == 'Metric']

    def node_path(self, ref):
        """Names of a system tree node and its ancestors, innermost first."""
        out = []
        while ref is not None and len(out) < 32:
            n = self.nodes[ref]
            out.append(n.name)
            ref = n.parent
        return out

    def root_nodes(self):
        return [n for n in self.nodes.values() if n.parent is None]

    def scope_name(self, inst):
        """(scope type, name of what it names) of a MetricInstance."""
        table = {'LOCATION': self.locations, 'LOCATION_GROUP': self.groups,
                 'SYSTEM_TREE_NODE': self.nodes}.get(inst.scope_type, {})
        d = table.get(inst.scope)
        return (inst.scope_type, d.name if d is not None else None)


def _by_member(mv):
    """mv.events with each Metric event of a class of several members as one event per
    member, of the class of that member alone; the events as read go to mv.raw_events."""
    alone = {}
    for c in sorted(mv.classes.values()):
        if len(c.members) == 1:
            alone.setdefault(c.members[0], c.ref)
    mv.raw_events = mv.events
    mv.events = collections.defaultdict(list)
    for ref, evs in mv.raw_events.items():
        out = mv.events[ref]
        for e in evs:
            c = mv.classes.get(e.metric) if e.kind == 'Metric' else None
            if (c is None or len(c.members) < 2 or len(e.values) != len(c.members)
                    or any(m not in alone for m in c.members)):
                out.append(e)
                continue
            out.extend(Ev('Metric', e.time, None, alone[m], (v,))
                       for m, v in zip(c.members, e.values))
    return mv


def values_per_event(mv, loc_ref):
    """[{counter name: value}] per Enter or Leave of a location, in order: the synchronous
    values recorded with each event."""
    seq = []
    for ev in mv.events.get(loc_ref, []):
        if ev.kind in ('Enter', 'Leave'):
            seq.append({})
        elif ev.kind == 'Metric' and seq:
            member = mv.member_of_metric(ev.metric)
            seq[-1][member.name if member else None] = ev.values[0]
    return seq


def read_metrics(path):
    """Reads the metric definitions, the locations and every event with python3-otf2."""
    require_otf2()
    mv = MetricView(path)
    with otf2.reader.open(path, batch_events=10000) as reader:
        defs = reader.definitions
        c = defs.clock_properties
        mv.clock = (c.timer_resolution, c.global_offset, c.trace_length)
        for n in defs.system_tree_nodes:
            mv.nodes[n._ref] = NodeDef(n._ref, n.name, n.class_name,
                                       n.parent._ref if n.parent is not None else None)
        for g in defs.location_groups:
            node = g.system_tree_parent
            mv.groups[g._ref] = GroupDef(g._ref, g.name, _name(g.location_group_type),
                                         node._ref if node is not None else None)
        for l in defs.locations:
            mv.locations[l._ref] = LocDef(l._ref, l.name, _name(l.type), l.group._ref)
        for m in defs.metric_members:
            mv.members[m._ref] = Member(m._ref, m.name, m.description, _name(m.metric_type),
                                        _name(m.metric_mode), _name(m.value_type),
                                        _name(m.base), m.exponent, m.unit)
        for m in defs.metric_classes:
            mv.classes[m._ref] = Class(m._ref, tuple(x._ref for x in m.members),
                                       _name(m.occurrence), _name(m.recorder_kind))
        for m in defs.metric_instances:
            mv.instances[m._ref] = Instance(m._ref, m.metric_class._ref, m.recorder._ref,
                                            _name(m.metric_scope), m.scope._ref)
        for l, ev in otf2events.events(reader):
            kind = type(ev).__name__
            region = metric = values = None
            if kind in ('Enter', 'Leave'):
                region = ev.region.name
            elif kind == 'Metric':
                metric = ev.metric._ref
                values = tuple(ev.values)
            mv.events[l._ref].append(Ev(kind, ev.time, region, metric, values))
    return _by_member(mv)


# ---------------------------------------------------------------------------------------
# otf2-print

_STR = r'"((?:[^"\\]|\\.)*)"'
P_CLOCK = re.compile(r'^CLOCK_PROPERTIES\s+Ticks per Seconds: (\d+), Global Offset: (\d+), '
                     r'Length: (\d+)')
P_NODE = re.compile(r'^SYSTEM_TREE_NODE\s+(\d+)\s+Name: %s <\d+>, Class: %s <\d+>, '
                    r'Parent: (?:UNDEFINED|"[^"]*" <(\d+)>)' % (_STR, _STR))
P_GROUP = re.compile(r'^LOCATION_GROUP\s+(\d+)\s+Name: %s <\d+>, Type: (\w+), '
                     r'Parent: (?:UNDEFINED|"[^"]*" <(\d+)>)' % _STR)
P_LOC = re.compile(r'^LOCATION\s+(\d+)\s+Name: %s <\d+>, Type: (\w+), # Events: \d+, '
                   r'Group: "[^"]*" <(\d+)>' % _STR)
P_MEMBER = re.compile(r'^METRIC_MEMBER\s+(\d+)\s+Name: %s <\d+>, Descr\.: %s <\d+>, '
                      r'Type: (\w+), Mode: (\w+), Value Type: (\w+), Base: (\w+), '
                      r'Exponent: (-?\d+), Unit: %s <\d+>' % (_STR, _STR, _STR))
P_CLASS = re.compile(r'^METRIC_CLASS\s+(\d+)\s+Occurrence: (\w+), Kind: (\w+), '
                     r'\d+ Members?: (.*)$')
P_INSTANCE = re.compile(r'^METRIC_INSTANCE\s+(\d+)\s+Class: (\d+), Recorder: "[^"]*" <(\d+)>, '
                        r'Scope: (\w+) .*<(\d+)>$')
P_REGION = re.compile(r'Region: %s <\d+>' % _STR)
P_METRIC = re.compile(r'^Metric: (\d+), \d+ Values?: (.*)$')
P_VALUE = re.compile(r'\(%s <\d+>; (\w+); ([^)]*)\)' % _STR)


def _print_value(vtype, text):
    if vtype in ('UINT64', 'INT64'):
        return int(text)
    return text  # a double as otf2-print formats it (%g)


def read_metrics_print(path):
    """The same view as read_metrics, from otf2-print -G and otf2-print's text; doubles as
    otf2-print prints them. Returns (MetricView, problems)."""
    mv = MetricView(path)
    problems = []
    rc, out, err = otf2_print(['-G', path])
    if rc != 0 or err.strip():
        problems.append('otf2-print -G exited %d: %s' % (rc, err.strip()[:500]))
    for line in out.splitlines():
        m = P_CLOCK.match(line)
        if m:
            mv.clock = tuple(int(x) for x in m.groups())
            continue
        m = P_NODE.match(line)
        if m:
            ref = int(m.group(1))
            mv.nodes[ref] = NodeDef(ref, m.group(2), m.group(3),
                                    int(m.group(4)) if m.group(4) else None)
            continue
        m = P_GROUP.match(line)
        if m:
            ref = int(m.group(1))
            mv.groups[ref] = GroupDef(ref, m.group(2), m.group(3),
                                      int(m.group(4)) if m.group(4) else None)
            continue
        m = P_LOC.match(line)
        if m:
            ref = int(m.group(1))
            mv.locations[ref] = LocDef(ref, m.group(2), m.group(3), int(m.group(4)))
            continue
        m = P_MEMBER.match(line)
        if m:
            ref = int(m.group(1))
            mv.members[ref] = Member(ref, m.group(2), m.group(3), m.group(4), m.group(5),
                                     m.group(6), m.group(7), int(m.group(8)), m.group(9))
            continue
        m = P_CLASS.match(line)
        if m:
            ref = int(m.group(1))
            members = tuple(int(x) for x in re.findall(r'<(\d+)>', m.group(4)))
            mv.classes[ref] = Class(ref, members, m.group(2), m.group(3))
            continue
        m = P_INSTANCE.match(line)
        if m:
            ref = int(m.group(1))
            mv.instances[ref] = Instance(ref, int(m.group(2)), int(m.group(3)), m.group(4),
                                         int(m.group(5)))
            continue
        if line.startswith(('METRIC_MEMBER', 'METRIC_CLASS', 'METRIC_INSTANCE', 'LOCATION ',
                            'SYSTEM_TREE_NODE ', 'LOCATION_GROUP ')):
            problems.append('otf2-print -G: cannot parse %r' % line)
    for m in otf2_print_events(path, problems):
        kind, lid, time, rest = (print_kind(m.group(1)), int(m.group(2)), int(m.group(3)),
                                 m.group(4) or '')
        region = metric = values = None
        if kind in ('Enter', 'Leave'):
            r = P_REGION.search(rest)
            region = r.group(1) if r else '?'
        elif kind == 'Metric':
            r = P_METRIC.match(rest)
            if not r:
                problems.append('otf2-print: cannot parse the metric event %r' % line)
            else:
                metric = int(r.group(1))
                values = tuple(_print_value(v[1], v[2]) for v in P_VALUE.findall(r.group(2)))
        mv.events[lid].append(Ev(kind, time, region, metric, values))
    return _by_member(mv), problems


def norm_value(member, v):
    """A value as otf2-print shows it: doubles with %g."""
    if member is not None and member.value_type == 'DOUBLE' and isinstance(v, float):
        return '%g' % v
    return v


def cross_check(t, mv, printed, what):
    """otf2-print reads the same metric definitions, locations, system tree and events
    (kind, time, region, metric, values) as python3-otf2, location by location."""
    pv, problems = printed
    t.eq(problems[:5], [], '%s: otf2-print reads the metrics cleanly' % what)
    for field in ('clock', 'nodes', 'groups', 'locations', 'members', 'classes', 'instances'):
        t.eq(getattr(pv, field), getattr(mv, field),
             '%s: otf2-print: same %s as python3-otf2' % (what, field))
    bad = []
    for ref in sorted(set(mv.events) | set(pv.events)):
        mine = []
        for e in mv.events.get(ref, []):
            if e.kind == 'Metric':
                m = mv.member_of_metric(e.metric)
                e = e._replace(values=tuple(norm_value(m, v) for v in e.values))
            mine.append(e)
        theirs = pv.events.get(ref, [])
        if mine != theirs:
            diff = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b),
                        min(len(mine), len(theirs)))
            bad.append('location %d: %d vs %d events, first difference at %d: %r vs %r'
                       % (ref, len(mine), len(theirs), diff,
                          mine[diff] if diff < len(mine) else None,
                          theirs[diff] if diff < len(theirs) else None))
    t.eq(bad[:3], [], '%s: otf2-print: same events (with metric values) as python3-otf2'
         % what)
