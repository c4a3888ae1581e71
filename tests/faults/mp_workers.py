#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""mp_workers.py POOL PREFIX: Python's multiprocessing, fork start method.

The parent connects through striped.connect() and keeps a file open, then
forks 16 workers (multiprocessing's fork context), each connecting through
striped.connect(): 8 write files of their own, 8 write disjoint regions of
one shared file, all at once. Checks, one line each ("ok: ..." or
"FAIL: ..."): the 17 clients have 17 distinct addresses (a breaker among
them fences only the one it means), every worker succeeded, every byte
reads back. Exit 0, or 1 when a check failed.
"""

import multiprocessing
import os
import random
import sys
import time

import cffi

import striped
from striped import _lib

WORKERS = 8
LAYOUT = striped.Layout(64 << 10, 4, 1 << 20)
OWN_SIZE = 2 << 20
REGION = (1 << 20) + 12345  # regions share objects and cross stripe units

_ffi = cffi.FFI()
_ffi.cdef("int rados_getaddrs(void *cluster, char **addrs); void rados_buffer_free(char *buf);")
_rados = _ffi.dlopen("librados.so.2")
failures = 0


def check(ok, what):
    """Print one result line; count a failure."""
    global failures
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    failures += not ok


def address(cluster):
    """The client's address, as a blocklist names it (rados_getaddrs)."""
    handle = _ffi.cast("void *", int(_lib.ffi.cast("uintptr_t", cluster._handle())))
    out = _ffi.new("char **")
    if _rados.rados_getaddrs(handle, out) < 0:
        return "?"
    try:
        return _ffi.string(out[0]).decode()
    finally:
        _rados.rados_buffer_free(out[0])


def data(seed, size):
    """size bytes of a pattern of its own for each seed."""
    return random.Random(seed).randbytes(size)


def work(pool, name, offset, size, seed, mode, results):
    """A worker: connect, write size bytes of seed at offset of name, report."""
    try:
        with striped.connect() as cluster, cluster.pool(pool) as p:
            with p.open(name, mode, LAYOUT) as f:
                f.seek(offset)
                n = f.write(data(seed, size))
            results.put((seed, address(cluster), n, None))
    except Exception as e:  # reported, never lost: the parent waits for every worker
        results.put((seed, "?", -1, repr(e)))


def read_all(pool, name):
    """The file's bytes (one read) and its size."""
    with pool.open(name, "rb") as f:
        st = f.stat()
        return f.read(st.size + 1), st.size


def main(argv):
    """Run the workers, then check addresses and bytes; the exit status."""
    if len(argv) != 2:
        print("usage: mp_workers.py POOL PREFIX", file=sys.stderr)
        return 2
    pool_name, prefix = argv
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    shared = f"{prefix}-shared"
    own = [f"{prefix}-own-{i}" for i in range(WORKERS)]
    t0 = time.monotonic()
    with striped.connect() as cluster, cluster.pool(pool_name) as pool:
        parent = address(cluster)
        # Open during the forks: the workers' libstriped starts afresh.
        held = pool.open(shared, "xb", LAYOUT)
        procs = [ctx.Process(target=work, args=(pool_name, own[i], 0, OWN_SIZE, i, "xb",
                                                results)) for i in range(WORKERS)]
        procs += [ctx.Process(target=work, args=(pool_name, shared, i * REGION, REGION,
                                                 100 + i, "r+b", results))
                  for i in range(WORKERS)]
        for p in procs:
            p.start()
        got = [results.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(60)
        held.close()
        secs = time.monotonic() - t0
        bad = [(seed, err) for seed, _, n, err in got if err or n not in (OWN_SIZE, REGION)]
        check(not bad and all(p.exitcode == 0 for p in procs),
              f"{len(procs)} forked workers wrote through striped.connect() in {secs:.1f} s"
              + (f": failed {bad}" if bad else ""))
        addrs = [a for _, a, _, _ in got]
        check(len(set(addrs + [parent])) == len(procs) + 1,
              f"{len(set(addrs + [parent]))} distinct client addresses among the parent and "
              f"{len(procs)} workers (want {len(procs) + 1}; parent {parent}, "
              f"workers {sorted(addrs)[:3]}...)")
        for i, name in enumerate(own):
            buf, size = read_all(pool, name)
            check(size == OWN_SIZE and buf == data(i, OWN_SIZE),
                  f"{name}: {size} bytes, every byte the worker's")
            pool.remove(name)
        buf, size = read_all(pool, shared)
        wrong = [i for i in range(WORKERS)
                 if buf[i * REGION:(i + 1) * REGION] != data(100 + i, REGION)]
        check(size == WORKERS * REGION and not wrong,
              f"{shared}: {size} bytes (want {WORKERS * REGION}), regions not the "
              f"worker's: {wrong}")
        pool.remove(shared)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
