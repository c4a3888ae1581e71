#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write the C program of a man page's EXAMPLE section (.nf to .fi) to a file,
with roff's escapes undone, so the build compiles what the page shows.

usage: man-example.py PAGE OUT.c
"""
import sys


def example(lines):
    section = None
    code = None
    for line in lines:
        if line.startswith(".SH "):
            section = line[4:].strip()
            continue
        if section != "EXAMPLE":
            continue
        if line.startswith(".nf"):
            code = []
        elif line.startswith(".fi") and code is not None:
            return code
        elif code is not None:
            code.append(line)
    sys.exit("man-example.py: no .nf/.fi block in the EXAMPLE section")


def unroff(line):
    out, i = [], 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line):
            nxt = line[i + 1]
            if nxt in "\\e":
                out.append("\\")
            elif nxt == "-":
                out.append("-")
            else:
                sys.exit("man-example.py: roff escape \\%s not handled" % nxt)
            i += 2
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    with open(sys.argv[1], encoding="utf-8") as f:
        code = example(f.read().splitlines())
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write("/* Generated from %s's EXAMPLE by doc/man-example.py. */\n" % sys.argv[1])
        f.write("\n".join(unroff(l) for l in code) + "\n")


main()
