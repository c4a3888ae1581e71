// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The benchmark programs' shared loop. A fixed number of slots (the calls in
 * flight) each own a buffer; the main thread takes a free slot, collects the
 * call that last used it, and starts the next call there. Completion
 * callbacks only hand their slot back, so the loop keeps exactly `depth`
 * calls in flight whichever order they finish in.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"

int bench_fail(const char *what, int err)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

/* ---- command line ---- */

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	default:
		break;
	}
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

static const char *const op_names[] = {"write",  "read",   "randwrite", "randread",
				       "remove", "append", "create"};

static int parse_op(const char *s, enum bench_op *op)
{
	size_t i;

	for (i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++) {
		if (!strcmp(s, op_names[i])) {
			*op = (enum bench_op)i;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *op_name(enum bench_op op)
{
	return op_names[op];
}

/* "su,sc,os", e.g. 4M,1,4M */
static int parse_layout(const char *s, struct bench_opts *o)
{
	char copy[128], *save = NULL, *tok;
	uint64_t *fields[] = {&o->stripe_unit, &o->stripe_count, &o->object_size};
	int i = 0;

	if (strlen(s) >= sizeof(copy))
		return -EINVAL;
	strcpy(copy, s);
	for (tok = strtok_r(copy, ",", &save); tok && i < 3; tok = strtok_r(NULL, ",", &save))
		if (parse_size(tok, fields[i++]))
			return -EINVAL;
	return i == 3 && !tok ? 0 : -EINVAL;
}

static void usage(const char *system)
{
	fprintf(stderr,
		"usage: %s --name NAME --op write|read|randwrite|randread|remove|append|create\n"
		"       [--bs SIZE] [--total SIZE] [--span SIZE] [--depth N] [--layout SU,SC,OS]\n"
		"       [--throttle-ops N] [--sync] [--pool POOL] [--conf PATH] [--seed N]\n"
		"       [--system LABEL] [--zero-copy] [--offset SIZE] [--existing]\n"
		"       [--start-at EPOCH-SECONDS] [--fs NAME] [--with-size] [--buffered]\n"
		"       [--window SIZE] [--batch]\n"
		"SIZE takes K, M, G (powers of 1024). Pool, conf and fs default to\n"
		"$STRIPED_TEST_POOL, $CEPH_CONF and $STRIPED_TEST_FS. Prints one JSON object\n"
		"on stdout. --offset: sequential calls start there; --existing: the file must\n"
		"exist (not created); --start-at: the timed loop starts at that wall-clock\n"
		"time (processes started together); append: total / bs calls of bs bytes at\n"
		"the end; create: an empty file, nothing else. --with-size (raw, sync\n"
		"append): each call also stores its end on a second object, both at once.\n"
		"--buffered: the client's own buffering (libstriped: STRIPED_BUFFERED with a\n"
		"--window of SIZE; CephFS: no O_DIRECT; librbd: rbd_cache); a write run\n"
		"ends with the client's flush, inside the timed run. --batch: depth calls\n"
		"at a time, each batch completed before the next one starts (striped-dd's\n"
		"oflag=direct: one block of depth objects in flight, drained before the next).\n",
		system);
}

static int check_opts(const struct bench_opts *o, unsigned int flags)
{
	if ((!o->pool && !(flags & BENCH_NO_POOL)) || !o->name || !o->bs || !o->depth ||
	    !o->object_size)
		return -EINVAL;
	if ((o->op == BENCH_RANDWRITE || o->op == BENCH_RANDREAD) && o->span < o->bs)
		return -EINVAL;
	return 0;
}

static int apply_opt(struct bench_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'p':
		o->pool = arg;
		return 0;
	case 'c':
		o->conf = arg;
		return 0;
	case 'n':
		o->name = arg;
		return 0;
	case 'o':
		return parse_op(arg, &o->op);
	case 'b':
		return parse_size(arg, &o->bs);
	case 't':
		return parse_size(arg, &o->total);
	case 's':
		return parse_size(arg, &o->span);
	case 'd':
		o->depth = (uint32_t)strtoul(arg, NULL, 10);
		return 0;
	case 'l':
		return parse_layout(arg, o);
	case 'T':
		o->throttle_ops = (uint32_t)strtoul(arg, NULL, 10);
		return 0;
	case 'S':
		o->sync = true;
		return 0;
	case 'r':
		o->seed = strtoull(arg, NULL, 10);
		return 0;
	case 'y':
		o->system = arg;
		return 0;
	case 'z':
		o->zero_copy = true;
		return 0;
	case 'O':
		return parse_size(arg, &o->offset);
	case 'e':
		o->existing = true;
		return 0;
	case 'a': {
		char *end;

		o->start_at = strtod(arg, &end);
		return *end || o->start_at < 0 ? -EINVAL : 0;
	}
	case 'f':
		o->fs = arg;
		return 0;
	case 'W':
		o->with_size = true;
		return 0;
	case 'K':
		o->batch = true;
		return 0;
	case 'B':
		o->buffered = true;
		return 0;
	case 'w':
		return parse_size(arg, &o->window);
	default:
		return -EINVAL;
	}
}

int bench_parse(struct bench_opts *o, int argc, char **argv, const char *system)
{
	return bench_parse_flags(o, argc, argv, system, 0);
}

int bench_parse_flags(struct bench_opts *o, int argc, char **argv, const char *system,
		      unsigned int flags)
{
	static const struct option longopts[] = {{"pool", required_argument, NULL, 'p'},
						 {"conf", required_argument, NULL, 'c'},
						 {"name", required_argument, NULL, 'n'},
						 {"op", required_argument, NULL, 'o'},
						 {"bs", required_argument, NULL, 'b'},
						 {"total", required_argument, NULL, 't'},
						 {"span", required_argument, NULL, 's'},
						 {"depth", required_argument, NULL, 'd'},
						 {"layout", required_argument, NULL, 'l'},
						 {"throttle-ops", required_argument, NULL, 'T'},
						 {"sync", no_argument, NULL, 'S'},
						 {"seed", required_argument, NULL, 'r'},
						 {"system", required_argument, NULL, 'y'},
						 {"zero-copy", no_argument, NULL, 'z'},
						 {"offset", required_argument, NULL, 'O'},
						 {"existing", no_argument, NULL, 'e'},
						 {"start-at", required_argument, NULL, 'a'},
						 {"fs", required_argument, NULL, 'f'},
						 {"with-size", no_argument, NULL, 'W'},
						 {"batch", no_argument, NULL, 'K'},
						 {"buffered", no_argument, NULL, 'B'},
						 {"window", required_argument, NULL, 'w'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	int c;

	memset(o, 0, sizeof(*o));
	o->system = system;
	o->pool = getenv("STRIPED_TEST_POOL");
	o->conf = getenv("CEPH_CONF");
	o->fs = getenv("STRIPED_TEST_FS");
	o->bs = 4 << 20;
	o->total = 1ull << 30;
	o->depth = 1;
	o->stripe_unit = 4 << 20;
	o->stripe_count = 1;
	o->object_size = 4 << 20;
	o->seed = 42;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'h' || apply_opt(o, c, optarg)) {
			usage(system);
			return c == 'h' ? 1 : -EINVAL;
		}
	}
	if (optind != argc || check_opts(o, flags)) {
		usage(system);
		return -EINVAL;
	}
	if (o->sync)
		o->depth = 1;
	return 0;
}

/* ---- setup ---- */

static int connect_pool(struct bench *b)
{
	int r = rados_create(&b->cluster, NULL);

	if (r < 0)
		return r;
	r = rados_conf_read_file(b->cluster, b->o.conf);
	if (r < 0)
		return r;
	r = rados_connect(b->cluster);
	if (r < 0)
		return r;
	return rados_ioctx_create(b->cluster, b->o.pool, &b->io);
}

/* Data that no layer could take for zeros or compress away. */
static void fill_pattern(char *buf, uint64_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1, i;

	for (i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
}

static int slots_init(struct bench *b)
{
	struct bench_slots *s = &b->slots;
	uint32_t i;

	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->depth = b->o.depth;
	s->free = calloc(s->depth, sizeof(*s->free));
	b->bufs = calloc(s->depth, sizeof(*b->bufs));
	b->busy = calloc(s->depth, sizeof(*b->busy));
	b->submitted_ns = calloc(s->depth, sizeof(*b->submitted_ns));
	if (!s->free || !b->bufs || !b->busy || !b->submitted_ns)
		return -ENOMEM;
	for (i = 0; i < s->depth; i++) {
		s->free[i] = s->depth - 1 - i;
		if (posix_memalign((void **)&b->bufs[i], 4096, b->o.bs))
			return -ENOMEM;
		fill_pattern(b->bufs[i], b->o.bs, i + 1);
	}
	s->nfree = s->depth;
	return 0;
}

int bench_setup(struct bench *b)
{
	int r = connect_pool(b);

	if (r < 0)
		return r;
	return bench_setup_buffers(b);
}

int bench_setup_buffers(struct bench *b)
{
	if (b->o.op == BENCH_REMOVE || b->o.op == BENCH_CREATE)
		return 0;
	return slots_init(b);
}

void bench_teardown(struct bench *b)
{
	uint32_t i;

	if (b->bufs)
		for (i = 0; i < b->slots.depth; i++)
			free(b->bufs[i]);
	free(b->bufs);
	free(b->busy);
	free(b->submitted_ns);
	free(b->slots.free);
	free(b->res.lat_ns);
	if (b->io)
		rados_ioctx_destroy(b->io);
	if (b->cluster)
		rados_shutdown(b->cluster);
}

/* ---- the loop ---- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One call's latency (the array has room for every call of the run). */
static void note_latency(struct bench_result *r, uint64_t ns)
{
	if (r->lat_ns)
		r->lat_ns[r->nlat++] = ns;
}

void bench_slot_done(struct bench *b, uint32_t slot, int result)
{
	struct bench_slots *s = &b->slots;
	uint64_t t0 = b->submitted_ns ? b->submitted_ns[slot] : 0;
	uint64_t t1 = now_ns();

	pthread_mutex_lock(&s->lock);
	if (t0)
		note_latency(&b->res, t1 - t0);
	if (result < 0 && !s->first_error)
		s->first_error = result;
	s->free[s->nfree++] = slot;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static uint32_t slot_take(struct bench *b)
{
	struct bench_slots *s = &b->slots;
	uint32_t slot;

	pthread_mutex_lock(&s->lock);
	while (!s->nfree)
		pthread_cond_wait(&s->cond, &s->lock);
	slot = s->free[--s->nfree];
	pthread_mutex_unlock(&s->lock);
	return slot;
}

static int slots_drain(struct bench *b)
{
	struct bench_slots *s = &b->slots;
	int err;

	pthread_mutex_lock(&s->lock);
	while (s->nfree < s->depth)
		pthread_cond_wait(&s->cond, &s->lock);
	err = s->first_error;
	pthread_mutex_unlock(&s->lock);
	return err;
}

static uint64_t next_random(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dull;
}

/*
 * Offset of call i: sequential from --offset, or a uniformly drawn
 * bs-aligned block of the span. Appends ignore it (the end is theirs).
 */
static uint64_t call_offset(struct bench *b, uint64_t i, uint64_t *rng)
{
	if (b->o.op == BENCH_RANDWRITE || b->o.op == BENCH_RANDREAD)
		return next_random(rng) % (b->o.span / b->o.bs) * b->o.bs;
	return b->o.offset + i * b->o.bs;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --start-at: sleep until that wall-clock time (at once if it has passed). */
static void wait_start(const struct bench *b)
{
	struct timespec ts;

	if (b->o.start_at <= 0)
		return;
	ts.tv_sec = (time_t)b->o.start_at;
	ts.tv_nsec = (long)((b->o.start_at - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static uint64_t rss_max_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_maxrss;
}

static void cpu_now(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int run_async(struct bench *b, const struct bench_engine *e, uint64_t calls)
{
	uint64_t i, rng = b->o.seed | 1;
	uint32_t slot;
	double t0;
	int r = 0;

	for (i = 0; i < calls; i++) {
		uint64_t off = call_offset(b, i, &rng);
		uint64_t len =
		    b->o.total - i * b->o.bs < b->o.bs ? b->o.total - i * b->o.bs : b->o.bs;

		if (b->o.batch && i && i % b->o.depth == 0) {
			r = slots_drain(b);
			if (r)
				break;
		}
		slot = slot_take(b);
		if (b->busy[slot])
			e->reap(b, slot);
		b->busy[slot] = false;
		b->submitted_ns[slot] = now_ns();
		t0 = now_s();
		r = e->submit(b, slot, off, len);
		b->res.submit_seconds += now_s() - t0;
		if (r < 0) {
			b->submitted_ns[slot] = 0; /* not a call: nothing to time */
			bench_slot_done(b, slot, 0);
			break;
		}
		b->busy[slot] = true;
	}
	r = r ? r : slots_drain(b);
	for (slot = 0; slot < b->slots.depth; slot++)
		if (b->busy[slot])
			e->reap(b, slot);
	return r ? r : slots_drain(b);
}

static int run_sync(struct bench *b, const struct bench_engine *e, uint64_t calls)
{
	uint64_t i, rng = b->o.seed | 1;
	int r = 0;

	for (i = 0; i < calls && !r; i++) {
		uint64_t off = call_offset(b, i, &rng);
		uint64_t len =
		    b->o.total - i * b->o.bs < b->o.bs ? b->o.total - i * b->o.bs : b->o.bs;
		uint64_t t0 = now_ns();

		r = e->sync_call(b, 0, off, len);
		note_latency(&b->res, now_ns() - t0);
	}
	return r;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, c = *(const uint64_t *)y;

	return a < c ? -1 : a > c;
}

/* Nearest-rank percentile (per_1000 / 10 percent) of the sorted latencies, in ms. */
static double latency_ms(const struct bench_result *r, unsigned per_1000)
{
	uint64_t rank = (r->nlat * per_1000 + 999) / 1000;

	return r->nlat ? (double)r->lat_ns[rank ? rank - 1 : 0] / 1e6 : 0;
}

int bench_run(struct bench *b, const struct bench_engine *e)
{
	uint64_t calls = (b->o.total + b->o.bs - 1) / b->o.bs;
	double t0, u0, s0, u1, s1;
	int r;

	if (b->o.sync && !e->sync_call)
		return -EOPNOTSUPP;
	free(b->res.lat_ns);
	b->res.nlat = 0;
	b->res.lat_ns = calloc(calls ? calls : 1, sizeof(*b->res.lat_ns));
	if (!b->res.lat_ns)
		return -ENOMEM;
	wait_start(b);
	cpu_now(&u0, &s0);
	b->res.t_start = wall_now_s();
	t0 = now_s();
	r = b->o.sync ? run_sync(b, e, calls) : run_async(b, e, calls);
	if (!r && e->finish)
		r = e->finish(b);
	b->res.seconds = now_s() - t0;
	b->res.t_end = wall_now_s();
	cpu_now(&u1, &s1);
	b->res.rss_max_kib = rss_max_kib();
	b->res.cpu_user = u1 - u0;
	b->res.cpu_sys = s1 - s0;
	b->res.calls = calls;
	b->res.bytes = b->o.total;
	qsort(b->res.lat_ns, b->res.nlat, sizeof(*b->res.lat_ns), cmp_u64);
	return r;
}

void bench_report(const struct bench *b)
{
	const struct bench_result *r = &b->res;
	double cpu = r->cpu_user + r->cpu_sys;
	double gib = (double)r->bytes / (1 << 30);

	printf("{\"system\": \"%s\", \"op\": \"%s\", \"bs\": %" PRIu64 ", \"depth\": %u, "
	       "\"sync\": %s, \"calls\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"seconds\": %.6f, "
	       "\"mib_per_s\": %.3f, \"iops\": %.1f, \"cpu_user\": %.4f, \"cpu_sys\": %.4f, "
	       "\"cpu_s\": %.4f, \"cpu_s_per_gib\": %.4f, \"obj_ops\": %" PRIu64 ", "
	       "\"max_in_flight\": %" PRIu64 ", \"file_max_in_flight\": %" PRIu64 ", "
	       "\"throttle_waits\": %" PRIu64 ", \"submit_seconds\": %.6f, "
	       "\"offset\": %" PRIu64 ", \"t_start\": %.6f, \"t_end\": %.6f, "
	       "\"buffered\": %s, \"batch\": %s, \"rss_max_kib\": %" PRIu64 ", ",
	       b->o.system, op_name(b->o.op), b->o.bs, b->o.depth, b->o.sync ? "true" : "false",
	       r->calls, r->bytes, r->seconds, (double)r->bytes / (1 << 20) / r->seconds,
	       (double)r->calls / r->seconds, r->cpu_user, r->cpu_sys, cpu, gib > 0 ? cpu / gib : 0,
	       r->obj_ops, r->max_in_flight, r->file_max_in_flight, r->throttle_waits,
	       r->submit_seconds, b->o.offset, r->t_start, r->t_end,
	       b->o.buffered ? "true" : "false", b->o.batch ? "true" : "false", r->rss_max_kib);
	/* per call, submission to completion, exact (every call's latency, sorted) */
	printf("\"lat_calls\": %" PRIu64 ", \"lat_p50_ms\": %.3f, \"lat_p99_ms\": %.3f, "
	       "\"lat_p999_ms\": %.3f, \"lat_max_ms\": %.3f",
	       r->nlat, latency_ms(r, 500), latency_ms(r, 990), latency_ms(r, 999),
	       latency_ms(r, 1000));
	if (r->lib_lat)
		printf(", \"lib_p50_ms\": %.3f, \"lib_p99_ms\": %.3f, \"lib_p999_ms\": %.3f",
		       (double)r->lib_p50_ns / 1e6, (double)r->lib_p99_ns / 1e6,
		       (double)r->lib_p999_ns / 1e6);
	printf("}\n");
	fflush(stdout);
}

void bench_object_name(const char *name, uint64_t objectno, char *buf, size_t len)
{
	snprintf(buf, len, "%s.%016llx", name, (unsigned long long)objectno);
}
