# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# lib.sh: helpers shared by the faults suite's scripts (sourced, never run).
#
# Results: pass/fail/xfail print one line each and count; `finish` prints the
# tally and exits 0 (all passed), 1 (a failure) or 77 (everything skipped).
# xfail is for a known defect reported upstream: the check runs every time,
# a failure is shown as XFAIL and does not fail the suite, and a pass is
# shown as XPASS so the entry can be dropped from KNOWN_ISSUES.
#
# Cluster helpers act on the cluster in $FAULTS_CLUSTER (a `scripts/cluster
# start --dir` directory) through `ceph`, with CEPH_CONF exported by the caller.

FAULTS_PASS=0
FAULTS_FAIL=0
FAULTS_XFAIL=0
FAULTS_XPASS=0
FAULTS_SKIP=0
FAULTS_PREFIX=${FAULTS_PREFIX:-faults}

say() { printf '%s: %s\n' "$FAULTS_PREFIX" "$*"; }
pass() { FAULTS_PASS=$((FAULTS_PASS + 1)); printf 'PASS  %s\n' "$*"; }
fail() { FAULTS_FAIL=$((FAULTS_FAIL + 1)); printf 'FAIL  %s\n' "$*"; }
skip_one() { FAULTS_SKIP=$((FAULTS_SKIP + 1)); printf 'SKIP  %s\n' "$*"; }

# verdict OK DESCRIPTION: pass when OK is 0 (a status), fail otherwise. The
# faults suite reports PASS and FAIL lines, not TAP (tests/tap.sh's check).
verdict() {
	local ok=$1
	shift
	if [[ $ok == 0 ]]; then pass "$*"; else fail "$*"; fi
}

# xcheck ISSUE OK DESCRIPTION: as verdict, for a check a known defect breaks;
# ISSUE must be listed in $KNOWN_ISSUES (set by the calling script), else a
# failure counts as one.
xcheck() {
	local issue=$1 ok=$2
	shift 2
	if [[ $ok == 0 && " ${KNOWN_ISSUES:-} " != *" $issue "* ]]; then
		pass "$* [$issue: fixed]"
	elif [[ $ok == 0 ]]; then
		FAULTS_XPASS=$((FAULTS_XPASS + 1))
		printf 'XPASS %s [%s fixed? drop it from KNOWN_ISSUES]\n' "$*" "$issue"
	elif [[ " ${KNOWN_ISSUES:-} " != *" $issue "* || ${FAULTS_STRICT:-0} == 1 ]]; then
		fail "$* [$issue]"
	else
		FAULTS_XFAIL=$((FAULTS_XFAIL + 1))
		printf 'XFAIL %s [%s]\n' "$*" "$issue"
	fi
}

finish() {
	say "$FAULTS_PASS passed, $FAULTS_FAIL failed, $FAULTS_XFAIL known issues (xfail)," \
		"$FAULTS_XPASS xpass, $FAULTS_SKIP skipped in ${SECONDS}s"
	if ((FAULTS_FAIL)); then exit 1; fi
	if ((FAULTS_PASS + FAULTS_XFAIL + FAULTS_XPASS == 0 && FAULTS_SKIP)); then exit 77; fi
	exit 0
}

# Seconds since the epoch with decimals, and a difference of two of them.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# le A B: is A <= B (decimals)?
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# run_logged NAME CMD...: run CMD with stdout/stderr kept in $FAULTS_OUT/NAME.{out,err}
# (scanned for secrets at the end); returns CMD's status.
run_logged() {
	local name=$1
	shift
	"$@" >"$FAULTS_OUT/$name.out" 2>"$FAULTS_OUT/$name.err"
}

# one_line_error FILE PREFIX: FILE's first line starts with PREFIX and is the
# only such line; what may follow is dd's own records/bytes summary and
# striped-dd's latency line of each striped side.
one_line_error() {
	local file=$1 prefix=$2
	[[ $(head -n 1 "$file") == "$prefix"* ]] &&
		[[ $(grep -c "^$prefix" "$file") == 1 ]] &&
		! grep -v -e "^$prefix" -e '^[0-9]*+[0-9]* records \(in\|out\)$' \
			-e '^[0-9]* bytes .*copied, ' \
			-e '^\(reads from\|writes to\) rados://.*: [0-9]* calls, p50 ' "$file" | grep -q .
}

# ---- the cluster ----------------------------------------------------------

cephq() { timeout 60 ceph --connect-timeout 20 "$@"; }

# jpy CODE [ARGS]: run python CODE with the JSON on stdin as `d` (no jq needed).
jpy() {
	local code=$1
	shift
	/usr/bin/python3 -c "import json, sys
d = json.load(sys.stdin)
$code" "$@"
}

# daemon_pid NAME: the pid scripts/cluster (or daemon_restart) recorded for
# NAME (osd.N, mon.a).
daemon_pid() { cat "$FAULTS_CLUSTER/pid/$1.pid"; }

# Is pid $1 alive and one of this cluster's daemons?
ours_alive() {
	[[ -r /proc/$1/cmdline ]] &&
		[[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]] &&
		tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "$FAULTS_CLUSTER/ceph.conf"
}

# daemon_signal NAME SIG: send SIG to NAME, if it is ours and alive.
daemon_signal() {
	local pid
	pid=$(daemon_pid "$1")
	ours_alive "$pid" || return 1
	kill "-$2" "$pid"
}

# daemon_kill NAME: SIGKILL it and wait until it is gone (a restart right
# after would otherwise see it still alive, exiting, and start nothing).
daemon_kill() {
	local pid i
	pid=$(daemon_pid "$1")
	daemon_signal "$1" KILL || return 1
	for ((i = 0; i < 200; i++)); do
		ours_alive "$pid" || return 0
		sleep 0.05
	done
	return 1
}

osd_kill() { daemon_kill "osd.$1"; }

# daemon_restart NAME: start NAME (osd.N, mon.a) exactly as scripts/cluster's
# spawn() does, and record its pid where `scripts/cluster stop` finds it.
# (scripts/cluster has no restart subcommand; see the report for
# `scripts/cluster restart-osd N`.)
daemon_restart() {
	local name=$1 pid i
	pid=$(daemon_pid "$name")
	if ours_alive "$pid"; then return 0; fi
	(exec setsid "ceph-${name%%.*}" -i "${name#*.}" -f -c "$FAULTS_CLUSTER/ceph.conf" </dev/null \
		>>"$FAULTS_CLUSTER/log/$name.out" 2>&1) &
	pid=$!
	disown "$pid" # no "Killed" job report when the next round kills it
	echo "$pid" >"$FAULTS_CLUSTER/pid/$name.pid"
	for ((i = 0; i < 100; i++)); do
		ours_alive "$pid" && return 0
		sleep 0.05
	done
	return 1
}

# osd_is N up|down: does the osdmap say so?
osd_is() {
	local st
	st=$(cephq osd dump -f json | jpy 'print([o["up"] for o in d["osds"] if o["osd"] == int(sys.argv[1])][0])' "$1")
	[[ ($2 == up && $st == 1) || ($2 == down && $st == 0) ]]
}

# wait_osd N up|down TIMEOUT
wait_osd() {
	local t0=$SECONDS
	while ((SECONDS - t0 < $3)); do
		osd_is "$1" "$2" && return 0
		sleep 0.3
	done
	return 1
}

# wait_clean TIMEOUT: every PG active+clean.
wait_clean() {
	local t0=$SECONDS
	while ((SECONDS - t0 < $1)); do
		cephq pg stat -f json 2>/dev/null | jpy '
s = d.get("pg_summary", d)
total = s.get("num_pgs", 0)
clean = sum(e["num"] for e in s.get("num_pg_by_state", []) if e["name"] == "active+clean")
sys.exit(0 if total and clean == total else 1)' 2>/dev/null && return 0
		sleep 0.5
	done
	return 1
}

# pool_has_flag POOL FLAG: is FLAG among the pool's flags (full, full_quota...)?
pool_has_flag() {
	cephq osd pool ls detail -f json | jpy '
sys.exit(0 if any(p["pool_name"] == sys.argv[1] and sys.argv[2] in p["flags_names"].split(",")
                  for p in d) else 1)' "$1" "$2"
}

# cluster_space: the space of the cluster in CEPH_CONF, in a line or two:
# each OSD's use, any health check about fullness, and the cluster log's
# last lines about it (scripts/cluster keeps it next to ceph.conf).
cluster_space() {
	cephq osd df -f json 2>/dev/null | jpy '
print("OSD use: " + ", ".join("osd.%d %.1f%% of %d MiB" % (n["id"], n["utilization"], n["kb"] >> 10)
                             for n in d["nodes"]))' 2>/dev/null
	cephq health detail 2>/dev/null | grep -i 'full' | head -n 4
	grep -i 'full' "$(dirname "${CEPH_CONF:-/nonexistent}")/log/cluster.log" 2>/dev/null |
		tail -n 4 | sed 's/^/cluster.log: /'
}

# wait_not_full POOL TIMEOUT: wait while POOL is flagged full (the flag is
# lifted a few seconds after the space is freed); says what it saw.
wait_not_full() {
	pool_has_flag "$1" full || return 0
	say "pool $1 is flagged full; waiting up to $2 s"
	cluster_space | sed "s/^/$FAULTS_PREFIX:   /"
	wait_pool_flag "$1" full clear "$2"
}

# wait_pool_flag POOL FLAG set|clear TIMEOUT
wait_pool_flag() {
	local t0=$SECONDS
	while ((SECONDS - t0 < $4)); do
		if pool_has_flag "$1" "$2"; then
			[[ $3 == set ]] && return 0
		else
			[[ $3 == clear ]] && return 0
		fi
		sleep 0.5
	done
	return 1
}

# ---- a network partition of one process -----------------------------------
#
# The process starts in a cgroup (v2) of its own, so every socket it opens is
# marked with it; iptables-legacy then drops what those sockets send (OUTPUT,
# -m cgroup --path) and what is sent to the process's TCP ports (INPUT,
# --dport: on loopback the cgroup match sees no packet in INPUT, measured).
# Each rule carries the cgroup's name as its comment, so healing removes
# exactly these. Needs root, cgroup2 and iptables-legacy (scripts/setup-deps).

partition_cgroup_root() { awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts; }

# partition_unavailable: why no partition can be made here (nothing when it
# can): a probe cgroup and a rule matching it are made and removed.
partition_unavailable() {
	local probe=striped-faults-probe-$$
	if ((EUID != 0)); then
		echo "not root"
	elif [[ -z $(partition_cgroup_root) ]]; then
		echo "no cgroup2 mount"
	elif ! command -v iptables-legacy >/dev/null; then
		echo "no iptables-legacy (scripts/setup-deps)"
	elif ! command -v ss >/dev/null; then
		echo "no ss (iproute2)"
	elif ! mkdir "$(partition_cgroup_root)/$probe" 2>/dev/null; then
		echo "cannot make a cgroup under $(partition_cgroup_root)"
	elif ! iptables-legacy -I OUTPUT -m cgroup --path "$probe" -m comment --comment "$probe" \
		-j ACCEPT 2>/dev/null; then
		partition_cleanup "$probe"
		echo "iptables-legacy refuses a cgroup match (no xt_cgroup, or no CAP_NET_ADMIN)"
	else
		partition_cleanup "$probe"
	fi
}

# partition_spawn NAME OUT ERR CMD...: run CMD in the background in a new
# cgroup NAME (joined before CMD starts: its sockets are all marked); sets $!.
partition_spawn() {
	local name=$1 out=$2 err=$3 dir
	shift 3
	dir=$(partition_cgroup_root)/$name
	mkdir "$dir" || return 1
	(echo "$BASHPID" >"$dir/cgroup.procs" && exec "$@") >"$out" 2>"$err" &
}

# partition_start NAME PID: drop every packet from and to process PID (in cgroup NAME).
partition_start() {
	local name=$1 pid=$2 port ports
	iptables-legacy -I OUTPUT -m cgroup --path "$name" -m comment --comment "$name" -j DROP ||
		return 1
	ports=$(ss -tnpH | grep -F "pid=$pid," | awk '{ sub(/.*:/, "", $4); print $4 }' | sort -u)
	for port in $ports; do
		iptables-legacy -I INPUT -p tcp -d 127.0.0.1 --dport "$port" \
			-m comment --comment "$name" -j DROP || return 1
	done
	[[ -n $ports ]]
}

# partition_heal NAME: remove NAME's rules; the cgroup goes once it is empty.
partition_heal() {
	local name=$1 rule
	iptables-legacy -S | grep -F -- "--comment $name " | sed 's/^-A /-D /' |
		while read -r rule; do
			# shellcheck disable=SC2086 # a rule is words, as iptables-legacy -S printed them
			iptables-legacy $rule
		done
}

# partition_cleanup NAME: heal, and remove the cgroup (its process gone).
partition_cleanup() {
	partition_heal "$1"
	rmdir "$(partition_cgroup_root)/$1" 2>/dev/null
	return 0
}
