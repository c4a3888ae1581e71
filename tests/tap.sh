# SPDX-License-Identifier: LGPL-2.1-or-later
#
# TAP output for the shell suites, sourced by them. A failure shows the last
# lines of $TAP_DETAIL (the failing command's output) when the suite sets it.
# tap_done prints the plan and exits 1 when anything failed.

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

tap_done() {
	echo "1..$NTEST"
	if [ "$FAILS" -ne 0 ]; then
		echo "# $FAILS of $NTEST failed"
		exit 1
	fi
	exit 0
}
