/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LD_PRELOADed into aio_unverified: a librados whose new completions are
 * laid out otherwise than librados 16.2's, as another build or version of
 * librados may lay them out: a word where 16.2 keeps the object version
 * (which nothing else here reads) is not zero. The drop-in's check must
 * notice and refuse aio calls; everything else works as before.
 */
#include <dlfcn.h>
#include <stdint.h>

#include <rados/librados.h>

/* Where librados 16.2 keeps a completion's object version (x86-64). */
#define OBJVER_OFFSET 0x68

static void unlike_16_2(rados_completion_t c)
{
	*(uint64_t *)((char *)c + OBJVER_OFFSET) = 0x5eed;
}

int rados_aio_create_completion2(void *arg, rados_callback_t cb, rados_completion_t *pc)
{
	int (*real)(void *, rados_callback_t, rados_completion_t *) =
		(int (*)(void *, rados_callback_t, rados_completion_t *))dlsym(
			RTLD_NEXT, "rados_aio_create_completion2");
	int r = real(arg, cb, pc);

	if (!r)
		unlike_16_2(*pc);
	return r;
}
