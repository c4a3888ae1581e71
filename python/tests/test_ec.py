# SPDX-License-Identifier: LGPL-2.1-or-later
"""Python file objects on the erasure-coded pools of scripts/cluster: without
overwrites ($STRIPED_TEST_EC_POOL) files written front to back in multiples of
the stripe width are taken and read back, anything else raises OSError
(EOPNOTSUPP) and changes nothing; with overwrites ($STRIPED_TEST_ECOW_POOL)
files behave as on a replicated pool. Read back through striped-dd too."""

import errno
import io
import os

import pytest

import striped
from conftest import PREFIX, dd, random_bytes

pytestmark = pytest.mark.cluster
KiB = 1 << 10
MiB = 1 << 20


def ec_pool(cluster, env):
    """The pool $env names, opened (skip when the cluster has none)."""
    name = os.environ.get(env)
    if not name:
        if os.environ.get("STRIPED_TEST_REQUIRE_CLUSTER") == "1":
            pytest.fail(f"{env} unset (STRIPED_TEST_REQUIRE_CLUSTER=1)")
        pytest.skip(f"{env} unset: the cluster has no erasure-coded pools")
    return name, cluster.pool(name)


@pytest.fixture
def ec(cluster):
    """(name, Pool) of the pool without overwrites; files made in it are removed."""
    name, pool = ec_pool(cluster, "STRIPED_TEST_EC_POOL")
    yield name, pool
    for n, _ in list(pool.scandir()):
        if n.startswith(PREFIX):
            pool.remove(n)
    pool.close()


@pytest.fixture
def ecow(cluster):
    """(name, Pool) of the pool with overwrites; files made in it are removed."""
    name, pool = ec_pool(cluster, "STRIPED_TEST_ECOW_POOL")
    yield name, pool
    for n, _ in list(pool.scandir()):
        if n.startswith(PREFIX):
            pool.remove(n)
    pool.close()


@pytest.mark.parametrize("buffered", [False, True])
def test_front_to_back_taken(ec, rng, buffered, tmp_path):
    """A file written front to back reads back whole: unbuffered in pieces of 40 KiB (five
    stripes), buffered (the C library's window) in pieces of any size through Python's own
    io.BufferedWriter, whose flushes are not multiples of the stripe width."""
    pool_name, pool = ec
    data = random_bytes(rng, 3 * MiB + 12345)
    name = f"{PREFIX}front-{buffered}"
    layout = striped.Layout(64 * KiB, 3, 192 * KiB)
    with pool.open(name, "wb", layout=layout, buffered=buffered) as raw:
        if buffered:
            with io.BufferedWriter(raw, buffer_size=64 * KiB) as f:
                for at in range(0, len(data), 10000):
                    f.write(data[at:at + 10000])
        else:
            for at in range(0, len(data), 40 * KiB):
                raw.write(data[at:at + 40 * KiB])
    with pool.open(name, "rb") as f:
        assert f.read() == data
    out = tmp_path / "out"
    dd(f"if=rados://{pool_name}/{name}", f"of={out}", "bs=1M")
    assert out.read_bytes() == data


def test_refused_changes_nothing(ec, rng):
    """An overwrite and an unaligned write raise EOPNOTSUPP; size and bytes stay."""
    _, pool = ec
    data = random_bytes(rng, 256 * KiB)
    name = f"{PREFIX}refused"
    with pool.open(name, "w+b", layout=striped.Layout(64 * KiB, 2, 128 * KiB)) as f:
        f.write(data)
        for off, n in [(0, 8 * KiB), (100, 8 * KiB), (300 * KiB, 8 * KiB)]:
            f.seek(off)
            with pytest.raises(OSError) as e:
                f.write(b"x" * n)
            assert e.value.errno == errno.EOPNOTSUPP
        assert f.stat().size == len(data)
        with pytest.raises(OSError) as e:
            f.truncate(100 * KiB)
        assert e.value.errno == errno.EOPNOTSUPP
        f.seek(0)
        assert f.read() == data
        f.truncate(0)
        f.seek(0)
        f.write(data[:100])
        f.seek(0)
        assert f.read() == data[:100]


def test_append_mode(ec, rng):
    """Mode "ab" appends in multiples of the stripe width; a short append ends appends."""
    _, pool = ec
    name = f"{PREFIX}append"
    pieces = [random_bytes(rng, 64 * KiB) for _ in range(4)]
    for p in pieces:
        with pool.open(name, "ab") as f:
            f.write(p)
    with pool.open(name, "ab") as f:
        f.write(b"tail")
        with pytest.raises(OSError) as e:
            f.write(b"more")
        assert e.value.errno == errno.EOPNOTSUPP
    with pool.open(name, "rb") as f:
        assert f.read() == b"".join(pieces) + b"tail"


def test_overwrites_pool_random_writes(ecow, rng):
    """With overwrites: random writes and truncates, checked against bytes in memory."""
    _, pool = ecow
    name = f"{PREFIX}random"
    model = bytearray()
    with pool.open(name, "w+b", layout=striped.Layout(64 * KiB, 3, 256 * KiB),
                   buffered=rng.random() < 0.5) as f:
        for _ in range(60):
            off = rng.randrange(0, 2 * MiB)
            if rng.random() < 0.15:
                f.truncate(off)
                del model[off:]
                model.extend(b"\0" * (off - len(model)))
                continue
            data = random_bytes(rng, rng.randrange(1, 200 * KiB))
            f.seek(off)
            f.write(data)
            if off > len(model):
                model.extend(b"\0" * (off - len(model)))
            model[off:off + len(data)] = data
        f.flush()
        f.seek(0)
        assert f.read() == bytes(model)


def test_small_file_read_by_head(ec, ecow, rng):
    """read_bytes and stat read a small file's head on both kinds of EC pool (one read:
    its bytes, its size and its lock, as on a replicated pool)."""
    data = random_bytes(rng, 5000)
    for _, pool in (ec, ecow):
        name = PREFIX + "head-" + os.urandom(4).hex()
        with pool.open(name, "wb") as f:
            f.write(data)
        assert pool.read_bytes(name) == data and pool.stat(name).size == 5000
        made = name + "-put"  # made whole in one operation: the pool's default layout
        pool.write_bytes(made, data)
        assert pool.read_bytes(made) == data and pool.stat(made).size == 5000
        pool.remove(made)
