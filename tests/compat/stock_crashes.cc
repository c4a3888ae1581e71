// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One call that crashes stock libradosstriper, named by its argument, made on
 * whichever libradosstriper.so.1 is loaded; prints "SCENARIO: result" when
 * the call returns. crashes.sh runs each on stock (which must still die: the
 * list in doc/dropin.md) and on the drop-in (which must answer).
 *
 * usage: stock_crashes SCENARIO NAME      (CEPH_CONF, STRIPED_TEST_POOL)
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <radosstriper/libradosstriper.hpp>

int main(int argc, char **argv)
{
	librados::Rados cluster;
	librados::IoCtx io;
	libradosstriper::RadosStriper s;

	if (argc != 3)
		return 2;
	std::string what = argv[1], name = argv[2];
	if (cluster.init(nullptr) || cluster.conf_read_file(getenv("CEPH_CONF")) ||
	    cluster.connect() || cluster.ioctx_create(getenv("STRIPED_TEST_POOL"), io) ||
	    libradosstriper::RadosStriper::striper_create(io, &s))
		return 1;
	int r = 0;
	if (what == "short-bufferlist") {
		ceph::bufferlist bl;
		bl.append("0123456789");
		r = s.write(name, bl, 11, 0);
	} else if (what == "multi-release") {
		libradosstriper::RadosStriper::multi_aio_create_completion()->release();
	} else if (what == "null-name") {
		rados_striper_t cs;
		libradosstriper::RadosStriper::to_rados_striper_t(s, &cs);
		r = rados_striper_write(cs, nullptr, "x", 1, 0);
		rados_striper_destroy(cs);
	} else if (what == "unset-striper") {
		libradosstriper::RadosStriper unset;
		ceph::bufferlist bl;
		r = unset.read(name, &bl, 10, 0);
	} else {
		return 2;
	}
	printf("%s: %d\n", what.c_str(), r);
	return 0;
}
