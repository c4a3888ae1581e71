# SPDX-License-Identifier: LGPL-2.1-or-later
"""The package as Python users install it: pip into a virtualenv, offline,
from the source directory or a wheel; how it finds libstriped.

The venv is made by the interpreter running the tests (meson's python3,
Debian's here) with --system-site-packages: cffi, fsspec and the build
backend (hatchling) come from Debian's packages, nothing from the network.
"""

import glob
import os
import re
import subprocess
import sys
import textwrap
import zipfile
from importlib import metadata

import pytest

import striped
from striped import _lib
from conftest import pool_name

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE_FILES = {"__init__.py", "_cluster.py", "_file.py", "_layout.py", "_lib.py", "fsspec.py"}
# pip, offline and quiet; nothing from the environment of meson's test run.
PIP = ["-m", "pip", "--disable-pip-version-check", "--no-input", "--no-cache-dir"]


def clean_env(**extra) -> dict:
    """The environment without the test run's PYTHONPATH (the source tree), plus extra."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(extra)
    return env


def run(cmd, **kw) -> str:
    """Run a command (in a clean environment unless env= is given); its stdout."""
    kw.setdefault("env", clean_env())
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=300, **kw)
    assert r.returncode == 0, f"{cmd} failed ({r.returncode}):\n{r.stdout}"
    return r.stdout


def make_venv(path, python=sys.executable, system_site=True) -> str:
    """A fresh virtualenv of python at path; its interpreter."""
    run([python, "-m", "venv"] + (["--system-site-packages"] if system_site else []) + [path])
    return os.path.join(path, "bin", "python")


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> str:
    """A virtualenv of the test interpreter that sees Debian's packages."""
    return make_venv(str(tmp_path_factory.mktemp("venv") / "v"))


@pytest.fixture(scope="module")
def wheel(venv, tmp_path_factory) -> str:
    """The wheel pip builds from python/ (offline, the backend from the system)."""
    out = tmp_path_factory.mktemp("dist")
    run([venv] + PIP + ["wheel", "--no-index", "--no-build-isolation", "--no-deps",
                        "-w", str(out), PYTHON_DIR])
    (path,) = glob.glob(str(out / "striped-*.whl"))
    return path


def fields(text: str) -> dict:
    """Core metadata's header fields, each a sorted list of its values (the body left out)."""
    out = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(": ")
        out.setdefault(key, []).append(value.replace("'", '"'))
    return {k: sorted(v) for k, v in out.items()}


def test_library_candidates(monkeypatch, tmp_path):
    """$STRIPED_LIBRARY alone; else the soname (ldconfig), then pkg-config's libdir."""
    monkeypatch.setenv("STRIPED_LIBRARY", "/x/libstriped.so")
    assert list(_lib._library_candidates()) == ["/x/libstriped.so"]
    monkeypatch.delenv("STRIPED_LIBRARY")
    fake = tmp_path / "pkg-config"
    fake.write_text('#!/bin/sh\n[ "$*" = "--variable=libdir libstriped" ] && echo /opt/s/lib\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    found = list(_lib._library_candidates())
    assert found[:2] == [_lib.SONAME, "/opt/s/lib/" + _lib.SONAME]
    fake.write_text("#!/bin/sh\nexit 1\n")  # no libstriped.pc
    found = list(_lib._library_candidates())
    assert found[0] == _lib.SONAME and "/opt/s/lib/" + _lib.SONAME not in found
    monkeypatch.setenv("PATH", str(tmp_path / "none"))  # no pkg-config at all
    assert list(_lib._library_candidates())[0] == _lib.SONAME


def test_wheel_contents(wheel):
    """The wheel holds the package and the metadata meson installs, nothing else."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        meta = z.read(f"{info}/METADATA").decode()
        eps = z.read(f"{info}/entry_points.txt").decode()
    assert os.path.basename(wheel) == f"striped-{striped.__version__}-py3-none-any.whl"
    assert {n[len("striped/"):] for n in names if n.startswith("striped/")} == PACKAGE_FILES
    assert all(n.startswith(("striped/", info + "/")) for n in names)
    # meson's dist-info (make_dist_info.py, on the tests' path) says the same
    ours = metadata.distribution("striped")
    want = fields(ours.read_text("METADATA"))
    got = {k: v for k, v in fields(meta).items() if k in want}
    assert got == want
    assert want["Requires-Python"] == [">=3.9"] and want["Version"] == [striped.__version__]
    assert want["License-Expression"] == ["LGPL-2.1-or-later"]  # PEP 639
    assert re.sub(r"\s+", " ", eps).strip() == re.sub(
        r"\s+", " ", ours.read_text("entry_points.txt")).strip()
    assert "striped = striped.fsspec:StripedFileSystem" in eps


def pythons() -> dict:
    """Interpreters on this machine other than the test's, by (major, minor), from 3.9 on."""
    found = {}
    paths = glob.glob("/usr/bin/python3.*") + glob.glob("/usr/local/bin/python3.*")
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    paths += glob.glob(os.path.join(root, "versions", "*", "bin", "python3"))
    for p in paths:
        if not re.search(r"python3(\.\d+)?$", p) or not os.access(p, os.X_OK):
            continue
        try:
            out = subprocess.run([p, "-c", "import sys; print(*sys.version_info[:2])"],
                                 stdout=subprocess.PIPE, text=True, timeout=30).stdout.split()
        except (OSError, subprocess.SubprocessError):
            continue
        v = tuple(map(int, out)) if len(out) == 2 else None
        if v and v >= (3, 9) and v != sys.version_info[:2]:
            found.setdefault(v, p)
    return found


@pytest.mark.parametrize("which", ["oldest", "newest"])
def test_wheel_other_python(wheel, which, tmp_path):
    """The wheel installs offline into a bare venv of another Python (3.9 on): metadata,
    the entry point and every module's syntax are that interpreter's to read."""
    found = pythons()
    if not found:
        pytest.skip("no other Python >= 3.9 on this machine")
    version = (min if which == "oldest" else max)(found)
    py = make_venv(str(tmp_path / "v"), found[version], system_site=False)
    # --no-deps: cffi is not there without the network; importing needs it, metadata does not
    run([py] + PIP + ["install", "--no-index", "--no-deps", wheel])
    code = textwrap.dedent("""
        import compileall, importlib.metadata as md, os, sys, sysconfig
        site = sysconfig.get_paths()["purelib"]
        assert compileall.compile_dir(os.path.join(site, "striped"), quiet=1)
        eps = md.distribution("striped").entry_points
        print(md.version("striped"), [(e.group, e.name, e.value) for e in eps])
    """)
    out = run([py, "-c", code], cwd=str(tmp_path)).split(" ", 1)
    assert out[0] == striped.__version__, (version, out)
    assert eval(out[1]) == [("fsspec.specs", "striped", "striped.fsspec:StripedFileSystem")]


ROUND_TRIP = """
import importlib.metadata as md, os, sys
import fsspec
cls = fsspec.get_filesystem_class("striped")   # through the entry point alone
import striped
assert striped.__file__.startswith(sys.prefix + "/"), striped.__file__
assert cls is striped.fsspec.StripedFileSystem and md.version("striped") == striped.__version__
url = sys.argv[1]
data = os.urandom(3 << 20) + b"end"
with fsspec.open(url, "wb") as f:
    f.write(data)
with fsspec.open(url, "rb") as f:
    assert f.read() == data
fs = fsspec.filesystem("striped")
assert fs.cat_file(url, start=5, end=100) == data[5:100] and fs.size(url) == len(data)
fs.rm(url)
assert not fs.exists(url)
print("round trip ok", striped._lib.LIBRARY_PATH)
"""


@pytest.mark.cluster
def test_pip_install_fsspec_round_trip(venv, names, tmp_path):
    """pip install --no-index --no-build-isolation ./python, then striped:// from that venv."""
    run([venv] + PIP + ["install", "--no-index", "--no-build-isolation", PYTHON_DIR])
    script = tmp_path / "round_trip.py"
    script.write_text(ROUND_TRIP)
    url = f"striped://{pool_name()}/{names()}"
    out = run([venv, str(script), url], cwd=str(tmp_path))
    assert "round trip ok" in out
    run([venv] + PIP + ["uninstall", "-y", "striped"])
