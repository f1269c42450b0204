# SPDX-License-Identifier: BSD-3-Clause
"""e2e "sampling": call-path samples (VT_SAMPLING), read with python3-otf2 and otf2-print.
- split.c, built without vt (gcc -g -O1) and run under `vtrun -vt:sampling yes` with a 1 ms
  period: heavy() and light() take 75% and 25% of the work by construction, and the samples
  say so within 5 points, on one thread and on each of two (one location each); every
  sample of the main thread reaches main, of the second thread its start routine; names,
  files and lines are those of the source; the interrupt generator is the 1 ms cpu clock;
  vt-profile --samples counts the same samples per function and shows the path to the loop;
- the same with each unwinder: libunwind, and frame pointers on a build with a frame in
  every function of the program (-O0 -fno-omit-frame-pointer; a walk that starts in a
  library without frames, libc's printf, stops there: excused, as rare); and with
  VT_SAMPLING_DEPTH=3, every stack is cut at 3 frames below a node that says so;
- edges.c (-O0 -fno-omit-frame-pointer), whose time goes to a function of five instructions
  called in a loop: with frame pointers, the samples on its first instructions and on its
  ret (where rbp is still, or again, its caller's frame) keep its caller in the stack;
- hybrid.c, instrumented with vtcc, sampled at 10 kHz for 10 s: three threads that malloc
  all the time, a SIGALRM timer and SIGUSR1 between threads whose handlers run instrumented
  code. No crash or deadlock, the program's own call counts are the trace's Enter counts,
  and each sample's instrumented frames are the regions open on its location (but for a
  sample on the first or last instruction of a function, whose Enter is not yet or whose
  Leave is already written);
- a program that sets its own SIGPROF handler: runs as it would, one warning names
  VT_SAMPLING_SIGNAL, with which samples are taken;
- bad values (a period without a unit, an unknown source, an uncatchable signal): one line
  naming the variable, the program's output and status unchanged."""

import collections
import json
import os
import subprocess

import vtsamples
import vttest

VTRUN = os.path.join(os.path.dirname(vttest.VTCC), 'vtrun')
CUT = '[stack cut at VT_SAMPLING_DEPTH]'


def shares(samples):
    """heavy's and light's samples, and heavy's share of both in percent."""
    heavy = sum(1 for s in samples if s.leaf == 'heavy')
    light = sum(1 for s in samples if s.leaf == 'light')
    return heavy, light, 100.0 * heavy / max(1, heavy + light)


# The dynamic linker's symbol look-up (lazy binding), outside main's stack as frame
# pointers see it.
LDSO = ('check_match', 'do_lookup_x')
SANITIZED = bool(os.environ.get('VT_TEST_SANITIZE'))
SANITIZER_FRAMES = ('__sanitizer', '__asan', '__interceptor', '__ubsan', '__tsan')


def own(frame):
    """Whether a sampled frame is a function of split.c (the program's own code)."""
    return os.path.basename(frame.file or '') == 'split.c'


def check_split(t, run, what, threads, root=('main',), fp=False):
    t.eq((run.status, run.stdout.split()[0] if run.stdout else ''), (0, 'done'),
         '%s: the program ran' % what)
    t.clean_run(run, what)
    tr = t.trace(run, what, prefix='split.vt')
    s = vtsamples.read(tr.path)
    names = sorted(s.by_loc)
    want_locs = ['Master thread'] + ['Thread 1'] * (threads > 1)
    t.eq(names, want_locs, '%s: samples on each thread\'s location' % what)
    t.eq(s.generators, [('cpu', 'TIME', 'DECIMAL', -9, 1000000)],
         '%s: the interrupt generator: cpu time, every 1 ms' % what)
    for loc in names:
        samples = s.by_loc[loc]
        heavy, light, share = shares(samples)
        t.check(heavy + light >= 400, '%s: %s: at least 400 samples in heavy and light' % (
            what, loc), '%d and %d' % (heavy, light))
        t.check(abs(share - 75) <= 5, '%s: %s: heavy has 75%% +-5 of the samples' % (
            what, loc), '%.1f%% (%d heavy, %d light)' % (share, heavy, light))
        start = root[0] if loc == 'Master thread' else 'thread_main'
        # A sample while the process exits (after main returned, in the exit handlers and
        # the libraries' destructors that run before vt's own atexit handler) is real
        # program time outside main: allowed, but rare.
        # So is a sample in the dynamic linker resolving a symbol on first call, where
        # frame-pointer unwinding stops (ld.so keeps no frame pointers).
        # Under scripts/test-sanitize.sh, the sanitizer's runtime (preloaded, its own
        # allocator and interceptors) keeps no frame pointers either. Nor does libc: a walk
        # of frame pointers from a sample in printf's formatting (the program prints once,
        # at its end) stops there, in code that is not the program's.
        def apart(st):
            names = st.names
            return '__run_exit_handlers' in names or (
                names and (names[0].startswith('_dl_') or names[0] in LDSO)) or (
                    SANITIZED and names and names[0].startswith(SANITIZER_FRAMES)) or (
                        fp and names and not own(st.stack[0]))
        excused = [s.names for s in samples if start not in s.names and apart(s)]
        lost = [s.names for s in samples if start not in s.names and not apart(s)]
        t.eq(lost[:3], [], '%s: %s: every sample reaches %s' % (what, loc, start))
        t.check(len(excused) <= 0.01 * len(samples), '%s: %s: at most 1%% of the samples in '
                'the exit handlers, the dynamic linker or frameless libraries' % (what, loc),
                '%d of %d: %r' % (len(excused), len(samples), excused[:3]))
        paths = collections.Counter(tuple(s.names[s.names.index(start):])
                                    for s in samples if s.leaf in ('heavy', 'light'))
        t.eq(sorted(paths), [(start, 'work', 'heavy'), (start, 'work', 'light')],
             '%s: %s: heavy and light are sampled below work below %s' % (what, loc, start))
    # Names, files and lines: the function's own, and the line each address is on.
    src = t.source('split.c')
    leaf = [st for st in s.by_loc['Master thread'] if st.leaf == 'heavy'][0].stack[-1]
    t.eq((leaf.name, os.path.basename(leaf.file or ''), leaf.line),
         ('heavy', 'split.c', vttest.line_of(src, r'void heavy\(')),
         '%s: heavy\'s region has its file and line' % what)
    lines = collections.Counter(st.stack[-1].src_line for st in s.by_loc['Master thread']
                                if st.leaf == 'heavy')
    hot = vttest.line_of(src, 'HEAVY LOOP')
    t.check(lines.most_common(1)[0][0] == hot,
            '%s: heavy\'s samples are on its loop\'s line %d' % (what, hot), repr(lines))
    # otf2-print reads the same samples and contexts.
    leaves, contexts = vtsamples.read_with_otf2_print(tr.path)
    mine = {l.ref: collections.Counter(x.leaf for x in s.by_loc.get(l.name, []))
            for l in tr.locations}
    t.eq({k: dict(v) for k, v in leaves.items()}, {k: dict(v) for k, v in mine.items() if v},
         '%s: otf2-print: the same samples, leaf by leaf' % what)
    t.eq(contexts, s.n_contexts, '%s: otf2-print: the same calling contexts' % what)
    # vt-profile --samples: the same counts, per function and per path.
    p = subprocess.run([vttest.VT_PROFILE, '--samples', '--format', 'json', tr.path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    t.eq((p.returncode, p.stderr), (0, ''), '%s: vt-profile --samples runs cleanly' % what)
    doc = json.loads(p.stdout) if p.returncode == 0 else {}
    all_samples = [x for v in s.by_loc.values() for x in v]
    t.eq(doc.get('samples'), len(all_samples), '%s: vt-profile: every sample' % what)
    fns = {f['name']: (f['self'], f['total']) for f in doc.get('functions', [])}
    for fn in ('heavy', 'light', 'work'):
        want = (sum(1 for x in all_samples if x.leaf == fn),
                sum(1 for x in all_samples if fn in x.names))
        t.eq(fns.get(fn), want, '%s: vt-profile: %s\'s self and total samples' % (what, fn))
    p = subprocess.run([vttest.VT_PROFILE, '--samples', tr.path], stdout=subprocess.PIPE,
                       universal_newlines=True)
    t.check(p.returncode == 0 and 'call paths' in p.stdout and ' heavy (split.c:%d)'
            % vttest.line_of(src, 'HEAVY LOOP') in p.stdout,
            '%s: vt-profile --samples prints the path to heavy\'s loop' % what, p.stdout[-800:])
    return s


def split_cases(t):
    exe = t.compile('split', ['split.c'], opt='-O1', flags=['-g', '-pthread'],
                    instrument=False)
    opts = ['-vt:sampling', 'yes', '-vt:sampling-period', '1ms']
    run = t.run(VTRUN, args=opts + [exe, '300'], label='split-1', timeout=120)
    run.exe = exe
    check_split(t, run, 'vtrun, one thread', 1)
    run = t.run(VTRUN, args=opts + [exe, '300', 'threads'], label='split-2', timeout=120)
    check_split(t, run, 'vtrun, two threads', 2)
    run = t.run(VTRUN, args=opts + ['-vt:sampling-unwind', 'libunwind', exe, '300'],
                label='split-libunwind', timeout=120)
    check_split(t, run, 'libunwind', 1)
    # -O0: GCC 12 sets up no frame in a leaf that needs no stack, -fno-omit-frame-pointer
    # or not, and a walk of frame pointers then skips the leaf's caller.
    fp = t.compile('split', ['split.c'], opt='-O0',
                   flags=['-g', '-pthread', '-fno-omit-frame-pointer'], instrument=False)
    run = t.run(VTRUN, args=opts + ['-vt:sampling-unwind', 'fp', fp, '300'], label='split-fp',
                timeout=120)
    check_split(t, run, 'frame pointers', 1, fp=True)
    # A stack deeper than VT_SAMPLING_DEPTH: cut, and marked.
    run = t.run(VTRUN, args=opts + ['-vt:sampling-depth', '3', exe, '50'], label='split-cut')
    t.eq(run.status, 0, 'depth 3: the program ran')
    t.clean_run(run, 'depth 3')
    tr = t.trace(run, 'depth 3', prefix='split.vt')
    s = vtsamples.read(tr.path)
    samples = s.by_loc['Master thread']
    t.check(len(samples) >= 50, 'depth 3: samples', '%d' % len(samples))
    t.eq(sorted(set(len(x.stack) for x in samples)), [4],
         'depth 3: every stack is 3 frames below one more')
    t.eq(sorted(set(x.names[0] for x in samples)), [CUT],
         'depth 3: every stack hangs below %s' % CUT)


def edges_case(t):
    exe = t.compile('edges', ['edges.c'], opt='-O0',
                    flags=['-g', '-fno-omit-frame-pointer'], instrument=False)
    run = t.run(VTRUN, args=['-vt:sampling', 'yes', '-vt:sampling-period', '1ms',
                             '-vt:sampling-unwind', 'fp', exe, '600000000'],
                label='edges', timeout=120)
    t.eq((run.status, run.stdout), (0, 'done 600000000\n'), 'edges: the program ran')
    t.clean_run(run, 'edges')
    tr = t.trace(run, 'edges', prefix='edges.vt')
    s = vtsamples.read(tr.path)
    tiny = [x for x in s.by_loc.get('Master thread', []) if x.leaf == 'tiny']
    src = t.source('edges.c')
    edge_lines = (vttest.line_of(src, 'TINY ENTRY'), vttest.line_of(src, 'TINY EXIT'))
    on_edges = [x for x in tiny if x.stack[-1].src_line in edge_lines]
    # At 1 ms over about a second, tiny has hundreds of samples and its entry and exit
    # lines (push, mov; pop, ret: four of its seven instructions) many of them.
    t.check(len(on_edges) >= 50, 'edges: samples on tiny\'s entry and exit lines',
            '%d of %d' % (len(on_edges), len(tiny)))
    paths = collections.Counter(tuple(x.names[x.names.index('main'):] if 'main' in x.names
                                      else x.names) for x in tiny)
    t.eq(sorted(paths), [('main', 'loop', 'tiny')],
         'edges: every sample in tiny is below loop below main')


def at_edges(longer, shorter):
    """longer is shorter with one or two frames more, anywhere (a function whose Enter was
    not yet written: the innermost, or one that a signal handler interrupted on its first
    instructions, below the handler's frames)."""
    if not 1 <= len(longer) - len(shorter) <= 2:
        return False
    it = iter(longer)
    return all(any(n == m for m in it) for n in shorter)


def check_nesting(t, tr, s, what, entries):
    """Each sample's instrumented frames are the regions open at its time, but for a sample on
    a function's first or last instructions (its Enter not yet or its Leave already
    written): those must be few. A signal handler can itself be interrupted on its first
    instructions by another signal's (hybrid: SIGALRM inside SIGUSR1), so up to two frames,
    not only the innermost, differ at such edges. Samples inside vt's own code are counted apart.
    A handler in entries (name: its opening line) sampled on its opening line, its Enter not
    yet written, is an edge of its own kind, not bounded: the kernel delivers the signals
    pending on a thread together, the sampler's on top of the handler's first instruction,
    and on a loaded machine, where signals gather while a thread waits for a CPU, that is
    often (2% of the samples seen)."""
    instrumented = set(tr.enters())
    vt_code = ('__cyg_profile_func_enter', '__cyg_profile_func_exit', 'vt_inst_enter',
               'vt_inst_exit', 'fast', 'slow')
    for loc, samples in sorted(s.by_loc.items()):
        exact = edge = in_vt = handler_entry = 0
        bad = []
        for x in samples:
            if any(n in vt_code or n.startswith('vt_') for n in x.names):
                in_vt += 1
                continue
            got = [n for n in x.names if n in instrumented]
            if got == x.open:
                exact += 1
            elif (x.leaf in entries and x.stack[-1].src_line == entries[x.leaf]
                  and got[-1:] == [x.leaf] and got[:-1] == x.open):
                handler_entry += 1
            elif at_edges(got, x.open) or at_edges(x.open, got):
                edge += 1
            else:
                bad.append((got, x.open))
        n = len(samples)
        t.eq(bad[:3], [], '%s: %s: every sample inside the regions open on its thread (%d '
             'samples)' % (what, loc, n))
        t.check(edge <= 0.02 * n, '%s: %s: at most 2%% of the samples on a function\'s edge'
                % (what, loc), '%d of %d (and %d on a handler\'s entry)'
                % (edge, n, handler_entry))
        t.check(in_vt <= 0.05 * n, '%s: %s: at most 5%% of the samples in vt\'s own code'
                % (what, loc), '%d of %d' % (in_vt, n))


def hybrid_case(t):
    exe = t.compile('hybrid', ['hybrid.c'], opt='-O1', flags=['-g', '-pthread'])
    run = t.run(exe, args=['10'], env={'VT_SAMPLING': 'yes', 'VT_SAMPLING_PERIOD': '100us'},
                label='hybrid', timeout=240)
    what = 'hybrid, 10 kHz for 10 s'
    t.eq(run.status, 0, '%s: the program ended normally' % what)
    t.clean_run(run, what, allow=[r'samples were lost'])
    counts = collections.Counter()
    cpu_us = 0
    for line in run.stdout.splitlines():
        if line.startswith('cpu us '):
            cpu_us = int(line.split()[2])
            continue
        _, th, fn, n = line.split()
        counts[(int(th), fn)] = int(n)
    t.check(counts[(0, 'on_alarm')] + counts[(1, 'on_alarm')] + counts[(2, 'on_alarm')] > 100,
            '%s: the program\'s SIGALRM handler ran' % what)
    t.check(all(counts[(i, 'on_usr1')] > 10 for i in range(3)),
            '%s: each thread took SIGUSR1' % what)
    tr = t.trace(run, what, prefix='hybrid.vt')
    # The threads' locations in the order they began: their program numbers may differ, so
    # the counts are compared as a set of per-thread rows.
    rows = sorted(tuple(loc.enters.get(f, 0) for f in ('step', 'churn', 'compute', 'on_alarm',
                                                      'on_usr1'))
                  for loc in tr.locations)
    want = sorted(tuple(counts[(i, f)] for f in ('step', 'churn', 'compute', 'on_alarm',
                                                 'on_usr1')) for i in range(3))
    t.eq(rows, want, '%s: per thread, the Enter counts are the program\'s own counts' % what)
    s = vtsamples.read(tr.path)
    total = sum(len(v) for v in s.by_loc.values())
    # One sample per 100 us of a thread's CPU time: at least half of those (a loaded machine
    # gives the threads less than 10 s each, and overruns merge ticks), and never few.
    t.check(total >= max(5000, cpu_us // 200),
            '%s: at least one sample per 200 us of CPU time, and 5000' % what,
            '%d samples in %.2f s of CPU time' % (total, cpu_us / 1e6))
    src = t.source('hybrid.c')
    entries = {f: vttest.line_of(src, r'static void %s\(' % f) + 1
               for f in ('on_alarm', 'on_usr1')}
    check_nesting(t, tr, s, what, entries)


def bad_input(t):
    exe = t.compile('split', ['split.c'], opt='-O1', flags=['-g', '-pthread'],
                    instrument=False)
    for var, value, want in (
            ('VT_SAMPLING_PERIOD', '5', "VT_SAMPLING_PERIOD='5': expected a duration with its "
             "unit (ns, us, ms or s) from 10us to 10s (e.g. 250us); tracing is off"),
            ('VT_SAMPLING_SOURCE', 'cycles', "VT_SAMPLING_SOURCE='cycles': expected one of "
             "cpu, wall, perf::cpu-clock, perf::task-clock; tracing is off"),
            ('VT_SAMPLING_SIGNAL', '9', 'VT_SAMPLING_SIGNAL=9: cannot take this signal (it '
             'cannot be caught); sampling is off')):
        run = t.run(VTRUN, args=['-vt:sampling', 'yes', exe, '5'], env={var: value},
                    label='bad-%s' % var.lower())
        t.eq((run.status, run.stdout), (0, 'done 5\n'), '%s=%s: the program runs as it would'
             % (var, value))
        t.eq(run.errors, ['error: ' + want], '%s=%s: one line' % (var, value))


OWN_PROF_C = r'''
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
/* The loop ends at the 20th tick: the kernel delivers them at its own tick, coarser than
 * 1 ms, so the bound is only for a timer that never fires (3*10^8 took 70 ms, 17 ticks). */
static volatile long ticks, sink;
static void mine(int sig) { ticks++; }
int main(void)
{
	signal(SIGPROF, mine);
	struct itimerval it = {{0, 1000}, {0, 1000}};
	setitimer(ITIMER_PROF, &it, NULL);
	for (long i = 0; i < 10000000000L && ticks < 20; i++) sink += i;
	it = (struct itimerval){{0, 0}, {0, 0}};
	setitimer(ITIMER_PROF, &it, NULL);
	printf("own handler ran %s\n", ticks >= 20 ? "20 times" : "less");
	return 0;
}
'''


def own_handler(t):
    """A program that sets its own SIGPROF handler in main: it runs as it would, and vt
    says once that the samples stopped and what to do."""
    src = os.path.join(t.newdir('ownprof-src'), 'ownprof.c')
    with open(src, 'w') as f:
        f.write(OWN_PROF_C)
    exe = t.compile('ownprof', [src], opt='-O1', instrument=False)
    run = t.run(VTRUN, args=['-vt:sampling', 'yes', exe], label='ownprof')
    t.eq((run.status, run.stdout), (0, 'own handler ran 20 times\n'),
         'own SIGPROF handler: the program runs as it would')
    want = [w for w in run.warnings if 'VT_SAMPLING_SIGNAL=27: the program set its own '
            'handler for this signal during the run' in w and 'VT_SAMPLING_SIGNAL' in w]
    t.eq(len(want), 1, 'own SIGPROF handler: one warning says so and names VT_SAMPLING_SIGNAL')
    run = t.run(VTRUN, args=['-vt:sampling', 'yes', exe], env={'VT_SAMPLING_SIGNAL': '40'},
                label='ownprof-40')
    t.eq((run.status, run.stdout, run.warnings), (0, 'own handler ran 20 times\n', []),
         'own SIGPROF handler, VT_SAMPLING_SIGNAL=40: the program as it would, no warning')
    tr = t.trace(run, 'own SIGPROF handler, VT_SAMPLING_SIGNAL=40', prefix='ownprof.vt')
    s = vtsamples.read(tr.path)
    t.check(len(s.by_loc.get('Master thread', [])) > 0,
            'own SIGPROF handler, VT_SAMPLING_SIGNAL=40: samples taken')


def body(t):
    own_handler(t)
    split_cases(t)
    edges_case(t)
    hybrid_case(t)
    bad_input(t)


vttest.main('sampling', body)
