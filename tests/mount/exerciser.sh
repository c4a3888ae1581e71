#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# exerciser.sh STRIPED_MOUNT: the random-operation exerciser (exerciser.py)
# on a mount against a local directory (TAP). Quick in CI (3 seeds of
# MOUNT_EXERCISER_OPS operations, 1500 by default); long runs: e.g.
# MOUNT_EXERCISER_OPS=100000 MOUNT_EXERCISER_SEEDS="1 2 3" (or bench/run --cases mount).
set -uo pipefail
STRIPED_MOUNT=${1:?usage: exerciser.sh STRIPED_MOUNT}
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=mount-lib.sh
source "$here/mount-lib.sh"
need_cluster tap exerciser.sh
need_fuse

work=$(mktemp -d)
trap mnt_cleanup EXIT
ns=mnt-fsx-$$
ops=${MOUNT_EXERCISER_OPS:-1500}
seeds=${MOUNT_EXERCISER_SEEDS:-"$RANDOM $RANDOM $RANDOM"}
if ! mnt_start "$work/m" "$ns"; then
	echo "1..1"
	echo "not ok 1 - striped-mount mounts"
	exit 1
fi
n=0 fails=0
for seed in $seeds; do
	n=$((n + 1))
	mkdir -p "$work/m/s$seed" "$work/l/s$seed"
	line=$(/usr/bin/python3 "$here/exerciser.py" "$work/m/s$seed" "$work/l/s$seed" \
		--seed "$seed" --ops "$ops" | grep -E '^(not )?ok')
	echo "${line/ 1 - / $n - }"
	[[ $line == ok* ]] || fails=$((fails + 1))
done
echo "1..$n"
((fails == 0))
