#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Generates the PMPI wrappers from mpi.spec and the prototypes of an mpi.h (at build time).
"""Generates vt's PMPI wrappers from mpi.spec and the prototypes of an mpi.h.

Usage: gen-wrappers.py SPEC OUTPUT HEADER...
       gen-wrappers.py --groups SPEC OUTPUT   (each function's group, for vt-score)
Each spec line is "NAME ROLE GROUP HOOK" (see mpi.spec). The prototype of NAME is taken from the
first HEADER that declares it, so the wrapper matches the MPI it is built against exactly;
a NAME that no header declares is skipped (and listed in a comment of the output).
"""

import re
import sys

ROLES = {
    'function': 'OTF2_REGION_ROLE_FUNCTION',
    'p2p': 'OTF2_REGION_ROLE_POINT2POINT',
    'barrier': 'OTF2_REGION_ROLE_BARRIER',
    'one2all': 'OTF2_REGION_ROLE_COLL_ONE2ALL',
    'all2one': 'OTF2_REGION_ROLE_COLL_ALL2ONE',
    'all2all': 'OTF2_REGION_ROLE_COLL_ALL2ALL',
    'coll': 'OTF2_REGION_ROLE_COLL_OTHER',
    'rma': 'OTF2_REGION_ROLE_RMA',
    'file': 'OTF2_REGION_ROLE_FILE_IO',
}


# VT_MPI_GROUPS: every function belongs to one (vt_mpi_iface.h's enum vt_mpi_group).
GROUPS = ('CG', 'COLL', 'ENV', 'ERR', 'EXT', 'IO', 'MISC', 'P2P', 'QUERY', 'RMA', 'SPAWN',
          'TOPO', 'TYPE', 'XNONBLOCK', 'XREQTEST')

# Hooks that keep what vt needs whatever is recorded (the communicators, the requests whose
# issue was recorded): they run while the function's group is off, without its region.
# Hooks whose pre hook takes the time the call began (vt_mpi_enter's) before the arguments
# (an Irecv's has no use for it: its Enter and Leave are written as an Isend's are),
# and whose vtw_HOOK_post_leave(&call, ret, args, desc) also writes the Leave (the Fortran
# wrappers call vtw_HOOK_post and vt_inst_exit).
T0_HOOKS = {'isend', 'irecv'}
# Hooks whose vtw_HOOK_enter(desc, args) writes the call's Enter with the pre hook's event
# (a blocking send's, stamped at the Enter), in one step; the Fortran wrappers call
# vt_inst_enter and vtw_HOOK_pre.
ENTER_HOOKS = {'send'}
STATE_HOOKS = {'comm_dup', 'comm_dup_with_info', 'comm_split', 'comm_split_type', 'comm_create',
               'comm_create_group', 'comm_free', 'comm_set_name', 'cart_create', 'cart_sub',
               'graph_create', 'dist_graph_create', 'dist_graph_create_adjacent',
               'intercomm_create', 'intercomm_merge', 'start', 'startall', 'request_free',
               'cancel'}


def group_bit(group):
    return 'VT_MPI_G_' + group


def fail(msg):
    sys.stderr.write('gen-wrappers.py: %s\n' % msg)
    sys.exit(1)


def read_spec(path):
    entries = []
    for n, line in enumerate(open(path), 1):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 4 or parts[1] not in ROLES or not parts[0].startswith('MPI_'):
            fail('%s:%d: expected "MPI_NAME ROLE GROUP HOOK" with ROLE one of %s, got %r'
                 % (path, n, ', '.join(sorted(ROLES)), line))
        if parts[2] not in GROUPS:
            fail('%s:%d: %s: group %r is not one of %s'
                 % (path, n, parts[0], parts[2], ', '.join(GROUPS)))
        entries.append((parts[0], parts[1], parts[3], parts[2]))
    return entries


def prototypes(headers):
    """NAME -> (return type, [(declaration, name)]) of every MPI_ function declared."""
    found = {}
    for path in headers:
        text = open(path, errors='replace').read()
        text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
        # A function the header turns into a macro (Open MPI: the MPI-1 functions removed in
        # MPI-3.0 become a static assertion) cannot be defined: not wrapped.
        for m in re.finditer(r'^\s*#\s*define\s+(MPI_\w+)\(', text, flags=re.M):
            found.setdefault(m.group(1), None)
        for m in re.finditer(r'(?<![\w*])(int|double)\s+(MPI_\w+)\s*\(', text):
            name = m.group(2)
            if name in found:
                continue
            depth, i = 1, m.end()
            while depth and i < len(text):
                depth += {'(': 1, ')': -1}.get(text[i], 0)
                i += 1
            found[name] = (m.group(1), ' '.join(text[m.end():i - 1].split()))
    return found


def split_params(params, fname):
    if params in ('', 'void'):
        return []
    out, depth, cur = [], 0, ''
    for c in params:
        if c == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
            continue
        depth += {'(': 1, ')': -1, '[': 1, ']': -1}.get(c, 0)
        cur += c
    out.append(cur.strip())
    result = []
    for p in out:
        if p == '...':
            fail('%s: a variadic function cannot be forwarded; take it out of mpi.spec' % fname)
        m = re.search(r'(\w+)\s*((\[[^\]]*\]\s*)*)$', p)
        if not m or m.group(1) in ('int', 'void', 'char', 'MPI_Comm', 'MPI_Datatype'):
            fail('%s: cannot find the name of parameter %r' % (fname, p))
        result.append((p, m.group(1)))
    return result


# Collective hooks: "KIND:MEASURE". How many trailing arguments of the function the measure
# vtw_m_MEASURE (vt_mpi_hooks.h) does not take: the request of a non-blocking form, the info
# and request of a persistent one.
COLL_KINDS = {'coll': 0, 'icoll': 1, 'pcoll': 2}


def collective_hook(name, hook):
    """(kind, measure) of a collective hook "KIND:MEASURE", or fails."""
    kind, _, measure = hook.partition(':')
    if kind not in COLL_KINDS or not re.match(r'^\w+$', measure):
        fail('%s: hook %r: expected coll:NAME, icoll:NAME or pcoll:NAME' % (name, hook))
    return kind, measure


def collective(name, hook, names, args):
    """The body of a collective's wrapper from its Enter (see vt_mpi_hooks.h)."""
    kind, measure = collective_hook(name, hook)
    margs = ', '.join(names[:len(names) - COLL_KINDS[kind]])
    if kind == 'coll':
        # the Leave written with the End (the caller adds no vt_inst_exit)
        return ['\tuint64_t vtw_t0 = vt_mpi_enter(&vtw_desc_%s);' % name,
                '\tint vtw_ret = P%s(%s);' % (name, args),
                '\tif (vtw_ret == MPI_SUCCESS)',
                '\t\tvtw_coll_done_leave(vtw_t0, vtw_m_%s(%s), &vtw_desc_%s);'
                % (measure, margs, name),
                '\telse',
                '\t\tvt_inst_exit(&vtw_desc_%s);' % name]
    return ['\tuint64_t vtw_t0 = vt_mpi_enter(&vtw_desc_%s);' % name,
            '\tint vtw_ret = P%s(%s);' % (name, args),
            '\tif (vtw_ret == MPI_SUCCESS)',
            '\t\tvtw_nbc_issued(*%s, vtw_m_%s(%s), %d, vtw_t0);'
            % (names[-1], measure, margs, kind == 'pcoll')]


def groups_table(spec, output):
    """A C table {"MPI_NAME", "GROUP"} of every function of the spec (vt-score's advice)."""
    out = ['/* Generated by runtime/mpi/gen-wrappers.py --groups from runtime/mpi/mpi.spec. */']
    out += ['{"%s", "%s"},' % (name, group) for name, _, _, group in read_spec(spec)]
    with open(output, 'w') as f:
        f.write('\n'.join(out) + '\n')


def main():
    if len(sys.argv) == 4 and sys.argv[1] == '--groups':
        groups_table(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) < 4:
        fail('usage: gen-wrappers.py SPEC OUTPUT HEADER...')
    spec, output, headers = sys.argv[1], sys.argv[2], sys.argv[3:]
    protos = prototypes(headers)
    out = ['/* Generated by runtime/mpi/gen-wrappers.py from runtime/mpi/mpi.spec and',
           ' * %s. Do not edit. */' % ' '.join(headers),
           '#include "vt_mpi_hooks.h"', '',
           '/* Deprecated functions are wrapped as long as MPI has them. */',
           '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"', '']
    skipped = []
    for name, role, hook, group in read_spec(spec):
        if protos.get(name) is None:
            skipped.append(name)
            continue
        ret, params = protos[name][0], split_params(protos[name][1], name)
        decl = ', '.join(p for p, _ in params) or 'void'
        args = ', '.join(a for _, a in params)
        desc = 'VTW_DESC(%s, "%s", %s)' % (name, name, ROLES[role])
        if hook == 'manual':
            # The hand-written wrapper (vt_mpi_req.c, vt_mpi_init.c) uses this descriptor.
            out.append(desc + ';')
            out.append('')
            continue
        out.append(desc + ';')
        out.append('VTW_EXPORT %s %s(%s)' % (ret, name, decl))
        out.append('{')
        state = hook in STATE_HOOKS
        if state:
            # what vt keeps is kept; the region only where the group is recorded
            out.append('\tif (!vtw_tracing())')
        else:
            # not recorded: one load and a branch
            out.append('\tif (!(vtw_on & %s))' % group_bit(group))
        out.append('\t\treturn P%s(%s);' % (name, args))
        if state:
            out.append('\tconst int vtw_rec = vtw_on & %s;' % group_bit(group))
            out.append('\tif (vtw_rec)')
            out.append('\t\tvt_inst_enter(&vtw_desc_%s);' % name)
        if ':' in hook:
            # its Enter and the time the call began, in one step
            out.extend(collective(name, hook, [a for _, a in params], args))
        elif hook in T0_HOOKS:
            # the Enter's time handed to the pre hook: one call and one clock read for both
            out.append('\tstruct vtw_call vtw_call = vtw_%s_pre(vt_mpi_enter(&vtw_desc_%s), %s);'
                       % (hook, name, args))
            out.append('\t%s vtw_ret = P%s(%s);' % (ret, name, args))
            # its event and the Leave in one step (the caller adds no vt_inst_exit)
            out.append('\tvtw_%s_post_leave(&vtw_call, vtw_ret, %s, &vtw_desc_%s);'
                       % (hook, args, name))
        elif hook in ENTER_HOOKS and not state:
            out.append('\tstruct vtw_call vtw_call = vtw_%s_enter(&vtw_desc_%s, %s);'
                       % (hook, name, args))
            out.append('\t%s vtw_ret = P%s(%s);' % (ret, name, args))
            out.append('\tvtw_%s_post(&vtw_call, vtw_ret, %s);' % (hook, args))
        else:
            if not state:
                out.append('\tvt_inst_enter(&vtw_desc_%s);' % name)
            if hook != '-':
                out.append('\tstruct vtw_call vtw_call = vtw_%s_pre(%s);' % (hook, args))
            out.append('\t%s vtw_ret = P%s(%s);' % (ret, name, args))
            if hook != '-':
                out.append('\tvtw_%s_post(&vtw_call, vtw_ret%s);'
                           % (hook, ', ' + args if args else ''))
        if state:
            out.append('\tif (vtw_rec)')
            out.append('\t\tvt_inst_exit(&vtw_desc_%s);' % name)
        elif hook in T0_HOOKS:
            pass
        elif ':' not in hook or collective_hook(name, hook)[0] != 'coll':
            out.append('\tvt_inst_exit(&vtw_desc_%s);' % name)
        out.append('\treturn vtw_ret;')
        out.append('}')
        out.append('')
    if skipped:
        out.append('/* Not declared by this MPI, so not wrapped: %s */' % ' '.join(skipped))
    with open(output, 'w') as f:
        f.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
