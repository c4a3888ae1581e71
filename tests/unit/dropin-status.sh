#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# dropin-status.sh: `striped dropin status` on real processes, no cluster:
# a process with the drop-in built here preloaded, one with Ceph's
# libradosstriper, one with none; by PID, all at once, and as JSON.
#
# usage: dropin-status.sh STRIPED DROP-IN.so
set -uo pipefail

striped=${1:?usage: dropin-status.sh STRIPED DROP-IN.so}
dropin=$(readlink -f "${2:?usage: dropin-status.sh STRIPED DROP-IN.so}")
# shellcheck source=tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

work=$(mktemp -d)
TAP_DETAIL=$work/out
pids=()
cleanup() {
	((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# Ceph's, as the dynamic linker finds it for a program linked against it.
stock=$(ldconfig -p | awk '$1 == "libradosstriper.so.1" && $NF ~ /^\// { print $NF; exit }')
stock=$(readlink -f "$stock")

# started: sleep with a library preloaded (none: ""), once it has mapped it;
# then VAR=VALUE for its environment.
start() {
	env "${@:2}" LD_PRELOAD="$1" sleep 60 >>"$work/start.log" 2>&1 &
	started=$!
	pids+=("$started")
	for _ in $(seq 100); do
		[[ -z $1 ]] || grep -q "$1" "/proc/$started/maps" 2>/dev/null && break
		sleep 0.1
	done
}
start "$dropin" && with_dropin=$started
start "$stock" && with_stock=$started
start "" && with_none=$started

is() { # DESC: ok when the last command succeeded
	if (($? == 0)); then ok "$1"; else not_ok "$1"; fi
}

"$striped" dropin status "$with_dropin" >"$work/out" 2>&1 &&
	test "$(cat "$work/out")" == "$with_dropin sleep: $dropin (libstriped's drop-in)"
is "the drop-in, by its path and what it needs"

if [[ -n $stock ]]; then
	"$striped" dropin status "$with_stock" >"$work/out" 2>&1 &&
		test "$(cat "$work/out")" == "$with_stock sleep: $stock (Ceph's libradosstriper)"
	is "Ceph's"
else
	skip "Ceph's: no libradosstriper.so.1 in ldconfig's cache (libradosstriper1)"
fi

"$striped" dropin status "$with_none" >"$work/out" 2>&1 &&
	test "$(cat "$work/out")" == "$with_none sleep: no libradosstriper.so.1 loaded"
is "none"

"$striped" dropin status >"$work/out" 2>&1 &&
	grep -qx "$with_dropin sleep: .*(libstriped's drop-in)" "$work/out" &&
	! grep -q "^$with_none " "$work/out"
is "every process that has one, and only those"

"$striped" --format json dropin status "$with_dropin" "$with_none" >"$work/out" 2>&1 &&
	python3 -c '
import json, sys
d, n = json.load(open(sys.argv[1]))
assert (d["pid"], d["implementation"], d["path"], d["deleted"]) == (int(sys.argv[2]), "libstriped", sys.argv[4], False), d
assert (n["pid"], n["implementation"], n["path"]) == (int(sys.argv[3]), "none", ""), n
' "$work/out" "$with_dropin" "$with_none" "$dropin"
is "JSON: {pid, comm, implementation, path, deleted}"

# Replaced since it was loaded (a package upgraded or removed under it); the
# copy finds libstriped where the drop-in finds it.
cp "$dropin" "$work/libradosstriper.so.1"
libdir=$(dirname "$(ldd "$dropin" | awk '$1 == "libstriped.so.0" { print $3 }')")
start "$work/libradosstriper.so.1" LD_LIBRARY_PATH="$libdir" && with_copy=$started
rm "$work/libradosstriper.so.1"
"$striped" dropin status "$with_copy" >"$work/out" 2>&1 &&
	test "$(cat "$work/out")" == "$with_copy sleep: $work/libradosstriper.so.1 (deleted) (libstriped's drop-in)"
is "a file removed since it was loaded, still told by what it is"

"$striped" dropin status 0 >"$work/out" 2>&1
test $? -eq 2 && grep -q "not a process id" "$work/out"
is "a PID that is no number: usage, exit 2"
"$striped" dropin status 2147483647 >"$work/out" 2>&1
test $? -eq 1 && grep -qx "striped: process 2147483647: No such file or directory" "$work/out"
is "a process that does not exist: one line, exit 1"

tap_done
