// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped dropin status [PID...]: which libradosstriper.so.1 each process
 * has loaded, from its /proc/PID/maps: libstriped's drop-in or Ceph's (the
 * one that needs libstriped.so.0 is the drop-in, dropin.h), with the path
 * it was loaded from. Without a PID, every process that has one. What a
 * process loaded stays until it exits: a switch (doc/dropin.md)
 * shows here once the process was restarted. No cluster, no lock.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "dropin.h"

enum impl { IMPL_NONE, IMPL_DROPIN, IMPL_CEPH, IMPL_UNKNOWN };

static const char *const impl_names[] = {
    [IMPL_NONE] = "none",
    [IMPL_DROPIN] = "libstriped",
    [IMPL_CEPH] = "ceph",
    [IMPL_UNKNOWN] = "unknown",
};

/* What one process has. */
struct proc_dropin {
	long pid;
	char comm[64];
	char path[PATH_MAX];
	bool deleted;
	enum impl impl;
	int err; /* IMPL_UNKNOWN: why the file could not be read (-errno) */
};

/* Whether the mapped file needs libstriped.so.0; -errno when it cannot be read. */
static int file_is_dropin(int fd)
{
	struct stat st;
	void *buf;
	int r;

	if (fstat(fd, &st))
		return -errno;
	if (!st.st_size)
		return -ENOEXEC;
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (buf == MAP_FAILED)
		return -errno;
	r = dropin_elf_needs(buf, (size_t)st.st_size, DROPIN_NEEDS);
	munmap(buf, (size_t)st.st_size);
	return r;
}

/*
 * The file behind a mapping: through map_files/, which also reaches a file
 * removed or replaced since (root only), else by its path.
 */
static void classify(struct proc_dropin *p, const struct dropin_map *m)
{
	char mf[96];
	int fd, r;

	snprintf(mf, sizeof(mf), "/proc/%ld/map_files/%" PRIx64 "-%" PRIx64, p->pid, m->start,
		 m->end);
	fd = open(mf, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && !m->deleted)
		fd = open(p->path, O_RDONLY | O_CLOEXEC);
	r = fd < 0 ? -errno : file_is_dropin(fd);
	if (fd >= 0)
		close(fd);
	p->impl = r < 0 ? IMPL_UNKNOWN : r ? IMPL_DROPIN : IMPL_CEPH;
	p->err = r < 0 ? r : 0;
}

static void read_comm(struct proc_dropin *p)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/comm", p->pid);
	f = fopen(path, "re");
	if (!f || !fgets(p->comm, sizeof(p->comm), f))
		p->comm[0] = 0;
	p->comm[strcspn(p->comm, "\n")] = 0;
	if (f)
		fclose(f);
}

/* Fills *p from /proc/PID/maps; 0, or -errno when the process cannot be read. */
static int proc_read(long pid, struct proc_dropin *p)
{
	char path[64], *line = NULL;
	struct dropin_map m;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	*p = (struct proc_dropin){.pid = pid, .impl = IMPL_NONE};
	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	read_comm(p);
	while ((n = getline(&line, &cap, f)) > 0) {
		if (dropin_map_parse(line, (size_t)n, &m) != 1)
			continue;
		snprintf(p->path, sizeof(p->path), "%.*s", (int)m.path_len, m.path);
		p->deleted = m.deleted;
		classify(p, &m);
		break;
	}
	free(line);
	fclose(f);
	return 0;
}

static void print_plain(const struct proc_dropin *p)
{
	printf("%ld %s: ", p->pid, p->comm);
	switch (p->impl) {
	case IMPL_NONE:
		printf("no %s loaded\n", DROPIN_SONAME);
		return;
	case IMPL_DROPIN:
		printf("%s%s (libstriped's drop-in)\n", p->path, p->deleted ? " (deleted)" : "");
		return;
	case IMPL_CEPH:
		printf("%s%s (Ceph's libradosstriper)\n", p->path, p->deleted ? " (deleted)" : "");
		return;
	case IMPL_UNKNOWN:
		printf("%s%s (cannot tell which: %s)\n", p->path, p->deleted ? " (deleted)" : "",
		       strerror(-p->err));
		return;
	}
}

static void print_json(struct json *j, const struct proc_dropin *p)
{
	json_object_begin(j, NULL);
	json_u64(j, "pid", (uint64_t)p->pid);
	json_string(j, "comm", p->comm);
	json_string(j, "implementation", impl_names[p->impl]);
	json_string(j, "path", p->path);
	json_bool(j, "deleted", p->deleted);
	json_object_end(j);
}

static void show(struct cli *c, const struct proc_dropin *p)
{
	if (cli_json(c))
		print_json(&c->json, p);
	else
		print_plain(p);
}

/* Every process that has one; those it may not read (another user's) are passed over. */
static int show_all(struct cli *c)
{
	struct proc_dropin p;
	struct dirent *e;
	int shown = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return cli_fail(c, -errno, "/proc");
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		if (proc_read(strtol(e->d_name, NULL, 10), &p) || p.impl == IMPL_NONE)
			continue;
		show(c, &p);
		shown++;
	}
	closedir(d);
	if (!shown && !cli_json(c))
		printf("No process has %s loaded.\n", DROPIN_SONAME);
	return 0;
}

static int dropin_status_run(struct cli *c)
{
	struct proc_dropin p;
	int r = 0;

	if (cli_json(c)) {
		json_init(&c->json, stdout, c->a.format == CLI_FORMAT_JSON_PRETTY);
		json_array_begin(&c->json, NULL);
	}
	if (!c->a.nfiles)
		r = show_all(c);
	for (int i = 0; i < c->a.nfiles && !r; i++) {
		r = proc_read(strtol(c->a.files[i], NULL, 10), &p);
		if (r)
			r = cli_fail(c, r, "process %s", c->a.files[i]);
		else
			show(c, &p);
	}
	if (cli_json(c)) {
		json_array_end(&c->json);
		if (r)
			json_discard(&c->json);
		else
			json_end(&c->json);
	}
	return r;
}

static int dropin_status_operands(struct cli_args *a, char **ops, int n, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		char *end;
		long pid = strtol(ops[i], &end, 10);

		if (*end || end == ops[i] || pid <= 0 || pid > INT_MAX)
			return cli_usage_error(err, errlen, "%s: not a process id", ops[i]);
	}
	a->files = ops;
	a->nfiles = n;
	return 0;
}

CLI_COMMAND(dropin_status_command) = {
    .name = "dropin status",
    .synopsis = "dropin status [PID...]",
    .about = "Which libradosstriper.so.1 each process has loaded (/proc/PID/maps):\n"
	     "libstriped's drop-in or Ceph's, and its path; without a PID, every\n"
	     "process that has one. No cluster needed.",
    .min = 0,
    .max = -1,
    .query = true,
    .offline = true,
    .operands = dropin_status_operands,
    .run = dropin_status_run,
};
