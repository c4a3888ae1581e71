#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python package's file object against the C API: f.write of --bs blocks
and f.readinto into one reused buffer, one call at a time (the same work as
`striped_bench --depth 1 --zero-copy`: striped_write sends the caller's
buffer too). Prints one JSON object as the C bench programs do.

    bench/python_bench.py --name NAME --op write|read|remove [--bs 64M] [--total 1G]
        [--layout SU,SC,OS] [--pool POOL] [--conf PATH] [--system LABEL]

Pool and conf default to $STRIPED_TEST_POOL and $CEPH_CONF; the package and
the library are found as always (PYTHONPATH, STRIPED_LIBRARY, or installed).
"""

import argparse
import json
import os
import resource
import sys
import time

import striped

UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def size(text: str) -> int:
    """Bytes of a size like 64M (powers of 1024, as the C programs read them)."""
    text = text.strip().upper()
    if text and text[-1] in UNITS:
        return int(text[:-1]) * UNITS[text[-1]]
    return int(text)


def layout(text: str) -> striped.Layout:
    """A layout from SU,SC,OS."""
    su, sc, os_ = text.split(",")
    return striped.Layout(size(su), int(sc), size(os_))


def cpu() -> tuple:
    """User and system CPU seconds of this process so far."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime, ru.ru_stime


def latency_fields(lat_ns: list) -> dict:
    """The C programs' per-call latency fields: nearest-rank percentiles in ms."""
    lat = sorted(lat_ns)

    def pct(per_1000):
        return lat[max(1, -(-len(lat) * per_1000 // 1000)) - 1] / 1e6 if lat else 0.0
    return {"lat_calls": len(lat), "lat_p50_ms": pct(500), "lat_p99_ms": pct(990),
            "lat_p999_ms": pct(999), "lat_max_ms": pct(1000)}


def run(args, pool) -> dict:
    """Time the calls, each and all; the C programs' JSON fields."""
    calls = args.total // args.bs
    buf = bytearray(os.urandom(args.bs))
    mode = "wb" if args.op == "write" else "rb"
    lat_ns = []
    with pool.open(args.name, mode, args.layout) as f:
        u0, s0 = cpu()
        t0 = time.perf_counter()
        for _ in range(calls):
            c0 = time.perf_counter_ns()
            n = f.write(buf) if args.op == "write" else f.readinto(buf)
            lat_ns.append(time.perf_counter_ns() - c0)
            if n != args.bs:
                raise OSError(f"short {args.op}: {n} of {args.bs} bytes")
        seconds = time.perf_counter() - t0
        u1, s1 = cpu()
    total = calls * args.bs
    cpu_s = (u1 - u0) + (s1 - s0)
    return {"system": args.system, "op": args.op, "bs": args.bs, "depth": 1, "sync": True,
            "calls": calls, "bytes": total, "seconds": seconds,
            "mib_per_s": total / (1 << 20) / seconds, "iops": calls / seconds,
            "cpu_user": u1 - u0, "cpu_sys": s1 - s0, "cpu_s": cpu_s,
            "cpu_s_per_gib": cpu_s / (total / (1 << 30)) if total else 0,
            **latency_fields(lat_ns)}


def main() -> int:
    """Parse the options, run, print one JSON line."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--name", required=True)
    p.add_argument("--op", choices=["write", "read", "remove"], required=True)
    p.add_argument("--bs", type=size, default=size("64M"))
    p.add_argument("--total", type=size, default=size("1G"))
    p.add_argument("--layout", type=layout, default=striped.Layout())
    p.add_argument("--pool", default=os.environ.get("STRIPED_TEST_POOL"))
    p.add_argument("--conf", default=os.environ.get("CEPH_CONF"))
    p.add_argument("--system", default="python")
    args = p.parse_args()
    if not args.pool or args.bs <= 0 or args.total < args.bs:
        p.error("need --pool (or $STRIPED_TEST_POOL) and 0 < --bs <= --total")
    with striped.connect(args.conf) as cluster, cluster.pool(args.pool) as pool:
        if args.op == "remove":
            try:
                pool.remove(args.name)
            except FileNotFoundError:
                pass
            return 0
        print(json.dumps(run(args, pool)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
