/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* striped-dd: the copy pipeline (a ring of iodepth blocks in flight). */
#ifndef DD_COPY_H
#define DD_COPY_H

#include <stdbool.h>
#include <stdint.h>

#include "dd_args.h"
#include "dd_hash.h"
#include "dd_io.h"
#include "dd_report.h"

struct dd_result {
	bool started; /* the buffers were set up: there is a summary to print */
	struct dd_counts counts;
	uint64_t read_errors; /* bad input blocks passed over (conv=noerror) */
	uint64_t elapsed_ns;
	uint64_t blocks; /* written, not seeked over (conv=sparse) */
	struct dd_hashes hashes; /* each block written, when keep_hashes */
};

/**
 * Copy in to out as the operands say; the result holds what was done even
 * on failure (e filled, negative return).
 */
int dd_copy(const struct dd_args *a, struct dd_end *in, struct dd_end *out, bool keep_hashes,
	    struct dd_result *res, struct dd_error *e);

void dd_result_free(struct dd_result *res);

#endif /* DD_COPY_H */
