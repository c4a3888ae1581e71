#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# crashes.sh PROGRAM COMPAT_DIR: calls that crash stock libradosstriper
# (doc/dropin.md lists them) still crash it, and get an answer from the
# drop-in (TAP).
set -uo pipefail
# shellcheck source=../cluster-check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-check.sh"
need_cluster tap crashes.sh
# shellcheck source=../tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# meson's LD_LIBRARY_PATH may name the drop-in's directory: a program gets it only when told.
unset LD_LIBRARY_PATH
prog=$1 compat_dir=$2
TAP_DETAIL=$(mktemp)
name=crash-$$
# Stock dies holding its lock on a file it made (a write makes the file first): by hand.
cleanup() {
	rados -p "$STRIPED_TEST_POOL" ls | grep "^$name\." | while read -r o; do
		rados -p "$STRIPED_TEST_POOL" rm "$o"
	done
	rm -f "$TAP_DETAIL"
}
trap cleanup EXIT

# SCENARIO: what stock does; the drop-in's answer
while read -r scenario stock_does answer; do
	# (bash reports the signal on stderr: kept out of the TAP stream)
	{ env -u LD_LIBRARY_PATH "$prog" "$scenario" "$name" >"$TAP_DETAIL" 2>&1; } 2>/dev/null
	status=$?
	if ((status > 128)); then
		ok "$scenario: stock dies ($stock_does, signal $((status - 128)))"
	else
		not_ok "$scenario: stock dies ($stock_does): it exited $status"
	fi
	out=$(LD_LIBRARY_PATH=$compat_dir "$prog" "$scenario" "$name-dropin" 2>"$TAP_DETAIL")
	if [[ $out == "$scenario: $answer" ]]; then
		ok "$scenario: the drop-in answers $answer"
	else
		not_ok "$scenario: the drop-in answers $answer, not '$out'"
	fi
done <<'LIST'
short-bufferlist throws-end_of_buffer -22
multi-release asserts-on-freed-memory 0
null-name makes-a-std::string-of-NULL -22
unset-striper dereferences-NULL -22
LIST
tap_done
