# SPDX-License-Identifier: BSD-3-Clause
"""e2e "cmake_pkg": vt's CMake package as a CMake user meets it.

vt is installed into a fresh prefix (vtinstall); then, outside any vt tree, with only
CMAKE_PREFIX_PATH pointing at the prefix (no vt on PATH, no VT_* variables):
- the installed LIBDIR/cmake/vt holds vtConfig.cmake, vtConfigVersion.cmake and
  vtInstrument.cmake, and none of them names the prefix or the build tree: the paths come
  from the files' own place, and a copy of the prefix elsewhere is found there;
- find_package(vt 99 CONFIG) fails with CMake's message naming the version it found;
- a project (app/) with a C and C++ program built through vt_instrument(app) and linked
  with vt::user: its trace, read with python3-otf2, otf2-print and vt-profile, has exactly
  the Enter counts of its C, C++ and user-API regions; a program built without vtcc, with
  vt::user and vt::vt, records only its user-API region, exactly; an MPI program whose
  MPI library (FindMPI's MPI_C_LIBRARIES, a file) is named before vt_instrument(ring MPI),
  which puts vt's wrappers before it, records, on each of 2 ranks under
  mpirun, exactly its MPI calls (VT_MPI_GROUPS's default) and its function;
- a plugin project (plugin/) builds the installed counter plugin template against
  vt::plugin and the simulator template against vt::sim-plugin; the program built through
  vt_instrument records the plugin's "reads" counter as exactly 1, 2, ..., N over its N
  Enter and Leave events;
- the same C and C++ program built without find_package, by vtcc and vtcxx given as
  CMAKE_<LANG>_COMPILER_LAUNCHER and CMAKE_<LANG>_LINKER_LAUNCHER for C and C++ (C++
  links it), records the same Enter counts.
"""

import os
import shutil

import vtinstall
import vtmetrics
import vtmpi
import vttest
from vtinstall import sh

# The Enter counts of the programs (see their sources).
APP = {'main': 1, 'work': 5, 'leaf': 15, 'scale': 5, 'twice(int)': 5, 'phase': 2}
ANNOTATED = {'step': 3}
# VT_MPI_GROUPS's default: MPI_Comm_rank and MPI_Comm_size, queries, are left out.
RING = {'main': 1, 'exchange': 3, 'MPI_Init': 1, 'MPI_Sendrecv': 3, 'MPI_Allreduce': 2,
        'MPI_Finalize': 1}
CMAKE_FILES = ['vtConfig.cmake', 'vtConfigVersion.cmake', 'vtInstrument.cmake']


def cmake_env(prefix):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('VT_', 'PKG_CONFIG', 'CMAKE_'))}
    env['CMAKE_PREFIX_PATH'] = prefix
    return env


def project(t, top, name):
    """A copy of this test's CMake project name/ in top: its source folder."""
    src = os.path.join(top, name)
    shutil.copytree(os.path.join(os.path.dirname(t.source('test_cmake_pkg.py')), name), src)
    return src


def configure(t, src, build, env, what, *defs):
    return sh(t, ['cmake', '-S', src, '-B', build] + ['-D' + d for d in defs],
              '%s: cmake configures' % what, env=env)


def check_package(t, d, top):
    cdir = os.path.join(d['lib'], 'cmake', 'vt')
    t.eq(sorted(os.listdir(cdir)) if os.path.isdir(cdir) else None, CMAKE_FILES,
         'installed: LIBDIR/cmake/vt holds the package')
    for f in CMAKE_FILES:
        with open(os.path.join(cdir, f)) as fh:
            text = fh.read()
        t.check(d['prefix'] not in text and vttest.SOURCE_ROOT not in text,
                'installed: %s names neither the prefix nor the source tree' % f)

    src = project(t, top, 'probe')
    env = cmake_env(d['prefix'])
    what = 'find_package(vt 99 CONFIG)'
    out = vtinstall.run_status(['cmake', '-S', src, '-B', os.path.join(top, 'probe-99'),
                                '-DWANT_VERSION=99'], env)
    text = ' '.join(out[1].split())
    t.check(out[0] != 0 and 'Could not find a configuration file for package "vt" that is '
            'compatible with requested version "99"' in text
            and 'vtConfig.cmake, version: %s' % d['version'] in text,
            '%s: fails with CMake\'s message and the version found (%s)'
            % (what, d['version']), out[1][-1500:])

    # A copy of the prefix elsewhere: the package points into the copy.
    moved = os.path.join(top, 'moved')
    shutil.copytree(d['prefix'], moved, symlinks=True)
    mlib = d['lib'].replace(d['prefix'], moved, 1)
    out = configure(t, src, os.path.join(top, 'probe-moved'), cmake_env(moved),
                    'the prefix copied elsewhere', 'WANT_VERSION=' + d['version'])
    line = [l for l in out.splitlines() if 'probe: ' in l]
    minc = d['inc'].replace(d['prefix'], moved, 1)
    # vt::mpi and vt::mpich where their libraries are installed
    mpi = [t for t, lib in (('vt::mpi', 'vt-mpi'), ('vt::mpich', 'vt-mpich'))
           if os.path.exists(os.path.join(d['lib'], 'lib%s.so.%s' % (lib, d['version'])))]
    t.check('vt::mpi' in mpi, 'installed: libvt-mpi (Open MPI is Debian\'s default MPI)')
    want = ('-- probe: vt %s libvt=%s vtcc=%s plugin=%s mpi=%s config=%s'
            % (d['version'], os.path.join(mlib, 'libvt.so.' + d['version']),
               os.path.join(d['bin'].replace(d['prefix'], moved, 1), 'vtcc'),
               ';'.join([minc, minc + '/vampirtrace', minc + '/vt/plugin-sdk']),
               ';'.join(mpi), os.path.join(mlib, 'cmake', 'vt')))
    t.eq(line, [want], 'the prefix copied elsewhere: the targets and programs found in the '
         'copy')
    shutil.rmtree(moved)


def check_app(t, build, what='vt_instrument(app), C and C++'):
    r = t.run(os.path.join(build, 'app'), label='app')
    t.eq((r.stdout, r.status, r.program_stderr), ('app 70\n', 0, []),
         '%s: output, status, no message' % what)
    t.clean_run(r, what)
    tr = t.trace(r, what)
    t.enter_counts(tr.loc('Master thread'), APP, what)


def check_annotated(t, build):
    what = 'vt::user and vt::vt, no vtcc'
    r = t.run(os.path.join(build, 'annotated'), label='annotated')
    t.eq((r.stdout, r.status, r.program_stderr), ('annotated 3\n', 0, []),
         '%s: output, status, no message' % what)
    t.clean_run(r, what)
    tr = t.trace(r, what)
    t.enter_counts(tr.loc('Master thread'), ANNOTATED, what)


def check_ring(t, build):
    what = 'vt_instrument(ring MPI) after MPI_C_LIBRARIES'
    r = vtmpi.mpirun(t, vtmpi.OPENMPI, 2, os.path.join(build, 'ring'), label='ring',
                     env={'VT_MPI_GROUPS': None})
    t.eq((r.stdout, r.status), ('ring 2\n', 0), '%s: output, status' % what)
    vtmpi.clean_run(t, r, what)
    tr, mt = vtmpi.trace(t, r, what)
    t.eq(sorted(l.name for l in tr.locations), ['Master thread'] * 2,
         '%s: one location per rank' % what)
    for loc in tr.locations:
        t.enter_counts(loc, RING, what)
    vtmpi.check_messages(t, mt, what, count=6)


def check_plugin(t, d, top, app):
    what = 'the plugin template with vt::plugin'
    env = cmake_env(d['prefix'])
    src = project(t, top, 'plugin')
    build = os.path.join(top, 'plugin-build')
    configure(t, src, build, env, what)
    sh(t, ['cmake', '--build', build], '%s: builds' % what, env=env)
    for lib in ('libmyplugin.so', 'libmysim.so'):
        t.check(os.path.isfile(os.path.join(build, lib)), '%s: %s built' % (what, lib))
    r = t.run(app, label='plugin', env={'VT_PLUGIN_CNTR_PATH': build,
                                        'VT_PLUGIN_CNTR_METRICS': 'myplugin_reads'})
    t.eq((r.stdout, r.status, r.program_stderr), ('app 70\n', 0, []),
         '%s: the program\'s output, status, no message' % what)
    t.clean_run(r, what)
    tr = t.trace(r, what)
    t.enter_counts(tr.loc('Master thread'), APP, what)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    seq = vtmetrics.values_per_event(mv, mv.loc('Master thread').ref)
    n = 2 * sum(APP.values())
    t.eq([s.get('reads') for s in seq], list(range(1, n + 1)),
         '%s: reads is 1, 2, ..., %d after the %d Enter and Leave events' % (what, n, n))


def body(t):
    top = t.newdir('cmake')
    d = vtinstall.install_vt(t, os.path.join(top, 'vt'))
    check_package(t, d, top)

    env = cmake_env(d['prefix'])
    src = project(t, top, 'app')
    build = os.path.join(top, 'app-build')
    out = configure(t, src, build, env, 'app', 'WANT_VERSION=' + d['version'])
    t.check('Found MPI_C' in out, 'app: CMake finds MPI', out[-800:])
    sh(t, ['cmake', '--build', build, '--verbose'], 'app: builds', env=env)
    check_app(t, build)
    check_annotated(t, build)
    check_ring(t, build)
    check_plugin(t, d, top, os.path.join(build, 'app'))

    # The other way: no find_package, vtcc and vtcxx as launchers on the command line.
    what = 'CMAKE_<LANG>_COMPILER_LAUNCHER and _LINKER_LAUNCHER'
    build = os.path.join(top, 'launchers-build')
    vtcc, vtcxx = (os.path.join(d['bin'], n) for n in ('vtcc', 'vtcxx'))
    configure(t, src, build, {k: v for k, v in env.items() if k != 'CMAKE_PREFIX_PATH'}, what,
              'LAUNCHERS_ONLY=ON', 'CMAKE_C_COMPILER_LAUNCHER=%s;-vt:cc' % vtcc,
              'CMAKE_C_LINKER_LAUNCHER=%s;-vt:cc' % vtcc,
              'CMAKE_CXX_COMPILER_LAUNCHER=%s;-vt:cxx' % vtcxx,
              'CMAKE_CXX_LINKER_LAUNCHER=%s;-vt:cxx' % vtcxx)
    sh(t, ['cmake', '--build', build, '--verbose'], '%s: builds' % what, env=env)
    check_app(t, build, what)


vttest.main('cmake_pkg', body)
