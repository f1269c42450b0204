# SPDX-License-Identifier: BSD-3-Clause
"""e2e "plugin_samples": the sample counter plugins (samples/plugins) loaded by vt into a
program built with the build tree's vtcc, their values read back from the trace.

For each sample: the metric definitions (names, units, modes, value types, occurrence,
recorder kind), where the values are (after every Enter and Leave of each thread for the
synchronous ones; on a METRIC location per counter with the right scope for the others),
and values that must hold for what samples.c does: page faults of touch(), context switches
of naps(), CPU time of spin(), loopback bytes of net(); the samplers' periods and counts,
and their counts equal to what the plugins themselves say they delivered. Missing sources
and unknown names end in the plugin's message and a skipped counter, the run going on.
"""

import collections
import os
import re
import shutil

import vtmetrics
import vttest

PLUGINS = os.path.join(vttest.BUILD_ROOT, 'samples', 'plugins')

# From samples.c.
TOUCH_PAGES = 1024
NAPS = 10
SPIN_MS = 30
NET_BYTES = 64 * 4000
LEAVES = 20
# (VT_PTHREAD, on by default: main's pthread_create and pthread_join calls are regions.)
MASTER = {'main': 1, 'touch': 1, 'naps': 1, 'nap': NAPS, 'spin': 1, 'net': 1, 'burst': 1,
          'idle': 1, 'pthread_create': 1, 'pthread_join': 1}
WORKER = {'worker': 1, 'leaf': LEAVES}
BURST = 100000  # leaf() calls that fill a 64k buffer many times over

PERIOD_MS = 20

# name: (unit, mode, value type), as the plugins define them and the contract maps them.
RANDOM = {'counter': ('#', 'ABSOLUTE_POINT', 'UINT64')}
PERFSW = {'page-faults': ('#', 'ACCUMULATED_START', 'UINT64'),
          'context-switches': ('#', 'ACCUMULATED_START', 'UINT64'),
          'task-clock': ('ns', 'ACCUMULATED_START', 'UINT64')}
SYSMON = {'cpu_busy': ('%', 'ABSOLUTE_LAST', 'DOUBLE'),
          'context_switches': ('#', 'ACCUMULATED_START', 'UINT64'),
          'mem_available': ('B', 'ABSOLUTE_POINT', 'UINT64'),
          'process_rss': ('B', 'ABSOLUTE_POINT', 'UINT64'),
          'process_cpu_time': ('ns', 'ACCUMULATED_START', 'UINT64')}
HOSTLOAD_FIXED = {'load1': ('tasks', 'ABSOLUTE_POINT', 'DOUBLE'),
                  'load5': ('tasks', 'ABSOLUTE_POINT', 'DOUBLE'),
                  'load15': ('tasks', 'ABSOLUTE_POINT', 'DOUBLE'),
                  'runnable': ('tasks', 'ABSOLUTE_POINT', 'UINT64'),
                  'net_rx_bytes': ('B', 'ACCUMULATED_START', 'UINT64'),
                  'net_tx_bytes': ('B', 'ACCUMULATED_START', 'UINT64')}
FSUSAGE = {'fs_size': ('B', 'ABSOLUTE_POINT', 'UINT64'),
           'fs_used': ('B', 'ABSOLUTE_POINT', 'UINT64'),
           'fs_available': ('B', 'ABSOLUTE_POINT', 'UINT64'),
           'fs_free_inodes': ('#', 'ABSOLUTE_POINT', 'UINT64')}

FALLBACK = re.compile(r'^perfsw plugin: perf_event_open is not allowed here \((.*?): '
                      r'kernel\.perf_event_paranoid is (-?\d+)(.*)\); counting page-faults and '
                      r'context-switches with getrusage\(RUSAGE_THREAD\) and task-clock with '
                      r'the thread\'s CPU clock instead$')


# ---------------------------------------------------------------------------------------
# What this host offers the /proc and /sys samplers


def sysmon_expected():
    """SYSMON plus the cpufreq and RAPL counters this machine can read."""
    want = dict(SYSMON)
    for i in range(os.cpu_count() or 1):
        p = '/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq' % i
        if os.access(p, os.R_OK):
            want['cpu%d_freq' % i] = ('Hz', 'ABSOLUTE_POINT', 'UINT64')
    base = '/sys/class/powercap'
    for z in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        if not z.startswith('intel-rapl:'):
            continue
        try:
            with open(os.path.join(base, z, 'name')) as f:
                name = f.read().strip()
            with open(os.path.join(base, z, 'energy_uj')) as f:
                f.read()
            with open(os.path.join(base, z, 'max_energy_range_uj')) as f:
                if not int(f.read()):
                    continue
        except (OSError, ValueError):
            continue
        key = 'energy_' + (name if name.startswith('package') else '%s-%s' % (name, z[11:]))
        want[key] = ('J', 'ACCUMULATED_START', 'DOUBLE')
    return want


def hostload_expected():
    want = dict(HOSTLOAD_FIXED)
    with open('/proc/net/dev') as f:
        for line in f.read().splitlines()[2:]:
            iface = line.split(':', 1)[0].strip()
            for d in ('rx', 'tx'):
                want['net_%s_%s_bytes' % (iface, d)] = ('B', 'ACCUMULATED_START', 'UINT64')
    return want


# ---------------------------------------------------------------------------------------
# Running


class Ctx:
    def __init__(self, t, exe, plain):
        self.t, self.exe, self.plain = t, exe, plain


def run(c, what, metrics, env=None, allow=(), plugin_lines=None, label='run'):
    """Runs the program with the counters of VT_PLUGIN_CNTR_METRICS=metrics; checks the
    run and its trace as every trace is checked; returns (run, trace, MetricView).

    plugin_lines: the plugin's own stderr lines, exactly (None: not checked here)."""
    t = c.t
    full = {'VT_PLUGIN_CNTR_PATH': PLUGINS, 'VT_PLUGIN_CNTR_METRICS': metrics}
    full.update(env or {})
    r = t.run(c.exe, env=full, label=label)
    t.eq(r.stdout, c.plain.stdout, '%s: stdout as uninstrumented' % what)
    t.eq(r.status, 0, '%s: exit status 0' % what)
    if plugin_lines is not None:
        t.eq(r.program_stderr, plugin_lines, '%s: the plugin\'s messages' % what)
    t.clean_run(r, what, allow=allow)
    tr = t.trace(r, what)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    return r, tr, mv


def cpu_locs(mv):
    return {l.name: l.ref for l in mv.locations.values() if l.type == 'CPU_THREAD'}


def check_program(t, tr, what, burst=False):
    """The program's regions, exactly, on its two threads."""
    master = dict(MASTER)
    if burst:
        master['leaf'] = BURST
    t.eq(sorted(l.name for l in tr.locations if not l.name.count('@')),
         ['Master thread', 'Thread 1'], '%s: two thread locations' % what)
    t.enter_counts(tr.loc('Master thread'), master, what)
    t.enter_counts(tr.loc('Thread 1'), WORKER, what)


def check_members(t, mv, want, occurrence, recorder_kind, what):
    """Exactly the metrics of want, each with its unit, mode and value type, one class of
    that one member each, with the occurrence and recorder kind the contract gives."""
    t.eq(sorted(m.name for m in mv.members.values()), sorted(want),
         '%s: metric members %s' % (what, ', '.join(sorted(want))))
    for name, (unit, mode, vtype) in sorted(want.items()):
        found = mv.members_named(name)
        if len(found) != 1:
            continue
        m = found[0]
        t.eq((m.unit, m.mode, m.value_type, m.base, m.exponent, m.metric_type, m.description),
             (unit, mode, vtype, 'DECIMAL', 0, 'OTHER', ''),
             '%s: %s: unit, mode, value type, base, exponent, type, description' % (what, name))
        classes = mv.classes_of(name)
        t.eq([(len(k.members), k.occurrence, k.recorder_kind) for k in classes],
             [(1, occurrence, recorder_kind)],
             '%s: %s: one class of it, %s, recorder %s' % (what, name, occurrence,
                                                           recorder_kind))


def check_sync(t, mv, names, what):
    """On each thread location: every Enter and Leave followed by one value of each counter
    of names, in that order, at its timestamp; no other Metric event. Returns {location
    name: {counter: [(kind, region, value)]}}."""
    classes = [mv.class_of(n).ref for n in names]
    t.eq(mv.instances, {}, '%s: synchronous counters have no instances' % what)
    t.eq(mv.locs_of_type('METRIC'), [], '%s: and no METRIC locations' % what)
    out = {}
    for lname, ref in sorted(cpu_locs(mv).items()):
        evs = mv.events[ref]
        vals = {n: [] for n in names}
        bad = []
        i = 0
        while i < len(evs):
            e = evs[i]
            if e.kind == 'Metric':
                bad.append('%d: a value not after an Enter or Leave' % i)
                i += 1
                continue
            if e.kind not in ('Enter', 'Leave'):
                i += 1
                continue
            follow = evs[i + 1:i + 1 + len(names)]
            if ([f.kind for f in follow] != ['Metric'] * len(names)
                    or [f.metric for f in follow] != classes
                    or any(f.time != e.time for f in follow)
                    or any(len(f.values) != 1 for f in follow)):
                bad.append('%d: %s %s followed by %r' % (i, e.kind, e.region, follow))
                i += 1
                continue
            for n, f in zip(names, follow):
                vals[n].append((e.kind, e.region, f.values[0]))
            i += 1 + len(names)
        t.eq(bad[:3], [], '%s: %s: every Enter and Leave is followed by one value of %s, '
             'at its time, and there is no other value' % (what, lname, ', '.join(names)))
        n_el = sum(1 for e in evs if e.kind in ('Enter', 'Leave'))
        t.eq([len(vals[n]) for n in names], [n_el] * len(names),
             '%s: %s: %d values of each counter' % (what, lname, n_el))
        out[lname] = vals
    return out


def region_delta(vals, region):
    """Value at the Leave of region minus the value at its Enter (one call)."""
    enter = [v for k, r, v in vals if k == 'Enter' and r == region]
    leave = [v for k, r, v in vals if k == 'Leave' and r == region]
    if len(enter) != 1 or len(leave) != 1:
        return None
    return leave[0] - enter[0]


def non_decreasing(vals):
    return all(b >= a for a, b in zip(vals, vals[1:]))


# ---------------------------------------------------------------------------------------
# Synchronous samples


def check_random(t, lv, what):
    for lname, vals in sorted(lv.items()):
        v = [x for _, _, x in vals['counter']]
        t.check(v and all(0 <= x < 2 ** 31 for x in v),
                '%s: %s: random values in [0, 2^31)' % (what, lname), repr(v[:5]))
        # Of 2^31 values, a repeat among a few dozen draws is a one-in-millions event.
        t.check(len(set(v)) >= len(v) - 1, '%s: %s: %d values, all but at most one distinct'
                % (what, lname, len(v)), '%d distinct' % len(set(v)))
    a = [x for _, _, x in lv['Master thread']['counter']]
    b = [x for _, _, x in lv['Thread 1']['counter']]
    t.check(a[:len(b)] != b, '%s: the two threads draw different sequences' % what)


def check_perfsw(t, lv, what):
    for lname, vals in sorted(lv.items()):
        for n in PERFSW:
            t.check(non_decreasing([x for _, _, x in vals[n]]),
                    '%s: %s: %s never decreases' % (what, lname, n))
    m = lv['Master thread']
    d = region_delta(m['page-faults'], 'touch')
    # One fault per fresh page (no huge pages there); a few more from the calls around it.
    t.check(d is not None and TOUCH_PAGES <= d <= TOUCH_PAGES + 64,
            '%s: page-faults in touch(): %d to %d' % (what, TOUCH_PAGES, TOUCH_PAGES + 64),
            'got %r' % d)
    d = region_delta(m['context-switches'], 'naps')
    t.check(d is not None and d >= NAPS, '%s: context-switches in naps(): at least %d'
            % (what, NAPS), 'got %r' % d)
    d = region_delta(m['task-clock'], 'spin')
    # spin() runs until its thread's CPU clock advanced SPIN_MS; task-clock counts the same
    # time (perf's to the ns, the fallback from that very clock); 1% for perf's bookkeeping.
    t.check(d is not None and d >= SPIN_MS * 1e6 * 0.99,
            '%s: task-clock in spin(): at least %d ms' % (what, SPIN_MS), 'got %r ns' % d)
    d = region_delta(m['task-clock'], 'naps')
    t.check(d is not None and d < NAPS * 2e6, '%s: task-clock in naps() below the time '
            'asleep (%d ms)' % (what, NAPS * 2), 'got %r ns' % d)


def perfsw_lines(r):
    """The perfsw lines of a run's own stderr."""
    return [l for l in r.program_stderr if l.startswith('perfsw plugin:')]


def paranoid():
    try:
        with open('/proc/sys/kernel/perf_event_paranoid') as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def sync_cases(c):
    t = c.t
    what = 'random'
    r, tr, mv = run(c, what, 'random_counter', plugin_lines=[])
    check_program(t, tr, what)
    check_members(t, mv, RANDOM, 'SYNCHRONOUS_STRICT', 'CPU', what)
    check_random(t, check_sync(t, mv, ['counter'], what), what)

    # Two plugins at once: random's counter first, then perfsw's in its table's order.
    what = 'random + perfsw'
    r, tr, mv = run(c, what, 'random_counter:perfsw_*')
    lines = perfsw_lines(r)
    t.check(lines == [] or (len(lines) == 1 and FALLBACK.match(lines[0])),
            '%s: perfsw says nothing, or once why it falls back' % what, repr(lines))
    t.note('%s: perfsw counted with %s' % (what, 'getrusage' if lines else 'perf_event_open'))
    check_program(t, tr, what)
    want = dict(RANDOM)
    want.update(PERFSW)
    check_members(t, mv, want, 'SYNCHRONOUS_STRICT', 'CPU', what)
    lv = check_sync(t, mv, ['counter', 'page-faults', 'context-switches', 'task-clock'], what)
    check_random(t, lv, what)
    check_perfsw(t, lv, what)

    what = 'perfsw, PERFSW_BACKEND=rusage'
    r, tr, mv = run(c, what, 'perfsw_*', env={'PERFSW_BACKEND': 'rusage'}, plugin_lines=[
        'perfsw plugin: PERFSW_BACKEND=rusage: counting with getrusage(RUSAGE_THREAD) and '
        'the thread\'s CPU clock'])
    check_program(t, tr, what)
    check_members(t, mv, PERFSW, 'SYNCHRONOUS_STRICT', 'CPU', what)
    check_perfsw(t, check_sync(t, mv, list(PERFSW), what), what)

    # Where perf_event_open is really refused: an unprivileged user under
    # perf_event_paranoid >= 2 may not count kernel events, which these are.
    level = paranoid()
    setpriv = shutil.which('setpriv')
    if os.geteuid() != 0 or level is None or level < 2 or not setpriv:
        t.note('not checked: perfsw refused perf_event_open (needs root to switch to an '
               'unprivileged user, setpriv, and perf_event_paranoid >= 2; have euid %d, '
               'paranoid %r)' % (os.geteuid(), level))
        return
    what = 'perfsw as an unprivileged user'
    gdir = c.t.newdir('nobody')
    os.chmod(gdir, 0o777)
    env = {'VT_PLUGIN_CNTR_PATH': PLUGINS, 'VT_PLUGIN_CNTR_METRICS': 'perfsw_*',
           'VT_FILE_PREFIX': 'samples.vt'}
    r = t.run(setpriv, ['--reuid=65534', '--regid=65534', '--clear-groups', c.exe], env=env,
              gdir=gdir, label='nobody')
    t.eq((r.stdout, r.status), (c.plain.stdout, 0), '%s: output and status' % what)
    lines = perfsw_lines(r)
    m = FALLBACK.match(lines[0]) if len(lines) == 1 else None
    t.check(m and m.group(1) == os.strerror(13) and int(m.group(2)) == level,
            '%s: one message: perf_event_open refused (Permission denied), '
            'kernel.perf_event_paranoid is %d, counting with getrusage instead' % (what, level),
            repr(r.program_stderr))
    t.clean_run(r, what)
    tr = t.trace(r, what)
    mv = vtmetrics.read_metrics(tr.path)
    check_program(t, tr, what)
    check_members(t, mv, PERFSW, 'SYNCHRONOUS_STRICT', 'CPU', what)
    check_perfsw(t, check_sync(t, mv, list(PERFSW), what), what)


# ---------------------------------------------------------------------------------------
# Asynchronous samples


def check_instances(t, mv, names, scope, what):
    """One MetricInstance per counter, recorded by a METRIC location NAME@Master thread in
    the process's location group, with the scope the plugin's run_per gives. Returns
    {name: METRIC location ref}."""
    master = mv.loc('Master thread')
    group = mv.groups[master.group]
    want_scope = {'process': ('LOCATION_GROUP', group.ref),
                  'host': ('SYSTEM_TREE_NODE', group.node),
                  'once': ('SYSTEM_TREE_NODE', [n.ref for n in mv.root_nodes()][0]
                           if len(mv.root_nodes()) == 1 else None)}[scope]
    out = {}
    for name in sorted(names):
        inst = mv.instances_of(name)
        if not t.eq(len(inst), 1, '%s: %s: one instance' % (what, name)):
            continue
        i = inst[0]
        rec = mv.locations.get(i.recorder)
        t.eq((rec.name, rec.type, rec.group) if rec else None,
             ('%s@Master thread' % name, 'METRIC', master.group),
             '%s: %s: recorded by METRIC location "%s@Master thread" in the process\'s '
             'group' % (what, name, name))
        t.eq((i.scope_type, i.scope), want_scope, '%s: %s: scope %s %r'
             % (what, name, want_scope[0], want_scope[1]))
        out[name] = i.recorder
    return out


def async_values(t, mv, recorders, what):
    """{name: [(time, value)]}: each METRIC location holds Metric events of its instance
    only."""
    out = {}
    for name, ref in sorted(recorders.items()):
        evs = mv.events.get(ref, [])
        inst = mv.instances_of(name)[0].ref
        t.eq(sorted(set((e.kind, e.metric) for e in evs)), [('Metric', inst)] if evs else [],
             '%s: %s: its location holds values of its instance only' % (what, name))
        out[name] = [(e.time, e.values[0]) for e in evs if e.kind == 'Metric']
    return out


def check_period(t, mv, vals, what, span=None):
    """At least PERIOD_MS between values, as many as that allows in their span, and 2 at
    least. 1% for the difference between vt's clock and the plugin's CLOCK_MONOTONIC."""
    ticks = mv.clock[0] * PERIOD_MS / 1000.0
    for name, v in sorted(vals.items()):
        times = [x for x, _ in v]
        gaps = [b - a for a, b in zip(times, times[1:])]
        t.check(gaps and min(gaps) >= 0.99 * ticks, '%s: %s: values at least %d ms apart'
                % (what, name, PERIOD_MS),
                'smallest gap %.3f ms' % (min(gaps) * 1000.0 / mv.clock[0]) if gaps else 'none')
        length = (times[-1] - times[0]) if times else 0
        most = int(length / (0.99 * ticks)) + 1
        t.check(2 <= len(v) <= most, '%s: %s: %d values over %.0f ms: between 2 and %d'
                % (what, name, len(v), length * 1000.0 / mv.clock[0], most))


VERBOSE_SYSMON = re.compile(r'^(sysmon|sysmonpm) plugin: (\S+): (\d+) values taken, fetched '
                            r'in (\d+) calls of get_all_values$')
VERBOSE_HOSTLOAD = re.compile(r'^hostload plugin: (\S+): (\d+) values sent, (\d+) refused as '
                              r'BUFFER_FULL, (\d+) dropped, (never turned off|turned off by '
                              r'TRACE_OFF_PERMANENT)$')


def parse_verbose(r, rx):
    out = {}
    for line in r.program_stderr:
        m = rx.match(line)
        if m:
            out[m.group(2) if rx is VERBOSE_SYSMON else m.group(1)] = m.groups()
    return out


def sysmon_note_lines(plugin, want):
    """What sysmon says about a '*' that finds no cpufreq or RAPL counters."""
    lines = []
    if not any(n.endswith('_freq') for n in want):
        lines.append('%s plugin: no cpuN_freq counters: no cpufreq driver here' % plugin)
    if not any(n.startswith('energy_') for n in want):
        lines.append('%s plugin: no energy_ZONE counters: no readable RAPL zone in '
                     '/sys/class/powercap' % plugin)
    return lines


def check_sysmon_values(t, vals, what):
    with open('/proc/meminfo') as f:
        total = int(re.search(r'MemTotal:\s+(\d+) kB', f.read()).group(1)) * 1024
    tick_ns = 10 ** 9 // os.sysconf('SC_CLK_TCK')
    checks = {
        'cpu_busy': (lambda v: all(0.0 <= x <= 100.0 for x in v), 'in [0, 100] %'),
        'mem_available': (lambda v: all(0 < x <= total for x in v), 'in (0, MemTotal]'),
        'process_rss': (lambda v: all(0 < x < 1 << 30 for x in v), 'in (0, 1 GiB)'),
        'process_cpu_time': (lambda v: non_decreasing(v) and all(x % tick_ns == 0 for x in v)
                             and v[-1] >= 10 ** 7,
                             'non-decreasing, whole clock ticks, 10 ms at least at the end '
                             '(spin() alone takes %d ms)' % SPIN_MS),
        'context_switches': (lambda v: non_decreasing(v) and v[-1] >= NAPS,
                             'non-decreasing, %d at least at the end (naps())' % NAPS),
    }
    for name, (ok, text) in sorted(checks.items()):
        v = [x for _, x in vals.get(name, [])]
        t.check(v and ok(v), '%s: %s: %s' % (what, name, text), repr(v[:4] + ['...'] + v[-2:]))


def sysmon_cases(c):
    t = c.t
    want = sysmon_expected()
    env = {'SYSMON_INTERVAL_MS': str(PERIOD_MS), 'SYSMON_VERBOSE': '1'}
    for plugin in ('sysmon', 'sysmonpm'):
        what = plugin
        r, tr, mv = run(c, what, plugin + '_*', env=env)
        check_program(t, tr, what)
        check_members(t, mv, want, 'ASYNCHRONOUS', 'ABSTRACT', what)
        recs = check_instances(t, mv, want, 'process', what)
        vals = async_values(t, mv, recs, what)
        check_period(t, mv, vals, what)
        check_sysmon_values(t, vals, what)
        told = parse_verbose(r, VERBOSE_SYSMON)
        t.eq({n: int(g[2]) for n, g in told.items()}, {n: len(v) for n, v in vals.items()},
             '%s: the trace holds every value the plugin took, per counter' % what)
        flushes = len(tr.loc('Master thread').flushes)
        t.eq({n: int(g[3]) for n, g in told.items()}, {n: 1 for n in want},
             '%s: with no buffer flush (%d), vt fetched each counter once, at the end'
             % (what, flushes))
        t.eq([l for l in r.program_stderr if not VERBOSE_SYSMON.match(l)],
             sysmon_note_lines(plugin, want), '%s: the plugin\'s other messages' % what)

    # Buffer flushes: the on-event build is asked at each, the post-mortem one never.
    for plugin in ('sysmon', 'sysmonpm'):
        what = '%s, small buffer' % plugin
        r, tr, mv = run(c, what, plugin + '_process_*',
                        env=dict(env, BURST=str(BURST), VT_BUFFER_SIZE='64k'))
        check_program(t, tr, what, burst=True)
        names = {'process_rss', 'process_cpu_time'}
        recs = check_instances(t, mv, names, 'process', what)
        vals = async_values(t, mv, recs, what)
        told = parse_verbose(r, VERBOSE_SYSMON)
        t.eq({n: int(g[2]) for n, g in told.items()}, {n: len(v) for n, v in vals.items()},
             '%s: the trace holds every value the plugin took, per counter' % what)
        flushes = len(tr.loc('Master thread').flushes)
        t.check(flushes >= 10, '%s: the master thread flushed its buffer (%d times)'
                % (what, flushes))
        calls = {n: int(g[3]) for n, g in told.items()}
        if plugin == 'sysmonpm':
            t.eq(calls, {n: 1 for n in names}, '%s: post-mortem: fetched once, at the end'
                 % what)
        else:
            # Each flush of vt's leaves a BufferFlush event; OTF2 may add its own.
            t.check(sorted(calls) == sorted(names)
                    and all(2 <= k and k - 1 <= flushes for k in calls.values()),
                    '%s: on-event: fetched at buffer flushes (at most %d) and at the end'
                    % (what, flushes), repr(calls))

    # A counter whose source this machine lacks: a message, no counter, the run goes on.
    what = 'sysmon, a CPU without cpufreq'
    r, tr, mv = run(c, what, 'sysmon_cpu9999_freq:sysmon_process_rss', env=env,
                    allow=[r'counter plugin sysmon.*cpu9999_freq'])
    t.eq([l for l in r.program_stderr if not VERBOSE_SYSMON.match(l)],
         ['sysmon plugin: cpu9999_freq: /sys/devices/system/cpu/cpu9999/cpufreq/'
          'scaling_cur_freq is missing or unreadable (no cpufreq driver, as in most virtual '
          'machines); skipped'], '%s: the plugin says why' % what)
    t.eq(len([m for m in r.errors if 'cpu9999_freq' in m]), 1,
         '%s: vt says once that it got no counter for it' % what)
    check_members(t, mv, {'process_rss': SYSMON['process_rss']}, 'ASYNCHRONOUS', 'ABSTRACT',
                  what)
    check_instances(t, mv, {'process_rss'}, 'process', what)


def hostload_cases(c):
    t = c.t
    want = hostload_expected()
    env = {'HOSTLOAD_INTERVAL_MS': str(PERIOD_MS), 'HOSTLOAD_VERBOSE': '1'}
    what = 'hostload'
    r, tr, mv = run(c, what, 'hostload_*', env=env)
    check_program(t, tr, what)
    check_members(t, mv, want, 'ASYNCHRONOUS', 'ABSTRACT', what)
    recs = check_instances(t, mv, want, 'host', what)
    vals = async_values(t, mv, recs, what)
    check_period(t, mv, vals, what)
    told = parse_verbose(r, VERBOSE_HOSTLOAD)
    t.eq({n: (int(g[1]), int(g[2]), int(g[3]), g[4]) for n, g in told.items()},
         {n: (len(v), 0, 0, 'never turned off') for n, v in vals.items()},
         '%s: every value sent is in the trace; none refused, dropped or turned off' % what)
    t.eq([l for l in r.program_stderr if not VERBOSE_HOSTLOAD.match(l)], [],
         '%s: no other message' % what)
    lo = [x for _, x in vals.get('net_lo_rx_bytes', [])]
    t.check(lo and non_decreasing(lo) and lo[-1] >= NET_BYTES,
            '%s: net_lo_rx_bytes: non-decreasing, %d at least at the end (net())'
            % (what, NET_BYTES), repr(lo[-3:]))
    for n in want:
        if want[n][1] == 'ACCUMULATED_START':
            t.check(non_decreasing([x for _, x in vals.get(n, [])]),
                    '%s: %s never decreases' % (what, n))
    for n in ('load1', 'load5', 'load15'):
        v = [x for _, x in vals.get(n, [])]
        t.check(v and all(0.0 <= x < 10000.0 for x in v), '%s: %s in [0, 10000)' % (what, n),
                repr(v[:3]))

    # The smallest callback buffer vt takes (4 values): written out from the plugin's thread
    # over and over, nothing lost.
    what = 'hostload, VT_PLUGIN_CNTR_CALLBACK_BUFFER=64'
    r, tr, mv = run(c, what, 'hostload_load1:hostload_net_lo_*',
                    env=dict(env, VT_PLUGIN_CNTR_CALLBACK_BUFFER='64'))
    names = {'load1', 'net_lo_rx_bytes', 'net_lo_tx_bytes'}
    recs = check_instances(t, mv, names, 'host', what)
    vals = async_values(t, mv, recs, what)
    check_period(t, mv, vals, what)
    told = parse_verbose(r, VERBOSE_HOSTLOAD)
    t.eq({n: (int(g[1]), int(g[2]), int(g[3])) for n, g in told.items()},
         {n: (len(v), 0, 0) for n, v in vals.items()},
         '%s: every value sent is in the trace' % what)
    t.check(all(len(v) > 4 for v in vals.values()),
            '%s: more values than the buffer holds' % what,
            repr({n: len(v) for n, v in vals.items()}))

    what = 'hostload, an interface that is not there'
    r, tr, mv = run(c, what, 'hostload_net_nosuchif0_*:hostload_load1', env=env,
                    allow=[r'counter plugin hostload.*nosuchif0'])
    t.check([l for l in r.program_stderr if not VERBOSE_HOSTLOAD.match(l)] ==
            ['hostload plugin: "net_nosuchif0_*" matches no counter here (there are load1, '
             'load5, load15, runnable, net_rx_bytes, net_tx_bytes and net_IF_rx_bytes, '
             'net_IF_tx_bytes for the interfaces of /proc/net/dev); skipped'],
            '%s: the plugin says why' % what, repr(r.program_stderr))
    check_members(t, mv, {'load1': HOSTLOAD_FIXED['load1']}, 'ASYNCHRONOUS', 'ABSTRACT', what)


def fsusage_cases(c):
    t = c.t
    what = 'fsusage'
    r, tr, mv = run(c, what, 'fsusage_*', plugin_lines=[])
    st = os.statvfs(r.gdir)
    check_program(t, tr, what)
    check_members(t, mv, FSUSAGE, 'ASYNCHRONOUS', 'ABSTRACT', what)
    t.eq(len(mv.root_nodes()), 1, '%s: one root of the system tree' % what)
    recs = check_instances(t, mv, FSUSAGE, 'once', what)
    vals = async_values(t, mv, recs, what)
    t.eq({n: len(v) for n, v in vals.items()}, {n: 2 for n in FSUSAGE},
         '%s: without buffer flushes, two readings each: at the start and at the end' % what)
    t.eq(set(x for _, x in vals.get('fs_size', [])), {st.f_blocks * st.f_frsize},
         '%s: fs_size is the size of VT_PFORM_GDIR\'s file system' % what)
    size = st.f_blocks * st.f_frsize
    t.check(all(0 < x <= size for n in ('fs_used', 'fs_available') for _, x in vals.get(n, [])),
            '%s: fs_used and fs_available within the size' % what)

    what = 'fsusage, small buffer'
    r, tr, mv = run(c, what, 'fsusage_fs_size', plugin_lines=[],
                    env={'BURST': str(BURST), 'VT_BUFFER_SIZE': '64k'})
    recs = check_instances(t, mv, {'fs_size'}, 'once', what)
    vals = async_values(t, mv, recs, what)
    flushes = len(tr.loc('Master thread').flushes)
    n = len(vals.get('fs_size', []))
    # A reading at the start, at each flush vt asked at (each leaves a BufferFlush event;
    # OTF2 may add its own), and at the end.
    t.check(3 <= n <= flushes + 2, '%s: a reading at each buffer flush: %d, with %d flushes'
            % (what, n, flushes))

    what = 'fsusage, unknown name'
    r, tr, mv = run(c, what, 'fsusage_fs_quota:fsusage_fs_size',
                    allow=[r'counter plugin fsusage.*fs_quota'],
                    plugin_lines=['fsusage plugin: "fs_quota" matches no counter (there are '
                                  'fs_size, fs_used, fs_available and fs_free_inodes); '
                                  'skipped'])
    check_members(t, mv, {'fs_size': FSUSAGE['fs_size']}, 'ASYNCHRONOUS', 'ABSTRACT', what)


def unknown_cases(c):
    t = c.t
    what = 'random, a pattern'
    r, tr, mv = run(c, what, 'random_rand*', allow=[r'counter plugin random'],
                    plugin_lines=['random plugin: "rand*": give each counter a plain name, as '
                                  'in random_counter; wildcards match nothing here'])
    t.eq(mv.members, {}, '%s: no metric' % what)
    t.eq(len([m for m in r.errors if 'random' in m]), 1, '%s: one vt error line' % what)
    what = 'perfsw, an event it does not have'
    r, tr, mv = run(c, what, 'perfsw_cycles', allow=[r'counter plugin perfsw'])
    t.eq([l for l in perfsw_lines(r) if not FALLBACK.match(l)],
         ['perfsw plugin: no counter matches "cycles" (there are page-faults, '
          'context-switches and task-clock)'], '%s: the plugin says why' % what)
    t.eq(mv.members, {}, '%s: no metric' % what)


def body(t):
    if not os.path.isfile(os.path.join(PLUGINS, 'librandom.so')):
        raise vttest.Failure('the sample plugins are not built in %s' % PLUGINS)
    exe, plain_exe = t.parallel(
        lambda i: t.compile('samples', ['samples.c'], flags=['-pthread'], instrument=i),
        [True, False])
    plain = t.run(plain_exe, label='plain')
    t.eq((plain.stdout, plain.status), ('samples done\n', 0), 'uninstrumented run')
    c = Ctx(t, exe, plain)
    sync_cases(c)
    sysmon_cases(c)
    hostload_cases(c)
    fsusage_cases(c)
    unknown_cases(c)


vttest.main('plugin_samples', body)
