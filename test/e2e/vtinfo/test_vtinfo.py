# SPDX-License-Identifier: BSD-3-Clause
"""e2e "vtinfo": vt-info shows the version, the timer and every variable with its value in
force; its documentation output is docs/environment.md's table, so the docs cannot drift.
vt-info --plugins loads counter plugins built here (a VampirTrace one with wildcards, a
Score-P one) and lists what they offer, in the loader's calling order."""

import difflib
import os
import re
import shutil
import subprocess

import vttest

# Options under which vt-info may print the documentation table, in order of preference.
DOC_OPTIONS = ['--doc', '--docs', '--markdown', '--env-doc', '--table']


def vt_info(t, args, env=None):
    full = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    full.update(env or {})
    cmd = [vttest.VT_INFO] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=full, timeout=60)
    print('run: %s %s -> status %d' % (' '.join('%s=%s' % kv for kv in sorted((env or {}).items())),
                                        ' '.join(cmd), p.returncode))
    return p


def table_lines(text):
    """The lines of the first markdown table in text."""
    lines, started = [], False
    for line in text.splitlines():
        if line.startswith('|'):
            lines.append(line.rstrip())
            started = True
        elif started:
            break
    return lines


def doc_variables(table):
    """[(name, default)] from the table's rows (columns: variable, type, default, ...)."""
    rows = []
    for line in table[2:]:
        cells = [c.strip().strip('`') for c in line.strip('|').split('|')]
        if len(cells) >= 3 and re.match(r'^[A-Z][A-Z0-9_]+$', cells[0]):
            rows.append((cells[0], cells[2]))
    return rows


def project_version():
    with open(os.path.join(vttest.SOURCE_ROOT, 'meson.build')) as f:
        m = re.search(r"version\s*:\s*'([^']+)'", f.read())
    return m.group(1) if m else None


def timer_lines(text):
    """Lines about the timer, other than the VT_TIMER variable's own line."""
    return [l for l in text.splitlines()
            if re.search(r'timer', l, re.I) and not re.match(r'^\s*VT_TIMER\s', l)]


def line_with(text, word):
    """The first line of text that contains word as a whole word."""
    for line in text.splitlines():
        if re.search(r'(^|[^A-Za-z0-9_])%s([^A-Za-z0-9_]|$)' % re.escape(word), line):
            return line
    return None


def variables(t):
    doc_path = os.path.join(vttest.SOURCE_ROOT, 'docs', 'environment.md')
    t.check(os.path.isfile(doc_path), 'docs/environment.md exists')
    doc = open(doc_path).read() if os.path.isfile(doc_path) else ''
    table = table_lines(doc)
    rows = doc_variables(table)
    names = [n for n, _ in rows]
    t.check(len(names) >= 9, 'docs/environment.md has a table of the variables',
            'found %r' % names)

    # The plain output: version, timer, every variable with its value in force.
    env = {'VT_BUFFER_SIZE': '32M', 'VT_MAX_FLUSHES': '7', 'VT_FILE_PREFIX': 'e2e-prefix'}
    p = vt_info(t, [], env)
    print(p.stdout)
    t.eq(p.returncode, 0, 'vt-info exits 0')
    t.eq(p.stderr, '', 'vt-info prints nothing on stderr')
    version = project_version()
    t.check(version and version in p.stdout, 'vt-info shows the version %s' % version)
    timer = timer_lines(p.stdout)
    t.check(timer and re.search(r'\b(tsc|monotonic)\b', ' '.join(timer), re.I),
            'vt-info shows the timer chosen (tsc or monotonic)', repr(timer))
    for name in names:
        t.check(line_with(p.stdout, name), 'vt-info lists %s' % name)
    for name, default in rows:
        value = env.get(name, default)
        line = line_with(p.stdout, name) or ''
        t.check(re.search(r'(^|\s)%s(\s|$)' % re.escape(value), line),
                'vt-info shows %s=%s in force (%s)'
                % (name, value, 'set' if name in env else 'the documented default'),
                repr(line))

    # A forced timer is the one shown.
    p = vt_info(t, [], {'VT_TIMER': 'monotonic'})
    timer = timer_lines(p.stdout)
    t.check(timer and 'monotonic' in ' '.join(timer).lower(),
            'with VT_TIMER=monotonic vt-info shows the monotonic clock chosen', repr(timer))

    # A bad value is reported by vt-info as the runtime would.
    p = vt_info(t, [], {'VT_BUFFER_SIZE': '12x'})
    t.eq(p.returncode, 1, 'with VT_BUFFER_SIZE=12x vt-info exits 1')
    t.check(re.search(r"VT_BUFFER_SIZE.*12x", p.stdout + p.stderr),
            'with VT_BUFFER_SIZE=12x vt-info names the bad value')

    # The documentation output equals the table of docs/environment.md.
    h = vt_info(t, ['--help'])
    helptext = h.stdout + h.stderr
    print(helptext)
    opts = [o for o in DOC_OPTIONS if re.search(r'(^|\s)%s\b' % re.escape(o), helptext)]
    if not t.check(opts, 'vt-info --help offers an option printing the docs table (one of %s)'
                   % ', '.join(DOC_OPTIONS), repr(helptext[:500])):
        return
    p = vt_info(t, [opts[0]])
    t.eq(p.returncode, 0, 'vt-info %s exits 0' % opts[0])
    out_table = table_lines(p.stdout)
    t.check(out_table, 'vt-info %s prints a markdown table' % opts[0])
    t.check(out_table == table, 'vt-info %s prints docs/environment.md\'s table' % opts[0],
            'differences (- docs/environment.md, + vt-info %s):\n%s' % (opts[0], '\n'.join(
                difflib.unified_diff(table, out_table, 'docs/environment.md', 'vt-info',
                                     lineterm='', n=0))))


# ---------------------------------------------------------------------------------------
# vt-info --plugins

VT_ERROR = re.compile(r'^vt\[(\d+)\]: error: (.*)$')

WILD_ALL = [
    ('Wild_ones', '#', 'accumulated start', 'uint64'),
    ('Wild_cycles', 'cycles', 'accumulated start', 'uint64'),
    ('Wild_temp', 'degC', 'absolute point', 'double'),
    ('Wild_delta', '-', 'accumulated last', 'int64'),
    ('Wild_level', 'W', 'absolute next', 'float'),
    ('Wild_gauge', 'B', 'absolute point', 'uint64'),
    ('Wild_mixed', '#', 'accumulated next', 'uint64'),
]


def build_plugin(t, outdir, lib, source):
    out = os.path.join(outdir, 'lib%s.so' % lib)
    cmd = ['cc', '-shared', '-fPIC', '-Wall', '-Werror', '-Wno-unused-parameter',
           '-I', os.path.join(vttest.SOURCE_ROOT, 'plugin-sdk', 'include'), '-o', out]
    cmd.append(t.source(source))  # an absolute path stays as it is
    print('build: %s' % ' '.join(cmd))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode != 0:
        raise vttest.Failure('building lib%s.so failed:\n%s' % (lib, p.stdout))
    return out


class PluginRun:
    """vt-info --plugins ...: status, output, vt's error lines and the plugin's call log."""

    def __init__(self, t, args, plugin_dir, env=None, log='WILD_LOG'):
        logfile = os.path.join(plugin_dir, 'calls.log')
        if os.path.exists(logfile):
            os.unlink(logfile)
        full = {'VT_PLUGIN_CNTR_PATH': plugin_dir, log: logfile}
        full.update(env or {})
        p = vt_info(t, args, {k: v for k, v in full.items() if v is not None})
        print(p.stdout + p.stderr)
        self.status, self.stdout, self.stderr = p.returncode, p.stdout, p.stderr
        self.errors = [m.group(2) for m in map(VT_ERROR.match, p.stderr.splitlines()) if m]
        self.calls = open(logfile).read().splitlines() if os.path.exists(logfile) else []


def head(name, path, interface, synch, per, scorep=False, delta_t=None):
    """The block vt-info prints above the counters."""
    lines = ['plugin:     %s' % name, 'path:       %s' % path, 'interface:  %s' % interface,
             '%-11s %s' % ('sync:' if scorep else 'synch:', synch), 'run_per:    %s' % per]
    if scorep:
        lines.append('delta_t:    %d' % delta_t)
        lines.append('select:     SCOREP_METRIC_PLUGINS=%s SCOREP_METRIC_%s='
                     'METRIC[,METRIC...]' % (name, name.upper()))
    else:
        lines.append('select:     VT_PLUGIN_CNTR_METRICS=%s_COUNTER[:%s_COUNTER...]'
                     % (name, name))
    return lines


def table(pattern, rows, header, noun):
    """A pattern's section, aligned as vt-info aligns it: two spaces between columns, each
    as wide as its widest cell, the last column not padded."""
    out = ['', '"%s": %d %s%s' % (pattern, len(rows), noun, '' if len(rows) == 1 else 's')]
    if not rows:
        return out
    cells = [header] + [list(r) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    for c in cells:
        out.append('  ' + '  '.join(c[i].ljust(widths[i]) if i < len(c) - 1 else c[i]
                                    for i in range(len(c))))
    return out


def plugins(t):
    pdir = t.newdir('plugins')
    wild = build_plugin(t, pdir, 'Wild', 'wild.c')
    spmeter = build_plugin(t, pdir, 'Spmeter', 'spmeter.c')
    vt_header = ['counter', 'unit', 'mode', 'type']
    vt_iface = 'VampirTrace counter plugin, version 2'

    # Every counter (the default pattern "*"), in the plugin's order, and the calling order:
    # get_info, init, get_event_info, finalize; a synchronous plugin gets no clock.
    r = PluginRun(t, ['--plugins', 'Wild'], pdir)
    t.eq(r.status, 0, '--plugins Wild exits 0')
    t.eq(r.stderr, '', '--plugins Wild prints nothing on stderr')
    want = head('Wild', wild, vt_iface, 'synchronous', 'per thread') + \
        table('*', WILD_ALL, vt_header, 'counter')
    t.eq(r.stdout.splitlines(), want, '--plugins Wild lists the 7 counters as LIB_name with '
         'unit, mode and value type')
    t.eq(r.calls, ['get_info', 'init', 'get_event_info *', 'finalize'],
         '--plugins Wild: get_info, init, get_event_info("*"), finalize')

    # Several patterns, each expanded by the plugin; one that matches nothing is an error.
    r = PluginRun(t, ['--plugins', 'Wild', '?e*', 'c*', 'nomatch'], pdir)
    t.eq(r.status, 1, '--plugins Wild with a pattern that matches nothing exits 1')
    want = head('Wild', wild, vt_iface, 'synchronous', 'per thread') + \
        table('?e*', [WILD_ALL[2], WILD_ALL[3], WILD_ALL[4]], vt_header, 'counter') + \
        table('c*', [WILD_ALL[1]], vt_header, 'counter') + table('nomatch', [], vt_header,
                                                                  'counter')
    t.eq(r.stdout.splitlines(), want, '--plugins Wild "?e*" "c*" nomatch: one section each')
    t.eq(r.errors, ['counter plugin Wild: get_event_info("nomatch") offers no counter (NULL); '
                    'skipped'], '--plugins Wild nomatch: the loader\'s one error line')
    t.eq(len(r.stderr.splitlines()), 1, '--plugins Wild nomatch: nothing else on stderr')
    t.eq(r.calls, ['get_info', 'init', 'get_event_info ?e*', 'get_event_info c*',
                   'get_event_info nomatch', 'finalize'],
         '--plugins Wild: get_event_info once per pattern, in order, then finalize')

    # The asynchronous kinds and scopes: named, and the clock handed over before init.
    for synch, per, sname, pname in ((1, 2, 'asynchronous on-event', 'per host'),
                                     (2, 3, 'asynchronous post-mortem', 'once'),
                                     (3, 1, 'asynchronous callback', 'per process')):
        r = PluginRun(t, ['--plugins', 'Wild', 'temp'], pdir,
                      {'WILD_SYNCH': str(synch), 'WILD_PER': str(per)})
        t.eq(r.status, 0, 'WILD_SYNCH=%d: exits 0' % synch)
        t.eq(r.stdout.splitlines(), head('Wild', wild, vt_iface, sname, pname) +
             table('temp', [WILD_ALL[2]], vt_header, 'counter'),
             'WILD_SYNCH=%d WILD_PER=%d: shown as %s, %s' % (synch, per, sname, pname))
        t.eq(r.calls, ['get_info', 'set_pform_wtime_function', 'init', 'wtime increases',
                       'get_event_info temp', 'finalize'],
             'WILD_SYNCH=%d: the wtime function before init, and it runs' % synch)

    # A Score-P plugin: found by its SCOREP_MetricPlugin_Spmeter_get_info without --scorep,
    # and the same with it; description, base and exponent shown.
    sp_rows = [('power', 'W', 'absolute last', 'double', 'decimal', '0', 'Package power'),
               ('energy', 'J', 'accumulated start', 'uint64', 'decimal', '-3',
                'Package energy since start'),
               ('mem_used', 'B', 'absolute point', 'int64', 'binary', '10', 'Memory in use'),
               ('ratio', '-', 'relative next', 'double', 'decimal', '0', '-')]
    sp_header = ['metric', 'unit', 'mode', 'type', 'base', 'exponent', 'description']
    sp_head = head('Spmeter', spmeter, 'Score-P metric plugin, version 1',
                   'asynchronous on-event', 'per host', scorep=True, delta_t=5000)
    for args in (['--plugins', 'Spmeter'], ['--plugins', 'Spmeter', '--scorep'],
                 ['--scorep', '--plugins=Spmeter', '*']):
        r = PluginRun(t, args, pdir, log='SPMETER_LOG')
        what = ' '.join(args)
        t.eq(r.status, 0, '%s exits 0' % what)
        t.eq(r.stderr, '', '%s prints nothing on stderr' % what)
        t.eq(r.stdout.splitlines(), sp_head + table('*', sp_rows, sp_header, 'metric'),
             '%s: the Score-P interface, its 4 metrics with base, exponent, description'
             % what)
        t.eq(r.calls, ['get_info', 'set_clock_function', 'initialize', 'clock increases',
                       'get_event_info *', 'finalize'],
             '%s: get_info, set_clock_function, initialize, get_event_info, finalize' % what)
    r = PluginRun(t, ['--plugins', 'Spmeter', 'mem*', 'broken'], pdir, log='SPMETER_LOG')
    t.eq(r.status, 1, '--plugins Spmeter broken (a bad mode) exits 1')
    t.eq(r.stdout.splitlines(), sp_head + table('mem*', [sp_rows[2]], sp_header, 'metric') +
         table('broken', [], sp_header, 'metric'), '--plugins Spmeter mem* broken: mem_used only')
    t.eq(r.errors, ['Score-P metric plugin Spmeter: metric broken: mode 42 is not a '
                    'SCOREP_MetricMode (0-9); skipped'], 'a bad mode: the loader\'s error line')
    t.eq(r.calls[-1:], ['finalize'], 'a bad metric: finalize is still called')

    # The interface given by --scorep is the one used.
    r = PluginRun(t, ['--plugins', 'Wild', '--scorep'], pdir)
    t.eq((r.status, r.stdout), (1, ''), '--plugins Wild --scorep exits 1 and prints nothing')
    t.eq(r.errors, ['Score-P metric plugin Wild: %s has no SCOREP_MetricPlugin_Wild_get_info(); '
                    'skipped' % wild], '--plugins Wild --scorep: no Score-P entry point')
    t.eq(r.calls, [], '--plugins Wild --scorep: nothing of the plugin is called')

    # A plugin that does not load, or is not one: exit 1 and the loader's one line.
    r = PluginRun(t, ['--plugins', 'Missing'], pdir)
    t.eq((r.status, r.stdout), (1, ''), '--plugins Missing exits 1 and prints nothing')
    t.eq(r.errors, ['counter plugin Missing: cannot load libMissing.so (libMissing.so: cannot '
                    'open shared object file: No such file or directory); looked in %s '
                    '(VT_PLUGIN_CNTR_PATH) and the library path; skipped' % pdir],
         '--plugins Missing: where it was looked for')
    t.eq(len(r.stderr.splitlines()), 1, '--plugins Missing: one line on stderr')
    r = PluginRun(t, ['--plugins', 'Missing'], pdir, {'VT_PLUGIN_CNTR_PATH': None})
    t.eq(r.errors, ['counter plugin Missing: cannot load libMissing.so (libMissing.so: cannot '
                    'open shared object file: No such file or directory); looked in the '
                    'library path; skipped'], '--plugins Missing without VT_PLUGIN_CNTR_PATH')
    with open(os.path.join(pdir, 'libBroken.so'), 'w') as f:
        f.write('not a shared object\n')
    r = PluginRun(t, ['--plugins', 'Broken'], pdir)
    t.eq((r.status, r.stdout), (1, ''), '--plugins Broken (not an ELF file) exits 1')
    lib = os.path.join(pdir, 'libBroken.so')
    t.check(len(r.errors) == 1 and r.errors[0].startswith('counter plugin Broken: %s: %s: '
                                                           % (lib, lib))
            and r.errors[0].endswith('; skipped'),
            '--plugins Broken: the file that does not load and why', repr(r.errors))
    with open(os.path.join(pdir, 'other.c'), 'w') as f:
        f.write('int not_a_plugin(void);\nint not_a_plugin(void) { return 1; }\n')
    other = build_plugin(t, pdir, 'Other', os.path.join(pdir, 'other.c'))
    r = PluginRun(t, ['--plugins', 'Other'], pdir)
    t.eq((r.status, r.stdout), (1, ''), '--plugins Other (no get_info) exits 1')
    t.eq(r.errors, ['counter plugin Other: %s has no get_info(); skipped' % other],
         '--plugins Other: no get_info')
    r = PluginRun(t, ['--plugins', 'Wild'], pdir, {'WILD_SYNCH': '7'})
    t.eq((r.status, r.stdout), (1, ''), 'a bad synch value exits 1')
    t.eq(r.errors, ['counter plugin Wild: synch 7 is not one of VT_PLUGIN_CNTR_SYNCH, '
                    '_ASYNCH_EVENT, _ASYNCH_POST_MORTEM, _ASYNCH_CALLBACK (0-3); skipped'],
         'a bad synch value: the loader says which')
    t.eq(r.calls, ['get_info'], 'a bad synch value: neither init nor finalize is called')
    r = PluginRun(t, ['--plugins', 'Wild'], pdir, {'WILD_INIT_FAIL': '1'})
    t.eq((r.status, r.stdout), (1, ''), 'a failing init exits 1')
    t.eq(r.errors, ['counter plugin Wild: init() failed (returned -5); skipped'],
         'a failing init: its return value')
    t.eq(r.calls, ['get_info', 'init'], 'a failing init: no finalize')

    # A library whose name has a '_' loads, but VT_PLUGIN_CNTR_METRICS cannot name it.
    shutil.copy(wild, os.path.join(pdir, 'libWild_b.so'))
    r = PluginRun(t, ['--plugins', 'Wild_b', 'ones'], pdir)
    t.eq(r.status, 0, '--plugins Wild_b exits 0')
    t.eq(r.stdout.splitlines(), head('Wild_b', os.path.join(pdir, 'libWild_b.so'), vt_iface,
                                     'synchronous', 'per thread') +
         table('ones', [('Wild_b_ones', '#', 'accumulated start', 'uint64')], vt_header,
               'counter'), '--plugins Wild_b: listed')
    t.eq(r.stderr.splitlines(), ['vt-info: warning: VT_PLUGIN_CNTR_METRICS cannot name '
                                 'libWild_b.so: the text before the first \'_\' of an entry '
                                 'is the library\'s name'], '--plugins Wild_b: the warning')

    # A bad variable elsewhere: listed all the same, but exit 1 as plain vt-info does.
    r = PluginRun(t, ['--plugins', 'Wild', 'ones'], pdir, {'VT_BUFFER_SIZE': '12x'})
    t.eq(r.status, 1, '--plugins with VT_BUFFER_SIZE=12x exits 1')
    t.eq(r.stdout.splitlines()[-2:], ['  counter    unit  mode               type',
                                      '  Wild_ones  #     accumulated start  uint64'],
         '--plugins with VT_BUFFER_SIZE=12x still lists the counter')
    t.check(len(r.errors) == 1 and r.errors[0].startswith("VT_BUFFER_SIZE='12x': "),
            '--plugins with VT_BUFFER_SIZE=12x: the variable\'s error', repr(r.errors))

    # Usage errors: exit 2, the usage on stderr, nothing loaded.
    for args in (['--plugins'], ['--scorep'], ['--scorep', 'Wild'], ['--plugins', ''],
                 ['--plugins', pdir + '/libWild.so'], ['--plugins', 'Wild', '--doc'],
                 ['--doc', '--plugins=Wild'], ['--bogus'], ['Wild'], ['--doc', 'extra']):
        r = PluginRun(t, args, pdir)
        what = 'vt-info %s' % ' '.join(repr(a) if not a or ' ' in a else a for a in args)
        t.eq((r.status, r.stdout), (2, ''), '%s exits 2 and prints nothing on stdout' % what)
        t.check('Usage: vt-info' in r.stderr and '--plugins LIB' in r.stderr,
                '%s: the usage on stderr' % what, repr(r.stderr[-300:]))
        t.eq(r.calls, [], '%s: the plugin is not loaded' % what)
    h = vt_info(t, ['--help'])
    t.eq(h.returncode, 0, 'vt-info --help exits 0')
    for opt in ('--plugins LIB', '--scorep', 'PATTERN'):
        t.check(opt in h.stdout, 'vt-info --help describes %s' % opt)


def body(t):
    if not t.check(os.access(vttest.VT_INFO, os.X_OK), 'vt-info is built (%s)' % vttest.VT_INFO):
        return
    variables(t)
    plugins(t)


vttest.main('vtinfo', body)
