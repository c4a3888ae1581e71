#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# run-examples.sh: run the examples/ programs against the sandbox cluster,
# as a user would: copy_sync on a local file of odd size, aio_flush, and the
# man page's EXAMPLE (built from doc/striped.3; it names pool "striped").
#
# usage: run-examples.sh COPY_SYNC AIO_FLUSH MAN_EXAMPLE
#        (needs CEPH_CONF, STRIPED_TEST_POOL)
set -uo pipefail

copy_sync=${1:?usage: run-examples.sh COPY_SYNC AIO_FLUSH MAN_EXAMPLE}
aio_flush=${2:?usage: run-examples.sh COPY_SYNC AIO_FLUSH MAN_EXAMPLE}
man_example=${3:?usage: run-examples.sh COPY_SYNC AIO_FLUSH MAN_EXAMPLE}
# shellcheck source=cluster-check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-check.sh"
need_cluster tap run-examples.sh
# shellcheck source=tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

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
if [[ $STRIPED_TEST_POOL != striped ]]; then
	skip "man page example: it writes to pool striped, the test pool is $STRIPED_TEST_POOL"
elif "$man_example" >"$TAP_DETAIL" 2>&1 && grep -q "^read 67108864 bytes$" "$TAP_DETAIL" &&
	grep -q "^size 67108864, mtime [1-9]" "$TAP_DETAIL" &&
	[[ -z $(rados -p striped ls 2>/dev/null | grep '^big\.dat\.') ]]; then
	ok "man page example: 64 MiB written, read back, size and mtime, removed"
else
	not_ok "man page example"
fi
# They remove what they wrote: nothing of their files is left.
if [[ -z $(rados -p "$STRIPED_TEST_POOL" ls 2>/dev/null | grep "^$name-") ]]; then
	ok "the examples left no object behind"
else
	not_ok "objects left: $(rados -p "$STRIPED_TEST_POOL" ls | grep -c "^$name-")"
fi
tap_done
