#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# faults.sh STRIPED_MOUNT STRIPED: what other clients do to a file open on
# the mount, as mount/SEMANTICS.md ("Faults") says (TAP):
#  - another client removes it: its calls get ESTALE, its name goes;
#  - another client truncates it: stat and reads show the new size;
#  - a handle fenced by another client: the daemon is stopped (SIGSTOP), so
#    it cannot answer the request to let go, and `striped --id fencer
#    truncate` blocklists it and breaks its lock; continued, every call on
#    the file gets EIO (or ESTALE) within seconds, never a hang, the rest of
#    the mount answers (errors: its whole client is fenced), the daemon stays;
#    remounted, the file has the fencer's size and the others are whole.
# An OSD killed during a copy needs a cluster of its own: tests/faults
# (run-faults.sh mount_osd_kill).
set -uo pipefail
STRIPED_MOUNT=${1:?usage: faults.sh STRIPED_MOUNT STRIPED}
STRIPED=${2:?}
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=mount-lib.sh
source "$here/mount-lib.sh"
need_cluster tap faults.sh
need_fuse
# shellcheck source=../tap.sh
source "$here/../tap.sh"

work=$(mktemp -d)
TAP_DETAIL=$work/detail
trap mnt_cleanup EXIT
ns=mnt-flt-$$
M=$work/m
PY=/usr/bin/python3
striped() { # as another client: ARGS...
	"$STRIPED" -c "$CEPH_CONF" -p "$STRIPED_TEST_POOL" -N "$ns" "$@"
}

if ! mnt_start "$M" "$ns"; then
	not_ok "striped-mount mounts"
	tap_done
fi

# calls.py FILE CALL...: each call on an open descriptor of FILE, its errno
# (or ok) and how long it took, one line each; a call over 30 s is a hang.
cat >"$work/calls.py" <<'PYEOF'
import errno, os, sys, time
fd = int(sys.argv[1])
calls = {"read": lambda: os.pread(fd, 4096, 0), "write": lambda: os.pwrite(fd, b"c" * 4096, 0),
         "fsync": lambda: os.fsync(fd), "fstat": lambda: os.fstat(fd).st_size,
         "close": lambda: os.close(fd)}
for name in sys.argv[2:]:
    t0 = time.monotonic()
    try:
        r = calls[name]()
        out = "ok" if not isinstance(r, int) or name != "fstat" else f"ok {r}"
    except OSError as e:
        out = errno.errorcode.get(e.errno, str(e.errno))
    print(f"{name} {out} {time.monotonic() - t0:.1f}", flush=True)
PYEOF

# calls_on FILE OUT SETUP: python opens FILE on the mount (read-write),
# runs SETUP (python, fd in `fd`), touches OUT.ready, waits for OUT.go, then
# makes its calls into OUT. Runs in the background; sets $holder.
calls_on() {
	local file=$1 out=$2 setup=$3
	"$PY" - "$file" "$out" <<PYEOF >"$out.err" 2>&1 &
import os, subprocess, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
$setup
open(sys.argv[2] + ".ready", "w").close()
while not os.path.exists(sys.argv[2] + ".go"):
    time.sleep(0.05)
subprocess.run(["$PY", "$work/calls.py", str(fd), "read", "write", "fsync", "fstat", "close"],
               stdout=open(sys.argv[2], "w"), pass_fds=(fd,), timeout=200)
PYEOF
	holder=$!
	local i
	for ((i = 0; i < 300; i++)); do
		[[ -e $out.ready ]] && return 0
		sleep 0.1
	done
	return 1
}
# every_call OUT ERRNOS...: in OUT, read and fstat failed with one of ERRNOS;
# write too, or it went into the window and the fsync after it failed so
# (an error is reported by the write or by the next fsync, never dropped);
# close may succeed (the error was reported before it); each call took less
# than 30 s (no hang).
every_call() {
	local out=$1 name res secs
	shift
	local want=" $* "
	declare -A got
	while read -r name res secs _; do
		[[ ${secs%.*} -lt 30 ]] || return 1
		got[$name]=$res
	done <"$out"
	[[ ${#got[@]} == 5 && $want == *" ${got[read]} "* && $want == *" ${got[fstat]} "* ]] || return 1
	[[ $want == *" ${got[write]} "* ]] || [[ ${got[write]} == ok && $want == *" ${got[fsync]} "* ]]
}
MiB=$((1 << 20))

# ---- another client removes a file open here
calls_on "$M/removed" "$work/rm.out" "os.write(fd, b'a' * (5 << 20)); os.fsync(fd)"
check "another client removes a file open here (striped rm: it asks the daemon to let go)" \
	striped rm removed
touch "$work/rm.out.go"
wait "$holder"
cp "$work/rm.out" "$TAP_DETAIL"
check "its calls get ESTALE (read, fstat; write, or the fsync after it), in seconds" every_call "$work/rm.out" ESTALE ENOENT
check "its name is gone within cache_time" bash -c "sleep 1.2; ! stat '$M/removed' 2>/dev/null"

# ---- another client truncates a file open here
cat >"$work/trunc.py" <<PYEOF
import os, subprocess, sys, time
fd = os.open("$M/cut", os.O_RDWR | os.O_CREAT, 0o644)
os.write(fd, b"a" * (5 << 20))
os.fsync(fd)
os.write(fd, b"b" * 1000)  # in the daemon's window, sent when the truncate asks
subprocess.run(["$STRIPED", "-c", "$CEPH_CONF", "-p", "$STRIPED_TEST_POOL", "-N", "$ns",
                "truncate", "cut", "1000"], check=True)
time.sleep(1.2)  # the kernel's attributes are at most cache_time old
st, data = os.fstat(fd).st_size, os.pread(fd, 1 << 20, 0)
os.close(fd)
print(st, len(data), os.stat("$M/cut").st_size)
sys.exit(0 if (st, len(data), os.stat("$M/cut").st_size) == (1000, 1000, 1000) else 1)
PYEOF
check "another client truncates a file open here: fstat, reads and stat give the new size" \
	"$PY" "$work/trunc.py"

# ---- a handle fenced by another client
calls_on "$M/fenced" "$work/fence.out" "
os.write(fd, b'a' * (5 << 20)); os.fsync(fd)
os.write(fd, b'b' * (1 << 20))  # not fsynced: in the window when the daemon is fenced
with open('$M/whole', 'wb') as f: f.write(b'w' * (3 << 20))"
pid=$MNT_PID
kill -STOP "$pid"
check "the daemon stopped, another client (client.fencer) truncates the file: it fences the daemon" \
	timeout 120 "$STRIPED" --id fencer -c "$CEPH_CONF" -p "$STRIPED_TEST_POOL" -N "$ns" \
	truncate fenced 4096
kill -CONT "$pid"
touch "$work/fence.out.go"
wait "$holder"
cp "$work/fence.out" "$TAP_DETAIL"
check "the fenced file's calls get EIO (read, fstat; write, or the fsync after it), each in seconds" \
	every_call "$work/fence.out" EIO ESTALE
check "the rest of the mount answers (an error: the daemon's client is fenced), no hang" \
	timeout 30 bash -c "stat '$M/whole' >/dev/null 2>&1; cat '$M/whole' >/dev/null 2>&1; true"
check "the daemon is still there" kill -0 "$pid"
mnt_stop "$M" "$pid"
mnt_start "$M" "$ns"
check "remounted: the fenced file has the fencer's size, nothing of the fenced writes past it" \
	bash -c "[ \"\$(stat -c %s '$M/fenced')\" = 4096 ] && cmp -s <(head -c 4096 /dev/zero | tr '\\0' a) '$M/fenced'"
check "remounted: the other file is whole" cmp <(head -c $((3 * MiB)) /dev/zero | tr '\0' w) "$M/whole"
mnt_stop "$M" "$MNT_PID"
tap_done
