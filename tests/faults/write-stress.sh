#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# write-stress.sh FAULT_CLIENT [ROUNDS]: fault_client's concurrent-writer
# stress on the cluster of CEPH_CONF and STRIPED_TEST_POOL: ROUNDS (10)
# files, each written by 48 concurrent extending aio writes, every call
# succeeds and every byte lands in place. Its threads are what the
# ThreadSanitizer build looks at (suite threads).
set -uo pipefail

fc=${1:?usage: write-stress.sh FAULT_CLIENT [ROUNDS]}
# shellcheck source=tests/cluster-check.sh
. "$(dirname "$(readlink -f "$0")")/../cluster-check.sh"
need_cluster exitcode write-stress.sh
exec "$fc" stress "$STRIPED_TEST_POOL" "${2:-10}"
