#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# aio-unverified.sh PROGRAM SHIM: the drop-in refuses aio calls (-ENOTSUP, and one line on
# stderr saying why) with a librados it cannot verify (SHIM preloaded: its completions read
# otherwise than librados 16.2's), its synchronous calls still work; without SHIM aio works.
set -uo pipefail
# shellcheck source=../cluster-check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-check.sh"
need_cluster tap aio-unverified.sh
# shellcheck source=../tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
prog=$1 shim=$2
TAP_DETAIL=$(mktemp)
err=$(mktemp)
trap 'rm -f "$TAP_DETAIL" "$err"' EXIT

# The sanitizer build's runtime wants to come first; the shim goes before it, on purpose.
if LD_PRELOAD=$shim ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 \
	"$prog" expect-enotsup >"$TAP_DETAIL" 2>"$err"; then
	ok "unverifiable librados: aio refused with -ENOTSUP, nothing written, sync calls work"
else
	not_ok "unverifiable librados: aio refused with -ENOTSUP, nothing written, sync calls work"
fi
why=$(grep "aio calls fail with ENOTSUP" "$err")
if [[ $(grep -c "aio calls fail with ENOTSUP" "$err") == 1 ]]; then
	ok "one line on stderr says why: $why"
else
	cp "$err" "$TAP_DETAIL"
	not_ok "one line on stderr says why aio is refused"
fi
if "$prog" expect-works >"$TAP_DETAIL" 2>&1; then
	ok "librados 16.2 as it is: aio works"
else
	not_ok "librados 16.2 as it is: aio works"
fi
tap_done
