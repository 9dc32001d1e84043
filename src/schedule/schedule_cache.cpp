#include "schedule/schedule_cache.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "error/hot_path.hpp"
#include "schedule/portions.hpp"

namespace papcoll {
namespace {

template <typename T>
void append_bytes(std::string& key, const T& v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

template <typename T>
bool same_elements(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), sizeof(T) * a.size()) == 0);
}

}  // namespace

bool same_input(const GeneratorInput& a, const GeneratorInput& b, bool with_blocks) {
  const CostParams &x = a.cost, &y = b.cost;
  return a.p == b.p && (!with_blocks || a.blocks == b.blocks) && a.root == b.root &&
         same_bits(a.bytes, b.bytes) && same_bits(a.round_time, b.round_time) &&
         same_bits(a.elem_bytes, b.elem_bytes) && same_bits(x.alpha, y.alpha) &&
         same_bits(x.beta, y.beta) && same_bits(x.gamma, y.gamma) &&
         x.cores_shared == y.cores_shared && x.shared_memory == y.shared_memory &&
         same_bits(x.intra_alpha, y.intra_alpha) && same_bits(x.intra_beta, y.intra_beta) &&
         same_bits(x.step_overhead, y.step_overhead) &&
         same_bits(x.exchange_alpha, y.exchange_alpha) &&
         same_bits(x.exchange_beta, y.exchange_beta) && a.impl == b.impl &&
         a.link_model == b.link_model && a.nodes == b.nodes &&
         same_elements(a.arrivals, b.arrivals) && same_elements(a.counts, b.counts);
}

bool LastSchedule::find(Collective c, const AlgorithmInfo* algo, const GeneratorInput& in,
                        std::shared_ptr<const RankSchedule>* out) const {
  if (schedule_ == nullptr || c != collective_ || algo != algo_ || !same_input(in, in_))
    return false;
  *out = schedule_;
  return true;
}

void LastSchedule::keep(Collective c, const AlgorithmInfo* algo, const GeneratorInput& in,
                        std::shared_ptr<const RankSchedule> schedule) {
  collective_ = c;
  algo_ = algo;
  in_ = in;  // copies into in_'s storage: no allocation once it has grown to p arrivals
  schedule_ = std::move(schedule);
}

std::string schedule_key(Collective c, const AlgorithmInfo* algo, const GeneratorInput& in) {
  std::string key;
  append_bytes(key, c);
  append_bytes(key, algo);
  append_bytes(key, in.blocks);
  append_bytes(key, in.root);
  if (algo != nullptr && algo->uses_arrivals) key += algo->arrival_key(in);
  // A two-level plan picks its phases' rows by the cost model (two_level_plan.cpp); the layout is
  // the communicator's, the same for every entry of its cache.
  if (algo != nullptr && algo->topology_aware) {
    append_bytes(key, in.cost.alpha);
    append_bytes(key, in.cost.beta);
    append_bytes(key, in.cost.gamma);
    append_bytes(key, in.cost.intra_alpha);
    append_bytes(key, in.cost.intra_beta);
    append_bytes(key, in.cost.exchange_alpha);
    append_bytes(key, in.cost.exchange_beta);
    append_bytes(key, in.nodes.get());
  }
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

// The store's lock: held for a lookup or an insertion (no allocation under it on a hit), taken by
// threads of one process only, which call collectives on different communicators at once rarely;
// a lock and an unlock are one exchange and one store (a std::mutex cost a repeated schedule
// call about 50 more instructions).
class SpinLock {
 public:
  void lock() {
    while (held_.exchange(true, std::memory_order_acquire))
      while (held_.load(std::memory_order_relaxed)) std::this_thread::yield();
  }
  void unlock() { held_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> held_{false};
};

// Every cache's entries in one list under one lock: the bound and the eviction order are the
// process's. Never destroyed (caches of communicators freed at exit may still unregister).
struct ScheduleStore {
  SpinLock mutex;
  ScheduleCache::Lru lru;  // most recently used first
  int64_t bytes = 0;
  int64_t limit = ScheduleCache::default_limit();
  std::uint64_t next_id = 1;
  // Admission: the latest missed keys (a hash per slot, direct-mapped; 0: empty). A key found
  // here at its next miss is admitted.
  static constexpr size_t kSeen = 4096;
  std::vector<std::uint64_t> seen = std::vector<std::uint64_t>(kSeen, 0);

  static ScheduleStore& get();
  void evict_locked() {
    while (bytes > limit && lru.size() > 1) {
      ScheduleCache::Node& last = lru.back();
      ScheduleCache* owner = last.owner;
      owner->bytes_ -= last.bytes;
      bytes -= last.bytes;
      owner->map_.erase(last.key);
      lru.pop_back();
    }
    if (limit <= 0) {
      while (!lru.empty()) {
        ScheduleCache::Node& last = lru.back();
        last.owner->bytes_ -= last.bytes;
        bytes -= last.bytes;
        last.owner->map_.erase(last.key);
        lru.pop_back();
      }
    }
  }
  static std::uint64_t sighting(std::uint64_t id, const std::string& key) {
    const std::uint64_t h = std::hash<std::string>{}(key) ^ (id * 0x9E3779B97F4A7C15ULL);
    return h == 0 ? 1 : h;
  }
};

// Out of line: a static inside a function defined in the class (implicitly inline) is a unique
// symbol (STB_GNU_UNIQUE), which the dynamic loader binds once per process, so under SimGrid SMPI,
// which loads one copy of the program per simulated rank, all ranks shared one store and one
// bound (64 MiB for 1024 ranks); here each copy, like each process on a cluster, has its own.
ScheduleStore& ScheduleStore::get() {
  static ScheduleStore* s = new ScheduleStore;
  return *s;
}

ScheduleCache::ScheduleCache() {
  ScheduleStore& st = ScheduleStore::get();
  std::lock_guard<SpinLock> lock(st.mutex);
  id_ = st.next_id++;
}

ScheduleCache::~ScheduleCache() {
  ScheduleStore& st = ScheduleStore::get();
  std::lock_guard<SpinLock> lock(st.mutex);
  for (auto& [key, it] : map_) {
    st.bytes -= it->bytes;
    st.lru.erase(it);
  }
  map_.clear();
}

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

int64_t ScheduleCache::process_bytes() {
  ScheduleStore& st = ScheduleStore::get();
  std::lock_guard<SpinLock> lock(st.mutex);
  return st.bytes;
}

bool ScheduleCache::caching() {
  ScheduleStore& st = ScheduleStore::get();
  std::lock_guard<SpinLock> lock(st.mutex);
  return st.limit > 0;
}

void ScheduleCache::set_process_limit_for_testing(int64_t limit) {
  ScheduleStore& st = ScheduleStore::get();
  std::lock_guard<SpinLock> lock(st.mutex);
  st.limit = limit;
  std::fill(st.seen.begin(), st.seen.end(), 0);
  st.evict_locked();
}

int64_t ScheduleCache::bytes() const {
  std::lock_guard<SpinLock> lock(ScheduleStore::get().mutex);
  return bytes_;
}

size_t ScheduleCache::size() const {
  std::lock_guard<SpinLock> lock(ScheduleStore::get().mutex);
  return map_.size();
}

bool ScheduleCache::find(const std::string& key, std::shared_ptr<const RankSchedule>* schedule,
                         const AlgorithmInfo** chosen) {
  ScheduleStore& st = ScheduleStore::get();
  std::lock_guard<SpinLock> lock(st.mutex);
  const auto it = map_.find(key);
  if (it == map_.end()) {
    ++misses_;
    return false;
  }
  ++hits_;
  st.lru.splice(st.lru.begin(), st.lru, it->second);
  *schedule = it->second->entry.schedule;
  if (chosen != nullptr) *chosen = it->second->entry.chosen;
  return true;
}

bool ScheduleCache::offer(std::string key, Entry entry) {
  ScheduleStore& st = ScheduleStore::get();
  std::lock_guard<SpinLock> lock(st.mutex);
  if (st.limit <= 0) return false;
  const std::uint64_t h = ScheduleStore::sighting(id_, key);
  std::uint64_t& slot = st.seen[h % ScheduleStore::kSeen];
  if (slot != h) {  // its first sighting: remembered, not cached
    slot = h;
    return false;
  }
  slot = 0;
  insert_locked(std::move(key), std::move(entry));
  return true;
}

void ScheduleCache::insert(std::string key, Entry entry) {
  std::lock_guard<SpinLock> lock(ScheduleStore::get().mutex);
  insert_locked(std::move(key), std::move(entry));
}

void ScheduleCache::insert_locked(std::string key, Entry entry) {
  ScheduleStore& st = ScheduleStore::get();
  if (st.limit <= 0) return;
  if (const auto it = map_.find(key); it != map_.end()) {
    bytes_ -= it->second->bytes;
    st.bytes -= it->second->bytes;
    st.lru.erase(it->second);
    map_.erase(it);
  }
  const int64_t bytes = static_cast<int64_t>(2 * key.size() + sizeof(Node)) +
                        (entry.schedule != nullptr ? entry.schedule->bytes() : 0);
  st.lru.push_front(Node{this, key, std::move(entry), bytes});
  map_.emplace(std::move(key), st.lru.begin());
  bytes_ += bytes;
  st.bytes += bytes;
  st.evict_locked();
}

bool RecentChoices::contains(const std::string& key) const {
  return std::find(keys_.begin(), keys_.end(), key) != keys_.end();
}

PAPCOLL_HOT bool RememberedChoices::find(const std::string& key, RememberedChoice* choice) const {
  for (const auto& [k, c] : entries_)
    if (k == key) {
      *choice = c;
      return true;
    }
  return false;
}

void RememberedChoices::add(std::string key, const RememberedChoice& choice) {
  entries_.emplace_front(std::move(key), choice);
  if (entries_.size() > kKept) entries_.pop_back();
}

void RecentChoices::add(std::string key) {
  const auto it = std::find(keys_.begin(), keys_.end(), key);
  if (it != keys_.end()) keys_.erase(it);
  keys_.push_front(std::move(key));
  if (keys_.size() > kKept) keys_.pop_back();
}

}  // namespace papcoll
