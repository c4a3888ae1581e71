# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# cluster-check.sh: sourced by the shell cluster tests. Is the sandbox
# cluster named by CEPH_CONF and STRIPED_TEST_POOL there? The same check as
# tests/cluster_check.h: a missing CEPH_CONF file, or a monitor address at
# which nothing listens (a stopped cluster), count as no cluster. With
# STRIPED_TEST_REQUIRE_CLUSTER=1 (scripts/test, which started one) a missing
# cluster is a failure, never a skip.

# cluster_missing: prints why there is no usable cluster and returns 0, or
# prints nothing and returns 1 when there is one.
cluster_missing() {
	local conf=${CEPH_CONF:-} mon_host addr named=0
	if [[ -z $conf || -z ${STRIPED_TEST_POOL:-} ]]; then
		echo "no sandbox cluster (CEPH_CONF and STRIPED_TEST_POOL unset)"
		return 0
	fi
	if [[ ! -r $conf ]]; then
		echo "no sandbox cluster: CEPH_CONF=$conf: No such file or directory"
		return 0
	fi
	mon_host=$(ceph-conf -c "$conf" --lookup mon_host 2>/dev/null ||
		sed -n 's/^[[:space:]]*mon[_ ]host[[:space:]]*=[[:space:]]*//p' "$conf")
	for addr in $(grep -oE '(^|[^0-9.])[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+:[0-9]+' <<<"$mon_host" |
		grep -oE '[0-9.]+:[0-9]+$'); do
		named=1
		timeout 2 bash -c ": </dev/tcp/${addr%:*}/${addr##*:}" 2>/dev/null && return 1
	done
	# only a monitor address we can read and reach nothing at is "stopped"
	((named)) || return 1
	echo "no sandbox cluster: no monitor listens at $mon_host (CEPH_CONF=$conf)"
	return 0
}

# need_cluster tap|exitcode NAME: return when the cluster is there; else
# skip (TAP: "1..0 # SKIP" and exit 0, as meson reads TAP; otherwise exit 77)
# or, under STRIPED_TEST_REQUIRE_CLUSTER=1, fail (exit 1), with one line.
need_cluster() {
	local protocol=$1 name=$2 why
	why=$(cluster_missing) || return 0
	if [[ ${STRIPED_TEST_REQUIRE_CLUSTER:-0} == 1 ]]; then
		if [[ $protocol == tap ]]; then
			echo "1..1"
			echo "not ok 1 - $why (STRIPED_TEST_REQUIRE_CLUSTER=1)"
		fi
		echo "$name: $why (STRIPED_TEST_REQUIRE_CLUSTER=1)" >&2
		exit 1
	fi
	if [[ $protocol == tap ]]; then
		echo "1..0 # SKIP $why"
		exit 0
	fi
	echo "SKIP: $why"
	exit 77
}

# use_pool tap|exitcode NAME KIND: after need_cluster, point STRIPED_TEST_POOL
# at the pool of KIND: replicated (as it is), ec (erasure coded without
# overwrites: aligned appends only) or ecow (with overwrites). A cluster
# without that pool (fewer than 3 OSDs) skips, or fails under
# STRIPED_TEST_REQUIRE_CLUSTER=1 (scripts/test's cluster has them).
use_pool() {
	local protocol=$1 name=$2 kind=$3 pool
	case $kind in
	replicated) return 0 ;;
	ec) pool=${STRIPED_TEST_EC_POOL:-} ;;
	ecow) pool=${STRIPED_TEST_ECOW_POOL:-} ;;
	*) echo "$name: unknown pool kind $kind" >&2; exit 2 ;;
	esac
	if [[ -n $pool ]]; then
		export STRIPED_TEST_POOL=$pool
		return 0
	fi
	local why="no $kind pool (STRIPED_TEST_${kind^^}_POOL unset: scripts/cluster makes one with 3 OSDs)"
	if [[ ${STRIPED_TEST_REQUIRE_CLUSTER:-0} == 1 ]]; then
		[[ $protocol == tap ]] && printf '1..1\nnot ok 1 - %s\n' "$why"
		echo "$name: $why (STRIPED_TEST_REQUIRE_CLUSTER=1)" >&2
		exit 1
	fi
	if [[ $protocol == tap ]]; then
		echo "1..0 # SKIP $why"
		exit 0
	fi
	echo "SKIP: $why"
	exit 77
}
