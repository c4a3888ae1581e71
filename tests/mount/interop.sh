#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# interop.sh STRIPED_MOUNT STRIPED_DD COMPAT_DIR [SANITIZE]: the mount and the
# other clients of striped files on the same files, both ways (TAP): files
# written by striped-dd, by Debian's `rados --striper` on the drop-in
# (LD_LIBRARY_PATH=COMPAT_DIR) and by XRootD (xrdcp through XrdCeph on the
# drop-in, tests/xrootd/xrd-server) are read whole through the mount, with
# their sizes, whatever their layout; files written through the mount are
# read whole by each of them; a removal by either side shows on the other
# (on the mount within cache_time, 1 s: the kernel keeps names that long).
# XrdCeph knows no RADOS namespace: the mount here serves the pool's default
# namespace, and every name lives below a directory of this test's own
# (mnt-iop-PID/), the only objects its cleanup removes. XRootD's checks skip
# without xrootd, xrdcp and xrdfs.
set -uo pipefail
STRIPED_MOUNT=${1:?usage: interop.sh STRIPED_MOUNT STRIPED_DD COMPAT_DIR [SANITIZE]}
STRIPED_DD=${2:?}
compat_dir=${3:?}
sanitize=${4:-none}
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=mount-lib.sh
source "$here/mount-lib.sh"
need_cluster tap interop.sh
need_fuse
# shellcheck source=../tap.sh
source "$here/../tap.sh"
unset LD_LIBRARY_PATH # meson's may name the drop-in: a program gets it only when told

work=$(mktemp -d)
chmod 755 "$work" # the XRootD server runs as a user of its own
TAP_DETAIL=$work/detail
xrd=$here/../xrootd
d=mnt-iop-$$
MNT_PREFIXES+=("$d/")
cleanup() {
	"$xrd/xrd-server" stop --dir "$work/xrd" >/dev/null 2>&1
	mnt_cleanup
}
trap cleanup EXIT
pool=$STRIPED_TEST_POOL
M=$work/m
MiB=$((1 << 20))
preload=
if [[ $sanitize != none ]]; then
	# the drop-in built with sanitizers in an uninstrumented program: their runtime first
	preload=$(cc -print-file-name=libasan.so)
	export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0:verify_asan_link_order=0
fi
dropin() {
	LD_PRELOAD=$preload LD_LIBRARY_PATH=$compat_dir rados "$@"
}

if ! mnt_start "$M" ""; then
	not_ok "striped-mount mounts rados://$pool"
	cat "$work"/mount-*.log | sed 's/^/#   /'
	tap_done
fi
ok "striped-mount mounts rados://$pool (the default namespace)"
# the test's directory, made here: this mount knows it at once
mkdir "$M/$d"
random_file "$work/src" $((9 * MiB + 4321))

# ---- striped-dd
check "striped-dd's file (stripe_unit=1M stripe_count=4) read through the mount" bash -c "
	'$STRIPED_DD' if='$work/src' of='rados://$pool/$d/dd-in' bs=4M stripe_unit=1M \
		stripe_count=4 object_size=4M status=none && cmp '$work/src' '$M/$d/dd-in' &&
	[ \"\$(stat -c %s '$M/$d/dd-in')\" = $((9 * MiB + 4321)) ]"
check "a file written through the mount read by striped-dd" bash -c "
	cp '$work/src' '$M/$d/dd-out' &&
	'$STRIPED_DD' if='rados://$pool/$d/dd-out' of='$work/dd.out' bs=4M status=none &&
	cmp '$work/src' '$work/dd.out'"

# ---- rados --striper on the drop-in
check "rados --striper put (drop-in): read through the mount, its size in ls -l within cache_time" bash -c "
	$(declare -f dropin); preload='$preload' compat_dir='$compat_dir'
	dropin --striper -p '$pool' put '$d/rs-in' '$work/src' && cmp '$work/src' '$M/$d/rs-in' &&
	sleep 1.2 && ls -l '$M/$d' | grep -q ' $((9 * MiB + 4321)) .* rs-in\$'"
check "a file written through the mount: rados --striper get (drop-in)" bash -c "
	$(declare -f dropin); preload='$preload' compat_dir='$compat_dir'
	cp '$work/src' '$M/$d/rs-out' && dropin --striper -p '$pool' get '$d/rs-out' '$work/rs.out' &&
	cmp '$work/src' '$work/rs.out'"
check "rados --striper rm (drop-in) of the mount's file: gone from the mount" bash -c "
	$(declare -f dropin); preload='$preload' compat_dir='$compat_dir'
	dropin --striper -p '$pool' rm '$d/rs-out' && sleep 1.2 && ! stat '$M/$d/rs-out' 2>/dev/null"
check "rm through the mount of rados' file: rados --striper stat finds nothing" bash -c "
	$(declare -f dropin); preload='$preload' compat_dir='$compat_dir'
	rm '$M/$d/rs-in' && ! dropin --striper -p '$pool' stat '$d/rs-in' 2>/dev/null"

# ---- XRootD (XrdCeph on the drop-in)
have_xrd=1
for tool in xrootd xrdcp xrdfs; do
	command -v "$tool" >/dev/null || have_xrd=0
done
xrd_start() {
	local port env extra=()
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	[[ -z $preload ]] || extra=(--env "LD_PRELOAD=$preload" --env "ASAN_OPTIONS=$ASAN_OPTIONS")
	env=$("$xrd/xrd-server" start --dir "$work/xrd" --port "$port" --striper-dir "$compat_dir" \
		--layout 2,1048576,2097152 "${extra[@]}") || return 1
	eval "$env"
}
if ((!have_xrd)); then
	for i in 1 2 3 4 5; do skip "xrootd, xrdcp or xrdfs not installed"; done
elif ! xrd_start >"$TAP_DETAIL" 2>&1; then
	not_ok "an XRootD server (XrdCeph on the drop-in) starts"
else
	ok "an XRootD server (XrdCeph on the drop-in) starts"
	check "xrdcp in (stripe_count=2, 1 MiB units): read through the mount" bash -c "
		xrdcp --silent '$work/src' '${XRD_URL}$d/x-in' && cmp '$work/src' '$M/$d/x-in'"
	check "a file written through the mount: xrdcp out, the same bytes" bash -c "
		cp '$work/src' '$M/$d/x-out' && xrdcp --silent '${XRD_URL}$d/x-out' '$work/x.out' &&
		cmp '$work/src' '$work/x.out'"
	check "xrdfs stat gives the mount's file its size" bash -c "
		[ \"\$(xrdfs '${XRD_URL%/}' stat '$d/x-out' | awk '/^Size:/{print \$2}')\" = $((9 * MiB + 4321)) ]"
	check "xrdfs rm of the mount's file: gone from the mount" bash -c "
		xrdfs '${XRD_URL%/}' rm '$d/x-out' && sleep 1.2 && ! stat '$M/$d/x-out' 2>/dev/null"
	check "rm through the mount of XRootD's file: xrdfs stat finds nothing" bash -c "
		rm '$M/$d/x-in' && ! xrdfs '${XRD_URL%/}' stat '$d/x-in' 2>/dev/null"
fi
check "the daemon is still there" kill -0 "$MNT_PID"
mnt_stop "$M" "$MNT_PID"
tap_done
