// Schedules a communicator has used, by what they were generated from, so a repeated call (the
// same balanced algorithm, or an arrival-aware one on a pattern that quantises alike) generates
// nothing. One bound holds for the schedules of every communicator of the process together
// (PAPCOLL_SCHEDULE_CACHE_BYTES, default 64 MiB): least recently used entries of any
// communicator go first once they hold more. A pattern is admitted on its second sighting only
// (offer), so calls whose patterns never repeat (random arrival times) generate, run and free
// their schedules without evicting the ones that do repeat. Keys come from agreed input only
// (src/api/schedule_source.cpp); whether a key is found depends on the process's other
// communicators too, so ranks may hit and miss differently, which changes nothing but time (a
// schedule is the same either way; `auto` never reads the cache, RecentChoices). Thread-safe
// across communicators (one lock per process; a communicator's calls come one at a time, as MPI
// requires). No MPI.
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
  ScheduleCache();
  ~ScheduleCache();  // its entries leave the process's total
  ScheduleCache(const ScheduleCache&) = delete;
  ScheduleCache& operator=(const ScheduleCache&) = delete;

  struct Entry {
    std::shared_ptr<const RankSchedule> schedule;
    // For a key that names no algorithm ("auto" of scatterv/gatherv): the one that was chosen.
    const AlgorithmInfo* chosen = nullptr;
    // Kept alive as long as the entry, when the key holds its address (a link model).
    std::shared_ptr<const void> keep_alive;
  };

  // The entry of `key`, now the most recently used: its schedule and chosen algorithm copied out
  // (`chosen` may be null); false when absent (a sighting of the key, for offer()).
  bool find(const std::string& key, std::shared_ptr<const RankSchedule>* schedule,
            const AlgorithmInfo** chosen = nullptr);
  // Adds the entry of `key` when the key was missed before (its second sighting; the process
  // remembers the latest 4096 missed keys), then evicts the least recently used entries of every
  // communicator while the process's total exceeds the limit (the new entry stays even if it alone
  // exceeds it). False when not admitted.
  bool offer(std::string key, Entry entry);
  // Adds (or replaces) the entry of `key` whether seen before or not, then evicts as offer().
  void insert(std::string key, Entry entry);

  int64_t bytes() const;
  size_t size() const;
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

  // PAPCOLL_SCHEDULE_CACHE_BYTES (read once) or 64 MiB: the bound of every cache of the process
  // together; 0 disables caching.
  static int64_t default_limit();
  // What the caches of the process hold now, in bytes (counted as in insert()).
  static int64_t process_bytes();
  // Tests: another process-wide limit (0: none cached), and forgetting the missed keys.
  static void set_process_limit_for_testing(int64_t limit);
  // Whether schedules are cached at all (the process's limit is above 0).
  static bool caching();

 private:
  friend struct ScheduleStore;
  // An entry in the process's list, most recently used first, whichever cache it belongs to.
  struct Node {
    ScheduleCache* owner;
    std::string key;
    Entry entry;
    int64_t bytes;
  };
  using Lru = std::list<Node>;
  void insert_locked(std::string key, Entry entry);

  std::uint64_t id_;  // distinguishes equal keys of two communicators in the admission table
  int64_t bytes_ = 0;
  int64_t hits_ = 0, misses_ = 0;
  std::unordered_map<std::string, Lru::iterator> map_;  // under the process's lock
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

// auto's latest choices (select/selection.cpp): each weighs the rows' estimates against the library
// model, tens of microseconds at 48 ranks on nodes, one to two milliseconds of every rank's time
// at 512 to 1024 ranks with arrivals (in SMPI, computation charged: auto 147.3 ms against the row
// it ran, relay-fold, 145.3), the same for every repetition of a call and its arrival pattern.
// Keyed exactly (everything the choice reads), changed only by choose_auto, so alike on every
// rank, like RecentChoices. A remembered choice stays right while RecentChoices changes: a row's
// generation charge only drops once it is chosen, so weighing again would choose it again.
struct RememberedChoice {
  const AlgorithmInfo* algo = nullptr;  // null: the MPI library's collective
  int why = 0;                          // select/selection.hpp AutoWhy, for the report
  double gain = 0;
};
// The schedule of the communicator's latest call, with everything it was generated from: a call
// whose row and generator input are equal to it, field by field (`same_input`), takes it without
// building the cache key. That key is where an arrival-aware row plans (relay-fold's arrival key
// holds its late ranks' layout, O(p log p)): at 1024 simulated ranks 1.5 to 2.6 ms of a late
// rank's critical path, for a pattern that repeats (a persistent straggler). Holds one schedule
// beyond the cache's bound: one the cache evicted since, or one it has not admitted yet (a
// pattern's first sighting), so a pattern's second call generates nothing either (at gige-64x16
// that generation was up to 4 ms of a 6 ms reduce). A disabled cache (limit 0) keeps none here.
class LastSchedule {
 public:
  bool find(Collective c, const AlgorithmInfo* algo, const GeneratorInput& in,
            std::shared_ptr<const RankSchedule>* out) const;
  void keep(Collective c, const AlgorithmInfo* algo, const GeneratorInput& in,
            std::shared_ptr<const RankSchedule> schedule);

 private:
  Collective collective_ = Collective::allreduce;
  const AlgorithmInfo* algo_ = nullptr;
  GeneratorInput in_;
  std::shared_ptr<const RankSchedule> schedule_;
};

// Every field of two generator inputs equal, floating-point values bit for bit and the link model
// and node layout by identity (a generator is a pure function of its input, registry.hpp); the
// block count too unless with_blocks is false.
bool same_input(const GeneratorInput& a, const GeneratorInput& b, bool with_blocks = true);

class RememberedChoices {
 public:
  // The choice made for `key`; false if none is kept.
  bool find(const std::string& key, RememberedChoice* choice) const;
  void add(std::string key, const RememberedChoice& choice);  // the oldest of more than kKept goes
  size_t size() const { return entries_.size(); }
  static constexpr size_t kKept = 16;
  // Where the caller builds the key of a call (cleared, its capacity kept): asking again
  // allocates nothing, as for CommContext::arrivals_spare.
  std::string& key_buffer() { return key_buffer_; }

 private:
  std::deque<std::pair<std::string, RememberedChoice>> entries_;  // most recent first
  std::string key_buffer_;
};

}  // namespace papcoll
