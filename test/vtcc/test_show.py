#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""vtcc -vt:show: which flags vtcc adds for each kind of step, where, and that user args stay."""

import json
import os
import shlex
import subprocess

from vtcctest import (BUILD_ROOT, VTCC, VTCXX, VTFORT, COMPINST_CLANG, COMPINST_GCC,
                      DEFAULT_CLANG, DEFAULT_GCC, HAVE_GCC_PLUGIN, HAVE_LLVM_PLUGIN, PLUGINDIR,
                      clean_env, compile_flags, eq, link_flags, main, plugin_gcc,
                      plugin_llvm, preprocess_flags, run, show, test, tmpdir, write)

C = compile_flags()
# The libomp vtcc links in place of libgomp (docs/openmp.md), None when vt has none.
LIBOMP = next((l.split()[3] for l in run([VTCC, "-vt:version"]).stdout.splitlines()
               if l.startswith("OpenMP: -fopenmp links ")), None)
L = link_flags()
P = preprocess_flags()
# User arguments with spaces and quotes, which must arrive as the same words, in order.
ODD = ["-DMSG=\"hello world\"", "-DQ='x'", "-Wall", "-O2"]


@test
def compile_only():
    user = ["-c", "my file.c", "-o", "out dir/my file.o"] + ODD
    eq(show(user), ["cc"] + C + user)


@test
def assembly_only():
    user = ["-S", "a.c"]
    eq(show(user), ["cc"] + C + user)


@test
def compile_and_link():
    user = ["a.c", "b.c", "-o", "app", "-lm"] + ODD
    eq(show(user), ["cc"] + C + user + L)


@test
def link_only_objects():
    # Compile flags before (harmless when linking), -lvt after the objects and the user's -l.
    user = ["a.o", "b.o", "-o", "app", "-L/opt/x", "-lfoo"]
    eq(show(user), ["cc"] + C + user + L)


@test
def preprocess_only():
    # The include path and VTRACE, so the preprocessed text is what the compile step sees.
    for user in (["-E", "a.c"], ["-E", "-P", "a.c", "-o", "a.i"], ["a.c", "-E"]):
        eq(show(user), ["cc"] + P + user, user)


@test
def dependency_only():
    for user in (["-M", "a.c"], ["-MM", "a.c", "-MF", "a.d"], ["-MM", "-MT", "x.o", "a.c"]):
        eq(show(user), ["cc"] + P + user, user)


@test
def dependencies_while_compiling():
    user = ["-MD", "-c", "a.c", "-o", "a.o"]
    eq(show(user), ["cc"] + C + user)
    user = ["-MMD", "-MF", "a.d", "-c", "a.c"]
    eq(show(user), ["cc"] + C + user)
    user = ["-MD", "a.c", "-o", "app"]
    eq(show(user), ["cc"] + C + user + L)


@test
def shared_library():
    user = ["-shared", "-fPIC", "a.c", "-o", "liba.so"]
    eq(show(user), ["cc"] + C + user + L)


@test
def option_values_are_not_modes():
    # "-c" and "-E" here are values of other options, not modes.
    user = ["-o", "-c", "a.c"]
    eq(show(user), ["cc"] + C + user + L)
    user = ["-Xlinker", "-E", "a.c"]
    eq(show(user), ["cc"] + C + user + L)


@test
def response_files():
    d = tmpdir("rsp")
    compile_rsp = write(os.path.join(d, "compile.rsp"), "-O2 -c\n'my file.c' -o \"x y.o\"\n")
    pre_rsp = write(os.path.join(d, "pre.rsp"), "-E a.c\n")
    nested = write(os.path.join(d, "nested.rsp"), "-Wall @%s\n" % compile_rsp)
    link_rsp = write(os.path.join(d, "link.rsp"), "a.o b.o -o app\n")
    for user, added_c, added_l in (
            (["@" + compile_rsp], C, []),
            (["-g", "@" + compile_rsp, "-DX"], C, []),
            (["@" + pre_rsp], P, []),
            (["@" + nested], C, []),
            (["@" + link_rsp], C, L),
            # A missing file is an ordinary argument for the compiler to complain about.
            (["@" + os.path.join(d, "missing.rsp"), "a.c"], C, L)):
        eq(show(user), ["cc"] + added_c + user + added_l, user)


@test
def info_runs_add_nothing():
    for user in ([], ["--version"], ["-v"], ["-dumpversion"], ["-print-file-name=libc.so"],
                 ["-dumpmachine"], ["--help"]):
        eq(show(user), ["cc"] + user, user)
    # -v with inputs is a verbose compile.
    eq(show(["-v", "a.c"]), ["cc"] + C + ["-v", "a.c"] + L)


@test
def cxx_and_fortran_drivers():
    eq(show(["-c", "a.cc"], prog=VTCXX), ["c++"] + C + ["-c", "a.cc"])
    eq(show(["a.cc", "-o", "a"], prog=VTCXX), ["c++"] + C + ["a.cc", "-o", "a"] + L)
    eq(show(["-c", "a.f90"], prog=VTFORT), ["gfortran"] + C + ["-c", "a.f90"])
    eq(show(["a.f90"], prog=VTFORT), ["gfortran"] + C + ["a.f90"] + L)
    eq(show(["-vt:cxx", "clang++", "-c", "a.cc"], prog=VTCXX),
       ["clang++"] + compile_flags(inst=DEFAULT_CLANG) + ["-c", "a.cc"])
    eq(show(["-vt:fc", "gfortran-12", "-c", "a.f90"], prog=VTFORT),
       ["gfortran-12"] + C + ["-c", "a.f90"])
    eq(show(["-c", "a.cc"], prog=VTCXX, env=clean_env(VT_CXX="g++-12")),
       ["g++-12"] + C + ["-c", "a.cc"])
    eq(show(["-c", "a.f"], prog=VTFORT, env=clean_env(VT_FC="gfortran-12")),
       ["gfortran-12"] + C + ["-c", "a.f"])


@test
def clang_gets_no_exclude_list():
    # compinst with clang: -finstrument-functions only (clang rejects the exclude list).
    clang_c = compile_flags(inst=COMPINST_CLANG)
    ci = ["-vt:inst", "compinst"]
    eq(show(ci + ["-vt:cc", "clang", "-c", "a.c"]), ["clang"] + clang_c + ["-c", "a.c"])
    eq(show(ci + ["-vt:cc", "/usr/bin/clang-14", "a.c"]),
       ["/usr/bin/clang-14"] + clang_c + ["a.c"] + L)
    eq(show(ci + ["-c", "a.c"], env=clean_env(VT_CC="clang")),
       ["clang"] + clang_c + ["-c", "a.c"])


@test
def default_is_the_compilers_plugin():
    # -vt:inst auto (the default): GCC's plugin for gcc, g++ and gfortran, the LLVM plugin
    # for clang, whatever name reaches them (cc is gcc here, clang-14 is clang).
    clang_c = compile_flags(inst=DEFAULT_CLANG)
    eq(show(["-vt:cc", "clang", "-c", "a.c"]), ["clang"] + clang_c + ["-c", "a.c"])
    eq(show(["-vt:cc", "/usr/bin/clang-14", "a.c"]),
       ["/usr/bin/clang-14"] + clang_c + ["a.c"] + L)
    eq(show(["-c", "a.c"], env=clean_env(VT_CC="clang")), ["clang"] + clang_c + ["-c", "a.c"])
    eq(show(["-vt:cc", "gcc", "-c", "a.c"]), ["gcc"] + compile_flags(inst=DEFAULT_GCC)
       + ["-c", "a.c"])
    eq(show(["-vt:inst", "compinst", "-vt:inst", "auto", "-c", "a.c"]), ["cc"] + C
       + ["-c", "a.c"], "auto names the default explicitly")
    if HAVE_GCC_PLUGIN:
        assert "-fplugin=" + os.path.join(PLUGINDIR, "vt_gcc.so") in C, C
    if HAVE_LLVM_PLUGIN:
        assert "-fpass-plugin=" + os.path.join(PLUGINDIR, "vt_llvm.so") in clang_c, clang_c


def fake_compiler(d, name, version):
    """A compiler that prints VERSION for -dumpfullversion/-dumpversion and records its
    other runs' arguments in NAME.argv."""
    log = os.path.join(d, name + ".argv")
    return write(os.path.join(d, name),
                 "#!/usr/bin/python3\nimport json, sys\n"
                 "if sys.argv[1:] in (['-dumpfullversion'], ['-dumpversion']):\n"
                 "    print(%r) if %r else None\n    sys.exit(0)\n"
                 "json.dump(sys.argv[1:], open(%r, 'w'))\n" % (version, version, log),
                 0o755), log


@test
def default_falls_back_to_compinst():
    # A plugin loads only into the compiler version it was built for: any other version
    # (or a compiler that does not tell) gets -finstrument-functions by default, and an
    # explicit plugin is a usage error naming both versions.
    d = tmpdir("fallback")
    gcc_version = run(["gcc", "-dumpfullversion"]).stdout.strip()
    old, _ = fake_compiler(d, "gcc-old", "9.1.0")
    silent, _ = fake_compiler(d, "mycc", "")
    same, _ = fake_compiler(d, "gcc-same", gcc_version)
    for cc in (old, silent):
        eq(show(["-vt:cc", cc, "-c", "a.c"]), [cc] + compile_flags(inst=COMPINST_GCC)
           + ["-c", "a.c"], cc)
    eq(show(["-vt:cc", same, "-c", "a.c"]), [same] + C + ["-c", "a.c"],
       "a compiler of the plugin's version gets the plugin")
    if HAVE_GCC_PLUGIN:
        p = run([VTCC, "-vt:show", "-vt:cc", old, "-vt:inst", "gcc", "-c", "a.c"], check=False)
        eq(p.returncode, 2, p.stderr)
        assert p.stderr.startswith("vtcc: error: -vt:inst gcc: ") and gcc_version in p.stderr \
            and "9.1.0" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    old_clang, _ = fake_compiler(d, "clang-old", "13.0.1")
    eq(show(["-vt:cc", old_clang, "-c", "a.c"]), [old_clang] + compile_flags(inst=COMPINST_CLANG)
       + ["-c", "a.c"])
    # The wrong family for the plugin asked for.
    for args, prog in ((["-vt:inst", "llvm", "-c", "a.c"], VTCC),
                       (["-vt:cxx", "clang++", "-vt:inst", "gcc", "-c", "a.cc"], VTCXX)):
        p = run([prog, "-vt:show"] + args, check=False)
        eq(p.returncode, 2, p.stderr)
        assert "-vt:inst" in p.stderr and p.stderr.count("\n") == 1, p.stderr


@test
def plugin_options():
    d = tmpdir("popts")
    filt = write(os.path.join(d, "my.filter"), "hot -- 0\n")
    opts = ["-vt:filter", filt, "-vt:min-insns", "12", "-vt:inline", "skip"]
    if HAVE_GCC_PLUGIN:
        eq(show(opts + ["-vt:cc", "gcc", "-c", "a.c"]),
           ["gcc"] + compile_flags(inst=plugin_gcc() + [
               "-fplugin-arg-vt_gcc-filter=" + filt, "-fplugin-arg-vt_gcc-min-insns=12",
               "-fplugin-arg-vt_gcc-inline=skip"]) + ["-c", "a.c"])
    if HAVE_LLVM_PLUGIN:
        so = os.path.join(PLUGINDIR, "vt_llvm.so")
        eq(show(opts + ["-vt:cc", "clang", "-c", "a.c"]),
           ["clang"] + compile_flags(inst=plugin_llvm() + [
               "-Xclang", "-load", "-Xclang", so,
               "-Xclang", "-mllvm", "-Xclang", "-vt-filter=" + filt,
               "-Xclang", "-mllvm", "-Xclang", "-vt-min-insns=12",
               "-Xclang", "-mllvm", "-Xclang", "-vt-inline=skip"]) + ["-c", "a.c"])
    if HAVE_LLVM_PLUGIN:
        # LLVM IR does not say what comes from a system header: the -isystem directories
        # go to the LLVM plugin (GCC's plugin knows them itself).
        so = os.path.join(PLUGINDIR, "vt_llvm.so")
        eq(show(["-vt:cc", "clang", "-isystem", d, "-isystem/nonexistent", "-c", "a.c"]),
           ["clang"] + compile_flags(inst=plugin_llvm() + [
               "-Xclang", "-load", "-Xclang", so,
               "-Xclang", "-mllvm", "-Xclang", "-vt-system-dir=" + os.path.realpath(d)])
           + ["-isystem", d, "-isystem/nonexistent", "-c", "a.c"])
    if HAVE_GCC_PLUGIN:
        eq(show(["-vt:cc", "gcc", "-isystem", d, "-c", "a.c"]),
           ["gcc"] + compile_flags(inst=plugin_gcc()) + ["-isystem", d, "-c", "a.c"])
    if HAVE_GCC_PLUGIN:
        # A relative filter path is made absolute: the compiler's own working directory
        # may differ (a build system that changes directory per step).
        p = run([VTCC, "-vt:show", "-vt:filter", "my.filter", "-c", "a.c"], cwd=d)
        eq(shlex.split(p.stdout), ["cc"] + compile_flags(inst=plugin_gcc() + [
            "-fplugin-arg-vt_gcc-filter=" + os.path.realpath(filt)]) + ["-c", "a.c"])
    # Plugin options without a plugin, bad values, an unreadable filter: usage errors.
    for args in (["-vt:inst", "compinst", "-vt:filter", filt],
                 ["-vt:inst", "manual", "-vt:inline", "all"],
                 ["-vt:min-insns", "-3"], ["-vt:min-insns", "x"], ["-vt:inline", "some"],
                 ["-vt:filter", os.path.join(d, "missing.filter")]):
        p = run([VTCC, "-vt:show"] + args + ["-c", "a.c"], check=False)
        eq(p.returncode, 2, (args, p.stderr))
        assert p.stderr.startswith("vtcc: error: ") and p.stderr.count("\n") == 1, p.stderr
        assert args[-2] in p.stderr, (args, p.stderr)


@test
def mpi_wrapper_family():
    # The wrapper is asked which compiler it runs; with Open MPI, OMPI_CC switches it.
    for extra in ({}, {"OMPI_CC": "clang", "MPICH_CC": "clang"}):
        env = clean_env(**extra)
        version = run(["mpicc", "--version"], env=env).stdout
        inst = COMPINST_CLANG if "clang" in version else COMPINST_GCC
        eq(show(["-vt:inst", "compinst", "-vt:cc", "mpicc", "-c", "a.c"], env=env),
           ["mpicc"] + compile_flags(inst=inst) + ["-c", "a.c"], extra)
        # The default plugin follows the same family (and the wrapper passes the version
        # question on to its compiler).
        inst = DEFAULT_CLANG if "clang" in version else DEFAULT_GCC
        eq(show(["-vt:cc", "mpicc", "-c", "a.c"], env=env),
           ["mpicc"] + compile_flags(inst=inst) + ["-c", "a.c"], extra)


@test
def mpi_mode():
    # An MPI wrapper means MPI mode: vt's wrappers of that MPI are linked before libvt; the
    # Debian alternatives' mpicc resolves to Open MPI's here, and a link to MPICH's wrapper
    # under the plain name is recognised by what it resolves to.
    C_ = compile_flags()
    mpich_link = os.path.join(tmpdir("mpi-mode"), "mpicc")
    os.symlink("/usr/bin/mpicc.mpich", mpich_link)
    for cc, lib in (("mpicc", "vt-mpi"), ("mpicc.openmpi", "vt-mpi"), ("mpicc.mpich", "vt-mpich"),
                    (mpich_link, "vt-mpich")):
        eq(show(["-vt:inst", "gcc" if HAVE_GCC_PLUGIN else "compinst", "-vt:cc", cc, "a.c", "-o",
                 "a"]),
           [cc] + (C_ if HAVE_GCC_PLUGIN else compile_flags(inst=COMPINST_GCC))
           + ["a.c", "-o", "a"] + link_flags(mpi=lib), cc)
        # Compiling only links nothing.
        eq(show(["-vt:inst", "compinst", "-vt:cc", cc, "-c", "a.c"]),
           [cc] + compile_flags(inst=COMPINST_GCC) + ["-c", "a.c"], cc + " -c")
    # Links: what follows the user's arguments.
    def tail(prog, args):
        words = show(args, prog=prog)
        return words[words.index("a") + 1:]
    eq(tail(VTCXX, ["-vt:cxx", "mpicxx.mpich", "a.o", "-o", "a"]), link_flags(mpi="vt-mpich"),
       "vtcxx over mpicxx.mpich")
    eq(tail(VTFORT, ["-vt:fc", "mpif90", "a.o", "-o", "a"]), link_flags(mpi="vt-mpi"),
       "vtfort over mpif90")
    eq(tail(VTCC, ["-vt:cc", "mpicc", "-vt:nompi", "a.o", "-o", "a"]), link_flags(), "-vt:nompi")
    eq(tail(VTCC, ["-vt:mpi", "a.o", "-o", "a"]), link_flags(mpi="vt-mpi"), "-vt:mpi with cc")
    eq(tail(VTCC, ["a.o", "-o", "a"]), link_flags(), "cc: no MPI")
    p = run([VTCC, "-vt:mpi", "-vt:nompi", "a.o"], check=False)
    eq(p.returncode, 2, "-vt:mpi with -vt:nompi: usage error")
    assert "-vt:mpi and -vt:nompi" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    out = run([VTCC, "-vt:cc", "mpicc.mpich", "-vt:version"]).stdout
    assert "MPI: on (MPI compiler wrapper), links libvt-mpich.so" in out, out


@test
def instrumentation_methods():
    user = ["a.c", "-o", "a"]
    eq(show(["-vt:inst", "none"] + user), ["cc"] + compile_flags(vtrace=False, inst=[]) + user + L)
    eq(show(["-vt:inst", "manual"] + user), ["cc"] + compile_flags(inst=[]) + user + L)
    eq(show(["-vt:inst", "compinst"] + user), ["cc"] + compile_flags(inst=COMPINST_GCC) + user
       + L)
    eq(show(["-vt:inst", "auto"] + user), ["cc"] + C + user + L)
    if HAVE_GCC_PLUGIN:
        eq(show(["-vt:inst", "gcc"] + user), ["cc"] + compile_flags(inst=plugin_gcc()) + user
           + L)
    if HAVE_LLVM_PLUGIN:
        eq(show(["-vt:inst", "llvm", "-vt:cc", "clang"] + user),
           ["clang"] + compile_flags(inst=plugin_llvm()) + user + L)
    eq(show(["-vt:inst", "none", "-vt:inst", "manual", "-c", "a.c"]),
       ["cc"] + compile_flags(inst=[]) + ["-c", "a.c"], "last -vt:inst wins")


@test
def compiler_from_env_and_option():
    eq(show(["-c", "a.c"], env=clean_env(VT_CC="gcc-12")), ["gcc-12"] + C + ["-c", "a.c"])
    eq(show(["-vt:cc", "gcc", "-c", "a.c"], env=clean_env(VT_CC="gcc-12")),
       ["gcc"] + C + ["-c", "a.c"], "-vt:cc beats VT_CC")
    eq(show(["-c", "a.c"], env=clean_env(VT_CC="")), ["cc"] + C + ["-c", "a.c"],
       "empty VT_CC")


@test
def threads():
    eq(show(["-vt:mt", "a.c", "-o", "a"]),
       ["cc"] + compile_flags(mt=True) + ["a.c", "-o", "a"] + link_flags(mt=True))
    eq(show(["-vt:mt", "-c", "a.c"]), ["cc"] + compile_flags(mt=True) + ["-c", "a.c"])
    eq(show(["-vt:mt", "-E", "a.c"]), ["cc"] + P + ["-E", "a.c"])


@test
def vt_options_anywhere():
    eq(show(["-c", "-vt:inst", "manual", "a.c", "-vt:mt"]),
       ["cc"] + compile_flags(inst=[], mt=True) + ["-c", "a.c"])


@test
def show_matches_what_runs():
    # A fake compiler records the argv it gets; it must equal what -vt:show prints.
    d = tmpdir("fake")
    log = os.path.join(d, "argv.json")
    fake = write(os.path.join(d, "fakecc"),
                 "#!/usr/bin/python3\nimport json, sys\n"
                 "json.dump(sys.argv[1:], open(%r, 'w'))\n" % log, 0o755)
    user = ["-c", "a b.c", "", "it's", "new\nline", "-DX=\"1 2\"", "$HOME", "*.c", "\\"]
    shown = show(["-vt:cc", fake] + user)
    run([VTCC, "-vt:cc", fake] + user)
    with open(log) as f:
        eq([fake] + json.load(f), shown)
    # The fake compiler does not tell its version, so the default is compinst (GCC's flags:
    # its name says nothing of clang).
    eq(shown, [fake] + compile_flags(inst=COMPINST_GCC) + user)


@test
def show_runs_nothing():
    d = tmpdir("norun")
    src = write(os.path.join(d, "a.c"), "int main(void) { return 0; }\n")
    p = subprocess.run([VTCC, "-vt:show", src, "-o", os.path.join(d, "a")],
                       capture_output=True, text=True, env=clean_env())
    eq(p.returncode, 0)
    assert not os.path.exists(os.path.join(d, "a")), "-vt:show ran the compiler"


@test
def version_and_help():
    p = run([VTCC, "-vt:version"])
    lines = p.stdout.splitlines()
    eq(lines[0], "vtcc (vt) 0.1.0")
    assert "cc" in lines[1], lines
    assert run([VTCXX, "-vt:version"]).stdout.splitlines()[1].startswith("C++ compiler: c++")
    assert "gfortran" in run([VTFORT, "-vt:version"]).stdout.splitlines()[1]
    h = run([VTCC, "-vt:help"]).stdout
    for opt in ("-vt:cc", "-vt:inst", "compinst", "manual", "none", "-vt:mt", "-vt:show",
                "-vt:verbose", "-vt:version", "-vt:help", "VT_CC"):
        assert opt in h, opt
    assert "-vt:cxx" in run([VTCXX, "-vt:help"]).stdout
    for opt in ("auto", "gcc", "llvm", "-vt:filter", "-vt:min-insns", "-vt:inline"):
        assert opt in h, opt
    # Which instrumentation the default gives, and where the plugin is.
    want = "instrumentation: gcc (plugin %s)" % os.path.join(PLUGINDIR, "vt_gcc.so") \
        if HAVE_GCC_PLUGIN else "instrumentation: compinst (no plugin: "
    assert want in lines[-3], lines
    eq(lines[-2], "MPI: off (not an MPI compiler wrapper; -vt:mpi turns it on)", "MPI mode")
    eq(lines[-1], "OpenMP: -fopenmp links %s in place of libgomp" % LIBOMP if LIBOMP else
       "OpenMP: libgomp (vt was built without libomp): no OpenMP events", "OpenMP runtime")
    lines = run([VTCC, "-vt:cc", "clang", "-vt:version"]).stdout.splitlines()
    want = "instrumentation: llvm (plugin %s)" % os.path.join(PLUGINDIR, "vt_llvm.so") \
        if HAVE_LLVM_PLUGIN else "instrumentation: compinst (no plugin: "
    assert want in lines[-3], lines
    eq(lines[-1], "OpenMP: the compiler's (clang -fopenmp links libomp)", "clang's OpenMP")
    lines = run([VTCC, "-vt:openmp-runtime", "libgomp", "-vt:version"]).stdout.splitlines()
    eq(lines[-1], "OpenMP: libgomp (chosen): no OpenMP events", "libgomp chosen")
    assert "-vt:openmp-runtime" in h and "VT_OPENMP_RUNTIME" in h, h
    for opt in ("-vt:mpi", "-vt:nompi"):
        assert opt in h, opt


@test
def openmp_runtime():
    # gcc's own -lgomp finds vt's libgomp.so (a linker script naming libomp) first; the
    # run path has libomp's folder. Only for links of GCC that ask for libgomp.
    if not LIBOMP:
        return
    omp = ["-L" + os.path.join(BUILD_ROOT, "vtcc", "openmp"),
           "-Wl,-rpath," + os.path.dirname(LIBOMP)]
    for user in (["-fopenmp", "a.c", "-o", "a"], ["a.o", "-lgomp"], ["a.o", "-l", "gomp"],
                 ["-ftree-parallelize-loops=4", "a.c"], ["-fno-openmp", "-fopenmp", "a.o"]):
        eq(show(user), ["cc"] + C + user + L + omp, user)
    eq(show(["-fopenmp", "a.f90"], prog=VTFORT)[-2:], omp, "vtfort")
    eq(show(["-fopenmp", "a.cc"], prog=VTCXX)[-2:], omp, "vtcxx")
    d = tmpdir("omprsp")
    rsp = write(os.path.join(d, "args"), "-fopenmp a.c\n")
    eq(show(["@" + rsp]), ["cc"] + C + ["@" + rsp] + L + omp, "response file")
    # Not for: compiling only, -fno-openmp last, -ftree-parallelize-loops=1, OpenACC,
    # libgomp chosen (option or environment), clang (it links libomp by itself).
    for user in (["-fopenmp", "-c", "a.c"], ["-fopenmp", "-fno-openmp", "a.o"],
                 ["-ftree-parallelize-loops=1", "a.o"], ["-fopenacc", "-fopenmp", "a.o"],
                 ["-vt:openmp-runtime", "libgomp", "-fopenmp", "a.o"]):
        assert "-Wl,-rpath," + os.path.dirname(LIBOMP) not in show(user), user
    assert omp[0] not in show(["-fopenmp", "a.o"], env=clean_env(VT_OPENMP_RUNTIME="libgomp"))
    eq(show(["-fopenmp", "a.o"], env=clean_env(VT_OPENMP_RUNTIME="libomp"))[-2:], omp, "env")
    eq(show(["-vt:cc", "clang", "-fopenmp", "a.o"]),
       ["clang"] + compile_flags(inst=DEFAULT_CLANG) + ["-fopenmp", "a.o"] + L, "clang")


@test
def static_link_without_static_runtime():
    p = run([VTCC, "-vt:show", "-static", "a.c"], check=False)
    eq(p.returncode, 2)
    eq(len(p.stderr.splitlines()), 1, p.stderr)
    assert "libvt.a" in p.stderr, p.stderr
    # Compiling for a static link later is fine.
    eq(show(["-static", "-c", "a.c"]), ["cc"] + C + ["-static", "-c", "a.c"])


@test
def moved_installation():
    """An installed vtcc found under another prefix than the configured one (dpkg -x into a
    root, a copied prefix) uses that prefix's files when it holds the runtime, else the
    configured ones; a vtcc in a folder not named as bindir always the configured ones."""
    opts = {o["name"]: o["value"] for o in json.loads(
        run(["meson", "introspect", "--buildoptions", BUILD_ROOT]).stdout)}
    prefix, rel = opts["prefix"], {k: opts[k] for k in ("bindir", "libdir", "includedir")}
    conf = {k: os.path.join(prefix, v) for k, v in rel.items()}
    top = tmpdir("moved")
    moved = {k: os.path.join(top, "usr", v) for k, v in rel.items()}
    for d in (moved["bindir"], moved["libdir"], os.path.join(top, "elsewhere")):
        os.makedirs(d)
    prog = os.path.join(moved["bindir"], "vtcc")
    other = os.path.join(top, "elsewhere", "vtcc")
    for p in (prog, other):
        subprocess.run(["cp", VTCC, p], check=True)
    user = ["a.c", "-o", "a", "-vt:inst", "compinst"]

    def flags(prog):
        words = show(user, prog=prog)
        version = [l for l in run([prog, "-vt:version"]).stdout.splitlines()
                   if l.startswith("runtime: ")]
        return ([w for w in words if w.startswith(("-I", "-L", "-Wl,-rpath,"))], version)

    configured = (["-I" + conf["includedir"], "-L" + conf["libdir"],
                   "-Wl,-rpath," + conf["libdir"]], ["runtime: %s (installed)" % conf["libdir"]])
    eq(flags(prog), configured, "no runtime under the moved prefix: the configured one")
    write(os.path.join(moved["libdir"], "libvt.so.0"), "")
    eq(flags(prog), (["-I" + moved["includedir"], "-L" + moved["libdir"],
                      "-Wl,-rpath," + moved["libdir"]],
                     ["runtime: %s (installed, moved)" % moved["libdir"]]),
       "the runtime under the moved prefix: that prefix's directories")
    eq(flags(other), configured, "a vtcc outside a bindir: the configured directories")


if __name__ == "__main__":
    main()
