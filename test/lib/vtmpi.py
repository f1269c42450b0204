# SPDX-License-Identifier: BSD-3-Clause
"""MPI helpers of vt's end-to-end tests, on top of vttest.py: build with vtcc over an MPI
compiler wrapper, run under mpirun, read the MPI side of a trace and check it.

A test script does (build_and_run() wraps the usual shape: plain runs, then vt runs)::

    import vtmpi, vttest
    from vtmpi import OPENMPI, Var

    def check(t, run, plain, impl, np, what):
        vtmpi.same_as_plain(t, run, plain, what)  # sorted stdout lines, status, stderr
        vtmpi.clean_run(t, run, what)             # no vt error or warning, no rank left
        tr, mt = vtmpi.trace(t, run, what)        # vttest's checks, then the MPI view
        vtmpi.check_layout(t, tr, mt, what, np)   # one location group per rank, ...
        t.enter_counts(tr.locations[0], {'main': 1, 'MPI_Send': 1, ...}, what)
        W = Var('comm:WORLD')                     # bound on first sight
        vtmpi.match_sequence(t, mt.sequence(0),   # rank 0's MPI events, exactly
                             vtmpi.steps_of(vtmpi.send('MPI_Send', 1, W, 5, 4)), what)
        vtmpi.check_messages(t, mt, what)         # every send has its receive, in time

    vttest.main('prog', lambda t: vtmpi.build_and_run(t, 'prog', ['prog.c'],
                                                      [(OPENMPI, 2)], check))

The contract these helpers encode (issue 3): one archive per run, written collectively, with
one location group "MPI Rank R" (type PROCESS) per rank whose master thread is location R;
MPI functions are regions of paradigm MPI named as the C function; message and collective
events as OTF2 models them, with peers and roots as ranks in the event's communicator, whose
group lists world ranks. python3-otf2 reads events through libotf2's global event reader,
which applies the ClockOffset definitions of each location (checked by test_mpi_selftest.py),
so the times of different ranks compare directly.
"""

import collections
import itertools
import os
import re
import signal
import socket
import subprocess
import sys
import time

import otf2events
import vttest
from vttest import Failure, otf2


class Impl:
    """One MPI implementation as Debian installs it."""

    def __init__(self, name, cc, cxx, launcher, lib, export_env):
        self.name = name
        self.cc = cc  # the C compiler wrapper
        self.cxx = cxx  # the C++ compiler wrapper
        self.launcher = launcher  # mpirun and the options every run needs
        self.lib = lib  # vt's MPI runtime for it: lib<lib>.so
        self.export_env = export_env  # True: mpirun needs -x VAR to pass VAR to the ranks

    def __repr__(self):
        return self.name


# Open MPI refuses to run as root without --allow-run-as-root, and more ranks than cores
# without --oversubscribe. Its mpirun passes variables to the ranks with -x VAR.
OPENMPI = Impl('openmpi', 'mpicc', 'mpicxx',
               ['mpirun', '--allow-run-as-root', '--oversubscribe'], 'vt-mpi', True)
# MPICH's ranks busy-wait: on 2 cores keep to -np 2. Hydra passes the whole environment.
MPICH = Impl('mpich', 'mpicc.mpich', 'mpicxx.mpich', ['mpirun.mpich'], 'vt-mpich', False)

ROOT_NONE = 0xFFFFFFFF  # OTF2_UNDEFINED_UINT32: the root of a rootless collective

# The region roles OTF2 defines for the MPI functions the tests call (as Score-P uses them).
ROLES = {
    'MPI_Send': 'POINT2POINT', 'MPI_Ssend': 'POINT2POINT', 'MPI_Bsend': 'POINT2POINT',
    'MPI_Rsend': 'POINT2POINT', 'MPI_Recv': 'POINT2POINT', 'MPI_Isend': 'POINT2POINT',
    'MPI_Irecv': 'POINT2POINT', 'MPI_Sendrecv': 'POINT2POINT',
    'MPI_Barrier': 'BARRIER',
    'MPI_Bcast': 'COLL_ONE2ALL', 'MPI_Scatter': 'COLL_ONE2ALL',
    'MPI_Reduce': 'COLL_ALL2ONE', 'MPI_Gather': 'COLL_ALL2ONE',
    'MPI_Allreduce': 'COLL_ALL2ALL', 'MPI_Allgather': 'COLL_ALL2ALL',
    'MPI_Alltoall': 'COLL_ALL2ALL',
    'MPI_Scan': 'COLL_OTHER',
}

# Collective operations that create or free a communicator (MPI_Comm_split, _dup, _free may
# or may not record them: OTF2 allows both; the tests take them apart from the others).
HANDLE_OPS = ('CREATE_HANDLE', 'DESTROY_HANDLE', 'CREATE_HANDLE_AND_ALLOCATE',
              'DESTROY_HANDLE_AND_DEALLOCATE')


# ---------------------------------------------------------------------------------------
# Building and running


def runtime_path(impl):
    return os.path.join(vttest.BUILD_ROOT, 'runtime', 'lib%s.so' % impl.lib)


def runtime_built(impl):
    return os.path.exists(runtime_path(impl))


def require_runtime(impl):
    """Raises Failure when vt's MPI runtime for impl is not built."""
    path = runtime_path(impl)
    if not os.path.exists(path):
        raise Failure('vt\'s MPI runtime for %s is not built: no %s' % (impl, path))


def link_flags(impl):
    """What an instrumented MPI program is linked with besides what vtcc adds itself:
    nothing, since vtcc links vt's MPI wrappers of the right MPI by itself when the compiler
    is an MPI wrapper (every MPI test relies on that)."""
    return []


def compile(t, impl, out, sources, lang='c', opt='-O2', flags=(), instrument=True,
            outdir=None):
    """Builds an MPI program with vtcc over impl's wrapper (instrument=False: the wrapper
    alone), with -g; returns its path."""
    wrapper = impl.cc if lang == 'c' else impl.cxx
    extra = ['-g'] + list(flags)
    if instrument:
        extra += link_flags(impl)
    return t.compile(out, sources, lang=lang, compiler=wrapper, opt=opt, flags=extra,
                     instrument=instrument, outdir=outdir)


# The Fortran compiler wrapper of each implementation (gfortran underneath).
FORTRAN = {'openmpi': 'mpif90', 'mpich': 'mpif90.mpich'}


def compile_fortran(t, impl, out, sources, opt='-O2', flags=(), instrument=True, outdir=None):
    """Builds a Fortran MPI program with vtfort over impl's Fortran wrapper (instrument=False:
    the wrapper alone), with -g and vt's MPI runtime; returns its path."""
    extra = ['-g'] + list(flags)
    if instrument:
        extra += link_flags(impl)
    return t.compile(out, sources, lang='fortran', compiler=FORTRAN[impl.name], opt=opt,
                     flags=extra, instrument=instrument, outdir=outdir)


def build_all(t, prog, sources, impls, lang='c', flags=()):
    """Builds prog with and without vt for each of impls, in parallel (the instrumented
    build only when vt's MPI runtime for it is built): {(impl, instrumented): path}."""
    builds = [(impl, inst) for impl in impls for inst in (True, False)]

    def build(b):
        impl, inst = b
        if inst and not runtime_built(impl):
            return None
        return compile(t, impl, prog, sources, lang=lang, flags=flags, instrument=inst)
    return dict(zip(builds, t.parallel(build, builds)))


def build_and_run(t, prog, sources, variants, check, lang='c', flags=(), env=None):
    """The usual shape of a case: builds prog with and without vt for each implementation
    of variants [(impl, np)], runs every uninstrumented build first (status 0, one stdout
    line per rank), then, when vt's MPI runtime is built, every instrumented one, and calls
    check(t, run, plain, impl, np, what) on each."""
    impls = []
    for impl, _ in variants:
        if impl not in impls:
            impls.append(impl)
    exes = build_all(t, prog, sources, impls, lang, flags)
    plains = {}
    for impl, np in variants:
        plain = mpirun(t, impl, np, exes[(impl, False)], env=env,
                       label='plain-%s%d' % (impl, np))
        t.eq((plain.status, len(plain.lines)), (0, np),
             '%s np %d uninstrumented: status 0, one line per rank' % (impl, np))
        plains[(impl, np)] = plain
    for impl, np in variants:
        require_runtime(impl)
        run = mpirun(t, impl, np, exes[(impl, True)], env=env, label='%s%d' % (impl, np))
        check(t, run, plains[(impl, np)], impl, np, '%s np %d' % (impl, np))


class MpiRun(vttest.Run):
    """A run under mpirun: the archive is named after the program, not after mpirun."""

    def __init__(self, impl, np, exe, *args):
        super().__init__(*args)
        self.impl = impl
        self.np = np
        self.exe = exe
        self.leftovers = []  # processes of the run still alive after mpirun ended

    @property
    def prefix(self):
        return self.env.get('VT_FILE_PREFIX') or os.path.basename(self.exe) + '.vt'

    @property
    def lines(self):
        """The ranks' stdout lines, sorted (ranks interleave)."""
        return sorted(self.stdout.splitlines())


def _session_members(sid):
    """PIDs of the live (not zombie) processes of session sid."""
    out = []
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % name) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(')') + 2:].split()
        if len(fields) > 3 and fields[0] != 'Z' and int(fields[3]) == sid:
            out.append(int(name))
    return out


def _cmdline(pid):
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as f:
            return f.read().replace(b'\0', b' ').decode(errors='replace').strip()
    except OSError:
        return '?'


def mpirun(t, impl, np, exe, args=(), env=None, timeout=60, label='run'):
    """Runs exe on np ranks of impl in a fresh working directory with a fresh VT_PFORM_GDIR
    (the conventions of vttest.Test.run: the test's own VT_* variables are dropped, env adds
    variables, None removes one; VT_MPI_GROUPS is ALL unless env says otherwise). mpirun runs in a session of its own: on a timeout the
    whole session is killed, and processes of it still alive 5 s after mpirun ended are
    listed in run.leftovers (and killed)."""
    base = t.newdir(label)
    cwd = os.path.join(base, 'cwd')
    os.makedirs(cwd)
    gdir = os.path.join(base, 'trace')
    os.makedirs(gdir)
    full = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    # Every MPI function recorded (VT_MPI_GROUPS=ALL): the cases pin each region, the
    # queries DEFAULT leaves out too; mpi_groups tests the default (None: unset).
    given = {'VT_PFORM_GDIR': gdir, 'VT_MPI_GROUPS': 'ALL'}
    given.update(env or {})
    for k, v in given.items():
        if v is None:
            full.pop(k, None)
        else:
            full[k] = v
    given = {k: v for k, v in given.items() if v is not None}
    cmd = list(impl.launcher) + ['-np', str(np)]
    if impl.export_env:
        for k in sorted(given):
            cmd += ['-x', k]
    cmd += [exe] + list(args)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                            env=full, universal_newlines=True, errors='replace',
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = proc.communicate()
        for pid in _session_members(proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        raise Failure('timed out after %ds: %s\nstdout: %s\nstderr: %s'
                      % (timeout, ' '.join(cmd), out[-2000:], err[-2000:]))
    run = MpiRun(impl, np, exe, cmd, given, cwd, given.get('VT_PFORM_GDIR', cwd), proc,
                 out, err)
    deadline = time.monotonic() + 5
    left = _session_members(proc.pid)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _session_members(proc.pid)
    for pid in left:
        run.leftovers.append('%d %s' % (pid, _cmdline(pid)))
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    print('run: %s -> status %d' % (run.describe(), run.status))
    for line in err.splitlines()[:20]:
        print('  stderr: %s' % line)
    sys.stdout.flush()
    return run


# ---------------------------------------------------------------------------------------
# Checks on runs


# What differs from run to run in MPI's own messages: "[host:PID]" prefixes, "PID 1234".
_VOLATILE = [(re.compile(r'\[[\w.-]+:\d+\]'), '[HOST:PID]'),
             (re.compile(r'\b(PID|pid) \d+'), r'\1 N')]


def _normalized(lines):
    out = []
    for line in lines:
        for rx, repl in _VOLATILE:
            line = rx.sub(repl, line)
        out.append(line)
    return sorted(out)


def same_as_plain(t, run, plain, what, stderr=True):
    """The ranks' stdout lines (sorted), the exit status and (stderr=True) the program's own
    stderr lines (sorted, with host:PID and PID numbers masked; MPI's messages included)
    are those of the uninstrumented run."""
    t.eq(run.lines, plain.lines, '%s: stdout lines (sorted) as uninstrumented' % what)
    t.eq(run.status, plain.status, '%s: exit status as uninstrumented' % what)
    if stderr:
        t.eq(_normalized(run.program_stderr), _normalized(plain.program_stderr),
             '%s: program\'s own stderr (sorted) as uninstrumented' % what)


# The notices vt prints at the default VT_VERBOSE besides "error: " and "warning: " lines.
NOTICES = [re.compile(r'^trace written to '),
           re.compile(r'^trace \S+ exists; this run writes '),
           re.compile(r'^report written to \S+\.html$')]
# What MPI launchers print about a rank that crashed.
CRASH = re.compile(r'exited on signal|Segmentation fault|core dumped|Bus error|'
                   r'Floating point exception|Killed by signal|KILLED BY SIGNAL')


def messages_well_formed(t, run, what):
    """At the default VT_VERBOSE, vt says only errors, warnings and the contract's notices."""
    bad = [m for m in run.messages if not (m.startswith(('error: ', 'warning: '))
                                           or any(rx.match(m) for rx in NOTICES))]
    t.eq(bad, [], '%s: vt\'s lines are "error: ", "warning: " or the contract\'s notices'
         % what)


def no_crash(t, run, what):
    """No rank died of a signal as far as MPI's launcher reports."""
    bad = [l for l in run.program_stderr if CRASH.search(l)]
    t.eq(bad, [], '%s: mpirun reports no rank killed by a signal' % what)


def clean_run(t, run, what, allow=()):
    """No vt error or warning (but those matching a regex in allow), only the contract's
    kinds of vt lines, no crash, no process left."""
    bad = [m for m in run.errors + run.warnings if not any(re.search(a, m) for a in allow)]
    t.check(not bad, '%s: no vt errors or warnings' % what, repr(bad))
    messages_well_formed(t, run, what)
    no_crash(t, run, what)
    t.eq(run.leftovers, [], '%s: no process of the run outlives mpirun' % what)


def trace(t, run, what, prefix=None):
    """vttest's checks of the trace (balance, readers agree, the one "trace written" line),
    then the MPI view of it: returns (vttest.Trace, MpiTrace)."""
    tr = t.trace(run, what, prefix=prefix)
    try:
        mt = read_mpi(tr.path)
    except Exception as e:
        t.fail('%s: the MPI definitions and events read' % what, repr(e))
        raise Failure('%s: MPI view of the trace unreadable' % what)
    return tr, mt


# ---------------------------------------------------------------------------------------
# The MPI view of a trace

# Fields of each event kind, in the order of the tuples below (and of the patterns).
FIELDS = {
    'MpiSend': ('receiver', 'communicator', 'msg_tag', 'msg_length'),
    'MpiRecv': ('sender', 'communicator', 'msg_tag', 'msg_length'),
    'MpiIsend': ('receiver', 'communicator', 'msg_tag', 'msg_length', 'request_id'),
    'MpiIsendComplete': ('request_id',),
    'MpiIrecvRequest': ('request_id',),
    'MpiIrecv': ('sender', 'communicator', 'msg_tag', 'msg_length', 'request_id'),
    'MpiRequestTest': ('request_id',),
    'MpiRequestCancelled': ('request_id',),
    'MpiCollectiveBegin': (),
    'MpiCollectiveEnd': ('collective_op', 'communicator', 'root', 'size_sent',
                         'size_received'),
    'CommCreate': ('communicator',),
    'CommDestroy': ('communicator',),
    'NonBlockingCollectiveRequest': ('request_id',),
    'NonBlockingCollectiveComplete': ('collective_op', 'communicator', 'root', 'size_sent',
                                      'size_received', 'request_id'),
    # one-sided: windows by reference, groups as their world ranks, enums by name
    'RmaWinCreate': ('win',),
    'RmaWinDestroy': ('win',),
    'RmaCollectiveBegin': (),
    'RmaCollectiveEnd': ('collective_op', 'sync_level', 'win', 'root', 'bytes_sent',
                         'bytes_received'),
    'RmaPut': ('win', 'remote', 'bytes', 'matching_id'),
    'RmaGet': ('win', 'remote', 'bytes', 'matching_id'),
    'RmaAtomic': ('win', 'remote', 'type', 'bytes_sent', 'bytes_received', 'matching_id'),
    'RmaOpCompleteBlocking': ('win', 'matching_id'),
    'RmaOpCompleteNonBlocking': ('win', 'matching_id'),
    'RmaOpCompleteRemote': ('win', 'matching_id'),
    'RmaRequestLock': ('win', 'remote', 'lock_id', 'lock_type'),
    'RmaReleaseLock': ('win', 'remote', 'lock_id'),
    'RmaGroupSync': ('sync_level', 'win', 'group'),
    # MPI-IO: handles by reference, modes by name, flags as numbers
    'IoCreateHandle': ('handle', 'mode', 'creation_flags', 'status_flags'),
    'IoDestroyHandle': ('handle',),
    'IoOperationBegin': ('handle', 'mode', 'operation_flags', 'bytes_request', 'matching_id'),
    'IoOperationIssued': ('handle', 'matching_id'),
    'IoOperationComplete': ('handle', 'bytes_result', 'matching_id'),
    'IoOperationCancelled': ('handle', 'matching_id'),
    'IoSeek': ('handle', 'offset_request', 'whence', 'offset_result'),
}
# Short names of the fields, for messages.
SHORT = {'receiver': 'to', 'sender': 'from', 'communicator': 'comm', 'msg_tag': 'tag',
         'msg_length': 'len', 'request_id': 'req', 'collective_op': 'op', 'root': 'root',
         'size_sent': 'sent', 'size_received': 'recvd'}


def _enum_name(v):
    return str(v).rsplit('.', 1)[-1]


class MpiEvent:
    """One MPI event of a location: kind, time, the innermost open region (and which
    Enter opened it), and the fields of FIELDS[kind] as plain values (communicators by
    reference, the collective operation by name)."""

    def __init__(self, index, kind, time, region, instance, values, entered=None):
        self.index = index  # position among all events of its location
        self.kind = kind
        self.time = time
        self.region = region
        self.instance = instance  # index of the Enter of the innermost open region
        self.entered = entered  # and that Enter's time
        self.values = values

    @property
    def key(self):
        return (self.region, self.kind) + tuple(self.values)

    def field(self, name):
        return self.values[FIELDS[self.kind].index(name)]

    def __repr__(self):
        return fmt_event(self.key)


def fmt_event(key):
    """'MPI_Send: MpiSend(to=1, comm=0, tag=10, len=4)' for a key or a pattern."""
    region, kind = key[0], key[1]
    names = FIELDS.get(kind, ())
    parts = []
    for i, v in enumerate(key[2:]):
        name = SHORT.get(names[i], names[i]) if i < len(names) else '?'
        if v == ROOT_NONE and name == 'root':
            v = 'none'
        parts.append('%s=%s' % (name, v))
    return '%s: %s(%s)' % (region, kind, ', '.join(parts))


class CommDef:
    def __init__(self, ref, name, group_type, paradigm, members):
        self.ref = ref
        self.name = name
        self.group_type = group_type  # 'COMM_GROUP', 'COMM_SELF', 'COMM_LOCATIONS'
        self.paradigm = paradigm
        self.members = members  # world ranks in comm-rank order; None for COMM_SELF

    def __repr__(self):
        return 'Comm(%d, %r, %s, members=%r)' % (self.ref, self.name, self.group_type,
                                                 self.members)


class MpiLoc:
    def __init__(self, ref, name, group, group_type, rank):
        self.ref = ref
        self.name = name
        self.group = group  # the location group's name
        self.group_type = group_type
        self.rank = rank  # from the group name "MPI Rank R"; None if it has another name
        self.events = []  # MpiEvent, in order


class MpiTrace:
    """Definitions and MPI events of a trace."""

    def __init__(self, path):
        self.path = path
        self.groups = []  # (name, type name, [system tree node names, innermost first])
        self.locs = {}  # location ref -> MpiLoc
        self.comms = {}  # comm ref -> CommDef
        self.regions = collections.defaultdict(list)  # name -> [(paradigm, role)]
        self.comm_locations = None  # the MPI COMM_LOCATIONS group: location refs
        self.wins = {}  # RMA window ref -> (name, comm ref)
        self.io_handles = {}  # I/O handle ref -> (name, file name, paradigm name, comm ref)

    def rank_locs(self):
        """{world rank: master location} of the locations whose group is "MPI Rank R"."""
        out = {}
        for loc in self.locs.values():
            if loc.rank is not None and loc.ref == loc.rank:
                out[loc.rank] = loc
        return out

    def loc_of_rank(self, rank):
        loc = self.rank_locs().get(rank)
        if loc is None:
            raise Failure('%s: no location for rank %d' % (self.path, rank))
        return loc

    def sequence(self, rank, skip_handles=True):
        """Rank's MPI events, in order; skip_handles: without the communicator-handle
        collectives (HANDLE_OPS) and CommCreate/CommDestroy (see handle_events)."""
        evs = self.loc_of_rank(rank).events
        if skip_handles:
            handles = set(id(e) for e in self.handle_events(rank))
            evs = [e for e in evs if id(e) not in handles]
        return evs

    def handle_events(self, rank):
        """Rank's events of communicator creation and destruction: CommCreate, CommDestroy
        and the collective Begin/End pairs whose End has an op of HANDLE_OPS."""
        evs = self.loc_of_rank(rank).events
        out = []
        for i, e in enumerate(evs):
            if e.kind in ('CommCreate', 'CommDestroy'):
                out.append(e)
            elif e.kind == 'MpiCollectiveEnd' and e.field('collective_op') in HANDLE_OPS:
                out.append(e)
                # its Begin: the last one before it in the same region instance
                for b in reversed(evs[:i]):
                    if b.kind == 'MpiCollectiveBegin' and b.instance == e.instance:
                        out.append(b)
                        break
        return out

    def comm(self, ref):
        c = self.comms.get(ref)
        if c is None:
            raise Failure('%s: events use communicator %r, which is not defined'
                          % (self.path, ref))
        return c


RANK_GROUP = re.compile(r'^MPI Rank (\d+)$')


def read_mpi(path):
    """Reads the definitions and the MPI events of a trace into an MpiTrace."""
    vttest.require_otf2()
    mt = MpiTrace(path)
    with otf2.reader.open(path, batch_events=10000) as reader:
        defs = reader.definitions
        for r in defs.regions:
            mt.regions[r.name].append((_enum_name(r.paradigm), _enum_name(r.region_role)))
        for g in defs.location_groups:
            chain = []
            node = g.system_tree_parent
            while node is not None and len(chain) < 20:
                chain.append(node.name)
                node = node.parent
            mt.groups.append((g.name, _enum_name(g.location_group_type), chain))
        for l in defs.locations:
            m = RANK_GROUP.match(l.group.name)
            mt.locs[l._ref] = MpiLoc(l._ref, l.name, l.group.name,
                                     _enum_name(l.group.location_group_type),
                                     int(m.group(1)) if m else None)
        world = None
        for g in defs.groups:
            if (_enum_name(g.group_type) == 'COMM_LOCATIONS'
                    and _enum_name(g.paradigm) == 'MPI'):
                world = [m._ref for m in g.members]
        mt.comm_locations = world
        # A position's rank: the masters' positions are the ranks; threads that make MPI
        # calls follow them (a communicator used from threads lists them) and have the
        # rank of their location group.
        rank_of = {}
        for i, ref in enumerate(world or []):
            loc = mt.locs.get(ref)
            rank_of[ref] = loc.rank if loc is not None and ref >= (1 << 32) else i
        for c in defs.comms:
            g = c.group
            gtype = _enum_name(g.group_type)
            if gtype == 'COMM_SELF':
                members = None
            else:
                members = tuple(rank_of.get(m._ref, 'location %d' % m._ref)
                                for m in g.members)
            mt.comms[c._ref] = CommDef(c._ref, c.name, gtype, _enum_name(g.paradigm), members)
        for h in defs.io_handles:
            mt.io_handles[h._ref] = (h.name, h.file.name if h.file is not None else None,
                                     h.io_paradigm.identification if h.io_paradigm else None,
                                     h.comm._ref if h.comm is not None else None)
        for w in defs.rma_wins:
            mt.wins[w._ref] = (w.name, w.comm._ref if w.comm is not None else None)
        # location ref -> [(region, Enter index, Enter time)]
        stacks = collections.defaultdict(list)
        counts = collections.Counter()
        for l, ev in otf2events.events(reader):
            kind = type(ev).__name__
            index = counts[l._ref]
            counts[l._ref] += 1
            stack = stacks[l._ref]
            if kind == 'Enter':
                stack.append((ev.region.name, index, ev.time))
                continue
            if kind == 'Leave':
                if stack:
                    stack.pop()
                continue
            if kind not in FIELDS and not kind.startswith('Mpi'):
                continue
            values = []
            for name in FIELDS.get(kind, ()):
                v = getattr(ev, name)
                if name in ('communicator', 'win', 'handle'):
                    v = v._ref if v is not None else None
                elif name in ('collective_op', 'type', 'lock_type', 'mode', 'whence'):
                    v = _enum_name(v)
                elif name in ('creation_flags', 'status_flags', 'operation_flags'):
                    v = int(getattr(v, 'value', v))
                elif name == 'sync_level':  # flags: PROCESS, MEMORY, both, none
                    v = int(getattr(v, 'value', v))
                    v = '|'.join(n for b, n in ((1, 'PROCESS'), (2, 'MEMORY'))
                                 if v & b) or 'NONE'
                elif name == 'group':
                    v = tuple(rank_of.get(m._ref, 'location %d' % m._ref) for m in v.members)
                values.append(v)
            region, instance, entered = stack[-1] if stack else (None, None, None)
            mt.locs[l._ref].events.append(MpiEvent(index, kind, ev.time, region, instance,
                                                   values, entered))
    return mt


# ---------------------------------------------------------------------------------------
# Patterns of events and matching


class Var:
    """A value a pattern binds on first sight: a request id, a communicator reference.

    The name is 'namespace:label'; within a namespace, different labels must bind
    different values (two pending requests, two communicators)."""

    def __init__(self, name):
        self.name = name
        self.ns = name.split(':', 1)[0]

    def __repr__(self):
        return '?' + self.name


class _Any:
    def __repr__(self):
        return '*'


ANY = _Any()  # a field a pattern does not check


def send(region, to, comm, tag, length):
    return (region, 'MpiSend', to, comm, tag, length)


def recv(region, frm, comm, tag, length):
    return (region, 'MpiRecv', frm, comm, tag, length)


def isend(region, to, comm, tag, length, req):
    return (region, 'MpiIsend', to, comm, tag, length, req)


def isend_complete(region, req):
    return (region, 'MpiIsendComplete', req)


def irecv_request(region, req):
    return (region, 'MpiIrecvRequest', req)


def irecv(region, frm, comm, tag, length, req):
    return (region, 'MpiIrecv', frm, comm, tag, length, req)


def coll(region, op, comm, root=ROOT_NONE, sent=ANY, received=ANY):
    """The two events of one collective: MpiCollectiveBegin, MpiCollectiveEnd."""
    return [(region, 'MpiCollectiveBegin'),
            (region, 'MpiCollectiveEnd', op, comm, root, sent, received)]


def _bind(pattern, key, binding):
    """binding extended so that pattern matches key, or None."""
    if len(pattern) != len(key):
        return None
    b = binding
    for p, g in zip(pattern, key):
        if p is ANY:
            continue
        if isinstance(p, Var):
            if p.name in b:
                if b[p.name] != g:
                    return None
            else:
                if any(k.split(':', 1)[0] == p.ns and v == g for k, v in b.items()):
                    return None
                if b is binding:
                    b = dict(binding)
                b[p.name] = g
        elif p != g:
            return None
    return b


def _show(pattern, binding):
    out = []
    for p in pattern:
        if isinstance(p, Var) and p.name in binding:
            out.append(binding[p.name])
        else:
            out.append(p)
    return fmt_event(out)


def match_steps(steps, events, binding=None):
    """Matches events (MpiEvent or keys) against steps: a list of lists of patterns, the
    patterns of one step in any order, the steps in order. Returns (binding, None) or
    (binding so far, what differs)."""
    binding = dict(binding or {})
    keys = [e.key if isinstance(e, MpiEvent) else tuple(e) for e in events]
    pos = 0
    for n, step in enumerate(steps):
        got = keys[pos:pos + len(step)]
        found = None
        if len(got) == len(step):
            for perm in itertools.permutations(got):
                b = binding
                for p, g in zip(step, perm):
                    b = _bind(p, g, b)
                    if b is None:
                        break
                if b is not None:
                    found = b
                    break
        if found is None:
            return binding, ('step %d (%s): expected %s, got %s; %d events matched before'
                             % (n + 1, 'in order' if len(step) == 1 else 'in any order',
                                [_show(p, binding) for p in step],
                                [fmt_event(g) for g in got], pos))
        binding = found
        pos += len(step)
    if pos != len(keys):
        return binding, ('all %d expected events matched, then %d more: %s'
                         % (pos, len(keys) - pos, [fmt_event(k) for k in keys[pos:pos + 8]]))
    return binding, None


def steps_of(*parts):
    """Builds steps: a tuple is one ordered pattern, a list of tuples is a step in any
    order, a list of lists (what coll() returns, in a list) is spliced in order."""
    out = []
    for p in parts:
        if isinstance(p, tuple):
            out.append([p])
        elif p and isinstance(p[0], list):
            out.extend(p)
        else:
            out.append(list(p))
    return out


def match_sequence(t, events, steps, what, binding=None):
    """Check: events match steps exactly (see match_steps). Returns the binding."""
    b, problem = match_steps(steps, events, binding)
    t.check(problem is None, '%s: MPI events exactly as expected (%d)'
            % (what, sum(len(s) for s in steps)), problem or '')
    return b


# ---------------------------------------------------------------------------------------
# Checks on the MPI view


def check_layout(t, tr, mt, what, np):
    """One location group "MPI Rank R" (PROCESS) per rank, under the host's system tree
    node; rank R's master thread is location R, "Master thread"; the MPI COMM_LOCATIONS
    group lists them in rank order; no other location groups."""
    host = socket.gethostname()
    names = sorted(g[0] for g in mt.groups)
    t.eq(names, sorted('MPI Rank %d' % r for r in range(np)),
         '%s: one location group per rank' % what)
    t.eq(sorted(set(g[1] for g in mt.groups)), ['PROCESS'],
         '%s: location groups are of type PROCESS' % what)
    bad = [(g[0], g[2]) for g in mt.groups if host not in g[2]]
    t.check(not bad, '%s: location groups are below the system tree node %r' % (what, host),
            repr(bad[:4]))
    masters = sorted((l.ref, l.name, l.group) for l in mt.locs.values() if l.ref < (1 << 32))
    t.eq(masters, [(r, 'Master thread', 'MPI Rank %d' % r) for r in range(np)],
         '%s: rank R\'s master thread is location R in group "MPI Rank R"' % what)
    t.eq(mt.comm_locations, list(range(np)),
         '%s: the MPI COMM_LOCATIONS group lists the ranks\' master threads in order' % what)
    threads = [(l.ref, l.group) for l in mt.locs.values() if l.ref >= (1 << 32)]
    bad = [(ref, g) for ref, g in threads if g != 'MPI Rank %d' % (ref & 0xffffffff)]
    t.eq(bad, [], '%s: other threads are in their rank\'s group, ref (i << 32) | R' % what)


def check_regions(t, mt, what, names):
    """The regions names (MPI functions) are defined once each, with paradigm MPI and, where
    ROLES knows the function, its role."""
    for name in names:
        got = mt.regions.get(name, [])
        ok = (len(got) == 1 and got[0][0] == 'MPI'
              and (name not in ROLES or got[0][1] == ROLES[name]))
        t.check(ok, '%s: region %s defined once, paradigm MPI%s'
                % (what, name, ', role ' + ROLES[name] if name in ROLES else ''),
                'got (paradigm, role) %r' % got)


def check_no_mpi(t, mt, tr, what):
    """No MPI event and no region of paradigm MPI or named MPI_* entered."""
    evs = [(l.rank, e) for l in mt.locs.values() for e in l.events]
    t.eq(evs[:5], [], '%s: no MPI events' % what)
    entered = set(tr.enters())
    mpi_regions = sorted(n for n, defs in mt.regions.items()
                         if n in entered and (n.startswith(('MPI_', 'PMPI_'))
                                              or any(p == 'MPI' for p, _ in defs)))
    t.eq(mpi_regions, [], '%s: no MPI function entered' % what)


def messages(mt):
    """Pairs every send with its receive: MPI's non-overtaking rule matches the n-th send
    from A to B on a communicator with a tag to the n-th receive B posted for it (receives
    by the order of posting: MpiIrecv by its MpiIrecvRequest).

    Returns (pairs [(send, recv)], unmatched sends, unmatched receives, problems); sends
    and receives are (world src, world dst, comm, tag, length, time, what)."""
    problems = []
    sends = collections.defaultdict(list)
    recvs = collections.defaultdict(list)
    for loc in mt.locs.values():
        me = loc.rank
        posted = {}  # request id -> index of its MpiIrecvRequest
        for e in loc.events:
            if e.kind == 'MpiIrecvRequest':
                posted[e.field('request_id')] = e.index
            if e.kind not in ('MpiSend', 'MpiIsend', 'MpiRecv', 'MpiIrecv'):
                continue
            c = mt.comms.get(e.field('communicator'))
            desc = 'rank %s %r at %d' % (me, e, e.time)
            if c is None:
                problems.append('%s: communicator not defined' % desc)
                continue
            members = c.members if c.members is not None else (me,)
            if me not in members:
                problems.append('%s: rank %s is not a member of %r' % (desc, me, c))
                continue
            peer = e.field('receiver' if e.kind in ('MpiSend', 'MpiIsend') else 'sender')
            if not 0 <= peer < len(members):
                problems.append('%s: peer %d is not a rank of %r' % (desc, peer, c))
                continue
            tag, length = e.field('msg_tag'), e.field('msg_length')
            if e.kind in ('MpiSend', 'MpiIsend'):
                sends[(me, members[peer], c.ref, tag)].append((e.index, length, e.time, desc))
            else:
                order = e.index
                if e.kind == 'MpiIrecv':
                    order = posted.get(e.field('request_id'))
                    if order is None:
                        problems.append('%s: no MpiIrecvRequest with this request id before'
                                        % desc)
                        order = e.index
                recvs[(members[peer], me, c.ref, tag)].append((order, length, e.time, desc))
    pairs, lone_sends, lone_recvs = [], [], []
    for key in set(sends) | set(recvs):
        s = sorted(sends.get(key, []))
        r = sorted(recvs.get(key, []))
        for a, b in zip(s, r):
            pairs.append((key + a[1:], key + b[1:]))
        lone_sends += [key + a[1:] for a in s[len(r):]]
        lone_recvs += [key + b[1:] for b in r[len(s):]]
    return pairs, lone_sends, lone_recvs, problems


def clock_offsets(path):
    """{location ref: [(time, offset, standard deviation)]}: the ClockOffset definitions of
    each location's local definitions, read with libotf2's own reader (python3-otf2 applies
    them to timestamps but does not show them)."""
    import _otf2  # python3-otf2's binding of libotf2, there when otf2 is
    with otf2.reader.open(path) as reader:
        refs = [l._ref for l in reader.definitions.locations]
    out = {ref: [] for ref in refs}
    h = _otf2.Reader_Open(path)
    try:
        _otf2.Reader_SetSerialCollectiveCallbacks(h)
        for ref in refs:
            _otf2.Reader_SelectLocation(h, ref)
        _otf2.Reader_OpenDefFiles(h)
        for ref in refs:
            dr = _otf2.Reader_GetDefReader(h, ref)
            cb = _otf2.DefReaderCallbacks_New()

            def offset(user, ts, off, stddev, lst=out[ref]):
                lst.append((ts, off, stddev))
                return _otf2.CALLBACK_SUCCESS
            _otf2.DefReaderCallbacks_SetClockOffsetCallback(cb, offset)
            _otf2.DefReader_SetCallbacks(dr, cb, None)
            _otf2.DefReaderCallbacks_Delete(cb)
            _otf2.Reader_ReadAllLocalDefinitions(h, dr)
            _otf2.Reader_CloseDefReader(h, dr)
        _otf2.Reader_CloseDefFiles(h)
    finally:
        _otf2.Reader_Close(h)
    return out


def check_messages(t, mt, what, count=None):
    """Every send (MpiSend, MpiIsend) has exactly one receive (MpiRecv, MpiIrecv) on the
    same communicator between the same ranks with the same tag and length, and no receive
    is recorded before its send began; count: how many messages there must be.

    Ranks on other hosts than rank 0's have measured clock offsets, each with its
    uncertainty (the ClockOffset's standard deviation: half the interval the round trips
    bound the offset to). Between two such ranks a receive may appear early by at most the
    sum of their uncertainties, and never more; ranks that read rank 0's clock have none."""
    pairs, lone_sends, lone_recvs, problems = messages(mt)
    t.eq(problems, [], '%s: message events name defined communicators and ranks' % what)
    t.eq([s[-1] for s in lone_sends], [], '%s: every send has its receive' % what)
    t.eq([r[-1] for r in lone_recvs], [], '%s: every receive has its send' % what)
    if count is not None:
        t.eq(len(pairs), count, '%s: %d messages' % (what, count))
    bad = ['%s / %s' % (s[-1], r[-1]) for s, r in pairs if s[4] != r[4]]
    t.eq(bad, [], '%s: every message has the same length at both ends' % what)
    early = [(s, r) for s, r in pairs if r[5] < s[5]]
    unc = collections.defaultdict(float)
    if early:
        for ref, offs in clock_offsets(mt.path).items():
            rank = mt.locs[ref].rank if ref in mt.locs else None
            for _, _, stddev in offs:
                unc[rank] = max(unc[rank], stddev)
    bad = ['%s / %s: %d ticks early, uncertain by %d' % (
        s[-1], r[-1], s[5] - r[5], unc[s[0]] + unc[r[1]])
           for s, r in early if s[5] - r[5] > unc[s[0]] + unc[r[1]]]
    t.check(not bad, '%s: no receive before its send began (%d messages, %d early within '
            'the clock offsets\' uncertainty)' % (what, len(pairs), len(early) - len(bad)),
            '; '.join(bad[:5]))


def collectives(mt, skip_handles=True):
    """{comm ref: {world rank: [(op, root, begin time, end time, sent, received)]}}."""
    out = collections.defaultdict(dict)
    for loc in mt.locs.values():
        if loc.rank is None:
            continue
        begin = None
        mine = collections.defaultdict(list)
        for e in loc.events:
            if e.kind == 'MpiCollectiveBegin':
                begin = e.time
            elif e.kind == 'MpiCollectiveEnd':
                op = e.field('collective_op')
                if not (skip_handles and op in HANDLE_OPS):
                    mine[e.field('communicator')].append(
                        (op, e.field('root'), begin, e.time, e.field('size_sent'),
                         e.field('size_received')))
                begin = None
        for c, lst in mine.items():
            out[c][loc.rank] = lst
    return out


def check_collective_pairs(t, mt, what):
    """Every MpiCollectiveBegin is followed by its MpiCollectiveEnd in the same region
    instance, before any other collective event; a Begin right after its call's Enter has
    the Enter's time (the call's beginning, one clock read for both)."""
    bad = []
    for loc in mt.locs.values():
        open_ = None
        for e in loc.events:
            if e.kind == 'MpiCollectiveBegin':
                if open_ is not None:
                    bad.append('rank %s: %r while %r is open' % (loc.rank, e, open_))
                if e.index == e.instance + 1 and e.time != e.entered:
                    bad.append('rank %s: %r at %d, its call entered at %d'
                               % (loc.rank, e, e.time, e.entered))
                open_ = e
            elif e.kind == 'MpiCollectiveEnd':
                if open_ is None or open_.instance != e.instance:
                    bad.append('rank %s: %r without its Begin in the same region'
                               % (loc.rank, e))
                open_ = None
        if open_ is not None:
            bad.append('rank %s: %r never ends' % (loc.rank, open_))
    t.eq(bad[:5], [], '%s: collective Begin/End pairs well formed' % what)


def check_collective_times(t, mt, what):
    """The ranks of a communicator take part in its collectives in the same order with the
    same op and root, and the clocks agree with what the operation implies: nobody leaves
    a barrier, an all-to-all or an allreduce before everybody entered; nobody ends a
    one-to-all before the root began; the root ends an all-to-one after everybody began;
    scan rank i after ranks 0..i began."""
    problems = []
    checked = 0
    for cref, per_rank in sorted(collectives(mt).items()):
        c = mt.comms.get(cref)
        if c is None:
            problems.append('communicator %r not defined' % cref)
            continue
        members = c.members if c.members is not None else tuple(per_rank)
        if c.members is None:  # COMM_SELF: each rank alone
            continue
        missing = [r for r in members if r not in per_rank]
        lens = {r: len(per_rank.get(r, [])) for r in members}
        if len(set(lens.values())) != 1:
            problems.append('comm %d: members took part in different numbers of '
                            'collectives: %r' % (cref, lens))
            continue
        if missing:
            continue  # no collectives on it at all
        for k in range(lens[members[0]]):
            inst = [per_rank[r][k] for r in members]  # by comm rank
            ops = set((i[0], i[1]) for i in inst)
            if len(ops) != 1:
                problems.append('comm %d collective %d: op/root differ: %r' % (cref, k, inst))
                continue
            op, root = inst[0][0], inst[0][1]
            begins = [i[2] for i in inst]
            ends = [i[3] for i in inst]
            if None in begins:
                problems.append('comm %d collective %d (%s): a rank has no Begin'
                                % (cref, k, op))
                continue
            checked += 1
            if op in ('BARRIER', 'ALLREDUCE', 'ALLGATHER', 'ALLGATHERV', 'ALLTOALL',
                      'ALLTOALLV', 'ALLTOALLW', 'REDUCE_SCATTER', 'REDUCE_SCATTER_BLOCK'):
                need = [(i, j) for i in range(len(inst)) for j in range(len(inst))]
            elif op in ('BCAST', 'SCATTER', 'SCATTERV') and root < len(inst):
                need = [(i, root) for i in range(len(inst))]
            elif op in ('REDUCE', 'GATHER', 'GATHERV') and root < len(inst):
                need = [(root, j) for j in range(len(inst))]
            elif op == 'SCAN':
                need = [(i, j) for i in range(len(inst)) for j in range(i + 1)]
            elif op == 'EXSCAN':
                need = [(i, j) for i in range(len(inst)) for j in range(i)]
            else:
                need = []
            for i, j in need:  # rank i's End is not before rank j's Begin
                if ends[i] < begins[j]:
                    problems.append('comm %d collective %d (%s): comm rank %d ended at %d, '
                                    '%d ticks before comm rank %d began'
                                    % (cref, k, op, i, ends[i], begins[j] - ends[i], j))
    t.check(not problems, '%s: collectives agree across ranks, in time (%d checked)'
            % (what, checked), '; '.join(problems[:5]))


def check_handle_events(t, mt, rank, what, regions):
    """Rank's communicator creation/destruction events (if the runtime records them: OTF2
    allows both) are only inside regions, with ops of HANDLE_OPS. Returns them."""
    evs = mt.handle_events(rank)
    bad = [e for e in evs if e.region not in regions]
    t.eq(bad, [], '%s: communicator-handle events only inside %s' % (what, ', '.join(regions)))
    if evs:
        t.note('%s: communicator-handle events recorded: %r' % (what, evs))
    return evs


def kind_counts(events):
    return dict(collections.Counter(e.kind if isinstance(e, MpiEvent) else e[1]
                                    for e in events))


def pattern_kinds(steps):
    return dict(collections.Counter(p[1] for s in steps for p in s))
