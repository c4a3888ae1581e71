# SPDX-License-Identifier: LGPL-2.1-or-later
"""The checker's rules for files on a pool that takes only aligned appends
(erasure coded without allow_ec_overwrites: the "Erasure-coded pools"
paragraph of include/striped.h). Pure: stdlib only.

Such a pool takes a write on an object only where the object ends (0 for an
object that is not there) and at a multiple of its stripe width. libstriped
checks each call whole against where its objects end, and refuses what the
pool would refuse with -EOPNOTSUPP before any byte is sent, the size
unchanged; a truncate only when it cuts no object (to 0 always), a discard
only of whole objects past the head, an append only when the size is a
multiple of the stripe width; write_full empties the file, then writes it.

Two rules, on calls of unbuffered handles and calls by name (a buffered
handle's calls report its write-behind's errors, whatever they were):
- refused-effect: a call refused with -EOPNOTSUPP had no effect at all: no
  unit of it is ever read, the size never moves to what it would have set
  (the size rule says so, naming it), a truncate or discard zeroes nothing.
  Unless another client's (or handle's) change of the file was in flight
  with it: the pool may then refuse a write the handle sent in good faith,
  part of it taken (a write is not atomic), as concurrent writes of the same
  bytes are not ordered.
- wrongly-refused: a call the pool takes was refused; and untakeable: a call
  the pool cannot take returned success. Both judged only where the history
  says exactly where each object of the file ends: replayed from a certain
  truncate to 0 or write_full (an empty file), through calls each of which
  ran alone on the file (calls of one unbuffered handle's writes in flight
  together are sent in the order they were made, and count as alone), every
  one certain or refused; anything else (a call that failed otherwise, one
  in flight with another's, a buffered write, a call of unknown life) makes
  the ends unknown until the next such truncate.
"""
import bisect

EOPNOTSUPP = -95
INF = float("inf")
CHANGES = ("write", "append", "trunc", "discard", "wfull", "remove")
JUDGED = ("write", "append", "trunc", "discard", "wfull")


class FileInfo:
    """A file's layout and its pool's stripe width, as a client logged them."""

    def __init__(self, rec):
        self.su, self.sc, self.os = rec["su"], rec["sc"], rec["os"]
        self.align = rec["align"]
        self.appends_only = bool(rec["appends_only"])
        self.pool = rec.get("pool", "")

    def ranges(self, off, length):
        """{objectno: (from, to)}: the one range of each object [off, off + length) covers."""
        out = {}
        per_object = self.os // self.su
        pos, end = off, off + length
        while pos < end:
            block = pos // self.su
            stripe, slot = divmod(block, self.sc)
            objectno = stripe // per_object * self.sc + slot
            inner = pos % self.su
            start = stripe % per_object * self.su + inner
            n = min(self.su - inner, end - pos)
            lo = out[objectno][0] if objectno in out else start
            out[objectno] = (lo, start + n)
            pos += n
        return out

    def kept(self, objectno, size):
        """Bytes of object objectno below file size `size`."""
        per_object = self.os // self.su
        objectset, slot = divmod(objectno, self.sc)
        total = 0
        for k in range(per_object):
            start = ((objectset * per_object + k) * self.sc + slot) * self.su
            total += max(0, min(self.su, size - start))
        return total


def load_files(records):
    return {r["f"]: FileInfo(r) for r in records
            if r.get("ev") == "X" and r.get("what") == "file"}


class Objects:
    """Where each object of a file ends, and its size, known exactly."""

    def __init__(self, info):
        self.info = info
        self.ends = {}
        self.size = 0

    def write_takes(self, off, length):
        return all(a == self.ends.get(o, 0) and a % self.info.align == 0
                   for o, (a, b) in self.info.ranges(off, length).items())

    def takes(self, op):
        """Whether the pool takes op where the objects end now."""
        if op.kind == "write":
            return self.write_takes(op.off, op.len)
        if op.kind == "append":
            return self.size % self.info.align == 0 and self.write_takes(self.size, op.len)
        if op.kind == "trunc":
            # objects that keep nothing go whole; the others must hold no more than they keep
            keep = min(op.size, self.size)
            return all(e <= k or k == 0 for k, e in
                       ((self.info.kept(o, keep), e) for o, e in self.ends.items()))
        if op.kind == "discard":
            return all(o != 0 and a == 0 and b == self.info.os
                       for o, (a, b) in self.info.ranges(op.off, op.len).items())
        return op.kind == "wfull"

    def write(self, off, length):
        for o, (a, b) in self.info.ranges(off, length).items():
            self.ends[o] = b
        self.size = max(self.size, off + length)

    def apply(self, op):
        """op (certain, taken) happened: False when what it did is not known here."""
        if op.kind == "write":
            self.write(op.off, op.len)
        elif op.kind == "append":
            if op.bases and op.bases != {self.size}:
                return False
            self.write(self.size, op.len)
        elif op.kind == "trunc":
            keep = min(op.size, self.size)
            self.ends = {o: e for o, e in self.ends.items() if self.info.kept(o, keep)}
            self.size = op.size
        elif op.kind == "discard":
            for o in self.info.ranges(op.off, op.len):
                self.ends.pop(o, None)
        elif op.kind == "wfull":
            self.ends, self.size = {}, 0
            self.write(0, op.len)
        return op.kind != "remove"


def resets(op):
    """A certain call that leaves the file empty, whatever it held: to 0, or write_full."""
    return op.kind == "wfull" or op.kind == "trunc" and op.size == 0


class EcRules:
    """The rules above over one history (a checker.Checker's ops)."""

    def __init__(self, chk):
        self.chk = chk
        self.files = chk.files

    def appends_only(self, op):
        info = self.files.get(op.f)
        return info is not None and info.appends_only

    def refusal(self, op):
        """A call an append-only pool refused (its own refusal: not a buffered handle's)."""
        return (op.r == EOPNOTSUPP and op.kind in JUDGED and not op.buffered
                and self.appends_only(op))

    @staticmethod
    def ordered(x, y):
        """x and y in flight together, yet in a known order: writes of one unbuffered handle."""
        return (x.handle is not None and x.handle == y.handle and x.kind == y.kind == "write"
                and not x.buffered)

    def changes(self, f, life):
        """The calls that may have changed the objects of file f in its life `life`."""
        ops = [o for o in self.chk.by_life.get(life, []) + self.chk.unknown_by_file.get(f, [])
               if o.f == f and o.kind in CHANGES and (o.life() == life or o.lives is None)]
        return sorted(ops, key=lambda o: (o.t0, o.c, o.i, o.n))

    def mark_contested(self, ops):
        """op.contested: another's change was in flight with it (its refusal may be the pool's)."""
        t0s = [o.t0 for o in ops]
        active = []
        for j, x in enumerate(ops):
            active = [y for y in active if y.land_end >= x.t0]
            end = x.t1 if x.t1 is not None else INF
            during = ops[j + 1:bisect.bisect_right(t0s, end)]
            x.contested = any(not self.ordered(x, y) and not self.ordered(y, x)
                              for y in active + during)
            active.append(x)

    def run(self):
        """Mark the refusals that had no effect (op.refused), then judge the calls."""
        for op in self.chk.ops.values():
            op.contested = False
            op.refused = False
        lives = [(life, ops[0].f) for life, ops in self.chk.by_life.items()
                 if ops and self.appends_only(ops[0])]
        changes = {}
        for life, f in lives:
            changes[life] = self.changes(f, life)
            self.mark_contested(changes[life])
            for op in changes[life]:
                op.refused = op.refused or (self.refusal(op) and not op.contested
                                            and op.life() == life)
        for life, f in lives:
            self.replay(self.files[f], life, changes[life])

    def judge(self, objs, x):
        self.chk.res.checked["ec-judged"] = self.chk.res.checked.get("ec-judged", 0) + 1
        takes = objs.takes(x)
        if x.r == EOPNOTSUPP and takes:
            self.chk.violation("wrongly-refused", "the pool takes this %s where the file's "
                               "objects end (%s), yet it was refused"
                               % (x.kind, describe_ends(objs)), ("call", x))
        elif x.ok() and not takes:
            self.chk.violation("untakeable", "this %s succeeded, but the pool takes no such "
                               "call where the file's objects end (%s)"
                               % (x.kind, describe_ends(objs)), ("call", x))
        return takes

    def replay(self, info, life, ops):
        """Through the life's calls in the order they began; objs None: ends not known."""
        objs = None
        for x in ops:
            alone = not x.contested
            if objs is not None and alone and x.kind in JUDGED and not x.buffered \
                    and x.life() == life and (x.ok() or x.r == EOPNOTSUPP):
                if not self.judge(objs, x) and x.ok():
                    objs = None
                    continue
            if x.refused and x.kind not in ("wfull", "append"):
                continue  # no effect (a write_full may have emptied the file first)
            # After a refused append, not judged on until the next truncate to 0: kept
            # from when K4 (README: a refused append moved the size) was open
            objs = None if x.refused else objs
            if x.refused:
                continue
            if not alone or not x.certain or x.life() != life:
                objs = None
            elif objs is not None:
                objs = objs if objs.apply(x) else None
            elif resets(x):
                objs = Objects(info)
                objs.apply(x)


def describe_ends(objs):
    ends = ", ".join("%d:%d" % kv for kv in sorted(objs.ends.items()) if kv[1]) or "none"
    return "size %d, object ends %s" % (objs.size, ends)
