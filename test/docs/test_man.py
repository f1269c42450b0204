# SPDX-License-Identifier: BSD-3-Clause
"""The man pages generated from docs/ render cleanly at 80 columns and install where man finds them.

For every page the build generates (docs/meson.build): `man -l` at 80 columns with groff's
warnings on prints no warning, no line is wider than 80 columns, and NAME and SYNOPSIS are
there; vt-environment(7) lists exactly the variables vt-info lists; `meson install --destdir`
(the man pages only) puts the pages under PREFIX/MANDIR where `man -M` finds vtcc, vtcxx,
vtfort and the others.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

BUILD = os.environ['VT_BUILD_ROOT']
VT_INFO = os.environ['VT_INFO']
PAGES = ['vtcc.1', 'vtcxx.1', 'vtfort.1', 'vtrun.1', 'vt-ctl.1', 'vt-info.1', 'vt-profile.1',
         'vt-profile-mpi.1', 'vt-profile-mpich.1', 'vt-sim-mpi.1', 'vt-sim-mpich.1',
         'vt-report.1', 'vt-export.1', 'vt-score.1', 'vt-sim.1', 'vt-environment.7',
         'vt-plugins.7', 'vt-sim-plugins.7', 'vt-kokkos.7', 'vt-ring.7', 'vt-cmake.7']
# rendered where installed, beside the page they source
ALIASES = {'vtcxx.1': 'vtcc.1', 'vtfort.1': 'vtcc.1', 'vt-profile-mpi.1': 'vt-profile.1',
           'vt-profile-mpich.1': 'vt-profile.1', 'vt-sim-mpi.1': 'vt-sim.1',
           'vt-sim-mpich.1': 'vt-sim.1'}
ENV = dict(os.environ, MANWIDTH='80', LC_ALL='C.UTF-8', MANPAGER='cat', PAGER='cat')
ENV.pop('MAN_KEEP_FORMATTING', None)
failed = 0


def check(cond, what, detail=''):
    global failed
    print('%s: %s' % ('ok' if cond else 'FAIL', what))
    if not cond:
        failed += 1
        if detail:
            print('    ' + str(detail).replace('\n', '\n    '))
    return cond


def man(args, cwd=None):
    return subprocess.run(['man'] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=ENV, cwd=cwd, universal_newlines=True, timeout=60)


def section(text, name):
    """The lines of the rendered section NAME (up to the next heading)."""
    out, inside = [], False
    for ln in text.splitlines():
        if ln and not ln[0].isspace():
            inside = ln.strip() == name
        elif inside:
            out.append(ln)
    return out


def render(path):
    """Checks one page; returns its rendered text."""
    page = os.path.basename(path)
    p = man(['-l', '--warnings=all', path], cwd=os.path.dirname(os.path.dirname(path)))
    check(p.returncode == 0, '%s: man -l exits 0' % page, p.stderr)
    check(p.stderr == '', '%s: no warning from groff or man' % page, p.stderr)
    long = [ln for ln in p.stdout.splitlines() if len(ln) > 80]
    check(not long, '%s: no line over 80 columns' % page, '\n'.join(long[:5]))
    heads = [ln for ln in p.stdout.splitlines() if ln and not ln[0].isspace()]
    for h in ('NAME', 'SYNOPSIS'):
        check(h in heads, '%s: has the %s section' % (page, h), heads)
    return p.stdout


def environment(text):
    """vt-environment(7) lists exactly the variables vt-info lists."""
    listed = []
    for ln in section(text, 'DESCRIPTION'):
        m = re.match(r'^ {7}([A-Z][A-Z0-9]*_[A-Z0-9_]+)(\s{2,}|$)', ln)
        if m:
            listed.append(m.group(1))
    p = subprocess.run([VT_INFO], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=60,
                       env={k: v for k, v in os.environ.items() if not k.startswith('VT_')})
    check(p.returncode == 0, 'vt-info exits 0', p.stderr)
    info = re.findall(r'^\s*([A-Z][A-Z0-9]*_[A-Z0-9_]+)\s', p.stdout, re.M)
    check(len(info) >= 9, 'vt-info lists the variables', p.stdout)
    check(listed == info, 'vt-environment(7) lists exactly the %d variables of vt-info, in order'
          % len(info),
          'page only: %s\nvt-info only: %s\norder: %s' % (
              sorted(set(listed) - set(info)), sorted(set(info) - set(listed)), listed))


def installed():
    """meson install --destdir puts the pages where man -M PREFIX/MANDIR finds them."""
    opts = json.loads(subprocess.run(['meson', 'introspect', '--buildoptions', BUILD],
                                     stdout=subprocess.PIPE, check=True).stdout)
    opt = {o['name']: o['value'] for o in opts}
    mandir = opt['mandir'] if os.path.isabs(opt['mandir']) else os.path.join(
        opt['prefix'], opt['mandir'])
    dest = tempfile.mkdtemp(prefix='vt-man-')
    try:
        p = subprocess.run(['meson', 'install', '-C', BUILD, '--no-rebuild', '--tags', 'man',
                            '--destdir', dest], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
        if not check(p.returncode == 0, 'meson install --tags man --destdir exits 0',
                     p.stdout[-2000:]):
            return
        root = dest + mandir
        for page in PAGES:
            name, sec = page.rsplit('.', 1)
            where = os.path.join(root, 'man' + sec, page)
            check(os.path.isfile(where), '%s installed as %s' % (page, where[len(dest):]))
            w = man(['-M', root, '-w', sec, name])
            # an alias is found as the page it sources
            want = os.path.join(root, 'man1', ALIASES[page]) if page in ALIASES else where
            check(w.returncode == 0 and w.stdout.strip() == want,
                  'man -M DESTDIR%s -w %s %s finds it' % (mandir, sec, name),
                  w.stdout + w.stderr)
            r = man(['-M', root, sec, name])
            check(r.returncode == 0 and r.stderr == '' and 'SYNOPSIS' in r.stdout,
                  'man -M DESTDIR%s %s %s shows the page' % (mandir, sec, name),
                  r.stderr or r.stdout[:300])
        extra = sorted(f for d, _, fs in os.walk(dest) for f in fs if f not in PAGES)
        check(not extra, 'meson install --tags man installs nothing else', extra)
    finally:
        shutil.rmtree(dest, ignore_errors=True)


def main():
    if not check(shutil.which('man') is not None, 'man is installed (scripts/install-deps.sh)'):
        return 1
    for page in PAGES:
        path = os.path.join(BUILD, 'docs', page)
        if not check(os.path.isfile(path), '%s is generated' % page):
            continue
        if page in ALIASES:
            check(open(path).read() == '.so man1/%s\n' % ALIASES[page],
                  '%s is %s(1)' % (page, ALIASES[page][:-2]))
            continue
        text = render(path)
        if page == 'vt-environment.7':
            environment(text)
    installed()
    print('%d failed' % failed)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
