// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for what `striped dropin status` parses (tools/cli/dropin.c):
 * what it reads may be any file a process mapped as libradosstriper.so.1,
 * and root runs it. The first byte chooses:
 * - even: the rest is a line of /proc/PID/maps: 1 only with a path inside
 *   the line that names libradosstriper.so.1, 0 or -EINVAL otherwise;
 * - odd: the rest is a shared object: whether it needs libstriped.so.0
 *   must be 1, 0 or -ENOEXEC, never a read outside it.
 *
 * Seeds: fuzz/corpus/fuzz_dropin/ (maps lines, and a 1.7 KB shared object
 * that needs libstriped.so.0, linked with gcc -shared -nostdlib -s).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dropin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *line = (const char *)data + 1;
	struct dropin_map m;
	int r;

	if (!size)
		return 0;
	if (data[0] & 1) {
		r = dropin_elf_needs(data + 1, size - 1, DROPIN_NEEDS);
		if (r != 1 && r != 0 && r != -ENOEXEC)
			abort();
		return 0;
	}
	r = dropin_map_parse(line, size - 1, &m);
	if (r != 1 && r != 0 && r != -EINVAL)
		abort();
	if (r == 1 && (m.path < line || m.path + m.path_len > line + size - 1 || !m.path_len ||
		       !memmem(m.path, m.path_len, DROPIN_SONAME, strlen(DROPIN_SONAME))))
		abort();
	return 0;
}
