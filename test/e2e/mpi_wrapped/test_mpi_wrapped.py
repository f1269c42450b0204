# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_wrapped": vt wraps every function MPI exports. From the symbol tables (nm -D) of
Open MPI's and MPICH's C and Fortran libraries: each C MPI_ function is defined by vt's MPI
runtime for that MPI, or is on runtime/mpi/unwrapped.list; each Fortran entry point that
calls MPI's PMPI layer (Open MPI's mpif.h/use mpi and use mpi_f08 ones, MPICH's use mpi_f08
ones without a choice buffer) is defined by vt too, where its C function is wrapped. Then a
program calling functions that vt used to pass through has each as a region of paradigm MPI,
entered as often as it called it."""

import os
import re
import subprocess

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

SRC = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(SRC, '..', '..', '..'))
UNWRAPPED = os.path.join(TOP, 'runtime', 'mpi', 'unwrapped.list')

# Where Debian puts each MPI's libraries (pkg-config would say the same).
LIBDIR = {'openmpi': '/usr/lib/x86_64-linux-gnu/openmpi/lib', 'mpich': '/usr/lib/x86_64-linux-gnu'}
C_LIB = {'openmpi': 'libmpi.so', 'mpich': 'libmpich.so'}
# Fortran libraries and the entry points of theirs that call PMPI (gen-fortran.py's table).
FORTRAN = {'openmpi': [('libmpi_mpifh.so', r'^mpi_(\w+?)_$'),
                       ('libmpi_usempif08.so', r'^mpi_(\w+?)_f08_$')],
           'mpich': [('libmpichfort.so', r'^mpi_(\w+?)_f08_$')]}


def functions(t, path):
    """The functions a shared library defines (nm -D)."""
    p = subprocess.run(['nm', '-D', '--defined-only', path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if not t.check(p.returncode == 0, 'nm -D %s' % path, p.stderr.strip()):
        return set()
    return set(parts[2] for parts in (l.split() for l in p.stdout.splitlines())
               if len(parts) == 3 and parts[1] in 'TWi')


def unwrapped():
    out = []
    for line in open(UNWRAPPED):
        line = line.strip()
        if line and not line.startswith('#'):
            pattern, reason = line.split(None, 1)
            out.append((re.compile(pattern + '$'), reason))
    return out


def excused(name, rules):
    return any(p.match(name) for p, _ in rules)


def check_symbols(t, impl, rules):
    what = '%s' % impl
    vt = functions(t, vtmpi.runtime_path(impl))
    mpi = functions(t, os.path.join(LIBDIR[impl.name], C_LIB[impl.name]))
    c_funcs = sorted(s for s in mpi if re.match(r'^MPI_[A-Z][a-z]', s))
    t.check(len(c_funcs) > 300, '%s: %d C MPI functions exported' % (what, len(c_funcs)))
    missing = [s for s in c_funcs if s not in vt and not excused(s, rules)]
    t.eq(missing, [], '%s: every C MPI function is wrapped or listed in unwrapped.list' % what)
    wrapped = [s for s in c_funcs if s in vt]
    t.note('%s: %d of %d C functions wrapped' % (what, len(wrapped), len(c_funcs)))
    by_lower = {s.lower(): s for s in c_funcs}
    for lib, pattern in FORTRAN[impl.name]:
        fsyms = functions(t, os.path.join(LIBDIR[impl.name], lib))
        entries = []
        for s in sorted(fsyms):
            m = re.match(pattern, s)
            if not m or 'f08ts' in s:  # a choice buffer (MPICH): calls the C function
                continue
            c = by_lower.get('mpi_' + m.group(1))
            if c is None or excused(c, rules):
                continue  # Fortran only (MPI_Sizeof, ...), or not wrapped on purpose
            entries.append((s, c))
        missing = [s for s, c in entries if s not in vt]
        t.check(len(entries) > 100, '%s: %s: %d Fortran entry points with a C function'
                % (what, lib, len(entries)))
        t.eq(missing[:20], [], '%s: %s: every Fortran entry point is wrapped (%d missing)'
             % (what, lib, len(missing)))


NEW = {'MPI_Alloc_mem': 1, 'MPI_Free_mem': 1, 'MPI_Info_create': 1, 'MPI_Info_set': 1,
       'MPI_Info_free': 1, 'MPI_Comm_get_attr': 1, 'MPI_Get_library_version': 1,
       'MPI_Win_create_dynamic': 1, 'MPI_Win_attach': 1, 'MPI_Win_lock_all': 1,
       'MPI_Win_flush_all': 1, 'MPI_Win_flush_local_all': 1, 'MPI_Win_flush_local': 1,
       'MPI_Win_unlock_all': 1, 'MPI_Win_detach': 1, 'MPI_Win_free': 1,
       'MPI_Type_create_hvector': 1, 'MPI_Type_commit': 1, 'MPI_Type_size': 1,
       'MPI_Type_free': 1}
ROLE = {'MPI_Win': 'RMA'}


def check_run(t, run, plain, impl, n, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, mt = vtmpi.trace(t, run, what)
    want = dict(NEW, main=1, MPI_Init=1, MPI_Finalize=1, MPI_Comm_rank=1)
    for r in range(n):
        loc = [l for l in tr.locations if l.ref == r]
        if t.check(loc, '%s: location %d exists' % (what, r)):
            t.enter_counts(loc[0], want, '%s: rank %d' % (what, r))
    for name in sorted(NEW):
        got = mt.regions.get(name, [])
        role = 'RMA' if name.startswith('MPI_Win') else 'FUNCTION'
        t.eq(got, [('MPI', role)], '%s: %s is a region of paradigm MPI, role %s'
             % (what, name, role))


def body(t):
    rules = unwrapped()
    t.check(len(rules) >= 5, 'unwrapped.list read: %d rules' % len(rules))
    for impl in (OPENMPI, MPICH):
        vtmpi.require_runtime(impl)
        check_symbols(t, impl, rules)
    vtmpi.build_and_run(t, 'wrapped', ['wrapped.c'], [(OPENMPI, 2), (MPICH, 2)], check_run)


vttest.main('mpi_wrapped', body)
