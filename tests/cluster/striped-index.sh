#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# striped-index.sh: `striped index` against the sandbox cluster: a
# namespace indexed, `striped ls` from the index saying what it said from
# the walk (one level, a prefix, -l), files of striped-dd and `striped rm`
# kept in it, a file of stock libradosstriper (rados --striper put) found
# by check and mended by repair, status, drop, an EC pool's index in a
# replicated pool, and one-line errors.
#
# usage: striped-index.sh STRIPED STRIPED_DD     (needs CEPH_CONF, STRIPED_TEST_POOL)
set -uo pipefail

cli=${1:?usage: striped-index.sh STRIPED STRIPED_DD}
dd_tool=${2:?usage: striped-index.sh STRIPED STRIPED_DD}
# shellcheck source=cluster-check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-check.sh"
need_cluster tap striped-index.sh
# shellcheck source=tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# shellcheck source=ns-client.sh
source "$(dirname "${BASH_SOURCE[0]}")/../ns-client.sh"

work=$(mktemp -d)
TAP_DETAIL=$work/detail
pool=$STRIPED_TEST_POOL
ns=index-$$
ec_pool=${STRIPED_TEST_EC_POOL:-}
cleanup() {
	ns_remove_objects "$pool" "" "$ns"
	[ -n "$ec_pool" ] && ns_remove_objects "$ec_pool" "" "$ns"
	rm -rf "$work"
}
trap cleanup EXIT

put() { "$dd_tool" if=/dev/zero of="rados://$1/$2" bs=1000 count="$3" ns="$ns" status=none; }
for f in top a/x a/b/c "a/b/with space" a/b0 a/b-x d/e/f; do put "$pool" "$f" 3; done
"$cli" -N "$ns" ls -l "$pool" >"$work/walk-all"
"$cli" -N "$ns" ls -d / "rados://$pool/a/" >"$work/walk-a"
"$cli" -N "$ns" ls -l -d / "rados://$pool/a/b" >"$work/walk-ab"

check "index status says none before" grep -qx "index: none" <("$cli" -N "$ns" index status "$pool")
check "index create" "$cli" -N "$ns" index create --shards 3 "$pool"
"$cli" -N "$ns" index status --count --format json "$pool" >"$work/status"
check "index status: ready, 3 shards, its entries counted" \
	grep -q '"state":"ready","index_pool":"'"$pool"'","shards":3,"objects":[1-9][0-9]*,"entries":1[0-9]' "$work/status"
"$cli" -N "$ns" ls -l "$pool" >"$work/index-all"
"$cli" -N "$ns" ls -d / "rados://$pool/a/" >"$work/index-a"
"$cli" -N "$ns" ls -l -d / "rados://$pool/a/b" >"$work/index-ab"
same "ls -l from the index as from the walk" "$work/walk-all" "$work/index-all"
same "ls -d / of a directory from the index as from the walk" "$work/walk-a" "$work/index-a"
same "ls -l -d / of a prefix from the index as from the walk" "$work/walk-ab" "$work/index-ab"

# writers keep it: striped-dd's create, striped rm
put "$pool" "a/new" 1
"$cli" -N "$ns" rm "rados://$pool/a/x" >/dev/null
printf 'a/b-x\na/b/\na/b0\na/new\n' >"$work/want-a"
"$cli" -N "$ns" ls -d / "rados://$pool/a/" >"$work/got-a"
same "a striped-dd create and a striped rm show at once" "$work/want-a" "$work/got-a"

# a writer that does not know the index: found, then mended
head -c 5000 /dev/urandom >"$work/stock"
rados --striper -p "$pool" -N "$ns" put "a/stock" "$work/stock" 2>/dev/null
"$cli" -N "$ns" index check "$pool" >"$work/check" 2>"$work/check.err"
st=$?
printf 'missing\ta/stock\n' >"$work/want-check"
if [[ $st -eq 1 ]] && cmp -s "$work/want-check" "$work/check"; then
	ok "index check names the stock libradosstriper file, exit 1"
else
	not_ok "index check: exit $st, $(cat "$work/check" "$work/check.err")"
fi
check "index repair mends it" "$cli" -N "$ns" index repair "$pool"
check "index check finds nothing after" "$cli" -N "$ns" index check "$pool"
check "the stock file is listed" grep -qx "a/stock" <("$cli" -N "$ns" ls -d / "rados://$pool/a/")

check "index drop" "$cli" -N "$ns" index drop "$pool"
check "index status says none after" grep -qx "index: none" <("$cli" -N "$ns" index status "$pool")

# an erasure-coded pool keeps its index in a replicated pool
if [ -n "$ec_pool" ]; then
	put "$ec_pool" "ec/one" 1
	"$cli" -N "$ns" index create "$ec_pool" >/dev/null 2>"$work/ec.err"
	st=$?
	if [[ $st -eq 1 && $(wc -l <"$work/ec.err") -eq 1 ]] && grep -q -- "--index-pool" "$work/ec.err"; then
		ok "an EC pool without --index-pool: one line that says what to do"
	else
		not_ok "EC pool without --index-pool: exit $st, $(cat "$work/ec.err")"
	fi
	check "an EC pool's index in a replicated pool" \
		"$cli" -N "$ns" index create --index-pool "$pool" "$ec_pool"
	put "$ec_pool" "ec/two" 1
	check "its listing from that index" diff <(printf 'ec/one\nec/two\n') \
		<("$cli" -N "$ns" ls "rados://$ec_pool/ec/")
	check "dropped" "$cli" -N "$ns" index drop "$ec_pool"
else
	ok "# SKIP no EC pool (STRIPED_TEST_EC_POOL)"
fi

# one-line errors
for bad in "index create --shards 0 $pool" "index create --shards x $pool" "index drop $pool" \
	"index check $pool" "index create --index-pool no-such-pool-$$ $pool"; do
	# shellcheck disable=SC2086
	"$cli" -N "$ns" $bad >/dev/null 2>"$work/err"
	st=$?
	if [[ $st -ne 0 && $(wc -l <"$work/err") -eq 1 ]]; then
		ok "striped $bad: one line, exit $st"
	else
		not_ok "striped $bad: exit $st, $(cat "$work/err")"
	fi
done
tap_done
