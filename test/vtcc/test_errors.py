#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Exit statuses and diagnostics: the compiler's pass through unchanged; vtcc's own are one line."""

import os
import shlex

from vtcctest import HERE, VTCC, VTCXX, clean_env, eq, main, run, test, tmpdir, write

BAD = os.path.join(HERE, "progs", "bad.c")


@test
def compiler_errors_pass_through():
    for compiler in ("gcc", "clang"):
        d = tmpdir("bad")
        direct = run([compiler, "-c", BAD, "-o", os.path.join(d, "bad.o")], check=False)
        assert direct.returncode != 0
        p = run([VTCC, "-vt:cc", compiler, "-c", BAD, "-o", os.path.join(d, "bad.o")],
                check=False)
        eq(p.returncode, direct.returncode, compiler)
        assert "error" in p.stderr and "bad.c" in p.stderr, p.stderr
        # vtcc's added flags do not change what the compiler says about the user's code.
        eq(p.stderr, direct.stderr, compiler)
        eq(p.stdout, "")
        assert not os.path.exists(os.path.join(d, "bad.o"))


@test
def link_errors_pass_through():
    d = tmpdir("link")
    src = write(os.path.join(d, "u.c"), "void nowhere(void);\nint main(void) { nowhere(); }\n")
    p = run([VTCC, src, "-o", os.path.join(d, "u")], check=False)
    eq(p.returncode, 1)
    assert "nowhere" in p.stderr, p.stderr


@test
def exit_status_passes_through():
    d = tmpdir("status")
    for status in (0, 1, 3, 42, 255):
        fake = write(os.path.join(d, "fake%d" % status),
                     "#!/bin/sh\necho out; echo err >&2; exit %d\n" % status, 0o755)
        p = run([VTCC, "-vt:cc", fake, "-c", "a.c"], check=False)
        eq(p.returncode, status)
        eq((p.stdout, p.stderr), ("out\n", "err\n"))


@test
def killed_compiler():
    d = tmpdir("signal")
    fake = write(os.path.join(d, "fakecc"), "#!/bin/sh\nkill -TERM $$\n", 0o755)
    p = run([VTCC, "-vt:cc", fake, "-c", "a.c"], check=False)
    eq(p.returncode, -15, "vtcc execs the compiler, so its signal is the caller's to see")


def one_line_error(args, status, *needles, prog=VTCC, env=None):
    p = run([prog] + args, check=False, env=env)
    eq(p.returncode, status, args)
    lines = p.stderr.splitlines()
    eq(len(lines), 1, "stderr of %s: %r" % (args, p.stderr))
    assert lines[0].startswith(os.path.basename(prog) + ": error: "), lines[0]
    for n in needles:
        assert n in lines[0], "%r not in %r" % (n, lines[0])
    eq(p.stdout, "")
    return lines[0]


@test
def unknown_option():
    line = one_line_error(["-vt:bogus", "-c", "a.c"], 2, "-vt:bogus", "-vt:inst", "-vt:show",
                          "-vt:cc", "-vt:help")
    assert "-vt:cxx" not in line, line
    one_line_error(["-c", "a.c", "-vt:"], 2, "'-vt:'")
    # Valid in another driver only.
    one_line_error(["-vt:cxx", "g++", "a.c"], 2, "-vt:cxx", "vtcxx", "-vt:cc")
    one_line_error(["-vt:cc", "gcc", "a.cc"], 2, "-vt:cc", "-vt:cxx", prog=VTCXX)


@test
def bad_option_values():
    one_line_error(["-vt:inst", "bogus", "a.c"], 2, "bogus", "compinst", "manual", "none")
    one_line_error(["a.c", "-vt:inst"], 2, "-vt:inst")
    one_line_error(["a.c", "-vt:cc"], 2, "-vt:cc")
    one_line_error(["-vt:cc", "", "a.c"], 2, "-vt:cc")
    one_line_error(["-vt:openmp-runtime", "gnu", "a.c"], 2, "-vt:openmp-runtime 'gnu'",
                   "libomp", "libgomp")
    one_line_error(["-fopenmp", "a.c"], 2, "VT_OPENMP_RUNTIME 'gnu'", "libomp", "libgomp",
                   env=clean_env(VT_OPENMP_RUNTIME="gnu"))


@test
def compiler_not_found():
    one_line_error(["-vt:cc", "no-such-compiler-vt", "-c", "a.c"], 127, "no-such-compiler-vt")
    one_line_error(["-c", "a.c"], 127, "/nonexistent/cc",
                   env=clean_env(VT_CC="/nonexistent/cc"))
    # -vt:show prints the command even when the compiler is missing.
    p = run([VTCC, "-vt:show", "-vt:cc", "no-such-compiler-vt", "-c", "a.c"])
    assert p.stdout.startswith("no-such-compiler-vt "), p.stdout


@test
def missing_option_value():
    # "vtcc a.c -o": the compiler's own error, as without vtcc; vt's -L is never taken for
    # the output's name.
    d = tmpdir("noval")
    src = write(os.path.join(d, "m.c"), "int main(void) { return 0; }\n")
    for opt in ("-o", "-I", "-x"):
        direct = run(["gcc", src, opt], check=False, cwd=d)
        p = run([VTCC, "-vt:cc", "gcc", src, opt], check=False, cwd=d)
        eq((p.returncode, p.stderr), (direct.returncode, direct.stderr), opt)
        assert direct.returncode != 0 and "missing" in direct.stderr, direct.stderr
    eq(sorted(os.listdir(d)), ["m.c"], "nothing written, no file named after vt's -L")


@test
def launcher_word():
    # VT_CC="ccache gcc": the first words run the compiler, the last is the compiler.
    d = tmpdir("launcher")
    log = os.path.join(d, "launcher.log")
    fake = write(os.path.join(d, "fakelauncher"),
                 '#!/bin/sh\necho "$1" >> %s\nexec "$@"\n' % log, 0o755)
    src = write(os.path.join(d, "m.c"), "int main(void) { return 0; }\n")
    exe = os.path.join(d, "m")
    p = run([VTCC, "-vt:show", src, "-o", exe], env=clean_env(VT_CC=fake + " gcc"))
    assert p.stdout.startswith(fake + " gcc ") and "vt_gcc.so" in p.stdout, p.stdout
    run([VTCC, src, "-o", exe], env=clean_env(VT_CC=fake + "  gcc"))
    run([VTCC, "-vt:cc", fake + " gcc", "-c", src, "-o", exe + ".o"])
    with open(log) as f:
        eq(f.read(), "gcc\ngcc\n", "the launcher ran the compiler twice")
    assert os.access(exe, os.X_OK) and os.path.exists(exe + ".o")
    one_line_error(["-c", "a.c"], 127, "'no-such-launcher-vt'", "launcher", "gcc",
                   env=clean_env(VT_CC="no-such-launcher-vt gcc"))


@test
def vtcc_as_its_own_compiler():
    one_line_error(["-c", "a.c"], 2, "itself", env=clean_env(VT_CC=VTCC))


@test
def verbose_prints_then_runs():
    d = tmpdir("verbose")
    fake = write(os.path.join(d, "fakecc"), "#!/bin/sh\necho compiler-ran >&2\nexit 5\n", 0o755)
    p = run([VTCC, "-vt:verbose", "-vt:cc", fake, "-c", "x y.c"], check=False)
    eq(p.returncode, 5)
    lines = p.stderr.splitlines()
    eq(len(lines), 2, p.stderr)
    eq(shlex.split(lines[0]), shlex.split(run([VTCC, "-vt:show", "-vt:cc", fake, "-c",
                                                "x y.c"]).stdout))
    eq(lines[1], "compiler-ran")
    eq(p.stdout, "")


if __name__ == "__main__":
    main()
