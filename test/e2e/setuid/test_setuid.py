# SPDX-License-Identifier: BSD-3-Clause
"""e2e "setuid": a vtcc-built program made setuid or setgid root and run by an unprivileged
user (nobody) reads no VT_* variable: a user's counter plugin named in VT_PLUGIN_CNTR_PATH
is never loaded, VT_FILTER_SPEC=/etc/shadow shows nothing of that file, no trace is
written, and vt says so in one line; the program's output and status are unchanged. With
the administrator's file (meson option setuid_conf) in place, the trace is written where
that file says, still without the user's plugin; a file others may write, or one that names
a plugin, is refused in one line. Needs root (to make the program setuid) and setpriv."""

import fcntl
import os
import pwd
import shutil
import stat
import subprocess
import sys

import vttest

CONF = os.environ.get('VT_TEST_SETUID_CONF', '/etc/vt/setuid.conf')
NOTE = 'setuid/setgid program: '


def skip(why):
    print('SKIP: %s' % why)
    sys.exit(77)


def shadow_lines():
    try:
        with open('/etc/shadow', errors='replace') as f:
            return [l.strip() for l in f if l.strip()]
    except OSError:
        return []


def body(t):
    if os.environ.get('VT_TEST_SANITIZE'):
        skip('under a sanitizer: a secure process ignores its options (scripts/test-sanitize.sh)')
    if os.geteuid() != 0:
        skip('not root: cannot make a program setuid root')
    setpriv = shutil.which('setpriv')
    if not setpriv:
        skip('setpriv (util-linux) not installed')
    try:
        user = pwd.getpwnam('nobody')
    except KeyError:
        skip('no user "nobody" to run the program as')
    as_user = [setpriv, '--reuid=%d' % user.pw_uid, '--regid=%d' % user.pw_gid,
               '--clear-groups', '--']
    # The administrator's file is one per machine: suite runs side by side on one machine
    # take turns here, or one run's file would show up in the other's secure-default runs.
    # The lock goes with the process.
    t.setuid_lock = open('/tmp/vt-test-setuid.lock', 'w')
    fcntl.flock(t.setuid_lock, fcntl.LOCK_EX)

    exe = t.compile('suid', ['suid.c'], 'c', 'gcc', '-O0')
    plain = t.compile('suid-plain', ['suid.c'], instrument=False)
    # One copy setuid root, one setgid root; both owned by root, run by nobody.
    variants = []
    for label, bits in (('setuid', stat.S_ISUID), ('setgid', stat.S_ISGID)):
        d = t.newdir(label)
        path = os.path.join(d, 'suid')
        shutil.copy(exe, path)
        os.chown(path, 0, 0)
        os.chmod(path, 0o755 | bits)
        variants.append((label, path))

    # The user's plugin: its constructor leaves a marker file when it is loaded at all.
    plugdir = t.newdir('plugin')
    subprocess.run(['gcc', '-shared', '-fPIC', '-O0', t.source('userplugin.c'), '-o',
                    os.path.join(plugdir, 'libuserplug.so')], check=True)
    markdir = t.newdir('marker')
    os.chmod(markdir, 0o1777)
    marker = os.path.join(markdir, 'loaded')
    hostile = {'VT_PLUGIN_CNTR_METRICS': 'userplug_c', 'VT_PLUGIN_CNTR_PATH': plugdir,
               'VT_FILTER_SPEC': '/etc/shadow', 'VT_VERBOSE': '5',
               'USERPLUGIN_MARKER': marker}
    shadow = shadow_lines()

    ref = t.run(setpriv, as_user[1:] + [plain], label='plain')
    t.eq((ref.status, ref.stdout), (3, 'sum 35\n'), 'plain build: status and output')

    # Control: the same program without the setuid bit, run by nobody, loads the plugin
    # (so the checks below can fail) and writes its trace.
    ctl_gdir = t.newdir('control-trace')
    os.chmod(ctl_gdir, 0o777)
    ctl_env = dict(hostile, VT_FILTER_SPEC=None, VT_PFORM_GDIR=ctl_gdir)
    ctl = t.run(setpriv, as_user[1:] + [exe], env=ctl_env, gdir=ctl_gdir, label='control')
    t.same_as_plain(ctl, ref, 'control (not setuid)')
    t.check(os.path.exists(marker), 'control: the user plugin is loaded without setuid')
    t.check(os.path.isfile(os.path.join(ctl_gdir, 'suid.vt.otf2')),
            'control: the trace is written without setuid')
    if os.path.exists(marker):
        os.unlink(marker)

    if os.path.exists(CONF):
        skip('%s exists on this machine: the secure default cannot be tested' % CONF)
    for label, path in variants:
        run = t.run(setpriv, as_user[1:] + [path], env=hostile, label=label)
        t.same_as_plain(run, ref, label)
        t.check(not os.path.exists(marker), '%s: the user plugin was not loaded' % label,
                open(marker).read() if os.path.exists(marker) else '')
        out = run.stdout + run.stderr
        t.check(shadow and not any(l in out for l in shadow) and 'root:' not in out,
                '%s: nothing of /etc/shadow printed' % label, run.stderr[:300])
        notes = [m for m in run.messages if m.startswith(NOTE)]
        t.eq(len(notes), 1, '%s: one line says so' % label)
        t.eq(run.messages, notes, '%s: no other vt line (VT_VERBOSE=5 is not read)' % label)
        t.check(notes and 'writes no trace' in notes[0] and CONF in notes[0],
                '%s: the line says no trace and names the administrator\'s file' % label,
                repr(notes))
        t.eq(os.listdir(run.gdir) + os.listdir(run.cwd), [],
             '%s: no trace written (VT_PFORM_GDIR nor working directory)' % label)

    # The administrator allows traces: the file's settings, not the environment's.
    made_dir = not os.path.isdir(os.path.dirname(CONF))
    admin_gdir = t.newdir('admin-trace')
    try:
        os.makedirs(os.path.dirname(CONF), exist_ok=True)

        def admin(text, mode=0o644):
            with open(CONF, 'w') as f:
                f.write(text)
            os.chmod(CONF, mode)

        admin('# traces of setuid programs\nVT_PFORM_GDIR=%s\n  VT_FILE_PREFIX=admin\n'
              % admin_gdir)
        run = t.run(setpriv, as_user[1:] + [variants[0][1]], env=hostile, label='allowed')
        run.gdir = admin_gdir
        t.same_as_plain(run, ref, 'allowed')
        t.check(not os.path.exists(marker), 'allowed: the user plugin was not loaded')
        t.eq(os.listdir(run.cwd), [], 'allowed: nothing in the working directory')
        notes = [m for m in run.messages if m.startswith(NOTE)]
        t.eq(len(notes), 1, 'allowed: one line says so')
        t.check(notes and ('settings from ' + CONF) in notes[0],
                'allowed: the line names the administrator\'s file', repr(notes))
        t.clean_run(run, 'allowed')
        tr = t.trace(run, 'allowed', prefix='admin')
        t.enter_counts(tr.loc('Master thread'), {'main': 1, 'step': 5}, 'allowed')

        # Refused files: one error line naming the file, no trace.
        for label, text, mode, want in (
                ('group-writable', 'VT_FILE_PREFIX=x\n', 0o664, 'owned by root'),
                ('plugin-line', 'VT_PLUGIN_CNTR_PATH=/tmp\n', 0o644, ':1: expected NAME='),
                ('bad-value', '\nVT_BUFFER_SIZE=lots\n', 0o644, ':2: VT_BUFFER_SIZE')):
            admin(text, mode)
            run = t.run(setpriv, as_user[1:] + [variants[0][1]], env=hostile, label=label)
            t.same_as_plain(run, ref, label)
            t.eq(len(run.errors), 1, '%s: one error line' % label)
            t.check(run.errors and CONF in run.errors[0] and want in run.errors[0],
                    '%s: it names the file and says what is wrong' % label, repr(run.errors))
            t.eq(os.listdir(run.gdir) + os.listdir(run.cwd), [], '%s: no trace' % label)
            t.check(not os.path.exists(marker), '%s: the user plugin was not loaded' % label)
    finally:
        if os.path.exists(CONF):
            os.unlink(CONF)
        if made_dir:
            os.rmdir(os.path.dirname(CONF))


vttest.main('setuid', body)
