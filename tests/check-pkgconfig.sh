#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Install the build into a temporary prefix, then build and run an outside
# program using only `pkg-config --cflags --libs libstriped`.
#
# usage: check-pkgconfig.sh BUILD_DIR SOURCE_DIR [SANITIZE]
set -euo pipefail
build=$1 src=$2 sanitize=${3:-none}

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
cc -Wall -Werror "${extra[@]}" "$src/tests/outside.c" $flags -o "$tmp/outside"
# pkg-config already puts the sysroot in front of libdir.
LD_LIBRARY_PATH=$libdir "$tmp/outside"
echo "check-pkgconfig: pkg-config gave: $flags"
