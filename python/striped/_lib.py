# SPDX-License-Identifier: LGPL-2.1-or-later
"""The C libraries through CFFI in ABI mode: declarations, loading, errors.

ABI mode (dlopen at import, no compiled extension) keeps the package pure
Python: nothing to build per interpreter, and the declarations below are
checked against include/striped.h by the tests. CFFI releases the GIL
around every call, so a thread waiting in libstriped lets others run.
"""

import ctypes.util
import os
import shutil
import subprocess

import cffi

_CDEF_RADOS = """
typedef void *rados_t;
typedef void *rados_ioctx_t;
int rados_create2(rados_t *pcluster, const char *const clustername,
                  const char *const name, uint64_t flags);
int rados_conf_read_file(rados_t cluster, const char *path);
int rados_conf_parse_env(rados_t cluster, const char *var);
int rados_conf_set(rados_t cluster, const char *option, const char *value);
void rados_shutdown(rados_t cluster);
int rados_pool_list(rados_t cluster, char *buf, size_t len);
int rados_ioctx_create(rados_t cluster, const char *pool_name, rados_ioctx_t *ioctx);
void rados_ioctx_destroy(rados_ioctx_t io);
void rados_ioctx_set_namespace(rados_ioctx_t io, const char *nspace);
"""

# A subset of include/striped.h, copied as written there (test_binding.py
# compares each declaration with the header). struct timespec is spelled
# out: ABI mode cannot leave a struct's layout to the compiler (LP64 Linux).
_CDEF_STRIPED = """
struct timespec { long tv_sec; long tv_nsec; };
const char *striped_version(int *major, int *minor, int *patch);
struct striped_layout {
    uint64_t stripe_unit;
    uint64_t stripe_count;
    uint64_t object_size;
};
int striped_layout_validate(const struct striped_layout *layout);
int striped_cluster_connect(rados_t cluster);
struct striped_file;
int striped_open(rados_ioctx_t io, const char *name, int flags,
                 const struct striped_layout *layout,
                 struct striped_file **out);
void striped_close(struct striped_file *f);
int striped_stat(struct striped_file *f, uint64_t *size, struct striped_layout *layout);
ssize_t striped_write(struct striped_file *f, const void *buf, size_t len, uint64_t off);
ssize_t striped_read(struct striped_file *f, void *buf, size_t len, uint64_t off);
int striped_truncate(struct striped_file *f, uint64_t size);
int striped_remove(rados_ioctx_t io, const char *name);
int striped_flush(struct striped_file *f);
struct striped_stat {
    uint64_t size;
    struct striped_layout layout;
    struct timespec mtime;
};
int striped_fstat(struct striped_file *f, struct striped_stat *st, size_t st_size);
ssize_t striped_append(struct striped_file *f, const void *buf, size_t len);
struct striped_list;
int striped_list_open(rados_ioctx_t io, struct striped_list **it);
int striped_list_next(struct striped_list *it, const char **name, uint64_t *size);
void striped_list_close(struct striped_list *it);
struct striped_list_query {
    const char *prefix;
    const char *delimiter;
    const char *start_after;
    unsigned int flags;
};
struct striped_list_entry {
    const char *name;
    uint64_t size;
    int is_prefix;
};
int striped_list_open2(rados_ioctx_t io, const struct striped_list_query *q, size_t q_size,
                       struct striped_list **it);
int striped_list_next2(struct striped_list *it, struct striped_list_entry *e, size_t e_size);
int striped_setxattr(struct striped_file *f, const char *name, const void *value, size_t len);
ssize_t striped_getxattr(struct striped_file *f, const char *name, void *value, size_t len);
int striped_rmxattr(struct striped_file *f, const char *name);
struct striped_xattrs;
int striped_getxattrs(struct striped_file *f, struct striped_xattrs **it);
int striped_getxattrs_next(struct striped_xattrs *it, const char **name, const void **value,
                           size_t *len);
void striped_getxattrs_end(struct striped_xattrs *it);
struct striped_buffer_config {
    uint64_t window;
    uint64_t readahead_max;
    uint32_t dirty_age_ms;
};
int striped_file_set_buffer(struct striped_file *f, const struct striped_buffer_config *cfg,
                            size_t cfg_size);
int striped_close2(struct striped_file *f);
struct striped_head {
    uint64_t size;
    struct striped_layout layout;
    struct timespec mtime;
    uint64_t reserved;
    uint64_t id;
    uint64_t holder;
};
int striped_head_read(rados_ioctx_t io, const char *name, struct striped_head *h, size_t h_size);
ssize_t striped_head_pread(rados_ioctx_t io, const char *name, struct striped_head *h,
                           size_t h_size, void *buf, size_t len, uint64_t off);
struct striped_xattr_value {
    const char *name;
    const void *value;
    size_t len;
};
int striped_head_create(rados_ioctx_t io, const char *name, const struct striped_layout *layout,
                        const void *buf, size_t len, const struct striped_xattr_value *xattrs,
                        size_t nxattrs);
"""

STRIPED_CREATE = 0x1
STRIPED_EXCL = 0x2
STRIPED_BUFFERED = 0x4
# The C API this package needs (the buffered mode, striped_close2,
# striped_cluster_connect; striped_head_pread of 0.7, striped_head_create of 0.8).
MIN_VERSION = (0, 8)
SONAME = "libstriped.so.0"

ffi = cffi.FFI()
ffi.cdef(_CDEF_RADOS)
ffi.cdef(_CDEF_STRIPED)


def _pkgconfig_libdir():
    """libstriped's libdir as pkg-config tells it (None without pkg-config or libstriped.pc)."""
    exe = shutil.which("pkg-config")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--variable=libdir", "libstriped"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    libdir = out.stdout.strip()
    return libdir if out.returncode == 0 and libdir else None


def _library_candidates():
    """Where libstriped may be, in the order tried (lazily: pkg-config runs only when needed).

    $STRIPED_LIBRARY alone when set; else where meson installed this package's
    library, the soname as the dynamic linker finds it (LD_LIBRARY_PATH,
    ldconfig's cache, the default directories), pkg-config's libdir of
    libstriped, and what ctypes.util.find_library finds.
    """
    env = os.environ.get("STRIPED_LIBRARY")
    if env:
        yield env
        return
    try:
        from . import _install  # written by meson install only
        yield os.path.join(_install.LIBDIR, SONAME)
    except ImportError:
        pass
    yield SONAME
    libdir = _pkgconfig_libdir()
    if libdir:
        yield os.path.join(libdir, SONAME)
    name = ctypes.util.find_library("striped")
    if name and name != SONAME:
        yield name


# Never unloaded: libstriped's lease renewer is a detached thread that wakes
# every second on a condition variable in the library's own memory, so the
# dlclose CFFI does when `lib` is collected (at interpreter exit) would
# crash it (SIGSEGV in __condvar_dec_grefs). librados keeps threads too.
_DLFLAGS = ffi.RTLD_NOW | ffi.RTLD_NODELETE


def _load_striped():
    """dlopen libstriped (its soname: an ABI this package was written for); (lib, path)."""
    errors = []
    for path in _library_candidates():
        try:
            return ffi.dlopen(path, _DLFLAGS), path
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError("striped: cannot load libstriped (set STRIPED_LIBRARY, or install it "
                      "where ldconfig or pkg-config finds it): " + "; ".join(errors))


rados = ffi.dlopen("librados.so.2", _DLFLAGS)
# LIBRARY_PATH: the candidate that loaded (a path, or the soname the linker resolved).
lib, LIBRARY_PATH = _load_striped()


def _check_version():
    """Refuse a libstriped older than the API declared above."""
    major, minor = ffi.new("int *"), ffi.new("int *")
    text = ffi.string(lib.striped_version(major, minor, ffi.NULL)).decode()
    if (major[0], minor[0]) < MIN_VERSION or major[0] != MIN_VERSION[0]:
        raise ImportError(f"striped: libstriped {text} found, "
                          f"{MIN_VERSION[0]}.{MIN_VERSION[1]} or later needed")
    return text


LIBRARY_VERSION = _check_version()


def error(code, filename=None):
    """The OSError (subclass chosen by errno) for a negative errno result."""
    code = -code if code < 0 else code
    if filename is None:
        return OSError(code, os.strerror(code))
    return OSError(code, os.strerror(code), filename)


def check(r, filename=None):
    """Return r when >= 0, else raise its OSError (FileNotFoundError, ...)."""
    if r < 0:
        raise error(r, filename)
    return r


def encode(name):
    """A name as the C library takes it: str as UTF-8 (surrogateescape), or bytes."""
    if isinstance(name, bytes):
        return name
    if isinstance(name, str):
        return name.encode("utf-8", "surrogateescape")
    raise TypeError(f"name must be str or bytes, not {type(name).__name__}")


def decode(cstr):
    """A C string from the library as str (undecodable bytes kept as surrogates)."""
    return ffi.string(cstr).decode("utf-8", "surrogateescape")
