# SPDX-License-Identifier: LGPL-2.1-or-later
"""A connection to a Ceph cluster and its pools, through librados' C API."""

import errno
import threading
import weakref
from collections.abc import Iterator, Mapping
from typing import Optional

from ._file import StripedFile
from ._layout import Layout, Stat
from ._lib import check, decode, encode, error, ffi, lib, rados


# What read_bytes() asks of the head first: a small file whole, else the first MiB.
_HEAD_READ = 1 << 20


class _Closing:
    """A C handle (_ptr, None once closed), closed on leaving a with block or when dropped."""

    _ptr = None
    _kind = "handle"

    def _handle(self):
        """The C handle, or ValueError once closed."""
        if self._ptr is None:
            raise ValueError(f"{self._kind} is closed")
        return self._ptr

    @property
    def closed(self) -> bool:
        """Whether close() was called (or the constructor failed)."""
        return self._ptr is None

    def close(self) -> None:
        """Release what the object holds (subclasses)."""
        raise NotImplementedError

    def __enter__(self):
        """The object itself."""
        return self

    def __exit__(self, *exc) -> None:
        """close()."""
        self.close()

    def __del__(self):
        """close(), unless the constructor failed or it was closed."""
        if not self.closed:
            self.close()


class Cluster(_Closing):
    """A connected librados client (rados_t); a context manager that shuts it down."""

    _kind = "cluster connection"

    def __init__(self, conffile: Optional[str] = None, name: Optional[str] = None,
                 conf: Optional[Mapping[str, str]] = None):
        """Connect; the arguments are those of rados.Rados.

        :param conffile: ceph.conf to read; None: $CEPH_CONF, else librados' search path
        :param name: the client's entity name (default "client.admin")
        :param conf: more configuration options, set after the file is read
        """
        self._pools = weakref.WeakSet()
        self._lock = threading.Lock()
        out = ffi.new("rados_t *")
        check(rados.rados_create2(out, b"ceph", encode(name or "client.admin"), 0))
        h = out[0]
        try:
            path = encode(conffile) if conffile else ffi.NULL
            r = rados.rados_conf_read_file(h, path)
            # no file at all is fine when conf names the monitors
            if r < 0 and (conffile or r not in (-errno.ENOENT, -errno.EINVAL)):
                raise error(r, conffile)
            check(rados.rados_conf_parse_env(h, ffi.NULL))  # CEPH_ARGS
            for key, value in (conf or {}).items():
                r = rados.rados_conf_set(h, encode(key), encode(str(value)))
                if r < 0:
                    raise error(r, key)
            # From a thread of its own: a process forked after its parent
            # used librados (multiprocessing's fork start method) gets an
            # address of its own (see striped_cluster_connect in striped.h).
            check(lib.striped_cluster_connect(h))
        except BaseException:
            rados.rados_shutdown(h)
            raise
        self._ptr = h

    def pool(self, name: str, namespace: Optional[str] = None) -> "Pool":
        """Open a pool (rados_ioctx_create); FileNotFoundError when there is none.

        :param name: the pool's name
        :param namespace: the RADOS namespace the files live in (None: the default)
        """
        p = Pool(self, name, namespace)
        self._pools.add(p)
        return p

    def list_pools(self) -> list:
        """The names of the cluster's pools."""
        size = 4096
        while True:
            buf = ffi.new("char[]", size)
            r = check(rados.rados_pool_list(self._handle(), buf, size))
            if r <= size:
                break
            size = r
        raw = ffi.buffer(buf, r)[:]
        return [n.decode("utf-8", "surrogateescape") for n in raw.split(b"\0") if n]

    def close(self) -> None:
        """Close every pool (and its files) opened here, then shut the client down."""
        with self._lock:
            h, self._ptr = self._ptr, None
        if h is None:
            return
        for p in list(self._pools):
            p.close()
        rados.rados_shutdown(h)


def connect(conffile: Optional[str] = None, name: Optional[str] = None,
            conf: Optional[Mapping[str, str]] = None) -> Cluster:
    """Connect to a Ceph cluster (the arguments of rados.Rados).

    :param conffile: ceph.conf to read; None: $CEPH_CONF, else librados' search path
    :param name: the client's entity name (default "client.admin")
    :param conf: more configuration options, e.g. {"rados_osd_op_timeout": "30"}
    :return: the connected Cluster (a context manager)
    """
    return Cluster(conffile, name, conf)


class Pool(_Closing):
    """One pool (and namespace) of a cluster: a librados I/O context."""

    _kind = "pool"

    def __init__(self, cluster: Cluster, name: str, namespace: Optional[str] = None):
        """Open the I/O context; use Cluster.pool rather than this.

        :param cluster: the connected cluster (kept alive while the pool is)
        :param name: the pool's name
        :param namespace: the RADOS namespace (None: the default one)
        """
        self._files = weakref.WeakSet()
        self._cluster = cluster
        self.name = name
        self.namespace = namespace
        out = ffi.new("rados_ioctx_t *")
        check(rados.rados_ioctx_create(cluster._handle(), encode(name), out), name)
        self._ptr = out[0]
        if namespace is not None:
            rados.rados_ioctx_set_namespace(self._ptr, encode(namespace))

    def open(self, name: str, mode: str = "rb", layout: Optional[Layout] = None,
             buffered: bool = False, window: Optional[int] = None) -> StripedFile:
        """Open a striped file as a raw binary file object (io.RawIOBase).

        :param name: the file's name (its objects are NAME.%016x)
        :param mode: rb, wb (create or truncate), r+b, ab (append), xb (create, never
            an existing file), and w+b, a+b, x+b
        :param layout: the layout of a file this call creates (None: 4 MiB, 1, 4 MiB);
            an existing file keeps its own
        :param buffered: write-behind and readahead in the C library (STRIPED_BUFFERED):
            small calls at large-call speed; flush() and close() wait for the data
        :param window: with buffered, the window in bytes (None: 64 MiB)
        :return: the open file (wrap it in io.BufferedReader/Writer for small calls)
        """
        return StripedFile(self, name, mode, layout, buffered, window)

    def stat(self, name: str) -> Stat:
        """Size, layout and mtime of a file, read from its head in one round trip without
        opening it (striped_head_read: no lock taken, none waited for).

        :param name: the file's name
        """
        h = ffi.new("struct striped_head *")
        check(lib.striped_head_read(self._handle(), encode(name), h, ffi.sizeof(h[0])), name)
        return Stat(h.size, Layout._from_c(h.layout), h.mtime.tv_sec + h.mtime.tv_nsec / 1e9)

    def read_bytes(self, name: str) -> bytes:
        """The whole file. One round trip and no lock when it lies within its first stripe
        unit, as small files do (striped_head_pread: the bytes and the size read at one
        instant); a larger file, or one a truncate or remove holds, is read through an open.

        :param name: the file's name
        """
        h = ffi.new("struct striped_head *")
        buf = ffi.new("char[]", _HEAD_READ)
        n = lib.striped_head_pread(self._handle(), encode(name), h, ffi.sizeof(h[0]), buf,
                                   _HEAD_READ, 0)
        if n != -errno.EBUSY:
            check(n, name)
            if n == h.size:
                return ffi.buffer(buf, n)[:]
        with self.open(name, "rb") as f:
            return f.readall()

    def write_bytes(self, name: str, data: bytes, layout: Optional[Layout] = None) -> None:
        """Write a whole file, made anew or replaced, as Path.write_bytes. A new file of data
        within its first stripe unit is made in one round trip, with no lock
        (striped_head_create: its bytes and size in the operation that creates it); a file
        that is there, or a larger one, is written through an open ("wb").

        :param name: the file's name
        :param data: its bytes
        :param layout: a new file's layout (None: the default)
        """
        view = memoryview(data).cast("B")
        c_layout = layout._to_c() if layout is not None else ffi.NULL
        unit = layout.stripe_unit if layout is not None else Layout().stripe_unit
        if len(view) <= unit:
            r = lib.striped_head_create(self._handle(), encode(name), c_layout,
                                        ffi.from_buffer(view), len(view), ffi.NULL, 0)
            if r != -errno.EEXIST and r != -errno.EFBIG:
                check(r, name)
                return
        with self.open(name, "wb", layout=layout) as f:
            f.write(view)

    def exists(self, name: str) -> bool:
        """Whether the pool holds a striped file of this name.

        :param name: the file's name
        """
        try:
            self.stat(name)
        except FileNotFoundError:
            return False
        return True

    def remove(self, name: str) -> None:
        """Remove a striped file, every object of it (striped_remove).

        :param name: the file's name; FileNotFoundError when there is none
        """
        check(lib.striped_remove(self._handle(), encode(name)), name)

    def scandir(self) -> Iterator[tuple]:
        """(name, size) of each striped file, sorted (striped_list_open2)."""
        for name, size, _ in self.scan():
            yield name, size

    def scan(self, prefix: str = "", delimiter: Optional[str] = None,
             start_after: Optional[str] = None) -> Iterator[tuple]:
        """(name, size, is_prefix) of the files whose names start with prefix.

        From the pool's namespace index when it has one (striped index
        create: the directories read), else from a walk of every object.
        With delimiter "/", one level: a deeper name comes once as its
        directory ("dir/", size 0, is_prefix True), as S3 lists.

        :param start_after: the names after it (a continuation)
        """
        keep = [ffi.new("char[]", encode(s)) if s is not None else ffi.NULL
                for s in (prefix, delimiter, start_after)]
        q = ffi.new("struct striped_list_query *", {
            "prefix": keep[0], "delimiter": keep[1], "start_after": keep[2]})
        it = ffi.new("struct striped_list **")
        check(lib.striped_list_open2(self._handle(), q, ffi.sizeof(q[0]), it), self.name)
        e = ffi.new("struct striped_list_entry *")
        try:
            while True:
                check(lib.striped_list_next2(it[0], e, ffi.sizeof(e[0])), self.name)
                if e.name == ffi.NULL:
                    return
                yield decode(e.name), e.size, bool(e.is_prefix)
        finally:
            lib.striped_list_close(it[0])

    def listdir(self) -> list:
        """The names of the pool's striped files, sorted."""
        return sorted(name for name, _ in self.scandir())

    def close(self) -> None:
        """Close the files opened here, then the I/O context."""
        if self._ptr is None:
            return
        for f in list(self._files):
            f.close()
        io, self._ptr = self._ptr, None
        rados.rados_ioctx_destroy(io)

    def __repr__(self) -> str:
        """A repr naming the pool."""
        return f"<striped.Pool {self.name!r} namespace={self.namespace!r}>"
