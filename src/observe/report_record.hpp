// What one rank records for the straggler report (docs/report-format.md), per communicator and
// call key, without any message: counters that are exact (calls, time in the collective, the
// algorithms that ran and why "auto" chose them) and a log of the rank's own entry times, from
// which the report computes every rank's lateness once, at the end, after one gather.
//
// Bounded memory: each key's log holds at most `capacity` calls (PAPCOLL_REPORT_SAMPLES, default
// 512, 32 bytes each). When it is full it is thinned to the next level of the sampling rule
// below (exactly half of it), and so on. The choice depends on the call number alone (the
// communicator's, identical on every rank), so every rank keeps the same calls and their entry
// times line up at the end; the kept calls are a stratified pseudo-random sample of all calls
// (no aliasing with periodic stragglers), one in 2^level. At most kMaxKeys keys per communicator;
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
  double weight = 1;       // calls the measured time stands for (timed_weight())
  double predicted = NAN;  // the monitor's predicted arrival of this rank after the earliest
};

struct Sample {
  std::uint64_t call;  // the communicator's call number
  double entry;        // steady clock of this rank
  float seconds;       // time in the collective; -1: not measured
  float predicted;     // NaN: no prediction
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
  // The first call after `next_kept_from` that kept(., next_kept_level) keeps
  // (ReportRecord::kept_memo: a key's calls ask about increasing call numbers).
  std::uint64_t next_kept = 0, next_kept_from = 0;
  int next_kept_level = -1;
  std::vector<Sample> samples;
};

// The hash that samples calls: splitmix64's finaliser, so neighbouring inputs land far apart.
inline std::uint64_t call_hash(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The sampling rule (the same on every rank: it reads the call number alone). At level L the
// calls fall in blocks of 2^L consecutive numbers, and each block has exactly one kept call:
// bit l-1 of its number is a hashed bit of its bits above (and of l), for l = L down to 1. So the
// level L+1 call of a block is the level L call of one of its halves (thinning keeps exactly
// half of a log), the kept calls are a stratified pseudo-random sample (one per block, at a
// hashed place: no aliasing with a straggler late every k-th call), and the next kept call after
// any call is found with L hashes (the call path then needs none, ReportRecord::quiet_repeat).
inline constexpr int kMaxLevel = 56;  // (call numbers below 2^57)
inline std::uint64_t kept_in_block(std::uint64_t block, int level) {
  std::uint64_t x = block;
  for (int l = level; l >= 1; --l) x = x << 1 | (call_hash(x << 6 | static_cast<unsigned>(l)) & 1);
  return x;
}
// Whether a log at level `level` keeps the communicator's call `call`.
inline bool kept(std::uint64_t call, int level) {
  return level <= 0 || kept_in_block(call >> level, level) == call;
}
// For a call the log at level `level` keeps: whether the next level keeps it too (its bit
// `level` is the one hashed from the bits above it), one hash instead of kept()'s level + 1.
inline bool kept_at_next_level(std::uint64_t call, int level) {
  const unsigned l = static_cast<unsigned>(level) + 1;
  return ((call >> level) & 1) == (call_hash((call >> l) << 6 | l) & 1);
}
// The first call after `call` that a log at level `level` keeps.
inline std::uint64_t next_kept_after(std::uint64_t call, int level) {
  if (level <= 0) return call + 1;
  const std::uint64_t x = kept_in_block(call >> level, level);
  return x > call ? x : kept_in_block((call >> level) + 1, level);
}

// The interposition library's steady state (a loop of calls the report only counts, whose cost must
// stay within a balanced program's noise: docs/report-format.md "Cost"), kept by the communicator's
// observer in the cache line its call path reads anyway (comm_observer.hpp): while armed, the calls
// of `key` numbered below `until` that the MPI library runs (algorithm "native", reason named) are
// counted in `count` alone, with no access to the record. The record arms it from its latest
// template (ReportRecord::count_and_arm) and folds the count back into that template before
// anything else reads or changes the record (ReportRecord::settle), so the counts are those of
// counting each call in the template.
struct QuickRepeat {
  long long bytes = 0;
  std::int32_t collective = -1;
  std::int32_t root = -1;
  std::uint64_t until = 0;  // 0: not armed
  std::uint64_t count = 0;
  [[gnu::always_inline]] bool takes(const CallKey& key, std::uint64_t call) const {
    const std::uint64_t differ = static_cast<std::uint64_t>(key.bytes ^ bytes) |
                                 static_cast<std::uint32_t>(key.collective ^ collective) |
                                 static_cast<std::uint32_t>(key.root ^ root);
    return (call < until) & (differ == 0);
  }
  void arm(const CallKey& key, std::uint64_t until_call) {
    bytes = key.bytes;
    collective = key.collective;
    root = key.root;
    until = until_call;
    count = 0;
  }
};
static_assert(sizeof(QuickRepeat) == 32, "half a cache line (comm_observer.hpp)");

// Time in the collective costs two clock reads (about 35 ns each, 5 % of an 8-byte all-reduce
// each at 2 ranks on one node; the interposition library's calls to the MPI library read no clock
// otherwise). They are read on the calls the key's log keeps when the call is made (kept(call,
// level): every call of a key's first PAPCOLL_REPORT_SAMPLES, then half of them, and so on), each
// standing for 2^level calls (CallRecord::weight), so the total is an unbiased estimate from at
// least half a log's worth of calls per level (relative error about 1/sqrt(samples) for calls of
// similar length), and a call that is timed is one whose entry the log needs anyway: a long loop
// reads the clock on a share of its calls that halves each time the log fills.
class alignas(64) ReportRecord {
 public:
  static constexpr int kMaxKeys = 64;
  // `quick`: the observer's mirror of the latest template (QuickRepeat), or null (never armed).
  explicit ReportRecord(int capacity, QuickRepeat* quick = nullptr)
      : quick_(quick), capacity_(capacity < 16 ? 16 : capacity) {}
  ReportRecord(const ReportRecord&) = delete;
  ReportRecord& operator=(const ReportRecord&) = delete;

  void add(const CallRecord& c);

  // Whether add() will need call `call`'s entry time (its log keeps it, and it is timed). Inline
  // for the steady state of a loop: a call of the latest template's key.
  bool needs_entry(const CallKey& key, std::uint64_t call) {
    if (call < latest_.next_kept && key == latest_.key) return false;
    return needs_entry_slow(key, call);
  }
  // The weight of call `call`'s time in the collective: 2^level when the key's log keeps it
  // (then it is timed), else 0 (not timed).
  double timed_weight(const CallKey& key, std::uint64_t call);
  // Whether call `call` of `key`, run by `algorithm` for `reason` with nothing measured, would
  // only be counted (add_repeat would take it and needs_entry() is false): the interposition
  // library's steady state (intercept_observe.hpp), which then counts it with count_repeat().
  // No hash here: the next call the log keeps was found when the template was set.
  [[gnu::always_inline]] bool quiet_repeat(const CallKey& key, const char* algorithm,
                                           AutoReason reason, std::uint64_t call) const {
    // One branch (next_kept is 0 without a template): the differences or'ed together.
    const std::uint64_t differ =
        static_cast<std::uint64_t>(key.collective ^ latest_.key.collective) |
        static_cast<std::uint64_t>(key.bytes ^ latest_.key.bytes) |
        static_cast<std::uint64_t>(key.root ^ latest_.key.root) |
        (reinterpret_cast<std::uintptr_t>(algorithm) ^
         reinterpret_cast<std::uintptr_t>(latest_.algorithm)) |
        (static_cast<std::uint64_t>(reason) ^ static_cast<std::uint64_t>(latest_.reason));
    return (call < latest_.next_kept) & (differ == 0);
  }
  // When quiet_repeat() said no: whether another template takes the call after all, and then it
  // is counted (as count_repeat() counts the latest's). An older template (a loop of a few keys,
  // an all-reduce and a broadcast, say), or one past its next kept call when another key's call
  // took that number (call numbers count every key's calls; this call is then tested against its
  // key's log, and the template moves on to the next kept call).
  bool count_other_repeat(const CallKey& key, const char* algorithm, AutoReason reason,
                          std::uint64_t call) {
    return other_repeat(key, algorithm, reason, call) == Repeat::counted;
  }
  // The logged calls of a loop (docs/report-format.md "Cost"): when quiet_repeat() said no, whether
  // the call is the one its template's key logs next (timed_repeat(): the latest template, inline;
  // other_repeat(): the older ones, which also counts a call it calls `counted`). The caller then
  // reads the clock at the entry and at the exit and hands both to log_repeat(), which counts and
  // logs the call as add() would, without add()'s lookups.
  [[gnu::always_inline]] bool timed_repeat(const CallKey& key, const char* algorithm,
                                           AutoReason reason, std::uint64_t call) const {
    return call == latest_.next_kept && latest_.same(key, algorithm, reason);
  }
  enum class Repeat { none, counted, timed };
  Repeat other_repeat(const CallKey& key, const char* algorithm, AutoReason reason,
                      std::uint64_t call);
  // After timed_repeat() or other_repeat() said timed: call `call` entered at `entry` (steady
  // clock) and took `seconds`.
  void log_repeat(const CallKey& key, const char* algorithm, AutoReason reason, std::uint64_t call,
                  double entry, double seconds);
  [[gnu::always_inline]] void count_repeat() { ++latest_.repeats; }
  // After quiet_repeat() said yes for a call of the MPI library ("native", named): counts it and
  // arms the observer's mirror, which then counts the template's next calls (QuickRepeat).
  void count_and_arm(const CallKey& key) {
    settle();
    ++latest_.repeats;
    if (quick_ != nullptr) quick_->arm(key, latest_.next_kept);
  }
  // The steady state of a tight loop: a call with nothing measured (no entry time read, no gain,
  // no prediction; needs_entry() was false) whose key, algorithm and reason equal a template's.
  // It is only counted (O(1), no lookup); the counts join the key's record at the next add() or
  // keys(). False: not such a call, add() it.
  bool add_repeat(const CallKey& key, const char* algorithm, AutoReason reason,
                  std::uint64_t call) {
    if (!latest_.same(key, algorithm, reason) || call >= latest_.next_kept)
      return count_other_repeat(key, algorithm, reason, call);
    count_repeat();
    return true;
  }

  const std::vector<KeyRecord>& keys() {
    fold_repeats();
    return keys_;
  }
  std::uint64_t calls() const {
    std::uint64_t n = calls_ + latest_.repeats + (quick_ != nullptr ? quick_->count : 0);
    for (const Template& t : older_) n += t.repeats;
    return n;
  }
  std::uint64_t unkeyed_calls() const { return unkeyed_; }  // calls of keys past kMaxKeys
  int capacity() const { return capacity_; }

 private:
  KeyRecord* find(const CallKey& key);
  bool needs_entry_slow(const CallKey& key, std::uint64_t call);
  static bool kept_memo(KeyRecord& k, std::uint64_t call);
  // Appends call `s.call`, which the log keeps at its current level, thinning a full log first;
  // then the memo holds the next call the log keeps (returned).
  std::uint64_t log_kept(KeyRecord& k, const Sample& s);
  static void count_algorithm(KeyRecord& k, const char* name, std::uint64_t n_calls);
  void fold_repeats();
  // Every path but the mirror's first: its count joins the latest template (which it mirrors)
  // and it is disarmed, since the caller may change the template.
  void settle() {
    if (quick_ != nullptr && quick_->until != 0) {
      latest_.repeats += quick_->count;
      *quick_ = QuickRepeat{};
    }
  }

  // A call add() counted, whose later repeats are only counted (add_repeat, quiet_repeat): its
  // key, algorithm and reason, the first call after it that its key's log keeps (quiet_repeat is
  // false from there on; 0: no template) and the repeats counted since.
  struct Template {
    std::uint64_t next_kept = 0;
    CallKey key;
    const char* algorithm = nullptr;
    AutoReason reason = AutoReason::named;
    std::uint64_t repeats = 0;
    size_t index = 0;  // of its key in keys_
    bool same(const CallKey& k, const char* a, AutoReason r) const {
      return next_kept != 0 && key == k && algorithm == a && reason == r;
    }
  };
  // The template of (key, algorithm, reason), or null.
  Template* find_template(const CallKey& key, const char* algorithm, AutoReason reason);
  // The templates: the latest (the last add()'s: what every call path reads first, in one or two
  // cache lines with the counters), then older ones of other keys, the most recently added
  // first; add() drops the oldest.
  static constexpr int kOlderTemplates = 3;
  Template latest_;
  QuickRepeat* quick_;
  std::uint64_t calls_ = 0;  // without the repeats not yet folded
  Template older_[kOlderTemplates];
  int capacity_;
  std::vector<KeyRecord> keys_;
  size_t last_key_ = 0;
  std::uint64_t unkeyed_ = 0;
};

}  // namespace papcoll::observe
