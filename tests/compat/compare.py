#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Differential test of libradosstriper.so.1: run a transcript program (the
same libradosstriper calls, one line "step: result" each) once on stock
libradosstriper and once on libstriped's drop-in (LD_LIBRARY_PATH=COMPAT_DIR),
and compare them step by step, as TAP. Every step must give the same result,
but for the stock mistakes listed here (and in doc/dropin.md), where stock must
still give its wrong answer (else the list is out of date) and the drop-in
the right one.

On an erasure-coded pool without overwrites (KIND ec), which takes a write
only at an object's end, stock stores the size before its data and cuts
objects after it: when the pool refuses the data or the cut (-EOPNOTSUPP),
the size stays changed. The drop-in refuses such calls with the same error
before it changes anything. Each step where the two then part is listed in
STOCK_MISTAKES_EC, with what made the difference.

usage: compare.py PROGRAM POOL COMPAT_DIR [KIND]   (KIND: replicated, ec, ecow)
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


# The same, on a pool that takes only aligned appends (KIND ec), besides the above.
_SIZE_FIRST = ("stock stored the size, then the pool refused its data (-95, both): "
               "the file grew over zeros no write made; the drop-in refused first")
_CUT_FIRST = ("stock stored the size, then the pool refused to cut the object (-95, both): "
              "the size says less than the object holds; the drop-in refused first")
_EMPTIED = ("stock's write_full cuts the file with a truncate the pool refuses (-95) and "
            "leaves it at size 0 over its old bytes; the drop-in empties the file the one "
            "way such a pool takes (objects removed, the head rewritten empty), then writes")
STOCK_MISTAKES_EC = {
    ("transcript_c", "stat after hole"): (
        "0 size 5243880 mtime set", "0 size 300000 mtime set", _SIZE_FIRST),
    ("transcript_c", "read in hole"): ("600000 zeros 1", "0 zeros -1", _SIZE_FIRST),
    ("transcript_c", "stat after trunc down"): (
        "0 size 1000 mtime set", "0 size 300000 mtime set", _CUT_FIRST),
    ("transcript_c", "read after trunc down"): (
        "1000 hash d1ec4b76e4c82853", "300000 hash e35b4321dc32ebe3", _CUT_FIRST),
    ("transcript_c", "trunc up 200000"): (
        "0", "-95", "from its wrong size of 1000 stock grows the file over the 300000 bytes "
        "its object still holds (the next read shows them, not zeros); for the drop-in the "
        "file still holds 300000 bytes, and a cut to 200000 is one the pool refuses"),
    ("transcript_c", "stat after trunc up"): (
        "0 size 200000 mtime set", "0 size 300000 mtime set", "(the step before)"),
    ("transcript_c", "read after trunc up"): (
        "200000 head d1ec4b76e4c82853 rest zeros 0", "300000 head d1ec4b76e4c82853 rest zeros 0",
        "(stock shows its old bytes past its size of 1000 where zeros were due)"),
    ("transcript_c", "stat after append"): (
        "0 size 205000 mtime set", "0 size 300000 mtime set", _SIZE_FIRST),
    ("transcript_c", "write_full 7000"): ("-95", "0", _EMPTIED),
    ("transcript_c", "stat after write_full"): (
        "0 size 0 mtime set", "0 size 7000 mtime set", _EMPTIED),
    ("transcript_c", "read after write_full"): ("0", "7000 hash f11a8b3f168d6bd2", _EMPTIED),
    ("transcript_c", "getxattr striper.size"): ("1 0", "4 7000", "(the size write_full left)"),
    ("transcript_c", "stat after aio_append"): (
        "0 size 401000 mtime set", "0 size 400000 mtime set", _SIZE_FIRST),
    ("transcript_c", "aio_write_full 2000"): (
        "start -95", "start 0 result 0 complete 1 callbacks 1", _EMPTIED),
    ("transcript_c", "stat after aio_write_full"): (
        "0 size 0 mtime set", "0 size 2000 mtime set", _EMPTIED),
    ("transcript_c", "read after aio_write_full"): (
        "0", "2000 hash 934becb52f2b42fc", _EMPTIED),
    ("transcript_cxx", "stat after prefix write"): (
        "0 0 size 1005000 mtime set stat2 mtime same",
        "0 0 size 250000 mtime set stat2 mtime same", _SIZE_FIRST),
    ("transcript_cxx", "stat after append"): (
        "0 0 size 1007000 mtime set stat2 mtime same",
        "0 0 size 250000 mtime set stat2 mtime same", _SIZE_FIRST),
    ("transcript_cxx", "read appended"): (
        "2000 length 2000 hash 7fd577edd7920943", "0 length 0 hash 14650fb0739d0383",
        "(stock reads the zeros its refused append left inside its size)"),
    ("transcript_cxx", "write_full"): ("-95", "0", _EMPTIED),
    ("transcript_cxx", "stat after write_full"): (
        "0 0 size 0 mtime set stat2 mtime same",
        "0 0 size 7777 mtime set stat2 mtime same", _EMPTIED),
    ("transcript_cxx", "read after write_full"): (
        "0 length 0 hash 14650fb0739d0383", "7777 length 7777 hash b60986c6aa02fc30", _EMPTIED),
    ("transcript_cxx", "trunc 100"): (
        "0", "-95", "from the size 0 its write_full left over 250000 bytes stock grows the "
        "file to 100 over them; the drop-in's file holds 7777 bytes, and a cut to 100 is "
        "one the pool refuses"),
    ("transcript_cxx", "stat after trunc"): (
        "0 0 size 100 mtime set stat2 mtime same",
        "0 0 size 7777 mtime set stat2 mtime same", "(the step before)"),
    ("transcript_cxx", "stat after aio_append"): (
        "0 0 size 504000 mtime set stat2 mtime same",
        "0 0 size 500000 mtime set stat2 mtime same", _SIZE_FIRST),
    ("transcript_cxx", "aio_write_full"): (
        "start -95", "start 0 result 0 complete 1 callbacks 1", _EMPTIED),
    ("transcript_cxx", "stat after aio_write_full"): (
        "0 0 size 0 mtime set stat2 mtime same",
        "0 0 size 1234 mtime set stat2 mtime same", _EMPTIED),
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
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    program, pool, compat_dir = sys.argv[1:4]
    kind = sys.argv[4] if len(sys.argv) == 5 else "replicated"
    mistakes = dict(STOCK_MISTAKES)
    if kind == "ec":
        mistakes.update(STOCK_MISTAKES_EC)
    name = os.path.basename(program)
    tag = "%s-%d" % (name, os.getpid())
    stock_env = dict(os.environ)
    stock_env.pop("LD_LIBRARY_PATH", None)
    ours_env = dict(os.environ, LD_LIBRARY_PATH=compat_dir)

    tests = []  # (ok, description)
    stock, stock_steps = transcript(program, pool, "stock-" + tag, stock_env)
    ours, our_steps = transcript(program, pool, "dropin-" + tag, ours_env)
    # Stock's listed crashes at exit, after every step was made.
    crash_at_exit = (stock.returncode in (-6, 134, -11, 139) and
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
        listed = mistakes.get((name, step))
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
    for (prog, step) in mistakes:
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
