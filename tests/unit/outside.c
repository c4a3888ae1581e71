// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An outside program: built against the installed library with nothing but
 * `pkg-config --cflags --libs libstriped`. It checks the run-time version
 * against the header's and maps a range, printing the pieces.
 */
#include <stdio.h>
#include <string.h>

#include <striped.h>

int main(void)
{
	struct striped_layout l = {65536, 4, 262144};
	struct striped_extent ext[8];
	int major, minor, patch;
	const char *v = striped_version(&major, &minor, &patch);
	ssize_t n;

	if (major != STRIPED_VERSION_MAJOR || minor != STRIPED_VERSION_MINOR ||
	    patch != STRIPED_VERSION_PATCH) {
		fprintf(stderr, "outside: header %d.%d.%d but library %s\n", STRIPED_VERSION_MAJOR,
			STRIPED_VERSION_MINOR, STRIPED_VERSION_PATCH, v);
		return 1;
	}
	n = striped_layout_map(&l, 100000, 300000, ext, 8);
	if (n != 6) {
		fprintf(stderr, "outside: expected 6 pieces, got %zd\n", n);
		return 1;
	}
	for (ssize_t i = 0; i < n; i++)
		printf("object %llu offset %llu length %llu\n", (unsigned long long)ext[i].objectno,
		       (unsigned long long)ext[i].offset, (unsigned long long)ext[i].length);
	printf("outside: libstriped %s linked through pkg-config\n", v);
	return 0;
}
