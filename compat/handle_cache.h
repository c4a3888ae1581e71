// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The striper's open handles, by namespace and name, and which idle ones to
 * close. Not locked of its own: every call is made under the striper's
 * mutex, which also guards the handles' reference counts (a call takes a
 * handle out of here and a reference on it in one step).
 */
#ifndef COMPAT_HANDLE_CACHE_H
#define COMPAT_HANDLE_CACHE_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace compat
{

struct Handle;

/* The key of name in namespace ns: the namespace, NUL, the name. */
std::string handle_key(const std::string &ns, const char *name);

class HandleCache
{
      public:
	/* The handle kept under key, or nullptr. */
	Handle *find(const std::string &key) const;
	/* Keep h under h->key, its reference counted in h->refs: false without memory. */
	bool keep(Handle *h) noexcept;
	/* Take h out; the handle to close if no call holds it any more. */
	Handle *detach(Handle *h);
	/*
	 * Idle handles (no call holds them) past HANDLES_KEPT, and those idle
	 * for long, detached into *evicted, least recently used first: each
	 * holds a watch on its head object, and memory. Looks at most once a
	 * second unless there are too many.
	 */
	void evict_idle(uint64_t now, std::vector<Handle *> *evicted);
	/* Every handle, the cache left empty (the striper's teardown). */
	std::map<std::string, Handle *> take_all();

      private:
	std::map<std::string, Handle *> handles_;
	uint64_t last_sweep_ns_ = 0;
};

} // namespace compat

#endif
