#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The drop-in exports exactly libradosstriper's public API: its dynamic
symbols are the reference list (compat/libradosstriper.symbols), unversioned
as stock's, its soname is libradosstriper.so.1; and stock libradosstriper,
when installed, exports every symbol of the list (so the list is still
stock's public API), and nothing public beyond it.

usage: check-symbols.py DROPIN.so REFERENCE [STOCK.so]
"""
import importlib.util
import os
import re
import sys

PUBLIC = re.compile(r"^(rados_striper_\w+|_ZN15libradosstriper(12RadosStriper|"
                    r"18MultiAioCompletion)\w+)$")
# Not libradosstriper's API, but stock exports it and Debian's rados binds to it there.
CLS_LOCK = re.compile(r"^_ZN5rados3cls4lock")


def check_abi():
    """tests/static/check-abi.py, whose exported() and soname() read a library the same way."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "static", "check-abi.py")
    spec = importlib.util.spec_from_file_location("check_abi", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    dropin, reference = sys.argv[1], sys.argv[2]
    want = {l.strip() for l in open(reference) if l.strip() and not l.startswith("#")}
    abi = check_abi()
    exported, soname = abi.exported, abi.soname
    tests = []
    ours = exported(dropin)
    tests.append((set(ours) == want, "the drop-in exports exactly the %d symbols of the list "
                  "(missing: %s; extra: %s)" % (len(want), sorted(want - set(ours))[:5],
                                                sorted(set(ours) - want)[:5])))
    tests.append((all(not v for v in ours.values()), "unversioned, as stock's"))
    tests.append((soname(dropin) == "libradosstriper.so.1", "soname libradosstriper.so.1"))
    stock = sys.argv[3] if len(sys.argv) == 4 else ""
    if stock and os.path.exists(stock):
        stock_syms = exported(stock)
        theirs = {s for s in stock_syms if PUBLIC.match(s)}
        theirs |= {s for s in want if CLS_LOCK.match(s) and s in stock_syms}
        tests.append((theirs == want, "stock %s's public symbols are the list (missing: %s; "
                      "extra: %s)" % (stock, sorted(want - theirs)[:5], sorted(theirs - want)[:5])))
    else:
        tests.append((True, "# SKIP stock libradosstriper not installed"))
    failed = 0
    for i, (ok, what) in enumerate(tests, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, what))
        failed += not ok
    print("1..%d" % len(tests))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
