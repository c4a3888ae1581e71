#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# defects.sh: the thrasher's checker can fail. Each of three copies of
# libstriped built with one deliberate defect (defects/N-*.patch) is
# loaded by every client of a short run (thrash.py --libdir), on one cluster
# for the three, the schedule biased toward what exposes it; each run must
# end with violations of the rules that defect breaks:
#   1  a write-behind error dropped: buffered clients stopped long enough to
#      be fenced while another truncates; their flush and close say 0 for
#      bytes that never landed (lost, stale)
#   2  a lock broken without fencing: the same, the buffered writer also cut
#      off; the window it had lands after the truncate or remove that broke
#      its lock, once it runs again or the cut heals (stale, earlier-life)
#   3  a truncate that leaves stale objects: truncates down and up and reads,
#      no fault needed; bytes from before a truncate show after it (stale)
#
# usage: defects.sh THRASH_PY [thrash.py's --client/--striper/--dd/--compat/--cli
#        options] LIB1 LIB2 LIB3   (meson passes them)
# env: THRASH_DEFECT_MINUTES (2) per run; THRASH_DEFECT_TRIES (3) runs at most per defect;
#      THRASH_DEFECTS ("1 2 3") which; THRASH_KEEP=1 keeps the work
#      directory. Exit: 0 each defect found, 1 one was not, 77 no Ceph.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../tap.sh
source "$here/../tap.sh"
(($# >= 4)) || { sed -n '3,20s/^# \{0,1\}//p' "$0" >&2; exit 2; }
thrash_py=$1
opts=("${@:2:$# - 4}")
libs=()
for lib in "${@:$# - 2:3}"; do libs+=("$(realpath "$lib")"); done
minutes=${THRASH_DEFECT_MINUTES:-2}

for b in ceph-mon ceph-osd ceph; do
	command -v "$b" >/dev/null || { echo "defects: SKIP: $b is not installed"; exit 77; }
done

work=$(mktemp -d /tmp/striped-thrash-defects.XXXXXX) || exit 1
cleanup() {
	"$root/scripts/cluster" stop --dir "$work/cluster" >/dev/null 2>&1
	if [[ ${THRASH_KEEP:-0} == 1 ]]; then echo "defects: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if ! "$root/scripts/cluster" start --dir "$work/cluster" --osds 3 --replicas 2 \
	--osd-size-gb 4 >/dev/null 2>"$work/cluster-start.err"; then
	tail -n 5 "$work/cluster-start.err"
	echo "defects: FAIL: cannot start the cluster"
	exit 1
fi

# Four clients (sync, buf, aio, bufaio); a defect's run may hang a client: 20 s to stop.
# The three files on the replicated pool, as the biases below were tuned (none
# of the three defects needs an erasure-coded pool to show).
common=(--clients 4 --stop-timeout 20 --pools rep,rep,rep)
# The buffered writer (1 buf) stopped right after a write, long enough to be
# fenced; the others read (whole files, often) and write little.
writer=(--fault-clients 1 --fault-when-writing --gap-min 1 --gap-max 2
	--client-weights buf:write=50,read=20,trunc=0,remove=0,flush=2,reopen=0,wfull=0,append=0)
# 1: one of the others (sync) truncates, a few times a second: a truncate
# breaks the stopped writer's lock, and what the writer lost is read before
# the next truncate cuts it. (With all three truncating and removing, a
# hundred times a second, the next truncate nearly always came first: CI
# once missed it in three runs; this finds 8-50 per run.)
fenced=(--faults stop_long "${writer[@]}"
	--client-weights sync+aio+bufaio:write=2,read=60,trunc=0,remove=0,discard=0,wfull=0,append=0
	--client-weights sync:trunc=3)
# 2: the same writer stopped or cut off right after a write, while the others
# truncate and remove: the window it had lands after the truncate or remove
# that broke its lock (once it runs again, or once the cut heals).
cutoff=(--faults stop_long,partition "${writer[@]}"
	--client-weights sync+aio+bufaio:write=2,read=60,trunc=5,remove=1,discard=0,wfull=0,append=0)
# 3: no fault to speak of: truncates down and up, writes past the end, reads.
cut=(--faults stop_short --gap-min 5 --gap-max 10
	--client-weights write=25,read=30,trunc=20,discard=0,remove=0,append=2,wfull=0)

# One run of defect N with seed S on its biased schedule; its verdict in $found.
run_defect() { # N SEED
	local n=$1 seed=$2 dir=$work/d$1/s$2 rc rules
	mkdir -p "$dir"
	/usr/bin/python3 "$thrash_py" "${opts[@]}" --cluster "$work/cluster" --dir "$dir/run" \
		--keep --seed "$seed" --minutes "$run_minutes" --libdir "$work/d$n/lib" "${common[@]}" \
		"${bias[@]}" >"$dir/out" 2>&1
	rc=$?
	rules=$(grep -o '^VIOLATION [a-z-]*' "$dir/out" | sort | uniq -c | awk '{printf "%s %s, ", $3, $1}')
	found=0
	if ((rc == 1)) && grep -q '^VIOLATION \(stale\|lost\|earlier-life\)' "$dir/out"; then
		found=1
		echo "# defect $n, seed $seed: found: ${rules%, }"
	else
		echo "# defect $n, seed $seed: not found (exit $rc): ${rules:-no violation}"
		tail -n 5 "$dir/out" | sed 's/^/#   /'
	fi
	grep '^violations:' "$dir/out" | sed 's/^/#   /'
}

# A defect shows only when the schedule meets it at the right moment (defect
# 1: a fenced writer's flush, then a read of what it lost before anything
# overwrites it): up to THRASH_DEFECT_TRIES (3) runs, each on a seed of its
# own, and the defect must show in one of them. A checker that cannot see
# it fails all three.
for n in ${THRASH_DEFECTS:-1 2 3}; do
	mkdir -p "$work/d$n/lib"
	ln -s "${libs[n - 1]}" "$work/d$n/lib/libstriped.so.0"
	case $n in
	1) bias=("${fenced[@]}") ;;
	2) bias=("${cutoff[@]}") ;;
	3) bias=("${cut[@]}") ;;
	esac
	# 3 needs no fault and shows thousands of times in 2 minutes: a quarter of it.
	run_minutes=$minutes
	((n == 3)) && run_minutes=$(awk -v m="$minutes" 'BEGIN { print m / 4 }')
	found=0
	for ((try = 0; try < ${THRASH_DEFECT_TRIES:-3} && !found; try++)); do
		run_defect "$n" $((40 + n + 10 * try))
	done
	if ((found)); then
		ok "defect $n found"
	else
		not_ok "defect $n not found in $try runs"
	fi
done
tap_done
