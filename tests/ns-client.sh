# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# ns-client.sh: sourced by the cluster tests of the tools' namespace options.
# A cephx client that may use one RADOS namespace of the pool and nothing
# else, as a tenant's key would be (needs CEPH_CONF with an admin keyring).

# ns_client ID POOL NS DIR: creates client.ID with caps `mon 'allow r' osd
# 'allow rwx pool=POOL namespace=NS'`, its key in DIR/ID.keyring (mode 600,
# never printed) and DIR/ID.conf: CEPH_CONF with that keyring for client.ID.
# x: a striped file's lock is a cls_lock call, as libradosstriper's is; with
# `allow rw` alone opening a file for writing fails with EPERM.
ns_client() {
	local id=$1 pool=$2 ns=$3 dir=$4
	(umask 077 && ceph auth get-or-create "client.$id" mon 'allow r' \
		osd "allow rwx pool=$pool namespace=$ns" -o "$dir/$id.keyring") >/dev/null 2>&1 ||
		return 1
	{
		cat "$CEPH_CONF"
		printf '\n[client.%s]\nkeyring = %s\n' "$id" "$dir/$id.keyring"
	} >"$dir/$id.conf"
}

# ns_client_remove ID: the key is gone from the cluster.
ns_client_remove() {
	ceph auth del "client.$1" >/dev/null 2>&1
}

# ns_remove_objects POOL PREFIX NS...: removes every object whose name starts
# with PREFIX from each namespace NS of POOL ("" is the default one).
ns_remove_objects() {
	local pool=$1 prefix=$2 ns
	shift 2
	for ns in "$@"; do
		rados -p "$pool" -N "$ns" ls 2>/dev/null | grep "^$prefix" |
			xargs -r -d '\n' -n 64 rados -p "$pool" -N "$ns" rm # names with spaces too
	done
}
