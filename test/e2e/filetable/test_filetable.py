# SPDX-License-Identifier: BSD-3-Clause
"""e2e "filetable": vt's writer thread has a descriptor table of its own.

Linux looks a descriptor up without a reference count only while one task uses the table,
so vt's writer leaves the program's table as it starts (unshare) and keeps of its copy only
fd 2 and vt's own descriptors. A single-threaded traced program whose buffer flushes (so
the writer runs) lists the descriptors of each task of its process: the writer's hold only
/dev/null, the standard error and files of the trace's directory, never the program's pipe,
its own file or its standard output; the program's own list holds its pipe and file and no
event file of vt's. The program then closes the pipe's write end: the reader, a forked
child, sees the end of the pipe (a copy in the writer would keep it open and the child would
block until its alarm). The trace is whole: exactly N calls of leaf() and one of main,
balanced, read alike by python3-otf2, otf2-print and vt-profile. The same program with
VT_FLUSH_THREAD=no has no second task and the same trace.
"""

import os

import vttest

CALLS = 100000


def body(t):
    exe = t.compile('filetable', ['filetable.c'], compiler='gcc', opt='-O0')
    for env in ({'VT_BUFFER_SIZE': '256k'}, {'VT_BUFFER_SIZE': '256k',
                                             'VT_FLUSH_THREAD': 'no'}):
        what = ' '.join('%s=%s' % kv for kv in sorted(env.items()))
        writer = 'VT_FLUSH_THREAD' not in env
        run = t.run(exe, args=[str(CALLS)], env=env, label='filetable')
        t.eq(run.status, 0, '%s: exit status 0' % what)
        t.clean_run(run, what)
        lines = run.stdout.splitlines()
        links = dict(l.split(' -> ', 1) for l in lines
                     if l.split(' -> ')[0] in ('pipe', 'mine', 'stderr'))
        t.eq(sorted(links), ['mine', 'pipe', 'stderr'], '%s: the program names its pipe, '
             'its file and its stderr' % what)
        t.eq(links.get('mine'), os.path.join(os.path.realpath(run.cwd), 'mine.txt'),
             '%s: its file is mine.txt' % what)
        tasks = [l for l in lines if l.startswith('tasks ')]
        t.eq(tasks, ['tasks %d' % (2 if writer else 1)],
             '%s: %s' % (what, 'the program and vt\'s writer' if writer else 'one task'))
        other = [l.split(' -> ', 1) for l in lines if l.startswith('task ')]
        own = [l.split(' -> ', 1) for l in lines if l.startswith('self fd ')]
        gdir = os.path.realpath(run.gdir)
        allowed = ('/dev/null', links.get('stderr'))
        stray = [(fd, target) for fd, target in other
                 if target not in allowed and not target.startswith(gdir + '/')]
        t.eq(stray, [], '%s: the writer holds only /dev/null, stderr and trace files' % what)
        if writer:
            t.check(any(target.endswith('/0.evt') for _, target in other),
                    '%s: the writer holds the event file it writes' % what, repr(other))
        t.eq([fd for fd, target in other if target in (links.get('pipe'), links.get('mine'))],
             [], '%s: the writer holds neither the program\'s pipe nor its file' % what)
        self_targets = [target for _, target in own]
        t.check(links.get('pipe') in self_targets and links.get('mine') in self_targets,
                '%s: the program\'s own table holds its pipe and file' % what,
                repr(self_targets))
        t.eq([target for target in self_targets if target.endswith('.evt')],
             [] if writer else [x for x in self_targets if x.endswith('.evt')],
             '%s: no event file in the program\'s table while the writer runs' % what)
        t.check('child: EOF after 5 bytes' in lines,
                '%s: the pipe\'s reader saw its end once the program closed it' % what,
                repr([l for l in lines if l.startswith('child')]))
        with open(os.path.join(run.cwd, 'mine.txt')) as f:
            t.eq(f.read(), 'xxx', '%s: the program\'s file holds what it wrote' % what)
        tr = t.trace(run, what)
        enters = tr.enters()
        t.eq((enters['leaf'], enters['main']), (CALLS, 1),
             '%s: leaf entered %d times, main once' % (what, CALLS))
        t.eq(len(tr.locations), 1, '%s: one location' % what)


vttest.main('filetable', body)
