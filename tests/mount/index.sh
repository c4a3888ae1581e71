#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# index.sh STRIPED_MOUNT STRIPED_DD STRIPED: the mount on a namespace with an
# index of names (striped index create), which it lists a directory at a
# time (TAP): the tree a walk lists is the tree the mount shows (ls of each
# directory, find of every file, directories without a marker too); mkdir,
# rmdir, a file made and removed, a directory renamed, all kept in the index
# (striped index check finds no difference); another client's file shows
# within cache_time.
set -uo pipefail
STRIPED_MOUNT=${1:?usage: index.sh STRIPED_MOUNT STRIPED_DD STRIPED}
STRIPED_DD=${2:?}
STRIPED=${3:?}
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=mount-lib.sh
source "$here/mount-lib.sh"
need_cluster tap index.sh
need_fuse

work=$(mktemp -d)
TAP_DETAIL=$work/detail
ns=mnt-index-$$
m=$work/m
trap mnt_cleanup EXIT
pool=$STRIPED_TEST_POOL

put() { "$STRIPED_DD" if=/dev/zero of="rados://$pool/$1" bs=1000 count=2 ns="$ns" status=none; }
for f in top a/x a/b/c "a/b/with space" a/b0 a/b-x d/e/f d/e/g/h; do put "$f"; done
check "index create" "$STRIPED" -N "$ns" index create --shards 3 "$pool"
mnt_start "$m" "$ns" "cache_time=1" || bail "the mount did not start" "$work"/mount-*.log

# every file as a walk lists them, through find (a directory at a time: nlink may say 1)
"$STRIPED" -N "$ns" ls "$pool" | sort >"$work/want"
(cd "$m" && find . -type f | sed 's|^\./||' | sort) >"$work/got"
same "find on the mount lists every file the walk lists" "$work/want" "$work/got"
printf 'b\nb-x\nb0\nx\n' >"$work/want-a"
ls "$m/a" >"$work/got-a"
same "ls of a directory with no marker" "$work/want-a" "$work/got-a"
check "a directory with no marker is a directory" test -d "$m/d/e/g"

# what the mount changes, the index keeps
mkdir "$m/new" && echo hello >"$m/new/file" && mkdir "$m/new/sub"
check "mkdir and a file in it" test -f "$m/new/file" -a -d "$m/new/sub"
rmdir "$m/new/sub"
check "rmdir: gone" test ! -e "$m/new/sub"
mv "$m/d/e" "$m/d/moved"
check "a directory renamed" test -f "$m/d/moved/g/h" -a ! -e "$m/d/e"
check "its old name is not listed" diff <(echo moved) <(ls "$m/d")
rm "$m/a/x"
check "a file removed" test ! -e "$m/a/x"
check "striped index check finds no difference" "$STRIPED" -N "$ns" index check "$pool"
printf 'file\n' >"$work/want-new"
ls "$m/new" >"$work/got-new"
same "the rmdir'd directory is not listed" "$work/want-new" "$work/got-new"

# another client's file shows within cache_time
put "a/other"
sleep 1.5
check "another client's new file shows" test -f "$m/a/other"
check "ls shows it" grep -qx other <(ls "$m/a")

mnt_stop "$m" "$MNT_PID"
check "index drop" "$STRIPED" -N "$ns" index drop "$pool"
tap_done
