# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# mount-lib.sh: sourced by the mount's tests (tests/mount/*.sh). Each test
# mounts a RADOS namespace of its own (mnt-NAME-PID) of the sandbox pool with
# striped-mount in the foreground (its pid kept, its log in $work), and
# cleans up on exit: every mount unmounted, every daemon ended, every object
# of its namespaces removed. Without /dev/fuse or fusermount3 it skips (TAP).

here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../cluster-check.sh
source "$here/../cluster-check.sh"
# shellcheck source=../ns-client.sh
source "$here/../ns-client.sh"
# shellcheck source=../tap.sh
source "$here/../tap.sh"

MOUNT_TIMEOUT=${MOUNT_TIMEOUT:-30}

# need_fuse NAME: skip (TAP) without /dev/fuse or fusermount3, as need_cluster.
need_fuse() {
	local why=
	[[ -c /dev/fuse ]] || why="no /dev/fuse"
	command -v fusermount3 >/dev/null || why="no fusermount3 (Debian's fuse3)"
	[[ -z $why ]] && return 0
	if [[ ${STRIPED_TEST_REQUIRE_CLUSTER:-0} == 1 ]]; then
		echo "1..1"
		echo "not ok 1 - $why (STRIPED_TEST_REQUIRE_CLUSTER=1)"
		exit 1
	fi
	echo "1..0 # SKIP $why"
	exit 0
}

MNT_DIRS=()
MNT_PIDS=()
MNT_NSS=()

MNT_PREFIXES=()

# mnt_start DIR NS [OPTIONS]: striped-mount rados://POOL/NS on DIR, in the
# foreground in the background; returns once DIR is a mountpoint. Sets
# MNT_PID. NS "" mounts the pool's default namespace, shared with every
# other test: the caller names the prefix of its own files there
# (MNT_PREFIXES), the only objects the cleanup removes from it.
mnt_start() {
	local dir=$1 ns=$2 opts=${3:-} i
	mkdir -p "$dir"
	"$STRIPED_MOUNT" "rados://$STRIPED_TEST_POOL${ns:+/$ns}" "$dir" -f \
		-o "conf=$CEPH_CONF${opts:+,$opts}" >>"$work/mount-$(basename "$dir").log" 2>&1 &
	MNT_PID=$!
	disown "$MNT_PID" # no job notices; waited for by polling (mnt_wait_gone)
	MNT_DIRS+=("$dir")
	MNT_PIDS+=("$MNT_PID")
	[[ -z $ns ]] || MNT_NSS+=("$ns")
	for ((i = 0; i < MOUNT_TIMEOUT * 10; i++)); do
		mountpoint -q "$dir" && return 0
		kill -0 "$MNT_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# mnt_wait_gone PID [SECONDS]: 0 once the process is gone, 1 if it stays.
mnt_wait_gone() {
	local i
	for ((i = 0; i < ${2:-30} * 10; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# mnt_stop DIR PID: unmount and wait for the daemon (it flushes first).
mnt_stop() {
	local dir=$1 pid=$2
	fusermount3 -u "$dir" 2>/dev/null || fusermount3 -u -z "$dir" 2>/dev/null
	mnt_wait_gone "$pid"
}

mnt_cleanup() {
	local i
	for i in "${!MNT_DIRS[@]}"; do
		if mountpoint -q "${MNT_DIRS[$i]}"; then
			fusermount3 -u "${MNT_DIRS[$i]}" 2>/dev/null ||
				fusermount3 -u -z "${MNT_DIRS[$i]}" 2>/dev/null
		fi
		mnt_wait_gone "${MNT_PIDS[$i]}" 10 || kill -9 "${MNT_PIDS[$i]}" 2>/dev/null
	done
	for i in "${!MNT_NSS[@]}"; do
		ns_remove_objects "$STRIPED_TEST_POOL" "" "${MNT_NSS[$i]}"
	done
	for i in "${!MNT_PREFIXES[@]}"; do
		[[ -n ${MNT_PREFIXES[$i]} ]] && ns_remove_objects "$STRIPED_TEST_POOL" "${MNT_PREFIXES[$i]}" ""
	done
	rm -rf "$work"
}

# random_file PATH BYTES: BYTES random bytes.
random_file() {
	head -c "$2" /dev/urandom >"$1"
}
