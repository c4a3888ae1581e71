#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# striped-ls.sh: the striped-ls tool against the sandbox cluster: files of
# striped-dd and of rados --striper (libradosstriper) listed with their
# sizes, and its one-line errors.
#
# usage: striped-ls.sh STRIPED_LS STRIPED_DD     (needs CEPH_CONF, STRIPED_TEST_POOL)
set -uo pipefail

ls_tool=${1:?usage: striped-ls.sh STRIPED_LS STRIPED_DD}
dd_tool=${2:?usage: striped-ls.sh STRIPED_LS STRIPED_DD}
# shellcheck source=cluster-check.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster-check.sh"
need_cluster tap striped-ls.sh
# shellcheck source=tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

work=$(mktemp -d)
pool=$STRIPED_TEST_POOL
pfx=ls-$$
cleanup() {
	rados --striper -p "$pool" rm "$pfx-dd" 2>/dev/null
	rados --striper -p "$pool" rm "$pfx-rs" 2>/dev/null
	rados -p "$pool" rm "$pfx-plain.0000000000000000" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

"$dd_tool" if=/dev/zero of="rados://$pool/$pfx-dd" bs=100000 count=3 status=none
head -c 77777 /dev/urandom >"$work/rs"
rados --striper -p "$pool" put "$pfx-rs" "$work/rs"
echo plain | rados -p "$pool" put "$pfx-plain.0000000000000000" -
"$ls_tool" -l "$pool" >"$work/out" 2>"$work/err"
st=$?
got=$(grep "	$pfx-" "$work/out" | sort)
want=$(printf '300000\t%s-dd\n77777\t%s-rs' "$pfx" "$pfx")
if [[ $st -eq 0 && $got == "$want" ]]; then
	ok "-l lists both libraries' files with their sizes, not the plain object"
else
	not_ok "striped-ls -l: exit $st, got [$got]"
fi
if "$ls_tool" "$pool" | grep -qx "$pfx-dd"; then
	ok "names alone without -l"
else
	not_ok "striped-ls without -l"
fi
"$ls_tool" no-such-pool-$$ >/dev/null 2>"$work/err"
st=$?
if [[ $st -eq 1 && $(wc -l <"$work/err") -eq 1 ]] && grep -q "^striped-ls: no-such-pool" "$work/err"; then
	ok "a missing pool: one line, exit 1"
else
	not_ok "missing pool: exit $st, $(cat "$work/err")"
fi
"$ls_tool" >/dev/null 2>&1
st=$?
if [[ $st -eq 2 ]]; then ok "no pool: usage, exit 2"; else not_ok "no pool: exit $st"; fi
tap_done
