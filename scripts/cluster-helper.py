#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""cluster-helper.py: what scripts/cluster asks of the cluster through librados.

  cluster-helper.py COMMAND CONF TIMEOUT [ARGS...]   (scripts/cluster runs it)

One interpreter start for a series of commands instead of one `ceph` run each.
"""
import json, os, sys, time, rados

def fail(msg):
    print("cluster: " + msg, file=sys.stderr)
    # the start's one-line reason (the first one given wins)
    reason = os.environ.get("CLUSTER_REASON")
    if reason and not os.path.exists(reason):
        with open(reason, "w") as f:
            print(msg, file=f)
    sys.exit(1)

def connect(conf, timeout):
    r = rados.Rados(conffile=conf)
    r.conf_set("rados_mon_op_timeout", str(timeout))
    r.conf_set("client_mount_timeout", str(timeout))
    try:
        r.connect(timeout=timeout)
    except Exception as e:
        fail("cannot connect to the monitor: %s" % e)
    return r

def mon(r, cmd, **kw):
    kw["prefix"] = cmd
    kw.setdefault("format", "json")
    ret, out, err = r.mon_command(json.dumps(kw), b"")
    if ret < 0:
        fail("'%s' failed: %s (%d)" % (cmd, err.strip(), ret))
    return json.loads(out) if out.strip() else None

def setup(conf, timeout, osds, pool, extra_pools, fs=None):
    r = connect(conf, timeout)
    # the balancer moves PGs about a minute after start: off, before the
    # mgr starts (a ceph.conf setting is ignored by the module)
    mon(r, "config set", who="mgr", name="mgr/balancer/active",
        value="false", force=True)
    for osd in osds:
        oid, uuid = osd.split(":")
        mon(r, "osd new", uuid=uuid, id=int(oid))
    for name, pgs, app, *kind in [(pool, 32, "rados")] + extra_pools:
        if kind:
            # Erasure coded 2+1, one chunk per OSD: what 3 OSDs hold.
            mon(r, "osd erasure-code-profile set", name="striped-ec21",
                profile=["k=2", "m=1", "crush-failure-domain=osd"])
            mon(r, "osd pool create", pool=name, pg_num=pgs, pgp_num=pgs,
                pool_type="erasure", erasure_code_profile="striped-ec21")
            if kind[0] == "ecow":
                mon(r, "osd pool set", pool=name, var="allow_ec_overwrites",
                    val="true")
        else:
            mon(r, "osd pool create", pool=name, pg_num=pgs, pgp_num=pgs,
                pool_type="replicated")
        mon(r, "osd pool application enable", pool=name, app=app,
            yes_i_really_mean_it=True)
    if fs:
        name, meta, data = fs.split(":")
        mon(r, "fs new", fs_name=name, metadata=meta, data=data)
    r.shutdown()

def wait_mds(conf, timeout, name):
    """Until rank 0 of file system name is up:active."""
    start = time.time()
    r = connect(conf, timeout)
    last = None
    while True:
        states = []
        for f in mon(r, "fs dump")["filesystems"]:
            if f["mdsmap"]["fs_name"] == name:
                states = [i["state"] for i in f["mdsmap"]["info"].values()]
        msg = "mds of %s: %s" % (name, ", ".join(states) or "none")
        if "up:active" in states:
            r.shutdown()
            return
        if time.time() - start > timeout:
            fail("timed out after %ds: %s" % (timeout, msg))
        if msg != last:
            print("cluster: " + msg, file=sys.stderr)
            last = msg
        time.sleep(0.2)

def probe_fs(conf, timeout, name):
    """Mount the file system through libcephfs, write, read back and
    unlink a file: the MDS answers and the data pool takes writes."""
    import cephfs
    path = "/cluster-probe"
    fsc = cephfs.LibCephFS(conffile=conf)
    try:
        fsc.conf_set("client_mount_timeout", str(timeout))
        fsc.mount(filesystem_name=name)
        fd = fsc.open(path, "w", 0o644)
        fsc.write(fd, b"probe", 0)
        fsc.fsync(fd, 0)
        fsc.close(fd)
        fd = fsc.open(path, "r", 0)
        back = fsc.read(fd, 0, 5)
        fsc.close(fd)
        fsc.unlink(path)
        if back != b"probe":
            fail("CephFS probe: read back %r" % back)
        fsc.unmount()
    except cephfs.Error as e:
        fail("CephFS probe on %s failed: %s" % (name, e))
    finally:
        fsc.shutdown()

def pg_states(r):
    ret, out, err = r.mgr_command(json.dumps({"prefix": "pg stat",
                                              "format": "json"}), b"")
    if ret < 0:
        return 0, 0, {}
    s = json.loads(out)
    s = s.get("pg_summary", s)
    states = {e["name"]: e["num"] for e in s.get("num_pg_by_state", [])}
    return s.get("num_pgs", 0), states.get("active+clean", 0), states

def give_pgs_their_lease(r, osdmap):
    """One more OSD map epoch once every PG is active, a while before any
    client op. Ceph 16.2 sets a PG's read-lease interval only when the PG
    advances to a new map (PeeringState::advance_map). A PG that an OSD
    instantiates at its newest epoch (an OSD that booted after the pool was
    made, given the PG by pg_create) runs with a lease of 0 s, renewing it
    without pause: the first client op turns it active+clean+laggy, and it
    stays so for minutes, later renewals with the right interval
    notwithstanding (seen here: up to 13 of 33 PGs, a million RenewLease
    events a minute in the OSD log). A PG that advances before it meets an
    op gets its interval and renews at once. Its advance waits behind those
    renewals in the OSD's queue (1 s seen): hence the pause. What still
    turns laggy, the probe finds (probe: its OSD is marked down)."""
    mon(r, "osd pool application set", pool=osdmap["pools"][0]["pool_name"],
        app="rados", key="sandbox-lease", value=str(osdmap["epoch"]))
    time.sleep(2)

def laggy_primaries(r):
    ret, out, _ = r.mgr_command(json.dumps({"prefix": "pg dump",
                                            "dumpcontents": ["pgs_brief"],
                                            "format": "json"}), b"")
    if ret < 0:
        return set()
    d = json.loads(out)
    stats = d.get("pg_stats", []) if isinstance(d, dict) else d
    return {p["acting_primary"] for p in stats if "laggy" in p["state"]}

def wait_clean(conf, timeout, nosds):
    start = time.time()
    r = connect(conf, timeout)
    last = None
    while True:
        osdmap = mon(r, "osd dump")
        up = sum(1 for o in osdmap["osds"] if o["up"] and o["in"])
        want = sum(p["pg_num"] for p in osdmap["pools"])
        mgr = mon(r, "mgr stat")
        total = clean = 0
        states = {}
        if mgr.get("available"):
            total, clean, states = pg_states(r)
        msg = "%d/%d osds up, mgr %s, %d/%d pgs active+clean" % (
            up, nosds, "up" if mgr.get("available") else "down", clean, want)
        if up == nosds and want > 0 and total == want and clean == want:
            give_pgs_their_lease(r, osdmap)
            r.shutdown()
            return
        if time.time() - start > timeout:
            fail("timed out after %ds: %s %s" % (timeout, msg, states))
        if msg != last:
            print("cluster: " + msg, file=sys.stderr)
            last = msg
        time.sleep(0.2)

def probe_once(io, names, window):
    """Write names (window in flight at a time), read them back, remove them;
    None or what failed."""
    pending = []
    try:
        for n in names:
            pending.append((n, io.aio_write_full(n, b"probe")))
            while pending and (len(pending) >= window or n == names[-1]):
                name, c = pending.pop(0)
                c.wait_for_complete()
                if c.get_return_value() < 0:
                    return "write of %s failed (%d)" % (name, c.get_return_value())
        for n in names:
            if io.read(n) != b"probe":
                return "read back of %s differs" % n
        for n in names:
            io.remove_object(n)
    except rados.Error as e:
        return str(e)
    return None

def wait_settled(r, timeout):
    """Until every PG is plainly active+clean (not laggy, not peering)."""
    end = time.time() + timeout
    while time.time() < end:
        total, clean, states = pg_states(r)
        if total and clean == total:
            return
        time.sleep(1)

def probe(conf, pool, nobj=512, op_timeout=30, tries=3):
    """Write, read and remove nobj small objects, enough to touch every PG.
    Seen here: right after start a PG can turn active+clean+laggy and hold
    its first client op for minutes while its OSD spins (on a busy host:
    another cluster starting or stopping beside this one); a probe with an
    op timeout finds that before any test does. A failed probe waits for the
    PGs to settle and tries again; after `tries` the start fails, saying
    what the PGs were doing."""
    r = rados.Rados(conffile=conf, name="client.admin",
                    conf={"rados_osd_op_timeout": str(op_timeout),
                          "rados_mon_op_timeout": str(op_timeout),
                          "client_mount_timeout": str(op_timeout)})
    r.connect(timeout=op_timeout)
    names = ["cluster-probe.%d" % i for i in range(nobj)]
    try:
        io = r.open_ioctx(pool)
        for t in range(1, tries + 1):
            err = probe_once(io, names, 64)
            if not err:
                break
            states = pg_states(r)[2]
            if t == tries:
                fail("I/O probe: %s, %d tries; pgs %s" % (err, tries, states))
            # A laggy PG stays so for minutes (give_pgs_their_lease): its
            # OSD, marked down, comes back up at once, and its PGs peer anew.
            osds = laggy_primaries(r)
            print("cluster: I/O probe: %s; pgs %s; again once they settle%s"
                  % (err, states, "; osd(s) %s marked down to re-peer"
                     % sorted(osds) if osds else ""), file=sys.stderr)
            if osds:
                mon(r, "osd down", ids=[str(i) for i in sorted(osds)])
            wait_settled(r, 60)
        io.close()
    except rados.Error as e:
        fail("I/O probe on pool %s failed: %s" % (pool, e))
    finally:
        r.shutdown()

cmd = sys.argv[1]
conf = sys.argv[2]
timeout = int(sys.argv[3])
if cmd == "setup":
    extra = [tuple(x.split(":")) for x in sys.argv[6].split(",") if x]
    extra = [(n, int(p), a, *kind) for n, p, a, *kind in extra]
    setup(conf, timeout, sys.argv[5].split(","), sys.argv[4], extra,
          sys.argv[7] if len(sys.argv) > 7 else None)
elif cmd == "wait-clean":
    wait_clean(conf, timeout, int(sys.argv[4]))
elif cmd == "probe":
    probe(conf, sys.argv[4])
elif cmd == "wait-mds":
    wait_mds(conf, timeout, sys.argv[4])
elif cmd == "probe-fs":
    probe_fs(conf, timeout, sys.argv[4])
