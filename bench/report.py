#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Turn bench/run's raw figures (one JSON object a line) into results.md and
results.json; with --chart also results.png (through gnuplot and bench/plot.gp),
a picture of tables (a)-(e), which results.md holds in full."""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = [
    ("seed", "(a) seed: 1 GiB in 64 MiB calls, one at a time (oflag=direct)", "mib_per_s"),
    ("seqwrite", "(b) sequential write: 4 MiB calls, 4 in flight", "mib_per_s"),
    ("seqread", "(c) sequential read: 4 MiB calls, 4 in flight", "mib_per_s"),
    ("randwrite", "(d) random 4 KiB overwrites in 256 MiB, 16 in flight", "iops"),
    ("cpu", "(e) client CPU seconds per GiB written (case b; lower is better)", "cpu_s_per_gib"),
]

# (f) the Python package against the C API: own tables, not in the plot.
PY_CASES = [
    ("python-write", "(f) Python f.write against the C API: 64 MiB calls, one at a time",
     "mib_per_s"),
    ("python-read", "(f) Python f.readinto against the C API: 64 MiB calls, one at a time",
     "mib_per_s"),
]

# Issue 18: CephFS as a peer (g), N processes on one file (h), small appends
# (i): own tables, not in the plot.
CEPHFS_CASES = [
    ("cephfs-64M", "(g) CephFS: 64 MiB calls, one at a time, O_DIRECT", "mib_per_s"),
    ("cephfs-1M", "(g) CephFS: 1 MiB calls, one at a time, O_DIRECT", "mib_per_s"),
]
NTO1_PROCS = (1, 2, 4, 8)
NTO1_CASES = [("nto1-%d" % n, "(h) %d process(es), 4 MiB calls, 4 in flight each" % n,
               "mib_per_s") for n in NTO1_PROCS]
APPEND_CASES = [("append4k", "(i) sync 4 KiB calls at the end of the file", "iops")]
# Issue 25: ordinary calls, one synchronous call after another (j).
BUF_CASES = [
    ("buf-w-64K", "(j) sequential 64 KiB sync writes (and the final flush)", "mib_per_s"),
    ("buf-r-64K", "(j) sequential 64 KiB sync reads, a fresh client", "mib_per_s"),
    ("buf-w-1M", "(j) sequential 1 MiB sync writes (and the final flush)", "mib_per_s"),
    ("buf-r-1M", "(j) sequential 1 MiB sync reads, a fresh client", "mib_per_s"),
    ("buf-w-4K", "(j) sequential 4 KiB sync writes (and the final flush)", "mib_per_s"),
    ("buf-rand", "(j) random 4 KiB sync reads", "iops"),
]
# The libradosstriper drop-in (k), as programs use it.
DROPIN_CASES = [
    ("drop-xrdcp-in", "(k) xrdcp into XRootD with XrdCeph (aio 64 KiB, 8 in flight)", "mib_per_s"),
    ("drop-xrdcp-out", "(k) xrdcp out of XRootD with XrdCeph", "mib_per_s"),
    ("drop-xrdcp32-in", "(k) xrdcp into XRootD with XrdCeph, xrootd.async maxsegs 32 "
     "(aio 64 KiB, 32 in flight)", "mib_per_s"),
    ("drop-xrdcp32-out", "(k) xrdcp out of XRootD with XrdCeph, xrootd.async maxsegs 32",
     "mib_per_s"),
    ("drop-rados-put", "(k) rados --striper put", "mib_per_s"),
    ("drop-rados-get", "(k) rados --striper get", "mib_per_s"),
    ("drop-aio-w", "(k) C API: aio 64 KiB writes, 8 in flight (XrdCeph's pattern)", "mib_per_s"),
    ("drop-aio-r", "(k) C API: aio 64 KiB reads, 8 in flight", "mib_per_s"),
    ("drop-sync-w", "(k) C API: sync 64 KiB writes on one name", "mib_per_s"),
    ("drop-sync-r", "(k) C API: sync 64 KiB reads on one name", "mib_per_s"),
]
# (l) the mount: case, title, metric (what MOUNT_ROWS shows)
MOUNT_CASES = [
    ("mount-dd-in", "dd bs=64M oflag=direct, into the mount", "mib_per_s"),
    ("mount-dd-out", "dd bs=64M iflag=direct, out", "mib_per_s"),
    ("mount-cp-in", "cp in (cached)", "mib_per_s"),
    ("mount-cp-out", "cp out (cached)", "mib_per_s"),
    ("mount-small-create", "4 KiB files created and written", "iops"),
    ("mount-small-ls", "ls -l of them", "iops"),
    ("mount-small-read", "read back", "iops"),
    ("mount-small-rm", "removed", "iops"),
    ("mount-tree-cp", "a tree (--mount-tree), files/s: cp -a in", "iops"),
    ("mount-tree-tar", "the tree: tar x in", "iops"),
    ("mount-tree-rsync", "the tree: rsync -a in", "iops"),
    ("mount-tree-ls", "ls -lR of the three copies", "iops"),
    ("mount-tree-cat", "cat of every file of one copy", "iops"),
    ("mount-tree-rm", "rm -r of the three copies", "iops"),
]
# (m) the erasure-coded pools: each what on each pool kind and layout, and the alignment rows.
EC_CASES = ([("%s/%s/%s" % (what, kind, lay), "(m) %s" % what, "mib_per_s")
             for what in ("ec-dd-in", "ec-dd-out", "ec-xrdcp-in", "ec-xrdcp-out",
                          "ec-rados-put", "ec-rados-get")
             for kind in ("replicated", "ec", "ecow") for lay in ("default", "site")] +
            [("ec-align-%s" % bs, "(m) alignment", "mib_per_s") for bs in ("64K", "192K", "4M")])
# (l) the daemon's memory while it copies (bench/run --mount-memory): md_mount_memory
MOUNT_MEMORY_CASES = [
    ("mount-mem-cp-in", "cp in (cached)", "mib_per_s"),
    ("mount-mem-cp-out", "cp out (cached)", "mib_per_s"),
    ("mount-mem-dd-in", "dd bs=64M oflag=direct in", "mib_per_s"),
    ("mount-mem-dd-out", "dd bs=64M iflag=direct out", "mib_per_s"),
]
# (n) the namespace index (bench/run --cases namespace): listings by a walk
# of the pool against the index (seconds, lower is better), then writers in
# an indexed namespace against an unindexed one (higher is better)
NAMESPACE_LISTINGS = [
    ("ns-ls-d100", "`striped ls rados://bench-ns/d100/ -d /`", "seconds"),
    ("ns-mount-ls", "mount: `ls d100`, a fresh mount", "seconds"),
    ("ns-mount-ls-l", "mount: `ls -l d100`, a fresh mount", "seconds"),
    ("ns-mount0-ls", "mount: `ls d100`, cache_time=0", "seconds"),
    ("ns-mount0-ls-l", "mount: `ls -l d100`, cache_time=0", "seconds"),
]
NAMESPACE_WRITERS = [
    ("ns-create", "striped_head_create() of 4 KiB, one at a time", "per_s", "files/s"),
    ("ns-remove", "striped_remove() of them, one at a time", "per_s", "files/s"),
    ("ns-dropin-put", "`rados --striper put` of 4 KiB on the drop-in, a process each",
     "per_s", "files/s"),
    ("ns-dropin-rm", "`rados --striper rm` of them on the drop-in", "per_s", "files/s"),
    ("ns-dd", "striped-dd bs=64M", "mib_per_s", "MiB/s"),
]
NAMESPACE_ONCE = [
    ("ns-fill", "the pool filled", "objects_per_s"),
    ("ns-index-create", "`striped index create`", "seconds"),
    ("ns-ls-big", "`striped ls rados://bench-ns/big/ -d /`, names from the index", "per_s"),
    ("ns-index-drop", "`striped index drop`", "seconds"),
]
NAMESPACE_CASES = (NAMESPACE_LISTINGS + [(c, t, m) for c, t, m, _ in NAMESPACE_WRITERS] +
                   NAMESPACE_ONCE)
EXTRA_CASES = (CEPHFS_CASES + NTO1_CASES + APPEND_CASES + BUF_CASES + DROPIN_CASES +
               MOUNT_CASES + MOUNT_MEMORY_CASES + EC_CASES + NAMESPACE_CASES)
# The buffered mode's window in case (j): the library's default.
BUF_WINDOW_MIB = 64

SYSTEMS = {
    "aligned": "libstriped, a layout on whole stripes of the EC pool",
    "misaligned": "libstriped, a layout across the EC pool's stripes",
    "raw16": "librados aio, 16 ops in flight",
    "raw4": "librados aio, 4 ops in flight",
    "raw16zc": "librados C++ aio, zero copy, 16 ops in flight",
    "raw4zc": "librados C++ aio, zero copy, 4 ops in flight",
    "striped": "libstriped (C API, striped_aio_*)",
    "striped-zc": "libstriped (C API, STRIPED_IO_ZEROCOPY)",
    "dd": "libstriped (striped-dd)",
    "serial": "libstriped serial path (throttle 1 op)",
    "striper": "libradosstriper (C API)",
    "rbd": "librbd (rbd bench, rbd_cache=false)",
    "radosbench": "rados bench (reference)",
    "fio-striped": "fio + fio-libstriped.so",
    "fio-rados": "fio, its rados engine",
    "fio-rbd": "fio, its rbd engine (direct=1: rbd_cache=false)",
    "python": "libstriped (Python package, f.write/f.readinto)",
    "cephfs": "CephFS, libcephfs (ceph_write, O_DIRECT)",
    "fuse": "CephFS, ceph-fuse mount (GNU dd oflag=direct)",
    "raw1": "librados aio, one call at a time (one object write per call)",
    "n1": "libstriped, N processes, one shared file (N-to-1)",
    "nn": "libstriped, N processes, a file each (N-to-N)",
    "rawn": "librados aio, N processes (raw objects)",
    "striped-write": "libstriped striped_write at the end (sync)",
    "striped-append": "libstriped striped_append (sync)",
    "rados-append": "librados rados_append on one object (sync)",
    "rados-append-size": "librados rados_append and a size update beside it (sync)",
    "striped-buf": "libstriped buffered (STRIPED_BUFFERED, sync calls)",
    "striped-sync": "libstriped unbuffered (sync calls)",
    "striped-aio": "libstriped aio, 4 MiB calls, 4 in flight",
    "cephfs-buf": "CephFS, libcephfs buffered (write + fsync; read: a fresh mount)",
    "rbd-cache": "librbd, rbd_cache=true (sync calls, rbd_flush timed)",
    "xrd-dropin": "XRootD + XrdCeph on the libradosstriper drop-in (xrdcp)",
    "xrd-stock": "XRootD + XrdCeph on stock libradosstriper (xrdcp)",
    "rados-dropin": "rados --striper on the drop-in",
    "rados-stock": "rados --striper on stock libradosstriper",
    "dropin": "the libradosstriper drop-in (its C API)",
    "raw-same": "raw librados, the same object calls (the ceiling)",
    "xrd-local": "XRootD on a local directory (no Ceph: the XRootD stack's own rate)",
    "mount": "striped-mount (FUSE), unmodified programs",
    "ns-walk": "no index: a walk of the pool",
    "ns-index": "the namespace index",
    "ns-indexed": "the indexed namespace (the pool's default)",
    "ns-unindexed": "namespace noidx of the same pool, no index",
    "ns-setup": "namespace_bench fill",
}

# The fio rows: fio-libstriped.so against fio's own engines, the same job.
FIO_SYSTEMS = ("fio-striped", "fio-rados", "fio-rbd")

# Plot columns: one bar colour per kind of system.
PLOT_SYSTEMS = [
    ("raw", "raw librados aio (ceiling)"),
    ("rawzc", "raw librados, zero copy"),
    ("striped", "libstriped C API"),
    ("striped-zc", "libstriped C API, zero copy"),
    ("dd", "striped-dd"),
    ("serial", "libstriped serial path"),
    ("striper", "libradosstriper"),
    ("rbd", "librbd"),
    ("radosbench", "rados bench"),
]

# The ceiling each case is measured against.
CEILING = {"seed": "raw16", "seqwrite": "raw4", "seqread": "raw4", "randwrite": "raw16",
           "cpu": "raw4"}

UNIT = {"mib_per_s": "MiB/s", "iops": "IOPS", "cpu_s_per_gib": "CPU s/GiB", "seconds": "s",
        "per_s": "/s"}

# (case, libstriped system, peer, goal, higher is better, phases it applies to)
TARGETS = [
    ("seed", "dd", "raw16", 0.9, True, "lat"),
    ("seed", "striped", "raw16", 0.9, True, "lat"),
    ("seed", "dd", "serial", 3.0, True, "lat"),
    ("seed", "striped", "serial", 3.0, True, "lat"),
    ("seqwrite", "striped", "raw4", 0.95, True, "all"),
    ("seqwrite", "striped", "striper", 2.0, True, "all"),
    ("seqwrite", "striped", "rbd", 1.0, True, "all"),
    ("randwrite", "striped", "rbd", 0.9, True, "all"),
    ("randwrite", "striped", "striper", 5.0, True, "all"),
    ("seqread", "striped", "raw4", 0.95, True, "all"),
    ("cpu", "striped", "raw4", 1.1, False, "all"),
    # zero copy (issue 10)
    ("seed", "striped-zc", "raw16", 1.05, True, "all"),
    ("seed", "striped-zc", "raw16zc", 0.95, True, "all"),
    ("seed", "dd", "raw16", 1.0, True, "all"),
    ("seed", "dd", "striped-zc", 0.95, True, "all"),
    ("seqwrite", "striped-zc", "raw4", 1.0, True, "all"),
    ("seqwrite", "striped-zc", "rbd", 1.2, True, "all"),
    ("cpu", "striped-zc", "raw4", 0.75, False, "all"),
    ("cpu", "dd", "raw4", 1.0, False, "all"),
    ("seqread", "striped", "raw4", 1.0, True, "all"),
    # the Python package (issue 19): the same calls as the C API, zero copy both ways
    ("python-write", "python", "striped-zc", 0.95, True, "all"),
    ("python-read", "python", "striped", 0.95, True, "all"),
    # ordinary calls (issue 25): the buffered mode
    ("buf-w-64K", "striped-buf", "cephfs-buf", 1.0, True, "all"),
    ("buf-w-64K", "striped-buf", "striped-aio", 0.9, True, "all"),
    ("buf-r-64K", "striped-buf", "cephfs-buf", 1.0, True, "all"),
    ("buf-w-1M", "striped-buf", "cephfs-buf", 1.0, True, "all"),
    ("buf-w-1M", "striped-buf", "striped-aio", 0.9, True, "all"),
    ("buf-r-1M", "striped-buf", "cephfs-buf", 1.0, True, "all"),
    ("buf-w-4K", "striped-buf", "cephfs-buf", 1.0, True, "all"),
    ("buf-rand", "striped-buf", "striped-sync", 0.95, True, "all"),
    # the libradosstriper drop-in (issue 30)
    ("drop-xrdcp-in", "xrd-dropin", "xrd-stock", 10.0, True, "all"),
    ("drop-xrdcp-out", "xrd-dropin", "xrd-stock", 4.0, True, "all"),
    ("drop-xrdcp-in", "xrd-dropin", "dd", 0.5, True, "all"),
    ("drop-xrdcp-out", "xrd-dropin", "dd", 0.5, True, "all"),
    ("drop-rados-put", "rados-dropin", "rados-stock", 1.5, True, "all"),
    ("drop-rados-get", "rados-dropin", "rados-stock", 1.5, True, "all"),
    ("drop-sync-w", "dropin", "striped", 0.9, True, "all"),
    ("drop-sync-r", "dropin", "striped", 0.9, True, "all"),
]


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    for r in rows:
        res = r["result"]
        if "mib_per_s" not in res and "bytes_per_second" in res:  # striped-dd
            res["mib_per_s"] = res["bytes_per_second"] / 1048576.0
        lat = res.get("block_latency_seconds")  # striped-dd: its blocks' calls
        if isinstance(lat, dict):
            for key, name in (("p50", "lat_p50_ms"), ("p99", "lat_p99_ms"),
                              ("p999", "lat_p999_ms"), ("max", "lat_max_ms")):
                if key in lat and name not in res:
                    res[name] = lat[key] * 1000.0
    return rows


def phases_of(rows):
    seen = []
    for r in rows:
        if r["phase"] not in seen:
            seen.append(r["phase"])
    return seen


def values(rows, phase, case, system, metric):
    src = "seqwrite" if case == "cpu" else case
    return [r["result"][metric] for r in rows
            if r["phase"] == phase and r["case"] == src and r["system"] == system
            and metric in r["result"]]


def spread(v):
    return {"n": len(v), "median": statistics.median(v), "min": min(v), "max": max(v),
            "values": v}


def summarize(rows):
    out = {}
    for phase in phases_of(rows):
        out[phase] = {}
        for case, _, metric in CASES + PY_CASES + EXTRA_CASES:
            out[phase][case] = {}
            for system in SYSTEMS:
                v = values(rows, phase, case, system, metric)
                if not v:
                    continue
                out[phase][case][system] = dict(spread(v), metric=metric)
                # (h): the head objects' operations per GiB, as counted at the OSDs;
                # the per-call latency's 99th percentile
                for extra in ("head_ops_per_gib", "head_meta_ops_per_gib", "start_skew_s",
                              "lat_p99_ms", "rss_max_kib", "cpu_s_per_gib",
                              "daemon_max_rss_kib", "peak_rss_kib", "bound_kib", "bytes"):
                    e = values(rows, phase, case, system, extra)
                    if e:
                        out[phase][case][system][extra] = spread(e)
    return out


def ratio(summary, phase, case, a, b):
    s = summary.get(phase, {}).get(case, {})
    if a not in s or b not in s or not s[b]["median"]:
        return None
    return s[a]["median"] / s[b]["median"]


def fmt(v, metric):
    if v is None:
        return "-"
    if metric == "cpu_s_per_gib":
        return "%.2f" % v
    if metric == "seconds":  # a listing of 100 names takes milliseconds
        return "%.0f" % v if v >= 100 else "%.2f" % v if v >= 1 else "%.3f" % v
    return "%.0f" % v if v >= 100 else "%.1f" % v


def fmt_ms(v):
    """A latency in ms with three significant digits or so, or -."""
    if v is None:
        return "-"
    return "%.2f" % v if v < 10 else "%.1f" % v if v < 100 else "%.0f" % v


def p99(summary, phase, case, system):
    """The median over repetitions of a system's per-call p99 latency (ms), or -."""
    s = summary.get(phase, {}).get(case, {}).get(system, {}).get("lat_p99_ms")
    return fmt_ms(s["median"]) if s else "-"


# Said under every table that has p99 columns.
P99_NOTE = ("p99: the 99th percentile of the per-call latency in ms, submission to "
            "completion as the program timed each call (fio: lat_percentiles; striped-dd: "
            "its blocks' calls, from libstriped's histograms), median over the repetitions; "
            "- where the tool reports none (rbd bench, rados bench, GNU dd).")


def phase_title(phase):
    if phase == "nolat":
        return "no added latency"
    return "+%s ms latency" % phase[3:]


def machine():
    def run(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
        except OSError:
            return "?"
    mem = "?"
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = "%.1f GiB" % (int(line.split()[1]) / 1048576)
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    return {"nproc": run(["nproc"]), "memory": mem, "cpu": cpu,
            "kernel": platform.release(), "ceph": run(["ceph", "--version"]),
            "fio": run(["fio", "--version"]),
            "libstriped": run(["git", "-C", os.path.dirname(HERE), "describe", "--always",
                               "--dirty"]),
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "loadavg_at_report": load}


def md_case_table(summary, phases, case, title, metric):
    lines = ["### %s" % title, ""]
    head = "| system |"
    sep = "|---|"
    lat = metric != "cpu_s_per_gib"  # a throughput: its calls' p99 beside it
    for p in phases:
        head += " %s: %s median (min-max) |%s libstriped / system |" % (
            phase_title(p), UNIT[metric], " p99 ms |" if lat else "")
        sep += "---:|---:|" + ("---:|" if lat else "")
    lines += [head, sep]
    systems = [s for s in SYSTEMS if any(s in summary[p][case] for p in phases)]
    for system in systems:
        row = "| %s |" % SYSTEMS[system]
        for p in phases:
            s = summary[p][case].get(system)
            if not s:
                row += " - | - |" + (" - |" if lat else "")
                continue
            row += " **%s** (%s-%s) |" % (fmt(s["median"], metric), fmt(s["min"], metric),
                                          fmt(s["max"], metric))
            if lat:
                row += " %s |" % p99(summary, p, case, system)
            r = ratio(summary, p, case, "striped", system)
            row += " %s |" % ("%.2fx" % r if r is not None and system != "striped" else "")
        lines.append(row)
    lines.append("")
    return lines


def evaluate_targets(summary, phases):
    out = []
    for case, a, b, goal, higher, where in TARGETS:
        for p in phases:
            if where == "lat" and p == "nolat":
                continue
            r = ratio(summary, p, case, a, b)
            if r is None:
                met = None
            else:
                met = r >= goal if higher else r <= goal
            out.append({"case": case, "libstriped": a, "peer": b, "phase": p, "goal": goal,
                        "higher_is_better": higher, "ratio": r, "met": met})
    return out


def md_targets(targets):
    lines = ["## Targets", "",
             "| case | ratio | phase | goal | measured | met |", "|---|---|---|---:|---:|---|"]
    for t in targets:
        name = "%s / %s" % (SYSTEMS[t["libstriped"]], SYSTEMS[t["peer"]])
        if t["case"] == "cpu":
            name = "CPU per GiB: " + name
        goal = ("%s %.2fx" % (">=" if t["higher_is_better"] else "<=", t["goal"]))
        meas = "-" if t["ratio"] is None else "%.2fx" % t["ratio"]
        met = {None: "no data", True: "yes", False: "**no**"}[t["met"]]
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            t["case"], name, phase_title(t["phase"]), goal, meas, met))
    lines.append("")
    return lines


def md_fio(summary, phases):
    """fio through libstriped against fio's rados and rbd engines, job by job."""
    lines = ["## fio: fio-libstriped.so against fio's own engines", "",
             "The same fio job (direct=1) through each engine; fio's rados engine spreads "
             "the bytes over 16 objects (one fio file is one RADOS object there).", "",
             "| case | phase | fio + libstriped | p99 ms | fio rados | p99 ms "
             "| libstriped / rados | fio rbd | p99 ms | libstriped / rbd |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for case, _, metric in CASES:
        for p in phases:
            s = summary[p].get(case, {})
            if not any(system in s for system in FIO_SYSTEMS):
                continue
            cells = []
            for system in FIO_SYSTEMS:
                v = s.get(system)
                cells.append("**%s** %s | %s" % (fmt(v["median"], metric), UNIT[metric],
                                                 p99(summary, p, case, system))
                             if v else "- | -")
            r_rados = ratio(summary, p, case, "fio-striped", "fio-rados")
            r_rbd = ratio(summary, p, case, "fio-striped", "fio-rbd")
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                case, phase_title(p), cells[0], cells[1],
                "-" if r_rados is None else "%.2fx" % r_rados, cells[2],
                "-" if r_rbd is None else "%.2fx" % r_rbd))
    lines.append("")
    return lines


def md_python(summary, phases):
    """The Python package's calls against the same calls through the C API."""
    lines = ["## Python: the `striped` package against the C API", "",
             "64 MiB calls one at a time over 4 MiB objects: `f.write(buf)` (striped_write, "
             "which sends the caller's buffer) against striped_aio_write2 with "
             "STRIPED_IO_ZEROCOPY at depth 1, and `f.readinto(buf)` (striped_read) against "
             "striped_aio_read at depth 1; one reused buffer each.", "",
             "| case | phase | C API MiB/s | p99 ms | Python MiB/s | p99 ms | Python / C |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for case, peer in (("python-write", "striped-zc"), ("python-read", "striped")):
        for p in phases:
            s = summary[p].get(case, {})
            if "python" not in s:
                continue
            c = s.get(peer)
            r = ratio(summary, p, case, "python", peer)
            lines.append("| %s | %s | %s | %s | **%s** (%s-%s) | %s | %s |" % (
                case, phase_title(p), "-" if not c else fmt(c["median"], "mib_per_s"),
                p99(summary, p, case, peer),
                fmt(s["python"]["median"], "mib_per_s"), fmt(s["python"]["min"], "mib_per_s"),
                fmt(s["python"]["max"], "mib_per_s"), p99(summary, p, case, "python"),
                "-" if r is None else "%.2fx" % r))
    lines.append("")
    return lines


def cell(summary, phase, case, system, metric, key=None):
    """**median** (min-max) of a system, or -."""
    s = summary.get(phase, {}).get(case, {}).get(system)
    if s and key:
        s = s.get(key)
    if not s:
        return "-"
    return "**%s** (%s-%s)" % (fmt(s["median"], metric), fmt(s["min"], metric),
                               fmt(s["max"], metric))


def cell_p99(summary, phase, case, system, metric):
    """cell(), then the system's p99 in a column of its own."""
    return "%s | %s" % (cell(summary, phase, case, system, metric),
                        p99(summary, phase, case, system))


def ratio_cell(summary, phase, case, a, b):
    r = ratio(summary, phase, case, a, b)
    return "-" if r is None else "%.2fx" % r


def has_rows(summary, phases, cases, systems=None):
    return any(system in summary[p].get(case, {}) for p in phases for case in cases
               for system in (systems or SYSTEMS))


def md_cephfs(summary, phases):
    """(g) striped-dd against CephFS written with O_DIRECT, one call at a time."""
    if not (has_rows(summary, phases, [c for c, _, _ in CEPHFS_CASES]) or
            has_rows(summary, phases, ["seed"], ("cephfs", "fuse"))):
        return []
    lines = ["## CephFS: striped-dd against libcephfs and ceph-fuse", "",
             "One file written with O_DIRECT in calls of the given size, one at a time: "
             "`striped-dd bs=SIZE oflag=direct` into a striped file, `ceph_write` on a "
             "CephFS file opened with O_DIRECT (bench/cephfs_bench.c), and GNU `dd "
             "bs=SIZE oflag=direct` into a ceph-fuse mount of the same file system. "
             "CephFS's layout is its default, 4 MiB objects as libstriped's; its data "
             "pool has 32 PGs as the striped pool. MiB/s, median (min-max); the ratios "
             "are striped-dd's median over the peer's. At 1 MiB calls raw librados "
             "writes the same calls into 4 MiB objects, one at a time: one object "
             "write per call, the floor for any client that waits for each call.", "",
             "| calls | phase | striped-dd | p99 ms | libcephfs | p99 ms | dd / libcephfs "
             "| ceph-fuse | p99 ms | dd / ceph-fuse | raw, one at a time | p99 ms | dd / raw "
             "| libcephfs / raw |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for case, label in (("seed", "64 MiB (case a)"), ("cephfs-64M", "64 MiB"),
                        ("cephfs-1M", "1 MiB")):
        for p in phases:
            s = summary[p].get(case, {})
            if not any(system in s for system in ("cephfs", "fuse")) and case == "seed":
                continue
            if not s:
                continue
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                label, phase_title(p), cell_p99(summary, p, case, "dd", "mib_per_s"),
                cell_p99(summary, p, case, "cephfs", "mib_per_s"),
                ratio_cell(summary, p, case, "dd", "cephfs"),
                cell_p99(summary, p, case, "fuse", "mib_per_s"),
                ratio_cell(summary, p, case, "dd", "fuse"),
                cell_p99(summary, p, case, "raw1", "mib_per_s"),
                ratio_cell(summary, p, case, "dd", "raw1"),
                ratio_cell(summary, p, case, "cephfs", "raw1")))
    lines.append("")
    return lines


def md_nto1(summary, phases):
    """(h) N processes on one striped file, against a file each and raw objects."""
    if not has_rows(summary, phases, [c for c, _, _ in NTO1_CASES]):
        return []
    lines = ["## N-to-1: N processes writing regions of one striped file", "",
             "N processes, each its own client (bench/parallel.py), write 4 MiB calls, 4 in "
             "flight each, from the same moment on: disjoint 4 MiB-aligned regions of one "
             "striped file created empty beforehand (N-to-1: the writers grow it), a file "
             "each (N-to-N), or raw objects with librados aio (the ceiling); the same bytes "
             "in all. Aggregate MiB/s: all bytes over the wall time from the first "
             "process's start to the last one's end. Head ops: the client operations on "
             "the files' head objects (object 0), counted in the OSDs' histories of "
             "finished operations, per GiB written; in parentheses those that are not the "
             "first object's data (size updates, locks, watches). p99: the slowest "
             "process's (an upper bound of all the calls' p99).", ""]
    for p in phases:
        if not any(summary[p].get(c) for c, _, _ in NTO1_CASES):
            continue
        lines += ["### %s" % phase_title(p), "",
                  "| N | N-to-1 MiB/s | p99 ms | N-to-N MiB/s | p99 ms | raw MiB/s | p99 ms "
                  "| N-to-1 / N-to-N | N-to-1 / raw | head ops/GiB N-to-1 "
                  "| head ops/GiB N-to-N |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for n in NTO1_PROCS:
            case = "nto1-%d" % n
            s = summary[p].get(case, {})
            if not s:
                continue

            def head(system):
                h = s.get(system, {}).get("head_ops_per_gib")
                m = s.get(system, {}).get("head_meta_ops_per_gib")
                if not h:
                    return "-"
                return "%s (%s)" % (fmt(h["median"], ""), fmt(m["median"], "") if m else "-")
            lines.append("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
                n, cell_p99(summary, p, case, "n1", "mib_per_s"),
                cell_p99(summary, p, case, "nn", "mib_per_s"),
                cell_p99(summary, p, case, "rawn", "mib_per_s"),
                ratio_cell(summary, p, case, "n1", "nn"),
                ratio_cell(summary, p, case, "n1", "rawn"), head("n1"), head("nn")))
        lines.append("")
    return lines


def md_append(summary, phases, appends):
    """(i) sync 4 KiB calls at the end of the file."""
    if not has_rows(summary, phases, ["append4k"]):
        return []
    lines = ["## Appends: sync 4 KiB calls at the end of the file", "",
             "%s calls one at a time, each at the end: `striped_write` at the end of a "
             "file it grows, `striped_append` (its range claimed on the head first), "
             "`rados_append` on one object (the ceiling), and `rados_append` with a "
             "compare-and-set of a size xattr on a second object sent beside it, both "
             "waited for (two operations per call, as a growing `striped_write`). "
             "Calls/s, median (min-max)."
             % (appends or "N"), "",
             "| phase | striped_write | p99 ms | striped_append | p99 ms | rados_append "
             "| p99 ms | write / rados | append / rados | append / write "
             "| rados_append + size | p99 ms | write / (append + size) "
             "| (append + size) / rados |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in phases:
        s = summary[p].get("append4k", {})
        if not s:
            continue
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            phase_title(p), cell_p99(summary, p, "append4k", "striped-write", "iops"),
            cell_p99(summary, p, "append4k", "striped-append", "iops"),
            cell_p99(summary, p, "append4k", "rados-append", "iops"),
            ratio_cell(summary, p, "append4k", "striped-write", "rados-append"),
            ratio_cell(summary, p, "append4k", "striped-append", "rados-append"),
            ratio_cell(summary, p, "append4k", "striped-append", "striped-write"),
            cell_p99(summary, p, "append4k", "rados-append-size", "iops"),
            ratio_cell(summary, p, "append4k", "striped-write", "rados-append-size"),
            ratio_cell(summary, p, "append4k", "rados-append-size", "rados-append")))
    lines.append("")
    return lines


def rss_mib(summary, phase, case, system):
    """The median peak RSS of a system's runs in MiB, or None."""
    s = summary.get(phase, {}).get(case, {}).get(system, {}).get("rss_max_kib")
    return s["median"] / 1024.0 if s else None


def md_buffered(summary, phases):
    """(j) ordinary calls: libstriped buffered against its own aio, CephFS and librbd."""
    cases = [c for c, _, _ in BUF_CASES]
    if not has_rows(summary, phases, cases):
        return []
    lines = ["## Ordinary calls: the buffered mode", "",
             "One synchronous call after another, sequential, as most programs (and "
             "Python's buffered files) do I/O: `striped_write`/`striped_read` on a handle "
             "opened with `STRIPED_BUFFERED` (a %d MiB window, readahead up to half of "
             "it) and without it; libcephfs buffered (no O_DIRECT, `ceph_fsync` at the "
             "end); librbd with its cache on (`rbd_cache=true`, "
             "`rbd_cache_writethrough_until_flush=false`, `rbd_flush` at the end); beside "
             "them libstriped's own aio, 4 MiB calls, 4 in flight. A write run's time "
             "includes its final flush; every read is a fresh client (another process) "
             "reading what the write left. The calls that each wait for a round trip "
             "(unbuffered libstriped, librbd's reads, which librbd reads ahead only for "
             "the first 50 MiB) move fewer bytes: a rate all the same. MiB/s (random "
             "reads: calls/s), median (min-max); ratios are libstriped buffered's median "
             "over the peer's. RSS: the buffered client's peak resident memory in MiB, "
             "and in parentheses its excess over the unbuffered client doing the same "
             "calls (the window's own cost; target: at most the window plus 10%%)."
             % BUF_WINDOW_MIB, ""]
    rows = [("buf-w-4K", "4 KiB write"), ("buf-w-64K", "64 KiB write"),
            ("buf-r-64K", "64 KiB read"), ("buf-w-1M", "1 MiB write"),
            ("buf-r-1M", "1 MiB read")]
    for p in phases:
        if not any(summary[p].get(c) for c in cases):
            continue
        lines += ["### %s" % phase_title(p), "",
                  "| calls | buffered | p99 ms | RSS MiB | unbuffered | p99 ms | libcephfs "
                  "buffered | p99 ms | librbd cache | p99 ms | aio 4 MiB x 4 | buf / libcephfs "
                  "| buf / aio | buf / librbd | buf / unbuffered |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for case, label in rows:
            if not summary[p].get(case):
                continue
            rss, base = (rss_mib(summary, p, case, s) for s in ("striped-buf", "striped-sync"))
            rss_s = "-" if rss is None else "%.0f" % rss + (
                "" if base is None else " (+%.0f)" % (rss - base))
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                label, cell_p99(summary, p, case, "striped-buf", "mib_per_s"), rss_s,
                cell_p99(summary, p, case, "striped-sync", "mib_per_s"),
                cell_p99(summary, p, case, "cephfs-buf", "mib_per_s"),
                cell_p99(summary, p, case, "rbd-cache", "mib_per_s"),
                cell(summary, p, case, "striped-aio", "mib_per_s"),
                ratio_cell(summary, p, case, "striped-buf", "cephfs-buf"),
                ratio_cell(summary, p, case, "striped-buf", "striped-aio"),
                ratio_cell(summary, p, case, "striped-buf", "rbd-cache"),
                ratio_cell(summary, p, case, "striped-buf", "striped-sync")))
        if summary[p].get("buf-rand"):
            lines += ["", "Random 4 KiB sync reads over 1 GiB (calls/s): readahead on %s, "
                      "off %s: %s." % (
                          cell_p99(summary, p, "buf-rand", "striped-buf", "iops"),
                          cell_p99(summary, p, "buf-rand", "striped-sync", "iops"),
                          ratio_cell(summary, p, "buf-rand", "striped-buf", "striped-sync"))]
        lines.append("")
    return lines


def load_skipped(path):
    """The rows bench/run could not measure: [(phase, system, reason)], once each."""
    seen = []
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.strip():
                    j = json.loads(line)
                    k = (j["phase"], j["system"], j["reason"])
                    if k not in seen:
                        seen.append(k)
    return seen


def md_skipped(skipped):
    if not skipped:
        return []
    lines = ["## Skipped", ""]
    for phase, system, reason in skipped:
        name = {"cephfs": "libcephfs rows", "fuse": "ceph-fuse rows"}.get(system, system)
        lines.append("- %s, %s: %s" % (phase_title(phase), name, reason))
    lines.append("")
    return lines


def md_stats(rows, phases):
    """What libstriped's calls did: RADOS operations per call and most in flight."""
    lines = ["## What the calls did (median over repetitions)", "",
             "RADOS ops and most in flight come from libstriped's own statistics "
             "(striped_completion_stats, striped_file_stats; striped-dd's JSON); "
             "time inside submit is the share of the wall time the caller spent inside "
             "striped_aio_write/read (rados_aio_write/read for the raw rows).", "",
             "| phase | case | system | calls | RADOS ops | ops per call | most in flight "
             "(one call) | most in flight (run) | throttle waits | time inside submit |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for p in phases:
        for case in ("seed", "seqwrite", "seqread", "randwrite"):
            for system in ("raw16", "raw4", "raw16zc", "raw4zc", "striped", "striped-zc", "dd",
                           "serial"):
                rs = [r["result"] for r in rows if r["phase"] == p and r["case"] == case
                      and r["system"] == system]
                if not rs:
                    continue

                def med(k):
                    v = [x[k] for x in rs if k in x]
                    return statistics.median(v) if v else None
                calls = med("calls") or med("blocks")
                ops = med("obj_ops") or med("object_ops")
                per = ops / calls if ops and calls else None
                sub = [x["submit_seconds"] / x["seconds"] for x in rs
                       if "submit_seconds" in x and x.get("seconds")]
                sub = "%.0f%%" % (100 * statistics.median(sub)) if sub else "-"
                lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    phase_title(p), case, SYSTEMS[system], fmt(calls, ""), fmt(ops, ""),
                    "-" if per is None else "%.2f" % per,
                    fmt(med("max_in_flight"), ""), fmt(med("file_max_in_flight"), ""),
                    fmt(med("throttle_waits"), ""), sub))
    lines.append("")
    return lines


def plot_system(system):
    if system.startswith("raw"):
        return "rawzc" if system.endswith("zc") else "raw"
    return system


def write_plot_data(summary, phase, path):
    """One block per plotted system: x, value relative to the ceiling, label."""
    ncol = len(PLOT_SYSTEMS)
    w = 0.8 / ncol
    with open(path, "w") as f:
        for j, (key, title) in enumerate(PLOT_SYSTEMS):
            f.write("# %s\n" % title)
            for i, (case, _, metric) in enumerate(CASES):
                s = summary.get(phase, {}).get(case, {})
                ceiling = s.get(CEILING[case])
                entry = next((v for k, v in s.items() if plot_system(k) == key), None)
                x = i + (j - (ncol - 1) / 2) * w
                if not entry or not ceiling or not ceiling["median"]:
                    f.write("%.4f ? ?\n" % x)
                    continue
                f.write('%.4f %.4f "%s"\n' % (x, entry["median"] / ceiling["median"],
                                              fmt(entry["median"], metric)))
            f.write("\n\n")


def plot_ymax(summary, phases):
    top = 1.0
    for p in phases:
        for case, _, _ in CASES:
            s = summary[p][case]
            c = s.get(CEILING[case])
            if not c or not c["median"]:
                continue
            for v in s.values():
                top = max(top, v["median"] / c["median"])
    return min(top * 1.2, 2.5)


def make_plot(summary, phases, out_dir, work_dir):
    data = []
    for p in phases[:2]:
        path = os.path.join(work_dir, "plot-%s.dat" % p)
        write_plot_data(summary, p, path)
        data.append((path, phase_title(p)))
    while len(data) < 2:
        data.append(data[0])
    xtics = ", ".join('"%s" %d' % (label, i) for i, label in enumerate(
        ["(a) seed 64M direct\\nMiB/s", "(b) seq write 4M x4\\nMiB/s",
         "(c) seq read 4M x4\\nMiB/s", "(d) rand 4K x16\\nIOPS",
         "(e) CPU s/GiB (b)\\nlower is better"]))
    titles = " ".join('"%s"' % t for _, t in PLOT_SYSTEMS)
    args = ["gnuplot",
            "-e", 'out="%s"' % os.path.join(out_dir, "results.png"),
            "-e", 'd1="%s"; t1="%s"' % data[0],
            "-e", 'd2="%s"; t2="%s"' % data[1],
            "-e", "xt='set xtics (%s)'" % xtics,
            "-e", "titles='%s'" % titles,
            "-e", "n=%d; bw=%.4f; ymax=%.3f" % (len(PLOT_SYSTEMS), 0.8 / len(PLOT_SYSTEMS) * 0.9,
                                                plot_ymax(summary, phases)),
            os.path.join(HERE, "plot.gp")]
    try:
        r = subprocess.run(args, capture_output=True, text=True)
    except OSError as e:  # no gnuplot: the tables are written all the same
        print("report: gnuplot not run: %s" % e, file=sys.stderr)
        return
    if r.returncode:
        print("report: gnuplot failed: %s" % r.stderr, file=sys.stderr)


def md_dropin(summary, phases):
    """(k) the libradosstriper drop-in against stock, as programs use it."""
    cases = [c for c, _, _ in DROPIN_CASES]
    if not has_rows(summary, phases, cases):
        return []
    lines = ["## The libradosstriper drop-in", "",
             "Programs linked against libradosstriper, unchanged, on stock libradosstriper "
             "and on the drop-in (compat/): XRootD's data server with XrdCeph (xrdcp in and "
             "out; XrdCeph sends 64 KiB aio calls, 8 in flight), beside striped-dd moving the "
             "same bytes (bs=4M); Debian's `rados --striper`; and the C API in XrdCeph's "
             "pattern and in sync 64 KiB calls on one name, beside the same calls on an open "
             "libstriped handle. MiB/s, median (min-max); stock's rows move fewer bytes (a "
             "rate all the same).", ""]
    # case: (drop-in, stock, libstriped, the ceiling's case): xrdcp's calls
    # reach the striper as XrdCeph's pattern, so their ceiling is that row's.
    rows = [("drop-xrdcp-in", ("xrd-dropin", "xrd-stock", "dd", "drop-aio-w")),
            ("drop-xrdcp-out", ("xrd-dropin", "xrd-stock", "dd", "drop-aio-r")),
            ("drop-xrdcp32-in", ("xrd-dropin", "xrd-stock", None, None)),
            ("drop-xrdcp32-out", ("xrd-dropin", "xrd-stock", None, None)),
            ("drop-rados-put", ("rados-dropin", "rados-stock", None, "drop-rados-put")),
            ("drop-rados-get", ("rados-dropin", "rados-stock", None, "drop-rados-get")),
            ("drop-aio-w", ("dropin", "striper", "striped", "drop-aio-w")),
            ("drop-aio-r", ("dropin", "striper", "striped", "drop-aio-r")),
            ("drop-sync-w", ("dropin", "striper", "striped", "drop-sync-w")),
            ("drop-sync-r", ("dropin", "striper", "striped", "drop-sync-r"))]
    titles = {c: t for c, t, _ in DROPIN_CASES}
    for p in phases:
        if not any(summary[p].get(c) for c in cases):
            continue
        lines += ["### %s" % phase_title(p), "",
                  "| what | drop-in | p99 ms | stock | p99 ms | libstriped | raw librados, "
                  "same calls | drop-in / stock | drop-in / libstriped | drop-in / raw |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for case, (ours, stock, native, ceiling) in rows:
            if not summary[p].get(case):
                continue
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                titles[case][4:], cell_p99(summary, p, case, ours, "mib_per_s"),
                cell_p99(summary, p, case, stock, "mib_per_s"),
                cell(summary, p, case, native, "mib_per_s") if native else "-",
                cell(summary, p, ceiling, "raw-same", "mib_per_s"),
                ratio_cell(summary, p, case, ours, stock),
                ratio_cell(summary, p, case, ours, native) if native else "-",
                ceiling_ratio_cell(summary, p, case, ours, ceiling)))
        lines.append("")
        for case, way in (("drop-xrdcp-in", "into"), ("drop-xrdcp-out", "out of")):
            if summary[p].get(case, {}).get("xrd-local"):
                lines.append("XRootD itself, xrdcp %s the same server on a local directory of "
                             "this host (no Ceph): %s MiB/s; the drop-in's xrdcp is %s of it, "
                             "striped-dd %s.  " % (
                                 way, cell(summary, p, case, "xrd-local", "mib_per_s"),
                                 ratio_cell(summary, p, case, "xrd-dropin", "xrd-local"),
                                 ratio_cell(summary, p, case, "dd", "xrd-local")))
        lines.append("")
    lines += ["libstriped: striped-dd for xrdcp's rows, striped_bench (the same calls on an "
              "open handle) for the C API's. Raw librados, same calls: the object writes "
              "(reads) the striper's default layout makes of the program's calls, as many in "
              "flight, without a striper (rados_aio_bench.c); for xrdcp's rows, XrdCeph's "
              "(64 KiB, 8 in flight); for `rados --striper`, 4 MiB one at a time (rados get "
              "also writes each 4 MiB to its output file in between).", ""]
    return lines


MOUNT_ROWS = [(c, t, m, "MiB/s" if m == "mib_per_s" else "files/s") for c, t, m in MOUNT_CASES]


def daemon_rss(summary, phase, case):
    """The daemon's median peak RSS in MiB, or -."""
    s = summary.get(phase, {}).get(case, {}).get("mount", {}).get("daemon_max_rss_kib")
    return "%.0f" % (s["median"] / 1024.0) if s else "-"


def md_mount(summary, phases):
    """(l) striped-mount: unmodified programs, against their peers."""
    cases = [c for c, _, _, _ in MOUNT_ROWS]
    if not has_rows(summary, phases, cases):
        return []
    lines = ["## The mount (striped-mount)", "",
             "Unmodified programs on `striped mount` (FUSE), beside striped-dd moving the same "
             "bytes (bs=64M direct for dd's rows, bs=4M for cp's), the same programs on a "
             "ceph-fuse mount, and libcephfs (O_DIRECT, 64 MiB calls) for dd's rows. Median "
             "(min-max); the daemon's CPU seconds per GiB and peak RSS beside. Targets "
             "(issue 41): dd >= 0.7x striped-dd and >= 3x ceph-fuse; cp >= 0.5x striped-dd "
             "and >= 2x ceph-fuse; small files >= 1x ceph-fuse.", ""]
    for p in phases:
        if not any(summary[p].get(c) for c in cases):
            continue
        lines += ["### %s" % phase_title(p), "",
                  "| what | unit | mount | striped-dd | ceph-fuse | libcephfs | mount / "
                  "striped-dd | mount / ceph-fuse | daemon CPU s/GiB | daemon peak RSS MiB |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for case, title, metric, unit in MOUNT_ROWS:
            if not summary[p].get(case):
                continue
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                title, unit, cell(summary, p, case, "mount", metric),
                cell(summary, p, case, "dd", metric), cell(summary, p, case, "fuse", metric),
                cell(summary, p, case, "cephfs", metric),
                ratio_cell(summary, p, case, "mount", "dd"),
                ratio_cell(summary, p, case, "mount", "fuse"),
                cell(summary, p, case, "mount", "cpu_s_per_gib", key="cpu_s_per_gib"),
                daemon_rss(summary, p, case)))
        lines.append("")
    return lines


EC_KINDS = (("replicated", "replicated"), ("ec", "EC 2+1, no overwrites"),
            ("ecow", "EC 2+1, overwrites"))
EC_LAYOUTS = (("default", "4 MiB objects"), ("site", "64 MiB objects"))


def median_of(summary, p, case, system):
    """The median of a system in a case, or None."""
    s = summary.get(p, {}).get(case, {}).get(system)
    return s["median"] if s else None


def md_ec_rows(summary, p):
    """The table of case ec: one row per pool kind and layout."""
    lines = ["| pool | layout | striped-dd in | out | xrdcp in: drop-in | stock | "
             "drop-in / stock | xrdcp out: drop-in | stock | drop-in / stock | "
             "rados --striper put: drop-in / stock | get: drop-in / stock |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for kind, kind_title in EC_KINDS:
        for lay, lay_title in EC_LAYOUTS:
            k = "/%s/%s" % (kind, lay)
            rs = "/%s/default" % kind
            cols = [cell(summary, p, "ec-dd-in" + k, "dd", "mib_per_s"),
                    cell(summary, p, "ec-dd-out" + k, "dd", "mib_per_s")]
            for way in ("in", "out"):
                case = "ec-xrdcp-%s%s" % (way, k)
                cols += [cell(summary, p, case, "xrd-dropin", "mib_per_s"),
                         cell(summary, p, case, "xrd-stock", "mib_per_s"),
                         ratio_cell(summary, p, case, "xrd-dropin", "xrd-stock")]
            for way in ("put", "get"):
                cols.append(ratio_cell(summary, p, "ec-rados-%s%s" % (way, rs), "rados-dropin",
                                       "rados-stock") if lay == "default" else "")
            lines.append("| %s | %s | %s |" % (kind_title, lay_title, " | ".join(cols)))
    return lines + [""]


def ec_targets(summary, p):
    """Issue 40's targets of case ec, each with what was measured."""
    out = []
    for lay, lay_title in EC_LAYOUTS:
        k = "/ec/" + lay
        for way, goal in (("in", 7.0), ("out", 4.0)):
            r = ratio(summary, p, "ec-xrdcp-%s%s" % (way, k), "xrd-dropin", "xrd-stock")
            out.append(("xrdcp %s, no overwrites, %s: drop-in / stock" % (way, lay_title),
                        goal, r))
        for way in ("in", "out"):
            ec = median_of(summary, p, "ec-dd-%s%s" % (way, k), "dd")
            ecow = median_of(summary, p, "ec-dd-%s/ecow/%s" % (way, lay), "dd")
            out.append(("striped-dd bs=4M %s, %s: no overwrites / overwrites" % (way, lay_title),
                        0.9, ec / ecow if ec and ecow else None))
    r = ratio(summary, p, "ec-align-64K", "aligned", "misaligned")
    out.append(("64 KiB sync writes, 24 KiB stripes: aligned / misaligned layout", 1.2, r))
    return out


def md_ec(summary, phases):
    """(m) erasure-coded pools: the drop-in and striped-dd on both kinds, and alignment."""
    cases = [c for p in phases for c in summary[p] if c.startswith("ec-")]
    if not cases:
        return []
    lines = ["## Erasure-coded pools", "",
             "striped-dd (bs=4M), xrdcp through XRootD with XrdCeph (on stock libradosstriper "
             "and on the drop-in) and `rados --striper` put and get (both libraries) on the "
             "replicated pool and on EC 2+1 pools without and with overwrites, at "
             "libradosstriper's default layout and with the 64 MiB objects of the largest "
             "site; MiB/s, median (min-max). Stock's rows move less (--dropin-stock). Then "
             "layouts aligned (192 KiB units) and misaligned (64 KiB units) to an EC pool "
             "whose stripe is 24 KiB (12 KiB chunks, overwrites on).", ""]
    for p in phases:
        if not any(c.startswith("ec-") for c in summary[p]):
            continue
        lines += ["### %s" % phase_title(p), ""] + md_ec_rows(summary, p)
        lines += ["| writes | misaligned (64 KiB units) | aligned (192 KiB units) | "
                  "aligned / misaligned |", "|---|---:|---:|---:|"]
        for bs, title in (("64K", "sync 64 KiB"), ("192K", "sync 192 KiB"),
                          ("4M", "4 MiB, 4 in flight")):
            case = "ec-align-" + bs
            lines.append("| %s | %s | %s | %s |" % (
                title, cell(summary, p, case, "misaligned", "mib_per_s"),
                cell(summary, p, case, "aligned", "mib_per_s"),
                ratio_cell(summary, p, case, "aligned", "misaligned")))
        lines += ["", "| target (issue 40) | goal | measured | met |", "|---|---:|---:|---|"]
        for what, goal, r in ec_targets(summary, p):
            met = "no data" if r is None else ("yes" if r >= goal else "**no**")
            lines.append("| %s | >= %.2fx | %s | %s |" % (
                what, goal, "-" if r is None else "%.2fx" % r, met))
        lines.append("")
    return lines


def md_mount_memory(summary, phases):
    """(l) the daemon's peak resident memory while it copies, against issue 41's bound."""
    cases = [c for c, _, _ in MOUNT_MEMORY_CASES]
    if not has_rows(summary, phases, cases):
        return []
    lines = ["### The daemon's memory", "",
             "A fresh daemon copying one file in and out (bench/run --mount-memory): its "
             "resident memory sampled every 50 ms, the most it reached, against the bound of "
             "issue 41 (the buffered window + 64 MiB).", "",
             "| phase | what | bytes | MiB/s | peak RSS MiB | bound MiB | within |",
             "|---|---|---:|---:|---:|---:|---|"]
    for p in phases:
        for case, title, _ in MOUNT_MEMORY_CASES:
            r = summary[p].get(case, {}).get("mount")
            peak, bound = (r or {}).get("peak_rss_kib"), (r or {}).get("bound_kib")
            if not peak or not bound:
                continue
            nbytes = (r.get("bytes") or {}).get("median", 0)
            lines.append("| %s | %s | %.0f MiB | %s | %.0f | %.0f | %s |" % (
                phase_title(p), title, nbytes / 2**20, cell(summary, p, case, "mount", "mib_per_s"),
                peak["median"] / 1024, bound["median"] / 1024,
                "yes" if peak["median"] <= bound["median"] else "**no**"))
    lines.append("")
    return lines


def raw_median(rows, phase, case, system, key):
    """The median of a key of a case's raw results, or None."""
    v = [r["result"][key] for r in rows if r["phase"] == phase and r["case"] == case
         and r["system"] == system and key in r["result"]]
    return statistics.median(v) if v else None


def md_namespace_once(rows, p):
    """(n) the pool, the index's build and drop, the big directory: sentences."""
    out = []
    objects = raw_median(rows, p, "ns-fill", "ns-setup", "objects")
    if objects:
        out.append("Pool `bench-ns` (32 PGs): %d empty objects named as the heads of `big/` "
                   "(written at %.0f objects/s, 128 in flight) and %d striped files of 4 KiB "
                   "in `d100/`." % (objects, raw_median(rows, p, "ns-fill", "ns-setup",
                                                       "objects_per_s"),
                                    raw_median(rows, p, "ns-fill", "ns-setup", "files")))
    secs = raw_median(rows, p, "ns-index-create", "ns-index", "seconds")
    if secs:
        out.append("`striped index create`: **%.1f s** for %d names (%.0f names/s), a fixed "
                   "wait of 6 s included in both (STRIPED_INDEX_NOTICE_S + 1: running clients "
                   "learn of the index before its walk)." % (
                       secs, raw_median(rows, p, "ns-index-create", "ns-index", "count"),
                       raw_median(rows, p, "ns-index-create", "ns-index", "per_s")))
    secs = raw_median(rows, p, "ns-ls-big", "ns-index", "seconds")
    if secs:
        out.append("`striped ls rados://bench-ns/big/ -d /` (names from the index, no head "
                   "read): %d names (all of them) in **%.2f s**, **%.0f names/s** (median)." % (
                       raw_median(rows, p, "ns-ls-big", "ns-index", "count"), secs,
                       raw_median(rows, p, "ns-ls-big", "ns-index", "per_s")))
    secs = raw_median(rows, p, "ns-index-drop", "ns-index", "seconds")
    if secs:
        out.append("`striped index drop`: %.1f s." % secs)
    return [" ".join(out), ""] if out else []


def md_namespace(summary, rows, phases):
    """(n) the namespace index: listings by a walk against the index, writers with and without."""
    if not has_rows(summary, phases, [c for c, _, _ in NAMESPACE_CASES]):
        return []
    lines = ["## The namespace index", "",
             "A pool of its own (bench/run --cases namespace), its default namespace indexed "
             "(`striped index create`) after the listings without the index were timed. The "
             "mount's rows: `ls` and `ls -l` each on a fresh mount (no name cached in the "
             "daemon or the kernel: a user's first listing), and again with cache_time=0 "
             "(every lookup and attribute read from RADOS again). Every listing's count is "
             "checked. Writers: the indexed default namespace against namespace `noidx` of the "
             "same pool, which has no index, taking turns. Median (min-max).", ""]
    for p in phases:
        if not any(summary[p].get(c) for c, _, _ in NAMESPACE_CASES):
            continue
        lines += ["### %s" % phase_title(p), ""] + md_namespace_once(rows, p)
        lines += ["| listing of the 100-name directory | no index: a walk of the pool, s | "
                  "the index, s | walk / index |", "|---|---:|---:|---:|"]
        for case, title, metric in NAMESPACE_LISTINGS:
            if summary[p].get(case):
                lines.append("| %s | %s | %s | %s |" % (
                    title, cell(summary, p, case, "ns-walk", metric),
                    cell(summary, p, case, "ns-index", metric),
                    ratio_cell(summary, p, case, "ns-walk", "ns-index")))
        lines += ["", "| writer | unit | indexed namespace | no index (noidx) | "
                  "indexed / no index |", "|---|---|---:|---:|---:|"]
        for case, title, metric, unit in NAMESPACE_WRITERS:
            if summary[p].get(case):
                lines.append("| %s | %s | %s | %s | %s |" % (
                    title, unit, cell(summary, p, case, "ns-indexed", metric),
                    cell(summary, p, case, "ns-unindexed", metric),
                    ratio_cell(summary, p, case, "ns-indexed", "ns-unindexed")))
        lines.append("")
    return lines


def ceiling_ratio_cell(summary, p, case, ours, ceiling_case):
    """ours in case over raw-same in ceiling_case (another case's row), or -."""
    a = summary[p].get(case, {}).get(ours)
    b = summary[p].get(ceiling_case, {}).get("raw-same")
    if not a or not b or not b["median"]:
        return "-"
    return "%.2fx" % (a["median"] / b["median"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runtime", type=int, default=0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--total", default="1G")
    ap.add_argument("--dd", default="")
    ap.add_argument("--fio", default="")
    ap.add_argument("--existing-cluster", action="store_true")
    ap.add_argument("--appends", type=int, default=0)
    ap.add_argument("--skipped", default="")
    ap.add_argument("--chart", action="store_true",
                    help="also draw results.png (tables a-e relative to raw librados)")
    a = ap.parse_args()

    rows = load(a.raw)
    phases = phases_of(rows)
    summary = summarize(rows)
    skipped = load_skipped(a.skipped)
    targets = evaluate_targets(summary, phases)
    info = machine()
    work_dir = os.path.dirname(os.path.abspath(a.raw))
    os.makedirs(a.out, exist_ok=True)

    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"machine": info, "runtime_s": a.runtime, "reps": a.reps, "total": a.total,
                   "striped_dd": bool(a.dd), "summary": summary, "targets": targets,
                   "skipped": [{"phase": p, "system": s, "reason": r} for p, s, r in skipped],
                   "raw": rows}, f, indent=1)
        f.write("\n")

    md = ["<!-- SPDX-License-Identifier: LGPL-2.1-or-later -->",
          "# libstriped benchmark results", "",
          "Written by `bench/run` on %s in %d s (%d repetitions of every figure; "
          "median, and min-max over the repetitions)." % (info["date"], a.runtime, a.reps), "",
          "Machine: %s CPUs (%s), %s memory, kernel %s; %s; fio %s. "
          "Load average when the report was written: %s. libstriped: git %s." % (
              info["nproc"], info["cpu"], info["memory"], info["kernel"], info["ceph"],
              info["fio"], info["loadavg_at_report"], info["libstriped"]), "",
          "Cluster: `scripts/cluster start` on the same host: 1 mon, 1 mgr, 3 BlueStore OSDs "
          "on sparse files, 1 replica, pool `striped`; the client and the OSDs share the "
          "CPUs, so only ratios within one run mean anything. The latency phase adds "
          "`--latency-ms` (messenger delay injection, about that much per round trip).", ""]
    if a.existing_cluster:
        md[-2] = ("Cluster: the running one named by CEPH_CONF (`bench/run --existing`), not "
                  "started by bench/run; the client and the OSDs share the CPUs, so only "
                  "ratios within one run mean anything.")
    if not a.dd:
        md += ["striped-dd was not built in this run: its rows are missing.", ""]
    if not a.fio:
        md += ["fio-libstriped.so was not built in this run: the fio rows are missing.", ""]
    md += md_targets(targets)
    md += ["## Figures", "", P99_NOTE, ""]
    for case, title, metric in CASES:
        md += md_case_table(summary, phases, case, title, metric)
    md += md_fio(summary, phases)
    md += md_python(summary, phases)
    md += md_cephfs(summary, phases)
    md += md_nto1(summary, phases)
    md += md_append(summary, phases, a.appends)
    md += md_buffered(summary, phases)
    md += md_dropin(summary, phases)
    md += md_mount(summary, phases)
    md += md_ec(summary, phases)
    md += md_mount_memory(summary, phases)
    md += md_namespace(summary, rows, phases)
    md += md_skipped(skipped)
    md += md_stats(rows, phases)
    charted = a.chart and any(summary[p][c] for p in phases for c, _, _ in CASES)
    if charted:
        md += ["![results](results.png)", ""]
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write("\n".join(md))

    if charted:
        make_plot(summary, phases, a.out, work_dir)
    for line in md_targets(targets):
        print(line)


if __name__ == "__main__":
    main()
