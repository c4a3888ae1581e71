# SPDX-License-Identifier: LGPL-2.1-or-later
"""Striped files as an fsspec file system: striped://POOL/NAME.

Paths are POOL/NAME; a NAME holding "/" shows as a file in pseudo-directories
(as object stores do), the pools are the top level. Storage options are the
arguments of striped.connect. Files open as io.BufferedReader/Writer/Random
over StripedFile: large calls go straight to the C library, small ones are
buffered (block_size, default 4 MiB); the C handle under them is buffered
too (STRIPED_BUFFERED: write-behind, readahead) unless the file system is
made with buffered=False.
"""

import datetime
import io
from typing import Optional

from fsspec.spec import AbstractFileSystem

from ._cluster import connect
from ._file import StripedFile, parse_mode
from ._layout import Layout

_COPY_BLOCK = 64 << 20  # put/get/copy: one C call per 64 MiB


class _Sized:
    """What fsspec file objects carry beyond io's: fs, path, size."""

    fs: "StripedFileSystem"
    path: str

    @property
    def size(self) -> int:
        """The file's size (one round trip)."""
        return self.raw.stat().size


class StripedBufferedReader(_Sized, io.BufferedReader):
    """io.BufferedReader over a StripedFile, with fsspec's size and path."""


class StripedBufferedWriter(_Sized, io.BufferedWriter):
    """io.BufferedWriter over a StripedFile, with fsspec's size and path."""


class StripedBufferedRandom(_Sized, io.BufferedRandom):
    """io.BufferedRandom over a StripedFile, with fsspec's size and path."""


def _copy(src, dst, callback=None) -> int:
    """Copy raw file src to dst in 64 MiB calls, reusing one buffer; bytes copied."""
    buf = bytearray(_COPY_BLOCK)
    view = memoryview(buf)
    total = 0
    while True:
        n = src.readinto(buf)
        if not n:
            return total
        dst.write(view[:n])
        total += n
        if callback is not None:
            callback.relative_update(n)


class StripedFileSystem(AbstractFileSystem):
    """fsspec file system of libstriped's files: striped://POOL/NAME."""

    protocol = "striped"
    root_marker = ""
    blocksize = 4 << 20

    def __init__(self, conffile: Optional[str] = None, name: Optional[str] = None,
                 conf: Optional[dict] = None, buffered: bool = True, **kwargs):
        """Connect; the storage options are the arguments of striped.connect.

        :param conffile: ceph.conf to read; None: $CEPH_CONF, else librados' search path
        :param name: the client's entity name (default "client.admin")
        :param conf: more configuration options
        :param buffered: open() gives files the C library's write-behind and
            readahead (STRIPED_BUFFERED); False: one round trip per buffer refill
        """
        super().__init__(conffile=conffile, name=name, conf=conf, buffered=buffered, **kwargs)
        self.buffered = buffered
        self.cluster = connect(conffile, name, conf)
        self._pools = {}

    @classmethod
    def _strip_protocol(cls, path):
        """POOL/NAME from striped://POOL/NAME (or /POOL/NAME)."""
        if isinstance(path, list):
            return [cls._strip_protocol(p) for p in path]
        return super()._strip_protocol(path).lstrip("/")

    def _split(self, path: str) -> tuple:
        """(pool name, file name) of a path; the file name may be ""."""
        path = self._strip_protocol(path)
        pool, _, name = path.partition("/")
        return pool, name

    def _pool(self, pool: str):
        """The open Pool of that name (opened once)."""
        if not pool:
            raise IsADirectoryError("the root holds pools, not files")
        p = self._pools.get(pool)
        if p is None or p.closed:
            p = self._pools[pool] = self.cluster.pool(pool)
        return p

    @staticmethod
    def _file_info(pool: str, name: str, size: int, st=None) -> dict:
        """fsspec's details of a file (and what stat told, when it was asked)."""
        info = {"name": f"{pool}/{name}", "size": size, "type": "file"}
        if st is not None:
            info.update(mtime=st.mtime, stripe_unit=st.layout.stripe_unit,
                        stripe_count=st.layout.stripe_count,
                        object_size=st.layout.object_size)
        return info

    def ls(self, path: str, detail: bool = True, **kwargs):
        """The pools (path ""), or what a pool or pseudo-directory holds.

        :param path: "", POOL, POOL/DIR or POOL/NAME (a file lists itself)
        :param detail: dicts with name, size and type rather than names
        """
        pool, prefix = self._split(path)
        if not pool:
            out = [{"name": p, "size": 0, "type": "directory"}
                   for p in sorted(self.cluster.list_pools())]
        else:
            out = self._ls_pool(pool, prefix)
        return out if detail else [o["name"] for o in out]

    def _ls_pool(self, pool: str, prefix: str) -> list:
        """Files and pseudo-directories right below POOL/prefix (a file: itself).

        One level of the pool's listing (Pool.scan with the "/" delimiter):
        one directory read on a pool with a namespace index.
        """
        below = prefix + "/" if prefix else ""
        out, marked = [], False
        for name, size, is_dir in self._pool(pool).scan(below, "/"):
            if is_dir:
                out.append({"name": f"{pool}/{name[:-1]}", "size": 0, "type": "directory"})
            elif name == below:  # a directory's marker (the mount's mkdir): it is there
                marked = True
            else:
                out.append(self._file_info(pool, name, size))
        if prefix and not out and not marked:
            try:
                return [self._file_info(pool, prefix, self._pool(pool).stat(prefix).size)]
            except FileNotFoundError:
                raise FileNotFoundError(f"{pool}/{prefix}") from None
        return sorted(out, key=lambda o: o["name"])

    def info(self, path: str, **kwargs) -> dict:
        """Details of a file (size, mtime, layout), a pool or a pseudo-directory.

        :param path: POOL/NAME, POOL or ""
        """
        pool, name = self._split(path)
        if not pool or not name:
            if pool:
                self._pool(pool)  # FileNotFoundError when there is no such pool
            return {"name": pool, "size": 0, "type": "directory"}
        try:
            st = self._pool(pool).stat(name)
            return self._file_info(pool, name, st.size, st)
        except FileNotFoundError:
            below = name + "/"
            if any(True for _ in self._pool(pool).scan(below, "/")):
                return {"name": f"{pool}/{name}", "size": 0, "type": "directory"}
            raise FileNotFoundError(f"{pool}/{name}") from None

    def modified(self, path: str) -> datetime.datetime:
        """The head object's modification time (UTC).

        :param path: POOL/NAME
        """
        info = self.info(path)
        if info["type"] != "file":
            raise IsADirectoryError(path)
        return datetime.datetime.fromtimestamp(info["mtime"], datetime.timezone.utc)

    def _open_raw(self, path: str, mode: str, layout: Optional[Layout] = None,
                  buffered: bool = False) -> StripedFile:
        """The StripedFile of a path (buffered: STRIPED_BUFFERED)."""
        pool, name = self._split(path)
        if not name:
            raise IsADirectoryError(path)
        return self._pool(pool).open(name, mode, layout, buffered)

    def _open(self, path: str, mode: str = "rb", block_size: Optional[int] = None,
              autocommit: bool = True, cache_options=None, layout: Optional[Layout] = None,
              **kwargs):
        """A buffered file object over the striped file.

        Python's buffer gathers small calls into block_size ones; under it the
        handle is buffered in C too (unless the file system was made with
        buffered=False): writes go behind, sequential reads are read ahead.

        :param path: POOL/NAME
        :param mode: rb, wb, ab, xb, r+b (and w+b, a+b, x+b)
        :param block_size: buffer size (default 4 MiB); larger calls are not buffered
        :param autocommit: must be True: there are no transactions
        :param layout: the layout of a file this call creates
        """
        if not autocommit:
            raise NotImplementedError("striped: transactions are not supported")
        _, readable, writable, _, _ = parse_mode(mode)
        raw = self._open_raw(path, mode, layout, self.buffered)
        size = block_size or self.blocksize
        if readable and writable:
            f = StripedBufferedRandom(raw, size)
        elif writable:
            f = StripedBufferedWriter(raw, size)
        else:
            f = StripedBufferedReader(raw, size)
        f.fs, f.path = self, self._strip_protocol(path)
        return f

    def cat_file(self, path: str, start: Optional[int] = None, end: Optional[int] = None,
                 **kwargs) -> bytes:
        """Bytes [start, end) of a file in one read (negative: from the end).

        :param path: POOL/NAME
        :param start: first byte (None: 0)
        :param end: the byte after the last (None: the end of the file)
        """
        if not start and end is None:  # the whole file: a small one in one read of its head
            pool, name = self._split(path)
            if not name:
                raise IsADirectoryError(path)
            return self._pool(pool).read_bytes(name)
        with self._open_raw(path, "rb") as f:
            start = 0 if start is None else start
            if end is None or start < 0 or end < 0:
                size = f.stat().size
                start = max(0, size + start) if start < 0 else start
                end = size if end is None else (size + end if end < 0 else end)
            if end <= start:
                return b""
            buf = bytearray(end - start)
            f.seek(start)
            n = f.readinto(buf)
            del buf[n:]
            return bytes(buf)

    def pipe_file(self, path: str, value, layout: Optional[Layout] = None, **kwargs) -> None:
        """Make a file hold value (created or truncated), in one write; a new small file in
        one operation (Pool.write_bytes).

        :param path: POOL/NAME
        :param value: any bytes-like object
        :param layout: the layout if the file is created
        """
        pool, name = self._split(path)
        if not name:
            raise IsADirectoryError(path)
        self._pool(pool).write_bytes(name, value, layout)

    def put_file(self, lpath: str, rpath: str, callback=None, layout: Optional[Layout] = None,
                 **kwargs) -> None:
        """Copy a local file into a striped file, 64 MiB a call.

        :param lpath: the local file (a directory is skipped: there are none to make)
        :param rpath: POOL/NAME
        :param layout: the layout if the file is created
        """
        import os
        if os.path.isdir(lpath):
            return
        with open(lpath, "rb", buffering=0) as src, self._open_raw(rpath, "wb", layout) as dst:
            if callback is not None:
                callback.set_size(os.fstat(src.fileno()).st_size)
            _copy(src, dst, callback)

    def get_file(self, rpath: str, lpath, callback=None, outfile=None, **kwargs) -> None:
        """Copy a striped file into a local file (or an open file object), 64 MiB a call.

        :param rpath: POOL/NAME
        :param lpath: the local path, or a writable file object
        """
        if self.isdir(rpath):
            if isinstance(lpath, str):
                import os
                os.makedirs(lpath, exist_ok=True)
            return
        with self._open_raw(rpath, "rb") as src:
            if callback is not None:
                callback.set_size(src.stat().size)
            if hasattr(lpath, "write"):
                _copy(src, lpath, callback)
                return
            with open(lpath, "wb", buffering=0) as dst:
                _copy(src, dst, callback)

    def cp_file(self, path1: str, path2: str, **kwargs) -> None:
        """Copy a striped file to another (created or truncated), 64 MiB a call.

        :param path1: POOL/NAME to read
        :param path2: POOL/NAME to write
        """
        with self._open_raw(path1, "rb") as src, self._open_raw(path2, "wb") as dst:
            _copy(src, dst)

    def rm_file(self, path: str) -> None:
        """Remove a striped file (striped_remove).

        :param path: POOL/NAME
        """
        pool, name = self._split(path)
        if not name:
            raise IsADirectoryError(path)
        self._pool(pool).remove(name)

    _rm = rm_file

    def rm(self, path, recursive: bool = False, maxdepth: Optional[int] = None) -> None:
        """Remove files; pseudo-directories and pools are left (they hold nothing).

        :param path: a path, a glob or a list of them
        :param recursive: remove what a pseudo-directory holds
        :param maxdepth: how deep recursive goes
        """
        paths = self.expand_path(path, recursive=recursive, maxdepth=maxdepth)
        for p in reversed(paths):
            pool, name = self._split(p)
            if not name:
                continue
            try:
                self._pool(pool).remove(name)
            except FileNotFoundError:
                # a pseudo-directory (what it held is listed, and gone by now)
                if not any(q.startswith(p + "/") for q in paths):
                    raise

    def mkdir(self, path: str, create_parents: bool = True, **kwargs) -> None:
        """Nothing to do: pseudo-directories exist while they hold files."""

    def makedirs(self, path: str, exist_ok: bool = False) -> None:
        """Nothing to do: pseudo-directories exist while they hold files."""

    def rmdir(self, path: str) -> None:
        """Nothing to do: pseudo-directories go with their last file."""
