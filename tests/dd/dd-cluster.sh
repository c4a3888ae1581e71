#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# dd-cluster.sh STRIPED-DD: round trips through a live cluster.
# Needs CEPH_CONF and STRIPED_TEST_POOL from `eval "$(scripts/cluster start)"`;
# exits 77 without a cluster (tests/cluster-check.sh).
# Every file it creates is named ddt-<pid>-* and removed at the end.
set -uo pipefail

SDD=$(readlink -f "${1:?usage: dd-cluster.sh PATH-TO-STRIPED-DD [BADREAD-SHIM]}")
# SHIM: tests/dd/badread.so, which here shrinks an input file under a mapped block
SHIM=${2:+$(readlink -f "$2")}
# shellcheck source=tests/cluster-check.sh
. "$(dirname "$(readlink -f "$0")")/../cluster-check.sh"
need_cluster exitcode dd-cluster.sh
POOL=$STRIPED_TEST_POOL
PFX=ddt-$$
# striped-dd's reason for a write the key may not make (tools/dd/dd_io.c)
EPERM_WRITE="Operation not permitted (writing a striped file takes its lock, a class method: the key needs osd 'allow rwx' on its pool and namespace, or class access)"

# Work next to the binary: the build tree is on disk (O_DIRECT needs it).
WORK=$(mktemp -d "$(dirname "$SDD")/dd-cluster.XXXXXX")

NS1=$PFX-t1
NS2=$PFX-t2
CLIENT=dd-ns-$$

cleanup() {
	ns_remove_objects "$POOL" "$PFX-" "" "$NS1" "$NS2"
	ns_client_remove "$CLIENT"
	rm -rf "$WORK"
}
trap cleanup EXIT

# shellcheck source=tests/tap.sh
. "$(dirname "$(readlink -f "$0")")/../tap.sh"
# shellcheck source=tests/ns-client.sh
. "$(dirname "$(readlink -f "$0")")/../ns-client.sh"
TAP_DETAIL=$WORK/err
# run DESC CMD...: CMD must succeed (stderr kept in $WORK/err)
run() {
	local desc=$1
	shift
	if "$@" 2>"$WORK/err"; then ok "$desc"; else not_ok "$desc (exit $?)"; fi
}
# copied FILE1 FILE2 DESC: same, then FILE2 removed, so a failed copy never compares stale data
copied() {
	same "$3" "$1" "$2"
	rm -f "$2"
}
sdd() { "$SDD" "$@"; }
url() { echo "rados://$POOL/$PFX-$1"; }

cd "$WORK" || exit 1
head -c 5000001 /dev/urandom >in5
head -c 12345678 /dev/urandom >in12
head -c 1 /dev/urandom >in1
: >in0

# ---- layouts x sizes x block sizes --------------------------------------
layouts=("" "stripe_unit=64K stripe_count=4 object_size=256K"
	"stripe_unit=1M stripe_count=8 object_size=4M"
	"stripe_unit=64K stripe_count=16 object_size=1M")
i=0
for lay in "${layouts[@]}"; do
	i=$((i + 1))
	for f in in0 in1 in5 in12; do
		bss=("bs=4M")
		# the 12 MB file also goes through small and mismatched block sizes
		[ $f = in12 ] && bss+=("bs=64K iodepth=16" "ibs=1000 obs=3000")
		for bs in "${bss[@]}"; do
			rm -f out
			# shellcheck disable=SC2086
			sdd if=$f of="$(url l$i-$f)" $bs $lay status=none 2>"$WORK/err" &&
				sdd if="$(url l$i-$f)" of=out $bs status=none 2>>"$WORK/err"
			copied $f out "layout [${lay:-default}] $f $bs"
		done
	done
done

# ---- skip/seek/count/notrunc against GNU dd on a local file ---------------
ddcase() {
	local desc=$1
	shift
	cp in12 ref
	rm -f out
	sdd if=in12 of="$(url ref)" bs=1M status=none 2>"$WORK/err"
	dd if=in5 of=ref "$@" status=none 2>/dev/null
	sdd if=in5 of="$(url ref)" "$@" status=none 2>>"$WORK/err" &&
		sdd if="$(url ref)" of=out bs=1M status=none 2>>"$WORK/err"
	copied ref out "as dd: $desc"
}
ddcase "seek, truncates" bs=64K seek=3 count=10
ddcase "seek, notrunc" bs=64K seek=3 count=10 conv=notrunc
ddcase "skip+count" bs=64K skip=5 count=7
ddcase "unaligned bytes" bs=1000 skip=777B seek=12345B count=4999B conv=notrunc
ddcase "no seek, truncates" bs=4M count=1
ddcase "ibs/obs" ibs=3000 obs=7000 skip=2 seek=3
ddcase "seek past end" bs=1M seek=20 count=2
ddcase "notrunc, whole" bs=512K conv=notrunc
# blocks of 1 MiB and more from a regular file are mapped, not read (dd_map.h)
ddcase "mapped blocks, skip inside a page" bs=1M skip=777B count=3
ddcase "mapped blocks, short last block" bs=2M skip=1 seek=1

# skip= past the end of a striped file: GNU dd's notice, nothing copied
sdd if="$(url l1-in12)" of=out bs=1M skip=12 status=noxfer 2>"$WORK/err"
printf 'striped-dd: %s: cannot skip to specified offset\n0+0 records in\n0+0 records out\n' \
	"$(url l1-in12)" >want
copied want "$WORK/err" "skip= past the end of a striped file: cannot skip to specified offset"
sdd if="$(url l1-in12)" of=out bs=1M skip=11 status=noxfer 2>"$WORK/err"
grep -q "cannot skip" "$WORK/err" && not_ok "skip= inside a striped file: no notice" ||
	ok "skip= inside a striped file: no notice"

# reading a striped file with skip/count, as dd reads a local one
dd if=in12 of=ref bs=64K skip=33 count=17 status=none
sdd if="$(url l1-in12)" of=out bs=64K skip=33 count=17 status=none 2>"$WORK/err"
copied ref out "striped input: skip+count"
dd if=in12 of=ref bs=1M skip=11 status=none
sdd if="$(url l1-in12)" of=out bs=1M skip=11 status=none 2>"$WORK/err"
copied ref out "striped input: skip to the tail"

# ---- pipes and standard streams --------------------------------------------
cat in5 | sdd of="$(url pipe)" bs=64K status=none 2>"$WORK/err"
sdd if="$(url pipe)" bs=1M status=none 2>>"$WORK/err" | cat >out
copied in5 out "stdin pipe -> striped -> stdout pipe"
cat in12 | sdd if=- of="$(url pipe2)" ibs=1000 obs=1M iflag=fullblock status=none 2>"$WORK/err"
sdd if="$(url pipe2)" of=- bs=333K status=none 2>>"$WORK/err" | cat >out
copied in12 out "if=- / of=- pipes, ibs/obs"
sdd of="$(url redir)" bs=1M status=none <in5 2>"$WORK/err"
sdd if="$(url redir)" bs=1M status=none >out 2>>"$WORK/err"
copied in5 out "stdin/stdout redirected regular files"
head -c 3000000 /dev/zero | sdd of="$(url zero)" bs=1M status=none 2>"$WORK/err"
sdd if=/dev/zero of="$(url zero2)" bs=1M count=3 status=none 2>>"$WORK/err"
sdd if="$(url zero2)" bs=1M status=none 2>>"$WORK/err" | cmp -s - <(head -c 3145728 /dev/zero)
if [ $? -eq 0 ]; then ok "if=/dev/zero (character device)"; else not_ok "if=/dev/zero"; fi

# ---- block sizes past 2 GiB (GNU dd takes them on 64-bit machines) -----------
sdd if=in12 of="$(url bs3g)" bs=3G status=none 2>"$WORK/err" &&
	sdd if="$(url bs3g)" of=out bs=3G status=none 2>>"$WORK/err"
copied in12 out "bs=3G to and from a striped file"

# ---- conv=sparse on a striped output ---------------------------------------------
# 16 MiB: 64 KiB of data, zeros, 1 MiB of data at 8 MiB, zeros to the end (a
# hole at the end: the size must still be 16 MiB). 64 KiB objects: 256 of
# them when written whole, 17 when sparse (the head, which holds the first
# 64 KiB, and 16 for the MiB of data).
{ head -c 64K /dev/urandom; head -c 8128K /dev/zero; head -c 1M /dev/urandom
	head -c 7M /dev/zero; } >sparse
nobj() { rados -p "$POOL" ls | grep -c "^$PFX-$1\.[0-9a-f]\{16\}$"; }
for conv in "" conv=sparse; do
	# shellcheck disable=SC2086
	sdd if=sparse of="$(url sp$conv)" bs=64K stripe_unit=64K stripe_count=1 object_size=64K \
		$conv status=none 2>"$WORK/err" &&
		sdd if="$(url sp$conv)" of=out bs=1M status=none 2>>"$WORK/err"
	copied sparse out "striped output ${conv:-without conv=sparse}: reads back ($(nobj "sp$conv") objects)"
done
full=$(nobj sp)
holes=$(nobj spconv=sparse)
[ "$full" -eq 256 ] && [ "$holes" -eq 17 ]
if [ $? -eq 0 ]; then ok "conv=sparse: $holes objects instead of $full"; else
	not_ok "conv=sparse: $holes objects instead of $full (want 17 and 256)"; fi
# the same over an existing longer file with notrunc: holes keep the old
# data (as GNU dd), and the file is not grown or cut
cp in12 ref
dd if=sparse of=ref bs=64K conv=sparse,notrunc status=none
sdd if=in12 of="$(url spn)" bs=1M status=none 2>"$WORK/err"
sdd if=sparse of="$(url spn)" bs=64K conv=sparse,notrunc status=none 2>>"$WORK/err" &&
	sdd if="$(url spn)" of=out bs=1M status=none 2>>"$WORK/err"
copied ref out "conv=sparse,notrunc over a longer striped file, as dd"
# a striped input (zeros past a short file read as holes) to a local file
dd if=sparse of=ref bs=64K conv=sparse status=none
sdd if="$(url spconv=sparse)" of=out bs=64K conv=sparse status=none 2>"$WORK/err"
[ "$(stat -c %b out)" -lt 4096 ] && cmp -s ref out
if [ $? -eq 0 ]; then ok "striped -> local conv=sparse: $(stat -c %b out) blocks"; else
	not_ok "striped -> local conv=sparse: $(stat -c '%s %b' out ref | tr '\n' ' ')"; fi
rm -f out

# ---- SIGINT with writes in flight ---------------------------------------------
# Blocks in flight when SIGINT comes: striped-dd waits for them, prints the
# summary and dies of SIGINT (130); the file holds exactly the bytes reported.
# (A background job starts with SIGINT ignored: dfl sets it back to default.)
dfl() { exec python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }
head -c 256M /dev/urandom >in256
# Its input is a fifo, fed by the test: no wait on time, nor a signal to poll
# for. striped-dd installs its handlers before it opens its input, so once
# the feeder's open of the fifo returned, SIGINT is striped-dd's to handle;
# once 32 MiB went in, at most iodepth blocks of them are not acknowledged.
# The rest keeps coming, so that writes are in flight when SIGINT comes.
mkfifo in.fifo
(
	exec >in.fifo
	head -c 32M in256 && : >fed && exec tail -c +$(((32 << 20) + 1)) in256
) 2>/dev/null &
feeder=$!
dfl "$SDD" if=in.fifo of="$(url int)" bs=1M iflag=fullblock iodepth=8 2>int.err &
pid=$!
# (bounded only against a hang: the feeder blocks until striped-dd reads)
for _ in $(seq 1200); do
	[ -e fed ] && break
	sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
kill $feeder 2>/dev/null
wait $feeder 2>/dev/null
copied=$(sed -n 's/^\([0-9]*\) bytes.* copied.*/\1/p' int.err | tail -n 1)
sdd if="$(url int)" of=out bs=4M status=none 2>"$WORK/err"
head -c "${copied:-0}" in256 >ref
# A read SIGINT cut short is a partial record, written as dd writes one.
records="$((${copied:-0} >> 20))+$(((${copied:-0} & 0xfffff) != 0)) records out"
if [ -e fed ] && [ $rc -eq 130 ] && [ -n "$copied" ] && [ "$copied" -gt 0 ] &&
	[ "$copied" -lt 268435456 ] && cmp -s ref out && grep -qx "$records" int.err; then
	ok "SIGINT: exit 130, $copied bytes acknowledged and the striped file that long"
else
	not_ok "SIGINT: fed $([ -e fed ] && echo 32 || echo no) MiB, exit $rc, summary '$(tr '\n' '|' <int.err)', file $(stat -c %s out) bytes"
fi
rm -f in256 in.fifo fed ref out

# ---- striped -> striped ------------------------------------------------------
sdd if="$(url l2-in12)" of="$(url s2s)" bs=4M stripe_unit=1M stripe_count=8 object_size=4M \
	status=none 2>"$WORK/err" &&
	sdd if="$(url s2s)" of=out bs=4M status=none 2>>"$WORK/err"
copied in12 out "striped -> striped (64K/4/256K -> 1M/8/4M)"

# ---- O_DIRECT on a disk-backed file -------------------------------------------
if [ "$(stat -f -c %T .)" = tmpfs ]; then
	echo "# skipping O_DIRECT: $WORK is on tmpfs"
else
	run "iflag=direct" sdd if=in5 of="$(url direct)" bs=1M iflag=direct status=none
	run "oflag=direct (local tail unaligned)" \
		sdd if="$(url direct)" of=outd bs=1M oflag=direct status=none
	copied in5 outd "iflag=direct / oflag=direct round trip"
	run "oflag=direct to striped" sdd if=in12 of="$(url direct2)" bs=4M oflag=direct status=none
	sdd if="$(url direct2)" of=outd bs=4M iflag=direct oflag=direct status=none 2>"$WORK/err"
	copied in12 outd "oflag=direct striped round trip"
fi

# ---- status=json ---------------------------------------------------------------
sdd if=in12 of="$(url json)" bs=1M status=json stripe_unit=64K stripe_count=4 \
	object_size=256K >json 2>"$WORK/err"
if python3 - json 12345678 1048576 <<'PY'; then ok "status=json adds up"; else not_ok "status=json: $(cat json)"; fi
import json, sys
j = json.load(open(sys.argv[1]))
size, bs = int(sys.argv[2]), int(sys.argv[3])
assert j["bytes"] == size, j
assert j["records_in_full"] == size // bs and j["records_in_partial"] == (size % bs > 0), j
assert j["records_out_full"] == j["records_in_full"], j
assert j["records_out_partial"] == j["records_in_partial"], j
assert j["seconds"] > 0 and j["bytes_per_second"] > 0, j
# a block's write on the striped output, timed by libstriped (striped_file_latency)
lat = j["block_latency_seconds"]
assert lat["calls"] == j["blocks"] == 12, j
assert 0 < lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p999"] <= lat["max"], j
assert j["write_latency_seconds"] == lat and j["read_latency_seconds"] is None, j
assert j["object_ops"] >= 4 * j["blocks"], j      # a 1M block spans 4 objects
assert j["max_in_flight"] > 1, j                   # a block's object writes overlap
assert j["error"] is None, j
PY
# oflag=direct, dsync, sync on a striped output: one block (4 object writes
# and the size update) in flight at a time, whatever iodepth= says.
for fl in "" oflag=direct oflag=dsync oflag=sync; do
	# shellcheck disable=SC2086
	sdd if=in12 of="$(url one-$fl)" bs=1M iodepth=8 stripe_unit=64K stripe_count=4 \
		object_size=256K status=json $fl >json 2>"$WORK/err"
	mif=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["max_in_flight"])' json)
	sdd if="$(url one-$fl)" of=out bs=4M iflag=direct status=none 2>>"$WORK/err"
	if [ -z "$fl" ]; then
		[ "${mif:-0}" -gt 5 ]
		check_st=$?
	else
		[ "${mif:-99}" -le 5 ]
		check_st=$?
	fi
	cmp -s in12 out && [ $check_st -eq 0 ] && ok "${fl:-no flag}: at most $mif object ops in flight, reads back" ||
		not_ok "${fl:-no flag}: max_in_flight $mif, $(cmp in12 out 2>&1)"
	rm -f out
done
if sdd if=in5 status=json 2>"$WORK/err" >/dev/null; then
	not_ok "status=json without of= is refused"
else ok "status=json without of= is refused"; fi

# ---- summary on stderr ------------------------------------------------------------
sdd if=in5 of="$(url summary)" bs=1M 2>sum
sed -n '1,2p' sum >sum12
printf '4+1 records in\n4+1 records out\n' >want
copied want sum12 "summary records"
if grep -Eq '^5000001 bytes \(5\.0 MB, 4\.8 MiB\) copied, [0-9.e-]+ s, [0-9.]+ [kMG]?B/s$' sum; then
	ok "summary bytes line"; else not_ok "summary bytes line: $(tail -1 sum)"; fi
# after dd's lines, the striped side's calls as libstriped timed them
lat='[0-9.]+ (us|ms|s)'
if grep -Eq "^writes to $(url summary): 5 calls, p50 $lat, p99 $lat, p99.9 $lat, max $lat\$" sum; then
	ok "summary latency line"; else not_ok "summary latency line: $(tail -1 sum)"; fi
sdd if="$(url summary)" of=out bs=2M 2>sum
# (reads in flight may pass the end: a call each too)
[ "$(wc -l <sum)" = 4 ] && grep -Eq "^reads from $(url summary): [3-9] calls, p50 $lat, " sum &&
	ok "summary latency line of a striped input" ||
	not_ok "summary latency line of a striped input: $(cat sum)"
sdd if="$(url summary)" of=out bs=2M status=json >json 2>"$WORK/err"
if python3 - json <<'PY'; then ok "status=json: the striped input's reads"; else not_ok "status=json reads: $(cat json)"; fi
import json, sys
j = json.load(open(sys.argv[1]))
r = j["read_latency_seconds"]
assert 3 <= r["calls"] <= 3 + 4 and 0 < r["p50"] <= r["p999"] <= r["max"], j  # iodepth 4
assert j["block_latency_seconds"] == r and j["write_latency_seconds"] is None, j
PY
rm -f out
sdd if=in5 of="$(url summary)" bs=1M status=noxfer 2>sum
[ "$(wc -l <sum)" = 2 ] && ok "status=noxfer" || not_ok "status=noxfer: $(cat sum)"
sdd if=in5 of="$(url summary)" bs=1M status=none 2>sum
[ ! -s sum ] && ok "status=none" || not_ok "status=none: $(cat sum)"

# ---- verify=yes -----------------------------------------------------------------------
run "verify=yes, re-read input" sdd if=in12 of="$(url verify)" bs=1M verify=yes status=none
cat in12 | sdd of="$(url verify2)" bs=256K verify=yes status=none 2>"$WORK/err"
if [ $? -eq 0 ]; then ok "verify=yes, pipe input (block hashes)"; else not_ok "verify=yes pipe"; fi
run "verify=yes, striped -> local" sdd if="$(url verify)" of=outv bs=3M verify=yes status=none

# ---- errors ---------------------------------------------------------------------------
expect() { # expect DESC RC LINE CMD...
	local desc=$1 rc=$2 line=$3
	shift 3
	"$@" >/dev/null 2>"$WORK/err"
	local got=$?
	if [ $got -eq "$rc" ] && grep -qxF -- "$line" "$WORK/err"; then
		ok "$desc"
	else
		not_ok "$desc: exit $got, wanted $rc and '$line'"
	fi
}
# wait_size FILE BYTES: until FILE has BYTES (5 s at most); its size on stdout
wait_size() {
	local i
	for ((i = 0; i < 50; i++)); do
		[[ $(stat -c %s "$1") == "$2" ]] && break
		sleep 0.1
	done
	stat -c %s "$1"
}
if [[ -n $SHIM ]]; then
	# a sanitizer build's runtime wants to come first; the shim carries none
	asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
	# Another process truncates the input to 2 MiB once its third 1 MiB block
	# is mapped: it waits for striped-dd's lease, which comes back once the
	# mapped blocks are written. Whole blocks of the file as it was, then the
	# end of the file as it became: a prefix, no error (as dd reading it).
	head -c 8388608 /dev/urandom >shrink
	cp shrink shrink.orig
	BADREAD_FILE=/shrink BADREAD_SHRINK=3:2097152 BADREAD_SHRINK_BY=child \
		LD_PRELOAD=$SHIM ASAN_OPTIONS=$asan \
		run "input truncated by another process while mapped: no error" \
		sdd if=shrink of="$(url shrunk)" bs=1M status=none
	got=$(wait_size shrink 2097152)
	[[ $got == 2097152 ]] && ok "the other process's truncate went through" ||
		not_ok "the other process's truncate went through: the input has $got bytes"
	sdd if="$(url shrunk)" of=out bs=1M status=none 2>"$WORK/err"
	len=$(stat -c %s out)
	head -c "$len" shrink.orig >shrink.prefix
	((len >= 3145728)) && ok "the mapped blocks went out whole ($len bytes)" ||
		not_ok "the mapped blocks went out whole: $len bytes, wanted 3 MiB at least"
	copied shrink.prefix out "input truncated by another process: the copy is a prefix of the file"
	# Open for writing elsewhere: no lease, so the input is read, not mapped;
	# the shim's truncate (at the third mapping) never comes.
	head -c 8388608 /dev/urandom >shrink
	cp shrink shrink.orig
	exec 3>>shrink
	BADREAD_FILE=/shrink BADREAD_SHRINK=3:2097152 LD_PRELOAD=$SHIM ASAN_OPTIONS=$asan \
		run "input open for writing elsewhere: read, not mapped" \
		sdd if=shrink of="$(url written)" bs=1M status=none
	exec 3>&-
	sdd if="$(url written)" of=out bs=1M status=none 2>"$WORK/err"
	copied shrink.orig out "input open for writing elsewhere: copied whole"
	# A mapped input block whose pages vanish all the same (the kernel broke
	# the lease after its lease-break-time, here faked): the third 1 MiB block
	# is mapped, then the file is cut to 2 MiB; its write meets SIGBUS on a
	# librados thread, which must neither kill striped-dd nor pass.
	head -c 8388608 /dev/urandom >shrink
	head -c 2097152 shrink >shrink.head
	BADREAD_FILE=/shrink BADREAD_SHRINK=3:2097152 BADREAD_NOLEASE=1 LD_PRELOAD=$SHIM \
		ASAN_OPTIONS=$asan \
		expect "input shrinking under a mapped block: an error, not a crash" 1 \
		"striped-dd: error reading 'shrink': the file shrank or could not be read while it was copied; output bytes 2097152-3145727 may hold zeros" \
		sdd if=shrink of="$(url shrink)" bs=1M
	sdd if="$(url shrink)" of=out bs=1M count=2 status=none 2>"$WORK/err"
	copied shrink.head out "input shrinking under a mapped block: the blocks before it copied"
else
	echo "# skipping a shrinking input: no badread shim given"
fi
expect "missing pool" 1 "striped-dd: rados://nopool-$$/f: pool 'nopool-$$' not found" \
	sdd if=in1 of="rados://nopool-$$/f"
expect "conv=nocreat on a missing file" 1 \
	"striped-dd: $(url missing): No such file or directory" \
	sdd if=in1 of="$(url missing)" conv=nocreat
expect "missing input" 1 "striped-dd: $(url missing): No such file or directory" \
	sdd if="$(url missing)" of=out
expect "conv=excl on an existing file" 1 "striped-dd: $(url verify): File exists" \
	sdd if=in1 of="$(url verify)" conv=excl
expect "bad operand" 1 "striped-dd: unrecognized operand 'foo=1'" sdd foo=1
expect "bad number" 1 "striped-dd: invalid number: '12Q'" sdd bs=12Q
expect "excl+nocreat" 1 "striped-dd: cannot combine excl and nocreat" sdd conv=excl,nocreat
expect "write error keeps the summary" 1 "striped-dd: error writing '/dev/full': No space left on device" \
	sdd if=in5 of=/dev/full bs=1M
grep -qx "1+0 records in" "$WORK/err" && grep -qx "0+0 records out" "$WORK/err" &&
	ok "summary after a failed write" || not_ok "summary after a failed write"

run "conv=excl creates a new file" sdd if=in1 of="$(url excl)" conv=excl status=none
run "--version" sdd --version
run "--help" sdd --help

# ---- ns=: a client whose key allows one namespace only -------------------------
# objects NS FILE: how many objects of FILE namespace NS holds ("" the default)
objects() { rados -p "$POOL" -N "$1" ls 2>/dev/null | grep -c "^$PFX-$2\."; }
if ns_client "$CLIENT" "$POOL" "$NS1" "$WORK"; then
	as_ns1=(conf="$WORK/$CLIENT.conf" id="$CLIENT")
	rm -f out
	sdd if=in5 of="$(url ns)" "${as_ns1[@]}" ns="$NS1" bs=1M \
		stripe_unit=64K stripe_count=4 object_size=256K status=none 2>"$WORK/err" &&
		sdd if="$(url ns)" of=out "${as_ns1[@]}" ns="$NS1" bs=1M status=none 2>>"$WORK/err"
	copied in5 out "ns=: the limited client writes and reads back in its namespace"
	n1=$(objects "$NS1" ns)
	n0=$(objects "" ns)
	if [ "$n1" -ge 20 ] && [ "$n0" -eq 0 ]; then
		ok "ns=: all $n1 objects in the namespace, none in the default one"
	else
		not_ok "ns=: $n1 objects in $NS1, $n0 in the default namespace"
	fi
	sdd if="$(url ns)" of="$(url ns-copy)" "${as_ns1[@]}" ns="$NS1" bs=1M status=none \
		2>"$WORK/err" && sdd if="$(url ns-copy)" of=out ns="$NS1" bs=1M status=none 2>>"$WORK/err"
	copied in5 out "ns=: striped -> striped inside the namespace (read back as admin)"
	expect "ns=: another namespace does not have the file" 1 \
		"striped-dd: $(url ns): No such file or directory" \
		sdd if="$(url ns)" of=out ns="$NS2"
	expect "ns=: the default namespace does not have the file" 1 \
		"striped-dd: $(url ns): No such file or directory" sdd if="$(url ns)" of=out
	expect "ns=: the limited client may not read another namespace" 1 \
		"striped-dd: $(url ns): Operation not permitted" \
		sdd if="$(url ns)" of=out "${as_ns1[@]}" ns="$NS2"
	expect "ns=: the limited client may not write the default namespace" 1 \
		"striped-dd: $(url ns-default): $EPERM_WRITE" \
		sdd if=in1 of="$(url ns-default)" "${as_ns1[@]}"
	if [ "$(objects "$NS2" ns)" -eq 0 ] && [ "$(objects "" ns-default)" -eq 0 ]; then
		ok "ns=: the refused client created nothing"
	else
		not_ok "ns=: objects created by a refused client"
	fi
else
	not_ok "ceph auth get-or-create client.$CLIENT"
fi

# ---- erasure-coded pools (scripts/cluster's, with 3 OSDs) -------------------------
# Without overwrites: copies in and out at every layout, block sizes that are multiples of
# the stripe width (8 KiB) and in flight together, a copy over an existing file (emptied
# first: the one cut such a pool takes); a block size that is not, and an overwrite,
# refused in one line that says what to do. With overwrites: as the replicated pool.
ec_url() { echo "rados://$1/$PFX-$2"; }
ec_copies() { # POOL
	local pool=$1 f lay bs i=0
	for lay in "" "stripe_unit=64K stripe_count=4 object_size=256K"; do
		i=$((i + 1))
		for bs in "bs=4M" "bs=64K iodepth=16"; do
			for f in in5 in12; do
				rm -f out
				# shellcheck disable=SC2086
				sdd if=$f of="$(ec_url "$pool" e$i-$f)" $bs $lay status=none 2>"$WORK/err" &&
					sdd if="$(ec_url "$pool" e$i-$f)" of=out $bs status=none 2>>"$WORK/err"
				copied $f out "$pool: layout [${lay:-default}] $f $bs"
			done
		done
	done
	run "$pool: a copy over an existing file" sdd if=in5 of="$(ec_url "$pool" e1-in12)" \
		bs=1M status=none
	rm -f out
	sdd if="$(ec_url "$pool" e1-in12)" of=out bs=1M status=none 2>"$WORK/err"
	copied in5 out "$pool: the file holds the new copy only"
}
if [[ -n ${STRIPED_TEST_EC_POOL:-} && -n ${STRIPED_TEST_ECOW_POOL:-} ]]; then
	ec_copies "$STRIPED_TEST_EC_POOL"
	ec_copies "$STRIPED_TEST_ECOW_POOL"
	ec_why="Operation not supported (an erasure-coded pool without overwrites takes a file only written front to back in pieces of a multiple of 8192 bytes: give bs= a multiple of 8192, or use a pool with allow_ec_overwrites)"
	expect "$STRIPED_TEST_EC_POOL: bs=1000 refused after its first block, in one line" 1 \
		"striped-dd: error writing '$(ec_url "$STRIPED_TEST_EC_POOL" ebs)': $ec_why" \
		sdd if=in12 of="$(ec_url "$STRIPED_TEST_EC_POOL" ebs)" bs=1000
	expect "$STRIPED_TEST_EC_POOL: an overwrite (conv=notrunc) refused in one line" 1 \
		"striped-dd: error writing '$(ec_url "$STRIPED_TEST_EC_POOL" e1-in5)': $ec_why" \
		sdd if=in1 of="$(ec_url "$STRIPED_TEST_EC_POOL" e1-in5)" conv=notrunc
	rm -f out
	sdd if="$(ec_url "$STRIPED_TEST_EC_POOL" e1-in5)" of=out bs=1M status=none 2>"$WORK/err"
	copied in5 out "$STRIPED_TEST_EC_POOL: the refused overwrite changed nothing"
	run "$STRIPED_TEST_ECOW_POOL: an overwrite (conv=notrunc)" \
		sdd if=in1 of="$(ec_url "$STRIPED_TEST_ECOW_POOL" e1-in5)" seek=4999999B conv=notrunc \
		status=none
	for pool in "$STRIPED_TEST_EC_POOL" "$STRIPED_TEST_ECOW_POOL"; do
		for n in e1-in5 e1-in12 e2-in5 e2-in12 ebs; do
			rados --striper -p "$pool" rm "$PFX-$n" >/dev/null 2>&1
		done
	done
elif [[ ${STRIPED_TEST_REQUIRE_CLUSTER:-0} == 1 ]]; then
	not_ok "no erasure-coded pools (STRIPED_TEST_EC_POOL, STRIPED_TEST_ECOW_POOL unset)"
fi

tap_done
