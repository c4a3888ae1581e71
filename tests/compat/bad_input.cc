// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Bad input to the libradosstriper drop-in gets an error, never a crash, a
 * hang or a change: NULL handles, names, buffers and completions, names the
 * cluster refuses, bad layouts (one at a time and together), lengths past
 * what a bufferlist or an int result can hold, offsets at the end of the
 * 64-bit range, reserved xattrs, a RadosStriper striper_create() never set
 * up. Stock libradosstriper crashes on most of these, so this runs on the
 * drop-in alone (linked against it).
 */
#include <cerrno>
#include <climits>
#include <cstring>
#include <string>

#include <rados/librados.hpp>
#include <radosstriper/libradosstriper.hpp>

/* cmocka's macros (fail(), ...) clash with the C++ library's names: included after it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h>
}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "../cluster_fixture.h"
#pragma GCC diagnostic pop

namespace
{

rados_striper_t make_striper()
{
	rados_striper_t s;

	assert_int_equal(rados_striper_create(cl.io, &s), 0);
	return s;
}

void test_null_handles(void **)
{
	char buf[16];
	rados_completion_t c;
	rados_xattrs_iter_t it;
	uint64_t size;
	time_t mtime;

	assert_int_equal(rados_striper_create(nullptr, nullptr), -EINVAL);
	assert_int_equal(rados_striper_create(cl.io, nullptr), -EINVAL);
	rados_striper_destroy(nullptr);
	assert_int_equal(rados_striper_set_object_layout_stripe_unit(nullptr, 65536), -EINVAL);
	assert_int_equal(rados_striper_write(nullptr, "f", buf, 1, 0), -EINVAL);
	assert_int_equal(rados_striper_read(nullptr, "f", buf, 1, 0), -EINVAL);
	assert_int_equal(rados_striper_stat(nullptr, "f", &size, &mtime), -EINVAL);
	assert_int_equal(rados_striper_remove(nullptr, "f"), -EINVAL);
	assert_int_equal(rados_striper_trunc(nullptr, "f", 0), -EINVAL);
	assert_int_equal(rados_striper_getxattrs(nullptr, "f", &it), -EINVAL);
	assert_int_equal(rados_striper_getxattrs_next(nullptr, nullptr, nullptr, nullptr), -EINVAL);
	rados_striper_getxattrs_end(nullptr);
	rados_aio_create_completion2(nullptr, nullptr, &c);
	assert_int_equal(rados_striper_aio_write(nullptr, "f", c, buf, 1, 0), -EINVAL);
	assert_false(rados_aio_is_complete(c));
	rados_aio_release(c);
	rados_striper_aio_flush(nullptr);
	assert_int_equal(rados_striper_multi_aio_create_completion(nullptr, nullptr, nullptr, nullptr),
			 -EINVAL);
	assert_int_equal(rados_striper_multi_aio_is_complete(nullptr), -EINVAL);
	assert_int_equal(rados_striper_multi_aio_get_return_value(nullptr), -EINVAL);
	rados_striper_multi_aio_wait_for_complete_and_cb(nullptr);
	rados_striper_multi_aio_release(nullptr);
}

void test_null_arguments(void **)
{
	rados_striper_t s = make_striper();
	char buf[16];
	char name[64];
	rados_completion_t c;
	rados_xattrs_iter_t it;

	unique_name(name, sizeof(name), "bad-null");
	assert_int_equal(rados_striper_write(s, nullptr, buf, 1, 0), -EINVAL);
	assert_int_equal(rados_striper_write(s, "", buf, 1, 0), -EINVAL);
	assert_int_equal(rados_striper_write(s, name, nullptr, 10, 0), -EINVAL);
	assert_int_equal(rados_striper_read(s, nullptr, buf, 1, 0), -EINVAL);
	assert_int_equal(rados_striper_append(s, name, nullptr, 10), -EINVAL);
	assert_int_equal(rados_striper_write_full(s, name, nullptr, 10), -EINVAL);
	assert_int_equal(rados_striper_stat(s, nullptr, nullptr, nullptr), -EINVAL);
	assert_int_equal(rados_striper_remove(s, nullptr), -EINVAL);
	assert_int_equal(rados_striper_getxattr(s, nullptr, "user.a", buf, 1), -EINVAL);
	assert_int_equal(rados_striper_getxattr(s, name, nullptr, buf, 1), -EINVAL);
	assert_int_equal(rados_striper_getxattrs(s, name, nullptr), -EINVAL);
	assert_int_equal(rados_striper_getxattrs(s, nullptr, &it), -EINVAL);
	assert_int_equal(rados_striper_aio_write(s, name, nullptr, buf, 1, 0), -EINVAL);
	assert_int_equal(rados_striper_aio_read(s, name, nullptr, buf, 1, 0), -EINVAL);
	assert_int_equal(rados_striper_aio_stat(s, name, nullptr, nullptr, nullptr), -EINVAL);
	assert_int_equal(rados_striper_aio_remove(s, name, nullptr), -EINVAL);
	rados_aio_create_completion2(nullptr, nullptr, &c);
	assert_int_equal(rados_striper_aio_write(s, name, c, nullptr, 10, 0), -EINVAL);
	assert_int_equal(rados_striper_aio_append(s, name, c, nullptr, 10), -EINVAL);
	assert_int_equal(rados_striper_aio_write(s, nullptr, c, buf, 1, 0), -EINVAL);
	assert_false(rados_aio_is_complete(c));
	rados_aio_release(c);
	/* None of that made the file. */
	assert_int_equal(rados_striper_stat(s, name, nullptr, nullptr), -ENOENT);
	rados_striper_destroy(s);
}

void test_bad_layouts(void **)
{
	rados_striper_t s = make_striper();
	char name[64], buf[100] = {1};

	unique_name(name, sizeof(name), "bad-layout");
	assert_int_equal(rados_striper_set_object_layout_stripe_unit(s, 0), -EINVAL);
	assert_int_equal(rados_striper_set_object_layout_stripe_unit(s, 65535), -EINVAL);
	assert_int_equal(rados_striper_set_object_layout_stripe_count(s, 0), -EINVAL);
	assert_int_equal(rados_striper_set_object_layout_object_size(s, 100), -EINVAL);
	/* Each setter alone accepts these; together they are no layout (unit > object). */
	assert_int_equal(rados_striper_set_object_layout_stripe_unit(s, 8 << 20), 0);
	assert_int_equal(rados_striper_write(s, name, buf, sizeof(buf), 0), -EINVAL);
	assert_int_equal(rados_striper_stat(s, name, nullptr, nullptr), -ENOENT);
	/* A wide layout, far out: valid, and written. */
	assert_int_equal(rados_striper_set_object_layout_stripe_unit(s, 65536), 0);
	assert_int_equal(rados_striper_set_object_layout_stripe_count(s, 1000), 0);
	assert_int_equal(rados_striper_set_object_layout_object_size(s, 4u << 20), 0);
	assert_int_equal(rados_striper_write(s, name, buf, sizeof(buf), 1ull << 32), 0);
	uint64_t size;
	assert_int_equal(rados_striper_stat(s, name, &size, nullptr), 0);
	assert_int_equal(size, (1ull << 32) + sizeof(buf));
	assert_int_equal(rados_striper_remove(s, name), 0);
	rados_striper_destroy(s);
}

void test_huge_lengths(void **)
{
	rados_striper_t s = make_striper();
	char name[64], buf[4096];
	rados_completion_t c;

	unique_name(name, sizeof(name), "bad-huge");
	memset(buf, 7, sizeof(buf));
	assert_int_equal(rados_striper_write(s, name, buf, sizeof(buf), 0), 0);
	/* A length far past the file: the file's bytes, in a buffer that holds them. */
	assert_int_equal(rados_striper_read(s, name, buf, SIZE_MAX, 0), (int)sizeof(buf));
	assert_int_equal(rados_striper_read(s, name, buf, (size_t)1 << 40, 1000),
			 (int)sizeof(buf) - 1000);
	rados_aio_create_completion2(nullptr, nullptr, &c);
	assert_int_equal(rados_striper_aio_read(s, name, c, buf, SIZE_MAX, 0), 0);
	rados_aio_wait_for_complete(c);
	assert_int_equal(rados_aio_get_return_value(c), (int)sizeof(buf));
	rados_aio_release(c);
	/* Past the 64-bit end: refused, nothing changed. */
	assert_int_equal(rados_striper_write(s, name, buf, 100, UINT64_MAX - 10), -EOVERFLOW);
	assert_int_equal(rados_striper_read(s, name, buf, 100, UINT64_MAX - 10), -EOVERFLOW);
	/* More than a bufferlist holds (the C API's aio copies into one). */
	assert_int_equal(rados_striper_aio_append(s, name, nullptr, buf, (size_t)1 << 33), -EINVAL);
	rados_aio_create_completion2(nullptr, nullptr, &c);
	assert_int_equal(rados_striper_aio_write_full(s, name, c, buf, (size_t)1 << 33), -EINVAL);
	assert_false(rados_aio_is_complete(c));
	rados_aio_release(c);
	uint64_t size;
	assert_int_equal(rados_striper_stat(s, name, &size, nullptr), 0);
	assert_int_equal(size, sizeof(buf));
	assert_int_equal(rados_striper_remove(s, name), 0);
	rados_striper_destroy(s);
}

void test_reserved_xattrs(void **)
{
	rados_striper_t s = make_striper();
	char name[64], buf[64];

	unique_name(name, sizeof(name), "bad-xattr");
	assert_int_equal(rados_striper_write(s, name, "abc", 3, 0), 0);
	assert_int_equal(rados_striper_setxattr(s, name, "striper.size", "999", 3), -EPERM);
	assert_int_equal(rados_striper_rmxattr(s, name, "striper.layout.stripe_unit"), -EPERM);
	assert_int_equal(rados_striper_setxattr(s, name, "lock.striper.lock", "x", 1), -EPERM);
	assert_int_equal(rados_striper_getxattr(s, name, "lock.striper.lock", buf, 64), -EPERM);
	int r = rados_striper_getxattr(s, name, "striper.size", buf, sizeof(buf));
	assert_int_equal(r, 1);
	assert_memory_equal(buf, "3", 1);
	assert_int_equal(rados_striper_getxattr(s, name, "striper.size", buf, 0), -ERANGE);
	std::string longname(300, 'x');
	assert_int_equal(rados_striper_setxattr(s, name, longname.c_str(), "v", 1), -ENAMETOOLONG);
	/* On a file that does not exist: nothing is made. */
	assert_int_equal(rados_striper_setxattr(s, "bad-xattr-none", "user.a", "v", 1), -ENOENT);
	assert_int_equal(rados_striper_stat(s, "bad-xattr-none", nullptr, nullptr), -ENOENT);
	assert_int_equal(rados_striper_remove(s, name), 0);
	rados_striper_destroy(s);
}

void test_long_names(void **)
{
	rados_striper_t s = make_striper();
	std::string name(5000, 'n');

	assert_int_equal(rados_striper_write(s, name.c_str(), "abc", 3, 0), -ENAMETOOLONG);
	assert_int_equal(rados_striper_read(s, name.c_str(), nullptr, 0, 0), -ENAMETOOLONG);
	rados_striper_destroy(s);
}

void test_cxx_bad_input(void **)
{
	librados::IoCtx io;
	librados::IoCtx::from_rados_ioctx_t(cl.io, io);
	libradosstriper::RadosStriper unset, s;
	ceph::bufferlist bl, out;
	char name[64];

	unique_name(name, sizeof(name), "bad-cxx");
	bl.append("0123456789");
	/* Never set up: every call is refused. */
	assert_int_equal(unset.write(name, bl, 10, 0), -EINVAL);
	assert_int_equal(unset.read(name, &out, 10, 0), -EINVAL);
	assert_int_equal(unset.set_object_layout_stripe_unit(65536), -EINVAL);
	assert_int_equal(unset.aio_flush(), -EINVAL);
	libradosstriper::RadosStriper copy(unset);
	copy = unset;
	assert_int_equal(libradosstriper::RadosStriper::striper_create(io, nullptr), -EINVAL);
	librados::IoCtx closed;
	assert_int_equal(libradosstriper::RadosStriper::striper_create(closed, &s), -EINVAL);

	assert_int_equal(libradosstriper::RadosStriper::striper_create(io, &s), 0);
	/* A length past the bufferlist's own. */
	assert_int_equal(s.write(name, bl, 11, 0), -EINVAL);
	assert_int_equal(s.append(name, bl, 1000), -EINVAL);
	assert_int_equal(s.aio_write(name, nullptr, bl, 10, 0), -EINVAL);
	librados::AioCompletion *c = librados::Rados::aio_create_completion();
	assert_int_equal(s.aio_write(name, c, bl, 11, 0), -EINVAL);
	assert_false(c->is_complete());
	c->release();
	assert_int_equal(s.read(name, nullptr, 10, 0), -EINVAL);
	assert_int_equal(s.stat(name, nullptr, nullptr), -ENOENT);
	/* Self-assignment keeps the striper (through a reference: clang warns on `s = s`). */
	libradosstriper::RadosStriper &same = s;
	s = same;
	assert_int_equal(s.write(name, bl, 10, 0), 0);
	assert_int_equal(s.read(name, &out, (size_t)1 << 40, 0), 10);
	assert_int_equal(out.length(), 10);
	assert_int_equal(s.remove(name), 0);
	libradosstriper::MultiAioCompletion *m =
		libradosstriper::RadosStriper::multi_aio_create_completion();
	m->release();
}

} // namespace

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_null_handles),	cmocka_unit_test(test_null_arguments),
	    cmocka_unit_test(test_bad_layouts),	cmocka_unit_test(test_huge_lengths),
	    cmocka_unit_test(test_reserved_xattrs), cmocka_unit_test(test_long_names),
	    cmocka_unit_test(test_cxx_bad_input),
	};

	cluster_skip_unless_configured();
	return cmocka_run_group_tests(tests, cluster_group_setup, cluster_group_teardown);
}
