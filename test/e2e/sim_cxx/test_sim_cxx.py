# SPDX-License-Identifier: BSD-3-Clause
"""e2e "sim_cxx": the simulator SDK as an author meets it. A CPF-style C++ simulator
(cpfsim.cpp: a CustomPluginFramework subclass with create/destroy) builds with g++ and the
flags of this build tree's vt-sim.pc against <vt/vt_sim.hpp>, and vt-sim runs it on a traced
program (sim_bad/app.c): every "work" takes factor times its time exactly, everything after
it moves with it, and its Finalize reports the calls and CPF's members. The template
project (plugin-sdk/sim-template) builds with its Makefile and with meson, and runs."""

import os
import shutil
import subprocess

import otf2events
import vttest
from vttest import Failure

VT_SIM = os.environ.get('VT_SIM', '')
PCDIR = os.path.join(vttest.BUILD_ROOT, 'meson-uninstalled')
TEMPLATE = os.path.join(vttest.SOURCE_ROOT, 'plugin-sdk', 'sim-template')


def sh(t, cmd, what, cwd=None, env=None):
    print('cmd: %s' % ' '.join(cmd))
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=600)
    if not t.check(p.returncode == 0, what, 'status %d: %s' % (p.returncode, p.stdout[-3000:])):
        raise Failure('%s failed' % what)
    return p.stdout


def pc_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(('VT_', 'PKG_CONFIG'))}
    env['PKG_CONFIG_PATH'] = PCDIR
    return env


def events(path):
    import otf2
    out = {}
    with otf2.reader.open(path) as r:
        for l, ev in otf2events.events(r):
            kind = type(ev).__name__
            out.setdefault(l._ref, []).append(
                (kind, ev.time, ev.region.name if kind in ('Enter', 'Leave') else None))
    return out


def check_scaled(t, orig, out, factor, what):
    """Per location: each event keeps its original gap to the one before, except the Leave
    of work, at its Enter + int(duration * factor)."""
    bad = []
    for loc, evs in orig.items():
        o = out[loc]
        stack = []
        for i, (kind, time, region) in enumerate(evs):
            if kind == 'Enter':
                stack.append(i)
            want = time if i == 0 else o[i - 1][1] + (time - evs[i - 1][1])
            if kind == 'Leave':
                b = stack.pop()
                if region == 'work':
                    want = o[b][1] + int((time - evs[b][1]) * factor)
            if o[i][:1] != (kind,) or o[i][1] != want:
                bad.append('loc %d event %d %s %s: %d, computed %d'
                           % (loc, i, kind, region, o[i][1], want))
    t.eq(bad[:5], [], '%s: every event at the computed time' % what)


def body(t):
    if not os.access(VT_SIM, os.X_OK):
        raise Failure('vt-sim is not built: %r' % VT_SIM)
    env = pc_env()
    cflags = sh(t, ['pkg-config', '--cflags', 'vt-sim'], 'pkg-config --cflags vt-sim',
                env=env).split()
    simdir = sh(t, ['pkg-config', '--variable=simdir', 'vt-sim'], 'pkg-config simdir',
                env=env).strip()
    t.check(os.path.isfile(os.path.join(simdir, 'libvt-sim-ideal.so')),
            'vt-sim.pc: simdir holds the shipped simulators')
    exe = t.compile('app', [os.path.join('..', 'sim_bad', 'app.c')], opt='-O1')
    run = t.run(exe)
    t.eq(run.status, 0, 'app ran')
    trace = run.anchor()
    orig = events(trace)

    # The CPF-style C++ simulator.
    d = t.newdir('cpfsim')
    lib = os.path.join(d, 'libcpfsim.so')
    sh(t, ['g++', '-std=c++11', '-Wall', '-Wextra', '-Werror', '-shared', '-fPIC'] + cflags +
       [t.source('cpfsim.cpp'), '-o', lib], 'cpfsim.cpp builds against vt_sim.hpp (g++)')
    for factor in ('0.5', '0.25'):
        outdir = t.newdir('out')
        out = os.path.join(outdir, 'out.otf2')
        text = sh(t, [VT_SIM, trace, '-s', lib + ':factor=' + factor, '-o', out, '-q'],
                  'vt-sim runs the C++ simulator (factor %s)' % factor)
        line = [x for x in text.splitlines() if x.startswith('cpfsim:')]
        t.eq(len(line), 1, 'factor %s: Finalize ran once' % factor)
        n_regions = sum(1 for evs in orig.values() for e in evs if e[0] == 'Enter')
        # non-tracing: the time before each thread's first event, and each period with
        # recording off (app.c switches it off once)
        offs = sum(1 for evs in orig.values() for e in evs if e[0] == 'MeasurementOnOff')
        want = 'cpfsim: initialized 1, %d function events, %d non-tracing, 0 MPI, %d threads' \
            % (n_regions, len(orig) + offs // 2, len(orig))
        t.check(line and line[0].startswith(want), 'factor %s: %s' % (factor, want),
                line[0] if line else text)
        t.check(line and ('factor %g,' % float(factor)) in line[0] and
                ('path %s' % trace) in line[0],
                'factor %s: the parameter and the input path reached the members' % factor)
        tr = vttest.read_trace(out)
        for loc in tr.locations:
            t.check(not loc.problems, 'factor %s: %s balanced, time-ordered'
                    % (factor, loc.name), '; '.join(loc.problems))
        check_scaled(t, orig, events(out), float(factor), 'factor %s' % factor)

    # The template project, with its Makefile and with meson.
    for how in ('make', 'meson'):
        d = os.path.join(t.newdir('template'), 'mysim')
        shutil.copytree(TEMPLATE, d)
        if how == 'make':
            sh(t, ['make'], 'template builds with make', cwd=d, env=env)
            lib = os.path.join(d, 'libvt-sim-mysim.so')
        else:
            sh(t, ['meson', 'setup', 'build'], 'template: meson setup', cwd=d, env=env)
            sh(t, ['ninja', '-C', 'build'], 'template builds with meson', cwd=d, env=env)
            lib = os.path.join(d, 'build', 'libvt-sim-mysim.so')
        out = os.path.join(t.newdir('out'), 'out.otf2')
        sh(t, [VT_SIM, trace, '-s', lib + ':delay=2e-6', '-o', out, '-q'],
           'template (%s) runs' % how)
        got = events(out)
        t.eq(got, orig, 'template (%s): a trace without messages keeps its times' % how)
        p = subprocess.run([VT_SIM, trace, '-s', lib + ':delay=x', '-o', out + 'x.otf2'],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        t.check(p.returncode != 0 and 'delay=x' in p.stderr,
                'template (%s): a bad delay is refused, named' % how, p.stderr)


if __name__ == '__main__':
    vttest.main('sim_cxx', body)
