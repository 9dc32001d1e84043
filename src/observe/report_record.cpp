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
  KeyRecord* k = find(key);
  return k != nullptr && kept_memo(*k, call);
}

bool ReportRecord::kept_memo(KeyRecord& k, std::uint64_t call) {
  if (call == 0) return kept(call, k.level);
  if (k.next_kept_level != k.level || call <= k.next_kept_from || call > k.next_kept) {
    k.next_kept_from = call - 1;
    k.next_kept = next_kept_after(call - 1, k.level);
    k.next_kept_level = k.level;
  }
  return call == k.next_kept;
}

double ReportRecord::timed_weight(const CallKey& key, std::uint64_t call) {
  fold_repeats();
  KeyRecord* k = find(key);
  if (k == nullptr || !kept_memo(*k, call)) return 0;
  return static_cast<double>(std::uint64_t{1} << std::min(k->level, 62));
}

void ReportRecord::fold_repeats() {
  settle();
  auto fold = [this](Template& t) {
    if (t.repeats == 0) return;
    KeyRecord& k = keys_[t.index];
    k.calls += t.repeats;
    calls_ += t.repeats;
    count_algorithm(k, t.algorithm, t.repeats);
    k.reasons[static_cast<int>(t.reason)] += t.repeats;
    t.repeats = 0;
  };
  fold(latest_);
  for (Template& t : older_) fold(t);
}

ReportRecord::Template* ReportRecord::find_template(const CallKey& key, const char* algorithm,
                                                    AutoReason reason) {
  if (latest_.same(key, algorithm, reason)) return &latest_;
  for (Template& t : older_)
    if (t.same(key, algorithm, reason)) return &t;
  return nullptr;
}

ReportRecord::Repeat ReportRecord::other_repeat(const CallKey& key, const char* algorithm,
                                                AutoReason reason, std::uint64_t call) {
  settle();
  Template* t = find_template(key, algorithm, reason);
  if (t == nullptr) return Repeat::none;
  if (call == t->next_kept) return Repeat::timed;
  if (call > t->next_kept) {
    KeyRecord& k = keys_[t->index];
    if (kept_memo(k, call)) return Repeat::none;  // the log keeps it: add() it
    t->next_kept = k.next_kept;                   // > call
  }
  ++t->repeats;
  return Repeat::counted;
}

void ReportRecord::add(const CallRecord& c) {
  fold_repeats();
  // This call's (key, algorithm, reason) gets the latest template below: its old one goes, and
  // the latest of another key moves to the older ones (dropping the oldest, or the slot of the
  // old one).
  for (Template& t : older_)
    if (t.same(c.key, c.algorithm, c.reason)) t = Template{};
  if (!latest_.same(c.key, c.algorithm, c.reason) && latest_.next_kept != 0) {
    int free = kOlderTemplates - 1;
    for (int i = 0; i < kOlderTemplates; ++i)
      if (older_[i].next_kept == 0) {
        free = i;
        break;
      }
    for (int j = free; j > 0; --j) older_[j] = older_[j - 1];
    older_[0] = latest_;
  }
  latest_ = Template{};
  ++calls_;
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
  // The next calls of this key, algorithm and reason with nothing measured are only counted
  // (add_repeat), up to the next call the log keeps.
  latest_.key = c.key;
  latest_.algorithm = c.algorithm;
  latest_.reason = c.reason;
  latest_.repeats = 0;
  latest_.index = static_cast<size_t>(k - keys_.data());
  if (!std::isnan(c.entry) && kept_memo(*k, c.call)) {
    latest_.next_kept = log_kept(
        *k, Sample{c.call, c.entry, static_cast<float>(std::isfinite(c.seconds) ? c.seconds : -1.0),
                   static_cast<float>(c.predicted), 0});
  } else {
    kept_memo(*k, c.call + 1);         // the memo now covers the calls after this one
    latest_.next_kept = k->next_kept;  // > c.call >= 0: the template is set
  }
}

std::uint64_t ReportRecord::log_kept(KeyRecord& k, const Sample& s) {
  bool keep = true;
  if (static_cast<int>(k.samples.size()) >= capacity_ && k.level < kMaxLevel) {
    // Full: keep the half of the log that the next level keeps (every entry is kept at the
    // current level, so one hash each decides).
    const int level = k.level++;
    std::erase_if(k.samples,
                  [level](const Sample& e) { return !kept_at_next_level(e.call, level); });
    keep = kept_at_next_level(s.call, level);
  }
  if (keep) k.samples.push_back(s);
  // The next kept call: the kept one of the next block when this call is kept (level hashes),
  // else the general search.
  k.next_kept_from = s.call;
  k.next_kept = keep ? kept_in_block((s.call >> k.level) + 1, k.level)
                     : next_kept_after(s.call, k.level);
  k.next_kept_level = k.level;
  return k.next_kept;
}

void ReportRecord::log_repeat(const CallKey& key, const char* algorithm, AutoReason reason,
                              std::uint64_t call, double entry, double seconds) {
  settle();
  Template* t = find_template(key, algorithm, reason);
  if (t == nullptr) [[unlikely]] {  // not after timed_repeat() or other_repeat()
    CallRecord c;
    c.call = call;
    c.key = key;
    c.algorithm = algorithm;
    c.reason = reason;
    c.entry = entry;
    c.weight = timed_weight(key, call);
    c.seconds = c.weight > 0 ? seconds : NAN;
    add(c);
    return;
  }
  KeyRecord& k = keys_[t->index];
  ++t->repeats;  // counted with the template's algorithm and reason when folded
  // The memo answers at once in a loop (log_kept() set it). It also covers a template whose
  // next kept call was found before its key's log went to the next level (another template of
  // the key, with another algorithm, logged meanwhile): then the call may be one the log no
  // longer keeps, and it is only counted.
  if (!kept_memo(k, call)) {
    t->next_kept = k.next_kept;  // > call
    return;
  }
  // Timed at the level that kept it: it stands for 2^level calls (timed_weight()).
  k.seconds += std::ldexp(seconds, std::min(k.level, 62));
  k.max_seconds = std::max(k.max_seconds, seconds);
  t->next_kept =
      log_kept(k, Sample{call, entry, static_cast<float>(seconds), static_cast<float>(NAN), 0});
}

}  // namespace papcoll::observe
