#!/bin/bash
# ab.sh REPS: the subset's tree steps: the mount with sync_close, with write-back (default), ceph-fuse, interleaved
cd /work/main; eval "$(scripts/cluster env)"; S=/tmp/t56/src; T=/tmp/t57/src.tar
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
mnt() { # OPTS NS
  mkdir -p /tmp/t57/ab; build/mount/striped-mount rados://striped/$2 /tmp/t57/ab -f -o conf=$CEPH_CONF$1 > /tmp/t57/ab.log 2>&1 &
  for i in $(seq 50); do mountpoint -q /tmp/t57/ab && break; sleep 0.1; done; }
for r in $(seq $1); do
  mnt ,sync_close ab-sync; steps sync /tmp/t57/ab $r; fusermount3 -u /tmp/t57/ab; sleep 1
  mnt "" ab-wb; steps wb /tmp/t57/ab $r; fusermount3 -u /tmp/t57/ab; sleep 1
  mkdir -p .cluster/mnt/ab; steps fuse /work/main/.cluster/mnt/ab $r; rm -rf .cluster/mnt/ab
done
