# SPDX-License-Identifier: BSD-3-Clause
"""e2e "plugins_scorep": Score-P metric plugins (written against scorep/SCOREP_MetricPlugins.h
with SCOREP_METRIC_PLUGIN_ENTRY, tp_scorep.c) loaded the Score-P way: SCOREP_METRIC_PLUGINS
names them, SCOREP_METRIC_<NAME>_PLUGIN lists their metrics, LD_LIBRARY_PATH finds them.
One plugin per synchronicity (STRICTLY_SYNC, SYNC, ASYNC_EVENT, ASYNC) and interface version
(0, 1: synchronize), one SYNC plugin with a delta_t, and one run mixing Score-P and
VampirTrace plugins. Checked as in "plugins" (test/lib/vtplugins.py): the calling order from
the plugins' log, and exactly the values, modes, value types, bases, exponents, units and
descriptions they gave, in the trace."""

import vtplugins
import vttest
from vtplugins import Use, Variant

TOKENS = ['a', 'b', 'x*']  # SCOREP_METRIC_<NAME>_PLUGIN
METRICS = ['a', 'b', 'x1', 'x2']  # what they stand for (x* = x1, x2)
# Timer ticks between two values of the delta_t plugin: 2 ms at 1 GHz, less with the TSC;
# prog.c naps 12 ms, so at least two values fit in a run.
DELTA_T = 2000000


def sp(sync, per, version, request=TOKENS, expansion=METRICS, delta_t=0, name=None):
    name = name or 'sp%s%d' % (sync, version)
    return Use('scorep', name, sync, per, request, expansion, version=version, delta_t=delta_t)


VARIANTS = [
    Variant('strict-v1-thread', [sp('strict', 'thread', 1)]),
    Variant('strict-v0-process', [sp('strict', 'process', 0)]),
    Variant('optional-v1-thread', [sp('optional', 'thread', 1)]),
    Variant('optional-v0-process', [sp('optional', 'process', 0)]),
    Variant('optional-delta-v1', [sp('optional', 'process', 1, delta_t=DELTA_T,
                                     name='spdelta1')]),
    Variant('event-v1-thread', [sp('event', 'thread', 1)]),
    Variant('event-v0-process', [sp('event', 'process', 0)]),
    Variant('async-v1-host', [sp('async', 'host', 1)]),
    Variant('async-v0-once', [sp('async', 'once', 0)]),
    # Two Score-P plugins and a VampirTrace one at once, each asked for its own metrics.
    Variant('mixed', [sp('strict', 'process', 0, ['a', 'b'], ['a', 'b']),
                      sp('event', 'thread', 1, ['x*'], ['x1', 'x2']),
                      Use('vt', 'tpcallbackprocess', 'callback', 'process', ['d'], ['d'])]),
]


def body(t):
    plugdir = t.newdir('plugins')
    specs = sorted(set((u.lib, tuple(u.defines())) for v in VARIANTS for u in v.uses
                       if u.iface == 'scorep'))
    vtplugins.build_plugins(t, plugdir, specs, 'tp_scorep.c')
    specs = sorted(set((u.lib, tuple(u.defines())) for v in VARIANTS for u in v.uses
                       if u.iface == 'vt'))
    vtplugins.build_plugins(t, plugdir, specs, vtplugins.prog_source(t, 'tp_vt.c'))
    runs = vtplugins.ProgRuns(t, [v.k for v in VARIANTS])
    for v in VARIANTS:
        run, log = runs.run(v, plugdir)
        runs.check(v, run, log)


vttest.main('plugins_scorep', body)
