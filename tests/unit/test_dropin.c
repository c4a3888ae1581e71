// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tools/cli/dropin.c: lines of /proc/PID/maps, and the DT_NEEDED test that tells
 * libstriped's drop-in from Ceph's libradosstriper, on real files: the
 * drop-in built here (argv[1]) needs libstriped.so.0, this test program
 * does not. Cut short or damaged, a file gives -ENOEXEC, never a read out
 * of its bounds (each cut is a buffer of exactly that length, for ASan).
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dropin.h"

static const char *dropin_path;

static int parse(const char *line, struct dropin_map *m)
{
	return dropin_map_parse(line, strlen(line), m);
}

static void test_map_lines(void **state)
{
	struct dropin_map m;

	(void)state;
	assert_int_equal(parse("7f1c2a000000-7f1c2a0a0000 r--p 00000000 fe:01 1234567    "
			       "/usr/lib/x86_64-linux-gnu/libstriped/libradosstriper.so.1.0.0\n",
			       &m),
			 1);
	assert_int_equal(m.start, 0x7f1c2a000000ULL);
	assert_int_equal(m.end, 0x7f1c2a0a0000ULL);
	assert_int_equal(m.path_len,
			 strlen("/usr/lib/x86_64-linux-gnu/libstriped/libradosstriper.so.1.0.0"));
	assert_memory_equal(m.path, "/usr/lib/x86_64-linux-gnu/libstriped/", 37);
	assert_false(m.deleted);

	/* replaced since (an upgrade, a removed package): the mark cut off */
	assert_int_equal(parse("1000-2000 r-xp 00001000 fe:01 99 /usr/lib/x86_64-linux-gnu/"
			       "libradosstriper.so.1.0.0 (deleted)",
			       &m),
			 1);
	assert_true(m.deleted);
	assert_int_equal(m.offset, 0x1000);
	assert_int_equal(m.path_len, strlen("/usr/lib/x86_64-linux-gnu/libradosstriper.so.1.0.0"));

	/* the soname itself, a path with spaces */
	assert_int_equal(parse("1000-2000 r--p 00000000 fe:01 9 /tmp/a b/libradosstriper.so.1", &m),
			 1);
	assert_int_equal(m.path_len, strlen("/tmp/a b/libradosstriper.so.1"));
}

static void test_map_other_lines(void **state)
{
	struct dropin_map m;

	(void)state;
	/* other libraries, names that only start alike, anonymous mappings */
	assert_int_equal(parse("1000-2000 r--p 00000000 fe:01 9 /usr/lib/libstriped.so.0.6.0", &m),
			 0);
	assert_int_equal(
	    parse("1000-2000 r--p 00000000 fe:01 9 /usr/lib/libradosstriper.so.10", &m), 0);
	assert_int_equal(parse("1000-2000 r--p 00000000 fe:01 9 /usr/lib/libradosstriper.so", &m),
			 0);
	assert_int_equal(
	    parse("1000-2000 r--p 00000000 fe:01 9 /libradosstriper.so.1/libfoo.so", &m), 0);
	assert_int_equal(parse("1000-2000 rw-p 00000000 00:00 0 ", &m), 0);
	assert_int_equal(parse("1000-2000 rw-p 00000000 00:00 0", &m), 0);
	assert_int_equal(parse("7ffd1000-7ffd2000 rw-p 00000000 00:00 0     [stack]\n", &m), 0);

	/* not maps lines */
	assert_int_equal(parse("", &m), -EINVAL);
	assert_int_equal(parse("hello", &m), -EINVAL);
	assert_int_equal(parse("zz-2000 r--p 0 fe:01 9 /x/libradosstriper.so.1", &m), -EINVAL);
	assert_int_equal(parse("1000 r--p 0 fe:01 9 /x/libradosstriper.so.1", &m), -EINVAL);
	assert_int_equal(parse("11111111111111111-2000 r--p 0 fe:01 9 /x/libradosstriper.so.1", &m),
			 -EINVAL);
	assert_int_equal(parse("1000-2000 r--p", &m), -EINVAL);
	assert_int_equal(parse("1000-2000 r--p 0 fe:01", &m), -EINVAL);
}

/* A whole file in memory, exactly its length. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	b = malloc((size_t)n);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void test_elf_needed(void **state)
{
	size_t n, m;
	unsigned char *dropin = slurp(dropin_path, &n), *self = slurp("/proc/self/exe", &m);

	(void)state;
	assert_int_equal(dropin_elf_needs(dropin, n, DROPIN_NEEDS), 1);
	assert_int_equal(dropin_elf_needs(dropin, n, "librados.so.2"), 1);
	assert_int_equal(dropin_elf_needs(dropin, n, "libstriped.so"), 0);
	assert_int_equal(dropin_elf_needs(self, m, DROPIN_NEEDS), 0);
	assert_int_equal(dropin_elf_needs(self, m, "libcmocka.so.0"), 1);
	free(dropin);
	free(self);
}

/* Where the dynamic section ends, and the furthest byte its strings reach. */
static void elf_extents(const unsigned char *b, size_t *dyn_end, size_t *str_end)
{
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph;
	uint64_t strtab = 0, strsz = 0;

	memcpy(&eh, b, sizeof(eh));
	*dyn_end = *str_end = 0;
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			memcpy(&ph, b + eh.e_phoff + i * sizeof(ph), sizeof(ph));
			if (!pass && ph.p_type == PT_DYNAMIC) {
				*dyn_end = ph.p_offset + ph.p_filesz;
				for (size_t k = 0; k < ph.p_filesz / sizeof(ElfW(Dyn)); k++) {
					ElfW(Dyn) d;

					memcpy(&d, b + ph.p_offset + k * sizeof(d), sizeof(d));
					strtab = d.d_tag == DT_STRTAB ? d.d_un.d_ptr : strtab;
					strsz = d.d_tag == DT_STRSZ ? d.d_un.d_val : strsz;
				}
			} else if (pass && ph.p_type == PT_LOAD && strtab >= ph.p_vaddr &&
				   strtab - ph.p_vaddr < ph.p_filesz) {
				*str_end = ph.p_offset + (strtab - ph.p_vaddr) + strsz;
			}
		}
	assert_true(*dyn_end && *str_end);
}

static void check_cut(const unsigned char *b, size_t len)
{
	unsigned char *cut = malloc(len ? len : 1);
	int r;

	assert_non_null(cut);
	memcpy(cut, b, len);
	r = dropin_elf_needs(cut, len, DROPIN_NEEDS);
	assert_true(r == -ENOEXEC || r == 0 || r == 1);
	free(cut);
}

static void test_elf_cut_short(void **state)
{
	size_t n, dyn_end, str_end, far;
	unsigned char *b = slurp(dropin_path, &n);

	(void)state;
	elf_extents(b, &dyn_end, &str_end);
	far = dyn_end > str_end ? dyn_end : str_end;
	/* the headers byte by byte, then around where the dynamic section and its strings end */
	for (size_t len = 0; len < 4096 && len < n; len++)
		check_cut(b, len);
	for (size_t len = far - 64; len < far + 64 && len <= n; len++)
		check_cut(b, len);
	for (size_t len = str_end - 64; len < str_end; len++)
		assert_int_equal(dropin_elf_needs(b, len, DROPIN_NEEDS), -ENOEXEC);
	free(b);
}

static void test_elf_damaged(void **state)
{
	size_t n;
	unsigned char *b = slurp(dropin_path, &n);
	ElfW(Ehdr) eh;

	(void)state;
	b[EI_CLASS] ^= 3; /* the other class */
	assert_int_equal(dropin_elf_needs(b, n, DROPIN_NEEDS), -ENOEXEC);
	b[EI_CLASS] ^= 3;
	memcpy(&eh, b, sizeof(eh));
	eh.e_phoff = n - 8; /* program headers past the end */
	memcpy(b, &eh, sizeof(eh));
	assert_int_equal(dropin_elf_needs(b, n, DROPIN_NEEDS), -ENOEXEC);
	memcpy(&eh, b, sizeof(eh));
	eh.e_phoff = (uint64_t)-1;
	memcpy(b, &eh, sizeof(eh));
	assert_int_equal(dropin_elf_needs(b, n, DROPIN_NEEDS), -ENOEXEC);
	b[0] = 0;
	assert_int_equal(dropin_elf_needs(b, n, DROPIN_NEEDS), -ENOEXEC);
	free(b);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_map_lines),	cmocka_unit_test(test_map_other_lines),
	    cmocka_unit_test(test_elf_needed),	cmocka_unit_test(test_elf_cut_short),
	    cmocka_unit_test(test_elf_damaged),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s DROP-IN.so\n", argv[0]);
		return 2;
	}
	dropin_path = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
