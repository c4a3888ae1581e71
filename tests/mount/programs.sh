#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# programs.sh STRIPED_MOUNT: unmodified programs on the mount (TAP),
# each run the same way on a local directory and the results compared byte
# for byte (and mode and mtime where the program keeps them): dd with and
# without oflag=direct / iflag=direct, cp, cat, tar create and extract of a
# tree, rsync -a (default and --inplace), mv, rm -r, truncate, fio (psync and
# libaio, with verify), Python's open(). Other clients on the same files
# (striped-dd, rados --striper, XRootD): interop.sh.
set -uo pipefail
STRIPED_MOUNT=${1:?usage: programs.sh STRIPED_MOUNT}
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=mount-lib.sh
source "$here/mount-lib.sh"
need_cluster tap programs.sh
need_fuse
# shellcheck source=../tap.sh
source "$here/../tap.sh"

work=$(mktemp -d)
TAP_DETAIL=$work/detail
trap mnt_cleanup EXIT
ns=mnt-prog-$$
M=$work/mnt
L=$work/local
mkdir -p "$L"
MiB=$((1 << 20))
PY=/usr/bin/python3

if ! mnt_start "$M" "$ns"; then
	not_ok "striped-mount mounts rados://$STRIPED_TEST_POOL/$ns"
	cat "$work"/mount-*.log | sed 's/^/#   /'
	tap_done
fi
ok "striped-mount mounts rados://$STRIPED_TEST_POOL/$ns"

random_file "$work/r9" $((9 * MiB + 4321))
random_file "$work/r128" $((128 * MiB))

# ---- dd
both_dd() { # NAME DD-ARGS...: the same dd into L/NAME and M/NAME
	local name=$1
	shift
	dd "$@" of="$L/$name" status=none && dd "$@" of="$M/$name" status=none &&
		cmp "$L/$name" "$M/$name"
}
check "dd bs=1M: the same bytes as on a local directory" both_dd dd1 if="$work/r9" bs=1M
check "dd bs=64M oflag=direct (128 MiB): the same bytes" \
	both_dd dd2 if="$work/r128" bs=64M oflag=direct
check "dd bs=64M iflag=direct reads them back" \
	bash -c "dd if='$M/dd2' of='$work/dd2.back' bs=64M iflag=direct status=none && cmp '$work/r128' '$work/dd2.back'"
check "dd bs=4k conv=notrunc seek=100 over a file: the same bytes" \
	both_dd dd1 if="$work/r128" bs=4k count=300 seek=100 conv=notrunc
check "dd iflag=direct bs=1M skip=3 count=5: the same bytes" bash -c "
	dd if='$M/dd1' bs=1M skip=3 count=5 iflag=direct status=none >'$work/a' &&
	dd if='$L/dd1' bs=1M skip=3 count=5 status=none >'$work/b' && cmp '$work/a' '$work/b'"

# ---- cp, cat
check "cp into the mount and out (cached)" bash -c "
	cp '$work/r128' '$M/cp1' && cp '$M/cp1' '$work/cp1.out' && cmp '$work/r128' '$work/cp1.out'"
check "cat of a file on the mount" bash -c "cat '$M/dd1' >'$work/cat.out' && cmp '$L/dd1' '$work/cat.out'"
check "cat >> appends (O_APPEND) as on a local directory" bash -c "
	for d in '$L' '$M'; do printf 'one\n' >\"\$d/app\" && printf 'two\n' >>\"\$d/app\" &&
	cat '$work/r9' >>\"\$d/app\"; done && cmp '$L/app' '$M/app'"

# ---- a tree: tar, rsync
mktree() { # DIR
	mkdir -p "$1/a/b/c" "$1/empty" "$1/x"
	random_file "$1/a/f1" 1
	random_file "$1/a/b/f2" 4095
	random_file "$1/a/b/c/f3" $((MiB + 7))
	: >"$1/x/zero"
	cp "$work/r9" "$1/x/nine"
	ln -s ../a/f1 "$1/x/link"
	chmod 600 "$1/a/f1"
	chmod 751 "$1/a/b"
	touch -d '2001-02-03 04:05:06' "$1/a/b/f2" "$1/x/nine"
}
# what a tree holds: names, types, modes, sizes, mtimes (seconds), link targets
tree_facts() { # DIR
	(cd "$1" && find . -mindepth 1 -printf '%p %y %m %l\n' | sort &&
		find . -mindepth 1 -type f -printf '%p %s\n' | sort &&
		find . -mindepth 1 -type f -printf '%p %TY%Tm%Td%TH%TM%TS\n' | cut -d. -f1,2 | sort &&
		find . -type f -exec md5sum {} + | sort)
}
same_tree() { # A B
	diff <(tree_facts "$1") <(tree_facts "$2")
}
# rsync -ai prints a line for each thing it would copy: none when DST holds SRC
nothing_to_copy() { # SRC DST
	local out
	out=$(rsync -ai "$1" "$2") || return 1
	[ -z "$out" ] || { echo "$out"; return 1; }
}
mktree "$work/src"
check "tar x of a tree into the mount: names, bytes, modes, mtimes, links" bash -c "
	mkdir '$M/tarx' && tar -C '$work/src' -cf - . | tar -C '$M/tarx' -xf - &&
	$(declare -f tree_facts same_tree); same_tree '$work/src' '$M/tarx'"
check "tar c of that tree on the mount, extracted locally: the same tree" bash -c "
	mkdir '$work/tarback' && tar -C '$M/tarx' -cf - . | tar -C '$work/tarback' -xf - &&
	$(declare -f tree_facts same_tree); same_tree '$work/src' '$work/tarback'"
check "rsync -a (write then rename) into the mount: the same tree" bash -c "
	rsync -a '$work/src/' '$M/rs/' && $(declare -f tree_facts same_tree); same_tree '$work/src' '$M/rs'"
# rsync -ai again: nothing to copy, a symlink's time included (issue 41: rsync
# skips lutimes on a symlink it made in the second its source was made, and
# the mount showed the head's RADOS mtime for it, which readlink moves).
check "rsync -a again copies nothing (sizes, mtimes and a symlink's time kept)" bash -c "
	$(declare -f nothing_to_copy); nothing_to_copy '$work/src/' '$M/rs/'"
check "rsync -a of a symlink made that second, again after readlinks: nothing to copy" bash -c "
	$(declare -f nothing_to_copy)
	mkdir '$work/fresh' && ln -s target '$work/fresh/l' && rsync -a '$work/fresh/' '$M/fresh/' &&
	readlink '$M/fresh/l' >/dev/null && sleep 1.2 && readlink '$M/fresh/l' >/dev/null &&
	sleep 1.2 && nothing_to_copy '$work/fresh/' '$M/fresh/'"
check "rsync -a --inplace of a changed file: the same tree" bash -c "
	printf 'changed' | dd of='$work/src/x/nine' bs=1 seek=5000 conv=notrunc status=none &&
	touch -d '2002-01-01' '$work/src/x/nine' &&
	rsync -a --inplace '$work/src/' '$M/rs/' && $(declare -f tree_facts same_tree); same_tree '$work/src' '$M/rs'"
check "rsync -a out of the mount: the same tree" bash -c "
	rsync -a '$M/rs/' '$work/rsback/' && $(declare -f tree_facts same_tree); same_tree '$work/src' '$work/rsback'"

# ---- mv, rm -r, truncate
check "mv of a file: the bytes under the new name, none under the old" bash -c "
	mv '$M/cp1' '$M/cp1.moved' && cmp '$work/r128' '$M/cp1.moved' && [ ! -e '$M/cp1' ]"
check "mv of a directory" bash -c "
	mv '$M/rs' '$M/rs2' && [ ! -e '$M/rs' ] && $(declare -f tree_facts same_tree); same_tree '$work/src' '$M/rs2'"
check "rm -r of a tree: nothing left" bash -c "
	rm -r '$M/tarx' && [ ! -e '$M/tarx' ] && ! ls '$M' | grep -qx tarx"
check "truncate up and down: the same bytes as on a local directory" bash -c "
	for s in 20000000 5000000 100 0 3000000; do truncate -s \$s '$L/dd1' '$M/dd1' && cmp '$L/dd1' '$M/dd1' || exit 1; done"

# ---- fio
if command -v fio >/dev/null; then
	fio_job() { # ENGINE DIRECT DEPTH
		fio --name="v$1" --directory="$M" --filename="fio-$1" --rw=randwrite --bs=64k \
			--size=32m --ioengine="$1" --direct="$2" --iodepth="$3" --verify=crc32c \
			--do_verify=1 --verify_fatal=1 --verify_state_save=0 \
			--output="$work/fio-$1.out" &&
			! grep -q "verify:.*bad\|err=[1-9]" "$work/fio-$1.out"
	}
	check "fio psync random writes, verified (crc32c)" fio_job psync 0 1
	check "fio libaio O_DIRECT random writes, 16 in flight, verified (crc32c)" fio_job libaio 1 16
else
	skip "fio not installed"
	skip "fio not installed"
fi

# ---- Python's open()
check "Python open(): seek, write, read, truncate, the same as locally" "$PY" - "$L/py" "$M/py" <<'PYEOF'
import os, sys
out = []
for path in sys.argv[1:]:
    with open(path, "wb") as f:
        f.write(b"a" * 100000)
        f.seek(50000)
        f.write(b"b" * 70000)
        f.seek(300000)
        f.write(b"c")
        f.truncate(250000)
    with open(path, "r+b") as f:
        f.seek(1000)
        f.write(b"d" * 10)
        f.seek(0)
        data = f.read()
    with open(path, "ab") as f:
        f.write(b"e" * 7)
    out.append((data, open(path, "rb").read(), os.stat(path).st_size))
sys.exit(0 if out[0] == out[1] else 1)
PYEOF

check "ls -l shows the sizes" bash -c "
	ls -l '$M' | grep -q ' $((128 * MiB)) .* dd2\$' && [ \"\$(stat -c %s '$M/py')\" = 250007 ]"
check "the daemon is still there" kill -0 "$MNT_PID"

mnt_stop "$M" "$MNT_PID"
check "fusermount3 -u unmounted it and the daemon exited" bash -c "! mountpoint -q '$M' && ! kill -0 $MNT_PID 2>/dev/null"
tap_done
