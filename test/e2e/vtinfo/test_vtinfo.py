# SPDX-License-Identifier: BSD-3-Clause
"""e2e "vtinfo": vt-info shows the version, the timer and every variable with its value in
force; its documentation output is docs/environment.md's table, so the docs cannot drift."""

import difflib
import os
import re
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


def body(t):
    if not t.check(os.access(vttest.VT_INFO, os.X_OK), 'vt-info is built (%s)' % vttest.VT_INFO):
        return
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


vttest.main('vtinfo', body)
