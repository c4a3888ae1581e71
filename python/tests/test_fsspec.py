# SPDX-License-Identifier: LGPL-2.1-or-later
"""striped.fsspec: the file system fsspec, pandas and dask-style range reads see."""

import io

import pytest

import striped
from conftest import pool_name, random_bytes

pytestmark = pytest.mark.cluster
fsspec = pytest.importorskip("fsspec")


@pytest.fixture
def fs(cluster):
    """The striped file system of $CEPH_CONF (no storage options needed)."""
    from striped.fsspec import StripedFileSystem
    return StripedFileSystem()


def url(name):
    """striped://POOL/NAME of a test file."""
    return f"striped://{pool_name()}/{name}"


def test_pandas_csv(fs, names):
    """pandas writes and reads a CSV through striped:// URLs."""
    pd = pytest.importorskip("pandas")
    name = names()
    df = pd.DataFrame({"i": range(50000), "s": [f"row{i}" for i in range(50000)],
                       "x": [i / 7 for i in range(50000)]})
    df.to_csv(url(name), index=False)
    back = pd.read_csv(url(name))
    pd.testing.assert_frame_equal(back, df)
    assert fs.info(url(name))["size"] == len(df.to_csv(index=False).encode())


def test_open_is_buffered_in_c(fs, names, cluster):
    """fs.open's files are buffered in the C library too, unless buffered=False."""
    from striped.fsspec import StripedFileSystem
    name = names()
    lines = [f"{i},{i * i}\n" for i in range(200000)]
    with fs.open(url(name), "w") as f:
        assert f.buffer.raw.buffered
        f.writelines(lines)
    with fs.open(url(name), "r") as f:
        assert f.buffer.raw.buffered
        assert f.readlines() == lines
    plain = StripedFileSystem(buffered=False, skip_instance_cache=True)
    with plain.open(url(name), "rb") as f:
        assert not f.raw.buffered
        assert f.read() == "".join(lines).encode()


def test_cat_file_ranges(fs, names, rng):
    """cat_file's ranges (negative from the end, None for the ends) are Python's slices."""
    name = names()
    data = random_bytes(rng, 3 * 1024 * 1024 + 5)
    fs.pipe_file(url(name), data, layout=striped.Layout(64 << 10, 3, 128 << 10))
    n = len(data)
    cases = [(None, None), (0, 10), (5, None), (None, 7), (-100, None), (-100, -10),
             (n - 3, n + 100), (n + 5, None), (10, 5), (1 << 20, 2 << 20), (0, -1),
             (-n - 10, None), (-n - 10, 5), (3, -n - 10)]
    cases += [(rng.randrange(0, n), rng.randrange(0, n + 10)) for _ in range(20)]
    for start, end in cases:
        assert fs.cat_file(url(name), start, end) == data[start:end], (start, end)
    assert fs.cat(url(name)) == data
    assert fs.cat_ranges([url(name)] * 2, [0, 10], [5, 20]) == [data[0:5], data[10:20]]
    small = names()  # whole, in one read of its head (Pool.read_bytes)
    fs.pipe_file(url(small), data[:5000])
    assert fs.cat_file(url(small)) == fs.cat(url(small)) == data[:5000]
    assert fs.cat_file(url(small), 0, None) == data[:5000]


def test_ls_info_find(fs, names):
    """ls lists files and pseudo-directories, info stats, find walks, mkdir does nothing."""
    base = names("dir")
    fs.mkdir(url(base))
    fs.makedirs(url(base + "/deeper"), exist_ok=True)
    fs.pipe({url(base + "/a"): b"a", url(base + "/sub/b"): b"bb", url(base + "/sub/c/d"): b""})
    try:
        want = [f"{pool_name()}/{base}/{p}" for p in ("a", "sub")]
        assert fs.ls(url(base), detail=False) == want
        info = {o["name"]: o for o in fs.ls(url(base + "/sub"))}
        assert info[f"{pool_name()}/{base}/sub/b"]["size"] == 2
        assert info[f"{pool_name()}/{base}/sub/c"]["type"] == "directory"
        assert sorted(fs.find(url(base))) == [f"{pool_name()}/{base}/{p}"
                                              for p in ("a", "sub/b", "sub/c/d")]
        i = fs.info(url(base + "/sub/b"))
        assert (i["type"], i["size"], i["stripe_unit"]) == ("file", 2, 4 << 20)
        assert fs.isdir(url(base + "/sub")) and fs.isfile(url(base + "/a"))
        assert not fs.exists(url(base + "/nope"))
        with pytest.raises(FileNotFoundError):
            fs.info(url(base + "/nope"))
        with pytest.raises(FileNotFoundError):
            fs.ls(url(base + "/nope"))
        assert fs.info(f"striped://{pool_name()}")["type"] == "directory"
        assert pool_name() in fs.ls("striped://", detail=False)
        assert fs.modified(url(base + "/a")).year >= 2024
    finally:
        fs.rm(url(base), recursive=True)
    assert not fs.exists(url(base + "/a")) and not fs.exists(url(base + "/sub/c/d"))


def test_open_modes_and_size(fs, names):
    """fs.open gives buffered files with size; wb, ab, r+b and text mode work."""
    name = names()
    with fs.open(url(name), "wb") as f:
        assert isinstance(f, io.BufferedWriter)
        for i in range(1000):
            f.write(b"%d," % i)
    with fs.open(url(name), "ab") as f:
        f.write(b"end")
    with fs.open(url(name), "rb") as f:
        want = b"".join(b"%d," % i for i in range(1000)) + b"end"
        assert f.size == len(want) and f.read() == want
        f.seek(-3, io.SEEK_END)
        assert f.read() == b"end"
    with fs.open(url(name), "r+b") as f:
        f.write(b"X")
    with fs.open(url(name), "rt", encoding="ascii") as t:
        assert t.read(4) == "X,1,"
    with fsspec.open(url(name), "rb") as f:  # through the registry, as pandas does
        assert f.read(2) == b"X,"


def test_put_get_cp(fs, names, rng, tmp_path):
    """put, get and cp move the bytes unchanged."""
    data = random_bytes(rng, 5 * 1024 * 1024 + 3)
    local = tmp_path / "in"
    local.write_bytes(data)
    a, b = names(), names()
    fs.put(str(local), url(a))
    fs.cp(url(a), url(b))
    fs.get(url(b), str(tmp_path / "out"))
    assert (tmp_path / "out").read_bytes() == data
    assert fs.cat(url(a)) == data
    fs.rm([url(a), url(b)])
    assert not fs.exists(url(a)) and not fs.exists(url(b))


def test_errors(fs, names):
    """A missing pool or file is FileNotFoundError, a file in place of a pool IsADirectoryError."""
    name = names()
    with pytest.raises(FileNotFoundError):
        fs.cat_file(url(name))
    with pytest.raises(FileNotFoundError):
        fs.cat_file(f"striped://no-such-pool-{name}/x")
    with pytest.raises(FileNotFoundError):
        fs.info(f"striped://no-such-pool-{name}")
    with pytest.raises(FileNotFoundError):
        fs.rm(url(name))
    with pytest.raises(IsADirectoryError):
        fs.open(f"striped://{pool_name()}", "rb")
    with pytest.raises(NotImplementedError):
        fs.open(url(name), "wb", autocommit=False)
    with pytest.raises(FileExistsError):
        fs.pipe_file(url(name), b"1")
        fs.open(url(name), "xb")
    assert fs.cat(url(name)) == b"1"


def test_storage_options(names):
    """Storage options are striped.connect's: conffile and name reach librados."""
    import os
    from striped.fsspec import StripedFileSystem
    fs = StripedFileSystem(conffile=os.environ["CEPH_CONF"], name="client.admin",
                           conf={"rados_osd_op_timeout": "60"})
    name = names()
    fs.pipe_file(url(name), b"ok")
    assert fs.cat_file(url(name)) == b"ok"
    with pytest.raises(OSError):
        StripedFileSystem(conffile="/nonexistent/ceph.conf", skip_instance_cache=True)
