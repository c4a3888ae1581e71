#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# cluster-restart.sh: start and stop a throwaway cluster (scripts/cluster) in
# a temporary directory three times in a row; each time a small object must
# round-trip through `rados put/get`, and after each stop none of the
# cluster's processes may be left.  Safe to run while another cluster (e.g.
# the default .cluster one) is up: it uses its own directory and ports.
#
# Exit: 0 pass, 1 fail (one line on stderr), 77 skip (Ceph not installed).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cluster=$here/../../scripts/cluster

keep_logs=0
fail() {
	echo "cluster-restart: FAIL: $*${log:+ (logs: $log)}" >&2
	keep_logs=1
	exit 1
}

for b in ceph-mon ceph-osd ceph-mgr rados; do
	if ! command -v "$b" >/dev/null; then
		echo "cluster-restart: SKIP: $b is not installed (scripts/setup-deps)" >&2
		exit 77
	fi
done

log=
dir=$(mktemp -d /tmp/striped-restart.XXXXXX) || fail "mktemp"
log=$dir.log
cleanup() {
	"$cluster" stop --dir "$dir" >>"$log" 2>&1
	if ((keep_logs)); then
		cp -r "$dir/log" "$log.d" 2>/dev/null
	else
		rm -f "$log"
	fi
	rm -rf "$dir" "$dir.env"
}
trap cleanup EXIT

# one cycle: start with the given options, round-trip an object, stop
cycle() {
	local n=$1 pids pid obj=restart-$1
	shift
	local pool=restart$n
	"$cluster" start --dir "$dir" --pool "$pool" "$@" >"$dir.env" 2>>"$log" ||
		fail "cycle $n: start $* failed: $(grep -v 'start failed' "$log" | tail -n 1)"
	# shellcheck disable=SC1090
	(
		source "$dir.env"
		[[ "$STRIPED_TEST_POOL" == "$pool" ]] || exit 2
		printf 'hello %s\n' "$n" >"$dir/in"
		rados -p "$pool" put "$obj" "$dir/in" &&
			rados -p "$pool" get "$obj" "$dir/out" &&
			cmp -s "$dir/in" "$dir/out"
	) >>"$log" 2>&1 || fail "cycle $n: rados put/get through CEPH_CONF failed"
	rm -f "$dir.env"

	pids=$(cat "$dir"/pid/*.pid 2>/dev/null) || fail "cycle $n: no pid files"
	"$cluster" stop --dir "$dir" >>"$log" 2>&1 || fail "cycle $n: stop failed"
	for pid in $pids; do
		if [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$dir"; then
			fail "cycle $n: pid $pid still alive after stop"
		fi
	done
	if pgrep -f "ceph-(mon|osd|mgr) .*$dir/" >/dev/null; then
		fail "cycle $n: ceph processes of $dir left after stop"
	fi
	"$cluster" stop --dir "$dir" >>"$log" 2>&1 || fail "cycle $n: second stop failed"
}

SECONDS=0
cycle 1 --osds 3
cycle 2 --osds 1 --store memstore
cycle 3 --osds 1
echo "cluster-restart: PASS (3 start/stop cycles in ${SECONDS}s)"
