# SPDX-License-Identifier: BSD-3-Clause
"""e2e "sim_synth": vt-sim on small 2-rank traces written here with python3-otf2, whose
every output time is worked out by hand below (ticks of 1 ns):

  rank 0: main 100; MPI_Send 200 (MpiSend 210 to 1, tag 10, 4 B) 300; MPI_Recv 400
          (MpiRecv 890 from 1, tag 20, 8 B) 900; MPI_Barrier 1000 (begin 1001, end 1200)
          1201; MPI_Recv 1250 (MpiRecv 1260 from 1, tag 30) 1270; main 2000
  rank 1: main 150; MPI_Recv 160 (MpiRecv 250, tag 10) 260; compute 300-550; MPI_Send 600
          (MpiSend 610 to 0, tag 20, 8 B) 620; MPI_Barrier 1100 (1101, 1190) 1195;
          MPI_Send 1280 (MpiSend 1285 to 0, tag 30) 1290; main 1900

The tag-30 message is sent after its receive ended ("backwards", as clock skew makes them):
the receive waits in the replay for its send but is left as recorded. A second trace adds
what never completes: a receive without a send, a send without a receive and a barrier only
rank 0 enters; the replay finishes them as recorded, relative to what came before. Checked
under identity, ideal, latbw (L = 10 ns, B = 1 byte/ns) and scale (compute, 0.5); a third
trace (write_nb) does the same for Irecv/Isend with MPI_Waitall, MPI_Bcast and MPI_Ssend."""

import os
import subprocess

import otf2

import otf2events
import vttest
from vttest import Failure

VT_SIM = os.environ.get('VT_SIM', '')
ROOT_NONE = 0xFFFFFFFF


def two_ranks(d, mpi_regions):
    """Definitions of a 2-rank MPI run on one host: its two master threads, MPI_COMM_WORLD,
    and regions by name (the MPI ones given as (name, role), main and compute)."""
    host = d.system_tree_node('host', parent=d.system_tree_node('machine'))
    groups = [d.location_group('MPI Rank %d' % r, system_tree_parent=host) for r in range(2)]
    locs = [d.location('Master thread', group=g) for g in groups]
    d.group('MPI locations', group_type=otf2.GroupType.COMM_LOCATIONS,
            paradigm=otf2.Paradigm.MPI, members=locs)
    wg = d.group('MPI_COMM_WORLD', group_type=otf2.GroupType.COMM_GROUP,
                 paradigm=otf2.Paradigm.MPI, members=[0, 1])
    world = d.comm('MPI_COMM_WORLD', group=wg)
    reg = {name: d.region(name, paradigm=otf2.Paradigm.MPI,
                          region_role=getattr(otf2.RegionRole, role))
           for name, role in mpi_regions}
    reg['main'] = d.region('main')
    reg['compute'] = d.region('compute')
    return locs, world, reg


def write(path, faults):
    with otf2.writer.open(path, archive_name='synth', timer_resolution=10**9) as trace:
        locs, world, reg = two_ranks(trace.definitions, [
            ('MPI_Send', 'POINT2POINT'), ('MPI_Recv', 'POINT2POINT'), ('MPI_Barrier', 'BARRIER')])
        E, L, ev = otf2.events.Enter, otf2.events.Leave, otf2.events

        def barrier(w, a, b, c, e):
            w(E(a, reg['MPI_Barrier']))
            w(ev.MpiCollectiveBegin(b))
            w(ev.MpiCollectiveEnd(c, otf2.CollectiveOp.BARRIER, world, ROOT_NONE, 0, 0))
            w(L(e, reg['MPI_Barrier']))

        def p2p(w, kind, a, b, c, peer, tag, n):
            region = 'MPI_Send' if kind == 'send' else 'MPI_Recv'
            w(E(a, reg[region]))
            w((ev.MpiSend if kind == 'send' else ev.MpiRecv)(b, peer, world, tag, n))
            w(L(c, reg[region]))

        w = trace.event_writer_from_location(locs[0])
        w(E(100, reg['main']))
        p2p(w, 'send', 200, 210, 300, 1, 10, 4)
        p2p(w, 'recv', 400, 890, 900, 1, 20, 8)
        barrier(w, 1000, 1001, 1200, 1201)
        p2p(w, 'recv', 1250, 1260, 1270, 1, 30, 4)
        if faults:
            p2p(w, 'recv', 1300, 1390, 1400, 1, 99, 4)  # never sent
            barrier(w, 1500, 1501, 1550, 1560)  # rank 1 never comes
        w(L(2000, reg['main']))

        w = trace.event_writer_from_location(locs[1])
        w(E(150, reg['main']))
        p2p(w, 'recv', 160, 250, 260, 0, 10, 4)
        w(E(300, reg['compute']))
        w(L(550, reg['compute']))
        p2p(w, 'send', 600, 610, 620, 0, 20, 8)
        barrier(w, 1100, 1101, 1190, 1195)
        p2p(w, 'send', 1280, 1285, 1290, 0, 30, 4)
        if faults:
            p2p(w, 'send', 1300, 1310, 1320, 0, 77, 4)  # never received
        w(L(1900, reg['main']))
    return os.path.join(path, 'synth.otf2')


# The expected times, event by event, per rank (see the docstring for the input).
IDEAL = {
    # rank 1 receives as soon as rank 0's send starts (200); its MpiRecv moves to that end;
    # everything after moves by -60; the barrier ends at its last entry, rank 1's (1040).
    0: [100, 200, 210, 300,
        400, 540, 540,  # receive: rank 1's send now starts at 540
        640, 641, 840, 1040,  # barrier: ends at rank 1's entry, 1040
        1089, 1099, 1109,  # the backwards message: as recorded
        1839],
    1: [150, 160, 200, 200,  # receive ends at rank 0's send start, 200
        240, 490,  # compute
        540, 550, 560,
        1040, 1040, 1040, 1040,  # barrier: entered last, at 1040, left at once
        1125, 1130, 1135,
        1745],
}
# latbw L = 10 ns, B = 1 byte/ns: a message of n bytes arrives 10 + n ns after its send
# started; the barrier (2 members: one step of 0 bytes) ends 10 ns after its last entry.
LATBW = {
    0: [100, 200, 210, 300,
        400, 572, 572,  # 8 bytes from rank 1's send at 554: 554 + 18
        672, 673, 872, 1064,  # last entry 1054 + 10
        1113, 1123, 1133,
        1863],
    1: [150, 160, 214, 214,  # 4 bytes from 200: 214
        254, 504,
        554, 564, 574,
        1054, 1055, 1064, 1064,  # begin 1055; its end (1144) moves to the barrier's 1064
        1149, 1154, 1159,
        1769],
}
# scale compute 0.5: rank 1's compute takes 125; its send starts 125 earlier (475), so rank
# 0's receive, which waited for it, waits 125 less: it ends 300 after the send's start as
# before (775). The barrier: each leaves as long after the last entry (rank 1's, 975) as it
# did (rank 0: 101, rank 1: 95).
SCALE = {
    0: [100, 200, 210, 300,
        400, 775, 775,
        875, 876, 1075, 1076,
        1125, 1135, 1145,
        1875],
    1: [150, 160, 250, 260,
        300, 425,
        475, 485, 495,
        975, 976, 1065, 1070,
        1155, 1160, 1165,
        1775],
}
# The faults, under ideal: what never completes keeps its recorded distances.
IDEAL_FAULTS = {
    0: IDEAL[0][:-1] + [1139, 1229, 1239,  # the receive without a send: 1109 + 30 ...
                        1339, 1340, 1389, 1399,  # the barrier of one
                        1839],
    1: IDEAL[1][:-1] + [1145, 1155, 1165, 1745],
}


def write_nb(path):
    """Non-blocking messages with MPI_Waitall, an MPI_Bcast and an MPI_Ssend:
      rank 0: main 100; Irecv 200 (request 205) 210; Isend 220 (225, to 1, tag 40, 16 B) 230;
              compute 240-400; Waitall 400 (Irecv done 700, Isend done 705) 710;
              Bcast (root) 800 (801, 850) 860; Ssend 900 (905 to 1, tag 50) 1200; main 1300
      rank 1: main 100; Irecv 150 (155) 160; compute 170-600; Isend 600 (605, to 0, tag 41)
              610; Waitall 620 (630, 635) 640; Bcast 650 (651, 855) 865; Recv 1100 (1190)
              1195; main 1250"""
    with otf2.writer.open(path, archive_name='nb', timer_resolution=10**9) as trace:
        locs, world, reg = two_ranks(trace.definitions, [
            ('MPI_Irecv', 'POINT2POINT'), ('MPI_Isend', 'POINT2POINT'),
            ('MPI_Waitall', 'POINT2POINT'), ('MPI_Ssend', 'POINT2POINT'),
            ('MPI_Recv', 'POINT2POINT'), ('MPI_Bcast', 'COLL_ONE2ALL')])
        E, L, ev = otf2.events.Enter, otf2.events.Leave, otf2.events
        for r, peer in ((0, 1), (1, 0)):
            w = trace.event_writer_from_location(locs[r])
            w(E(100, reg['main']))
            if r == 0:
                steps = [(200, 205, 210), (220, 225, 230), (240, 400), (400, 700, 705, 710),
                         (800, 801, 850, 860)]
            else:
                steps = [(150, 155, 160), (600, 605, 610), (170, 600), (620, 630, 635, 640),
                         (650, 651, 855, 865)]
            a, b, c = steps[0]
            w(E(a, reg['MPI_Irecv']))
            w(ev.MpiIrecvRequest(b, 1))
            w(L(c, reg['MPI_Irecv']))
            isend = steps[1]
            if r == 0:
                w(E(isend[0], reg['MPI_Isend']))
                w(ev.MpiIsend(isend[1], peer, world, 40, 16, 2))
                w(L(isend[2], reg['MPI_Isend']))
            w(E(steps[2][0], reg['compute']))
            w(L(steps[2][1], reg['compute']))
            if r == 1:
                w(E(isend[0], reg['MPI_Isend']))
                w(ev.MpiIsend(isend[1], peer, world, 41, 8, 2))
                w(L(isend[2], reg['MPI_Isend']))
            a, b, c, e = steps[3]
            w(E(a, reg['MPI_Waitall']))
            w(ev.MpiIrecv(b, peer, world, 41 if r == 0 else 40, 8 if r == 0 else 16, 1))
            w(ev.MpiIsendComplete(c, 2))
            w(L(e, reg['MPI_Waitall']))
            a, b, c, e = steps[4]
            w(E(a, reg['MPI_Bcast']))
            w(ev.MpiCollectiveBegin(b))
            w(ev.MpiCollectiveEnd(c, otf2.CollectiveOp.BCAST, world, 0, 4 if r == 0 else 0,
                                  0 if r == 0 else 4))
            w(L(e, reg['MPI_Bcast']))
            if r == 0:
                w(E(900, reg['MPI_Ssend']))
                w(ev.MpiSend(905, peer, world, 50, 4))
                w(L(1200, reg['MPI_Ssend']))
                w(L(1300, reg['main']))
            else:
                w(E(1100, reg['MPI_Recv']))
                w(ev.MpiRecv(1190, peer, world, 50, 4))
                w(L(1195, reg['MPI_Recv']))
                w(L(1250, reg['main']))
    return os.path.join(path, 'nb.otf2')


# scale compute 0.5 on write_nb's trace: rank 0's compute 160 -> 80, rank 1's 430 -> 215.
# Rank 1's Waitall ends 20 after its own start (its send came long before); rank 0's ends
# 110 after rank 1's Isend, now at 385. The Bcast: the root leaves 60 after its entry, rank
# 1 65 after the root's entry (585). The Ssend ends 100 after its receive started (885), the
# receive 95 after its own start.
SCALE_NB = {
    0: [100, 200, 205, 210, 220, 225, 230, 240, 320,
        320, 495, 495, 495,
        585, 586, 635, 645,
        685, 690, 985,
        1085],
    1: [100, 150, 155, 160, 170, 385, 385, 390, 395,
        405, 415, 420, 425,
        435, 436, 640, 650,
        885, 975, 980,
        1035],
}
# ideal on it: each receive ends when its send started (rank 1's Waitall at its own start,
# 620; rank 0's at 600); the Bcast at its last entry (690); the Ssend still waits for its
# receive to start (925) and then 100 as before; that receive ends at once.
IDEAL_NB = {
    0: [100, 200, 205, 210, 220, 225, 230, 240, 400,
        400, 600, 600, 600,
        690, 690, 690, 690,
        730, 735, 1025,
        1125],
    1: [100, 150, 155, 160, 170, 600, 600, 605, 610,
        620, 620, 620, 620,
        630, 631, 690, 690,
        925, 925, 925,
        980],
}


def times(path):
    out = {}
    with otf2.reader.open(path) as r:
        for l, e in otf2events.events(r):
            out.setdefault(l._ref, []).append(e.time)
    return out


def sim(t, trace, spec, label):
    out = os.path.join(t.newdir(label), 'out.otf2')
    p = subprocess.run([VT_SIM, trace, '-s', spec, '-o', out], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    print('vt-sim %s %s -> %d\n%s%s' % (trace, spec, p.returncode, p.stdout, p.stderr))
    t.eq(p.returncode, 0, '%s: vt-sim exits 0' % label)
    tr = vttest.read_trace(out)
    for loc in tr.locations:
        t.check(not loc.problems, '%s: %s balanced, time-ordered' % (label, loc.name),
                '; '.join(loc.problems))
    t.cross_check_otf2_print(tr, label)
    return times(out)


def body(t):
    if not os.access(VT_SIM, os.X_OK):
        raise Failure('vt-sim is not built: %r' % VT_SIM)
    for faults in (False, True):
        what = 'faults' if faults else 'plain'
        trace = write(t.newdir('trace-' + what), faults)
        orig = times(trace)
        t.eq(sim(t, trace, 'identity', what + '-identity'), orig,
             '%s: identity keeps every time' % what)
        want = IDEAL_FAULTS if faults else IDEAL
        t.eq(sim(t, trace, 'ideal', what + '-ideal'), want,
             '%s: ideal gives the times worked out by hand' % what)
        if not faults:
            t.eq(sim(t, trace, 'latbw:L=10e-9,B=1e9', 'latbw'), LATBW,
                 'latbw: the times worked out by hand')
            t.eq(sim(t, trace, 'scale:pattern=compute,factor=0.5', 'scale'), SCALE,
                 'scale: the times worked out by hand (rank 0 waits 125 less)')
    trace = write_nb(t.newdir('trace-nb'))
    t.eq(sim(t, trace, 'identity', 'nb-identity'), times(trace),
         'nb: identity keeps every time')
    t.eq(sim(t, trace, 'scale:pattern=compute,factor=0.5', 'nb-scale'), SCALE_NB,
         'nb: scale gives the times worked out by hand (Waitall, Bcast, Ssend)')
    t.eq(sim(t, trace, 'ideal', 'nb-ideal'), IDEAL_NB,
         'nb: ideal gives the times worked out by hand (Waitall, Bcast, Ssend)')


if __name__ == '__main__':
    vttest.main('sim_synth', body)
