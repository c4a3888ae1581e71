#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# rados-striper.sh COMPAT_DIR [SANITIZE]: Debian's `rados` binary, unchanged, on the drop-in
# (LD_LIBRARY_PATH=COMPAT_DIR) beside itself on stock libradosstriper (TAP):
# --striper put, get, stat, ls, setxattr, getxattr, listxattr, rm, each way round, the
# bytes compared and the outputs the same, on the replicated pool and on both erasure-coded
# pools where the cluster has them; and its `lock` subcommands, which bind to the
# cls_lock client stock libradosstriper.so.1 carries (compat/cls_lock_client.cc).
set -uo pipefail
# shellcheck source=../cluster-check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-check.sh"
need_cluster tap rados-striper.sh
# shellcheck source=../tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# shellcheck source=stock-exit.sh
source "$(dirname "${BASH_SOURCE[0]}")/stock-exit.sh"
# meson's LD_LIBRARY_PATH may name the drop-in's directory: a program gets it only when told.
unset LD_LIBRARY_PATH

compat_dir=$1 sanitize=${2:-none}
pool=$STRIPED_TEST_POOL
# A drop-in built with sanitizers in an uninstrumented program: their runtime goes first.
preload=
if [[ $sanitize != none ]]; then
	preload=$(cc -print-file-name=libasan.so)
	export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
fi
work=$(mktemp -d)
TAP_DETAIL=$work/detail
p=rs-$$
pools=("$pool")
[[ -z ${STRIPED_TEST_EC_POOL:-} ]] || pools+=("$STRIPED_TEST_EC_POOL")
[[ -z ${STRIPED_TEST_ECOW_POOL:-} ]] || pools+=("$STRIPED_TEST_ECOW_POOL")
cleanup() {
	local n pl
	for pl in "${pools[@]}"; do
		for n in A B; do
			rados --striper -p "$pl" rm "$p-$n" >/dev/null 2>&1
		done
	done
	rados -p "$pool" rm "$p-lock" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

# Stock libradosstriper of Ceph 16.2 may abort as rados exits, its work done
# (stock-exit-crashes): that alone is no failure; the bytes are compared after.
stock() {
	env -u LD_LIBRARY_PATH rados "$@" 2>"$work/err"
	local status=$?
	# (what it printed says how the work went: rados' own "error ..." line)
	if stock_crashed_at_exit $status "$work/err"; then
		if grep -q '^error ' "$work/err"; then status=1; else status=0; fi
	fi
	cp "$work/err" "$TAP_DETAIL"
	return $status
}

dropin() {
	LD_PRELOAD=$preload LD_LIBRARY_PATH=$compat_dir rados "$@" 2>"$work/err"
	local status=$?
	cp "$work/err" "$TAP_DETAIL"
	return $status
}

resolves_to_dropin() {
	LD_LIBRARY_PATH=$compat_dir ldd "$(command -v rados)" >"$TAP_DETAIL" &&
		grep -q "libradosstriper.so.1 => $compat_dir/libradosstriper.so.1" "$TAP_DETAIL"
}
check "rados resolves libradosstriper.so.1 to the drop-in" resolves_to_dropin

head -c $((5 * 1048576 + 12345)) /dev/urandom >"$work/a"
head -c $((3 * 1048576 + 7)) /dev/urandom >"$work/b"
# Everything --striper does, on one pool.
striper_on() { # POOL
	local pool=$1 f
	check "$pool: drop-in: rados --striper put" dropin --striper -p "$pool" put "$p-A" "$work/a"
	check "$pool: stock: rados --striper get of it" stock --striper -p "$pool" get "$p-A" "$work/a.stock"
	same "$pool: the bytes stock read are the ones the drop-in put" "$work/a" "$work/a.stock"
	check "$pool: drop-in: rados --striper get" dropin --striper -p "$pool" get "$p-A" "$work/a.dropin"
	same "$pool: the bytes the drop-in read are the ones put" "$work/a" "$work/a.dropin"
	check "$pool: stock: rados --striper put" stock --striper -p "$pool" put "$p-B" "$work/b"
	check "$pool: drop-in: rados --striper get of it" dropin --striper -p "$pool" get "$p-B" "$work/b.dropin"
	same "$pool: the bytes the drop-in read are the ones stock put" "$work/b" "$work/b.dropin"
	
	for f in A B; do
		stock --striper -p "$pool" stat "$p-$f" >"$work/stat.stock"
		dropin --striper -p "$pool" stat "$p-$f" >"$work/stat.dropin"
		same "$pool: stat $f: the same line ($(cat "$work/stat.dropin"))" "$work/stat.stock" "$work/stat.dropin"
	done
	stock --striper -p "$pool" ls | grep "^$p-" | sort >"$work/ls.stock"
	dropin --striper -p "$pool" ls | grep "^$p-" | sort >"$work/ls.dropin"
	same "$pool: ls: the same names ($(tr '\n' ' ' <"$work/ls.dropin"))" "$work/ls.stock" "$work/ls.dropin"
	
	check "$pool: drop-in: setxattr" dropin --striper -p "$pool" setxattr "$p-A" user.owner ann
	check "$pool: stock: setxattr" stock --striper -p "$pool" setxattr "$p-A" user.group data
	stock --striper -p "$pool" getxattr "$p-A" user.owner >"$work/x.stock"
	dropin --striper -p "$pool" getxattr "$p-A" user.group >"$work/x.dropin"
	check "$pool: each reads what the other set" \
		bash -c "[[ \$(cat '$work/x.stock') == ann && \$(cat '$work/x.dropin') == data ]]"
	check "$pool: stock: setxattr on its own file" stock --striper -p "$pool" setxattr "$p-B" user.k v
	stock --striper -p "$pool" listxattr "$p-B" | sort >"$work/lx.stock"
	dropin --striper -p "$pool" listxattr "$p-B" | sort >"$work/lx.dropin"
	same "$pool: listxattr of stock's file: the same names ($(tr '\n' ' ' <"$work/lx.dropin"))" \
		"$work/lx.stock" "$work/lx.dropin"
	# On a file libstriped made, stock also lists libstriped's own two xattrs: it knows only its own.
	stock --striper -p "$pool" listxattr "$p-A" | sort >"$work/lx.stock"
	dropin --striper -p "$pool" listxattr "$p-A" | sort >"$work/lx.dropin"
	printf 'striper.id\nstriper.reserved\n' | sort -m - "$work/lx.dropin" >"$work/lx.expect"
	same "$pool: listxattr of the drop-in's file: stock's names are the drop-in's and striper.id, striper.reserved" \
		"$work/lx.expect" "$work/lx.stock"
	
	check "$pool: drop-in: rados --striper rm" dropin --striper -p "$pool" rm "$p-A"
	fails() { ! "$@"; }
	# Stock may abort in its stat of a missing file before it says so (its
	# exit crash, which stock() forgives when no error line shows): that it
	# finds the file is what a size on its standard output says.
	no_size() {
		"$@" >"$work/stat.out"
		! grep -q ' size ' "$work/stat.out"
	}
	check "$pool: stock: stat of it finds no file" no_size stock --striper -p "$pool" stat "$p-A"
	check "$pool: stock: rados --striper rm" stock --striper -p "$pool" rm "$p-B"
	check "$pool: drop-in: stat of it fails" fails dropin --striper -p "$pool" stat "$p-B"
	
}
for pl in "${pools[@]}"; do
	striper_on "$pl"
done

# The lock subcommands: the cls_lock client the drop-in carries, as stock's.
echo x | rados -p "$pool" put "$p-lock" -
check "stock: lock get (shared)" stock -p "$pool" lock get "$p-lock" L --lock-cookie c1 \
	--lock-tag T --lock-description "stock's" --lock-type shared
check "drop-in: lock get (shared)" dropin -p "$pool" lock get "$p-lock" L --lock-cookie c2 \
	--lock-tag T --lock-description "drop-in's" --lock-type shared
stock -p "$pool" lock list "$p-lock" >"$work/ll.stock"
dropin -p "$pool" lock list "$p-lock" >"$work/ll.dropin"
same "lock list: the same" "$work/ll.stock" "$work/ll.dropin"
stock -p "$pool" lock info "$p-lock" L >"$work/li.stock"
dropin -p "$pool" lock info "$p-lock" L >"$work/li.dropin"
same "lock info: the same lockers, cookies, tags, descriptions, addresses" \
	"$work/li.stock" "$work/li.dropin"
holder=$(grep -o '"name":"client\.[0-9]*","cookie":"c1"' "$work/li.stock" | grep -o 'client\.[0-9]*')
check "drop-in: lock break of stock's holder ($holder)" \
	dropin -p "$pool" lock break "$p-lock" L "$holder" --lock-cookie c1
dropin -p "$pool" lock info "$p-lock" L >"$work/li.after"
check "only the drop-in's holder is left" \
	bash -c "grep -q '\"cookie\":\"c2\"' '$work/li.after' && ! grep -q '\"cookie\":\"c1\"' '$work/li.after'"
check "drop-in: an exclusive lock on a shared-locked object is refused" \
	fails dropin -p "$pool" lock get "$p-lock" L --lock-cookie c3
tap_done
