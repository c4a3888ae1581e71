#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# timeouts.sh TEST_TIMEOUTS: run tests/faults/test_timeouts.c on a cluster of its
# own (scripts/cluster start --dir, one OSD on memstore), never on the
# shared one: the test stops (SIGSTOP) every OSD of the cluster it is given.
# The cluster is stopped on exit, however the test ends.
#
# Exit: the test's status; 77 (skip) when Ceph is not installed; 1 when the
# cluster does not start.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cluster=$here/../../scripts/cluster
test_bin=${1:?usage: timeouts.sh TEST_TIMEOUTS}

for b in ceph-mon ceph-osd ceph-mgr; do
	if ! command -v "$b" >/dev/null; then
		echo "timeouts: SKIP: $b is not installed (scripts/setup-deps)" >&2
		exit 77
	fi
done

dir=$(mktemp -d /tmp/striped-timeouts.XXXXXX) || exit 1
cleanup() {
	"$cluster" stop --dir "$dir" >>"$dir.log" 2>&1
	rm -rf "$dir" "$dir.env" "$dir.log"
}
trap cleanup EXIT

if ! "$cluster" start --dir "$dir" --osds 1 --store memstore --pool timeouts \
	>"$dir.env" 2>>"$dir.log"; then
	echo "timeouts: FAIL: the test's own cluster did not start: $(tail -n 1 "$dir.log")" >&2
	exit 1
fi
# shellcheck disable=SC1090
source "$dir.env"
export STRIPED_CLUSTER_DIR=$dir STRIPED_TIMEOUTS_OWN_CLUSTER=1
"$test_bin"
