#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ab.sh REPS: the subset's tree steps through the old mount (22fad68), the new one (HEAD) and ceph-fuse, interleaved
cd /work/main; eval "$(scripts/cluster env)"; S=/tmp/t56/src; T=/tmp/t56/src.tar
tar -C /tmp/t56 -cf $T src
steps() { # LABEL DIR REP
  local L=$1 M=$2 R=$3
  t() { local n=$1; shift; local t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || echo "FAIL $L $n" >&2; echo "$L $R $n $(echo "$(date +%s.%N)-$t0"|bc)"; }
  mkdir -p $M/tar
  t cp-a cp -a $S $M/cp
  t tar-x tar xf $T -C $M/tar
  t rsync rsync -a $S/ $M/rsync/
  t ls-lR ls -lR $M
  t cat bash -c "find $M/cp -type f -exec cat {} + >/dev/null"
  diff -r -q --no-dereference $S $M/cp >/dev/null || echo "DIFF $L" >&2
  t rm-r rm -r $M/cp $M/tar $M/rsync
}
mnt() { # BIN NS
  mkdir -p /tmp/t56/ab; $1 rados://striped/$2 /tmp/t56/ab -f -o conf=$CEPH_CONF > /tmp/t56/ab.log 2>&1 &
  for i in $(seq 50); do mountpoint -q /tmp/t56/ab && break; sleep 0.1; done; }
for r in $(seq $1); do
  mnt /tmp/bo/build/mount/striped-mount ab-old; steps old /tmp/t56/ab $r; fusermount3 -u /tmp/t56/ab; sleep 1
  mnt /work/main/build/mount/striped-mount ab-new; steps new /tmp/t56/ab $r; fusermount3 -u /tmp/t56/ab; sleep 1
  mkdir -p .cluster/mnt/ab; steps fuse /work/main/.cluster/mnt/ab $r; rm -rf .cluster/mnt/ab
done
