#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# xrootd.sh COMPAT_DIR [SANITIZE]: XRootD's data server with XrdCeph (Debian's
# xrootd-server and xrootd-ceph-plugins, unchanged) on the drop-in, beside one on stock
# libradosstriper, both serving the sandbox cluster's pool (TAP): xrdcp in and out through
# the drop-in server, bytes compared; files crossing between the two servers (written
# through one, read and removed through the other); the drop-in server maps the drop-in.
# All of it on the replicated pool, and on both erasure-coded pools where the cluster has
# them (STRIPED_TEST_EC_POOL without overwrites, STRIPED_TEST_ECOW_POOL with), named
# POOL:NAME as XrdCeph takes them. Skipped (TAP) without xrootd or xrdcp.
set -uo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../cluster-check.sh
source "$here/../cluster-check.sh"
need_cluster tap xrootd.sh
# shellcheck source=../tap.sh
source "$here/../tap.sh"
unset LD_LIBRARY_PATH

compat_dir=$1 sanitize=${2:-none}
xrd=$here/../xrootd
for tool in xrootd xrdcp xrdfs; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP $tool not installed (xrootd-server, xrootd-client, xrootd-ceph-plugins)"
		exit 0
	fi
done
work=$(mktemp -d)
chmod 755 "$work"
TAP_DETAIL=$work/detail
size=$((64 * 1048576 + 12345))
p=xrd-$$
extra=()
if [[ $sanitize != none ]]; then
	# an uninstrumented xrootd loading a drop-in built with sanitizers: their runtime first
	extra=(--env "LD_PRELOAD=$(cc -print-file-name=libasan.so)"
		--env "ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0")
fi

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pools=("$STRIPED_TEST_POOL")
[[ -z ${STRIPED_TEST_EC_POOL:-} ]] || pools+=("$STRIPED_TEST_EC_POOL")
[[ -z ${STRIPED_TEST_ECOW_POOL:-} ]] || pools+=("$STRIPED_TEST_ECOW_POOL")

cleanup() {
	"$xrd/xrd-server" stop --dir "$work/stock" >/dev/null 2>&1
	"$xrd/xrd-server" stop --dir "$work/dropin" >/dev/null 2>&1
	local n pool
	for pool in "${pools[@]}"; do
		for n in a b c; do
			rados --striper -p "$pool" rm "$p-$n" >/dev/null 2>&1
		done
	done
	rm -rf "$work"
}
trap cleanup EXIT

start() { # NAME [OPTIONS...]
	local name=$1 env
	shift
	env=$("$xrd/xrd-server" start --dir "$work/$name" --port "$(free_port)" "$@" \
		2>"$TAP_DETAIL") || return 1
	eval "${env//XRD_/${name^^}_}"
}
check "a stock server starts" start stock
check "a drop-in server starts" start dropin --striper-dir "$compat_dir" "${extra[@]}"
[[ -n ${STOCK_URL:-} && -n ${DROPIN_URL:-} ]] || tap_done
check "the drop-in server maps $compat_dir/libradosstriper.so.1 ($DROPIN_STRIPER)" \
	test "$(dirname "$DROPIN_STRIPER")" = "$(cd "$compat_dir" && pwd)"

head -c $size /dev/urandom >"$work/src"
roundtrip() { # URL NAME
	"$xrd/xrdcp-roundtrip" --tmpdir "$work" --tag "$2" "$1" "$work/src" "$2"
}
get() { # URL NAME
	rm -f "$work/out" && xrdcp --silent "$1$2" "$work/out" && cmp "$work/src" "$work/out"
}
put() { # URL NAME
	xrdcp --silent --force "$work/src" "$1$2"
}
stat_size() { # URL NAME
	[[ $(xrdfs "${1%/}" stat "$2" | awk '/^Size:/{print $2}') == "$size" ]]
}
# Stock's remove takes the lock without waiting: the drop-in server's handle lets go of it
# within its idle second, so it is retried for up to 5 s.
rm_stock() { # NAME
	local i
	for ((i = 0; i < 25; i++)); do
		xrdfs "${STOCK_URL%/}" rm "$1" && return 0
		sleep 0.2
	done
	return 1
}
gone() { # POOL
	! rados --striper -p "$1" stat "$p-b" 2>/dev/null &&
		! rados --striper -p "$1" stat "$p-c" 2>/dev/null
}

for pool in "${pools[@]}"; do
	# The server's own pool by bare names, the others as POOL:NAME.
	at=
	[[ $pool == "$STRIPED_TEST_POOL" ]] || at=$pool:
	check "$pool: xrdcp in and out through the drop-in server, the bytes the same" \
		roundtrip "$DROPIN_URL" "$at$p-a"
	echo "# $(tail -1 "$TAP_DETAIL")"
	check "$pool: xrdcp in through the stock server" put "$STOCK_URL" "$at$p-b"
	check "$pool: out through the drop-in server: the same bytes" get "$DROPIN_URL" "$at$p-b"
	check "$pool: xrdcp in through the drop-in server" put "$DROPIN_URL" "$at$p-c"
	check "$pool: out through the stock server: the same bytes" get "$STOCK_URL" "$at$p-c"
	check "$pool: stat through the stock server gives the drop-in's file its size" \
		stat_size "$STOCK_URL" "$at$p-c"
	check "$pool: stat through the drop-in server gives stock's file its size" \
		stat_size "$DROPIN_URL" "$at$p-b"
	check "$pool: rm through the drop-in server of stock's file" xrdfs "${DROPIN_URL%/}" rm "$at$p-b"
	check "$pool: rm through the stock server of the drop-in's file" rm_stock "$at$p-c"
	check "$pool: both are gone" gone "$pool"
done
tap_done
