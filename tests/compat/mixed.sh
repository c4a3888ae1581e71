#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# mixed.sh CLIENT COMPAT_DIR: stock libradosstriper and the drop-in on the same files at
# the same time, as during a rollout (TAP). CLIENT is striper_client, linked against the
# system's libradosstriper.so.1; with LD_LIBRARY_PATH=COMPAT_DIR it runs on the drop-in.
# - what one writes the other reads, byte for byte, both ways;
# - one writer of each, at once, on disjoint halves of one file (aio, then sync): no byte lost;
# - stock `rados --striper rm` of a file a live drop-in process used a moment ago goes
#   through once the drop-in's idle handle let go of its lock (about 1 s), and that
#   process's next write makes a new file, with none of the old one's bytes.
set -uo pipefail
# shellcheck source=../cluster-check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-check.sh"
need_cluster tap mixed.sh
# shellcheck source=../tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# shellcheck source=stock-exit.sh
source "$(dirname "${BASH_SOURCE[0]}")/stock-exit.sh"
# meson's LD_LIBRARY_PATH may name the drop-in's directory: a program gets it only when told.
unset LD_LIBRARY_PATH

client=$1 compat_dir=$2
pool=$STRIPED_TEST_POOL
work=$(mktemp -d)
TAP_DETAIL=$work/detail
p=mixed-$$
cleanup() {
	local n
	for n in A B C D E; do
		rados --striper -p "$pool" rm "$p-$n" >/dev/null 2>&1
	done
	rm -rf "$work"
}
trap cleanup EXIT

# Stock libradosstriper of Ceph 16.2 may abort at exit once its work is done
# (stock-exit-crashes): judged by its steps.
stock() {
	env -u LD_LIBRARY_PATH "$client" "$@" >"$TAP_DETAIL" 2>&1
	local status=$?
	if stock_crashed_at_exit $status "$TAP_DETAIL" &&
		(($(grep -c ': 0$' "$TAP_DETAIL") == $#)); then
		status=0
	fi
	return $status
}

dropin() {
	LD_LIBRARY_PATH=$compat_dir "$client" "$@" >"$TAP_DETAIL" 2>&1 &&
		grep -q "library $compat_dir/libradosstriper.so.1" "$TAP_DETAIL"
}

check "drop-in writes 16 MiB (aio, 64 KiB, 16 in flight)" dropin "awrite:$p-A:0:16M:64K:16:1"
check "stock reads them back, byte for byte" stock "verify:$p-A:0:16M:1" "size:$p-A:16M"
check "stock writes 16 MiB (1 MiB calls)" stock "write:$p-B:0:16M:1M:2"
check "the drop-in reads them back" dropin "verify:$p-B:0:16M:2" "size:$p-B:16M"

# One writer of each kind at once, disjoint halves of one file.
concurrent() { # FILE STEP-STOCK STEP-DROPIN
	local s d
	env -u LD_LIBRARY_PATH "$client" "$2" >"$work/s.out" 2>&1 &
	s=$!
	LD_LIBRARY_PATH=$compat_dir "$client" "$3" >"$work/d.out" 2>&1 &
	d=$!
	wait $s
	local ss=$?
	wait $d
	local ds=$?
	cat "$work/s.out" "$work/d.out" >"$TAP_DETAIL"
	((ss == 0 || ((ss == 134 || ss == 139) && $(grep -c ': 0$' "$work/s.out") == 1))) &&
		((ds == 0))
}
check "aio: stock writes [0, 32M) while the drop-in writes [32M, 64M)" \
	concurrent C "awrite:$p-C:0:32M:64K:8:3" "awrite:$p-C:32M:32M:64K:8:4"
check "no byte lost: stock reads both halves" stock "verify:$p-C:0:32M:3" "verify:$p-C:32M:32M:4" \
	"size:$p-C:64M"
check "no byte lost: the drop-in reads both halves" dropin "verify:$p-C:0:32M:3" \
	"verify:$p-C:32M:32M:4" "size:$p-C:64M"
check "sync: stock writes [0, 8M) while the drop-in writes [8M, 16M), 64 KiB calls" \
	concurrent D "write:$p-D:0:8M:64K:5" "write:$p-D:8M:8M:64K:6"
check "no byte lost (sync)" stock "verify:$p-D:0:8M:5" "verify:$p-D:8M:8M:6" "size:$p-D:16M"

# A drop-in process writes, idles 4 s with its handle open, then writes again.
LD_LIBRARY_PATH=$compat_dir "$client" "write:$p-E:0:4M:1M:7" sleep:4000 "write:$p-E:0:1M:1M:8" \
	>"$work/e.out" 2>&1 &
holder=$!
for _ in $(seq 200); do
	grep -q "^write:$p-E:0:4M" "$work/e.out" && break
	sleep 0.05
done
start=$(date +%s.%N)
removed=0
for _ in $(seq 100); do
	if rados --striper -p "$pool" rm "$p-E" >"$TAP_DETAIL" 2>&1; then
		removed=1
		break
	fi
	sleep 0.1
done
took=$(echo "$(date +%s.%N) - $start" | bc)
echo "# stock rados --striper rm went through ${took} s after the drop-in's last write"
removed_in_time() { ((removed)) && (($(echo "$took < 3" | bc))); }
check "stock rm of a file a live drop-in process used goes through within 3 s (${took} s)" \
	removed_in_time
wait $holder
holder_status=$?
cp "$work/e.out" "$TAP_DETAIL"
check "the drop-in process's next write, after the rm, succeeds" test "$holder_status" = 0
check "it made a new file: 1 MiB of its new bytes, none of the old 4 MiB" \
	stock "size:$p-E:1M" "verify:$p-E:0:1M:8"
tap_done
