#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# sanitizers.sh: the memory checks of the faults suite, on a small cluster of
# its own (1 OSD, BlueStore, 4 GiB). Not memstore: its space count drifted
# below zero in a CI run (osd df said 429496729600% used), and the OSD
# called itself full. (ThreadSanitizer is a build of scripts/test's,
# build-tsan, which runs the unit suite and the threaded cluster tests.)
#   valgrind  memcheck of a striped-dd round trip (local -> striped -> local,
#             4 MiB over 64K x 4 objects, verify=yes): no leak ("definitely
#             lost" is an error), no invalid access, bytes identical
#   fuzz      fuzz.sh: every target of fuzz/targets, FUZZ_SECONDS each (the
#             command line's, the decoders of what the cluster answers)
# Build trees are kept under BUILDDIR/sanitizers (incremental next time).
#
# usage: sanitizers.sh SRCDIR BUILDDIR STRIPED_DD B_SANITIZE [PART...]
#   (meson passes them; PART: valgrind fuzz, default both)
# env: FUZZ_SECONDS (10), FUZZ_LIBSTRIPED (the plain build's libstriped.so,
#      for fuzz_cli_args; meson sets it), FAULTS_KEEP=1 keeps logs on failure
# Exit: 0 pass, 1 fail, 77 skip (a sanitizer build: run from the plain one).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FAULTS_PREFIX=sanitizers
# shellcheck source=lib.sh
source "$here/lib.sh"

if (($# < 4)); then
	sed -n '3,19s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
fi
src=$(cd "$1" && pwd)
bdir=$2/sanitizers
dd_bin=$3
sanitize=$4
shift 4
parts=("$@")
((${#parts[@]})) || parts=(valgrind fuzz)
want() { [[ " ${parts[*]} " == *" $1 "* ]]; }

if [[ $sanitize != none ]]; then
	echo "sanitizers: SKIP: this build already uses -Db_sanitize=$sanitize (run from the plain build)"
	exit 77
fi
mkdir -p "$bdir"
work=$(mktemp -d /tmp/striped-sanitizers.XXXXXX) || exit 1
cluster=$work/cluster
cluster_started=0
cleanup() {
	local rc=$?
	((cluster_started)) && "$src/scripts/cluster" stop --dir "$cluster" >/dev/null 2>&1
	if ((rc != 0)) && [[ ${FAULTS_KEEP:-0} == 1 ]]; then
		echo "sanitizers: logs kept: $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

start_cluster() {
	local t0=$SECONDS
	for b in ceph-mon ceph-osd ceph-mgr; do
		command -v "$b" >/dev/null || { skip_one "cluster parts: $b not installed"; return 1; }
	done
	cluster_started=1
	if ! "$src/scripts/cluster" start --dir "$cluster" --osds 1 --store bluestore --osd-size-gb 4 \
		>"$work/env" 2>"$work/cluster-start.err"; then
		tail -n 5 "$work/cluster-start.err"
		fail "cannot start the sandbox cluster"
		return 1
	fi
	# shellcheck disable=SC1091
	source "$work/env"
	export CEPH_CONF STRIPED_TEST_POOL
	say "cluster up in $((SECONDS - t0))s"
}

part_valgrind() {
	local log=$work/valgrind rc name
	# shellcheck disable=SC2054 # commas inside one option
	local vg=(valgrind --leak-check=full --show-leak-kinds=definite,indirect
		--errors-for-leak-kinds=definite --error-exitcode=99 --num-callers=40)
	if ! command -v valgrind >/dev/null; then
		skip_one "valgrind: not installed"
		return
	fi
	if [[ ! -x $dd_bin ]]; then
		skip_one "valgrind: $dd_bin not built"
		return
	fi
	mkdir -p "$log"
	head -c 4M /dev/urandom >"$work/vg.src"
	wait_not_full "$STRIPED_TEST_POOL" 60 ||
		fail "valgrind: the pool is still flagged full after 60 s: $(cluster_space | tr '\n' ' ')"
	for name in local-to-striped striped-to-local; do
		if [[ $name == local-to-striped ]]; then
			set -- if="$work/vg.src" of="rados://$STRIPED_TEST_POOL/vg-$$" bs=1M \
				stripe_unit=64K stripe_count=4 object_size=1M verify=yes status=none
		else
			set -- if="rados://$STRIPED_TEST_POOL/vg-$$" of="$work/vg.out" bs=1M verify=yes status=none
		fi
		"${vg[@]}" --log-file="$log/$name.log" "$dd_bin" "$@" >"$log/$name.out" 2>&1
		rc=$?
		grep -q 'definitely lost: [1-9]' "$log/$name.log" && rc=99
		verdict "$rc" "valgrind: striped-dd $name: exit $rc; $(grep -E 'ERROR SUMMARY' "$log/$name.log" |
			sed 's/^==[0-9]*== //; s/ (suppressed.*//'); $(grep -E 'in use at exit|definitely lost' "$log/$name.log" |
			sed 's/^==[0-9]*== *//' | tr '\n' ' ')"
		if ((rc)); then
			grep -E -A 20 'Invalid|uninitialised|definitely lost in' "$log/$name.log" | head -n 40 | sed 's/^/    /'
			head -n 5 "$log/$name.out" | sed 's/^/    striped-dd: /'
			cluster_space | sed 's/^/    cluster: /'
		fi
	done
	cmp -s "$work/vg.src" "$work/vg.out"
	verdict $? "valgrind: round trip bytes identical"
	# the file is left to the cluster, which is discarded
}

part_fuzz() {
	"$here/fuzz.sh" "$src" "$bdir/fuzz" "${FUZZ_SECONDS:-10}" | sed 's/^/  /'
	local rc=${PIPESTATUS[0]}
	if ((rc == 77)); then skip_one "fuzz: no clang with libFuzzer"; else verdict "$rc" "fuzz: fuzz.sh"; fi
}

have_cluster=0
if want valgrind; then
	start_cluster && have_cluster=1
fi
for p in valgrind fuzz; do
	want "$p" || continue
	if [[ $p != fuzz ]] && ((!have_cluster)); then
		unset CEPH_CONF STRIPED_TEST_POOL
		[[ $p == valgrind ]] && { skip_one "valgrind: no cluster"; continue; }
	fi
	t0=$SECONDS
	say "---- $p"
	"part_$p"
	say "---- $p: $((SECONDS - t0))s"
done
finish
