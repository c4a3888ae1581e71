/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* striped-dd verify=yes: read the output back and compare it with the input. */
#ifndef DD_VERIFY_H
#define DD_VERIFY_H

#include "dd_copy.h"

/**
 * Compare the bytes just copied: re-read the input when it can be read at
 * offsets, otherwise compare the output against res->hashes.
 * @param diff filled with the output offset of the first difference (for a
 *             stream input: the first byte of the first differing block)
 * @return 0 when equal, 1 on a difference, a negative errno (e filled)
 */
int dd_verify(struct dd_end *in, struct dd_end *out, const struct dd_result *res, uint64_t *diff,
	      struct dd_error *e);

#endif /* DD_VERIFY_H */
