#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The runtime's folders are layers with one direction: fails on an edge that goes up.

The order of the folders of runtime/src, bottom first, is declared once, in the ```layers
block of docs/dev/architecture.md. Two kinds of edges are read from the real tree:
- includes: every `#include "folder/vt_x.h"` of every file under runtime/src (an include
  without its folder is refused too: it would hide the edge; so is an include of another
  folder's FOLDER/*_priv.h, which that folder keeps to itself);
- references: every symbol an object file of libvt uses (nm -u) that an object of another
  folder defines (nm --defined-only): calls, and data such as the TLS state.
An edge from folder A to folder B is fine when B is below A in the order. The POSIX and stdio
I/O and allocation functions that interpose/ defines for the program (LIBC_PASS_THROUGH) are
no edge: to every other caller they are libc's, passed through uncounted inside vt
(interpose/vt_io.h, interpose/vt_stdio.h, interpose/vt_mem.h). Any other is printed with
the file and the header or symbol that makes it, and the test fails. The folder graph
(edges, upward edges, cycles) is printed either way, for the record.

libvt-mpi (runtime/mpi) sees libvt through one interface: it may include only the headers
listed in MPI_IFACE, and the libvt symbols its objects use must be declared in them.

No C file of the runtime or the tools is longer than MAX_LINES: a file that grows past it
does more than one job and is to be split by job (issue 24).
Each module keeps its state in one struct (issue 24): for every object of runtime/src, the
mutable variables of file scope are read from the static libraries (objdump -t: objects in
.data, .bss, .tdata, .tbss and their subsections, not .data.rel.ro, which is const after
relocation; function-local statics, named NAME.N, are not file scope). An object may have one
of each kind: one static (the module's own state struct), one global (shared by design, like
vt_cfg, or read by the hot path through its own symbol, like vt_regtab) and one thread-local.
A second one of a kind fails, naming the file and its variables; the count of each object is
printed either way.

Usage: test_layers.py SOURCE_ROOT STATIC_LIB... [--mpi-lib LIB]...
"""

import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# What libvt-mpi may include from runtime/src: the MPI interface and the record kinds that
# its inline producers write (besides its own headers and the public include folder).
MPI_IFACE = ["mpi/vt_mpi_iface.h", "record/vt_rec.h", "record/vt_buf.h", "base/vt_compiler.h"]


# objdump -t: VALUE FLAGS(7) SECTION<tab>SIZE [.hidden] NAME
OBJDUMP_SYM = re.compile(r"^[0-9a-f]+ (.{7}) (\S+)\t[0-9a-f]+ (?:\.hidden )?(\S+)$")
STATE_KINDS = ("static", "global", "thread-local")


MAX_LINES = 1000

# Objects whose non-vt_ definitions are libc's functions for every caller in vt.
LIBC_PASS_THROUGH = {("interpose", "vt_io_posix.c"), ("interpose", "vt_io_stdio.c"),
                     ("interpose", "vt_malloc.c")}


def libc_pass_through(where, sym):
    return where in LIBC_PASS_THROUGH and not sym.startswith("vt_")


def check_sizes(root, errors):
    """Every .c file under runtime/ and tools/ has at most MAX_LINES lines."""
    for top in ("runtime", "tools"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if not x.startswith(("build", ".")))
            for f in sorted(files):
                if f.endswith(".c"):
                    path = os.path.join(d, f)
                    n = sum(1 for _ in open(path, encoding="utf-8", errors="replace"))
                    if n > MAX_LINES:
                        errors.append(f"{os.path.relpath(path, root)}: {n} lines, more than "
                                      f"{MAX_LINES}: split it by job")


def declared_order(root):
    text = open(os.path.join(root, "docs/dev/architecture.md")).read()
    m = re.search(r"```layers\n(.*?)```", text, re.S)
    if not m:
        sys.exit("test_layers: docs/dev/architecture.md has no ```layers block naming the "
                 "folders of runtime/src, bottom first")
    order = [w.split()[0] for w in m.group(1).splitlines() if w.strip()]
    return order


def source_files(src):
    for d in sorted(os.listdir(src)):
        p = os.path.join(src, d)
        if not os.path.isdir(p):
            continue
        for f in sorted(os.listdir(p)):
            if f.endswith((".c", ".h")):
                yield d, f


def include_edges(src, errors):
    """(from, to, file, header) for every include of a runtime header."""
    folders = {d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d))}
    edges = []
    for d, f in source_files(src):
        text = open(os.path.join(src, d, f)).read()
        for h in INCLUDE.findall(text):
            if "/" not in h:
                errors.append(f"runtime/src/{d}/{f}: #include \"{h}\" does not name its "
                              f"folder (write \"FOLDER/{h}\")")
                continue
            top = h.split("/")[0]
            if top in folders:
                if not os.path.exists(os.path.join(src, h)):
                    errors.append(f"runtime/src/{d}/{f}: #include \"{h}\": no such file")
                    continue
                if top != d and h.endswith("_priv.h"):
                    errors.append(f"runtime/src/{d}/{f}: #include \"{h}\": a _priv.h header "
                                  f"is its folder's own")
                if top != d:
                    edges.append((d, top, f"{d}/{f}", f"#include \"{h}\""))
    return edges


def nm(args):
    out = subprocess.run(["nm", "-A"] + args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"test_layers: nm {' '.join(args)} failed: {out.stderr.strip()}")
    return out.stdout.splitlines()


def object_folder(member, names):
    """The folder of an object file of a meson static library (src_FOLDER_FILE.c.o)."""
    return names.get(os.path.basename(member))


def symbol_tables(libs, names):
    """defined: symbol -> (folder, file); used: [(folder, file, symbol)]."""
    defined, used = {}, []
    for lib in libs:
        for line in nm(["--defined-only", lib]):
            parts = line.split()
            if len(parts) < 3 or parts[-2] in "bdrt" and parts[-2].islower():
                continue  # local symbols are no edge
            member = parts[0].rsplit(":", 2)[-2]
            where = object_folder(member, names)
            if where:
                defined[parts[-1]] = where
        for line in nm(["-u", lib]):
            parts = line.split()
            member = parts[0].rsplit(":", 2)[-2]
            where = object_folder(member, names)
            if where:
                used.append((where[0], where[1], parts[-1]))
    return defined, used


def call_edges(src, libs, errors):
    names = {}
    for d, f in source_files(src):
        if f.endswith(".c"):
            names[f"src_{d}_{f}.o"] = (d, f)
    defined, used = symbol_tables(libs, names)
    if not defined:
        errors.append("no object of runtime/src found in " + " ".join(libs))
    edges = []
    for d, f, sym in used:
        if sym in defined and defined[sym][0] != d and not libc_pass_through(defined[sym], sym):
            edges.append((d, defined[sym][0], f"{d}/{f}", f"uses {sym} ({'/'.join(defined[sym])})"))
    return edges


def state_variables(libs, names):
    """(folder, file) -> {kind: [variable]}: the mutable variables of file scope of each object."""
    state = {}
    for lib in libs:
        out = subprocess.run(["objdump", "-t", lib], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"test_layers: objdump -t {lib} failed: {out.stderr.strip()}")
        where = None
        for line in out.stdout.splitlines():
            if "file format" in line:
                where = object_folder(line.split(":")[0], names)
                if where:
                    state.setdefault(where, {k: [] for k in STATE_KINDS})
                continue
            m = OBJDUMP_SYM.match(line)
            if not where or not m:
                continue
            flags, section, name = m.groups()
            if flags[5] in "dD" or flags[6] in "fF":
                continue  # section, debugging, file and function symbols
            tls = section.startswith((".tdata", ".tbss"))
            if not (tls or section.startswith((".data", ".bss"))):
                continue
            if section.startswith(".data.rel.ro") or re.search(r"\.\d+$", name):
                continue
            if name.startswith(("__odr_asan", "__asan", "__ubsan", "__sancov")):
                continue  # a sanitizer's bookkeeping beside the variable, not the module's state
            kind = "thread-local" if tls else "global" if flags[0] in "gu" else "static"
            state[where][kind].append(name)
    return state


def check_state(src, libs, errors):
    """At most one variable of each kind of file-scope mutable state per object."""
    names = {}
    for d, f in source_files(src):
        if f.endswith(".c"):
            names[f"src_{d}_{f}.o"] = (d, f)
    state = state_variables(libs, names)
    print("file-scope mutable state per object (static, global, thread-local):")
    for (d, f), kinds in sorted(state.items()):
        path = f"{d}/{f}"
        counts = " ".join(str(len(kinds[k])) for k in STATE_KINDS)
        over = [k for k in STATE_KINDS if len(kinds[k]) > 1]
        note = ""
        if over:
            note = "  FAIL"
            for k in over:
                errors.append(f"runtime/src/{path}: {len(kinds[k])} {k} variables of file "
                              f"scope ({', '.join(sorted(kinds[k]))}): gather them in one "
                              f"struct")
        print(f"  {path}: {counts}{note}")


def cycles(graph):
    """The strongly connected components of more than one folder (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_mpi(root, mpi_libs, runtime_libs, errors):
    """libvt-mpi includes only MPI_IFACE from runtime/src and uses only what they declare."""
    src = os.path.join(root, "runtime/src")
    mpi_dir = os.path.join(root, "runtime/mpi")
    folders = {d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d))}
    for f in sorted(os.listdir(mpi_dir)):
        if not f.endswith((".c", ".h")):
            continue
        for h in INCLUDE.findall(open(os.path.join(mpi_dir, f)).read()):
            if h.split("/")[0] in folders and h not in MPI_IFACE:
                errors.append(f"runtime/mpi/{f}: #include \"{h}\": libvt-mpi sees libvt "
                              f"through {', '.join(MPI_IFACE)} only")
    if not mpi_libs:
        return
    declared = set()
    ident = re.compile(r"\b(vt_[A-Za-z0-9_]+)\b")
    for h in MPI_IFACE:
        declared.update(ident.findall(open(os.path.join(src, h)).read()))
    names = {}
    for d, f in source_files(src):
        if f.endswith(".c"):
            names[f"src_{d}_{f}.o"] = (d, f)
    runtime_defined, _ = symbol_tables(runtime_libs, names)
    for lib in mpi_libs:
        for line in nm(["-u", "-D", lib]):
            sym = line.split()[-1]
            if (sym in runtime_defined and sym not in declared
                    and not libc_pass_through(runtime_defined[sym], sym)):
                errors.append(f"{os.path.basename(lib)} uses {sym} "
                              f"({'/'.join(runtime_defined[sym])}), which no header of its "
                              f"interface declares")


def main():
    args = sys.argv[1:]
    mpi_libs = []
    while "--mpi-lib" in args:
        i = args.index("--mpi-lib")
        mpi_libs.append(args[i + 1])
        del args[i:i + 2]
    root, libs = args[0], args[1:]
    src = os.path.join(root, "runtime/src")
    order = declared_order(root)
    errors = []
    present = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    for d in present:
        if d not in order:
            errors.append(f"runtime/src/{d}/ is not in the ```layers order of "
                          f"docs/dev/architecture.md")
    for d in order:
        if d not in present:
            errors.append(f"docs/dev/architecture.md's layers name {d}/, which runtime/src "
                          f"does not have")
    rank = {d: i for i, d in enumerate(order)}
    edges = include_edges(src, errors) + call_edges(src, libs, errors)
    graph, up = {}, {}
    for a, b, where, what in edges:
        graph.setdefault(a, set()).add(b)
        if a in rank and b in rank and rank[b] > rank[a]:
            up.setdefault((a, b), []).append(f"{where}: {what}")
    n_edges = sum(len(v) for v in graph.values())
    cyc = cycles(graph)
    print(f"layers (bottom first): {' < '.join(order)}")
    print(f"folder graph: {n_edges} edges, {len(up)} upward, {len(cyc)} cycles")
    for a in sorted(graph):
        print(f"  {a} -> {', '.join(sorted(graph[a], key=lambda x: rank.get(x, 99)))}")
    for (a, b), why in sorted(up.items()):
        errors.append(f"upward edge {a}/ -> {b}/ ({b} is above {a}):")
        errors.extend("    " + w for w in sorted(set(why)))
    for c in cyc:
        errors.append("cycle: " + " <-> ".join(c))
    check_mpi(root, mpi_libs, libs, errors)
    check_sizes(root, errors)
    check_state(src, libs, errors)
    for e in errors:
        print("FAIL: " + e)
    if errors:
        sys.exit(1)
    print("ok: every edge goes down the declared order")
    print("ok: each object of runtime/src has at most one mutable variable of file scope of "
          "each kind")


if __name__ == "__main__":
    main()
