#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""feed.py STEP...: what a test pipes into a reader (striped-dd or GNU dd),
in steps that wait for the reader rather than for time, so that the reader's
reads end where the test means them to on a busy host as on an idle one.
Standard output is the pipe (or FIFO) the reader reads.

  TEXT        write TEXT once the reader took every byte written before it
              (the pipe is empty): no read can join them ('' only waits)
  +N          the same with N bytes of zeros
  @SECONDS    sleep (for what is about time itself: a progress line)
  =FILE:SIZE  wait until FILE holds SIZE bytes or more
  ?FILE:N:RE  wait until N lines of FILE match RE ('\\r' ends a line too)

A wait gives up after 60 s (exit 1, one line on stderr): it guards against
a hang, it is not what the test is about. A reader that is gone ends the
feed (exit 0).
"""
import array
import fcntl
import os
import re
import select
import sys
import termios
import time

LIMIT = 60.0


def give_up(what):
    sys.stderr.write("feed.py: %s after %.0f s\n" % (what, LIMIT))
    sys.exit(1)


def wait_for(done, what):
    end = time.monotonic() + LIMIT
    while not done():
        if time.monotonic() > end:
            give_up(what)
        time.sleep(0.005)


def drained():
    """Wait until the pipe is empty; False when its reader is gone."""
    poll = select.poll()
    poll.register(1, select.POLLOUT)
    left = array.array("i", [0])
    end = time.monotonic() + LIMIT
    while True:
        fcntl.ioctl(1, termios.FIONREAD, left)
        if left[0] == 0:
            return True
        if any(ev & select.POLLERR for _, ev in poll.poll(0)):
            return False
        if time.monotonic() > end:
            give_up("the reader took nothing")
        time.sleep(0.002)


def write(data):
    if not drained():
        sys.exit(0)
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(1, view):]
    except BrokenPipeError:
        sys.exit(0)


def lines(path, pattern):
    try:
        with open(path, "rb") as f:
            text = f.read().decode(errors="replace").replace("\r", "\n")
    except FileNotFoundError:
        return 0
    return sum(1 for line in text.split("\n") if re.search(pattern, line))


def size(path):
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0


def main(steps):
    for step in steps:
        if step.startswith("+"):
            write(bytes(int(step[1:])))
        elif step.startswith("@"):
            time.sleep(float(step[1:]))
        elif step.startswith("="):
            path, want = step[1:].rsplit(":", 1)
            wait_for(lambda: size(path) >= int(want), "%s still under %s bytes" % (path, want))
        elif step.startswith("?"):
            path, n, pattern = step[1:].split(":", 2)
            wait_for(lambda: lines(path, pattern) >= int(n),
                     "%s: fewer than %s lines matching %s" % (path, n, pattern))
        else:
            write(step.encode())


if __name__ == "__main__":
    main(sys.argv[1:])
