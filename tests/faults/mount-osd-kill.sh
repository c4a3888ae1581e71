# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# mount-osd-kill.sh: sourced by run-faults.sh (its cluster, helpers and
# variables). Scenario mount_osd_kill: programs copying through striped-mount
# (mount/) while an OSD is SIGKILLed, as mount/SEMANTICS.md promises ("An
# OSD down delays calls; nothing is lost"): `cp` into the mount (cached: the
# daemon's window, write-behind), `dd oflag=direct` into it (every piece in
# flight), then `cp` out of it, each with another OSD killed a second in;
# each must succeed, and the bytes read back through the mount and by
# striped-dd straight from RADOS are the source's. The mount is
# FAULTS_MOUNT (meson passes build/mount/striped-mount); skipped without it
# or without /dev/fuse. FAULTS_MOUNT_MB (512) is the size copied.

scenario_mount_osd_kill() {
	local mb=${FAULTS_MOUNT_MB:-512} mnt=$work/mnt ns=mnt-osdkill mpid i
	local src=$work/msrc
	if [[ -z ${FAULTS_MOUNT:-} || ! -x ${FAULTS_MOUNT:-} || ! -c /dev/fuse ]] ||
		! command -v fusermount3 >/dev/null; then
		skip_one "mount_osd_kill: no striped-mount (FAULTS_MOUNT), /dev/fuse or fusermount3"
		return
	fi
	head -c "${mb}M" /dev/urandom >"$src"
	mkdir -p "$mnt"
	"$FAULTS_MOUNT" "rados://$pool/$ns" "$mnt" -f -o "conf=$CEPH_CONF" \
		>"$FAULTS_OUT/mount.log" 2>&1 &
	mpid=$!
	for ((i = 0; i < 300; i++)); do
		mountpoint -q "$mnt" && break
		sleep 0.1
	done
	if ! mountpoint -q "$mnt"; then
		fail "mount_osd_kill: striped-mount does not mount (see mount.log)"
		kill -9 "$mpid" 2>/dev/null
		return
	fi

	kill_during mount-cp-in 0 1 cp "$src" "$mnt/cp"
	verdict "$wait_rc" "mount_osd_kill: cp of $mb MiB into the mount survived SIGKILL of osd.0 (in flight: $inflight, $wait_secs s)"
	restart_and_settle 0 mount_osd_kill || return
	kill_during mount-dd-in 1 1 dd if="$src" of="$mnt/dd" bs=64M oflag=direct status=none
	verdict "$wait_rc" "mount_osd_kill: dd bs=64M oflag=direct into the mount survived SIGKILL of osd.1 (in flight: $inflight, $wait_secs s)"
	restart_and_settle 1 mount_osd_kill || return
	kill_during mount-cp-out 2 1 cp "$mnt/cp" "$work/mout"
	[[ $wait_rc == 0 ]] && cmp -s "$src" "$work/mout"
	verdict $? "mount_osd_kill: cp out of the mount survived SIGKILL of osd.2, the bytes identical (in flight: $inflight, $wait_secs s)"
	restart_and_settle 2 mount_osd_kill || return
	cmp -s "$src" "$mnt/dd"
	verdict $? "mount_osd_kill: the O_DIRECT copy read back through the mount: identical"
	"$dd_bin" if="rados://$pool/cp" ns="$ns" bs=4M status=none 2>"$FAULTS_OUT/mount-cp-rados.err" |
		cmp -s - "$src"
	verdict $? "mount_osd_kill: the cached copy read by striped-dd from RADOS: identical"
	kill -0 "$mpid"
	verdict $? "mount_osd_kill: the daemon is still there"
	rm -f "$mnt/cp" "$mnt/dd" "$src" "$work/mout"
	fusermount3 -u "$mnt" || fusermount3 -u -z "$mnt"
	wait "$mpid"
	verdict $? "mount_osd_kill: unmounted, the daemon exits 0"
}
