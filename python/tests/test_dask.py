# SPDX-License-Identifier: LGPL-2.1-or-later
"""dask over striped://: a distributed.LocalCluster of 4 worker processes
writes a dataframe of 1 GiB as CSV partitions and reads it back in ranged
blocks, every value checked, and writes an array to a zarr store and reads it
back. Each worker process connects on its own (fsspec rebuilds the file
system from its storage options there).

STRIPED_TEST_DASK_BYTES sets the dataframe's size in memory (default 1 GiB:
2^25 rows of four 8-byte columns; about 1.13 GiB as CSV).
"""

import logging
import os
import sys
import time

import numpy as np
import pytest

from conftest import pool_name

pytestmark = pytest.mark.cluster
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

WORKERS = 4
DATAFRAME_BYTES = int(os.environ.get("STRIPED_TEST_DASK_BYTES", 1 << 30))
PARTITIONS = 32
CATS = np.array(["alpha", "beta", "gamma", "delta"], dtype=object)


def make_part(k: int, rows: int):
    """Partition k: rows k*rows .. (k+1)*rows - 1, every value a function of its row number i."""
    i = np.arange(k * rows, (k + 1) * rows, dtype=np.int64)
    return pd.DataFrame({"i": i, "a": i * 2654435761 % (1 << 32), "x": i / 8,
                         "cat": CATS[i % 4]})


def check_part(df):
    """Every value of a block read back against its row number; the block's span of rows.

    A block holds consecutive rows (one file, cut at line ends): its i go up by one.
    """
    i = df["i"].to_numpy()
    assert (np.diff(i) == 1).all(), "rows out of order or missing within a block"
    assert (df["a"].to_numpy() == i * 2654435761 % (1 << 32)).all()
    assert (df["x"].to_numpy() == i / 8).all()
    assert (df["cat"].to_numpy() == CATS[i % 4]).all()
    first = int(i[0]) if len(i) else -1
    return pd.DataFrame({"first": [first], "rows": [len(i)]})


@pytest.fixture(scope="module")
def client():
    """A dask client of a LocalCluster: 4 worker processes of one thread each."""
    # The workers are spawned processes that cannot import this test module:
    # its functions travel by value.
    import cloudpickle
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster:
        with distributed.Client(cluster) as c:
            yield c


@pytest.fixture
def base(names):
    """A pseudo-directory of the test pool for one test, removed with all it holds."""
    import fsspec
    name = names("dask")
    yield f"striped://{pool_name()}/{name}"
    fs = fsspec.filesystem("striped")
    if fs.exists(f"{pool_name()}/{name}"):
        fs.rm(f"{pool_name()}/{name}", recursive=True)


def test_dataframe_csv(client, base):
    """A 1 GiB dataframe as CSV partitions through striped://, read back in blocks of a
    quarter file (ranged reads), every value checked, every row there once."""
    import fsspec
    meta = make_part(0, 0)
    row_bytes = int(make_part(0, 1).memory_usage(index=False).sum())  # 4 columns of 8 bytes
    rows = -(-DATAFRAME_BYTES // (PARTITIONS * row_bytes))
    total = rows * PARTITIONS
    df = dd.from_map(make_part, range(PARTITIONS), rows=rows, meta=meta)
    t0 = time.monotonic()
    paths = df.to_csv(f"{base}/part-*.csv", index=False, name_function=lambda k: f"{k:03d}")
    t_write = time.monotonic() - t0
    fs = fsspec.filesystem("striped")
    sizes = [fs.size(p) for p in paths]
    assert len(sizes) == PARTITIONS and min(sizes) > 0

    t0 = time.monotonic()
    back = dd.read_csv(f"{base}/part-*.csv", blocksize=max(sum(sizes) // PARTITIONS // 4, 1 << 18),
                       dtype={"i": "int64", "a": "int64", "x": "float64", "cat": "object"})
    assert back.npartitions > PARTITIONS  # files were cut into ranged blocks
    spans = back.map_partitions(check_part, meta=check_part(meta)).compute()
    t_read = time.monotonic() - t0
    spans = spans[spans["rows"] > 0].sort_values("first")
    ends = spans["first"].to_numpy() + spans["rows"].to_numpy()
    # the blocks tile rows 0 .. total - 1 exactly: none missing, none twice
    assert spans["first"].iloc[0] == 0 and ends[-1] == total
    assert (spans["first"].to_numpy()[1:] == ends[:-1]).all()
    print(f"dask csv: {total} rows, {total * row_bytes / 2**30:.2f} GiB in memory, "
          f"{sum(sizes) / 2**30:.2f} GiB of CSV; write "
          f"{t_write:.1f} s, read and check {t_read:.1f} s ({back.npartitions} blocks)")


def test_array_zarr(client, base):
    """A dask array to a zarr store in striped:// and back, equal; zarr reads its metadata."""
    da = pytest.importorskip("dask.array")
    zarr = pytest.importorskip("zarr")
    x = da.random.RandomState(7).standard_normal((4096, 3000), chunks=(1024, 1000))
    url = f"{base}/a.zarr"
    t0 = time.monotonic()
    x.to_zarr(url)
    y = da.from_zarr(url)
    assert y.chunks == x.chunks and y.dtype == x.dtype
    assert bool((y == x).all().compute())
    z = zarr.open(zarr.storage.FSStore(url), mode="r")
    assert z.shape == (4096, 3000) and z.chunks == (1024, 1000)
    assert np.array_equal(z[1000:1100, 2990:], x[1000:1100, 2990:].compute())
    print(f"dask zarr: {x.nbytes / 2**20:.0f} MiB in {x.npartitions} chunks, "
          f"{time.monotonic() - t0:.1f} s")
