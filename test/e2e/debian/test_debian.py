# SPDX-License-Identifier: BSD-3-Clause
"""e2e "debian": vt's Debian packages, built from this tree as a site administrator builds them.

The tree's files (git ls-files: no build directory, no trace) are copied into a fresh
directory and built with `dpkg-buildpackage -b -us -uc` (DEB_BUILD_OPTIONS="nocheck
parallel=2"); lintian checks the .changes (no error; its warnings are printed); each .deb
holds its key files and no other package's, with the dependencies it needs at run time (the
libraries its programs link, as dpkg -S names their packages; the GCC whose plugin headers
built vt_gcc.so, exactly). Then all of them are unpacked with dpkg -x into a temporary root,
and from there a program is built with the unpacked vtcc (gcc and clang, the compiler
plugins of the packages), run, and its trace read with otf2-print (exact Enter counts) and
with the unpacked vt-profile; the unpacked vtrun preloads the unpacked runtime.
"""

import glob
import json
import os
import re
import shutil
import subprocess

import vttest

PACKAGES = ['libvt0', 'libvt-dev', 'vt-tools', 'vt-compilers']
MAN1 = ['vtrun', 'vt-info', 'vt-profile', 'vt-profile-mpi', 'vt-profile-mpich', 'vt-report',
        'vt-export', 'vt-score', 'vt-sim', 'vt-sim-mpi', 'vt-sim-mpich']
CMAKE = ['vtConfig.cmake', 'vtConfigVersion.cmake', 'vtInstrument.cmake']
SIMS = ['identity', 'ideal', 'latbw', 'scale', 'nonoise']
COUNTER_PLUGINS = ['fsusage', 'hostload', 'perfsw', 'random', 'sysmon', 'sysmonpm']
TEMPLATE = ['Makefile', 'README.md', 'meson.build', 'myplugin.c']
SIM_TEMPLATE = ['Makefile', 'README.md', 'meson.build', 'mysim.c']
# prog.c, by hand.
ENTERS = {'main': 1, 'phase': 2, 'work': 4, 'leaf': 12}
OUTPUT = 'deb 30\n'


def key_files(ma, version):
    """{package: [paths as dpkg -c shows them]}: what each package must hold."""
    lib = './usr/lib/%s/' % ma
    so = []
    for name in ('libvt', 'libvt-mpi', 'libvt-mpich'):
        so += [lib + name + '.so.0', lib + name + '.so.' + version]
    return {
        'libvt0': so,
        'libvt-dev': [lib + n + '.so' for n in ('libvt', 'libvt-mpi', 'libvt-mpich')]
        + ['./usr/include/vt/' + h for h in ('vt_user.h', 'vt_user.inc', 'vt_inst.h',
                                              'vt_sim.h', 'vt_sim.hpp')]
        + ['./usr/include/vampirtrace/vt_plugin_cntr.h',
           './usr/include/vt/plugin-sdk/scorep/SCOREP_MetricPlugins.h',
           './usr/include/vt/plugin-sdk/scorep/SCOREP_MetricTypes.h']
        + [lib + 'pkgconfig/%s.pc' % p for p in ('vt', 'vt-plugin', 'vt-sim')]
        + ['./usr/share/vt/plugin-template/' + f for f in TEMPLATE]
        + ['./usr/share/vt/sim-template/' + f for f in SIM_TEMPLATE]
        + [lib + 'cmake/vt/' + f for f in CMAKE]
        + ['./usr/share/man/man7/vt-%s.7.gz' % p for p in ('plugins', 'sim-plugins', 'cmake')],
        'vt-tools': ['./usr/bin/' + p for p in MAN1]
        + ['./usr/share/man/man1/%s.1.gz' % p for p in MAN1]
        + ['./usr/share/man/man7/vt-environment.7.gz', './usr/share/man/man7/vt-kokkos.7.gz',
           './usr/share/man/man7/vt-ring.7.gz']
        + [lib + 'vt/sim/libvt-sim-%s.so' % s for s in SIMS]
        + [lib + 'vt/plugins/lib%s.so' % p for p in COUNTER_PLUGINS],
        'vt-compilers': ['./usr/bin/vtcc', './usr/bin/vtcxx', './usr/bin/vtfort',
                         lib + 'vt/vt_gcc.so', lib + 'vt/vt_llvm.so',
                         lib + 'vt/openmp/libgomp.so']
        + ['./usr/share/man/man1/%s.1.gz' % p for p in ('vtcc', 'vtcxx', 'vtfort')],
    }


def sh(t, cmd, what, cwd=None, env=None, timeout=600, ok=(0,)):
    """Runs cmd; a failure ends the test (what comes after needs it). Returns its output."""
    print('cmd: %s' % ' '.join(cmd))
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, errors='replace', timeout=timeout)
    if not t.check(p.returncode in ok, what, 'status %d: %s' % (p.returncode, p.stdout[-3000:])):
        raise vttest.Failure('%s failed' % what)
    return p.stdout


def clean_env(extra=None):
    """The environment without vt's, the package tools' and meson's settings, and without
    LD_LIBRARY_PATH (meson test points it at the build tree's runtime), so that only the run
    paths vtcc gives decide which libvt a program loads."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('VT_', 'DEB_', 'PKG_CONFIG', 'MESON'))
           and k not in ('LD_LIBRARY_PATH', 'LD_PRELOAD')}
    env.update(extra or {})
    return env


def copy_tree(t, dest):
    """The tree's own files (tracked, or new and not ignored) into dest: a clean clone's
    build directories stay behind. Outside a git checkout: every file but those of build*/,
    obj-*/ and .git/ at the top."""
    p = subprocess.run(['git', '-C', vttest.SOURCE_ROOT, 'ls-files', '-z', '--cached',
                        '--others', '--exclude-standard'], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    if p.returncode == 0:
        files = [f for f in p.stdout.split('\0') if f]
    else:
        files = []
        for d, subdirs, names in os.walk(vttest.SOURCE_ROOT):
            rel = os.path.relpath(d, vttest.SOURCE_ROOT)
            if rel == '.':
                subdirs[:] = [s for s in subdirs
                              if not s.startswith(('build', 'obj-', '.git'))]
            files += [os.path.normpath(os.path.join(rel, n)) for n in names]
    n = 0
    for rel in sorted(set(files)):
        src = os.path.join(vttest.SOURCE_ROOT, rel)
        if not os.path.lexists(src):  # deleted, not yet committed
            continue
        d = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        if os.path.islink(src):
            os.symlink(os.readlink(src), d)
        else:
            shutil.copy2(src, d)
        n += 1
    t.check(os.path.isfile(os.path.join(dest, 'debian', 'rules')),
            'the copy (%d files) has debian/rules' % n)


def build(t, top):
    src = os.path.join(top, 'vt')
    copy_tree(t, src)
    version = json.loads(sh(t, ['meson', 'introspect', '--projectinfo', vttest.BUILD_ROOT],
                            'meson introspect --projectinfo'))['version']
    t.eq(sh(t, ['dpkg-parsechangelog', '-S', 'Version'], 'dpkg-parsechangelog',
            cwd=src).strip(), version, 'debian/changelog: the version of meson.build')
    env = clean_env({'DEB_BUILD_OPTIONS': 'nocheck parallel=2'})
    out = sh(t, ['dpkg-buildpackage', '-b', '-us', '-uc'], 'dpkg-buildpackage -b -us -uc',
             cwd=src, env=env, timeout=1000)
    print('\n'.join(out.splitlines()[-15:]))
    ma = sh(t, ['dpkg-architecture', '-qDEB_HOST_MULTIARCH'], 'dpkg-architecture').strip()
    arch = sh(t, ['dpkg-architecture', '-qDEB_HOST_ARCH'], 'dpkg-architecture').strip()
    debs = {p: os.path.join(top, '%s_%s_%s.deb' % (p, version, arch)) for p in PACKAGES}
    # dh_strip's debug symbols: a -dbgsym package for each package with ELF files.
    dbgsym = ['%s-dbgsym_%s_%s.deb' % (p, version, arch) for p in PACKAGES if p != 'libvt-dev']
    t.eq(sorted(os.path.basename(d) for d in glob.glob(os.path.join(top, '*.deb'))),
         sorted([os.path.basename(d) for d in debs.values()] + dbgsym),
         'dpkg-buildpackage made exactly the packages %s and their -dbgsym'
         % ', '.join(PACKAGES))
    changes = os.path.join(top, 'vt_%s_%s.changes' % (version, arch))
    t.check(os.path.isfile(changes), 'and %s' % os.path.basename(changes))
    return debs, changes, ma, version


def run_lintian(t, changes):
    p = subprocess.run(['lintian', '--tag-display-limit', '0', changes], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, errors='replace',
                       timeout=600)
    lines = p.stdout.splitlines()
    errors = [l for l in lines if l.startswith('E:')]
    warnings = [l for l in lines if l.startswith('W:')]
    print('lintian: %d errors, %d warnings' % (len(errors), len(warnings)))
    for l in lines:
        print('  lintian: %s' % l)
    t.eq(errors, [], 'lintian: no error')
    t.eq(p.returncode, 0, 'lintian: exit status 0')


def contents(t, deb):
    """{path: (mode, link target or None)} of dpkg -c deb."""
    out = sh(t, ['dpkg-deb', '-c', deb], 'dpkg -c %s' % os.path.basename(deb))
    files = {}
    for line in out.splitlines():
        parts = line.split(None, 5)
        if len(parts) < 6:
            continue
        name, link = parts[5], None
        if ' -> ' in name:
            name, link = name.split(' -> ', 1)
        files[name] = (parts[0], link)
    return files


def depends(t, deb):
    out = sh(t, ['dpkg-deb', '-f', deb, 'Depends'], 'dpkg-deb -f Depends').strip()
    return [d.strip() for d in out.split(',') if d.strip()]


def owner(t, path):
    """The package dpkg -S says holds path (its real path tried too)."""
    for p in (path, os.path.realpath(path)):
        r = subprocess.run(['dpkg', '-S', p], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True)
        if r.returncode == 0:
            return r.stdout.split(':')[0].strip()
    return None


def needed_packages(t, elf):
    """The packages of the libraries elf links itself (its NEEDED entries, where ldd finds
    them), but the C library's and vt's own."""
    dyn = sh(t, ['readelf', '-d', elf], 'readelf -d %s' % os.path.basename(elf))
    needed = re.findall(r'\(NEEDED\)\s+Shared library: \[(.+?)\]', dyn)
    out = sh(t, ['ldd', elf], 'ldd %s' % os.path.basename(elf), env=clean_env())
    where = dict(re.findall(r'^\s*(\S+) => (/\S+)', out, re.M))
    pkgs = set()
    for name in needed:
        lib = where.get(name)
        if not lib or re.match(r'lib(c|m|pthread|dl|rt|gcc_s|stdc\+\+)\.so', name) \
                or name.startswith('libvt'):
            continue
        pkg = owner(t, lib)
        if pkg:
            pkgs.add(pkg)
    return pkgs


def check_debs(t, debs, ma, version, root):
    keys = key_files(ma, version)
    lists = {p: contents(t, debs[p]) for p in PACKAGES}
    for p in PACKAGES:
        missing = [f for f in keys[p] if f not in lists[p]]
        t.eq(missing, [], '%s: holds its %d key files' % (p, len(keys[p])))
        others = [f for q in PACKAGES if q != p for f in keys[q] if f in lists[p]]
        t.eq(others, [], '%s: holds no other package\'s key file' % p)
    # The CMake package is libvt-dev's alone.
    cmake = './usr/lib/%s/cmake/vt/' % ma
    t.eq({p: sorted(f for f in lists[p] if f.startswith(cmake) and f != cmake)
          for p in PACKAGES if p != 'libvt-dev'}, {p: [] for p in PACKAGES if p != 'libvt-dev'},
         'the CMake package (%s) is in libvt-dev only (%d files there)'
         % (cmake, sum(1 for f in lists['libvt-dev'] if f.startswith(cmake) and f != cmake)))
    t.eq(lists['vt-compilers']['./usr/bin/vtcxx'][1], 'vtcc', 'vt-compilers: vtcxx -> vtcc')
    t.eq(lists['vt-compilers']['./usr/bin/vtfort'][1], 'vtcc', 'vt-compilers: vtfort -> vtcc')
    shared = {}
    for p in PACKAGES:
        for f, (mode, _) in lists[p].items():
            if not mode.startswith('d'):
                shared.setdefault(f, []).append(p)
    t.eq({f: ps for f, ps in shared.items() if len(ps) > 1}, {},
         'no file is in two packages')

    # What each needs at run time: the packages of the libraries its ELF files link.
    lib = os.path.join(root, 'usr', 'lib', ma)
    dep = {p: depends(t, debs[p]) for p in PACKAGES}
    names = {p: set(d.split()[0] for alt in dep[p] for d in alt.split('|')) for p in PACKAGES}
    for p, elf in (('libvt0', os.path.join(lib, 'libvt.so.0')),
                   ('libvt0', os.path.join(lib, 'libvt-mpi.so.0')),
                   ('libvt0', os.path.join(lib, 'libvt-mpich.so.0')),
                   ('vt-tools', os.path.join(root, 'usr', 'bin', 'vt-profile')),
                   ('vt-tools', os.path.join(root, 'usr', 'bin', 'vtrun')),
                   ('vt-compilers', os.path.join(lib, 'vt', 'vt_llvm.so'))):
        need = needed_packages(t, elf)
        t.check(need, '%s: links libraries of Debian packages' % os.path.basename(elf))
        t.eq(sorted(need - names[p]), [], '%s depends on the packages of what %s links (%s)'
             % (p, os.path.basename(elf), ', '.join(sorted(need))))
    for p in ('libvt-dev', 'vt-tools'):
        t.check('libvt0 (= %s)' % version in dep[p], '%s depends on libvt0 (= %s)'
                % (p, version), repr(dep[p]))
    t.check('libvt-dev (= %s)' % version in dep['vt-compilers'],
            'vt-compilers depends on libvt-dev (= %s)' % version, repr(dep['vt-compilers']))
    gcc_major = sh(t, ['gcc', '-dumpversion'], 'gcc -dumpversion').strip().split('.')[0]
    plugin_dev = 'gcc-%s-plugin-dev' % gcc_major
    gver = sh(t, ['dpkg-query', '-W', '-f=${Version}', plugin_dev], 'dpkg-query %s' % plugin_dev)
    t.check('gcc-%s (= %s)' % (gcc_major, gver) in dep['vt-compilers'],
            'vt-compilers depends on exactly the GCC of %s %s' % (plugin_dev, gver),
            repr(dep['vt-compilers']))
    libomp = os.path.realpath(os.path.join(lib, 'vt', 'openmp', 'libgomp.so'))
    with open(libomp) as f:
        named = re.search(r'INPUT\((\S+)\)', f.read())
    omp_pkg = owner(t, named.group(1)) if named else None
    t.check(omp_pkg and omp_pkg in names['vt-compilers'],
            'vt-compilers depends on %s, which holds the libomp its libgomp.so names' % omp_pkg,
            repr(dep['vt-compilers']))


def unpack(t, debs, root):
    for p in PACKAGES:
        sh(t, ['dpkg-deb', '-x', debs[p], root], 'dpkg -x %s' % os.path.basename(debs[p]))


def trace_from_root(t, root, ma):
    """Builds prog.c with the unpacked vtcc (gcc, clang), runs it, reads the traces."""
    bindir = os.path.join(root, 'usr', 'bin')
    libdir = os.path.join(root, 'usr', 'lib', ma)
    env = clean_env({'PATH': bindir + ':' + os.environ.get('PATH', '/usr/bin:/bin')})
    vtcc = os.path.join(bindir, 'vtcc')
    version = sh(t, [vtcc, '-vt:version'], 'unpacked vtcc -vt:version', env=env)
    t.check('runtime: %s (installed, moved)\n' % libdir in version,
            'unpacked vtcc -vt:version: the runtime of the root, an installation moved', version)
    for cc, plugin in (('gcc', 'vt_gcc.so'), ('clang', 'vt_llvm.so')):
        what = 'unpacked vtcc with %s' % cc
        d = t.newdir('prog-' + cc)
        exe = os.path.join(d, 'prog')
        cmd = [vtcc, '-vt:cc', cc, '-O0', t.source('prog.c'), '-o', exe]
        show = sh(t, cmd + ['-vt:show'], '%s: -vt:show' % what, env=env).split()
        t.check('-I' + os.path.join(root, 'usr', 'include') in show,
                '%s: the headers of the root' % what, ' '.join(show))
        t.check('-L' + libdir in show and '-Wl,-rpath,' + libdir in show,
                '%s: the runtime of the root' % what, ' '.join(show))
        t.check(any(os.path.join(libdir, 'vt', plugin) in w for w in show),
                '%s: the root\'s %s' % (what, plugin), ' '.join(show))
        sh(t, cmd, '%s: builds prog.c' % what, env=env)
        needed = sh(t, ['ldd', exe], 'ldd prog', env=env)
        t.check(re.search(r'libvt\.so\.0 => %s/libvt\.so\.0' % re.escape(libdir), needed),
                '%s: prog loads the root\'s libvt.so.0' % what, needed)
        r = t.run(exe, env={'PATH': env['PATH'], 'LD_LIBRARY_PATH': None}, label='run-' + cc)
        t.eq((r.stdout, r.status), (OUTPUT, 0), '%s: output and status' % what)
        t.clean_run(r, what)
        path = r.anchor()
        locs, problems = vttest.read_with_otf2_print(path)
        t.eq(problems, [], '%s: otf2-print reads the trace' % what)
        t.eq([l['name'] for l in locs.values()], ['Master thread'], '%s: one location' % what)
        for l in locs.values():
            t.eq(dict(l['enters']), ENTERS, '%s: otf2-print: Enter counts' % what)
            t.eq(dict(l['leaves']), ENTERS, '%s: otf2-print: Leave counts' % what)
        out = sh(t, [os.path.join(bindir, 'vt-profile'), '--format', 'json', path],
                 '%s: the unpacked vt-profile reads the trace' % what, env=env)
        doc = json.loads(out)
        t.eq({r['name']: r['calls'] for r in doc['regions'] if r['calls']}, ENTERS,
             '%s: vt-profile: calls per region' % what)

    # vtrun of the root preloads the root's runtime into a program built without vt: the
    # user region of prog.c records (it is built with -DVT_USER against the root's header).
    what = 'unpacked vtrun'
    d = t.newdir('plain')
    exe = os.path.join(d, 'plain')
    sh(t, ['gcc', '-O0', '-DVT_USER', '-I' + os.path.join(root, 'usr', 'include'),
           t.source('prog.c'), '-o', exe], '%s: gcc builds prog.c without vt' % what)
    r = t.run(os.path.join(bindir, 'vtrun'), [exe],
              env={'PATH': env['PATH'], 'LD_LIBRARY_PATH': None, 'VT_FILE_PREFIX': 'plain'},
              label='vtrun')
    t.eq((r.stdout, r.status), (OUTPUT, 0), '%s: output and status' % what)
    t.clean_run(r, what)
    tr = t.trace(r, what, profile=False)
    t.enter_counts(tr.loc('Master thread'), {'phase': 2}, what)


def body(t):
    top = t.newdir('deb')
    debs, changes, ma, version = build(t, top)
    run_lintian(t, changes)
    root = t.newdir('root')
    unpack(t, debs, root)
    check_debs(t, debs, ma, version, root)
    trace_from_root(t, root, ma)


vttest.main('debian', body)
