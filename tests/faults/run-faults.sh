#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# run-faults.sh: libstriped and striped-dd through the faults a Ceph cluster
# really has, on a throwaway cluster of its own (3 OSDs, 2 replicas):
#
#   osd_kill     an OSD SIGKILLed in the middle of a 512 MiB write, then of a
#                read, 3 rounds over different OSDs: success means the bytes
#                read back are identical (cmp), before and after the restart;
#                failure must be one clean line
#   pause        `ceph osd pause`: striped-dd op_timeout=5 and the C API
#                (striped_cluster_set_op_timeout) give -ETIMEDOUT in time, no
#                hang, callbacks once; after unpause the same calls succeed
#   full         pool quota (EDQUOT) and full ratio (ENOSPC): writes fail
#                clearly, the data written before is intact, ratios restored
#   client_kill  striped-dd SIGKILLed mid-write: the file is a prefix of the
#                data with holes as zeros, never garbage
#   security     cephx on: read-only, rw-without-class-access and cap-less
#                clients get EPERM (the message says the lock needs osd
#                'allow rwx') and change nothing, a wrong key fails fast; no
#                secret is ever printed
#   bad_input    tests/faults/test_bad_input (API) and bad-input-dd.sh (tool)
#   fork         processes forked after their parent connected (fault_client
#                fork-siblings): a stopped holder sharing the breaker's or a
#                live sibling's address is never fenced (-ENOTUNIQ, nothing
#                blocklisted); connected with striped_cluster_connect, it is
#                fenced alone and its later write fails
#   multiprocessing  16 workers of Python's fork start method (mp_workers.py)
#                write their own files and disjoint regions of one through
#                striped.connect(): distinct addresses, every byte read back
#   partition    a holder writing two files is cut off (iptables-legacy: its
#                cgroup's packets out, its ports' in), another client
#                truncates one and removes the other, the cut heals: none of
#                its calls sent into the cut succeeds (one sent before may,
#                its reply held up by the cut), none hangs, no byte of it
#                lands after the break (fault_client part-holder/part-break/
#                part-verify)
#   mon_restart  the monitor frozen, then killed, while a breaker's blocklist
#                request waits on it: restarted, the truncate goes through
#                and the holder was fenced; with an op timeout and the
#                monitor down, -ETIMEDOUT and the holder keeps its lock
#   osd_kill_break  an OSD killed 2.6 s into a truncate or remove that fenced
#                a stopped holder, its cleanup running (32768 objects): it
#                completes or fails cleanly, a retry finishes it, nothing of
#                the holder's lands
#   mount_osd_kill  cp into striped-mount, dd oflag=direct into it, cp out of
#                it, each with an OSD SIGKILLed a second in: each succeeds,
#                the bytes identical (mount-osd-kill.sh; FAULTS_MOUNT)
#
# usage: run-faults.sh STRIPED_DD FAULT_CLIENT TEST_BAD_INPUT [SCENARIO...]
#   (meson passes the three programs; no scenario: all of them)
# env: FAULTS_KEEP=1 keeps the work directory (cluster logs, outputs) on
#   failure; FAULTS_ROUNDS (3) and FAULTS_SIZE_MB (512) for osd_kill;
#   FAULTS_PYTHON and FAULTS_PYTHONPATH (meson sets them): the Python that
#   runs mp_workers.py, and where it finds the package;
#   FAULTS_STRICT=1 turns known issues (KNOWN_ISSUES below) into failures;
#   FAULTS_MOUNT (meson sets it): striped-mount, for mount_osd_kill.
# Exit: 0 pass, 1 fail, 77 skip (no Ceph, or striped-dd not built).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
FAULTS_PREFIX=run-faults
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=mount-osd-kill.sh
source "$here/mount-osd-kill.sh"

# Known defects, reported with a repro; their checks run as xcheck.
# Fixed, now ordinary checks: K3-oid-race (the size update no longer runs
# from a callback), K4-truncate-huge (growing cleans at most one object set,
# shrinking a sparse file lists the pool), K6-long-message (8 KiB messages),
# K7-newline (control characters are escaped), K8-failed-grow (a write
# refused with -EDQUOT/-ENOSPC left the file grown: the size update beside
# the data is now cancelled before it lands, lib/size.c).
export KNOWN_ISSUES=""

usage() {
	sed -n '3,56s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

(($# >= 3)) || usage
dd_bin=$1 fc_bin=$2 tbi_bin=$3
shift 3
all_scenarios=(bad_input security pause full client_kill osd_kill fork multiprocessing partition
	mon_restart osd_kill_break mount_osd_kill)
if (($#)); then scenarios=("$@"); else scenarios=("${all_scenarios[@]}"); fi
for s in "${scenarios[@]}"; do
	[[ " ${all_scenarios[*]} " == *" $s "* ]] || { echo "unknown scenario: $s" >&2; usage; }
done

for b in ceph-mon ceph-osd ceph-mgr ceph ceph-authtool rados; do
	if ! command -v "$b" >/dev/null; then
		echo "run-faults: SKIP: $b is not installed (scripts/setup-deps)"
		exit 77
	fi
done
for b in "$dd_bin" "$fc_bin" "$tbi_bin"; do
	if [[ ! -x $b ]]; then
		echo "run-faults: SKIP: $b is not built"
		exit 77
	fi
done

work=$(mktemp -d /tmp/striped-faults.XXXXXX) || exit 1
chmod 700 "$work"
export FAULTS_CLUSTER=$work/cluster FAULTS_OUT=$work/out
mkdir -p "$FAULTS_OUT"
cluster_started=0
tmpfs_dir=
partition_cg=

cleanup() {
	local rc=$? pid
	# a scenario's background striped-dd or fault_client (never the
	# restarted OSDs: they are disowned and go with the cluster)
	for pid in $(jobs -p); do
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	[[ -z $partition_cg ]] || partition_cleanup "$partition_cg"
	if ((cluster_started)); then
		# whatever a scenario left behind, the daemons go
		timeout 20 ceph --connect-timeout 10 osd unpause >/dev/null 2>&1
		timeout 20 ceph --connect-timeout 10 osd unset nodown >/dev/null 2>&1
		"$root/scripts/cluster" stop --dir "$FAULTS_CLUSTER" >>"$FAULTS_OUT/cluster-stop.err" 2>&1
	fi
	if [[ -n $tmpfs_dir ]] && mountpoint -q "$tmpfs_dir"; then umount "$tmpfs_dir"; fi
	if ((rc != 0)) && [[ ${FAULTS_KEEP:-0} == 1 ]]; then
		echo "run-faults: work directory kept: $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# ---- the cluster ----------------------------------------------------------

start_cluster() {
	local t0=$SECONDS
	cluster_started=1
	if ! "$root/scripts/cluster" start --dir "$FAULTS_CLUSTER" --osds 3 --replicas 2 \
		>"$work/env" 2>"$FAULTS_OUT/cluster-start.err"; then
		tail -n 5 "$FAULTS_OUT/cluster-start.err"
		echo "run-faults: FAIL: cannot start the sandbox cluster"
		exit 1
	fi
	# shellcheck disable=SC1091
	source "$work/env"
	export CEPH_CONF STRIPED_TEST_POOL
	pool=$STRIPED_TEST_POOL
	# A killed OSD is marked down in seconds: its peers see the refused
	# connection at once (osd_fast_fail_on_connection_refused) or miss
	# heartbeats for 4 s. All OSDs share one host, so reports must count per
	# OSD, and one is enough. OSDs stay "in" (mon_osd_down_out_interval at
	# its default 600 s): the PGs re-peer degraded on the survivor and no
	# backfill slows the next round.
	cephq config set global osd_heartbeat_grace 4 >/dev/null &&
		cephq config set global osd_heartbeat_interval 1 >/dev/null &&
		cephq config set mon mon_osd_reporter_subtree_level osd >/dev/null &&
		cephq config set mon mon_osd_min_down_reporters 1 >/dev/null ||
		{ echo "run-faults: FAIL: ceph config set"; exit 1; }
	say "cluster up in $((SECONDS - t0))s ($FAULTS_CLUSTER, pool $pool)"
}

# wait_pid PID SECS: wait for PID (a child); kill it after SECS. Sets $wait_rc
# and $wait_secs; returns 1 when it had to be killed.
wait_pid() {
	local pid=$1 limit=$2 t0
	t0=$(now)
	while kill -0 "$pid" 2>/dev/null; do
		if ! le "$(elapsed "$t0" "$(now)")" "$limit"; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			wait_rc=124
			wait_secs=$(elapsed "$t0" "$(now)")
			return 1
		fi
		sleep 0.05
	done
	wait "$pid"
	wait_rc=$?
	wait_secs=$(elapsed "$t0" "$(now)")
	return 0
}

# dd_cmp NAME STRIPED_PATH LOCAL [BYTES]: read STRIPED_PATH (its first BYTES)
# with striped-dd and compare it with LOCAL (its first BYTES). Sets $dd_rc
# and $cmp_rc.
dd_cmp() {
	local name=$1 spath=$2 local_file=$3 bytes=${4:-}
	local count=() want=$local_file
	if [[ -n $bytes ]]; then
		count=(count="${bytes}B")
		want=$work/$name.want
		head -c "$bytes" "$local_file" >"$want"
	fi
	{
		"$dd_bin" if="$spath" bs=4M "${count[@]}" status=none 2>"$FAULTS_OUT/$name.err"
		echo $? >"$work/$name.rc"
	} | cmp -s - "$want"
	cmp_rc=$?
	dd_rc=$(cat "$work/$name.rc")
	rm -f "$work/$name.rc" "$work/$name.want"
	[[ $dd_rc == 0 && $cmp_rc == 0 ]]
}

# ---- scenario: OSD killed under a write and under a read ------------------

restart_and_settle() { # OSD WHAT
	if ! daemon_restart "osd.$1"; then
		fail "$2: osd.$1 does not restart"
		return 1
	fi
	if ! wait_osd "$1" up 90; then
		fail "$2: osd.$1 not up 90 s after its restart"
		return 1
	fi
	if ! wait_clean 180; then
		fail "$2: PGs not active+clean 180 s after osd.$1 came back"
		return 1
	fi
	return 0
}

# kill_during NAME OSD AFTER CMD...: run CMD in the background, SIGKILL
# osd.OSD after AFTER seconds; sets $wait_rc, $wait_secs, $inflight.
kill_during() {
	local name=$1 osd=$2 after=$3 pid
	shift 3
	"$@" >"$FAULTS_OUT/$name.out" 2>"$FAULTS_OUT/$name.err" &
	pid=$!
	sleep "$after"
	inflight=no
	kill -0 "$pid" 2>/dev/null && inflight=yes
	osd_kill "$osd" || fail "$name: osd.$osd was not running"
	wait_pid "$pid" 300 || fail "$name: still running 300 s after osd.$osd was killed (hang)"
}

scenario_osd_kill() {
	local rounds=${FAULTS_ROUNDS:-3} mb=${FAULTS_SIZE_MB:-512} r w rd name spath
	local src=$work/src-$mb
	head -c "${mb}M" /dev/urandom >"$src"
	for ((r = 0; r < rounds; r++)); do
		w=$((r % 3))
		rd=$(((r + 1) % 3))
		name=osdkill-$r
		spath=rados://$pool/$name

		# a write in progress
		kill_during "$name-write" "$w" 1 "$dd_bin" if="$src" of="$spath" bs=4M status=none
		local wrote=$wait_rc
		if ((wrote == 0)); then
			pass "osd_kill[$r]: $mb MiB write survived SIGKILL of osd.$w (in flight: $inflight, $wait_secs s)"
			dd_cmp "$name-read-degraded" "$spath" "$src"
			verdict $? "osd_kill[$r]: read back with osd.$w down: identical (dd $dd_rc, cmp $cmp_rc)"
		elif ((wrote != 124)); then
			one_line_error "$FAULTS_OUT/$name-write.err" "striped-dd: "
			verdict $? "osd_kill[$r]: write failed cleanly after SIGKILL of osd.$w: $(head -c 200 "$FAULTS_OUT/$name-write.err")"
		fi
		[[ $inflight == yes ]] || say "osd_kill[$r]: note: the write had finished before the kill"
		restart_and_settle "$w" "osd_kill[$r]" || return
		if ((wrote != 0)); then
			"$dd_bin" if="$src" of="$spath" bs=4M status=none 2>"$FAULTS_OUT/$name-rewrite.err"
			verdict $? "osd_kill[$r]: rewrite after the failed write"
		fi

		# a read in progress, after osd.$w came back: it compares every
		# byte, so it is also the read after the restart
		kill_during "$name-read" "$rd" 1 dd_cmp "$name-read-killed" "$spath" "$src"
		if ((wait_rc == 0)); then
			pass "osd_kill[$r]: read survived SIGKILL of osd.$rd, bytes identical (in flight: $inflight, $wait_secs s)"
		elif [[ -s $FAULTS_OUT/$name-read-killed.err ]]; then
			one_line_error "$FAULTS_OUT/$name-read-killed.err" "striped-dd: "
			verdict $? "osd_kill[$r]: read failed cleanly after SIGKILL of osd.$rd: $(head -c 200 "$FAULTS_OUT/$name-read-killed.err")"
		else
			fail "osd_kill[$r]: read after SIGKILL of osd.$rd returned wrong bytes without an error"
		fi
		restart_and_settle "$rd" "osd_kill[$r]" || return
		dd_cmp "$name-read-final" "$spath" "$src"
		verdict $? "osd_kill[$r]: read back after osd.$rd restarted: identical (dd $dd_rc, cmp $cmp_rc)"
		run_logged "$name-rm" "$fc_bin" rm "$pool" "$name"
		verdict $? "osd_kill[$r]: remove $name"
	done
	rm -f "$src"
}

# ---- scenario: cluster paused ----------------------------------------------

# dd_timed NAME LIMIT ARGS...: striped-dd ARGS, at most LIMIT s; sets $wait_rc, $wait_secs.
dd_timed() {
	local name=$1 limit=$2 pid
	shift 2
	"$dd_bin" "$@" >"$FAULTS_OUT/$name.out" 2>"$FAULTS_OUT/$name.err" &
	pid=$!
	wait_pid "$pid" "$limit"
}

# expect_dd_error NAME WANT_TEXT MAX_SECS WHAT: after dd_timed, the run failed
# within MAX_SECS with one line "striped-dd: ...WANT_TEXT".
expect_dd_error() {
	local name=$1 want=$2 max=$3
	shift 3
	[[ $wait_rc != 0 && $wait_rc != 124 ]] && le "$wait_secs" "$max" &&
		one_line_error "$FAULTS_OUT/$name.err" "striped-dd: " &&
		grep -qF -- "$want" "$FAULTS_OUT/$name.err"
}

scenario_pause() {
	local small=$work/pause-src name
	head -c 8M /dev/urandom >"$small"
	"$dd_bin" if="$small" of="rados://$pool/pause-dd" bs=1M status=none 2>"$FAULTS_OUT/pause-prep.err"
	verdict $? "pause: prepare rados://$pool/pause-dd"
	cephq osd pause >/dev/null 2>"$FAULTS_OUT/pause-cmd.err" || { fail "pause: ceph osd pause"; return; }

	# three striped-dd runs at once, each must give up on its own
	local pids=() names=(read write overwrite) i t_launch
	t_launch=$(now)
	"$dd_bin" if="rados://$pool/pause-dd" of="$work/pause-out" bs=1M op_timeout=5 \
		>"$FAULTS_OUT/pause-read.out" 2>"$FAULTS_OUT/pause-read.err" &
	pids+=($!)
	"$dd_bin" if="$small" of="rados://$pool/pause-new" bs=1M op_timeout=5 \
		>"$FAULTS_OUT/pause-write.out" 2>"$FAULTS_OUT/pause-write.err" &
	pids+=($!)
	"$dd_bin" if="$small" of="rados://$pool/pause-dd" bs=1M conv=notrunc,nocreat op_timeout=5 \
		>"$FAULTS_OUT/pause-overwrite.out" 2>"$FAULTS_OUT/pause-overwrite.err" &
	pids+=($!)
	for i in 0 1 2; do
		name=${names[$i]}
		wait_pid "${pids[$i]}" 60
		wait_secs=$(elapsed "$t_launch" "$(now)") # since all three started
		expect_dd_error "pause-$name" "Connection timed out" 7
		verdict $? "pause: striped-dd $name op_timeout=5 under pause: exit $wait_rc after $wait_secs s (want a timeout within 7 s): $(head -n 1 "$FAULTS_OUT/pause-$name.err" | head -c 160)"
	done
	cephq osd unpause >/dev/null 2>>"$FAULTS_OUT/pause-cmd.err" || fail "pause: ceph osd unpause"

	dd_timed pause-read-after 60 if="rados://$pool/pause-dd" of="$work/pause-out" bs=1M op_timeout=5
	[[ $wait_rc == 0 ]] && cmp -s "$work/pause-out" "$small"
	verdict $? "pause: after unpause the same read succeeds, identical ($wait_secs s)"
	dd_timed pause-write-after 60 if="$small" of="rados://$pool/pause-new" bs=1M op_timeout=5
	[[ $wait_rc == 0 ]] && dd_cmp pause-verify "rados://$pool/pause-new" "$small"
	verdict $? "pause: after unpause the same write succeeds, read back identical"

	# The C API: the program pauses and unpauses the cluster itself. In a
	# plain build it runs under valgrind, whose leak check proves that no
	# completion (ours or librados') outlives the calls that timed out; an
	# ASan build checks the same with LeakSanitizer at exit.
	local pid vg=() how=native
	if [[ ${FAULTS_SANITIZE:-none} == none ]] && command -v valgrind >/dev/null; then
		vg=(valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99
			--num-callers=30 --log-file="$FAULTS_OUT/pause-api.valgrind")
		how=valgrind
	elif [[ ${FAULTS_SANITIZE:-none} != none ]]; then
		how=$FAULTS_SANITIZE
	fi
	"${vg[@]}" "$fc_bin" --timeout 2 --slack 2 pause "$pool" \
		>"$FAULTS_OUT/pause-api.out" 2>"$FAULTS_OUT/pause-api.err" &
	pid=$!
	wait_pid "$pid" 180 || fail "pause: fault_client pause hung (killed after 180 s)"
	cephq osd unpause >/dev/null 2>&1
	sed 's/^/    /' "$FAULTS_OUT/pause-api.out"
	verdict "$wait_rc" "pause: C API under pause ($how; striped_cluster_set_op_timeout 2 s): $(grep -c '^ok' "$FAULTS_OUT/pause-api.out") checks ok, exit $wait_rc ($wait_secs s)"
	if [[ $how == valgrind ]]; then
		grep -E 'definitely lost|in use at exit|ERROR SUMMARY' "$FAULTS_OUT/pause-api.valgrind" |
			sed 's/^==[0-9]*== */    valgrind: /'
	fi
	for name in pause-dd pause-new; do
		run_logged "pause-rm-$name" "$fc_bin" rm "$pool" "$name" || fail "pause: remove $name"
	done
	rm -f "$small" "$work/pause-out"
}

# ---- scenario: pool over quota, cluster over its full ratio ----------------

full_pool=faults-full

# full_checks KIND ERRTEXT ERRNAME DATA: the pool is full; DATA (16 MiB of
# $work/full-src) was written before.
full_checks() {
	local kind=$1 text=$2 ename=$3 data=$4 size

	dd_timed "full-$kind-create" 30 if="$work/full-src" of="rados://$full_pool/$kind-new" \
		bs=4M count=1 op_timeout=5
	expect_dd_error "full-$kind-create" "rados://$full_pool/$kind-new: $text" 3
	verdict $? "full($kind): striped-dd to a new file fails at once: exit $wait_rc after $wait_secs s: $(head -n 1 "$FAULTS_OUT/full-$kind-create.err" | head -c 160)"

	# in place, the same bytes: Ceph lets an overwrite that does not grow
	# the object through (FULL_TRY); refusing it is fine too
	dd_timed "full-$kind-overwrite" 30 if="$work/full-src" of="rados://$full_pool/$data" \
		bs=4M count=1 conv=notrunc,nocreat op_timeout=5
	[[ $wait_rc == 0 ]] || expect_dd_error "full-$kind-overwrite" "$text" 3
	verdict $? "full($kind): striped-dd overwrite in place (conv=notrunc,nocreat): exit $wait_rc after $wait_secs s $(head -n 1 "$FAULTS_OUT/full-$kind-overwrite.err" | grep '^striped-dd' | head -c 160)"

	dd_timed "full-$kind-extend" 30 if="$work/full-src" of="rados://$full_pool/$data" \
		bs=4M seek=4 count=1 conv=notrunc,nocreat op_timeout=5
	expect_dd_error "full-$kind-extend" "error writing 'rados://$full_pool/$data': $text" 3
	verdict $? "full($kind): striped-dd extending write fails at once: exit $wait_rc after $wait_secs s: $(head -n 1 "$FAULTS_OUT/full-$kind-extend.err" | head -c 160)"

	dd_cmp "full-$kind-read" "rados://$full_pool/$data" "$work/full-src" $((16 << 20))
	verdict $? "full($kind): the 16 MiB written before read back identical"
	size=$("$dd_bin" if="rados://$full_pool/$data" bs=4M status=none 2>/dev/null | wc -c)
	[[ $size == $((16 << 20)) ]]
	verdict $? "full($kind): the refused extending write left the size at 16 MiB (now $size bytes)"

	run_logged "full-$kind-api" "$fc_bin" --timeout 5 --slack 1 full "$full_pool" "$kind-api" \
		$((8 << 20)) 41 "$ename"
	sed 's/^/    /' "$FAULTS_OUT/full-$kind-api.out"
	! grep -q '^FAIL' "$FAULTS_OUT/full-$kind-api.out"
	verdict $? "full($kind): C API: create and growing writes give -$ename at once, the size stays, data intact, remove works ($(grep -c '^ok' "$FAULTS_OUT/full-$kind-api.out") checks ok)"
}

full_prepare() { # KIND
	"$dd_bin" if="$work/full-src" of="rados://$full_pool/$1-data" bs=4M count=4 status=none \
		2>"$FAULTS_OUT/full-$1-prep.err" &&
		run_logged "full-$1-prep-api" "$fc_bin" write "$full_pool" "$1-api" $((8 << 20)) 41 &&
		run_logged "full-$1-prep-victim" "$fc_bin" write "$full_pool" "$1-api-victim" $((4 << 20)) 42
}

scenario_full() {
	local js ratio
	head -c 16M /dev/urandom >"$work/full-src"
	cephq osd pool create "$full_pool" 8 8 replicated >/dev/null 2>&1 &&
		cephq osd pool application enable "$full_pool" rados >/dev/null 2>&1 &&
		wait_clean 60
	verdict $? "full: pool $full_pool created" || return

	# quota: 28 MiB stored, quota 16 MiB
	full_prepare quota
	verdict $? "full(quota): 28 MiB written before the quota"
	cephq osd pool set-quota "$full_pool" max_bytes $((16 << 20)) >/dev/null 2>&1
	if wait_pool_flag "$full_pool" full_quota set 60; then
		pass "full(quota): pool flagged full_quota"
		full_checks quota "Disk quota exceeded" EDQUOT quota-data
	else
		fail "full(quota): pool not flagged full_quota 60 s after set-quota"
	fi
	cephq osd pool set-quota "$full_pool" max_bytes 0 >/dev/null 2>&1
	wait_pool_flag "$full_pool" full_quota clear 60
	verdict $? "full(quota): quota removed, flag cleared"
	dd_timed full-quota-after 60 if="$work/full-src" of="rados://$full_pool/quota-after" bs=4M op_timeout=10
	[[ $wait_rc == 0 ]] && dd_cmp full-quota-after-read "rados://$full_pool/quota-after" "$work/full-src"
	verdict $? "full(quota): after the quota is lifted a write succeeds, read back identical"

	# full ratio: below what every OSD already uses
	full_prepare ratio
	verdict $? "full(ratio): 28 MiB written before the full ratio"
	js=$(cephq osd df -f json) || { fail "full(ratio): ceph osd df"; return; }
	ratio=$(jpy 'print("%.4f" % (min(n["utilization"] for n in d["nodes"]) / 100 / 2))' <<<"$js")
	cephq osd set-nearfull-ratio "$(awk -v r="$ratio" 'BEGIN { print r * 0.8 }')" >/dev/null 2>&1 &&
		cephq osd set-backfillfull-ratio "$(awk -v r="$ratio" 'BEGIN { print r * 0.9 }')" >/dev/null 2>&1 &&
		cephq osd set-full-ratio "$ratio" >/dev/null 2>&1
	verdict $? "full(ratio): full ratio set to $ratio (half the least used OSD)"
	if wait_pool_flag "$full_pool" full set 60; then
		pass "full(ratio): pool flagged full"
		full_checks ratio "No space left on device" ENOSPC ratio-data
	else
		fail "full(ratio): pool not flagged full 60 s after set-full-ratio"
	fi
	cephq osd set-full-ratio 0.95 >/dev/null 2>&1
	cephq osd set-backfillfull-ratio 0.90 >/dev/null 2>&1
	cephq osd set-nearfull-ratio 0.85 >/dev/null 2>&1
	wait_pool_flag "$full_pool" full clear 60
	verdict $? "full(ratio): ratios restored (0.85/0.90/0.95), flag cleared"
	dd_timed full-ratio-after 60 if="$work/full-src" of="rados://$full_pool/ratio-after" bs=4M op_timeout=10
	[[ $wait_rc == 0 ]] && dd_cmp full-ratio-after-read "rados://$full_pool/ratio-after" "$work/full-src"
	verdict $? "full(ratio): after the ratios are restored a write succeeds, read back identical"

	cephq osd pool rm "$full_pool" "$full_pool" --yes-i-really-really-mean-it >/dev/null 2>&1
	verdict $? "full: pool $full_pool removed"
	rm -f "$work/full-src"
}

# ---- scenario: striped-dd killed mid-write ---------------------------------

scenario_client_kill() {
	local src=$work/ck-src mode name pid after blocks size rc
	head -c 256M /dev/urandom >"$src"
	for mode in direct iodepth8 default; do
		name=ck-$mode
		case $mode in
		direct)
			after=1.0 blocks=1
			set -- oflag=direct
			;;
		iodepth8)
			after=0.7 blocks=8
			set -- iodepth=8
			;;
		default)
			after=0.4 blocks=4
			set --
			;;
		esac
		"$dd_bin" if="$src" of="rados://$pool/$name" bs=1M stripe_unit=64K stripe_count=4 \
			object_size=1M status=none "$@" >"$FAULTS_OUT/$name.out" 2>"$FAULTS_OUT/$name.err" &
		pid=$!
		sleep "$after"
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			skip_one "client_kill($mode): striped-dd finished within ${after}s, nothing to kill"
			continue
		fi
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		"$dd_bin" if="rados://$pool/$name" of="$work/$name.out" bs=4M status=none \
			2>"$FAULTS_OUT/$name-read.err"
		rc=$?
		if ((rc)) && grep -q "No such file or directory" "$FAULTS_OUT/$name-read.err"; then
			# A busy host: the writer was still connecting when it was killed.
			skip_one "client_kill($mode): killed after ${after}s, before striped-dd created the file"
			continue
		fi
		verdict $rc "client_kill($mode): the killed writer's file reads back"
		size=$(stat -c %s "$work/$name.out")
		run_logged "$name-check" "$fc_bin" check-prefix "$work/$name.out" "$src" $((1 << 20)) "$blocks"
		verdict $? "client_kill($mode): SIGKILL after ${after}s left $((size >> 20)) MiB: a prefix of the data, holes zero, no garbage ($(grep -c '^ok' "$FAULTS_OUT/$name-check.out") checks)"
		grep -v '^ok' "$FAULTS_OUT/$name-check.out" | sed 's/^/    /'
		# The dead writer's lock still holds the file: a truncating writer
		# asks it, hears nothing, fences it (blocklist) and breaks it.
		killed_at=$SECONDS
		dd_timed "$name-rewrite" 60 if="$src" of="rados://$pool/$name" bs=4M count=4 op_timeout=10
		[[ $wait_rc == 0 ]] && dd_cmp "$name-reread" "rados://$pool/$name" "$src" $((16 << 20)) &&
			[[ $("$dd_bin" if="rados://$pool/$name" bs=4M status=none 2>/dev/null | wc -c) == $((16 << 20)) ]] &&
			((SECONDS - killed_at < 20))
		verdict $? "client_kill($mode): right after the kill a new striped-dd fences the dead writer and rewrites the file ($((SECONDS - killed_at)) s, 16 MiB, truncating)"
		run_logged "$name-rm" "$fc_bin" rm "$pool" "$name" || fail "client_kill($mode): remove"
		rm -f "$work/$name.out"
	done
	rm -f "$src"
}

# ---- scenario: cephx and capabilities --------------------------------------

scenario_security() {
	local sec=$work/sec src=$work/sec-src
	mkdir -m 700 "$sec"
	head -c 8M /dev/urandom >"$src"
	cephq auth get-or-create client.faults-ro mon 'allow r' osd "allow r pool=$pool" \
		-o "$sec/ro.keyring" >"$FAULTS_OUT/sec-auth-ro.out" 2>&1 &&
		cephq auth get-or-create client.faults-none mon 'allow r' \
			-o "$sec/none.keyring" >"$FAULTS_OUT/sec-auth-none.out" 2>&1 &&
		cephq auth get-or-create client.faults-other mon 'allow r' \
			osd 'allow rw pool=device_health_metrics' \
			-o "$sec/other.keyring" >"$FAULTS_OUT/sec-auth-other.out" 2>&1 &&
		ceph-authtool --create-keyring "$sec/wrong.keyring" --gen-key -n client.faults-ro \
			>/dev/null 2>&1 &&
		ceph-authtool --create-keyring "$sec/unknown.keyring" --gen-key -n client.faults-nobody \
			>/dev/null 2>&1
	verdict $? "security: clients faults-ro (osd r), faults-none (no osd caps), faults-other (another pool); a wrong and an unknown key" || return
	[[ $(ceph-conf -c "$CEPH_CONF" --lookup auth_client_required 2>/dev/null) == cephx ]]
	verdict $? "security: cephx is required (auth_client_required = cephx)"

	"$dd_bin" if="$src" of="rados://$pool/sec-dd" bs=1M status=none 2>"$FAULTS_OUT/sec-prep.err" &&
		run_logged sec-prep-api "$fc_bin" write "$pool" sec-api $((4 << 20)) 31
	verdict $? "security: files written by client.admin" || return

	local ro=(id=faults-ro keyring="$sec/ro.keyring" op_timeout=10)
	dd_timed sec-ro-read 30 if="rados://$pool/sec-dd" of="$work/sec-out" bs=1M "${ro[@]}"
	[[ $wait_rc == 0 ]] && cmp -s "$work/sec-out" "$src"
	verdict $? "security: read-only client reads the file, identical"
	dd_timed sec-ro-create 30 if="$src" of="rados://$pool/sec-new" bs=1M "${ro[@]}"
	expect_dd_error sec-ro-create "rados://$pool/sec-new: Operation not permitted" 10
	verdict $? "security: read-only client, new file: $(head -c 160 "$FAULTS_OUT/sec-ro-create.err")"
	dd_timed sec-ro-trunc 30 if="$src" of="rados://$pool/sec-dd" bs=1M count=1 "${ro[@]}"
	expect_dd_error sec-ro-trunc "Operation not permitted" 10
	verdict $? "security: read-only client, overwrite with truncation: $(head -c 160 "$FAULTS_OUT/sec-ro-trunc.err")"
	dd_timed sec-ro-notrunc 30 if=/dev/zero of="rados://$pool/sec-dd" bs=1M count=2 conv=notrunc,nocreat "${ro[@]}"
	expect_dd_error sec-ro-notrunc "Operation not permitted" 10
	verdict $? "security: read-only client, overwrite in place: $(head -c 160 "$FAULTS_OUT/sec-ro-notrunc.err")"
	dd_cmp sec-unchanged "rados://$pool/sec-dd" "$src"
	verdict $? "security: the file is unchanged after the refused writes"
	run_logged sec-api-ro "$fc_bin" --id faults-ro --keyring "$sec/ro.keyring" perm-ro "$pool" sec-api $((4 << 20)) 31
	verdict $? "security: C API as the read-only client: EPERM for write/truncate/create/remove, data unchanged ($(grep -c '^ok' "$FAULTS_OUT/sec-api-ro.out") checks)"
	grep '^FAIL' "$FAULTS_OUT/sec-api-ro.out" | sed 's/^/    /'

	# A key that may read and write but call no class method: the lock is one.
	cephq auth get-or-create client.faults-rwnox mon 'allow r' osd "allow rw pool=$pool" \
		-o "$sec/rwnox.keyring" >"$FAULTS_OUT/sec-auth-rwnox.out" 2>&1
	verdict $? "security: client faults-rwnox (osd 'allow rw', no x)" || return
	local rwnox=(id=faults-rwnox keyring="$sec/rwnox.keyring" op_timeout=10)
	local needs_x="Operation not permitted (writing a striped file takes its lock, a class method: the key needs osd 'allow rwx'"
	dd_timed sec-rwnox-create 30 if="$src" of="rados://$pool/sec-new" bs=1M "${rwnox[@]}"
	expect_dd_error sec-rwnox-create "rados://$pool/sec-new: $needs_x" 10
	verdict $? "security: rw key without class access, new file: the message names what is missing: $(head -c 200 "$FAULTS_OUT/sec-rwnox-create.err")"
	dd_timed sec-rwnox-notrunc 30 if=/dev/zero of="rados://$pool/sec-dd" bs=1M count=2 conv=notrunc,nocreat "${rwnox[@]}"
	expect_dd_error sec-rwnox-notrunc "error writing 'rados://$pool/sec-dd': $needs_x" 10
	verdict $? "security: rw key without class access, overwrite in place: refused, not written without the lock: $(head -c 200 "$FAULTS_OUT/sec-rwnox-notrunc.err")"
	dd_cmp sec-rwnox-unchanged "rados://$pool/sec-dd" "$src"
	verdict $? "security: the file is unchanged after the rw key's refused writes"
	run_logged sec-api-rwnox "$fc_bin" --id faults-rwnox --keyring "$sec/rwnox.keyring" perm-ro "$pool" sec-api $((4 << 20)) 31
	verdict $? "security: C API as the rw key without class access: reads, and -EPERM for write/truncate/create/remove, data unchanged ($(grep -c '^ok' "$FAULTS_OUT/sec-api-rwnox.out") checks)"
	grep '^FAIL' "$FAULTS_OUT/sec-api-rwnox.out" | sed 's/^/    /'

	local who
	for who in none other; do
		dd_timed "sec-$who-read" 30 if="rados://$pool/sec-dd" of=/dev/null bs=1M \
			id="faults-$who" keyring="$sec/$who.keyring" op_timeout=10
		expect_dd_error "sec-$who-read" "rados://$pool/sec-dd: Operation not permitted" 10
		verdict $? "security: client without caps on the pool ($who), read: $(head -c 160 "$FAULTS_OUT/sec-$who-read.err")"
		run_logged "sec-api-$who" "$fc_bin" --id "faults-$who" --keyring "$sec/$who.keyring" perm-none "$pool" sec-api
		verdict $? "security: C API as faults-$who: EPERM for open/create/remove"
	done

	# authentication failures are quick and clear
	dd_timed sec-wrong-key 30 if="rados://$pool/sec-dd" of=/dev/null bs=1M id=faults-ro \
		keyring="$sec/wrong.keyring" op_timeout=5
	expect_dd_error sec-wrong-key "cannot connect to the cluster: Permission denied" 10
	verdict $? "security: wrong key for client.faults-ro fails in $wait_secs s: $(head -c 160 "$FAULTS_OUT/sec-wrong-key.err")"
	dd_timed sec-unknown 30 if="rados://$pool/sec-dd" of=/dev/null bs=1M id=faults-nobody \
		keyring="$sec/unknown.keyring" op_timeout=5
	expect_dd_error sec-unknown "cannot connect to the cluster: Permission denied" 10
	verdict $? "security: unknown client fails in $wait_secs s: $(head -c 160 "$FAULTS_OUT/sec-unknown.err")"
	CEPH_ARGS="--auth_client_required=none" dd_timed sec-noauth 30 if="rados://$pool/sec-dd" \
		of=/dev/null bs=1M op_timeout=5
	expect_dd_error sec-noauth "cannot connect to the cluster" 10
	verdict $? "security: a client without cephx is refused in $wait_secs s: $(head -c 160 "$FAULTS_OUT/sec-noauth.err")"
	# a client without its key: librados' bare ENOENT, with no hint it is the keyring
	dd_timed sec-nokeyring 30 if="rados://$pool/sec-dd" of=/dev/null bs=1M id=faults-ro \
		keyring="$sec/missing.keyring" op_timeout=5
	expect_dd_error sec-nokeyring "cannot connect to the cluster: No such file or directory" 10
	verdict $? "security: a missing keyring fails in $wait_secs s: $(head -c 160 "$FAULTS_OUT/sec-nokeyring.err")"

	for who in sec-dd sec-api; do
		run_logged "sec-rm-$who" "$fc_bin" rm "$pool" "$who" || fail "security: remove $who"
	done
	for who in ro none other rwnox; do
		cephq auth rm "client.faults-$who" >/dev/null 2>&1
	done
	rm -f "$src" "$work/sec-out"
}

# ---- scenario: processes forked after librados was used ---------------------

# show_client NAME: fault_client's info and failure lines, indented.
show_client() {
	grep -v '^ok' "$FAULTS_OUT/$1.out" | sed 's/^/    /'
}

scenario_fork() {
	run_logged fork "$fc_bin" --timeout 30 fork-siblings "$pool" fork
	local rc=$?
	show_client fork
	verdict $rc "fork: siblings forked after the parent connected: a holder whose address is the breaker's or a live sibling's is not fenced (-ENOTUNIQ, no blocklist, everyone keeps working), one connected with striped_cluster_connect is fenced alone ($(grep -c '^ok' "$FAULTS_OUT/fork.out") checks)"
}

scenario_multiprocessing() {
	if [[ -z ${FAULTS_PYTHON:-} ]]; then
		skip_one "multiprocessing: no Python package here (python3 with cffi, no sanitizer)"
		return
	fi
	PYTHONPATH=$FAULTS_PYTHONPATH run_logged mp "$FAULTS_PYTHON" "$here/mp_workers.py" "$pool" mp
	local rc=$?
	grep -v '^ok' "$FAULTS_OUT/mp.out" "$FAULTS_OUT/mp.err" | sed 's/^/    /'
	verdict $rc "multiprocessing: 16 workers of the fork start method, forked after the parent connected, through striped.connect(): distinct addresses, every byte read back ($(grep -c '^ok' "$FAULTS_OUT/mp.out") checks)"
}

# ---- scenario: a holder cut off from the network ----------------------------

# calls_after FILE T: part-holder's calls that returned success after T (epoch s).
calls_after() {
	awk -v t="$2" '$1 == "call" && $5 >= 0 && $6 / 1e9 > t { n++ } END { print n + 0 }' "$1"
}

# calls_sent_after FILE T: part-holder's calls submitted after T (epoch s) that
# returned success. A call sent before the cut may have landed before it and
# have its reply held up by the cut until the heal (a late success, and no
# harm: part-verify checks that nothing landed after the break); a call sent
# into the cut must not succeed, since the holder is blocklisted by the heal.
calls_sent_after() {
	awk -v t="$2" '$1 == "call" && $5 >= 0 && $7 / 1e9 > t { n++ } END { print n + 0 }' "$1"
}

# call_errors FILE: part-holder's failed calls, counted by errno: "-108 x5 ...".
call_errors() {
	awk '$1 == "call" && $5 < 0 { n[$5]++ } END { for (e in n) printf "%s x%d ", e, n[e] }' "$1"
}

scenario_partition() {
	local why cgname=striped-faults-part-$$ hpid addr t_part t_cut t_break t_heal i
	why=$(partition_unavailable)
	if [[ -n $why ]]; then
		skip_one "partition: $why"
		return
	fi
	partition_cg=$cgname
	partition_spawn "$cgname" "$FAULTS_OUT/part-holder.out" "$FAULTS_OUT/part-holder.err" \
		"$fc_bin" part-holder "$pool" part 21 || { fail "partition: cgroup $cgname"; return; }
	hpid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q '^ready' "$FAULTS_OUT/part-holder.out" && break
		kill -0 "$hpid" 2>/dev/null || break
		sleep 0.1
	done
	addr=$(sed -n 's/^addr //p' "$FAULTS_OUT/part-holder.out")
	grep -q '^ready' "$FAULTS_OUT/part-holder.out"
	verdict $? "partition: a holder writes part-t and part-r, 4 calls of 4 MiB in flight (address $addr)" || return
	sleep 1
	t_part=$(now)
	partition_start "$cgname" "$hpid"
	verdict $? "partition: the holder's packets dropped both ways (iptables-legacy: OUTPUT by its cgroup, INPUT by its TCP ports)" || return
	t_cut=$(now) # the rules in place: a call sent from here on meets them
	sleep 1
	t_break=$(now)
	run_logged part-break "$fc_bin" part-break "$pool" part 22
	verdict $? "partition: another client truncates part-t and rewrites 16 MiB, removes part-r, the holder cut off: $(sed -n 's/^ok: //p' "$FAULTS_OUT/part-break.out" | tr '\n' ';')"
	cephq osd blocklist ls 2>/dev/null | grep -qF "$addr "
	verdict $? "partition: the holder's address $addr is blocklisted"
	sleep 1
	partition_heal "$cgname"
	t_heal=$(now)
	wait_pid "$hpid" 60
	verdict $? "partition healed: the holder's calls end $(elapsed "$t_heal" "$(now)") s later (exit $wait_rc), none hangs"
	[[ $(calls_sent_after "$FAULTS_OUT/part-holder.out" "$t_cut") == 0 ]] &&
		grep -q '^call [0-9]* [01] [0-9]* -' "$FAULTS_OUT/part-holder.out"
	verdict $? "partition: the holder's calls: $(grep -c '^call' "$FAULTS_OUT/part-holder.out") in all; sent after the cut and succeeded: $(calls_sent_after "$FAULTS_OUT/part-holder.out" "$t_cut") (want 0); sent before it, their replies after the cut: $(calls_after "$FAULTS_OUT/part-holder.out" "$t_part"), after the break began: $(calls_after "$FAULTS_OUT/part-holder.out" "$t_break"); failed: $(call_errors "$FAULTS_OUT/part-holder.out")"
	partition_cleanup "$cgname"
	partition_cg=
	sleep 2 # anything of the holder's still on the wire has landed by now
	run_logged part-verify "$fc_bin" part-verify "$pool" part 22
	verdict $? "partition: no byte of the holder's after the break: part-t is the breaker's 16 MiB and nothing past it, part-r has no object ($(grep -c '^ok' "$FAULTS_OUT/part-verify.out") checks)"
	show_client part-verify
	run_logged part-rm "$fc_bin" rm "$pool" part-t || fail "partition: remove part-t"
}

# ---- clients driven line by line --------------------------------------------

# sibling_start NAME TIMEOUT ROLE FILE [SEED]: `fault_client --timeout TIMEOUT
# sibling ROLE POOL FILE [SEED]` in the background, its commands through the
# fifo $work/NAME.in (open on fd $NAME_fd), its answers in $FAULTS_OUT/NAME.out;
# sets $NAME_pid and $NAME_addr, and returns once it is ready.
sibling_start() {
	local name=$1 timeout=$2 role=$3 file=$4 fd
	shift 4
	mkfifo "$work/$name.in" || return 1
	"$fc_bin" --timeout "$timeout" sibling "$role" "$pool" "$file" "$@" <"$work/$name.in" \
		>"$FAULTS_OUT/$name.out" 2>"$FAULTS_OUT/$name.err" &
	printf -v "${name}_pid" %s "$!"
	exec {fd}>"$work/$name.in"
	printf -v "${name}_fd" %s "$fd"
	printf -v "${name}_addr" %s "$(sibling_answer "$name" 1 60 | sed 's/^addr //')"
	[[ $(sibling_answer "$name" 2 60) == ready ]]
}

# sibling_answer NAME N LIMIT: its Nth line, waiting at most LIMIT s for it.
sibling_answer() {
	local out=$FAULTS_OUT/$1.out t0=$SECONDS
	while (($(wc -l <"$out") < $2 && SECONDS - t0 < $3)); do
		sleep 0.1
	done
	sed -n "${2}p" "$out"
}

sibling_send() {
	local fd=${1}_fd
	echo "$2" >&"${!fd}"
}

# sibling_end NAME: tell it to go, continue it if stopped, wait (60 s at most).
sibling_end() {
	local pid=${1}_pid
	sibling_send "$1" exit 2>/dev/null
	eval "exec {${1}_fd}>&-"
	kill -CONT "${!pid}" 2>/dev/null
	wait_pid "${!pid}" 60 || fail "$1: still running 60 s after it was told to go"
}

# ---- scenario: the monitor restarted while a blocklist is added ------------

# A stopped holder, a breaker truncating its file, the monitor frozen before
# the breaker asks for the blocklist and killed 3 s later, while the request
# waits on its socket. FILE TIMEOUT: the file, the breaker's op timeout.
# shellcheck disable=SC2154 # mh_pid, mh_addr: set by sibling_start (printf -v)
mon_restart_case() {
	local file=$1 timeout=$2 t0
	sibling_start mh 60 holder "$file" 71 &&
		kill -STOP "$mh_pid" &&
		sibling_start mb "$timeout" breaker "$file"
	verdict $? "mon_restart($file): a holder of $file stopped ($mh_addr), a breaker ready (op timeout $timeout s)" || return 1
	daemon_signal mon.a STOP || { fail "mon_restart($file): mon.a is not running"; return 1; }
	t0=$(now)
	sibling_send mb truncate
	sleep 3 # two silent rounds take 2 s: the blocklist request is on the mon's socket
	daemon_kill mon.a
	say "mon_restart($file): mon.a frozen, then killed $(elapsed "$t0" "$(now)") s after the truncate began"
}

mon_up() { # LIMIT: wait for the restarted monitor to answer
	local t0=$SECONDS
	until cephq mon stat >/dev/null 2>&1; do
		((SECONDS - t0 < $1)) || return 1
		sleep 0.5
	done
}

# holder_lock_held FILE ADDR: is ADDR among the lockers of FILE's head?
holder_lock_held() {
	timeout 60 rados -p "$pool" lock info "$1.0000000000000000" striper.lock 2>/dev/null |
		grep -qF "\"addr\":\"$2\""
}

objects_of() { timeout 120 rados -p "$pool" ls 2>/dev/null | grep -c "^$1\."; }

# shellcheck disable=SC2154 # mh_pid, mh_addr: set by sibling_start (printf -v)
scenario_mon_restart() {
	local answer r secs
	# The breaker waits: the monitor comes back and takes the request.
	mon_restart_case mon-wait 60 || return
	daemon_restart mon.a || { fail "mon_restart: mon.a does not restart"; return; }
	answer=$(sibling_answer mb 3 120)
	read -r r secs <<<"$answer"
	[[ $r == 0 ]]
	verdict $? "mon_restart(mon-wait): the truncate waited for the monitor and went through: '$answer' (result, s)"
	cephq osd blocklist ls 2>/dev/null | grep -qF "$mh_addr "
	verdict $? "mon_restart(mon-wait): the holder was blocklisted before its lock was broken"
	kill -CONT "$mh_pid"
	sibling_send mh write
	answer=$(sibling_answer mh 3 60)
	[[ ${answer%% *} == -* ]]
	verdict $? "mon_restart(mon-wait): the fenced holder's write fails: '$answer'"
	sibling_send mb remove
	answer=$(sibling_answer mb 4 60)
	sibling_end mh
	sibling_end mb
	[[ ${answer%% *} == 0 && $(objects_of mon-wait) == 0 ]]
	verdict $? "mon_restart(mon-wait): removed ('$answer'), no object of the holder's left"
	rm -f "$work/mh.in" "$work/mb.in"

	# The breaker gives up at its op timeout, the monitor still down: a clear
	# error, and the holder keeps its lock (nothing broken unfenced).
	mon_restart_case mon-fail 5 || return
	answer=$(sibling_answer mb 3 60)
	read -r r secs <<<"$answer"
	[[ $r == -110 ]] && le "$secs" 12
	verdict $? "mon_restart(mon-fail): op timeout 5 s, the monitor down: the truncate fails with -ETIMEDOUT: '$answer' (want -110 within 12 s)"
	daemon_restart mon.a && mon_up 60
	verdict $? "mon_restart(mon-fail): mon.a restarted and answers" || return
	! cephq osd blocklist ls 2>/dev/null | grep -qF "$mh_addr " && holder_lock_held mon-fail "$mh_addr"
	verdict $? "mon_restart(mon-fail): the holder is not blocklisted and still holds its lock"
	kill -CONT "$mh_pid"
	sibling_send mh write
	answer=$(sibling_answer mh 3 60)
	sibling_end mh
	run_logged mon-fail-verify "$fc_bin" verify "$pool" mon-fail $((1 << 20)) 72
	[[ ${answer%% *} == $((1 << 20)) ]]
	verdict $? "mon_restart(mon-fail): the holder, never fenced, still writes ('$answer'), and its bytes read back: $(head -c 160 "$FAULTS_OUT/mon-fail-verify.out")"
	sibling_send mb remove
	answer=$(sibling_answer mb 4 60)
	sibling_end mb
	[[ ${answer%% *} == 0 ]]
	verdict $? "mon_restart(mon-fail): removed once the holder closed: '$answer'"
	rm -f "$work/mh.in" "$work/mb.in"
}

# ---- scenario: an OSD killed while a broken lock's truncate or remove runs --

# break_osd_kill OP FILE OSD TIMEOUT [nodown]: a stopped holder of FILE
# (1 MiB, then a hole to 32 GiB: 32768 objects to walk), a breaker (op
# timeout TIMEOUT s) running OP (truncate to 0, or remove) on it, osd.OSD
# killed 2.6 s in: the holder fenced (two silent rounds take 2 s), the
# cleanup running. With nodown the dead OSD stays "up" in the map, as in a
# cluster whose heartbeat grace (20 s by default) outlasts the op timeout:
# its PGs' operations time out. OP completes or fails cleanly; once the OSD
# is back a retry finishes it; the holder's write fails and nothing of it lands.
# shellcheck disable=SC2154 # kh_pid, kh_addr: set by sibling_start (printf -v)
break_osd_kill() {
	local op=$1 file=$2 osd=$3 timeout=$4 nodown=${5:-} answer r secs line=3 inflight=no tries
	sibling_start kh 60 holder "$file" 81 $((32 << 30)) && kill -STOP "$kh_pid" &&
		sibling_start kb "$timeout" breaker "$file"
	verdict $? "osd_kill_break($op): a holder of $file (32 GiB, mostly a hole) stopped, a breaker ready (op timeout $timeout s)" || return 1
	if [[ -n $nodown ]]; then
		cephq osd set nodown >/dev/null 2>&1 || { fail "osd_kill_break($op): ceph osd set nodown"; return 1; }
	fi
	sibling_send kb "$op"
	sleep 2.6
	(($(wc -l <"$FAULTS_OUT/kb.out") < 3)) && inflight=yes
	osd_kill "$osd" || fail "osd_kill_break($op): osd.$osd was not running"
	answer=$(sibling_answer kb 3 300)
	read -r r secs <<<"$answer"
	[[ $r == -* || $r == 0 ]]
	verdict $? "osd_kill_break($op): osd.$osd killed 2.6 s into the $op (still running: $inflight${nodown:+, nodown}): it ends: '$answer' (result, s)"
	cephq osd blocklist ls 2>/dev/null | grep -qF "$kh_addr "
	verdict $? "osd_kill_break($op): the holder was fenced"
	[[ -z $nodown ]] || cephq osd unset nodown >/dev/null 2>&1 || fail "osd_kill_break($op): ceph osd unset nodown"
	restart_and_settle "$osd" "osd_kill_break($op)" || return 1
	for ((tries = 0; tries < 10 && r != 0; tries++)); do
		sibling_send kb "$op"
		line=$((line + 1))
		answer=$(sibling_answer kb "$line" 120)
		read -r r secs <<<"$answer"
		((r == 0)) || sleep 5
	done
	[[ $r == 0 ]]
	verdict $? "osd_kill_break($op): done after $tries retries: '$answer'"
	kill -CONT "$kh_pid"
	sibling_send kh write
	answer=$(sibling_answer kh 3 60)
	sibling_end kh
	[[ ${answer%% *} == -* ]]
	verdict $? "osd_kill_break($op): the fenced holder's write fails: '$answer'"
	if [[ $op == truncate ]]; then
		run_logged "$file-verify" "$fc_bin" verify "$pool" "$file" 0 81 &&
			[[ $(objects_of "$file") == 1 ]]
		verdict $? "osd_kill_break($op): $file is empty, its head its only object: $(head -c 160 "$FAULTS_OUT/$file-verify.out")"
		sibling_send kb remove
		answer=$(sibling_answer kb $((line + 1)) 120)
		[[ ${answer%% *} == 0 ]] || fail "osd_kill_break($op): remove $file: '$answer'"
	fi
	sibling_end kb
	[[ $(objects_of "$file") == 0 ]]
	verdict $? "osd_kill_break($op): no object of $file left"
	rm -f "$work/kh.in" "$work/kb.in"
}

scenario_osd_kill_break() {
	break_osd_kill remove brk-rm 1 120 && break_osd_kill truncate brk-tr 2 3 nodown
}

# ---- scenario: bad input -----------------------------------------------------

scenario_bad_input() {
	local n
	run_logged bad-input-api "$tbi_bin"
	verdict $? "bad_input: test_bad_input (API) against the cluster: $(grep -c '^\[       OK \]' "$FAULTS_OUT/bad-input-api.out") tests ok"
	grep -E '^\[  (FAILED|ERROR|SKIPPED) ' "$FAULTS_OUT/bad-input-api.out" | sed 's/^/    /'
	FAULTS_WORK=$work "$here/bad-input-dd.sh" "$dd_bin" >"$FAULTS_OUT/bad-input-dd.out" 2>&1
	local rc=$?
	n=$(grep -c '^PASS' "$FAULTS_OUT/bad-input-dd.out")
	grep -v '^PASS' "$FAULTS_OUT/bad-input-dd.out" | sed 's/^/    /'
	verdict "$rc" "bad_input: bad-input-dd.sh (striped-dd): $n cases passed"
}

# ---- secrets -----------------------------------------------------------------

# No key of any keyring this suite made or used appears in anything printed.
scan_secrets() {
	local secrets=$work/secrets hits
	find "$FAULTS_CLUSTER" "$work/sec" -name '*keyring*' -type f -print0 2>/dev/null |
		xargs -0 -r sed -n 's/^[[:space:]]*key[[:space:]]*=[[:space:]]*//p' | sort -u >"$secrets"
	if [[ ! -s $secrets ]]; then
		fail "secrets: no keyring found to scan for"
		return
	fi
	hits=$(grep -rlF -f "$secrets" "$FAULTS_OUT" 2>/dev/null)
	[[ -z $hits ]]
	verdict $? "secrets: none of $(wc -l <"$secrets") keys appears in $(find "$FAULTS_OUT" -type f | wc -l) captured outputs${hits:+ (found in: $(echo "$hits" | xargs -n1 basename | tr '\n' ' '))}"
	rm -f "$secrets"
}

# ---- main ------------------------------------------------------------------

exec > >(tee -a "$FAULTS_OUT/driver.log") 2>&1
say "striped-dd: $dd_bin; scenarios: ${scenarios[*]}"
start_cluster
for s in "${scenarios[@]}"; do
	t0=$SECONDS
	say "---- $s"
	"scenario_$s"
	say "---- $s: $((SECONDS - t0))s"
done
scan_secrets
finish
