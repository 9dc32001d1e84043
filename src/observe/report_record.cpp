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

bool kept(std::uint64_t call, int level) {
  if (level <= 0) return true;
  // splitmix64's finaliser: neighbouring calls land far apart.
  std::uint64_t z = call + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  const std::uint64_t mask = level >= 64 ? ~0ULL : (1ULL << level) - 1;
  return (z & mask) == 0;
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

void ReportRecord::count_algorithm(KeyRecord& k, const char* name) {
  for (auto& [n, calls] : k.algorithms)  // the same static string: a pointer compare
    if (n == name) {
      ++calls;
      return;
    }
  for (auto& [n, calls] : k.algorithms)
    if (std::strcmp(n, name) == 0) {
      ++calls;
      return;
    }
  k.algorithms.emplace_back(name, 1);
}

void ReportRecord::add(const CallRecord& c) {
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
  count_algorithm(*k, c.algorithm);
  ++k->reasons[static_cast<int>(c.reason)];
  if (std::isfinite(c.gain)) {
    k->gain_sum += c.gain;
    ++k->gain_calls;
  }
  if (!kept(c.call, k->level)) return;
  if (static_cast<int>(k->samples.size()) >= capacity_) {
    // Full: keep the half of the log that the next level keeps.
    ++k->level;
    const int level = k->level;
    std::erase_if(k->samples, [level](const Sample& s) { return !kept(s.call, level); });
    if (!kept(c.call, k->level)) return;
  }
  k->samples.push_back(Sample{c.call, c.entry,
                              static_cast<float>(std::isfinite(c.seconds) ? c.seconds : -1.0),
                              static_cast<float>(c.predicted), 0});
}

}  // namespace papcoll::observe
