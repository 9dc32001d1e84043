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
  double entry = 0;        // steady clock at the entry, seconds
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

// Whether a log keeps the communicator's call `call` at thinning level `level` (the same on every
// rank).
bool kept(std::uint64_t call, int level);

// Time in the collective costs a clock read at the end of the call (about 35 ns, 4 % of an 8-byte
// all-reduce at 2 ranks on one node). It is read on every call of a communicator's first
// kTimedAllCalls, then on the calls kept(call, kTimedLevel) keeps (a pseudo-random quarter,
// chosen by call number, so no aliasing with periodic stragglers), each standing for
// 2^kTimedLevel calls: the totals are then estimates with a relative error of about
// 1/sqrt(calls/4) for calls of similar length.
inline constexpr std::uint64_t kTimedAllCalls = 4096;
inline constexpr int kTimedLevel = 2;

class ReportRecord {
 public:
  static constexpr int kMaxKeys = 64;
  explicit ReportRecord(int capacity) : capacity_(capacity < 16 ? 16 : capacity) {}

  void add(const CallRecord& c);

  const std::vector<KeyRecord>& keys() const { return keys_; }
  std::uint64_t calls() const { return calls_; }
  std::uint64_t unkeyed_calls() const { return unkeyed_; }  // calls of keys past kMaxKeys
  std::uint64_t last_call() const { return last_call_; }
  int capacity() const { return capacity_; }

 private:
  KeyRecord* find(const CallKey& key);
  static void count_algorithm(KeyRecord& k, const char* name);

  int capacity_;
  std::vector<KeyRecord> keys_;
  size_t last_key_ = 0;
  std::uint64_t calls_ = 0, unkeyed_ = 0, last_call_ = 0;
};

}  // namespace papcoll::observe
