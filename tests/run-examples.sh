#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# run-examples.sh: run the examples/ programs against the sandbox cluster,
# as a user would: copy_sync on a local file of odd size, aio_flush.
#
# usage: run-examples.sh COPY_SYNC AIO_FLUSH     (needs CEPH_CONF, STRIPED_TEST_POOL)
set -uo pipefail

copy_sync=${1:?usage: run-examples.sh COPY_SYNC AIO_FLUSH}
aio_flush=${2:?usage: run-examples.sh COPY_SYNC AIO_FLUSH}
if [[ -z ${CEPH_CONF:-} || -z ${STRIPED_TEST_POOL:-} ]]; then
	echo "1..0 # SKIP no cluster (CEPH_CONF, STRIPED_TEST_POOL)"
	exit 77
fi
# shellcheck source=tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
TAP_DETAIL=$work/out
name=ex-$$

head -c 20000003 /dev/urandom >"$work/in" # 2.4 calls of 8 MiB, an odd tail
if "$copy_sync" "$STRIPED_TEST_POOL" "$work/in" "$name-copy" >"$TAP_DETAIL" 2>&1 &&
	grep -q "20000003 bytes in and back, identical" "$TAP_DETAIL"; then
	ok "copy_sync: writev in, readv back, identical"
else
	not_ok "copy_sync"
fi
if "$aio_flush" "$STRIPED_TEST_POOL" "$name-aio" >"$TAP_DETAIL" 2>&1 &&
	grep -q "32 writes of 1 MiB, flushed; size 33554432" "$TAP_DETAIL"; then
	ok "aio_flush: 32 writes in flight, one flush, the size right"
else
	not_ok "aio_flush"
fi
# Both remove what they wrote: nothing of either file is left.
if [[ -z $(rados -p "$STRIPED_TEST_POOL" ls 2>/dev/null | grep "^$name-") ]]; then
	ok "the examples left no object behind"
else
	not_ok "objects left: $(rados -p "$STRIPED_TEST_POOL" ls | grep -c "^$name-")"
fi
tap_done
