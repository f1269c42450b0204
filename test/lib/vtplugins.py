# SPDX-License-Identifier: BSD-3-Clause
"""The counter-plugin tests' shared part: building the test plugins, reading their call log,
and checking both the calling order (docs/dev/plugin-host.md) and that the trace holds
exactly the values the plugins produced.

The test plugins (test/e2e/plugins/tp_vt.c, test/e2e/plugins_scorep/tp_scorep.c) log every
call vt makes, one line each, "LIB CALL PID TID key=value...", in the order of the calls;
lines whose CALL starts with '@' say what a plugin did on its own (its threads' samples, the
callbacks it made). The traced programs add "prog main PID TID", "prog thread PID TID n=N"
and "prog rank PID TID r=R host=H" lines, so that thread ids map onto trace locations.

    log = vtplugins.read_log(path)
    proc = log.process('tpsyncthread', pid)          # one plugin in one process
    owners = vtplugins.check_calls(t, proc, Expect(...), what)
    vtplugins.check_sync_location(t, mv, loc_ref, counters, what)
    vtplugins.check_async_counter(t, mv, counter, owner_loc, scope, what)
"""

import collections
import os
import re
import socket
import struct
import subprocess

import vttest
from vttest import Failure

SDK_INCLUDE = os.path.join(vttest.SOURCE_ROOT, 'plugin-sdk', 'include')

# The values of vt_plugin_cntr.h's enums, by the short names the tests use.
VT_SYNCH = {'sync': 0, 'event': 1, 'pm': 2, 'callback': 3}
VT_PER = {'thread': 0, 'process': 1, 'host': 2, 'once': 3}
# And of SCOREP_MetricTypes.h's.
SP_SYNC = {'strict': 0, 'optional': 1, 'event': 2, 'async': 3}
SP_PER = VT_PER

# What the VampirTrace test plugin's counters are in the trace, by the contract: "ABS
# (without ACC) = absolute, else accumulated; timing POINT, LAST, NEXT, else START for
# accumulated and POINT for absolute; SIGNED = INT64, DOUBLE = DOUBLE, FLOAT = DOUBLE, else
# UINT64; base decimal, exponent 0", unit kept, description empty.
VT_COUNTERS = {
    # name: (unit, property bits as tp_vt.c sets them, mode, value type, value kind)
    'c1': ('ticks', 'none', 'ACCUMULATED_START', 'UINT64', 'uint'),
    'c2': ('#', 'ABS|START|SIGNED', 'ABSOLUTE_POINT', 'INT64', 'int'),
    'd': ('W', 'ABS|NEXT|DOUBLE', 'ABSOLUTE_NEXT', 'DOUBLE', 'double'),
    'f': ('s', 'ACC|ABS|LAST|FLOAT', 'ACCUMULATED_LAST', 'DOUBLE', 'float'),
}


# And the Score-P test plugin's (tp_scorep.c), one to one: (description, mode, value type,
# base, exponent, unit).
SP_METRICS = {
    'a': ('operations', 'ACCUMULATED_START', 'UINT64', 'DECIMAL', 0, 'ops'),
    'b': ('energy', 'ABSOLUTE_LAST', 'INT64', 'DECIMAL', -3, 'J'),
    'x1': ('first ratio', 'RELATIVE_NEXT', 'DOUBLE', 'BINARY', 10, 'B'),
    'x2': ('second ratio', 'ACCUMULATED_POINT', 'DOUBLE', 'BINARY', -2, 's'),
}


def sp_member(name):
    descr, mode, vtype, base, exponent, unit = SP_METRICS[name]
    return dict(name=name, description=descr, metric_type='OTHER', mode=mode,
                value_type=vtype, base=base, exponent=exponent, unit=unit)


# The MetricClass occurrence and recorder kind of each kind of plugin.
OCCURRENCE = {'sync': ('SYNCHRONOUS_STRICT', 'CPU'), 'strict': ('SYNCHRONOUS_STRICT', 'CPU'),
              'optional': ('SYNCHRONOUS', 'CPU')}
ASYNC_OCCURRENCE = ('ASYNCHRONOUS', 'ABSTRACT')


def vt_member(name):
    """The MetricMember fields (without ref) a VampirTrace test counter must have."""
    unit, _, mode, vtype, _ = VT_COUNTERS[name]
    return dict(name=name, description='', metric_type='OTHER', mode=mode, value_type=vtype,
                base='DECIMAL', exponent=0, unit=unit)


# ---------------------------------------------------------------------------------------
# The traced program, test/e2e/plugins/prog.c (the plugin cases share it)

PROG_THREADS = 3
# main's Enter counts; thread n's are prog_thread_enters(n, k) (k: prog.c's argv[1])
# (VT_PTHREAD, on by default, makes main's pthread_create and pthread_join calls regions.)
PROG_MAIN = {'main': 1, 'log_thread': 1, 'work': 4, 'nap': 1,
             'pthread_create': PROG_THREADS, 'pthread_join': PROG_THREADS}


def prog_thread_enters(n, k):
    return {'thread_main': 1, 'log_thread': 1, 'work': (n + 1) * k, 'nap': 1}


def prog_source(t, name='prog.c'):
    """A file of test/e2e/plugins/, where prog.c and the VampirTrace test plugin live."""
    return os.path.join(os.path.dirname(t.src), 'plugins', name)


def prog_locations(t, mv, k, what):
    """Checks that prog.c's threads are the trace's only CPU locations (the plugins' threads
    are not traced), each with its exact Enter counts; returns {thread number (master: -1):
    location ref}."""
    cpu = mv.locs_of_type('CPU_THREAD')
    t.eq(sorted(l.name for l in cpu),
         ['Master thread'] + ['Thread %d' % (i + 1) for i in range(PROG_THREADS)],
         '%s: the program\'s %d threads are the only CPU locations (plugin threads not '
         'traced)' % (what, PROG_THREADS + 1))
    out = {}
    for l in cpu:
        got = dict(enter_counts(mv, l.ref))
        if l.name == 'Master thread':
            t.eq(got, PROG_MAIN, '%s: Master thread: Enter counts' % what)
            out[-1] = l.ref
            continue
        n = [i for i in range(PROG_THREADS) if got == prog_thread_enters(i, k)]
        t.check(len(n) == 1, '%s: %s: Enter counts of one program thread' % (what, l.name),
                'got %r' % got)
        if n:
            out[n[0]] = l.ref
    return out


# ---------------------------------------------------------------------------------------
# Building


def build_plugin(t, outdir, name, source, defines=(), compiler='cc'):
    """Compiles source into outdir/libNAME.so with the SDK's headers and -DTP_NAME="NAME"
    plus -D of each of defines; returns the library's path."""
    out = os.path.join(outdir, 'lib%s.so' % name)
    src = source if os.path.isabs(source) else t.source(source)
    cmd = [compiler, '-shared', '-fPIC', '-O1', '-g', '-Wall', '-I' + SDK_INCLUDE,
           '-I' + os.path.dirname(src), '-DTP_NAME="%s"' % name]
    cmd += ['-D' + d for d in defines]
    cmd += [src, '-o', out, '-pthread']
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, errors='replace', timeout=120)
    if p.returncode != 0 or not os.path.exists(out):
        raise Failure('plugin build failed (status %d): %s\n%s'
                      % (p.returncode, ' '.join(cmd), p.stdout))
    return out


def build_plugins(t, outdir, specs, source):
    """Builds [(name, defines)] in parallel; returns {name: path}."""
    paths = t.parallel(lambda s: build_plugin(t, outdir, s[0], source, s[1]), specs)
    print('built %d plugins in %s' % (len(paths), outdir))
    return {s[0]: p for s, p in zip(specs, paths)}


def vt_defines(synch, per, *extra):
    return ['TP_SYNCH=%d' % VT_SYNCH[synch], 'TP_PER=%d' % VT_PER[per]] + list(extra)


def sp_defines(name, sync, per, version, delta_t=0):
    return ['TP_ENTRY=%s' % name, 'TP_SYNC=%d' % SP_SYNC[sync], 'TP_PER=%d' % SP_PER[per],
            'TP_VERSION=%d' % version, 'TP_DELTA_T=%d' % delta_t]


# ---------------------------------------------------------------------------------------
# Values


def value(kind, ident, n):
    """tp_common.h's tp_value(): the n-th value of instance ident, as the 64 bits vt gets."""
    if kind == 'uint':
        return ident * 1000 + n
    if kind == 'int':
        return (-(ident * 1000 + n)) & 0xFFFFFFFFFFFFFFFF
    if kind == 'double':
        return struct.unpack('<Q', struct.pack('<d', ident + n * 0.5))[0]
    if kind == 'float':
        return struct.unpack('<I', struct.pack('<f', ident + n * 0.25))[0]
    raise ValueError(kind)


def decode(kind, raw):
    """The 64 bits of a value as the trace must hold it (FLOAT: the float, as a double)."""
    if kind == 'uint':
        return raw
    if kind == 'int':
        return raw - (1 << 64) if raw >= (1 << 63) else raw
    if kind == 'double':
        return struct.unpack('<d', struct.pack('<Q', raw))[0]
    if kind == 'float':
        return float(struct.unpack('<f', struct.pack('<I', raw & 0xFFFFFFFF))[0])
    raise ValueError(kind)


# ---------------------------------------------------------------------------------------
# The log

Line = collections.namedtuple('Line', 'index lib call pid tid args')


def read_log(path):
    """Reads the plugins' and the program's log into a Log."""
    lines = []
    if os.path.exists(path):
        with open(path) as f:
            for n, text in enumerate(f.read().splitlines()):
                parts = text.split(' ')
                if len(parts) < 4:
                    raise Failure('%s:%d: malformed log line %r' % (path, n + 1, text))
                args = {}
                for p in parts[4:]:
                    k, _, v = p.partition('=')
                    args[k] = v
                lines.append(Line(n, parts[0], parts[1], int(parts[2]), int(parts[3]), args))
    return Log(path, lines)


class Counter:
    """One counter instance: what add_counter returned and what happened to it."""

    def __init__(self, line, proc):
        self.id = int(line.args['ret'])
        self.name = line.args['name']
        self.kind = line.args.get('kind')
        self.owner = line.tid
        self.add = line
        self.proc = proc

    def calls(self, *names):
        """vt's calls about this counter (by id), in order."""
        return [l for l in self.proc.calls if l.call in names and l.args.get('id') == str(self.id)]

    def internal(self, name):
        return [l for l in self.proc.internal if l.call == name and
                l.args.get('id') == str(self.id)]

    def samples(self):
        """(timestamp, raw value) of each value the plugin's sampler took."""
        return [(int(l.args['ts']), int(l.args['val'])) for l in self.internal('@sample')]

    def outside(self):
        return set((int(l.args['ts']), int(l.args['val'])) for l in self.internal('@outside'))

    def batches(self):
        """The lists of (timestamp, raw) each get_all_values returned, in call order."""
        out = []
        for l in self.calls('get_all_values'):
            vals = l.args.get('vals', '')
            out.append([tuple(int(x) for x in v.split(':')) for v in vals.split(',') if v])
        return out

    def __repr__(self):
        return 'Counter(%s id %d on %d)' % (self.name, self.id, self.owner)


class Proc:
    """The lines of one plugin (lib) in one process."""

    def __init__(self, log, lib, pid):
        self.lib = lib
        self.pid = pid
        mine = [l for l in log.lines if l.lib == lib and l.pid == pid]
        self.calls = [l for l in mine if not l.call.startswith('@')]
        self.internal = [l for l in mine if l.call.startswith('@')]
        self.counters = [Counter(l, self) for l in self.calls
                         if l.call == 'add_counter' and int(l.args['ret']) >= 0]
        # the plugin's own threads: those that said "@thread"
        self.own_threads = set(l.tid for l in self.internal if l.call == '@thread')

    def named(self, call):
        return [l for l in self.calls if l.call == call]

    def by_owner(self):
        out = collections.OrderedDict()
        for c in self.counters:
            out.setdefault(c.owner, []).append(c)
        return out


class Log:
    def __init__(self, path, lines):
        self.path = path
        self.lines = lines

    def process(self, lib, pid):
        return Proc(self, lib, pid)

    def pids(self, lib):
        return sorted(set(l.pid for l in self.lines if l.lib == lib))

    def prog(self, call):
        return [l for l in self.lines if l.lib == 'prog' and l.call == call]

    def threads(self, pid):
        """{program thread number: tid}, and the master thread as -1."""
        out = {}
        for l in self.lines:
            if l.lib == 'prog' and l.pid == pid:
                if l.call == 'main':
                    out[-1] = l.tid
                elif l.call == 'thread':
                    out[int(l.args['n'])] = l.tid
        return out

    def ranks(self):
        """{rank: (pid, tid, host)} of the MPI program's "prog rank" lines."""
        return {int(l.args['r']): (l.pid, l.tid, l.args.get('host'))
                for l in self.lines if l.lib == 'prog' and l.call == 'rank'}


def fmt_calls(lines, limit=12):
    out = ['%s(%s)' % (l.call, ' '.join('%s=%s' % kv for kv in sorted(l.args.items())
                                        if kv[0] != 'vals'))
           for l in lines[:limit]]
    if len(lines) > limit:
        out.append('... %d more' % (len(lines) - limit))
    return ', '.join(out)


# ---------------------------------------------------------------------------------------
# Checks of the calling order


class Expect:
    """What the calling-order checks expect of one plugin in one process.

    iface: 'vt' or 'scorep'; sync: VT 'sync'/'event'/'pm'/'callback', Score-P
    'strict'/'optional'/'event'/'async'; requested: the names given to get_event_info, in
    order; expansion: the counter names they stand for, in order; owners: the thread ids
    that must add them (each adds all); master: the thread that loads the plugin; version:
    Score-P's interface version; responsible: Score-P v1's is_responsible; mpi: BEGIN_MPP
    instead of BEGIN."""

    def __init__(self, iface, sync, requested, expansion, owners, master, version=None,
                 responsible=True, mpi=False):
        self.iface = iface
        self.sync = sync
        self.requested = requested
        self.expansion = expansion
        self.owners = owners
        self.master = master
        self.version = version
        self.responsible = responsible
        self.mpi = mpi

    @property
    def is_async(self):
        return self.sync in ('event', 'pm', 'callback', 'async')


VALUE_CALLS = ('get_current_value', 'get_optional_value', 'get_all_values')


def check_calls(t, proc, exp, what):
    """The calling order of docs/dev/plugin-host.md for one plugin in one process, from the
    log. Returns {owner tid: [Counter] in the order added}."""
    w = '%s: %s pid %d' % (what, proc.lib, proc.pid)
    calls = proc.calls
    vt = exp.iface == 'vt'
    # 1-4: get_info, the clock (asynchronous plugins), init, get_event_info per name.
    want = [('get_info', None)]
    if exp.is_async:
        want.append(('set_pform_wtime_function' if vt else 'set_clock_function', None))
    want.append(('init' if vt else 'initialize', None))
    want += [('get_event_info', r) for r in exp.requested]
    got = [(l.call, l.args.get('name')) for l in calls[:len(want)]]
    t.eq(got, want, '%s: begins with get_info, %sinit, get_event_info per name in order'
         % (w, 'the clock, ' if exp.is_async else ''))
    t.eq(sorted(set(l.tid for l in calls[:len(want)])), [exp.master],
         '%s: these on the thread that loads the plugin' % w)
    for call in ('get_info', 'init' if vt else 'initialize', 'finalize'):
        t.eq(len(proc.named(call)), 1, '%s: %s called once' % (w, call))
    exp_lists = [l.args.get('ret') for l in proc.named('get_event_info')]
    got_exp = [n for r in exp_lists for n in (r or '').split(',') if n and n not in
               ('NULL', 'empty')]
    t.eq(got_exp, exp.expansion, '%s: get_event_info offered %s' % (w, exp.expansion))
    # 5: per owner, on its thread: add_counter per counter, set_callback_function per
    # counter, enable_counter per counter.
    owners = proc.by_owner()
    t.eq(sorted(owners), sorted(exp.owners), '%s: the threads that add counters' % w)
    adds_all = proc.named('add_counter')
    t.eq([l for l in adds_all if int(l.args['ret']) < 0], [],
         '%s: every add_counter succeeds' % w)
    for tid, counters in owners.items():
        mine = [l for l in calls if l.tid == tid and l.call not in VALUE_CALLS + (
            'is_thread_registered', 'disable_counter', 'synchronize')]
        if tid == exp.master:
            mine = mine[len(want):]
        block = [('add_counter', n) for n in exp.expansion]
        if exp.sync == 'callback':
            block += [('set_callback_function', c.id) for c in counters]
        if vt:
            block += [('enable_counter', c.id) for c in counters]
        got = [(l.call, l.args['name'] if l.call == 'add_counter' else int(l.args['id']))
               for l in mine[:len(block)]]
        t.eq(got, block, '%s: thread %d: add_counter, %s%s for each counter, in order'
             % (w, tid, 'set_callback_function, ' if exp.sync == 'callback' else '',
                'enable_counter' if vt else '(Score-P has no enable)'))
        t.eq([l.args.get('ret') for l in mine[len(exp.expansion):len(block)]],
             ['0'] * (len(block) - len(exp.expansion)),
             '%s: thread %d: the set-up calls after add_counter return 0' % (w, tid))
        first_value = min([l.index for c in counters for l in c.calls(*VALUE_CALLS)] + [1 << 62])
        last_setup = max([l.index for l in mine[:len(block)]] + [-1])
        t.check(last_setup < first_value,
                '%s: thread %d: no value asked for before its counters are set up' % (w, tid))
    # Per counter: values only between set-up and end, the end once, finalize last.
    fin = proc.named('finalize')
    fin_index = fin[0].index if fin else 1 << 62
    t.eq(calls[-1:] and calls[-1].call, 'finalize', '%s: finalize is the last call' % w)
    for c in proc.counters:
        cw = '%s: %r' % (w, c)
        if vt:
            dis = c.calls('disable_counter')
            t.eq(len(dis), 1, '%s: disable_counter once' % cw)
            end = dis[0].index if dis else fin_index
            en = c.calls('enable_counter')
            start = en[0].index if en else c.add.index
        else:
            end = None
            start = c.add.index
        if exp.sync in ('sync', 'strict', 'optional'):
            name = {'sync': 'get_current_value', 'strict': 'get_current_value',
                    'optional': 'get_optional_value'}[exp.sync]
            vals = c.calls(name)
            bad = [l for l in vals if not (start < l.index and (end is None or l.index < end))]
            t.eq(fmt_calls(bad), '', '%s: %s only between set-up and disable' % (cw, name))
            bad = [l for l in vals if l.tid != c.owner]
            t.eq(fmt_calls(bad), '', '%s: %s on the owner thread' % (cw, name))
            t.eq(fmt_calls(c.calls('get_all_values')), '', '%s: no get_all_values' % cw)
        elif exp.sync == 'callback':
            t.eq(fmt_calls(c.calls('get_all_values', 'get_current_value')), '',
                 '%s: vt asks for no values (callback)' % cw)
            bad = [l for l in c.internal('@callback') if not start < l.index < end]
            t.eq(fmt_calls(bad), '', '%s: callbacks only between enable and disable' % cw)
        else:
            gav = c.calls('get_all_values')
            if vt:
                after = [l for l in gav if l.index > end]
                t.eq(len(after), 1, '%s: one get_all_values after disable_counter' % cw)
                if exp.sync == 'pm':
                    t.eq(len(gav), 1, '%s: post-mortem: get_all_values once' % cw)
                bad = [l for l in gav if l.index < start]
                t.eq(fmt_calls(bad), '', '%s: no get_all_values before enable' % cw)
            else:
                t.check(len(gav) >= 1, '%s: get_all_values at the end' % cw)
                if exp.sync == 'async':
                    t.eq(len(gav), 1, '%s: ASYNC: get_all_values once, at the end' % cw)
            t.eq(fmt_calls(c.calls('get_current_value', 'get_optional_value')), '',
                 '%s: no synchronous reads' % cw)
        late = [l for l in c.calls(*VALUE_CALLS + ('disable_counter',)) if l.index > fin_index]
        t.eq(fmt_calls(late), '', '%s: nothing after finalize' % cw)
    # Score-P version 1: synchronize(BEGIN or BEGIN_MPP) after the counters of location 0,
    # synchronize(END) at finalize before the last values; version 0: never.
    if not vt:
        syn = proc.named('synchronize')
        if exp.version == 0:
            t.eq(fmt_calls(syn), '', '%s: version 0: no synchronize' % w)
        else:
            want_s = [('BEGIN_MPP' if exp.mpi else 'BEGIN', str(int(exp.responsible))),
                      ('END', str(int(exp.responsible)))]
            t.eq([(l.args.get('mode'), l.args.get('responsible')) for l in syn], want_s,
                 '%s: synchronize(%s) then synchronize(END), is_responsible %s'
                 % (w, want_s[0][0], exp.responsible))
            if len(syn) == 2:
                begin, end = syn
                master_adds = [c.add.index for c in owners.get(exp.master, [])]
                if not exp.mpi and master_adds:
                    t.check(begin.index > max(master_adds),
                            '%s: synchronize(BEGIN) after the counters of location 0' % w)
                t.check(begin.tid == exp.master and end.tid == exp.master,
                        '%s: synchronize on the master thread' % w)
                sync_reads = [l.index for c in proc.counters
                              for l in c.calls('get_current_value', 'get_optional_value')]
                t.check(all(begin.index < i < end.index for i in sync_reads),
                        '%s: synchronous reads between BEGIN and END' % w)
                for c in owners.get(exp.master, []):
                    last = c.calls('get_all_values')[-1:]
                    if last:
                        t.check(end.index < last[0].index,
                                '%s: %r: its last get_all_values after synchronize(END)'
                                % (w, c))
                t.check(end.index < fin_index, '%s: synchronize(END) before finalize' % w)
    return owners


def check_thread_registered(t, proc, program_tids, master, what):
    """is_thread_registered: asked once on each program thread other than the master,
    before anything else there, answered 0; on the plugin's own threads answered 1."""
    w = '%s: %s pid %d' % (what, proc.lib, proc.pid)
    asked = [l for l in proc.calls if l.call == 'is_thread_registered']
    for tid in program_tids:
        if tid == master:
            continue
        mine = [l for l in proc.calls if l.tid == tid]
        t.eq([(l.call, l.args.get('ret')) for l in mine if l.call == 'is_thread_registered'],
             [('is_thread_registered', '0')],
             '%s: is_thread_registered once on program thread %d, answered 0' % (w, tid))
        t.eq(mine[:1] and mine[0].call, 'is_thread_registered',
             '%s: thread %d: is_thread_registered is the first call there' % (w, tid))
    on_master = [l for l in asked if l.tid == master]
    t.check(len(on_master) <= 1, '%s: is_thread_registered at most once on the master' % w,
            fmt_calls(on_master))
    strange = [l for l in asked if l.tid not in program_tids and l.tid not in proc.own_threads]
    t.eq(fmt_calls(strange), '', '%s: is_thread_registered only on known threads' % w)
    wrong = [l for l in asked if l.tid in proc.own_threads and l.args.get('ret') != '1']
    t.eq(fmt_calls(wrong), '', '%s: the plugin\'s own threads say 1' % w)


# ---------------------------------------------------------------------------------------
# Checks of the trace


def check_member(t, mv, want, occurrence, recorder_kind, what):
    """Exactly one MetricMember named want['name'] with the fields of want, and exactly one
    MetricClass of it alone, with that occurrence and recorder kind. Returns the class."""
    name = want['name']
    members = mv.members_named(name)
    got = [{k: getattr(m, k) for k in want} for m in members]
    t.eq(got, [want], '%s: one metric member %s: %s' % (what, name, ', '.join(
        '%s %r' % (k, v) for k, v in sorted(want.items()) if k != 'name')))
    classes = mv.classes_of(name)
    t.eq([(c.occurrence, c.recorder_kind) for c in classes], [(occurrence, recorder_kind)],
         '%s: one metric class of %s alone: %s, %s' % (what, name, occurrence, recorder_kind))
    return classes[0].ref if len(classes) == 1 else None


def sync_answers(counter, call='get_current_value'):
    """[(present, raw value)] of each synchronous read of counter, in order."""
    out = []
    for l in counter.calls(call):
        if call == 'get_optional_value':
            out.append((l.args['ret'] == '1', int(l.args.get('val', '0'))))
        else:
            out.append((True, int(l.args['ret'])))
    return out


def check_sync_location(t, mv, loc_ref, counters, classes, answers, what, first=0, last=0):
    """On location loc_ref, every Enter and Leave from the first-th on is followed directly
    by one Metric event per counter with a value (answers[c][k] for the k-th of them is
    (present, raw)), in the order the counters were added (classes[c]: the class its
    events refer to), at the Enter's or Leave's time, with the value read; the k-th read of
    each counter belongs to the k-th Enter/Leave; no other Metric events. first: the
    number of Enter/Leave events before a counter is added (an int, or {Counter: int});
    last: the number of Enter/Leave events at the end that vt writes itself when it stops
    recording: they carry no reading of their own, and a synchronous counter's Metric event
    after each (strict or not) repeats its last value read, if that read had one."""
    firsts = first if isinstance(first, dict) else {c: first for c in counters}
    evs = mv.events.get(loc_ref, [])
    name = mv.locations[loc_ref].name
    w = '%s: %s' % (what, name)
    problems = []
    nread = {c: len(answers[c]) for c in counters}
    n_total = sum(1 for e in evs if e.kind in ('Enter', 'Leave'))
    k = -1  # Enter/Leave number
    i = 0
    while i < len(evs):
        e = evs[i]
        i += 1
        if e.kind == 'Metric':
            problems.append('event %d: a Metric event not after an Enter/Leave' % (i - 1))
            continue
        if e.kind not in ('Enter', 'Leave'):
            continue
        k += 1
        for c in counters:
            if k >= n_total - last and k >= firsts[c]:
                cls = mv.classes.get(classes[c])
                j = n_total - last - 1 - firsts[c]
                if not cls or cls.occurrence not in ('SYNCHRONOUS_STRICT', 'SYNCHRONOUS') \
                        or not 0 <= j < len(answers[c]):
                    continue
                m = evs[i] if i < len(evs) and evs[i].kind == 'Metric' else None
                if not answers[c][j][0]:  # the last read had no value: none to repeat
                    if m is not None and m.metric == classes[c]:
                        problems.append('%s %s #%d (written by vt): a value of %s, whose last '
                                        'read had none' % (e.kind, e.region, k, c.name))
                        i += 1
                    continue
                want = decode(c.kind, answers[c][j][1])
                if m is None or (m.metric, m.time, m.values) != (classes[c], e.time, (want,)):
                    problems.append('%s %s #%d (written by vt) at %d: expected %s = %r, the '
                                    'last value read, got %r' % (e.kind, e.region, k, e.time,
                                                                 c.name, want, m))
                if m is not None:
                    i += 1
                continue
            if k < firsts[c]:
                continue
            ans = answers[c]
            j = k - firsts[c]
            if j >= len(ans):
                problems.append('%s %s #%d: no read of %r for it (only %d reads)'
                                % (e.kind, e.region, k, c, len(ans)))
                continue
            present, raw = ans[j]
            if not present:
                continue
            if i >= len(evs) or evs[i].kind != 'Metric':
                problems.append('%s %s #%d at %d: no Metric event of %s follows'
                                % (e.kind, e.region, k, e.time, c.name))
                continue
            m = evs[i]
            i += 1
            want = decode(c.kind, raw)
            if (m.metric, m.time, m.values) != (classes[c], e.time, (want,)):
                problems.append('%s %s #%d at %d: expected %s (class %s) = %r at the same time, '
                                'got metric %s = %r at %d' % (e.kind, e.region, k, e.time,
                                                              c.name, classes[c], want,
                                                              m.metric, m.values, m.time))
    for c in counters:
        n_events = n_total - last - firsts[c]
        if nread[c] != n_events:
            problems.append('%r: read %d times for %d Enter/Leave events'
                            % (c, nread[c], n_events))
    t.eq(problems[:4], [], '%s: after each of its Enter/Leave events, the values read, one '
         'Metric event per counter (%s) in order, at its time' % (w, ', '.join(
             c.name for c in counters)))


def check_sync_grouped(t, mv, loc_ref, counters, classes, answers, what):
    """The form vt writes strict synchronous values in (mv.raw_events, as python3-otf2 read
    them): one MetricClass whose members are the counters' members in the order they were
    added (classes[c]: the class of counter c alone), SYNCHRONOUS_STRICT, CPU; and after each
    Enter and Leave of location loc_ref exactly one Metric event, of that class, at its time,
    with one value per counter: the value read (answers[c][k] = (present, raw) of the k-th
    read of c)."""
    w = '%s: %s' % (what, mv.locations[loc_ref].name)
    members = tuple(mv.classes[classes[c]].members[0] if classes[c] in mv.classes else None
                    for c in counters)
    groups = [cl for cl in mv.classes.values() if cl.members == members]
    t.eq([(cl.occurrence, cl.recorder_kind) for cl in groups],
         [('SYNCHRONOUS_STRICT', 'CPU')], '%s: one metric class of the %d counters (%s), in '
         'their order' % (w, len(counters), ', '.join(c.name for c in counters)))
    if len(groups) != 1:
        return
    evs = mv.raw_events.get(loc_ref, [])
    problems = []
    k = -1
    for i, e in enumerate(evs):
        if e.kind == 'Metric' and (i == 0 or evs[i - 1].kind not in ('Enter', 'Leave')):
            problems.append('event %d: a Metric event not right after an Enter/Leave: %r'
                            % (i, e))
        if e.kind not in ('Enter', 'Leave'):
            continue
        k += 1
        if any(k >= len(answers[c]) for c in counters):
            problems.append('%s %s #%d: no read for it' % (e.kind, e.region, k))
            continue
        want = (groups[0].ref, e.time,
                tuple(decode(c.kind, answers[c][k][1]) for c in counters))
        m = evs[i + 1] if i + 1 < len(evs) else None
        if m is None or m.kind != 'Metric' or (m.metric, m.time, m.values) != want:
            problems.append('%s %s #%d: expected Metric %r, got %r' % (e.kind, e.region, k,
                                                                       want, m))
    t.eq(problems[:4], [], '%s: after each of its %d Enter/Leave events one Metric event of '
         'that class carrying the %d values read' % (w, k + 1, len(counters)))


def check_no_metrics(t, mv, loc_ref, what):
    evs = mv.metric_events(loc_ref)
    t.eq(len(evs), 0, '%s: %s: no Metric events' % (what, mv.locations[loc_ref].name))


def expected_async(counter, callback=False):
    """What the trace must hold of an asynchronous counter, as the contract says: each
    batch sorted; values stamped before the run or after it (those the plugin made so
    on purpose, '@outside'), or older than what the location holds, dropped. Returns
    ([(timestamp, decoded)], sorted batches, dropped)."""
    outside = counter.outside()
    keep, sorted_batches, dropped = [], 0, 0
    if callback:
        batches = [[(int(l.args['ts']), int(l.args['val']))] for l in counter.internal('@callback')
                   if l.args.get('ret') == '0']
    else:
        batches = counter.batches()
    for b in batches:
        sb = sorted(b, key=lambda v: v[0])
        if sb != b:
            sorted_batches += 1
        for ts, raw in sb:
            if (ts, raw) in outside or (keep and ts < keep[-1][0]):
                dropped += 1
                continue
            keep.append((ts, raw))
    return [(ts, decode(counter.kind, raw)) for ts, raw in keep], sorted_batches, dropped


def check_async_counter(t, mv, counter, owner, scope, cls, what, callback=False,
                        time_shift=False):
    """Counter (asynchronous) has a METRIC location "NAME@OWNER" in owner's location group
    and one MetricInstance of its class cls recorded there with scope (type, reference);
    that location's Metric events are exactly the expected values at the plugin's
    timestamps (time_shift: mapped by the rank's clock correction, see below), all of that
    counter. Returns the METRIC location's ref or None."""
    oloc = mv.locations[owner]
    w = '%s: %s@%s' % (what, counter.name, oloc.name)
    want_name = '%s@%s' % (counter.name, oloc.name)
    # Several ranks may hold a location of that name: the owner's group picks it.
    locs = [l for l in mv.locations.values() if l.name == want_name and l.group == oloc.group]
    t.eq([(l.type, l.group) for l in locs], [('METRIC', oloc.group)],
         '%s: one METRIC location %r in the owner\'s location group' % (w, want_name))
    if len(locs) != 1:
        return None
    mloc = locs[0]
    insts = [i for i in mv.instances.values() if i.recorder == mloc.ref]
    t.eq([(i.metric_class, i.scope_type, i.scope) for i in insts], [(cls, scope[0], scope[1])],
         '%s: one MetricInstance of class %s recorded there, scope %s %s'
         % (w, cls, scope[0], scope[1]))
    refs = set([cls] + [i.ref for i in insts])
    evs = mv.events.get(mloc.ref, [])
    t.eq(sorted(set(e.kind for e in evs)), ['Metric'] if evs else [],
         '%s: only Metric events on the METRIC location' % w)
    stray = [e for e in evs if e.kind == 'Metric' and e.metric not in refs]
    t.eq(stray[:3], [], '%s: its events refer to its instance (or class)' % w)
    want, _, _ = expected_async(counter, callback)
    got = [(e.time, e.values[0] if e.values and len(e.values) == 1 else e.values)
           for e in evs if e.kind == 'Metric']
    if time_shift and got and want and len(got) == len(want):
        # OTF2's readers map a rank's timestamps through its clock offsets, interpolated
        # (and extrapolated) linearly between the offsets taken at the start and at the
        # end: an affine map. The same map must take every value of the location. (Across
        # namespaced "hosts" the offsets are measured over TCP, so the drift they imply
        # can be far from a real clock's: allow a few percent.)
        d = [g[0] - v[0] for g, v in zip(got, want)]
        span = want[-1][0] - want[0][0]
        slope = (d[-1] - d[0]) / span if span else 0.0
        off = [round(d[0] + slope * (v[0] - want[0][0])) - x for v, x in zip(want, d)]
        t.check(abs(slope) < 0.05 and all(abs(o) <= 2 for o in off),
                '%s: timestamps mapped by one clock correction (shift %d, drift %.2g)'
                % (w, d[0], slope), 'shifts %r' % d)
        got = [(v[0], g[1]) if abs(o) <= 2 else g for g, v, o in zip(got, want, off)]
    t.check(got == want, '%s: exactly the %d values the plugin delivered, at its timestamps'
            % (w, len(want)), 'got %r, want %r' % (got[:6], want[:6]))
    times = [e.time for e in evs]
    t.eq(times, sorted(times), '%s: timestamps non-decreasing' % w)
    return mloc.ref


def scope_of(mv, per, owner):
    """The MetricInstance scope (type, ref) the contract gives a counter of run_per per
    added on location owner."""
    loc = mv.locations[owner]
    group = mv.groups[loc.group]
    if per == 'thread':
        return ('LOCATION', owner)
    if per == 'process':
        return ('LOCATION_GROUP', loc.group)
    if per == 'host':
        return ('SYSTEM_TREE_NODE', group.node)
    roots = mv.root_nodes()
    return ('SYSTEM_TREE_NODE', roots[0].ref if len(roots) == 1 else None)


def check_host_node(t, mv, owner, host, what):
    """The owner's location group is below a system tree node named host."""
    loc = mv.locations[owner]
    node = mv.groups[loc.group].node
    t.eq(mv.nodes[node].name if node in mv.nodes else None, host,
         '%s: %s\'s location group is below the node of host %s' % (what, loc.name, host))


def enter_counts(mv, loc_ref):
    return collections.Counter(e.region for e in mv.events.get(loc_ref, []) if e.kind == 'Enter')


def host_name():
    return socket.gethostname()


def vt_lines(run, pattern):
    """vt's lines (error or warning) that match the regex pattern."""
    rx = re.compile(pattern)
    return [m for m in run.messages if rx.search(m)]


# ---------------------------------------------------------------------------------------
# Runs of prog.c with plugins: what test_plugins.py and test_plugins_scorep.py share


class Use:
    """One plugin in a run. iface 'vt' or 'scorep'; lib: the library (libLIB.so); sync and
    per: the short names of VT_SYNCH/SP_SYNC and VT_PER; request: the names it is asked for,
    in order; expansion: the counters they stand for; version, delta_t: Score-P's."""

    def __init__(self, iface, lib, sync, per, request, expansion, version=None, delta_t=0):
        self.iface = iface
        self.lib = lib
        self.sync = sync
        self.per = per
        self.request = request
        self.expansion = expansion
        self.version = version
        self.delta_t = delta_t

    @property
    def is_async(self):
        return self.sync not in OCCURRENCE

    def member(self, name):
        return vt_member(name) if self.iface == 'vt' else sp_member(name)

    def defines(self):
        if self.iface == 'vt':
            return vt_defines(self.sync, self.per)
        return sp_defines(self.lib, self.sync, self.per, self.version, self.delta_t)


class Variant:
    """One run of prog.c: label, the plugins, prog.c's k, more environment; flushes: the
    run must flush buffers."""

    def __init__(self, label, uses, k=5, env=None, flushes=False):
        self.label = label
        self.uses = uses
        self.k = k
        self.env = env or {}
        self.flushes = flushes

    def plugin_env(self, plugdir):
        """VT_PLUGIN_CNTR_METRICS and VT_PLUGIN_CNTR_PATH for the VampirTrace plugins;
        SCOREP_METRIC_PLUGINS, SCOREP_METRIC_<NAME>_PLUGIN and LD_LIBRARY_PATH (as a
        Score-P user has it) for the Score-P ones."""
        env = {}
        vt = [u for u in self.uses if u.iface == 'vt']
        sp = [u for u in self.uses if u.iface == 'scorep']
        if vt:
            env['VT_PLUGIN_CNTR_PATH'] = plugdir
            env['VT_PLUGIN_CNTR_METRICS'] = ':'.join('%s_%s' % (u.lib, r) for u in vt
                                                     for r in u.request)
        if sp:
            env['SCOREP_METRIC_PLUGINS'] = ','.join(u.lib for u in sp)
            for u in sp:
                env['SCOREP_METRIC_%s' % u.lib.upper()] = ','.join(u.request)
            old = os.environ.get('LD_LIBRARY_PATH')
            env['LD_LIBRARY_PATH'] = plugdir + (':' + old if old else '')
        return env


def other_kinds(mv, ref):
    """Event kinds of a location but Metric and BufferFlush."""
    return collections.Counter(e.kind for e in mv.events.get(ref, [])
                               if e.kind not in ('Metric', 'BufferFlush'))


class ProgRuns:
    """prog.c built with vtcc and without, its uninstrumented output and, per k, the trace
    of a run without plugins (what each thread records besides values)."""

    def __init__(self, t, ks):
        import vtmetrics
        self.t = t
        self.exe, self.plain_exe = t.parallel(
            lambda inst: t.compile('prog', [prog_source(t)], opt='-O0', flags=['-pthread'],
                                   instrument=inst), [True, False])
        self.plains = {}
        self.ref_kinds = {}
        for k in sorted(set(ks)):
            what = 'without plugins, k=%d' % k
            self.plains[k] = t.run(self.plain_exe, args=[str(k)], label='plain-k%d' % k)
            t.eq(self.plains[k].status, 0, 'uninstrumented, k=%d: exit status 0' % k)
            ref = t.run(self.exe, args=[str(k)], label='noplugins-k%d' % k,
                        env={'TP_LOG': os.path.join(t.work, 'noplugins-k%d.log' % k)})
            t.clean_run(ref, what)
            mv = vtmetrics.read_metrics(t.trace(ref, what).path)
            self.ref_kinds[k] = {n: other_kinds(mv, r)
                                 for n, r in prog_locations(t, mv, k, what).items()}

    def run(self, v, plugdir):
        """Runs variant v; returns (run, log)."""
        t = self.t
        log_path = os.path.join(t.newdir('log-' + v.label), 'plugins.log')
        env = v.plugin_env(plugdir)
        env['TP_LOG'] = log_path
        env.update(v.env)
        run = t.run(self.exe, args=[str(v.k)], env=env, label=v.label)
        return run, read_log(log_path)

    def check(self, v, run, log, samples=4):
        """Everything a run of prog.c with good plugins must show: the program's output,
        a clean trace, the calling order of each plugin, exactly the values produced on
        the right locations, with the right definitions."""
        import vtmetrics
        t = self.t
        what = v.label
        t.same_as_plain(run, self.plains[v.k], what)
        t.clean_run(run, what)
        tr = t.trace(run, what)
        mv = vtmetrics.read_metrics(tr.path)
        vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
        locs = prog_locations(t, mv, v.k, what)
        if len(locs) != PROG_THREADS + 1:
            return
        for n, ref in sorted(locs.items()):
            t.eq(other_kinds(mv, ref), self.ref_kinds[v.k].get(n),
                 '%s: %s: events other than Metric as without plugins'
                 % (what, mv.locations[ref].name))
        threads = log.threads(run.pid)
        t.eq(sorted(threads), [-1] + list(range(PROG_THREADS)),
             '%s: the program logged its threads' % what)
        master = threads.get(-1)
        loc_of_tid = {tid: locs[n] for n, tid in threads.items() if n in locs}
        flushes = {ref: sum(1 for e in mv.events.get(ref, []) if e.kind == 'BufferFlush')
                   for ref in locs.values()}
        if v.flushes:
            t.check(sum(flushes.values()) > 0, '%s: the run flushed buffers (%r)'
                    % (what, flushes))
        sync_counters = collections.defaultdict(list)  # location -> [(Counter, class, Use)]
        n_async = 0
        for u in v.uses:
            w = '%s: %s' % (what, u.lib)
            t.eq(log.pids(u.lib), [run.pid], '%s: called in the program\'s process only' % w)
            proc = log.process(u.lib, run.pid)
            owners_want = list(threads.values()) if u.per == 'thread' else [master]
            exp = Expect(u.iface, u.sync, u.request, u.expansion, owners_want, master,
                         version=u.version)
            owners = check_calls(t, proc, exp, what)
            if u.iface == 'vt':
                check_thread_registered(t, proc, set(threads.values()), master, what)
            occ = OCCURRENCE.get(u.sync, ASYNC_OCCURRENCE)
            classes = {name: check_member(t, mv, u.member(name), occ[0], occ[1], w)
                       for name in u.expansion}
            if u.per == 'host':
                check_host_node(t, mv, locs[-1], host_name(), w)
            if not u.is_async:
                for tid, counters in owners.items():
                    for c in counters:
                        sync_counters[loc_of_tid.get(tid)].append((c, classes.get(c.name), u))
                continue
            for tid, counters in owners.items():
                owner = loc_of_tid.get(tid)
                if owner is None:
                    continue
                for c in counters:
                    n_async += 1
                    self.check_async(v, u, c, owner, mv, classes, flushes, samples, w)
        for n, ref in sorted(locs.items()):
            entries = sorted(sync_counters.get(ref, []), key=lambda e: e[0].add.index)
            if not entries:
                check_no_metrics(t, mv, ref, what)
                continue
            delta = [e for e in entries if e[2].delta_t]
            if delta:
                for c, cls, u in delta:
                    check_delta(t, mv, ref, c, cls, u.delta_t, what,
                                others=set(e[1] for e in entries))
                continue
            cs = [c for c, _, _ in entries]
            calls = {c: 'get_optional_value' if u.sync == 'optional' else 'get_current_value'
                     for c, _, u in entries}
            check_sync_location(t, mv, ref, cs, {c: cls for c, cls, _ in entries},
                                {c: sync_answers(c, calls[c]) for c in cs}, what)
            if len(cs) > 1 and all(u.sync in ('sync', 'strict') for _, _, u in entries):
                check_sync_grouped(t, mv, ref, cs, {c: cls for c, cls, _ in entries},
                                   {c: sync_answers(c) for c in cs}, what)
        t.eq(len(mv.locs_of_type('METRIC')), n_async,
             '%s: one METRIC location per asynchronous counter instance' % what)

    def check_async(self, v, u, c, owner, mv, classes, flushes, samples, w):
        t = self.t
        cw = '%s: %r' % (w, c)
        samples = int(v.env.get('TP_SAMPLES', samples))
        t.eq(len(c.samples()), samples, '%s: the plugin took %d values' % (cw, samples))
        if u.sync == 'callback':
            answers = [l.args['ret'] for l in c.internal('@callback')]
            t.eq(answers, ['0'] * samples, '%s: every callback answered OK' % cw)
        else:
            delivered = [x for b in c.batches() for x in b]
            t.eq(delivered, c.samples(), '%s: get_all_values returned every value once, '
                 'in order' % cw)
        if u.sync == 'event':
            # "at each buffer flush of the owner thread and at its end"
            gav = c.calls('get_all_values')
            t.eq(len(gav), flushes[owner] + 1, '%s: get_all_values at each of the owner\'s '
                 '%d buffer flushes and at its end' % (cw, flushes[owner]))
        check_async_counter(t, mv, c, owner, scope_of(mv, u.per, owner), classes.get(c.name),
                            w, callback=u.sync == 'callback')


def check_delta(t, mv, loc_ref, c, cls, delta_t, what, others=()):
    """A Score-P SYNC counter with delta_t: its Metric events each directly follow an
    Enter/Leave of the location at its time; they hold the values get_optional_value gave
    (in order; each given value at most once), at least delta_t ticks apart; no more reads
    than Enter/Leave events; and (the program naps for longer) at least 2 values. others:
    the classes of the location's other counters."""
    w = '%s: %s: %s (delta_t %d)' % (what, mv.locations[loc_ref].name, c.name, delta_t)
    evs = mv.events.get(loc_ref, [])
    problems = []
    got = []
    last_el = None
    for i, e in enumerate(evs):
        if e.kind in ('Enter', 'Leave'):
            last_el = (i, e.time)
        elif e.kind == 'Metric':
            if e.metric != cls:
                if e.metric not in others:
                    problems.append('event %d: a Metric event of an unknown metric %r'
                                    % (i, e.metric))
                continue
            if last_el is None or e.time != last_el[1] or any(
                    x.kind != 'Metric' for x in evs[last_el[0] + 1:i]):
                problems.append('event %d: not right after an Enter/Leave at its time' % i)
            got.append((e.time, e.values))
    t.eq(problems[:3], [], '%s: values right after Enter/Leave events, at their time' % w)
    given = [(decode(c.kind, raw),) for present, raw in sync_answers(c, 'get_optional_value')
             if present]
    values = [v for _, v in got]
    it = iter(given)
    t.check(all(v in it for v in values), '%s: the values in the trace are values the plugin '
            'gave, in order, each once' % w, 'trace %r, given %r' % (values, given))
    if values != given:
        t.note('%s: %d values given, %d recorded' % (w, len(given), len(values)))
    gaps = [b[0] - a[0] for a, b in zip(got, got[1:])]
    t.check(all(g >= delta_t for g in gaps), '%s: values at least delta_t apart' % w,
            'gaps %r' % gaps)
    n_el = sum(1 for e in evs if e.kind in ('Enter', 'Leave'))
    reads = len(c.calls('get_optional_value'))
    t.check(reads <= n_el, '%s: at most one read per Enter/Leave (%d reads, %d events)'
            % (w, reads, n_el))
    t.check(len(values) >= 2, '%s: at least 2 values recorded (%d)' % (w, len(values)))
