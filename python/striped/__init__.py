# SPDX-License-Identifier: LGPL-2.1-or-later
"""Striped files on Ceph RADOS (libstriped) as Python file objects and an fsspec file system.

    with striped.connect() as cluster, cluster.pool("data") as pool:
        with pool.open("big.dat", "wb", striped.Layout(1 << 20, 8, 4 << 20)) as f:
            f.write(data)

Errors are OSError subclasses carrying the errno (FileNotFoundError,
FileExistsError, PermissionError, ...). fsspec finds the file system under
the protocol "striped" (striped://POOL/NAME), see striped.fsspec.
"""

from ._cluster import Cluster, Pool, connect
from ._file import StripedFile, Xattrs
from ._layout import Layout, Stat
from ._lib import LIBRARY_VERSION

__version__ = "0.6.0"
__all__ = ["Cluster", "Layout", "LIBRARY_VERSION", "Pool", "Stat", "StripedFile", "Xattrs",
           "connect"]


def _register_fsspec():
    """Make "striped://" known to fsspec (the class is imported when first used)."""
    try:
        from fsspec.registry import register_implementation
    except ImportError:
        return
    register_implementation("striped", "striped.fsspec.StripedFileSystem", clobber=True)


_register_fsspec()
