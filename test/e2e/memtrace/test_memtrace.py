# SPDX-License-Identifier: BSD-3-Clause
"""e2e "memtrace": the memory counters of VT_MEMTRACE=yes, read with python3-otf2 (and
otf2-print through the checks of every trace). mem.c makes 11 allocations (malloc, calloc,
realloc from NULL and three growths of the same block, posix_memalign, aligned_alloc,
memalign, valloc, a last malloc kept), frees all but the last, and prints what it counted
itself with malloc_usable_size: the allocations, the high-water mark and the bytes left.
Asserted: one value of each counter (mem_allocations, mem_high_water, mem_allocated) on a
METRIC location of the process, exactly the program's own figures, in a vtcc build (gcc and
clang) and under vtrun -vt:iotrace yes -vt:memtrace yes for a program built without vt
(whose one write is then its one region); nothing of them with VT_MEMTRACE unset. mem.cc,
the same for C++ (new[] twice, an over-aligned new, a new kept: 4 allocations through
libstdc++), with vtcxx and under vtrun. VT_MEMTRACE=events: the three counters with every
Enter and Leave, the last ones the program's figures, and vt-profile --memory puts the 11
allocations and the 56 bytes kept on main, the frees on gone(), nothing on got().
VT_MEMTRACE=regions: a region per call of malloc's family (roles ALLOCATE, REALLOCATE,
DEALLOCATE), exactly the program's calls, each allocation on its call's path. memmap.c:
anonymous mappings count (an mmap one allocation of its pages, an munmap what it unmapped of
them, in part too, an mremap one allocation of the change of size), a file's mapping does
not, resized or not. Under AddressSanitizer (scripts/test-sanitize.sh preloads libasan, whose malloc then
takes the calls) vt says so in one warning and records no counter; under vtrun, which puts
libvt first, the counters are exact there too."""

import json
import os
import re
import subprocess

import vttest

try:
    import otf2
except ImportError:  # vttest.require_otf2 says so
    otf2 = None

VTRUN = os.path.join(os.path.dirname(vttest.VTCC), 'vtrun')
NAMES = ('mem_allocations', 'mem_high_water', 'mem_allocated')
ASAN_WARNING = r"VT_MEMTRACE=\w+: the program's malloc is not vt's"


def counters(path):
    """{counter name: [values]} of the memory counters, and the locations they are on."""
    got, where = {}, set()
    with otf2.reader.open(path) as reader:
        for loc, ev in reader.events:
            if type(ev).__name__ != 'Metric':
                continue
            m = ev.metric
            members = m.metric_class.members if hasattr(m, 'metric_class') else m.members
            for member, value in zip(members, ev.values):
                if member.name in NAMES:
                    got.setdefault(member.name, []).append(value)
                    where.add(str(loc.type).rsplit('.', 1)[-1])
    return got, where


def own_figures(run):
    """The program's line: allocs N high_water H now X."""
    m = re.search(r'^allocs (\d+) high_water (\d+) now (-?\d+)$', run.stdout, re.M)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def check(t, run, what, prefix=None, vtrun=False, want_allocs=11):
    t.eq(run.status, 0, '%s: exit status 0' % what)
    # scripts/test-sanitize.sh preloads libasan: its malloc takes the calls, except under
    # vtrun, which puts libvt before it in LD_PRELOAD (libvt's malloc then calls ASan's).
    asan = bool(os.environ.get('VT_TEST_PRELOAD')) and not vtrun
    t.clean_run(run, what, allow=[ASAN_WARNING] if asan else [])
    tr = t.trace(run, what, prefix=prefix)
    if vtrun:
        t.eq(dict(tr.loc('Master thread').enters), {'write': 1},
             '%s: the master thread\'s one region, the write of the line' % what)
    got, where = counters(tr.path)
    if asan:
        t.check(any(re.search(ASAN_WARNING, m) for m in run.warnings),
                '%s: under ASan, one warning that malloc is not vt\'s' % what)
        t.eq(got, {}, '%s: under ASan, no memory counter' % what)
        return
    own = own_figures(run)
    if not t.check(own is not None, '%s: the program printed its figures' % what, run.stdout):
        return
    allocs, high, now = own
    if os.environ.get('VT_TEST_PRELOAD') and want_allocs == 4:
        # ASan defines operator new and delete itself: C++'s allocations never reach malloc.
        t.eq(got, {n: [0] for n in NAMES}, '%s: under ASan, new and delete not counted' % what)
        return
    t.eq(allocs, want_allocs, '%s: the program made %d allocations' % (what, want_allocs))
    t.eq(got, {'mem_allocations': [allocs], 'mem_high_water': [high], 'mem_allocated': [now]},
         '%s: one value of each counter, the program\'s own figures' % what)
    t.eq(where, {'METRIC'}, '%s: on METRIC locations' % what)


def body(t):
    vttest.require_otf2()
    builds = [('gcc', '-O0', True), ('clang', '-O2', True), ('gcc', '-O2', False)]
    exes = t.parallel(lambda b: t.compile('mem', ['mem.c'], compiler=b[0], opt=b[1],
                                          instrument=b[2]), builds)
    cxx = t.parallel(lambda i: t.compile('memcc', ['mem.cc'], lang='c++', opt='-O2',
                                         instrument=i), [True, False])
    plain = t.run(exes[2], label='plain')
    t.eq((plain.status, (own_figures(plain) or (0,))[0]), (0, 11),
         'uninstrumented: exit status 0, 11 allocations')
    for (cc, opt, _), exe in zip(builds[:2], exes[:2]):
        what = '%s %s' % (cc, opt)
        check(t, t.run(exe, env={'VT_MEMTRACE': 'yes'}, label='run-%s' % cc), what)
    # Off by default.
    run = t.run(exes[0], label='off')
    tr = t.trace(run, 'VT_MEMTRACE unset')
    t.eq(counters(tr.path)[0], {}, 'VT_MEMTRACE unset: no memory counter')
    # A program nobody rebuilt, under vtrun, with I/O recorded too: its write of the line is
    # then the master thread's events (python3-otf2 3.0 has been seen to crash after reading
    # several traces when one of them has a location without events, under MALLOC_PERTURB_).
    run = t.run(VTRUN, args=['-vt:iotrace', 'yes', '-vt:memtrace', 'yes', exes[2]],
                label='vtrun')
    check(t, run, 'vtrun', prefix='mem.vt', vtrun=True)
    # C++: new[], an over-aligned new, a new kept to the end (4 allocations, through
    # libstdc++'s operator new), with vtcxx and under vtrun.
    check(t, t.run(cxx[0], env={'VT_MEMTRACE': 'yes'}, label='run-cxx'), 'vtcxx',
          want_allocs=4)
    run = t.run(VTRUN, args=['-vt:iotrace', 'yes', '-vt:memtrace', 'yes', cxx[1]],
                label='vtrun-cxx')
    check(t, run, 'vtrun c++', prefix='memcc.vt', vtrun=True, want_allocs=4)
    events_mode(t, exes[0])
    regions_mode(t, exes[0])
    anonymous_maps(t)


def per_event(path):
    """The master thread's Enter/Leave events in order, each with the memory counters'
    values that follow it (vt writes them right after the event, with its time)."""
    out = []
    with otf2.reader.open(path) as reader:
        for loc, ev in reader.events:
            k = type(ev).__name__
            if k in ('Enter', 'Leave'):
                out.append([k, ev.region.name, ev.time, {}])
            elif k == 'Metric' and out and ev.time == out[-1][2]:
                m = ev.metric
                members = m.metric_class.members if hasattr(m, 'metric_class') else m.members
                for member, value in zip(members, ev.values):
                    if member.name in NAMES:
                        out[-1][3][member.name] = value
    return out


def events_mode(t, exe):
    """VT_MEMTRACE=events: the counters with every Enter and Leave; the last ones the
    program's figures; vt-profile --memory attributes them to the call paths."""
    run = t.run(exe, env={'VT_MEMTRACE': 'events'}, label='events')
    what = 'VT_MEMTRACE=events'
    asan = bool(os.environ.get('VT_TEST_PRELOAD'))
    t.clean_run(run, what, allow=[ASAN_WARNING] if asan else [])
    tr = t.trace(run, what)
    if asan:
        return
    allocs, high, now = own_figures(run) or (None, None, None)
    evs = per_event(tr.path)
    t.eq([e[1] for e in evs if len(e[3]) != 3], [],
         '%s: every Enter and Leave (%d) carries the three counters' % (what, len(evs)))
    t.eq(evs[-1][:2] + [evs[-1][3]], ['Leave', 'main', {
        'mem_allocations': allocs, 'mem_high_water': high, 'mem_allocated': now}],
         '%s: at main\'s Leave, the program\'s own figures' % what)
    seq = [e[3].get('mem_allocations', 0) for e in evs]
    t.eq(seq, sorted(seq), '%s: allocations never go down' % what)
    # mem.c calls got() after each allocation and gone() around each free: main allocates,
    # gone() frees, got() changes nothing.
    p = subprocess.run([vttest.VT_PROFILE, '--memory', '--format', 'json', tr.path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    t.eq((p.returncode, p.stderr), (0, ''), '%s: vt-profile --memory runs cleanly' % what)
    try:
        js = json.loads(p.stdout)
    except ValueError:
        js = {}
    paths = {x['path']: (x['calls'], x['allocations_excl'], x['bytes_incl'])
             for x in js.get('paths', [])}
    t.eq((paths.get('main'), paths.get('main;got'), (paths.get('main;gone') or (0,))[:2]),
         ((1, allocs, now), (11, 0, 0), (7, 0)),
         '%s: vt-profile --memory: main makes the %d allocations and keeps %d bytes, got() '
         'none, gone() frees' % (what, allocs, now))
    t.check(paths.get('main;gone', (0, 0, 0))[2] < 0, '%s: gone() frees bytes' % what,
            repr(paths.get('main;gone')))
    t.eq([(x['high_water'], x['allocations'], x['allocated']) for x in js.get('processes', [])],
         [(high, allocs, now)], '%s: vt-profile --memory: the process\'s figures' % what)


# mem.c built with gcc -O0: its calls (gcc makes realloc(NULL, n) a call of malloc).
MEM_CALLS = {'malloc': 3, 'calloc': 1, 'realloc': 3, 'posix_memalign': 1, 'aligned_alloc': 1,
             'memalign': 1, 'valloc': 1, 'free': 7}
ROLES = {'malloc': 'ALLOCATE', 'calloc': 'ALLOCATE', 'realloc': 'REALLOCATE',
         'posix_memalign': 'ALLOCATE', 'aligned_alloc': 'ALLOCATE', 'memalign': 'ALLOCATE',
         'valloc': 'ALLOCATE', 'free': 'DEALLOCATE'}


def regions_mode(t, exe):
    """VT_MEMTRACE=regions: each call of malloc's family a region of its role, with the
    counters; vt-profile --memory puts each allocation on its call's path."""
    run = t.run(exe, env={'VT_MEMTRACE': 'regions'}, label='regions')
    what = 'VT_MEMTRACE=regions'
    asan = bool(os.environ.get('VT_TEST_PRELOAD'))
    t.clean_run(run, what, allow=[ASAN_WARNING] if asan else [])
    tr = t.trace(run, what)
    if asan:
        t.eq({n: c for n, c in tr.loc('Master thread').enters.items() if n in MEM_CALLS}, {},
             '%s: under ASan, no allocation region' % what)
        return
    allocs, high, now = own_figures(run) or (None, None, None)
    enters = tr.loc('Master thread').enters
    t.eq({n: enters.get(n, 0) for n in MEM_CALLS}, MEM_CALLS,
         '%s: a region per call of malloc\'s family, as the program made them' % what)
    with otf2.reader.open(tr.path) as reader:
        roles = {r.name: str(r.region_role).rsplit('.', 1)[-1]
                 for r in reader.definitions.regions if r.name in ROLES}
    t.eq(roles, ROLES, '%s: their roles' % what)
    evs = per_event(tr.path)
    t.eq([e[1] for e in evs if len(e[3]) != 3], [], '%s: every Enter and Leave carries the '
         'three counters' % what)
    p = subprocess.run([vttest.VT_PROFILE, '--memory', '--format', 'json', tr.path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    try:
        js = json.loads(p.stdout)
    except ValueError:
        js = {}
    paths = {x['path']: x['allocations_excl'] for x in js.get('paths', [])}
    want = {'main;' + n: c for n, c in MEM_CALLS.items() if n != 'free'}
    t.eq({k: v for k, v in paths.items() if v}, want,
         '%s: vt-profile --memory: the %d allocations, each on its call\'s path' % (
             what, allocs or 0))


def anonymous_maps(t):
    """memmap.c: two anonymous mappings (3 and 5 pages), the first unmapped whole, two pages
    out of the second's middle, its last two pages grown to 9 and shrunk to 4 (mremap), and
    a file's mapping (not memory) twice, once resized: the counters at main's Leave are 4
    allocations, a high water of 10 pages and 5 pages left; with regions, mmap twice (a
    file's is I/O), munmap four times and mremap three times (both regions whatever they
    unmap or resize)."""
    exe = t.compile('memmap', ['memmap.c'], compiler='gcc', opt='-O0')
    for mode, regions in (('events', {}), ('regions', {'mmap': 2, 'munmap': 4, 'mremap': 3})):
        what = 'memmap, VT_MEMTRACE=%s' % mode
        run = t.run(exe, env={'VT_MEMTRACE': mode}, label='memmap-' + mode)
        m = re.search(r'^maps (\d+) high_water (\d+) now (\d+) rc 0$', run.stdout, re.M)
        t.check(run.status == 0 and m, '%s: the program ran' % what, run.stdout)
        asan = bool(os.environ.get('VT_TEST_PRELOAD'))
        t.clean_run(run, what, allow=[ASAN_WARNING] if asan else [])
        tr = t.trace(run, what)
        if asan or not m:
            continue
        evs = per_event(tr.path)
        t.eq(evs[-1][3], {'mem_allocations': int(m.group(1)), 'mem_high_water': int(m.group(2)),
                          'mem_allocated': int(m.group(3))},
             '%s: at main\'s Leave, 4 allocations, 10 pages at most, 5 left' % what)
        enters = tr.loc('Master thread').enters
        t.eq({n: enters.get(n, 0) for n in ('mmap', 'munmap', 'mremap')},
             regions or {'mmap': 0, 'munmap': 0, 'mremap': 0},
             '%s: the regions of the calls' % what)


vttest.main('memtrace', body)
