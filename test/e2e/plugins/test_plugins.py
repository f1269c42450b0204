# SPDX-License-Identifier: BSD-3-Clause
"""e2e "plugins": the counter plugin host (docs/dev/plugin-host.md) with real VampirTrace
plugins, one per synch type x run_per, built from tp_vt.c, dlopen'ed by a traced pthreads
program (prog.c). From the plugins' call log: the exact calling order and counts per
process and per thread. From the trace (python3-otf2, cross-checked with otf2-print): the
metric definitions, and exactly the values the plugins produced on the right locations."""

import collections
import os

import vtmetrics
import vtplugins
import vttest
from vtplugins import Expect

NTHREADS = vtplugins.PROG_THREADS
K = 5  # thread n calls work() (n + 1) * K times (prog.c's argv[1])
REQUEST = ['c*', 'd', 'f']  # what VT_PLUGIN_CNTR_METRICS asks each plugin for
EXPANSION = ['c1', 'c2', 'd', 'f']  # what that stands for (c* = c1, c2)
SYNCHS = ['sync', 'event', 'pm', 'callback']
PERS = ['thread', 'process', 'host', 'once']


def lib(synch, per):
    return 'tp%s%s' % (synch, per)  # no '_': the library name ends at the first one


class Use:
    """One plugin in a run: which library, what it is, what it is asked for."""

    def __init__(self, synch, per, request=REQUEST, expansion=EXPANSION):
        self.synch = synch
        self.per = per
        self.lib = lib(synch, per)
        self.request = request
        self.expansion = expansion


class Variant:
    def __init__(self, label, uses, k=K, env=None, flushes=False):
        self.label = label
        self.uses = uses
        self.k = k
        self.env = env or {}
        self.flushes = flushes  # the run must flush buffers (on-event values at flushes)

    @property
    def metrics(self):
        return ':'.join('%s_%s' % (u.lib, r) for u in self.uses for r in u.request)


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


def other_kinds(mv, ref):
    return collections.Counter(e.kind for e in mv.events.get(ref, [])
                               if e.kind not in ('Metric', 'BufferFlush'))


def check_variant(t, v, run, plain, ref_kinds, log):
    what = v.label
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    locs = vtplugins.prog_locations(t, mv, v.k, what)
    if len(locs) != NTHREADS + 1:
        return
    for n, ref in sorted(locs.items()):
        t.eq(other_kinds(mv, ref), ref_kinds[n],
             '%s: %s: events other than Metric as without plugins'
             % (what, mv.locations[ref].name))
    threads = log.threads(run.pid)
    t.eq(sorted(threads), [-1] + list(range(NTHREADS)), '%s: the program logged its threads'
         % what)
    master = threads.get(-1)
    loc_of_tid = {tid: locs[n] for n, tid in threads.items() if n in locs}
    flushes = {ref: sum(1 for e in mv.events.get(ref, []) if e.kind == 'BufferFlush')
               for ref in locs.values()}
    if v.flushes:
        t.check(sum(flushes.values()) > 0, '%s: the run flushed buffers (%r)' % (what, flushes))
    sync_counters = collections.defaultdict(list)  # location -> [(Counter, class)]
    n_async = 0
    for u in v.uses:
        w = '%s: %s' % (what, u.lib)
        t.eq(log.pids(u.lib), [run.pid], '%s: called in the program\'s process only' % w)
        proc = log.process(u.lib, run.pid)
        owners_want = list(threads.values()) if u.per == 'thread' else [master]
        exp = Expect('vt', u.synch, u.request, u.expansion, owners_want, master)
        owners = vtplugins.check_calls(t, proc, exp, what)
        vtplugins.check_thread_registered(t, proc, set(threads.values()), master, what)
        if u.synch == 'sync':
            classes = {name: vtplugins.check_member(t, mv, vtplugins.vt_member(name),
                                                    'SYNCHRONOUS_STRICT', 'CPU', w)
                       for name in u.expansion}
            for tid, counters in owners.items():
                for c in counters:
                    sync_counters[loc_of_tid.get(tid)].append((c, classes.get(c.name)))
            continue
        classes = {name: vtplugins.check_member(t, mv, vtplugins.vt_member(name),
                                                'ASYNCHRONOUS', 'ABSTRACT', w)
                   for name in u.expansion}
        samples = int(v.env.get('TP_SAMPLES', '4'))
        for tid, counters in owners.items():
            owner = loc_of_tid.get(tid)
            if owner is None:
                continue
            for c in counters:
                n_async += 1
                cw = '%s: %r' % (w, c)
                t.eq(len(c.samples()), samples, '%s: the plugin took %d values' % (cw, samples))
                if u.synch == 'callback':
                    answers = [l.args['ret'] for l in c.internal('@callback')]
                    t.eq(answers, ['0'] * samples, '%s: every callback answered OK' % cw)
                else:
                    delivered = [x for b in c.batches() for x in b]
                    t.eq(delivered, c.samples(), '%s: get_all_values returned every value '
                         'once, in order' % cw)
                if u.synch == 'event':
                    before = [l for l in c.calls('get_all_values')
                              if l.index < c.calls('disable_counter')[0].index]
                    t.eq(len(before), flushes[owner], '%s: get_all_values at each of the '
                         'owner\'s %d buffer flushes' % (cw, flushes[owner]))
                scope = vtplugins.scope_of(mv, u.per, owner)
                vtplugins.check_async_counter(t, mv, c, owner, scope, classes.get(c.name), w,
                                              callback=u.synch == 'callback')
        if u.per == 'host':
            vtplugins.check_host_node(t, mv, locs[-1], vtplugins.host_name(), w)
    for n, ref in sorted(locs.items()):
        counters = sorted(sync_counters.get(ref, []), key=lambda cc: cc[0].add.index)
        if not counters:
            vtplugins.check_no_metrics(t, mv, ref, what)
            continue
        cs = [c for c, _ in counters]
        vtplugins.check_sync_location(t, mv, ref, cs, {c.id: cls for c, cls in counters},
                                      {c.id: vtplugins.sync_answers(c) for c in cs}, what)
    t.eq(len(mv.locs_of_type('METRIC')), n_async,
         '%s: one METRIC location per asynchronous counter instance' % what)


def body(t):
    plugdir = t.newdir('plugins')
    specs = sorted(set((u.lib, tuple(vtplugins.vt_defines(u.synch, u.per)))
                       for v in VARIANTS for u in v.uses))
    vtplugins.build_plugins(t, plugdir, specs, 'tp_vt.c')
    exe, plain_exe = t.parallel(
        lambda inst: t.compile('prog', ['prog.c'], opt='-O0', flags=['-pthread'],
                               instrument=inst), [True, False])
    plains = {}
    refs = {}
    for k in sorted(set(v.k for v in VARIANTS)):
        plains[k] = t.run(plain_exe, args=[str(k)], label='plain-k%d' % k)
        t.eq(plains[k].status, 0, 'uninstrumented, k=%d: exit status 0' % k)
        # The same program traced without plugins: what each thread records besides values.
        ref = t.run(exe, args=[str(k)], label='noplugins-k%d' % k,
                    env={'TP_LOG': os.path.join(t.work, 'noplugins-k%d.log' % k)})
        t.clean_run(ref, 'without plugins, k=%d' % k)
        mv = vtmetrics.read_metrics(t.trace(ref, 'without plugins, k=%d' % k).path)
        refs[k] = {n: other_kinds(mv, r) for n, r in
                   vtplugins.prog_locations(t, mv, k, 'without plugins, k=%d' % k).items()}
    for v in VARIANTS:
        logdir = t.newdir('log-' + v.label)
        log_path = os.path.join(logdir, 'plugins.log')
        env = {'VT_PLUGIN_CNTR_PATH': plugdir, 'VT_PLUGIN_CNTR_METRICS': v.metrics,
               'TP_LOG': log_path}
        env.update(v.env)
        run = t.run(exe, args=[str(v.k)], env=env, label=v.label)
        check_variant(t, v, run, plains[v.k], refs[v.k], vtplugins.read_log(log_path))


vttest.main('plugins', body)
