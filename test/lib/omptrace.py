# SPDX-License-Identifier: BSD-3-Clause
"""Writes an OpenMP trace in OTF2's thread model (python3-otf2) whose profile is known exactly.

Two threads of one process, timer 1 GHz (ticks = ns). Regions are named and given roles as
vt's OMPT adapter names them (paradigm OPENMP, '!$omp parallel @omp.c:10'). What happens:

  Master thread (location 0)                  OpenMP thread 1 (location 1)
  main 0..800
   fork 100 (2 threads)
   P1 '!$omp parallel @omp.c:10' 100..300      P1 100..300
    loop 100..260, work 110..250                loop 100..180, work 110..170
    IB1 implicit barrier 260..300 (40)          IB1 180..300 (120)
   join 300
   fork 400
   P2 '!$omp parallel @omp.c:20' 400..720      P2 400..720
    single 410..460                             task (0, 1) switched to at 430
     task create 420..430 (task 0,1)             TASK 430..650, work 440..640
     task create 440..450 (task 0,2)             complete (0, 1) at 650
    critical 460..500, lock 7 held 470..490     critical 650..680, lock 7 held 660..670
    taskwait 500..620                           B2 barrier 680..700 (20)
     task (0, 2) switched to at 510             work 700..710
     TASK 510..610, work 520..600               IB2 710..720 (10)
     complete (0, 2) at 610
    B2 barrier 620..700 (80)
    IB2 implicit barrier 700..720 (20)
   join 720

EXPECTED holds what the tools must find; each thread's team spans TeamBegin..TeamEnd around
its parallel regions.
"""
import otf2
from otf2.enums import Paradigm, RegionRole, GroupType, GroupFlag

P1 = '!$omp parallel @omp.c:10'
P2 = '!$omp parallel @omp.c:20'
IB1 = '!$omp implicit barrier @omp.c:10'
IB2 = '!$omp implicit barrier @omp.c:20'
B2 = '!$omp barrier @omp.c:25'
TASK = '!$omp task @omp.c:22'
MASTER, WORKER = 'Master thread', 'OpenMP thread 1'

# Per thread (location name): ticks in parallel regions, barriers, tasks, taskwait, critical,
# locks held; counts of forks, teams, tasks created, task switches, tasks completed, locks.
EXPECTED_THREADS = {
    MASTER: dict(parallel=200 + 320, barrier=40 + 80 + 20, task=100, taskwait=120, critical=40,
                 lock_held=20, pthread=0, forks=2, teams=2, tasks_created=2, task_switches=1,
                 tasks_completed=1, locks=1),
    WORKER: dict(parallel=200 + 320, barrier=120 + 20 + 10, task=220, taskwait=0, critical=30,
                 lock_held=10, pthread=0, forks=0, teams=2, tasks_created=0, task_switches=1,
                 tasks_completed=1, locks=1),
}
# Per construct: kind, per thread (work, wait) for parallel regions, (wait) for barriers.
EXPECTED_CONSTRUCTS = {
    P1: ('parallel', {MASTER: (160, 40), WORKER: (80, 120)}),
    P2: ('parallel', {MASTER: (220, 100), WORKER: (290, 30)}),
    IB1: ('barrier', {MASTER: (40, 40), WORKER: (120, 120)}),
    B2: ('barrier', {MASTER: (80, 80), WORKER: (20, 20)}),
    IB2: ('barrier', {MASTER: (20, 20), WORKER: (10, 10)}),
}
# Teams per thread: (begin, end) ticks; tasks: (creator, generation) -> (created at, on,
# executed on, switched to at, completed at); lock 7's holds: (location, acquire, release).
TEAMS = {MASTER: [(100, 300), (400, 720)], WORKER: [(100, 300), (400, 720)]}
TASKS = {(0, 1): (420, MASTER, WORKER, 430, 650), (0, 2): (440, MASTER, MASTER, 510, 610)}
LOCKS = [(MASTER, 470, 490), (WORKER, 660, 670)]
FORKS = [(100, 300), (400, 720)]


def write(path):
    """Writes the trace to path (the archive directory's anchor file name is
    path/traces.otf2); returns the anchor file."""
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        node = d.system_tree_node('node')
        proc = d.location_group('Process 0', system_tree_parent=node)

        def region(name, role, line, paradigm=Paradigm.OPENMP):
            return d.region(name, source_file='omp.c', begin_line_number=line,
                            region_role=role, paradigm=paradigm)
        main = region('main', RegionRole.FUNCTION, 1, Paradigm.USER)
        work = region('work', RegionRole.FUNCTION, 40, Paradigm.USER)
        p1 = region(P1, RegionRole.PARALLEL, 10)
        p2 = region(P2, RegionRole.PARALLEL, 20)
        loop = region('!$omp for @omp.c:12', RegionRole.LOOP, 12)
        ib1 = region(IB1, RegionRole.IMPLICIT_BARRIER, 10)
        ib2 = region(IB2, RegionRole.IMPLICIT_BARRIER, 20)
        b2 = region(B2, RegionRole.BARRIER, 25)
        single = region('!$omp single @omp.c:21', RegionRole.SINGLE, 21)
        create = region('!$omp create task @omp.c:22', RegionRole.TASK_CREATE, 22)
        task = region(TASK, RegionRole.TASK, 22)
        critical = region('!$omp critical @omp.c:27', RegionRole.CRITICAL, 27)
        taskwait = region('!$omp taskwait @omp.c:24', RegionRole.TASK_WAIT, 24)

        lm = d.location(MASTER, type=otf2.LocationType.CPU_THREAD, group=proc)
        lw = d.location(WORKER, type=otf2.LocationType.CPU_THREAD, group=proc)
        wm = trace.event_writer_from_location(lm)
        ww = trace.event_writer_from_location(lw)
        locs = d.group('OpenMP threads', group_type=GroupType.COMM_LOCATIONS,
                       paradigm=Paradigm.OPENMP, group_flags=GroupFlag.NONE,
                       members=[lm, lw])
        team_group = d.group('OpenMP team', group_type=GroupType.COMM_GROUP,
                             paradigm=Paradigm.OPENMP, group_flags=GroupFlag.NONE,
                             members=[0, 1])
        del locs
        team = d.comm('OpenMP team 1', group=team_group)
        E = otf2.events

        def enter(w, t, r):
            w(E.Enter(t, r))

        def leave(w, t, r):
            w(E.Leave(t, r))

        # ---- master ----
        w = wm
        enter(w, 0, main)
        w(E.ThreadFork(100, Paradigm.OPENMP, 2))
        w(E.ThreadTeamBegin(100, team))
        enter(w, 100, p1)
        enter(w, 100, loop)
        enter(w, 110, work)
        leave(w, 250, work)
        leave(w, 260, loop)
        enter(w, 260, ib1)
        leave(w, 300, ib1)
        leave(w, 300, p1)
        w(E.ThreadTeamEnd(300, team))
        w(E.ThreadJoin(300, Paradigm.OPENMP))
        w(E.ThreadFork(400, Paradigm.OPENMP, 2))
        w(E.ThreadTeamBegin(400, team))
        enter(w, 400, p2)
        enter(w, 410, single)
        enter(w, 420, create)
        w(E.ThreadTaskCreate(420, team, 0, 1))
        leave(w, 430, create)
        enter(w, 440, create)
        w(E.ThreadTaskCreate(440, team, 0, 2))
        leave(w, 450, create)
        leave(w, 460, single)
        enter(w, 460, critical)
        w(E.ThreadAcquireLock(470, Paradigm.OPENMP, 7, 1))
        w(E.ThreadReleaseLock(490, Paradigm.OPENMP, 7, 1))
        leave(w, 500, critical)
        enter(w, 500, taskwait)
        w(E.ThreadTaskSwitch(510, team, 0, 2))
        enter(w, 510, task)
        enter(w, 520, work)
        leave(w, 600, work)
        leave(w, 610, task)
        w(E.ThreadTaskComplete(610, team, 0, 2))
        leave(w, 620, taskwait)
        enter(w, 620, b2)
        leave(w, 700, b2)
        enter(w, 700, ib2)
        leave(w, 720, ib2)
        leave(w, 720, p2)
        w(E.ThreadTeamEnd(720, team))
        w(E.ThreadJoin(720, Paradigm.OPENMP))
        leave(w, 800, main)

        # ---- thread 1 ----
        w = ww
        w(E.ThreadTeamBegin(100, team))
        enter(w, 100, p1)
        enter(w, 100, loop)
        enter(w, 110, work)
        leave(w, 170, work)
        leave(w, 180, loop)
        enter(w, 180, ib1)
        leave(w, 300, ib1)
        leave(w, 300, p1)
        w(E.ThreadTeamEnd(300, team))
        w(E.ThreadTeamBegin(400, team))
        enter(w, 400, p2)
        w(E.ThreadTaskSwitch(430, team, 0, 1))
        enter(w, 430, task)
        enter(w, 440, work)
        leave(w, 640, work)
        leave(w, 650, task)
        w(E.ThreadTaskComplete(650, team, 0, 1))
        enter(w, 650, critical)
        w(E.ThreadAcquireLock(660, Paradigm.OPENMP, 7, 2))
        w(E.ThreadReleaseLock(670, Paradigm.OPENMP, 7, 2))
        leave(w, 680, critical)
        enter(w, 680, b2)
        leave(w, 700, b2)
        enter(w, 700, work)
        leave(w, 710, work)
        enter(w, 710, ib2)
        leave(w, 720, ib2)
        leave(w, 720, p2)
        w(E.ThreadTeamEnd(720, team))
    return path + '/traces.otf2' if not path.endswith('.otf2') else path


if __name__ == '__main__':
    import sys
    print(write(sys.argv[1]))


# ---- pthreads: a thread created, a mutex handed over, the thread waited for ----
#
#  Master thread (location 0)                     Pthread thread 1 (location 1)
#  main 0..160
#   pthread_create 10..20, ThreadCreate 15        ThreadBegin 30
#   work 20..50                                   work 30..140
#   pthread_mutex_lock 50..55, acquire 55          pthread_mutex_lock 60..75, acquire 75
#   pthread_mutex_unlock 70..72, release 70        pthread_mutex_unlock 90..92, release 90
#   pthread_join 80..150, ThreadWait 150          ThreadEnd 140
PTHREAD_MAIN, PTHREAD_THREAD = 'Master thread', 'Pthread thread 1'
EXPECTED_PTHREADS = {
    PTHREAD_MAIN: dict(pthread=10 + 5 + 2 + 70, lock_held=15, locks=1, threads_created=1,
                       threads_waited=1, parallel=0, barrier=0),
    PTHREAD_THREAD: dict(pthread=15 + 2, lock_held=15, locks=1, threads_created=0,
                         threads_waited=0, parallel=0, barrier=0),
}


def write_pthreads(path):
    """Writes the pthread trace to path; returns its anchor file."""
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        node = d.system_tree_node('node')
        proc = d.location_group('Process 0', system_tree_parent=node)

        def region(name, role, paradigm=Paradigm.PTHREAD):
            return d.region(name, region_role=role, paradigm=paradigm)
        main = region('main', RegionRole.FUNCTION, Paradigm.USER)
        work = region('work', RegionRole.FUNCTION, Paradigm.USER)
        create = region('pthread_create', RegionRole.THREAD_CREATE)
        join = region('pthread_join', RegionRole.THREAD_WAIT)
        lock = region('pthread_mutex_lock', RegionRole.FUNCTION)
        unlock = region('pthread_mutex_unlock', RegionRole.FUNCTION)
        lm = d.location(PTHREAD_MAIN, type=otf2.LocationType.CPU_THREAD, group=proc)
        lt = d.location(PTHREAD_THREAD, type=otf2.LocationType.CPU_THREAD, group=proc)
        d.group('pthreads', group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.PTHREAD,
                group_flags=GroupFlag.NONE, members=[lm, lt])
        g = d.group('pthread contingent', group_type=GroupType.COMM_GROUP,
                    paradigm=Paradigm.PTHREAD, group_flags=GroupFlag.NONE, members=[0, 1])
        comm = d.comm('pthread contingent', group=g)
        E = otf2.events
        w = trace.event_writer_from_location(lm)
        for ev in (E.Enter(0, main), E.Enter(10, create), E.ThreadCreate(15, comm, 1),
                   E.Leave(20, create), E.Enter(20, work), E.Leave(50, work),
                   E.Enter(50, lock), E.ThreadAcquireLock(55, Paradigm.PTHREAD, 3, 1),
                   E.Leave(55, lock), E.Enter(70, unlock),
                   E.ThreadReleaseLock(70, Paradigm.PTHREAD, 3, 1), E.Leave(72, unlock),
                   E.Enter(80, join), E.ThreadWait(150, comm, 1), E.Leave(150, join),
                   E.Leave(160, main)):
            w(ev)
        w = trace.event_writer_from_location(lt)
        for ev in (E.ThreadBegin(30, comm, 1), E.Enter(30, work), E.Enter(60, lock),
                   E.ThreadAcquireLock(75, Paradigm.PTHREAD, 3, 2), E.Leave(75, lock),
                   E.Enter(90, unlock), E.ThreadReleaseLock(90, Paradigm.PTHREAD, 3, 2),
                   E.Leave(92, unlock), E.Leave(140, work), E.ThreadEnd(140, comm, 1)):
            w(ev)
    return path + '/traces.otf2'


def write_many_tasks(path, n, seed=25):
    """n tasks created by the master at 10 (g - 1) ns (generation g, 1..n, inside a
    TASK_CREATE region of 5 ns), then run in a shuffled order alternately by the worker and the
    master, task k (0...) of that order switched to at 10 (n + k) ns, a TASK region of 5 ns.
    Returns (anchor file, {generation: (thread index, switch time)})."""
    import random
    order = list(range(1, n + 1))
    random.Random(seed).shuffle(order)
    runs = {g: (1 if k % 2 == 0 else 0, 10 * (n + k)) for k, g in enumerate(order)}
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        proc = d.location_group('Process 0', system_tree_parent=d.system_tree_node('node'))
        create = d.region('!$omp create task @t.c:1', region_role=RegionRole.TASK_CREATE,
                          paradigm=Paradigm.OPENMP)
        task = d.region('!$omp task @t.c:1', region_role=RegionRole.TASK,
                        paradigm=Paradigm.OPENMP)
        ls = [d.location(name, type=otf2.LocationType.CPU_THREAD, group=proc)
              for name in (MASTER, WORKER)]
        d.group('OpenMP threads', group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.OPENMP,
                group_flags=GroupFlag.NONE, members=ls)
        g = d.group('OpenMP team', group_type=GroupType.COMM_GROUP, paradigm=Paradigm.OPENMP,
                    group_flags=GroupFlag.NONE, members=[0, 1])
        team = d.comm('OpenMP team 1', group=g)
        E = otf2.events
        ws = [trace.event_writer_from_location(loc) for loc in ls]
        for gen in range(1, n + 1):
            ws[0](E.Enter(10 * (gen - 1), create))
            ws[0](E.ThreadTaskCreate(10 * (gen - 1), team, 0, gen))
            ws[0](E.Leave(10 * (gen - 1) + 5, create))
        for gen in order:
            w, t = ws[runs[gen][0]], runs[gen][1]
            w(E.ThreadTaskSwitch(t, team, 0, gen))
            w(E.Enter(t, task))
            w(E.Leave(t + 5, task))
            w(E.ThreadTaskComplete(t + 5, team, 0, gen))
    return path + '/traces.otf2', runs
