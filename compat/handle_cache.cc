// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The striper's open handles (handle_cache.h): kept by name, evicted when
 * idle for long or when too many are open.
 */
#include "handle_cache.h"

#include <algorithm>
#include <new>

#include "striper.h"

namespace
{

/* Idle handles kept open past this many are closed, least recently used first. */
constexpr size_t HANDLES_KEPT = 128;
/* An idle handle older than this is closed at the next sweep. */
constexpr uint64_t HANDLE_IDLE_NS = 60ull * 1000 * 1000 * 1000;
/* How often the sweep looks. */
constexpr uint64_t SWEEP_NS = 1000ull * 1000 * 1000;

} // namespace

namespace compat
{

std::string handle_key(const std::string &ns, const char *name)
{
	std::string key = ns;

	key.push_back('\0');
	key += name;
	return key;
}

Handle *HandleCache::find(const std::string &key) const
{
	auto it = handles_.find(key);

	return it == handles_.end() ? nullptr : it->second;
}

bool HandleCache::keep(Handle *h) noexcept
{
	try {
		handles_.emplace(h->key, h);
	} catch (const std::bad_alloc &) {
		return false;
	}
	h->in_map = true;
	return true;
}

Handle *HandleCache::detach(Handle *h)
{
	if (!h->in_map)
		return nullptr;
	handles_.erase(h->key);
	h->in_map = false;
	return --h->refs == 0 ? h : nullptr;
}

void HandleCache::evict_idle(uint64_t now, std::vector<Handle *> *evicted)
{
	if (handles_.size() <= HANDLES_KEPT && now - last_sweep_ns_ < SWEEP_NS)
		return;
	last_sweep_ns_ = now;
	std::vector<Handle *> idle;
	for (auto &kv : handles_)
		if (kv.second->refs == 1)
			idle.push_back(kv.second);
	std::sort(idle.begin(), idle.end(),
		  [](Handle *a, Handle *b) { return a->last_used_ns < b->last_used_ns; });
	size_t open = handles_.size();
	for (Handle *h : idle) {
		if (open <= HANDLES_KEPT && now - h->last_used_ns < HANDLE_IDLE_NS)
			break;
		evicted->push_back(detach(h));
		open--;
	}
}

std::map<std::string, Handle *> HandleCache::take_all()
{
	std::map<std::string, Handle *> all;

	all.swap(handles_);
	return all;
}

} // namespace compat
