# SPDX-License-Identifier: LGPL-2.1-or-later
"""HDF5 through h5py and netCDF through xarray/h5netcdf, on striped file objects."""

import numpy as np
import pytest

import striped
from conftest import dd, pool_name

pytestmark = pytest.mark.cluster
h5py = pytest.importorskip("h5py")


def test_h5py_write_and_read(pool, names, tmp_path):
    """h5py writes HDF5 through the file object and reads it back; libhdf5 reads the bytes too."""
    name = names()
    rs = np.random.default_rng(5)
    a = rs.standard_normal((300, 700))
    b = rs.integers(0, 1000, 123457, dtype=np.int32)
    with pool.open(name, "w+b", striped.Layout(1 << 20, 4, 4 << 20)) as f:
        with h5py.File(f, "w") as h:
            h.create_dataset("a", data=a, chunks=(50, 100), compression="gzip")
            h.create_dataset("g/b", data=b)
            h.attrs["title"] = "striped"
    with pool.open(name, "rb") as f:
        with h5py.File(f, "r") as h:
            assert np.array_equal(h["a"][:], a) and np.array_equal(h["g/b"][:], b)
            assert np.array_equal(h["a"][10:20, 650:], a[10:20, 650:])  # a partial read
            assert h.attrs["title"] == "striped"
    # the same bytes as a local file, through libhdf5's own I/O
    local = tmp_path / "copy.h5"
    dd(f"if=rados://{pool_name()}/{name}", f"of={local}", "bs=4M")
    with h5py.File(local, "r") as h:
        assert np.array_equal(h["g/b"][:], b)


def test_h5py_read_only_mode_refuses_writes(pool, names):
    """h5py cannot write through a file opened rb: the HDF5 file is unchanged."""
    name = names()
    with pool.open(name, "w+b") as f, h5py.File(f, "w") as h:
        h["x"] = np.arange(10)
    size = pool.stat(name).size
    with pool.open(name, "rb") as f, h5py.File(f, "r") as h:
        with pytest.raises(Exception):
            h["y"] = np.arange(5)
    assert pool.stat(name).size == size
    with pool.open(name, "rb") as f, h5py.File(f, "r") as h:
        assert list(h) == ["x"]


def test_xarray_h5netcdf(pool, names):
    """xarray opens a netCDF-4 file (written by h5netcdf) through fsspec's striped://."""
    xr = pytest.importorskip("xarray")
    h5netcdf = pytest.importorskip("h5netcdf")
    import fsspec
    name = names()
    temp = np.arange(24.0).reshape(4, 6)
    with pool.open(name, "w+b") as f, h5netcdf.File(f, "w") as nc:
        nc.dimensions = {"y": 4, "x": 6}
        v = nc.create_variable("temp", ("y", "x"), float)
        v[...] = temp
        v.attrs["units"] = "K"
    with fsspec.open(f"striped://{pool_name()}/{name}", "rb") as f:
        with xr.open_dataset(f, engine="h5netcdf") as ds:
            assert ds["temp"].attrs["units"] == "K"
            assert np.array_equal(ds["temp"].values, temp)
