# SPDX-License-Identifier: LGPL-2.1-or-later
#
# TAP output for the shell suites, sourced by them: the one place their
# checks are defined. A failure shows the last lines of $TAP_DETAIL (the
# failing command's output) when the suite sets it. tap_done prints the plan
# and exits 1 when anything failed.

NTEST=0
FAILS=0

ok() {
	NTEST=$((NTEST + 1))
	echo "ok $NTEST - $*"
}

not_ok() {
	NTEST=$((NTEST + 1))
	FAILS=$((FAILS + 1))
	echo "not ok $NTEST - $*"
	if [ -n "${TAP_DETAIL:-}" ] && [ -s "$TAP_DETAIL" ]; then
		tail -n 30 "$TAP_DETAIL" | sed 's/^/#   /'
	fi
}

skip() {
	NTEST=$((NTEST + 1))
	echo "ok $NTEST # SKIP $*"
}

# check DESCRIPTION COMMAND...: ok when COMMAND succeeds. Its output goes to
# $TAP_DETAIL when the suite sets it (shown on a failure), else through.
check() {
	local what=$1 status=0
	shift
	if [ -n "${TAP_DETAIL:-}" ]; then
		"$@" >"$TAP_DETAIL" 2>&1 || status=$?
	else
		"$@" || status=$?
	fi
	if [ "$status" -eq 0 ]; then ok "$what"; else not_ok "$what (exit $status)"; fi
}

# check_status STATUS DESCRIPTION: ok when STATUS (of a command run before) is 0.
check_status() {
	local status=$1
	shift
	if [ "$status" -eq 0 ]; then ok "$*"; else not_ok "$*"; fi
}

# same DESCRIPTION FILE-A FILE-B: ok when both hold the same bytes; else the
# first difference, and the diff in $TAP_DETAIL when the suite sets it.
same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
		return
	fi
	if [ -n "${TAP_DETAIL:-}" ]; then
		diff "$2" "$3" >"$TAP_DETAIL" 2>&1
	fi
	not_ok "$1: $(cmp "$2" "$3" 2>&1 | head -1)"
}

# tap_after COUNT STATUS: the plan goes on after the COUNT results another
# program printed (its lines, without a plan); STATUS nonzero counts as a failure.
tap_after() {
	NTEST=$((NTEST + $1))
	if [ "$2" -ne 0 ]; then FAILS=$((FAILS + 1)); fi
}

# bail DESCRIPTION [LOG...]: one failed test, the logs as its detail, and the end.
bail() {
	local what=$1
	shift
	not_ok "$what"
	cat "$@" 2>/dev/null | sed 's/^/#   /'
	tap_done
}

tap_done() {
	echo "1..$NTEST"
	if [ "$FAILS" -ne 0 ]; then
		echo "# $FAILS of $NTEST failed"
		exit 1
	fi
	exit 0
}
