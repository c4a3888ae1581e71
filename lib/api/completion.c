// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The public completion calls: doors into pure/completion.c, which lib/
 * calls by its own names (a public function is never called inside lib/:
 * the layers test).
 */
#include "completion.h"

int striped_completion_create(striped_callback_t cb, void *arg, struct striped_completion **out)
{
	return completion_create(cb, arg, out);
}

int striped_completion_wait(struct striped_completion *c)
{
	return completion_wait(c);
}

int striped_completion_is_complete(struct striped_completion *c)
{
	return completion_is_complete(c);
}

ssize_t striped_completion_result(struct striped_completion *c)
{
	return completion_result(c);
}

void striped_completion_release(struct striped_completion *c)
{
	completion_release(c);
}

int striped_completion_stats(struct striped_completion *c, struct striped_io_stats *st,
			     size_t st_size)
{
	return completion_stats(c, st, st_size);
}
