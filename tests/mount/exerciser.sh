#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# exerciser.sh STRIPED_MOUNT: the random-operation exerciser (exerciser.py)
# on a mount against a local directory, with a second mount of the same
# namespace for close-to-open (TAP): one seed per line, the seeds run side
# by side (each in a directory of its own). Short in CI: 3 random seeds of
# MOUNT_EXERCISER_OPS operations (600). Long runs (the 100,000
# operations on each of 3 seeds), e.g.
#   MOUNT_EXERCISER_OPS=100000 MOUNT_EXERCISER_SEEDS="1 2 3" exerciser.sh build/mount/striped-mount
# or bench/run --cases mount-exerciser. MOUNT_EXERCISER_OPTS adds mount
# options (a layout of small objects: stripe_unit=64K,stripe_count=3,object_size=128K).
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
ops=${MOUNT_EXERCISER_OPS:-600}
seeds=${MOUNT_EXERCISER_SEEDS:-"$RANDOM $RANDOM $RANDOM"}
opts=${MOUNT_EXERCISER_OPTS:-}
if ! mnt_start "$work/m" "$ns" "$opts" || ! mnt_start "$work/o" "$ns" "$opts"; then
	bail "striped-mount mounts (twice)" "$work"/mount-*.log
fi
n=0
pids=()
for seed in $seeds; do
	n=$((n + 1))
	mkdir -p "$work/m/s$seed" "$work/l/s$seed"
	/usr/bin/python3 "$here/exerciser.py" "$work/m/s$seed" "$work/l/s$seed" \
		--other "$work/o/s$seed" --seed "$seed" --ops "$ops" >"$work/out.$n" 2>&1 &
	pids+=($!)
done
seeds=($seeds)
for ((i = 1; i <= n; i++)); do
	wait "${pids[$((i - 1))]}"
	# Each run's one result, as this script's; its other lines (comments) before it.
	result=$(grep -m1 -E '^(not )?ok 1 ' "$work/out.$i")
	grep -vE '^(1\.\.1|(not )?ok 1 .*)$' "$work/out.$i"
	if [[ $result == "ok 1 "* ]]; then
		ok "${result#ok 1 - }"
	elif [[ -n $result ]]; then
		not_ok "${result#not ok 1 - }"
	else
		not_ok "seed ${seeds[i - 1]}: no result"
	fi
done
check "both daemons alive" kill -0 "${MNT_PIDS[0]}" "${MNT_PIDS[1]}"
tap_done
