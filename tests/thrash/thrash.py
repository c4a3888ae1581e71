#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The thrasher: clients of every kind run random operations on a few shared
striped files while a fault injector stops, kills and cuts off clients and
kills and restarts the cluster's daemons; every operation is logged, and the
history is checked against the model (checker.py) at the end.

Run through scripts/thrash (which finds the build); tests/thrash/README.md
says what is checked. Exit: 0 no violation, 1 violations (or the run went
wrong), 2 usage, 77 skipped (no Ceph).
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import checker  # noqa: E402

FAULT_KINDS = ["stop_short", "stop_long", "kill", "osd_kill", "mon_restart", "partition",
               "latency"]
CLIENT_FAULTS = {"stop_short", "stop_long", "kill", "partition"}
MODES = ["sync", "buf", "aio", "bufaio", "dd", "striper"]
# The run's files, by the kind of pool each lives on (thrash_client.c gives
# file N its layout): three on the replicated pool; one on the erasure-coded
# pool with overwrites, where everything goes as on the replicated one; two
# on the erasure-coded pool without, which takes only aligned appends (the
# clients make the calls of ec_ops.c there, some refused on purpose): one
# every client writes (appenders racing at its end), one only the aio client
# writes and the others read (as XRootD sites write such files: one writer
# front to back; its calls in flight together must all be taken). KIND/MODE:
# only the first client of that mode changes the file.
FILE_POOLS = "rep,rep,rep,ecow,ec,ec/aio"
POOL_ENV = {"rep": "STRIPED_TEST_POOL", "ecow": "STRIPED_TEST_ECOW_POOL",
            "ec": "STRIPED_TEST_EC_POOL"}


def now():
    return time.monotonic_ns()


def say(msg):
    print("thrash: %s" % msg, flush=True)


class Schedule:
    """The faults of a run, drawn from the seed alone: the same seed, the same schedule."""

    def __init__(self, seed, seconds, nclients, kinds, weights, gap, targets=None):
        rng = random.Random("faults-%d" % seed)
        self.faults = []
        t = rng.uniform(2, 4)
        order = list(kinds)
        rng.shuffle(order)  # every kind once first, then by weight
        while True:
            if order:
                kind = order.pop()
            else:
                kind = rng.choices(kinds, [weights.get(k, 1) for k in kinds])[0]
            f = {"kind": kind, "at": round(t, 3), "client": rng.randrange(nclients)}
            if targets:
                f["client"] = rng.choice(targets)
            if kind == "stop_short":
                f["secs"] = round(rng.uniform(0.1, 0.9), 3)
            elif kind == "stop_long":
                f["secs"] = round(rng.uniform(3.5, 7), 3)  # long enough to be fenced
            elif kind == "kill":
                f["secs"] = round(rng.uniform(0, 1.5), 3)  # before the restart
            elif kind == "osd_kill":
                f["osd"] = rng.randrange(3)
                f["secs"] = round(rng.uniform(2, 6), 3)
            elif kind == "mon_restart":
                f["secs"] = round(rng.uniform(0.5, 4), 3)
            elif kind == "partition":
                f["secs"] = round(rng.uniform(3, 7), 3)
            elif kind == "latency":
                f["secs"] = round(rng.uniform(3, 8), 3)
                f["ms"] = rng.choice([5, 20, 50, 100])
            t += f["secs"] + rng.uniform(gap[0], gap[1])
            if t > seconds:
                break
            self.faults.append(f)


class Thrash:
    def __init__(self, a):
        self.a = a
        self.work = a.dir or tempfile.mkdtemp(prefix="striped-thrash.")
        os.makedirs(self.work, exist_ok=True)
        self.cluster = os.path.join(self.work, "cluster")
        self.hist = os.path.join(self.work, "history")
        self.out = os.path.join(self.work, "out")
        os.makedirs(self.hist, exist_ok=True)
        os.makedirs(self.out, exist_ok=True)
        self.env = dict(os.environ)
        self.cluster_up = False
        self.clients = []  # per index: dict(mode, inc, proc, cgroup)
        self.fault_log = open(os.path.join(self.hist, "faults.jsonl"), "a")
        self.faults_done = {}
        self.partition_ok = False
        self.cgroups = []
        self.problems = []
        self.prefix = "thrash-%d-%d" % (a.seed, os.getpid())

    # ---- helpers ----

    def record(self, ev):
        self.fault_log.write(json.dumps(ev) + "\n")
        self.fault_log.flush()

    def lib(self, cmd, timeout=120):
        """A helper of tests/faults/lib.sh, on this run's cluster."""
        env = dict(self.env, FAULTS_CLUSTER=self.cluster, FAULTS_OUT=self.out)
        try:
            p = subprocess.run(["bash", "-c", "source '%s/tests/faults/lib.sh'; %s" % (ROOT, cmd)],
                               env=env, capture_output=True, text=True, timeout=timeout)
            return p.returncode, p.stdout
        except subprocess.TimeoutExpired:
            return 124, ""

    def ceph(self, *args, timeout=60):
        try:
            p = subprocess.run(["ceph", "--connect-timeout", "20"] + list(args), env=self.env,
                               capture_output=True, text=True, timeout=timeout)
            return p.returncode
        except subprocess.TimeoutExpired:
            return 124

    # ---- the cluster ----

    def start_cluster(self):
        if self.a.cluster:
            self.use_cluster(self.a.cluster)
            return
        say("starting a cluster in %s (3 OSDs, 2 replicas)" % self.cluster)
        with open(os.path.join(self.out, "cluster-start.err"), "w") as err:
            p = subprocess.run([os.path.join(ROOT, "scripts/cluster"), "start", "--dir", self.cluster,
                                "--osds", "3", "--replicas", "2", "--osd-size-gb", "4"],
                               stdout=subprocess.PIPE, stderr=err, text=True)
        self.cluster_up = True
        if p.returncode:
            raise RuntimeError("cannot start the cluster (%s)" % os.path.join(self.out, "cluster-start.err"))
        self.read_env(p.stdout)

    def use_cluster(self, d):
        """A cluster someone else started (scripts/cluster start --dir d --osds 3 --replicas 2)."""
        self.cluster = d
        p = subprocess.run([os.path.join(ROOT, "scripts/cluster"), "env", "--dir", d],
                           capture_output=True, text=True, check=True)
        self.read_env(p.stdout)

    def read_env(self, text):
        for line in text.splitlines():
            if line.startswith("export "):
                k, v = line[len("export "):].split("=", 1)
                self.env[k] = v.strip("'\"")
        self.pool = self.env["STRIPED_TEST_POOL"]
        self.pools = [self.file_pool(spec) for spec in self.a.pools.split(",")]
        self.keyring = os.path.join(self.cluster, "keyring")
        why = self.lib("partition_unavailable")[1].strip()
        self.partition_ok = not why
        if why:
            say("no partitions: %s" % why)

    def file_pool(self, spec):
        """--pools' KIND[/MODE] as thrash_client's POOL[@CLIENT]."""
        kind, _, mode = spec.partition("/")
        if POOL_ENV.get(kind) not in self.env:
            raise RuntimeError("the cluster has no %s pool (%s; --pools rep,rep,rep runs "
                               "without it)" % (kind, POOL_ENV.get(kind, "no such kind")))
        if not mode:
            return self.env[POOL_ENV[kind]]
        writers = [k for k in range(self.a.clients) if MODES[k % len(MODES)] == mode]
        if not writers:
            raise RuntimeError("--pools %s: no client of mode %s" % (spec, mode))
        return "%s@%d" % (self.env[POOL_ENV[kind]], writers[0])

    def stop_cluster(self):
        if self.cluster_up and not self.a.cluster:
            subprocess.run([os.path.join(ROOT, "scripts/cluster"), "stop", "--dir", self.cluster],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.cluster_up = False

    # ---- clients ----

    def client_argv(self, k, mode, inc, extra=()):
        binary = self.a.striper if mode == "striper" else self.a.client
        argv = [binary, "--mode", mode, "--client", str(k), "--inc", str(inc),
                "--seed", str(self.a.seed), "--files", str(len(self.pools)),
                "--prefix", self.prefix, "--pool", self.pool, "--pools", ",".join(self.pools), "--id", "fencer",
                "--keyring", self.keyring,
                "--log", os.path.join(self.hist, "c%d.%d.jsonl" % (k, inc))]
        if mode == "dd":
            argv += ["--dd", self.a.dd, "--tmp", self.out]
        for spec in self.a.client_weights or []:
            who, _, weights = spec.rpartition(":")
            if not who or mode in who.split("+"):
                argv += ["--weights", weights]
        return argv + list(extra)

    def client_env(self, mode):
        env = dict(self.env)
        libs = []
        if self.a.libdir:
            libs.append(self.a.libdir)  # a defect build of libstriped, for everyone
        if mode == "striper":
            libs.append(self.a.compat)  # the drop-in libradosstriper.so.1
        if libs:
            env["LD_LIBRARY_PATH"] = ":".join(libs + [env.get("LD_LIBRARY_PATH", "")]).rstrip(":")
        return env

    def cgroup_root(self):
        for line in open("/proc/mounts"):
            f = line.split()
            if f[2] == "cgroup2":
                return f[1]
        return None

    def spawn(self, k, mode, inc):
        cg = None
        if self.partition_ok:
            cg = "striped-thrash-%d-c%di%d" % (os.getpid(), k, inc)
            os.makedirs(os.path.join(self.cgroup_root(), cg), exist_ok=True)
            self.cgroups.append(cg)
        procs = os.path.join(self.cgroup_root(), cg, "cgroup.procs") if cg else None

        def child():
            if procs:
                with open(procs, "w") as f:
                    f.write(str(os.getpid()))

        out = open(os.path.join(self.out, "c%d.%d.err" % (k, inc)), "w")
        p = subprocess.Popen(self.client_argv(k, mode, inc), env=self.client_env(mode),
                             stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                             start_new_session=True, preexec_fn=child)
        out.close()
        self.record({"ev": "P", "what": "spawn", "c": k, "i": inc, "mode": mode, "t": now()})
        return {"mode": mode, "inc": inc, "proc": p, "cgroup": cg}

    def start_clients(self):
        for k in range(self.a.clients):
            mode = MODES[k % len(MODES)]
            self.clients.append(self.spawn(k, mode, 0))

    def reap(self, k, how):
        """The client's process is gone: say when, and whether it died on its own."""
        c = self.clients[k]
        rc = c["proc"].wait()
        self.record({"ev": "P", "what": "death", "c": k, "i": c["inc"], "t": now(), "rc": rc,
                     "how": how})
        if how == "own" and rc != 0:
            self.problems.append("client %d.%d (%s) exited with status %d (see %s)" %
                                 (k, c["inc"], c["mode"], rc,
                                  os.path.join(self.out, "c%d.%d.err" % (k, c["inc"]))))
        return rc

    def check_clients(self):
        for k, c in enumerate(self.clients):
            if c["proc"].poll() is not None:
                self.reap(k, "own")
                self.clients[k] = self.spawn(k, c["mode"], c["inc"] + 1)

    # ---- faults ----

    def sleep_until(self, t_ns):
        while True:
            left = (t_ns - now()) / 1e9
            if left <= 0:
                return
            self.check_clients()
            time.sleep(min(left, 0.25))

    def fault(self, f):
        kind = f["kind"]
        k = f["client"]
        c = self.clients[k]
        ev = {"ev": "F", "kind": kind, "t0": now()}
        if kind in CLIENT_FAULTS:
            ev.update(c=k, i=c["inc"], mode=c["mode"])
        pgid = c["proc"].pid
        if kind in CLIENT_FAULTS and self.a.fault_when_writing:
            self.wait_writing(k, c)
        if kind in ("stop_short", "stop_long"):
            if c["proc"].poll() is not None:
                return None
            os.killpg(pgid, signal.SIGSTOP)
            ev["t0"] = now()
            time.sleep(f["secs"])
            ev["t1"] = now()
            os.killpg(pgid, signal.SIGCONT)
        elif kind == "kill":
            if c["proc"].poll() is not None:
                return None
            os.killpg(pgid, signal.SIGKILL)
            self.reap(k, "kill")
            ev["t1"] = now()
            time.sleep(f["secs"])
            self.clients[k] = self.spawn(k, c["mode"], c["inc"] + 1)
        elif kind == "partition":
            if not self.partition_ok or c["proc"].poll() is not None:
                return None
            cg = c["cgroup"]
            pids = open(os.path.join(self.cgroup_root(), cg, "cgroup.procs")).read().split()
            for pid in pids:
                self.lib("partition_start %s %s" % (cg, pid))
            ev["t0"] = now()
            time.sleep(f["secs"])
            ev["t1"] = now()
            self.lib("partition_heal %s" % cg)
        elif kind == "osd_kill":
            osd = f["osd"]
            ev["osd"] = osd
            # The erasure-coded pools (2+1, min_size 2) serve with one OSD's chunks
            # missing, not two: an OSD is killed only once every PG is clean again
            # (the last one back has its chunks), or not at all.
            if self.lib("wait_clean 60", timeout=90)[0]:
                self.record({"ev": "P", "what": "osd_kill skipped: PGs not clean", "t": now()})
                return None
            rc, _ = self.lib("daemon_kill osd.%d" % osd)
            if rc:
                return None
            time.sleep(f["secs"])
            self.lib("daemon_restart osd.%d" % osd)
            ev["t1"] = now()
            # one OSD down at a time: wait until it is back and every PG active
            if self.lib("wait_osd %d up 90" % osd, timeout=120)[0]:
                self.problems.append("osd.%d did not come back up" % osd)
            ev["clean"] = not self.lib("wait_clean 90", timeout=120)[0]
        elif kind == "mon_restart":
            rc, _ = self.lib("daemon_kill mon.a")
            if rc:
                return None
            time.sleep(f["secs"])
            self.lib("daemon_restart mon.a")
            ev["t1"] = now()
            deadline = time.monotonic() + 90
            while self.ceph("status", timeout=30) and time.monotonic() < deadline:
                time.sleep(1)
        elif kind == "latency":
            ms = f["ms"]
            ev["ms"] = ms
            self.inject_latency(ms / 1000.0, 1)
            time.sleep(f["secs"])
            self.inject_latency(0, 0)
            ev["t1"] = now()
        self.record(ev)
        self.faults_done[kind] = self.faults_done.get(kind, 0) + 1
        return ev

    def wait_writing(self, k, c, secs=3.0):
        """Until the client has a write in flight (its log's last line begins one)."""
        path = os.path.join(self.hist, "c%d.%d.jsonl" % (k, c["inc"]))
        deadline = time.monotonic() + secs
        while time.monotonic() < deadline:
            try:
                with open(path, "rb") as f:
                    f.seek(max(0, os.path.getsize(path) - 2000))
                    lines = f.read().splitlines()[1:]
                recs = [json.loads(x) for x in lines]
                writes = {r["n"] for r in recs if r.get("ev") == "B"
                          and r.get("k") in ("write", "append", "wfull")}
                last = recs[-1] if recs else {}
                if c["mode"] in ("buf", "bufaio"):
                    # a buffered write just acknowledged: its bytes are in the window
                    if last.get("ev") == "E" and last.get("n") in writes and last.get("r", -1) >= 0:
                        return
                elif last.get("ev") == "B" and last.get("n") in writes:
                    return  # a write in flight
            except (OSError, ValueError):
                pass
            time.sleep(0.002)

    def inject_latency(self, secs, on):
        # Messages from clients held up to secs (connections made meanwhile), and
        # each op's dispatch delayed by secs with probability 1/2 (every op).
        args = ["--ms_inject_delay_type=client", "--ms_inject_delay_max=%f" % secs,
                "--ms_inject_delay_probability=%d" % on,
                "--osd_debug_inject_dispatch_delay_duration=%f" % secs,
                "--osd_debug_inject_dispatch_delay_probability=%s" % ("0.5" if on else "0")]
        for osd in range(3):
            self.ceph("tell", "osd.%d" % osd, "injectargs", " ".join(args), timeout=30)

    # ---- the run ----

    def run(self):
        a = self.a
        self.start_cluster()
        kinds = [k for k in (a.faults.split(",") if a.faults else FAULT_KINDS)
                 if k != "partition" or self.partition_ok]
        weights = {}
        for kv in filter(None, (a.fault_weights or "").split(",")):
            key, val = kv.split("=")
            weights[key] = float(val)
        targets = [int(x) for x in a.fault_clients.split(",")] if a.fault_clients else None
        sched = Schedule(a.seed, a.minutes * 60, a.clients, kinds, weights,
                         (a.gap_min, a.gap_max), targets)
        with open(os.path.join(self.hist, "schedule.json"), "w") as f:
            json.dump(sched.faults, f, indent=0)
        meta = {"seed": a.seed, "minutes": a.minutes, "clients": a.clients,
                "files": len(self.pools), "pools": a.pools.split(","),
                "prefix": self.prefix, "modes": [MODES[k % len(MODES)] for k in range(a.clients)],
                "libdir": a.libdir or ""}
        say("seed %d, %.1f min, %d clients (%s), files on pools %s, %d faults scheduled" %
            (a.seed, a.minutes, a.clients, " ".join(meta["modes"]), a.pools, len(sched.faults)))
        if a.cli:
            self.index(["create"])
        self.start_clients()
        t_start = now()
        meta["t_start"] = t_start
        t_end = t_start + int(a.minutes * 60e9)
        for f in sched.faults:
            self.sleep_until(t_start + int(f["at"] * 1e9))
            if now() >= t_end:
                break  # faults that ran long (an OSD slow to come back) left no time
            self.fault(f)
        self.sleep_until(t_start + int(a.minutes * 60e9))
        meta["t_end"] = now()
        self.stop_clients()
        self.lib("wait_clean 120", timeout=150)
        self.verify()
        if a.cli:
            self.index_check()
        meta["t_done"] = now()
        with open(os.path.join(self.hist, "meta.json"), "w") as f:
            json.dump(meta, f)

    def stop_clients(self):
        for k, c in enumerate(self.clients):
            if c["proc"].poll() is None:
                os.killpg(c["proc"].pid, signal.SIGCONT)
                c["proc"].send_signal(signal.SIGTERM)
        deadline = time.monotonic() + self.a.stop_timeout
        for k, c in enumerate(self.clients):
            try:
                c["proc"].wait(timeout=max(1, deadline - time.monotonic()))
                # A client spawned a moment before (after a kill) may not have set
                # its handler yet: SIGTERM's default action ends it, our doing.
                self.reap(k, "term" if c["proc"].returncode == -signal.SIGTERM else "own")
            except subprocess.TimeoutExpired:
                self.problems.append("client %d.%d (%s) did not stop within %d s of SIGTERM" %
                                     (k, c["inc"], c["mode"], self.a.stop_timeout))
                os.killpg(c["proc"].pid, signal.SIGKILL)
                self.reap(k, "kill")

    def verify(self):
        """A fresh client reads every file whole: the last reads of the history."""
        k = self.a.clients
        argv = self.client_argv(k, "verify", 0)
        with open(os.path.join(self.out, "verify.err"), "w") as err:
            try:
                p = subprocess.run(argv, env=self.client_env("verify"), stdout=err, stderr=err,
                                   timeout=300)
                if p.returncode:
                    self.problems.append("the verifying client exited with status %d" % p.returncode)
            except subprocess.TimeoutExpired:
                self.problems.append("the verifying client did not finish in 300 s")

    # ---- the namespace index (--cli): made before the clients, checked after ----

    def data_pools(self):
        return sorted({p.split("@")[0] for p in self.pools})

    def index(self, verb):
        """striped index VERB on every data pool at once (an EC pool's index in the replicated one)."""
        procs = []
        for pool in self.data_pools():
            extra = ["--index-pool", self.pool] if verb == ["create"] and pool != self.pool else []
            procs.append((pool, subprocess.Popen([self.a.cli, "--conf", self.env["CEPH_CONF"], "index"] +
                                                 verb + extra + [pool], env=self.env, text=True,
                                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
        out = {}
        for pool, p in procs:
            o, e = p.communicate(timeout=300)
            out[pool] = (p.returncode, o, e)
            # a cluster of someone else's (--cluster: defects.sh's runs share one) may have it
            if verb == ["create"] and p.returncode and not self.index_ready(pool):
                raise RuntimeError("striped index create %s: %s" % (pool, e.strip()))
        return out

    def index_ready(self, pool):
        p = subprocess.run([self.a.cli, "--conf", self.env["CEPH_CONF"], "index", "status", pool],
                           env=self.env, text=True, capture_output=True, timeout=120)
        return p.returncode == 0 and "index: ready" in p.stdout.splitlines()

    def index_check(self):
        """No file of the run the index misses; entries left by killed removers are counted."""
        stale = 0
        for pool, (rc, o, e) in self.index(["check"]).items():
            if rc not in (0, 1):
                self.problems.append("striped index check %s: %s" % (pool, e.strip()))
            for line in o.splitlines():
                kind, _, name = line.partition("\t")
                if not name.startswith(self.prefix):
                    continue
                if kind == "missing":
                    self.problems.append("the index misses %s/%s, a file the run made" % (pool, name))
                else:
                    stale += 1
        say("index: %d entr%s without a file (a remover killed between the two)" %
            (stale, "y" if stale == 1 else "ies"))

    def cleanup(self):
        for c in self.clients:
            p = c["proc"]
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
        for cg in self.cgroups:
            self.lib("partition_cleanup %s" % cg)
        self.stop_cluster()


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--minutes", type=float, default=2)
    p.add_argument("--clients", type=int, default=6)
    p.add_argument("--pools", default=FILE_POOLS,
                   help="the kind of pool of each file, in order: rep (replicated), ecow "
                   "(erasure coded with overwrites), ec (without: aligned appends only); "
                   "KIND/MODE: only the first client of that mode changes it; "
                   "default %s" % FILE_POOLS)
    p.add_argument("--dir", help="work directory (default: a new one under /tmp)")
    p.add_argument("--keep", action="store_true", help="keep the work directory also on success")
    p.add_argument("--faults", help="comma-separated fault kinds (default: all)")
    p.add_argument("--fault-weights", help="kind=weight,... after each kind's first time")
    p.add_argument("--gap-min", type=float, default=0.5, help="least seconds between faults")
    p.add_argument("--gap-max", type=float, default=3.0, help="most seconds between faults")
    p.add_argument("--fault-clients", help="comma-separated client numbers the client faults "
                   "hit (default: any)")
    p.add_argument("--client-weights", action="append",
                   help="operation weights (kind=w,...) for every client, or MODE[+MODE]:kind=w,... "
                   "for those of these modes; may be repeated")
    p.add_argument("--cluster", help="use this running cluster (a scripts/cluster --dir, 3 OSDs, "
                   "2 replicas) instead of starting one")
    p.add_argument("--fault-when-writing", action="store_true",
                   help="stop or cut off a client while it has a write in flight (up to 3 s "
                   "of waiting for one)")
    p.add_argument("--stop-timeout", type=int, default=90,
                   help="seconds a client has to stop after SIGTERM at the end")
    p.add_argument("--libdir", help="a directory whose libstriped.so.0 every client loads")
    p.add_argument("--check", metavar="HISTORY", help="only check a kept history directory")
    p.add_argument("--client", help="thrash_client")
    p.add_argument("--striper", help="thrash_striper")
    p.add_argument("--dd", help="striped-dd")
    p.add_argument("--compat", help="the directory of the drop-in libradosstriper.so.1")
    p.add_argument("--cli", help="striped: index the pools' names first, check the index after")
    return p.parse_args()


def summary(hist, extra_problems=()):
    res = checker.check_dir(hist)
    shown = res.known[:10] + res.violations[:40]
    with open(os.path.join(hist, "violations.txt"), "w") as f:
        for v in res.known + res.violations:
            f.write(v.text() + "\n")
    for v in shown:
        print(v.text())
    if len(shown) < len(res.known) + len(res.violations):
        rules = {}
        for v in res.known + res.violations:
            rules[v.known or v.rule] = rules.get(v.known or v.rule, 0) + 1
        say("%d more not shown (all in %s): %s" % (
            len(res.known) + len(res.violations) - len(shown),
            os.path.join(hist, "violations.txt"),
            ", ".join("%s %d" % kv for kv in sorted(rules.items()))))
    for prob in extra_problems:
        print("VIOLATION run: %s" % prob)
    nv = len(res.violations) + len(extra_problems)
    if res.known:
        names = sorted({v.known for v in res.known})
        say("known issues (reported, not fixed; THRASH_STRICT=1 counts them): %d (%s)"
            % (len(res.known), " ".join(names)))
        if os.environ.get("THRASH_STRICT") == "1":
            nv += len(res.known)
    kinds = " ".join("%s=%d" % kv for kv in sorted(res.fault_counts.items()))
    say("faults by kind: %s" % (kinds or "none"))
    say("ops/s: %.1f over %.0f s" % (res.ops_per_second(), res.seconds()))
    say("checked: %s" % ", ".join("%d %s" % (v, k) for k, v in res.checked.items()))
    if res.fenced_live:
        say("live clients fenced (neither stopped nor cut off in the 30 s before; not a "
            "violation): %d, first %s" % (len(res.fenced_live),
                                          checker.describe(res.fenced_live[0], res.t_start)))
    print("violations: %d faults: %d operations: %d" % (nv, res.faults, res.operations), flush=True)
    return nv


def main():
    a = parse()
    if a.check:
        sys.exit(1 if summary(a.check) else 0)
    for b in ("ceph-mon", "ceph-osd", "ceph"):
        if not shutil.which(b):
            print("thrash: SKIP: %s is not installed (scripts/setup-deps)" % b)
            sys.exit(77)
    for name in ("client", "striper", "dd", "compat"):
        if not getattr(a, name) or not os.path.exists(getattr(a, name)):
            print("thrash: --%s is missing (scripts/thrash finds the build)" % name)
            sys.exit(2)
    if not 1 <= len(a.pools.split(",")) <= 8:
        print("thrash: --pools: 1 to 8 files (thrash_client.c's MAX_FILES)")
        sys.exit(2)
    if a.libdir and not os.path.exists(os.path.join(a.libdir, "libstriped.so.0")):
        print("thrash: --libdir %s has no libstriped.so.0" % a.libdir)
        sys.exit(2)
    t = Thrash(a)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    nv = 1
    try:
        t.run()
        t.fault_log.close()
        nv = summary(t.hist, t.problems)
    except Exception as e:  # the run itself went wrong: keep everything
        print("thrash: the run failed: %s" % e, flush=True)
        print("violations: 1 faults: %d operations: 0" % sum(t.faults_done.values()))
    finally:
        t.cleanup()
    if nv:
        say("FAILED with seed %d; history and cluster logs kept in %s (replay: scripts/thrash "
            "--seed %d --minutes %g --clients %d; recheck: scripts/thrash --check %s)" %
            (a.seed, t.work, a.seed, a.minutes, a.clients, t.hist))
        sys.exit(1)
    if not a.keep:
        shutil.rmtree(t.work, ignore_errors=True)
    else:
        say("kept %s" % t.work)
    sys.exit(0)


if __name__ == "__main__":
    main()
