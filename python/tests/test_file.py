# SPDX-License-Identifier: LGPL-2.1-or-later
"""The file object, stat, listing, xattrs and errors against the sandbox cluster,
checked through striped-dd and libradosstriper (rados --striper)."""

import errno
import hashlib
import io
import json
import shutil
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import striped
from conftest import dd, pool_name, random_bytes

pytestmark = pytest.mark.cluster
MiB = 1 << 20

LAYOUTS = [
    striped.Layout(),                                  # libradosstriper's default
    striped.Layout(64 << 10, 1, 64 << 10),             # smallest objects
    striped.Layout(64 << 10, 5, 256 << 10),
    striped.Layout(1 * MiB, 8, 4 * MiB),
    striped.Layout(128 << 10, 3, 1 * MiB),
]


def random_size(rng):
    """A size from 0 to ~20 MiB, often at or next to a stripe or object boundary."""
    base = rng.choice([0, 1, 64 << 10, 256 << 10, 1 * MiB, 4 * MiB, 12 * MiB])
    return max(0, base + rng.choice([-1, 0, 1, rng.randrange(0, 8 * MiB)]))


def read_back(pool, name):
    """The file's bytes, read in one readinto."""
    with pool.open(name) as f:
        buf = bytearray(f.stat().size)
        assert f.readinto(buf) == len(buf)
        assert f.read(1) == b""
        return bytes(buf)


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda lay: "%d-%d-%d" % (
    lay.stripe_unit, lay.stripe_count, lay.object_size))
def test_round_trip_striped_dd(pool, names, rng, tmp_path, layout):
    """Python writes what striped-dd reads back, and reads what striped-dd wrote."""
    for _ in range(2):
        data = random_bytes(rng, random_size(rng))
        name = names()
        with pool.open(name, "wb", layout) as f:
            assert f.write(data) == len(data)
            assert f.tell() == len(data)
        out = tmp_path / "out"
        dd(f"if=rados://{pool_name()}/{name}", f"of={out}", "bs=4M")
        assert out.read_bytes() == data
        st = pool.stat(name)
        assert (st.size, st.layout) == (len(data), layout)

        src = tmp_path / "src"
        src.write_bytes(data)
        name2 = names()
        dd(f"if={src}", f"of=rados://{pool_name()}/{name2}", "bs=1M",
           f"stripe_unit={layout.stripe_unit}", f"stripe_count={layout.stripe_count}",
           f"object_size={layout.object_size}")
        assert read_back(pool, name2) == data
        assert pool.stat(name2).layout == layout


def rados_striper(*args):
    """rados --striper ARGS; its exit is not judged when stock libradosstriper aborts as
    the program ends (Ceph 16.2: an assert on a reference given back after its cluster
    handle went, or its last reference dropped in a librados thread, which then shuts
    its own cluster down: "Resource deadlock avoided", then a SIGSEGV in Ceph's crash
    handler): the caller checks what it did."""
    proc = subprocess.run(["rados", "--striper", "-p", pool_name(), *args], timeout=300,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode in (-signal.SIGABRT, -signal.SIGSEGV):
        return
    assert proc.returncode == 0, proc.stderr


def test_round_trip_libradosstriper(pool, names, rng, tmp_path):
    """rados --striper (libradosstriper) reads what Python wrote, and the other way."""
    for layout in LAYOUTS[:3]:
        data = random_bytes(rng, random_size(rng))
        name = names()
        with pool.open(name, "xb", layout) as f:
            f.write(memoryview(data))
        out = tmp_path / "out"
        rados_striper("get", name, str(out))
        assert out.read_bytes() == data

        name2 = names()
        src = tmp_path / "src"
        src.write_bytes(data)
        rados_striper("put", name2, str(src))
        assert read_back(pool, name2) == data


def test_random_io_against_model(pool, names, rng):
    """Random writes, reads, seeks and truncates through r+b agree with a bytearray model."""
    name = names()
    layout = striped.Layout(64 << 10, 3, 128 << 10)
    model = bytearray()
    with pool.open(name, "w+b", layout) as f:
        for _ in range(60):
            op = rng.choice(["write", "write", "read", "truncate"])
            off = rng.randrange(0, 2 * MiB)
            if op == "write":
                data = random_bytes(rng, rng.randrange(1, 600 << 10))
                f.seek(off)
                assert f.write(data) == len(data)
                if off > len(model):
                    model += bytes(off - len(model))
                model[off:off + len(data)] = data
                assert f.tell() == off + len(data)
            elif op == "read":
                n = rng.randrange(0, 1 * MiB)
                f.seek(off)
                assert f.read(n) == bytes(model[off:off + n])
            else:
                f.truncate(off)
                del model[off:]
                model += bytes(off - len(model))
            assert f.seek(0, io.SEEK_END) == len(model)
    assert read_back(pool, name) == bytes(model)


def test_readinto_writes_in_place(pool, names, rng):
    """readinto fills the caller's buffer itself: a slice, a numpy array, an mmap."""
    name = names()
    data = random_bytes(rng, 3 * MiB + 17)
    with pool.open(name, "wb", striped.Layout(1 * MiB, 4, 4 * MiB)) as f:
        f.write(np.frombuffer(data, dtype=np.uint8))  # any bytes-like object
    with pool.open(name) as f:
        big = bytearray(b"\xee" * (4 * MiB))
        view = memoryview(big)[100:100 + 2 * MiB]
        assert f.readinto(view) == 2 * MiB
        assert big[:100] == b"\xee" * 100 and big[100 + 2 * MiB:] == b"\xee" * (2 * MiB - 100)
        assert bytes(view) == data[:2 * MiB]
        arr = np.zeros((1024, 1024), dtype=np.uint8)
        assert f.readinto(arr) == MiB and arr.tobytes() == data[2 * MiB:3 * MiB]
        assert f.readinto(arr) == 17 and arr.tobytes()[:17] == data[3 * MiB:]
        assert f.readinto(arr) == 0
        import mmap
        m = mmap.mmap(-1, len(data))
        f.seek(0)
        assert f.readinto(m) == len(data) and m[:] == data
        with pytest.raises(TypeError):
            f.readinto(b"read-only bytes")


def test_buffered_and_text(pool, names):
    """io.BufferedReader and TextIOWrapper work over the raw file."""
    name = names()
    lines = [f"line {i}\n" for i in range(10000)]
    with io.TextIOWrapper(io.BufferedWriter(pool.open(name, "wb")), encoding="ascii") as t:
        t.writelines(lines)
    with io.TextIOWrapper(io.BufferedReader(pool.open(name)), encoding="ascii") as t:
        assert t.readlines() == lines
    with pool.open(name) as f:
        assert f.readall() == "".join(lines).encode()


def test_buffered_handle(pool, names, rng):
    """buffered=True: small calls go behind and are read ahead; a fresh handle sees it all."""
    name = names()
    data = random_bytes(rng, 9 * MiB + 12345)
    with pool.open(name, "wb", striped.Layout(1 * MiB, 4, 4 * MiB), buffered=True,
                   window=8 * MiB) as f:
        assert f.buffered
        for i in range(0, len(data), 65536 + 7):
            assert f.write(data[i:i + 65536 + 7]) == len(data[i:i + 65536 + 7])
        # The handle sees its own window: its size and its bytes.
        assert f.stat().size == len(data)
        f.flush()  # the fsync: from here on every client sees it
        assert read_back(pool, name) == data
    with pool.open(name, "rb", buffered=True) as f:
        got = bytearray()
        while chunk := f.read(65536):
            got += chunk
        assert got == data
    with pytest.raises(ValueError):
        pool.open(name, "rb", window=MiB)


def test_buffered_handle_learns_of_a_remove(pool, names, cluster):
    """A remove by another handle takes the window first; the buffered handle then gets ESTALE."""
    name = names()
    with pool.open(name, "wb", buffered=True) as f:
        f.write(b"x" * 100000)
        with cluster.pool(pool_name()) as other:
            other.remove(name)
        with pytest.raises(OSError) as e:
            f.write(b"y")
        assert e.value.errno == errno.ESTALE
    assert not pool.exists(name)


def test_modes(pool, names):
    """wb truncates, ab appends, xb refuses an existing file, r+b overwrites."""
    name = names()
    with pool.open(name, "wb") as f:
        f.write(b"0123456789")
    with pool.open(name, "ab") as f:
        assert f.tell() == 10
        f.write(b"abc")
        assert f.tell() == 13
    assert read_back(pool, name) == b"0123456789abc"
    with pool.open(name, "r+b") as f:
        f.seek(2)
        f.write(b"XY")
        assert f.read(2) == b"45"
    assert read_back(pool, name) == b"01XY456789abc"
    with pytest.raises(FileExistsError):
        pool.open(name, "xb")
    with pool.open(name, "wb") as f:
        assert f.stat().size == 0
        f.write(b"new")
    assert read_back(pool, name) == b"new"


def test_bad_inputs_change_nothing(pool, names, cluster):
    """Closed file, wrong mode, negative seek, missing file or pool: the right error, no change."""
    name = names()
    with pool.open(name, "wb") as f:
        f.write(b"keep me")
    before = (read_back(pool, name), pool.stat(name).size)

    f = pool.open(name)
    with pytest.raises(io.UnsupportedOperation):
        f.write(b"x")
    with pytest.raises(io.UnsupportedOperation):
        f.truncate(0)
    f.seek(3)
    with pytest.raises(OSError) as e:
        f.seek(-4, io.SEEK_CUR)
    assert e.value.errno == errno.EINVAL and f.tell() == 3
    with pytest.raises(OSError) as e:
        f.seek(-1)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):
        f.seek(0, 7)
    f.close()
    f.close()  # a second close is a no-op
    for call in (lambda: f.read(1), lambda: f.readinto(bytearray(1)), lambda: f.seek(0),
                 f.tell, f.flush, lambda: f.xattrs, f.stat):
        with pytest.raises(ValueError):
            call()

    w = pool.open(name, "ab")
    with pytest.raises(io.UnsupportedOperation):
        w.read(1)
    with pytest.raises(OSError) as e:
        w.truncate(-1)
    assert e.value.errno == errno.EINVAL
    w.close()
    with pytest.raises(ValueError):
        w.write(b"x")
    with pytest.raises(ValueError):
        pool.open(name, "rt")
    with pytest.raises(FileNotFoundError):
        pool.open(name + "-missing")
    with pytest.raises(FileNotFoundError):
        pool.open(name + "-missing", "r+b")
    with pytest.raises(FileNotFoundError):
        pool.remove(name + "-missing")
    with pytest.raises(FileNotFoundError):
        pool.stat(name + "-missing")
    assert not pool.exists(name + "-missing")
    with pytest.raises(FileNotFoundError):
        cluster.pool("no-such-pool-" + name)
    with pytest.raises(OSError):
        pool.open(name, "wb", striped.Layout(1000, 1, 1000))  # bad layout, existing file
    assert (read_back(pool, name), pool.stat(name).size) == before
    assert name + "-missing" not in pool.listdir()


def test_invalid_layout_is_einval(pool, names):
    """A layout against Ceph's rules is OSError(EINVAL), and no file is made."""
    name = names()
    with pytest.raises(OSError) as e:
        pool.open(name, "wb", striped.Layout(1000, 1, 1000))
    assert e.value.errno == errno.EINVAL
    assert not pool.exists(name)


def test_stat_listdir_remove(pool, names):
    """stat gives size and layout, listdir lists with sizes, remove removes every object."""
    a, b = names(), names()
    layout = striped.Layout(64 << 10, 2, 128 << 10)
    with pool.open(a, "wb", layout) as f:
        f.write(bytes(1000 * 1000))
    with pool.open(b, "wb") as f:
        pass
    before = time.time()
    st = pool.stat(a)
    assert st.size == 10**6 and st.layout == layout and abs(st.mtime - before) < 600
    sizes = dict(pool.scandir())
    assert sizes[a] == 10**6 and sizes[b] == 0
    assert {a, b} <= set(pool.listdir())
    pool.remove(a)
    assert a not in pool.listdir() and not pool.exists(a)
    objects = subprocess.run(["rados", "-p", pool_name(), "ls"], check=True, text=True,
                             stdout=subprocess.PIPE).stdout.split()
    assert not [o for o in objects if o.startswith(a + ".")]


def test_scan_prefix_delimiter_continuation(pool, names):
    """scan: names under a prefix, one level with "/", from after a continuation."""
    top = names()
    files = [f"{top}/a", f"{top}/b/c", f"{top}/b/d", f"{top}/e"]
    for n in files:
        pool.write_bytes(n, b"x")
    assert [n for n, _, _ in pool.scan(top + "/")] == files
    assert list(pool.scan(top + "/", "/")) == [
        (f"{top}/a", 1, False), (f"{top}/b/", 0, True), (f"{top}/e", 1, False)]
    assert [n for n, _, _ in pool.scan(top + "/", None, f"{top}/b/c")] == files[2:]
    assert [n for n, _, _ in pool.scan(top + "/", "/", f"{top}/b/")] == [f"{top}/e"]
    with pytest.raises(OSError) as e:
        list(pool.scan(top, ","))
    assert e.value.errno == errno.EINVAL
    for n in files:
        pool.remove(n)


def test_stat_and_read_bytes_take_no_lock(pool, names):
    """stat and read_bytes read the head without opening the file: a small file whole in
    one read, a larger one through an open; neither waits for a lock held exclusive."""
    small, big, mid, empty = names(), names(), names(), names()
    data = np.random.default_rng(7).bytes(3 << 20)
    with pool.open(small, "wb") as f:
        f.write(data[:5000])
    with pool.open(big, "wb", striped.Layout(64 << 10, 2, 128 << 10)) as f:
        f.write(data)
    with pool.open(mid, "wb") as f:  # within its 4 MiB unit, past the first MiB asked
        f.write(data[:(3 << 20) // 2])
    with pool.open(empty, "wb"):
        pass
    assert pool.read_bytes(small) == data[:5000]
    assert pool.read_bytes(big) == data
    assert pool.read_bytes(mid) == data[:(3 << 20) // 2]
    assert pool.read_bytes(empty) == b""
    with pytest.raises(FileNotFoundError):
        pool.read_bytes(small + "-missing")
    # a lock held exclusive by hand (as a truncate holds it): stat answers at once
    head = small + ".0000000000000000"
    rados = ["rados", "-p", pool_name(), "lock"]
    subprocess.run(rados + ["get", head, "striper.lock", "--lock-cookie", "by-hand",
                            "--lock-type", "exclusive"], check=True)
    try:
        t0 = time.monotonic()
        assert pool.stat(small).size == 5000
        assert time.monotonic() - t0 < 1
    finally:
        info = subprocess.run(rados + ["info", head, "striper.lock"], check=True, text=True,
                              stdout=subprocess.PIPE).stdout
        locker = json.loads(info)["lockers"][0]["name"]
        subprocess.run(rados + ["break", head, "striper.lock", locker, "--lock-cookie",
                                "by-hand"], check=True)
    assert pool.read_bytes(small) == data[:5000]
    for n in (small, big, mid, empty):
        pool.remove(n)


def test_write_bytes(pool, names, tmp_path):
    """write_bytes: a new small file made in one operation (no lock left held), a file that
    is there replaced, a larger one written through an open (read back by striped-dd)."""
    small, big = names(), names()
    data = np.random.default_rng(8).bytes(300 << 10)
    pool.write_bytes(small, data[:5000])
    holders = subprocess.run(["rados", "-p", pool_name(), "lock", "info",
                              small + ".0000000000000000", "striper.lock"],
                             check=True, text=True, stdout=subprocess.PIPE).stdout
    assert json.loads(holders)["lockers"] == []
    assert pool.stat(small).size == 5000 and read_back(pool, small) == data[:5000]
    pool.write_bytes(small, data[:100])  # there: replaced through an open
    assert pool.read_bytes(small) == data[:100]
    pool.write_bytes(big, data, striped.Layout(64 << 10, 2, 128 << 10))  # past its unit
    dd(f"if=rados://{pool_name()}/{big}", f"of={tmp_path / 'big'}", "bs=1M")
    assert (tmp_path / "big").read_bytes() == data
    assert pool.stat(big).layout == striped.Layout(64 << 10, 2, 128 << 10)
    for n in (small, big):
        pool.remove(n)


def test_xattrs(pool, names):
    """xattrs: a mapping of str to bytes; the libraries' own are hidden and refused."""
    name = names()
    with pool.open(name, "wb") as f:
        x = f.xattrs
        assert dict(x) == {} and len(x) == 0
        x["user.a"] = b"1"
        x["user.big"] = bytes(range(256)) * 40  # beyond the first read's guess
        x["user.empty"] = b""
        assert x["user.a"] == b"1" and x["user.big"] == bytes(range(256)) * 40
        assert x["user.empty"] == b""
        assert sorted(x) == ["user.a", "user.big", "user.empty"] and "user.a" in x
        del x["user.a"]
        with pytest.raises(KeyError):
            x["user.a"]
        with pytest.raises(KeyError):
            del x["user.a"]
        with pytest.raises(PermissionError):
            x["striper.size"] = b"0"
        with pytest.raises(PermissionError):
            x["striper.size"]
        with pytest.raises(TypeError):
            x["user.s"] = "text"
    with pool.open(name) as f:
        assert f.xattrs.copy() == {"user.big": bytes(range(256)) * 40, "user.empty": b""}
        assert f.stat().size == 0


def test_close_order(cluster, names):
    """Closing a pool closes its files; closing the cluster closes its pools."""
    with striped.connect() as c:
        p = c.pool(pool_name())
        f = p.open(names(), "wb")
        f.write(b"x")
        p.close()
        assert f.closed and p.closed
        with pytest.raises(ValueError):
            p.open("x")
        p2 = c.pool(pool_name())
    assert p2.closed and c.closed
    with pytest.raises(ValueError):
        c.pool(pool_name())


def test_gil_released_while_c_waits(pool, names):
    """Another Python thread runs while readinto waits for the cluster."""
    name = names()
    size = 64 * MiB
    with pool.open(name, "wb", striped.Layout(1 * MiB, 4, 4 * MiB)) as f:
        f.write(bytes(size))
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    buf = bytearray(size)
    with pool.open(name) as f:
        t = threading.Thread(target=ticker)
        t.start()
        try:
            windows = []
            for _ in range(3):
                f.seek(0)
                t0 = time.monotonic()
                f.readinto(buf)
                windows.append((t0, time.monotonic()))
        finally:
            stop.set()
            t.join()
    during = [x for x in ticks for a, b in windows if a < x < b]
    assert len(during) >= 3, (windows, len(ticks))


def test_copyfileobj_1gib(pool, names):
    """1 GiB through shutil.copyfileobj from one striped file to another, byte for byte."""
    total, block = 1 << 30, 64 * MiB
    src_name, dst_name = names("src"), names("dst")
    chunk = np.random.default_rng(1919).integers(0, 256, block, dtype=np.uint8)
    want = hashlib.blake2b()
    with pool.open(src_name, "wb", striped.Layout(1 * MiB, 8, 4 * MiB)) as f:
        for i in range(total // block):
            chunk[:8] = np.frombuffer(i.to_bytes(8, "little"), dtype=np.uint8)  # blocks differ
            want.update(chunk)
            f.write(chunk)
    t0 = time.monotonic()
    with pool.open(src_name) as src, pool.open(dst_name, "xb") as dst:
        shutil.copyfileobj(src, dst, block)
    secs = time.monotonic() - t0
    print(f"copyfileobj: 1 GiB in {secs:.2f} s ({1024 / secs:.0f} MiB/s)")
    got = hashlib.blake2b()
    buf = bytearray(block)
    with pool.open(dst_name) as f:
        assert f.stat().size == total
        while n := f.readinto(buf):
            got.update(memoryview(buf)[:n])
    assert got.hexdigest() == want.hexdigest()


def test_library_never_unloaded(names):
    """After a file was open, dropping the library (as interpreter exit does) cannot crash it.

    libstriped's lease renewer thread wakes every second in the library's
    memory: the package loads it RTLD_NODELETE (a crash here is SIGSEGV).
    """
    name = names()
    code = f"""if True:
        import time, striped
        from striped import _lib
        with striped.connect() as c, c.pool({pool_name()!r}) as p:
            with p.open({name!r}, "wb") as f:
                f.write(b"x")
        _lib.ffi.dlclose(_lib.lib)
        _lib.ffi.dlclose(_lib.rados)
        time.sleep(2.5)
        """
    r = subprocess.run([sys.executable, "-c", code], timeout=120)
    assert r.returncode == 0


def test_namespace(cluster, pool, names):
    """A file made in a namespace is seen there only."""
    name = names()
    with cluster.pool(pool_name(), namespace="pytest-ns") as ns:
        try:
            with ns.open(name, "xb") as f:
                f.write(b"in a namespace")
            assert name in ns.listdir() and ns.stat(name).size == 14
            assert name not in pool.listdir()
            with pytest.raises(FileNotFoundError):
                pool.open(name)
        finally:
            ns.remove(name)
        assert name not in ns.listdir()
