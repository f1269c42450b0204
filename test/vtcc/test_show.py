#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""vtcc -vt:show: which flags vtcc adds for each kind of step, where, and that user args stay."""

import json
import os
import subprocess

from vtcctest import (VTCC, VTCXX, VTFORT, COMPINST_GCC, clean_env, compile_flags, eq,
                      link_flags, main, preprocess_flags, run, show, test, tmpdir, write)

C = compile_flags()
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
       ["clang++"] + compile_flags(inst=["-finstrument-functions"]) + ["-c", "a.cc"])
    eq(show(["-vt:fc", "gfortran-12", "-c", "a.f90"], prog=VTFORT),
       ["gfortran-12"] + C + ["-c", "a.f90"])
    eq(show(["-c", "a.cc"], prog=VTCXX, env=clean_env(VT_CXX="g++-12")),
       ["g++-12"] + C + ["-c", "a.cc"])
    eq(show(["-c", "a.f"], prog=VTFORT, env=clean_env(VT_FC="gfortran-12")),
       ["gfortran-12"] + C + ["-c", "a.f"])


@test
def clang_gets_no_exclude_list():
    clang_c = compile_flags(inst=["-finstrument-functions"])
    eq(show(["-vt:cc", "clang", "-c", "a.c"]), ["clang"] + clang_c + ["-c", "a.c"])
    eq(show(["-vt:cc", "/usr/bin/clang-14", "a.c"]),
       ["/usr/bin/clang-14"] + clang_c + ["a.c"] + L)
    eq(show(["-c", "a.c"], env=clean_env(VT_CC="clang")), ["clang"] + clang_c + ["-c", "a.c"])


@test
def mpi_wrapper_family():
    # The wrapper is asked which compiler it runs; with Open MPI, OMPI_CC switches it.
    for extra in ({}, {"OMPI_CC": "clang", "MPICH_CC": "clang"}):
        env = clean_env(**extra)
        version = run(["mpicc", "--version"], env=env).stdout
        inst = ["-finstrument-functions"] if "clang" in version else COMPINST_GCC
        eq(show(["-vt:cc", "mpicc", "-c", "a.c"], env=env),
           ["mpicc"] + compile_flags(inst=inst) + ["-c", "a.c"], extra)


@test
def instrumentation_methods():
    user = ["a.c", "-o", "a"]
    eq(show(["-vt:inst", "none"] + user), ["cc"] + compile_flags(vtrace=False, inst=[]) + user + L)
    eq(show(["-vt:inst", "manual"] + user), ["cc"] + compile_flags(inst=[]) + user + L)
    eq(show(["-vt:inst", "compinst"] + user), ["cc"] + C + user + L)
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
    eq(shown, [fake] + C + user)


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


@test
def static_link_without_static_runtime():
    p = run([VTCC, "-vt:show", "-static", "a.c"], check=False)
    eq(p.returncode, 2)
    eq(len(p.stderr.splitlines()), 1, p.stderr)
    assert "libvt.a" in p.stderr, p.stderr
    # Compiling for a static link later is fine.
    eq(show(["-static", "-c", "a.c"]), ["cc"] + C + ["-static", "-c", "a.c"])


if __name__ == "__main__":
    main()
