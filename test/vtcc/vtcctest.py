# SPDX-License-Identifier: BSD-3-Clause
"""Shared helpers of the vtcc tests: paths of the build tree, running commands, a tiny runner."""

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import traceback

VTCC = os.environ["VTCC"]
VTCXX = os.path.join(os.path.dirname(VTCC), "vtcxx")
VTFORT = os.path.join(os.path.dirname(VTCC), "vtfort")
BUILD_ROOT = os.environ["VT_BUILD_ROOT"]
SOURCE_ROOT = os.environ["VT_SOURCE_ROOT"]
HERE = os.path.dirname(os.path.abspath(__file__))

# What the build-tree vtcc adds (docs/dev/contracts.md, "What vtcc adds").
INCDIR = os.path.join(SOURCE_ROOT, "runtime", "include")
LIBDIR = os.path.join(BUILD_ROOT, "runtime")
COMPINST_GCC = ["-finstrument-functions",
                "-finstrument-functions-exclude-file-list=/usr/include"]
COMPINST_CLANG = ["-finstrument-functions"]
# The compiler plugins (passes/), built when their compilers' development files are there.
PLUGINDIR = os.path.join(BUILD_ROOT, "passes")


def plugin_gcc(plugindir=PLUGINDIR):
    return ["-fplugin=" + os.path.join(plugindir, "vt_gcc.so")]


def plugin_llvm(plugindir=PLUGINDIR):
    # -finstrument-functions marks what clang would instrument (the plugin takes the marks
    # over), -Rpass turns on location tracking without debug info (see vtcc.c).
    return ["-finstrument-functions", "-fpass-plugin=" + os.path.join(plugindir, "vt_llvm.so"),
            "-Xclang", "-Rpass=^vt-locations$"]


HAVE_GCC_PLUGIN = os.path.exists(os.path.join(PLUGINDIR, "vt_gcc.so"))
HAVE_LLVM_PLUGIN = os.path.exists(os.path.join(PLUGINDIR, "vt_llvm.so"))
# vtcc's default instrumentation (-vt:inst auto): the plugin of the compiler when vt has it
# and it fits the compiler (Debian's gcc 12 and clang 14 here), else -finstrument-functions.
DEFAULT_GCC = plugin_gcc() if HAVE_GCC_PLUGIN else COMPINST_GCC
DEFAULT_CLANG = plugin_llvm() if HAVE_LLVM_PLUGIN else COMPINST_CLANG
# What instrumented code calls into libvt: the plugins' entry points or compinst's hooks.
PLUGIN_HOOKS = ("vt_inst_enter", "vt_inst_exit")
COMPINST_HOOKS = ("__cyg_profile_func_enter", "__cyg_profile_func_exit")
DEFAULT_GCC_HOOKS = PLUGIN_HOOKS if HAVE_GCC_PLUGIN else COMPINST_HOOKS
DEFAULT_CLANG_HOOKS = PLUGIN_HOOKS if HAVE_LLVM_PLUGIN else COMPINST_HOOKS


def compile_flags(incdir=INCDIR, vtrace=True, inst=DEFAULT_GCC, mt=False):
    return (["-I" + incdir] + (["-DVTRACE"] if vtrace else []) + list(inst)
            + (["-pthread"] if mt else []))


def link_flags(libdir=LIBDIR, mt=False, mpi=None):
    """mpi: the MPI wrapper library vtcc links before libvt ("vt-mpi", "vt-mpich")."""
    return (["-L" + libdir, "-Wl,-rpath," + libdir, "-Wl,--push-state,--no-as-needed"]
            + (["-l" + mpi] if mpi else []) + ["-lvt", "-Wl,--pop-state"]
            + (["-pthread"] if mt else []))


def preprocess_flags(incdir=INCDIR, vtrace=True):
    return ["-I" + incdir] + (["-DVTRACE"] if vtrace else [])


def clean_env(**extra):
    """The test environment without the compiler and vt settings that would change vtcc's
    output, and without LD_LIBRARY_PATH (meson sets it), so only vtcc's rpath finds libvt."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VT_CC", "VT_CXX", "VT_FC", "OMPI_CC", "MPICH_CC", "VT_FILE_PREFIX",
                         "VT_OPENMP_RUNTIME", "LD_LIBRARY_PATH")}
    env.update(extra)
    return env


def run(cmd, check=True, env=None, cwd=None, timeout=300):
    """Runs CMD (a list), captures text output; with CHECK, a non-zero status fails the test."""
    p = subprocess.run(cmd, capture_output=True, text=True, env=env or clean_env(), cwd=cwd,
                       timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError("%s exited %d\nstdout:\n%s\nstderr:\n%s"
                             % (shlex.join(cmd), p.returncode, p.stdout, p.stderr))
    return p


def show(args, prog=VTCC, env=None):
    """Returns the words of the command `PROG -vt:show ARGS` prints (one line, shell-quoted)."""
    p = run([prog, "-vt:show"] + args, env=env)
    words = shlex.split(p.stdout)
    # One line, unless a word itself holds a newline (it is then inside quotes).
    assert p.stdout.endswith("\n") and \
        p.stdout.count("\n") == 1 + sum(w.count("\n") for w in words), \
        "expected one line, got %r" % p.stdout
    assert p.stderr == "", "unexpected stderr %r" % p.stderr
    return words


def eq(got, want, what=""):
    assert got == want, "%s\n got: %r\nwant: %r" % (what, got, want)


def tmpdir(name):
    return tempfile.mkdtemp(prefix="vtcc-%s-" % name)


def write(path, text, mode=None):
    with open(path, "w") as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)
    return path


def check_trace(exe, want_stdout, regions):
    """Runs EXE with a fresh VT_PFORM_GDIR; checks its output, then that its trace enters
    each of REGIONS."""
    name = os.path.basename(exe)
    gdir = tmpdir("trace-" + name)
    env = clean_env(VT_PFORM_GDIR=gdir)
    # scripts/test-sanitize.sh: the sanitizer's runtime must come before libvt.
    if os.environ.get("VT_TEST_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["VT_TEST_PRELOAD"]
    p = run([exe], env=env)
    eq(p.stdout, want_stdout, exe)
    archives = sorted(os.path.basename(a) for a in glob.glob(os.path.join(gdir, "*.otf2")))
    # contracts.md names the archive EXE.otf2; the runtime so far writes EXE.vt.otf2 (an
    # archive folder named EXE would collide with the program). Either is accepted here.
    assert len(archives) == 1 and archives[0] in (name + ".otf2", name + ".vt.otf2"), \
        "expected one trace of %s in %s, found %s; stderr: %s" % (name, gdir, archives, p.stderr)
    out = run(["otf2-print", os.path.join(gdir, archives[0])]).stdout
    for region in regions:
        assert re.search(r'^ENTER\s+\d+\s+\d+\s+Region: "%s"' % re.escape(region), out,
                         re.M), "no ENTER of %s in the trace of %s:\n%s" % (region, name, out)
    shutil.rmtree(gdir)


_tests = []


def test(fn):
    _tests.append(fn)
    return fn


def main():
    passed = failed = 0
    only = sys.argv[1:]
    for fn in _tests:
        if only and fn.__name__ not in only:
            continue
        try:
            fn()
        except Exception:
            failed += 1
            print("FAIL %s" % fn.__name__)
            traceback.print_exc(file=sys.stdout)
        else:
            passed += 1
            print("ok   %s" % fn.__name__)
        sys.stdout.flush()
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)
