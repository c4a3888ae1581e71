#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fuzz.sh: build the libFuzzer targets with clang -fsanitize=fuzzer,address,
# undefined and run each for a bounded time:
#   fuzz_dd_args  striped-dd's operand parser (tests/faults/fuzz_dd_args.c over
#                 tools/dd_args.c), seeded with real command lines and a
#                 dictionary of operands, suffixes and flags
#   fuzz_layout   the mapping (fuzz/fuzz_layout.c over lib/layout.c)
# and print how many inputs each ran without a finding.
#
# usage: fuzz.sh SRCDIR OUTDIR [SECONDS]   (SECONDS per target, default 30)
# A crash leaves its input in OUTDIR/<target>/ (crash-*, leak-*, timeout-*).
# Exit: 0 no finding, 1 a finding or a build failure, 77 no clang/libFuzzer.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FAULTS_PREFIX=fuzz
# shellcheck source=lib.sh
source "$here/lib.sh"

src=$(cd "${1:?usage: fuzz.sh SRCDIR OUTDIR [SECONDS]}" && pwd)
out=${2:?usage: fuzz.sh SRCDIR OUTDIR [SECONDS]}
secs=${3:-30}
clang=${FUZZ_CC:-clang}
# shellcheck disable=SC2054 # commas inside one flag
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-D_GNU_SOURCE -I"$src/include" -I"$src/lib" -I"$src/tools")

if ! command -v "$clang" >/dev/null ||
	! echo 'int LLVMFuzzerTestOneInput(const char *d, long n){return 0;}' |
	"$clang" -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then
	echo "fuzz: SKIP: no clang with libFuzzer (clang, libclang-rt-dev)"
	exit 77
fi
mkdir -p "$out"

build() { # NAME SOURCES...
	local name=$1
	shift
	"$clang" "${flags[@]}" "$@" -o "$out/$name" 2>"$out/$name.build.log" ||
		{ cat "$out/$name.build.log"; fail "build $name"; return 1; }
}

# Real command lines, one argument per NUL-separated field.
seed_dd_args() {
	local dir=$1 i=0 line
	mkdir -p "$dir"
	while IFS= read -r line; do
		printf '%s' "$line" | tr ' ' '\0' >"$dir/seed-$i"
		i=$((i + 1))
	done <<'EOF'
if=in of=rados://striped/f bs=4M count=10
if=rados://striped/f of=out bs=1M skip=3 iflag=direct status=progress
if=/dev/zero of=rados://p/n bs=64K count=2x4K seek=1B conv=notrunc,fsync oflag=seek_bytes
if=a of=rados://p/n stripe_unit=64K stripe_count=4 object_size=1M iodepth=16 verify=yes
of=rados://pool/name ibs=1kB obs=1KiB count=5B iflag=count_bytes,skip_bytes,fullblock skip=7
if=x of=y conv=excl op_timeout=5 conf=/etc/ceph/ceph.conf id=admin keyring=/k status=json
--help
--version
if=rados://p/n of=rados://q/m name=client.x status=noxfer iseek=1 oseek=2 bs=1E count=1
EOF
}

run() { # NAME EXTRA_ARGS...
	local name=$1 log=$out/$1.log execs crashes rc
	shift
	mkdir -p "$out/$name.corpus" "$out/$name.findings"
	(cd "$out/$name.findings" && "$out/$name" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 "$@" "$out/$name.corpus") >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	crashes=$(find "$out/$name.findings" -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' | wc -l)
	if ((rc == 0 && crashes == 0)) && [[ -n $execs ]]; then
		pass "$name: ${execs} executions in ${secs}s without a finding (corpus $(find "$out/$name.corpus" -type f | wc -l) inputs)"
	else
		fail "$name: exit $rc, $crashes finding(s) in $out/$name.findings (log: $log)"
		grep -m 1 -A 12 -E '^==[0-9]+==ERROR|runtime error|deadly signal' "$log" | sed 's/^/    /'
	fi
}

build fuzz_dd_args "$here/fuzz_dd_args.c" "$src/tools/dd_args.c" "$src/tools/tool_args.c" \
	"$src/lib/layout.c" &&
	seed_dd_args "$out/fuzz_dd_args.corpus" &&
	run fuzz_dd_args -dict="$here/dd_args.dict" -seed=1
build fuzz_layout "$src/fuzz/fuzz_layout.c" "$src/lib/layout.c" &&
	run fuzz_layout -seed=1
finish
