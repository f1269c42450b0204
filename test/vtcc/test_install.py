#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The installed vtcc: configure vt for a fresh prefix, install, delete the build directory, then
build and run programs with PREFIX/bin/vtcc from elsewhere. Slow (a full build): suite 'install'."""

import json
import os
import shutil

from vtcctest import (BUILD_ROOT, COMPINST_GCC, DEFAULT_GCC_HOOKS, HAVE_GCC_PLUGIN,
                      HAVE_LLVM_PLUGIN, HERE, SOURCE_ROOT, check_trace, clean_env, compile_flags,
                      eq, link_flags, main, plugin_gcc, run, show, test, tmpdir)

PROGS = os.path.join(HERE, "progs")
MESON = shutil.which("meson") or "/usr/bin/meson"

state = {}


@test
def install_into_prefix():
    top = tmpdir("install")
    prefix, build = os.path.join(top, "p"), os.path.join(top, "b")
    run([MESON, "setup", build, SOURCE_ROOT, "--prefix=" + prefix], timeout=600)
    opts = json.loads(run([MESON, "introspect", "--buildoptions", build]).stdout)
    values = {o["name"]: o["value"] for o in opts}
    run([MESON, "install", "-C", build, "--quiet"], timeout=1200)
    # Nothing of the build tree may be needed any more.
    shutil.rmtree(build)
    state.update(top=top, prefix=prefix, bindir=os.path.join(prefix, values["bindir"]),
                 libdir=os.path.join(prefix, values["libdir"]),
                 incdir=os.path.join(prefix, values["includedir"]))
    b = state["bindir"]
    assert os.path.isfile(os.path.join(b, "vtcc")), os.listdir(b)
    for alias in ("vtcxx", "vtfort"):
        eq(os.readlink(os.path.join(b, alias)), "vtcc", alias)
    assert os.path.exists(os.path.join(state["libdir"], "libvt.so"))
    assert os.path.exists(os.path.join(state["incdir"], "vt", "vt_user.h"))
    # The compiler plugins this build tree has are installed too, beside libvt.
    for have, name in ((HAVE_GCC_PLUGIN, "vt_gcc.so"), (HAVE_LLVM_PLUGIN, "vt_llvm.so")):
        eq(os.path.exists(os.path.join(state["libdir"], "vt", name)), have, name)


def installed(name):
    assert state, "install failed"
    return os.path.join(state["bindir"], name)


@test
def installed_flags():
    inc, lib = state.get("incdir"), state.get("libdir")
    vtcc = installed("vtcc")
    # The default instrumentation uses the installed plugin.
    inst = plugin_gcc(os.path.join(lib, "vt")) if HAVE_GCC_PLUGIN else COMPINST_GCC
    eq(show(["-c", "a.c"], prog=vtcc), ["cc"] + compile_flags(incdir=inc, inst=inst)
       + ["-c", "a.c"])
    eq(show(["a.o"], prog=vtcc), ["cc"] + compile_flags(incdir=inc, inst=inst) + ["a.o"]
       + link_flags(libdir=lib))
    assert "(installed)" in run([vtcc, "-vt:version"]).stdout
    # gcc -fopenmp: the installed libgomp.so that names LLVM's libomp (docs/openmp.md).
    gomp = os.path.join(lib, "vt", "openmp")
    if os.path.exists(os.path.join(BUILD_ROOT, "vtcc", "openmp", "libgomp.so")):
        assert "-L" + gomp in show(["-fopenmp", "a.o"], prog=vtcc)
        assert "INPUT(" in open(os.path.join(gomp, "libgomp.so")).read()


@test
def installed_builds_from_anywhere():
    work = os.path.join(state["top"] if state else "/nonexistent", "work")
    os.makedirs(work, exist_ok=True)
    # Found through PATH, so argv[0] has no directory in it.
    env = clean_env(PATH=state.get("bindir", "") + os.pathsep + os.environ["PATH"])
    run(["vtcc", "-O2", os.path.join(PROGS, "main.c"), os.path.join(PROGS, "greet.c"), "-o",
         "hello"], cwd=work, env=env)
    run(["vtcxx", os.path.join(PROGS, "hello.cc"), "-o", "hellocc"], cwd=work, env=env)
    run(["vtfort", os.path.join(PROGS, "hello.f90"), "-o", "hellof"], cwd=work, env=env)
    for exe in ("hello", "hellocc", "hellof"):
        ldd = run(["ldd", os.path.join(work, exe)]).stdout
        assert "=> %s/libvt.so" % state["libdir"] in ldd, ldd
    hooks = run(["nm", "-u", os.path.join(work, "hello")]).stdout
    assert DEFAULT_GCC_HOOKS[0] in hooks, hooks
    check_trace(os.path.join(work, "hello"), "hello 43\n", ["main"])
    eq(run([os.path.join(work, "hellocc")], env=clean_env(VT_ON="no")).stdout, "c++ 10 abab\n")
    eq(run([os.path.join(work, "hellof")], env=clean_env(VT_ON="no")).stdout, "fortran 144\n")


@test
def cleanup():
    if state:
        shutil.rmtree(state["top"])


if __name__ == "__main__":
    main()
