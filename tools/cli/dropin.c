// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which libradosstriper.so.1 a process has loaded (dropin.h): a maps
 * line parsed, and an ELF's DT_NEEDED list read. Both parse bytes that any
 * process may have chosen (a file it named libradosstriper.so.1, mapped
 * where root's `striped dropin status` reads it), so nothing is read
 * before its bounds are checked, and headers are copied out rather than
 * cast in place (a crafted file may put them at any alignment).
 */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#include "dropin.h"

/* ---- /proc/PID/maps ---- */

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hexadecimal number ending at stop, which is consumed. */
static bool take_hex(const char **p, const char *end, char stop, uint64_t *v)
{
	uint64_t x = 0;
	int n = 0, d;

	for (; *p < end && **p != stop; (*p)++, n++) {
		d = hex_digit(**p);
		if (d < 0 || n == 16)
			return false;
		x = x << 4 | (uint64_t)d;
	}
	if (!n || *p == end)
		return false;
	(*p)++;
	*v = x;
	return true;
}

/* A field of anything but spaces, then the spaces after it (at least one, or the end). */
static bool skip_field(const char **p, const char *end)
{
	const char *start = *p;

	while (*p < end && **p != ' ')
		(*p)++;
	if (*p == start)
		return false;
	while (*p < end && **p == ' ')
		(*p)++;
	return true;
}

static bool names_libradosstriper(const char *path, size_t len)
{
	const char *base = memrchr(path, '/', len);
	size_t n = strlen(DROPIN_SONAME);

	base = base ? base + 1 : path;
	len -= (size_t)(base - path);
	return len >= n && !memcmp(base, DROPIN_SONAME, n) && (len == n || base[n] == '.');
}

int dropin_map_parse(const char *line, size_t len, struct dropin_map *m)
{
	static const char deleted[] = " (deleted)";
	const char *p = line, *end = line + len;
	uint64_t start, stop, offset;

	if (len && end[-1] == '\n')
		end--;
	if (!take_hex(&p, end, '-', &start) || !take_hex(&p, end, ' ', &stop) ||
	    !skip_field(&p, end) /* perms */ || !take_hex(&p, end, ' ', &offset))
		return -EINVAL;
	if (!skip_field(&p, end) /* device */ || !skip_field(&p, end) /* inode */)
		return -EINVAL;
	/* p is at the path, or at the end for an anonymous mapping */
	*m = (struct dropin_map){.start = start,
				 .end = stop,
				 .offset = offset,
				 .path = p,
				 .path_len = (size_t)(end - p)};
	if (m->path_len > sizeof(deleted) - 1 &&
	    !memcmp(end - (sizeof(deleted) - 1), deleted, sizeof(deleted) - 1)) {
		m->path_len -= sizeof(deleted) - 1;
		m->deleted = true;
	}
	return m->path_len && names_libradosstriper(m->path, m->path_len);
}

/* ---- the ELF's dynamic section ---- */

#if __SIZEOF_POINTER__ == 8
#define NATIVE_CLASS ELFCLASS64
#else
#define NATIVE_CLASS ELFCLASS32
#endif
#if __BYTE_ORDER == __LITTLE_ENDIAN
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

struct elf {
	const unsigned char *b;
	size_t len;
	ElfW(Ehdr) eh;
};

static bool in_buf(const struct elf *e, uint64_t off, uint64_t n)
{
	return off <= e->len && n <= e->len - off;
}

static bool phdr(const struct elf *e, unsigned i, ElfW(Phdr) * ph)
{
	uint64_t off = e->eh.e_phoff + (uint64_t)i * sizeof(*ph);

	if (!in_buf(e, off, sizeof(*ph)))
		return false;
	memcpy(ph, e->b + off, sizeof(*ph));
	return true;
}

/* The file offset of virtual address v, through the PT_LOAD that holds it. */
static bool vaddr_offset(const struct elf *e, uint64_t v, uint64_t *off)
{
	ElfW(Phdr) ph;

	for (unsigned i = 0; i < e->eh.e_phnum; i++) {
		if (!phdr(e, i, &ph))
			return false;
		if (ph.p_type == PT_LOAD && v >= ph.p_vaddr && v - ph.p_vaddr < ph.p_filesz) {
			*off = ph.p_offset + (v - ph.p_vaddr);
			return true;
		}
	}
	return false;
}

/* The dynamic section's place in the file: offset and number of entries. */
static bool dynamic(const struct elf *e, uint64_t *off, uint64_t *count)
{
	ElfW(Phdr) ph;

	for (unsigned i = 0; i < e->eh.e_phnum; i++) {
		if (!phdr(e, i, &ph))
			return false;
		if (ph.p_type == PT_DYNAMIC) {
			if (!in_buf(e, ph.p_offset, ph.p_filesz))
				return false;
			*off = ph.p_offset;
			*count = ph.p_filesz / sizeof(ElfW(Dyn));
			return true;
		}
	}
	return false;
}

static ElfW(Dyn) dyn_at(const struct elf *e, uint64_t dyn_off, uint64_t i)
{
	ElfW(Dyn) d;

	memcpy(&d, e->b + dyn_off + i * sizeof(d), sizeof(d));
	return d;
}

int dropin_elf_needs(const void *buf, size_t len, const char *name)
{
	struct elf e = {.b = buf, .len = len};
	uint64_t dyn_off, count, strtab = 0, strsz = 0, str_off;
	bool have_strtab = false;
	ElfW(Dyn) d;

	if (len < sizeof(e.eh) || memcmp(e.b, ELFMAG, SELFMAG) || e.b[EI_CLASS] != NATIVE_CLASS ||
	    e.b[EI_DATA] != NATIVE_DATA)
		return -ENOEXEC;
	memcpy(&e.eh, e.b, sizeof(e.eh));
	if (e.eh.e_phentsize != sizeof(ElfW(Phdr)) || !dynamic(&e, &dyn_off, &count))
		return -ENOEXEC;
	for (uint64_t i = 0; i < count && (d = dyn_at(&e, dyn_off, i)).d_tag != DT_NULL; i++) {
		if (d.d_tag == DT_STRTAB) {
			strtab = d.d_un.d_ptr;
			have_strtab = true;
		} else if (d.d_tag == DT_STRSZ) {
			strsz = d.d_un.d_val;
		}
	}
	if (!have_strtab || !vaddr_offset(&e, strtab, &str_off) || !in_buf(&e, str_off, strsz))
		return -ENOEXEC;
	for (uint64_t i = 0; i < count && (d = dyn_at(&e, dyn_off, i)).d_tag != DT_NULL; i++) {
		const char *s;

		if (d.d_tag != DT_NEEDED)
			continue;
		if (d.d_un.d_val >= strsz)
			return -ENOEXEC;
		s = (const char *)e.b + str_off + d.d_un.d_val;
		if (!memchr(s, 0, strsz - d.d_un.d_val))
			return -ENOEXEC;
		if (!strcmp(s, name))
			return 1;
	}
	return 0;
}
