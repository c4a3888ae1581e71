#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bad-input-dd.sh: striped-dd refuses bad input cleanly. Each case runs the
# real binary and wants exit status 1 and exactly one line on stderr, equal to
# the expected message (or, for the few that succeed by dd's rules, exit 0).
# Operand cases need nothing; the striped ones run against the cluster named
# by CEPH_CONF and STRIPED_TEST_POOL and are skipped without one.
#
# usage: bad-input-dd.sh STRIPED_DD
# env: FAULTS_WORK: directory for scratch files (default: a new temporary one)
# Known issues: see KNOWN_ISSUES in run-faults.sh (K4, K6 and K7 are fixed).
# Exit: 0 pass, 1 fail, 77 striped-dd not built.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FAULTS_PREFIX=bad-input-dd
# shellcheck source=lib.sh
source "$here/lib.sh"

KNOWN_ISSUES=${KNOWN_ISSUES:-}
dd_bin=${1:?usage: bad-input-dd.sh STRIPED_DD}
if [[ ! -x $dd_bin ]]; then
	echo "bad-input-dd: SKIP: $dd_bin is not built"
	exit 77
fi
scratch=$(mktemp -d "${FAULTS_WORK:-/tmp}/bad-input-dd.XXXXXX") || exit 1
tmpfs=
cleanup() {
	if [[ -n $tmpfs ]] && mountpoint -q "$tmpfs"; then umount "$tmpfs"; fi
	rm -rf "$scratch"
}
trap cleanup EXIT

OVF="Value too large for defined data type"
err=$scratch/err

# refuse WANT ARGS...: exit 1, stderr exactly "striped-dd: WANT" (standard
# input: $REFUSE_STDIN, default /dev/null).
refuse() {
	local want="striped-dd: $1" rc
	shift
	timeout 60 "$dd_bin" "$@" <"${REFUSE_STDIN:-/dev/null}" >/dev/null 2>"$err"
	rc=$?
	if [[ $rc == 1 && $(cat "$err") == "$want" ]]; then
		pass "$* -> $want"
	else
		fail "$* -> exit $rc, stderr '$(head -c 300 "$err" | tr '\n' '|')', want exit 1 and '$want'"
	fi
}

# accept ARGS...: exit 0 (with status=none: nothing on stderr).
accept() {
	local rc
	timeout 60 "$dd_bin" "$@" </dev/null >/dev/null 2>"$err"
	rc=$?
	if [[ $rc == 0 ]]; then
		pass "$* -> accepted"
	else
		fail "$* -> exit $rc ($(head -c 300 "$err")), want 0"
	fi
}

# ---- operands: no cluster, nothing opened --------------------------------

refuse "unrecognized operand 'foo'" foo
refuse "unrecognized operand 'bogus=1'" bogus=1
refuse "unrecognized operand '=5'" =5
refuse "unrecognized operand '--bogus'" --bogus
refuse "invalid number: '0'" bs=0
refuse "invalid number: '-1'" bs=-1
refuse "invalid number: '1Q'" bs=1Q
refuse "invalid number: '1KiBB'" bs=1KiBB
refuse "invalid number: '0x2'" bs=0x2
refuse "invalid number: '99999999999999999999': $OVF" bs=99999999999999999999
refuse "invalid number: '9223372036854775807': $OVF" bs=9223372036854775807
refuse "invalid number: '8E': $OVF" ibs=8E
# (under ASan the allocation must fail rather than abort, as it does without,
# and ASan's note about it goes to a file)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:log_path=$scratch/asan \
	refuse "memory exhausted by input buffer of size 9223372036854775806 bytes (8.0 EiB)" \
	if=/dev/zero of=/dev/null bs=9223372036854775806 count=1 status=none
accept if=/dev/zero of=/dev/null bs=9223372036854775806 count=0 status=none
refuse "invalid number: ''" seek=
refuse "invalid number: ''" bs=1K ibs=
refuse "invalid number: '-1'" count=-1
refuse "invalid number: '1x'" count=1x
refuse "invalid number: '16E': $OVF" count=16E
refuse "invalid number: '2x0'" count=1 bs=2x0
refuse "seek: offset 9223372036854775807 * 2: $OVF" seek=9223372036854775807 bs=2 of=/dev/null
refuse "skip: offset 9223372036854775807 * 2: $OVF" skip=9223372036854775807 bs=2
refuse "invalid conversion: 'unblock': not supported by striped-dd" conv=noerror,sync,unblock
refuse "verify=yes: cannot combine with conv=sync or conv=noerror" conv=noerror verify=yes
refuse "verify=yes: cannot combine with conv=sync or conv=noerror" conv=sync verify=yes
refuse "invalid conversion: 'bogus'" conv=notrunc,bogus
refuse "invalid conversion: 'spars'" conv=sparse,spars
refuse "invalid conversion: 'block': not supported by striped-dd" conv=sparse,block
refuse "cannot combine excl and nocreat" conv=excl,nocreat
refuse "invalid input flag: 'bogus'" iflag=bogus
refuse "invalid input flag: 'nocache': not supported by striped-dd" iflag=nocache
refuse "invalid output flag: 'fullblock'" oflag=fullblock
refuse "invalid status level: 'loud'" status=loud
refuse "rados://p/n: oflag=append: not supported on a striped file" oflag=append of=rados://p/n
refuse "rados://p/n: oflag=noatime: not supported on a striped file" oflag=noatime of=rados://p/n
refuse "rados://p/n: oflag=nonblock: not supported on a striped file" oflag=direct,nonblock of=rados://p/n
refuse "rados://p/n: iflag=dsync: not supported on a striped file" iflag=dsync if=rados://p/n
refuse "rados://p/n: iflag=sync: not supported on a striped file" iflag=sync if=rados://p/n
refuse "rados://p/n: iflag=noatime: not supported on a striped file" iflag=noatime if=rados://p/n
refuse "rados://p/n: iflag=nofollow: not supported on a striped file" iflag=fullblock,nofollow if=rados://p/n
# O_DIRECT where the file cannot take it fails as in GNU dd (a pipe reopened)
REFUSE_STDIN=<(echo pipe) refuse "failed to open '/dev/stdin': Invalid argument" \
	if=/dev/stdin iflag=direct status=none
refuse "stripe_unit=, stripe_count=, object_size=: output is not a striped file" stripe_unit=64K of=/dev/null
refuse "invalid layout: stripe_unit=1000 stripe_count=1 object_size=4194304: units must be multiples of 64K and divide object_size" \
	stripe_unit=1000 of=rados://p/n
refuse "invalid number: '0'" stripe_count=0 of=rados://p/n
refuse "invalid number: '8G': $OVF" object_size=8G of=rados://p/n
refuse "invalid number: '0'" iodepth=0
refuse "invalid number: '1025': $OVF" iodepth=1025
refuse "invalid number: 'abc'" op_timeout=abc
refuse "invalid number: '5000000000': $OVF" op_timeout=5000000000
refuse "invalid boolean: 'maybe' (use yes or no)" verify=maybe
refuse "cannot combine id= and name=" id=a name=client.a
refuse "ns=: neither input nor output is a striped file" if=/dev/zero of=/dev/null ns=t1
refuse "rados://: missing pool name (rados://POOL/NAME)" of=rados://
refuse "rados://pool: missing file name (rados://POOL/NAME)" of=rados://pool
refuse "rados://pool/: missing file name (rados://POOL/NAME)" of=rados://pool/
refuse "rados:///name: missing pool name (rados://POOL/NAME)" if=rados:///name
refuse "status=json: needs of= (standard output carries the JSON)" if=/dev/zero count=1 status=json
# an argument with a newline must not make the error two lines (GNU dd escapes it)
timeout 60 "$dd_bin" "of=rados://pool"$'\n'"forged: line" </dev/null >/dev/null 2>"$err"
rc=$?
[[ $rc == 1 && $(wc -l <"$err") == 1 ]]
xcheck K7-newline $? "of=rados://pool<newline>forged -> exit $rc, $(wc -l <"$err") line(s) on stderr (want 1)"
# repeated operands: the last wins (GNU dd), flags accumulate
accept if=/dev/zero of="$scratch/rep" bs=1 bs=3 count=5 count=2 status=none
[[ $(stat -c %s "$scratch/rep") == 6 ]]
verdict $? "bs=1 bs=3 count=5 count=2 -> the last of each wins (6 bytes)"

# ---- local files ------------------------------------------------------------

mkdir "$scratch/dir"
refuse "error reading '$scratch/dir': Is a directory" if="$scratch/dir" of=/dev/null status=none
refuse "failed to open '$scratch/dir': Is a directory" if=/dev/zero of="$scratch/dir" count=1 status=none
refuse "failed to open '$scratch/missing': No such file or directory" if="$scratch/missing" status=none
refuse "failed to open '$scratch/missing/x': No such file or directory" if=/dev/zero of="$scratch/missing/x" count=1 status=none
refuse "error writing '/dev/full': No space left on device" if=/dev/zero of=/dev/full bs=1M count=1 status=none
# a real file system that fills up
mkdir "$scratch/small"
if mount -t tmpfs -o size=1m tmpfs "$scratch/small" 2>/dev/null; then
	tmpfs=$scratch/small
	refuse "error writing '$tmpfs/out': No space left on device" \
		if=/dev/zero of="$tmpfs/out" bs=64K count=64 status=none
	size=$(stat -c %s "$tmpfs/out")
	((size > 0 && size <= 1 << 20)) && [[ $(tr -d '\0' <"$tmpfs/out" | wc -c) == 0 ]]
	verdict $? "full 1 MiB tmpfs: the $size bytes that fit were written"
	umount "$tmpfs"
	tmpfs=
else
	skip_one "full tmpfs: mount -t tmpfs not permitted here (/dev/full covers the write error)"
fi

# ---- striped files (cluster) --------------------------------------------------

# shellcheck source=../cluster-check.sh
source "$here/../cluster-check.sh"
if why=$(cluster_missing); then
	if [[ ${STRIPED_TEST_REQUIRE_CLUSTER:-0} == 1 ]]; then
		fail "striped cases: $why (STRIPED_TEST_REQUIRE_CLUSTER=1)"
	else
		skip_one "striped cases: $why"
	fi
	finish
fi
pool=$STRIPED_TEST_POOL
tag=bad-$$
head -c 1M /dev/urandom >"$scratch/src"
accept if="$scratch/src" of="rados://$pool/$tag" bs=64K status=none

refuse "rados://no-such-pool/x: pool 'no-such-pool' not found" if=/dev/zero of=rados://no-such-pool/x count=1 status=none
refuse "rados://no-such-pool/x: pool 'no-such-pool' not found" if=rados://no-such-pool/x status=none
refuse "rados://$pool/$tag-missing: No such file or directory" if="rados://$pool/$tag-missing" of=/dev/null status=none
refuse "rados://$pool/$tag-missing: No such file or directory" if=/dev/zero of="rados://$pool/$tag-missing" conv=nocreat count=1 status=none
refuse "rados://$pool/$tag: File exists" if=/dev/zero of="rados://$pool/$tag" conv=excl count=1 status=none
# A name too long for the OSD (osd_max_object_name_len 2048) is longer than
# striped-dd's message buffer too, so the reason is cut (K6; the API's
# -ENAMETOOLONG is checked exactly in test_bad_input).
long=$(head -c 3000 /dev/zero | tr '\0' n)
timeout 60 "$dd_bin" if=/dev/zero of="rados://$pool/$long" count=1 status=none </dev/null >/dev/null 2>"$err"
rc=$?
[[ $rc == 1 ]] && one_line_error "$err" "striped-dd: rados://$pool/nnn" &&
	[[ $(cat "$err") == *": File name too long" ]]
xcheck K6-long-message $? "3000-byte name -> exit $rc, one line ending in ': File name too long' (got ...'$(tail -c 60 "$err")')"
refuse "rados://$pool/$tag-big: File too large" if=/dev/zero of="rados://$pool/$tag-big" \
	stripe_unit=64K object_size=256M count=1 status=none
refuse "/nonexistent.conf: cannot read configuration: No such file or directory" \
	if="rados://$pool/$tag" of=/dev/null conf=/nonexistent.conf status=none
refuse "rados: cannot connect to the cluster: No such file or directory" \
	if="rados://$pool/$tag" of=/dev/null keyring="$scratch/missing.keyring" op_timeout=5 status=none
refuse "rados: cannot connect to the cluster: Permission denied" \
	if="rados://$pool/$tag" of=/dev/null id=no-such-client op_timeout=5 status=none
refuse "rados://$pool/$tag: oflag=append: not supported on a striped file" \
	if=/dev/zero of="rados://$pool/$tag" oflag=append count=1 status=none
# a RADOS object that is not a striped file
printf 'plain\n' >"$scratch/plain"
if timeout 30 rados -p "$pool" put "$tag-plain.0000000000000000" "$scratch/plain" 2>/dev/null; then
	refuse "rados://$pool/$tag-plain: No data available" if="rados://$pool/$tag-plain" of=/dev/null status=none
	refuse "rados://$pool/$tag-plain: No data available" if=/dev/zero of="rados://$pool/$tag-plain" count=1 status=none
	timeout 30 rados -p "$pool" rm "$tag-plain.0000000000000000"
else
	fail "rados put of a plain object"
fi
# reading a striped file into a full device
refuse "error writing '/dev/full': No space left on device" if="rados://$pool/$tag" of=/dev/full bs=64K status=none
# past the end: nothing to copy, as GNU dd
accept if="rados://$pool/$tag" of="$scratch/past" skip=100 bs=1M status=none
[[ $(stat -c %s "$scratch/past") == 0 ]]
verdict $? "skip=100 bs=1M past the end of a 1 MiB striped file -> 0 bytes"
accept if="rados://$pool/$tag" of="$scratch/far" skip=9223372036854775000 bs=1 count=1 status=none
# the largest timeout librados takes
accept if="rados://$pool/$tag" of=/dev/null bs=1M op_timeout=4294967295 status=none

# seek= truncates a striped output to the seek offset, as dd does. A huge
# one must be refused (or done) at once, not walk 2^41 objects: see
# K4-truncate-huge in run-faults.sh.
t0=$(now)
rc=$(
	{
		timeout -s KILL 6 "$dd_bin" if=/dev/zero of="rados://$pool/$tag-seek" \
			seek=9223372036854775000 bs=1 count=1 op_timeout=10 status=none \
			</dev/null >/dev/null 2>"$err"
	} 2>/dev/null
	echo $?
)
secs=$(elapsed "$t0" "$(now)")
[[ $rc == 0 ]] || { [[ $rc != 137 ]] && one_line_error "$err" "striped-dd: "; }
xcheck K4-truncate-huge $? "seek=9223372036854775000 bs=1 on a striped output returns within 6 s (exit $rc after $secs s: $(head -c 160 "$err"))"
if [[ $rc == 137 ]]; then
	# the killed truncate holds libradosstriper's lock (300 s): drop the head
	timeout 30 rados -p "$pool" rm "$tag-seek.0000000000000000" 2>/dev/null
fi

for name in "$tag" "$tag-seek"; do
	timeout 30 rados -p "$pool" ls 2>/dev/null | grep "^$name\.[0-9a-f]\{16\}$" |
		xargs -r -n 1 timeout 30 rados -p "$pool" rm 2>/dev/null
done
finish
