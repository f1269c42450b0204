# SPDX-License-Identifier: BSD-3-Clause
"""Writes a man page (roff, man macros) from one of the Markdown pages of docs/.

Usage: md2man.py DOC.md OUT.N --name NAME --section N [--alias NAME]... [--desc TEXT]
       [--synopsis LINE]... [--only GLOB,...] [--skip GLOB,...] [--version V]
       md2man.py --so man1/PAGE.1 OUT.1       (a page that sources another)

The Markdown subset the docs use: an H1 title, ## sections (.SH) and ###/#### subsections
(.SS), paragraphs, fenced and indented code blocks, tables (one tagged paragraph per row,
so that no table is wider than the page), bulleted and numbered lists (nested by indent),
and inline `code`, **bold**, *emphasis* and [links](target) (the text only).

A doc written as a man page ("# vt-profile(1)", "## NAME", "## SYNOPSIS", ...) keeps its
sections. Any other doc gets NAME from --name, --alias and --desc (default: its title after
"—" or ":"), SYNOPSIS from its own Synopsis section, else the code block right under its
title, else the --synopsis lines, and DESCRIPTION from the text before its first section.
--only and --skip choose the doc's ## sections by title (fnmatch globs, case-insensitive).
Every character outside ASCII is written as a groff escape, so the page needs no preconv.
"""

import argparse
import fnmatch
import re
import sys

GLYPHS = {'\u2014': r'\(em', '\u2013': r'\(en', '\u2018': r'\(oq', '\u2019': r'\(cq',
          '\u201c': r'\(lq', '\u201d': r'\(rq', '\u2192': r'\(->', '\u00d7': r'\(mu',
          '\u2026': r'.\|.\|.', '\u2264': r'\(<=', '\u2265': r'\(>=', '\u00b5': r'\(mc'}


def esc(text, code=False):
    """Text escaped for roff: backslashes, minus signs in code, non-ASCII characters."""
    out = []
    for c in text:
        if c == '\\':
            out.append(r'\e')
        elif c == '-' and code:
            out.append(r'\-')
        elif ord(c) > 127:
            out.append(GLYPHS.get(c, r'\[u%04X]' % ord(c)))
        else:
            out.append(c)
    return ''.join(out)


INLINE = re.compile(r'(`+)(.+?)\1|\*\*(.+?)\*\*|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])'
                    r'|!?\[([^\]]*)\]\(([^)]*)\)')


def inline(text):
    """One line of Markdown text as roff text with font changes."""
    out, pos = [], 0
    for m in INLINE.finditer(text):
        out.append(esc(text[pos:m.start()]))
        if m.group(2) is not None:
            code = esc(m.group(2).strip(), code=True)
            # long code words (CSV headers, paths) may break after , / and |
            code = re.sub(r'([,/|])(?=[^\s])', r'\1\\:', code)
            out.append(r'\fB' + code + r'\fR')
        elif m.group(3) is not None:
            out.append(r'\fB' + inline(m.group(3)) + r'\fR')
        elif m.group(4) is not None:
            out.append(r'\fI' + inline(m.group(4)) + r'\fR')
        else:
            out.append(inline(m.group(5)))
        pos = m.end()
    out.append(esc(text[pos:]))
    return ''.join(out)


def line(text):
    """A text line that roff does not take for a request."""
    return r'\&' + text if text.startswith(('.', "'")) else text


def split_row(row):
    row = row.strip()
    if row.startswith('|'):
        row = row[1:]
    if row.endswith('|'):
        row = row[:-1]
    cells, cur, tick = [], '', False
    for c in row:
        if c == '`':
            tick = not tick
        if c == '|' and not tick:
            cells.append(cur.strip())
            cur = ''
        else:
            cur += c
    cells.append(cur.strip())
    return cells


WIDTH = 80


def fold(text, width):
    """A code line cut at spaces into lines of at most width columns (the alignment of a
    trailing comment dropped first); the parts after the first are indented two more."""
    if len(text) > width:
        # first, the alignment before a trailing comment goes
        text = re.sub(r'(\S) {3,}(#|//|/\*)', r'\1  \2', text)
    if len(text) <= width:
        return [text]
    ind = len(text) - len(text.lstrip()) + 2
    parts = []
    while len(text) > width:
        cut = text.rfind(' ', ind + 1, width + 1)
        if cut <= ind:
            cut = width
        parts.append(text[:cut].rstrip())
        text = ' ' * ind + text[cut:].lstrip()
    parts.append(text)
    return parts


LAST_PLAIN = {'meaning', 'what if', 'description', 'what', 'purpose'}


class Writer:
    def __init__(self):
        self.out = []
        self.depth = 0     # list nesting (.RS levels)

    def emit(self, s):
        self.out.append(s)

    def close_lists(self, to=0):
        while self.depth > to:
            self.emit('.RE')
            self.depth -= 1

    def para(self, lines):
        self.emit('.PP' if self.depth == 0 else '.IP')
        self.emit(line(inline(' '.join(ln.strip() for ln in lines))))

    def code(self, lines):
        self.emit('.PP' if self.depth == 0 else '.IP')
        self.emit('.EX')
        lines = [ln.expandtabs(8).rstrip() for ln in lines]
        width = WIDTH - 7 - 4 * self.depth
        wide = max([len(ln) for ln in lines] + [0])
        shift = 0
        if wide > width and self.depth == 0:
            # a wide block of a section moves left, up to the page's edge, rather than fold
            shift = min(wide - width, 7)
            width += shift
            self.emit('.in -%dn' % shift)
        for ln in lines:
            for part in fold(ln, width):
                self.emit(line(esc(part, code=True)) or r'\&')
        if shift:
            self.emit('.in +%dn' % shift)
        self.emit('.EE')

    def deflist(self, term, text):
        text, body = text
        self.emit('.TP')
        self.emit(line(inline(term.strip())) or r'\&')
        self.emit(line(inline(' '.join(ln.strip() for ln in text))))
        if any(b.strip() for b in body):
            # lists and paragraphs of the definition, at the indent of its text
            self.emit('.RS')
            render(self, body)
            self.emit('.RE')

    def table(self, rows):
        head = split_row(rows[0])
        body = [split_row(r) for r in rows[2:]]
        for cells in body:
            cells += [''] * (len(head) - len(cells))
            self.emit('.TP')
            self.emit(line(inline(cells[0])) or r'\&')
            if len(head) == 2:
                self.emit(line(inline(cells[1])) or r'\&')
                continue
            parts = []
            last = len(head) - 1
            plain = head[last].strip().lower() in LAST_PLAIN
            for i in range(1, len(head)):
                if not cells[i] or (plain and i == last):
                    continue
                parts.append(r'\fI%s\fR: %s' % (inline(head[i]), inline(cells[i])))
            if plain and cells[last]:
                parts.insert(0, inline(cells[last]))
            if not parts:
                self.emit(r'\&')
            for j, p in enumerate(parts):
                if j:
                    self.emit('.br')
                self.emit(line(p))


def blocks(lines):
    """(kind, payload) of the blocks of a Markdown text: heading, code, table, item, para."""
    i, n = 0, len(lines)
    while i < n:
        ln = lines[i]
        s = ln.strip()
        if not s:
            i += 1
            continue
        m = re.match(r'^(#{1,6})\s+(.*?)\s*#*$', ln)
        if m:
            yield 'heading', (len(m.group(1)), m.group(2))
            i += 1
            continue
        m = re.match(r'^(\s*)(```|~~~)', ln)
        if m:
            fence, ind = m.group(2), len(m.group(1))
            j, body = i + 1, []
            while j < n and not lines[j].strip().startswith(fence):
                cur = lines[j]
                body.append(cur[ind:] if not cur[:ind].strip() else cur.lstrip())
                j += 1
            yield 'code', (ind, body)
            i = j + 1
            continue
        if ln.startswith('    ') and not re.match(r'^\s*([-*+]|\d+\.)\s', ln):
            body = []
            while i < n and (lines[i].startswith('    ') or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            while body and not body[-1].strip():
                body.pop()
            yield 'code', (0, body)
            continue
        if s.startswith('|') and i + 1 < n and re.match(r'^\s*\|?\s*:?-{3,}', lines[i + 1]):
            rows = []
            while i < n and lines[i].strip().startswith('|'):
                rows.append(lines[i])
                i += 1
            yield 'table', rows
            continue
        m = re.match(r'^(\s*)([-*+]|\d+\.)\s+(.*)$', ln)
        if m:
            ind = len(m.group(1))
            text = [m.group(3)]
            i += 1
            while i < n and lines[i].strip() and not re.match(
                    r'^\s*([-*+]|\d+\.)\s', lines[i]) and not lines[i].lstrip().startswith(
                    ('```', '|')) and not lines[i].startswith('#'):
                text.append(lines[i])
                i += 1
            yield 'item', (ind, m.group(2), text)
            continue
        if i + 1 < n and re.match(r'^:\s+', lines[i + 1]):
            term = ln
            text = [re.sub(r'^:\s+', '', lines[i + 1])]
            i += 2
            # the definition goes on while lines are indented (a blank line within it too)
            body = []
            while i < n and (lines[i][:1].isspace() and lines[i].strip() or (
                    not lines[i].strip() and i + 1 < n and lines[i + 1][:2] == '  ')):
                body.append(lines[i])
                i += 1
            ind = min((len(b) - len(b.lstrip()) for b in body if b.strip()), default=0)
            body = [b[ind:] for b in body]
            while body and body[0].strip() and not re.match(r'^([-*+]|\d+\.)\s', body[0]):
                text.append(body.pop(0))
            text = (text, body)
            yield 'def', (term, text)
            continue
        text = []
        while i < n and lines[i].strip() and not re.match(
                r'^(#{1,6}\s|\s*```|\s*\||\s*([-*+]|\d+\.)\s)', lines[i]):
            text.append(lines[i])
            i += 1
        yield 'para', text


def sections(lines):
    """The title, the text before the first ## section, and [(title, lines)] of each ##."""
    title, pre, secs, fence = '', [], [], False
    for ln in lines:
        if ln.lstrip().startswith(('```', '~~~')):
            fence = not fence
        if not fence and re.match(r'^# ', ln) and not title:
            title = ln[2:].strip()
            continue
        m = None if fence else re.match(r'^##\s+(.*?)\s*$', ln)
        if m:
            secs.append((m.group(1), []))
        elif secs:
            secs[-1][1].append(ln)
        else:
            pre.append(ln)
    return title, pre, secs


def render(w, lines):
    list_inds = []    # indents of the open list levels
    for kind, p in blocks(lines):
        if kind == 'heading':
            w.close_lists()
            list_inds = []
            w.emit('.SS "%s"' % inline(p[1]).replace('"', '\\(dq'))
        elif kind == 'item':
            ind, mark, text = p
            while list_inds and ind < list_inds[-1]:
                list_inds.pop()
                w.close_lists(len(list_inds))
            if not list_inds or ind > list_inds[-1]:
                if list_inds:
                    w.emit('.RS')
                else:
                    w.emit('.RS 0')
                w.depth += 1
                list_inds.append(ind)
            tag = r'\(bu' if mark in '-*+' else mark
            w.emit('.IP %s %d' % (tag, 2 if tag == r'\(bu' else len(mark) + 1))
            w.emit(line(inline(' '.join(ln.strip() for ln in text))))
        else:
            if list_inds and kind in ('para', 'table', 'def') and not (
                    kind == 'para' and p[0].startswith(' ' * (list_inds[-1] + 2))):
                w.close_lists()
                list_inds = []
            if kind == 'para':
                w.para(p)
            elif kind == 'def':
                w.deflist(*p)
            elif kind == 'code':
                w.code(p[1])
            else:
                w.table(p)
    w.close_lists()


def main():
    if sys.argv[1:2] == ['--so']:
        # a page that is another page: md2man.py --so man1/vtcc.1 OUT
        with open(sys.argv[3], 'w', encoding='ascii') as f:
            f.write('.so %s\n' % sys.argv[2])
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument('doc')
    ap.add_argument('out')
    ap.add_argument('--name', required=True)
    ap.add_argument('--section', required=True)
    ap.add_argument('--alias', action='append', default=[])
    ap.add_argument('--desc')
    ap.add_argument('--synopsis', action='append', default=[])
    ap.add_argument('--only', default='')
    ap.add_argument('--skip', default='')
    ap.add_argument('--version', default='')
    a = ap.parse_args()

    lines = open(a.doc, encoding='utf-8').read().splitlines()
    title, pre, secs = sections(lines)
    only = [g for g in a.only.split(',') if g]
    skip = [g for g in a.skip.split(',') if g]

    def chosen(t):
        t = t.lower()
        if only and not any(fnmatch.fnmatch(t, g.lower()) for g in only):
            return False
        return not any(fnmatch.fnmatch(t, g.lower()) for g in skip)

    w = Writer()
    w.emit(r'.\" Generated by scripts/md2man.py from %s; edit that file instead.'
           % re.sub(r'^.*?(docs/)', r'\1', a.doc))
    w.emit('.nr HY 0')
    w.emit('.TH "%s" "%s" "" "vt %s" "vt manual"' % (a.name.upper(), a.section, a.version))
    w.emit('.ad l')
    names = [a.name] + a.alias
    manstyle = any(t.upper() == 'NAME' for t, _ in secs)
    if not manstyle:
        desc = a.desc
        if not desc:
            m = re.match(r'^[^\s:]+(?:\(\d\))?\s*(?:\u2014|:|-)\s*(.*)$', title)
            desc = m.group(1) if m else title
        w.emit('.SH NAME')
        w.emit(line('%s \\- %s' % (', '.join(esc(x, True) for x in names), inline(desc))))
        syn = [s for s in secs if s[0].lower() == 'synopsis']
        w.emit('.SH SYNOPSIS')
        if syn:
            render(w, syn[0][1])
        else:
            kinds = list(blocks(pre))
            if a.synopsis:
                w.code(a.synopsis)
            elif kinds and kinds[0][0] == 'code':
                w.code(kinds[0][1][1])
                # the block is shown as the synopsis, not again in the description
                first = next(i for i, ln in enumerate(pre) if ln.strip())
                j = first
                if pre[first].lstrip().startswith('```'):
                    j += 1
                    while not pre[j].lstrip().startswith('```'):
                        j += 1
                    j += 1
                else:
                    while j < len(pre) and (pre[j].startswith('    ') or not pre[j].strip()):
                        j += 1
                pre = pre[j:]
            else:
                w.code([a.name])
        if any(ln.strip() for ln in pre):
            w.emit('.SH DESCRIPTION')
            render(w, pre)
    for t, body in secs:
        if not manstyle and t.lower() == 'synopsis':
            continue
        if not chosen(t):
            continue
        if manstyle and t.upper() == 'NAME':
            w.emit('.SH NAME')
            text = ' '.join(ln.strip() for ln in body if ln.strip())
            head, _, desc = text.partition(' \u2014 ')
            heads = [x.strip() for x in head.split(',')]
            heads += [x for x in a.alias if x not in heads]
            w.emit(line('%s \\- %s' % (', '.join(esc(x, True) for x in heads), inline(desc))))
            continue
        w.emit('.SH "%s"' % inline(t.upper()).replace('"', '\\(dq'))
        render(w, body)
    with open(a.out, 'w', encoding='ascii') as f:
        f.write('\n'.join(w.out) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
