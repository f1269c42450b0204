# SPDX-License-Identifier: BSD-3-Clause
"""e2e "openmp_build": OpenMP programs reach a runtime with OMPT, whoever built them.
- vtcc (gcc), vtcxx (g++) and vtfort (gfortran) -fopenmp link LLVM's libomp, not libgomp
  (readelf: NEEDED, RUNPATH; ldd finds it without LD_LIBRARY_PATH), at -O0 and -O2; with
  -vt:openmp-runtime libgomp or VT_OPENMP_RUNTIME=libgomp they link libgomp;
- every build prints what the plain gcc/gfortran build prints, and its trace has one location
  per OpenMP thread with exact Enter counts; OMP_MAX_ACTIVE_LEVELS=0 gives one thread on
  libomp as on libgomp;
- a run on libgomp (no OMPT) gets exactly one vt warning naming it; a run on libomp none;
- vtrun: a plain gcc build (libgomp) runs on a preloaded libomp (its banner under
  KMP_VERSION=1 says so), a plain clang build on its own libomp, both as without vt, with one
  location per OpenMP thread (-vt:sampling yes); -vt:openmp-runtime libgomp keeps libgomp;
  a program that needs a libgomp function libomp lacks (GOMP_warning) stays on libgomp,
  with one vtrun line naming the function.

OpenMP events (OMPT): on the libomp builds, per thread, the forks, joins, team begins and
ends, lock acquisitions and releases, barrier regions and the tasks created follow from what
each program does (OMPT_FACTS below); the libgomp builds have none."""

import os
import re
import subprocess

import vttest

VTRUN = os.path.join(os.path.dirname(vttest.VTCC), 'vtrun')
LIBVT = os.path.join(vttest.BUILD_ROOT, 'runtime', 'libvt.so')
ENV = {'OMP_NUM_THREADS': '2'}
LOCS = [(0, 'Master thread'), (1, 'Thread 1')]

# By hand, from omp_build.c: OpenMP thread t calls work() (t + 1) * 3 times in region 1 and
# once in region 2, iter() 4 times (8 iterations, schedule(static), 2 threads) and locked()
# once; main() runs on the primary thread. task_body() runs 4 times in all, on whichever
# thread takes each task, so it is counted over the locations.
C_WANT = ({'main': 1, 'work': 4, 'iter': 4, 'locked': 1},
          {'work': 7, 'iter': 4, 'locked': 1})
C_TASKS = ('task_body', 4)
# From omp_build.f90: thread t calls work (t + 1) * 2 times, iter 4 times; task_body 3 times
# in all. The main program's regions (main, MAIN__ or ompbuild) are the primary thread's.
F_WANT = ({'ompwork::work': 2, 'ompwork::iter': 4}, {'ompwork::work': 4, 'ompwork::iter': 4})
F_TASKS = ('ompwork::task_body', 3)
F_PROGRAM = {'main', 'MAIN__', 'ompbuild'}

# What the programs do per OpenMP thread, from which the OMPT tool's event counts follow
# (thread 0 is the primary thread, "Master thread"; thread 1 is "Thread 1"):
# omp_build.c (and .cpp): 2 parallel regions of 2 threads. Region 1: explicit barrier 1,
#   loop barrier 1 (omp for without nowait), the lock set/unset once per thread (lock
#   init/destroy once, on thread 0 outside the regions), the master construct on thread 0
#   only, which creates 4 explicit tasks and one taskwait; the region's implicit barrier.
#   Region 2: the implicit barrier only. Per thread: 2 implicit tasks, 3 barriers of
#   region 1 + 1 of region 2 (implicit ones counted); thread 0: 2 forks/joins, 4 task
#   creations, 1 taskwait; explicit tasks run 4 times in all, on either thread.
# omp_build.f90: 1 parallel region of 2 threads: explicit barrier 1, loop barrier 1, the
#   master construct on thread 0 creating 3 tasks and one taskwait, the implicit barrier.
# GCC's code calls GOMP_parallel per region, GOMP_barrier for the explicit and the loop's
# barrier alike, GOMP_task per task, GOMP_taskwait, omp_set_lock/omp_unset_lock; the loop's
# reduction and the atomics are atomic instructions (no GOMP_atomic_*, no critical).
OMPT_FACTS = {
    'c': {'regions': 2, 'barriers_per_thread': 4, 'locks_per_thread': 1, 'tasks': 4},
    'fortran': {'regions': 1, 'barriers_per_thread': 3, 'locks_per_thread': 0, 'tasks': 3},
}

NO_OMPT = re.compile(r'^warning: OpenMP runtime \S*/libgomp\.so\.1 has no OMPT, so the trace '
                     r'has no OpenMP events: link LLVM\'s libomp .* or run the program under '
                     r'vtrun$')


def tool_in_libvt():
    """Whether libvt has an OMPT tool (exports ompt_start_tool)."""
    out = subprocess.run(['nm', '-D', '--defined-only', LIBVT], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    return any(l.split()[-1] == 'ompt_start_tool' for l in out.splitlines() if l.split())


def libomp_path():
    """The libomp vtcc links, from vtcc -vt:version (None when vt was built without)."""
    out = subprocess.run([vttest.VTCC, '-vt:version'], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    m = re.search(r'^OpenMP: -fopenmp links (\S+) in place of libgomp$', out, re.M)
    return m.group(1) if m else None


def dynamic(exe):
    """(NEEDED libraries, RUNPATH folders) of exe, from readelf -d."""
    out = subprocess.run(['readelf', '-d', exe], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    needed = re.findall(r'\(NEEDED\)\s+Shared library: \[([^]]+)\]', out)
    runpath = re.findall(r'\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^]]+)\]', out)
    return needed, ':'.join(runpath).split(':') if runpath else []


def ldd_omp(exe):
    """What ldd resolves the OpenMP runtimes of exe to, with no LD_LIBRARY_PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ('LD_LIBRARY_PATH', 'LD_PRELOAD')}
    out = subprocess.run(['ldd', exe], stdout=subprocess.PIPE, universal_newlines=True,
                         env=env).stdout
    return dict(re.findall(r'^\s*(lib\w*omp[\w.]*) => (\S+)', out, re.M))


def build_env(t, out, sources, lang, opt, env):
    """A vtcc build with extra environment variables (vttest.compile has none)."""
    outdir = t.newdir('build')
    path = os.path.join(outdir, out)
    driver = {'c': vttest.VTCC, 'fortran': vttest.VTFORT}[lang]
    cmd = [driver, opt] + [t.source(s) for s in sources] + ['-o', path, '-fopenmp'] + \
        no_inline(lang, opt)
    print('build: %s %s' % (' '.join('%s=%s' % kv for kv in env.items()), ' '.join(cmd)))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=outdir,
                       universal_newlines=True, env=dict(os.environ, **env))
    if p.returncode != 0:
        raise vttest.Failure('build failed: %s\n%s' % (' '.join(cmd), p.stdout))
    return path


# name: (language, sources, opt, runtime, how: 'option', 'env' or None for the default)
BUILDS = [
    ('c-O0', 'c', ['omp_build.c'], '-O0', 'libomp', None),
    ('c-O2', 'c', ['omp_build.c'], '-O2', 'libomp', None),
    ('cxx-O2', 'c++', ['omp_build.cpp'], '-O2', 'libomp', None),
    ('f-O0', 'fortran', ['omp_build.f90'], '-O0', 'libomp', None),
    ('f-O2', 'fortran', ['omp_build.f90'], '-O2', 'libomp', None),
    ('c-O2-libgomp', 'c', ['omp_build.c'], '-O2', 'libgomp', 'option'),
    ('f-O2-libgomp', 'fortran', ['omp_build.f90'], '-O2', 'libgomp', 'env'),
]
PLAIN = [('plain-c', 'c', 'gcc', 'omp_build.c'), ('plain-f', 'fortran', 'gfortran',
                                                   'omp_build.f90'),
         ('plain-clang', 'c', 'clang', 'omp_build.c'), ('plain-error', 'c', 'gcc',
                                                         'omp_error.c')]


def no_inline(lang, opt):
    """gfortran -O2 inlines omp_build.f90's small procedures, and vt's default (the GCC
    plugin, after inlining) records only what remains a call; gfortran 12 has no NOINLINE
    attribute, so the test keeps the source's calls with -fno-inline."""
    return ['-fno-inline'] if lang == 'fortran' and opt != '-O0' else []


def build(t, item):
    if item[0].startswith('plain'):
        name, lang, cc, src = item
        return t.compile(name, [src], lang=lang, compiler=cc, opt='-O2', flags=['-fopenmp'],
                         instrument=False)
    name, lang, sources, opt, _, how = item
    if how == 'env':
        return build_env(t, name, sources, lang, opt, {'VT_OPENMP_RUNTIME': 'libgomp'})
    flags = ['-fopenmp'] + (['-vt:openmp-runtime', 'libgomp'] if how == 'option' else []) + \
        no_inline(lang, opt)
    return t.compile(name, sources, lang=lang, opt=opt, flags=flags)


def check_link(t, exe, runtime, libomp, what):
    needed, runpath = dynamic(exe)
    omp = [n for n in needed if 'omp' in n]
    if runtime == 'libomp':
        t.eq(omp, ['libomp.so.5'], '%s: links libomp, not libgomp (NEEDED)' % what)
        t.check(os.path.dirname(libomp) in runpath,
                '%s: RUNPATH has libomp\'s folder %s' % (what, os.path.dirname(libomp)),
                repr(runpath))
        t.eq(list(ldd_omp(exe).items()), [('libomp.so.5', os.path.join(
            os.path.dirname(libomp), 'libomp.so.5'))],
             '%s: ldd finds libomp without LD_LIBRARY_PATH' % what)
    else:
        t.eq(omp, ['libgomp.so.1'], '%s: links libgomp, not libomp (NEEDED)' % what)


def check_ompt(t, tr, lang, runtime, what):
    """OpenMP events per thread (OMPT_FACTS): on libomp the tool's, on libgomp none."""
    facts = OMPT_FACTS['fortran' if lang == 'fortran' else 'c']
    omp_kinds = ('ThreadFork', 'ThreadJoin', 'ThreadTeamBegin', 'ThreadTeamEnd',
                 'ThreadAcquireLock', 'ThreadReleaseLock', 'ThreadTaskCreate')
    for i, loc in enumerate(tr.locations):
        got = {k: loc.kinds.get(k, 0) for k in omp_kinds}
        barriers = sum(n for k, n in loc.enters.items()
                       if k.startswith('!$omp') and 'barrier' in k)
        if runtime != 'libomp':
            t.eq((got, barriers), ({k: 0 for k in omp_kinds}, 0),
                 '%s: %s: no OpenMP events on libgomp' % (what, loc.name))
            continue
        forks = facts['regions'] if i == 0 else 0
        want = {'ThreadFork': forks, 'ThreadJoin': forks,
                'ThreadTeamBegin': facts['regions'], 'ThreadTeamEnd': facts['regions'],
                'ThreadAcquireLock': facts['locks_per_thread'],
                'ThreadReleaseLock': facts['locks_per_thread']}
        got.pop('ThreadTaskCreate')
        t.eq((got, barriers), (want, facts['barriers_per_thread']),
             '%s: %s: OpenMP events (fork, join, team, lock) and barrier regions'
             % (what, loc.name))
    if runtime == 'libomp':
        t.eq(sum(l.kinds.get('ThreadTaskCreate', 0) for l in tr.locations), facts['tasks'],
             '%s: %d tasks created' % (what, facts['tasks']))


def check_locations(t, tr, lang, what):
    t.eq([(l.ref, l.name) for l in tr.locations], LOCS,
         '%s: one location per OpenMP thread' % what)
    if len(tr.locations) != 2:
        return
    want, (task, ntasks) = (C_WANT, C_TASKS) if lang != 'fortran' else (F_WANT, F_TASKS)
    for loc, w in zip(tr.locations, want):
        t.enter_counts(loc, w, what, only=False)
        others = {k: v for k, v in loc.enters.items() if k not in w and k != task}
        if lang == 'fortran':
            ok = all(k in F_PROGRAM or 'omp' in k.lower() for k in others)
        else:
            ok = all('omp' in k.lower() for k in others)
        t.check(ok, '%s: %s: other regions are the program\'s or OpenMP outlined ones'
                % (what, loc.name), repr(others))
    t.eq(tr.enters().get(task, 0), ntasks, '%s: %s runs %d times over the threads'
         % (what, task, ntasks))


def built_programs(t, libomp):
    exes = t.parallel(lambda b: build(t, b), BUILDS + PLAIN)
    plain = {p[0]: exe for p, exe in zip(PLAIN, exes[len(BUILDS):])}
    ref = {lang: t.run(plain[name], env=ENV, label=name)
           for name, lang in (('plain-c', 'c'), ('plain-f', 'fortran'))}
    for lang, run in ref.items():
        t.eq(run.status, 0, 'plain %s build: exit status 0' % lang)
    for (name, lang, _, opt, runtime, how), exe in zip(BUILDS, exes):
        what = '%s (%s%s)' % (name, runtime, ', %s' % how if how else ', default')
        check_link(t, exe, runtime, libomp, what)
        run = t.run(exe, env=ENV, label='run-' + name)
        t.same_as_plain(run, ref['fortran' if lang == 'fortran' else 'c'], what)
        no_ompt = [m for m in run.messages if 'OpenMP runtime' in m]
        if runtime == 'libgomp':
            t.check(len(no_ompt) == 1 and NO_OMPT.match(no_ompt[0]),
                    '%s: one warning: libgomp has no OMPT, and what to do' % what,
                    repr(no_ompt))
            t.clean_run(run, what, allow=[NO_OMPT.pattern])
        else:
            t.eq(no_ompt, [], '%s: no line about the OpenMP runtime' % what)
            t.clean_run(run, what)
        tr = t.trace(run, what)
        check_locations(t, tr, lang, what)
        if len(tr.locations) == 2:
            check_ompt(t, tr, lang, runtime, what)
    # An OMP_* variable read by libomp as by libgomp: no active parallel level, so the program
    # prints "team 1" and fails; on both runtimes alike, with one location.
    env = dict(ENV, OMP_MAX_ACTIVE_LEVELS='0')
    ref = t.run(plain['plain-c'], env=env, label='plain-limit')
    run = t.run(exes[1], env=env, label='run-limit')
    t.eq((ref.status, ref.stdout.split(',')[0]), (1, 'team 1'),
         'OMP_MAX_ACTIVE_LEVELS=0: libgomp runs one thread')
    t.same_as_plain(run, ref, 'c-O2 (libomp), OMP_MAX_ACTIVE_LEVELS=0')
    tr = t.trace(run, 'OMP_MAX_ACTIVE_LEVELS=0')
    t.eq([l.name for l in tr.locations], ['Master thread'],
         'OMP_MAX_ACTIVE_LEVELS=0: libomp runs one thread, one location')
    return plain


def vtrun_case(t, exe, plain, what, args=(), banner=True, line=None, tool=False, gomp=True):
    """exe under vtrun, against plain (its run without vt)."""
    run = t.run(VTRUN, args=list(args) + ['-vt:sampling', 'yes', exe], env=ENV,
                label='vtrun-' + what.split()[0])
    run.cmd[0] = exe  # the archive is named after the program
    vtrun_lines = [l for l in run.program_stderr if l.startswith('vtrun:')]
    run.program_stderr = [l for l in run.program_stderr if not l.startswith('vtrun:')]
    t.same_as_plain(run, plain, what)
    t.eq(vtrun_lines, [line] if line else [], '%s: vtrun\'s lines' % what)
    no_ompt = [m for m in run.messages if NO_OMPT.match(m)]
    # libgomp loaded and no OMPT tool started: the warning. With a preloaded libomp, libgomp
    # is loaded too (the program needs it); once libvt has its tool, libomp starts it.
    want_line = gomp and (not banner or not tool) and '-vt:openmp-runtime' not in args
    t.eq(len(no_ompt), 1 if want_line else 0, '%s: %s warning about libgomp' %
         (what, 'one' if want_line else 'no'))
    tr = t.trace(run, what)
    t.eq([(l.ref, l.name) for l in tr.locations], LOCS,
         '%s: one location per OpenMP thread (samples)' % what)
    # gcc's code on the libomp vtrun preloads gets the events a vtcc build gets (OMPT_FACTS
    # are omp_build.c's; clang's code reports its constructs otherwise, see test/e2e/ompt)
    if gomp and tool and len(tr.locations) == 2 and (not banner or exe.endswith('plain-c')):
        check_ompt(t, tr, 'c', 'libomp' if banner else 'libgomp', what)
    # KMP_VERSION=1 makes libomp print its banner when it starts; libgomp ignores it.
    kmp = t.run(VTRUN, args=list(args) + [exe], env=dict(ENV, KMP_VERSION='1'),
                label='vtrun-kmp-' + what.split()[0])
    t.eq(kmp.status, 0, '%s, KMP_VERSION=1: exit status 0' % what)
    t.eq(any(l.startswith('LLVM OMP version') for l in kmp.program_stderr), banner,
         '%s: the program runs on %s' % (what, 'libomp' if banner else 'libgomp'))


def body(t):
    libomp = libomp_path()
    if not t.check(libomp, 'vtcc -vt:version names the libomp it links'):
        return
    tool = tool_in_libvt()
    t.note('libvt %s ompt_start_tool' % ('exports' if tool else 'does not export (yet)'))
    plain = built_programs(t, libomp)
    refs = {name: t.run(plain[name], env=ENV, label=name + '-ref')
            for name in ('plain-clang', 'plain-error')}
    gcc_ref = t.run(plain['plain-c'], env=ENV, label='plain-c-ref')
    vtrun_case(t, plain['plain-c'], gcc_ref, 'gcc build under vtrun', tool=tool)
    vtrun_case(t, plain['plain-clang'], refs['plain-clang'], 'clang build under vtrun',
               tool=tool, gomp=False)
    vtrun_case(t, plain['plain-c'], gcc_ref, 'gcc build, libgomp kept',
               args=['-vt:openmp-runtime', 'libgomp'], banner=False, tool=tool)
    exe = plain['plain-error']
    vtrun_case(t, exe, refs['plain-error'], 'gcc build needing GOMP_warning', banner=False,
               line='vtrun: %s uses GOMP_warning@GOMP_5.1 of libgomp, which LLVM\'s libomp '
               'lacks: it runs on libgomp, without OpenMP events' % exe, tool=tool)


vttest.main('openmp_build', body)
