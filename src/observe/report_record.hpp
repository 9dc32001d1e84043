// What one rank records for the straggler report (docs/report-format.md), per communicator and
// call key, without any message: counters that are exact (calls, time in the collective, the
// algorithms that ran and why "auto" chose them) and a log of the rank's own entry times, from
// which the report computes every rank's lateness once, at the end, after one gather.
//
// Bounded memory: each key's log holds at most `capacity` calls (PAPCOLL_REPORT_SAMPLES, default
// 2048, 32 bytes each). When it is full it is thinned: it keeps the calls whose hashed call
// number (the communicator's, identical on every rank) has `level` low zero bits, level + 1 from
// then on (about half of them), and so on. The choice depends on the call number alone, so every
// rank keeps the same calls and their entry times line up at the end; the kept calls are a
// uniform pseudo-random sample of all calls (no aliasing with periodic stragglers), 2^-level of
// them. At most kMaxKeys keys per communicator;
// calls of further keys are counted, not logged. No MPI here (unit-tested).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace papcoll::observe {

// Operation, the bytes every rank passes alike (-1: not agreed before the call: scatterv and
// gatherv) and the root (-1: none).
struct CallKey {
  int collective = 0;
  long long bytes = -1;
  int root = -1;
  bool operator==(const CallKey&) const = default;
};

// Why the call ran what it ran.
enum class AutoReason : std::uint8_t {
  named = 0,       // the caller named the algorithm (or "native")
  rule = 1,        // auto's fixed rule for the collective (bcast, allgatherv, scatterv/gatherv;
                   // an all-reduce shorter than p or with a non-commutative op; reduce with one)
  no_pattern = 2,  // auto without an arrival pattern: the MPI library's collective
  balanced = 3,    // auto: the arrivals spread less than one whole-buffer message
  small_gain = 4,  // auto: the imbalance-aware algorithm's predicted gain was too small
  aware = 5,       // auto: chose the imbalance-aware algorithm for its predicted gain
  refused = 6,     // this rank refused the call (docs/errors.md)
};
inline constexpr int kReasons = 7;
const char* reason_name(AutoReason r);

// One finished call as the call path hands it over.
struct CallRecord {
  std::uint64_t call = 0;  // the communicator's call number
  CallKey key;
  const char* algorithm = "";  // a static name: a registry row, "native", "refused", "none"
  AutoReason reason = AutoReason::named;
  double gain = NAN;       // auto's predicted gain over the balanced collective's own time
  double entry = 0;        // steady clock at the entry, seconds (NaN: not read, needs_entry())
  double seconds = 0;      // time in the collective; NaN: not measured on this call
  double weight = 1;       // calls the measured time stands for (kTimedEvery once timing thins)
  double predicted = NAN;  // the monitor's predicted arrival of this rank after the earliest
};

struct Sample {
  std::uint64_t call;      // the communicator's call number
  double entry;            // steady clock of this rank
  float seconds;           // time in the collective; -1: not measured (kTimedAllCalls)
  float predicted;         // NaN: no prediction
  std::uint64_t reserved;
};

struct KeyRecord {
  CallKey key;
  std::uint64_t calls = 0;
  double seconds = 0, max_seconds = 0;
  // name (a static string: registry rows, "native", ...), calls
  std::vector<std::pair<const char*, std::uint64_t>> algorithms;
  std::uint64_t reasons[kReasons] = {};
  double gain_sum = 0;
  std::uint64_t gain_calls = 0;
  int level = 0;  // the log keeps the calls with kept(call, level)
  std::vector<Sample> samples;
};

// The hash that samples calls: splitmix64's finaliser, so neighbouring calls land far apart.
inline std::uint64_t call_hash(std::uint64_t call) {
  std::uint64_t z = call + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline bool kept_hash(std::uint64_t hash, int level) {
  if (level <= 0) return true;
  const std::uint64_t mask = level >= 64 ? ~0ULL : (1ULL << level) - 1;
  return (hash & mask) == 0;
}
// Whether a log keeps the communicator's call `call` at thinning level `level` (the same on every
// rank).
inline bool kept(std::uint64_t call, int level) { return kept_hash(call_hash(call), level); }

// Time in the collective costs two clock reads (about 35 ns each, 5 % of an 8-byte all-reduce
// each at 2 ranks on one node; the interposition library's calls to the MPI library read no clock
// otherwise). They are read on every call of a communicator's first kTimedAllCalls, then on the
// calls kept(call, kTimedLevel) keeps (a pseudo-random sixteenth, chosen by call number, so no
// aliasing with periodic stragglers), each standing for 2^kTimedLevel calls: the totals are then
// estimates with a relative error of about 1/sqrt(calls/16) for calls of similar length. The log
// needs the entry time of the calls it keeps; past its first thinning to kTimedLevel those are
// among the timed ones.
inline constexpr std::uint64_t kTimedAllCalls = 4096;
inline constexpr int kTimedLevel = 4;

class ReportRecord {
 public:
  static constexpr int kMaxKeys = 64;
  explicit ReportRecord(int capacity) : capacity_(capacity < 16 ? 16 : capacity) {}

  void add(const CallRecord& c);

  // Whether add() will need call `call`'s entry time (its log keeps it, or it is timed). Inline
  // for the steady state of a loop: a call of the key of the previous call.
  bool needs_entry(const CallKey& key, std::uint64_t call) {
    if (calls_ < kTimedAllCalls) return true;
    const std::uint64_t h = call_hash(call);
    if (kept_hash(h, kTimedLevel)) return true;
    if (repeat_ && key == repeat_key_) return kept_hash(h, repeat_level_);
    return needs_entry_slow(key, call);
  }
  // The steady state of a tight loop: a call with nothing measured (no entry time read, no gain,
  // no prediction) whose key, algorithm and reason equal those of the previous such call. It is
  // only counted (O(1), no lookup); the counts join the key's record at the next add() or
  // keys(). False: not such a call, add() it.
  bool add_repeat(const CallKey& key, const char* algorithm, AutoReason reason,
                  std::uint64_t call) {
    if (!repeat_ || !(key == repeat_key_) || algorithm != repeat_algorithm_ ||
        reason != repeat_reason_)
      return false;
    ++repeats_;
    ++calls_;
    last_call_ = call;
    return true;
  }

  const std::vector<KeyRecord>& keys() {
    fold_repeats();
    return keys_;
  }
  std::uint64_t calls() const { return calls_; }
  std::uint64_t unkeyed_calls() const { return unkeyed_; }  // calls of keys past kMaxKeys
  std::uint64_t last_call() const { return last_call_; }
  int capacity() const { return capacity_; }

 private:
  KeyRecord* find(const CallKey& key);
  bool needs_entry_slow(const CallKey& key, std::uint64_t call);
  static void count_algorithm(KeyRecord& k, const char* name, std::uint64_t n_calls);
  void fold_repeats();

  int capacity_;
  std::vector<KeyRecord> keys_;
  size_t last_key_ = 0;
  std::uint64_t calls_ = 0, unkeyed_ = 0, last_call_ = 0;
  // add_repeat()'s template (the last call add() counted without a measurement) and the calls it
  // counted since.
  bool repeat_ = false;
  CallKey repeat_key_;
  const char* repeat_algorithm_ = nullptr;
  AutoReason repeat_reason_ = AutoReason::named;
  int repeat_level_ = 0;  // the key's log level (it changes only in add())
  size_t repeat_index_ = 0;
  std::uint64_t repeats_ = 0;
};

}  // namespace papcoll::observe
