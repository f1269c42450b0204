#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""vtcc as CC of real build systems: a CMake project and an autoconf-style configure + make.
The built programs run, and their traces show main entered."""

import os
import shutil

from vtcctest import (DEFAULT_CLANG_HOOKS, DEFAULT_GCC_HOOKS, HERE, VTCC, check_trace, clean_env,
                      main, run, test, tmpdir)

PROJECTS = os.path.join(HERE, "projects")


def undefined_symbols(path):
    return run(["nm", "-u", path]).stdout


@test
def cmake_project():
    d = tmpdir("cmake")
    build = os.path.join(d, "build")
    env = clean_env(CC=VTCC)
    run(["cmake", "-S", os.path.join(PROJECTS, "cmake"), "-B", build,
         "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], env=env)
    cache = open(os.path.join(build, "CMakeCache.txt")).read()
    assert "CMAKE_C_COMPILER:FILEPATH=%s" % VTCC in cache, "CMake did not take CC=vtcc"
    run(["cmake", "--build", build, "--verbose"], env=env)
    exe = os.path.join(build, "cmkhello")
    lib = os.path.join(build, "libgreet.so")
    # cc is gcc: vtcc's default instrumentation for it.
    for path in (exe, lib):
        assert DEFAULT_GCC_HOOKS[0] in undefined_symbols(path), path
    check_trace(exe, "cmake hello 43\n", ["main", "vtcc_proj_greet"])
    shutil.rmtree(d)


@test
def autoconf_style_project():
    d = tmpdir("autoconf")
    # Out of tree, as "mkdir build && cd build && ../configure" does.
    p = run(["sh", os.path.join(PROJECTS, "autoconf", "configure"), "CC=" + VTCC], cwd=d)
    assert "checking whether the C compiler works... yes" in p.stdout, p.stdout
    assert "checking for sqrt in -lm... yes" in p.stdout, p.stdout
    run(["make"], cwd=d)
    exe = os.path.join(d, "achello")
    assert DEFAULT_GCC_HOOKS[0] in undefined_symbols(exe)
    check_trace(exe, "autoconf hello 43 (sqrt)\n", ["main"])
    # -MMD compiled and wrote the dependencies.
    assert "util.h" in open(os.path.join(d, "util.d")).read()
    shutil.rmtree(d)


@test
def autoconf_style_project_with_options_in_cc():
    # Options inside CC, as in CC="vtcc -vt:mt -vt:cc clang".
    d = tmpdir("autoconf-cc")
    run(["sh", os.path.join(PROJECTS, "autoconf", "configure"),
         "CC=%s -vt:mt -vt:cc clang" % VTCC], cwd=d)
    run(["make"], cwd=d)
    exe = os.path.join(d, "achello")
    assert DEFAULT_CLANG_HOOKS[0] in undefined_symbols(exe)
    check_trace(exe, "autoconf hello 43 (sqrt)\n", ["main"])
    shutil.rmtree(d)


if __name__ == "__main__":
    main()
