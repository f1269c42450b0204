# SPDX-License-Identifier: BSD-3-Clause
"""e2e "startup": elfutils is loaded only when a name is resolved (issue 30). A program built
with the GCC plugin (names compiled in) records its calls without libdw ever being mapped
in any of its processes; the same program built with compinst (addresses) loads libdw once,
from libvt, and its regions get their names, source file and line from the debug info.
ld.so's own record of what it loads (LD_DEBUG=files into an LD_DEBUG_OUTPUT file, which
the child that writes the trace shares) is the witness."""

import glob
import os

import vttest

CALLS = {'main': 1, 'work': 3}
LINES = {'main': 11, 'work': 5}


def loaded(run):
    """{pid: text} of ld.so's files logs of run (one per program started)."""
    logs = {}
    for f in glob.glob(os.path.join(run.cwd, 'ld.*')):
        with open(f, errors='replace') as fh:
            logs[f.rsplit('.', 1)[1]] = fh.read()
    return logs


def check(t, exe, label, want_dw):
    run = t.run(exe, env={'LD_DEBUG': 'files', 'LD_DEBUG_OUTPUT': 'ld'}, label=label)
    t.eq((run.status, run.stdout), (0, '3\n'), '%s: output and status' % label)
    t.clean_run(run, label)
    tr = t.trace(run, label)
    t.enter_counts(tr.loc('Master thread'), CALLS, '%s: every call' % label)
    t.source_lines(tr, LINES, 'startup.c', label)
    logs = loaded(run)
    # The witness works: every log names libvt, loaded as the program's dependency.
    t.check(logs and all('file=libvt.so.0' in text for text in logs.values()),
            '%s: ld.so logged the loads of every process (%d logs)' % (label, len(logs)))
    dw = {pid: text.count('file=libdw.so.1 [0];  dynamically loaded by')
          for pid, text in logs.items()}
    needed = sum(text.count('file=libdw.so.1 [0];  needed by') for text in logs.values())
    t.eq(needed, 0, '%s: no object needs libdw at start' % label)
    if want_dw:
        t.eq(sum(dw.values()), 1, '%s: libdw loaded once, at the first name' % label)
        # Under the sanitizers (VT_TEST_PRELOAD) their runtime intercepts dlopen, and ld.so
        # names it as the caller.
        by = ('libvt.so', 'libasan.so', 'libtsan.so') if os.environ.get('VT_TEST_PRELOAD') \
            else ('libvt.so',)
        t.check(any('dynamically loaded by' in line and any(b in line for b in by)
                    for text in logs.values() for line in text.splitlines()
                    if 'file=libdw.so.1' in line),
                '%s: by libvt' % label)
    else:
        t.eq(sum(dw.values()), 0, '%s: libdw never loaded' % label)


def body(t):
    plugin, compinst = t.parallel(lambda a: t.compile(*a), [
        ('startup-gcc', ['startup.c'], 'c', 'gcc', '-O2', ('-g',)),
        ('startup-compinst', ['startup.c'], 'c', 'gcc', '-O2', ('-g', '-vt:inst', 'compinst'))])
    check(t, plugin, 'gcc-plugin', False)
    check(t, compinst, 'compinst', True)


vttest.main('startup', body)
