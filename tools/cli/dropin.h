/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which libradosstriper.so.1 a process has loaded: its line in
 * /proc/PID/maps, and whether that file is libstriped's drop-in (compat/)
 * or Ceph's own. The drop-in is told by what it is, not where it lies: it
 * is the one whose dynamic section needs libstriped.so.0, wherever it was
 * loaded from (a package's private directory, a build tree, a copy).
 * Pure: it parses bytes it is given; the files are read by cmd_dropin.c.
 * What it parses may be any file a process mapped under that name, so
 * every offset is checked against the length before it is read.
 */
#ifndef DROPIN_H
#define DROPIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The soname both libraries carry, and the one only the drop-in needs. */
#define DROPIN_SONAME "libradosstriper.so.1"
#define DROPIN_NEEDS "libstriped.so.0"

/* One line of /proc/PID/maps that maps a libradosstriper. */
struct dropin_map {
	uint64_t start, end, offset;
	const char *path; /* into the line; " (deleted)" cut off */
	size_t path_len;
	bool deleted; /* the file was removed or replaced since it was mapped */
};

/*
 * Parse one line of /proc/PID/maps (with or without its newline). Returns 1
 * with *m filled when it maps a file named libradosstriper.so.1 (or
 * libradosstriper.so.1.*), 0 for any other line, -EINVAL for a line that
 * is not a maps line.
 */
int dropin_map_parse(const char *line, size_t len, struct dropin_map *m);

/*
 * Whether the ELF shared object in buf[0..len) lists DT_NEEDED name (an ELF
 * of this machine's class and byte order). Returns 1 or 0; -ENOEXEC when
 * buf is no such ELF or any of its offsets lies outside buf.
 */
int dropin_elf_needs(const void *buf, size_t len, const char *name);

#endif /* DROPIN_H */
