# SPDX-License-Identifier: BSD-3-Clause
"""e2e "hostid": writing the trace asks no name service.

libotf2 hashes gethostid() into the trace id when it writes the anchor; glibc's gethostid,
without /etc/hostid, resolves the host name (nscd, /etc/nsswitch.conf, /etc/hosts, DNS), at
the program's exit. vt answers that call itself while it writes the anchor: under strace, a
traced run opens none of those files and makes no socket, and the trace has its trace id.
The program's own gethostid() still gives libc's answer, as in its plain build.
"""

import os
import shutil
import subprocess

import vttest

NAME_SERVICE = ('/etc/nsswitch.conf', '/etc/hosts', '/etc/resolv.conf', '/etc/host.conf')


def body(t):
    exe, plain_exe = t.parallel(
        lambda instrument: t.compile('hostid', ['hostid.c'], compiler='gcc', opt='-O0',
                                     instrument=instrument), [True, False])
    strace = shutil.which('strace')
    if not t.check(strace, 'strace is installed (scripts/install-deps.sh)'):
        return
    what = 'traced run under strace'
    log = os.path.join(t.newdir('strace'), 'calls')
    gdir = t.newdir('traces')
    env = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    env['VT_PFORM_GDIR'] = gdir
    p = subprocess.run([strace, '-f', '-qq', '-o', log, '-e', 'trace=openat,open,socket,connect',
                        exe], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       universal_newlines=True, cwd=gdir)
    t.eq(p.returncode, 0, '%s: exit status 0' % what)
    with open(log) as f:
        calls = f.read().splitlines()
    looked = [c for c in calls if any(n in c for n in NAME_SERVICE) or 'socket(' in c]
    t.eq(looked, [], '%s: no name-service file opened, no socket made' % what)
    anchor = os.path.join(gdir, 'hostid.vt.otf2')
    rc, out, err = vttest.otf2_print(['-A', anchor])
    ids = [l.split()[-1] for l in out.splitlines() if l.startswith('Trace identifier')]
    t.check(rc == 0 and len(ids) == 1 and int(ids[0], 16) != 0,
            '%s: otf2-print -A shows a trace identifier' % what, out[-300:] + err[-300:])
    tr = vttest.read_trace(anchor)
    t.enter_counts(tr.loc('Master thread'), {'main': 1, 'step': 5}, what)

    what = 'the program\'s own gethostid()'
    plain = t.run(plain_exe, args=['id'], label='plain')
    run = t.run(exe, args=['id'], label='id')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    t.enter_counts(tr.loc('Master thread'), {'main': 1, 'step': 5}, what)


vttest.main('hostid', body)
