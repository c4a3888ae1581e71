#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""meson's entry to the Python tests: run.py unit|cluster [PYTEST-ARGS...].

"cluster" runs the tests marked cluster and exits 77 (meson's skip) when no
sandbox cluster is given (CEPH_CONF unset); "unit" runs the others.
"""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv):
    """Run one half of the tests; pytest's exit status (77 for no cluster)."""
    if len(argv) < 1 or argv[0] not in ("unit", "cluster"):
        print("usage: run.py unit|cluster [PYTEST-ARGS...]", file=sys.stderr)
        return 2
    which, extra = argv[0], argv[1:]
    if which == "cluster" and not os.environ.get("CEPH_CONF"):
        print("SKIP: no cluster (CEPH_CONF unset; eval \"$(scripts/cluster start)\")")
        return 77
    marker = "cluster" if which == "cluster" else "not cluster"
    return int(pytest.main([HERE, "-m", marker, "-v", "-rs", "-p", "no:cacheprovider",
                            "--durations=5"] + extra))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
