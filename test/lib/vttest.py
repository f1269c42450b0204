# SPDX-License-Identifier: BSD-3-Clause
"""Helpers shared by vt's end-to-end tests: build with vtcc, run, read the trace three ways.

A test script does::

    import vttest

    def body(t):
        exe = t.compile('prog', ['prog.c'], compiler='gcc', opt='-O2')
        plain = t.run(t.compile('prog', ['prog.c'], instrument=False), label='plain')
        run = t.run(exe, env={'VT_BUFFER_SIZE': '1M'})
        t.same_as_plain(run, plain, 'gcc -O2')   # stdout, exit status, own stderr
        t.clean_run(run, 'gcc -O2')              # no vt error or warning
        tr = t.trace(run, 'gcc -O2')             # read and cross-checked three ways
        t.enter_counts(tr.loc('Master thread'), {'main': 1, 'work': 10}, 'gcc -O2')

    vttest.main('prog', body)

Every check prints one line ("ok" or "FAIL"); the script ends with "N passed, N failed"
and exits non-zero when anything failed. An exception counts as a failure.

The traces are read with python3-otf2 (only Debian's /usr/bin/python3 has it), with
otf2-print (whose text output is parsed) and with vt-profile (--format json), and the
readers must agree on every count.
"""

import collections
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import traceback

import otf2events

# The programs under test get the default dispositions of the signals the tests send or
# raise: a suite started under nohup (SIGHUP ignored) or as a background job of a shell
# (SIGINT and SIGQUIT ignored) would otherwise hand the ignored ones down to every program,
# which then outlives the kill a test sends it.
for _sig in (signal.SIGHUP, signal.SIGQUIT, signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2):
    if signal.getsignal(_sig) == signal.SIG_IGN:
        signal.signal(_sig, signal.SIG_DFL)

try:
    import otf2
except ImportError:  # pragma: no cover - a setup error, reported by main()
    otf2 = None

BUILD_ROOT = os.environ.get('VT_BUILD_ROOT', '')
SOURCE_ROOT = os.environ.get('VT_SOURCE_ROOT', '')
VTCC = os.environ.get('VTCC', '')
VTCXX = os.path.join(os.path.dirname(VTCC), 'vtcxx')
VTFORT = os.path.join(os.path.dirname(VTCC), 'vtfort')
VT_PROFILE = os.environ.get('VT_PROFILE', '')
VT_INFO = os.environ.get('VT_INFO', '')
VT_SCORE = os.environ.get('VT_SCORE', '')

# The plain compilers, for the uninstrumented reference builds.
DEFAULT_COMPILER = {'c': 'gcc', 'c++': 'g++', 'fortran': 'gfortran'}
# vtcc's option that picks the underlying compiler, per language.
COMPILER_OPTION = {'c': '-vt:cc', 'c++': '-vt:cxx', 'fortran': '-vt:fc'}

# "vt[PID]: message"
VT_LINE = re.compile(r'^vt\[(\d+)\]: (.*)$')
# "trace written to DIR/PREFIX.otf2 (N events, L locations)", " in X s" after it when writing
# took more than 2 s
WRITTEN = re.compile(r'^trace written to (.+\.otf2) \((\d+) events?, (\d+) locations?\)'
                     r'(?: in \d+\.\d s)?$')


class Failure(Exception):
    """A step that the rest of a test cannot do without (a build, a run) went wrong."""


# ---------------------------------------------------------------------------------------
# Results of a run


class Run:
    """One run of a program: its output, status and vt's messages."""

    def __init__(self, cmd, env, cwd, gdir, proc, stdout, stderr):
        self.cmd = cmd
        self.env = env  # the VT_* variables given (for messages)
        self.cwd = cwd
        self.gdir = gdir
        self.pid = proc.pid
        self.status = proc.returncode
        self.stdout = stdout
        self.stderr = stderr
        self.vt = []  # (pid, message) of the vt[PID]: lines
        self.program_stderr = []  # the program's own stderr lines
        for line in stderr.splitlines():
            m = VT_LINE.match(line)
            if m:
                self.vt.append((int(m.group(1)), m.group(2)))
            else:
                self.program_stderr.append(line)

    @property
    def messages(self):
        return [msg for _, msg in self.vt]

    @property
    def errors(self):
        return [m for m in self.messages if m.startswith('error:')]

    @property
    def warnings(self):
        return [m for m in self.messages if m.startswith('warning:')]

    @property
    def written(self):
        """(path, events, locations) of each 'trace written to' notice."""
        out = []
        for m in self.messages:
            w = WRITTEN.match(m)
            if w:
                out.append((w.group(1), int(w.group(2)), int(w.group(3))))
        return out

    @property
    def prefix(self):
        """The archive name the contract gives: VT_FILE_PREFIX, else EXE.vt."""
        return self.env.get('VT_FILE_PREFIX') or os.path.basename(self.cmd[0]) + '.vt'

    def anchor(self, prefix=None):
        return os.path.join(self.gdir, (prefix or self.prefix) + '.otf2')

    def describe(self):
        env = ' '.join('%s=%s' % kv for kv in sorted(self.env.items()))
        return '%s %s' % (env, ' '.join(self.cmd))


# ---------------------------------------------------------------------------------------
# The trace as python3-otf2 reads it


class RegionDef:
    def __init__(self, ref, name, canonical, source_file, line):
        self.ref = ref
        self.name = name
        self.canonical = canonical
        self.source_file = source_file
        self.line = line

    def __repr__(self):
        return 'Region(%r, file=%r, line=%r)' % (self.name, self.source_file, self.line)


class Loc:
    """What one location of the trace holds."""

    def __init__(self, ref, name, number_of_events):
        self.ref = ref
        self.name = name
        self.number_of_events = number_of_events  # as the definition says
        self.events = 0  # as read
        self.enters = collections.Counter()  # region name -> Enter events
        self.leaves = collections.Counter()
        self.kinds = collections.Counter()  # event class name -> count
        self.flushes = []  # (time, stop_time)
        self.onoff = []  # (index of the event, 'ON'/'OFF')
        self.kinds_seq = []  # event kind per event, in order ('Enter', 'Leave', ...)
        self.max_depth = 0
        self.problems = []  # balance and time-order problems, first few
        self.first_time = None
        self.last_time = None

    def problem(self, text):
        if len(self.problems) < 5:
            self.problems.append(text)
        elif len(self.problems) == 5:
            self.problems.append('...')

    def __repr__(self):
        return 'Loc(%r, %d events)' % (self.name, self.events)


class Trace:
    def __init__(self, path):
        self.path = path
        self.regions = []
        self.locations = []
        self.clock = None

    def loc(self, name):
        for loc in self.locations:
            if loc.name == name:
                return loc
        raise Failure('%s: no location named %r (have %r)'
                      % (self.path, name, [l.name for l in self.locations]))

    def region(self, name):
        found = [r for r in self.regions if r.name == name]
        if not found:
            raise Failure('%s: no region named %r' % (self.path, name))
        return found[0]

    def enters(self):
        """Enter events per region name over all locations."""
        total = collections.Counter()
        for loc in self.locations:
            total.update(loc.enters)
        return total

    def kinds(self):
        total = collections.Counter()
        for loc in self.locations:
            total.update(loc.kinds)
        return total

    @property
    def events(self):
        return sum(loc.events for loc in self.locations)


def require_otf2():
    """Fails the test when python3-otf2 is not importable (the readers below need it)."""
    if otf2 is None:
        raise Failure('python3-otf2 is missing: run the tests with /usr/bin/python3')


def read_trace(path):
    """Reads a trace with python3-otf2 into a Trace summary (balance checked per location)."""
    require_otf2()
    tr = Trace(path)
    stacks = {}
    with otf2.reader.open(path, batch_events=10000) as reader:
        defs = reader.definitions
        tr.clock = defs.clock_properties
        for r in defs.regions:
            tr.regions.append(RegionDef(r._ref, r.name, r.canonical_name, r.source_file,
                                        r.begin_line_number))
        byref = {}
        for l in defs.locations:
            loc = Loc(l._ref, l.name, l.number_of_events)
            tr.locations.append(loc)
            byref[l._ref] = loc
            stacks[l._ref] = []
        lo = tr.clock.global_offset
        hi = lo + tr.clock.trace_length
        for l, ev in otf2events.events(reader):
            loc = byref[l._ref]
            kind = type(ev).__name__
            loc.events += 1
            loc.kinds[kind] += 1
            loc.kinds_seq.append(kind)
            t = ev.time
            if loc.last_time is not None and t < loc.last_time:
                loc.problem('event %d (%s) at time %d is before the previous one at %d'
                            % (loc.events, kind, t, loc.last_time))
            if not lo <= t <= hi:
                loc.problem('event %d (%s) at time %d is outside the clock range [%d, %d]'
                            % (loc.events, kind, t, lo, hi))
            if loc.first_time is None:
                loc.first_time = t
            loc.last_time = t
            stack = stacks[l._ref]
            if kind == 'Enter':
                name = ev.region.name
                loc.enters[name] += 1
                stack.append(name)
                loc.max_depth = max(loc.max_depth, len(stack))
            elif kind == 'Leave':
                name = ev.region.name
                loc.leaves[name] += 1
                if not stack:
                    loc.problem('event %d: Leave %r with no region open' % (loc.events, name))
                elif stack[-1] != name:
                    loc.problem('event %d: Leave %r while %r is the innermost open region'
                                % (loc.events, name, stack[-1]))
                    stack.pop()
                else:
                    stack.pop()
            elif kind == 'BufferFlush':
                loc.flushes.append((t, ev.stop_time))
            elif kind == 'MeasurementOnOff':
                mode = str(ev.measurement_mode).rsplit('.', 1)[-1]
                loc.onoff.append((loc.events - 1, mode))
    for loc in tr.locations:
        if stacks[loc.ref]:
            loc.problem('regions still open at the end: %r' % stacks[loc.ref])
    return tr


# ---------------------------------------------------------------------------------------
# The trace as otf2-print prints it

PRINT_LOCATION = re.compile(r'^LOCATION\s+(\d+)\s+Name: "(.*)" <\d+>, Type: \w+, '
                            r'# Events: (\d+),')
PRINT_EVENT = re.compile(r'^([A-Z][A-Z_]*)\s+(\d+)\s+(\d+)(?:\s+(.*))?$')
PRINT_REGION = re.compile(r'Region: "(.*)" <\d+>')


# Where otf2-print's name is not python3-otf2's one in capitals.
PRINT_NAMES = {'IoChangeFlags': 'IoChangeStatusFlags'}


def print_kind(kind):
    """otf2-print's BUFFER_FLUSH -> python3-otf2's BufferFlush (MPI_SEND -> MpiSend...)."""
    k = ''.join(w.capitalize() for w in kind.split('_'))
    return PRINT_NAMES.get(k, k)


def otf2_print(args):
    """Runs otf2-print with args: (exit status, stdout, stderr)."""
    p = subprocess.run(['otf2-print'] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, errors='replace')
    return p.returncode, p.stdout, p.stderr


def otf2_print_events(path, problems):
    """The event lines of otf2-print's text of trace path, each as PRINT_EVENT's match
    (kind, location, time, rest); a failed run or a line that does not parse is appended to
    problems."""
    rc, out, err = otf2_print([path])
    if rc != 0 or err.strip():
        problems.append('otf2-print exited %d: %s' % (rc, err.strip()[:500]))
    in_events = False
    for line in out.splitlines():
        if line.startswith('-----'):
            in_events = True
            continue
        if not in_events or not line.strip():
            continue
        if line.lstrip().startswith('ADDITIONAL ATTRIBUTES:'):
            continue  # the attributes of the event above (ring mode's open frames)
        m = PRINT_EVENT.match(line)
        if not m:
            problems.append('otf2-print: cannot parse %r' % line)
            continue
        yield m


def read_with_otf2_print(path):
    """Returns ({location id: summary dict}, problems) from otf2-print's text output."""
    problems = []
    locs = {}
    rc, out, err = otf2_print(['-G', path])
    if rc != 0 or err.strip():
        problems.append('otf2-print -G exited %d: %s' % (rc, err.strip()[:500]))
    for line in out.splitlines():
        m = PRINT_LOCATION.match(line)
        if m:
            locs[int(m.group(1))] = {
                'name': m.group(2), 'defined_events': int(m.group(3)), 'events': 0,
                'enters': collections.Counter(), 'leaves': collections.Counter(),
                'kinds': collections.Counter()}
    for m in otf2_print_events(path, problems):
        kind, lid = m.group(1), int(m.group(2))
        if lid not in locs:
            problems.append('otf2-print: event on undefined location %d' % lid)
            continue
        loc = locs[lid]
        loc['events'] += 1
        kind = print_kind(kind)
        loc['kinds'][kind] += 1
        if kind in ('Enter', 'Leave'):
            r = PRINT_REGION.search(m.group(4) or '')
            name = r.group(1) if r else '?'
            loc['enters' if kind == 'Enter' else 'leaves'][name] += 1
    return locs, problems


# ---------------------------------------------------------------------------------------
# The trace as vt-profile reports it


def otf2_properties(path):
    """{name: value} of a trace's properties, as python3-otf2 reads them."""
    import _otf2
    import otf2
    with otf2.reader.open(path) as r:
        return {n: _otf2.Reader_GetProperty(r.handle, n)
                for n in _otf2.Reader_GetPropertyNames(r.handle)}


def otf2_print_properties(path):
    """{name: value} of a trace's properties, as otf2-print -I shows them."""
    out = subprocess.run(['otf2-print', '-I', path], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    props, name = {}, None
    for line in out.splitlines():
        parts = line.split(None, 2)
        if line.startswith('Property name'):
            name = parts[2].strip()
        elif line.startswith('Property value') and name:
            props[name] = parts[2].strip() if len(parts) > 2 else ''
            name = None
    return props


def otf2_markers(path):
    """[(category, severity, text)] of a trace's markers, as otf2-marker prints them."""
    p = subprocess.run(['otf2-marker', path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    out, cat = [], None
    for line in p.stdout.splitlines():
        m = re.match(r'MARKER_DEF\s+Group: "([^"]*)", Category: "([^"]*)", Severity: (\w+)',
                     line)
        if m:
            cat = (m.group(2), m.group(3))
            continue
        m = re.match(r'MARKER\s+Time: \d+, Duration \d+, Scope: \w+:\d+, Text: "(.*)"$', line)
        if m and cat:
            out.append((cat[0], cat[1], m.group(1)))
    return out


def otf2_marker_times(path):
    """[(time, scope, text)] of a trace's markers, as otf2-marker prints them."""
    p = subprocess.run(['otf2-marker', path], stdout=subprocess.PIPE, universal_newlines=True)
    out = []
    for line in p.stdout.splitlines():
        m = re.match(r'MARKER\s+Time: (\d+), Duration \d+, Scope: (\w+:\d+), Text: "(.*)"$',
                     line)
        if m:
            out.append((int(m.group(1)), m.group(2), m.group(3)))
    return out


def read_with_vt_profile(path):
    """Returns (vt-profile's JSON document, problems), or (None, [why]) when not built.

    The document (vt-profile --format json, see tools/vt-profile/report.c) has "locations"
    (id, name, events, enters, leaves), "regions" (id, name, file, line, calls,
    calls_per_location {location id: calls}), "events" {kind: count} and "problems_total".
    """
    if not VT_PROFILE or not os.access(VT_PROFILE, os.X_OK):
        return None, ['vt-profile not built (%r)' % VT_PROFILE]
    p = subprocess.run([VT_PROFILE, '--format', 'json', path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, errors='replace',
                       timeout=120)
    problems = []
    if p.returncode != 0:
        problems.append('vt-profile --format json exited %d: %s'
                        % (p.returncode, p.stderr.strip()[:500]))
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        return {}, problems + ['vt-profile --format json printed no valid JSON (%s): %r'
                               % (e, p.stdout[:300])]
    return doc, problems


# ---------------------------------------------------------------------------------------
# The test


def _fmt_counts(c):
    return '{' + ', '.join('%r: %d' % kv for kv in sorted(dict(c).items())) + '}'


def _diff_counts(got, want):
    keys = sorted(set(got) | set(want))
    return ', '.join('%r: got %d want %d' % (k, got.get(k, 0), want.get(k, 0))
                     for k in keys if got.get(k, 0) != want.get(k, 0))


class Test:
    """Counts checks, builds and runs programs of one case, reads their traces."""

    def __init__(self, name, script):
        self.name = name
        self.src = os.path.dirname(os.path.abspath(script))
        self.passed = 0
        self.failed = 0
        base = os.path.join(BUILD_ROOT, 'test', 'e2e') if BUILD_ROOT else '/tmp'
        self.work = os.path.join(base, name + '.work')
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self._dirs = collections.Counter()
        self._lock = threading.Lock()

    # -- checks ---------------------------------------------------------------------------

    def check(self, cond, what, detail=''):
        if cond:
            self.passed += 1
            print('ok   - %s' % what)
        else:
            self.failed += 1
            print('FAIL - %s%s' % (what, (': ' + detail) if detail else ''))
        sys.stdout.flush()
        return bool(cond)

    def eq(self, got, want, what):
        return self.check(got == want, what, 'expected %r, got %r' % (want, got))

    def note(self, text):
        print('note: %s' % text)
        sys.stdout.flush()

    def fail(self, what, detail=''):
        return self.check(False, what, detail)

    def finish(self):
        """Prints the summary line and exits: 0 when every check passed (and there was one).

        The work directory is removed after a clean pass unless VT_E2E_KEEP is set; after
        a failure it stays for a look at the programs and traces.
        """
        ok = self.passed and not self.failed
        if ok and not os.environ.get('VT_E2E_KEEP'):
            shutil.rmtree(self.work, ignore_errors=True)
        elif not ok:
            print('work directory kept: %s' % self.work)
        print('%d passed, %d failed' % (self.passed, self.failed))
        sys.stdout.flush()
        sys.exit(0 if ok else 1)

    # -- files ----------------------------------------------------------------------------

    def newdir(self, label):
        with self._lock:
            self._dirs[label] += 1
            d = os.path.join(self.work, '%s-%d' % (label, self._dirs[label]))
        os.makedirs(d)
        return d

    def source(self, name):
        return os.path.join(self.src, name)

    # -- building -------------------------------------------------------------------------

    def compile_cmd(self, out, sources, lang='c', compiler=None, opt='-O0', flags=(),
                    instrument=True):
        if instrument:
            driver = {'c': VTCC, 'c++': VTCXX, 'fortran': VTFORT}[lang]
            if not os.access(driver, os.X_OK):
                raise Failure('the compiler driver %r is not built' % driver)
            cmd = [driver]
            if compiler:
                cmd += [COMPILER_OPTION[lang], compiler]
        else:
            cmd = [compiler or DEFAULT_COMPILER[lang]]
        cmd += [opt] if opt else []
        cmd += [s if os.path.isabs(s) else self.source(s) for s in sources]
        cmd += ['-o', out] + list(flags)
        return cmd

    def compile(self, out, sources, lang='c', compiler=None, opt='-O0', flags=(),
                instrument=True, outdir=None):
        """Builds OUT (in its own directory unless outdir) and returns its absolute path."""
        outdir = outdir or self.newdir('build')
        path = os.path.join(outdir, out)
        cmd = self.compile_cmd(path, sources, lang, compiler, opt, flags, instrument)
        print('build: %s' % ' '.join(cmd))
        sys.stdout.flush()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, errors='replace', cwd=outdir,
                           timeout=300)
        if p.returncode != 0 or not os.path.exists(path):
            raise Failure('build failed (status %d): %s\n%s'
                          % (p.returncode, ' '.join(cmd), p.stdout))
        return path

    def parallel(self, fn, items, jobs=2):
        """Calls fn(item) for each item, two at a time; returns the results in order."""
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(fn, items))

    # -- running --------------------------------------------------------------------------

    def run(self, exe, args=(), env=None, gdir=None, timeout=120, label='run'):
        """Runs exe in a fresh working directory with a fresh VT_PFORM_GDIR.

        The VT_* variables of the test's own environment are dropped; env adds variables
        (a value of None removes one, e.g. {'VT_PFORM_GDIR': None}).
        """
        base = self.newdir(label)
        cwd = os.path.join(base, 'cwd')
        os.makedirs(cwd)
        if gdir is None:
            gdir = os.path.join(base, 'trace')
            os.makedirs(gdir)
        full = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
        given = {'VT_PFORM_GDIR': gdir}
        given.update(env or {})
        for k, v in given.items():
            if v is None:
                full.pop(k, None)
            else:
                full[k] = v
        given = {k: v for k, v in given.items() if v is not None}
        # scripts/test-sanitize.sh: the sanitizer's runtime must come before libvt.
        if os.environ.get('VT_TEST_PRELOAD'):
            full['LD_PRELOAD'] = ' '.join([os.environ['VT_TEST_PRELOAD']] +
                                          ([given['LD_PRELOAD']] if 'LD_PRELOAD' in given
                                           else []))
        cmd = [exe] + list(args)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=cwd, env=full, universal_newlines=True,
                                errors='replace')
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            raise Failure('timed out after %ds: %s\nstdout: %s\nstderr: %s'
                          % (timeout, ' '.join(cmd), out[-2000:], err[-2000:]))
        run = Run(cmd, given, cwd, given.get('VT_PFORM_GDIR', cwd), proc, out, err)
        print('run: %s -> status %d' % (run.describe(), run.status))
        for line in err.splitlines()[:20]:
            print('  stderr: %s' % line)
        sys.stdout.flush()
        return run

    # -- checks on runs -------------------------------------------------------------------

    def same_as_plain(self, run, plain, what):
        """The program's stdout, status and own stderr are those of the uninstrumented run."""
        self.eq(run.stdout, plain.stdout, '%s: stdout as uninstrumented' % what)
        self.eq(run.status, plain.status, '%s: exit status as uninstrumented' % what)
        self.eq(run.program_stderr, plain.program_stderr,
                '%s: program\'s own stderr as uninstrumented' % what)

    def vt_pids(self, run, what):
        """Every vt line carries the program's PID."""
        bad = [(pid, m) for pid, m in run.vt if pid != run.pid]
        self.check(not bad, '%s: vt lines carry the program\'s PID %d' % (what, run.pid),
                   repr(bad[:3]))

    def clean_run(self, run, what, allow=()):
        """No vt error or warning (other than messages matching a regex in allow)."""
        bad = [m for m in run.errors + run.warnings
               if not any(re.search(a, m) for a in allow)]
        self.check(not bad, '%s: no vt errors or warnings' % what, repr(bad))
        self.vt_pids(run, what)

    # -- traces ---------------------------------------------------------------------------

    def trace(self, run, what, prefix=None, notice=True, profile=True):
        """Reads run's trace (PREFIX.otf2, default: run.prefix) and checks what holds for
        every trace.

        Checks: the archive exists and opens, every location is balanced with
        non-decreasing timestamps inside the clock range, the number of events each
        location's definition gives is the number read, otf2-print and vt-profile agree
        with python3-otf2 on every count, and (notice=True) vt's "trace written to" line
        names this archive with its number of events and locations.
        """
        path = run.anchor(prefix)
        if not self.check(os.path.isfile(path), '%s: trace %s exists' % (what, path),
                          'directory holds %r' % sorted(os.listdir(run.gdir))
                          if os.path.isdir(run.gdir) else 'no directory'):
            raise Failure('%s: no trace' % what)
        try:
            tr = read_trace(path)
        except Exception as e:  # an unreadable trace is a failure of this check
            self.fail('%s: python3-otf2 reads the trace' % what, repr(e))
            raise Failure('%s: trace unreadable' % what)
        self.check(tr.locations, '%s: trace has locations' % what)
        # Contract: every location has a (possibly empty) local definition file.
        evdir = path[:-len('.otf2')]
        missing = [l.name for l in tr.locations
                   if not os.path.isfile(os.path.join(evdir, '%d.def' % l.ref))]
        self.eq(missing, [], '%s: every location has a local definition file' % what)
        for loc in tr.locations:
            self.check(not loc.problems, '%s: %s balanced, time-ordered' % (what, loc.name),
                       '; '.join(loc.problems))
            self.eq(loc.events, loc.number_of_events,
                    '%s: %s: events read = the definition\'s event count' % (what, loc.name))
            self.eq(dict(loc.leaves), dict(loc.enters),
                    '%s: %s: Leave count per region = Enter count' % (what, loc.name))
        self.cross_check_otf2_print(tr, what)
        if profile:
            self.cross_check_profile(tr, what)
        if notice:
            self.notice(run, tr, what)
        return tr

    def notice(self, run, tr, what):
        """One "trace written to PATH (N events, L locations)" line, matching tr."""
        written = [(os.path.realpath(os.path.join(run.cwd, p)), n, l)
                   for p, n, l in run.written]
        self.eq(written, [(os.path.realpath(tr.path), tr.events, len(tr.locations))],
                '%s: one "trace written to PATH (N events, L locations)" line' % what)

    def cross_check_otf2_print(self, tr, what):
        locs, problems = read_with_otf2_print(tr.path)
        self.check(not problems, '%s: otf2-print reads the trace cleanly' % what,
                   '; '.join(problems[:5]))
        self.eq(sorted((lid, l['name']) for lid, l in locs.items()),
                sorted((l.ref, l.name) for l in tr.locations),
                '%s: otf2-print: same locations' % what)
        for loc in tr.locations:
            p = locs.get(loc.ref)
            if p is None:
                continue
            same = (p['enters'] == loc.enters and p['leaves'] == loc.leaves
                    and p['kinds'] == loc.kinds and p['events'] == loc.events
                    and p['defined_events'] == loc.number_of_events)
            self.check(same, '%s: %s: otf2-print agrees with python3-otf2 (%d events)'
                       % (what, loc.name, loc.events),
                       'otf2-print enters %s kinds %s; python3-otf2 enters %s kinds %s'
                       % (_fmt_counts(p['enters']), _fmt_counts(p['kinds']),
                          _fmt_counts(loc.enters), _fmt_counts(loc.kinds)))

    def cross_check_profile(self, tr, what):
        doc, problems = read_with_vt_profile(tr.path)
        if doc is None:
            self.note('%s: skipping the vt-profile cross-check: %s' % (what, problems[0]))
            return
        if not self.check(not problems, '%s: vt-profile --format json works' % what,
                          '; '.join(problems)):
            return
        try:
            locs = {l['id']: (l['name'], l['events'], l['enters'], l['leaves'])
                    for l in doc['locations']}
            calls = collections.Counter()
            per_loc = collections.Counter()
            defs = {}
            for r in doc['regions']:
                calls[r['name']] += r['calls']
                defs[r['id']] = (r['name'], r['file'] or None, r['line'])
                for lid, n in r['calls_per_location'].items():
                    per_loc[(int(lid), r['name'])] += n
            kinds = {k: v for k, v in doc['events'].items() if v}
            problems_total = doc['problems_total']
        except (KeyError, TypeError, ValueError) as e:
            self.fail('%s: vt-profile\'s JSON has the expected fields' % what, repr(e))
            return
        self.eq(problems_total, 0, '%s: vt-profile finds no problems' % what)
        self.eq(locs, {l.ref: (l.name, l.events, sum(l.enters.values()),
                               sum(l.leaves.values())) for l in tr.locations},
                '%s: vt-profile: events, enters, leaves per location' % what)
        enters = {k: v for k, v in tr.enters().items() if v}
        got = {k: v for k, v in calls.items() if v}
        self.check(got == enters, '%s: vt-profile calls per region = Enter events' % what,
                   _diff_counts(got, enters))
        want = {(l.ref, name): n for l in tr.locations for name, n in l.enters.items() if n}
        got = {k: v for k, v in per_loc.items() if v}
        self.check(got == want, '%s: vt-profile calls per region and location' % what,
                   _diff_counts(got, want))
        want = {r.ref: (r.name, r.source_file or None, r.line) for r in tr.regions
                if r.ref in defs}
        self.eq(defs, want, '%s: vt-profile: region names, files and lines' % what)
        self.eq(kinds, {k: v for k, v in tr.kinds().items() if v},
                '%s: vt-profile: events per kind' % what)

    def enter_counts(self, loc, want, what, only=True):
        """Enter counts of loc are exactly want (only=True: and no other region entered)."""
        got = {k: v for k, v in loc.enters.items() if v}
        if not only:
            got = {k: got.get(k, 0) for k in want}
        self.check(got == want, '%s: %s: Enter counts %s' % (what, loc.name, _fmt_counts(want)),
                   _diff_counts(got, want))

    def source_lines(self, tr, lines, source, what):
        """Regions {name: line} have source file `source` (compared by basename) and line."""
        for name, line in sorted(lines.items()):
            found = [r for r in tr.regions if r.name == name]
            got = [(os.path.basename(r.source_file or ''), r.line) for r in found]
            self.check(got and all(g == (os.path.basename(source), line) for g in got),
                       '%s: region %s is at %s:%d' % (what, name, os.path.basename(source), line),
                       'got %r' % got)

    def no_onoff(self, tr, what):
        self.eq(sum(len(l.onoff) for l in tr.locations), 0,
                '%s: no MeasurementOnOff events' % what)


def sha256_tree(path):
    """{relative path: sha256} of a file or of every file under a directory."""
    out = {}
    if os.path.isfile(path):
        with open(path, 'rb') as f:
            return {os.path.basename(path): hashlib.sha256(f.read()).hexdigest()}
    for root, _, files in os.walk(path):
        for name in files:
            p = os.path.join(root, name)
            with open(p, 'rb') as f:
                out[os.path.relpath(p, path)] = hashlib.sha256(f.read()).hexdigest()
    return out


def line_of(path, pattern):
    """1-based number of the first line of path that matches the regex pattern."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if re.search(pattern, line):
                return n
    raise Failure('%s: no line matches %r' % (path, pattern))


def enter_leave_sequence(path):
    """{location name: [('Enter' or 'Leave', region name), ...]} in trace order, read with
    python3-otf2 (for tests of the nesting, not only the counts)."""
    require_otf2()
    out = {}
    with otf2.reader.open(path, batch_events=10000) as reader:
        for l, ev in otf2events.events(reader):
            kind = type(ev).__name__
            if kind in ('Enter', 'Leave'):
                out.setdefault(l.name, []).append((kind, ev.region.name))
    return out


OBJDUMP_FUNC = re.compile(r'^[0-9a-f]+ <([^>]+)>:$')
OBJDUMP_CALL = re.compile(r'\s(?:call|jmp)q?\s+(?:\*?0x)?[0-9a-f]*\s*<([^>+]+)(?:\+0x[0-9a-f]+)?>')


def calls_by_function(path):
    """{function symbol: set of symbols it calls or tail-calls} from objdump -d of path (an
    object, library or executable); calls through the PLT are named without '@plt'."""
    p = subprocess.run(['objdump', '-d', '--no-show-raw-insn', path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, errors='replace')
    if p.returncode != 0:
        raise Failure('objdump -d %s failed: %s' % (path, p.stderr.strip()[:300]))
    out = {}
    current = None
    for line in p.stdout.splitlines():
        m = OBJDUMP_FUNC.match(line)
        if m:
            current = out.setdefault(m.group(1), set())
            continue
        m = OBJDUMP_CALL.search(line)
        if m and current is not None:
            current.add(m.group(1).split('@')[0])
    return out


def skip_under_sanitizer(why):
    """Ends a test as skipped (exit 77) in scripts/test-sanitize.sh's runs: why says why the
    sanitized runtime adds nothing to what it tests."""
    if os.environ.get('VT_TEST_SANITIZE'):
        print('SKIP: under a sanitizer: %s' % why)
        sys.exit(77)


def main(name, body):
    """Runs body(Test) and exits with the summary; exceptions count as failures."""
    t = Test(name, sys.modules['__main__'].__file__)
    print('e2e %s: work directory %s' % (name, t.work))
    if otf2 is None:
        t.fail('python3-otf2 importable', 'run with /usr/bin/python3 (%s)' % sys.executable)
        t.finish()
    try:
        body(t)
    except Failure as e:
        t.fail('test could not go on', str(e))
    except Exception:
        t.fail('test raised an exception', traceback.format_exc())
    t.finish()
