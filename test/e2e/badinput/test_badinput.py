# SPDX-License-Identifier: BSD-3-Clause
"""e2e "badinput": each bad setting gives exactly one "vt[PID]: error:" line naming the
variable (or FILE:LINE) and the bad value, and changes neither the program's output nor its
exit status (3)."""

import os

import vttest


def body(t):
    exe, plain_exe = t.parallel(
        lambda instrument: t.compile('badinput', ['badinput.c'], compiler='gcc', opt='-O0',
                                     instrument=instrument), [True, False])
    plain = t.run(plain_exe, label='plain')
    t.eq(plain.status, 3, 'uninstrumented: exit status 3')

    files = t.newdir('files')
    afile = os.path.join(files, 'afile')
    with open(afile, 'w') as f:
        f.write('a regular file, so nothing can be created below it\n')
    bad_filter = os.path.join(files, 'bad.filter')
    with open(bad_filter, 'w') as f:
        f.write('# a comment, then a good rule, then a bad limit\n'
                'work -- 3\n'
                'foo -- lots\n')

    binary_filter = os.path.join(files, 'binary.filter')
    with open(binary_filter, 'wb') as f:
        f.write(b'\x7fELF\x02\x01\x1b[31m\n')
    bom_filter = os.path.join(files, 'bom.filter')
    with open(bom_filter, 'wb') as f:
        f.write(b'\xef\xbb\xbfwork -- 3\nfoo -- lots\n')

    # (environment, the words the error line must contain)
    cases = [
        # Not filter files: refused in one line, nothing read (/dev/zero never ends).
        ({'VT_FILTER_SPEC': files}, ['VT_FILTER_SPEC', files, 'not a directory']),
        ({'VT_FILTER_SPEC': '/dev/zero'}, ['VT_FILTER_SPEC', '/dev/zero', 'regular file']),
        # A binary file's bytes are escaped; a byte order mark is not part of line 1.
        ({'VT_FILTER_SPEC': binary_filter},
         [binary_filter + ':1', "'\\x7fELF\\x02\\x01\\x1b[31m'"]),
        ({'VT_FILTER_SPEC': bom_filter}, [bom_filter + ':2', 'lots']),
        ({'VT_ON': 'maybe'}, ['VT_ON', 'maybe']),
        ({'VT_BUFFER_SIZE': '12x'}, ['VT_BUFFER_SIZE', '12x']),
        ({'VT_BUFFER_SIZE': '0'}, ['VT_BUFFER_SIZE', "'0'"]),
        ({'VT_BUFFER_SIZE': '512'}, ['VT_BUFFER_SIZE', '512']),  # below the 1k minimum
        ({'VT_MAX_FLUSHES': '-3'}, ['VT_MAX_FLUSHES', '-3']),
        ({'VT_MAX_STACK_DEPTH': 'abc'}, ['VT_MAX_STACK_DEPTH', 'abc']),
        ({'VT_TIMER': 'sundial'}, ['VT_TIMER', 'sundial']),
        ({'VT_VERBOSE': '9'}, ['VT_VERBOSE', "'9'"]),
        ({'VT_FILE_PREFIX': 'a/b'}, ['VT_FILE_PREFIX', 'a/b']),
        # Too long for a file name with its suffixes: refused, never cut.
        ({'VT_FILE_PREFIX': 'p' * 300}, ['VT_FILE_PREFIX', 'at most 240 bytes',
                                         'got 300 bytes']),
        ({'VT_FILE_PREFIX': '..'}, ['VT_FILE_PREFIX', "'..'"]),
        ({'VT_FILTER_SPEC': '/nonexistent/vt.filter'},
         ['VT_FILTER_SPEC', '/nonexistent/vt.filter']),
        ({'VT_FILTER_SPEC': bad_filter}, [bad_filter + ':3', 'lots']),
        ({'VT_PFORM_GDIR': os.path.join(afile, 'sub')},
         ['VT_PFORM_GDIR', os.path.join(afile, 'sub')]),
        ({'VT_PFORM_GDIR': '/proc/vt-e2e-no-such-dir'},
         ['VT_PFORM_GDIR', '/proc/vt-e2e-no-such-dir']),
        # Errors are shown even when everything else is silenced.
        ({'VT_VERBOSE': '0', 'VT_ON': 'maybe'}, ['VT_ON', 'maybe']),
    ]
    for env, words in cases:
        what = ' '.join('%s=%s' % kv for kv in sorted(env.items()))
        run = t.run(exe, env=env, label='bad')
        t.same_as_plain(run, plain, what)
        t.vt_pids(run, what)
        errors = run.errors
        t.eq(len(errors), 1, '%s: exactly one "vt[PID]: error:" line' % what)
        t.check(errors and all(w in errors[0] for w in words),
                '%s: the error line names %s' % (what, ' and '.join(words)), repr(errors))
        if env.get('VT_VERBOSE') == '0':
            t.eq(run.messages, errors, '%s: nothing but the error on stderr' % what)

    # Controls: good settings give no error and a trace; VT_VERBOSE=0 silences the notice.
    for env in ({}, {'VT_ON': 'yes', 'VT_BUFFER_SIZE': '1M', 'VT_MAX_FLUSHES': '3',
                     'VT_MAX_STACK_DEPTH': '10', 'VT_TIMER': 'monotonic', 'VT_VERBOSE': '1',
                     'VT_FILE_PREFIX': 'good'}):
        what = 'good settings %r' % env
        run = t.run(exe, env=env, label='good')
        t.same_as_plain(run, plain, what)
        t.clean_run(run, what)
        tr = t.trace(run, what)
        t.enter_counts(tr.loc('Master thread'), {'main': 1, 'work': 10}, what)
    what = 'VT_VERBOSE=0'
    run = t.run(exe, env={'VT_VERBOSE': '0'}, label='quiet')
    t.same_as_plain(run, plain, what)
    t.eq(run.messages, [], '%s: vt prints nothing' % what)
    tr = t.trace(run, what, notice=False)
    t.enter_counts(tr.loc('Master thread'), {'main': 1, 'work': 10}, what)
    # VT_ON=no: no trace at all, program unchanged.
    what = 'VT_ON=no'
    run = t.run(exe, env={'VT_ON': 'no'}, label='off')
    t.same_as_plain(run, plain, what)
    t.eq(run.errors, [], '%s: no vt error' % what)
    t.eq(sorted(os.listdir(run.gdir)), [], '%s: no trace written' % what)


vttest.main('badinput', body)
