#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fuzz.sh: build the libFuzzer targets that fuzz/targets lists with clang
# -fsanitize=fuzzer,address,undefined and run each for a bounded time, from
# its seeds (fuzz/corpus/NAME/) with its dictionary (fuzz/NAME.dict):
#   fuzz_layout       the mapping, and the objects a range touches (lib/pure/layout.c)
#   fuzz_dd_args      striped-dd's operand parser (tools/dd/dd_args.c, tool_args.c)
#   fuzz_head_xattrs  a head's xattrs decoded (lib/format/meta.c)
#   fuzz_lock_info    cls_lock's get_info reply decoded (lib/format/lock_info.c)
#   fuzz_rados_names  rados://POOL/NAME and listed object names (tools, lib/pure/layout.c)
#   fuzz_cli_args     the `striped` command's parser and JSON output (tools/cli/cli*.c);
#                     it links libstriped: FUZZ_LIBSTRIPED names the plain build's
#                     libstriped.so (meson sets it), skipped without
#   fuzz_dropin       `striped dropin status`: maps lines, a mapped file's DT_NEEDED (tools/cli/dropin.c)
# and print how many inputs each ran without a finding.
#
# usage: fuzz.sh SRCDIR OUTDIR [SECONDS [TARGET...]]   (SECONDS per target, default 30)
# A crash leaves its input in OUTDIR/<target>.findings/ (crash-*, leak-*, timeout-*).
# Exit: 0 no finding, 1 a finding or a build failure, 77 no clang/libFuzzer.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FAULTS_PREFIX=fuzz
# shellcheck source=lib.sh
source "$here/lib.sh"

src=$(cd "${1:?usage: fuzz.sh SRCDIR OUTDIR [SECONDS [TARGET...]]}" && pwd)
out=${2:?usage: fuzz.sh SRCDIR OUTDIR [SECONDS [TARGET...]]}
secs=${3:-30}
shift $(($# < 3 ? $# : 3))
only=("$@")
clang=${FUZZ_CC:-clang}
# shellcheck disable=SC2054 # commas inside one flag
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-D_GNU_SOURCE -I"$src/include" -I"$src/tools/common" -I"$src/tools/dd" -I"$src/tools/cli")
# Every folder of lib/: its parts include each other's headers by name.
while read -r d; do flags+=(-I"$d"); done < <(find "$src/lib" -mindepth 1 -maxdepth 1 -type d)

if ! command -v "$clang" >/dev/null ||
	! echo 'int LLVMFuzzerTestOneInput(const char *d, long n){return 0;}' |
	"$clang" -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then
	echo "fuzz: SKIP: no clang with libFuzzer (clang, libclang-rt-dev)"
	exit 77
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

build() { # NAME SOURCES... [+libstriped]
	local name=$1 args=() w lib=${FUZZ_LIBSTRIPED:-}
	shift
	for w in "$@"; do
		if [[ $w == +libstriped ]]; then
			if [[ ! -f $lib ]]; then
				skip_one "$name: no libstriped.so to link (FUZZ_LIBSTRIPED)"
				return 1
			fi
			args+=("$lib" -lrados -Wl,-rpath,"$(dirname "$lib")")
		else
			args+=("$src/$w")
		fi
	done
	"$clang" "${flags[@]}" "${args[@]}" -o "$out/$name" 2>"$out/$name.build.log" ||
		{ cat "$out/$name.build.log"; fail "build $name"; return 1; }
}

run() { # NAME
	local name=$1 log=$out/$1.log execs crashes rc dict=() seeds=()
	mkdir -p "$out/$name.corpus" "$out/$name.findings"
	[[ -f $src/fuzz/$name.dict ]] && dict=(-dict="$src/fuzz/$name.dict")
	[[ -d $src/fuzz/corpus/$name ]] && seeds=("$src/fuzz/corpus/$name")
	# New inputs go to the first directory; the seeds are only read.
	(cd "$out/$name.findings" && "$out/$name" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -seed=1 "${dict[@]}" \
		"$out/$name.corpus" "${seeds[@]}") >"$log" 2>&1
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

while read -r name sources; do
	[[ -z $name || $name == \#* ]] && continue
	((${#only[@]})) && [[ " ${only[*]} " != *" $name "* ]] && continue
	# shellcheck disable=SC2086 # the sources, one word each
	build "$name" $sources && run "$name"
done <"$src/fuzz/targets"
finish
