#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Differential test of libradosstriper.so.1: run a transcript program (the
same libradosstriper calls, one line "step: result" each) once on stock
libradosstriper and once on libstriped's drop-in (LD_LIBRARY_PATH=COMPAT_DIR),
and compare them step by step, as TAP. Every step must give the same result,
but for the stock mistakes listed here (and in the README), where stock must
still give its wrong answer (else the list is out of date) and the drop-in
the right one.

usage: compare.py PROGRAM POOL COMPAT_DIR
"""
import os
import subprocess
import sys

# (program, step): (stock's result, the drop-in's, what stock gets wrong)
STOCK_MISTAKES = {
    ("transcript_c", "stat after 0-byte write"): (
        "0 size 100 mtime set", "0 size 0 mtime set",
        "a write of 0 bytes at offset 100 of a new file makes it 100 bytes long; "
        "as pwrite(2), the drop-in writes nothing (the file is made, empty)"),
    ("transcript_c", "aio_write_full new file"): (
        "start -2", "start 0 result 0 complete 1 callbacks 1",
        "aio_write_full of a file that does not exist fails with -ENOENT, where "
        "write_full makes it; the drop-in makes it in both"),
    ("transcript_c", "stat aio_write_full new file"): (
        "-2", "0 size 2000 mtime set", "(the file the step before made)"),
    ("transcript_c", "aio_remove missing"): (
        "start 0 result 0 complete 1 callbacks 1", "start 0 result -2 complete 1 callbacks 1",
        "remove of a file that does not exist succeeds (its lock makes an empty head "
        "object, which it then removes); the drop-in says -ENOENT, as rados rm does"),
    ("transcript_c", "setxattr striper.size"): (
        "0", "-1", "its own xattrs can be set, here the size (the file is now 99 bytes); "
        "the drop-in refuses with -EPERM"),
    ("transcript_c", "stat after setxattr striper.size"): (
        "0 size 99 mtime set", "0 size 7000 mtime set", "(the size it was made to store)"),
    ("transcript_c", "setxattr on a missing file"): (
        "0", "-2", "setxattr of a file that does not exist makes a bare head object "
        "(no striper metadata); the drop-in says -ENOENT"),
    ("transcript_c", "stat after setxattr on a missing file"): (
        "-61", "-2", "(the bare object is no striped file: -ENODATA)"),
    ("transcript_c", "head object left by it, removed"): (
        "0", "-2", "(the bare object it left, removed by rados_remove)"),
    ("transcript_c", "remove removed"): (
        "0", "-2", "(remove of a file that does not exist, synchronous)"),
}


def stock_exit_crashes():
    """How stock libradosstriper.so.1 of Ceph 16.2 aborts now and then as the
    program exits (stock-exit-crashes, beside this file)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stock-exit-crashes")
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]


def transcript(program, pool, prefix, env):
    proc = subprocess.run([program, pool, prefix], env=env, capture_output=True, text=True,
                          timeout=600)
    steps = []
    for line in proc.stdout.splitlines():
        step, _, result = line.partition(": ")
        steps.append((step, result))
    return proc, steps


def last_lines(text, n=3):
    return " | ".join(text.strip().splitlines()[-n:])


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    program, pool, compat_dir = sys.argv[1:]
    name = os.path.basename(program)
    tag = "%s-%d" % (name, os.getpid())
    stock_env = dict(os.environ)
    stock_env.pop("LD_LIBRARY_PATH", None)
    ours_env = dict(os.environ, LD_LIBRARY_PATH=compat_dir)

    tests = []  # (ok, description)
    stock, stock_steps = transcript(program, pool, "stock-" + tag, stock_env)
    ours, our_steps = transcript(program, pool, "dropin-" + tag, ours_env)
    # Stock's listed crashes at exit, after every step was made.
    crash_at_exit = (stock.returncode in (-6, 134) and
                     any(crash in stock.stderr for crash in stock_exit_crashes()))
    tests.append((stock.returncode == 0 or crash_at_exit, "stock run exits 0%s (%d) %s" %
                  (" or with its listed crash at exit" if crash_at_exit else "",
                   stock.returncode, last_lines(stock.stderr))))
    tests.append((ours.returncode == 0, "drop-in run exits 0 (%d) %s" %
                  (ours.returncode, last_lines(ours.stderr))))
    loaded = os.path.realpath(compat_dir) in ours.stderr or compat_dir in ours.stderr
    tests.append((loaded, "the drop-in run loaded %s/libradosstriper.so.1" % compat_dir))
    tests.append((compat_dir not in stock.stderr, "the stock run loaded stock libradosstriper"))
    stock_names = [s for s, _ in stock_steps]
    our_names = [s for s, _ in our_steps]
    tests.append((stock_names == our_names, "both made the same %d steps" % len(stock_names)))

    for (step, theirs), (_, mine) in zip(stock_steps, our_steps):
        listed = STOCK_MISTAKES.get((name, step))
        if listed:
            want_stock, want_ours, why = listed
            tests.append((theirs == want_stock,
                          "%s: stock still gives its listed mistake %r (got %r)" %
                          (step, want_stock, theirs)))
            tests.append((mine == want_ours, "%s: drop-in gives %r (got %r): %s" %
                          (step, want_ours, mine, why)))
        else:
            tests.append((theirs == mine, "%s: %s" % (step, mine if theirs == mine else
                                                      "stock %r, drop-in %r" % (theirs, mine))))
    for (prog, step) in STOCK_MISTAKES:
        if prog == name and step not in stock_names:
            tests.append((False, "listed stock mistake %r is not in the transcript" % step))

    failed = 0
    for i, (ok, what) in enumerate(tests, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, " | ".join(what.splitlines())))
        failed += not ok
    print("1..%d" % len(tests))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
