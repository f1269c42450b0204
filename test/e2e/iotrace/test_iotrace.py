# SPDX-License-Identifier: BSD-3-Clause
"""e2e "iotrace": POSIX I/O in OTF2's I/O model (VT_IOTRACE=yes), read with python3-otf2
(and otf2-print through the checks of every trace). io.c writes data.bin (3 x 1000 bytes,
a writev of 100 + 200, a pwrite of 500, an fsync), reads it back (1024-byte reads: three
full, one short of 728, one of 0 at the end; an lseek to 100; a pread of 50 at 3790 that
gets 10; a dup whose read gets 10), fails an open (ENOENT), a write on -1 and a read on a
closed descriptor (EBADF), sends 5 bytes through a pipe, renames and unlinks the file.
Asserted exactly: the handles (paradigm POSIX, named by path or as /proc says of a pipe; the
second open of data.bin takes the closed first one's handle again), each handle life's
create/destroy, operations, bytes requested and done and seek, the regions,
errno after each failing call as without vt; with VT_IOTRACE unset nothing of it; the
same under vtrun for a program built without vt; and with -D_FILE_OFFSET_BITS=64 the 64
forms (open64, pread64, lseek64) as the regions the program called. io_threads.c: two
threads write a file each at once (O_APPEND, 10 x 100 bytes): each thread's handle, regions
and operations on its own location, none on the master's. io_fortify.c, built with
-D_FORTIFY_SOURCE=2, calls __open_2, __read_chk and __pread_chk: recorded as open, read
and pread with their handle and bytes; its four opens of one file, one after the other,
make one handle. The programs' printf to stdout (an ISOC handle over stdout's POSIX one:
test iostdio) is left out here."""

import os
import re
import subprocess

import vttest

try:
    import otf2
except ImportError:  # vttest.require_otf2 says so
    otf2 = None

VTRUN = os.path.join(os.path.dirname(vttest.VTCC), 'vtrun')
DATA = 'data.bin'

# The handles in order of creation: (name, how many of them), and per handle: access mode,
# creation flags, operations as (mode, bytes requested, bytes done), seeks, duplicated from.
W, R, D, PW, PR = range(5)
HANDLES = [DATA, DATA, DATA, 'pipe', 'pipe']
OPS = {
    W: [('WRITE', 1000, 1000)] * 3 + [('WRITE', 300, 300), ('WRITE', 500, 500),
                                      ('FLUSH', 0, 0)],
    R: [('READ', 1024, 1024)] * 3 + [('READ', 1024, 728), ('READ', 1024, 0),
                                     ('READ', 50, 10)],
    D: [('READ', 10, 10)],
    PW: [('WRITE', 5, 5)],
    PR: [('READ', 64, 5)],
}
MODES = {W: 'WRITE_ONLY', R: 'READ_ONLY', D: None, PW: 'WRITE_ONLY', PR: 'READ_ONLY'}
CREATE_FLAGS = {W: 1 | 2, R: 0, PW: 0, PR: 0}  # CREATE | TRUNCATE
SEEKS = {R: [(100, 'FROM_START', 100)]}


def regions(large):
    s = '64' if large else ''
    return {'open' + s: 3, 'write': 5, 'writev': 1, 'pwrite' + s: 1, 'fsync': 1, 'close': 5,
            'read': 8, 'lseek' + s: 1, 'pread' + s: 1, 'dup': 1, 'rename': 1, 'unlink': 2}


def name(enum):
    """python3-otf2's IoAccessMode.WRITE_ONLY -> WRITE_ONLY."""
    return str(enum).rsplit('.', 1)[-1]


def stdio_refs(reader):
    """The refs of the streams' handles (paradigm ISOC) and of the POSIX handles below them
    (stdout's descriptor, first seen by printf)."""
    out = set()
    for h in reader.definitions.io_handles:
        if h.io_paradigm.identification == 'ISOC':
            out.add(h._ref)
            if h.parent is not None:
                out.add(h.parent._ref)
    return out


def on_stdio(ev, skip):
    """Whether I/O event ev is on one of the handles skip."""
    for attr in ('handle', 'old_handle', 'new_handle'):
        h = getattr(ev, attr, None)
        if h is not None and h._ref in skip:
            return True
    return False


def io_events(path):
    """Per location: the I/O events in order, as (kind, handle ref, fields...), and the
    handle definitions: ref -> (name, file name, paradigm); the streams' left out."""
    handles, events = {}, []
    with otf2.reader.open(path) as reader:
        skip = stdio_refs(reader)
        for h in reader.definitions.io_handles:
            if h._ref not in skip:
                handles[h._ref] = (h.name, h.file.name if h.file is not None else None,
                                   h.io_paradigm.identification, h.comm)
        for _, ev in reader.events:
            k = type(ev).__name__
            if on_stdio(ev, skip):
                continue
            if k == 'IoCreateHandle':
                events.append((k, ev.handle._ref, name(ev.mode), int(ev.creation_flags.value)))
            elif k == 'IoDestroyHandle':
                events.append((k, ev.handle._ref))
            elif k == 'IoOperationBegin':
                events.append((k, ev.handle._ref, name(ev.mode), ev.bytes_request,
                               ev.matching_id))
            elif k == 'IoOperationComplete':
                events.append((k, ev.handle._ref, ev.bytes_result, ev.matching_id))
            elif k == 'IoSeek':
                events.append((k, ev.handle._ref, ev.offset_request, name(ev.whence),
                               ev.offset_result))
            elif k == 'IoDuplicateHandle':
                events.append((k, ev.old_handle._ref, ev.new_handle._ref))
            elif k.startswith('Io'):
                events.append((k,))
    return handles, events


def lives(events):
    """The events of each life of a handle (from its IoCreateHandle, or the
    IoDuplicateHandle that made it, to its IoDestroyHandle), in the order the lives began:
    [(handle ref, [events])]."""
    out, current = [], {}
    for e in events:
        if e[0] == 'IoCreateHandle' or e[0] == 'IoDuplicateHandle':
            ref = e[1] if e[0] == 'IoCreateHandle' else e[2]
            current[ref] = len(out)
            out.append((ref, [e]))
            if e[0] == 'IoDuplicateHandle' and e[1] in current:
                out[current[e[1]]][1].append(e)
            continue
        if len(e) > 1 and e[1] in current:
            out[current[e[1]]][1].append(e)
            if e[0] == 'IoDestroyHandle':
                del current[e[1]]
        else:
            out.append((None, [e]))  # an event on no live handle
    return out


def check_io(t, tr, what, large=False, without=()):
    """without: the regions not recorded (filtered, too deep), whose operations are."""
    loc = tr.loc('Master thread')
    got = {k: v for k, v in loc.enters.items() if k in regions(large) or k in regions(not large)}
    want = {k: v for k, v in regions(large).items() if k not in without}
    t.eq(got, want, '%s: the I/O regions entered, as the program called them' % what)
    handles, events = io_events(tr.path)
    refs = sorted(handles)
    # The write handle is taken again by the second open of data.bin, once it was closed.
    names = [re.sub(r'^pipe:\[\d+\]$', 'pipe', handles[r][0]) for r in refs]
    t.eq(names, [DATA, DATA, 'pipe', 'pipe'],
         '%s: 4 handles: data.bin (both opens, one after the other), its dup, the pipe\'s '
         'ends named as /proc says' % what)
    t.eq(sorted(set(h[2] for h in handles.values())), ['POSIX'],
         '%s: every handle of paradigm POSIX' % what)
    t.eq([h[3] for h in handles.values()], [None] * len(handles),
         '%s: no communicator: handles of the process' % what)
    if len(handles) != 4:
        return
    t.eq(len(set(handles[r][1] for r in refs[2:])), 1, '%s: both pipe ends on one file' % what)
    got = lives(events)
    t.eq([ref for ref, _ in got], [refs[0], refs[0], refs[1], refs[2], refs[3]],
         '%s: 5 handle lives (write open, read open on the same handle, dup, pipe ends), '
         'no event outside one' % what)
    if len(got) != 5:
        return
    for i, (ref, mine) in enumerate(got):
        w = '%s: life %d (%s)' % (what, i, HANDLES[i])
        creates = [e for e in mine if e[0] == 'IoCreateHandle']
        dups = [e for e in mine if e[0] == 'IoDuplicateHandle' and e[2] == ref]
        if MODES[i]:
            t.eq([(e[2], e[3]) for e in creates], [(MODES[i], CREATE_FLAGS[i])],
                 '%s: one IoCreateHandle, access mode and creation flags' % w)
        else:
            t.eq((creates, [e[1] for e in dups]), ([], [got[R][0]]),
                 '%s: made by one IoDuplicateHandle of the read handle' % w)
        t.eq(sum(1 for e in mine if e[0] == 'IoDestroyHandle'), 1,
             '%s: one IoDestroyHandle' % w)
        begins = [e for e in mine if e[0] == 'IoOperationBegin']
        ends = [e for e in mine if e[0] == 'IoOperationComplete']
        t.eq([(b[2], b[3], e[2]) for b, e in zip(begins, ends)], OPS[i],
             '%s: operations (mode, bytes requested, bytes done) in order' % w)
        t.eq([b[4] for b in begins], [e[3] for e in ends],
             '%s: each Begin matched by its Complete' % w)
        t.eq([e[2:] for e in mine if e[0] == 'IoSeek'], SEEKS.get(i, []),
             '%s: seeks (offset, whence, offset reached)' % w)
        t.eq(mine[-1][0], 'IoDestroyHandle', '%s: destroyed last' % w)
    t.eq([e for e in events if e[0] not in ('IoCreateHandle', 'IoDestroyHandle',
                                            'IoOperationBegin', 'IoOperationComplete',
                                            'IoSeek', 'IoDuplicateHandle')], [],
         '%s: no other I/O event (the failed calls are regions only)' % what)
    written = sum(e[2] for e in got[W][1] if e[0] == 'IoOperationComplete')
    read = sum(e[2] for _, mine in got[R:D + 1] for e in mine if e[0] == 'IoOperationComplete')
    t.eq((written, read), (3800, 3820), '%s: bytes written and read on %s' % (what, DATA))


def per_location_io(path):
    """Per location name: [(kind, handle name, value)] of its I/O events: creations with their
    status flags, completions with their bytes, destructions."""
    out = {}
    with otf2.reader.open(path) as reader:
        skip = stdio_refs(reader)
        for loc, ev in reader.events:
            k = type(ev).__name__
            if on_stdio(ev, skip):
                continue
            if k == 'IoCreateHandle':
                item = (k, ev.handle.name, int(ev.status_flags.value))
            elif k == 'IoOperationComplete':
                item = (k, ev.handle.name, ev.bytes_result)
            elif k in ('IoDestroyHandle', 'IoOperationBegin'):
                item = (k, ev.handle.name, None)
            else:
                continue
            out.setdefault(loc.name, []).append(item)
    return out


def check_threads(t, exe):
    """io_threads.c: two threads write their own file at once, each on its location."""
    what = 'two threads'
    run = t.run(exe, env={'VT_IOTRACE': 'yes'}, label='threads')
    t.eq((run.status, run.stdout), (0, 'thread 0 wrote 1000\nthread 1 wrote 1000\n'),
         '%s: status 0, 1000 bytes written by each' % what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    t.eq(sorted(l.name for l in tr.locations),
         ['Master thread', 'Thread 1', 'Thread 2'], '%s: 3 locations' % what)
    io = per_location_io(tr.path)
    t.eq(io.get('Master thread'), None, '%s: no I/O event on the master thread' % what)
    files = []
    for name in ('Thread 1', 'Thread 2'):
        loc = tr.loc(name)
        t.eq({k: v for k, v in loc.enters.items() if k != 'writer'},
             {'open': 1, 'write': 10, 'close': 1, 'unlink': 1},
             '%s: %s: the I/O regions' % (what, name))
        mine = io.get(name, [])
        handle = mine[0][1] if mine else None
        files.append(handle)
        want = ([('IoCreateHandle', handle, 2)] +  # OTF2_IO_STATUS_FLAG_APPEND
                [('IoOperationBegin', handle, None), ('IoOperationComplete', handle, 100)] * 10
                + [('IoDestroyHandle', handle, None)])
        t.eq(mine, want, '%s: %s: its handle created (O_APPEND), 10 writes of 100 bytes, '
             'destroyed, all on its own location' % (what, name))
    t.eq(sorted(files), ['t0.bin', 't1.bin'], '%s: one handle per file' % what)


def check_fortify(t, exe):
    """io_fortify.c with -D_FORTIFY_SOURCE=2: libc's checking forms, recorded as the calls
    the program wrote."""
    what = '_FORTIFY_SOURCE=2'
    imports = subprocess.run(['nm', '-D', '--undefined-only', exe], capture_output=True,
                             text=True).stdout
    t.eq(sorted(set(re.findall(r'\b(__open_2|__read_chk|__pread_chk)\b', imports))),
         ['__open_2', '__pread_chk', '__read_chk'],
         '%s: the program calls __open_2, __read_chk and __pread_chk' % what)
    run = t.run(exe, env={'VT_IOTRACE': 'yes'}, label='fortify')
    t.eq((run.status, run.stdout), (0, 'read 48 24 pread 48 close 0\n'),
         '%s: status 0, what it read' % what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    t.eq({k: v for k, v in tr.loc('Master thread').enters.items() if k not in ('main', 'printf')},
         {'open': 4, 'read': 2, 'pread': 1, 'close': 4},
         '%s: regions named as the program wrote the calls' % what)
    t.eq(len(io_events(tr.path)[0]), 1,
         '%s: one handle for the four opens of one file, one after the other' % what)
    io = per_location_io(tr.path).get('Master thread', [])
    h = '/proc/self/exe'
    t.eq(io, [('IoCreateHandle', h, 0), ('IoDestroyHandle', h, None)] * 3 +
         [('IoCreateHandle', h, 0)] +
         [x for n in (48, 24, 48) for x in (('IoOperationBegin', h, None),
                                            ('IoOperationComplete', h, n))] +
         [('IoDestroyHandle', h, None)],
         '%s: the handle, its three reads (48, 24, 48 bytes), its end' % what)


def short(name):
    """A handle's name, a pipe's and a socket's without their inode."""
    return re.sub(r'^(pipe|socket):\[\d+\]$', r'\1', name)


def io_list(path):
    """The I/O events of the whole trace in order, with handle names (short), and the pairs
    of matching ids of each operation: its Begin's and its Complete's or Cancelled's; the
    streams' (stdout's printf) left out."""
    out, pairs, begun = [], [], {}
    with otf2.reader.open(path) as reader:
        skip = stdio_refs(reader)  # the programs' printf: iostdio's business
        for _, ev in reader.events:
            k = type(ev).__name__
            if on_stdio(ev, skip):
                continue
            if k == 'IoCreateHandle':
                out.append((k, short(ev.handle.name), name(ev.mode),
                            int(ev.creation_flags.value), int(ev.status_flags.value)))
            elif k == 'IoDestroyHandle':
                out.append((k, short(ev.handle.name)))
            elif k == 'IoOperationBegin':
                out.append((k, short(ev.handle.name), name(ev.mode), ev.bytes_request))
                begun[ev.handle._ref] = ev.matching_id
            elif k in ('IoOperationComplete', 'IoOperationCancelled'):
                out.append((k, short(ev.handle.name)) +
                           ((ev.bytes_result,) if k == 'IoOperationComplete' else ()))
                pairs.append((begun.pop(ev.handle._ref, None), ev.matching_id))
            elif k == 'IoDuplicateHandle':
                out.append((k, short(ev.old_handle.name), short(ev.new_handle.name),
                            int(ev.status_flags.value), ev.old_handle._ref != ev.new_handle._ref))
            elif k == 'IoChangeStatusFlags':
                out.append((k, short(ev.handle.name), int(ev.status_flags.value)))
            elif k == 'IoDeleteFile':
                out.append((k, ev.file.name, ev.io_paradigm.identification))
            elif k.startswith('Io'):
                out.append((k,))
    return out, pairs


# io_more.c: the regions (plain and -D_FILE_OFFSET_BITS=64 builds) and the I/O events.
# fcntl: F_DUPFD, F_DUPFD_CLOEXEC, F_SETFL, F_SETFD and a failed F_DUPFD (F_GETFL is not
# recorded); mmap: private, shared, a failed shared one (the anonymous one is not).
def more_regions(large):
    s = '64' if large else ''
    return {'open' + s: 5, 'pwritev%sv2' % s if large else 'pwritev2': 1, 'pwritev64': 1,
            'preadv%sv2' % s if large else 'preadv2': 1,
            'preadv64': 1, 'fcntl' + s: 5, 'pread' + s: 2, 'mmap' + s: 3, 'close': 11,
            'write': 4, 'read': 3, 'renameat2': 2, 'unlink': 2, 'unlinkat': 1}


M, OC, CX, AP = 'more.bin', 'IoOperationComplete', 'IoOperationCancelled', 2  # APPEND
G, G2 = 'gone.bin', 'gone2.bin'


def op(handle, mode, asked, done):
    return [('IoOperationBegin', handle, mode, asked)] + (
        [(OC, handle, done)] if done is not None else [(CX, handle)])


MORE = ([('IoCreateHandle', M, 'READ_WRITE', 1 | 2, 0)] + op(M, 'WRITE', 300, 300) +
        op(M, 'WRITE', 20, 20) + op(M, 'READ', 100, 100) + op(M, 'READ', 10, 5) +
        [('IoDuplicateHandle', M, M, 0, True)] + op(M, 'READ', 5, 5) +
        [('IoDuplicateHandle', M, M, 1, True)] + op(M, 'READ', 7, 7) +  # CLOSE_ON_EXEC
        [('IoChangeStatusFlags', M, AP), ('IoChangeStatusFlags', M, AP | 1)] +
        op(M, 'READ', 0, 0) + op(M, 'WRITE', 0, 0) + [('IoDestroyHandle', M)] * 3 +
        [('IoCreateHandle', M, 'READ_ONLY', 0, 0)] + op(M, 'WRITE', 1, None) +
        op(M, 'WRITE', 0, None) + [('IoDestroyHandle', M)] +
        [('IoCreateHandle', G, 'WRITE_ONLY', 3, 0)] + op(G, 'WRITE', 4, 4) +
        [('IoDeleteFile', G, 'POSIX')] + op(G, 'WRITE', 4, 4) + [('IoDestroyHandle', G)] +
        [('IoCreateHandle', G2, 'WRITE_ONLY', 3, 0), ('IoDestroyHandle', G2),
         ('IoDeleteFile', G2, 'POSIX')] +
        [('IoCreateHandle', 'pipe', 'READ_ONLY', 0, 0)] + op('pipe', 'READ', 1, None) +
        [('IoDestroyHandle', 'pipe')] +
        [('IoCreateHandle', 'socket', 'READ_WRITE', 0, 0)] + op('socket', 'WRITE', 3, 3) +
        [('IoCreateHandle', 'socket', 'READ_WRITE', 0, 0)] + op('socket', 'READ', 64, 3) +
        [('IoDestroyHandle', 'socket')] * 2 +
        [('IoCreateHandle', '/proc/self/stat', 'READ_ONLY', 0, 0)] +
        op('/proc/self/stat', 'READ', 4096, 'some') + [('IoDestroyHandle', '/proc/self/stat')])


def check_more(t, exes, plain):
    """io_more.c: preadv2/pwritev2 and the 64 forms, fcntl's duplications and status flags,
    mmap of a file, failed operations on handles (cancelled), a read interrupted by a signal
    (EINTR: cancelled), a socket pair and /proc; and a forked child's I/O (not traced).
    Built with vtcc (plain and 64-bit offsets), and the uninstrumented build under vtrun."""
    for exe, large, vtrun in ((exes[0], False, False), (exes[1], True, False),
                              (exes[2], False, True)):
        what = 'io_more%s%s' % (' -D_FILE_OFFSET_BITS=64' if large else '',
                                ' under vtrun' if vtrun else '')
        if vtrun:
            run = t.run(VTRUN, args=['-vt:iotrace', 'yes', exe], label='more-vtrun')
        else:
            run = t.run(exe, env={'VT_IOTRACE': 'yes'}, label='more')
        t.same_as_plain(run, plain, what + ' (errno after each failing call included)')
        t.clean_run(run, what)
        tr = t.trace(run, what, prefix='io_more.vt' if vtrun else None)
        loc = tr.loc('Master thread')
        want = more_regions(large)
        t.eq({k: v for k, v in loc.enters.items() if k in want or k in more_regions(not large)},
             want, '%s: the I/O regions, as the program called them' % what)
        with otf2.reader.open(tr.path) as reader:
            roles = {r.name: name(r.region_role) for r in reader.definitions.regions
                     if r.name in want}
        meta = ('renameat2', 'unlink', 'unlinkat')
        t.eq(roles, {k: 'FILE_IO_METADATA' if k in meta else 'FILE_IO' for k in want},
             '%s: the regions\' roles' % what)
        events, pairs = io_list(tr.path)
        events = [e[:2] + ('some',) if e[:2] == (OC, '/proc/self/stat') and e[2] > 0 else e
                  for e in events]
        t.eq(events, MORE, '%s: the I/O events in order' % what)
        t.eq([a for a, b in pairs if a != b], [], '%s: each operation\'s end matches its '
             'Begin (%d operations)' % (what, len(pairs)))
    # fork: the child's write and close on the parent's descriptor are not in the trace.
    ref = t.run(exes[2], ['fork'], label='plain-fork')
    run = t.run(exes[0], ['fork'], env={'VT_IOTRACE': 'yes'}, label='fork')
    t.same_as_plain(run, ref, 'fork')
    t.eq(run.errors + run.warnings, [], 'fork: no vt errors or warnings')
    tr = t.trace(run, 'fork')
    t.eq(len(tr.locations), 1, 'fork: one location, the parent\'s')
    t.eq(io_list(tr.path)[0],
         [('IoCreateHandle', 'fork.bin', 'WRITE_ONLY', 3, 0)] + op('fork.bin', 'WRITE', 10, 10)
         + op('fork.bin', 'WRITE', 20, 20) + [('IoDestroyHandle', 'fork.bin'),
                                              ('IoDeleteFile', 'fork.bin', 'POSIX')],
         'fork: the parent\'s handle and writes only (the child\'s write and close not), '
         'the file deleted')


def errno_lines(run):
    return [l for l in run.stdout.splitlines() if 'errno' in l]


def body(t):
    vttest.require_otf2()
    builds = [('gcc', '-O0', [], True), ('clang', '-O2', ['-D_FILE_OFFSET_BITS=64'], True),
              ('gcc', '-O0', [], False)]
    exes = t.parallel(lambda b: t.compile('io', ['io.c'], compiler=b[0], opt=b[1],
                                          flags=b[2], instrument=b[3]), builds)
    check_threads(t, t.compile('io_threads', ['io_threads.c'], opt='-O2', flags=['-pthread']))
    check_fortify(t, t.compile('io_fortify', ['io_fortify.c'], compiler='gcc', opt='-O2',
                               flags=['-D_FORTIFY_SOURCE=2']))
    more = t.parallel(lambda b: t.compile('io_more', ['io_more.c'], opt='-O0', flags=b[0],
                                          instrument=b[1]),
                      [([], True), (['-D_FILE_OFFSET_BITS=64'], True), ([], False)])
    check_more(t, more, t.run(more[2], label='plain-more'))
    plain = t.run(exes[2], label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    t.eq(errno_lines(plain), ['read closed -1 errno 9', 'open missing -1 errno 2',
                              'write -1 -1 errno 9', 'unlink again -1 errno 2'],
         'uninstrumented: the failing calls\' errno')
    for (cc, opt, flags, _), exe in zip(builds[:2], exes[:2]):
        what = '%s %s %s' % (cc, opt, ' '.join(flags))
        run = t.run(exe, env={'VT_IOTRACE': 'yes'}, label='run-%s' % cc)
        t.same_as_plain(run, plain, what + ' (errno after each failing call included)')
        t.clean_run(run, what)
        tr = t.trace(run, what)
        check_io(t, tr, what, large=bool(flags))
    # The other paths of the recording, with the same facts: synchronous counters at every
    # Enter and Leave (each event on its own), regions filtered out and calls deeper than
    # VT_MAX_STACK_DEPTH (the operations without their regions).
    with open(os.path.join(t.work, 'rw.filter'), 'w') as f:
        f.write('read;write -- 0\n')
    others = [('VT_RUSAGE=minflt', {'VT_RUSAGE': 'minflt', 'VT_RUSAGE_INTV': '0'}, ()),
              ('read and write filtered', {'VT_FILTER_SPEC': os.path.join(t.work, 'rw.filter')},
               ('read', 'write')),
              ('VT_MAX_STACK_DEPTH=1', {'VT_MAX_STACK_DEPTH': '1'}, tuple(regions(False)))]
    for what, env, without in others:
        run = t.run(exes[0], env=dict(env, VT_IOTRACE='yes'), label=what.split('=')[0][:12])
        t.same_as_plain(run, plain, what)
        t.clean_run(run, what)
        check_io(t, t.trace(run, what), what, without=without)
    # Off by default: no I/O region, no handle.
    run = t.run(exes[0], label='off')
    t.same_as_plain(run, plain, 'VT_IOTRACE unset')
    tr = t.trace(run, 'VT_IOTRACE unset')
    handles, events = io_events(tr.path)
    t.eq((handles, events, sorted(k for k in tr.loc('Master thread').enters
                                  if k in regions(False))), ({}, [], []),
         'VT_IOTRACE unset: no I/O handle, event or region')
    # A program nobody rebuilt, under vtrun.
    run = t.run(VTRUN, args=['-vt:iotrace', 'yes', exes[2]], label='vtrun')
    t.same_as_plain(run, plain, 'vtrun')
    t.clean_run(run, 'vtrun')
    tr = t.trace(run, 'vtrun', prefix='io.vt')
    check_io(t, tr, 'vtrun')


vttest.main('iotrace', body)
