#include "model/link_model_cache.hpp"

#include <utility>

namespace papcoll {

const LinkModelCache::Entry* LinkModelCache::find_path(const std::string& path) const {
  for (const Entry& e : entries_)
    if (e.path == path) return &e;
  return nullptr;
}

const LinkModelCache::Entry* LinkModelCache::find_serial(std::uint64_t serial) const {
  for (const Entry& e : entries_)
    if (e.serial == serial) return &e;
  return nullptr;
}

const LinkModelCache::Entry& LinkModelCache::add(std::string path,
                                                 std::shared_ptr<const LinkModel> model) {
  if (entries_.size() >= kMaxEntries) entries_.pop_front();
  entries_.push_back(Entry{next_serial_++, std::move(path), std::move(model)});
  return entries_.back();
}

}  // namespace papcoll
