#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The thrasher's checker: a history of operations (start, end, arguments,
result, and what each read saw unit by unit) checked against the model of
include/striped.h's "Shared files" and "Buffered mode". Pure: stdlib only.

Usage: checker.py HISTORY_DIR  (the c*.jsonl, faults.jsonl and meta.json of a run)

The model (tests/thrash/README.md says it in prose):
- Each operation takes effect at some moment of its landing interval
  [start, land_end]: land_end is its end; for a buffered write, the end of
  the next flush, close or window-sending call of its handle; for an
  operation whose client was killed in flight, the death plus GRACE.
- It is *certain* when it returned success (a buffered write: and the call
  that sent its window returned 0). Failed, timed-out and in-flight
  operations may have landed wholly, partly or not at all.
- A file's life is the span of one creation (striper.id); every byte of a
  read belongs to its life.
- S precedes K when S's landing interval ends before K starts, and also:
  a buffered write acknowledged before a truncate or write_full started lands
  before it or never (the holder sends its window before letting go, or is
  fenced); a write in flight when its client was stopped or cut off, that
  did not succeed, lands before any truncate or write_full that ran
  entirely while the client was stopped or cut off, or never (fencing).
"""
import bisect
import glob
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checker_ec  # noqa: E402

UNIT = 64
BLOCK = 65536
GRACE = 2_000_000_000  # ns: what a killed client sent may land this long after its death
HELD_NS = 500_000_000  # a handle that succeeded a call this recently still holds its lock
INF = float("inf")
NINF = float("-inf")
ENODATA = -61

DATA_KINDS = ("write", "append", "wfull")
# calls that send a buffered handle's whole window first (a discard sends only the
# blocks it overlaps: lib/file.c's buffer_settle)
SYNC_KINDS = ("flush", "close", "trunc", "append", "wfull")
EXCL_KINDS = ("trunc", "wfull")


# Defects the thrasher found and reported, not fixed yet: their violations are
# shown as KNOWN and counted apart (THRASH_STRICT=1 counts them as violations).
# Each: name -> (rule, a test on the violation's ops, what it is). K1 (a
# truncate through a stale handle cut the new file) and K2 (a buffered write
# acknowledged during its own handle's truncate) are fixed, and count as
# violations again (tests/thrash/README.md).
KNOWN_ISSUES = {}


class Op:
    __slots__ = ("key", "c", "i", "n", "kind", "mode", "f", "h", "off", "len", "size", "val",
                 "t0", "t1", "r", "lives", "segs", "land_end", "certain", "bases", "handle",
                 "msg", "view_start", "nxt", "undone", "lowered", "contested", "refused")

    def __init__(self, b):
        self.c, self.i, self.n = b["c"], b["i"], b["n"]
        self.key = (self.c, self.i, self.n)
        self.kind = b["k"]
        self.mode = b.get("m", "sync")
        self.f = b.get("f", 0)
        self.h = b.get("h")
        self.off = b.get("off", 0)
        self.len = b.get("len", 0)
        self.size = b.get("size")
        self.val = b.get("val")
        self.t0 = b["t"]
        self.t1 = None
        self.r = None
        self.lives = None
        self.segs = None
        self.msg = None
        self.land_end = None
        self.certain = False
        self.bases = set()
        self.handle = (self.c, self.i, self.f, self.h) if self.h is not None else None
        self.view_start = self.t0
        self.nxt = None  # a buffered write's next call that sends the window
        self.contested = False  # another's change of its file in flight with it
        self.refused = False  # refused by an append-only pool, alone: no effect (checker_ec)

    @property
    def buffered(self):
        return self.mode in ("buf", "bufaio")

    def ok(self):
        return self.r is not None and self.r >= 0

    def life(self):
        """The one life it is known to belong to, or None."""
        return next(iter(self.lives)) if self.lives and len(self.lives) == 1 else None


class Violation:
    def __init__(self, rule, what, ops, t_start):
        self.rule, self.what, self.ops, self.t_start = rule, what, ops, t_start
        self.count = 1
        self.known = None

    def text(self):
        more = " (and %d more reads alike)" % (self.count - 1) if self.count > 1 else ""
        head = "KNOWN %s" % self.known if self.known else "VIOLATION"
        lines = ["%s %s: %s%s" % (head, self.rule, self.what, more)]
        for role, op in self.ops:
            lines.append("    %-10s %s" % (role, describe(op, self.t_start)))
        return "\n".join(lines)


def describe(op, t0=0):
    if op is None:
        return "(life start)"
    if isinstance(op, str):
        return op
    args = ""
    if op.kind in ("write", "read", "discard"):
        args = " [%d,+%d)" % (op.off, op.len)
    elif op.kind in ("append", "wfull"):
        args = " len %d" % op.len
        if op.bases:
            args += " at %s" % ",".join(str(b) for b in sorted(op.bases))
    elif op.kind == "trunc":
        args = " to %d" % op.size
    elif op.kind in ("setx", "getx"):
        args = " %s" % op.val
    end = "-" if op.t1 is None else "%.3f" % ((op.t1 - t0) / 1e9)
    land = ""
    if op.land_end is not None and op.land_end != op.t1:
        land = " lands by %.3f" % ((op.land_end - t0) / 1e9) if op.land_end != INF else " lands any time"
    lives = "?" if op.lives is None else ",".join("%x" % x for x in sorted(op.lives))
    return "c%d.%d#%d %s(%s) f%d%s h%s life %s t=[%.3f,%s]%s r=%s%s" % (
        op.c, op.i, op.n, op.kind, op.mode, op.f, args, op.h, lives, (op.t0 - t0) / 1e9, end, land,
        op.r, (" msg=%s" % op.msg) if op.msg else "")


class Result:
    def __init__(self):
        self.violations = []
        self.known = []  # violations of KNOWN_ISSUES
        self.checked = {"reads": 0, "units": 0, "zero-units": 0, "sizes": 0, "xattrs": 0}
        self.fenced_live = []  # -EBLOCKLISTED results of clients not stopped nor cut off
        self.faults = 0
        self.fault_counts = {}
        self.operations = 0
        self.t_start = 0
        self.t_end = 0

    def seconds(self):
        return max(1e-9, (self.t_end - self.t_start) / 1e9)

    def ops_per_second(self):
        return self.operations / self.seconds()


def load_dir(hist):
    records = []
    for path in sorted(glob.glob(os.path.join(hist, "c*.jsonl"))):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        records.append(json.loads(line))
                    except ValueError:
                        pass  # a line cut by a kill
    events = []
    fpath = os.path.join(hist, "faults.jsonl")
    if os.path.exists(fpath):
        with open(fpath) as f:
            events = [json.loads(x) for x in f if x.strip()]
    meta = {}
    mpath = os.path.join(hist, "meta.json")
    if os.path.exists(mpath):
        with open(mpath) as f:
            meta = json.load(f)
    return records, events, meta


def check_dir(hist):
    return check(*load_dir(hist))


class Checker:
    def __init__(self, records, events, meta):
        self.res = Result()
        self.ops = {}
        self.deaths = {}
        self.pauses = []  # (c, i, t0, t1)
        self.seen = {}
        self.files = checker_ec.load_files(records)
        ends = {}
        for rec in records:
            if rec.get("ev") == "B":
                op = Op(rec)
                self.ops[op.key] = op
            elif rec.get("ev") == "E":
                ends[(rec["c"], rec["i"], rec["n"])] = rec
        for key, e in ends.items():
            op = self.ops.get(key)
            if op is None:
                continue
            op.t1 = e["t"]
            op.r = e["r"]
            op.lives = frozenset(e.get("L", [])) or None
            op.segs = e.get("segs")
            op.msg = e.get("msg")
            if op.kind == "stat" and "size" in e:
                op.size = e["size"]
            if op.kind == "getx" and "val" in e:
                op.val = e["val"]
        for ev in events:
            if ev.get("ev") == "P" and ev.get("what") == "death":
                self.deaths[(ev["c"], ev["i"])] = ev["t"]
            elif ev.get("ev") == "F":
                self.res.faults += 1
                k = ev["kind"]
                self.res.fault_counts[k] = self.res.fault_counts.get(k, 0) + 1
                if k in ("stop_short", "stop_long", "partition") and "t1" in ev:
                    self.pauses.append((ev["c"], ev["i"], ev["t0"], ev["t1"]))
        self.res.operations = len(self.ops)
        self.res.t_start = meta.get("t_start", min((o.t0 for o in self.ops.values()), default=0))
        self.res.t_end = meta.get("t_end", max((o.t1 or o.t0 for o in self.ops.values()), default=0))
        self.t_start = self.res.t_start

    def violation(self, rule, what, *ops):
        """One violation per rule and ops beside the read (many reads may show one)."""
        key = (rule,) + tuple((role, op.key) for role, op in ops[1:] if hasattr(op, "key"))
        if len(ops) == 1:
            key += (ops[0][1].key,)
        if key in self.seen:
            self.seen[key].count += 1
            return
        v = Violation(rule, what, list(ops), self.t_start)
        self.seen[key] = v
        for name, (krule, test, _) in KNOWN_ISSUES.items():
            if krule == rule and test(ops, self):
                v.known = name
                self.res.known.append(v)
                return
        self.res.violations.append(v)

    # ---- landing intervals, certainty, lives ----

    def prepare(self):
        handles = defaultdict(list)
        for op in self.ops.values():
            if op.handle is not None:
                handles[op.handle].append(op)
        self.handles = handles
        for hops in handles.values():
            hops.sort(key=lambda o: o.n)
            opened = None
            for op in hops:
                if op.kind == "open":
                    opened = op
                # a handle's life is its open's (also for calls cut short by a kill)
                if op.kind != "open" and opened is not None:
                    op.lives = opened.lives
        self.stale_handles()
        for op in self.ops.values():
            death = self.deaths.get((op.c, op.i))
            op.land_end = op.t1 if op.t1 is not None else (death + GRACE if death else INF)
            op.certain = op.ok() and op.lives is not None
        # a buffered write lands by the end of the next call that sends its window
        for hops in handles.values():
            syncs = [o for o in hops if o.kind in SYNC_KINDS]
            for op in hops:
                # a buffered write_full truncates (sending the window first), then its
                # data goes through the window as a write's does
                if (op.kind == "write" or op.kind == "wfull") and op.buffered:
                    self.window_landing(op, syncs)
        # appends: where their units were seen
        for op in self.ops.values():
            if op.kind == "read" and op.segs:
                for seg in op.segs:
                    if len(seg) == 7 and seg[6] & 1:
                        src = self.ops.get((seg[2], seg[3], seg[4]))
                        if src is not None and src.kind == "append":
                            src.bases.add(seg[0] - seg[5])
        for op in self.ops.values():
            if op.kind == "append" and len(op.bases) > 1:
                self.violation("append-moved", "one append's units seen at %d different offsets"
                               % len(op.bases), ("append", op))

    def window_landing(self, op, syncs):
        """When buffered write op lands (op.nxt: the next call of its handle that sends the
        window), and whether it is certain: that call and every other that sends the
        window and began before it ended returned 0. Aio ones in flight together share
        one report of a write-behind error, which either may return (the other then
        returns 0: the error was reported)."""
        j = bisect.bisect_right(syncs, op.n, key=lambda o: o.n)
        nxt = op.nxt = syncs[j] if j < len(syncs) else None
        death = self.deaths.get((op.c, op.i))
        if nxt is None:
            op.land_end = death + GRACE if death else INF
            op.certain = False
            return
        end = nxt.t1 if nxt.t1 is not None else (death + GRACE if death else INF)
        op.land_end = max(op.t1 or op.t0, end)
        op.certain = op.ok() and all(k.ok() for k in syncs[j:] if k.t0 <= end)

    def stale_handles(self):
        """A call through a handle whose file was removed (an acknowledged remove of its
        life ended before the call began) must fail with -ESTALE. One that succeeded
        anyway may have acted on whatever life the name had then: its life becomes
        unknown. A truncate or write_full that did may have cut a later life even
        when its write part then failed."""
        removed = {}
        for op in self.ops.values():
            if op.kind == "remove" and op.ok() and op.life() is not None:
                removed[op.life()] = min(removed.get(op.life(), INF), op.t1)
        for op in self.ops.values():
            life = op.life()
            if op.handle is None or life is None or op.kind in ("open", "close", "flush"):
                continue
            gone = removed.get(life, INF)
            if gone < op.t0 and op.ok():
                self.violation("stale-handle", "a %s through a handle whose file was removed "
                               "before it began returned success (its life was %x)"
                               % (op.kind, life), ("call", op))
                op.lives = None
            elif op.kind in EXCL_KINDS and gone < (op.t1 if op.t1 is not None else INF):
                op.lives = None  # it may have cut the new life (K1, fixed: it gets -ESTALE)

    def lifeset(self):
        lives = defaultdict(list)
        self.unknown_by_file = defaultdict(list)
        for op in self.ops.values():
            if op.lives is not None:
                for life in op.lives:
                    lives[life].append(op)
            else:
                self.unknown_by_file[op.f].append(op)
        self.by_life = lives

    # ---- what covers what ----

    def data_range(self, op):
        """The bytes op's data covers, or None."""
        if op.kind == "write":
            return (op.off, op.off + op.len)
        if op.kind == "wfull":
            return (0, op.len)
        if op.kind == "append" and len(op.bases) == 1:
            b = next(iter(op.bases))
            return (b, b + op.len)
        return None

    def zero_ranges(self, op):
        """(lo, hi, transient) ranges op makes read as zeros."""
        if op.refused and op.kind in ("trunc", "discard"):
            return []  # refused by an append-only pool before anything was sent
        if op.kind == "trunc":
            return [(op.size, INF, False)]
        if op.kind == "discard":
            return [(op.off, op.off + op.len, False)]
        if op.kind == "wfull":
            if op.certain:
                return [(op.len, INF, False), (0, op.len, True)]
            return [(0, INF, False)]
        if op.kind == "remove" and not op.ok():
            # cut short (its client killed) or failed after cleaning some objects:
            # the head stays, the life goes on, those objects read as zeros
            return [(0, INF, False)]
        return []

    def index(self):
        """Per life: certain covers bucketed by block, unbounded ones, zero sources."""
        self.bounded = {}
        self.unbounded = {}
        self.zeros = {}
        self.precedes = defaultdict(set)
        for life, ops in self.by_life.items():
            known = [o for o in ops if o.lives is not None and len(o.lives) == 1]
            bounded = defaultdict(list)
            unbounded = []
            zeros = []
            for o in known:
                if o.certain:
                    d = self.data_range(o)
                    if d:
                        for blk in range(d[0] // BLOCK, (d[1] - 1) // BLOCK + 1):
                            bounded[blk].append((o.t0, o, d[0], d[1]))
                    for lo, hi, transient in self.zero_ranges(o):
                        if transient:
                            continue
                        if hi == INF:
                            unbounded.append((o.t0, o, lo, hi))
                        else:
                            for blk in range(lo // BLOCK, (hi - 1) // BLOCK + 1):
                                bounded[blk].append((o.t0, o, lo, hi))
            # zero sources: this life's, and those whose life is unknown (same file)
            f = known[0].f if known else None
            for o in known + self.unknown_by_file.get(f, []):
                for lo, hi, transient in self.zero_ranges(o):
                    zeros.append((o.land_end, o, lo, hi, transient))
            for blk in bounded:
                bounded[blk].sort(key=lambda e: e[0])
            unbounded.sort(key=lambda e: e[0])
            zeros.sort(key=lambda e: -e[0])
            self.bounded[life] = bounded
            self.unbounded[life] = (unbounded, [e[0] for e in unbounded])
            self.zeros[life] = zeros
        # precedence beyond real time
        excl = defaultdict(list)
        for life, ops in self.by_life.items():
            excl[life] = sorted((o for o in ops if o.kind in EXCL_KINDS and o.certain
                                 and len(o.lives) == 1), key=lambda o: o.t0)
        for op in self.ops.values():
            if op.kind != "write" or op.life() is None:
                continue
            life = op.life()
            if op.buffered and op.ok() and op.t1 is not None:
                for t in excl[life]:
                    if t.t0 > op.t1 and t.t0 <= op.land_end:
                        self.precedes[op.key].add(t.key)
        by_inc = defaultdict(list)
        for op in self.ops.values():
            by_inc[(op.c, op.i)].append(op)
        for (c, i, p0, p1) in self.pauses:
            for op in by_inc[(c, i)]:
                if op.kind not in DATA_KINDS or op.buffered or op.life() is None:
                    continue
                if not (op.t0 < p0 and (op.t1 is None or op.t1 > p0)):
                    continue
                # One that succeeded may have waited for the lock and sent its data
                # after the truncate, unless its handle held the lock when it began.
                if op.ok() and not self.held_lock(op, excl[op.life()]):
                    continue
                for t in excl[op.life()]:
                    if t.c != c and t.t0 > p0 and t.t1 is not None and t.t1 < p1:
                        self.precedes[op.key].add(t.key)

    def held_lock(self, w, excls):
        """Did w's handle hold the file's lock when w began? Yes when another call of
        the handle succeeded less than HELD_NS before (an idle handle keeps its lock
        for 1 s) and no other client's truncate or write_full asked for it since."""
        hops = self.handles.get(w.handle)
        if not hops:
            return False
        prev = [p for p in hops if p.n < w.n and p.ok() and p.t1 is not None
                and p.kind not in ("close", "flush") and w.t0 - HELD_NS < p.t1 < w.t0]
        if not prev:
            return False
        since = min(p.t0 for p in prev)
        return not any(e.c != w.c and e.t0 < w.t0 and (e.t1 is None or e.t1 > since - HELD_NS)
                       for e in excls)

    # ---- reads ----

    def eff(self, r, k):
        """When read r's view of k's effect begins: its start, but a buffered read
        may answer from bytes read ahead since its handle's view began."""
        if not r.buffered or k.kind in EXCL_KINDS or k.handle == r.handle:
            return r.t0
        return r.view_start

    def k_lands_for(self, r, k):
        """When k has certainly landed as read r sees it."""
        return k.land_end

    def own_superseder(self, r, lo, hi, after, src, data_only=False):
        """A buffered read sees its handle's own acknowledged writes at once (the window
        shows them), unless a window-sending call between reported their loss."""
        hops = self.handles.get(r.handle, [])
        j = bisect.bisect_left(hops, r.n, key=lambda o: o.n) - 1
        reported = False  # a write-behind error: by any of them (aio ones share one report)
        while j >= 0:
            k = hops[j]
            j -= 1
            reported = reported or k.kind in SYNC_KINDS and k.r is not None and not k.ok()
            if k.t0 <= after and k.t1 is not None and k.t1 <= after:
                break
            if k is src or not k.ok() or k.t1 is None or k.t1 >= r.t0 or k.t0 <= after:
                continue
            if k.kind == "write" and reported:
                continue
            rng = [self.data_range(k)]
            if not data_only:
                rng += [(a, b) for a, b, t in self.zero_ranges(k) if not t]
            if any(x and x[0] < hi and x[1] > lo for x in rng):
                return k
        return None

    def superseder(self, life, lo, hi, after, r, src, data_only=False):
        """A certain op covering part of [lo, hi) that started after `after` (or that
        src precedes) and landed before read r's view: then src cannot show.
        data_only: only ops that wrote data there (zeros read need no other zeros)."""
        if r.buffered and r.handle is not None:
            k = self.own_superseder(r, lo, hi, after, src, data_only)
            if k is not None:
                return k
        cands = []
        if src is not None and src.key in self.precedes:
            for key in self.precedes[src.key]:
                k = self.ops[key]
                cands.append(k)
        for k in cands:
            if self.covers(k, lo, hi, data_only) and self.k_lands_for(r, k) < self.eff(r, k):
                return k
        bounded = self.bounded.get(life, {})
        for blk in range(lo // BLOCK, (hi - 1) // BLOCK + 1):
            lst = bounded.get(blk)
            if not lst:
                continue
            j = bisect.bisect_right(lst, after, key=lambda e: e[0])
            while j < len(lst) and lst[j][0] < r.t0:
                t0, k, a, b = lst[j]
                j += 1
                if k is src or a >= hi or b <= lo:
                    continue
                if data_only and not self.covers(k, lo, hi, True):
                    continue
                if self.k_lands_for(r, k) < self.eff(r, k):
                    return k
        ub, ub_t0 = self.unbounded.get(life, ([], []))
        j = bisect.bisect_right(ub_t0, after)
        while j < len(ub) and ub[j][0] < r.t0:
            t0, k, a, b = ub[j]
            j += 1
            if k is src or a >= hi:
                continue
            if data_only and not self.covers(k, lo, hi, True):
                continue
            if self.k_lands_for(r, k) < self.eff(r, k):
                return k
        return None

    def covers(self, k, lo, hi, data_only=False):
        d = self.data_range(k) if k.certain else None
        if d and d[0] < hi and d[1] > lo:
            return True
        if data_only:
            return False
        for a, b, transient in (self.zero_ranges(k) if k.certain else []):
            if not transient and a < hi and b > lo:
                return True
        return False

    def check_read(self, r):
        life = r.life()
        self.res.checked["reads"] += 1
        for seg in r.segs or []:
            lo, n = seg[0], seg[1]
            hi = lo + n * UNIT
            self.res.checked["zero-units" if seg[2] == "Z" else "units"] += n
            if seg[2] == "G":
                self.violation("garbage", "bytes [%d,%d) of f%d are no unit of any write (%s...)"
                               % (lo, hi, r.f, seg[3]), ("read", r))
                continue
            if seg[2] == "Z":
                if life is not None:
                    self.check_zeros(r, life, lo, hi)
                continue
            c, i, opn, idx, flags = seg[2], seg[3], seg[4], seg[5], seg[6]
            src = self.ops.get((c, i, opn))
            if src is None or src.kind not in DATA_KINDS:
                self.violation("unknown-writer", "bytes [%d,%d) carry c%d.%d#%d, no write of the "
                               "history" % (lo, hi, c, i, opn), ("read", r))
                continue
            if src.refused:
                self.violation("refused-effect", "bytes [%d,%d) of f%d come from a %s the pool "
                               "refused (-EOPNOTSUPP: nothing sent), with no other change of the "
                               "file in flight" % (lo, hi, r.f, src.kind), ("read", r),
                               ("refused", src))
                continue
            if src.kind == "append":
                if not flags & 1 or idx < 0 or idx + n * UNIT > src.len:
                    self.violation("misplaced", "append units out of its range", ("read", r),
                                   ("append", src))
                    continue
            else:
                start = src.off if src.kind == "write" else 0
                if flags & 1 or idx != lo or lo < start or hi > start + src.len or src.f != r.f:
                    self.violation("misplaced", "bytes [%d,%d) of f%d carry offset %d of a write "
                                   "of f%d" % (lo, hi, r.f, idx, src.f), ("read", r), ("source", src))
                    continue
            if r.t1 is not None and src.t0 > r.t1:
                self.violation("future", "a read shows a write that began after it ended",
                               ("read", r), ("source", src))
                continue
            if life is None:
                continue
            if src.lives is not None and life not in src.lives:
                self.violation("earlier-life", "bytes [%d,%d) of life %x come from a write to "
                               "life %s" % (lo, hi, life,
                                            ",".join("%x" % x for x in sorted(src.lives))),
                               ("read", r), ("source", src))
                continue
            if src.lives is None:
                continue
            k = self.superseder(life, lo, hi, src.land_end, r, src)
            if k is not None:
                self.violation("stale", "bytes [%d,%d) show a write that a later acknowledged %s "
                               "replaced before the read began" % (lo, hi, k.kind),
                               ("read", r), ("shown", src), ("replaced by", k))

    def check_zeros(self, r, life, lo, hi):
        zeros = self.zeros.get(life, [])
        pieces = [(lo, hi, 0)]
        while pieces:
            a, b, j = pieces.pop()
            z = None
            while j < len(zeros):
                land_end, zop, za, zb, transient = zeros[j]
                j += 1
                if zop.t0 > (r.t1 if r.t1 is not None else INF) or za >= b or zb <= a:
                    continue
                if transient and zop.certain and self.k_lands_for(r, zop) < self.eff(r, zop):
                    continue  # its data replaced these zeros before the read
                z = zeros[j - 1]
                break
            if z is None:
                # the life's start: zeros until a certain write covers the bytes
                k = self.superseder(life, a, b, NINF, r, None, data_only=True)
                if k is not None:
                    self.violation("lost", "bytes [%d,%d) read as zeros but an acknowledged %s "
                                   "wrote there before the read began" % (a, b, k.kind),
                                   ("read", r), ("lost", k))
                continue
            land_end, zop, za, zb, transient = z
            ca, cb = max(a, za), min(b, zb)
            k = self.superseder(life, ca, cb, land_end, r, zop, data_only=True)
            if k is not None:
                self.violation("lost", "bytes [%d,%d) read as zeros (last zeroed by %s) but an "
                               "acknowledged %s wrote there after it, before the read began"
                               % (ca, cb, zop.kind, k.kind), ("read", r), ("zeroed by", zop),
                               ("lost", k))
            if a < ca:
                pieces.append((a, ca, j))
            if cb < b:
                pieces.append((cb, b, j))

    # ---- sizes ----

    def size_sweeps(self):
        """Per life, what sizes the file may have had, swept over the reads and
        stats in the order they began (each operation enters and leaves the
        bounds once, so a long life costs no more than its length)."""
        self.sweeps = {}
        for (life, k4), sizers in [((life, False), ks) for life, ks in self.life_sizers.items()] \
                + [((life, True), ks) for life, ks in self.k4_sizers.items()]:
            sets = self.life_sets[life]
            all_sets = sets + self.life_any_sets[life]
            by_t0 = sorted((e for e in sets if e.certain), key=lambda e: e.t0)
            t0s = [e.t0 for e in by_t0]
            # suffix minimum of land_end: the earliest a set begun after t has landed
            suffix = [INF] * (len(by_t0) + 1)
            for j in range(len(by_t0) - 1, -1, -1):
                suffix[j] = min(by_t0[j].land_end, suffix[j + 1])
            for k in sizers:
                # undone for reads that begin after this: a certain truncate or
                # write_full begun after k landed (or that k precedes) has landed
                j = bisect.bisect_right(t0s, k.land_end)
                undone = suffix[j]
                for key in self.precedes.get(k.key, ()):
                    e = self.ops[key]
                    if e in sets and e.certain and e is not k:
                        undone = min(undone, e.land_end)
                k.undone = undone
                # no lower bound once a truncate that may land after k has begun
                v = self.size_value(k)
                if v is None:
                    v = k.len if k.kind == "append" else 0
                k.lowered = min((e.t0 for e in all_sets if e is not k
                                 and self.low_value(e) is not None and self.low_value(e) < v
                                 and not e.land_end < k.t0), default=INF)
            self.sweeps[(life, k4)] = {"next": 0, "active": [], "raw": 0, "extra": 0,
                                 "lb_order": sorted((k for k in sizers if k.certain
                                                     and k.lives is not None),
                                                    key=lambda k: k.land_end),
                                 "lb_next": 0, "lb_active": []}

    def size_bounds(self, r, life, k4=False):
        """(lowest, highest) size the file may have had while r ran; k4: also if each
        refused append moved the size (K4-refused-append-claim)."""
        sw = self.sweeps[(life, k4)]
        sizers = (self.k4_sizers if k4 else self.life_sizers)[life]
        rend = r.t1 if r.t1 is not None else INF
        # highest: any sizing op begun before r ended, not undone before r began
        while sw["next"] < len(sizers) and sizers[sw["next"]].t0 <= rend:
            k = sizers[sw["next"]]
            sw["next"] += 1
            v = self.size_value(k)
            if v is None and k.kind == "append":
                # An append seen nowhere: its claim may have read any size the file
                # had, also one a truncate then undid (the claim comes before the
                # truncate, the data and its size update after it).
                sw["extra"] += k.len
            elif v is not None:
                sw["raw"] = max(sw["raw"], v)
            sw["active"].append(k)
        sw["active"] = [k for k in sw["active"] if k.undone >= r.t0]
        hi = 0
        appends = False
        for k in sw["active"]:
            if k.t0 > rend:
                continue
            v = self.size_value(k)
            if v is None:
                appends = appends or k.kind == "append"
            else:
                hi = max(hi, v)
        if appends:
            hi = max(hi, sw["raw"]) + sw["extra"]
        # lowest (unbuffered): certain ops landed before r began, that no truncate
        # or write_full begun before r ended could have undone
        lo = 0
        order = sw["lb_order"]
        while sw["lb_next"] < len(order) and order[sw["lb_next"]].land_end < r.t0:
            sw["lb_active"].append(order[sw["lb_next"]])
            sw["lb_next"] += 1
        sw["lb_active"] = [k for k in sw["lb_active"] if k.lowered >= r.t0]
        if not r.buffered:
            for k in sw["lb_active"]:
                if k.lowered >= rend:
                    v = self.size_value(k)
                    lo = max(lo, v if v is not None else (k.len if k.kind == "append" else 0))
        return lo, hi

    def size_value(self, k):
        if k.kind == "write":
            return k.off + k.len
        if k.kind == "wfull":
            return 0 if k.refused else k.len  # refused: it may have emptied the file first
        if k.kind == "trunc":
            return k.size
        if k.kind == "append" and len(k.bases) == 1:
            return next(iter(k.bases)) + k.len
        return None

    def low_value(self, k):
        """The lowest size k may leave the file at, if only for a moment: a write_full
        on an append-only pool empties the file, then writes it."""
        info = self.files.get(k.f)
        if k.kind == "wfull" and info is not None and info.appends_only:
            return 0
        return self.size_value(k)

    def check_size(self, r):
        life = r.life()
        if life is None or life not in self.life_sizers:
            return
        lo, hi = self.size_bounds(r, life)
        self.res.checked["sizes"] += 1
        what = self.size_wrong(r, lo, hi)
        if what:
            self.size_violation(r, life, what)

    @staticmethod
    def size_wrong(r, lo, hi):
        """What is wrong with the size r shows, if it is not in [lo, hi]: (seen, above, what)."""
        if r.kind == "stat" and r.ok() and r.size is not None:
            if not lo <= r.size <= hi:
                return (r.size, r.size > hi, "stat gave %d, the history allows [%d, %d]"
                        % (r.size, lo, hi))
        elif r.kind == "read" and r.ok():
            end = r.off + r.r
            if end > hi and r.r > 0:
                return (end, True, "a read returned bytes up to %d, past any size the file "
                        "had (at most %d)" % (end, hi))
            if r.r < r.len and end < lo:
                return (end, False, "a read stopped at %d, below the size the file had (at "
                        "least %d)" % (end, lo))
        return None

    def size_violation(self, r, life, wrong):
        """A size the history does not allow: refused-effect when a call an append-only
        pool refused (no effect allowed) would have set it, size otherwise. The known
        K4 when the size is one refused appends' claims may have set."""
        seen, above, what = wrong
        k = None
        if above and not self.size_wrong(r, *self.size_bounds(r, life, k4=True)):
            k = self.refusal_sized(r, life, seen, above, ("append",))
        if k is None:
            k = self.refusal_sized(r, life, seen, above, ("write", "trunc"))
        if k is not None:
            self.violation("refused-effect", what + ", as the refused %s would have set it"
                           % k.kind, (r.kind, r), ("would have set", k))
        else:
            self.violation("size", what, (r.kind, r))

    def refusal_sized(self, r, life, seen, above, kinds):
        """The refused call of these kinds (begun before r ended, latest first) that
        explains size `seen`: an append (its claim may have moved the size from any base;
        the caller checked it could), a write or truncate that would have set exactly that
        size (when r shows the size itself: a stat, or a read that stopped short), else one
        that could have."""
        rend = r.t1 if r.t1 is not None else INF
        exact = r.kind == "stat" or r.r < r.len
        cands = sorted((k for k in self.by_life.get(life, []) if k.refused and k.t0 <= rend
                        and k.kind in kinds), key=lambda o: -o.t0)
        appended = next((k for k in cands if k.kind == "append"), None)
        if appended is not None:
            return appended
        sized = [k for k in cands if k.kind == "trunc" or k.kind == "write" and above]
        exactly = next((k for k in sized if exact and self.size_value(k) == seen), None)
        if exactly is not None or exact:
            return exactly
        return next((k for k in sized if (self.size_value(k) >= seen if above
                                          else self.size_value(k) <= seen)), None)

    # ---- xattrs ----

    def check_xattr(self, r):
        life = r.life()
        if life is None or not r.ok() and r.r != ENODATA:
            return
        self.res.checked["xattrs"] += 1
        ops = self.by_life[life] + self.unknown_by_file.get(r.f, [])
        rend = r.t1 if r.t1 is not None else INF
        sets = [o for o in ops if o.kind == "setx" and (o.life() == life or o.lives is None)]
        rms = [o for o in ops if o.kind == "rmx" and (o.life() == life or o.lives is None)]
        if r.r == ENODATA:
            srcs = [o for o in rms if o.t0 < rend]
            last = max((o.land_end for o in srcs), default=NINF)
            for k in sets:
                if k.certain and k.t0 > last and k.land_end < r.t0:
                    self.violation("xattr", "getxattr found nothing after an acknowledged "
                                   "setxattr", ("getx", r), ("set", k))
                    return
            return
        src = None
        for o in sets:
            if o.val == r.val:
                src = o
        if src is None:
            self.violation("xattr", "getxattr gave %r, which no setxattr of this life set" % r.val,
                           ("getx", r))
            return
        for k in sets + rms:
            if k is not src and k.certain and k.t0 > src.land_end and k.land_end < r.t0:
                self.violation("xattr", "getxattr gave a value an acknowledged %s replaced"
                               % k.kind, ("getx", r), ("shown", src), ("replaced by", k))
                return

    def run(self):
        self.prepare()
        self.lifeset()
        checker_ec.EcRules(self).run()  # refusals marked first: index() and sizes use them
        self.index()
        self.life_sizers = {}
        self.k4_sizers = {}
        self.life_known_sizers = {}
        self.life_sets = {}
        self.life_any_sets = {}
        for life, ops in self.by_life.items():
            known = [o for o in ops if o.lives is not None and len(o.lives) == 1]
            anyl = self.unknown_by_file.get(known[0].f, []) if known else []
            sizing = ("write", "wfull", "trunc", "append")
            # a call an append-only pool refused (alone) sets no size (a write_full: 0)
            sizers = sorted((o for o in known + anyl if o.kind in sizing
                             and not (o.refused and o.kind != "wfull")), key=lambda o: o.t0)
            self.life_sizers[life] = sizers
            # K4 (known): a refused append's claim may have moved the size
            self.k4_sizers[life] = sorted(sizers + [o for o in known + anyl if o.refused
                                                    and o.kind == "append"],
                                          key=lambda o: o.t0)
            self.life_known_sizers[life] = [o for o in sizers if o.lives is not None]
            # only ops known to be of this life override others; any may lower it
            self.life_sets[life] = [o for o in sizers if o.kind in EXCL_KINDS
                                    and o.lives is not None]
            self.life_any_sets[life] = [o for o in sizers if o.kind in EXCL_KINDS
                                        and o.lives is None]
        self.size_sweeps()
        # a buffered read's view of others' writes begins when its handle's did
        for hops in self.handles.values():
            start = None
            for op in hops:
                if op.kind == "open":
                    start = op.t0
                op.view_start = start if start is not None else op.t0
        for op in sorted(self.ops.values(), key=lambda o: o.t0):
            if op.kind == "read" and op.ok():
                self.check_read(op)
                self.check_size(op)
            elif op.kind == "stat" and op.ok():
                self.check_size(op)
            elif op.kind == "getx":
                self.check_xattr(op)
        self.check_appends()
        self.fencing_notes()
        return self.res

    def fencing_notes(self):
        """Not a violation: clients fenced (-EBLOCKLISTED) though they were neither
        stopped nor cut off in the 30 s before (slow to answer a request to let go)."""
        last = {}
        for op in sorted(self.ops.values(), key=lambda o: o.t0):
            if op.r != -108 or op.t1 is None:
                continue
            paused = any(c == op.c and i == op.i and p0 < op.t1 and p1 > op.t1 - 30_000_000_000
                         for c, i, p0, p1 in self.pauses)
            if not paused and op.t1 - last.get((op.c, op.i), 0) > 5_000_000_000:
                self.res.fenced_live.append(op)
                last[(op.c, op.i)] = op.t1

    def check_appends(self):
        """Appends by libstriped claim their ranges: two never overlap, unless a
        truncate (or write_full) may have come between them."""
        placed = sorted(((next(iter(o.bases)), o) for o in self.ops.values()
                         if o.kind == "append" and len(o.bases) == 1 and o.certain
                         and o.life() is not None), key=lambda e: (e[1].life(), e[0]))
        for x, (b1, o1) in enumerate(placed):
            for b2, o2 in placed[x + 1:]:
                if o2.life() != o1.life() or b2 >= b1 + o1.len:
                    break
                first, last = min(o1.t0, o2.t0), max(o1.t1, o2.t1)
                sets = self.life_sets[o1.life()] + self.life_any_sets[o1.life()]
                if any(e.t0 < last and e.land_end > first for e in sets):
                    continue
                self.violation("append-overlap", "two acknowledged appends on one range",
                               ("append", o1), ("append", o2))


def check(records, events=(), meta=None):
    return Checker(records, list(events), meta or {}).run()


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1])
        return 2
    res = check_dir(argv[1])
    for v in res.known + res.violations:
        print(v.text())
    print("violations: %d faults: %d operations: %d" % (len(res.violations), res.faults,
                                                         res.operations))
    return 1 if res.violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
