# SPDX-License-Identifier: BSD-3-Clause
"""The trace tools' progress on stderr: vt-profile, vt-report, vt-export, vt-score and vt-sim
on a trace of about 2.4 M events (a vtcc program with many calls), with stderr a
pseudo-terminal, show "TOOL: [pass N: ]reading P% of T events, ..." lines whose percentage
never falls within a pass, T the trace's event count, and clear the line at the end; with
stderr a file, or with --quiet, nothing is printed on stderr, and what the tool writes
(stdout, its output file) is byte for byte the same in all three runs. VT_PROGRESS_AFTER=0
shows the line from the first clock check on, so that no run has to take a second."""
import os
import pty
import re
import subprocess

import vttest

BIN = os.path.join(vttest.BUILD_ROOT, 'tools')
TOOLS = {
    'vt-profile': lambda tr, out: [os.path.join(BIN, 'vt-profile', 'vt-profile'), tr],
    'vt-report': lambda tr, out: [os.path.join(BIN, 'vt-report', 'vt-report'), tr, '-o', '-'],
    'vt-export': lambda tr, out: [os.path.join(BIN, 'vt-export', 'vt-export'), tr, '-o', '-'],
    'vt-score': lambda tr, out: [os.path.join(BIN, 'vt-score', 'vt-score'), tr],
    'vt-sim': lambda tr, out: [os.environ.get('VT_SIM', ''), tr, '-s', 'identity', '-o',
                               out, '-f'],
}
LINE = re.compile(r'^(vt-[a-z]+): (?:pass (\d+): )?reading (\d+)% of (\d+) events, '
                  r'(?:\d+ s left, )?[0-9.]+ [kM]? ?events/s$')
CLEAR = '\r\x1b[K'


def run(cmd, workdir, label, terminal):
    """Runs cmd with stdout to a file and stderr to a pseudo-terminal (or a file): (status,
    stdout bytes, stderr text)."""
    env = dict(os.environ, VT_PROGRESS_AFTER='0')
    out_path = os.path.join(workdir, label + '.out')
    with open(out_path, 'wb') as out:
        if terminal:
            master, slave = pty.openpty()
            p = subprocess.Popen(cmd, stdout=out, stderr=slave, stdin=subprocess.DEVNULL,
                                 env=env)
            os.close(slave)
            chunks = []
            while True:
                try:
                    b = os.read(master, 65536)
                except OSError:  # EIO: the last writer closed the terminal
                    break
                if not b:
                    break
                chunks.append(b)
            os.close(master)
            status = p.wait(timeout=300)
            err = b''.join(chunks).decode('utf-8', 'replace')
        else:
            with open(os.path.join(workdir, label + '.err'), 'wb') as ef:
                status = subprocess.run(cmd, stdout=out, stderr=ef, env=env,
                                        timeout=300).returncode
            with open(os.path.join(workdir, label + '.err'), 'rb') as ef:
                err = ef.read().decode('utf-8', 'replace')
    with open(out_path, 'rb') as f:
        return status, f.read(), err


def output_of(tool, outfile, stdout):
    """What the tool wrote: its stdout, and for vt-sim the trace's files too (not the anchor
    file, whose creation time and id differ from run to run)."""
    if tool != 'vt-sim':
        return stdout
    base = outfile[:-len('.otf2')]
    files = [base + '.def']
    for d, _, names in os.walk(base):
        files += [os.path.join(d, n) for n in sorted(names)]
    data = [stdout]
    for f in files:
        with open(f, 'rb') as fh:
            data.append(f.encode() + b'\0' + fh.read())
    return b'\0\0'.join(data)


def body(t):
    exe = t.compile('progress_prog', ['progress_prog.c'], opt='-O1')
    r = t.run(exe, env={'VT_BUFFER_SIZE': '64M'})
    t.eq(r.status, 0, 'the program runs')
    written = r.written
    t.eq(len(written), 1, 'one trace written')
    if len(written) != 1:
        return
    trace, events = r.anchor(), written[0][1]
    t.check(events > 2000000, 'the trace has more than 2 M events (%d)' % events)
    for tool, mk in sorted(TOOLS.items()):
        d = t.newdir(tool)
        outfile = os.path.join(d, 'sim.otf2')
        results = {}
        for label, extra, terminal in (('terminal', [], True), ('file', [], False),
                                       ('quiet', ['--quiet'], True)):
            cmd = mk(trace, outfile) + extra
            status, stdout, err = run(cmd, d, label, terminal)
            print('%s %s: status %d, %d bytes out, stderr %r' % (tool, label, status,
                                                                  len(stdout), err[-300:]))
            results[label] = (status, output_of(tool, outfile, stdout), err)
        status, out, err = results['terminal']
        t.eq(status, 0, '%s on a terminal: exit status 0' % tool)
        segs = [s for s in re.split(r'\r|\n|\x1b\[K', err) if s]
        lines = [LINE.match(s) for s in segs]
        t.check(segs and all(lines), '%s: stderr on a terminal holds progress lines alone'
                % tool, repr([s for s, m in zip(segs, lines) if not m][:3]))
        lines = [m for m in lines if m]
        t.check(len(lines) >= 2, '%s: at least two progress lines (%d)' % (tool, len(lines)))
        t.check(all(m.group(1) == tool for m in lines), '%s: the lines name the tool' % tool)
        t.check(all(int(m.group(4)) == events for m in lines),
                '%s: the lines count the trace\'s %d events' % (tool, events))
        passes = {}
        for m in lines:
            passes.setdefault(int(m.group(2) or 1), []).append(int(m.group(3)))
        t.check(all(p == sorted(p) and p[-1] <= 100 for p in passes.values()),
                '%s: the percentage never falls within a pass' % tool, repr(passes))
        t.check(any(p[-1] > p[0] for p in passes.values()),
                '%s: the percentage grows' % tool, repr(passes))
        t.check(err.endswith(CLEAR), '%s: the line is cleared at the end' % tool,
                repr(err[-80:]))
        for label in ('file', 'quiet'):
            s, o, e = results[label]
            t.eq(s, 0, '%s (%s): exit status 0' % (tool, label))
            t.eq(e, '', '%s (%s): nothing on stderr' % (tool, label))
        if tool == 'vt-sim':
            # --quiet also drops vt-sim's summary on stdout: its trace stays the same.
            t.check(results['file'][1] == out, 'vt-sim: the same output with stderr a file')
            t.check(results['quiet'][1].split(b'\0\0', 1)[1] == out.split(b'\0\0', 1)[1],
                    'vt-sim --quiet: the same trace')
        else:
            t.check(results['file'][1] == out and results['quiet'][1] == out,
                    '%s: stdout byte for byte the same on a terminal, a file, --quiet'
                    % tool)


vttest.main('tools-progress', body)
