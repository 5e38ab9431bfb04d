#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""The device model's layers: no include and no call runs upward, and no
files depend on each other in a circle.

usage: check-layers.py SRCDIR OBJDIR LAYER=name,name ... (bottom first)

The layers come from emulator/Makefile, which builds the emulator from
the same lists, so a file is in a layer or is not built.  A name is a
file's stem (its .c and .h) or a file name (orca_cmd.h apart from
orca_cmd.c); within a layer the files are listed callees first, and that
order is held too.  Includes are
read from the sources; calls (and every other reference: tables,
callbacks) from the symbols of the object files the build made: what an
object leaves undefined and another one of them defines.  The graph of
files (a .c includes .h files and calls .c files) must be acyclic, inside
a layer too.  A layer named "-" holds files that are not built into
OBJDIR (a test build's): they are in a layer, and nothing else is checked
of them.  Output is TAP.
"""
import pathlib
import re
import subprocess
import sys

src = pathlib.Path(sys.argv[1])
objdir = pathlib.Path(sys.argv[2])
layers = []
for arg in sys.argv[3:]:
    name, _, stems = arg.partition("=")
    layers.append((name, stems.replace(",", " ").split()))
pos = {s: (i, j) for i, (_, names) in enumerate(layers)
       for j, s in enumerate(names)}
layer = {pathlib.Path(s).stem: i for s, (i, _) in pos.items()}
unbuilt = {pathlib.Path(s).stem for name, st in layers if name == "-"
           for s in st}

n = failed = 0


def result(ok, what, detail=()):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    for d in detail:
        print(f"# {d}")


def where(name):
    """(layer, place in it) of a file name."""
    return pos.get(name) or pos[pathlib.Path(name).stem]


def lname(name):
    return layers[where(name)[0]][0]


def upward(a, b):
    """Why the edge a -> b runs up the order, or None."""
    (la, ia), (lb, ib) = where(a), where(b)
    if lb > la:
        return f"{lname(a)} -> {lname(b)}"
    if lb == la and ib > ia:
        return f"{lname(a)}: {a} is listed before {b}"
    return None


def nm(*args):
    out = subprocess.run(["nm", *args], capture_output=True, text=True,
                         check=True).stdout
    return [line.split()[-1] for line in out.splitlines() if line.strip()]


# every source in the directory is in exactly one layer
files = sorted(src.glob("*.[ch]"))
stray = [f.name for f in files if f.stem not in layer]
names = [s for _, st in layers for s in st]
dup = sorted({s for s in names if names.count(s) > 1})
result(not stray and not dup and files,
       f"every source of {src} is in one layer",
       [f"{s}: in no layer" for s in stray] + [f"{s}: in two" for s in dup])
files = [f for f in files if f.stem not in unbuilt]

# edges: (from stem, to stem, why)
edges = []
for f in files:
    for i, line in enumerate(f.read_text().splitlines(), 1):
        m = re.match(r'\s*#\s*include\s+"([\w./-]+)\.h"', line)
        if not m:
            continue
        to = pathlib.Path(m.group(1)).name + ".h"
        if pathlib.Path(to).stem in layer:
            edges.append((f.name, to, f"{f.name}:{i} includes {to}"))

# an object of a layered .c (not, say, a module linked from all of them)
objs = {o.stem: o for o in objdir.glob("*.o")
        if o.stem in layer and o.stem not in unbuilt
        and (src / f"{o.stem}.c").exists()}
missing = [s for s in layer if (src / f"{s}.c").exists() and s not in objs
           and s not in unbuilt]
result(not missing, f"every layered .c has its object in {objdir}",
       [f"{s}.o: not built" for s in missing])
owner = {}
for stem, o in objs.items():
    for sym in nm("-g", "--defined-only", str(o)):
        owner[sym] = stem
for stem, o in sorted(objs.items()):
    for sym in nm("-u", str(o)):
        to = owner.get(sym)
        if to and to != stem:
            edges.append((stem + ".c", to + ".c",
                          f"{stem}.o uses {sym} ({to}.o)"))

# no edge runs upward: one test per file
for f in files:
    if f.stem not in layer:
        continue
    bad = [f"{why}: {upward(a, b)}"
           for a, b, why in edges if a == f.name and upward(a, b)]
    result(not bad, f"{f.name} ({lname(f.name)}) reaches only what is "
           "below it", bad)

# no cycle between files (Tarjan's strongly connected components)
graph = {}
for a, b, _ in edges:
    graph.setdefault(a, set()).add(b)
index, low, stack, on, sccs = {}, {}, [], set(), []


def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in sorted(graph.get(v, ())):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        scc = []
        while True:
            w = stack.pop()
            on.discard(w)
            scc.append(w)
            if w == v:
                break
        if len(scc) > 1:
            sccs.append(sorted(scc))


sys.setrecursionlimit(10000)
for v in sorted(graph):
    if v not in index:
        visit(v)
detail = []
for scc in sccs:
    detail.append("cycle: " + " ".join(scc))
    detail += ["  " + why for a, b, why in edges if a in scc and b in scc]
result(not sccs, "no file-level include or call cycle", detail)

print(f"1..{n}")
sys.exit(1 if failed else 0)
