/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * striped-dd verify= of an input that cannot be read again (a pipe): where
 * each output block went and a hash of its bytes, kept while the copy
 * writes it, so that the output can be read back and compared once the
 * input is gone. Pure.
 */
#ifndef DD_HASH_H
#define DD_HASH_H

#include <stddef.h>
#include <stdint.h>

/** 64-bit FNV-1a, continued from h (start with DD_HASH_INIT). */
#define DD_HASH_INIT 0xcbf29ce484222325ULL
uint64_t dd_hash(uint64_t h, const void *buf, size_t len);

/* One output block: where it went and a hash of it. */
struct dd_block_hash {
	uint64_t pos; /* offset from the copy's first output byte */
	uint64_t len;
	uint64_t hash;
};

/* The blocks written so far, in output order (a zeroed struct holds none). */
struct dd_hashes {
	struct dd_block_hash *v;
	uint64_t n;
	uint64_t cap; /* room in v */
};

/**
 * Keep the hash of a block of len bytes at buf, written at pos.
 * @return 0; -ENOMEM, nothing kept
 */
int dd_hashes_add(struct dd_hashes *h, uint64_t pos, const void *buf, size_t len);

/** Free what dd_hashes_add() kept; h holds none after. */
void dd_hashes_free(struct dd_hashes *h);

#endif /* DD_HASH_H */
