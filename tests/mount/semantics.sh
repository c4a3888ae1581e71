#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# semantics.sh STRIPED_MOUNT: mount/SEMANTICS.md asserted line by line
# (semantics.py) on two mounts of one namespace, with objects in the pool
# that are not striped files (a plain object, a head without striper
# metadata, objects below a directory's name) and a damaged head, which
# must be untouched afterwards (TAP).
set -uo pipefail
STRIPED_MOUNT=${1:?usage: semantics.sh STRIPED_MOUNT}
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=mount-lib.sh
source "$here/mount-lib.sh"
need_cluster tap semantics.sh
need_fuse

work=$(mktemp -d)
trap mnt_cleanup EXIT
ns=mnt-sem-$$
R=(rados -p "$STRIPED_TEST_POOL" -N "$ns")
fail() { bail "$*" "$work"/*.log; }

# foreign objects, and two striped files, one of which gets a damaged head
head -c 1000 /dev/urandom >"$work/foreign"
for o in foreign-plain foreign.0000000000000000 fdir/x.0000000000000001 fdir/plain; do
	"${R[@]}" put "$o" "$work/foreign" || fail "rados put $o"
done
"${R[@]}" setxattr foreign.0000000000000000 user.owner app || fail "rados setxattr"
mnt_start "$work/a" "$ns" || fail "mount a"
mnt_start "$work/b" "$ns" || fail "mount b"
printf healthy >"$work/a/healthy" && printf damaged >"$work/a/damaged" || fail "write"
"${R[@]}" setxattr damaged.0000000000000000 striper.size 12x || fail "damaging a head"
name_max=$(($(ceph-conf -c "$CEPH_CONF" --lookup osd_max_object_name_len 2>/dev/null || echo 2048) - 17))

/usr/bin/python3 "$here/semantics.py" "$work/a" "$work/b" "$name_max" | tee "$work/tap"
tap_after "$(grep -cE '^(not )?ok ' "$work/tap")" "${PIPESTATUS[0]}"
untouched=0
for o in foreign-plain foreign.0000000000000000 fdir/x.0000000000000001 fdir/plain; do
	"${R[@]}" get "$o" "$work/back" && cmp -s "$work/foreign" "$work/back" || untouched=1
done
[[ $("${R[@]}" getxattr damaged.0000000000000000 striper.size) == 12x ]] || untouched=1
kill -0 "${MNT_PIDS[0]}" && kill -0 "${MNT_PIDS[1]}" || untouched=1
check_status "$untouched" "foreign objects and the damaged head are untouched, both daemons alive"
tap_done
