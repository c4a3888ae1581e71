#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# packages.sh SRCDIR: the Debian packages end to end (debian/, issue 42), as
# root on this machine (TAP). From a clean clone of SRCDIR's HEAD: build them
# (dpkg-buildpackage -b, nocheck), lintian without errors (its warnings shown
# as diagnostics), install them, then with the installed programs, library and
# module only (no build tree): the demo's copy with striped-dd, `striped
# mount` (striped-mount found in sbin without it in PATH), `rados
# --striper` put/get on Ceph's libradosstriper, with the drop-in switched on
# for the host (the alternative) and for one service (the systemd drop-in's
# environment), and off again; `import striped` from /usr/bin/python3. Then
# purge, and check nothing of ours is left: files, the alternative, the
# ld.so.conf.d link, ldconfig's cache, the systemd drop-in's link.
#
# Other engineers build and test on this host meanwhile: the packages are
# installed for as short a time as the checks take and purged on every exit
# (trap); the host's ld.so.cache never names the drop-in: the switched-on
# cache is the one `ldconfig` builds, written to a file of the test's and
# bound over /etc/ld.so.cache in a mount namespace of the one `rados` run
# (the alternative itself points at the drop-in for that ldconfig only).
#
# usage: packages.sh SRCDIR      (a git tree; root, a cluster: CEPH_CONF, STRIPED_TEST_POOL)
set -uo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tap.sh
source "$here/tap.sh"
# shellcheck source=cluster-check.sh
source "$here/cluster-check.sh"
# shellcheck source=compat/stock-exit.sh
source "$here/compat/stock-exit.sh"

src=${1:?usage: packages.sh SRCDIR}
if ((EUID != 0)); then
	echo "1..0 # SKIP not root: the test installs and purges packages"
	exit 0
fi
for tool in dpkg-buildpackage dh lintian git apt-get; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP no $tool (scripts/setup-deps installs it)"
		exit 0
	fi
done
# (a checkout owned by another user than root is no reason to refuse it)
git() { command git -c safe.directory='*' "$@"; }
if ! git -C "$src" rev-parse --verify -q HEAD >/dev/null; then
	echo "1..0 # SKIP $src is no git tree: the packages are built from a clone of its HEAD"
	exit 0
fi
need_cluster tap packages.sh
# Only what the packages installed: never the build tree's library or module.
unset LD_LIBRARY_PATH LD_PRELOAD PYTHONPATH STRIPED_LIBRARY

pool=$STRIPED_TEST_POOL
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=/usr/lib/$triplet
dropin_dir=$libdir/libstriped
alt=libradosstriper.so.1-$triplet
alt_link=/etc/ld.so.conf.d/00-libradosstriper-$triplet.conf
packages=(libstriped0 libstriped-dev striped-tools striped-mount libstriped-radosstriper1
	python3-striped)
apt_opts=(-y -q -o DPkg::Lock::Timeout=60)
# A service switched on with the systemd drop-in (doc/dropin.md): a unit nobody has.
unit_dir=/etc/systemd/system/libstriped-packages-test-$$@.service.d
name=pkg-test-$$
mount_ns=pkg-test-$$
work=$(mktemp -d /tmp/libstriped-packages.XXXXXX)
TAP_DETAIL=$work/detail
started=$(date +%s)
pids=()
# Meson stops the test at 900 s, maybe before its trap purged: each long step
# has a limit of its own that leaves the trap its time. The build's catches a
# hang, not a slow build: at nice 10 beside other parts of scripts/test on a
# busy host it took over 200 s (the limit it had), most of it waiting.
build_limit=600

installed() { # PACKAGE: installed, or half of it
	dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | grep -qv '^un'
}

purge_ours() {
	local p ours=()
	for p in "${packages[@]}"; do
		installed "$p" && ours+=("$p")
	done
	((${#ours[@]})) || return 0
	DEBIAN_FRONTEND=noninteractive apt-get purge "${apt_opts[@]}" "${ours[@]}" >>"$work/purge.log" 2>&1 ||
		dpkg --purge "${ours[@]}" >>"$work/purge.log" 2>&1
}

# Whatever happened: the host's switch off, our packages gone, the cache rebuilt.
cleanup() {
	((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null
	mountpoint -q "$work/mnt" 2>/dev/null && { fusermount3 -u "$work/mnt" || fusermount3 -u -z "$work/mnt"; }
	rados -p "$pool" -N "$mount_ns" --striper rm f >/dev/null 2>&1
	if update-alternatives --query "$alt" >/dev/null 2>&1; then
		update-alternatives --quiet --auto "$alt"
	fi
	purge_ours
	rm -f "$unit_dir/libstriped-radosstriper.conf"
	rmdir "$unit_dir" 2>/dev/null
	ldconfig
	rados -p "$pool" --striper rm "$name" >/dev/null 2>&1
	rados -p "$pool" --striper rm "$name-rs" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# wait_for PID SECONDS: its exit status; killed (status 124) if it takes longer
wait_for() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$1" 2>/dev/null && kill -9 "$1" && { wait "$1"; return 124; }
	wait "$1"
}

timed_check() { # DESCRIPTION COMMAND...: check, and the time it took
	local t0=$SECONDS
	check "$@"
	echo "#   $((SECONDS - t0)) s"
}

# One test at a time on this host: two would install and purge under each other.
exec 9>/run/lock/libstriped-packages-test.lock
flock -w 240 9 || { echo "Bail out! another packages.sh holds /run/lock/libstriped-packages-test.lock"; exit 1; }

if installed libstriped0 || installed libstriped-radosstriper1 || installed python3-striped ||
	installed striped-tools || installed striped-mount || installed libstriped-dev; then
	echo "# our packages were installed before the test (a run killed before its trap?): purged"
	purge_ours
fi

# ---------------------------------------------------------------- build

build() {
	git clone -q --no-hardlinks "$src" "$work/src" &&
		cd "$work/src" &&
		DEB_BUILD_OPTIONS="parallel=$(nproc) nocheck noautodbgsym" timeout "$build_limit" \
			nice -n 10 dpkg-buildpackage -b -us -uc >"$work/build.log" 2>&1
	local status=$?
	cd /
	((status == 0)) || tail -n 40 "$work/build.log"
	return $status
}
timed_check "the packages build from a clean clone (dpkg-buildpackage -b, $(git -C "$src" rev-parse --short HEAD))" build
changes=$(ls "$work"/*.changes 2>/dev/null | head -n 1)
if [[ -z $changes ]]; then
	echo "Bail out! no packages were built"
	exit 1
fi
debs=()
for p in "${packages[@]}"; do
	debs+=("$(ls "$work/${p}"_*.deb)")
done
echo "# built in $(($(date +%s) - started)) s: $(cd "$work" && echo *.deb)"

# lintian reads the .debs only: it runs while they are installed and tried.
nice -n 10 lintian --fail-on error --tag-display-limit 0 "$changes" >"$work/lintian.log" 2>&1 &
lintian_pid=$!
pids+=("$lintian_pid")

# ---------------------------------------------------------------- install

stock_cache() { # the host's cache names Ceph's libradosstriper.so.1 and no other
	ldconfig -p | grep -F 'libradosstriper.so.1 ' &&
		! ldconfig -p | grep -F "$dropin_dir"
}
timed_check "before: the host loads Ceph's libradosstriper" stock_cache

install_all() {
	DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" --no-install-recommends \
		"${debs[@]}"
}
timed_check "install: apt-get install ./*.deb" install_all
for p in "${packages[@]}"; do
	dpkg -L "$p" >>"$work/files" 2>/dev/null
done

off_after_install() {
	update-alternatives --query "$alt" | grep -Fx "Value: $dropin_dir/ld.so.conf.d/system.conf" &&
		stock_cache
}
timed_check "installing switches nothing: the alternative in auto mode on 'system', the cache stock" \
	off_after_install

# ---------------------------------------------------------------- the demo's copy

ours_loaded() { # PROGRAM: the installed libstriped.so.0 is the one it gets
	local path
	path=$(ldd "$1" | awk '$1 == "libstriped.so.0" { print $3 }')
	echo "$1: libstriped.so.0 => $path"
	# /lib is /usr/lib on Debian 12 (merged /usr): the file, not the name
	[[ -n $path && $(readlink -f "$path") == "$(readlink -f "$libdir/libstriped.so.0")" &&
		$(readlink -f "$path") == "$libdir"/libstriped.so.0.* ]]
}
timed_check "striped-dd and striped get $libdir/libstriped.so.0" \
	eval 'ours_loaded /usr/bin/striped-dd && ours_loaded /usr/bin/striped && ours_loaded /usr/sbin/striped-mount'

head -c $((128 << 20)) /dev/urandom >"$work/in"
demo_copy() {
	timeout 120 /usr/bin/striped-dd if="$work/in" of="rados://$pool/$name" bs=64M oflag=direct &&
		timeout 120 /usr/bin/striped-dd if="rados://$pool/$name" of="$work/out" bs=4M iodepth=4 &&
		cmp "$work/in" "$work/out" &&
		/usr/bin/striped stat "rados://$pool/$name"
}
timed_check "the demo's copy with /usr/bin/striped-dd: 128 MiB in (bs=64M oflag=direct), out (bs=4M iodepth=4), identical" \
	demo_copy

# The mount: `striped mount` (bin) runs striped-mount (sbin) without sbin in
# PATH, as for a user; a namespace of the test's own, so the listing is short.
mnt=$work/mnt
mount_check() {
	mkdir -p "$mnt" &&
		env PATH=/usr/bin:/bin /usr/bin/striped -c "$CEPH_CONF" mount "rados://$pool/$mount_ns" "$mnt" ||
		return 1
	for _ in $(seq 100); do
		mountpoint -q "$mnt" && break
		sleep 0.1
	done
	grep -F " $mnt " /proc/mounts &&
		cp "$work/small" "$mnt/f" && ls -l "$mnt" && cmp "$work/small" "$mnt/f" &&
		/usr/bin/striped-dd if="rados://$pool/f" ns="$mount_ns" of="$work/f.out" bs=4M &&
		cmp "$work/small" "$work/f.out"
	local status=$?
	fusermount3 -u "$mnt" || status=1
	return $status
}
head -c $((9 << 20)) /dev/urandom >"$work/small"
if [[ -c /dev/fuse ]] && command -v fusermount3 >/dev/null; then
	timed_check "striped mount (/usr/bin) runs /usr/sbin/striped-mount: a file copied in, read back through striped-dd" \
		mount_check
else
	skip "striped mount: no /dev/fuse or fusermount3"
fi

# ---------------------------------------------------------------- rados --striper, switched on and off

# rados_put_get HOW WANT [ENV...]: `rados --striper put` of $work/small, started
# HOW (plain or in a namespace with $work/ld.so.cache as the cache), holding on
# its input (a fifo) until its maps were read: `striped dropin status` must say
# WANT ("drop-in" or "Ceph's") and the path; then get, compared.
rados_put_get() {
	local how=$1 want=$2 pid status
	shift 2
	rm -f "$work/fifo" "$work/small.out"
	mkfifo "$work/fifo"
	case $how in
	plain) env "$@" rados -p "$pool" --striper put "$name-rs" "$work/fifo" 2>"$work/rados.err" & ;;
	namespace)
		env "$@" unshare --mount --propagation private \
			sh -c 'mount --bind "$1" /etc/ld.so.cache && shift && exec "$@"' sh "$work/ld.so.cache" \
			rados -p "$pool" --striper put "$name-rs" "$work/fifo" 2>"$work/rados.err" &
		;;
	esac
	pid=$!
	pids+=("$pid")
	for _ in $(seq 100); do
		grep -q 'libradosstriper\.so\.1' "/proc/$pid/maps" 2>/dev/null && break
		sleep 0.1
	done
	/usr/bin/striped dropin status "$pid"
	grep -F 'libradosstriper.so.1' "/proc/$pid/maps" | awk '{ print $NF }' | sort -u >"$work/maps"
	echo "maps: $(cat "$work/maps")"
	case $want in
	drop-in) grep -qx "$dropin_dir/libradosstriper.so.1.*" "$work/maps" &&
		/usr/bin/striped dropin status "$pid" | grep -q "libstriped's drop-in" ;;
	stock) ! grep -q "$dropin_dir" "$work/maps" && grep -q "^$libdir/libradosstriper.so.1" "$work/maps" &&
		/usr/bin/striped dropin status "$pid" | grep -q "Ceph's libradosstriper" ;;
	esac
	status=$?
	# (a rados that failed before it opened its input leaves the fifo without a reader)
	timeout 60 sh -c 'cat "$1" >"$2"' sh "$work/small" "$work/fifo"
	wait_for "$pid" 60
	local put=$?
	# Stock libradosstriper of Ceph 16.2 may abort as rados exits, its work done.
	[[ $want == stock ]] && stock_crashed_at_exit $put "$work/rados.err" && put=0
	cat "$work/rados.err"
	((status == 0 && put == 0)) || return 1
	# the get as the put: in the namespace, the switched cache's library too
	case $how in
	plain) env "$@" timeout 60 rados -p "$pool" --striper get "$name-rs" "$work/small.out" ;;
	namespace)
		env "$@" timeout 60 unshare --mount --propagation private \
			sh -c 'mount --bind "$1" /etc/ld.so.cache && shift && exec "$@"' sh "$work/ld.so.cache" \
			rados -p "$pool" --striper get "$name-rs" "$work/small.out"
		;;
	esac 2>"$work/rados.err"
	put=$?
	[[ $want == stock ]] && stock_crashed_at_exit $put "$work/rados.err" && put=0
	cat "$work/rados.err"
	((put == 0)) && cmp "$work/small" "$work/small.out"
}
timed_check "switched off: rados --striper put/get on Ceph's libradosstriper ($libdir)" rados_put_get plain stock

# The host (doc/dropin.md): update-alternatives --set, then ldconfig; here ldconfig
# writes the test's own copy of the cache, and the alternative goes back at once.
host_cache() {
	update-alternatives --set "$alt" "$dropin_dir/ld.so.conf.d/libstriped.conf" &&
		readlink -f "$alt_link" | grep -Fx "$dropin_dir/ld.so.conf.d/libstriped.conf" &&
		ldconfig -X -C "$work/ld.so.cache"
	local status=$?
	update-alternatives --quiet --auto "$alt"
	return $status
}
timed_check "switched on for the host: update-alternatives --set $alt .../libstriped.conf; ldconfig" host_cache
timed_check "switched on for the host: rados --striper put/get on the drop-in ($dropin_dir)" \
	rados_put_get namespace drop-in

# One service (doc/dropin.md): its UNIT.d links the package's systemd drop-in,
# whose Environment= this host's rados gets as systemd would give it.
service_on() {
	mkdir -p "$unit_dir" &&
		ln -s "$dropin_dir/systemd/libstriped-radosstriper.conf" "$unit_dir/" &&
		grep -E "^Environment=LD_LIBRARY_PATH=$dropin_dir\$" "$unit_dir/libstriped-radosstriper.conf"
}
timed_check "switched on for a service: $unit_dir/libstriped-radosstriper.conf" service_on
unit_env=$(sed -n 's/^Environment=//p' "$unit_dir/libstriped-radosstriper.conf")
timed_check "switched on for a service: rados --striper put/get on the drop-in" \
	rados_put_get plain drop-in "$unit_env"

host_off() {
	update-alternatives --auto "$alt" && ldconfig && stock_cache
}
timed_check "switched off for the host: update-alternatives --auto $alt; ldconfig" host_off
timed_check "switched off: rados --striper put/get on Ceph's libradosstriper again" rados_put_get plain stock

# ---------------------------------------------------------------- Python

python_import() (
	cd / && env -i PATH=/usr/bin:/bin CEPH_CONF="$CEPH_CONF" /usr/bin/python3 - "$pool" "$name" "$work/in" <<'PY'
import sys
import striped
assert striped.__file__ == "/usr/lib/python3/dist-packages/striped/__init__.py", striped.__file__
pool, name, local = sys.argv[1:]
with striped.connect() as cluster, cluster.pool(pool) as p, p.open(name, "rb") as f:
    got = f.read(1 << 20)
with open(local, "rb") as f:
    assert got == f.read(1 << 20), "the first MiB differs"
print(striped.__file__, striped.__version__)
PY
)
timed_check "import striped from /usr/bin/python3 (dist-packages), the demo's file read back" python_import

lint() {
	wait "$lintian_pid"
	local status=$?
	cat "$work/lintian.log"
	return $status
}
timed_check "lintian: no errors" lint
grep -E '^(E|W): ' "$work/lintian.log" | sed 's/^/# lintian: /'

# ---------------------------------------------------------------- purge

# Removing the package switches back whatever was switched on: the host's
# alternative is set once more, the service's link is still there.
update-alternatives --quiet --set "$alt" "$dropin_dir/ld.so.conf.d/libstriped.conf"
purge() {
	DEBIAN_FRONTEND=noninteractive apt-get purge "${apt_opts[@]}" "${packages[@]}"
}
timed_check "purge: apt-get purge ${packages[*]}" purge

nothing_left() {
	local p f left=0
	for p in "${packages[@]}"; do
		installed "$p" && echo "still installed: $p" && left=1
	done
	while read -r f; do
		# the directories our packages share with others (/usr/lib/...) stay
		[[ -d $f && ${f##*/} != *striped* ]] && continue
		[[ -e $f || -L $f ]] && echo "left: $f" && left=1
	done <"$work/files"
	for f in /var/lib/dpkg/alternatives/"$alt" "$alt_link" "$unit_dir" "$dropin_dir" \
		/usr/lib/python3/dist-packages/striped; do
		[[ -e $f || -L $f ]] && echo "left: $f" && left=1
	done
	update-alternatives --query "$alt" >/dev/null 2>&1 && echo "left: the alternative $alt" && left=1
	ldconfig -p | grep -E "$libdir/libstriped|$dropin_dir" && left=1
	((left == 0)) && stock_cache
}
timed_check "purged: no file, alternative, ld.so.conf.d link, systemd link or cache entry of ours left" \
	nothing_left

echo "# $(($(date +%s) - started)) s"
tap_done
