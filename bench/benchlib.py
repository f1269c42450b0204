# SPDX-License-Identifier: BSD-3-Clause
"""What the bench/run-*.py scripts share."""
import subprocess
import sys


def sh(cmd, with_stderr=True, **kw):
    """Runs cmd (a list); its output (stdout, then stderr unless with_stderr is false), or the
    script ends with the command and what it said."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, **kw)
    if p.returncode != 0:
        sys.exit('failed (%d): %s\n%s%s' % (p.returncode, ' '.join(cmd), p.stdout, p.stderr))
    return p.stdout + p.stderr if with_stderr else p.stdout


def first_line(cmd):
    """The first line a command prints (a tool's version), or None when it cannot run."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return None


def costs(cmd, env, cwd):
    """{name: ns} from one run of a cost program (io-costs.c, omp-costs.c), which prints a
    line "NAME COUNT NS" per case: its name, how many times it ran, ns per time."""
    out = sh(cmd, with_stderr=False, env=env, cwd=cwd)
    res = {}
    for line in out.splitlines():
        name, _, ns = line.split()
        res[name] = float(ns)
    return res
