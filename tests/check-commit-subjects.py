#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every commit subject since scripts/commit-msg came in is at most 72 characters.

The rule is scripts/commit-msg's (each message goes through it); the base is
the commit that added that file, found in the history rather than named, so
history before it is not judged and a rebase keeps the base. A commit made
before the base but merged after it (an older branch) is judged too when its
commit date is later than the base's; one committed earlier is left alone.
Skips (exit 77) outside a git checkout, or in a clone too shallow to hold
the base.

usage: check-commit-subjects.py SOURCE-ROOT
"""
import os
import subprocess
import sys
import tempfile

HOOK = "scripts/commit-msg"


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True,
                          check=True).stdout


def main(argv):
    root = argv[1]
    try:
        git(root, "rev-parse", "--is-inside-work-tree")
    except (OSError, subprocess.CalledProcessError):
        print("check-commit-subjects: SKIP: %s is not a git checkout" % root)
        return 77
    base = git(root, "log", "--diff-filter=A", "--format=%H %ct", "--", HOOK).split()
    if not base:
        print("check-commit-subjects: SKIP: no commit adds %s here (shallow clone?)" % HOOK)
        return 77
    base, base_time = base[-2], int(base[-1])  # the oldest commit that added it
    log = (git(root, "log", "-z", "--format=%H %ct%n%B", "-1", base) + "\0" +
           git(root, "log", "-z", "--format=%H %ct%n%B", base + "..HEAD"))
    hook = os.path.join(root, HOOK)
    bad = checked = 0
    with tempfile.NamedTemporaryFile("w+", encoding="utf-8") as msg:
        for entry in filter(None, log.split("\0")):
            head, _, body = entry.partition("\n")
            sha, ctime = head.split()
            if int(ctime) < base_time:
                continue
            msg.seek(0)
            msg.truncate()
            msg.write(body)
            msg.flush()
            r = subprocess.run([sys.executable, hook, msg.name], capture_output=True, text=True)
            checked += 1
            if r.returncode:
                bad += 1
                print("%s: %s" % (sha[:12], r.stderr.strip()))
    print("check-commit-subjects: %d commits since %s, %d with a subject over 72 characters"
          % (checked, base[:12], bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
