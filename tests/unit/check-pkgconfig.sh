#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Install the build into a temporary prefix, then build and run an outside
# program using only `pkg-config --cflags --libs libstriped`; with PYTHON,
# import the Python package meson installed there, which must find the
# library through pkg-config too, and see its dist-info.
#
# usage: check-pkgconfig.sh BUILD_DIR SOURCE_DIR [SANITIZE [PYTHON]]
set -euo pipefail
build=$1 src=$2 sanitize=${3:-none} python=${4:-}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp" --no-rebuild --quiet >/dev/null

pc=$(find "$tmp" -name libstriped.pc | head -1)
[[ -n $pc ]] || { echo "check-pkgconfig: no libstriped.pc installed" >&2; exit 1; }
[[ -n $(find "$tmp" -path '*/include/striped.h') ]] || { echo "check-pkgconfig: header not installed" >&2; exit 1; }

export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$tmp
flags=$(pkg-config --cflags --libs libstriped)
libdir=$(pkg-config --variable=libdir libstriped)

extra=()
[[ $sanitize != none ]] && extra=(-fsanitize="$sanitize")
cc -Wall -Werror "${extra[@]}" "$src/tests/unit/outside.c" $flags -o "$tmp/outside"
# pkg-config already puts the sysroot in front of libdir.
LD_LIBRARY_PATH=$libdir "$tmp/outside"
echo "check-pkgconfig: pkg-config gave: $flags"

# The libradosstriper drop-in, when built: in its own directory (pkg-config's compatdir),
# never beside the system's libradosstriper, and it finds the installed libstriped.
compatdir=$(pkg-config --variable=compatdir libstriped)
[[ $compatdir == "$libdir/libstriped" ]] ||
	{ echo "check-pkgconfig: compatdir is $compatdir, not $libdir/libstriped" >&2; exit 1; }
if [[ -d $build/compat ]] && [[ -n $(find "$build/compat" -name 'libradosstriper.so.1') ]]; then
	[[ -e $compatdir/libradosstriper.so.1 ]] ||
		{ echo "check-pkgconfig: no $compatdir/libradosstriper.so.1" >&2; exit 1; }
	[[ -z $(find "$libdir" -maxdepth 1 -name 'libradosstriper*') ]] ||
		{ echo "check-pkgconfig: a libradosstriper beside the system's, in $libdir" >&2; exit 1; }
	resolved=$(LD_LIBRARY_PATH=$libdir ldd "$compatdir/libradosstriper.so.1" | grep libstriped.so.0)
	[[ $resolved == *"$libdir/libstriped.so.0"* ]] ||
		{ echo "check-pkgconfig: the drop-in finds $resolved" >&2; exit 1; }
	echo "check-pkgconfig: drop-in at $compatdir/libradosstriper.so.1"
fi

# An ASan-built library cannot be loaded into an uninstrumented python.
[[ -n $python && $sanitize == none ]] || exit 0
init=$(find "$tmp" -path '*/striped/__init__.py' | head -1)
[[ -n $init ]] || { echo "check-pkgconfig: the Python package was not installed" >&2; exit 1; }
site=$(dirname "$(dirname "$init")")
# The install's own libdir (_install.py) is not under the destdir: unless the
# library is installed on this machine, only pkg-config can find it.
env -u STRIPED_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$site" "$python" - "$libdir" <<'PY'
import importlib.metadata as md, os, subprocess, sys
import striped
from striped import _install, _lib
want = os.path.join(sys.argv[1], _lib.SONAME)
if os.path.exists(os.path.join(_install.LIBDIR, _lib.SONAME)):
    want = os.path.join(_install.LIBDIR, _lib.SONAME)
elif _lib.SONAME + " " in subprocess.run(["ldconfig", "-p"], stdout=subprocess.PIPE,
                                         text=True).stdout:
    want = _lib.SONAME
assert _lib.LIBRARY_PATH == want, (_lib.LIBRARY_PATH, want)
assert md.version("striped") == striped.__version__
eps = [(e.group, e.value) for e in md.distribution("striped").entry_points]
assert eps == [("fsspec.specs", "striped.fsspec:StripedFileSystem")], eps
print("check-pkgconfig: python found", _lib.LIBRARY_PATH)
PY
