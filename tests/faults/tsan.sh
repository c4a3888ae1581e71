#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tsan.sh: ThreadSanitizer over libstriped's completion path. Configures a
# separate build (-Db_sanitize=thread, clang when present), builds the test
# programs, runs the unit tests, and, with a cluster (CEPH_CONF and
# STRIPED_TEST_POOL), tests/test_io and tests/faults/fault_client's
# concurrent-writer stress. librados is not instrumented: tsan.supp
# suppresses races on Ceph's own frames only (never ours); what it matched is
# printed. A report through our sources fails; one wholly inside Ceph does not.
#
# usage: tsan.sh SRCDIR BUILDDIR     (BUILDDIR is created or reused)
# env: TSAN_STRESS_ROUNDS (10)
# Exit: 0 no race of ours, 1 races, 77 no compiler with TSan.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FAULTS_PREFIX=tsan
# shellcheck source=lib.sh
source "$here/lib.sh"

src=$(cd "${1:?usage: tsan.sh SRCDIR BUILDDIR}" && pwd)
bdir=${2:?usage: tsan.sh SRCDIR BUILDDIR}
logs=$bdir/tsan-logs
export KNOWN_ISSUES=${KNOWN_ISSUES:-K3-oid-race}

cc=${TSAN_CC:-$(command -v clang || command -v gcc)}
if ! echo 'int main(void){return 0;}' | "$cc" -fsanitize=thread -x c - -o /dev/null 2>/dev/null; then
	echo "tsan: SKIP: $cc cannot link -fsanitize=thread"
	exit 77
fi

t0=$SECONDS
if [[ ! -f $bdir/build.ninja ]]; then
	rm -rf "$bdir"
	CC=$cc meson setup "$bdir" "$src" -Db_sanitize=thread -Db_lundef=false -Dbench=false \
		-Dbuildtype=debugoptimized >"$bdir.setup.log" 2>&1 ||
		{ tail -n 20 "$bdir.setup.log"; fail "meson setup (thread sanitizer)"; finish; }
fi
targets=(tests/test_completion tests/test_faults tests/test_io tests/dd/test_dd_args)
have_fc=0
if ninja -C "$bdir" -t targets all 2>/dev/null | grep -q '^tests/faults/fault_client:'; then
	targets+=(tests/faults/fault_client)
	have_fc=1
fi
if ! ninja -C "$bdir" "${targets[@]}" >"$bdir.build.log" 2>&1; then
	tail -n 30 "$bdir.build.log"
	fail "build with -fsanitize=thread"
	finish
fi
fc=$bdir/tests/faults/fault_client
if ((!have_fc)); then
	# tests/faults not (yet) part of the tree's meson.build: build it here
	mkdir -p "$(dirname "$fc")"
	"$cc" -fsanitize=thread -g -O1 -D_GNU_SOURCE -I"$src/include" "$here/fault_client.c" \
		-L"$bdir/lib" -Wl,-rpath,"$bdir/lib" -lstriped -lrados -lpthread -o "$fc" ||
		{ fail "build fault_client with -fsanitize=thread"; finish; }
fi
say "built with $(basename "$cc") -fsanitize=thread in $((SECONDS - t0))s"

rm -rf "$logs"
mkdir -p "$logs"
export TSAN_OPTIONS="suppressions=$here/tsan.supp print_suppressions=1 halt_on_error=0 exitcode=66 history_size=4 second_deadlock_stack=1"

# ours_reports LOG: the reports one of whose two racing accesses has a frame
# in our sources (lib/, tests/, tools/); "created at" and "allocated by"
# stacks do not count, since every thread librados starts was created
# under a call of ours.
ours_reports() {
	awk '
	/^WARNING: ThreadSanitizer/ { r = ""; on = 1; hit = 0; access = 0 }
	on && /^  [A-Z]/ { access = ($0 ~ /^  (Previous |Atomic )?([Ww]rite|[Rr]ead)/) }
	on { r = r "\n" $0 }
	on && access && /\/(lib|tests|tools)\/([A-Za-z0-9_.-]+\/)*[A-Za-z0-9_.-]+\.(c|cc|h):[0-9]+/ { hit = 1 }
	/^SUMMARY: ThreadSanitizer/ { if (hit) print r; on = 0 }' "$1"
}

# classify LOG: a report counts when one of its stacks runs through our
# sources (lib/, tests/, tools/); reports wholly inside uninstrumented Ceph
# code (unsymbolized libceph-common frames the suppressions cannot name) are
# only counted and shown as a number.
classify() {
	local log=$1 what=$2 reports ours
	reports=$(grep -c '^WARNING: ThreadSanitizer' "$log")
	ours=$(ours_reports "$log" | grep -c '^WARNING: ThreadSanitizer')
	if ((ours > 0)); then
		fail "$what: $ours ThreadSanitizer report(s) in our code (log: $log)"
		ours_reports "$log" | grep -E 'WARNING|^ +#[0-5] |SUMMARY' |
			sed 's/ (BuildId.*//; s/^/    /' | head -n 60
	else
		pass "$what: no ThreadSanitizer report in our code ($((reports - ours)) inside Ceph only)"
	fi
	if grep -q 'Matched [0-9]* suppression' "$log"; then
		say "$what: suppressed in Ceph frames: $(sed -n '/Matched [0-9]* suppression/,/^$/p' "$log" |
			grep -E '^ *[0-9]+ race:' | awk '{ printf "%s x%s, ", $2, $1 }')"
	fi
}

run() { # NAME PROGRAM ARGS...
	local name=$1 rc t1=$SECONDS
	shift
	"$@" >"$logs/$name.log" 2>&1
	rc=$?
	if ((rc != 0 && rc != 66)); then
		fail "$name: exit $rc under TSan (log: $logs/$name.log)"
		tail -n 15 "$logs/$name.log" | sed 's/^/    /'
		[[ -n ${CEPH_CONF:-} ]] && cluster_space | sed 's/^/    cluster: /'
	fi
	classify "$logs/$name.log" "$name ($((SECONDS - t1))s)"
}

# (test_layout is single-threaded: nothing for TSan to see, 20 s to run)
run test_completion "$bdir/tests/test_completion"
run test_faults "$bdir/tests/test_faults"
run test_dd_args "$bdir/tests/dd/test_dd_args"
if [[ -n ${CEPH_CONF:-} && -n ${STRIPED_TEST_POOL:-} ]]; then
	run test_io "$bdir/tests/test_io"
	wait_not_full "$STRIPED_TEST_POOL" 60 ||
		fail "the pool is still flagged full 60 s after test_io: $(cluster_space | tr '\n' ' ')"
	run stress "$fc" stress "$STRIPED_TEST_POOL" "${TSAN_STRESS_ROUNDS:-10}"
else
	skip_one "test_io and stress: no cluster (CEPH_CONF and STRIPED_TEST_POOL unset)"
fi
finish
