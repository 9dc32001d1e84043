#include "schedule/schedule_cache.hpp"

#include <algorithm>
#include <cstdlib>

#include "schedule/portions.hpp"

namespace papcoll {
namespace {

template <typename T>
void append_bytes(std::string& key, const T& v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace

std::string schedule_key(Collective c, const AlgorithmInfo* algo, const GeneratorInput& in) {
  std::string key;
  append_bytes(key, c);
  append_bytes(key, algo);
  append_bytes(key, in.blocks);
  append_bytes(key, in.root);
  if (algo != nullptr && algo->uses_arrivals) key += algo->arrival_key(in);
  if (c == Collective::scatterv || c == Collective::gatherv) {
    for (double b : portion_bytes(in)) append_bytes(key, b);
    if (in.link_model != nullptr) {
      append_bytes(key, in.link_model.get());
    } else {
      append_bytes(key, in.cost.alpha);
      append_bytes(key, in.cost.beta);
    }
  }
  return key;
}

ScheduleCache::ScheduleCache(int64_t byte_limit) : limit_(byte_limit) {}

int64_t ScheduleCache::default_limit() {
  static const int64_t limit = [] {
    constexpr int64_t kDefault = int64_t{64} << 20;
    const char* v = std::getenv("PAPCOLL_SCHEDULE_CACHE_BYTES");
    if (v == nullptr || *v == '\0') return kDefault;
    char* end = nullptr;
    const long long n = std::strtoll(v, &end, 10);
    return end != nullptr && *end == '\0' && n >= 0 ? static_cast<int64_t>(n) : kDefault;
  }();
  return limit;
}

const ScheduleCache::Entry* ScheduleCache::find(const std::string& key) {
  const auto it = map_.find(key);
  if (it == map_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return &lru_.front().entry;
}

void ScheduleCache::insert(std::string key, Entry entry) {
  if (limit_ <= 0) return;
  if (const auto it = map_.find(key); it != map_.end()) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    map_.erase(it);
  }
  const int64_t bytes = static_cast<int64_t>(2 * key.size() + sizeof(Node)) +
                        (entry.schedule != nullptr ? entry.schedule->bytes() : 0);
  lru_.push_front(Node{key, std::move(entry), bytes});
  map_.emplace(std::move(key), lru_.begin());
  bytes_ += bytes;
  evict();
}

void ScheduleCache::evict() {
  while (bytes_ > limit_ && lru_.size() > 1) {
    const Node& last = lru_.back();
    bytes_ -= last.bytes;
    map_.erase(last.key);
    lru_.pop_back();
  }
}

bool RecentChoices::contains(const std::string& key) const {
  return std::find(keys_.begin(), keys_.end(), key) != keys_.end();
}

void RecentChoices::add(std::string key) {
  const auto it = std::find(keys_.begin(), keys_.end(), key);
  if (it != keys_.end()) keys_.erase(it);
  keys_.push_front(std::move(key));
  if (keys_.size() > kKept) keys_.pop_back();
}

}  // namespace papcoll
