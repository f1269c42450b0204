# SPDX-License-Identifier: BSD-3-Clause
"""e2e "plugin_sdk": the plugin SDK as a plugin author meets it.

vt is configured for a fresh prefix and installed; then, outside any vt tree, with only
PKG_CONFIG_PATH pointing into the prefix: vt-plugin.pc's flags and variables, the template
project copied from share/vt/plugin-template and built with its meson.build and with its
Makefile (and installed where plugindir says), the VampirTrace random example
(samples/plugins/random.c) built unchanged against the installed headers, with cc and with
a CMake build that finds VampirTrace through the installed vtrun as published plugins do,
and the same
template built against this build tree's uninstalled vt-plugin.pc. A program built with the
installed vtcc is recorded with each plugin, and each plugin's values are read back from
the trace: a value of each counter after each of the program's 42 Enter and Leave events,
the template's "reads" exactly 1, 2, ..., 42, and the random example's sequence, seeded,
the same as the installed sample's.
"""

import os
import shutil
import subprocess

import vtmetrics
import vttest
from vtinstall import MESON, NINJA, install_vt, sh
EVENTS = 42  # Enter and Leave events of prog.c
ENTERS = {'main': 1, 'work': 5, 'leaf': 15}
TEMPLATE_FILES = ['Makefile', 'README.md', 'meson.build', 'myplugin.c']
SAMPLES = ['fsusage', 'hostload', 'perfsw', 'random', 'sysmon', 'sysmonpm']
# The template's counters, as the trace must define them.
TEMPLATE = {'thread_cpu_time': ('ns', 'ACCUMULATED_START', 'UINT64'),
            'reads': ('#', 'ACCUMULATED_START', 'UINT64')}
RANDOM = {'counter': ('#', 'ABSOLUTE_POINT', 'UINT64')}


def pc_env(pcdir):
    env = {k: v for k, v in os.environ.items() if not k.startswith(('VT_', 'PKG_CONFIG'))}
    env['PKG_CONFIG_PATH'] = pcdir
    return env


def pkg_config(t, env, *args):
    return sh(t, ['pkg-config'] + list(args) + ['vt-plugin'],
              'pkg-config %s vt-plugin' % ' '.join(args), env=env).strip()


def check_installed(t, d):
    inc = d['inc']
    for f in ('vampirtrace/vt_plugin_cntr.h', 'vt/plugin-sdk/scorep/SCOREP_MetricPlugins.h',
              'vt/plugin-sdk/scorep/SCOREP_MetricTypes.h'):
        t.check(os.path.isfile(os.path.join(inc, f)), 'installed: include/%s' % f)
    tdir = os.path.join(d['data'], 'vt', 'plugin-template')
    t.eq(sorted(os.listdir(tdir)) if os.path.isdir(tdir) else None, TEMPLATE_FILES,
         'installed: share/vt/plugin-template holds the template')
    pdir = os.path.join(d['lib'], 'vt', 'plugins')
    t.eq(sorted(os.listdir(pdir)) if os.path.isdir(pdir) else None,
         ['lib%s.so' % s for s in SAMPLES], 'installed: the sample plugins in libdir/vt/plugins')
    return tdir, pdir


def check_pc(t, d, tdir, pdir):
    env = pc_env(os.path.join(d['lib'], 'pkgconfig'))
    inc = d['inc']
    t.eq(pkg_config(t, env, '--cflags').split(),
         ['-I' + inc, '-I' + inc + '/vampirtrace', '-I' + inc + '/vt/plugin-sdk'],
         'vt-plugin.pc: Cflags for <vt_plugin_cntr.h>, <vampirtrace/vt_plugin_cntr.h>, '
         '<scorep/SCOREP_MetricPlugins.h>')
    t.eq(pkg_config(t, env, '--libs'), '', 'vt-plugin.pc: no libraries (headers only)')
    t.eq(pkg_config(t, env, '--variable=plugindir'), pdir, 'vt-plugin.pc: plugindir')
    t.eq(pkg_config(t, env, '--variable=templatedir'), tdir, 'vt-plugin.pc: templatedir')
    t.eq(pkg_config(t, env, '--modversion'), d['version'], 'vt-plugin.pc: vt\'s version')
    return env


def build_template_meson(t, tdir, dest, env, what):
    shutil.copytree(tdir, dest)
    sh(t, [MESON, 'setup', 'build'], '%s: meson setup' % what, cwd=dest, env=env)
    sh(t, [NINJA, '-C', 'build'], '%s: ninja' % what, cwd=dest, env=env)
    lib = os.path.join(dest, 'build', 'libmyplugin.so')
    t.check(os.path.isfile(lib), '%s: build/libmyplugin.so' % what)
    return lib


def build_template_make(t, tdir, dest, env, what):
    shutil.copytree(tdir, dest)
    sh(t, ['make'], '%s: make' % what, cwd=dest, env=env)
    lib = os.path.join(dest, 'libmyplugin.so')
    t.check(os.path.isfile(lib), '%s: libmyplugin.so' % what)
    return lib


def exports(lib):
    p = subprocess.run(['nm', '-D', '--defined-only', lib], stdout=subprocess.PIPE,
                       universal_newlines=True)
    return sorted(l.split()[-1] for l in p.stdout.splitlines() if l.split()[-1:] != ['_init']
                  and l.split()[-1:] != ['_fini'])


def record(t, exe, libdir, metrics, what, env=None):
    """Runs exe with the plugin(s) of libdir; returns the MetricView of its trace and the
    Master thread's location ref."""
    full = {'VT_PLUGIN_CNTR_PATH': libdir, 'VT_PLUGIN_CNTR_METRICS': metrics}
    full.update(env or {})
    r = t.run(exe, env=full, label='run')
    t.eq((r.stdout, r.status, r.program_stderr), ('sdk 45\n', 0, []),
         '%s: output, status, no message' % what)
    t.clean_run(r, what)
    tr = t.trace(r, what, profile=False)
    t.enter_counts(tr.loc('Master thread'), ENTERS, what)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    return mv, mv.loc('Master thread').ref


def sync_values(t, mv, loc, want, order, what):
    """Checks the members and that each Enter and Leave is followed by one value of each
    counter of order; returns {counter: [values]}."""
    t.eq(sorted(m.name for m in mv.members.values()), sorted(want),
         '%s: metrics %s' % (what, sorted(want)))
    for name, (unit, mode, vtype) in want.items():
        m = mv.members_named(name)
        t.eq([(x.unit, x.mode, x.value_type) for x in m], [(unit, mode, vtype)],
             '%s: %s: unit %s, %s, %s' % (what, name, unit, mode, vtype))
    classes = [mv.class_of(n).ref for n in order]
    evs = mv.events[loc]
    out = {n: [] for n in order}
    pattern = []
    for i, e in enumerate(evs):
        if e.kind in ('Enter', 'Leave'):
            follow = evs[i + 1:i + 1 + len(order)]
            ok = ([f.metric for f in follow] == classes
                  and all(f.kind == 'Metric' and f.time == e.time for f in follow))
            pattern.append(ok)
            if ok:
                for n, f in zip(order, follow):
                    out[n].append(f.values[0])
    t.eq((len(pattern), all(pattern)), (EVENTS, True),
         '%s: each of the %d Enter and Leave events is followed by a value of %s'
         % (what, EVENTS, ', '.join(order)))
    t.eq(sum(1 for e in evs if e.kind == 'Metric'), EVENTS * len(order),
         '%s: and there are no other values' % what)
    return out


def check_template(t, exe, lib, what):
    t.eq(exports(lib), ['get_info'], '%s: exports get_info only' % what)
    mv, loc = record(t, exe, os.path.dirname(lib), 'myplugin_*', what)
    v = sync_values(t, mv, loc, TEMPLATE, ['thread_cpu_time', 'reads'], what)
    t.eq(v['reads'], list(range(1, EVENTS + 1)), '%s: reads is 1, 2, ..., %d' % (what, EVENTS))
    cpu = v['thread_cpu_time']
    t.check(cpu and all(b >= a for a, b in zip(cpu, cpu[1:])) and 0 < cpu[-1] < 10 ** 10,
            '%s: thread_cpu_time grows, in ns' % what, repr(cpu[:3] + cpu[-2:]))


def body(t):
    top = t.newdir('sdk')
    d = install_vt(t, top)
    tdir, pdir = check_installed(t, d)
    env = check_pc(t, d, tdir, pdir)

    # The program, built with the installed vtcc from somewhere else.
    progdir = os.path.join(top, 'prog')
    os.makedirs(progdir)
    exe = os.path.join(progdir, 'prog')
    sh(t, [os.path.join(d['bin'], 'vtcc'), '-O0', t.source('prog.c'), '-o', exe],
       'the installed vtcc builds the program', cwd=progdir, env=env)

    what = 'template, meson'
    lib = build_template_meson(t, tdir, os.path.join(top, 'tpl-meson'), env, what)
    check_template(t, exe, lib, what)
    sh(t, [MESON, 'install', '-C', 'build', '--quiet'], '%s: meson install' % what,
       cwd=os.path.join(top, 'tpl-meson'), env=env)
    t.check(os.path.isfile(os.path.join(pdir, 'libmyplugin.so')),
            '%s: installed into plugindir' % what)
    check_template(t, exe, os.path.join(pdir, 'libmyplugin.so'), 'template, installed')

    what = 'template, make'
    lib = build_template_make(t, tdir, os.path.join(top, 'tpl-make'), env, what)
    check_template(t, exe, lib, what)
    dest = os.path.join(top, 'destdir')
    sh(t, ['make', 'install', 'DESTDIR=' + dest], '%s: make install' % what,
       cwd=os.path.join(top, 'tpl-make'), env=env)
    t.check(os.path.isfile(dest + os.path.join(pdir, 'libmyplugin.so')),
            '%s: make install DESTDIR=D puts it into D/PLUGINDIR' % what)

    # Against this build tree, uninstalled: meson-uninstalled/vt-plugin-uninstalled.pc.
    what = 'template, uninstalled vt-plugin.pc'
    unenv = pc_env(os.path.join(vttest.BUILD_ROOT, 'meson-uninstalled'))
    t.eq(pkg_config(t, unenv, '--cflags').split(),
         ['-I' + os.path.join(vttest.SOURCE_ROOT, 'plugin-sdk', 'include', 'vampirtrace'),
          '-I' + os.path.join(vttest.SOURCE_ROOT, 'plugin-sdk', 'include')],
         '%s: Cflags point into the source tree' % what)
    lib = build_template_make(t, tdir, os.path.join(top, 'tpl-uninstalled'), unenv, what)
    check_template(t, exe, lib, what)

    # The VampirTrace example, unchanged, against the installed headers; seeded, its values
    # are those of the installed sample built from the same file.
    what = 'random example, installed headers'
    rdir = os.path.join(top, 'random')
    os.makedirs(rdir)
    cflags = pkg_config(t, env, '--cflags').split()
    # Copied alone: the example must need nothing but the installed interface header.
    shutil.copy(os.path.join(vttest.SOURCE_ROOT, 'samples', 'plugins', 'random.c'), rdir)
    sh(t, ['cc', '-std=c11', '-Wall', '-Wextra', '-Werror', '-O2', '-fPIC', '-shared']
       + cflags + [os.path.join(rdir, 'random.c'), '-o', os.path.join(rdir, 'librandom.so')],
       '%s: builds with cc $(pkg-config --cflags vt-plugin), warning-free' % what)
    seeded = {'RANDOM_SEED': '42'}
    mv, loc = record(t, exe, rdir, 'random_counter', what, env=seeded)
    mine = sync_values(t, mv, loc, RANDOM, ['counter'], what)['counter']
    t.check(mine and all(0 <= x < 2 ** 31 for x in mine) and len(set(mine)) > EVENTS - 2,
            '%s: %d random values in [0, 2^31)' % (what, len(mine)))
    mv, loc = record(t, exe, pdir, 'random_counter', 'random sample, installed', env=seeded)
    theirs = sync_values(t, mv, loc, RANDOM, ['counter'], 'random sample, installed')['counter']
    t.eq(mine, theirs, 'RANDOM_SEED=42: the example built here and the installed sample draw '
         'the same values')

    # The same example with a CMake build as published VampirTrace-back-end plugins write
    # it: VampirTrace found through vtrun on PATH (cmake-vt/CMakeLists.txt).
    what = 'random example, CMake finding VampirTrace by its vtrun'
    cdir = os.path.join(top, 'cmake-vt')
    shutil.copytree(os.path.join(os.path.dirname(t.source('prog.c')), 'cmake-vt'), cdir)
    shutil.copy(os.path.join(vttest.SOURCE_ROOT, 'samples', 'plugins', 'random.c'), cdir)
    cenv = dict(env, PATH=d['bin'] + ':' + os.environ.get('PATH', '/usr/bin:/bin'))
    out = sh(t, ['cmake', '-S', cdir, '-B', os.path.join(cdir, 'build')],
             '%s: cmake configures' % what, env=cenv)
    t.check('VampirTrace found in %s' % d['prefix'] in out,
            '%s: it finds the installed vt' % what, out[-500:])
    sh(t, ['cmake', '--build', os.path.join(cdir, 'build')], '%s: builds' % what, env=cenv)
    mv, loc = record(t, exe, os.path.join(cdir, 'build'), 'random_counter', what, env=seeded)
    t.eq(sync_values(t, mv, loc, RANDOM, ['counter'], what)['counter'], mine,
         '%s: the same values' % what)

    # Both interfaces' headers from the installed flags, in C and C++.
    src = os.path.join(top, 'both.c')
    with open(src, 'w') as f:
        f.write('#include <vt_plugin_cntr.h>\n#include <vampirtrace/vt_plugin_cntr.h>\n'
                '#include <scorep/SCOREP_MetricPlugins.h>\nint x = VT_PLUGIN_CNTR_VERSION + '
                'SCOREP_METRIC_PLUGIN_VERSION;\n')
    for cc, std in (('cc', '-std=c11'), ('c++', '-std=c++11')):
        sh(t, [cc, std, '-x', 'c' if cc == 'cc' else 'c++', '-Wall', '-Werror', '-fsyntax-only']
           + cflags + [src], 'installed flags: all three spellings of the headers with %s' % cc)


vttest.main('plugin_sdk', body)
