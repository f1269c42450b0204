#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Generates the wrappers of the Fortran MPI entry points from mpi.spec (at build time).
"""Generates vt's wrappers of the Fortran MPI entry points from mpi.spec.

Usage: gen-fortran.py SPEC OUTPUT {openmpi|mpich} LIB... -- HEADER...

Each wrapper enters the region of the C function (the descriptor the C wrappers define),
records the events with the C hooks of vt_mpi_hooks.h on handles and counts converted to C,
and calls MPI's own Fortran entry point with the caller's arguments. Which entry points need
a wrapper depends on what they call (found with objdump in Open MPI 4.1 and MPICH 4.0):

  Open MPI   mpif.h, use mpi   mpi_send_ (and mpi_send, mpi_send__, MPI_SEND: one function)
                               calls PMPI_Send; wrapped, forwarded to pmpi_send_.
             use mpi_f08       mpi_send_f08_ calls the mpif.h code; wrapped, forwarded to
                               pmpi_send_f08_.
  MPICH      mpif.h, use mpi   mpi_send_ calls the C MPI_Send: seen by the C wrappers.
             use mpi_f08       procedures with a choice buffer (mpi_send_f08ts_) call the
                               C MPI_Send: seen by the C wrappers; the others (mpi_wait_f08_)
                               call PMPI_Wait: wrapped, forwarded to mpi_wait_f08_ itself
                               (MPICH exports no pmpi_*_f08_).

MPI's entry point is looked up at the first call (dlsym RTLD_NEXT, else in its library by
soname), so vt links no Fortran library.

The symbols come from LIB (nm -D): a function is wrapped in a binding only when the library
defines its entry point (and PMPI entry point), so a name MPI lacks is skipped.
"""

import importlib.util
import os
import re
import subprocess
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location('gen_wrappers',
                                               os.path.join(_here, 'gen-wrappers.py'))
gw = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gw)

HANDLES = ('MPI_Comm', 'MPI_Datatype', 'MPI_Op', 'MPI_Group', 'MPI_Info', 'MPI_Request',
           'MPI_Message', 'MPI_Win', 'MPI_File', 'MPI_Errhandler')
F2C = {h: h + '_f2c' for h in HANDLES}
F2C['MPI_Datatype'] = 'MPI_Type_f2c'


def fail(msg):
    sys.stderr.write('gen-fortran.py: %s\n' % msg)
    sys.exit(1)


def soname(lib):
    p = subprocess.run(['objdump', '-p', lib], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    m = re.search(r'^\s*SONAME\s+(\S+)', p.stdout, re.M)
    if p.returncode != 0 or not m:
        fail('objdump -p %s: no SONAME' % lib)
    return m.group(1)


def symbols(libs):
    """{symbol: soname of the library that defines it} of the functions of libs."""
    out = {}
    for lib in libs:
        name = soname(lib)
        p = subprocess.run(['nm', '-D', '--defined-only', lib], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        if p.returncode != 0:
            fail('nm -D %s: %s' % (lib, p.stderr.strip()))
        for line in p.stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'TWi':
                out.setdefault(parts[2], name)
    return out


class Param:
    """One C parameter and how a Fortran caller passes it (always by reference)."""

    def __init__(self, decl, name):
        self.decl, self.name = decl, name
        base = decl[:decl.rfind(name)]
        self.array = '[' in decl[decl.rfind(name):]
        self.ptr = base.count('*') + (1 if self.array else 0)
        words = re.findall(r'\w+', base)
        self.type = next((w for w in words if w not in ('const', 'struct')), '')
        if self.type == 'char':
            self.kind = 'char'
        elif self.type == 'void':
            self.kind = 'buf'
        elif self.type in HANDLES:
            self.kind = 'handle' if self.ptr == 0 else (
                'handle_array' if self.array else 'handle_ptr')
        elif self.type == 'int':
            self.kind = 'int' if self.ptr == 0 else 'intp'
        elif self.type == 'MPI_Status':
            self.kind = 'status'
        else:
            self.kind = 'other'


def fortran_params(params):
    """The Fortran-side parameter list: every argument a pointer, then ierror, then the
    hidden lengths of CHARACTER arguments (gfortran passes them as size_t, at the end)."""
    decl = ['void *%s' % p.name for p in params] + ['MPI_Fint *ierr']
    args = [p.name for p in params] + ['ierr']
    for p in params:
        if p.kind == 'char':
            decl.append('size_t %s_len' % p.name)
            args.append('%s_len' % p.name)
    return decl, args


class Binding:
    def __init__(self, name, tag, suffix, forward, aliases=()):
        self.name = name  # for comments
        self.tag = tag  # VTF_FH or VTF_F08
        self.suffix = suffix  # mpi_send + suffix is the entry point
        self.forward = forward  # 'pmpi': call pmpi_NAME; 'next': the next mpi_NAME
        self.aliases = aliases  # functions: lower-case name -> other names to export


def bindings(mpi, syms):
    if mpi == 'openmpi':
        return [Binding('mpif.h and use mpi', 'VTF_FH', '_', 'pmpi',
                        lambda lc: [n for n in (lc, lc + '__', lc.upper()) if n in syms]),
                Binding('use mpi_f08', 'VTF_F08', '_f08_', 'pmpi')]
    if mpi == 'mpich':
        return [Binding('use mpi_f08 (procedures without a choice buffer)', 'VTF_F08',
                        '_f08_', 'next')]
    fail('unknown MPI %r (openmpi or mpich)' % mpi)


class Writer:
    def __init__(self, binding):
        self.b = binding
        self.out = []

    def emit(self, *lines):
        self.out.extend(lines)

    def begin(self, sym, ret, decl, args, syms):
        """Declares the forward target of sym; returns the expression that calls it.

        MPI's entry point is looked up at the first call, after vt in the lookup order, else
        in its library, loaded then: vt links no Fortran library (MPICH's needs the Fortran
        runtime), and a linker with --as-needed drops MPI's Fortran library from a program
        whose every MPI call vt defines."""
        target = 'p' + sym if self.b.forward == 'pmpi' else sym
        proto = ', '.join(decl) or 'void'
        self.emit('typedef %s vtf_fn_%s(%s);' % (ret, sym, proto),
                  'static vtf_fn_%s *vtf_next_%s;' % (sym, sym),
                  'static vtf_fn_%s *vtf_get_%s(void)' % (sym, sym),
                  '{',
                  '\tvtf_fn_%s *f = __atomic_load_n(&vtf_next_%s, __ATOMIC_RELAXED);'
                  % (sym, sym),
                  '\tif (!f) {',
                  '\t\tvoid *p = vtf_next("%s", "%s");' % (target, syms[target]),
                  '\t\tmemcpy(&f, &p, sizeof(f));',
                  '\t\t__atomic_store_n(&vtf_next_%s, f, __ATOMIC_RELAXED);' % sym,
                  '\t}',
                  '\treturn f;',
                  '}')
        return 'vtf_get_%s()(%%s)' % sym

    def head(self, sym, ret, decl):
        # MPI's headers declare no Fortran entry points: the prototype is the wrapper's own.
        proto = '%s %s(%s)' % (ret, sym, ', '.join(decl) or 'void')
        self.emit('VTW_EXPORT %s;' % proto, 'VTW_EXPORT ' + proto)

    def aliases(self, sym, lc, ret, decl):
        if self.b.aliases:
            for a in self.b.aliases(lc):
                if a != sym:
                    self.emit('VTW_EXPORT %s %s(%s) __attribute__((alias("%s")));'
                              % (ret, a, ', '.join(decl) or 'void', sym))


def conversions(name, params):
    """C locals for the hook's arguments: (before the call, after the call, C args)."""
    pre, post, cargs, frees = [], [], [], []
    for p in params:
        c = 'c_' + p.name
        f = p.name
        if p.kind == 'buf':
            pre.append('void *%s = vtf_buf(%s);' % (c, f))
        elif p.kind == 'int':
            pre.append('int %s = *(MPI_Fint *)%s;' % (c, f))
        elif p.kind == 'intp':
            pre.append('int *%s = (int *)%s;' % (c, f))
        elif p.kind == 'handle':
            pre.append('%s %s = %s(*(MPI_Fint *)%s);' % (p.type, c, F2C[p.type], f))
        elif p.kind == 'handle_ptr':
            # Read before (MPI_Comm_free, MPI_Start) and after (new communicators, requests).
            pre.append('%s %s = %s(*(MPI_Fint *)%s);' % (p.type, c, F2C[p.type], f))
            post.append('%s = %s(*(MPI_Fint *)%s);' % (c, F2C[p.type], f))
            c = '&' + c
        elif p.kind == 'handle_array' and p.type in ('MPI_Request', 'MPI_Datatype'):
            if 'lltoallw' in name:  # one type per rank, or per neighbour
                comm = next(q for q in params if q.type == 'MPI_Comm')
                n = '%s(MPI_Comm_f2c(*(MPI_Fint *)%s))' % (
                    'vtw_neighbor_max' if 'eighbor' in name else 'vtw_comm_size', comm.name)
            else:
                n = 'c_' + next(q for q in params if q.kind == 'int').name
            fn = 'vtf_requests' if p.type == 'MPI_Request' else 'vtf_types'
            pre.append('%s *%s = %s(%s, %s);' % (p.type, c, fn, n, f))
            frees.append(c)
        elif p.kind == 'status' and p.ptr == 1:
            # Read by no hook but MPI-IO's, which then counts the bytes requested as done
            pre.append('MPI_Status *%s = NULL;' % c)
        elif p.kind == 'char' and p.ptr == 1:
            # A CHARACTER argument: its hidden length follows the others; blanks trimmed.
            pre.append('char *%s = vtf_str(%s, %s_len);' % (c, f, f))
            frees.append(c)
        elif p.kind == 'other' and p.ptr == 0 and p.type in ('MPI_Aint', 'MPI_Offset',
                                                             'MPI_Count'):
            # INTEGER(KIND=MPI_ADDRESS_KIND / MPI_OFFSET_KIND / MPI_COUNT_KIND), by reference
            pre.append('%s %s = *(%s *)%s;' % (p.type, c, p.type, f))
        elif p.kind == 'other' and p.ptr == 1 and p.type == 'MPI_Aint':
            # displacements: INTEGER(KIND=MPI_ADDRESS_KIND) is an MPI_Aint
            pre.append('const MPI_Aint *%s = (const MPI_Aint *)%s;' % (c, f))
        else:
            return None
        cargs.append(c)
    return pre, post, cargs, frees


def hooked(w, name, hook, group, sym, lc, params, call):
    decl, args = fortran_params(params)
    conv = conversions(name, params)
    if conv is None:
        fail('%s: a parameter gen-fortran.py cannot convert for hook %s' % (name, hook))
    pre, post, cargs, frees = conv
    fwd = call % ', '.join(args)
    fwd_e = call % ', '.join(a if a != 'ierr' else 'vtf_e' for a in args)
    w.head(sym, 'void', decl)
    # as gen-wrappers.py: a hook that keeps state runs whenever tracing, its region as its group
    state = hook in gw.STATE_HOOKS
    w.emit('{',
           '\tif (!vtw_tracing()) {' if state else '\tif (!(vtw_on & %s)) {' % gw.group_bit(group),
           '\t\t%s;' % fwd,
           '\t\treturn;',
           '\t}',
           '\tMPI_Fint vtf_own = MPI_SUCCESS, *vtf_e = ierr ? ierr : &vtf_own;')
    ok = ' && '.join('%s != NULL' % c for c in frees) or '1'
    ca = ', '.join(cargs)
    if ':' in hook:
        # A collective (gen-wrappers.py's collective()): measured after the call.
        kind, measure = gw.collective_hook(name, hook)
        margs = ', '.join(cargs[:len(cargs) - gw.COLL_KINDS[kind]])
        # The arguments converted first: the Enter's time is when the call began.
        w.emit(*['\t' + l for l in pre])
        w.emit('\tint vtf_ok = %s;' % ok,
               '\tuint64_t vtw_t0 = vt_mpi_enter(&vtw_desc_%s);' % name,
               '\t%s;' % fwd_e)
        w.emit(*['\t' + l for l in post])
        w.emit('\tif (vtf_ok && *vtf_e == MPI_SUCCESS)')
        if kind == 'coll':
            w.emit('\t\tvtw_coll_done(vtw_t0, vtw_m_%s(%s));' % (measure, margs))
        else:
            w.emit('\t\tvtw_nbc_issued(%s, vtw_m_%s(%s), %d, vtw_t0);'
                   % (cargs[-1].lstrip('&'), measure, margs, kind == 'pcoll'))
            w.emit(*['\t(void)%s;' % c.lstrip('&') for c in cargs[len(cargs) - gw.COLL_KINDS[kind]:-1]])
        w.emit(*['\tfree(%s);' % c for c in frees])
        w.emit('\tvt_inst_exit(&vtw_desc_%s);' % name, '}')
        return
    if state:
        w.emit('\tvtw_rec_enter(%s, &vtw_desc_%s);' % (gw.group_bit(group), name))
    elif hook in gw.T0_HOOKS:
        # the pre hook takes the Enter's time (gen-wrappers.py)
        w.emit('\tuint64_t vtw_t0 = vt_mpi_enter(&vtw_desc_%s);' % name)
    else:
        w.emit('\tvt_inst_enter(&vtw_desc_%s);' % name)
    w.emit(*['\t' + l for l in pre])
    t0 = 'vtw_t0, ' if hook in gw.T0_HOOKS else ''
    w.emit('\tint vtf_ok = %s;' % ok,
           '\tstruct vtw_call vtw_call = vtw_none;',
           '\tif (vtf_ok)',
           '\t\tvtw_call = vtw_%s_pre(%s%s);' % (hook, t0, ca),
           '\t%s;' % fwd_e)
    w.emit(*['\t' + l for l in post])
    w.emit('\tif (vtf_ok)',
           '\t\tvtw_%s_post(&vtw_call, *vtf_e%s);' % (hook, ', ' + ca if ca else ''))
    w.emit(*['\tfree(%s);' % c for c in frees])
    if state:
        w.emit('\tvtw_rec_exit(%s, &vtw_desc_%s);' % (gw.group_bit(group), name), '}')
    else:
        w.emit('\tvt_inst_exit(&vtw_desc_%s);' % name, '}')


def region_only(w, name, ret, group, sym, params, call):
    if ret == 'double':  # MPI_Wtime, MPI_Wtick: Fortran functions without ierror
        w.head(sym, 'double', [])
        w.emit('{',
               '\tif (!(vtw_on & %s))' % gw.group_bit(group),
               '\t\treturn %s;' % (call % ''),
               '\tvt_inst_enter(&vtw_desc_%s);' % name,
               '\tdouble vtf_r = %s;' % (call % ''),
               '\tvt_inst_exit(&vtw_desc_%s);' % name,
               '\treturn vtf_r;',
               '}')
        return
    decl, args = fortran_params(params)
    fwd = call % ', '.join(args)
    w.head(sym, 'void', decl)
    w.emit('{',
           '\tif (!(vtw_on & %s)) {' % gw.group_bit(group),
           '\t\t%s;' % fwd,
           '\t\treturn;',
           '\t}',
           '\tvt_inst_enter(&vtw_desc_%s);' % name,
           '\t%s;' % fwd,
           '\tvt_inst_exit(&vtw_desc_%s);' % name,
           '}')


# The hand-written C wrappers (vt_mpi_req.c, vt_mpi_init.c), for Fortran: (Fortran
# arguments, body). In the body, FWD(...) is the call of MPI's entry point, B the binding,
# E the ierror to read.
MANUAL = {
    'MPI_Init': (['ierr'], '''
	vtw_mpitrace = vt_mpi_trace_enabled();
	if (vtw_tracing())
		vt_inst_enter(&vtw_desc_MPI_Init);
	FWD(E);
	if (*E == MPI_SUCCESS)
		vtw_initialized();
	if (vtw_tracing())
		vt_inst_exit(&vtw_desc_MPI_Init);
'''),
    'MPI_Init_thread': (['required', 'provided', 'ierr'], '''
	vtw_mpitrace = vt_mpi_trace_enabled();
	if (vtw_tracing())
		vt_inst_enter(&vtw_desc_MPI_Init_thread);
	FWD(required, provided, E);
	if (*E == MPI_SUCCESS)
		vtw_initialized();
	if (vtw_tracing())
		vt_inst_exit(&vtw_desc_MPI_Init_thread);
'''),
    # The trace is written here, as by the C MPI_Finalize; its Leave is the end of the trace.
    'MPI_Finalize': (['ierr'], '''
	if (vtw_tracing())
		vt_inst_enter(&vtw_desc_MPI_Finalize);
	vtw_finalizing();
	FWD(ierr);
'''),
    # This rank's archive of its own, as by the C MPI_Abort (the other ranks do not take part).
    'MPI_Abort': (['comm', 'errorcode', 'ierr'], '''
	if (vtw_tracing())
		vt_inst_enter(&vtw_desc_MPI_Abort);
	vtw_aborting(*(MPI_Fint *)errorcode);
	FWD(comm, errorcode, ierr);
'''),
    'MPI_Recv': (['buf', 'count', 'datatype', 'source', 'tag', 'comm', 'status', 'ierr'], '''
	TRACING_OR(buf, count, datatype, source, tag, comm, status, ierr);
	struct vtf_statuses s;
	void *st = vtf_statuses_begin(&s, B, status, 1);
	vt_inst_enter(&vtw_desc_MPI_Recv);
	FWD(buf, count, datatype, source, tag, comm, st ? st : status, E);
	if (*E == MPI_SUCCESS && st)
		vtf_received(B, st, MPI_Comm_f2c(*(MPI_Fint *)comm));
	vt_inst_exit(&vtw_desc_MPI_Recv);
	vtf_statuses_end(&s, CALLER);
'''),
    'MPI_Sendrecv': (['sbuf', 'scount', 'stype', 'dest', 'stag', 'rbuf', 'rcount', 'rtype',
                      'source', 'rtag', 'comm', 'status', 'ierr'], '''
	TRACING_OR(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
		   status, ierr);
	struct vtf_statuses s;
	void *st = vtf_statuses_begin(&s, B, status, 1);
	MPI_Comm c = MPI_Comm_f2c(*(MPI_Fint *)comm);
	vt_inst_enter(&vtw_desc_MPI_Sendrecv);
	if (*(MPI_Fint *)dest != MPI_PROC_NULL)
		vtw_p2p(VT_REC_MPI_SEND, *(MPI_Fint *)dest, vtw_comm(c), *(MPI_Fint *)stag,
			vtw_bytes(*(MPI_Fint *)scount, MPI_Type_f2c(*(MPI_Fint *)stype)));
	FWD(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
	    st ? st : status, E);
	if (*E == MPI_SUCCESS && st)
		vtf_received(B, st, c);
	vt_inst_exit(&vtw_desc_MPI_Sendrecv);
	vtf_statuses_end(&s, CALLER);
'''),
    'MPI_Sendrecv_replace': (['buf', 'count', 'datatype', 'dest', 'stag', 'source', 'rtag',
                              'comm', 'status', 'ierr'], '''
	TRACING_OR(buf, count, datatype, dest, stag, source, rtag, comm, status, ierr);
	struct vtf_statuses s;
	void *st = vtf_statuses_begin(&s, B, status, 1);
	MPI_Comm c = MPI_Comm_f2c(*(MPI_Fint *)comm);
	vt_inst_enter(&vtw_desc_MPI_Sendrecv_replace);
	if (*(MPI_Fint *)dest != MPI_PROC_NULL)
		vtw_p2p(VT_REC_MPI_SEND, *(MPI_Fint *)dest, vtw_comm(c), *(MPI_Fint *)stag,
			vtw_bytes(*(MPI_Fint *)count, MPI_Type_f2c(*(MPI_Fint *)datatype)));
	FWD(buf, count, datatype, dest, stag, source, rtag, comm, st ? st : status, E);
	if (*E == MPI_SUCCESS && st)
		vtf_received(B, st, c);
	vt_inst_exit(&vtw_desc_MPI_Sendrecv_replace);
	vtf_statuses_end(&s, CALLER);
'''),
    # As in C: the message's communicator is not known; recorded on MPI_COMM_WORLD.
    'MPI_Mrecv': (['buf', 'count', 'datatype', 'message', 'status', 'ierr'], '''
	TRACING_OR(buf, count, datatype, message, status, ierr);
	struct vtf_statuses s;
	void *st = vtf_statuses_begin(&s, B, status, 1);
	vt_inst_enter(&vtw_desc_MPI_Mrecv);
	FWD(buf, count, datatype, message, st ? st : status, E);
	if (*E == MPI_SUCCESS && st)
		vtf_received(B, st, MPI_COMM_WORLD);
	vt_inst_exit(&vtw_desc_MPI_Mrecv);
	vtf_statuses_end(&s, CALLER);
'''),
    'MPI_Wait': (['request', 'status', 'ierr'], '''
	TRACING_OR(request, status, ierr);
	struct vtf_statuses s;
	void *st = vtf_statuses_begin(&s, B, status, 1);
	uint64_t h = vtf_req_bits(*(MPI_Fint *)request);
	vt_inst_enter(&vtw_desc_MPI_Wait);
	FWD(request, st ? st : status, E);
	if (*E == MPI_SUCCESS)
		vtf_completed(B, h, st, 0);
	vt_inst_exit(&vtw_desc_MPI_Wait);
	vtf_statuses_end(&s, CALLER);
'''),
    'MPI_Test': (['request', 'flag', 'status', 'ierr'], '''
	TRACING_OR(request, flag, status, ierr);
	struct vtf_statuses s;
	void *st = vtf_statuses_begin(&s, B, status, 1);
	uint64_t h = vtf_req_bits(*(MPI_Fint *)request);
	vt_inst_enter(&vtw_desc_MPI_Test);
	FWD(request, flag, st ? st : status, E);
	if (*E == MPI_SUCCESS && *(MPI_Fint *)flag)
		vtf_completed(B, h, st, 0);
	vt_inst_exit(&vtw_desc_MPI_Test);
	vtf_statuses_end(&s, CALLER);
'''),
    'MPI_Waitall': (['count', 'requests', 'statuses', 'ierr'], '''
	int n = *(MPI_Fint *)count;
	struct vtf_handles c;
	if (!vtw_tracing() || vtf_handles_begin(&c, n, requests) < 0) {
		FWD(count, requests, statuses, ierr);
		return;
	}
	struct vtf_statuses s;
	void *st = vtf_statuses_begin(&s, B, statuses, n);
	vt_inst_enter(&vtw_desc_MPI_Waitall);
	FWD(count, requests, st ? st : statuses, E);
	/* On MPI_ERR_IN_STATUS each status says whether its request completed. */
	for (int i = 0; st && i < n && (*E == MPI_SUCCESS || *E == MPI_ERR_IN_STATUS); i++) {
		MPI_Status cs;
		vtf_status_f2c(B, st, (size_t)i, &cs);
		if (*E == MPI_SUCCESS || cs.MPI_ERROR == MPI_SUCCESS)
			vtw_request_done(c.h[i], &cs);
	}
	vt_inst_exit(&vtw_desc_MPI_Waitall);
	vtf_statuses_end(&s, CALLER);
	vtf_handles_end(&c);
'''),
    'MPI_Testall': (['count', 'requests', 'flag', 'statuses', 'ierr'], '''
	int n = *(MPI_Fint *)count;
	struct vtf_handles c;
	if (!vtw_tracing() || vtf_handles_begin(&c, n, requests) < 0) {
		FWD(count, requests, flag, statuses, ierr);
		return;
	}
	struct vtf_statuses s;
	void *st = vtf_statuses_begin(&s, B, statuses, n);
	vt_inst_enter(&vtw_desc_MPI_Testall);
	FWD(count, requests, flag, st ? st : statuses, E);
	for (int i = 0; st && *E == MPI_SUCCESS && *(MPI_Fint *)flag && i < n; i++)
		vtf_completed(B, c.h[i], st, (size_t)i);
	vt_inst_exit(&vtw_desc_MPI_Testall);
	vtf_statuses_end(&s, CALLER);
	vtf_handles_end(&c);
'''),
    # Fortran indices count from 1.
    'MPI_Waitany': (['count', 'requests', 'index', 'status', 'ierr'], '''
	int n = *(MPI_Fint *)count;
	struct vtf_handles c;
	if (!vtw_tracing() || vtf_handles_begin(&c, n, requests) < 0) {
		FWD(count, requests, index, status, ierr);
		return;
	}
	struct vtf_statuses s;
	void *st = vtf_statuses_begin(&s, B, status, 1);
	vt_inst_enter(&vtw_desc_MPI_Waitany);
	FWD(count, requests, index, st ? st : status, E);
	int k = *(MPI_Fint *)index;
	if (*E == MPI_SUCCESS && k != MPI_UNDEFINED && k >= 1 && k <= n)
		vtf_completed(B, c.h[k - 1], st, 0);
	vt_inst_exit(&vtw_desc_MPI_Waitany);
	vtf_statuses_end(&s, CALLER);
	vtf_handles_end(&c);
'''),
    'MPI_Testany': (['count', 'requests', 'index', 'flag', 'status', 'ierr'], '''
	int n = *(MPI_Fint *)count;
	struct vtf_handles c;
	if (!vtw_tracing() || vtf_handles_begin(&c, n, requests) < 0) {
		FWD(count, requests, index, flag, status, ierr);
		return;
	}
	struct vtf_statuses s;
	void *st = vtf_statuses_begin(&s, B, status, 1);
	vt_inst_enter(&vtw_desc_MPI_Testany);
	FWD(count, requests, index, flag, st ? st : status, E);
	int k = *(MPI_Fint *)index;
	if (*E == MPI_SUCCESS && *(MPI_Fint *)flag && k != MPI_UNDEFINED && k >= 1 && k <= n)
		vtf_completed(B, c.h[k - 1], st, 0);
	vt_inst_exit(&vtw_desc_MPI_Testany);
	vtf_statuses_end(&s, CALLER);
	vtf_handles_end(&c);
'''),
    'MPI_Waitsome': (['incount', 'requests', 'outcount', 'indices', 'statuses', 'ierr'], '''
	SOME(MPI_Waitsome)
'''),
    'MPI_Testsome': (['incount', 'requests', 'outcount', 'indices', 'statuses', 'ierr'], '''
	SOME(MPI_Testsome)
'''),
}

SOME = '''int n = *(MPI_Fint *)incount;
	struct vtf_handles c;
	if (!vtw_tracing() || vtf_handles_begin(&c, n, requests) < 0) {
		FWD(incount, requests, outcount, indices, statuses, ierr);
		return;
	}
	struct vtf_statuses s;
	void *st = vtf_statuses_begin(&s, B, statuses, n);
	vt_inst_enter(&vtw_desc_NAME);
	FWD(incount, requests, outcount, indices, st ? st : statuses, E);
	int m = *(MPI_Fint *)outcount;
	for (int i = 0; st && *E == MPI_SUCCESS && m != MPI_UNDEFINED && i < m; i++) {
		int k = ((MPI_Fint *)indices)[i];
		if (k >= 1 && k <= n)
			vtf_completed(B, c.h[k - 1], st, (size_t)i);
	}
	vt_inst_exit(&vtw_desc_NAME);
	vtf_statuses_end(&s, CALLER);
	vtf_handles_end(&c);'''


# The hand-written wrappers' groups: the receives are not called when P2P is off; the
# completions (their requests, of whatever group, must complete) run, their region as the group.
MANUAL_OFF = {'MPI_Recv', 'MPI_Sendrecv', 'MPI_Sendrecv_replace', 'MPI_Mrecv'}


def manual(w, name, group, sym, call):
    fargs, body = MANUAL[name]
    decl = ['void *%s' % a if a != 'ierr' else 'MPI_Fint *ierr' for a in fargs]
    m = re.search(r'SOME\((\w+)\)', body)
    if m:
        body = '\t' + SOME.replace('NAME', m.group(1)) + '\n'
    test = ('!(vtw_on & %s)' % gw.group_bit(group)) if name in MANUAL_OFF else '!vtw_tracing()'
    body = re.sub(r'TRACING_OR\(([^;]*)\);',
                  lambda mm: 'if (%s) {\n\t\tFWD(%s);\n\t\treturn;\n\t}'
                  % (test, mm.group(1)), body)
    if name not in MANUAL_OFF and name not in ('MPI_Init', 'MPI_Init_thread', 'MPI_Finalize',
                                               'MPI_Abort'):
        body = re.sub(r'vt_inst_(enter|exit)\(', r'vtw_rec_\1(%s, ' % gw.group_bit(group), body)
    body = re.sub(r'FWD\(([^;]*)\);', lambda mm: (call % mm.group(1)) + ';', body, flags=re.S)
    body = body.replace('(B,', '(%s,' % w.b.tag).replace('(&s, B,', '(&s, %s,' % w.b.tag)
    body = re.sub(r'\bE\b', 'vtf_e', body)
    body = body.replace('CALLER', 'statuses' if 'statuses' in fargs else 'status')
    w.head(sym, 'void', decl)
    w.emit('{')
    if 'vtf_e' in body:
        w.emit('\tMPI_Fint vtf_own = MPI_SUCCESS, *vtf_e = ierr ? ierr : &vtf_own;')
    w.emit(body.strip('\n'), '}')
    return decl


PRELUDE = '''
/* A Fortran CHARACTER argument as a C string without its trailing blanks (malloc'd). */
static inline char *vtf_str(const void *s, size_t len)
{
	const char *f = s;
	while (len > 0 && f[len - 1] == ' ')
		len--;
	char *c = malloc(len + 1);
	if (c) {
		memcpy(c, f, len);
		c[len] = 0;
	}
	return c;
}

/* A receive's message, from a Fortran status. */
static inline void vtf_received(int binding, const void *st, MPI_Comm comm)
{
	MPI_Status c;
	vtf_status_f2c(binding, st, 0, &c);
	vtw_received(&c, comm);
}

/* A request completed with the i-th Fortran status of st (NULL: no memory for it). */
static inline void vtf_completed(int binding, uint64_t h, const void *st, size_t i)
{
	MPI_Status c;
	if (!st) {
		vtw_request_done(h, NULL);
		return;
	}
	vtf_status_f2c(binding, st, i, &c);
	vtw_request_done(h, &c);
}
'''


def main():
    argv = sys.argv[1:]
    if '--' not in argv or len(argv) < 5:
        fail('usage: gen-fortran.py SPEC OUTPUT {openmpi|mpich} LIB... -- HEADER...')
    i = argv.index('--')
    spec, output, mpi, libs, headers = argv[0], argv[1], argv[2], argv[3:i], argv[i + 1:]
    syms = symbols(libs)
    protos = gw.prototypes(headers)
    out = ['/* Generated by runtime/mpi/gen-fortran.py from runtime/mpi/mpi.spec,',
           ' * %s and the symbols of' % ' '.join(headers),
           ' * %s. Do not edit. */' % ' '.join(libs),
           '#include "vt_mpi_fortran.h"',
           PRELUDE]
    for b in bindings(mpi, syms):
        w = Writer(b)
        done, skipped = [], []
        for name, role, hook, group in gw.read_spec(spec):
            lc = name.lower()
            sym = lc + b.suffix
            if protos.get(name) is None or sym not in syms or (
                    b.forward == 'pmpi' and 'p' + sym not in syms):
                skipped.append(name)
                continue
            ret, params = protos[name][0], [Param(d, n) for d, n in
                                           gw.split_params(protos[name][1], name)]
            w.emit('VTW_HIDDEN extern struct vt_inst_desc vtw_desc_%s;' % name)
            if hook == 'manual':
                fargs = MANUAL[name][0]
                decl = ['void *%s' % a if a != 'ierr' else 'MPI_Fint *ierr' for a in fargs]
                call = w.begin(sym, 'void', decl, fargs, syms)
                manual(w, name, group, sym, call)
            elif ret == 'double':
                call = w.begin(sym, 'double', [], [], syms)
                region_only(w, name, ret, group, sym, params, call)
                decl = []
            else:
                decl, args = fortran_params(params)
                call = w.begin(sym, 'void', decl, args, syms)
                if hook == '-':
                    region_only(w, name, ret, group, sym, params, call)
                else:
                    hooked(w, name, hook, group, sym, lc, params, call)
            w.aliases(sym, lc, 'double' if ret == 'double' else 'void', decl)
            w.emit('')
            done.append(name)
        out.append('/* -- %s: %d wrapped -- */' % (b.name, len(done)))
        out.extend(w.out)
        if skipped:
            out.append('/* %s: no entry point in this MPI, not wrapped: %s */'
                       % (b.name, ' '.join(skipped)))
        out.append('')
    with open(output, 'w') as f:
        f.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
