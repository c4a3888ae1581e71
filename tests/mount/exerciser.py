# SPDX-License-Identifier: LGPL-2.1-or-later
"""The mount's random-operation exerciser (as fsx is for file systems).

usage: exerciser.py MOUNT_DIR LOCAL_DIR [--seed S] [--ops N] [--files N]
                    [--other OTHER_MOUNT_DIR] [--max-size BYTES] [--max-io BYTES]

Applies the same random operations to files on the mount and to reference
files on a local directory: writes at random offsets and lengths (growing
and overwriting, small ones mostly, some across objects), appends through
O_APPEND, truncates up and down, reads, reads and msync'ed stores through
shared mappings, fsyncs, closes and reopens (cached
or O_DIRECT, whose calls are then aligned to 4 KiB; O_TRUNC at times), unlinks
and creates anew (a new file the daemon keeps until its first flush; with
O_EXCL at times, its name taken at the open), with
two descriptors per file at times (one cached, one O_DIRECT: they share the
daemon's handle), and read-only opens with every other descriptor closed (a
small file's open takes no handle then: it reads the bytes, or its reads read the head). With --other (a second mount of the same namespace: a
second client), a file is at times closed on the mount and read whole on
the other (close-to-open), then opened again. Every read, and the size
after every operation, is compared; at the end every file whole, on both
mounts. Prints the seed first, and on failure the operation that differed
(with its number) and the ones before it: rerun with --seed to see it again.
The bytes written are slices of one random block drawn from the seed, so
that the exerciser spends its time in the file system, not in Python.
Exit 0 when nothing differed.
"""
import argparse
import collections
import mmap
import os
import random
import sys
import time

ALIGN = 4096
PATTERN = 16 << 20


class Pair:
    """One file on the mount and its reference."""

    def __init__(self, mnt, ref, other):
        self.paths = (mnt, ref)
        self.other = other  # the same file on the other mount, or None
        self.fds = []  # (mount fd, ref fd, direct)

    def open(self, direct, create=False, trunc=False, excl=False):
        flags = os.O_RDWR | (os.O_CREAT if create else 0) | (os.O_TRUNC if trunc else 0)
        flags |= os.O_EXCL if excl else 0
        mfd = os.open(self.paths[0], flags | (os.O_DIRECT if direct else 0), 0o644)
        rfd = os.open(self.paths[1], flags, 0o644)
        self.fds.append((mfd, rfd, direct))

    def close(self, i):
        mfd, rfd, _ = self.fds.pop(i)
        os.close(rfd)
        os.close(mfd)


class Exerciser:
    def __init__(self, a, seed):
        self.rng = random.Random(seed)
        self.max_size, self.max_io = a.max_size, a.max_io
        # page-aligned (O_DIRECT wants it): the bytes written, and a read buffer
        self.pattern = mmap.mmap(-1, PATTERN)
        self.pattern.write(self.rng.randbytes(PATTERN))
        self.rbuf = mmap.mmap(-1, self.max_io + ALIGN)

    def length(self, direct):
        """Mostly small calls, some of a MiB or more (across stripe units and objects)."""
        r = self.rng.random()
        top = 64 << 10 if r < 0.7 else (1 << 20 if r < 0.95 else self.max_io)
        n = self.rng.randrange(1, min(top, self.max_io) + 1)
        return max(ALIGN, n // ALIGN * ALIGN) if direct else n

    def offset(self, size, direct):
        """Anywhere below max_size; near the end of the file half the time."""
        if self.rng.random() < 0.5:
            off = max(0, size + self.rng.randrange(-(256 << 10), 256 << 10))
        else:
            off = self.rng.randrange(0, self.max_size)
        return off // ALIGN * ALIGN if direct else off

    def data(self, length, direct):
        start = self.rng.randrange(0, PATTERN - length + 1)
        if direct:
            start = start // ALIGN * ALIGN
        return memoryview(self.pattern)[start:start + length]

    def do_write(self, f, fd):
        mfd, rfd, direct = fd
        length = self.length(direct)
        off = min(self.offset(os.fstat(rfd).st_size, direct), self.max_size)
        buf = self.data(length, direct)
        n = os.pwritev(mfd, [buf], off)
        os.pwrite(rfd, buf, off)
        return f"write {length}@{off} direct={direct}", n == length

    def do_append(self, f, fd):
        length = self.length(False)
        buf = self.data(length, False)
        fds = [os.open(p, os.O_WRONLY | os.O_APPEND) for p in f.paths]
        try:
            n = os.write(fds[0], buf)
            os.write(fds[1], buf)
        finally:
            for x in fds:
                os.close(x)
        return f"append {length} (O_APPEND, opened and closed)", n == length

    def do_read(self, f, fd):
        mfd, rfd, direct = fd
        length = self.length(direct)
        off = self.offset(os.fstat(rfd).st_size, direct)
        n = os.preadv(mfd, [memoryview(self.rbuf)[:length]], off)
        want = os.pread(rfd, length, off)
        return f"read {length}@{off} direct={direct} (got {n})", self.rbuf[:n] == want

    def do_mapped_read(self, f, fd):
        """A read through a shared mapping of the mount's descriptor (the page cache)."""
        mfd, rfd, direct = fd
        size = os.fstat(rfd).st_size
        if not size:
            return self.do_read(f, fd)
        length = min(self.length(False), size)
        off = self.rng.randrange(0, size - length + 1)
        with mmap.mmap(mfd, size, mmap.MAP_SHARED, mmap.PROT_READ) as mm:
            got = mm[off:off + length]
        return f"mapped read {length}@{off} direct={direct}", got == os.pread(rfd, length, off)

    def do_mapped_write(self, f, fd):
        """A store through a shared mapping, msync'ed: a write-back of the page cache."""
        mfd, rfd, direct = fd
        size = os.fstat(rfd).st_size
        if not size:
            return self.do_write(f, fd)
        length = min(self.length(False), size)
        off = self.rng.randrange(0, size - length + 1)
        buf = self.data(length, False)
        with mmap.mmap(mfd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE) as mm:
            mm[off:off + length] = buf
            mm.flush()
        os.pwrite(rfd, buf, off)
        return f"mapped write {length}@{off} direct={direct}", True

    def do_truncate(self, f, fd):
        mfd, rfd, _ = fd
        r = self.rng.random()
        size = 0 if r < 0.1 else self.rng.randrange(0, self.max_size)
        os.ftruncate(mfd, size)
        os.ftruncate(rfd, size)
        return f"truncate {size}", True

    def do_fsync(self, f, fd):
        os.fsync(fd[0])
        return "fsync", True

    def do_reopen(self, f, fd):
        f.close(f.fds.index(fd))
        direct = self.rng.random() < 0.3
        trunc = self.rng.random() < 0.05
        f.open(direct, trunc=trunc)
        return f"close, reopen direct={direct} trunc={trunc}", True

    def do_recreate(self, f, fd):
        """Close, unlink, create anew: O_CREAT|O_TRUNC (a new file the daemon keeps until its
        flush) or O_CREAT|O_EXCL (its name taken at the open, filled at its flush)."""
        while f.fds:
            f.close(0)
        for path in f.paths:
            os.unlink(path)
        direct = self.rng.random() < 0.1
        excl = self.rng.random() < 0.5
        f.open(direct, create=True, trunc=not excl, excl=excl)
        return f"close, unlink, create anew direct={direct} excl={excl}", True

    def do_second(self, f, fd):
        if len(f.fds) > 1:
            f.close(1)
            return "close the second descriptor", True
        f.open(not fd[2])
        return f"open a second descriptor direct={not fd[2]}", True

    def do_other(self, f, fd):
        """Close on this mount, read whole on the other (close-to-open), open again."""
        if not f.other:
            return self.do_fsync(f, fd)
        direct = [x[2] for x in f.fds]
        while f.fds:
            f.close(0)
        with open(f.other, "rb") as a, open(f.paths[1], "rb") as b:
            good = a.read() == b.read()
        size = os.stat(f.other).st_size
        for d in direct:
            f.open(d)
        return f"closed, read on the other mount (size {size})", good

    def do_closed_read(self, f, fd):
        """Close on this mount, open read-only (a small file's: no handle), read, open again."""
        direct = [x[2] for x in f.fds]
        while f.fds:
            f.close(0)
        mfd, rfd = os.open(f.paths[0], os.O_RDONLY), os.open(f.paths[1], os.O_RDONLY)
        try:
            size = os.fstat(rfd).st_size
            good = os.fstat(mfd).st_size == size
            for _ in range(3):
                length = self.length(False)
                off = self.offset(size, False)
                good = good and os.pread(mfd, length, off) == os.pread(rfd, length, off)
        finally:
            os.close(mfd)
            os.close(rfd)
        for d in direct:
            f.open(d)
        return f"closed, opened read-only and read (size {size})", good

    OPS = [("do_write", 35), ("do_read", 30), ("do_append", 3), ("do_truncate", 6),
           ("do_fsync", 5), ("do_reopen", 8), ("do_second", 4), ("do_other", 1),
           ("do_closed_read", 2), ("do_recreate", 2), ("do_mapped_read", 4),
           ("do_mapped_write", 4)]


def same_size(f, i):
    """The size the mount gives (by path every 8th time: lookup and getattr) and the reference's."""
    mfd, rfd, _ = f.fds[0]
    m = os.stat(f.paths[0]).st_size if i % 8 == 0 else os.fstat(mfd).st_size
    r = os.fstat(rfd).st_size
    return m == r, f" (sizes: mount {m}, reference {r})"


def whole(path, ref):
    with open(path, "rb") as a, open(ref, "rb") as b:
        return a.read() == b.read()


def run(a, seed):
    ex = Exerciser(a, seed)
    files = [Pair(os.path.join(a.mount, f"x{i}"), os.path.join(a.local, f"x{i}"),
                  os.path.join(a.other, f"x{i}") if a.other else None)
             for i in range(a.files)]
    for f in files:
        f.open(False, create=True, trunc=True)
    names, weights = zip(*Exerciser.OPS)
    history = collections.deque(maxlen=20)
    spent = collections.defaultdict(float)
    for i in range(a.ops):
        f = ex.rng.choice(files)
        fd = ex.rng.choice(f.fds)
        name = ex.rng.choices(names, weights)[0]
        t0 = time.monotonic()
        try:
            what, good = getattr(ex, name)(f, fd)
            extra = ""
            if good:
                good, extra = same_size(f, i)
        except OSError as e:
            what, good, extra = f"{name}: {e}", False, ""
        spent[name] += time.monotonic() - t0
        if i and i % 10000 == 0:
            print(f"# {i} operations", flush=True)
        history.append(f"{i}: {os.path.basename(f.paths[0])}: {what}")
        if not good:
            print(f"not ok 1 - seed {seed}: operation {i} on {f.paths[0]} differed: {what}{extra}")
            for h in history:
                print(f"#   {h}")
            return 1
    for f in files:
        while f.fds:
            f.close(0)
        for p in (f.paths[0], f.other):
            if p and not whole(p, f.paths[1]):
                print(f"not ok 1 - seed {seed}: {p} differs after closing")
                return 1
    print("# seconds by operation: " +
          ", ".join(f"{k[3:]} {v:.1f}" for k, v in sorted(spent.items(), key=lambda kv: -kv[1])))
    print(f"ok 1 - seed {seed}: {a.ops} operations, every read and size the same")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mount")
    ap.add_argument("local")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--files", type=int, default=3)
    ap.add_argument("--other", help="the same directory on a second mount")
    ap.add_argument("--max-size", type=int, default=12 << 20)
    ap.add_argument("--max-io", type=int, default=4 << 20)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 32)
    print(f"# exerciser seed {seed}, {a.ops} operations on {a.files} files", flush=True)
    return run(a, seed)


if __name__ == "__main__":
    print("1..1")
    sys.exit(main())
