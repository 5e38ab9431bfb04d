#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Small, anchored edits of upstream files for scripts/upstream.sh.

Every edit finds its place from the structure of the file it edits (a
sorted list, an enum, a list of paragraphs) rather than from a line
number, refuses to guess (exit status 1 with a message when the expected
structure is not there), and is idempotent: running it twice changes
nothing the second time.

  edit.py enum-append FILE ENUM MEMBER
      append "\tMEMBER," as the last member of "enum ENUM {".
  edit.py sorted-line FILE REGEX LINE [--in PREV]
      insert LINE into every run of consecutive lines matching REGEX (or
      only into the run right after a line matching PREV), in sorted
      position (case-insensitive; see insert_pos for lists with strays).
  edit.py after-last FILE REGEX LINE
      insert LINE after the last line matching REGEX (lists kept in the
      order entries were added, e.g. drivers/infiniband/hw/Makefile).
  edit.py sorted-paragraph FILE REGEX BLOCKFILE [SECOND]
      insert the paragraph in BLOCKFILE among the paragraphs whose first
      line matches REGEX (and second line SECOND, if given), in the sorted
      position of its first line; paragraphs are separated by one empty
      line.  If a paragraph with the same first line exists it is replaced.
"""
import re
import sys


def die(msg):
    sys.stderr.write("edit.py: %s\n" % msg)
    sys.exit(1)


def read(path):
    with open(path) as f:
        return f.read().split("\n")


def write(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines))


def key(s):
    return s.strip().lower()


def insert_pos(keys, new):
    """Where new goes in a list that is sorted except for a few strays:
    the first gap between neighbours lo < new < hi that are themselves in
    order with their own neighbours, else the first such gap at all."""
    n, cands = len(keys), []
    for i in range(n + 1):
        lo = keys[i - 1] if i > 0 else None
        hi = keys[i] if i < n else None
        if (lo is None or lo < new) and (hi is None or new < hi):
            good = ((i < 2 or keys[i - 2] <= keys[i - 1]) and
                    (i > n - 2 or keys[i] <= keys[i + 1]))
            cands.append((not good, i))
    if not cands:
        return n
    return min(cands)[1]


def enum_append(path, enum, member):
    lines = read(path)
    try:
        start = next(i for i, l in enumerate(lines)
                     if re.match(r"^enum %s \{$" % re.escape(enum), l))
    except StopIteration:
        die("%s: no 'enum %s {'" % (path, enum))
    end = next((i for i in range(start, len(lines)) if lines[i] == "};"), None)
    if end is None:
        die("%s: enum %s is not closed by '};'" % (path, enum))
    body = lines[start + 1:end]
    if any(re.match(r"^\s*%s\b" % re.escape(member), l) for l in body):
        return
    if not body or not body[-1].rstrip().endswith(","):
        die("%s: last member of enum %s does not end in ','" % (path, enum))
    lines.insert(end, "\t%s," % member)
    write(path, lines)


def sorted_line(path, regex, line, prev=None):
    lines = read(path)
    pat = re.compile(regex)
    runs, i = [], 0
    while i < len(lines):
        if pat.match(lines[i]):
            j = i
            while j < len(lines) and pat.match(lines[j]):
                j += 1
            runs.append((i, j))
            i = j
        else:
            i += 1
    if not runs:
        die("%s: no line matches %r" % (path, regex))
    if prev is not None:
        pp = re.compile(prev)
        runs = [(a, b) for a, b in runs if a > 0 and pp.match(lines[a - 1])]
        if len(runs) != 1:
            die("%s: %d runs of %r follow %r, not 1" % (path, len(runs), regex, prev))
    if not pat.match(line):
        die("%r does not match %r" % (line, regex))
    # from the end, so that earlier indices stay valid
    for a, b in reversed(runs):
        if line in lines[a:b]:
            continue
        pos = a + insert_pos([key(l) for l in lines[a:b]], key(line))
        lines.insert(pos, line)
    write(path, lines)


def after_last(path, regex, line):
    lines = read(path)
    if line in lines:
        return
    pat = re.compile(regex)
    hits = [i for i, l in enumerate(lines) if pat.match(l)]
    if not hits:
        die("%s: no line matches %r" % (path, regex))
    lines.insert(hits[-1] + 1, line)
    write(path, lines)


def paragraphs(lines):
    """(start, end) of every paragraph: maximal runs of non-empty lines."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip():
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            out.append((i, j))
            i = j
        else:
            i += 1
    return out


def sorted_paragraph(path, regex, blockfile, second=None):
    lines = read(path)
    with open(blockfile) as f:
        block = [l for l in f.read().split("\n") if l.strip()]
    if not block:
        die("%s: empty block" % blockfile)
    pat = re.compile(regex)
    if not pat.match(block[0]):
        die("%r does not match %r" % (block[0], regex))
    sec = re.compile(second) if second else None
    paras = [(a, b) for a, b in paragraphs(lines) if pat.match(lines[a]) and
             (sec is None or (b - a > 1 and sec.match(lines[a + 1])))]
    if not paras:
        die("%s: no paragraph starts with %r" % (path, regex))
    same = [(a, b) for a, b in paras if lines[a] == block[0]]
    if same:
        a, b = same[0]
        lines[a:b] = block
    else:
        i = insert_pos([key(lines[a]) for a, b in paras], key(block[0]))
        if i < len(paras):
            a = paras[i][0]
            lines[a:a] = block + [""]
        else:
            b = paras[-1][1]
            lines[b:b] = [""] + block
    write(path, lines)


def main(argv):
    if len(argv) < 2:
        die(__doc__)
    op, args = argv[1], argv[2:]
    if op == "enum-append" and len(args) == 3:
        enum_append(*args)
    elif op == "sorted-line" and len(args) in (3, 5):
        prev = None
        if len(args) == 5:
            if args[3] != "--in":
                die("sorted-line: expected --in PREV")
            prev = args[4]
        sorted_line(args[0], args[1], args[2], prev)
    elif op == "after-last" and len(args) == 3:
        after_last(*args)
    elif op == "sorted-paragraph" and len(args) in (3, 4):
        sorted_paragraph(*args)
    else:
        die("bad arguments: %s" % " ".join(argv[1:]))


if __name__ == "__main__":
    main(sys.argv)
