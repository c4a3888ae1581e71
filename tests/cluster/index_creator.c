// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A creator for test_index, run as its own process (its own cluster
 * connection) so the test can kill it mid-create.
 *
 * usage: index_creator NAMESPACE SEED MODE
 *   create  in NAMESPACE of STRIPED_TEST_POOL, make "kSEED/dI%5/fI" for
 *           I = 0, 1, ... until killed, by striped_head_create() and by
 *           striped_open() with STRIPED_CREATE in turn; print "ready" after
 *           the first.
 */
#include <stdio.h>
#include <string.h>

#include "cluster_fixture.h"
#include "striped.h"

int main(int argc, char **argv)
{
	struct cluster conn;
	rados_ioctx_t io;

	if (argc < 4 || strcmp(argv[3], "create")) {
		fprintf(stderr, "usage: index_creator NAMESPACE SEED create\n");
		return 2;
	}
	cluster_connect(&conn);
	if (rados_ioctx_create(conn.rados, conn.pool, &io))
		return 1;
	rados_ioctx_set_namespace(io, argv[1]);
	for (unsigned i = 0;; i++) {
		struct striped_file *f;
		char name[64];
		int r;

		snprintf(name, sizeof(name), "k%s/d%u/f%u", argv[2], i % 5, i);
		if (i % 2) {
			r = striped_open(io, name, STRIPED_CREATE, NULL, &f);
			if (!r)
				striped_close(f);
		} else {
			r = striped_head_create(io, name, NULL, "x", 1, NULL, 0);
		}
		if (r) {
			fprintf(stderr, "index_creator: %s: %s\n", name, strerror(-r));
			return 1;
		}
		if (!i) {
			printf("ready\n");
			fflush(stdout);
		}
	}
}
