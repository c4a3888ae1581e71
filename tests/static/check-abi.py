#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fail when the public header, the version script and the shared library's
exported symbols disagree, or when the soname or symbol versions are wrong.

usage: check-abi.py LIBSTRIPED.so include/striped.h lib/libstriped.map SOVERSION
"""
import re
import subprocess
import sys


def header_functions(path):
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    # A declaration: a return type, then striped_name( ; not typedef'd pointers.
    names = set(re.findall(r"^[A-Za-z_][\w \*]*?\b(striped_\w+)\(", text, flags=re.M))
    return names


def map_nodes(path):
    """{node: set of global symbols}, and each node's parent (None for the first)."""
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    nodes, parents = {}, {}
    for name, body, parent in re.findall(r"(LIBSTRIPED_[\d.]+)\s*\{(.*?)\}\s*(LIBSTRIPED_[\d.]+)?\s*;",
                                         text, flags=re.S):
        glob = body.split("local:")[0].split("global:")[-1]
        nodes[name] = set(re.findall(r"(\w+);", glob))
        parents[name] = parent or None
    return nodes, parents


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtDdBbRrWwVvi":
            name, _, version = parts[2].partition("@")
            if name.startswith("LIBSTRIPED_"):
                continue
            syms[name] = version.lstrip("@")
    return syms


def soname(lib):
    out = subprocess.run(["readelf", "-d", lib], check=True, capture_output=True,
                         text=True).stdout
    m = re.search(r"\(SONAME\)\s+Library soname: \[(.+?)\]", out)
    return m.group(1) if m else None


def main():
    lib, header, mapfile, soversion = sys.argv[1:5]
    errors = []
    decl = header_functions(header)
    nodes_syms, parents = map_nodes(mapfile)
    mapped = set().union(*nodes_syms.values()) if nodes_syms else set()
    nodes = set(nodes_syms)
    exp = exported(lib)
    order = list(nodes_syms)
    for i, node in enumerate(order):
        want_parent = order[i - 1] if i else None
        if parents[node] != want_parent:
            errors.append(f"node {node} inherits {parents[node]}, want {want_parent}")
    seen = {}
    for node, syms in nodes_syms.items():
        for name in syms:
            if name in seen:
                errors.append(f"{name} is in both {seen[name]} and {node}")
            seen[name] = node
    for name in sorted(decl - mapped):
        errors.append(f"declared in the header but not in the version script: {name}")
    for name in sorted(mapped - decl):
        errors.append(f"in the version script but not declared in the header: {name}")
    for name in sorted(set(exp) - mapped):
        errors.append(f"exported but not public: {name}")
    for name in sorted(mapped - set(exp)):
        errors.append(f"public but not exported: {name}")
    for name, version in sorted(exp.items()):
        if name in seen and version != seen[name]:
            errors.append(f"{name} carries version '{version}', want '{seen[name]}'")
        elif version not in nodes:
            errors.append(f"{name} carries version '{version}', not one of {sorted(nodes)}")
    want = f"libstriped.so.{soversion}"
    if soname(lib) != want:
        errors.append(f"soname is {soname(lib)!r}, want {want!r}")
    if not decl:
        errors.append("no declarations found in the header")
    want_nodes = [f"LIBSTRIPED_0.{i}" for i in range(1, 4)]
    if order[:len(want_nodes)] != want_nodes:
        errors.append(f"want the version nodes {want_nodes} in order, found {order}")
    for e in errors:
        print("check-abi:", e)
    print(f"check-abi: {len(decl)} declared, {len(mapped)} in the map "
          f"({', '.join(f'{n}: {len(s)}' for n, s in nodes_syms.items())}), {len(exp)} exported")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
