#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The checker on small hand-made histories: ones it must pass, and ones it
must flag (each rule at least once). Times are in ms; lives are 0xA, 0xB."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checker  # noqa: E402

MS = 1_000_000
A, B = 0xA, 0xB


class H:
    """A history under construction: ops of clients, faults, deaths."""

    def __init__(self):
        self.recs = []
        self.events = []
        self.n = {}

    def op(self, c, kind, t0, t1, r, life=A, mode="sync", h=None, i=0, **args):
        n = self.n.get((c, i), 0) + 1
        self.n[(c, i)] = n
        b = {"ev": "B", "c": c, "i": i, "n": n, "k": kind, "m": mode, "f": 0, "t": t0 * MS}
        if h is not None:
            b["h"] = h
        for k in ("off", "len", "size", "val"):
            if k in args and kind != "stat":
                b[k] = args[k]
        if kind == "stat":
            b.pop("size", None)
        self.recs.append(b)
        if t1 is not None:
            e = {"ev": "E", "c": c, "i": i, "n": n, "t": t1 * MS, "r": r,
                 "L": [] if life is None else [life]}
            if "segs" in args:
                e["segs"] = args["segs"]
            if kind == "stat":
                e["size"] = args["size"]
            if kind == "getx" and r >= 0:
                e["val"] = args["val"]
            self.recs.append(e)
        return (c, i, n)

    def write(self, c, t0, t1, off, ln, r=None, **kw):
        return self.op(c, "write", t0, t1, ln if r is None else r, off=off, len=ln, **kw)

    def read(self, c, t0, t1, off, ln, segs, r=None, **kw):
        got = sum(s[1] for s in segs) * 64
        return self.op(c, "read", t0, t1, got if r is None else r, off=off, len=ln, segs=segs,
                       **kw)

    def ec_file(self, su=65536, sc=1, os=65536, align=8192):
        """File 0 on a pool that takes only aligned appends (as a client logs it)."""
        self.recs.append({"ev": "X", "c": 0, "i": 0, "t": 0, "what": "file", "f": 0,
                          "pool": "p_ec", "su": su, "sc": sc, "os": os, "align": align,
                          "appends_only": 1})
        return self

    def check(self):
        return checker.check(self.recs, self.events, {"t_start": 0})

    def rules(self):
        return sorted(v.rule for v in self.check().violations)


def units(off, n, src, idx=None, flags=0):
    c, i, op = src
    return [off, n, c, i, op, off if idx is None else idx, flags]


def zeros(off, n):
    return [off, n, "Z"]


class Passes(unittest.TestCase):
    def test_read_after_write(self):
        h = H()
        w = h.write(1, 0, 10, 0, 640)
        h.read(2, 20, 30, 0, 640, [units(0, 10, w)])
        self.assertEqual(h.rules(), [])

    def test_concurrent_either(self):
        h = H()
        w1 = h.write(1, 0, 10, 0, 640)
        w2 = h.write(2, 15, 40, 0, 640)
        h.read(3, 20, 30, 0, 640, [units(0, 10, w1)])
        h.read(3, 31, 35, 0, 640, [units(0, 10, w2)])
        self.assertEqual(h.rules(), [])

    def test_failed_write_partly(self):
        h = H()
        w1 = h.write(1, 0, 10, 0, 640)
        w2 = h.write(2, 15, 20, 0, 640, r=-5)
        h.read(3, 30, 40, 0, 640, [units(0, 5, w2), units(320, 5, w1)])
        self.assertEqual(h.rules(), [])

    def test_zeros_never_written(self):
        h = H()
        h.write(1, 0, 10, 640, 64)
        h.read(3, 30, 40, 0, 704, [zeros(0, 10), units(640, 1, (1, 0, 1))])
        self.assertEqual(h.rules(), [])

    def test_truncate_down_up(self):
        h = H()
        w = h.write(1, 0, 10, 0, 640)
        h.op(2, "trunc", 20, 30, 0, size=0)
        h.op(2, "trunc", 40, 50, 0, size=640)
        h.read(3, 60, 70, 0, 640, [zeros(0, 10)])
        h.op(3, "stat", 71, 72, 0, size=640)
        self.assertEqual(h.rules(), [])
        self.assertTrue(w)

    def test_buffered_until_flush(self):
        h = H()
        h.op(1, "open", 0, 1, 0, mode="buf", h=1)
        w = h.write(1, 2, 3, 0, 640, mode="buf", h=1)
        h.read(2, 5, 6, 0, 640, [zeros(0, 10)])  # not flushed yet: zeros are fine
        h.op(1, "flush", 10, 20, 0, mode="buf", h=1)
        h.read(2, 25, 26, 0, 640, [units(0, 10, w)])
        self.assertEqual(h.rules(), [])

    def test_buffered_flush_failed_may_lose(self):
        h = H()
        h.op(1, "open", 0, 1, 0, mode="buf", h=1)
        h.write(1, 2, 3, 0, 640, mode="buf", h=1)
        h.op(1, "flush", 10, 20, -108, mode="buf", h=1)
        h.read(2, 25, 26, 0, 640, [zeros(0, 10)])
        self.assertEqual(h.rules(), [])

    def test_killed_in_flight(self):
        h = H()
        h.write(1, 0, None, 0, 640)
        h.events.append({"ev": "P", "what": "death", "c": 1, "i": 0, "t": 5 * MS})
        h.read(2, 6, 7, 0, 640, [units(0, 5, (1, 0, 1)), zeros(320, 5)])
        self.assertEqual(h.rules(), [])

    def test_append_placed(self):
        h = H()
        a = h.op(1, "append", 0, 10, 128, len=128)
        h.read(2, 20, 30, 0, 640, [units(0, 2, a, idx=0, flags=1)], r=128)
        h.op(2, "stat", 31, 32, 0, size=128)
        self.assertEqual(h.rules(), [])

    def test_append_claimed_before_truncate(self):
        # the claim read the old size, the truncate came, then the data and its size
        h = H()
        h.write(1, 0, 10, 0, 6400)
        h.op(2, "append", 20, 60, 64, len=64)
        h.op(2, "trunc", 21, 50, 0, size=640)
        h.op(3, "stat", 70, 71, 0, size=6464)
        self.assertEqual(h.rules(), [])

    def test_xattr(self):
        h = H()
        h.op(1, "setx", 0, 10, 0, val="1.0.1")
        h.op(2, "getx", 20, 30, 5, val="1.0.1")
        h.op(1, "rmx", 40, 50, 0)
        h.op(2, "getx", 60, 70, -61)
        self.assertEqual(h.rules(), [])

    @staticmethod
    def window_sent_twice(flush_r):
        """A buffered aio handle's truncate and flush in flight together, both sending the
        window its write is in; the flush returns flush_r; then zeros are read there."""
        h = H()
        h.op(1, "open", 0, 1, 0, mode="bufaio", h=1)
        h.write(1, 2, 3, 0, 640, mode="bufaio", h=1)
        h.op(1, "trunc", 10, 30, 0, mode="bufaio", h=1, size=6400)
        h.op(1, "flush", 11, 12, flush_r, mode="bufaio", h=1)
        h.read(2, 40, 41, 0, 640, [zeros(0, 10)])
        h.read(1, 42, 43, 0, 640, [zeros(0, 10)], mode="bufaio", h=1)
        return h.rules()

    def test_window_error_reported_by_either(self):
        # one report of a write-behind error: the flush got it, the truncate returns 0
        self.assertEqual(self.window_sent_twice(-95), [])

    def test_buffered_reader_may_be_stale(self):
        h = H()
        w1 = h.write(1, 0, 10, 0, 640)
        h.op(2, "open", 11, 12, 0, mode="buf", h=1)
        h.write(1, 20, 30, 0, 640)
        h.read(2, 40, 41, 0, 640, [units(0, 10, w1)], mode="buf", h=1)  # read ahead before
        self.assertEqual(h.rules(), [])


KIB = 1024
EOPNOTSUPP = -95


def ec_history():
    """An append-only file emptied (exact object ends from here), then 16 KiB written."""
    h = H().ec_file()
    h.op(1, "trunc", 0, 10, 0, size=0)
    w = h.write(1, 20, 30, 0, 16 * KIB)
    return h, w


class PassesOnAppendOnlyPools(unittest.TestCase):
    def test_refusals_the_pool_makes(self):
        h, w = ec_history()
        h.write(1, 40, 41, 0, 8 * KIB, r=EOPNOTSUPP)  # an overwrite
        h.write(1, 42, 43, 16 * KIB + 64, 8 * KIB, r=EOPNOTSUPP)  # no multiple of 8 KiB
        h.op(1, "trunc", 44, 45, EOPNOTSUPP, size=100)  # cuts object 0
        h.op(1, "discard", 46, 47, EOPNOTSUPP, off=0, len=64 * KIB)  # the head
        h.read(2, 50, 60, 0, 16 * KIB, [units(0, 256, w)])
        h.op(2, "stat", 61, 62, 0, size=16 * KIB)
        res = h.check()
        self.assertEqual([v.rule for v in res.violations], [])
        self.assertEqual(res.checked["ec-judged"], 5)

    def test_whole_objects_past_the_end_taken(self):
        h, w = ec_history()
        h.write(1, 40, 41, 128 * KIB, 8 * KIB)  # object 2 from its end (0): taken
        h.write(1, 42, 43, 16 * KIB, 8 * KIB)  # at object 0's end
        h.op(1, "discard", 44, 45, 0, off=64 * KIB, len=64 * KIB)  # whole object 1
        h.op(1, "trunc", 46, 47, 0, size=64 * KIB)  # removes object 2 whole
        self.assertEqual(h.rules(), [])

    def test_writes_of_one_handle_in_flight_taken_in_order(self):
        h = H().ec_file()
        h.op(1, "trunc", 0, 10, 0, size=0, h=1, mode="aio")
        for k in range(3):
            h.op(1, "write", 20 + k, 40, 8 * KIB, off=8 * KIB * k, len=8 * KIB, h=1, mode="aio")
        res = h.check()
        self.assertEqual([v.rule for v in res.violations], [])
        self.assertEqual(res.checked["ec-judged"], 3)

    def test_refusal_beside_another_change_may_land_in_part(self):
        # another client's write in flight with it: the pool refused part of it
        h, w = ec_history()
        w2 = h.write(2, 40, 60, 16 * KIB, 8 * KIB)
        r = h.write(3, 45, 55, 16 * KIB, 16 * KIB, r=EOPNOTSUPP)
        h.read(4, 70, 80, 16 * KIB, 16 * KIB, [units(16 * KIB, 128, w2),
                                               units(24 * KIB, 128, r)])
        self.assertEqual(h.rules(), [])

    def test_write_full_empties_first(self):
        # write_full there empties the file, then writes it: a stat may see 0 meanwhile
        h, w = ec_history()
        h.op(2, "wfull", 40, 60, 0, len=8 * KIB)
        h.op(3, "stat", 45, 46, 0, size=0)
        self.assertEqual(h.rules(), [])


def known_only(h):
    """(rule, known issue) of each violation, None for those of no known issue."""
    res = h.check()
    return [(v.rule, v.known) for v in res.violations + res.known]


class FlagsOnAppendOnlyPools(unittest.TestCase):
    def test_refused_write_landed(self):
        h, w = ec_history()
        r = h.write(1, 40, 41, 0, 8 * KIB, r=EOPNOTSUPP)
        h.read(2, 50, 60, 0, 8 * KIB, [units(0, 128, r)])
        self.assertEqual(h.rules(), ["refused-effect"])

    def test_refused_append_moved_the_size(self):
        # a short write ended the file's appends; the append's claim still moved the size:
        # K4, fixed in lib/ (the claim is checked first): a violation again
        h, w = ec_history()
        h.write(1, 35, 36, 16 * KIB, 64)
        h.op(1, "append", 40, 41, EOPNOTSUPP, len=8 * KIB)
        h.op(2, "stat", 50, 51, 0, size=24 * KIB + 64)
        self.assertEqual(known_only(h), [("refused-effect", None)])

    def test_refused_write_sized_beside_a_refused_append(self):
        # the append's claim may explain 24 KiB and 64 bytes (K4), not 40 KiB: the write
        h, w = ec_history()
        h.write(1, 35, 36, 16 * KIB, 64)
        h.op(1, "append", 40, 41, EOPNOTSUPP, len=8 * KIB)
        h.write(1, 42, 43, 32 * KIB, 8 * KIB, r=EOPNOTSUPP)
        h.op(2, "stat", 50, 51, 0, size=40 * KIB)
        res = h.check()
        self.assertEqual([(v.rule, v.ops[1][1].kind) for v in res.violations],
                         [("refused-effect", "write")])

    def test_append_refused_on_a_stale_size(self):
        # K5, fixed in lib/ (checked under the lease): its handle last knew an unaligned
        # size; another client emptied the file and wrote whole stripes; the append was
        # refused on the old size, before the handle took its lock back: a violation again
        h = H().ec_file()
        h.op(1, "open", 0, 1, 0, h=1)
        h.op(1, "wfull", 2, 3, 0, len=30976, h=1)
        h.op(2, "trunc", 10, 20, 0, size=0)
        h.write(2, 21, 22, 0, 16 * KIB)
        h.op(1, "append", 30, 31, EOPNOTSUPP, len=8 * KIB, h=1)
        self.assertEqual(known_only(h), [("wrongly-refused", None)])

    def test_refused_append_landed(self):
        # its data landed, and the size it shows is its claim (K4, fixed): both violations
        h, w = ec_history()
        h.write(1, 35, 36, 16 * KIB, 64)
        a = h.op(1, "append", 40, 41, EOPNOTSUPP, len=8 * KIB)
        h.read(2, 50, 51, 16 * KIB + 64, 64, [units(16 * KIB + 64, 1, a, idx=0, flags=1)])
        res = h.check()
        self.assertEqual([(v.rule, v.ops[1][0]) for v in res.violations],
                         [("refused-effect", "refused"), ("refused-effect", "would have set")])
        self.assertEqual(res.known, [])

    def test_refused_truncate_cut(self):
        h, w = ec_history()
        h.op(1, "trunc", 40, 41, EOPNOTSUPP, size=8 * KIB)
        h.op(2, "stat", 50, 51, 0, size=8 * KIB)
        self.assertEqual(h.rules(), ["refused-effect"])

    def test_write_at_the_end_refused(self):
        h, w = ec_history()
        h.write(1, 40, 41, 16 * KIB, 8 * KIB, r=EOPNOTSUPP)
        self.assertEqual(h.rules(), ["wrongly-refused"])

    def test_append_and_whole_object_discard_refused(self):
        h, w = ec_history()
        h.op(1, "discard", 40, 41, EOPNOTSUPP, off=64 * KIB, len=128 * KIB)
        h.op(1, "append", 42, 43, EOPNOTSUPP, len=8 * KIB)
        # not judged after a refused append (K4: it may have moved the size)
        h.write(1, 44, 45, 16 * KIB, 8 * KIB, r=EOPNOTSUPP)
        self.assertEqual(h.rules(), ["wrongly-refused", "wrongly-refused"])

    def test_overwrite_taken(self):
        h, w = ec_history()
        h.write(1, 40, 41, 0, 8 * KIB)
        self.assertEqual(h.rules(), ["untakeable"])


class Flags(unittest.TestCase):
    def test_stale_overwritten(self):
        h = H()
        w1 = h.write(1, 0, 10, 0, 640)
        h.write(2, 20, 30, 0, 640)
        h.read(3, 40, 50, 0, 640, [units(0, 10, w1)])
        self.assertEqual(h.rules(), ["stale"])

    def test_lost_write_reads_zeros(self):
        h = H()
        h.write(1, 0, 10, 0, 640)
        h.read(3, 40, 50, 0, 640, [zeros(0, 10)])
        self.assertEqual(h.rules(), ["lost"])

    def test_truncate_left_stale_bytes(self):
        h = H()
        w = h.write(1, 0, 10, 0, 640)
        h.op(2, "trunc", 20, 30, 0, size=0)
        h.op(2, "trunc", 40, 50, 0, size=640)
        h.read(3, 60, 70, 0, 640, [units(0, 10, w)])
        self.assertEqual(h.rules(), ["stale"])

    def test_earlier_life(self):
        h = H()
        w = h.write(1, 0, 10, 0, 640, life=A)
        h.op(2, "remove", 20, 30, 0, life=A)
        h.write(2, 40, 50, 640, 64, life=B)
        h.read(3, 60, 70, 0, 704, [units(0, 10, w), units(640, 1, (2, 0, 2))], life=B)
        self.assertEqual(h.rules(), ["earlier-life"])

    def test_garbage_and_unknown(self):
        h = H()
        h.read(3, 60, 70, 0, 128, [[0, 1, "G", "00ff"], [64, 1, 9, 0, 9, 64, 0]])
        self.assertEqual(h.rules(), ["garbage", "size", "unknown-writer"])  # nothing written

    def test_misplaced(self):
        h = H()
        w = h.write(1, 0, 10, 0, 640)
        h.read(3, 60, 70, 640, 640, [units(640, 10, w, idx=0)])
        self.assertEqual(h.rules(), ["misplaced", "size"])

    def test_future(self):
        h = H()
        h.read(3, 0, 10, 0, 640, [units(0, 10, (1, 0, 1))])
        h.write(1, 20, 30, 0, 640)
        self.assertEqual(h.rules(), ["future", "size"])

    def test_buffered_error_dropped(self):
        # the flush said 0, yet the write never landed: an error dropped
        h = H()
        h.op(1, "open", 0, 1, 0, mode="buf", h=1)
        h.write(1, 2, 3, 0, 640, mode="buf", h=1)
        h.op(1, "flush", 10, 20, 0, mode="buf", h=1)
        h.read(2, 25, 26, 0, 640, [zeros(0, 10)])
        self.assertEqual(h.rules(), ["lost"])

    def test_window_sent_twice_lost(self):
        # the same, both said 0: the write was acknowledged, and lost
        self.assertEqual(Passes.window_sent_twice(0), ["lost"])

    def test_buffered_own_write_visible(self):
        h = H()
        h.op(1, "open", 0, 1, 0, mode="buf", h=1)
        w0 = h.write(2, 2, 3, 0, 640)
        h.write(1, 4, 5, 0, 640, mode="buf", h=1)
        h.read(1, 6, 7, 0, 640, [units(0, 10, w0)], mode="buf", h=1)
        self.assertEqual(h.rules(), ["stale"])

    def test_buffered_window_after_truncate(self):
        # acknowledged into the window before the truncate began: it must land
        # before it (sent when asked) or never; here it shows after it
        h = H()
        h.op(1, "open", 0, 1, 0, mode="buf", h=1)
        w = h.write(1, 2, 3, 0, 640, mode="buf", h=1)
        h.op(2, "trunc", 10, 20, 0, size=0)
        h.op(2, "trunc", 21, 22, 0, size=640)
        h.op(1, "flush", 30, 40, 0, mode="buf", h=1)
        h.read(3, 50, 60, 0, 640, [units(0, 10, w)])
        self.assertEqual(h.rules(), ["stale"])

    @staticmethod
    def cut_off(pause, w_t0, w_r, held, kind="partition"):
        """Client 1's write (begun at w_t0, result w_r) in flight while it is paused
        (pause: from 5 ms, or not at all), client 2 truncates down and up meanwhile,
        client 3 then reads the write's bytes. held: a call of its handle had just
        succeeded (so it held the lock)."""
        h = H()
        h.op(1, "open", 0, 1, 0, h=1)
        if held:
            h.op(1, "stat", w_t0 - 2, w_t0 - 1, 0, h=1, size=0)
        w = h.write(1, w_t0, 9000, 0, 640, r=w_r, h=1)
        if pause:
            h.events.append({"ev": "F", "kind": kind, "c": 1, "i": 0, "t0": (w_t0 + 1) * MS,
                             "t1": 8000 * MS})
        h.op(2, "trunc", 3000, 4000, 0, size=0)
        h.op(2, "trunc", 4001, 4002, 0, size=640)
        h.read(3, 9500, 9600, 0, 640, [units(0, 10, w)])
        return h.rules()

    def test_window_during_own_truncate(self):
        # K2 (fixed): a buffered write acknowledged while its own handle's aio
        # truncate ran shows after another client's later truncate: a violation
        h = H()
        h.op(1, "open", 0, 1, 0, mode="bufaio", h=1)
        h.op(1, "trunc", 2, 30, 0, mode="bufaio", h=1, size=6400)
        w = h.write(1, 3, 4, 0, 640, mode="bufaio", h=1)
        h.op(2, "trunc", 10, 20, 0, size=0)
        h.op(2, "trunc", 21, 22, 0, size=640)
        h.op(1, "flush", 40, 50, 0, mode="bufaio", h=1)
        h.read(3, 60, 70, 0, 640, [units(0, 10, w)])
        res = h.check()
        self.assertEqual(res.known, [])
        self.assertEqual([v.rule for v in res.violations], ["stale"])

    def test_fenced_write_lands_after_break(self):
        # client 1 stopped with a write in flight; client 2 truncated meanwhile
        self.assertEqual(self.cut_off(True, 4, -108, False, "stop_long"), ["stale"])

    def test_unfenced_write_lands_after_break(self):
        # the write succeeded, but its handle held the lock when it began (a call of
        # it had just succeeded): cut off, it must have been fenced, not land later
        self.assertEqual(self.cut_off(True, 4, 640, True), ["stale"])

    def test_write_that_waited_for_the_lock_passes(self):
        # the same, but the handle had been idle: the write may have waited for the lock
        self.assertEqual(self.cut_off(True, 2000, 640, False), [])

    def test_same_without_pause_passes(self):
        self.assertEqual(self.cut_off(False, 4, -108, False), [])

    def test_size(self):
        h = H()
        h.write(1, 0, 10, 0, 640)
        h.op(2, "stat", 20, 30, 0, size=64)  # below an acknowledged write's end
        h.op(2, "stat", 31, 32, 0, size=6400)  # past anything written
        h.read(2, 40, 50, 0, 6400, [units(0, 10, (1, 0, 1)), zeros(640, 10)])
        self.assertEqual(h.rules(), ["size", "size", "size"])

    def test_append_overlap_and_move(self):
        h = H()
        a1 = h.op(1, "append", 0, 10, 128, len=128)
        a2 = h.op(2, "append", 0, 10, 128, len=128)
        h.read(3, 20, 30, 0, 128, [units(0, 1, a1, idx=0, flags=1),
                                    units(64, 1, a2, idx=0, flags=1)])
        self.assertEqual(h.rules(), ["append-overlap"])
        h.read(3, 31, 40, 128, 64, [units(128, 1, a1, idx=0, flags=1)])
        self.assertEqual(h.rules(), ["append-moved"])

    def test_xattr_stale(self):
        h = H()
        h.op(1, "setx", 0, 10, 0, val="1.0.1")
        h.op(1, "setx", 20, 30, 0, val="1.0.2")
        h.op(2, "getx", 40, 50, 5, val="1.0.1")
        h.op(2, "getx", 60, 70, -61)
        self.assertEqual(h.rules(), ["xattr", "xattr"])


if __name__ == "__main__":
    unittest.main()
