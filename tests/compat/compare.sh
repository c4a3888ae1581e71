#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# compare.sh PROGRAM COMPAT_DIR: compare.py on the sandbox cluster (TAP), skipped without one.
set -uo pipefail
# shellcheck source=../cluster-check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-check.sh"
need_cluster tap "compare.sh $(basename "${1:-}")"
exec python3 "$(dirname "${BASH_SOURCE[0]}")/compare.py" "$1" "$STRIPED_TEST_POOL" "$2"
