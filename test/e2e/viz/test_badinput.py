# SPDX-License-Identifier: BSD-3-Clause
"""Bad input for vt-profile, vt-export and vt-report: a missing file, a directory, a file that
is not OTF2, truncated and emptied archive files and a trace without events each get one line
on stderr naming the input and exit 2, with nothing left behind. Then a seeded fuzz run over
copies of a real trace (Open MPI, 4 ranks) with random byte flips and truncations: no tool is
killed by a signal or hangs; what they write on success is valid. Outputs: an existing file
or a symbolic link planted where vt-export, vt-report, vt-score -o or VT_REPORT=yes would
write is neither written through nor replaced (one line naming it, status 2, or the run's
own status with VT_REPORT); with --force the link itself is replaced and its target stays
as it was; no temporary file is left behind."""
import json
import os
import random
import shutil
import subprocess

import vttest
import vizprog
from vttest import otf2

TOOLS = os.path.join(vttest.BUILD_ROOT, 'tools')
VT_PROFILE = os.environ.get('VT_PROFILE', os.path.join(TOOLS, 'vt-profile', 'vt-profile'))
VT_EXPORT = os.path.join(TOOLS, 'vt-export', 'vt-export')
VT_REPORT = os.path.join(TOOLS, 'vt-report', 'vt-report')
VT_SCORE = os.environ.get('VT_SCORE', os.path.join(TOOLS, 'vt-score', 'vt-score'))
VT_SIM = os.environ.get('VT_SIM', os.path.join(TOOLS, 'vt-sim', 'vt-sim'))
THREADS_C = r"""
#include <pthread.h>
#include <stdio.h>
static volatile long s;
__attribute__((noinline)) void leaf(int i) { s += i; }
static void *run(void *a) { for (int i = 0; i < 3000; i++) leaf(i); return a; }
int main(void)
{
	pthread_t t[3];
	for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, run, NULL);
	run(NULL);
	for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
	printf("%ld\\n", s);
	return 0;
}
"""
CASES = 200  # fuzzed archives; every tool runs on each
SEED = 13
TIMEOUT = 30


def commands(trace, out):
    """Each tool's command on trace, writing (where it writes a file) into out."""
    return {'vt-profile': ([VT_PROFILE, '--format', 'json', trace], None),
            'vt-profile --mpi': ([VT_PROFILE, '--mpi', '--format', 'json', trace], None),
            'vt-profile --call-tree': ([VT_PROFILE, '--call-tree', '--format', 'json', trace],
                                       None),
            'vt-profile --imbalance': ([VT_PROFILE, '--imbalance', '--format', 'json', trace],
                                       None),
            'vt-export': ([VT_EXPORT, trace, '-o', out + '.json'], out + '.json'),
            'vt-report': ([VT_REPORT, trace, '-o', out + '.html'], out + '.html')}


def run(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, errors='replace', timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None
    return p


def write_empty(path):
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        d = trace.definitions
        proc = d.location_group('Process', system_tree_parent=d.system_tree_node('node'))
        d.region('main')
        trace.event_writer('Master thread', group=proc)


def copy_trace(anchor, d):
    """Copies the archive of anchor into directory d; returns the copy's anchor."""
    base = anchor[:-len('.otf2')]
    name = os.path.basename(base)
    os.makedirs(d)
    shutil.copy(anchor, os.path.join(d, name + '.otf2'))
    shutil.copy(base + '.def', os.path.join(d, name + '.def'))
    shutil.copytree(base, os.path.join(d, name))
    return os.path.join(d, name + '.otf2')


def check_bad(t, what, path, d):
    for tool, (cmd, out) in commands(path, os.path.join(d, 'out')).items():
        p = run(cmd)
        if not t.check(p is not None, '%s: %s ends' % (what, tool)):
            continue
        lines = p.stderr.splitlines()
        t.check(p.returncode == 2 and len(lines) == 1 and path in lines[0] and
                lines[0].startswith(tool.split()[0] + ': ') and p.stdout == '',
                '%s: %s says so in one line naming it, exit 2' % (what, tool),
                repr((p.returncode, p.stdout[:200], p.stderr[:400])))
        if out:
            t.check(not os.path.exists(out), '%s: %s leaves no output behind' % (what, tool))


def check_bad_inputs(t, trace):
    d = t.newdir('bad')
    text = os.path.join(d, 'notes.otf2')
    with open(text, 'w') as f:
        f.write('not a trace\n')
    cases = [('missing file', os.path.join(d, 'missing.otf2')), ('a directory', d),
             ('not OTF2', text)]
    # Truncated: the anchor file cut short, the global definitions cut short or emptied.
    for label, part, keep in [('truncated anchor', '.otf2', 40), ('truncated definitions',
                                                                  '.def', 100),
                              ('empty definitions', '.def', 0)]:
        copy = copy_trace(trace, os.path.join(d, label.replace(' ', '-')))
        target = copy[:-len('.otf2')] + part
        with open(target, 'r+b') as f:
            f.truncate(keep)
        cases.append((label, copy))
    write_empty(os.path.join(d, 'empty'))
    cases.append(('trace without events', os.path.join(d, 'empty', 'traces.otf2')))
    for what, path in cases:
        check_bad(t, what, path, d)


def check_usage(t, trace):
    """Usage errors: one line naming the problem and pointing at --help, exit 2."""
    cases = [([VT_EXPORT, trace], 'no output given'),
             ([VT_EXPORT, '--window', '5', trace, '-o', '/dev/null'], "--window: '5'"),
             ([VT_EXPORT, '--window', '2:1', trace, '-o', '/dev/null'], 'ends before it begins'),
             ([VT_EXPORT, '--bogus', trace], "unknown option '--bogus'"),
             ([VT_REPORT, trace], 'no output given'),
             ([VT_REPORT, '--budget', '0', trace, '-o', '/dev/null'], "--budget: '0'"),
             ([VT_REPORT, '--min-share', '0', trace, '-o', '/dev/null'],
              "--min-share: '0' is not a percentage from 0.0001 to 100"),
             ([VT_REPORT, '--min-share', '5%', trace, '-o', '/dev/null'], "--min-share: '5%'"),
             ([VT_REPORT, trace, trace, '-o', '/dev/null'], 'one trace at a time'),
             ([VT_PROFILE, '--imbalance', '--mpi', trace], 'exclude each other')]
    for cmd, text in cases:
        p = run(cmd)
        lines = p.stderr.splitlines() if p else []
        t.check(p is not None and p.returncode == 2 and len(lines) == 1 and text in lines[0]
                and '--help' in lines[0] and p.stdout == '',
                'usage: %s: one line, exit 2' % ' '.join(os.path.basename(c) for c in cmd[:3]),
                repr(p and (p.returncode, p.stdout, p.stderr)))
    for tool in (VT_EXPORT, VT_REPORT):
        p = run([tool, '--help'])
        t.check(p.returncode == 0 and 'Usage: ' + os.path.basename(tool) in p.stdout,
                '%s --help' % os.path.basename(tool))


def mutate(rng, anchor):
    """Damages one file of the archive at anchor: flips bytes or cuts it short. Returns what
    was done."""
    base = anchor[:-len('.otf2')]
    files = [anchor, base + '.def'] + sorted(
        os.path.join(base, f) for f in os.listdir(base))
    target = rng.choice(files)
    size = os.path.getsize(target)
    with open(target, 'r+b') as f:
        if rng.random() < 0.35 or size == 0:
            keep = rng.randrange(size + 1)
            f.truncate(keep)
            return '%s cut to %d of %d bytes' % (os.path.basename(target), keep, size)
        data = bytearray(f.read())
        flips = rng.randint(1, 8)
        for _ in range(flips):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        f.seek(0)
        f.write(data)
        return '%s: %d bit(s) flipped' % (os.path.basename(target), flips)


def check_fuzz(t, trace):
    rng = random.Random(SEED)
    crashes, hangs, bad_lines, bad_output = [], [], [], []
    outcomes = {}
    for case in range(CASES):
        d = t.newdir('fuzz')
        copy = copy_trace(trace, os.path.join(d, 'trace'))
        how = mutate(rng, copy)
        for tool, (cmd, out) in commands(copy, os.path.join(d, 'out')).items():
            p = run(cmd)
            label = 'case %d (%s), %s' % (case, how, tool)
            if p is None:
                hangs.append(label)
                continue
            outcomes[p.returncode] = outcomes.get(p.returncode, 0) + 1
            if p.returncode < 0 or p.returncode > 2:
                crashes.append('%s: status %d: %s' % (label, p.returncode, p.stderr[-300:]))
            elif p.returncode == 2 and not (p.stderr.splitlines() or [''])[-1].startswith(
                    '%s: %s: ' % (tool.split()[0], copy)):
                # Warnings may come first; the refusal is the last line, naming the trace.
                bad_lines.append('%s: %r' % (label, p.stderr[-300:]))
            elif p.returncode in (0, 1):
                try:
                    if out is None:
                        json.loads(p.stdout)
                    elif out.endswith('.json'):
                        with open(out) as f:
                            json.load(f)
                    else:
                        with open(out) as f:
                            page = f.read()
                        if not page.rstrip().endswith('</html>'):
                            raise ValueError('page not complete')
                except (OSError, ValueError) as e:
                    bad_output.append('%s: %s' % (label, e))
        if not hangs and not crashes:
            shutil.rmtree(d, ignore_errors=True)
    t.note('fuzz outcomes (exit status: runs): %r' % sorted(outcomes.items()))
    t.eq(crashes, [], 'fuzz: no tool killed by a signal')
    t.eq(hangs, [], 'fuzz: no tool runs longer than %d s' % TIMEOUT)
    t.eq(bad_lines, [], 'fuzz: a refused trace gets its line, naming it, last')
    t.eq(bad_output, [], 'fuzz: what the tools write on success is complete')
    t.check(outcomes.get(2, 0) > 0 and outcomes.get(0, 0) + outcomes.get(1, 0) > 0,
            'fuzz: some damaged traces refused, some still read', repr(outcomes))


def read(path):
    with open(path, errors='replace') as f:
        return f.read()


def check_outputs(t, trace):
    """No tool writes through a planted link or over an existing file unless forced."""
    for tool, cmd in (('vt-export', [VT_EXPORT, trace, '-o']),
                      ('vt-report', [VT_REPORT, trace, '-o']),
                      ('vt-score', [VT_SCORE, trace, '-o'])):
        d = t.newdir('clobber-' + tool)
        precious = os.path.join(d, 'precious')
        with open(precious, 'w') as f:
            f.write('precious\n')
        out = os.path.join(d, 'out')
        os.symlink(precious, out)
        p = run(cmd + [out])
        t.eq((p and p.returncode, p and p.stderr),
             (2, '%s: %s: exists as a symbolic link; not replaced (--force replaces it)\n'
              % (tool, out)), '%s: a planted link: one line, status 2' % tool)
        t.eq((os.path.islink(out), read(precious)), (True, 'precious\n'),
             '%s: the link and its target as they were' % tool)
        p = run(cmd + [out, '--force'])
        t.eq(p and p.returncode, 0, '%s --force: status 0' % tool)
        t.eq((os.path.islink(out), os.path.isfile(out), read(precious)),
             (False, True, 'precious\n'),
             '%s --force: the link replaced by the output, its target untouched' % tool)
        first = read(out)
        p = run(cmd + [out])
        t.eq((p and p.returncode, p and p.stderr),
             (2, '%s: %s: exists; not replaced (--force replaces it)\n' % (tool, out)),
             '%s: an existing file: one line, status 2' % tool)
        t.eq(read(out), first, '%s: the existing file unchanged' % tool)
        t.eq(sorted(os.listdir(d)), ['out', 'precious'],
             '%s: no temporary file left behind' % tool)
    # VT_REPORT=yes with PREFIX.html planted: the program runs as ever, vt says why there is
    # no report, and neither the link nor its target changes.
    src = os.path.join(t.newdir('hello-src'), 'hello.c')
    with open(src, 'w') as f:
        f.write('#include <stdio.h>\nint main(void) { puts("hello"); return 3; }\n')
    exe = t.compile('hello', [src])
    gdir = t.newdir('planted')
    precious = os.path.join(gdir, 'precious')
    with open(precious, 'w') as f:
        f.write('precious\n')
    html = os.path.join(gdir, 'rep.html')
    os.symlink(precious, html)
    r = t.run(exe, env={'VT_REPORT': 'yes', 'VT_FILE_PREFIX': 'rep'}, gdir=gdir,
              label='planted')
    t.eq((r.status, r.stdout), (3, 'hello\n'), 'VT_REPORT, planted link: the program as ever')
    t.eq(r.warnings, ['warning: VT_REPORT: %s exists as a symbolic link; not replaced, no report'
                      % html], 'VT_REPORT, planted link: one line says so')
    t.eq((os.path.islink(html), read(precious)), (True, 'precious\n'),
         'VT_REPORT, planted link: the link and its target as they were')


def check_truncated(t):
    """A trace of 4 threads (plain, and sampled) with one location's event file cut short,
    at each location and at several points: every tool ends within its time bound, with a
    status of 1 or 2, its last line naming the problem (the damaged file where libotf2's
    reader lets it be known) after at most 25 lines, and an output no larger than a few
    times the trace. libotf2 3.0 reads a truncated single-chunk file over and over: without
    the bound vt-export wrote gigabytes of JSON and vt-sim spun."""
    src = os.path.join(t.newdir('threads-src'), 'threads.c')
    with open(src, 'w') as f:
        f.write(THREADS_C)
    exe = t.compile('threads', [src], flags=['-pthread'])
    bad = []
    runs = 0
    for label, env in (('plain', {}), ('sampled', {'VT_SAMPLING': 'yes',
                                                   'VT_SAMPLING_PERIOD': '100us'})):
        r = t.run(exe, env=env, label='trunc-' + label)
        t.eq(r.status, 0, 'truncated %s: the program ran' % label)
        anchor = r.anchor()
        folder = anchor[:-len('.otf2')]
        size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
        for loc in range(4):
            for frac in (0.02, 0.3, 0.7, 0.97):
                d = t.newdir('trunc')
                copy = copy_trace(anchor, os.path.join(d, 'c'))
                evt = os.path.join(copy[:-len('.otf2')], '%d.evt' % loc)
                os.truncate(evt, int(os.path.getsize(evt) * frac))
                out = os.path.join(d, 'out')
                for tool, cmd in (
                        ('vt-profile', [VT_PROFILE, copy]),
                        ('vt-profile --samples', [VT_PROFILE, '--samples', copy]),
                        ('vt-profile --threads', [VT_PROFILE, '--threads', copy]),
                        ('vt-export', [VT_EXPORT, copy, '-o', out + '.json']),
                        ('vt-report', [VT_REPORT, copy, '-o', out + '.html']),
                        ('vt-score', [VT_SCORE, copy]),
                        ('vt-sim', [VT_SIM, copy, '-s', 'identity', '-o', out + '.otf2'])):
                    runs += 1
                    what = '%s %s, %d.evt cut at %d%%' % (tool, label, loc, frac * 100)
                    p = run(cmd)
                    if p is None:
                        bad.append('%s: no end within %d s' % (what, TIMEOUT))
                        continue
                    lines = p.stderr.splitlines()
                    written = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)
                                  if f.startswith('out') and os.path.isfile(
                                      os.path.join(d, f))) + len(p.stdout)
                    if p.returncode not in (1, 2) or not lines or len(lines) > 25 or \
                            not lines[-1].startswith(tool.split()[0] + ': ') or \
                            written > 4 * size + 100000:
                        bad.append('%s: status %d, %d lines, %d bytes out: %s' % (
                            what, p.returncode, len(lines), written, lines[-1:]))
    t.eq(bad[:5], [], 'truncated event files: %d tool runs end in time, with a status of 1 '
         'or 2 and a last line, output bounded' % runs)


def body(t):
    _, trace = vizprog.traced_run(t)
    check_truncated(t)
    check_outputs(t, trace)
    check_bad_inputs(t, trace)
    check_usage(t, trace)
    check_fuzz(t, trace)


vttest.main('viz_badinput', body)
