# SPDX-License-Identifier: BSD-3-Clause
"""The developer docs and the comments of the sources say what the tree holds.

Fails, with one line per finding that names the file and what is wrong, when
- the file tables of docs/dev/architecture.md are not what scripts/gen-architecture.py
  writes from the files' second lines (a file missing, a stale row, a row for a file that is
  gone, a file without its purpose line): run the script;
- a comment of a source or header under runtime/, tools/, passes/, vtcc/ or plugin-sdk/,
  or the text of HACKING.md or docs/dev/*.md, cites a file of this project that is not in
  the tree: a name like vt_x.c, vtr_x.h, record/vt_buf.h (the folders it names must match)
  or a path from the top of the tree like runtime/src/x/y.c (files the build generates,
  named in a meson.build, count as there);
- the ```layers block of docs/dev/architecture.md names a folder that runtime/src does not
  have, or leaves out one that it has.
"""

import ast
import io
import os
import re
import subprocess
import sys
import tokenize

ROOT = os.environ.get('VT_SOURCE_ROOT') or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
DOC = 'docs/dev/architecture.md'
GEN = 'scripts/gen-architecture.py'
CITING = ['runtime', 'tools', 'passes', 'vtcc', 'plugin-sdk']
DEV_DOCS = re.compile(r'^(HACKING\.md|docs/dev/[^/]+\.md)$')
C_LIKE = ('.c', '.h', '.cc', '.cpp', '.hpp', '.js', '.css')
EXT = C_LIKE + ('.py', '.inc')
# A file name of the project: vt_x.c, vtr_x.h, vts_x.h, optionally after folders.
NAME = re.compile(r'(?<![\w/.-])((?:[\w.-]+/)*vt[rs]?_\w+\.(?:c|h|cc|inc|py))(?![\w])')


def walk(top):
    for d, dirs, files in os.walk(top):
        dirs[:] = sorted(x for x in dirs if not x.startswith(('.', 'build')))
        for f in sorted(files):
            yield os.path.join(d, f)


def tree():
    """Every path of the tree, relative, and every name a meson.build generates."""
    paths = {os.path.relpath(p, ROOT) for p in walk(ROOT)}
    generated = set()
    for p in paths:
        if os.path.basename(p) == 'meson.build':
            text = open(os.path.join(ROOT, p), encoding='utf-8').read()
            generated |= set(re.findall(r"'([\w.-]+\.(?:c|h))'", text))
    return paths, generated


def comments_c(text):
    """(line, text) of every comment of a C-like source (strings and chars skipped)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append((text.count('\n', 0, i) + 1, text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append((text.count('\n', 0, i) + 1, text[i:j]))
            i = j
        elif c in '"\'`':
            j = i + 1
            while j < n and text[j] != c and (c == '`' or text[j] != '\n'):
                j += 2 if text[j] == '\\' else 1
            i = j + 1
        else:
            i += 1
    return out


def comments_py(text):
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                out.append((first.lineno, first.value.value))
    return out


def comments(path, text):
    if path.endswith('.py'):
        return comments_py(text)
    if path.endswith('.inc'):
        return [(i + 1, l) for i, l in enumerate(text.splitlines()) if l.lstrip().startswith('!')]
    return comments_c(text)


def citations(paths, generated):
    """One line per cited file of the project that the tree does not hold."""
    tops = sorted(d for d in os.listdir(ROOT)
                  if os.path.isdir(os.path.join(ROOT, d)) and not d.startswith(('.', 'build')))
    path_re = re.compile(r'(?<![\w/.-])((?:%s)/[\w./-]*[\w-]\.[A-Za-z]+)\b'
                         % '|'.join(re.escape(t) for t in tops))
    names = {}
    for p in paths:
        names.setdefault(os.path.basename(p), []).append(p)
    errors = []
    for p in sorted(paths):
        doc = DEV_DOCS.match(p)
        if not doc and (p.split('/')[0] not in CITING or not p.endswith(EXT)):
            continue
        text = open(os.path.join(ROOT, p), encoding='utf-8', errors='replace').read()
        if doc:  # the generated tables are checked against the tree by table()
            b, e = text.find('<!-- files:begin -->'), text.find('<!-- files:end -->')
            if 0 <= b < e:
                text = text[:b] + '\n' * text.count('\n', b, e) + text[e:]
        for line, comment in [(1, text)] if doc else comments(p, text):
            seen = set()
            for m in path_re.finditer(comment):
                cited = m.group(1)
                seen.add(cited)
                if cited not in paths and not os.path.isdir(os.path.join(ROOT, cited)):
                    errors.append('%s:%d: cites %s, which is not in the tree'
                                  % (p, line + comment.count('\n', 0, m.start()), cited))
            for m in NAME.finditer(comment):
                cited = m.group(1)
                if any(s.endswith(cited) for s in seen):
                    continue
                base = os.path.basename(cited)
                found = [q for q in names.get(base, []) if ('/' + q).endswith('/' + cited)]
                if not found and base not in generated:
                    where = (' (there is %s)' % ', '.join(sorted(names[base]))
                             if base in names else '')
                    errors.append('%s:%d: cites %s, which is not in the tree%s'
                                  % (p, line + comment.count('\n', 0, m.start()), cited, where))
    return errors


def layers():
    text = open(os.path.join(ROOT, DOC), encoding='utf-8').read()
    m = re.search(r'```layers\n(.*?)```', text, re.S)
    if not m:
        return ['%s: no ```layers block' % DOC]
    named = [w.split()[0] for w in m.group(1).splitlines() if w.strip()]
    src = os.path.join(ROOT, 'runtime/src')
    have = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    errors = ['%s: the ```layers block names %s/, which runtime/src does not have' % (DOC, d)
              for d in named if d not in have]
    errors += ['%s: the ```layers block leaves out runtime/src/%s/' % (DOC, d)
               for d in have if d not in named]
    errors += ['%s: the ```layers block names %s/ twice' % (DOC, d)
               for d in sorted(set(named)) if named.count(d) > 1]
    return errors


def table():
    r = subprocess.run([sys.executable, os.path.join(ROOT, GEN), '--check', ROOT],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode == 0:
        return []
    lines = r.stdout.strip().splitlines() or ['exit status %d' % r.returncode]
    return ['%s (%s)' % (l, 'give the file that line, then run ' + GEN
                         if 'is not one whole comment' in l else 'run ' + GEN)
            for l in lines]


def main():
    paths, generated = tree()
    failed = 0
    for name, check in [('file tables', table), ('layers block', layers),
                        ('citations', lambda: citations(paths, generated))]:
        errors = check()
        for e in errors:
            print('FAIL ' + e)
        print('%s: %s' % (name, 'FAIL (%d)' % len(errors) if errors else 'ok'))
        failed += bool(errors)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
