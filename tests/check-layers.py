#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Calls between lib/ files go down only: no file calls, directly or through
others, a file that calls it.

Usage: check-layers.py NM LIBDIR ARCHIVE...

Reads each object file of the given static archives (together, every file
of lib/) with nm: a file calls another when a symbol it leaves undefined is
defined there. Prints the graph, layer by layer from the bottom, and exits
1 naming each cycle. LIBDIR (lib/) turns meson's object names back into
source paths (buffered_window.c.o: buffered/window.c).
"""
import os
import subprocess
import sys


def source_names(libdir):
    """{meson's flattened object name: source path under libdir}"""
    names = {}
    for root, _, files in os.walk(libdir):
        for f in files:
            if f.endswith(('.c', '.cc')):
                rel = os.path.relpath(os.path.join(root, f), libdir)
                names[rel.replace(os.sep, '_')] = rel
    return names


def members(nm, archive):
    """{object file: (defined symbols, undefined symbols)} of one archive."""
    out = subprocess.run([nm, '-A', '-P', archive], check=True, capture_output=True,
                         text=True).stdout
    objs = {}
    for line in out.splitlines():
        # "lib.a[io.c.o]: sym T 0 0" or "lib.a:io.c.o: sym T ..."
        where, _, rest = line.rpartition(': ')
        fields = rest.split()
        if len(fields) < 2:
            continue
        sym, kind = fields[0], fields[1]
        obj = where.split('[')[-1].rstrip(']') if '[' in where else where.split(':')[-1]
        name = obj.split('/')[-1]
        for ext in ('.o', '.obj'):
            if name.endswith(ext):
                name = name[:-len(ext)]
        defined, undefined = objs.setdefault(name, (set(), set()))
        if kind == 'U':
            undefined.add(sym)
        elif kind.isupper():  # global: text, data, bss, read-only, weak
            defined.add(sym)
    return objs


def graph(objs):
    owner = {}
    for name, (defined, _) in objs.items():
        for sym in defined:
            owner.setdefault(sym, name)
    edges = {name: {} for name in objs}
    for name, (_, undefined) in objs.items():
        for sym in undefined:
            to = owner.get(sym)
            if to and to != name:
                edges[name].setdefault(to, []).append(sym)
    return edges


def cycles(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def layers(edges):
    """Each file's layer: 0 calls no other file, n calls files below n only."""
    level = {}

    def depth(v, seen=()):
        if v in level:
            return level[v]
        if v in seen:
            return 0
        level[v] = 1 + max((depth(w, seen + (v,)) for w in edges[v]), default=-1)
        return level[v]

    for v in edges:
        depth(v)
    return level


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    nm, libdir, archives = sys.argv[1], sys.argv[2], sys.argv[3:]
    sources = source_names(libdir)
    objs = {}
    for a in archives:
        for name, syms in members(nm, a).items():
            objs[sources.get(name, name)] = syms
    edges = graph(objs)
    found = cycles(edges)
    if not found:
        level = layers(edges)
        for n in range(max(level.values()) + 1):
            print(f'layer {n}:')
            for v in sorted(f for f in level if level[f] == n):
                calls = ', '.join(sorted(edges[v])) or '-'
                print(f'  {v} -> {calls}')
    for comp in found:
        print('cycle among ' + ', '.join(comp) + ':', file=sys.stderr)
        for v in comp:
            for w in sorted(edges[v]):
                if w in comp:
                    print(f'  {v} -> {w} ({", ".join(sorted(edges[v][w])[:4])})',
                          file=sys.stderr)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
