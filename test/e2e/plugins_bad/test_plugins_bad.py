# SPDX-License-Identifier: BSD-3-Clause
"""e2e "plugins_bad": counter plugins that are missing, malformed or misbehave. Each is
reported in one line that names it, says what is wrong and that it is skipped (or, for
values out of order or outside the run, what vt did with them); the program's stdout and
exit status are those of the uninstrumented program, the trace is complete, and a good
plugin loaded in the same run records all its values. The plugins are
test/e2e/plugins/tp_vt.c built with fault flags; the program is test/e2e/plugins/prog.c."""

import os
import re

import vtmetrics
import vtplugins
import vttest
from vtplugins import Expect, vt_defines

K = 5
GOOD = 'tpgood'  # synchronous, per process, asked for c1 in every run


class Case:
    """label; the VT_PLUGIN_CNTR_METRICS entries before the good plugin's; the libraries
    to build {name: defines}; regexes of the lines vt must print, each matching exactly one
    line (every error and warning of the run must match one of them); calls: the exact
    calls the bad plugin gets (None: checked by check)."""

    def __init__(self, label, entries, builds, lines, calls=None, check=None):
        # the plugins whose name the lines must hold besides what lines asks (reports about
        # values: a counter's name alone may belong to several plugins)
        self.named_in_reports = sorted(set(e.split('_', 1)[0] for e in entries if '_' in e)) \
            if check and check.__name__ == 'check_report' else []
        self.label = label
        self.entries = entries
        self.builds = builds
        self.lines = lines
        self.calls = calls
        self.check = check

    @property
    def metrics(self):
        return ':'.join(self.entries + ['%s_c1' % GOOD])


def skipped(name, *words):
    """An error line naming counter plugin name, with each of words (regexes) in order,
    ending in 'skipped'."""
    return (r'^error: counter plugin %s: .*%s.*; skipped$'
            % (name, '.*'.join(words) if words else ''))


def check_nothing_offered(name, request):
    """The plugin is initialised and asked, offers nothing, and is never used."""
    def check(t, log, run, mv, what):
        proc = log.process(name, run.pid)
        t.eq([(l.call, l.args.get('name')) for l in proc.calls[:3]],
             [('get_info', None), ('init', None), ('get_event_info', request)],
             '%s: %s: get_info, init, get_event_info(%r)' % (what, name, request))
        used = [l for l in proc.calls if l.call not in ('get_info', 'init', 'get_event_info',
                                                        'finalize', 'is_thread_registered')]
        t.eq(vtplugins.fmt_calls(used), '', '%s: %s: nothing else but finalize' % (what, name))
        t.note('%s: %s: finalize %s' % (what, name, 'called' if proc.named('finalize')
                                        else 'not called'))
    return check


def check_neg(t, log, run, mv, what):
    """add_counter("neg") fails on the master: no call names that id, no metric of it
    has events; c1 of the same plugin is recorded."""
    proc = log.process(GOOD, run.pid)
    adds = [(l.args['name'], l.args['ret']) for l in proc.named('add_counter')]
    t.eq(adds, [('neg', '-1'), ('c1', '100')],
         '%s: add_counter(neg) failed, then add_counter(c1) gave 100' % what)
    bad = [l for l in proc.calls if l.args.get('id') not in (None, '100')]
    t.eq(vtplugins.fmt_calls(bad), '', '%s: no call about another counter id' % what)
    evs = [e for evs in mv.events.values() for e in evs if e.kind == 'Metric'
           and getattr(mv.member_of_metric(e.metric), 'name', None) == 'neg']
    t.eq(len(evs), 0, '%s: no values of neg' % what)


def check_async_report(word, name, counters, dropped):
    """An asynchronous post-mortem plugin whose values are out of order (word 'sort') or
    partly outside the run ('drop'): the trace holds the values the contract keeps (each
    batch sorted, the values outside the run dropped), exactly."""
    def check_report(t, log, run, mv, what):
        proc = log.process(name, run.pid)
        locs = vtplugins.prog_locations(t, mv, K, what)
        master = log.threads(run.pid).get(-1)
        vtplugins.check_calls(t, proc, Expect('vt', 'pm', counters, counters, [master], master),
                              what)
        for c in proc.counters:
            want, nsorted, ndropped = vtplugins.expected_async(c)
            t.eq((len(want), ndropped), (4, dropped),
                 '%s: %r: the plugin gave 4 values inside the run, %d outside'
                 % (what, c, dropped))
            if word == 'sort':
                t.eq(nsorted, 1, '%s: %r: its one batch was out of order' % (what, c))
            cls = mv.class_of(c.name).ref
            vtplugins.check_async_counter(t, mv, c, locs[-1],
                                          vtplugins.scope_of(mv, 'process', locs[-1]), cls,
                                          what)
    return check_report


def check_init_fails(t, log, run, mv, what):
    calls = [l.call for l in log.process('tpinitfail', run.pid).calls]
    t.eq(calls[:2], ['get_info', 'init'], '%s: get_info, then init' % what)
    t.eq([c for c in calls if c not in ('get_info', 'init', 'finalize')], [],
         '%s: nothing asked of the plugin after init failed' % what)


def check_static(t, log, run, mv, what):
    """Every call as for a well-behaved plugin, and its values in the trace, exactly."""
    proc = log.process('tpstatic', run.pid)
    locs = vtplugins.prog_locations(t, mv, K, what)
    master = log.threads(run.pid).get(-1)
    vtplugins.check_calls(t, proc, Expect('vt', 'pm', ['c2'], ['c2'], [master], master), what)
    for c in proc.counters:
        vtplugins.check_async_counter(t, mv, c, locs[-1],
                                      vtplugins.scope_of(mv, 'process', locs[-1]),
                                      mv.class_of(c.name).ref, what)


def report(counter, *words):
    """A line about counter (on the master thread) with each of words, in any order."""
    return r'^(error|warning): (?=.*\b%s@Master thread\b)%s' % (
        counter, ''.join('(?=.*%s)' % w for w in words))


# "2 values dropped", or "1 before the start and 1 after the end ...; dropped"
DROPPED_2 = r'(\b2\b|\b1\b.*\bbefore\b.*\b1\b.*\bafter\b)'

CASES = [
    Case('missing-library', ['tpnosuchlib_c1'], {},
         [skipped('tpnosuchlib', r'libtpnosuchlib\.so')], calls=[]),
    Case('no-get-info', ['tpnoinfo_c1'],
         {'tpnoinfo': vt_defines('sync', 'process', 'TP_NO_GET_INFO')},
         [skipped('tpnoinfo', r'get_info')], calls=[]),
    Case('future-version', ['tpv3_c1'],
         {'tpv3': vt_defines('sync', 'process', 'TP_VERSION=3')},
         [skipped('tpv3', r'version', r'\b3\b')], calls=['get_info']),
    Case('event-info-null', ['tpnull_nothing'],
         {'tpnull': vt_defines('sync', 'process')},
         [skipped('tpnull', r'nothing')], check=check_nothing_offered('tpnull', 'nothing')),
    Case('event-info-empty', ['tpempty_empty'],
         {'tpempty': vt_defines('sync', 'process')},
         [skipped('tpempty', r'empty')], check=check_nothing_offered('tpempty', 'empty')),
    # One name offers nothing, another of the same plugin works.
    Case('event-info-null-partly', ['%s_nothing' % GOOD], {},
         [skipped(GOOD, r'nothing')]),
    Case('add-counter-negative', ['%s_neg' % GOOD], {},
         [r'^error: counter plugin %s: (?=.*\bneg\b)(?=.*add_counter).*skipped' % GOOD],
         check=check_neg),
    Case('sync-without-get-current-value', ['tpnocurrent_c1'],
         {'tpnocurrent': vt_defines('sync', 'process', 'TP_OMIT_CURRENT_VALUE')},
         [skipped('tpnocurrent', r'get_current_value')], calls=['get_info']),
    Case('event-without-get-all-values', ['tpnoallvalues_c1'],
         {'tpnoallvalues': vt_defines('event', 'process', 'TP_OMIT_ALL_VALUES')},
         [skipped('tpnoallvalues', r'get_all_values')], calls=['get_info']),
    Case('post-mortem-without-wtime', ['tpnowtime_c1'],
         {'tpnowtime': vt_defines('pm', 'process', 'TP_OMIT_WTIME')},
         [skipped('tpnowtime', r'set_pform_wtime_function')], calls=['get_info']),
    Case('callback-without-set-callback', ['tpnocallback_c1'],
         {'tpnocallback': vt_defines('callback', 'process', 'TP_OMIT_CALLBACK')},
         [skipped('tpnocallback', r'set_callback_function')], calls=['get_info']),
    # (d and f: c1 is the good plugin's; names of metrics must not clash here)
    Case('values-out-of-order', ['tpdisorder_d', 'tpdisorder_f'],
         {'tpdisorder': vt_defines('pm', 'process', 'TP_DISORDER')},
         [report('d', r'\b4\b', r'sort'), report('f', r'\b4\b', r'sort')],
         check=check_async_report('sort', 'tpdisorder', ['d', 'f'], 0)),
    Case('values-outside-the-run', ['tpoutside_d', 'tpoutside_f'],
         {'tpoutside': vt_defines('pm', 'process', 'TP_OUTSIDE')},
         [report('d', DROPPED_2, r'drop'), report('f', DROPPED_2, r'drop')],
         check=check_async_report('drop', 'tpoutside', ['d', 'f'], 2)),
    Case('malformed-entry', ['nounderscore'], {},
         [r'^error: VT_PLUGIN_CNTR_METRICS.*\bnounderscore\b.*skipped'], calls=[]),
    # Static strings where the interfaces ask for malloc'd ones: vt keeps copies, frees
    # none of the plugin's, and records the counter (no message: nothing is wrong for vt).
    Case('static-strings', ['tpstatic_c2'],
         {'tpstatic': vt_defines('pm', 'process', 'TP_STATIC_NAMES')}, [],
         check=check_static),
    Case('init-fails', ['tpinitfail_c1'],
         {'tpinitfail': vt_defines('sync', 'process', 'TP_INIT_RC=-5')},
         [skipped('tpinitfail', r'\binit\b', r'-5')], check=check_init_fails),
]


def check_case(t, case, run, plain, log):
    what = case.label
    t.same_as_plain(run, plain, what)
    t.vt_pids(run, what)
    problems = run.errors + run.warnings
    for rx in case.lines:
        found = vtplugins.vt_lines(run, rx)
        t.check(len(found) == 1, '%s: one line matches %r' % (what, rx),
                'found %d in %r' % (len(found), problems))
    for name in case.named_in_reports:
        lines = [m for rx in case.lines for m in vtplugins.vt_lines(run, rx)]
        t.eq([m for m in lines if not re.search(r'\b%s\b' % name, m)], [],
             '%s: the lines name the plugin %s' % (what, name))
    extra = [m for m in problems if not any(re.search(rx, m) for rx in case.lines)]
    t.eq(extra, [], '%s: no other errors or warnings' % what)
    tr = t.trace(run, what)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    locs = vtplugins.prog_locations(t, mv, K, what)
    threads = log.threads(run.pid)
    master = threads.get(-1)
    # The good plugin: c1 at every Enter and Leave of the master thread, as read.
    good = log.process(GOOD, run.pid)
    requested = [e.split('_', 1)[1] for e in case.entries if e.startswith(GOOD + '_')] + ['c1']
    if case.check is not check_neg:
        vtplugins.check_calls(t, good, Expect('vt', 'sync', requested, ['c1'], [master], master),
                              what)
    c1 = [c for c in good.counters if c.name == 'c1']
    if t.check(len(c1) == 1 and -1 in locs, '%s: the good plugin added c1 on the master' % what):
        cls = vtplugins.check_member(t, mv, vtplugins.vt_member('c1'), 'SYNCHRONOUS_STRICT',
                                     'CPU', '%s: %s' % (what, GOOD))
        vtplugins.check_sync_location(t, mv, locs[-1], c1, {c1[0]: cls},
                                      {c1[0]: vtplugins.sync_answers(c1[0])}, what)
    for n, ref in locs.items():
        if n != -1:
            vtplugins.check_no_metrics(t, mv, ref, what)
    bad_libs = [e.split('_', 1)[0] for e in case.entries if '_' in e and
                not e.startswith(GOOD + '_')]
    if case.calls is not None:
        for lib in bad_libs:
            t.eq([l.call for l in log.process(lib, run.pid).calls], case.calls,
                 '%s: %s gets exactly %r' % (what, lib, case.calls))
    if case.check:
        case.check(t, log, run, mv, what)


def body(t):
    plugdir = t.newdir('plugins')
    src = vtplugins.prog_source(t, 'tp_vt.c')
    specs = [(GOOD, vt_defines('sync', 'process'))]
    specs += sorted((name, d) for c in CASES for name, d in c.builds.items())
    vtplugins.build_plugins(t, plugdir, specs, src)
    exe, plain_exe = t.parallel(
        lambda inst: t.compile('prog', [vtplugins.prog_source(t)], opt='-O0',
                               flags=['-pthread'], instrument=inst), [True, False])
    plain = t.run(plain_exe, args=[str(K)], label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    for case in CASES:
        log_path = os.path.join(t.newdir('log-' + case.label), 'plugins.log')
        env = {'VT_PLUGIN_CNTR_PATH': plugdir, 'VT_PLUGIN_CNTR_METRICS': case.metrics,
               'TP_LOG': log_path}
        run = t.run(exe, args=[str(K)], env=env, label=case.label)
        check_case(t, case, run, plain, vtplugins.read_log(log_path))


vttest.main('plugins_bad', body)
