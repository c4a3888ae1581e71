# SPDX-License-Identifier: LGPL-2.1-or-later
"""What POSIX asks and the mount does since issue 54, on two mounts (TAP lines).

usage: posix.py MOUNT OTHER_MOUNT
Both are mounts of one namespace (two clients), MOUNT with allow_other so
that an unprivileged user (nobody) may write there. Each check fails on
the mount before issue 54: shared mappings got ENODEV, a write by another
user kept S_ISUID, an unlinked open file got ESTALE, atime was mtime, a
file's st_ino changed once the kernel forgot it, a directory's st_nlink
was always 2.
"""
import errno
import mmap
import os
import stat
import subprocess
import sys
import time

import numpy as np

M, OTHER = sys.argv[1], sys.argv[2]
n = 0
failed = 0


def tap(good, what, detail=""):
    global n, failed
    n += 1
    if not good:
        failed += 1
    print(("ok" if good else "not ok") + f" {n} - {what}")
    if not good and detail:
        print("#   " + str(detail))
    sys.stdout.flush()


def errno_of(fn, *args):
    try:
        fn(*args)
    except OSError as e:
        return e.errno
    return 0


def p(*parts):
    return os.path.join(M, *parts)


def q(*parts):
    return os.path.join(OTHER, *parts)


def settle():
    """Another client's view is at most cache_time (1 s) old."""
    time.sleep(1.3)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def forget_all():
    """The kernel forgets every inode it can: the next stat looks each up anew."""
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("2\n")
    settle()


def as_nobody(*cmd):
    return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           *cmd], capture_output=True, text=True)


def shared_mappings():
    """Shared mappings of cached opens (FUSE_DIRECT_IO_ALLOW_MMAP)"""
    a = np.arange(1 << 20, dtype=np.float64)
    np.save(p("arr.npy"), a)
    loaded = np.load(p("arr.npy"), mmap_mode="r")
    tap(loaded.shape == a.shape and float(loaded[12345]) == 12345.0 and np.array_equal(loaded, a),
        "np.load(mmap_mode='r') reads the array")
    del loaded
    w = np.memmap(p("raw.dat"), dtype=np.int32, mode="w+", shape=(1 << 20,))
    w[:] = 7
    w[5] = 42
    w.flush()
    del w
    r = np.memmap(p("raw.dat"), dtype=np.int32, mode="r")
    tap(int(r[5]) == 42 and int(r[6]) == 7 and r.shape == (1 << 20,),
        "numpy.memmap mode='w+' then mode='r'")
    del r
    rp = np.memmap(p("raw.dat"), dtype=np.int32, mode="r+")
    rp[6] = 99
    rp.flush()
    with open(p("raw.dat"), "rb") as f:  # a read(2) through the same mount, mapping still there
        f.seek(24)
        seen = np.frombuffer(f.read(4), dtype=np.int32)[0]
    del rp
    tap(seen == 99, "numpy.memmap mode='r+': a flushed store is what read(2) gives", seen)
    fd = os.open(p("raw.dat"), os.O_RDWR)
    mm = mmap.mmap(fd, 1 << 22, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    os.pwrite(fd, b"written", 4096)  # a write(2) beside the mapping: the mapping shows it
    via_map = mm[4096:4103]
    mm[100:105] = b"hello"  # not flushed: a read(2) writes the dirty page back first
    unflushed = os.pread(fd, 5, 100)
    mm[8192:8199] = b"mapped!"
    mm.flush()
    mm.close()
    os.close(fd)
    settle()
    tap(via_map == b"written" and unflushed == b"hello"
        and read(q("raw.dat"))[8192:8199] == b"mapped!",
        "a shared mapping shows write(2), read(2) its stores, another client them after msync",
        f"{via_map!r} {unflushed!r} {read(q('raw.dat'))[8192:8199]!r}")
    with open(p("small"), "wb") as f:
        f.write(b"x" * 100)
    fd = os.open(p("small"), os.O_RDONLY)  # a small file's read-only open: no handle
    mm = mmap.mmap(fd, 100, mmap.MAP_SHARED, mmap.PROT_READ)
    tap(mm[:] == b"x" * 100, "a shared read-only mapping of a small file")
    mm.close()
    os.close(fd)


def suid_cleared():
    """S_ISUID and S_ISGID cleared at a write by a process without CAP_FSETID"""
    with open(p("suid"), "wb") as f:
        f.write(b"0" * 10)
    os.chmod(p("suid"), 0o6777)
    res = as_nobody("sh", "-c", f"printf 1 | dd of='{p('suid')}' conv=notrunc status=none")
    mode = stat.S_IMODE(os.stat(p("suid")).st_mode)
    settle()
    other_mode = stat.S_IMODE(os.stat(q("suid")).st_mode)
    tap(res.returncode == 0 and mode == 0o777 and other_mode == 0o777 and read(p("suid"))[:1] == b"1",
        "a write by another user clears S_ISUID and S_ISGID, for another client too",
        f"{res.returncode} {res.stderr.strip()} {oct(mode)} {oct(other_mode)}")
    os.chmod(p("suid"), 0o6777)
    with open(p("suid"), "r+b") as f:  # root has CAP_FSETID: the bits stay
        f.write(b"2")
    tap(stat.S_IMODE(os.stat(p("suid")).st_mode) == 0o6777,
        "a write by a process with CAP_FSETID keeps them")
    os.chmod(p("suid"), 0o2767)  # S_ISGID without group execute: not a set-group-ID file
    res = as_nobody("sh", "-c", f"printf 3 | dd of='{p('suid')}' conv=notrunc status=none")
    tap(res.returncode == 0 and stat.S_IMODE(os.stat(p("suid")).st_mode) == 0o2767,
        "S_ISGID without group execute (mandatory locking's mark) stays")
    os.chmod(p("suid"), 0o6777)
    res = as_nobody("truncate", "-s", "5", p("suid"))
    tap(res.returncode == 0 and stat.S_IMODE(os.stat(p("suid")).st_mode) == 0o777,
        "a truncate by another user clears them", f"{res.stderr.strip()}")


def unlinked_while_open():
    """A file unlinked while open stays readable and writable until its last close"""
    with open(p("tmp"), "wb") as f:
        f.write(b"before unlink")
    fd = os.open(p("tmp"), os.O_RDWR)
    os.unlink(p("tmp"))
    gone_here = not os.path.exists(p("tmp")) and "tmp" not in os.listdir(M)
    os.pwrite(fd, b" and after", 13)
    back = os.pread(fd, 100, 0)
    nlink = os.fstat(fd).st_nlink
    settle()
    other_sees = os.path.exists(q("tmp"))
    os.close(fd)
    settle()
    tap(gone_here and back == b"before unlink and after" and nlink == 0 and other_sees
        and not os.path.exists(q("tmp")) and not os.path.exists(p("tmp")),
        "unlinked while open: readable and writable until its last close, st_nlink 0, gone after",
        f"{gone_here} {back!r} {nlink} {other_sees}")
    fd = os.open(p("tmp2"), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)  # a draft
    os.write(fd, b"draft bytes")
    os.unlink(p("tmp2"))
    back = os.pread(fd, 100, 0)
    os.close(fd)
    settle()
    tap(back == b"draft bytes" and not os.path.exists(q("tmp2")),
        "a new file unlinked while open: read back, never made", repr(back))
    with open(p("tmp3"), "wb") as f:
        f.write(b"old")
    fd = os.open(p("tmp3"), os.O_RDONLY)
    os.unlink(p("tmp3"))
    with open(p("tmp3"), "wb") as f:  # a new file of its name made here meanwhile
        f.write(b"new")
    err = errno_of(os.pread, fd, 10, 0)
    os.close(fd)
    settle()
    tap(read(p("tmp3")) == b"new" and read(q("tmp3")) == b"new" and err == errno.ESTALE,
        "a new file of an unlinked open file's name: the new one stays, the old one's reads ESTALE",
        f"{read(p('tmp3'))!r} {errno.errorcode.get(err, err)}")


def atime_kept():
    """Atime is kept as utimensat(2) sets it"""
    with open(p("times"), "wb") as f:
        f.write(b"t")
    os.utime(p("times"), ns=(1_000_000_123_456_789, 2_000_000_000_000_000))
    st = os.stat(p("times"))
    settle()
    ost = os.stat(q("times"))
    tap(st.st_atime_ns == 1_000_000_123_456_789 and st.st_mtime_ns == 2_000_000_000_000_000
        and ost.st_atime_ns == st.st_atime_ns,
        "utimensat's atime is kept apart from mtime, for another client too",
        f"{st.st_atime_ns} {st.st_mtime_ns} {ost.st_atime_ns}")


def ino_lasts():
    """Inode numbers last as the file does"""
    with open(p("ino"), "wb") as f:
        f.write(b"i")
    os.mkdir(p("inodir"))
    before = (os.stat(p("ino")).st_ino, os.stat(p("inodir")).st_ino)
    os.rename(p("ino"), p("ino2"))
    forget_all()
    after = (os.stat(p("ino2")).st_ino, os.stat(p("inodir")).st_ino)
    other = (os.stat(q("ino2")).st_ino, os.stat(q("inodir")).st_ino)
    tap(before == after == other, "st_ino is kept across a rename, the kernel forgetting, two mounts",
        f"{before} {after} {other}")


def dir_links():
    """A directory's st_nlink: 2 and one for each directory in it"""
    os.makedirs(p("links", "a"))
    os.mkdir(p("links", "b"))
    with open(p("links", "f"), "wb") as f:
        f.write(b"f")
    n3 = os.stat(p("links")).st_nlink
    os.rmdir(p("links", "a"))
    n2 = os.stat(p("links")).st_nlink
    tap(n3 == 4 and n2 == 3, "a directory's st_nlink is 2 + its subdirectories", f"{n3} {n2}")


def refused():
    """What RADOS cannot do keeps its errno"""
    tap(errno_of(os.link, p("times"), p("hard")) == errno.EPERM
        and errno_of(os.mkfifo, p("fifo")) == errno.EPERM,
        "hard links and FIFOs: EPERM")


def run(check):
    """One group of checks; one that raised is a failed check, with why."""
    try:
        check()
    except Exception as e:  # a call the mount refused: the check fails, the next runs
        tap(False, check.__doc__, f"{type(e).__name__}: {e}")


for check in (shared_mappings, suid_cleared, unlinked_while_open, atime_kept, ino_lasts, dir_links, refused):
    run(check)
for name in ("arr.npy", "raw.dat", "small", "suid", "tmp3", "times", "ino2", "links/f"):
    if os.path.lexists(p(name)):
        os.unlink(p(name))
for d in ("links/a", "links/b", "links", "inodir"):
    if os.path.isdir(p(d)):
        os.rmdir(p(d))
print(f"1..{n}")
sys.exit(1 if failed else 0)
