#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# shared.sh STRIPED_MOUNT STRIPED_DD: the promises between clients and the
# faults of mount/SEMANTICS.md (TAP):
#  - two mounts of one namespace: what one closed the other reads whole
#    (close-to-open), cached and O_DIRECT, also after it saw an older size;
#  - a small file open read-only (no handle: its open reads its bytes, its
#    reads within cache_time are answered from them, later ones read the
#    head): the other mount's overwrite, truncate, growth past the head,
#    remove and re-create read within cache_time; a writer on the same mount
#    read at once; no lock taken;
#  - a directory's attributes changed by one mount show on the other within
#    cache_time, however often it makes files in it (and so is asked for them);
#  - a file made on one mount opens on the other at once, though the other
#    walked the pool just before (no "not there" from a walk);
#  - write-back (the default, writeback_time=2): an O_EXCL file closed on
#    one mount and kept there is read whole at once by striped-dd (the
#    library asks the mount to write it back); with sync_close the close
#    puts it on RADOS, unheld;
#  - the daemon killed (SIGKILL): after a remount every file is as of its
#    last fsync or close, an O_EXCL file closed less than writeback_time
#    before the kill excepted (there, empty or whole); one open at the
#    kill: there, empty;
#  - SIGTERM with a file open and written, not closed: the daemon sends the
#    window (a new small file: makes it), unmounts and exits; the bytes are
#    on RADOS (striped-dd reads them);
#  - /etc/fstab's way (mount -t fuse.striped-mount through mount.fuse3, from
#    an fstab file) and a systemd mount unit (systemd-analyze verify, then
#    the mount command systemd runs for it).
set -uo pipefail
STRIPED_MOUNT=${1:?usage: shared.sh STRIPED_MOUNT STRIPED_DD}
STRIPED_DD=${2:?}
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=mount-lib.sh
source "$here/mount-lib.sh"
need_cluster tap shared.sh
need_fuse
# shellcheck source=../tap.sh
source "$here/../tap.sh"

work=$(mktemp -d)
TAP_DETAIL=$work/detail
trap mnt_cleanup EXIT
ns=mnt-shr-$$
A=$work/a B=$work/b
MiB=$((1 << 20))
PY=/usr/bin/python3
random_file "$work/r1" $((5 * MiB + 3))
random_file "$work/r2" $((70 * MiB + 11))
random_file "$work/r3" $((8 * MiB))

mnt_start "$A" "$ns" && pid_a=$MNT_PID && mnt_start "$B" "$ns" && pid_b=$MNT_PID
check "two mounts of one namespace" mountpoint -q "$B"

# ---- close-to-open
check "a file closed on one mount is read whole on the other" bash -c "
	cp '$work/r1' '$A/f' && cmp '$work/r1' '$B/f'"
check "grown and closed on one, read whole on the other (cached), after it saw the old size" bash -c "
	stat -c %s '$B/f' >/dev/null && cp '$work/r2' '$A/f' && cmp '$work/r2' '$B/f'"
check "the same with O_DIRECT reads" bash -c "
	cp '$work/r1' '$A/g' && stat -c %s '$B/g' >/dev/null && cp '$work/r2' '$A/g' &&
	dd if='$B/g' of='$work/g.out' bs=64M iflag=direct status=none && cmp '$work/r2' '$work/g.out'"
check "an fsync on one mount is seen by a fresh open on the other" "$PY" -c "
import os, sys
fd = os.open('$A/h', os.O_WRONLY | os.O_CREAT, 0o644)
data = open('$work/r3', 'rb').read()
os.write(fd, data); os.fsync(fd)
ok = open('$B/h', 'rb').read() == data
os.close(fd); sys.exit(0 if ok else 1)"

# ---- a small file open read-only: no handle; another client's change read within cache_time (1 s)
check "a small file open read-only on one mount: other clients' changes, local writers, rename" \
	"$PY" - "$A" "$B" "$STRIPED_TEST_POOL" "$ns" <<'PYEOF'
import errno, json, os, subprocess, sys, time
a, b, pool, ns = sys.argv[1:]
def expect(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        sys.exit(1)
def lockers(name):
    out = subprocess.run(["rados", "-p", pool, "-N", ns, "lock", "info", name + ".0000000000000000",
                          "striper.lock"], capture_output=True, text=True).stdout
    return json.loads(out)["lockers"] if out.strip() else []
def unlocked(name):  # the writer's unlock goes after close(2) returned (FUSE's release)
    for _ in range(100):
        if lockers(name) == []:
            return
        time.sleep(0.05)
def err(fn):
    try:
        fn()
    except OSError as e:
        return e.errno
    return 0
def within(fn, want, limit=2.5):  # cache_time (1 s) and a margin
    t = time.monotonic()
    while fn() != want:
        if time.monotonic() - t > limit:
            return False
        time.sleep(0.1)
    return True
def pread_or_err(fd, n):
    try:
        return os.pread(fd, n, 0)
    except OSError as e:
        return e.errno
with open(a + "/s", "wb") as f:
    f.write(b"s" * 3000)
unlocked("s")
fd = os.open(b + "/s", os.O_RDONLY)
expect("read whole", os.pread(fd, 8192, 0) == b"s" * 3000)
expect("no lock taken for it", lockers("s") == [])
with open(a + "/s", "r+b") as f:
    f.write(b"x" * 100)
expect("another client's overwrite, closed, is read within cache_time",
       within(lambda: os.pread(fd, 8192, 0), b"x" * 100 + b"s" * 2900))
os.truncate(a + "/s", 1000)
expect("another client's truncate: the new size within cache_time",
       within(lambda: os.pread(fd, 8192, 0), b"x" * 100 + b"s" * 900))
big = os.urandom(6 << 20)
with open(a + "/s", "wb") as f:
    f.write(big)
expect("grown past its head (6 MiB) by another client: read whole",
       within(lambda: os.pread(fd, 7 << 20, 0), big))
expect("rename of it while open: EBUSY", err(lambda: os.rename(b + "/s", b + "/s2")) == errno.EBUSY)
os.close(fd)
with open(b + "/t", "wb") as f:
    f.write(b"t" * 500)
unlocked("t")  # its handle closed: the read-only open that follows takes none
r = os.open(b + "/t", os.O_RDONLY)
w = os.open(b + "/t", os.O_WRONLY)
os.write(w, b"y" * 100)
expect("a writer on this mount, not closed: read at once", os.pread(r, 8192, 0) == b"y" * 100 + b"t" * 400)
os.close(w)
expect("and after its close", os.pread(r, 8192, 0) == b"y" * 100 + b"t" * 400)
os.close(r)
with open(b + "/k", "wb") as f:
    f.write(b"k" * 500)
unlocked("k")  # its handle closed: the read-only open takes none, and reads the bytes
r = os.open(b + "/k", os.O_RDONLY)
expect("a read-only open of a small file reads it", os.pread(r, 8192, 0) == b"k" * 500)
os.truncate(b + "/k", 100)
expect("a truncate on this mount is read at once", os.pread(r, 8192, 0) == b"k" * 100)
os.close(r)
with open(b + "/u", "wb") as f:
    f.write(b"u" * 500)
fd = os.open(b + "/u", os.O_RDONLY)
os.unlink(a + "/u")
expect("removed by another client: ESTALE within cache_time",
       within(lambda: pread_or_err(fd, 8192), errno.ESTALE))
with open(a + "/u", "wb") as f:
    f.write(b"v" * 500)
expect("made anew by another client: still ESTALE", err(lambda: os.pread(fd, 8192, 0)) == errno.ESTALE)
os.close(fd)
expect("a new open reads the new file", open(b + "/u", "rb").read() == b"v" * 500)
with open(b + "/m", "wb") as f:
    f.write(b"m" * 10)
os.chmod(b + "/m", 0o644)
r = os.open(b + "/m", os.O_RDONLY)  # its reading of the head is kept for the next GETATTR
os.chmod(b + "/m", 0o600)  # a change here: that reading is stale
w = os.open(b + "/m", os.O_RDWR)  # the kernel forgets the attributes: the next stat asks
expect("a chmod here after a read-only open shows at once", os.fstat(w).st_mode & 0o777 == 0o600)
os.close(r)
os.close(w)
for n in ("s", "t", "k", "u", "m"):
    os.unlink(a + "/" + n)
PYEOF

# ---- a directory's attributes: kept by a mount for cache_time (1 s here) at most
check "a directory chmod on one mount shows on the other within cache_time, files made in it meanwhile" "$PY" - "$A" "$B" <<'PYEOF'
import os, sys, time
a, b = sys.argv[1], sys.argv[2]
os.mkdir(a + "/dm", 0o755)
os.chmod(a + "/dm", 0o755)
d = os.open(b + "/dm", os.O_RDONLY | os.O_DIRECTORY)  # fstat: no lookup answers for it
open(b + "/dm/first", "wb").close()
seen = os.fstat(d).st_mode & 0o777  # asked of b's daemon, which keeps what it read
os.chmod(a + "/dm", 0o700)
t0, i = time.monotonic(), 0
while os.fstat(d).st_mode & 0o777 != 0o700 and time.monotonic() - t0 < 5:
    open(b + "/dm/f%d" % i, "wb").close()  # each create makes the kernel ask for dm's again
    i += 1
waited = time.monotonic() - t0
os.close(d)
for n in os.listdir(b + "/dm"):
    os.unlink(b + "/dm/" + n)
os.rmdir(b + "/dm")
print("# mode %o before, 700 after %.2f s and %d creates" % (seen, waited, i))
sys.exit(0 if seen == 0o755 and waited < 2.5 else 1)
PYEOF

# ---- a new name made on one mount opens on the other at once (close-to-open),
# though the other walked the pool just now: a walk answers no lookup "not there"
check "a file made and closed on one mount opens on the other at once, after the other's walk" "$PY" - "$A" "$B" <<'PYEOF'
import os, sys, time
a, b = sys.argv[1], sys.argv[2]
absent = "late" not in os.listdir(b)  # b walks the pool
with open(a + "/late", "wb") as f:
    f.write(b"made on a")
try:
    with open(b + "/late", "rb") as f:
        got = f.read()
except OSError as e:
    got = e
os.unlink(a + "/late")
print("# read on b: %r" % (got,))
sys.exit(0 if absent and got == b"made on a" else 1)
PYEOF

# ---- write-back: a file kept on a mount read at once by another client
check "an O_EXCL file closed on a mount, kept there: striped-dd reads it whole at once" bash -c "
	head -c 5000 '$work/r3' >'$work/kept.want' && set -o noclobber &&
	cat '$work/kept.want' >'$A/kept' &&
	[ \"\$(rados -c '$CEPH_CONF' -p '$STRIPED_TEST_POOL' -N '$ns' getxattr kept.0000000000000000 striper.size)\" = 0 ] &&
	'$STRIPED_DD' if='rados://$STRIPED_TEST_POOL/kept' ns='$ns' of='$work/kept.got' status=none &&
	cmp '$work/kept.want' '$work/kept.got'"
rm -f "$A/kept"
mnt_start "$work/c" "$ns" "sync_close" || fail "mount c (sync_close)"
check "sync_close: an O_EXCL file is on RADOS, unheld, when its close returns" bash -c "
	set -o noclobber && head -c 5000 '$work/r3' >'$work/c/synced-close' &&
	[ \"\$(rados -c '$CEPH_CONF' -p '$STRIPED_TEST_POOL' -N '$ns' getxattr synced-close.0000000000000000 striper.size)\" = 5000 ] &&
	! rados -c '$CEPH_CONF' -p '$STRIPED_TEST_POOL' -N '$ns' getxattr synced-close.0000000000000000 striper.held 2>/dev/null"
rm -f "$work/c/synced-close"
mnt_stop "$work/c" "$MNT_PID"

# ---- the daemon killed: every file as of its last fsync or close
"$PY" - "$A" "$work/r3" >"$TAP_DETAIL" 2>&1 <<'PYEOF' &
import os, sys, time
m, src = sys.argv[1], open(sys.argv[2], "rb").read()
with open(os.path.join(m, "closed"), "wb") as f:
    f.write(src)
fd = os.open(os.path.join(m, "synced"), os.O_WRONLY | os.O_CREAT, 0o644)
os.write(fd, src)
os.fsync(fd)
os.write(fd, b"not synced" * 1000)  # may be lost
with open(os.path.join(m, "closed-small"), "wb") as f:  # a new small file: kept until close
    f.write(src[:4096])
fd = os.open(os.path.join(m, "synced-small"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, src[:4096])
os.fsync(fd)
os.write(fd, b"not synced")  # may be lost
with open(os.path.join(m, "old-excl"), "xb") as f:  # O_EXCL: its name taken at the open
    f.write(src[:4096])
with open(os.path.join(m, "synced-excl"), "xb") as f:
    f.write(src[:4096])
    os.fsync(f.fileno())  # on RADOS now: not kept past it
time.sleep(3)  # writeback_time (2 s) passed: old-excl is written back
with open(os.path.join(m, "closed-excl"), "xb") as f:  # kept in the daemon at the kill
    f.write(src[:4096])
fd = os.open(os.path.join(m, "open-excl"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
os.write(fd, src[:4096])  # kept in the daemon: never closed
open(os.path.join(m, "ready"), "w").close()
time.sleep(60)
PYEOF
writer=$!
for ((i = 0; i < 100; i++)); do [[ -e $A/ready ]] && break; sleep 0.1; done
kill -9 "$pid_a"
mnt_wait_gone "$pid_a" 5
check "a killed daemon's mount answers ENOTCONN, never hangs" bash -c "
	! timeout 10 stat '$A/closed' 2>&1 | grep -q . || timeout 10 stat '$A/closed' 2>&1 | grep -q 'not connected'"
kill -9 "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
fusermount3 -u -z "$A"
mnt_start "$A" "$ns" && pid_a=$MNT_PID
check "after a remount: the file closed before the kill is whole" cmp "$work/r3" "$A/closed"
check "after a remount: a new small file closed before the kill is whole" \
	cmp <(head -c 4096 "$work/r3") "$A/closed-small"
check "after a remount: a new small file holds every fsynced byte" \
	cmp -n 4096 "$work/r3" "$A/synced-small"
check "after a remount: the fsynced file holds every fsynced byte" \
	cmp -n $((8 * MiB)) "$work/r3" "$A/synced"
check "after a remount: an O_EXCL file closed writeback_time before the kill is whole" \
	cmp <(head -c 4096 "$work/r3") "$A/old-excl"
check "after a remount: an O_EXCL file fsynced before the kill is whole" \
	cmp <(head -c 4096 "$work/r3") "$A/synced-excl"
check "after a remount: an O_EXCL file closed just before the kill is there, empty or whole" \
	bash -c "test -f '$A/closed-excl' && { ! test -s '$A/closed-excl' ||
		cmp <(head -c 4096 '$work/r3') '$A/closed-excl'; }"
check "after a remount: an O_EXCL file open at the kill is there, empty" \
	bash -c "test -f '$A/open-excl' && ! test -s '$A/open-excl'"
rm -f "$A/closed-excl" "$A/open-excl" "$A/old-excl" "$A/synced-excl"

# ---- SIGTERM with a file open and written
# Under ThreadSanitizer (MOUNT_SANITIZE=thread) the daemon's SIGTERM is not
# tried: libfuse cancels its worker threads inside read(2), and TSan, told
# to ignore what uninstrumented libraries do (scripts/test), ends a thread
# cancelled there as an error of its own. The plain and ASan builds try it.
if [[ ${MOUNT_SANITIZE:-none} == thread ]]; then
	for what in "the daemon unmounts and exits" "the open file's window was sent first" \
		"a new small file open, not closed, was made first"; do
		skip "SIGTERM: $what (libfuse's cancelled workers under TSan)"
	done
else
	"$PY" - "$B" "$work/r2" >"$TAP_DETAIL" 2>&1 <<-'PYEOF' &
	import os, sys, time
	m, src = sys.argv[1], open(sys.argv[2], "rb").read()
	f = open(os.path.join(m, "open-at-term"), "wb")
	f.write(src)
	f.flush()  # into the daemon's window: not closed, not fsynced
	g = open(os.path.join(m, "small-at-term"), "wb")  # a new small file, kept in the daemon
	g.write(src[:5000])
	g.flush()
	open(os.path.join(m, "ready2"), "w").close()
	time.sleep(60)
	PYEOF
	writer=$!
	for ((i = 0; i < 100; i++)); do [[ -e $B/ready2 ]] && break; sleep 0.1; done
	kill -TERM "$pid_b"
	check "SIGTERM: the daemon unmounts and exits" bash -c "
		$(declare -f mnt_wait_gone); mnt_wait_gone $pid_b 30 && ! mountpoint -q '$B'"
	kill -9 "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
	check "SIGTERM: the open file's window was sent first (striped-dd reads it whole)" bash -c "
		'$STRIPED_DD' if='rados://$STRIPED_TEST_POOL/open-at-term' ns='$ns' of='$work/term.out' bs=4M status=none &&
		cmp '$work/r2' '$work/term.out'"
	check "SIGTERM: a new small file open, not closed, was made first" bash -c "
		'$STRIPED_DD' if='rados://$STRIPED_TEST_POOL/small-at-term' ns='$ns' of='$work/term.small' status=none &&
		cmp <(head -c 5000 '$work/r2') '$work/term.small'"
fi

# ---- fstab and systemd
F=$work/fstab
printf 'rados://%s/%s %s fuse.striped-mount conf=%s,cache_time=2,noauto 0 0\n' \
	"$STRIPED_TEST_POOL" "$ns" "$work/f" "$CEPH_CONF" >"$F"
mkdir -p "$work/f"
# mount(8) runs helpers with a standard PATH: the fstab line itself needs
# striped-mount installed there; mount.fuse3 is what it runs, the same way.
check "an fstab line's helper: mount.fuse3 SOURCE DIR -t fuse.striped-mount -o OPTIONS" bash -c "
	PATH='$(dirname "$STRIPED_MOUNT")':\$PATH mount.fuse3 rados://$STRIPED_TEST_POOL/$ns '$work/f' \
		-t fuse.striped-mount -o conf=$CEPH_CONF,cache_time=2,_netdev &&
	cmp '$work/r3' '$work/f/closed'"
check "umount unmounts it" bash -c "umount '$work/f' && ! mountpoint -q '$work/f'"
if command -v striped-mount >/dev/null && [[ $(command -v striped-mount) == /usr/* ]]; then
	check "the fstab line: mount --fstab FILE MOUNTPOINT" bash -c "
		mount --fstab '$F' '$work/f' && cmp '$work/r3' '$work/f/closed' && umount '$work/f'"
else
	skip "striped-mount is not installed in mount(8)'s PATH (meson install)"
fi
unit=$work/$(systemd-escape --path "$work/s" 2>/dev/null || echo x).mount
cat >"$unit" <<EOF
[Unit]
Description=striped files of rados://$STRIPED_TEST_POOL/$ns
After=network-online.target
Wants=network-online.target

[Mount]
What=rados://$STRIPED_TEST_POOL/$ns
Where=$work/s
Type=fuse.striped-mount
Options=conf=$CEPH_CONF,_netdev

[Install]
WantedBy=remote-fs.target
EOF
if command -v systemd-analyze >/dev/null; then
	check "a systemd mount unit: systemd-analyze verify" systemd-analyze verify "$unit"
else
	skip "systemd-analyze not installed"
fi
mkdir -p "$work/s"
check "the unit's What, Where, Type and Options mount (mount.fuse3, as systemd's mount(8) runs it)" bash -c "
	what=\$(sed -n 's/^What=//p' '$unit') where=\$(sed -n 's/^Where=//p' '$unit')
	type=\$(sed -n 's/^Type=//p' '$unit') opts=\$(sed -n 's/^Options=//p' '$unit')
	PATH='$(dirname "$STRIPED_MOUNT")':\$PATH mount.fuse3 \"\$what\" \"\$where\" -t \"\$type\" -o \"\$opts\" &&
	cmp '$work/r3' '$work/s/closed' && umount '$work/s'"
mnt_stop "$A" "$pid_a"
tap_done
