#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run N benchmark processes at once (bench/run's case nto1) and print one
JSON line for all of them, in the form the bench programs print theirs.

    parallel.py --procs N --region SIZE [--head NAME]... [--label SYSTEM] -- CMD ARG...

Process i (0 .. N-1) runs CMD ARG... with "{i}" replaced by i and "{offset}"
by i * SIZE, plus --start-at T: each process connects and opens its file
first, then all start their timed loops at the same wall-clock moment T.
Aggregate MiB/s is the bytes of all processes over the wall time from the
first loop's start to the last one's end (each program reports both).

--head NAME (with "{i}": one per process) names striped files whose head
objects' operations are counted at the OSDs: every OSD's history of
finished operations (dump_historic_ops, its size raised for the run and
put back after) is read before and after; the client operations on
NAME.0000000000000000 that appear in between are the head's, split into
data (writes and reads of the first object's bytes) and the rest (size
updates, locks, watches, stats), and counted by kind (their sub-operations).
Needs CEPH_CONF (client.admin) and Debian's python3-rados (/usr/bin/python3).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

MIB = 1 << 20
GIB = 1 << 30
HISTORY = 100000  # finished ops each OSD keeps while counting
DATA_OPS = {"write", "writefull", "read", "sparse-read", "append", "zero"}
OP_RE = re.compile(r"^osd_op\((\S+) \S+ [^ ]*?:::(.*?):head \[(.*?)\] ")


def parse_size(s):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip()
    if s and s[-1].upper() in units:
        return int(s[:-1]) * units[s[-1].upper()]
    return int(s)


class HeadCounter:
    """Client operations on a set of head objects, from the OSDs' op history."""

    def __init__(self, heads):
        import rados
        self.heads = set(heads)
        self.cluster = rados.Rados(conffile=os.environ.get("CEPH_CONF"))
        self.cluster.connect(timeout=30)
        ret, out, err = self.cluster.mon_command(
            json.dumps({"prefix": "osd ls", "format": "json"}), b"")
        if ret < 0:
            raise RuntimeError("osd ls: %s" % err)
        self.osds = json.loads(out)
        self.saved = {}

    def _osd(self, osd, cmd):
        ret, out, err = self.cluster.osd_command(osd, json.dumps(cmd), b"", timeout=30)
        if ret < 0:
            raise RuntimeError("osd.%d %s: %s" % (osd, cmd["prefix"], err))
        return json.loads(out) if out.strip() else None

    def _set_history(self, osd, size):
        self._osd(osd, {"prefix": "config set", "var": "osd_op_history_size",
                        "val": [str(size)]})

    def raise_history(self):
        for osd in self.osds:
            got = self._osd(osd, {"prefix": "config get", "var": "osd_op_history_size"})
            self.saved[osd] = int(got["osd_op_history_size"]) if got else 20
            self._set_history(osd, HISTORY)

    def restore_history(self):
        for osd, size in self.saved.items():
            try:
                self._set_history(osd, size)
            except Exception as e:  # the run's figures stand; say so only
                print("parallel: osd.%d: history size not put back: %s" % (osd, e),
                      file=sys.stderr)

    def snapshot(self):
        """{op id: [sub-op names]} of the heads' ops in every OSD's history;
        None when a history is full (ops may have been dropped)."""
        ops = {}
        for osd in self.osds:
            d = self._osd(osd, {"prefix": "dump_historic_ops"})
            if len(d["ops"]) >= HISTORY:
                return None
            for op in d["ops"]:
                m = OP_RE.match(op["description"])
                if not m or m.group(2) not in self.heads:
                    continue
                subops = [s.strip().split(" ")[0] for s in m.group(3).split(",")]
                ops[(osd, m.group(1), op["initiated_at"])] = subops
        return ops

    def close(self):
        self.cluster.shutdown()


def expand(args, i, region):
    return [a.replace("{i}", str(i)).replace("{offset}", str(i * region)) for a in args]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--procs", type=int, required=True)
    ap.add_argument("--region", required=True, help="bytes per process (K, M, G)")
    ap.add_argument("--head", action="append", default=[])
    ap.add_argument("--label", default=None, help="system in the JSON (default: the programs')")
    ap.add_argument("--lead", type=float, default=None,
                    help="seconds until the common start (default 1.5 + 0.25 per process)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if a.procs < 1 or not cmd:
        ap.error("need --procs >= 1 and a command")
    region = parse_size(a.region)
    heads = sorted({h.replace("{i}", str(i)) + ".0000000000000000"
                    for h in a.head for i in range(a.procs)})

    counter = before = None
    if heads:
        counter = HeadCounter(heads)
        counter.raise_history()
        before = counter.snapshot()
    try:
        lead = a.lead if a.lead is not None else 1.5 + 0.25 * a.procs
        start_at = time.time() + lead
        procs = [subprocess.Popen(expand(cmd, i, region) + ["--start-at", "%.6f" % start_at],
                                  stdout=subprocess.PIPE)
                 for i in range(a.procs)]
        outs = [p.communicate()[0].decode() for p in procs]
        failed = [i for i, p in enumerate(procs) if p.returncode != 0]
        if failed:
            print("parallel: process(es) %s failed" % failed, file=sys.stderr)
            return 1
        res = [json.loads(o.strip().splitlines()[-1]) for o in outs]
        after = counter.snapshot() if counter else None
    finally:
        if counter:
            counter.restore_history()

    t0 = min(r["t_start"] for r in res)
    t1 = max(r["t_end"] for r in res)
    wall = t1 - t0
    nbytes = sum(r["bytes"] for r in res)
    calls = sum(r["calls"] for r in res)
    cpu = sum(r.get("cpu_s", 0) for r in res)
    out = {"system": a.label or res[0]["system"], "op": res[0]["op"], "bs": res[0]["bs"],
           "depth": res[0]["depth"], "procs": a.procs, "region": region, "calls": calls,
           "bytes": nbytes, "seconds": wall, "mib_per_s": nbytes / MIB / wall,
           "iops": calls / wall, "cpu_s": cpu, "cpu_s_per_gib": cpu / (nbytes / GIB),
           "obj_ops": sum(r.get("obj_ops", 0) for r in res),
           "start_skew_s": max(r["t_start"] for r in res) - t0,
           "late_start_s": max(0.0, max(r["t_start"] for r in res) - start_at),
           "proc_mib_per_s": [r["mib_per_s"] for r in res]}
    # The slowest process's percentiles: an upper bound of those of all the calls
    # (a percentile of a union lies between those of its parts).
    for key in ("lat_p50_ms", "lat_p99_ms", "lat_p999_ms", "lat_max_ms"):
        if all(key in r for r in res):
            out[key] = max(r[key] for r in res)
    if counter:
        if before is None or after is None:
            print("parallel: an OSD's op history was full: head ops not counted",
                  file=sys.stderr)
        else:
            new = [subops for key, subops in after.items() if key not in before]
            data = sum(1 for s in new if s and all(x in DATA_OPS for x in s))
            out["head_objects"] = len(heads)
            out["head_ops"] = len(new)
            out["head_data_ops"] = data
            out["head_meta_ops"] = len(new) - data
            out["head_ops_per_gib"] = len(new) / (nbytes / GIB)
            out["head_meta_ops_per_gib"] = (len(new) - data) / (nbytes / GIB)
            kinds = {}
            for subops in new:
                k = "+".join(sorted(set(subops)))
                kinds[k] = kinds.get(k, 0) + 1
            out["head_ops_by_kind"] = kinds
        counter.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
