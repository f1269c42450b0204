#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Real builds with vtcc, vtcxx and vtfort (gcc and clang): the programs run, are instrumented
and are linked against the build tree's libvt."""

import os
import shutil

from vtcctest import (COMPINST_HOOKS, DEFAULT_CLANG_HOOKS, DEFAULT_GCC_HOOKS, HAVE_GCC_PLUGIN,
                      HERE, LIBDIR, PLUGIN_HOOKS, VTCC, VTCXX, VTFORT, check_trace, clean_env,
                      eq, main, run, test, tmpdir)

PROGS = os.path.join(HERE, "progs")


def src(name):
    return os.path.join(PROGS, name)


def run_prog(exe, want):
    """Runs EXE with traces going to a scratch directory; checks its stdout exactly."""
    gdir = tmpdir("trace")
    try:
        p = run([exe], env=clean_env(VT_PFORM_GDIR=gdir))
        eq(p.stdout, want, exe)
    finally:
        shutil.rmtree(gdir, ignore_errors=True)


def undefined_symbols(path):
    out = run(["nm", "-u", path]).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def assert_instrumented(obj, hooks=DEFAULT_GCC_HOOKS):
    """obj calls exactly the given instrumentation hooks (PLUGIN_HOOKS or COMPINST_HOOKS),
    and none of the other method's; hooks=None: no instrumentation at all."""
    syms = undefined_symbols(obj)
    for hook in PLUGIN_HOOKS + COMPINST_HOOKS:
        want = hooks is not None and hook in hooks
        assert (hook in syms) == want, "%s: %s %s" % (obj, hook, "missing" if want else "present")


def hooks_of(compiler):
    """The hooks vtcc's default instrumentation makes code built by compiler call."""
    return DEFAULT_CLANG_HOOKS if "clang" in compiler else DEFAULT_GCC_HOOKS


def assert_links_libvt(exe):
    for line in run(["ldd", exe]).stdout.splitlines():
        words = line.split()
        if words and words[0].startswith("libvt.so"):
            assert len(words) >= 3 and words[1] == "=>", line
            eq(os.path.realpath(os.path.dirname(words[2])), os.path.realpath(LIBDIR), line)
            return
    raise AssertionError("ldd %s shows no libvt" % exe)


def c_build(compiler):
    d = tmpdir("c-" + compiler)
    opts = ["-vt:cc", compiler]
    # Separate compile steps, then a link of objects only.
    objs = []
    for name in ("main.c", "greet.c"):
        obj = os.path.join(d, name[:-2] + ".o")
        run([VTCC] + opts + ["-O2", "-g", "-c", src(name), "-o", obj])
        assert_instrumented(obj, hooks_of(compiler))
        objs.append(obj)
    exe = os.path.join(d, "hello")
    run([VTCC] + opts + objs + ["-o", exe])
    assert_links_libvt(exe)
    run_prog(exe, "hello 43\n")
    # One step, compile and link together.
    exe1 = os.path.join(d, "hello1")
    run([VTCC] + opts + [src("main.c"), src("greet.c"), "-o", exe1], cwd=d)
    assert_instrumented(exe1, hooks_of(compiler))
    assert_links_libvt(exe1)
    run_prog(exe1, "hello 43\n")
    shutil.rmtree(d)


@test
def c_with_gcc():
    c_build("gcc")


@test
def c_with_clang():
    c_build("clang")


@test
def c_with_default_cc():
    d = tmpdir("c-cc")
    exe = os.path.join(d, "hello")
    run([VTCC, src("main.c"), src("greet.c"), "-o", exe])
    assert_instrumented(exe)
    run_prog(exe, "hello 43\n")
    shutil.rmtree(d)


@test
def cxx():
    for compiler in ("c++", "clang++"):
        d = tmpdir("cxx-" + compiler)
        obj, exe = os.path.join(d, "hello.o"), os.path.join(d, "hello")
        run([VTCXX, "-vt:cxx", compiler, "-O1", "-c", src("hello.cc"), "-o", obj])
        assert_instrumented(obj, hooks_of(compiler))
        run([VTCXX, "-vt:cxx", compiler, obj, "-o", exe])
        assert_links_libvt(exe)
        run_prog(exe, "c++ 10 abab\n")
        shutil.rmtree(d)


@test
def fortran():
    d = tmpdir("fortran")
    obj, exe = os.path.join(d, "hello.o"), os.path.join(d, "hello")
    # gfortran writes the .mod file to the working directory.
    run([VTFORT, "-c", src("hello.f90"), "-o", obj], cwd=d)
    assert_instrumented(obj)
    run([VTFORT, obj, "-o", exe], cwd=d)
    assert_links_libvt(exe)
    run_prog(exe, "fortran 144\n")
    shutil.rmtree(d)


@test
def threads():
    d = tmpdir("mt")
    exe = os.path.join(d, "threads")
    run([VTCC, "-vt:mt", src("threads.c"), "-o", exe])
    assert_instrumented(exe)
    assert_links_libvt(exe)
    run_prog(exe, "threads 14\n")
    shutil.rmtree(d)


@test
def manual_and_none_link_but_do_not_instrument():
    for inst in ("manual", "none"):
        d = tmpdir(inst)
        obj, exe = os.path.join(d, "main.o"), os.path.join(d, "hello")
        run([VTCC, "-vt:inst", inst, "-c", src("main.c"), "-o", obj])
        assert_instrumented(obj, None)
        run([VTCC, "-vt:inst", inst, obj, src("greet.c"), "-o", exe])
        assert_instrumented(exe, None)
        assert_links_libvt(exe)
        run_prog(exe, "hello 43\n")
        shutil.rmtree(d)


@test
def user_api_per_method():
    # manual: the user API only; none: not even that; compinst and the plugins: both.
    methods = [("manual", True, None), ("none", False, None), ("compinst", True, COMPINST_HOOKS)]
    if HAVE_GCC_PLUGIN:
        methods.append(("gcc", True, PLUGIN_HOOKS))
    for inst, api, hooks in methods:
        d = tmpdir("user-" + inst)
        exe = os.path.join(d, "user")
        run([VTCC, "-vt:inst", inst, src("user.c"), "-o", exe])
        syms = undefined_symbols(exe)
        eq("vt_user_start_cached" in syms, api, inst)
        assert_instrumented(exe, hooks)
        assert_links_libvt(exe)
        regions = (["vtcc_test_phase"] if api else []) + (["main"] if hooks else [])
        if regions:
            check_trace(exe, "user api\n", regions)
        else:
            run_prog(exe, "user api\n")
        shutil.rmtree(d)


@test
def shared_library_links_libvt():
    d = tmpdir("shared")
    lib = os.path.join(d, "libgreet.so")
    run([VTCC, "-shared", "-fPIC", src("greet.c"), "-o", lib])
    assert_instrumented(lib)
    assert_links_libvt(lib)
    exe = os.path.join(d, "hello")
    run([VTCC, src("main.c"), "-L" + d, "-lgreet", "-Wl,-rpath," + d, "-o", exe])
    run_prog(exe, "hello 43\n")
    shutil.rmtree(d)


@test
def response_file_build():
    d = tmpdir("rsp")
    obj = os.path.join(d, "my main.o")
    rsp = os.path.join(d, "args.rsp")
    with open(rsp, "w") as f:
        f.write("-c '%s' -o '%s'\n" % (src("main.c"), obj))
    run([VTCC, "@" + rsp])
    assert_instrumented(obj)
    exe = os.path.join(d, "hello")
    with open(rsp, "w") as f:
        f.write("'%s' '%s' -o '%s'\n" % (obj, src("greet.c"), exe))
    run([VTCC, "@" + rsp])
    assert_links_libvt(exe)
    run_prog(exe, "hello 43\n")
    shutil.rmtree(d)


if __name__ == "__main__":
    main()
