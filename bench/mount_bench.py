# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/run case mount: one measurement of unmodified programs on a mounted
directory (striped-mount, or ceph-fuse), as one JSON line like the C
benchmarks print.

usage: mount_bench.py OP --dir DIR --system NAME [--src FILE] [--files N]
                      [--size BYTES] [--pid PID]
OP: dd-in (dd bs=64M oflag=direct of --src into DIR/bench-dd), dd-out (dd
iflag=direct back into /dev/null), cp-in (cp --src to DIR/bench-cp), cp-out
(cp back to a local file, compared; the file's pages dropped from the page
cache first), small (N files of --size bytes: created
and written, `ls -l`, read back, removed: four JSON lines), rm (DIR/bench-*
removed), tree (a tree of files, --src a local folder such as
/usr/share/doc: `cp -a` in, `tar x` of it, `rsync -a` in, `ls -lR`, `cat` of
every file, `rm -r`: six JSON lines, the copy compared with --src, untimed),
memory (cp in, cp out, dd O_DIRECT in and out of --src, the
daemon's resident memory sampled every 50 ms: four JSON lines, each with its
peak, beside the bound the issue sets, --window + 64 MiB). With --pid, the
CPU seconds that process (the daemon) spent per GiB moved (or per 1000
files) are added.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid):
    if not pid:
        return 0.0
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_of(pid):
    if not pid:
        return 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def rss_now(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def peak_rss(pid, fn):
    """fn's seconds, and the most the daemon had resident meanwhile (KiB)."""
    peak, done = [rss_now(pid)], threading.Event()

    def sample():
        while not done.wait(0.05):
            peak[0] = max(peak[0], rss_now(pid))

    t = threading.Thread(target=sample)
    t.start()
    t0 = time.monotonic()
    try:
        fn()
    finally:
        done.set()
        t.join()
    return time.monotonic() - t0, max(peak[0], rss_now(pid))


def memory(a):
    """The daemon's resident memory while it copies --src in and out, four ways.

    cp out writes to /dev/null: a copy of the size of --src on the local
    disk besides it failed a run on a host with little room (the bytes are
    what tests/mount checks, not this).
    """
    size = os.path.getsize(a.src)
    cp_file, dd_file = os.path.join(a.dir, "bench-mem-cp"), os.path.join(a.dir, "bench-mem-dd")
    steps = [("mem-cp-in", lambda: run("cp", a.src, cp_file)),
             ("mem-cp-out", lambda: run("cp", cp_file, "/dev/null")),
             ("mem-dd-in", lambda: run("dd", f"if={a.src}", f"of={dd_file}", "bs=64M",
                                       "oflag=direct")),
             ("mem-dd-out", lambda: run("dd", f"if={dd_file}", "of=/dev/null", "bs=64M",
                                        "iflag=direct"))]
    try:
        for op, fn in steps:
            secs, peak = peak_rss(a.pid, fn)
            print(json.dumps({"system": a.system, "op": op, "bytes": size, "seconds": round(secs, 3),
                              "mib_per_s": round(size / secs / 2**20, 3),
                              "peak_rss_kib": peak, "bound_kib": a.window // 1024 + 65536}),
                  flush=True)
    finally:
        for n in (cp_file, dd_file):
            if os.path.exists(n):
                os.unlink(n)


def drop_cached(path):
    """The file's pages out of the kernel's page cache: cp out then reads the file system.

    cp in leaves what it wrote through a page-cached mount (ceph-fuse) in the
    page cache, as much as memory allows: cp out then ran at 181 or 1314 MiB/s
    from one run to the next (73 with the pages dropped), a figure of the
    host's free memory. striped-mount's cached opens bypass the page cache
    (nothing to drop); a daemon's own cache (ceph-fuse's object cacher,
    striped-mount's window) is kept: it is the file system's.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def timed(pid, fn):
    c0, t0 = cpu_of(pid), time.monotonic()
    fn()
    return time.monotonic() - t0, cpu_of(pid) - c0


def run(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def emit(a, op, nbytes, secs, cpu, calls=None):
    j = {"system": a.system, "op": op, "bytes": nbytes, "seconds": round(secs, 6),
         "mib_per_s": round(nbytes / secs / 2**20, 3) if secs else None}
    if calls is not None:
        j["calls"] = calls
        j["iops"] = round(calls / secs, 1) if secs else None
    if a.pid:
        j["daemon_cpu_s"] = round(cpu, 3)
        if nbytes >= 2**20:
            j["cpu_s_per_gib"] = round(cpu / (nbytes / 2**30), 3)
        j["daemon_max_rss_kib"] = rss_of(a.pid)
    print(json.dumps(j), flush=True)


def small(a):
    d = os.path.join(a.dir, "bench-small")
    os.makedirs(d, exist_ok=True)
    data = os.urandom(a.size)
    names = [os.path.join(d, "f%05d" % i) for i in range(a.files)]

    def create():
        for n in names:
            with open(n, "wb") as f:
                f.write(data)

    def listing():
        out = subprocess.run(["ls", "-l", d], check=True, stdout=subprocess.PIPE).stdout
        if out.count(b"\n") < a.files:
            raise RuntimeError("ls -l listed %d of %d" % (out.count(b"\n") - 1, a.files))

    def read():
        for n in names:
            with open(n, "rb") as f:
                if f.read() != data:
                    raise RuntimeError(n + ": not the bytes written")

    def remove():
        for n in names:
            os.unlink(n)
        os.rmdir(d)

    for op, fn in (("small-create", create), ("small-ls", listing), ("small-read", read),
                   ("small-rm", remove)):
        secs, cpu = timed(a.pid, fn)
        emit(a, op, a.files * a.size, secs, cpu, calls=a.files)


def tree_size(src):
    """(bytes, files) of the regular files below src."""
    nbytes = files = 0
    for root, _, names in os.walk(src):
        for n in names:
            p = os.path.join(root, n)
            if os.path.isfile(p) and not os.path.islink(p):
                nbytes += os.path.getsize(p)
                files += 1
    return nbytes, files


def sh(cmd):
    subprocess.run(["bash", "-c", cmd], check=True, stdout=subprocess.DEVNULL)


def tree(a):
    """Programs that copy a tree of small files in, list it, read it, remove it."""
    src = os.path.abspath(a.src)
    top = os.path.join(a.dir, "bench-tree")
    fd, tarball = tempfile.mkstemp(suffix=".tar")  # local disk: tar reads it, not the mount
    os.close(fd)
    nbytes, files = tree_size(src)
    run("tar", "cf", tarball, "-C", os.path.dirname(src), os.path.basename(src))
    os.makedirs(os.path.join(top, "tar"))
    q = subprocess.list2cmdline
    steps = (
        ("tree-cp", lambda: run("cp", "-a", src, os.path.join(top, "cp"))),
        ("tree-tar", lambda: run("tar", "xf", tarball, "-C", os.path.join(top, "tar"))),
        ("tree-rsync", lambda: run("rsync", "-a", src + "/", os.path.join(top, "rsync") + "/")),
        ("tree-ls", lambda: run("ls", "-lR", top)),  # the three copies
        ("tree-cat", lambda: sh("find %s -type f -exec cat {} + >/dev/null" %
                                q([os.path.join(top, "cp")]))),
    )
    try:
        for op, fn in steps:
            secs, cpu = timed(a.pid, fn)
            copies = 3 if op == "tree-ls" else 1
            emit(a, op, copies * nbytes, secs, cpu, calls=copies * files)
            if op == "tree-cp" and subprocess.run(
                    ["diff", "-r", "-q", "--no-dereference", src, os.path.join(top, "cp")],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
                sys.exit("tree: cp -a did not copy " + src + " as it is")
        secs, cpu = timed(a.pid, lambda: run("rm", "-r", top))
        emit(a, "tree-rm", 3 * nbytes, secs, cpu, calls=3 * files)
    finally:
        os.unlink(tarball)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("op")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--system", required=True)
    ap.add_argument("--src")
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--pid", type=int, default=0)
    ap.add_argument("--window", type=int, default=64 << 20)
    a = ap.parse_args()
    dd_file, cp_file = os.path.join(a.dir, "bench-dd"), os.path.join(a.dir, "bench-cp")
    size = os.path.getsize(a.src) if a.src else 0
    if a.op == "dd-in":
        secs, cpu = timed(a.pid, lambda: run("dd", f"if={a.src}", f"of={dd_file}", "bs=64M",
                                             "oflag=direct"))
        emit(a, "write", size, secs, cpu, calls=size // (64 << 20))
    elif a.op == "dd-out":
        n = os.path.getsize(dd_file)
        secs, cpu = timed(a.pid, lambda: run("dd", f"if={dd_file}", "of=/dev/null", "bs=64M",
                                             "iflag=direct"))
        emit(a, "read", n, secs, cpu, calls=n // (64 << 20))
    elif a.op == "cp-in":
        secs, cpu = timed(a.pid, lambda: run("cp", a.src, cp_file))
        emit(a, "write", size, secs, cpu)
    elif a.op == "cp-out":
        out = os.path.join(os.path.dirname(a.src), "bench-cp.out")
        drop_cached(cp_file)
        secs, cpu = timed(a.pid, lambda: run("cp", cp_file, out))
        same = subprocess.run(["cmp", "-s", a.src, out]).returncode == 0
        os.unlink(out)
        if not same:
            sys.exit("cp out: not the bytes written")
        emit(a, "read", size, secs, cpu)
    elif a.op == "small":
        small(a)
    elif a.op == "memory":
        memory(a)
    elif a.op == "tree":
        tree(a)
    elif a.op == "rm":
        for n in (dd_file, cp_file):
            if os.path.exists(n):
                os.unlink(n)
    else:
        sys.exit("unknown op " + a.op)


if __name__ == "__main__":
    main()
