#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# posix.sh STRIPED_MOUNT: what POSIX asks and the mount does since issue 54
# (posix.py): shared mappings, S_ISUID cleared at another user's write, a
# file unlinked while open, atime, st_ino that lasts, a directory's links;
# on two mounts of one namespace, the first with allow_other (a write by
# nobody). TAP.
set -uo pipefail
STRIPED_MOUNT=${1:?usage: posix.sh STRIPED_MOUNT}
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=mount-lib.sh
source "$here/mount-lib.sh"
need_cluster tap posix.sh
need_fuse

work=$(mktemp -d)
chmod 755 "$work" # nobody walks to the mount
trap mnt_cleanup EXIT
ns=mnt-posix-$$
fail() { bail "$*" "$work"/*.log; }
((EUID == 0)) || fail "needs root (a write as nobody, the kernel's caches dropped)"
/usr/bin/python3 -c 'import numpy' 2>/dev/null || fail "needs Debian's python3-numpy"
mnt_start "$work/a" "$ns" allow_other,file_mode=0666 || fail "mount a"
mnt_start "$work/b" "$ns" || fail "mount b"
/usr/bin/python3 "$here/posix.py" "$work/a" "$work/b"
