#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# striped-ls.sh: the striped-ls tool against the sandbox cluster: files of
# striped-dd and of rados --striper (libradosstriper) listed with their
# sizes, rados://POOL[/PREFIX], --namespace with a key limited to one
# namespace, and its one-line errors.
#
# usage: striped-ls.sh STRIPED_LS STRIPED_DD     (needs CEPH_CONF, STRIPED_TEST_POOL)
set -uo pipefail

ls_tool=${1:?usage: striped-ls.sh STRIPED_LS STRIPED_DD}
dd_tool=${2:?usage: striped-ls.sh STRIPED_LS STRIPED_DD}
# shellcheck source=cluster-check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-check.sh"
need_cluster tap striped-ls.sh
# shellcheck source=tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# shellcheck source=ns-client.sh
source "$(dirname "${BASH_SOURCE[0]}")/../ns-client.sh"

work=$(mktemp -d)
pool=$STRIPED_TEST_POOL
pfx=ls-$$
ns1=ls-t1-$$
ns2=ls-t2-$$
client=ls-ns-$$
# every object of the test's files, by name (rados --striper rm can crash at exit)
cleanup() {
	ns_remove_objects "$pool" "$pfx-" "" "$ns1" "$ns2"
	ns_client_remove "$client"
	rm -rf "$work"
}
trap cleanup EXIT

"$dd_tool" if=/dev/zero of="rados://$pool/$pfx-dd" bs=100000 count=3 status=none
head -c 77777 /dev/urandom >"$work/rs"
rados --striper -p "$pool" put "$pfx-rs" "$work/rs" 2>>"$work/striper.err"
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
# rados://POOL and rados://POOL/ list the pool; rados://POOL/PREFIX filters.
for loc in "rados://$pool" "rados://$pool/"; do
	got=$("$ls_tool" -l "$loc" 2>"$work/err" | grep "	$pfx-" | sort)
	if [[ $got == "$want" ]]; then ok "$loc lists the pool"; else not_ok "$loc: got [$got] $(cat "$work/err")"; fi
done
got=$("$ls_tool" "rados://$pool/$pfx-d" 2>"$work/err")
if [[ $got == "$pfx-dd" ]]; then
	ok "rados://POOL/PREFIX lists only the names that start with PREFIX"
else
	not_ok "rados://$pool/$pfx-d: got [$got] $(cat "$work/err")"
fi
got=$("$ls_tool" "rados://$pool/$pfx-nothing" 2>"$work/err")
st=$?
if [[ $st -eq 0 && -z $got ]]; then ok "a prefix nothing has: no line, exit 0"; else not_ok "empty prefix: exit $st [$got]"; fi

# -d /: one level below the prefix, deeper names once as their common prefix, sorted.
for f in a b/c b/d e/f/g b-x; do
	"$dd_tool" if=/dev/zero of="rados://$pool/$pfx-tree/$f" bs=1000 count=1 status=none
done
got=$("$ls_tool" -d / "rados://$pool/$pfx-tree/" 2>"$work/err" | tr '\n' ' ')
want="$pfx-tree/a $pfx-tree/b-x $pfx-tree/b/ $pfx-tree/e/ "
if [[ $got == "$want" ]]; then
	ok "-d /: one level, sorted, each common prefix once"
else
	not_ok "-d /: got [$got], want [$want] $(cat "$work/err")"
fi
got=$("$ls_tool" -l --delimiter / "rados://$pool/$pfx-tree/b" 2>"$work/err" | tr '\t\n' ': ')
want="1000:$pfx-tree/b-x PRE:$pfx-tree/b/ "
if [[ $got == "$want" ]]; then
	ok "-l -d / with a prefix that ends mid-name: SIZE and PRE lines"
else
	not_ok "-l --delimiter /: got [$got], want [$want] $(cat "$work/err")"
fi
got=$("$ls_tool" --format json -d / "rados://$pool/$pfx-tree/b/" 2>"$work/err")
if /usr/bin/python3 -c 'import json, sys
want = [{"name": sys.argv[1] + "/b/c", "size": 1000}, {"name": sys.argv[1] + "/b/d", "size": 1000}]
sys.exit(json.loads(sys.stdin.read()) != want)' "$pfx-tree" <<<"$got"; then
	ok "--format json -d / below a common prefix: its files"
else
	not_ok "--format json -d /: got [$got] $(cat "$work/err")"
fi
got=$("$ls_tool" --format json -d / "rados://$pool/$pfx-tree/e" 2>"$work/err")
if [[ $got == *'"prefix"'*"$pfx-tree/e/"* ]]; then
	ok "--format json -d /: a common prefix as {\"prefix\": ...}"
else
	not_ok "--format json -d / (prefix): got [$got] $(cat "$work/err")"
fi

one_line() { # DESC STATUS PATTERN CMD...: CMD exits STATUS and says PATTERN, in one line
	local desc=$1 want_st=$2 pattern=$3 st
	shift 3
	"$@" >"$work/out" 2>"$work/err"
	st=$?
	if [[ $st -eq $want_st && $(wc -l <"$work/err") -eq 1 && ! -s $work/out ]] &&
		grep -qx -- "$pattern" "$work/err"; then
		ok "$desc"
	else
		not_ok "$desc: exit $st, [$(cat "$work/err")]"
	fi
}
one_line "a missing pool: one line, exit 1" 1 "striped-ls: no pool named no-such-pool-$$" \
	"$ls_tool" no-such-pool-$$
one_line "a missing pool as rados://: one line, exit 1" 1 "striped-ls: no pool named no-such-pool-$$" \
	"$ls_tool" "rados://no-such-pool-$$/x"
one_line "rados:// without a pool: one line, exit 2" 2 \
	"striped-ls: rados:///x: missing pool name (POOL or rados://POOL\[/PREFIX\])" \
	"$ls_tool" rados:///x
one_line "-d with an empty delimiter: usage in one line, exit 2" 2 \
	"striped-ls: ls: -d: an empty delimiter" "$ls_tool" -d "" "$pool"
"$ls_tool" >/dev/null 2>&1
st=$?
if [[ $st -eq 2 ]]; then ok "no pool: usage, exit 2"; else not_ok "no pool: exit $st"; fi

# --namespace: a key limited to namespace ns1 lists ns1 and nothing else.
# (libradosstriper may crash at its exit, after a put: its stderr is kept out;
# the listings below find out whether the put worked)
rados --striper -p "$pool" -N "$ns1" put "$pfx-in1" "$work/rs" 2>>"$work/striper.err"
rados --striper -p "$pool" -N "$ns2" put "$pfx-in2" "$work/rs" 2>>"$work/striper.err"
if ! ns_client "$client" "$pool" "$ns1" "$work"; then
	not_ok "ceph auth get-or-create client.$client"
	tap_done
fi
got=$("$ls_tool" -l --conf "$work/$client.conf" --id "$client" --namespace "$ns1" "$pool" 2>"$work/err")
if [[ $got == "$(printf '77777\t%s-in1' "$pfx")" ]]; then
	ok "--namespace as a client limited to it: its file only"
else
	not_ok "--namespace $ns1 as client.$client: got [$got] $(cat "$work/err")"
fi
# the key through CEPH_ARGS this time, as the rados command takes it
got=$(CEPH_ARGS="--keyring $work/$client.keyring" "$ls_tool" --id "$client" --namespace "$ns1" \
	"rados://$pool/$pfx-in" 2>"$work/err")
if [[ $got == "$pfx-in1" ]]; then
	ok "--namespace with rados://POOL/PREFIX, the key from CEPH_ARGS"
else
	not_ok "--namespace with a prefix: [$got] $(cat "$work/err")"
fi
one_line "the limited client, another namespace: refused in one line" 1 \
	"striped-ls: listing: Operation not permitted" \
	"$ls_tool" --conf "$work/$client.conf" --id "$client" --namespace "$ns2" "$pool"
one_line "the limited client, the default namespace: refused in one line" 1 \
	"striped-ls: listing: Operation not permitted" \
	"$ls_tool" --conf "$work/$client.conf" --id "$client" "$pool"
got=$("$ls_tool" --namespace "$ns2" "$pool" 2>"$work/err")
if [[ $got == "$pfx-in2" ]]; then ok "admin, --namespace: that namespace's files only"; else not_ok "admin --namespace $ns2: [$got]"; fi
if ! "$ls_tool" "$pool" | grep -q "^$pfx-in[12]$"; then
	ok "without --namespace: no file of a namespace"
else
	not_ok "the default namespace lists files of others"
fi
tap_done
