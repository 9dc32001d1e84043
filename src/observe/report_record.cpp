#include "observe/report_record.hpp"

#include <algorithm>
#include <cstring>

namespace papcoll::observe {

const char* reason_name(AutoReason r) {
  switch (r) {
    case AutoReason::named: return "named";
    case AutoReason::rule: return "rule";
    case AutoReason::no_pattern: return "no_pattern";
    case AutoReason::balanced: return "balanced";
    case AutoReason::small_gain: return "small_gain";
    case AutoReason::aware: return "aware";
    case AutoReason::refused: return "refused";
  }
  return "?";
}

KeyRecord* ReportRecord::find(const CallKey& key) {
  if (last_key_ < keys_.size() && keys_[last_key_].key == key) return &keys_[last_key_];
  for (size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i].key == key) {
      last_key_ = i;
      return &keys_[i];
    }
  if (static_cast<int>(keys_.size()) >= kMaxKeys) return nullptr;
  keys_.emplace_back();
  keys_.back().key = key;
  keys_.back().samples.reserve(64);
  last_key_ = keys_.size() - 1;
  return &keys_.back();
}

void ReportRecord::count_algorithm(KeyRecord& k, const char* name, std::uint64_t n_calls) {
  for (auto& [n, calls] : k.algorithms)  // the same static string: a pointer compare
    if (n == name) {
      calls += n_calls;
      return;
    }
  for (auto& [n, calls] : k.algorithms)
    if (std::strcmp(n, name) == 0) {
      calls += n_calls;
      return;
    }
  k.algorithms.emplace_back(name, n_calls);
}

bool ReportRecord::needs_entry_slow(const CallKey& key, std::uint64_t call) {
  fold_repeats();
  const KeyRecord* k = find(key);
  // A log that is not yet thinned to kTimedLevel keeps more calls than are timed.
  return k != nullptr && kept(call, k->level);
}

void ReportRecord::fold_repeats() {
  if (repeats_ == 0) return;
  KeyRecord& k = keys_[repeat_index_];
  k.calls += repeats_;
  count_algorithm(k, repeat_algorithm_, repeats_);
  k.reasons[static_cast<int>(repeat_reason_)] += repeats_;
  repeats_ = 0;
}

void ReportRecord::add(const CallRecord& c) {
  fold_repeats();
  repeat_ = false;
  ++calls_;
  last_call_ = c.call;
  KeyRecord* k = find(c.key);
  if (k == nullptr) {
    ++unkeyed_;
    return;
  }
  ++k->calls;
  if (std::isfinite(c.seconds)) {
    k->seconds += c.weight * c.seconds;
    k->max_seconds = std::max(k->max_seconds, c.seconds);
  }
  count_algorithm(*k, c.algorithm, 1);
  ++k->reasons[static_cast<int>(c.reason)];
  if (std::isfinite(c.gain)) {
    k->gain_sum += c.gain;
    ++k->gain_calls;
  }
  if (std::isnan(c.entry) && std::isnan(c.seconds) && std::isnan(c.gain) &&
      std::isnan(c.predicted)) {
    // Nothing measured: the next equal calls may go through add_repeat().
    repeat_ = true;
    repeat_key_ = c.key;
    repeat_algorithm_ = c.algorithm;
    repeat_reason_ = c.reason;
    repeat_level_ = k->level;
    repeat_index_ = static_cast<size_t>(k - keys_.data());
    return;
  }
  if (!kept(c.call, k->level) || std::isnan(c.entry)) return;
  if (static_cast<int>(k->samples.size()) >= capacity_) {
    // Full: keep the half of the log that the next level keeps.
    ++k->level;
    const int level = k->level;
    std::erase_if(k->samples, [level](const Sample& s) { return !kept(s.call, level); });
    if (!kept(c.call, k->level) || std::isnan(c.entry)) return;
  }
  k->samples.push_back(Sample{c.call, c.entry,
                              static_cast<float>(std::isfinite(c.seconds) ? c.seconds : -1.0),
                              static_cast<float>(c.predicted), 0});
}

}  // namespace papcoll::observe
