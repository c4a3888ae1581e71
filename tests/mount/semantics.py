# SPDX-License-Identifier: LGPL-2.1-or-later
"""mount/SEMANTICS.md, line by line, on a mounted striped-mount (TAP lines).

usage: semantics.py MOUNT OTHER_MOUNT NAME_MAX
OTHER_MOUNT is a second mount of the same namespace (another client): what
one stores (modes, owners, times, xattrs, empty directories) the other shows.
The caller put foreign objects and a damaged head in the pool beforehand
(semantics.sh) and checks afterwards that they are untouched.
"""
import ctypes
import errno
import os
import stat
import sys
import time

M, OTHER, NAME_MAX = sys.argv[1], sys.argv[2], int(sys.argv[3])
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


def errno_of(fn, *args):
    try:
        fn(*args)
    except OSError as e:
        return e.errno
    return 0


def expect_errno(want, what, fn, *args):
    got = errno_of(fn, *args)
    tap(got == want, f"{what}: {errno.errorcode.get(want, want)}",
        f"got {errno.errorcode.get(got, got)}")


def p(*parts):
    return os.path.join(M, *parts)


def q(*parts):
    return os.path.join(OTHER, *parts)


def settle():
    """Another client's view is at most cache_time (1 s) old."""
    time.sleep(1.3)


def gone_within(path, seconds=10):
    """Whether path is gone within seconds: a directory of files alone goes from
    another client's view cache_time plus one pool walk late (SEMANTICS.md),
    and a walk takes what the host gives it."""
    end = time.monotonic() + seconds
    while os.path.exists(path):
        if time.monotonic() > end:
            return False
        time.sleep(0.2)
    return True


def write(path, data, flags=os.O_WRONLY | os.O_CREAT | os.O_TRUNC):
    fd = os.open(path, flags, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def read_or_errno(path):
    try:
        return read(path)
    except OSError as e:
        return e.errno


# ---- names
write(p("plain"), b"x" * 10)
tap(os.path.isfile(p("plain")) and read(p("plain")) == b"x" * 10, "a file's name is its path")
os.makedirs(p("d1", "d2"))
write(p("d1", "d2", "f"), b"deep")
tap(sorted(os.listdir(p("d1"))) == ["d2"] and os.path.isdir(p("d1", "d2")),
    "/ in names makes directories")
ctl = "ctl\x01\x1f\x7f\tname\n"
write(p(ctl), b"control")
tap(ctl in os.listdir(M) and read(p(ctl)) == b"control",
    "a name with control bytes and a newline is kept as it is")
expect_errno(errno.ENAMETOOLONG, "a component over 255 bytes", write, p("n" * 256), b"")
# a path longer than the pool holds: components of 200 bytes
deep = M
parts = []
while len("/".join(parts)) + 201 <= NAME_MAX:
    parts.append(chr(ord("a") + len(parts)) * 200)
os.makedirs(os.path.join(M, *parts))
last = "z" * (NAME_MAX - len("/".join(parts)))  # one byte over the limit
expect_errno(errno.ENAMETOOLONG, "a path longer than the pool's name limit: creat", write,
             os.path.join(M, *parts, last), b"")
expect_errno(errno.ENAMETOOLONG, "the same path: mkdir", os.mkdir, os.path.join(M, *parts, last))
tap(os.listdir(os.path.join(M, *parts)) == [], "nothing was made for it")
fit = last[:-1]
write(os.path.join(M, *parts, fit), b"fits")
tap(read(os.path.join(M, *parts, fit)) == b"fits", "a path of exactly the limit works")
tap("foreign-plain" not in os.listdir(M) and "foreign" not in os.listdir(M)
    and "fdir" not in os.listdir(M),
    "objects that are no striped files are not listed")
expect_errno(errno.ENOENT, "a head without striper metadata cannot be opened", read, p("foreign"))
tap("damaged" in os.listdir(M), "a file with a damaged head is listed")
expect_errno(errno.EIO, "a damaged head: stat", os.stat, p("damaged"))
expect_errno(errno.EIO, "a damaged head: open", read, p("damaged"))
tap(read(p("healthy")) == b"healthy", "the rest of the mount is unaffected by it")

# ---- files
expect_errno(errno.EEXIST, "O_CREAT|O_EXCL of an existing file", os.open, p("plain"),
             os.O_WRONLY | os.O_CREAT | os.O_EXCL)
write(p("plain"), b"short", os.O_WRONLY | os.O_TRUNC)
tap(read(p("plain")) == b"short", "O_TRUNC cuts the file")
fd = os.open(p("rand"), os.O_RDWR | os.O_CREAT, 0o644)
os.pwrite(fd, b"B" * 3, 10_000_000)
os.pwrite(fd, b"A" * 5, 3)
os.fsync(fd)
tap(os.pread(fd, 8, 0) == b"\0\0\0AAAAA" and os.fstat(fd).st_size == 10_000_003,
    "writes at any offset; holes read as zeros")
os.ftruncate(fd, 4)
tap(os.fstat(fd).st_size == 4 and os.pread(fd, 10, 0) == b"\0\0\0A", "ftruncate down")
os.close(fd)
# O_CREAT of a name this mount's kernel still holds as missing (cache_time)
# while another client made it: the kernel sends a create, which finds the file
tap(not os.path.exists(p("late")), "a missing name (the kernel keeps its absence for cache_time)")
write(q("late"), b"made elsewhere")
os.chmod(q("late"), 0o600)
fd = os.open(p("late"), os.O_WRONLY | os.O_CREAT, 0o640)
size = os.fstat(fd).st_size
os.close(fd)
tap(read(p("late")) == b"made elsewhere" and size == 14
    and stat.S_IMODE(os.stat(q("late")).st_mode) == 0o600,
    "O_CREAT of a file another client made since: its bytes, size and mode kept", size)
expect_errno(errno.ENOENT, "unlink of a missing name", os.unlink, p("missing"))
expect_errno(errno.EPERM, "link: an object has one name", os.link, p("plain"), p("hard"))
expect_errno(errno.EPERM, "mknod of a FIFO", os.mkfifo, p("fifo"))
os.mknod(p("regular"), 0o600 | stat.S_IFREG)
tap(stat.S_ISREG(os.stat(p("regular")).st_mode), "mknod of a regular file makes one")
libc = ctypes.CDLL(None, use_errno=True)


def fallocate(fd, off, length):
    if libc.fallocate(fd, 0, ctypes.c_long(off), ctypes.c_long(length)) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


fd = os.open(p("plain"), os.O_RDWR)
expect_errno(errno.EOPNOTSUPP, "fallocate", fallocate, fd, 0, 4096)
os.close(fd)
sv = os.statvfs(M)
tap(sv.f_blocks > 0 and sv.f_bavail > 0 and sv.f_namemax == 255, "statfs: the cluster's space")

# ---- attributes kept on the head: the other mount shows them
os.chmod(p("plain"), 0o640)
os.chown(p("plain"), 1234, 5678)
os.utime(p("plain"), ns=(1_000_000_000_123_456_789, 1_000_000_000_123_456_789))
os.setxattr(p("plain"), "user.color", b"blue")
os.mkdir(p("empty"), 0o700)
os.symlink("d1/d2/f", p("lnk"))
settle()
st = os.lstat(q("plain"))
tap(stat.S_IMODE(st.st_mode) == 0o640 and st.st_uid == 1234 and st.st_gid == 5678,
    "chmod and chown are kept with the file", f"{oct(st.st_mode)} {st.st_uid} {st.st_gid}")
tap(st.st_mtime_ns == 1_000_000_000_123_456_789, "utimens is kept to the nanosecond",
    st.st_mtime_ns)
tap(os.getxattr(q("plain"), "user.color") == b"blue", "user. xattrs are kept")
tap(os.listxattr(q("plain")) == ["user.color"],
    "listxattr shows the user's alone (not striper.*, not mount.*)", os.listxattr(q("plain")))
expect_errno(errno.ENOTSUP, "setxattr outside user.", os.setxattr, p("plain"), "trusted.x", b"1")
expect_errno(errno.ENODATA, "getxattr of a missing attribute", os.getxattr, p("plain"), "user.no")
os.removexattr(p("plain"), "user.color")
expect_errno(errno.ENODATA, "removexattr removed it", os.getxattr, p("plain"), "user.color")
expect_errno(errno.ENODATA, "removexattr of a missing attribute", os.removexattr, p("plain"),
             "user.color")
tap(os.path.isdir(q("empty")) and os.listdir(q("empty")) == []
    and stat.S_IMODE(os.stat(q("empty")).st_mode) == 0o700,
    "an empty directory stays, with its mode, for another client")
tap(os.readlink(q("lnk")) == "d1/d2/f" and read(q("lnk")) == b"deep", "symlinks")

# A symlink and a file made here (the file closed unwritten) keep the time
# they were made at, as the create's reply gave it: not their head's RADOS
# mtime, which libstriped's lock moves at every open or readlink (issue 41).
os.symlink("t", p("lnk2"))
os.close(os.open(p("unwritten"), os.O_WRONLY | os.O_CREAT, 0o644))
made = (os.lstat(p("lnk2")).st_mtime_ns, os.stat(p("unwritten")).st_mtime_ns)
settle()
os.readlink(p("lnk2"))
read(p("unwritten"))
settle()
seen = [(os.lstat(m("lnk2")).st_mtime_ns, os.stat(m("unwritten")).st_mtime_ns) for m in (p, q)]
tap(seen == [made, made], "a new symlink's and file's mtime is the create's, kept after opens",
    f"made {made}, then here and on the other mount {seen}")
st = os.stat(q("d1", "d2", "f"))
tap(stat.S_IMODE(st.st_mode) == 0o644 and st.st_uid == os.getuid(),
    "a file without stored attributes shows the mount's defaults")

# ---- directories
expect_errno(errno.EEXIST, "mkdir of an existing directory", os.mkdir, p("d1"))
expect_errno(errno.EEXIST, "mkdir over a file", os.mkdir, p("plain"))
expect_errno(errno.ENOTEMPTY, "rmdir of a directory with files", os.rmdir, p("d1"))
os.rmdir(p("empty"))
settle()
tap(not os.path.exists(q("empty")), "rmdir removes the directory, for another client too")

# ---- rename
write(p("r1"), b"one")
write(p("r2"), b"two")
os.setxattr(p("r1"), "user.k", b"v")
os.chmod(p("r1"), 0o600)
os.rename(p("r1"), p("r2"))
tap(read(p("r2")) == b"one" and not os.path.exists(p("r1")), "rename replaces the target")
tap(os.getxattr(p("r2"), "user.k") == b"v" and stat.S_IMODE(os.stat(p("r2")).st_mode) == 0o600,
    "rename keeps xattrs and mode")
def renameat2(a, b, flags):
    if libc.renameat2(-100, a.encode(), -100, b.encode(), flags) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


write(p("r3"), b"three")
expect_errno(errno.EEXIST, "RENAME_NOREPLACE onto an existing name", renameat2, p("r3"),
             p("r2"), 1)
expect_errno(errno.EINVAL, "RENAME_EXCHANGE", renameat2, p("r3"), p("r2"), 2)
fd = os.open(p("r3"), os.O_RDONLY)
expect_errno(errno.EBUSY, "rename of a file open here", os.rename, p("r3"), p("r4"))
os.close(fd)
os.makedirs(p("full", "x"))
expect_errno(errno.ENOTEMPTY, "rename of a directory onto a non-empty one", os.rename, p("d1"),
             p("full"))
os.rename(p("d1"), p("moved"))
tap(read(p("moved", "d2", "f")) == b"deep" and not os.path.exists(p("d1")),
    "rename of a directory moves what is below it")

# ---- a new file (O_CREAT|O_TRUNC) kept in the daemon until its first flush
TRUNC_NEW = os.O_CREAT | os.O_TRUNC
fd = os.open(p("k1"), os.O_WRONLY | TRUNC_NEW, 0o600)
os.write(fd, b"kept" * 100)
settle()  # the kernel's entry and attributes older than cache_time: it asks the daemon again
st = os.stat(p("k1"))  # a lookup by path, not the descriptor's attributes
tap(st.st_size == 400 and stat.S_IMODE(st.st_mode) == 0o600 and "k1" in os.listdir(M)
    and read(p("k1")) == b"kept" * 100,
    "a new file before its close: stat, listing and a second open read what was written",
    f"{st.st_size} {oct(st.st_mode)}")
os.write(fd, b"more")
t0 = time.time()
os.close(fd)
settle()
st = os.stat(q("k1"))
tap(read(q("k1")) == b"kept" * 100 + b"more" and stat.S_IMODE(st.st_mode) == 0o600
    and abs(st.st_mtime - t0) < 5,
    "closed: whole on the other mount, with its mode and time", f"{oct(st.st_mode)} {st.st_mtime}")
fd = os.open(p("k2"), os.O_RDWR | TRUNC_NEW, 0o644)
os.write(fd, b"a" * 3000)
os.fsync(fd)
seen = read_or_errno(q("k2"))
os.write(fd, b"b" * 100)
back = os.pread(fd, 4000, 0)
os.ftruncate(fd, 2000)
os.write(fd, b"c" * 10)  # at 3100: a hole of zeros between
os.close(fd)
want = b"a" * 2000 + bytes(1100) + b"c" * 10
settle()
tap(seen == b"a" * 3000 and back == b"a" * 3000 + b"b" * 100 and read(q("k2")) == want
    and read(p("k2")) == want,
    "fsync makes it for other clients; read back, ftruncate and writes after: whole at close")
fd = os.open(p("k3"), os.O_WRONLY | TRUNC_NEW, 0o644)
big = os.urandom(300 << 10)
os.write(fd, big[:1000])
os.chmod(p("k3"), 0o640)
os.setxattr(p("k3"), "user.k", b"kept")
os.write(fd, big[1000:])  # past what is kept: made through a handle
os.close(fd)
settle()
tap(read(q("k3")) == big and stat.S_IMODE(os.stat(q("k3")).st_mode) == 0o640
    and os.getxattr(q("k3"), "user.k") == b"kept",
    "a chmod, an xattr and writes past 64 KiB while new: all kept")
fd = os.open(p("k4"), os.O_WRONLY | TRUNC_NEW, 0o644)
os.write(fd, b"gone")
os.unlink(p("k4"))
os.close(fd)
settle()
tap(not os.path.exists(p("k4")) and not os.path.exists(q("k4")),
    "unlinked before its close: never made")
fd = os.open(p("k5"), os.O_WRONLY | TRUNC_NEW, 0o644)
os.write(fd, b"mine")
expect_errno(errno.EBUSY, "rename of a new file open here", os.rename, p("k5"), p("k6"))
write(q("k5"), b"theirs, made meanwhile", os.O_WRONLY | os.O_CREAT | os.O_EXCL)
os.close(fd)
settle()
tap(read(q("k5")) == b"mine" and read(p("k5")) == b"mine",
    "another client made its name meanwhile: the close replaces it (O_TRUNC), as an open then")
fd = os.open(p("k7"), os.O_WRONLY | TRUNC_NEW, 0o644)
os.write(fd, b"mine, fsynced")
write(q("k7"), b"theirs, made meanwhile", os.O_WRONLY | os.O_CREAT | os.O_EXCL)
os.fsync(fd)
seen = read_or_errno(q("k7"))  # still open here: only the fsync put it on RADOS
os.close(fd)
tap(seen == b"mine, fsynced",
    "another client made its name meanwhile: an fsync has the bytes on RADOS when it returns",
    repr(seen))
fd = os.open(p("k8"), os.O_WRONLY | TRUNC_NEW, 0o644)
os.write(fd, b"kept, then replaced")
write(p("k9"), b"renamed over it")
noreplace = errno_of(renameat2, p("k9"), p("k8"), 1)  # RENAME_NOREPLACE (the kernel's own check)
os.rename(p("k9"), p("k8"))
os.write(fd, b" and written after")  # the replaced file's: gone with it
os.close(fd)
settle()
tap(noreplace == errno.EEXIST and read(q("k8")) == b"renamed over it"
    and not os.path.exists(q("k9")),
    "a new file kept here renamed over: RENAME_NOREPLACE refused, a rename replaces it whole",
    f"{errno.errorcode.get(noreplace, noreplace)} {read_or_errno(q('k8'))!r}")
fd1 = os.open(p("k10"), os.O_WRONLY | TRUNC_NEW, 0o644)
os.write(fd1, b"first")
os.unlink(p("k10"))
fd2 = os.open(p("k10"), os.O_WRONLY | TRUNC_NEW, 0o644)
os.write(fd2, b"second")
os.close(fd1)  # the unlinked one's release: the new one of its name stays
settle()  # the listing older than cache_time: the next one walks the pool
listed = "k10" in os.listdir(M)
os.close(fd2)
tap(listed and read(q("k10")) == b"second",
    "a new file unlinked while open, then one of its name: listed, made at its close")
os.mkdir(p("kd"))
fd = os.open(p("kd", "x"), os.O_WRONLY | TRUNC_NEW, 0o644)
os.write(fd, b"before")
os.rename(p("kd"), p("kd2"))
os.write(fd, b" after")
os.close(fd)
settle()
tap(read(p("kd2", "x")) == b"before after" and read(q("kd2", "x")) == b"before after"
    and gone_within(q("kd")),
    "a new file open in a directory renamed meanwhile: whole under the new name",
    f"{read(p('kd2', 'x'))!r} {read(q('kd2', 'x'))!r} {os.path.exists(q('kd'))}")
os.unlink(p("kd2", "x"))
os.rmdir(p("kd2"))
for k in ("k1", "k2", "k3", "k5", "k7", "k8", "k10"):
    os.unlink(p(k))

# ---- an O_EXCL create: its name taken at the open, filled whole at its close
EXCL_NEW = os.O_CREAT | os.O_EXCL
fd = os.open(p("x1"), os.O_WRONLY | EXCL_NEW, 0o600)
theirs = errno_of(os.open, q("x1"), os.O_WRONLY | EXCL_NEW, 0o600)
os.write(fd, b"tar's bytes")
os.utime(fd, (1600000000, 1500000000))  # futimens, as tar and cp -a do before the close
os.fchown(fd, 1234, 5678)
os.fchmod(fd, 0o644)
settle()
before = read_or_errno(q("x1"))
os.close(fd)
mine = os.stat(p("x1"))  # this mount's stat just after its close: what the close made
settle()
st = os.stat(q("x1"))
# Another client's read asks this mount (write-back): what it wrote so far, or nothing.
tap(theirs == errno.EEXIST and before in (b"", b"tar's bytes") and read(q("x1")) == b"tar's bytes"
    and stat.S_IMODE(st.st_mode) == 0o644 and (st.st_uid, st.st_gid) == (1234, 5678)
    and int(st.st_mtime) == 1500000000 and int(st.st_atime) == 1600000000
    and st.st_ctime > 1600000000,
    "O_EXCL: another client's O_EXCL gets EEXIST and reads it empty or as written so far; bytes, "
    "mode, owner, times whole at the close", f"{errno.errorcode.get(theirs, theirs)} {before!r} {oct(st.st_mode)} "
    f"{st.st_uid} {st.st_gid} {st.st_mtime} {st.st_atime} {st.st_ctime}")
tap((mine.st_size, mine.st_mode, mine.st_uid, mine.st_gid, int(mine.st_mtime), mine.st_ino)
    == (11, st.st_mode, 1234, 5678, 1500000000, st.st_ino),
    "O_EXCL: this mount's stat just after the close says what the close made",
    f"{mine} {st}")
fd = os.open(p("x5"), os.O_WRONLY | EXCL_NEW, 0o644)
os.write(fd, b"mine")
os.close(fd)
with open(q("x5"), "ab") as f:  # another client grows it at once
    f.write(b", then theirs")
fd = os.open(p("x5"), os.O_RDWR)  # an open after their close: close-to-open
size = os.fstat(fd).st_size
os.close(fd)
tap(size == 17, "an open just after this mount's close and another client's: its size",
    f"{size}")
os.unlink(p("x5"))
fd = os.open(p("x2"), os.O_WRONLY | EXCL_NEW, 0o644)
os.write(fd, b"mine")
held = os.open(q("x2"), os.O_RDWR)  # another client holds it open (its lock)
os.close(fd)  # not as it was made: written through a handle
os.close(held)
settle()
tap(read(q("x2")) == b"mine" and read(p("x2")) == b"mine",
    "O_EXCL: another client holding it open at the close: written whole all the same",
    f"{read_or_errno(q('x2'))!r}")
fd = os.open(p("x3"), os.O_WRONLY | EXCL_NEW, 0o644)
os.write(fd, b"gone")
os.unlink(p("x3"))
os.close(fd)
settle()
tap(not os.path.exists(p("x3")) and not os.path.exists(q("x3")),
    "O_EXCL: unlinked before its close: the name is free, nothing made")
fd = os.open(p("x4"), os.O_WRONLY | EXCL_NEW, 0o644)
os.write(fd, b"theirs removed it")
os.unlink(q("x4"))  # another client removes it meanwhile
err = errno_of(os.close, fd)  # kept for write-back: the close asks RADOS nothing
time.sleep(3)  # writeback_time (2 s): its write-back finds it gone
tap(err == 0 and not os.path.exists(q("x4")) and not os.path.exists(p("x4")),
    "O_EXCL: removed by another client before its close: never made (write-back finds it gone)",
    f"{errno.errorcode.get(err, err)} {os.path.exists(q('x4'))}")
# ---- write-back: an O_EXCL file kept here past its close (writeback_time=2)
fd = os.open(p("w1"), os.O_WRONLY | EXCL_NEW, 0o600)
os.write(fd, b"kept past its close")
os.close(fd)
ino = os.stat(p("w1")).st_ino
os.chmod(p("w1"), 0o640)  # after the close: changes what the daemon keeps
os.utime(p("w1"), (1600000000, 1500000000))
os.rename(p("w1"), p("w2"))  # rsync's temp-then-rename: renamed in the daemon
st = os.stat(q("w2"))  # the other mount asks this one to write it back
tap(read(q("w2")) == b"kept past its close" and not os.path.exists(q("w1"))
    and stat.S_IMODE(st.st_mode) == 0o640 and int(st.st_mtime) == 1500000000
    and os.stat(p("w2")).st_ino == ino and st.st_ino == ino,
    "write-back: a file kept past its close, chmod'ed, utimens'ed and renamed: another mount "
    "reads it whole under its new name at once, mode, mtime and inode kept",
    f"{read_or_errno(q('w2'))!r} {os.path.exists(q('w1'))} {oct(st.st_mode)} {st.st_mtime} "
    f"{st.st_ino} {ino}")
fd = os.open(p("w3"), os.O_WRONLY | EXCL_NEW, 0o644)
os.write(fd, b"reopened here")
os.close(fd)
fd = os.open(p("w3"), os.O_RDWR)  # a reopen shares what the daemon keeps
os.lseek(fd, 0, os.SEEK_END)
os.write(fd, b", then more")
os.close(fd)
tap(read(q("w3")) == b"reopened here, then more",
    "write-back: a kept file reopened and appended to here: the other mount reads it whole",
    f"{read_or_errno(q('w3'))!r}")
fd = os.open(p("w4"), os.O_WRONLY | EXCL_NEW, 0o644)
os.write(fd, b"gone before its write-back")
os.close(fd)
os.unlink(p("w4"))
time.sleep(3)  # past writeback_time: nothing of it made
tap(not os.path.exists(q("w4")) and not os.path.exists(p("w4")),
    "write-back: a kept file unlinked before its write-back is never made")
for k in ("w2", "w3"):
    os.unlink(p(k))

fd = os.open(p("k11"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, b"kept with its mode")
os.fchmod(fd, 0o640)
os.utime(fd, (1600000000, 1500000000))
theirs = read_or_errno(q("k11"))  # not on RADOS before its close: its attributes neither
os.close(fd)
settle()
st = os.stat(q("k11"))
tap(theirs == errno.ENOENT and stat.S_IMODE(st.st_mode) == 0o640
    and int(st.st_mtime) == 1500000000 and read(q("k11")) == b"kept with its mode",
    "a new file's chmod and utimens before its close: kept in the daemon, made with it",
    f"{theirs} {oct(st.st_mode)} {st.st_mtime}")
for k in ("x1", "x2", "k11"):
    os.unlink(p(k))

# ---- unlink of a small file: as this mount last read it, in one operation, or else as ever
write(p("rm1"), b"s" * 100)
write(p("rm2"), b"t" * 100)
write(p("rm3"), b"u" * 100)
settle()
sizes = [os.stat(p(x)).st_size for x in ("rm1", "rm2", "rm3")]  # read here
with open(q("rm1"), "r+b") as f:  # another client: past its head (4 MiB units)
    f.write(os.urandom(5 << 20))
held = os.open(q("rm2"), os.O_RDWR)  # another client holds it (its lock)
os.write(held, b"x")
os.unlink(p("rm1"))
os.unlink(p("rm2"))
os.unlink(p("rm3"))
settle()
gone = [not os.path.exists(p(x)) and not os.path.exists(q(x)) for x in ("rm1", "rm2", "rm3")]
err = errno_of(os.pread, held, 10, 0)
os.close(held)
tap(sizes == [100] * 3 and all(gone) and err == errno.ESTALE,
    "unlink: a small file as read here, one grown and one held by another client since: all gone",
    f"{sizes} {gone} {err}")

os.unlink(p(ctl))  # its name has a newline: no line-based cleanup after
tap(ctl not in os.listdir(M), "unlink of the name with control bytes")
sys.exit(1 if failed else 0)  # semantics.sh adds its own line and the plan
