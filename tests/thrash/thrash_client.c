/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * thrash_client: one client of the thrasher (tests/thrash/thrash.py). It
 * runs random operations on a few shared striped files until SIGTERM (or
 * --ops), and logs each one to --log as two JSON lines: "B" when it starts
 * (the arguments) and "E" when it ends (the result, and what a read saw,
 * unit by unit). Times are CLOCK_MONOTONIC nanoseconds, comparable across
 * the processes of one host. The checker (checker.py) reads the logs.
 *
 *   thrash_client --mode MODE --client C --inc I --seed S --files N --prefix P
 *                 --log PATH [--pool POOL] [--pools POOL,POOL,...] [--id ID] [--keyring PATH]
 *                 [--span BYTES] [--ops N] [--weights k=w,...]
 *                 [--dd STRIPED_DD --tmp DIR]
 *   MODE: sync (unbuffered, synchronous calls), buf (buffered, synchronous),
 *         aio (unbuffered, up to 4 calls in flight), bufaio (buffered, aio),
 *         dd (every read and write through a striped-dd process),
 *         striper (libradosstriper's C API: built as thrash_striper, run on
 *         the drop-in through LD_LIBRARY_PATH), verify (open, stat, read
 *         every file whole, once, then exit: the end of a run)
 *
 * The cluster: CEPH_CONF, and STRIPED_TEST_POOL unless --pool; --pools
 * gives each file a pool of its own (in file order; the rest on --pool).
 * On a pool that takes only aligned appends (erasure coded without
 * overwrites: librados says so, and its stripe width) a file gets the calls
 * of ec_ops.c: writes at its end as a stat just saw it, and some the pool
 * refuses on purpose. Each file's pool, layout and stripe width are logged
 * first (an "X" line, "what":"file"), for the checker. Connections
 * go through striped_cluster_connect() (an address of each process's own).
 * A call that fails with -EBLOCKLISTED (this client was fenced) makes it
 * close everything, reconnect and go on. Each file's life (striper.id, read
 * with striped_head_read() before and after) is logged with each operation:
 * a handle's life is the one read on both sides of its open (the open is
 * retried until they agree); a call by name (striped-dd, libradosstriper)
 * gets the life read on both sides of it, or none when they differ.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rados/librados.h>
#include <striped.h>
#ifdef THRASH_STRIPER
#include <radosstriper/libradosstriper.h>
#endif

#include "ec_ops.h"
#include "unit.h"

#define MAX_FILES 8
#define AIO_DEPTH 4
#define XATTR_NAME "user.thrash"

enum mode { M_SYNC, M_BUF, M_AIO, M_BUFAIO, M_DD, M_STRIPER, M_VERIFY };
static const char *const mode_names[] = {"sync", "buf", "aio", "bufaio", "dd", "striper",
					 "verify"};

enum kind {
	K_WRITE, K_READ, K_APPEND, K_TRUNC, K_DISCARD, K_WFULL, K_STAT, K_FLUSH, K_REOPEN,
	K_REMOVE, K_SETX, K_GETX, K_RMX, K_N
};
static const char *const kind_names[] = {"write", "read", "append", "trunc", "discard",
					 "wfull", "stat",  "flush", "reopen", "remove",
					 "setx",  "getx",  "rmx"};
/* Default weights per kind. */
static int weights[K_N] = {30, 25, 4, 6, 4, 2, 6, 6, 3, 2, 3, 3, 1};

static struct {
	enum mode mode;
	unsigned client, inc, nfiles;
	uint64_t seed, span, max_ops;
	const char *pool, *pools, *id, *keyring, *log, *prefix, *dd, *tmp;
} opt = {.id = "fencer", .nfiles = 3, .span = 2 << 20};

static volatile sig_atomic_t stopping;
static int log_fd = -1;
static uint32_t opno;
static uint64_t rng_state;

static rados_t cluster;
static bool connected;

/* A pool some file lives on. */
struct pool {
	char name[128];
	rados_ioctx_t io;
	uint64_t align;	   /* its stripe width when erasure coded (0: replicated) */
	bool appends_only; /* erasure coded without overwrites: ec_ops.c's calls */
#ifdef THRASH_STRIPER
	rados_striper_t striper;
#endif
};
static struct pool pools[MAX_FILES];
static unsigned npools;

struct file {
	char name[128];
	struct pool *pool;
	int writer; /* the one client that changes it; -1: every client does */
	struct striped_layout layout;
	struct striped_file *f; /* sync, buf, aio, bufaio */
	uint64_t life;		/* the handle's; 0 unknown */
	unsigned handle;	/* counts the opens of this file */
	uint64_t read_next;	/* where this client's last read of it ended */
};
static struct file files[MAX_FILES];

/* ---- small things ---- */

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "thrash_client: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(void)
{
	rng_state += 0x9e3779b97f4a7c15ull;
	return unit_mix(rng_state);
}

/* Uniform in [0, n). */
static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

/* ---- the log: JSON lines, each written whole by one write(2) ---- */

struct jbuf {
	char *p;
	size_t len, cap;
};

static void jb_add(struct jbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			die("vsnprintf");
		if (b->len + (size_t)n < b->cap)
			break;
		b->cap = (b->cap + (size_t)n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("out of memory");
	}
	b->len += (size_t)n;
}

static void jb_emit(struct jbuf *b)
{
	jb_add(b, "}\n");
	for (size_t done = 0; done < b->len;) {
		ssize_t n = write(log_fd, b->p + done, b->len - done);
		if (n <= 0)
			die("cannot write the log: %s", strerror(errno));
		done += (size_t)n;
	}
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* One operation as the log knows it. */
struct op {
	uint32_t n;
	enum kind kind;
	unsigned fi;
	uint64_t off, len, size; /* size: trunc's target, stat's result */
	uint64_t t0, t1;
	int64_t r;
	uint64_t lives[2];
	int nlives;	      /* 0: unknown */
	bool by_handle;	      /* on files[fi].f */
	unsigned char *buf;   /* data of a write, or what a read gets */
	char xval[64];	      /* setx's value, getx's result */
	char msg[160];	      /* striped-dd's first line of error */
	struct striped_completion *c;
};

static void op_begin_log(struct op *o, const char *kind)
{
	struct jbuf b = {0};

	jb_add(&b, "{\"ev\":\"B\",\"c\":%u,\"i\":%u,\"n\":%" PRIu32 ",\"k\":\"%s\",\"m\":\"%s\"",
	       opt.client, opt.inc, o->n, kind, mode_names[opt.mode]);
	jb_add(&b, ",\"f\":%u,\"t\":%" PRIu64, o->fi, o->t0);
	if (o->by_handle)
		jb_add(&b, ",\"h\":%u", files[o->fi].handle);
	switch (o->kind) {
	case K_WRITE:
	case K_READ:
	case K_DISCARD:
		jb_add(&b, ",\"off\":%" PRIu64 ",\"len\":%" PRIu64, o->off, o->len);
		break;
	case K_APPEND:
	case K_WFULL:
		jb_add(&b, ",\"len\":%" PRIu64, o->len);
		break;
	case K_TRUNC:
		jb_add(&b, ",\"size\":%" PRIu64, o->size);
		break;
	case K_SETX:
		jb_add(&b, ",\"val\":\"%s\"", o->xval);
		break;
	default:
		break;
	}
	jb_emit(&b);
}

/* A read's bytes, unit by unit: runs of zeros, of one write's units, of garbage. */
static void log_segments(struct jbuf *b, const unsigned char *p, uint64_t n, uint64_t off)
{
	struct unit_id cur = {0}, id;
	int cur_kind = 2; /* 0 zeros, 1 units, -1 garbage, 2 none yet */
	uint64_t start = 0, count = 0;
	bool first = true;

	jb_add(b, ",\"segs\":[");
	for (uint64_t u = 0; u <= n / UNIT; u++) {
		int k = 2;
		bool extend = false;

		if (u < n / UNIT) {
			k = unit_decode(p + u * UNIT, &id);
			if (k == cur_kind && k != 1)
				extend = true;
			else if (k == 1 && cur_kind == 1 && id.client == cur.client &&
				 id.inc == cur.inc && id.op == cur.op && id.flags == cur.flags &&
				 id.off == cur.off + count * UNIT)
				extend = true;
		}
		if (extend) {
			count++;
			continue;
		}
		if (cur_kind != 2) {
			jb_add(b, "%s[%" PRIu64 ",%" PRIu64, first ? "" : ",", off + start * UNIT,
			       count);
			if (cur_kind == 0) {
				jb_add(b, ",\"Z\"]");
			} else if (cur_kind == -1) {
				const unsigned char *g = p + start * UNIT;
				jb_add(b, ",\"G\",\"");
				for (int i = 0; i < 16; i++)
					jb_add(b, "%02x", g[i]);
				jb_add(b, "\"]");
			} else {
				jb_add(b, ",%u,%u,%u,%" PRIu64 ",%u]", cur.client, cur.inc, cur.op,
				       cur.off, cur.flags);
			}
			first = false;
		}
		cur_kind = k;
		if (k == 1)
			cur = id;
		start = u;
		count = 1;
	}
	jb_add(b, "]");
	if (n % UNIT)
		jb_add(b, ",\"partial\":%" PRIu64, n % UNIT);
}

static void op_end_log(struct op *o)
{
	struct jbuf b = {0};

	jb_add(&b, "{\"ev\":\"E\",\"c\":%u,\"i\":%u,\"n\":%" PRIu32 ",\"t\":%" PRIu64 ",\"r\":%" PRId64,
	       opt.client, opt.inc, o->n, o->t1, o->r);
	jb_add(&b, ",\"L\":[");
	for (int i = 0; i < o->nlives; i++)
		jb_add(&b, "%s%" PRIu64, i ? "," : "", o->lives[i]);
	jb_add(&b, "]");
	if (o->kind == K_READ && o->r > 0)
		log_segments(&b, o->buf, (uint64_t)o->r, o->off);
	if (o->kind == K_STAT && o->r == 0)
		jb_add(&b, ",\"size\":%" PRIu64, o->size);
	if (o->kind == K_GETX && o->r >= 0)
		jb_add(&b, ",\"val\":\"%s\"", o->xval);
	if (o->msg[0])
		jb_add(&b, ",\"msg\":\"%s\"", o->msg);
	jb_emit(&b);
}

/* Anything else worth knowing (reconnects): one line. */
static void log_event(const char *what, int64_t r)
{
	struct jbuf b = {0};

	jb_add(&b, "{\"ev\":\"X\",\"c\":%u,\"i\":%u,\"t\":%" PRIu64 ",\"what\":\"%s\",\"r\":%" PRId64,
	       opt.client, opt.inc, now_ns(), what, r);
	jb_emit(&b);
}

/* ---- data ---- */

static unsigned char *make_data(uint32_t op, uint64_t off, uint64_t len, bool append)
{
	unsigned char *p = malloc(len ? len : 1);

	if (!p)
		die("out of memory");
	for (uint64_t u = 0; u < len / UNIT; u++) {
		struct unit_id id = {opt.client, opt.inc, op, append ? UNIT_APPEND : 0,
				     (append ? 0 : off) + u * UNIT};
		unit_encode(p + u * UNIT, &id);
	}
	return p;
}

/* ---- the cluster ---- */

static void pools_destroy(unsigned n)
{
	for (unsigned p = 0; p < n; p++) {
#ifdef THRASH_STRIPER
		rados_striper_destroy(pools[p].striper);
#endif
		rados_ioctx_destroy(pools[p].io);
	}
}

/* An I/O context on each pool, and what librados says the pool takes. */
static int pools_open(void)
{
	for (unsigned p = 0; p < npools; p++) {
		struct pool *pl = &pools[p];
		int appends_only = 0, r = rados_ioctx_create(cluster, pl->name, &pl->io);

		if (r) {
			pools_destroy(p);
			return r;
		}
		r = rados_ioctx_pool_requires_alignment2(pl->io, &appends_only);
		if (!r)
			r = rados_ioctx_pool_required_alignment2(pl->io, &pl->align);
		if (r)
			die("%s: what the pool takes: %s", pl->name, strerror(-r));
		pl->appends_only = appends_only;
		if (pl->appends_only && (!pl->align || pl->align % UNIT))
			die("%s: a stripe width of %" PRIu64 " (no multiple of %u)", pl->name,
			    pl->align, UNIT);
#ifdef THRASH_STRIPER
		r = rados_striper_create(pl->io, &pl->striper);
		if (r)
			die("rados_striper_create: %s", strerror(-r));
#endif
	}
	return 0;
}

static void cluster_connect(void)
{
	char name[128];
	int r;

	for (int attempt = 0;; attempt++) {
		snprintf(name, sizeof(name), "client.%s", opt.id);
		r = rados_create2(&cluster, "ceph", name, 0);
		if (!r)
			r = rados_conf_read_file(cluster, NULL);
		if (!r && opt.keyring)
			r = rados_conf_set(cluster, "keyring", opt.keyring);
		if (!r)
			r = rados_conf_set(cluster, "client_mount_timeout", "20");
		if (!r)
			r = striped_cluster_connect(cluster);
		if (!r)
			r = pools_open();
		if (!r)
			break;
		rados_shutdown(cluster);
		log_event("connect-failed", r);
		if (attempt > 30 || stopping)
			die("cannot connect: %s", strerror(-r));
		sleep(1);
	}
	connected = true;
}

static void cluster_shutdown(void)
{
	if (!connected)
		return;
	pools_destroy(npools);
	rados_shutdown(cluster);
	connected = false;
}

/* The file's life: its striper.id; 0 when there is no file (or no id). */
static int life_of(unsigned fi, uint64_t *id)
{
	struct striped_head h;
	int r = striped_head_read(files[fi].pool->io, files[fi].name, &h, sizeof(h));

	*id = r ? 0 : h.id;
	return r == -ENOENT ? 0 : r;
}

/* ---- handles (sync, buf, aio, bufaio) ---- */

static bool buffered(void)
{
	return opt.mode == M_BUF || opt.mode == M_BUFAIO;
}

static int64_t close_handle(unsigned fi)
{
	struct op o = {.n = ++opno, .kind = K_REOPEN, .fi = fi, .by_handle = true};

	if (!files[fi].f)
		return 0;
	if (files[fi].life)
		o.lives[o.nlives++] = files[fi].life;
	o.t0 = now_ns();
	op_begin_log(&o, "close");
	o.r = striped_close2(files[fi].f);
	o.t1 = now_ns();
	op_end_log(&o);
	files[fi].f = NULL;
	return o.r;
}

/*
 * Open files[fi] with STRIPED_CREATE, until the life read before and after
 * the open agrees (at most 5 tries; the life stays unknown otherwise).
 */
static int64_t open_handle(unsigned fi)
{
	for (int attempt = 0; attempt < 5; attempt++) {
		struct op o = {.n = ++opno, .kind = K_REOPEN, .fi = fi, .by_handle = true};
		uint64_t before, after;
		int flags = STRIPED_CREATE | (buffered() ? STRIPED_BUFFERED : 0);

		files[fi].handle++;
		o.t0 = now_ns();
		op_begin_log(&o, "open");
		int r = life_of(fi, &before);
		if (!r)
			r = striped_open(files[fi].pool->io, files[fi].name, flags,
					 &files[fi].layout, &files[fi].f);
		if (!r && life_of(fi, &after) == 0 && before && before == after) {
			o.lives[o.nlives++] = before;
			files[fi].life = before;
		} else {
			files[fi].life = 0;
		}
		o.r = r;
		o.t1 = now_ns();
		op_end_log(&o);
		if (r) {
			files[fi].f = NULL;
			return r;
		}
		if (buffered()) {
			struct striped_buffer_config cfg = STRIPED_BUFFER_CONFIG_INIT;
			cfg.window = (1 + below(8)) << 20;
			cfg.readahead_max = cfg.window / 2;
			striped_file_set_buffer(files[fi].f, &cfg, sizeof(cfg));
			/*
			 * Half of them (odd windows, no draw of the schedule's own)
			 * get a throttle below their readahead: segments wait for
			 * room, or are dropped when other calls hold it.
			 */
			if ((cfg.window >> 20) % 2)
				striped_file_set_throttle(files[fi].f, 4, 1 << 20);
		}
		if (files[fi].life || attempt == 4)
			return 0;
		close_handle(fi);
	}
	return 0;
}

/* ---- one operation, synchronous (all modes) ---- */

static void pick_args(struct op *o)
{
	uint64_t span_units = opt.span / UNIT;
	uint64_t r = below(100);

	/* Mostly small calls, some of a few objects. */
	if (r < 50)
		o->len = (1 + below(64)) * UNIT;
	else if (r < 90)
		o->len = (1 + below(1024)) * UNIT;
	else
		o->len = (1 + below(6144)) * UNIT;
	o->off = below(span_units) * UNIT;
	if (o->kind == K_READ && below(4) == 0)
		o->len = opt.span + (1 << 20); /* a whole-file read */
	/*
	 * Buffered readers: half their reads go on where their last one ended,
	 * so readahead runs (reads at random offsets never start it). Decided
	 * by the length's draw: the schedule draws nothing more.
	 */
	if (o->kind == K_READ && buffered() && r % 2 && files[o->fi].read_next < opt.span)
		o->off = files[o->fi].read_next;
	if (o->kind == K_READ)
		files[o->fi].read_next = o->off + o->len;
	/* Truncates: down mostly, sometimes up past the span. */
	o->size = below(span_units + span_units / 4) * UNIT;
}

static void handle_lives(struct op *o)
{
	if (files[o->fi].life)
		o->lives[o->nlives++] = files[o->fi].life;
}

/* Lives on both sides of a call by name: one when they agree, unknown otherwise. */
static void name_lives(struct op *o, uint64_t before)
{
	uint64_t after;

	if (o->kind == K_REMOVE && before)
		o->lives[o->nlives++] = before; /* the life it found (it removed that or a later one) */
	else if (life_of(o->fi, &after) == 0 && before && before == after)
		o->lives[o->nlives++] = before;
}

static void op_sync_handle(struct op *o)
{
	struct striped_file *f = files[o->fi].f;
	struct striped_stat st;

	switch (o->kind) {
	case K_WRITE:
		o->r = striped_write(f, o->buf, o->len, o->off);
		break;
	case K_READ:
		o->r = striped_read(f, o->buf, o->len, o->off);
		break;
	case K_APPEND:
		o->r = striped_append(f, o->buf, o->len);
		break;
	case K_TRUNC:
		o->r = striped_truncate(f, o->size);
		break;
	case K_DISCARD:
		o->r = striped_discard(f, o->off, o->len);
		break;
	case K_WFULL:
		o->r = striped_write_full(f, o->buf, o->len);
		break;
	case K_STAT:
		o->r = striped_fstat(f, &st, sizeof(st));
		o->size = st.size;
		break;
	case K_FLUSH:
		o->r = striped_flush(f);
		break;
	case K_SETX:
		o->r = striped_setxattr(f, XATTR_NAME, o->xval, strlen(o->xval));
		break;
	case K_GETX:
		o->r = striped_getxattr(f, XATTR_NAME, o->xval, sizeof(o->xval) - 1);
		if (o->r >= 0)
			o->xval[o->r] = 0;
		break;
	case K_RMX:
		o->r = striped_rmxattr(f, XATTR_NAME);
		break;
	default:
		o->r = -EINVAL;
	}
}

#ifdef THRASH_STRIPER
static void striper_layout(rados_striper_t striper, unsigned fi)
{
	rados_striper_set_object_layout_stripe_unit(striper, (unsigned)files[fi].layout.stripe_unit);
	rados_striper_set_object_layout_stripe_count(striper,
						     (unsigned)files[fi].layout.stripe_count);
	rados_striper_set_object_layout_object_size(striper, (unsigned)files[fi].layout.object_size);
}

static void op_striper(struct op *o)
{
	const char *name = files[o->fi].name;
	rados_striper_t striper = files[o->fi].pool->striper;
	uint64_t size;
	time_t mtime;

	striper_layout(striper, o->fi);
	switch (o->kind) {
	case K_WRITE:
		o->r = rados_striper_write(striper, name, (char *)o->buf, o->len, o->off);
		if (!o->r)
			o->r = (int64_t)o->len;
		break;
	case K_READ:
		o->r = rados_striper_read(striper, name, (char *)o->buf, o->len, o->off);
		break;
	case K_APPEND:
		o->r = rados_striper_append(striper, name, (char *)o->buf, o->len);
		if (!o->r)
			o->r = (int64_t)o->len;
		break;
	case K_TRUNC:
		o->r = rados_striper_trunc(striper, name, o->size);
		break;
	case K_WFULL:
		o->r = rados_striper_write_full(striper, name, (char *)o->buf, o->len);
		break;
	case K_STAT:
		o->r = rados_striper_stat(striper, name, &size, &mtime);
		o->size = size;
		break;
	case K_REMOVE:
		o->r = rados_striper_remove(striper, name);
		break;
	case K_SETX:
		o->r = rados_striper_setxattr(striper, name, XATTR_NAME, o->xval, strlen(o->xval));
		break;
	case K_GETX:
		o->r = rados_striper_getxattr(striper, name, XATTR_NAME, o->xval,
					      sizeof(o->xval) - 1);
		if (o->r >= 0)
			o->xval[o->r] = 0;
		break;
	case K_RMX:
		o->r = rados_striper_rmxattr(striper, name, XATTR_NAME);
		break;
	default:
		o->r = -EINVAL;
	}
}
#endif

/* ---- striped-dd ---- */

static int run_dd(struct op *o, char **argv)
{
	char errpath[512];
	int status;
	pid_t pid;

	snprintf(errpath, sizeof(errpath), "%s/dd-%u.err", opt.tmp, opt.client);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, 2);
			close(fd);
		}
		execv(opt.dd, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	FILE *e = fopen(errpath, "r");
	if (e) {
		if (fgets(o->msg, sizeof(o->msg), e)) {
			for (char *c = o->msg; *c; c++)
				if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
					*c = ' ';
		}
		fclose(e);
	}
	return -EIO;
}

/*
 * striped-dd has no stat: the dd client learns where a file ends (for its
 * writes on an append-only pool) from the head, by name, as any tool can.
 */
static void op_dd_stat(struct op *o)
{
	struct striped_head h;

	o->r = striped_head_read(files[o->fi].pool->io, files[o->fi].name, &h, sizeof(h));
	o->size = o->r ? 0 : h.size;
}

/*
 * A write striped-dd refused with "Operation not supported" is the pool's
 * refusal: -EOPNOTSUPP for the checker, as the library returned it. Only
 * on an append-only pool, where the write went as one call (bs= its
 * length), so that the refusal is of the whole write.
 */
static void dd_refusal(struct op *o)
{
	if (o->r && files[o->fi].pool->appends_only && strstr(o->msg, strerror(EOPNOTSUPP)))
		o->r = -EOPNOTSUPP;
}

static void op_dd(struct op *o)
{
	char data[512], uri[256], a[12][640];
	char *argv[16];
	int n = 0;

	if (o->kind == K_STAT) {
		op_dd_stat(o);
		return;
	}
	snprintf(data, sizeof(data), "%s/dd-%u.data", opt.tmp, opt.client);
	snprintf(uri, sizeof(uri), "rados://%s/%s", files[o->fi].pool->name, files[o->fi].name);
	argv[n++] = (char *)opt.dd;
	if (o->kind == K_WRITE) {
		int fd = open(data, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || write(fd, o->buf, o->len) != (ssize_t)o->len)
			die("cannot write %s", data);
		close(fd);
		snprintf(a[0], sizeof(a[0]), "if=%s", data);
		snprintf(a[1], sizeof(a[1]), "of=%s", uri);
		snprintf(a[2], sizeof(a[2]), "seek=%" PRIu64 "B", o->off);
		snprintf(a[3], sizeof(a[3]), "conv=notrunc");
		snprintf(a[4], sizeof(a[4]), "stripe_unit=%" PRIu64, files[o->fi].layout.stripe_unit);
		snprintf(a[5], sizeof(a[5]), "stripe_count=%" PRIu64,
			 files[o->fi].layout.stripe_count);
		snprintf(a[6], sizeof(a[6]), "object_size=%" PRIu64, files[o->fi].layout.object_size);
	} else {
		snprintf(a[0], sizeof(a[0]), "if=%s", uri);
		snprintf(a[1], sizeof(a[1]), "of=%s", data);
		snprintf(a[2], sizeof(a[2]), "skip=%" PRIu64 "B", o->off);
		snprintf(a[3], sizeof(a[3]), "count=%" PRIu64 "B", o->len);
		snprintf(a[4], sizeof(a[4]), "iflag=fullblock");
		snprintf(a[5], sizeof(a[5]), "status=none");
		snprintf(a[6], sizeof(a[6]), "iodepth=4");
	}
	/* One call per write on an append-only pool: its refusal is the whole write's. */
	if (o->kind == K_WRITE && files[o->fi].pool->appends_only)
		snprintf(a[7], sizeof(a[7]), "bs=%" PRIu64, o->len);
	else
		snprintf(a[7], sizeof(a[7]), "bs=65536");
	snprintf(a[8], sizeof(a[8]), "id=%s", opt.id);
	snprintf(a[9], sizeof(a[9]), "status=none");
	for (int i = 0; i < 10; i++)
		argv[n++] = a[i];
	if (opt.keyring) {
		snprintf(a[10], sizeof(a[10]), "keyring=%s", opt.keyring);
		argv[n++] = a[10];
	}
	argv[n] = NULL;
	o->r = run_dd(o, argv);
	if (o->kind == K_WRITE) {
		dd_refusal(o);
		if (!o->r)
			o->r = (int64_t)o->len;
	} else if (!o->r) {
		int fd = open(data, O_RDONLY);
		ssize_t got = fd < 0 ? -1 : read(fd, o->buf, o->len);
		if (fd >= 0)
			close(fd);
		o->r = got < 0 ? -EIO : got;
	}
}

/* ---- the loop ---- */

static enum kind pick_kind(void)
{
	int total = 0, r;

	for (int k = 0; k < K_N; k++)
		total += weights[k];
	r = (int)below((uint64_t)total);
	for (int k = 0; k < K_N; k++) {
		if (r < weights[k])
			return (enum kind)k;
		r -= weights[k];
	}
	return K_READ;
}

/* What this mode can do: others become a read. */
static enum kind fit_kind(enum kind k)
{
	switch (opt.mode) {
	case M_DD:
		return k == K_WRITE ? K_WRITE : K_READ;
	case M_STRIPER:
		return k == K_DISCARD || k == K_FLUSH || k == K_REOPEN ? K_READ : k;
	default:
		return k;
	}
}

/* On a file another client alone changes, what changes it becomes a read. */
static enum kind fit_file(enum kind k, unsigned fi)
{
	if (files[fi].writer < 0 || (unsigned)files[fi].writer == opt.client)
		return k;
	switch (k) {
	case K_WRITE:
	case K_APPEND:
	case K_TRUNC:
	case K_DISCARD:
	case K_WFULL:
	case K_REMOVE:
		return K_READ;
	default:
		return k;
	}
}

/* ---- files on a pool that takes only aligned appends (ec_ops.c) ---- */

static bool ec_file(unsigned fi)
{
	return files[fi].pool->appends_only;
}

/* Whether the write o is to go where the file ends (its size then learned by a stat). */
static bool ec_needs_end(const struct op *o)
{
	return o->kind == K_WRITE && ec_file(o->fi);
}

/* The kinds ec_ops.c shapes, by its enum (the others go as on any pool). */
static const enum kind ec_kinds[] = {
	[EC_WRITE] = K_WRITE, [EC_APPEND] = K_APPEND, [EC_TRUNC] = K_TRUNC,
	[EC_DISCARD] = K_DISCARD, [EC_WFULL] = K_WFULL,
};

/* o's arguments as such a pool allows them (and some it refuses on purpose). */
static void ec_args(struct op *o, uint64_t end)
{
	const struct striped_layout *l = &files[o->fi].layout;
	struct ec_file e = {files[o->fi].pool->align, l->stripe_count * l->object_size, opt.span,
			    opt.mode == M_DD};
	struct ec_call c = {0};
	unsigned k;

	for (k = 0; k < sizeof(ec_kinds) / sizeof(ec_kinds[0]) && ec_kinds[k] != o->kind; k++)
		;
	if (k == sizeof(ec_kinds) / sizeof(ec_kinds[0]))
		return;
	c.kind = (enum ec_kind)k;
	ec_shape(&e, end, &c, below);
	o->kind = ec_kinds[c.kind];
	o->off = c.off;
	o->len = c.len;
	o->size = c.size;
}

/* o's arguments (end: where its file ends, for a write on an append-only pool), and its data. */
static void prepare(struct op *o, uint64_t end)
{
	pick_args(o);
	if (o->kind == K_WFULL)
		o->len = (1 + below(2048)) * UNIT;
	if (ec_file(o->fi))
		ec_args(o, end);
	if (o->kind == K_WRITE || o->kind == K_APPEND || o->kind == K_WFULL) {
		o->buf = make_data(o->n, o->kind == K_WFULL ? 0 : o->off, o->len,
				   o->kind == K_APPEND);
	} else if (o->kind == K_READ) {
		o->buf = malloc(o->len);
		if (!o->buf)
			die("out of memory");
	} else if (o->kind == K_SETX) {
		snprintf(o->xval, sizeof(o->xval), "%u.%u.%u", opt.client, opt.inc, o->n);
	}
}

static bool fenced(int64_t r)
{
	return r == -ESHUTDOWN; /* -EBLOCKLISTED */
}

static void reconnect(void)
{
	for (unsigned fi = 0; fi < opt.nfiles; fi++)
		if (files[fi].f)
			close_handle(fi);
	cluster_shutdown();
	log_event("reconnect", 0);
	cluster_connect();
	if (opt.mode <= M_BUFAIO)
		for (unsigned fi = 0; fi < opt.nfiles; fi++)
			open_handle(fi);
}

/* A handle that failed with -ESTALE (its file removed, or re-created) is opened again. */
static void after(struct op *o)
{
	if (opt.mode <= M_BUFAIO && o->r == -ESTALE && files[o->fi].f) {
		close_handle(o->fi);
		open_handle(o->fi);
	}
}

/* After a synchronous call: reconnect when fenced, open a stale handle again. */
static void follow_up(struct op *o)
{
	if (fenced(o->r))
		reconnect();
	else
		after(o);
}

/*
 * Run o now, synchronously and logged, the way this client calls: through
 * its handle (opened first when needed), striped-dd or the striper. false:
 * not run (its handle could not be opened).
 */
static bool run_sync(struct op *o)
{
	uint64_t before = 0;

	o->by_handle = opt.mode <= M_BUFAIO && o->kind != K_REMOVE;
	if (o->by_handle && !files[o->fi].f && open_handle(o->fi) < 0)
		return false;
	if (o->by_handle)
		handle_lives(o);
	else
		life_of(o->fi, &before);
	o->t0 = now_ns();
	op_begin_log(o, kind_names[o->kind]);
	if (o->kind == K_REMOVE && opt.mode != M_STRIPER)
		o->r = striped_remove(files[o->fi].pool->io, files[o->fi].name);
	else if (o->by_handle)
		op_sync_handle(o);
	else if (opt.mode == M_DD)
		op_dd(o);
#ifdef THRASH_STRIPER
	else
		op_striper(o);
#endif
	o->t1 = now_ns();
	if (!o->by_handle)
		name_lives(o, before);
	op_end_log(o);
	return true;
}

/*
 * Where file fi ends now, by a stat of this client's way (an operation of
 * the history too), for a write that goes there on an append-only pool.
 * false: the stat failed (*failed: its result, dealt with by the caller).
 */
static bool ec_end(unsigned fi, uint64_t *end, int64_t *failed)
{
	struct op s = {.n = ++opno, .kind = K_STAT, .fi = fi};

	*failed = 0;
	if (!run_sync(&s))
		return false;
	*failed = s.r;
	*end = s.size;
	return s.r == 0;
}

static void one_sync(void)
{
	struct op o = {.kind = fit_kind(pick_kind()), .fi = (unsigned)below(opt.nfiles)};
	uint64_t end = 0;

	o.kind = fit_file(o.kind, o.fi);
	if (ec_needs_end(&o) && !ec_end(o.fi, &end, &o.r)) {
		follow_up(&o);
		return;
	}
	o.n = ++opno;
	prepare(&o, end);
	if (o.kind == K_REOPEN) {
		close_handle(o.fi);
		open_handle(o.fi);
		free(o.buf);
		return;
	}
	if (run_sync(&o))
		follow_up(&o);
	free(o.buf);
}

/* ---- aio: a few calls in flight at once ---- */

static void aio_done(struct striped_completion *c, void *arg)
{
	struct op *o = arg;

	(void)c;
	o->t1 = now_ns();
}

static int aio_start(struct op *o)
{
	struct striped_file *f = files[o->fi].f;
	int r = striped_completion_create(aio_done, o, &o->c);

	if (r)
		return r;
	switch (o->kind) {
	case K_WRITE:
		return striped_aio_write(f, o->c, o->buf, o->len, o->off);
	case K_READ:
		return striped_aio_read(f, o->c, o->buf, o->len, o->off);
	case K_APPEND:
		return striped_aio_append(f, o->c, o->buf, o->len);
	case K_TRUNC:
		return striped_aio_truncate(f, o->c, o->size);
	case K_DISCARD:
		return striped_aio_discard(f, o->c, o->off, o->len);
	case K_STAT:
		return striped_aio_stat(f, o->c, &o->size);
	case K_FLUSH:
		return striped_aio_flush(f, o->c);
	default:
		return -EINVAL;
	}
}

/*
 * Where a batch's next write on an append-only file goes: the file's end
 * as a stat saw it, moved by the batch's own writes there (in flight
 * together, they are sent in the order they were made: each lands where
 * the one before it ended).
 */
struct ec_next {
	bool known;
	uint64_t end;
};

/* The end o goes to (a stat when it is not known), or false: the stat failed. */
static bool ec_next_end(const struct op *o, struct ec_next *next, bool *any_fenced)
{
	int64_t failed;

	if (!ec_needs_end(o) || next->known)
		return true;
	next->known = ec_end(o->fi, &next->end, &failed);
	*any_fenced |= fenced(failed);
	return next->known;
}

/* o, prepared, moves the end the batch's next write goes to, or makes it unknown. */
static void ec_next_after(const struct op *o, struct ec_next *next)
{
	if (!ec_file(o->fi))
		return;
	if (o->kind == K_WRITE && o->off == next->end)
		next->end = o->off + o->len;
	else if (o->kind != K_READ && o->kind != K_STAT && o->kind != K_FLUSH &&
		 !(o->kind == K_WRITE && o->off < next->end))
		next->known = false; /* a change the batch cannot follow */
}

static void one_aio_batch(void)
{
	struct op ops[AIO_DEPTH];
	struct ec_next next[MAX_FILES] = {{0}};
	unsigned n = 1 + (unsigned)below(AIO_DEPTH), started = 0;
	bool any_fenced = false;

	memset(ops, 0, sizeof(ops));
	for (unsigned i = 0; i < n; i++) {
		struct op *o = &ops[i];
		o->kind = pick_kind();
		o->fi = (unsigned)below(opt.nfiles);
		o->kind = fit_file(o->kind, o->fi);
		if (o->kind > K_FLUSH || o->kind == K_WFULL) {
			/*
			 * Not asynchronous: alone, synchronously, before the batch's
			 * calls start (a reopen or a reconnect closes handles, which
			 * no call may have in flight); a read once they have.
			 */
			if (!started) {
				one_sync();
				continue;
			}
			o->kind = K_READ;
		}
		if (!ec_next_end(o, &next[o->fi], &any_fenced))
			o->kind = K_READ; /* its stat failed: what it says shows after the batch */
		o->n = ++opno;
		prepare(o, next[o->fi].end);
		ec_next_after(o, &next[o->fi]);
		o->by_handle = true;
		if (!files[o->fi].f && open_handle(o->fi) < 0) {
			free(o->buf);
			o->buf = NULL;
			continue;
		}
		handle_lives(o);
		o->t0 = now_ns();
		op_begin_log(o, kind_names[o->kind]);
		int r = aio_start(o);
		if (r) {
			/* refused before anything was sent */
			striped_completion_release(o->c);
			o->c = NULL;
			o->r = r;
			o->t1 = now_ns();
			op_end_log(o);
			free(o->buf);
			o->buf = NULL;
			any_fenced |= fenced(r);
			continue;
		}
		started++;
	}
	for (unsigned i = 0; i < n; i++) {
		struct op *o = &ops[i];
		if (!o->c)
			continue;
		striped_completion_wait(o->c);
		o->r = striped_completion_result(o->c);
		striped_completion_release(o->c);
		o->c = NULL;
		op_end_log(o);
		free(o->buf);
		o->buf = NULL;
		any_fenced |= fenced(o->r);
	}
	(void)started;
	if (any_fenced) {
		reconnect();
		return;
	}
	for (unsigned i = 0; i < n; i++)
		if (ops[i].n && ops[i].r == -ESTALE && files[ops[i].fi].f) {
			close_handle(ops[i].fi);
			open_handle(ops[i].fi);
		}
}

/* ---- verify: every file read whole, by a fresh client, once ---- */

static void verify_all(void)
{
	for (unsigned fi = 0; fi < opt.nfiles; fi++) {
		uint64_t life;
		struct striped_stat st;

		if (life_of(fi, &life) || !life)
			continue; /* no file: nothing to read */
		if (open_handle(fi) < 0 || !files[fi].f)
			continue;
		struct op s = {.n = ++opno, .kind = K_STAT, .fi = fi, .by_handle = true};
		handle_lives(&s);
		s.t0 = now_ns();
		op_begin_log(&s, "stat");
		s.r = striped_fstat(files[fi].f, &st, sizeof(st));
		s.size = st.size;
		s.t1 = now_ns();
		op_end_log(&s);
		for (uint64_t off = 0; s.r == 0 && off < st.size; off += 4 << 20) {
			struct op o = {.n = ++opno, .kind = K_READ, .fi = fi, .by_handle = true,
				       .off = off, .len = 4 << 20};
			o.buf = malloc(o.len);
			handle_lives(&o);
			o.t0 = now_ns();
			op_begin_log(&o, "read");
			o.r = striped_read(files[fi].f, o.buf, o.len, o.off);
			o.t1 = now_ns();
			op_end_log(&o);
			free(o.buf);
		}
		struct op x = {.n = ++opno, .kind = K_GETX, .fi = fi, .by_handle = true};
		handle_lives(&x);
		x.t0 = now_ns();
		op_begin_log(&x, "getx");
		op_sync_handle(&x);
		x.t1 = now_ns();
		op_end_log(&x);
		close_handle(fi);
	}
}

/* ---- main ---- */

static void parse_weights(const char *s)
{
	char *copy = strdup(s), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int k;
		if (!eq)
			die("--weights: %s", tok);
		*eq = 0;
		for (k = 0; k < K_N && strcmp(kind_names[k], tok); k++)
			;
		if (k == K_N)
			die("--weights: unknown kind %s", tok);
		weights[k] = atoi(eq + 1);
	}
	free(copy);
}

static void parse(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			die("%s needs a value", a);
		i++;
		if (!strcmp(a, "--mode")) {
			int m;
			for (m = 0; m <= M_VERIFY && strcmp(mode_names[m], v); m++)
				;
			if (m > M_VERIFY)
				die("unknown mode %s", v);
			opt.mode = (enum mode)m;
		} else if (!strcmp(a, "--client"))
			opt.client = (unsigned)atoi(v);
		else if (!strcmp(a, "--inc"))
			opt.inc = (unsigned)atoi(v);
		else if (!strcmp(a, "--seed"))
			opt.seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--files"))
			opt.nfiles = (unsigned)atoi(v);
		else if (!strcmp(a, "--span"))
			opt.span = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--ops"))
			opt.max_ops = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--pool"))
			opt.pool = v;
		else if (!strcmp(a, "--pools"))
			opt.pools = v;
		else if (!strcmp(a, "--id"))
			opt.id = v;
		else if (!strcmp(a, "--keyring"))
			opt.keyring = v;
		else if (!strcmp(a, "--log"))
			opt.log = v;
		else if (!strcmp(a, "--prefix"))
			opt.prefix = v;
		else if (!strcmp(a, "--dd"))
			opt.dd = v;
		else if (!strcmp(a, "--tmp"))
			opt.tmp = v;
		else if (!strcmp(a, "--weights"))
			parse_weights(v);
		else
			die("unknown option %s", a);
	}
	if (!opt.pool)
		opt.pool = getenv("STRIPED_TEST_POOL");
	if (!opt.pool || !opt.log || !opt.prefix || !opt.nfiles || opt.nfiles > MAX_FILES ||
	    opt.span % UNIT || !opt.span)
		die("usage: see the header of thrash_client.c");
	if (opt.mode == M_DD && (!opt.dd || !opt.tmp))
		die("--mode dd needs --dd and --tmp");
#ifndef THRASH_STRIPER
	if (opt.mode == M_STRIPER)
		die("--mode striper is thrash_striper's");
#endif
}

/* The pool named name (added when new). */
static struct pool *pool_named(const char *name, size_t len)
{
	for (unsigned p = 0; p < npools; p++)
		if (strlen(pools[p].name) == len && !strncmp(pools[p].name, name, len))
			return &pools[p];
	if (len >= sizeof(pools[0].name))
		die("pool name too long: %.*s", (int)len, name);
	memcpy(pools[npools].name, name, len);
	pools[npools].name[len] = 0;
	return &pools[npools++];
}

/*
 * Each file's pool: --pools in file order (POOL, or POOL@C: only client C
 * changes the file, the others read it), the rest on --pool.
 */
static void setup_pools(void)
{
	const char *p = opt.pools ? opt.pools : "";

	for (unsigned fi = 0; fi < opt.nfiles; fi++) {
		size_t len = strcspn(p, ","), name = strcspn(p, "@,");

		files[fi].writer = name < len ? atoi(p + name + 1) : -1;
		files[fi].pool = name ? pool_named(p, name) : pool_named(opt.pool, strlen(opt.pool));
		p += len + (p[len] == ',');
	}
}

/*
 * The files' layouts: small objects, so that calls span many of them; and
 * files 0 and 4 one 4 MiB object, so that calls cross the MiB boundaries
 * where the engine cuts an object's share into several operations (on an
 * append-only pool those operations must land in their order).
 */
static void setup_files(void)
{
	static const struct striped_layout layouts[] = {
	    {262144, 1, 4194304}, {65536, 3, 131072}, {131072, 2, 262144}, {65536, 2, 65536},
	    {262144, 1, 4194304}, {65536, 2, 131072}, {65536, 1, 65536},   {131072, 3, 131072}};

	for (unsigned fi = 0; fi < opt.nfiles; fi++) {
		snprintf(files[fi].name, sizeof(files[fi].name), "%s-%u", opt.prefix, fi);
		files[fi].layout = layouts[fi % MAX_FILES];
	}
	setup_pools();
}

/* Each file's pool, layout and what the pool takes, for the checker: one line each. */
static void log_files(void)
{
	for (unsigned fi = 0; fi < opt.nfiles; fi++) {
		const struct file *f = &files[fi];
		struct jbuf b = {0};

		jb_add(&b, "{\"ev\":\"X\",\"c\":%u,\"i\":%u,\"t\":%" PRIu64 ",\"what\":\"file\"",
		       opt.client, opt.inc, now_ns());
		jb_add(&b, ",\"f\":%u,\"pool\":\"%s\",\"su\":%" PRIu64 ",\"sc\":%" PRIu64
			   ",\"os\":%" PRIu64 ",\"align\":%" PRIu64 ",\"appends_only\":%d",
		       fi, f->pool->name, f->layout.stripe_unit, f->layout.stripe_count,
		       f->layout.object_size, f->pool->align, f->pool->appends_only);
		if (f->writer >= 0)
			jb_add(&b, ",\"writer\":%d", f->writer);
		jb_emit(&b);
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_term};

	parse(argc, argv);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rng_state = unit_mix(opt.seed) ^ unit_mix(((uint64_t)opt.client << 32) | opt.inc);
	log_fd = open(opt.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0)
		die("cannot open %s: %s", opt.log, strerror(errno));
	setup_files();
	cluster_connect();
	log_event("start", 0);
	log_files();
	if (opt.mode == M_VERIFY) {
		verify_all();
	} else {
		if (opt.mode <= M_BUFAIO)
			for (unsigned fi = 0; fi < opt.nfiles && !stopping; fi++)
				open_handle(fi);
		while (!stopping && (!opt.max_ops || opno < opt.max_ops)) {
			if (opt.mode == M_AIO || opt.mode == M_BUFAIO)
				one_aio_batch();
			else
				one_sync();
		}
		if (opt.mode <= M_BUFAIO)
			for (unsigned fi = 0; fi < opt.nfiles; fi++)
				close_handle(fi);
	}
	log_event("exit", 0);
	cluster_shutdown();
	return 0;
}
