#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/report.py on a small synthetic run: every throughput figure has its
p99 beside it, from each program's own field (the bench programs' lat_p99_ms,
striped-dd's block_latency_seconds, fio's), the median over repetitions; a
tool that reports none (rados bench) shows "-". No cluster, no gnuplot needed.

usage: check-bench-report.py bench/report.py
"""

import json
import os
import subprocess
import sys
import tempfile


def row(phase, case, system, rep, mib, p99=None, **extra):
    """One line of bench/run's raw.jsonl."""
    res = {"system": system, "mib_per_s": mib, "iops": mib * 256, "calls": 256,
           "bytes": 1 << 30, "seconds": 1.0, "cpu_s_per_gib": 0.5}
    if p99 is not None:
        res["lat_p99_ms"] = p99
    res.update(extra)
    return {"phase": phase, "case": case, "system": system, "rep": rep, "result": res}


def synthetic():
    """Three repetitions in two phases of the kinds of rows bench/run records."""
    rows = []
    for phase, slow in (("nolat", 0.0), ("lat4", 4.0)):
        for rep, p in enumerate((2.0, 4.0, 3.0), 1):  # p99 median 3.0 (+ slow)
            rows += [row(phase, "seqwrite", "raw4", rep, 900, p + slow),
                     row(phase, "seqwrite", "striped", rep, 850, p + 1 + slow),
                     row(phase, "seqwrite", "radosbench", rep, 950),
                     row(phase, "seqwrite", "fio-striped", rep, 800, p + 2 + slow),
                     row(phase, "seed", "raw16", rep, 700, p + slow),
                     row(phase, "python-write", "python", rep, 600, 20 * p),
                     row(phase, "python-write", "striped-zc", rep, 610, 10 * p),
                     row(phase, "nto1-2", "n1", rep, 500, p),
                     row(phase, "append4k", "striped-write", rep, 4, 0.5 * p)]
            dd = row(phase, "seed", "dd", rep, 650)
            dd["result"]["block_latency_seconds"] = {"p50": 0.01, "p99": (40 + p) / 1000,
                                                     "p999": 0.05, "max": 0.06}
            rows.append(dd)
    return rows


def table_row(md, header, label):
    """The cells of the row starting with label in the table under header."""
    part = md[md.index(header):]
    part = part[:part.index("\n\n", part.index("|"))]
    for line in part.splitlines():
        if line.startswith("| " + label + " |"):
            return [c.strip() for c in line.strip("|").split("|")]
    raise AssertionError(f"no row {label!r} under {header!r}:\n{part}")


def main(argv):
    report = argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "raw.jsonl")
        with open(raw, "w") as f:
            for r in synthetic():
                f.write(json.dumps(r) + "\n")
        out = os.path.join(tmp, "out")
        r = subprocess.run([sys.executable, report, "--raw", raw, "--out", out, "--dd", "yes",
                            "--fio", "yes", "--appends", "10"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        md = open(os.path.join(out, "results.md")).read()
        summary = json.load(open(os.path.join(out, "results.json")))["summary"]

    b = "### (b) sequential write"
    # system | MiB/s | p99 | ratio | MiB/s | p99 | ratio (two phases)
    assert table_row(md, b, "libstriped (C API, striped_aio_*)")[2::3] == ["4.00", "8.00"]
    assert table_row(md, b, "librados aio, 4 ops in flight")[2::3] == ["3.00", "7.00"]
    assert table_row(md, b, "rados bench (reference)")[2::3] == ["-", "-"]
    # striped-dd's block latency, in seconds in its JSON
    assert table_row(md, "### (a) seed", "libstriped (striped-dd)")[2::3] == ["43.0", "43.0"]
    # no p99 beside CPU seconds
    assert "p99" not in md[md.index("### (e)"):].split("\n\n")[1].splitlines()[0]
    fio = table_row(md, "## fio", "seqwrite")
    assert fio[3] == "5.00" and fio[5] == "-", fio
    py = table_row(md, "## Python", "python-write")
    assert py[3] == "30.0" and py[5] == "60.0", py
    assert table_row(md, "## N-to-1", "2")[2] == "3.00"
    assert table_row(md, "## Appends", "no added latency")[2] == "1.50"
    got = summary["nolat"]["seqwrite"]["striped"]["lat_p99_ms"]
    assert got["median"] == 4.0 and got["values"] == [3.0, 5.0, 4.0], got
    assert "lat_p99_ms" not in summary["nolat"]["seqwrite"]["radosbench"]
    print("check-bench-report: p99 beside every throughput figure, - where none is known")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
