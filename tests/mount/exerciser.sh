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
	echo "1..1"
	echo "not ok 1 - striped-mount mounts (twice)"
	cat "$work"/mount-*.log | sed 's/^/#   /'
	exit 1
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
fails=0
for ((i = 1; i <= n; i++)); do
	wait "${pids[$((i - 1))]}"
	# its own "1..1" goes; its lines numbered as this script's
	sed -e '/^1\.\.1$/d' -e "s/^\(not \)\{0,1\}ok 1 /\1ok $i /" "$work/out.$i"
	grep -q "^ok 1 " "$work/out.$i" || fails=$((fails + 1))
done
kill -0 "${MNT_PIDS[0]}" && kill -0 "${MNT_PIDS[1]}"
alive=$?
n=$((n + 1))
if ((alive == 0)); then echo "ok $n - both daemons alive"; else echo "not ok $n - both daemons alive"; fi
echo "1..$n"
((fails == 0 && alive == 0))
