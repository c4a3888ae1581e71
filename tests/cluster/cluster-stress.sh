#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# cluster-stress.sh: `scripts/cluster start` on a busy host. Starts a sandbox
# cluster COUNT times in a row (default 20, each time a rados put/get through
# its CEPH_CONF, then stop) while a second sandbox cluster beside it stops
# and starts over and over, as on a host where another test run or bench/run
# comes and goes. Not part of `meson test` (it takes about a minute a round on
# 2 cores); run it after changing scripts/cluster.
#
# usage: tests/cluster/cluster-stress.sh [COUNT] [-- START-OPTIONS...]
#   e.g. tests/cluster/cluster-stress.sh 5 -- --osds 1 --store memstore
# env: STRESS_DIR (default: a new /tmp/striped-stress.XXXXXX), kept when a
#   start failed, with each failed start's logs; STRESS_CLUSTER, the cluster
#   script to try (default: this tree's scripts/cluster).
# Prints one line per round and a summary; exit 0 when every start
# succeeded, 1 otherwise.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cluster=${STRESS_CLUSTER:-$here/../../scripts/cluster}
count=${1:-20}
shift || true
[[ ${1:-} == -- ]] && shift
[[ $count =~ ^[1-9][0-9]*$ ]] || {
	echo "usage: cluster-stress.sh [COUNT] [-- START-OPTIONS...]" >&2
	exit 2
}
for b in ceph-mon ceph-osd ceph-mgr rados; do
	command -v "$b" >/dev/null || {
		echo "cluster-stress: $b is not installed (scripts/setup-deps)" >&2
		exit 2
	}
done

work=${STRESS_DIR:-$(mktemp -d /tmp/striped-stress.XXXXXX)}
mkdir -p "$work"
mine=$work/mine
neighbour=$work/neighbour
stop_flag=$work/neighbour.run
neighbour_pid=

cleanup() {
	rm -f "$stop_flag"
	if [[ -n $neighbour_pid ]]; then
		# the neighbour loop ends at its next check of the flag
		wait "$neighbour_pid" 2>/dev/null
	fi
	"$cluster" stop --dir "$neighbour" >/dev/null 2>&1
	"$cluster" stop --dir "$mine" >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# The neighbour: start, hold it up a few seconds, stop; again, until told.
# Its starts and failures are counted in $work/neighbour.{ok,fail}.
neighbour_loop() {
	local n=0
	: >"$work/neighbour.ok"
	: >"$work/neighbour.fail"
	while [[ -e $stop_flag ]]; do
		n=$((n + 1))
		if "$cluster" start --dir "$neighbour" --pool nb >/dev/null 2>"$work/neighbour.err"; then
			echo "$n" >>"$work/neighbour.ok"
			sleep $((RANDOM % 5))
		else
			echo "$n $(tail -n 1 "$work/neighbour.err")" >>"$work/neighbour.fail"
		fi
		"$cluster" stop --dir "$neighbour" >/dev/null 2>&1
		sleep $((RANDOM % 3))
	done
}

touch "$stop_flag"
neighbour_loop &
neighbour_pid=$!

ok=0
fail=0
retried=0
times=()
SECONDS=0
for ((i = 1; i <= count; i++)); do
	t0=$(date +%s.%N)
	if "$cluster" start --dir "$mine" "$@" >"$work/env" 2>"$work/start.err"; then
		t1=$(date +%s.%N)
		secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
		# shellcheck disable=SC1091
		if (source "$work/env" && echo "round $i" >"$work/in" &&
			rados -p "$STRIPED_TEST_POOL" put "stress-$i" "$work/in" &&
			rados -p "$STRIPED_TEST_POOL" get "stress-$i" "$work/out" &&
			cmp -s "$work/in" "$work/out") >>"$work/rados.err" 2>&1; then
			ok=$((ok + 1))
			times+=("$secs")
			attempts=$(grep -c 'start attempt [0-9]* failed' "$work/start.err")
			probes=$(grep -c 'I/O probe: .*again once they settle' "$work/start.err")
			((attempts)) && retried=$((retried + 1))
			echo "round $i: up in ${secs}s (failed attempts before: $attempts," \
				"I/O probes repeated: $probes)"
		else
			fail=$((fail + 1))
			echo "round $i: started in ${secs}s but rados put/get failed"
		fi
	else
		fail=$((fail + 1))
		cp "$work/start.err" "$work/round-$i.err"
		cp -r "$mine/log" "$work/round-$i.log" 2>/dev/null
		echo "round $i: FAILED: $(tail -n 1 "$work/start.err") (kept in $work/round-$i.*)"
	fi
	"$cluster" stop --dir "$mine" >/dev/null 2>&1 || echo "round $i: stop failed"
done
cleanup
trap - EXIT
neighbour_pid=

summary=$(printf '%s\n' "${times[@]}" | sort -n | awk '
	{ t[NR] = $1; s += $1 }
	END { if (NR) printf "min %.1fs, median %.1fs, max %.1fs, mean %.1fs", t[1], t[int((NR + 1) / 2)], t[NR], s / NR }')
echo "cluster-stress: $ok of $count starts succeeded ($fail failed, $retried needed a retry" \
	"inside start); start times: ${summary:-none}; the neighbour cluster started" \
	"$(wc -l <"$work/neighbour.ok") times, failed $(wc -l <"$work/neighbour.fail"); ${SECONDS}s"
if ((fail)); then
	echo "cluster-stress: logs kept in $work"
	exit 1
fi
[[ -n ${STRESS_DIR:-} ]] || rm -rf "$work"
exit 0
