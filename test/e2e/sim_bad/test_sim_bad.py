# SPDX-License-Identifier: BSD-3-Clause
"""e2e "sim_bad": vt-sim and simulators that break the rules (an end below its start, a
crash inside the simulator, a library that fails to load, one without vt_sim_plugin, a wrong
ABI version, create() failing on bad parameters, an unknown name) and bad command lines:
each gets one line on stderr naming the simulator (and the event, where there is one), the
exit status docs/sim.md gives (70 for a crash, 1 for another failure, 2 for a bad command
line), and no output trace, not even a temporary one. An existing output is never replaced
without -f."""

import os
import subprocess

import otf2

import otf2events
import vttest
from vttest import Failure

VT_SIM = os.environ.get('VT_SIM', '')
SDK = os.path.join(vttest.SOURCE_ROOT, 'plugin-sdk', 'include')


def build(t, name, flag, extra=()):
    out = os.path.join(t.newdir('sim-' + name), 'libvt-sim-%s.so' % name)
    cmd = ['gcc', '-shared', '-fPIC', '-I' + SDK, '-D' + flag, t.source('badsim.c'),
           '-o', out] + list(extra)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode:
        raise Failure('building %s: %s' % (name, p.stdout))
    return out


def sim(args, cwd):
    p = subprocess.run([VT_SIM] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, cwd=cwd, timeout=120)
    print('vt-sim %s -> %d\nstdout: %s\nstderr: %s' % (' '.join(args), p.returncode,
                                                       p.stdout, p.stderr))
    return p


def events(path):
    out = {}
    with otf2.reader.open(path) as r:
        for l, ev in otf2events.events(r):
            out.setdefault(l._ref, []).append((type(ev).__name__, ev.time))
    return out


def refused(t, what, args, words, outdir, status=1):
    p = sim(args, outdir)
    t.eq(p.returncode, status, '%s: exit status' % what)
    lines = p.stderr.strip().splitlines()
    t.eq(len(lines), 1, '%s: one line on stderr' % what)
    missing = [w for w in words if w not in p.stderr]
    t.eq(missing, [], '%s: the line names %s' % (what, ', '.join(words)))
    t.eq(sorted(os.listdir(outdir)), [], '%s: no output, no temporary left' % what)
    return p


def body(t):
    if not os.access(VT_SIM, os.X_OK):
        raise Failure('vt-sim is not built: %r' % VT_SIM)
    exe = t.compile('app', ['app.c'], opt='-O1')
    run = t.run(exe)
    t.eq(run.status, 0, 'app ran')
    trace = run.anchor()
    t.check(os.path.isfile(trace), 'app wrote a trace')

    # (what, the simulator, words of its line, the exit status: 70 for a crash)
    cases = [
        ('end below start', build(t, 'below', 'BAD_BELOW'),
         ['below', "'work'", 'below its start', 'process_function_event'], 1),
        ('crash', build(t, 'crash', 'BAD_CRASH'),
         ['crash', 'crashed', 'signal 11', "'work'", 'process_function_event'], 70),
        ('crash in create', build(t, 'crashcreate', 'BAD_CREATE_CRASH'),
         ['crashcreate', 'crashed', 'signal 11', 'in create', 'no output written'], 70),
        ('unresolved symbol', build(t, 'undef', 'BAD_UNDEF'),
         ['undef', 'cannot load', 'vt_sim_test_no_such_function'], 1),
        ('no vt_sim_plugin', build(t, 'nosym', 'BAD_NOSYM'),
         ['nosym', 'does not export vt_sim_plugin'], 1),
        ('wrong ABI version', build(t, 'version', 'BAD_VERSION'),
         ['version', 'ABI version'], 1),
        ('create fails', build(t, 'create', 'BAD_CREATE'),
         ['create', 'create() failed'], 1),
    ]
    for what, path, words, status in cases:
        outdir = t.newdir('out')
        refused(t, what, [trace, '-s', path, '-o', 'out.otf2'], words, outdir, status)
    # a file that is no library at all
    notlib = os.path.join(t.newdir('notlib'), 'libvt-sim-text.so')
    with open(notlib, 'w') as f:
        f.write('not a library\n')
    refused(t, 'not a library', [trace, '-s', notlib, '-o', 'out.otf2'],
            ['text', 'cannot load'], t.newdir('out'))
    # shipped simulators with bad parameters, an unknown name
    refused(t, 'latbw with L=abc', [trace, '-s', 'latbw:L=abc', '-o', 'out.otf2'],
            ["'latbw'", 'L=abc'], t.newdir('out'))
    refused(t, 'scale without pattern', [trace, '-s', 'scale:factor=2', '-o', 'out.otf2'],
            ["'scale'", 'factor=2'], t.newdir('out'))
    refused(t, 'unknown simulator', [trace, '-s', 'nosuchsim', '-o', 'out.otf2'],
            ["'nosuchsim'", 'libvt-sim-nosuchsim.so'], t.newdir('out'))
    # the bad one second in a chain: still refused, still nothing written
    refused(t, 'identity then crash', [trace, '-s', 'identity', '-s',
                                       build(t, 'crash2', 'BAD_CRASH'), '-o', 'out.otf2'],
            ['crash2', 'crashed'], t.newdir('out'), 70)
    # bad command lines and inputs
    refused(t, 'no -o', [trace, '-s', 'identity'], ['-o OUT.otf2'], t.newdir('out'), 2)
    refused(t, 'output not .otf2', [trace, '-s', 'identity', '-o', 'out'],
            ["'out'", 'NAME.otf2'], t.newdir('out'), 2)
    refused(t, 'input not a trace', ['/etc/hostname', '-s', 'identity', '-o', 'out.otf2'],
            ['/etc/hostname'], t.newdir('out'))
    # an existing output: kept without -f, replaced with it
    outdir = t.newdir('out')
    p = sim([trace, '-s', 'identity', '-o', 'out.otf2', '-q'], outdir)
    t.eq(p.returncode, 0, 'identity into a fresh directory')
    t.eq(sorted(os.listdir(outdir)), ['out', 'out.def', 'out.marker', 'out.otf2'],
         'the output is the anchor, the definitions, the markers and the event directory')
    before = vttest.sha256_tree(outdir)
    p = sim([trace, '-s', 'identity', '-o', 'out.otf2'], outdir)
    t.check(p.returncode == 1 and 'exists' in p.stderr and '-f' in p.stderr,
            'an existing output is refused without -f (status 1)', p.stderr)
    t.eq(vttest.sha256_tree(outdir), before, 'the existing output is untouched')
    p = sim([trace, '-s', 'nonoise', '-o', 'out.otf2', '-f', '-q'], outdir)
    t.eq(p.returncode, 0, '-f replaces it')
    tr = vttest.read_trace(os.path.join(outdir, 'out.otf2'))
    for loc in tr.locations:
        t.check(not loc.problems, 'the replaced output: %s balanced, time-ordered'
                % loc.name, '; '.join(loc.problems))
    t.eq(sorted(os.listdir(outdir)), ['out', 'out.def', 'out.marker', 'out.otf2'],
         'after -f: no temporary left')
    # nonoise: the trace starts at once and the period with recording off takes no time;
    # every other gap is kept.
    orig, new = events(trace), events(os.path.join(outdir, 'out.otf2'))
    with otf2.reader.open(trace) as r:
        start = r.definitions.clock_properties.global_offset
    for loc, evs in orig.items():
        kinds = [k for k, _ in evs]
        t.check('MeasurementOnOff' in kinds, 'input: recording switched off and on again')
        want = []
        for i, (kind, time) in enumerate(evs):
            if i == 0:
                want.append(start)
            elif kind == 'MeasurementOnOff' and evs[i - 1][0] == 'MeasurementOnOff':
                want.append(want[-1])  # on again: at once
            else:
                want.append(new[loc][i - 1][1] + time - evs[i - 1][1])
        t.eq([x for _, x in new[loc]], want, 'nonoise: every event at the computed time')
        t.check(evs[0][1] > start or any(k == 'MeasurementOnOff' for k in kinds),
                'nonoise: something to remove')
    # The marker moves with its location: as far after the event before it as it was.
    mo = vttest.otf2_marker_times(trace)
    mn = vttest.otf2_marker_times(os.path.join(outdir, 'out.otf2'))
    t.eq([m[1:] for m in mn], [m[1:] for m in mo], 'nonoise: the marker is copied')
    if mo and mn:
        loc = list(orig)[0]
        prev = max(i for i, (_, time) in enumerate(orig[loc]) if time <= mo[0][0])
        t.eq(mn[0][0], new[loc][prev][1] + (mo[0][0] - orig[loc][prev][1]),
             'nonoise: the marker at its computed time')
    p = subprocess.run([VT_SIM, '--help'], stdout=subprocess.PIPE, universal_newlines=True)
    t.check(p.returncode == 0 and 'usage: vt-sim' in p.stdout, 'vt-sim --help')


if __name__ == '__main__':
    vttest.main('sim_bad', body)
