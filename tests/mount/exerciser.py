# SPDX-License-Identifier: LGPL-2.1-or-later
"""The mount's random-operation exerciser (as fsx is for file systems).

usage: exerciser.py MOUNT_DIR LOCAL_DIR [--seed S] [--ops N] [--files N]

Applies the same random operations to files on the mount and to reference
files on a local directory: writes at random offsets and lengths (growing
and overwriting), truncates up and down, reads, fsyncs, closes and reopens
(cached or O_DIRECT, whose calls are then aligned to 4 KiB), with two
descriptors per file at times (one cached, one O_DIRECT: they share the
daemon's handle). Every read, and the size after every operation, is
compared; at the end every file whole. Prints the seed first, and the
operation that differed (with its number) on failure: rerun with --seed to
see it again. Exit 0 when nothing differed.
"""
import argparse
import mmap
import os
import random
import sys

ALIGN = 4096
MAX_SIZE = 12 << 20
MAX_IO = 1 << 20


class Pair:
    """One file on the mount and its reference."""

    def __init__(self, mnt, ref):
        self.paths = (mnt, ref)
        self.fds = []  # (mount fd, ref fd, direct)

    def open(self, direct, create=False):
        flags = os.O_RDWR | (os.O_CREAT if create else 0)
        mfd = os.open(self.paths[0], flags | (os.O_DIRECT if direct else 0), 0o644)
        rfd = os.open(self.paths[1], flags, 0o644)
        self.fds.append((mfd, rfd, direct))

    def close(self, i):
        mfd, rfd, _ = self.fds.pop(i)
        os.close(mfd)
        os.close(rfd)


def aligned(n):
    return max(ALIGN, n // ALIGN * ALIGN)


def buffer(length):
    """Page-aligned memory (O_DIRECT wants it)."""
    return mmap.mmap(-1, max(length, 1))


def do_write(rng, f, fd):
    mfd, rfd, direct = fd
    off = rng.randrange(0, MAX_SIZE)
    length = rng.randrange(1, MAX_IO)
    if direct:
        off, length = off // ALIGN * ALIGN, aligned(length)
    data = rng.randbytes(length)
    buf = buffer(length)
    buf.write(data)
    n = os.pwritev(mfd, [memoryview(buf)[:length]], off)
    os.pwrite(rfd, data, off)
    return f"write {length}@{off} direct={direct}", n == length


def do_read(rng, f, fd):
    mfd, rfd, direct = fd
    size = os.fstat(rfd).st_size
    off = rng.randrange(0, size + ALIGN)
    length = rng.randrange(1, MAX_IO)
    if direct:
        off, length = off // ALIGN * ALIGN, aligned(length)
    buf = buffer(length)
    n = os.preadv(mfd, [memoryview(buf)[:length]], off)
    got = bytes(buf[:n])
    want = os.pread(rfd, length, off)
    return f"read {length}@{off} direct={direct}", got == want


def do_truncate(rng, f, fd):
    mfd, rfd, _ = fd
    size = rng.randrange(0, MAX_SIZE)
    os.ftruncate(mfd, size)
    os.ftruncate(rfd, size)
    return f"truncate {size}", True


def do_fsync(rng, f, fd):
    os.fsync(fd[0])
    return "fsync", True


def do_reopen(rng, f, fd):
    f.close(f.fds.index(fd))
    direct = rng.random() < 0.3
    f.open(direct)
    return f"close, reopen direct={direct}", True


def do_second(rng, f, fd):
    if len(f.fds) > 1:
        f.close(1)
        return "close the second descriptor", True
    f.open(not fd[2])
    return f"open a second descriptor direct={not fd[2]}", True


OPS = [(do_write, 40), (do_read, 35), (do_truncate, 6), (do_fsync, 6), (do_reopen, 8),
       (do_second, 5)]


def same_size(f):
    return os.stat(f.paths[0]).st_size == os.stat(f.paths[1]).st_size


def whole(f):
    with open(f.paths[0], "rb") as a, open(f.paths[1], "rb") as b:
        return a.read() == b.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mount")
    ap.add_argument("local")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--files", type=int, default=3)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 32)
    print(f"# exerciser seed {seed}, {a.ops} operations on {a.files} files", flush=True)
    rng = random.Random(seed)
    files = [Pair(os.path.join(a.mount, f"x{i}"), os.path.join(a.local, f"x{i}"))
             for i in range(a.files)]
    for f in files:
        f.open(False, create=True)
    ops, weights = zip(*OPS)
    for i in range(a.ops):
        f = rng.choice(files)
        fd = rng.choice(f.fds)
        op = rng.choices(ops, weights)[0]
        try:
            what, good = op(rng, f, fd)
        except OSError as e:
            what, good = f"{op.__name__}: {e}", False
        sizes = ""
        if good and not same_size(f):
            good = False
            sizes = f" (sizes {os.stat(f.paths[0]).st_size}, {os.stat(f.paths[1]).st_size})"
        if not good:
            print(f"not ok 1 - seed {seed}: operation {i} on {f.paths[0]} differed: {what}{sizes}")
            return 1
    for f in files:
        while f.fds:
            f.close(0)
        if not whole(f):
            print(f"not ok 1 - seed {seed}: {f.paths[0]} differs after closing")
            return 1
    print(f"ok 1 - seed {seed}: {a.ops} operations, every read and size the same")
    return 0


if __name__ == "__main__":
    print("1..1")
    sys.exit(main())
