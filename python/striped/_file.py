# SPDX-License-Identifier: LGPL-2.1-or-later
"""A striped file as a raw Python file object, and its xattrs as a mapping."""

import errno
import io
import operator
import threading
from collections.abc import Iterator, MutableMapping
from typing import Optional

from ._layout import Layout, Stat
from ._lib import STRIPED_BUFFERED, STRIPED_CREATE, STRIPED_EXCL, check, decode, encode, error, \
    ffi, lib

_XATTR_GUESS = 4096  # first read of an xattr: most values fit, one round trip


def parse_mode(mode: str) -> tuple:
    """(open flags, readable, writable, truncate, append) for a binary mode like "r+b"."""
    if not isinstance(mode, str):
        raise TypeError(f"mode must be str, not {type(mode).__name__}")
    chars = set(mode)
    kinds = [c for c in mode if c in "rwax"]
    if len(chars) != len(mode) or chars - set("rwaxb+") or len(kinds) != 1:
        raise ValueError(f"invalid mode: {mode!r} (binary modes only: rb, wb, r+b, ab, xb)")
    kind, plus = kinds[0], "+" in chars
    flags = {"r": 0, "w": STRIPED_CREATE, "a": STRIPED_CREATE,
             "x": STRIPED_CREATE | STRIPED_EXCL}[kind]
    return flags, kind == "r" or plus, kind != "r" or plus, kind == "w", kind == "a"


class StripedFile(io.RawIOBase):
    """A striped file opened by Pool.open: one C call per Python call, no copies.

    readinto() reads into the caller's buffer and write() sends the caller's
    buffer as it lies; each is one striped_read()/striped_write(), with all
    of its object requests in flight and the GIL released while it waits.
    Opened buffered (the C library's STRIPED_BUFFERED), writes return once
    they are in the handle's window and sequential reads are read ahead:
    flush() and close() then wait for the window to land and raise the
    OSError of a write-behind that failed.
    """

    def __init__(self, pool, name: str, mode: str = "rb", layout: Optional[Layout] = None,
                 buffered: bool = False, window: Optional[int] = None):
        """Open (or create) name in pool; use Pool.open rather than this.

        :param pool: the Pool the file lives in (it must stay open)
        :param name: the file's name
        :param mode: rb, wb, r+b, ab, xb (and w+b, a+b, x+b); "b" may be left out
        :param layout: layout of a file this call creates; None for the default
        :param buffered: write-behind and readahead in the C library
        :param window: with buffered, the window's size in bytes (None: 64 MiB)
        """
        super().__init__()
        # close() (also from __del__ after a failed open) needs these first
        self._f = None
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._busy = 0
        self._pos = 0
        self._pool = pool
        self.name = name
        self.mode = mode
        self.buffered = bool(buffered)
        flags, self._readable, self._writable, trunc, self._append = parse_mode(mode)
        if buffered:
            flags |= STRIPED_BUFFERED
        out = ffi.new("struct striped_file **")
        c_layout = layout._to_c() if layout is not None else ffi.NULL
        check(lib.striped_open(pool._handle(), encode(name), flags, c_layout, out), name)
        self._f = out[0]
        try:
            if window is not None:
                self._set_window(window)
            if trunc and self._size() > 0:
                check(lib.striped_truncate(self._f, 0), name)
            if self._append:
                self._pos = self._size()
        except BaseException:
            self._release()
            raise
        pool._files.add(self)

    # ------------------------------------------------------------ handle use

    def _raw_call(self, fn, *args) -> int:
        """fn(handle, *args)'s raw result; close() waits for it; ValueError once closed."""
        with self._lock:
            if self._f is None:
                raise ValueError("I/O operation on closed file")
            self._busy += 1
            f = self._f
        try:
            return fn(f, *args)
        finally:
            with self._lock:
                self._busy -= 1
                if self._busy == 0:
                    self._idle.notify_all()

    def _call(self, fn, *args) -> int:
        """fn(handle, *args)'s result, an OSError when it is a negative errno."""
        return check(self._raw_call(fn, *args), self.name)

    def _release(self):
        """Close the C handle once no call uses it (no new call can start).

        Raises the OSError of a write-behind that failed (buffered handles).
        """
        with self._lock:
            f, self._f = self._f, None
            while self._busy:
                self._idle.wait()
        if f is not None:
            r = lib.striped_close2(f)
            self._pool._files.discard(self)
            check(r, self.name)

    def _set_window(self, window: int):
        """Set a buffered handle's window (readahead: half of it)."""
        if not self.buffered:
            raise ValueError("window= needs buffered=True")
        window = operator.index(window)
        cfg = ffi.new("struct striped_buffer_config *", (window, window // 2, 200))
        self._call(lib.striped_file_set_buffer, cfg, ffi.sizeof("struct striped_buffer_config"))

    def _size(self) -> int:
        """The file's size (one round trip)."""
        size = ffi.new("uint64_t *")
        self._call(lib.striped_stat, size, ffi.NULL)
        return size[0]

    def _check_mode(self, wanted: bool, what: str):
        """Raise io.UnsupportedOperation when the mode does not allow what."""
        self._checkClosed()
        if not wanted:
            raise io.UnsupportedOperation(f"File not open for {what}")

    # ------------------------------------------------------------ io.RawIOBase

    def readable(self) -> bool:
        """Whether the mode allows reading."""
        self._checkClosed()
        return self._readable

    def writable(self) -> bool:
        """Whether the mode allows writing."""
        self._checkClosed()
        return self._writable

    def seekable(self) -> bool:
        """Always True: any offset can be read or written."""
        self._checkClosed()
        return True

    def readinto(self, b) -> int:
        """Read up to len(b) bytes at the position into b, without a copy.

        :param b: any writable contiguous buffer (bytearray, memoryview, numpy array, mmap)
        :return: bytes read; 0 at or past the end of the file
        """
        self._check_mode(self._readable, "reading")
        try:
            buf = ffi.from_buffer(b, require_writable=True)
        except BufferError as e:  # as FileIO.readinto says it
            raise TypeError("readinto() argument must be read-write bytes-like object") from e
        if len(buf) == 0:
            return 0
        n = self._call(lib.striped_read, buf, len(buf), self._pos)
        self._pos += n
        return n

    def readall(self) -> bytes:
        """Read from the position to the end of the file in one call."""
        self._check_mode(self._readable, "reading")
        buf = bytearray(max(self._size() - self._pos, 0))
        n = self.readinto(buf) if buf else 0
        del buf[n:]
        while True:  # the file may have grown meanwhile
            more = self.read(io.DEFAULT_BUFFER_SIZE)
            if not more:
                return bytes(buf)
            buf += more

    def write(self, b) -> int:
        """Write b at the position (at the end in "a" mode), sent as it lies.

        :param b: any bytes-like object
        :return: len(b) in bytes: a call writes all of it or raises OSError
        """
        self._check_mode(self._writable, "writing")
        buf = ffi.from_buffer(b)
        if len(buf) == 0:
            return 0
        if self._append:
            n = self._call(lib.striped_append, buf, len(buf))
        else:
            n = self._call(lib.striped_write, buf, len(buf), self._pos)
        self._pos += n
        return n

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Move the position; a result below 0 raises OSError(EINVAL), as os.lseek.

        :param offset: bytes, relative to whence
        :param whence: io.SEEK_SET, io.SEEK_CUR or io.SEEK_END (which costs a round trip)
        :return: the new position
        """
        self._checkClosed()
        offset = operator.index(offset)
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = self._size() + offset
        else:
            raise ValueError(f"invalid whence ({whence}, should be 0, 1 or 2)")
        if pos < 0:
            raise error(errno.EINVAL, self.name)
        self._pos = pos
        return pos

    def tell(self) -> int:
        """The position (in "a" mode: the end as this handle knows it)."""
        self._checkClosed()
        return self._pos

    def truncate(self, size: Optional[int] = None) -> int:
        """Set the file's size (default: the position); the position stays.

        :param size: the new size in bytes
        :return: the new size
        """
        self._check_mode(self._writable, "writing")
        size = self._pos if size is None else operator.index(size)
        if size < 0:
            raise error(errno.EINVAL, self.name)
        self._call(lib.striped_truncate, size)
        return size

    def flush(self) -> None:
        """Wait for every call started on the handle (striped_flush): buffered, the fsync."""
        self._checkClosed()
        if self._f is None:  # the open failed: nothing was started
            return
        self._call(lib.striped_flush)

    def close(self) -> None:
        """Close the file and let go of its lock; a second close does nothing."""
        if self.closed:
            return
        try:
            super().close()
        finally:
            self._release()

    # ------------------------------------------------------------ striped extras

    def stat(self) -> Stat:
        """Size, layout and modification time, in one round trip (striped_fstat)."""
        st = ffi.new("struct striped_stat *")
        self._call(lib.striped_fstat, st, ffi.sizeof("struct striped_stat"))
        return Stat(st.size, Layout._from_c(st.layout),
                    st.mtime.tv_sec + st.mtime.tv_nsec / 1e9)

    @property
    def xattrs(self) -> "Xattrs":
        """The file's extended attributes as a mutable mapping of str to bytes."""
        self._checkClosed()
        return Xattrs(self)

    def __repr__(self) -> str:
        """A repr naming the file and mode."""
        state = " closed" if self.closed else ""
        return f"<striped.StripedFile name={self.name!r} mode={self.mode!r}{state}>"


class Xattrs(MutableMapping):
    """A striped file's extended attributes: str names, bytes values, each access a round trip.

    The libraries' own names (striper.*) are hidden; setting or reading one
    raises PermissionError.
    """

    def __init__(self, file: StripedFile):
        """The attributes of an open file.

        :param file: the file; the mapping works while it is open
        """
        self._file = file

    def __getitem__(self, key: str) -> bytes:
        """The value of attribute key; KeyError when the file has none."""
        name = encode(key)
        size = _XATTR_GUESS
        while True:
            buf = ffi.new("char[]", size)
            r = self._file._raw_call(lib.striped_getxattr, name, buf, size)
            if r == -errno.ENODATA:
                raise KeyError(key)
            if r != -errno.ERANGE:
                check(r, self._file.name)
                return ffi.buffer(buf, r)[:]
            size = self._file._call(lib.striped_getxattr, name, ffi.NULL, 0)

    def __setitem__(self, key: str, value) -> None:
        """Set attribute key to value (any bytes-like object)."""
        buf = ffi.from_buffer(value)
        self._file._call(lib.striped_setxattr, encode(key), buf, len(buf))

    def __delitem__(self, key: str) -> None:
        """Remove attribute key; KeyError when the file has none."""
        name = encode(key)
        r = self._file._raw_call(lib.striped_getxattr, name, ffi.NULL, 0)
        if r == -errno.ENODATA:
            raise KeyError(key)
        check(r, self._file.name)
        self._file._call(lib.striped_rmxattr, name)

    def copy(self) -> dict:
        """Every attribute, read in one round trip (striped_getxattrs)."""
        it = ffi.new("struct striped_xattrs **")
        name = ffi.new("const char **")
        value = ffi.new("const void **")
        size = ffi.new("size_t *")
        out = {}
        self._file._call(lib.striped_getxattrs, it)
        try:
            while True:
                check(lib.striped_getxattrs_next(it[0], name, value, size))
                if name[0] == ffi.NULL:
                    return out
                out[decode(name[0])] = ffi.buffer(value[0], size[0])[:]
        finally:
            lib.striped_getxattrs_end(it[0])

    def __iter__(self) -> Iterator[str]:
        """The attribute names, as read in one round trip."""
        return iter(list(self.copy()))

    def __len__(self) -> int:
        """How many attributes the file has."""
        return len(self.copy())

    def __repr__(self) -> str:
        """The attributes as a dict would show them."""
        return f"<striped.Xattrs of {self._file.name!r}: {self.copy()!r}>"
