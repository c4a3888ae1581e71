#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# striped-cli.sh: the operators' command against the sandbox cluster, every
# subcommand, in a namespace of its own (so check and its repair see this
# test's files only):
#  - ls, stat, xattr, truncate, rm on files of striped-dd and of
#    rados --striper (libradosstriper), their JSON, one-line failures and
#    usage errors;
#  - the issue's target: a writer killed (SIGKILL) with writes in flight,
#    plus what such a writer leaves when a size update never lands (an
#    object past the size, up to the mark) and an object past the mark;
#    stat, lock ls and check show it, check changes nothing, check --repair
#    fences the dead holder, leaves no orphan and every byte within the size;
#  - a killed writer's file removed by rados --striper rm (after a fenced
#    lock break): the objects past the size lose their head; check finds,
#    --repair removes them;
#  - a libradosstriper client that died holding its lock: named, waited for
#    (EBUSY), not breakable without the blocklist cap, broken --unfenced;
#    a real one (a stock `rados --striper put` killed with SIGKILL while it
#    held the lock): rm names it, rm --force fences and breaks it and
#    removes the file (refused without the blocklist cap), lock break
#    fences and breaks it and stock rm then goes through;
#  - a head with corrupt metadata: reported, never repaired;
#  - striped-ls as the old name of ls, and the bash completion.
#
# usage: striped-cli.sh STRIPED STRIPED_DD STRIPED_LS COMPLETION
#        (needs CEPH_CONF, STRIPED_TEST_POOL; the sandbox's client.nofence key)
set -uo pipefail

striped=${1:?usage: striped-cli.sh STRIPED STRIPED_DD STRIPED_LS COMPLETION}
dd_tool=${2:?}
ls_tool=${3:?}
completion=${4:?}
# shellcheck source=cluster-check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster-check.sh"
need_cluster tap striped-cli.sh
# shellcheck source=tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# shellcheck source=ns-client.sh
source "$(dirname "${BASH_SOURCE[0]}")/../ns-client.sh"

work=$(mktemp -d)
pool=$STRIPED_TEST_POOL
ns=cli-$$
MiB=$((1 << 20))
S=("$striped" -p "$pool" -N "$ns")
writers=()
cleanup() {
	local p
	for p in "${writers[@]}"; do kill -9 "$p" 2>/dev/null; done
	ns_remove_objects "$pool" "" "$ns"
	rm -rf "$work"
}
trap cleanup EXIT

out=$work/out
err=$work/err
TAP_DETAIL=$work/detail
# run CMD...: its stdout in $out, stderr in $err, status in $st (and the detail for failures)
run() {
	"$@" >"$out" 2>"$err"
	st=$?
	{
		echo "\$ $*  (exit $st)"
		cat "$out" "$err"
	} >>"$TAP_DETAIL"
	# the sanitizer build: a report fails the test whatever the check looks at
	if grep -q "Sanitizer\|runtime error:" "$err"; then
		not_ok "a sanitizer report from: $*"
	fi
}
# json EXPR: EXPR of the JSON document in $out (d), printed
json() { python3 -c "import json,sys; d=json.load(open('$out')); print($1)"; }
valid_json() { python3 -c "import json; json.load(open('$out'))" 2>/dev/null; }
# COMMANDS; is DESC: ok when the last command succeeded
is() {
	local r=$?
	if ((r == 0)); then ok "$1"; else not_ok "$1"; fi
}
# one_line DESC STATUS PATTERN CMD...: CMD exits STATUS with exactly one line on stderr, PATTERN
one_line() {
	local desc=$1 want=$2 pattern=$3
	shift 3
	run "$@"
	if [[ $st -eq $want && $(wc -l <"$err") -eq 1 ]] && grep -qx -- "$pattern" "$err"; then
		ok "$desc"
	else
		not_ok "$desc: exit $st, [$(cat "$err")]"
	fi
}
has() { grep -q -- "$1" "$out"; }
exists() { rados -p "$pool" -N "$ns" stat "$(printf '%s.%016x' "$1" "$2")" >/dev/null 2>&1; }
objects_of() { rados -p "$pool" -N "$ns" ls | grep -c "^$1\.[0-9a-f]\{16\}$"; }
# read_file NAME DEST: the striped file's bytes (within its size)
read_file() { "$dd_tool" if="rados://$pool/$1" of="$2" bs=4M ns="$ns" status=none; }
size_of() { "${S[@]}" --format json stat "$1" 2>/dev/null | sed -n 's/^{"name":"[^"]*","size":\([0-9]*\),.*/\1/p'; }

head -c $((8 * MiB)) /dev/urandom >"$work/rand"
head -c 77777 /dev/urandom >"$work/small"

# ---- files of both libraries: ls, stat, xattrs, truncate, rm ----
"$dd_tool" if="$work/rand" of="rados://$pool/a" bs=1M ns="$ns" stripe_unit=1M stripe_count=2 \
	object_size=2M status=none
rados --striper -p "$pool" -N "$ns" put rs "$work/small" 2>/dev/null
run "${S[@]}" ls -l
test "$(sort "$out")" == "$(printf '77777\trs\n8388608\ta' | sort)"
is "ls -l: both libraries' files with their sizes"
run "${S[@]}" ls --format json
test "$(json 'sorted((f["name"], f["size"]) for f in d)')" == "[('a', 8388608), ('rs', 77777)]"
is "ls --format json: {name, size} each"
run "${S[@]}" stat a
grep -qx "size: 8388608 (8.0 MiB) in 4 objects" "$out" &&
	has "layout: stripe_unit 1048576, stripe_count 2, object_size 2097152" &&
	has "^mark: .*striper.reserved" && has "^lock: not held"
is "stat: size, layout, mark, lock for people"
run "${S[@]}" --format json stat a
test "$(json '(d["size"], d["layout"], d["reserved"] > d["size"], d["id"] > 0,
		d["mtime"]["tv_sec"] > 1700000000, d["lockers"])')" == \
	"(8388608, {'stripe_unit': 1048576, 'stripe_count': 2, 'object_size': 2097152}, True, True, True, [])"
is "stat --format json: the C structs' fields"
run "${S[@]}" stat rs
has "^mark: none" && has "^id: 0 (none: libradosstriper made it)" && has "^size: 77777 "
is "stat of libradosstriper's file: no mark, no id"
one_line "stat of no file: one line, exit 1" 1 "striped: stat nothing: No such file or directory" \
	"${S[@]}" stat nothing

run "${S[@]}" xattr set rs user.a hello
grep -qx "Setting extended attribute user.a of rs (5 bytes)" "$out"
is "xattr set: says what it sets"
printf 'a\0b\377' | "${S[@]}" xattr set rs user.bin >/dev/null
cmp -s <("${S[@]}" xattr get rs user.bin) <(printf 'a\0b\377')
is "xattr set from standard input, any bytes; libradosstriper reads it"
test "$(rados --striper -p "$pool" -N "$ns" getxattr rs user.a 2>/dev/null)" == hello
is "what striped sets, rados --striper getxattr reads"
run "${S[@]}" xattr ls rs
test "$(sort "$out")" == "$(printf 'user.a\nuser.bin')"
is "xattr ls: the user's names, not the libraries'"
run "${S[@]}" --format json xattr get rs user.bin
test "$(json '(d["name"], d["len"], d["value"])')" == "('user.bin', 4, 'a\\x00bÿ')"
is "xattr get --format json: name, len, value"
"${S[@]}" xattr rm rs user.a >/dev/null
one_line "xattr get of a removed attribute: one line, exit 1" 1 \
	"striped: xattr get rs user.a: No data available" "${S[@]}" xattr get rs user.a
one_line "xattr set of the libraries' own: refused" 1 \
	"striped: xattr set rs striper.size: Operation not permitted" \
	"${S[@]}" xattr set rs striper.size 1

run "${S[@]}" truncate a 3M
grep -qx "Truncating a from 8388608 to 3145728 bytes: the 5242880 bytes past it are removed" "$out"
is "truncate: says what it cuts"
read_file a "$work/a"
cmp -s "$work/a" <(head -c $((3 * MiB)) "$work/rand")
is "truncate: the size and the bytes below it"
test "$(objects_of a)" -eq 2
is "truncate: the objects past the new size are gone"
run "${S[@]}" truncate -s 5M a
read_file a "$work/a"
cmp -s "$work/a" <(head -c $((3 * MiB)) "$work/rand"; head -c $((2 * MiB)) /dev/zero)
is "truncate -s: growing reads as zeros"
run "${S[@]}" truncate a 4MB
test "$st" -eq 0 && test "$(size_of a)" -eq 4000000
is "truncate: 4MB is 4000000 bytes, as striped-dd reads it (4M and 4MiB are 4194304)"
"${S[@]}" truncate rs 1000 >/dev/null
rados --striper -p "$pool" -N "$ns" get rs "$work/rs" 2>/dev/null
cmp -s "$work/rs" <(head -c 1000 "$work/small")
is "truncate of libradosstriper's file: it reads it back so"
run "${S[@]}" rm rs
grep -q "^Removing rs: 1000 bytes" "$out" && test "$(objects_of rs)" -eq 0
is "rm: says what it removes, and does"

one_line "no subcommand: usage, exit 2" 2 "striped: no subcommand given" "$striped"
one_line "no pool: usage, exit 2" 2 "striped: stat: no pool given (-p POOL)" "$striped" stat a
one_line "a missing operand: usage, exit 2" 2 "striped: usage: striped stat NAME" "${S[@]}" stat
one_line "an unknown subcommand: usage, exit 2" 2 "striped: unknown subcommand 'frob'" \
	"${S[@]}" frob
one_line "an unknown option: named, usage, exit 2" 2 "striped: unrecognized option '-x'" \
	"${S[@]}" ls -xl
one_line "another subcommand's option: named, usage, exit 2" 2 \
	"striped: stat: --long is an option of another subcommand" "${S[@]}" stat -l a
one_line "a pool that does not exist: one line, exit 1" 1 "striped: pool nopool-$$: No such file or directory" \
	"$striped" -p "nopool-$$" stat a
run "$striped" help check
test "$st" -eq 0 -a -n "$(grep -- '--repair' "$out")"
is "help check: what check does"

# ---- the target: a writer killed with writes in flight ----
# kill_writer NAME MIN_BYTES LAYOUT...: a striped-dd writing NAME without end is killed
# (SIGKILL) once the stored size passes MIN_BYTES
kill_writer() {
	local name=$1 min=$2 pid size=0 i
	shift 2
	(while cat "$work/rand" 2>/dev/null; do :; done) |
		"$dd_tool" of="rados://$pool/$name" bs=4M iodepth=16 iflag=fullblock ns="$ns" \
			status=none "$@" 2>/dev/null &
	pid=$!
	writers+=("$pid")
	for ((i = 0; i < 300 && size < min; i++)); do
		sleep 0.1
		size=$(size_of "$name")
		size=${size:-0}
	done
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	sleep 0.5 # what it had sent lands
}
kill_writer kill $((24 * MiB)) stripe_unit=1M stripe_count=4 object_size=4M
run "${S[@]}" --format json stat kill
size=$(json 'd["size"]')
mark=$(json 'd["reserved"]')
period=$((16 * MiB))
# A write whose size update never landed leaves an object past the size, up to the
# mark: here one of the next object set's. Its writer raised the mark past it first,
# as libstriped does (by hand where the killed writer's mark is not that far ahead).
# And an object far past the mark, which only a listing finds.
within=$(((size / period + 1) * 4 + 1))
past=4000
if ((mark < (size / period + 2) * period)); then
	mark=$(((size / period + 2) * period))
	rados -p "$pool" -N "$ns" setxattr kill.0000000000000000 striper.reserved "$mark"
fi
head -c 65536 /dev/urandom >"$work/orphan"
for o in $within $past; do
	rados -p "$pool" -N "$ns" put "$(printf 'kill.%016x' "$o")" "$work/orphan"
done
read_file kill "$work/before"
test "$(stat -c %s "$work/before")" -eq "$size"
is "the killed writer's file reads back its size"

run "${S[@]}" stat kill
has "^lock: shared, 1 holder" && grep -q "^  client\.[0-9]*  .*:0/[0-9]*  cookie striped-.*  libstriped$" "$out"
is "stat: the dead writer still holds the lock (libstriped, client, address)"
has "^mark: $mark .*may hold bytes of writes that failed"
is "stat: the mark above the size, explained"
run "${S[@]}" --format json stat kill
test "$(json '[(l["owner"], l["exclusive"], l["tag"], l["cookie"][:8], l["client"][:7], bool(l["address"])) for l in d["lockers"]]')" == \
	"[('libstriped', False, 'Tag', 'striped-', 'client.', True)]"
is "stat --format json: the holder's fields"
run "${S[@]}" lock ls kill
has "^There is 1 shared lock on kill (tag \"Tag\")." && has "libstriped$" &&
	has "^libstriped holders are open files"
is "lock ls: one shared lock, libstriped's, and what that means"
run "${S[@]}" lock ls kill --format json
test "$(json '(len(d), d[0]["owner"])')" == "(1, 'libstriped')"
is "lock ls --format json"

# How many orphans the killed writer left varies (what it had in flight), and
# the plain report names 10: the lines it must print come from the JSON one,
# the objects past the mark first.
run "${S[@]}" check --format json
cp "$out" "$work/check.json"
python3 - "$work/check.json" >"$work/check.plain" <<'PY'
import json, sys
objs = [o for f in json.load(open(sys.argv[1]))["findings"] if f["name"] == "kill"
        for o in f["objects"]]
shown = ([o for o in objs if o["past_mark"]] + [o for o in objs if not o["past_mark"]])[:10]
for o in shown:
    print("  kill.%016x  %d bytes%s%s" % (o["objectno"], o["size"],
          ", %d of them past the size" % (o["size"] - o["keep"]) if o["keep"] else "",
          " (past the mark: only a listing finds it)" if o["past_mark"] else ""))
if len(objs) > len(shown):
    print("  ... and %d more (--format json lists them all)" % (len(objs) - len(shown)))
PY
orphans=$(json 'sum(len(f["objects"]) for f in d["findings"] if f["name"] == "kill")')
run "${S[@]}" check
test "$st" -eq 0 && has "^kill: $orphans objects\{0,1\} with bytes past its size ($size), its mark is $mark:" &&
	has "^  $(printf 'kill.%016x' "$past")  65536 bytes (past the mark" &&
	test "$(grep '^  kill\.\|^  \.\.\. and' "$out")" == "$(cat "$work/check.plain")" &&
	has "Its lock is held by client.[0-9]* (libstriped" && has "check --repair. removes them"
is "check: the orphans past the mark first, then below it, and the lock"
run "${S[@]}" check --format json
test "$(json '[(f["name"], f["kind"], f["size"], [(o["objectno"], o["past_mark"]) for o in f["objects"] if o["objectno"] in ('"$within, $past"')], len(f["lockers"])) for f in d["findings"]]')" == \
	"[('kill', 'past_size', $size, [($within, False), ($past, True)], 1)]"
is "check --format json: past_size, the objects, the holder"
exists kill "$within" && exists kill "$past" && test "$("${S[@]}" lock ls kill --format json)" != "[]"
is "check changes nothing: the orphans and the lock stay"

run "${S[@]}" check --repair
test "$st" -eq 0 && has "Removing them under the file's exclusive lock" &&
	has "^Removed the orphans of 1 of 1 file\.$"
is "check --repair: says how it repairs, and succeeds"
! exists kill "$within"
is "check --repair: the orphans are gone"
! exists kill "$past"
is "check --repair: the one past the mark too"
run "${S[@]}" check
has "^No orphans."
is "check after the repair: no orphan"
run "${S[@]}" check --format json
test "$(json '(d["findings"], d["orphans"])')" == "([], 0)"
is "check --format json after the repair: no finding"
read_file kill "$work/after"
cmp -s "$work/before" "$work/after"
is "check --repair: not a byte within the size lost"
run "${S[@]}" --format json stat kill
test "$(json '(d["size"], d["reserved"], d["lockers"])')" == "($size, $size, [])"
is "check --repair: the size kept, the mark down to it, the dead holder fenced and gone"

# More orphans than the plain report names: the one past the mark (the highest
# object) is among those named, the rest counted.
head -c 65536 /dev/urandom >"$work/one"
"$dd_tool" if="$work/one" of="rados://$pool/many" bs=64K ns="$ns" stripe_unit=64K \
	stripe_count=1 object_size=64K status=none
rados -p "$pool" -N "$ns" setxattr many.0000000000000000 striper.reserved $((20 * 65536))
for o in $(seq 1 12) 100; do
	rados -p "$pool" -N "$ns" put "$(printf 'many.%016x' "$o")" "$work/orphan"
done
run "${S[@]}" check many
has "^many: 13 objects with bytes past its size" &&
	has "$(printf 'many.%016x' 100)  65536 bytes (past the mark" && has "^  \.\.\. and 3 more (--format json"
is "check: of 13 orphans the plain report names 10, the one past the mark first"
run "${S[@]}" check --repair many
test "$st" -eq 0 && test "$(objects_of many)" -eq 1
is "check --repair: all 13 gone"
run "${S[@]}" rm many

# ---- rados --striper rm after a killed writer ----
kill_writer kill2 $((12 * MiB))
run "${S[@]}" --format json stat kill2
size=$(json 'd["size"]')
cookie=$(json 'd["lockers"][0]["cookie"]')
within=$(((size + 4 * MiB - 1) / (4 * MiB) + 1))
rados -p "$pool" -N "$ns" put "$(printf 'kill2.%016x' "$within")" "$work/orphan"
rados --striper -p "$pool" -N "$ns" rm kill2 2>/dev/null
exists kill2 0
is "rados --striper rm is refused while the dead writer holds the lock"
run "${S[@]}" lock break kill2 "$cookie"
test "$st" -eq 0 && grep -q "^Breaking the lock of client\.[0-9]* (libstriped, cookie $cookie) on kill2, after blocklisting its address" "$out"
is "lock break: fenced by default, says so"
run "${S[@]}" --format json lock ls kill2
test "$(cat "$out")" == "[]"
is "lock break: the lock is gone"
rados --striper -p "$pool" -N "$ns" rm kill2 2>/dev/null
! exists kill2 0 && exists kill2 "$within"
is "rados --striper rm: the head gone, the object past the size left"
run "${S[@]}" check
has "^kill2: [0-9]* objects\? without a head (kill2.0000000000000000 is gone)" &&
	has "$(printf 'kill2.%016x' "$within")  65536 bytes"
is "check: the objects without a head"
run "${S[@]}" --format json check kill2
test "$(json '[(f["name"], f["kind"], '"$within"' in [o["objectno"] for o in f["objects"]]) for f in d["findings"]]')" == \
	"[('kill2', 'headless', True)]"
is "check NAME --format json: headless"
run "${S[@]}" check --repair kill2
test "$st" -eq 0 && has "Removing them, each only if it did not change" && test "$(objects_of kill2)" -eq 0
is "check --repair: says it, removes every object of the removed file"

# ---- a libradosstriper client that died holding its lock ----
rados --striper -p "$pool" -N "$ns" put r "$work/small" 2>/dev/null
uuid=$(cat /proc/sys/kernel/random/uuid)
rados -p "$pool" -N "$ns" lock get r.0000000000000000 striper.lock --lock-type shared \
	--lock-tag Tag --lock-cookie "$uuid"
rados -p "$pool" -N "$ns" put "$(printf 'r.%016x' 5)" "$work/orphan"
run "${S[@]}" lock ls r
grep -q "  $uuid  .*  libradosstriper$" "$out" && has "Break it: striped lock break r COOKIE"
is "lock ls: libradosstriper's, and how to break it"
one_line "truncate waits for libradosstriper's holder, then one line" 1 \
	"striped: truncate r: Device or resource busy" "${S[@]}" truncate r 10
one_line "check --repair names the holder it waited for, one line, exit 1" 1 \
	"striped: check --repair r: held by client\.[0-9]* (libradosstriper, cookie $uuid); a dead client's lock goes with \`striped lock break\`: Device or resource busy" \
	"${S[@]}" check --repair r
exists r 5
is "a file that could not be repaired keeps its orphan"
one_line "lock break without the blocklist cap: refused, one line" 1 \
	"striped: lock break r: this client may not blocklist .* (it needs mon 'profile rbd'; or --unfenced): Permission denied" \
	"${S[@]}" --id nofence lock break r "$uuid"
run "${S[@]}" --id nofence lock break --unfenced r "$uuid"
test "$st" -eq 0 && has "without fencing it" && test "$("${S[@]}" --format json lock ls r)" == "[]"
is "lock break --unfenced: says so, breaks it"
run "${S[@]}" check --repair r
test "$st" -eq 0 && ! exists r 5 && exists r 0
is "then check --repair goes through"

# ---- a libradosstriper client killed (SIGKILL) while it held its lock ----
# stock_holder_killed NAME: `rados --striper put` (stock libradosstriper) of
# 256 MiB killed (SIGKILL) while a call of it holds the file's lock; the
# lock's cookie in $cookie. Stock takes the lock around each 4 MiB write:
# the put is stopped (SIGSTOP) until it is caught holding it, then killed.
truncate -s 256M "$work/big"
stock_cookie() {
	"${S[@]}" --format json lock ls "$1" 2>/dev/null | python3 -c \
		'import json,sys; print(next((l["cookie"] for l in json.load(sys.stdin) if l["owner"] == "libradosstriper"), ""))' 2>/dev/null
}
stock_holder_killed() {
	local pid try
	rados --striper -p "$pool" -N "$ns" put "$1" "$work/big" 2>/dev/null &
	pid=$!
	writers+=("$pid")
	for try in $(seq 200); do
		kill -STOP "$pid" 2>/dev/null || break
		cookie=$(stock_cookie "$1")
		[[ -n $cookie ]] && break
		kill -CONT "$pid"
		sleep 0.0$((RANDOM % 10))
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[[ -n $cookie && $(stock_cookie "$1") == "$cookie" ]]
}
stock_holder_killed dead
is "a stock client killed holding its lock leaves it: lock ls names it libradosstriper's"
one_line "rm of a file a dead stock client holds: waits, then one line naming it and --force" 1 \
	"striped: rm dead: held by client\.[0-9]* (libradosstriper, cookie $cookie); a dead libradosstriper client's lock goes with \`striped rm --force\`: Device or resource busy" \
	"${S[@]}" rm dead
one_line "rm --force without the blocklist cap: refused, one line, the file kept" 1 \
	"striped: rm --force dead: this client may not blocklist .* (it needs mon 'profile rbd'): Permission denied" \
	"${S[@]}" --id nofence rm --force dead
exists dead 0
is "the file is still there"
run "${S[@]}" rm --force dead
test "$st" -eq 0 && grep -q "^Breaking the lock of client\.[0-9]* (libradosstriper, cookie $cookie) on dead, held past the wait (a libradosstriper client that died), after blocklisting its address" "$out" &&
	test "$(objects_of dead)" -eq 0
is "rm --force: the dead stock holder fenced and broken, says so, every object removed"
stock_holder_killed dead2
is "a second stock client killed holding its lock"
run "${S[@]}" lock break dead2 "$cookie"
test "$st" -eq 0 && has "after blocklisting its address" &&
	test "$("${S[@]}" --format json lock ls dead2)" == "[]"
is "lock break of the dead stock holder: fenced, broken"
rados --striper -p "$pool" -N "$ns" rm dead2 2>/dev/null && test "$(objects_of dead2)" -eq 0
is "then stock rados --striper rm goes through"

# ---- a head with corrupt metadata ----
"$dd_tool" if="$work/rand" of="rados://$pool/c" bs=1M count=2 ns="$ns" status=none
rados -p "$pool" -N "$ns" setxattr c.0000000000000000 striper.size xyz
one_line "stat of a corrupt head: one line, exit 1" 1 "striped: stat c: Structure needs cleaning" \
	"${S[@]}" stat c
run "${S[@]}" check --repair c
test "$st" -eq 0 && has "^c: its head has corrupt metadata (Structure needs cleaning)" &&
	test "$(rados -p "$pool" -N "$ns" getxattr c.0000000000000000 striper.size)" == xyz &&
	test "$(objects_of c)" -eq 1
is "check --repair: a corrupt head reported, left as it is"
run "${S[@]}" --format json check c
test "$(json '([(f["name"], f["kind"], f["objects"]) for f in d["findings"]], d["corrupt_heads"])')" == \
	"([('c', 'corrupt_head', 1)], 1)"
is "check --format json: corrupt_head"
one_line "check NAME of no file: one line, exit 1" 1 "striped: check nothing: No such file or directory" \
	"${S[@]}" check nothing

one_line "lock break of no such holder: one line, no errno" 1 \
	"striped: lock break a: no holder with cookie nobody" "${S[@]}" lock break a nobody

# ---- a listing that fails prints no JSON: valid JSON or nothing ----
ns_client "cli-$$" "$pool" "$ns" "$work"
run "$striped" -c "$work/cli-$$.conf" --id "cli-$$" -p "$pool" -N "other-$$" --format json ls
test "$st" -eq 1 && test ! -s "$out" && grep -qx "striped: listing: Operation not permitted" "$err"
is "ls --format json that fails: one line, no JSON begun"
ns_client_remove "cli-$$"

# ---- every query's --format json parses ----
for q in "ls" "stat a" "xattr ls a" "lock ls a" "check"; do
	# shellcheck disable=SC2086 # the query's words
	run "${S[@]}" --format json-pretty $q
	valid_json
	is "--format json-pretty $q: one JSON document"
done

# ---- striped-ls: the old name ----
test "$("$ls_tool" -l --namespace "$ns" "$pool" | sort)" == "$("${S[@]}" ls -l | sort)"
is "striped-ls: the same listing as striped ls -l"

# ---- bash completion ----
complete_line() { # WORDS...: the completions of the last word
	# shellcheck disable=SC1090
	source "$completion"
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	PATH="$(dirname "$striped"):$PATH" _striped
	printf '%s\n' "${COMPREPLY[@]}"
}
test "$(complete_line striped -p "$pool" st)" == stat
is "completion: subcommands"
test "$(complete_line striped lock "" | sort | xargs)" == "break ls"
is "completion: lock's"
test "$(complete_line striped check --rep)" == --repair
is "completion: check's option"
test "$(complete_line striped -p "$pool" -N "$ns" stat k | sort | xargs)" == "kill"
is "completion: the pool's files"
test "$(complete_line striped --format js | sort | xargs)" == "json json-pretty"
is "completion: --format"
tap_done
