/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every part of libstriped shares; never installed. Each part's own
 * declarations are in its header beside it (lib/<part>.h).
 */
#ifndef STRIPED_I_H
#define STRIPED_I_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>

#include "striped.h"

#ifndef SSIZE_MAX
#define SSIZE_MAX LONG_MAX
#endif

/*
 * A counter updated without a lock. rados_cxx.cc includes this header for
 * its prototypes only: C++ gets the same layout under its own spelling.
 */
#ifdef __cplusplus
extern "C++" {
#include <atomic>
}
typedef std::atomic<uint64_t> u64_atomic;
#else
/* C only: clang's <stdatomic.h> in C++ clashes with libstdc++'s <atomic>. */
#include <stdatomic.h>

typedef _Atomic uint64_t u64_atomic;

/* Raise *max to v unless it is already at least v (a statistic: relaxed). */
static inline void u64_atomic_max(u64_atomic *max, uint64_t v)
{
	uint64_t cur = atomic_load_explicit(max, memory_order_relaxed);

	while (v > cur && !atomic_compare_exchange_weak_explicit(max, &cur, v, memory_order_relaxed,
								 memory_order_relaxed))
		;
}
#endif

/*
 * Writes on a full cluster or pool fail with -ENOSPC or -EDQUOT instead of
 * waiting for space forever (librados' default), and deletes still go
 * through, so a full cluster can be cleaned up with striped_remove().
 */
#define STRIPED_WRITE_FLAGS LIBRADOS_OPERATION_FULL_TRY

/* The STRIPED_IO_FADVISE_* flags: librados' op flags, passed on as they are. */
#define IO_FADVISE_FLAGS                                                                           \
	(STRIPED_IO_FADVISE_RANDOM | STRIPED_IO_FADVISE_SEQUENTIAL | STRIPED_IO_FADVISE_WILLNEED | \
	 STRIPED_IO_FADVISE_DONTNEED | STRIPED_IO_FADVISE_NOCACHE)

#endif /* STRIPED_I_H */
