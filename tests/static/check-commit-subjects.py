#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every commit subject since scripts/commit-msg came in is at most 72 characters.

The rule is scripts/commit-msg's (its subject() and MAX, loaded from it); the base is
the commit that added that file, found in the history rather than named, so
history before it is not judged and a rebase keeps the base. A commit made
before the base but merged after it (an older branch) is judged too when its
commit date is later than the base's; one committed earlier is left alone.
Skips (exit 77) outside a git checkout, or in a clone too shallow to hold
the base.

usage: check-commit-subjects.py SOURCE-ROOT
"""
import importlib.machinery
import importlib.util
import os
import subprocess
import sys

HOOK = "scripts/commit-msg"


def git(root, *args):
    return subprocess.run(["git", "-c", "safe.directory=*", "-C", root, *args],
                          capture_output=True, text=True, check=True).stdout


def load_hook(path):
    """scripts/commit-msg as a module (it has no .py suffix)."""
    loader = importlib.machinery.SourceFileLoader("commit_msg", path)
    spec = importlib.util.spec_from_loader("commit_msg", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


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
    hook = load_hook(os.path.join(root, HOOK))
    bad = checked = 0
    for entry in filter(None, log.split("\0")):
        head, _, body = entry.partition("\n")
        sha, ctime = head.split()
        if int(ctime) < base_time:
            continue
        checked += 1
        s = hook.subject(body)
        if len(s) > hook.MAX:
            bad += 1
            print("%s: the subject is %d characters, at most %d: %s" % (sha[:12], len(s),
                                                                        hook.MAX, s))
    print("check-commit-subjects: %d commits since %s, %d with a subject over 72 characters"
          % (checked, base[:12], bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
