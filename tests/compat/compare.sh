#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# compare.sh PROGRAM COMPAT_DIR [KIND]: compare.py on the sandbox cluster (TAP), skipped
# without one; KIND replicated (the default), ec or ecow picks the pool (cluster-check.sh).
set -uo pipefail
# shellcheck source=../cluster-check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-check.sh"
kind=${3:-replicated}
need_cluster tap "compare.sh $(basename "${1:-}")"
use_pool tap "compare.sh $(basename "${1:-}")" "$kind"
exec python3 "$(dirname "${BASH_SOURCE[0]}")/compare.py" "$1" "$STRIPED_TEST_POOL" "$2" "$kind"
