# SPDX-License-Identifier: LGPL-2.1-or-later
"""Striped files on Ceph RADOS (libstriped) as Python file objects and an fsspec file system.

    with striped.connect() as cluster, cluster.pool("data") as pool:
        with pool.open("big.dat", "wb", striped.Layout(1 << 20, 8, 4 << 20)) as f:
            f.write(data)

Errors are OSError subclasses carrying the errno (FileNotFoundError,
FileExistsError, PermissionError, ...). fsspec finds the file system under
the protocol "striped" (striped://POOL/NAME) by the package's entry point,
see striped.fsspec.
"""

from importlib import metadata as _metadata

from ._cluster import Cluster, Pool, connect
from ._file import StripedFile, Xattrs
from ._layout import Layout, Stat
from ._lib import LIBRARY_VERSION

__all__ = ["Cluster", "Layout", "LIBRARY_VERSION", "Pool", "Stat", "StripedFile", "Xattrs",
           "connect"]


def _version() -> str:
    """The installed package's version (pip's or meson's dist-info, from meson.build)."""
    try:
        return _metadata.version("striped")
    except _metadata.PackageNotFoundError:  # a source tree on sys.path, no dist-info
        return LIBRARY_VERSION  # the library built beside it: the same project version


# fsspec finds "striped://" through the package's entry point (fsspec.specs):
# importing striped imports nothing of fsspec.
__version__ = _version()
