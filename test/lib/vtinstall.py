# SPDX-License-Identifier: BSD-3-Clause
"""vt installed as a user installs it, for the tests of what an installation offers
(plugin_sdk, cmake_pkg): this source tree configured with meson for a fresh prefix, built,
installed, and its build tree removed, so that nothing of a build is needed any more.

    d = vtinstall.install_vt(t, t.newdir('inst'))
    d['prefix'], d['version'], d['bin'], d['lib'], d['inc'], d['data']   # absolute paths
    out = vtinstall.sh(t, ['cmake', ...], 'what it does', cwd=..., env=...)

sh() fails the test (vttest.Failure) when the command fails: what comes after needs it.
"""

import json
import os
import shutil
import subprocess

import vttest

MESON = shutil.which('meson') or '/usr/bin/meson'
NINJA = shutil.which('ninja') or '/usr/bin/ninja'


def sh(t, cmd, what, cwd=None, env=None, timeout=900):
    """Runs cmd; returns its stdout and stderr together. A failure ends the test."""
    print('cmd: %s' % ' '.join(cmd))
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, errors='replace', timeout=timeout)
    if not t.check(p.returncode == 0, what, 'status %d: %s' % (p.returncode, p.stdout[-3000:])):
        raise vttest.Failure('%s failed' % what)
    return p.stdout


def install_vt(t, top):
    """Installs vt into top/prefix (built in top/build, removed after); returns its folders."""
    prefix, build = os.path.join(top, 'prefix'), os.path.join(top, 'build')
    sh(t, [MESON, 'setup', build, vttest.SOURCE_ROOT, '--prefix=' + prefix],
       'meson setup vt for a fresh prefix')
    opts = json.loads(sh(t, [MESON, 'introspect', '--buildoptions', build],
                         'meson introspect'))
    values = {o['name']: o['value'] for o in opts}
    version = json.loads(sh(t, [MESON, 'introspect', '--projectinfo', build],
                            'meson introspect --projectinfo'))['version']
    # What meson install installs, built alone: not the tests and benchmarks of the tree,
    # which a plain "meson install" would build first (minutes on a loaded machine).
    targets = json.loads(sh(t, [MESON, 'introspect', '--targets', build],
                            'meson introspect --targets'))
    wanted = sorted(os.path.relpath(f, build) for tg in targets if tg.get('installed')
                    for f in tg['filename'])
    sh(t, [NINJA, '-C', build] + wanted, 'ninja builds the %d files vt installs' % len(wanted))
    sh(t, [MESON, 'install', '-C', build, '--no-rebuild', '--quiet'], 'meson install vt')
    # Nothing of that build tree may be needed any more.
    shutil.rmtree(build)
    return {'prefix': prefix, 'version': version,
            'bin': os.path.join(prefix, values['bindir']),
            'lib': os.path.join(prefix, values['libdir']),
            'inc': os.path.join(prefix, values['includedir']),
            'data': os.path.join(prefix, values['datadir'])}


def run_status(cmd, env=None, cwd=None, timeout=900):
    """Runs cmd, which may fail; returns (status, stdout and stderr together)."""
    print('cmd: %s' % ' '.join(cmd))
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, errors='replace', timeout=timeout)
    return p.returncode, p.stdout
