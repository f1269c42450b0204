# SPDX-License-Identifier: BSD-3-Clause
"""Calling-context samples of a trace, read with python3-otf2 and, for the cross-check, with
otf2-print: per location, each sample's stack (outermost first) with the instrumented regions
open when it was taken."""

import collections
import re

import otf2events
import vttest
from vttest import Failure, otf2_print


class Frame:
    def __init__(self, name, file, line, src_file, src_line):
        self.name = name
        self.file = file  # the function's
        self.line = line
        self.src_file = src_file  # the sampled address's
        self.src_line = src_line

    def __repr__(self):
        return '%s@%s:%s' % (self.name, self.src_file, self.src_line)


class Sample:
    def __init__(self, time, stack, open_regions, distance):
        self.time = time
        self.stack = stack  # [Frame], outermost first
        self.open = open_regions  # region names of the Enter/Leave stack, outermost first
        self.distance = distance

    @property
    def names(self):
        return [f.name for f in self.stack]

    @property
    def leaf(self):
        return self.stack[-1].name if self.stack else None


class Samples:
    def __init__(self):
        self.by_loc = collections.defaultdict(list)  # location name -> [Sample]
        self.by_ref = collections.defaultdict(list)  # location id -> [Sample]
        self.generators = []  # (name, mode, base, exponent, period)
        self.n_contexts = 0
        self.properties = {}


def _frames(cc):
    out = []
    while cc is not None:
        r = cc.region
        scl = cc.source_code_location
        out.append(Frame(r.name, r.source_file, r.begin_line_number,
                         scl.file if scl is not None else None,
                         scl.line_number if scl is not None else None))
        cc = cc.parent
    out.reverse()
    return out


def read(path):
    """Samples of the trace at path, with the open instrumented regions at each."""
    vttest.require_otf2()
    otf2 = vttest.otf2
    out = Samples()
    stacks = collections.defaultdict(list)
    cache = {}
    with otf2.reader.open(path, batch_events=10000) as reader:
        defs = reader.definitions
        out.n_contexts = len(defs.calling_contexts)
        for g in defs.interrupt_generators:
            out.generators.append((g.name, str(g.interrupt_generator_mode).rsplit('.', 1)[-1],
                                   str(g.base).rsplit('.', 1)[-1], g.exponent, g.period))
        for l, ev in otf2events.events(reader):
            kind = type(ev).__name__
            st = stacks[l.name]
            if kind == 'Enter':
                st.append(ev.region.name)
            elif kind == 'Leave':
                if st:
                    st.pop()
            elif kind == 'CallingContextSample':
                key = ev.calling_context._ref
                if key not in cache:
                    cache[key] = _frames(ev.calling_context)
                sample = Sample(ev.time, cache[key], list(st), ev.unwind_distance)
                out.by_loc[l.name].append(sample)
                out.by_ref[l._ref].append(sample)
    return out


PRINT_SAMPLE = re.compile(r'^CALLING_CONTEXT_SAMPLE\s+(\d+)\s+(\d+)\s+Calling Context: "([^"@]*)')
PRINT_CONTEXT = re.compile(r'^CALLING_CONTEXT\s+\d+\s+Region: "([^"]*)"')


def read_with_otf2_print(path):
    """({location id: Counter of leaf region names}, number of CallingContext definitions)
    as otf2-print prints them."""
    rc, out, err = otf2_print([path])
    if rc != 0:
        raise Failure('otf2-print %s exited %d: %s' % (path, rc, err[:300]))
    leaves = collections.defaultdict(collections.Counter)
    for line in out.splitlines():
        m = PRINT_SAMPLE.match(line)
        if m:
            leaves[int(m.group(1))][m.group(3)] += 1
    rc, out, err = otf2_print(['-G', path])
    if rc != 0:
        raise Failure('otf2-print -G %s exited %d: %s' % (path, rc, err[:300]))
    contexts = sum(1 for line in out.splitlines() if PRINT_CONTEXT.match(line))
    return leaves, contexts
