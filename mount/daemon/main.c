// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-mount: parse, check the cluster, mount, go to the background,
 * connect, serve with libfuse's multi-threaded loop; at SIGTERM, SIGINT,
 * SIGHUP or an unmount, send every open file's window and let go of its
 * lock, then unmount. librados' threads do not survive fork(), so the
 * daemon connects after fuse_daemonize(); a connection made and dropped
 * before it lets a bad pool or key fail the mount command itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "clock.h"
#include "drafts.h"
#include "kernel_io.h"
#include "ll.h"
#include "mount.h"
#include "open.h"
#include "opts.h"
#include "tool_connect.h"
#include "writeback.h"

#define HEAD_SUFFIX_LEN 17 /* ".%016x" */
#define MAX_THREADS 32
/*
 * glibc gives each thread that allocates an arena of its own (up to 8 per
 * CPU), and keeps what was freed in each: libfuse's workers and librados'
 * messenger and finisher threads each held tens of MiB of 1 MiB buffers
 * freed long ago. Copying 2 GiB (cp in and out, dd O_DIRECT in and out)
 * the daemon peaked at 256 MiB resident with glibc's default, 130 MiB with
 * 4 arenas, 120 MiB with 2, at the same speeds (load ~19).
 */
#define MALLOC_ARENAS 2
/*
 * FUSE requests in flight at once, and so the most a daemon holds for
 * O_DIRECT calls (1 MiB each): all 64 pieces of a 64 MiB call still go
 * out together.
 */
#define MAX_BACKGROUND 64

static int connect_pool(struct mount *m, char *err, size_t errlen)
{
	struct tool_conn c = {m->o.conf, m->o.id, m->o.name, m->o.keyring, m->o.op_timeout};
	char buf[32];
	int r = tool_connect(&c, &m->cluster, err, errlen);

	if (r)
		return r;
	r = rados_ioctx_create(m->cluster, m->o.pool, &m->io);
	if (r) {
		snprintf(err, errlen, "pool %s: %s", m->o.pool, strerror(-r));
		rados_shutdown(m->cluster);
		m->cluster = NULL;
		return r;
	}
	rados_ioctx_set_namespace(m->io, m->o.nspace);
	m->name_max = 2048 - HEAD_SUFFIX_LEN;
	if (!rados_conf_get(m->cluster, "osd_max_object_name_len", buf, sizeof(buf)))
		m->name_max = strtoull(buf, NULL, 10) - HEAD_SUFFIX_LEN;
	return 0;
}

static void disconnect(struct mount *m)
{
	if (m->io)
		rados_ioctx_destroy(m->io);
	if (m->cluster)
		rados_shutdown(m->cluster);
	m->io = NULL;
	m->cluster = NULL;
}

static void mount_init(void *userdata, struct fuse_conn_info *conn)
{
	struct mount *m = userdata;

	/* the pieces of one O_DIRECT call all in flight together */
	conn->want |= conn->capable & (FUSE_CAP_ASYNC_DIO | FUSE_CAP_ATOMIC_O_TRUNC |
				       FUSE_CAP_READDIRPLUS | FUSE_CAP_PARALLEL_DIROPS);
	/*
	 * Without HANDLE_KILLPRIV the kernel clears S_ISUID and S_ISGID itself
	 * (a SETATTR of the mode) at a truncate, a chown and a cached write;
	 * a direct write says so in its flags (kernel_io.c).
	 */
	conn->want &= ~(unsigned)(FUSE_CAP_READDIRPLUS_AUTO | FUSE_CAP_WRITEBACK_CACHE |
				  FUSE_CAP_HANDLE_KILLPRIV);
	if (m->o.kernel_cache)
		conn->want |= conn->capable & FUSE_CAP_WRITEBACK_CACHE;
	conn->max_background = MAX_BACKGROUND;
	conn->congestion_threshold = MAX_BACKGROUND * 3 / 4;
	conn->time_gran = 1;
}

static int serve(struct mount *m, const struct fuse_cmdline_opts *cmd)
{
	struct fuse_loop_config *cfg;
	int r;

	if (cmd->singlethread)
		return fuse_session_loop(m->se);
	cfg = fuse_loop_cfg_create();
	if (!cfg)
		return -ENOMEM;
	fuse_loop_cfg_set_clone_fd(cfg, cmd->clone_fd);
	fuse_loop_cfg_set_max_threads(cfg, MAX_THREADS);
	fuse_loop_cfg_set_idle_threads(cfg, cmd->max_idle_threads > 0 ? cmd->max_idle_threads : 10);
	r = fuse_session_loop_mt(m->se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return r;
}

/* Mount, detach, connect, serve; returns the exit status. */
static int run(struct mount *m, struct fuse_args *args, const struct fuse_cmdline_opts *cmd)
{
	struct fuse_lowlevel_ops ops = {.init = mount_init};
	char err[512];
	int r, status = 1;

	ll_init(&ops);
	m->se = fuse_session_new(args, &ops, sizeof(ops), m);
	if (!m->se)
		return 1;
	if (fuse_set_signal_handlers(m->se))
		goto out_session;
	if (fuse_session_mount(m->se, cmd->mountpoint))
		goto out_signals;
	r = kernel_io_attach(m->se);
	if (r) /* shared mappings of cached opens then get ENODEV, as before */
		syslog(LOG_WARNING, "striped-mount: custom FUSE I/O: %s", strerror(-r));
	fuse_daemonize(cmd->foreground);
	r = connect_pool(m, err, sizeof(err));
	if (r) {
		fprintf(stderr, "striped-mount: %s\n", err);
		syslog(LOG_ERR, "striped-mount: %s", err);
		goto out_unmount;
	}
	r = writeback_start(m, open_put_kept, drafts_write_asked, &m->wb);
	if (r) { /* a key that may not write: every close puts its file on RADOS */
		fprintf(stderr, "striped-mount: no write-back (sync_close): %s\n", strerror(-r));
		syslog(LOG_WARNING, "striped-mount: no write-back (sync_close): %s", strerror(-r));
	}
	status = serve(m, cmd) ? 1 : 0;
	if (m->wb) /* what it keeps is closed with every open file */
		writeback_stop(m->wb);
	if (open_close_all(m)) /* windows sent, locks let go of: then the mount goes */
		status = 1;
	writeback_end(m->wb);
	m->wb = NULL;
	listing_stop(&m->listing); /* no walk left running when the connection goes */
out_unmount:
	fuse_session_unmount(m->se);
out_signals:
	fuse_remove_signal_handlers(m->se);
out_session:
	fuse_session_destroy(m->se);
	disconnect(m);
	return status;
}

/* Before the mount: the cluster, the key and the pool answer. */
static int check_cluster(struct mount *m)
{
	char err[512];
	int r = connect_pool(m, err, sizeof(err));

	if (r)
		fprintf(stderr, "striped-mount: %s\n", err);
	disconnect(m);
	return r;
}

static int add_mount_options(struct fuse_args *args, const struct mount_opts *o)
{
	char fsname[1024];

	/* commas would split the option: the pool and namespace names rarely hold one */
	snprintf(fsname, sizeof(fsname), "-ofsname=%s,subtype=striped,default_permissions",
		 strchr(o->source, ',') ? "striped" : o->source);
	return fuse_opt_add_arg(args, fsname);
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts cmd;
	struct mount m;
	int r;

	mallopt(M_ARENA_MAX, MALLOC_ARENAS); /* before any thread allocates */
	memset(&m, 0, sizeof(m));
	r = mount_parse(&args, &m.o, &cmd);
	if (r)
		goto out;
	r = 1;
	if (add_mount_options(&args, &m.o) || nodes_init(&m.nodes))
		goto out;
	listing_init(&m.listing);
	m.started = clock_wall(); /* the time files and directories without one show */
	if (!check_cluster(&m))
		r = run(&m, &args, &cmd);
	listing_destroy(&m.listing);
	nodes_destroy(&m.nodes);
out:
	free(cmd.mountpoint);
	free(m.o.pool);
	free(m.o.nspace);
	fuse_opt_free_args(&args);
	return r < 0 ? 0 : r;
}
