#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# dd-local.sh STRIPED-DD [SHIM]: striped-dd against GNU dd (coreutils) on
# local files, pipes, FIFOs and terminals; no cluster needed. Each case runs
# GNU dd and striped-dd the same way and compares what they write and print.
# SHIM is tests/dd/badread.so (an LD_PRELOAD library that makes chosen reads
# fail, see its header); the read-error cases are skipped without it.
set -uo pipefail

SDD=$(readlink -f "${1:?usage: dd-local.sh PATH-TO-STRIPED-DD [BADREAD-SHIM]}")
SHIM=${2:+$(readlink -f "$2")}

# Work next to the binary: the build tree is on disk (O_DIRECT, holes).
WORK=$(mktemp -d "$(dirname "$SDD")/dd-local.XXXXXX")
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT

# shellcheck source=tests/tap.sh
. "$(dirname "$(readlink -f "$0")")/../tap.sh"
# Both summaries without the timing line (it differs run to run); the
# program name is dd's.
records() { grep -v ' copied, ' "$1" | sed 's/^striped-dd: /dd: /'; }
sdd() { "$SDD" "$@"; }
# What goes into a pipe in steps waits for the reader, never for time: each
# chunk is written once the reader took the one before (feed.py), so the
# reads end where the chunks do however slow the reader is (a sanitizer
# build, a busy host).
FEED=$(dirname "$(readlink -f "$0")")/feed.py

cd "$WORK" || exit 1
head -c 5000001 /dev/urandom >in5

# ---- of=FIFO: write-only, so striped-dd ends when its reader does ----------
mkfifo fifo
(
	timeout 20 "$SDD" if=/dev/zero of=fifo bs=64K status=none 2>err
	echo $? >rc
) &
head -c 100000 fifo >/dev/null
wait
# GNU dd dies of SIGPIPE (141) here too; holding a read end would hang.
check_status "$(($(cat rc) == 141 ? 0 : 1))" "of=FIFO ends with SIGPIPE when the reader exits (exit $(cat rc))"
(timeout 20 dd if=in5 of=fifo bs=64K status=none &)
timeout 20 "$SDD" if=fifo of=out bs=64K iflag=fullblock status=none
same "if=FIFO" in5 out

# ---- iflag=/oflag= on pipes and FIFOs: done or failed as GNU dd does -------
# asdd DESC ARGS...: striped-dd and GNU dd give the same exit status and the
# same messages (records lines and errors), standard input from a pipe.
asdd() {
	local desc=$1 rs rd
	shift
	echo piped | "$SDD" "$@" 2>e.sdd >o.sdd
	rs=${PIPESTATUS[1]}
	echo piped | dd "$@" 2>e.dd >o.dd
	rd=${PIPESTATUS[1]}
	if [ $rs -eq $rd ] && diff <(records e.sdd) <(records e.dd) >/dev/null &&
		cmp -s o.sdd o.dd; then
		ok "as dd: $desc (exit $rs)"
	else
		not_ok "as dd: $desc: exit $rs vs $rd: $(records e.sdd | tr '\n' '|') vs $(records e.dd | tr '\n' '|')"
	fi
}
asdd "iflag=direct on a stdin pipe (F_SETFL: packet mode)" iflag=direct
asdd "iflag=direct reopening the pipe fails" if=/dev/stdin iflag=direct
asdd "iflag=dsync,noatime,nonblock on a stdin pipe" iflag=dsync,noatime bs=1M
asdd "oflag=direct on a stdout pipe" oflag=direct
# a FIFO reader for each of the two runs
(for i in 1 2; do timeout 20 cat fifo >/dev/null; done &)
asdd "oflag=direct on a FIFO fails" of=fifo oflag=direct
asdd "oflag=dsync,sync on a regular file" of=o.reg oflag=dsync,sync bs=1K
asdd "iflag=direct on a regular file, unaligned" if=in5 iflag=direct bs=1M

# ---- GNU dd's warnings: partial reads, skipping past the end ---------------
head -c 10000 /dev/urandom >small
# warns DESC FEED ARGS...: FEED | PROG ARGS... prints the same lines for both
warns() {
	local desc=$1 feed=$2
	shift 2
	bash -c "$feed" | "$SDD" of=/dev/null status=noxfer "$@" 2>w.sdd
	bash -c "$feed" | dd of=/dev/null status=noxfer "$@" 2>w.dd
	if diff <(records w.sdd) <(records w.dd) >/dev/null; then
		ok "as dd: $desc: $(head -1 w.sdd)"
	else
		not_ok "as dd: $desc: $(tr '\n' '|' <w.sdd) vs $(tr '\n' '|' <w.dd)"
	fi
}
slow="$FEED abc defgh"
warns "partial read with count=" "$slow" bs=4 count=3
warns "partial read of 1 byte with iflag=direct" "$FEED a defgh" bs=4 iflag=direct
warns "no warning without count=/skip=" "$slow" bs=4
warns "no warning with iflag=fullblock" "$slow" bs=4 count=3 iflag=fullblock
warns "no warning without bs=" "$slow" ibs=4 count=3
warns "skip= past the end of a regular file" ":" if=small bs=1K skip=20
warns "skip= partly past the end" ":" if=small bs=1K skip=10
warns "skip= to exactly the end: no warning" ":" if=small bs=1000 skip=10
warns "skip= past the end of a pipe" "cat small" bs=1K skip=20
warns "status=none: no warning" "cat small" bs=1K skip=20 status=none

# ---- read errors: conv=noerror, conv=sync (tests/dd/badread.so) ------------
# bad DESC RANGES FEED ARGS...: GNU dd and striped-dd under the shim, the
# bytes at RANGES of the input failing with EIO; the same output, messages,
# records lines and exit status. FEED: "file" (if=bad, libaio) or "pipe"
# (a pipe filled, and its write end closed, before the reader starts,
# read(2)).
head -c 20000 /dev/urandom >bad
bad() {
	local desc=$1 ranges=$2 feed=$3 p n
	shift 3
	for p in dd "$SDD"; do
		n=$(basename "$p")
		rm -f "b.out.$n"
		if [ "$feed" = pipe ]; then
			python3 -c 'import os, sys
r, w = os.pipe()
os.write(w, open(sys.argv[1], "rb").read())  # 20000 bytes: the pipe holds them
os.close(w)
os.dup2(r, 0)
os.execvp(sys.argv[2], sys.argv[2:])' bad env BADREAD_FILE=pipe: BADREAD_RANGES="$ranges" \
				LD_PRELOAD="$SHIM" \
				ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
				"$p" of="b.out.$n" "$@" 2>"b.err.$n"
			echo $? >"b.rc.$n"
		else
			BADREAD_FILE=$WORK/bad BADREAD_RANGES=$ranges LD_PRELOAD=$SHIM \
				ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
				"$p" if=bad of="b.out.$n" "$@" 2>"b.err.$n"
			echo $? >"b.rc.$n"
		fi
	done
	if cmp -s b.out.dd b.out.striped-dd && cmp -s b.rc.dd b.rc.striped-dd &&
		diff <(records b.err.striped-dd) <(records b.err.dd) >/dev/null &&
		[ "$(grep -c ' copied, ' b.err.dd)" = "$(grep -c ' copied, ' b.err.striped-dd)" ]; then
		ok "read errors as dd: $desc ($feed, exit $(cat b.rc.dd), $(stat -c %s b.out.dd) bytes, $(records b.err.dd | grep 'records in' | tr '\n' ' '))"
	else
		not_ok "read errors as dd: $desc ($feed): exit $(cat b.rc.striped-dd) vs $(cat b.rc.dd): $(records b.err.striped-dd | tr '\n' '|') vs $(records b.err.dd | tr '\n' '|') $(cmp b.out.striped-dd b.out.dd 2>&1)"
	fi
}
if [ -n "$SHIM" ]; then
	for feed in file pipe; do
		bad "noerror" 5000:10 $feed bs=1000 conv=noerror
		bad "noerror,sync" 5000:10 $feed bs=1000 conv=noerror,sync
		bad "without noerror the copy stops" 5000:10 $feed bs=1000
		bad "sync alone stops too" 5000:10 $feed bs=1000 conv=sync
		bad "at the first block" 0:1 $feed bs=1000 conv=noerror
		bad "at the first block, sync" 0:1 $feed bs=1000 conv=noerror,sync
		bad "in the last, short block" 19500:10 $feed bs=3000 conv=noerror
		bad "in the last, short block, sync" 19500:10 $feed bs=3000 conv=noerror,sync
		bad "several errors, sync" 0:1,3000:2500,9999:1,15000:10 $feed bs=1000 conv=noerror,sync
		bad "several errors" 0:1,3000:2500,9999:1,15000:10 $feed bs=1000 conv=noerror
		bad "ibs < obs" 4500:1000,12000:1 $feed ibs=1000 obs=1500 conv=noerror status=noxfer
		bad "ibs < obs, sync" 4500:1000,12000:1 $feed ibs=1000 obs=1500 conv=noerror,sync
		bad "ibs > obs, sync" 4500:1000 $feed ibs=1000 obs=768 conv=noerror,sync status=noxfer
		bad "iflag=fullblock" 4500:1000 $feed bs=1000 iflag=fullblock conv=noerror
		bad "iflag=fullblock, sync" 4500:1000 $feed bs=1000 iflag=fullblock conv=noerror,sync
		bad "count= reads past the bad block" 5000:10 $feed bs=1000 count=8 conv=noerror
		bad "count= with sync" 5000:10 $feed bs=1000 count=8 conv=noerror,sync
		bad "skip=" 5000:10 $feed bs=1000 skip=3 conv=noerror
		bad "status=none: no message" 5000:10 $feed bs=1000 conv=noerror status=none
	done
	bad "count=B" 5000:10 file bs=1000 count=8500B conv=noerror
	bad "a read short before the bad range, sync" 4500:1000 pipe bs=1000 conv=noerror,sync
	bad "status=progress" 5000:10 file bs=1000 conv=noerror status=progress
else
	echo "# skipping read errors: no badread shim given"
fi

# ---- conv=sync without errors: short records padded to ibs with zeros -------
sync_case() {
	local desc=$1 feed=$2
	shift 2
	bash -c "$feed" | "$SDD" of=y.sdd status=noxfer "$@" 2>ys.err
	bash -c "$feed" | dd of=y.dd status=noxfer "$@" 2>yd.err
	if cmp -s y.sdd y.dd && diff <(records ys.err) <(records yd.err) >/dev/null; then
		ok "conv=sync as dd: $desc ($(stat -c %s y.dd) bytes, $(head -1 yd.err))"
	else
		not_ok "conv=sync as dd: $desc: $(tr '\n' '|' <ys.err) vs $(tr '\n' '|' <yd.err) $(cmp y.sdd y.dd 2>&1)"
	fi
}
sync_case "short reads from a pipe" "$FEED abc defgh ij" bs=4 conv=sync
sync_case "a regular file's short tail" "cat small" bs=3000 conv=sync if=small
sync_case "ibs < obs" "$FEED abc defgh" ibs=4 obs=10 conv=sync
sync_case "iflag=fullblock" "$FEED abc defgh" bs=4 iflag=fullblock conv=sync
sync_case "count_bytes" "cat small" if=small bs=3000 count=7000B conv=sync

# ---- conv=sparse: holes instead of zero blocks, the size still right ---------
# data, 4 MiB of zeros, data, 3 MiB of zeros: the file ends in a hole
{ head -c 64K /dev/urandom; head -c 4M /dev/zero; head -c 1M /dev/urandom; head -c 3M /dev/zero; } >sp
# sparse DESC ARGS...: same bytes, same size and same allocated blocks as GNU dd
sparse() {
	local desc=$1
	shift
	rm -f s.dd s.sdd
	[ -n "${PRE:-}" ] && cp "$PRE" s.dd && cp "$PRE" s.sdd
	dd "$@" of=s.dd status=none 2>/dev/null
	"$SDD" "$@" of=s.sdd status=none
	if cmp -s s.dd s.sdd && [ "$(stat -c '%s %b' s.dd)" = "$(stat -c '%s %b' s.sdd)" ]; then
		ok "conv=sparse as dd: $desc ($(stat -c '%s bytes, %b blocks' s.sdd))"
	else
		not_ok "conv=sparse as dd: $desc: $(stat -c '%s %b' s.dd s.sdd | tr '\n' ' ') $(cmp s.dd s.sdd 2>&1)"
	fi
}
sparse "ends in a hole, extended" if=sp conv=sparse bs=64K
sparse "ibs/obs" if=sp conv=sparse ibs=1000 obs=128K
sparse "seek=, ends in a hole" if=sp conv=sparse bs=64K seek=3
PRE=in5 sparse "notrunc: holes keep what was there" if=sp conv=sparse,notrunc bs=64K
PRE=in5 sparse "notrunc, a shorter input: nothing to extend" if=sp conv=sparse,notrunc bs=64K count=3
rm -f s.sdd
"$SDD" if=sp of=s.sdd conv=sparse bs=64K status=none
cmp -s sp s.sdd && [ "$(stat -c %b s.sdd)" -lt 2300 ]
check_status $? "conv=sparse: $(stat -c %b s.sdd) blocks allocated for 8 MiB holding 1088 KiB of data"
"$SDD" if=sp conv=sparse bs=64K status=none | cmp -s - sp
check_status $? "conv=sparse to a pipe writes the zeros"
"$SDD" if=sp conv=sparse bs=64K status=none >s.std
cmp -s sp s.std && [ "$(stat -c %b s.std)" -lt 2300 ]
check_status $? "conv=sparse to standard output redirected to a file: holes"

# ---- signals: SIGUSR1 prints the statistics, SIGINT stops (exit 130) --------
# A background job of a script starts with SIGINT ignored (and dd leaves an
# ignored SIGINT alone): dfl becomes the program, SIGINT at its default.
dfl() { exec python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }
mkfifo sigfifo
# signals PROG: 3 records, SIGUSR1, 1 more record, SIGINT; PROG's stderr,
# output and exit status are left in sig.err.PROG, sig.out.PROG, sig.rc.PROG.
# Each signal goes once the records before it are written out, SIGINT's
# once the statistics SIGUSR1 asked for are out: no sleep to race.
signals() {
	local n pid i
	n=$(basename "$1")
	dfl "$1" if=sigfifo of="sig.out.$n" bs=1000 2>"sig.err.$n" &
	pid=$!
	exec 3>sigfifo
	for i in 1 2 3; do printf '%1000s' x >&3; done
	"$FEED" "=sig.out.$n:3000"
	kill -USR1 $pid
	"$FEED" "?sig.err.$n:1: copied, "
	printf '%1000s' x >&3
	"$FEED" "=sig.out.$n:4000"
	kill -INT $pid
	wait $pid
	echo $? >"sig.rc.$n"
	exec 3>&-
}
signals "$SDD"
signals "$(command -v dd)"
diff <(records sig.err.striped-dd) <(records sig.err.dd) >/dev/null &&
	[ "$(grep -c ' copied, ' sig.err.striped-dd)" = 2 ]
check_status $? "SIGUSR1 then SIGINT: the same statistics as dd, twice: $(records sig.err.striped-dd | tr '\n' '|')"
[ "$(cat sig.rc.striped-dd)" = 130 ] && [ "$(cat sig.rc.dd)" = 130 ]
check_status $? "SIGINT: exit 130 like dd (striped-dd $(cat sig.rc.striped-dd), dd $(cat sig.rc.dd))"
[ "$(stat -c %s sig.out.striped-dd)" = 4000 ] && cmp -s sig.out.striped-dd sig.out.dd
check_status $? "SIGINT: the 4 records read were written"

# usr1_fullblock PROG: SIGUSR1 once PROG took the first 3000 bytes of a
# 10000-byte block (iflag=fullblock: it waits for the rest); how many
# statistics lines PROG printed before the rest comes (its first, or 0
# after 60 s without one) goes to sfb.seen.PROG
usr1_fullblock() {
	local n pid
	n=$(basename "$1")
	"$1" if=sigfifo of=/dev/null bs=10000 iflag=fullblock 2>"sfb.err.$n" &
	pid=$!
	exec 3>sigfifo
	printf '%3000s' x >&3
	"$FEED" '' >&3
	kill -USR1 $pid
	"$FEED" "?sfb.err.$n:1: copied, " 2>/dev/null
	grep -c ' copied, ' "sfb.err.$n" >"sfb.seen.$n"
	exec 3>&-
	wait $pid
}
usr1_fullblock "$SDD"
usr1_fullblock "$(command -v dd)"
[ "$(cat sfb.seen.striped-dd)" = 1 ] && [ "$(cat sfb.seen.dd)" = 1 ]
check_status $? "SIGUSR1 during a fullblock read: the statistics at once, as dd (striped-dd $(cat sfb.seen.striped-dd) line, dd $(cat sfb.seen.dd))"

# ---- status=progress on a terminal ------------------------------------------
# script(1) (util-linux) runs each under a pseudo-terminal (its typescript
# flushed as it goes, -f): 3 x 100 kB, the second 1.1 s after the reader
# took the first, the third 1.1 s after the update that followed the
# second. dd rewrites one line with '\r' on stderr once a second has gone
# by since it began, then since the second the last update was due, and
# ends it with a newline before the summary. Which second an update names depends on how
# busy the host is, so the lines are checked, not the seconds: an update
# for each of the last two chunks at least, each second at least 1 and
# none before the one above it, as dd's.
progress_run() {
	local ts
	ts=ts.$(basename "$1")
	rm -f "$ts"
	script -q -f -c "'$FEED' +100000 @1.1 +100000 '?$ts:1: copied, ' @1.1 +100000 |
		$1 of=/dev/null bs=10000 status=progress" "$ts" </dev/null >/dev/null
}
# the updates, one per line: "<bytes> bytes (...) copied, <N> s, <rate>"
updates() { tr '\r' '\n' <"$1" | grep -E '^[0-9]+ bytes \(.*\) copied, [0-9]+ s, [0-9.]+ [kMG]?B/s *$'; }
secs() { updates "$1" | sed 's/.* copied, \([0-9]*\) s,.*/\1/' | tr '\n' ' '; }
# seconds_fine FILE: 2 updates or more, each second 1 or more, none lower than the one before
seconds_fine() {
	secs "$1" | awk '{ for (i = 1; i <= NF; i++) { if ($i < 1 || $i < last) bad = 1; last = $i }
		n += NF } END { exit bad || n < 2 }'
}
if command -v script >/dev/null; then
	progress_run "$SDD"
	progress_run "$(command -v dd)"
	seconds_fine ts.striped-dd && seconds_fine ts.dd
	check_status $? "status=progress on a pty: updates at [$(secs ts.striped-dd)] s, as dd's [$(secs ts.dd)]"
	# the line ends before the summary: "<update>\r\n<records in>"
	tr '\r' '@' <ts.striped-dd | grep -B1 'records in' | head -1 | grep -q ' copied, [0-9]* s, .*@$'
	check_status $? "status=progress: the progress line is ended before the summary"
else
	echo "# skipping status=progress: no script(1)"
fi

# ---- blocks larger than one Linux read or write (0x7ffff000 bytes) --------
# A 2050 MiB sparse input with data at both ends, bs=2049M: the first block
# is read and written in two libaio requests each. (GNU dd's single read(2)
# comes back short there and counts a partial record; the bytes are the same.)
head -c 1M /dev/urandom >big
truncate -s 2049M big
head -c 1M /dev/urandom >>big
"$SDD" if=big of=bigout bs=2049M 2>err
[ "$(sed -n 1,2p err | tr '\n' ' ')" = "1+1 records in 1+1 records out " ] && cmp -s big bigout
check_status $? "bs=2049M on local files: split requests, $(head -1 err)"
rm -f big bigout

tap_done
