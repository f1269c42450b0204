# SPDX-License-Identifier: BSD-3-Clause
"""e2e "plugins": the counter plugin host (docs/dev/plugin-host.md) with real VampirTrace
plugins, one per synch type x run_per, built from tp_vt.c, dlopen'ed by a traced pthreads
program (prog.c). From the plugins' call log: the exact calling order and counts per
process and per thread. From the trace (python3-otf2, cross-checked with otf2-print): the
metric definitions, and exactly the values the plugins produced on the right locations.
The checks live in test/lib/vtplugins.py (ProgRuns.check), shared with plugins_scorep."""

import vtplugins
import vttest
from vtplugins import Variant

REQUEST = ['c*', 'd', 'f']  # what VT_PLUGIN_CNTR_METRICS asks each plugin for
EXPANSION = ['c1', 'c2', 'd', 'f']  # what that stands for (c* = c1, c2)
SYNCHS = ['sync', 'event', 'pm', 'callback']
PERS = ['thread', 'process', 'host', 'once']


def Use(synch, per, request=REQUEST, expansion=EXPANSION):
    # no '_' in the library's name: VT_PLUGIN_CNTR_METRICS's entries end it at the first
    return vtplugins.Use('vt', 'tp%s%s' % (synch, per), synch, per, request, expansion)


VARIANTS = [Variant('%s-%s' % (s, p), [Use(s, p)]) for s in SYNCHS for p in PERS] + [
    # on-event values collected at each flush of the owner: small buffers, many events
    Variant('event-thread-flushes', [Use('event', 'thread')], k=150,
            env={'VT_BUFFER_SIZE': '4k'}, flushes=True),
    # callback buffers of 4 values, 10 values per counter: the plugin's thread writes
    Variant('callback-thread-small', [Use('callback', 'thread')],
            env={'VT_PLUGIN_CNTR_CALLBACK_BUFFER': '64', 'TP_SAMPLES': '10'}),
    # three plugins at once, each with part of the counters
    Variant('three-plugins', [Use('sync', 'thread', ['c1'], ['c1']),
                              Use('pm', 'process', ['c2', 'd'], ['c2', 'd']),
                              Use('callback', 'thread', ['f'], ['f'])]),
]


def body(t):
    plugdir = t.newdir('plugins')
    specs = sorted(set((u.lib, tuple(u.defines())) for v in VARIANTS for u in v.uses))
    vtplugins.build_plugins(t, plugdir, specs, 'tp_vt.c')
    runs = vtplugins.ProgRuns(t, [v.k for v in VARIANTS])
    for v in VARIANTS:
        run, log = runs.run(v, plugdir)
        runs.check(v, run, log)


vttest.main('plugins', body)
