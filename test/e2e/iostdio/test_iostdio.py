# SPDX-License-Identifier: BSD-3-Clause
"""e2e "iostdio": ISO C stdio in OTF2's I/O model (VT_IOTRACE=yes), read with python3-otf2
and otf2-print. stdio.c (built with -fno-builtin, so that each call is the one written)
writes st.dat with fwrite (3 x 1000, 5 x 100), fprintf (13 bytes), fputs (9), fflush, an
fseek to 100, ftell, fputc; reads it back with fread (2048, a short 1474 at the end, 0),
rewind, fgets (63), fgetc, and an fputc that fails (EBADF); opens a.dat and freopens the
stream on b.dat (4 bytes); fails an fopen (ENOENT); sends 10 bytes through a pipe with
fdopen's streams (fprintf, fread) and fails an fseek on it (ESPIPE); prints three lines
with printf and one to stderr with fputs.
Asserted exactly: the handles (paradigm ISOC, named by path, as /proc says of the pipe, or
"stdout", "stderr"; each with its descriptor's POSIX handle as parent, as both readers
say), each handle life's create/destroy, operations (bytes asked and done; a formatted
write asks OTF2_UNDEFINED_UINT64), failed ones as IoOperationCancelled, seeks; no POSIX
operation or region below the stdio calls; errno after each failing call as without vt;
with VT_IOTRACE unset nothing of it; the same under vtrun for a program built without vt.
stdio_fortify.c, built with -O2 -D_FORTIFY_SOURCE=2, calls __fprintf_chk, __vfprintf_chk,
__fgets_chk, __fread_chk and __printf_chk: recorded as fprintf, vfprintf, fgets, fread and
printf with their handle and bytes. stdio_threads.c: two threads print to stdout at once
(its first use: one handle for it) and write a file each (10 fprintf of 10 bytes): each
thread's handles and operations on its own location. Under AddressSanitizer
(scripts/test-sanitize.sh preloads libasan, whose interceptors format printf's output
through vprintf and vfprintf), the printf family's regions are counted as one."""

import os
import re
import subprocess

import vttest

try:
    import otf2
except ImportError:  # vttest.require_otf2 says so
    otf2 = None

VTRUN = os.path.join(os.path.dirname(vttest.VTCC), 'vtrun')
PARADIGMS = {'POSIX I/O': 'POSIX', 'ISO C I/O': 'ISOC'}  # otf2-print shows their names
UNDEF = 2 ** 64 - 1  # OTF2_UNDEFINED_UINT64: the bytes a formatted write asks for

REGIONS = {'fopen': 4, 'freopen': 1, 'fdopen': 2, 'fclose': 5, 'fwrite': 5, 'fprintf': 2,
           'fflush': 1, 'fseek': 2, 'ftell': 1, 'fputc': 2, 'fread': 4, 'rewind': 1,
           'fgets': 1, 'fgetc': 1, 'printf': 3, 'fputs': 2}
POSIX_REGIONS = ('open', 'open64', 'openat', 'close', 'read', 'write', 'lseek', 'lseek64',
                 'fsync', 'writev', 'readv')

# The ISOC handles' lives in order: (handle name, access mode, creation flags,
# operations as (mode, bytes asked, bytes done or 'cancelled'), seeks, destroyed).
LIVES = [
    ('st.dat', 'WRITE_ONLY', 1 | 2,  # CREATE | TRUNCATE
     [('WRITE', 1000, 1000)] * 3 + [('WRITE', 500, 500), ('WRITE', UNDEF, 13),
                                    ('WRITE', 9, 9), ('FLUSH', 0, 0), ('WRITE', 1, 1)],
     [(100, 'FROM_START', 100)], True),
    ('st.dat', 'READ_ONLY', 0,
     [('READ', 2048, 2048), ('READ', 2048, 1474), ('READ', 2048, 0), ('READ', 63, 63),
      ('READ', 1, 1), ('WRITE', 1, 'cancelled')],
     [(0, 'FROM_START', 0)], True),
    ('a.dat', 'WRITE_ONLY', 1 | 2, [], [], True),
    ('b.dat', 'WRITE_ONLY', 1 | 2, [('WRITE', 4, 4)], [], True),
    ('pipe', 'WRITE_ONLY', 0, [('WRITE', UNDEF, 10)], [], True),
    ('pipe', 'READ_ONLY', 0, [('READ', 64, 10)], [], True),
]


# The printf family's regions, counted as one under a sanitizer's interceptors.
PRINTF = ('printf', 'fprintf', 'vprintf', 'vfprintf')


def regions(enters, names):
    """{region: Enter count} for the regions names (printf's family folded into '*printf'
    when a sanitizer's runtime is preloaded)."""
    sanitized = bool(os.environ.get('VT_TEST_PRELOAD'))
    out = {}
    for k, v in enters.items():
        if k in names or (sanitized and k in PRINTF):
            k = '*printf' if sanitized and k in PRINTF else k
            out[k] = out.get(k, 0) + v
    return out


def name(enum):
    """python3-otf2's IoAccessMode.WRITE_ONLY -> WRITE_ONLY."""
    return str(enum).rsplit('.', 1)[-1]


def pipe_name(s):
    return re.sub(r'^pipe:\[\d+\]$', 'pipe', s)


def read_io(path):
    """The handle definitions (ref -> (name, paradigm, parent ref)) and the I/O events of
    the master thread in order, as (kind, handle ref, fields...)."""
    handles, events = {}, []
    with otf2.reader.open(path) as reader:
        for h in reader.definitions.io_handles:
            handles[h._ref] = (pipe_name(h.name), h.io_paradigm.identification,
                               h.parent._ref if h.parent is not None else None)
        for _, ev in reader.events:
            k = type(ev).__name__
            if k == 'IoCreateHandle':
                events.append((k, ev.handle._ref, name(ev.mode), int(ev.creation_flags.value)))
            elif k == 'IoDestroyHandle':
                events.append((k, ev.handle._ref))
            elif k == 'IoOperationBegin':
                events.append((k, ev.handle._ref, name(ev.mode), ev.bytes_request,
                               ev.matching_id))
            elif k == 'IoOperationComplete':
                events.append((k, ev.handle._ref, ev.bytes_result, ev.matching_id))
            elif k == 'IoOperationCancelled':
                events.append((k, ev.handle._ref, ev.matching_id))
            elif k == 'IoSeek':
                events.append((k, ev.handle._ref, ev.offset_request, name(ev.whence),
                               ev.offset_result))
            elif k.startswith('Io'):
                events.append((k, None))
    return handles, events


def lives(events, refs):
    """The events of each life of the handles refs (from its IoCreateHandle to its
    IoDestroyHandle), in the order the lives began: [(ref, [events])]; events on no live
    handle of refs come as (None, [event])."""
    out, current = [], {}
    for e in events:
        if e[1] not in refs:
            continue
        if e[0] == 'IoCreateHandle':
            current[e[1]] = len(out)
            out.append((e[1], [e]))
        elif e[1] in current:
            out[current[e[1]]][1].append(e)
            if e[0] == 'IoDestroyHandle':
                del current[e[1]]
        else:
            out.append((None, [e]))
    return out


def operations(mine):
    """A life's operations: (mode, bytes asked, bytes done or 'cancelled'), each Begin
    matched by the one Complete or Cancelled of its id."""
    ends = {e[-1]: e for e in mine if e[0] in ('IoOperationComplete', 'IoOperationCancelled')}
    out = []
    for b in (e for e in mine if e[0] == 'IoOperationBegin'):
        end = ends.pop(b[4], None)
        done = None if end is None else ('cancelled' if end[0] == 'IoOperationCancelled'
                                         else end[2])
        out.append((b[2], b[3], done))
    return out + [('unmatched', e) for e in ends.values()]


def print_parents(path):
    """otf2-print -G's IO_HANDLE lines: {id: (name, paradigm, parent id or None)}."""
    rc, out, _ = vttest.otf2_print(['-G', path])
    got = {}
    pat = re.compile(r'^IO_HANDLE\s+(\d+)\s+Name: "([^"]*)".*I/O Paradigm: "([^"]*)".*'
                     r'Parent: (?:UNDEFINED|"[^"]*" <(\d+)>)')
    for line in out.splitlines():
        m = pat.match(line)
        if m:
            got[int(m.group(1))] = (pipe_name(m.group(2)), PARADIGMS.get(m.group(3)),
                                    int(m.group(4)) if m.group(4) else None)
    return rc, got


def check_io(t, tr, what, stdout):
    loc = tr.loc('Master thread')
    t.eq(regions(loc.enters, REGIONS), regions(REGIONS, REGIONS),
         '%s: the stdio regions entered, as the program called them' % what)
    t.eq(sorted(k for k in loc.enters if k in POSIX_REGIONS), [],
         '%s: no POSIX region: the calls libc makes below stdio are not recorded' % what)
    handles, events = read_io(tr.path)
    isoc = sorted(r for r, h in handles.items() if h[1] == 'ISOC')
    posix = sorted(r for r, h in handles.items() if h[1] == 'POSIX')
    t.eq(sorted(handles[r][0] for r in isoc),
         ['a.dat', 'b.dat', 'pipe', 'st.dat', 'stderr', 'stdout'],
         '%s: 6 ISOC handles: st.dat (both fopens, one after the other), a.dat and b.dat '
         '(freopen), the pipe (both fdopens, one after the other), stdout, stderr' % what)
    t.eq(sorted(handles[r][2] for r in isoc), posix,
         '%s: each ISOC handle\'s parent is a POSIX handle of its own' % what)
    std = ('stdout', 'stderr')
    t.eq(sorted(handles[r][0] for r in isoc if handles[r][0] not in std),
         sorted(handles[handles[r][2]][0] for r in isoc if handles[r][0] not in std
                and handles[r][2] is not None),
         '%s: a stream\'s handle is named as its descriptor\'s' % what)
    rc, printed = print_parents(tr.path)
    t.eq((rc, printed), (0, handles),
         '%s: otf2-print -G shows the same handles, paradigms and parents' % what)
    if len(isoc) != 6:
        return
    by_name = {handles[r][0]: r for r in isoc}
    got = lives(events, set(isoc))
    t.eq([ref for ref, _ in got],
         [by_name[n] for n in ('st.dat', 'stdout', 'st.dat', 'a.dat', 'b.dat', 'pipe', 'pipe',
                               'stderr')],
         '%s: 8 ISOC lives (st.dat written; stdout from the first printf on; st.dat read, '
         'a.dat and b.dat, the pipe\'s two ends, stderr from its fputs on), no event outside '
         'one' % what)
    if len(got) != 8:
        return
    stream_lives = [got[0]] + got[2:7]
    for i, (ref, mine) in enumerate(stream_lives):
        hname, mode, flags, ops, seeks, destroyed = LIVES[i]
        w = '%s: life %d (%s)' % (what, i, hname)
        t.eq([(e[2], e[3]) for e in mine if e[0] == 'IoCreateHandle'], [(mode, flags)],
             '%s: one IoCreateHandle, access mode and creation flags' % w)
        t.eq(operations(mine), ops,
             '%s: operations (mode, bytes asked, bytes done) in order' % w)
        t.eq([e[2:] for e in mine if e[0] == 'IoSeek'], seeks,
             '%s: seeks (offset, whence, offset reached)' % w)
        t.eq(mine[-1][0] == 'IoDestroyHandle', destroyed, '%s: destroyed last' % w)
    lines = stdout.splitlines(True)
    t.eq(operations(got[1][1]), [('WRITE', UNDEF, len(l)) for l in lines],
         '%s: stdout: one write per printf, of its line\'s bytes' % what)
    t.eq(sum(1 for e in got[1][1] if e[0] == 'IoDestroyHandle'), 0,
         '%s: stdout: not destroyed' % what)
    # The descriptors below: made and ended with their streams, no operation of their own.
    t.eq(operations(got[7][1]), [('WRITE', 10, 10)], '%s: stderr: fputs\'s 10 bytes' % what)
    below = set(posix) - {handles[by_name[n]][2] for n in std}
    t.eq([(handles[ref][0] if ref is not None else None, [e[0] for e in mine])
          for ref, mine in lives(events, below)],
         [(n, ['IoCreateHandle', 'IoDestroyHandle'])
          for n in ('st.dat', 'st.dat', 'a.dat', 'b.dat', 'pipe', 'pipe')],
         '%s: the POSIX handles below the streams: created and destroyed with them, no '
         'operation' % what)
    written = sum(o[2] for o in operations(stream_lives[0][1]) if o[0] == 'WRITE')
    read = sum(o[2] for o in operations(stream_lives[1][1]) if o[0] == 'READ')
    t.eq((written, read), (3523, 3586), '%s: bytes written to and read from st.dat' % what)


def check_fortify(t, exe):
    """stdio_fortify.c with -O2 -D_FORTIFY_SOURCE=2: the checking forms, recorded as the
    calls the program wrote."""
    what = '_FORTIFY_SOURCE=2'
    names = r'\b(__printf_chk|__fprintf_chk|__vfprintf_chk|__fread_chk|__fgets_chk)\b'
    imports = subprocess.run(['nm', '-D', '--undefined-only', exe], capture_output=True,
                             text=True).stdout
    t.eq(sorted(set(re.findall(names, imports))),
         ['__fgets_chk', '__fprintf_chk', '__fread_chk', '__printf_chk', '__vfprintf_chk'],
         '%s: the program calls the five checking forms' % what)
    run = t.run(exe, env={'VT_IOTRACE': 'yes'}, label='fortify')
    t.eq((run.status, run.stdout), (0, 'fprintf 15 vfprintf 5 fgets 1 fread 5\n'),
         '%s: status 0, what it wrote and read' % what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    want = {'fopen': 2, 'fclose': 2, 'fprintf': 1, 'vfprintf': 1, 'fgets': 1, 'fread': 1,
            'printf': 1}
    t.eq(regions(tr.loc('Master thread').enters, want), regions(want, want),
         '%s: regions named as the program wrote the calls' % what)
    handles, events = read_io(tr.path)
    isoc = {r for r, h in handles.items() if h[1] == 'ISOC' and h[0] == 'fort.txt'}
    got = lives(events, isoc)
    t.eq([operations(mine) for _, mine in got],
         [[('WRITE', UNDEF, 15), ('WRITE', UNDEF, 5)], [('READ', 31, 15), ('READ', 40, 5)]],
         '%s: fort.txt: two formatted writes, fgets and fread, with their bytes' % what)
    out = [r for r, h in handles.items() if h[1] == 'ISOC' and h[0] == 'stdout']
    t.eq([operations(mine) for _, mine in lives(events, set(out))],
         [[('WRITE', UNDEF, len(run.stdout))]], '%s: stdout: printf\'s bytes' % what)


def per_location(path):
    """Per location name: [(kind, handle name, bytes done)] of its events on ISOC handles."""
    out = {}
    with otf2.reader.open(path) as reader:
        isoc = {h._ref for h in reader.definitions.io_handles
                if h.io_paradigm.identification == 'ISOC'}
        names = sorted(h.name for h in reader.definitions.io_handles if h._ref in isoc)
        for loc, ev in reader.events:
            h = getattr(ev, 'handle', None)
            if h is None or h._ref not in isoc:
                continue
            k = type(ev).__name__
            out.setdefault(loc.name, []).append(
                (k, h.name, ev.bytes_result if k == 'IoOperationComplete' else None))
    return names, out


def check_threads(t, exe):
    """stdio_threads.c: two threads, each its file and a line on stdout, at once."""
    what = 'two threads'
    run = t.run(exe, env={'VT_IOTRACE': 'yes'}, label='threads')
    t.eq((run.status, sorted(run.stdout.splitlines())),
         (0, ['thread 0 starts', 'thread 1 starts', 'written 200']),
         '%s: status 0, 10 x 10 bytes written by each' % what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    names, io = per_location(tr.path)
    t.eq(names, ['s0.txt', 's1.txt', 'stdout'],
         '%s: one ISOC handle per file, one for stdout (first used by both at once)' % what)
    t.eq(sum(1 for evs in io.values() for e in evs
             if e[:2] == ('IoCreateHandle', 'stdout')), 1,
         '%s: stdout\'s handle created once' % what)
    files = []
    for name, line in (('Master thread', 'written 200\n'), ('Thread 1', 'thread N starts\n'),
                       ('Thread 2', 'thread N starts\n')):
        mine = io.get(name, [])
        out = [e for e in mine if e[1] == 'stdout' and e[0] != 'IoCreateHandle']
        t.eq(out, [('IoOperationBegin', 'stdout', None),
                   ('IoOperationComplete', 'stdout', len(line))],
             '%s: %s: its line on stdout' % (what, name))
        own = [e for e in mine if e[1] != 'stdout']
        f = own[0][1] if own else None
        if name != 'Master thread':
            files.append(f)
        want = ([] if name == 'Master thread' else
                [('IoCreateHandle', f, None)] +
                [('IoOperationBegin', f, None), ('IoOperationComplete', f, 10)] * 10 +
                [('IoDestroyHandle', f, None)])
        t.eq(own, want, '%s: %s: its file\'s handle created, 10 writes of 10 bytes, '
             'destroyed, all on its own location' % (what, name))
    t.eq(sorted(files), ['s0.txt', 's1.txt'], '%s: one file per thread' % what)


def body(t):
    vttest.require_otf2()
    flags = ['-fno-builtin']
    builds = [('gcc', True), ('clang', True), ('gcc', False)]
    exes = t.parallel(lambda b: t.compile('stdio', ['stdio.c'], compiler=b[0], opt='-O0',
                                          flags=flags, instrument=b[1]), builds)
    check_threads(t, t.compile('stdio_threads', ['stdio_threads.c'], opt='-O2',
                               flags=['-pthread']))
    check_fortify(t, t.compile('stdio_fortify', ['stdio_fortify.c'], compiler='gcc',
                               opt='-O2', flags=['-D_FORTIFY_SOURCE=2']))
    plain = t.run(exes[2], label='plain')
    t.eq((plain.status, plain.stdout.splitlines()[1:]),
         (0, ['fread 2048 1474 0 fgets 63 fgetc x fputc -1 errno 9',
              'fopen missing NULL errno 2 pipe 10 10 fseek -1 errno 29 freopen 4']),
         'uninstrumented: exit status 0, the bytes moved, the failing calls\' errno')
    for (cc, _), exe in zip(builds[:2], exes[:2]):
        run = t.run(exe, env={'VT_IOTRACE': 'yes'}, label='run-%s' % cc)
        t.same_as_plain(run, plain, cc + ' (errno after each failing call included)')
        t.clean_run(run, cc)
        check_io(t, t.trace(run, cc), cc, run.stdout)
    # Off by default: no stdio region, no handle.
    run = t.run(exes[0], label='off')
    t.same_as_plain(run, plain, 'VT_IOTRACE unset')
    tr = t.trace(run, 'VT_IOTRACE unset')
    handles, events = read_io(tr.path)
    t.eq((handles, events, sorted(k for k in tr.loc('Master thread').enters if k in REGIONS)),
         ({}, [], []), 'VT_IOTRACE unset: no I/O handle, event or region')
    # A program nobody rebuilt, under vtrun.
    run = t.run(VTRUN, args=['-vt:iotrace', 'yes', exes[2]], label='vtrun')
    t.same_as_plain(run, plain, 'vtrun')
    t.clean_run(run, 'vtrun')
    check_io(t, t.trace(run, 'vtrun', prefix='stdio.vt'), 'vtrun', run.stdout)


vttest.main('iostdio', body)
