# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the compat tests that run programs on stock libradosstriper.

stock_exit_crashes=$(dirname "${BASH_SOURCE[0]}")/stock-exit-crashes

# stock_crashed_at_exit STATUS STDERR-FILE: did stock abort (134) or fault (139,
# Ceph's handler printing the backtrace) in one of its listed ways
# (stock-exit-crashes)? Only that: the caller still checks the work was done.
stock_crashed_at_exit() {
	(($1 == 134 || $1 == 139)) && grep -qFf <(grep -v -e '^#' -e '^[[:space:]]*$' "$stock_exit_crashes") "$2"
}
