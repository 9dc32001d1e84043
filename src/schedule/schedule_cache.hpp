// Schedules a communicator has used, by what they were generated from, so a repeated call (the
// same balanced algorithm, or an arrival-aware one on a pattern that quantises alike) generates
// nothing. Least recently used entries go first once the entries hold more than the byte limit
// (PAPCOLL_SCHEDULE_CACHE_BYTES, default 64 MiB per communicator). Keys come from agreed input
// only (src/api/schedule_source.cpp), so every rank hits or misses alike. Not thread-safe: one per
// communicator context, used by one call at a time. No MPI.
#pragma once

#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

#include "schedule/registry.hpp"

namespace papcoll {

// The cache key of algo's schedule of collective c for `in`: everything the generator reads besides
// p (fixed per communicator). Arrival-aware algorithms read the arrivals only through their
// quantised form (AlgorithmInfo::arrival_key); the scatterv/gatherv trees depend on every portion's
// size and on the links (scatter_gather_generators.hpp), so their key carries the portion sizes as
// the generators see them (portion_bytes) and the link model's address (the entry keeps the model
// alive), or alpha and beta. `algo` null: the collective's "auto" choice, itself a function of the
// key.
std::string schedule_key(Collective c, const AlgorithmInfo* algo, const GeneratorInput& in);

class ScheduleCache {
 public:
  explicit ScheduleCache(int64_t byte_limit = default_limit());

  struct Entry {
    std::shared_ptr<const RankSchedule> schedule;
    // For a key that names no algorithm ("auto" of scatterv/gatherv): the one that was chosen.
    const AlgorithmInfo* chosen = nullptr;
    // Kept alive as long as the entry, when the key holds its address (a link model).
    std::shared_ptr<const void> keep_alive;
  };

  // The entry of `key`, now the most recently used; null when absent.
  const Entry* find(const std::string& key);
  // Adds (or replaces) the entry of `key`, then evicts the least recently used entries while the
  // total exceeds the limit (the new entry stays even if it alone exceeds it).
  void insert(std::string key, Entry entry);

  int64_t bytes() const { return bytes_; }
  size_t size() const { return map_.size(); }
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

  // PAPCOLL_SCHEDULE_CACHE_BYTES (read once) or 64 MiB; 0 disables caching.
  static int64_t default_limit();

 private:
  struct Node {
    std::string key;
    Entry entry;
    int64_t bytes;
  };
  void evict();

  int64_t limit_;
  int64_t bytes_ = 0;
  int64_t hits_ = 0, misses_ = 0;
  std::list<Node> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Node>::iterator> map_;
};

// The keys (schedule_key) of the last few schedules `auto` chose, for the rows it charges with a
// generation cost (AlgorithmInfo::generation_cost): such a row is charged only for a pattern it
// has not been chosen for lately, whose schedule the communicator would have to build. Decisions
// read it, so it must change alike on every rank: only choose_auto updates it, which every rank
// runs with the same agreed input in the same order. Exact keys, no fingerprints, for that reason.
class RecentChoices {
 public:
  bool contains(const std::string& key) const;
  void add(std::string key);  // the most recent; the oldest of more than kKept goes
  static constexpr size_t kKept = 16;

 private:
  std::deque<std::string> keys_;  // most recent first
};

}  // namespace papcoll
