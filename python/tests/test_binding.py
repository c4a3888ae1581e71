# SPDX-License-Identifier: LGPL-2.1-or-later
"""No cluster needed: the CFFI declarations against the C headers, modes,
layouts, errno mapping, the package's version and fsspec entry point."""

import errno
import os
import re
import subprocess
import sys

import pytest

import striped
from striped import _lib
from striped._file import parse_mode

SOURCE_ROOT = os.environ.get(
    "STRIPED_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))


def normalize(text):
    """C text without comments and with one spelling of whitespace."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    text = text.replace("CEPH_RADOS_API", " ")
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"\s*([*(),;{}])\s*", r"\1", text).strip()


def declarations(cdef):
    """The function prototypes and struct bodies of a cdef, normalized."""
    out = []
    for decl in normalize(cdef).split(";"):
        if "(" in decl or "{" in decl:
            out.append(decl + ";")
    # a struct body's fields were split at their ';': rejoin them
    text = normalize(cdef)
    out = [d for d in out if "{" not in d]
    out += re.findall(r"struct \w+\{[^}]*\};", text)
    return out


@pytest.mark.parametrize("cdef,header", [
    (_lib._CDEF_STRIPED, "include/striped.h"),
    (_lib._CDEF_RADOS, "/usr/include/rados/librados.h"),
], ids=["striped.h", "librados.h"])
def test_cdef_matches_header(cdef, header):
    """Every prototype and struct declared to CFFI is the header's, word for word."""
    with open(os.path.join(SOURCE_ROOT, header)) as f:
        text = normalize(f.read())
    decls = [d for d in declarations(cdef) if "timespec" not in d.split("{")[0]]
    assert len(decls) > 8
    missing = [d for d in decls if d not in text]
    assert missing == []


def test_struct_sizes():
    """The ABI-mode structs have their C sizes (LP64)."""
    assert _lib.ffi.sizeof("struct striped_layout") == 24
    assert _lib.ffi.sizeof("struct striped_stat") == 48


def test_versions():
    """Package, library, meson project and dist-info agree on the version."""
    from importlib.metadata import version
    assert striped.LIBRARY_VERSION == striped.__version__
    assert version("striped") == striped.__version__
    want = os.environ.get("STRIPED_PROJECT_VERSION")
    if want:
        assert striped.__version__ == want


def test_version_written_once():
    """The version is meson.build's alone: pip's build reads it there, the package from its
    dist-info; no literal in the package's source."""
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(SOURCE_ROOT, "python", "pyproject.toml"), "rb") as f:
        hatch = tomllib.load(f)["tool"]["hatch"]["version"]
    with open(os.path.join(SOURCE_ROOT, "python", hatch["path"])) as f:
        meson_build = f.read()
    assert re.search(hatch["pattern"], meson_build, re.M).group("version") == striped.__version__
    with open(os.path.join(SOURCE_ROOT, "python", "striped", "__init__.py")) as f:
        assert not re.search(r"^__version__\s*=\s*[\"']", f.read(), re.M)


def fresh_python(code: str) -> str:
    """What code prints in a fresh interpreter (the tests' environment)."""
    return subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.PIPE,
                          text=True, timeout=60).stdout.strip()


def test_import_leaves_fsspec_alone():
    """import striped imports nothing of fsspec: its entry point registers striped://."""
    assert fresh_python("import sys, striped; print([m for m in sys.modules "
                        "if m == 'fsspec' or m.startswith('fsspec.')])") == "[]"


def test_dist_info_without_toml_reader(tmp_path):
    """make_dist_info.py on a Python with neither tomllib nor tomli says what it needs."""
    script = os.path.join(SOURCE_ROOT, "python", "make_dist_info.py")
    code = ("import runpy, sys; sys.modules['tomllib'] = sys.modules['tomli'] = None; "
            f"sys.argv = ['make_dist_info.py', 'x', '1', {str(tmp_path / 'out')!r}]; "
            f"runpy.run_path({script!r}, run_name='__main__')")
    r = subprocess.run([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True,
                       timeout=60)
    assert r.returncode == 1
    assert "needs tomli" in r.stderr and "Traceback" not in r.stderr


def test_fsspec_entry_point():
    """A fresh interpreter finds "striped://" through the entry point alone."""
    assert fresh_python("import sys, fsspec; c = fsspec.get_filesystem_class('striped'); "
                        "print(c.__module__ + '.' + c.__name__)") == \
        "striped.fsspec.StripedFileSystem"


@pytest.mark.parametrize("mode,want", [
    ("rb", (0, True, False, False, False)),
    ("r", (0, True, False, False, False)),
    ("wb", (1, False, True, True, False)),
    ("r+b", (0, True, True, False, False)),
    ("rb+", (0, True, True, False, False)),
    ("w+b", (1, True, True, True, False)),
    ("ab", (1, False, True, False, True)),
    ("xb", (3, False, True, False, False)),
])
def test_modes(mode, want):
    """Binary modes give their flags, directions, truncation and append."""
    assert parse_mode(mode) == want


@pytest.mark.parametrize("mode", ["", "rt", "rw", "rbb", "z", "r+b+", "wa", "U"])
def test_bad_modes(mode):
    """Text, doubled and unknown modes are refused (ValueError, as open())."""
    with pytest.raises(ValueError):
        parse_mode(mode)


def test_mode_type():
    """A mode that is not a str is a TypeError."""
    with pytest.raises(TypeError):
        parse_mode(b"rb")


def layout_ok(su, sc, os_):
    """Ceph's layout rules, as include/striped.h states them."""
    k64 = 65536
    return (0 < su < 2**32 and su % k64 == 0 and 0 < sc < 2**32 and 0 < os_ < 2**32
            and os_ % k64 == 0 and os_ % su == 0)


def test_layout_validate_against_rules():
    """Layout.is_valid agrees with the rules over edge and random layouts."""
    import random
    r = random.Random(19)
    values = [0, 1, 65535, 65536, 131072, 1 << 20, 3 << 16, 4 << 20, 2**32 - 65536, 2**32, 2**40]
    cases = [(a, b, c) for a in values for b in (0, 1, 7, 2**32 - 1, 2**32) for c in values]
    cases += [(r.choice(values), r.randrange(0, 20), r.choice(values)) for _ in range(500)]
    for su, sc, os_ in cases:
        assert striped.Layout(su, sc, os_).is_valid() == layout_ok(su, sc, os_), (su, sc, os_)
    assert striped.Layout().is_valid()
    assert not striped.Layout(-1, 1, 1).is_valid()


@pytest.mark.parametrize("code,cls", [
    (errno.ENOENT, FileNotFoundError),
    (errno.EEXIST, FileExistsError),
    (errno.EPERM, PermissionError),
    (errno.EACCES, PermissionError),
    (errno.ETIMEDOUT, TimeoutError),
    (errno.EISDIR, IsADirectoryError),
])
def test_errors_map_to_oserror_subclasses(code, cls):
    """A negative errno becomes the OSError subclass Python gives that errno."""
    with pytest.raises(cls) as e:
        _lib.check(-code, "name")
    assert e.value.errno == code and e.value.filename == "name"
    assert _lib.check(5) == 5


def test_names():
    """Names go to C as UTF-8, undecodable bytes survive, other types are refused."""
    assert _lib.encode("é") == "é".encode()
    assert _lib.encode(b"\xff") == b"\xff"
    assert _lib.encode("\udcff") == b"\xff"
    with pytest.raises(TypeError):
        _lib.encode(5)
