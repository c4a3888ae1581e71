# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fixtures: the sandbox cluster (scripts/cluster), a pool, and file names
that are removed after each test; the session fails if any object is left."""

import gc
import os
import random
import subprocess

import pytest

PREFIX = f"pytest-{os.getpid()}-"


def pytest_configure(config):
    """Register the cluster marker (tests that need scripts/cluster)."""
    config.addinivalue_line("markers", "cluster: needs a cluster (CEPH_CONF, STRIPED_TEST_POOL)")


def pool_name():
    """The test pool ($STRIPED_TEST_POOL, default "striped")."""
    return os.environ.get("STRIPED_TEST_POOL", "striped")


def rados_objects():
    """(namespace, object) of every object in the test pool this session's tests named."""
    out = subprocess.run(["rados", "-p", pool_name(), "ls", "--all"], check=True,
                         stdout=subprocess.PIPE, text=True, timeout=120).stdout
    # "NAMESPACE<tab>OBJECT", the namespace empty for the default one
    return [line.split("\t") for line in out.splitlines() if PREFIX in line]


def pytest_sessionfinish(session, exitstatus):
    """Fail the session when a test left an object behind (and remove it)."""
    if not os.environ.get("CEPH_CONF") or session.config.option.markexpr != "cluster":
        return
    left = rados_objects()
    if left:
        print(f"\nobjects left behind: {left}")
        for ns, o in left:
            subprocess.run(["rados", "-p", pool_name(), "-N", ns, "rm", o], timeout=120)
        session.exitstatus = 1


@pytest.fixture(scope="session")
def cluster():
    """A connected striped.Cluster of $CEPH_CONF (skip without one)."""
    if not os.environ.get("CEPH_CONF"):
        pytest.skip("no cluster (CEPH_CONF unset)")
    import striped
    with striped.connect() as c:
        yield c


@pytest.fixture(scope="session")
def pool(cluster):
    """The test pool, opened once."""
    with cluster.pool(pool_name()) as p:
        yield p


@pytest.fixture
def names(pool):
    """A factory of fresh file names; every file made under them is removed after the test."""
    made = []

    def make(tag="f"):
        name = f"{PREFIX}{tag}-{len(made)}-{random.getrandbits(24):06x}"
        made.append(name)
        return name

    yield make
    gc.collect()  # a failed test's open files hold remove off (EBUSY) until closed
    for name in made:
        try:
            pool.remove(name)
        except FileNotFoundError:
            pass


@pytest.fixture
def rng(request):
    """A random.Random seeded per test (the seed is printed to replay a failure)."""
    seed = int(os.environ.get("STRIPED_TEST_SEED", random.getrandbits(32)))
    print(f"seed {seed} (STRIPED_TEST_SEED={seed} replays it)")
    return random.Random(seed)


def striped_dd():
    """striped-dd of the build ($STRIPED_DD), or a skip."""
    path = os.environ.get("STRIPED_DD")
    if not path:
        pytest.skip("STRIPED_DD unset (built without tools)")
    return path


def dd(*operands):
    """Run striped-dd with operands (conf from $CEPH_CONF); raise on failure."""
    subprocess.run([striped_dd(), f"conf={os.environ['CEPH_CONF']}", "status=none", *operands],
                   check=True, timeout=600)


def random_bytes(rng, n):
    """n random bytes from rng."""
    return rng.getrandbits(8 * n).to_bytes(n, "little") if n else b""
