# SPDX-License-Identifier: BSD-3-Clause
"""The C and C++ sources of vt follow .clang-format: each file of runtime/, tools/, passes/,
vtcc/, plugin-sdk/, samples/ and bench/ is what clang-format makes of it. (The programs under
test/ are left as written: tests assert the source lines of their functions.)

On a failure the line names the file and the first lines clang-format would change; the fix
is `clang-format -i FILE`."""

import os
import subprocess
import sys

ROOT = os.environ.get('VT_SOURCE_ROOT') or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
DIRS = ['runtime', 'tools', 'passes', 'vtcc', 'plugin-sdk', 'samples', 'bench']
EXT = ('.c', '.h', '.cc')


def sources():
    for d in DIRS:
        for top, dirs, files in os.walk(os.path.join(ROOT, d)):
            dirs[:] = sorted(x for x in dirs if not x.startswith(('build', '.')))
            for f in sorted(files):
                if f.endswith(EXT):
                    yield os.path.join(top, f)


def main():
    passed = failed = 0
    files = list(sources())
    if len(files) < 50:
        print('FAIL: only %d sources found under %s' % (len(files), ROOT))
        failed += 1
    for path in files:
        want = subprocess.run(['clang-format', '--style=file', path], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True)
        got = open(path, encoding='utf-8').read()
        rel = os.path.relpath(path, ROOT)
        if want.returncode != 0:
            print('FAIL %s: clang-format: %s' % (rel, want.stderr.strip()))
            failed += 1
        elif want.stdout != got:
            a, b = got.splitlines(), want.stdout.splitlines()
            n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            print('FAIL %s: line %d is not as .clang-format wants (run clang-format -i %s)'
                  % (rel, n + 1, rel))
            failed += 1
        else:
            passed += 1
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
