// History predictors of arrival patterns (no MPI, header-only so the unit tests need no library).
//
// A pattern is one relative arrival time per rank, in seconds, the earliest rank at 0. A Predictor
// is fed the measured patterns of one call site in call order and predicts the next one: the last
// value, the simple moving average of the last k, or an exponential moving average (Clairvoyant
// paper, Sec. 6: "simple moving averages ... assuming the repetition of the PATs").
//
// Agreement: every rank feeds the same vectors in the same order (they come from one exchange)
// and every sum here runs in a fixed order, so predictions are bit-identical on all ranks of a run
// (one binary, IEEE double arithmetic; nothing depends on the rank, the time or memory addresses).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <vector>

namespace papcoll::prediction {

enum class PredictorKind { last = 0, sma = 1, ema = 2 };

struct PredictorConfig {
  PredictorKind kind = PredictorKind::sma;
  int window = 4;          // SMA: number of patterns averaged (>= 1)
  double ema_alpha = 0.5;  // EMA: weight of the newest pattern, in (0, 1]
};

// Shifts a pattern so its minimum is 0 (the origin of arrival times carries no information).
inline std::vector<double> relative_to_earliest(std::vector<double> v) {
  if (v.empty()) return v;
  const double lo = *std::min_element(v.begin(), v.end());
  for (double& x : v) x -= lo;
  return v;
}

class Predictor {
 public:
  explicit Predictor(PredictorConfig cfg = {}) : cfg_(cfg) {
    cfg_.window = std::max(1, cfg_.window);
    if (!(cfg_.ema_alpha > 0 && cfg_.ema_alpha <= 1)) cfg_.ema_alpha = 0.5;
  }

  // Feeds one measured pattern (finite values; a pattern of another length restarts the history).
  void feed(const std::vector<double>& pattern) {
    if (!history_.empty() && history_.back().size() != pattern.size()) reset();
    if (!ema_.empty() && ema_.size() != pattern.size()) reset();
    ++fed_;
    switch (cfg_.kind) {
      case PredictorKind::last: history_.assign(1, pattern); break;
      case PredictorKind::sma:
        history_.push_back(pattern);
        while (static_cast<int>(history_.size()) > cfg_.window) history_.pop_front();
        break;
      case PredictorKind::ema:
        if (ema_.empty()) {
          ema_ = pattern;
        } else {
          const double a = cfg_.ema_alpha;
          for (size_t i = 0; i < ema_.size(); ++i) ema_[i] = a * pattern[i] + (1.0 - a) * ema_[i];
        }
        history_.assign(1, pattern);  // for newest()
        break;
    }
  }

  bool empty() const { return fed_ == 0; }
  std::int64_t fed() const { return fed_; }

  // The predicted next pattern, relative to its earliest entry; empty before the first feed.
  std::vector<double> predict() const {
    if (fed_ == 0) return {};
    if (cfg_.kind == PredictorKind::ema) return relative_to_earliest(ema_);
    if (cfg_.kind == PredictorKind::last) return relative_to_earliest(history_.back());
    std::vector<double> sum(history_.front().size(), 0.0);
    for (const std::vector<double>& h : history_)  // oldest first: a fixed order of additions
      for (size_t i = 0; i < sum.size(); ++i) sum[i] += h[i];
    const double n = static_cast<double>(history_.size());
    for (double& x : sum) x /= n;
    return relative_to_earliest(std::move(sum));
  }

  // The newest fed pattern, relative to its earliest entry; empty before the first feed.
  std::vector<double> newest() const {
    return fed_ == 0 ? std::vector<double>{} : relative_to_earliest(history_.back());
  }

  void reset() {
    history_.clear();
    ema_.clear();
    fed_ = 0;
  }

 private:
  PredictorConfig cfg_;
  std::deque<std::vector<double>> history_;  // newest at the back (ema: the newest only)
  std::vector<double> ema_;
  std::int64_t fed_ = 0;
};

// One Predictor per call site. The number of sites is bounded: beyond max_sites the least recently
// used site is forgotten. "Recently" counts feeds and lookups, which happen in the same order on
// every rank, so the eviction is as deterministic as the predictions.
class HistoryTable {
 public:
  explicit HistoryTable(PredictorConfig cfg = {}, size_t max_sites = 256)
      : cfg_(cfg), max_sites_(std::max<size_t>(1, max_sites)) {}

  void feed(int site, const std::vector<double>& pattern) {
    Entry& e = touch(site);
    e.predictor.feed(pattern);
    e.sampling.last_spread = spread(pattern);
    e.sampling.predicted_spread = spread(e.predictor.predict());
  }

  // What the sampling of the measured exchange reads (Monitor::sample_locked): the spread
  // (latest minus earliest arrival) of the site's newest measured pattern and of its prediction,
  // and the calls of the site since it was last measured. Fed patterns are bit-identical on every
  // rank, and so is this.
  // unused: consecutive calls handed an imbalanced prediction that ran an algorithm which does
  // not read arrival times (auto judged the imbalance too small to act on, or the algorithm is
  // fixed), with no call in between that ran one that does; unused_spread: the spread of the
  // newest such prediction. Measuring every call for them costs p - 1 messages a call for
  // nothing, a tax on a balanced program (docs/prediction.md, "Sampling"). Kept by the monitor
  // (Monitor::note_use).
  struct Sampling {
    double last_spread = 0;
    double predicted_spread = 0;
    std::uint64_t unmeasured = 0;
    std::uint64_t gap = 0;  // the calls left unmeasured before the newest measured one
    int unused = 0;
    double unused_spread = 0;
    // The site's own sampling interval (Monitor::quiet_call's `every`); 0: the monitor's
    // history_sample.
    std::uint64_t every = 0;
  };
  // nullptr when the site has no history.
  Sampling* sampling(int site) {
    auto it = sites_.find(site);
    if (it == sites_.end()) return nullptr;
    it->second.last_use = ++clock_;
    return &it->second.sampling;
  }

  // Empty when the site has no history yet.
  std::vector<double> predict(int site) {
    auto it = sites_.find(site);
    if (it == sites_.end()) return {};
    it->second.last_use = ++clock_;
    return it->second.predictor.predict();
  }

  // The newest fed pattern, relative to its earliest entry; empty when the site has no history.
  std::vector<double> newest(int site) {
    auto it = sites_.find(site);
    if (it == sites_.end()) return {};
    it->second.last_use = ++clock_;
    return it->second.predictor.newest();
  }

  size_t sites() const { return sites_.size(); }

  // Latest minus earliest entry (0 for an empty pattern).
  static double spread(const std::vector<double>& v) {
    if (v.empty()) return 0;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *hi - *lo;
  }

 private:
  struct Entry {
    Predictor predictor;
    std::uint64_t last_use = 0;
    Sampling sampling;
  };

  Entry& touch(int site) {
    auto it = sites_.find(site);
    if (it == sites_.end()) {
      if (sites_.size() >= max_sites_) {
        auto oldest = sites_.begin();
        for (auto j = sites_.begin(); j != sites_.end(); ++j)
          if (j->second.last_use < oldest->second.last_use) oldest = j;
        sites_.erase(oldest);
      }
      it = sites_.emplace(site, Entry{Predictor(cfg_), 0, {}}).first;
    }
    it->second.last_use = ++clock_;
    return it->second;
  }

  PredictorConfig cfg_;
  size_t max_sites_;
  std::map<int, Entry> sites_;
  std::uint64_t clock_ = 0;
};

}  // namespace papcoll::prediction
