# SPDX-License-Identifier: BSD-3-Clause
"""e2e "iointerrupt": a POSIX operation during which the thread records other events (a
signal handler's Enter and Leave). vt writes an operation as one event completed in place at
its end when nothing was recorded between; this test holds the other case to the same facts.
intr.c writes and reads 1 byte through a pipe twice, then a read of the empty pipe waits
until SIGALRM (every 50 ms, no SA_RESTART) interrupts it: -1, EINTR. Asserted exactly, on
the master thread's location (python3-otf2), in order: the region read (or write) around each
operation; the last read's region holding IoOperationBegin (READ, 1 byte), exactly one
on_alarm Enter/Leave, IoOperationCancelled, the same matching id; the operations before it
completed with 1 byte each; errno as without vt. t.trace checks non-decreasing timestamps
and balanced regions on every location."""

import vttest

try:
    import otf2
except ImportError:  # vttest.require_otf2 says so
    otf2 = None


def master_events(path):
    """The master thread's events: Enter/Leave of read, write and on_alarm, and the I/O
    operations' events, as tuples."""
    out = []
    with otf2.reader.open(path) as reader:
        for loc, ev in reader.events:
            if loc.name != 'Master thread':
                continue
            k = type(ev).__name__
            if k in ('Enter', 'Leave') and ev.region.name in ('read', 'write', 'on_alarm'):
                out.append((k, ev.region.name))
            elif k == 'IoOperationBegin':
                out.append((k, str(ev.mode).rsplit('.', 1)[-1], ev.bytes_request,
                            ev.matching_id))
            elif k == 'IoOperationComplete':
                out.append((k, ev.bytes_result, ev.matching_id))
            elif k == 'IoOperationCancelled':
                out.append((k, ev.matching_id))
    return out


def op(region, mode, n, i):
    return [('Enter', region), ('IoOperationBegin', mode, 1, i),
            ('IoOperationComplete', n, i), ('Leave', region)]


def body(t):
    vttest.require_otf2()
    exe = t.compile('intr', ['intr.c'], opt='-O0')
    plain = t.run(t.compile('intr', ['intr.c'], instrument=False), label='plain')
    t.eq(plain.stdout.splitlines()[0], 'read interrupted -1 errno %d' % 4,
         'uninstrumented: the read fails with EINTR')
    run = t.run(exe, env={'VT_IOTRACE': 'yes'})
    t.same_as_plain(run, plain, 'VT_IOTRACE=yes (errno included)')
    t.clean_run(run, 'VT_IOTRACE=yes')
    tr = t.trace(run, 'VT_IOTRACE=yes')
    events = master_events(tr.path)
    # Timer signals that came before the last read: their handler's events outside it.
    last = len(events) - 1 - events[::-1].index(('Enter', 'read'))
    before = [e for e in events[:last] if e[1] != 'on_alarm']
    t.eq(before, op('write', 'WRITE', 1, 1) + op('read', 'READ', 1, 2) +
         op('write', 'WRITE', 1, 3) + op('read', 'READ', 1, 4),
         'the operations before the interrupted read, completed with 1 byte each')
    # (After it, the printf's operations on stdout's stream: test iostdio.)
    t.eq(events[last:last + 6], [('Enter', 'read'), ('IoOperationBegin', 'READ', 1, 5),
                         ('Enter', 'on_alarm'), ('Leave', 'on_alarm'),
                         ('IoOperationCancelled', 5), ('Leave', 'read')],
         'the interrupted read: its Begin, the handler\'s Enter and Leave, its cancellation')


vttest.main('iointerrupt', body)
