#include "observe/report_stats.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "observe/json_out.hpp"
#include "schedule/schedule.hpp"

namespace papcoll::observe {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();

// One call that every rank of the communicator logged.
struct Matched {
  std::uint64_t call;
  double weight;
  std::vector<double> lateness, wait;
  int last;
};

const Sample* find_sample(const KeyData& k, std::uint64_t call) {
  // Logs are in call order (appended, thinned in place).
  auto it = std::lower_bound(k.samples.begin(), k.samples.end(), call,
                             [](const Sample& s, std::uint64_t v) { return s.call < v; });
  return it != k.samples.end() && it->call == call ? &*it : nullptr;
}

struct RankAccumulator {
  std::vector<std::pair<double, double>> lateness, wait;
  double last = 0, weight = 0;
  std::vector<double> histogram = std::vector<double>(kWaitBins, 0.0);
  void add(double late, double w, bool is_last, double weight_) {
    lateness.emplace_back(late, weight_);
    wait.emplace_back(w, weight_);
    if (is_last) last += weight_;
    weight += weight_;
    histogram[static_cast<size_t>(wait_bin(w))] += weight_;
  }
  void finish(RankStats* out) const {
    out->lateness = weighted_quantiles(lateness);
    out->wait = weighted_quantiles(wait);
    out->last_share = weight > 0 ? last / weight : kNan;
    out->wait_histogram = histogram;
  }
};

}  // namespace

double wait_bin_upper_edge(int bin) {
  if (bin <= 0) return 1e-6;
  if (bin >= kWaitBins - 1) return std::numeric_limits<double>::infinity();
  return 1e-6 * std::pow(10.0, bin / 4.0);
}

int wait_bin(double seconds) {
  if (!(seconds >= 1e-6)) return 0;
  const int b = 1 + static_cast<int>(std::floor(4.0 * std::log10(seconds / 1e-6) + 1e-9));
  return std::min(b, kWaitBins - 1);
}

Quantiles weighted_quantiles(std::vector<std::pair<double, double>> v) {
  Quantiles q;
  double total = 0, sum = 0;
  for (const auto& [x, w] : v) {
    total += w;
    sum += x * w;
  }
  if (v.empty() || !(total > 0)) return q;
  std::sort(v.begin(), v.end());
  q.mean = sum / total;
  q.max = v.back().first;
  auto at = [&](double fraction) {
    const double target = fraction * total;
    double cum = 0;
    for (const auto& [x, w] : v) {
      cum += w;
      if (cum >= target - 1e-12 * total) return x;
    }
    return v.back().first;
  };
  q.median = at(0.5);
  q.p95 = at(0.95);
  return q;
}

std::vector<CommStats> analyze(const std::vector<RankData>& ranks, int max_windows) {
  // Every rank's record of each communicator, by the communicator's id.
  std::map<long long, std::vector<std::pair<const RankData*, const CommData*>>> by_id;
  for (const RankData& r : ranks)
    for (const CommData& c : r.comms) by_id[c.id].push_back({&r, &c});

  std::vector<CommStats> out;
  for (const auto& [id, parts_in] : by_id) {
    CommStats cs;
    cs.id = id;
    const CommData& first = *parts_in.front().second;
    cs.size = first.size;
    cs.world_ranks = first.world_ranks;
    std::vector<const CommData*> part(static_cast<size_t>(cs.size), nullptr);
    std::vector<const RankData*> owner(static_cast<size_t>(cs.size), nullptr);
    for (const auto& [r, c] : parts_in)
      if (c->rank >= 0 && c->rank < cs.size && c->size == cs.size) {
        part[static_cast<size_t>(c->rank)] = c;
        owner[static_cast<size_t>(c->rank)] = r;
      }
    const int p = cs.size;
    cs.reporting = static_cast<int>(std::count_if(part.begin(), part.end(),
                                                  [](const CommData* c) { return c != nullptr; }));
    const CommData* lead = part[0] != nullptr ? part[0] : &first;
    cs.name = lead->name;
    cs.calls = lead->calls;
    cs.unkeyed = lead->unkeyed;
    cs.freed = lead->freed;
    const bool complete = cs.reporting == p;

    cs.ranks.assign(static_cast<size_t>(p), RankStats{});
    for (int r = 0; r < p; ++r) {
      RankStats& rs = cs.ranks[static_cast<size_t>(r)];
      rs.rank = r;
      if (owner[static_cast<size_t>(r)] != nullptr) {
        rs.world_rank = owner[static_cast<size_t>(r)]->world_rank;
        rs.host = owner[static_cast<size_t>(r)]->host;
      } else if (static_cast<size_t>(r) < cs.world_ranks.size()) {
        rs.world_rank = cs.world_ranks[static_cast<size_t>(r)];
      }
    }
    std::vector<RankAccumulator> pooled(static_cast<size_t>(p));
    std::vector<Matched> matched_all;

    // The keys in comm rank 0's order, then any only other ranks have.
    std::vector<CallKey> keys;
    for (const CommData* c : part)
      if (c != nullptr)
        for (const KeyData& k : c->keys)
          if (std::find(keys.begin(), keys.end(), k.key) == keys.end()) keys.push_back(k.key);

    for (const CallKey& key : keys) {
      KeyStats ks;
      ks.key = key;
      ks.ranks.assign(static_cast<size_t>(p), RankStats{});
      std::vector<const KeyData*> kd(static_cast<size_t>(p), nullptr);
      for (int r = 0; r < p; ++r) {
        const CommData* c = part[static_cast<size_t>(r)];
        if (c == nullptr) continue;
        for (const KeyData& k : c->keys)
          if (k.key == key) kd[static_cast<size_t>(r)] = &k;
      }
      const KeyData* k0 = nullptr;
      for (const KeyData* k : kd)
        if (k != nullptr) {
          k0 = k;
          break;
        }
      ks.calls = k0->calls;
      // A rank whose key saw fewer calls (it refused some) may thin less: the deepest level's
      // calls are in every log.
      for (const KeyData* k : kd)
        if (k != nullptr) ks.level = std::max(ks.level, k->level);
      ks.algorithms = k0->algorithms;
      std::copy(std::begin(k0->reasons), std::end(k0->reasons), std::begin(ks.reasons));
      ks.mean_gain = k0->gain_calls > 0 ? k0->gain_sum / static_cast<double>(k0->gain_calls) : kNan;
      double seconds_sum = 0, seconds_calls = 0;
      for (int r = 0; r < p; ++r) {
        RankStats& rs = ks.ranks[static_cast<size_t>(r)];
        rs.rank = r;
        rs.world_rank = cs.ranks[static_cast<size_t>(r)].world_rank;
        rs.host = cs.ranks[static_cast<size_t>(r)].host;
        if (const KeyData* k = kd[static_cast<size_t>(r)]; k != nullptr) {
          rs.seconds = k->seconds;
          seconds_sum += k->seconds;
          seconds_calls += static_cast<double>(k->calls);
          ks.refusals += k->reasons[static_cast<int>(AutoReason::refused)];
          cs.ranks[static_cast<size_t>(r)].seconds += k->seconds;
          cs.seconds += k->seconds;
        }
      }
      ks.mean_seconds = seconds_calls > 0 ? seconds_sum / seconds_calls : kNan;

      const bool all = complete && std::all_of(kd.begin(), kd.end(),
                                               [](const KeyData* k) { return k != nullptr; });
      if (all) {
        std::vector<RankAccumulator> acc(static_cast<size_t>(p));
        const double weight = std::ldexp(1.0, ks.level);
        double err_sum = 0, err_max = 0, spread_sum = 0;
        std::vector<double> t(static_cast<size_t>(p)), pred(static_cast<size_t>(p));
        for (const Sample& s0 : kd[0]->samples) {
          if (!kept(s0.call, ks.level)) continue;
          bool found = true, predicted = true;
          for (int r = 0; r < p && found; ++r) {
            const Sample* s = r == 0 ? &s0 : find_sample(*kd[static_cast<size_t>(r)], s0.call);
            if (s == nullptr) {
              found = false;
              break;
            }
            t[static_cast<size_t>(r)] = s->entry - owner[static_cast<size_t>(r)]->clock_offset;
            pred[static_cast<size_t>(r)] = s->predicted;
            if (!std::isfinite(s->predicted)) predicted = false;
          }
          if (!found) continue;
          ++ks.matched;
          const auto [lo, hi] = std::minmax_element(t.begin(), t.end());
          const double tmin = *lo, tmax = *hi;
          Matched m{s0.call, weight, std::vector<double>(static_cast<size_t>(p)),
                    std::vector<double>(static_cast<size_t>(p)), static_cast<int>(hi - t.begin())};
          for (int r = 0; r < p; ++r) {
            const double late = t[static_cast<size_t>(r)] - tmin;
            const double w = tmax - t[static_cast<size_t>(r)];
            m.lateness[static_cast<size_t>(r)] = late;
            m.wait[static_cast<size_t>(r)] = w;
            acc[static_cast<size_t>(r)].add(late, w, r == m.last, 1.0);
            pooled[static_cast<size_t>(r)].add(late, w, r == m.last, weight);
          }
          if (predicted) {
            const double pmin = *std::min_element(pred.begin(), pred.end());
            double e = 0;
            for (int r = 0; r < p; ++r) {
              const double d = std::fabs(pred[static_cast<size_t>(r)] - pmin -
                                         m.lateness[static_cast<size_t>(r)]);
              e += d;
              err_max = std::max(err_max, d);
            }
            err_sum += e / p;
            spread_sum += tmax - tmin;
            ++ks.prediction.calls;
          }
          matched_all.push_back(std::move(m));
        }
        for (int r = 0; r < p; ++r) {
          RankStats& rs = ks.ranks[static_cast<size_t>(r)];
          acc[static_cast<size_t>(r)].finish(&rs);
          // Per call of the key: the sample's weights are 1 here; scale to every call.
          const double scale = ks.matched > 0 ? static_cast<double>(ks.calls) /
                                                    static_cast<double>(ks.matched)
                                              : 0.0;
          for (double& h : rs.wait_histogram) h *= scale;
          rs.wait_estimate = std::isfinite(rs.wait.mean) ? rs.wait.mean * ks.calls : 0.0;
          cs.ranks[static_cast<size_t>(r)].wait_estimate += rs.wait_estimate;
          cs.wait_estimate += rs.wait_estimate;
        }
        if (ks.prediction.calls > 0) {
          const double n = static_cast<double>(ks.prediction.calls);
          ks.prediction.mean_abs_error = err_sum / n;
          ks.prediction.max_abs_error = err_max;
          ks.prediction.mean_spread = spread_sum / n;
        }
      }
      cs.keys.push_back(std::move(ks));
    }

    for (int r = 0; r < p; ++r) {
      RankStats& rs = cs.ranks[static_cast<size_t>(r)];
      const double wait_estimate = rs.wait_estimate;
      pooled[static_cast<size_t>(r)].finish(&rs);
      rs.wait_estimate = wait_estimate;
    }
    cs.stragglers.resize(static_cast<size_t>(p));
    for (int r = 0; r < p; ++r) cs.stragglers[static_cast<size_t>(r)] = r;
    std::stable_sort(cs.stragglers.begin(), cs.stragglers.end(), [&](int a, int b) {
      const double la = cs.ranks[static_cast<size_t>(a)].lateness.mean;
      const double lb = cs.ranks[static_cast<size_t>(b)].lateness.mean;
      return (std::isfinite(la) ? la : -1.0) > (std::isfinite(lb) ? lb : -1.0);
    });

    for (const Matched& m : matched_all) cs.last_by_call.emplace_back(m.call, m.last);
    std::sort(cs.last_by_call.begin(), cs.last_by_call.end());

    // Windows of consecutive calls over the whole run of the communicator.
    if (!matched_all.empty()) {
      std::uint64_t lo = ~0ULL, hi = 0;
      for (const Matched& m : matched_all) {
        lo = std::min(lo, m.call);
        hi = std::max(hi, m.call);
      }
      const std::uint64_t span = hi - lo + 1;
      const std::uint64_t n = std::min<std::uint64_t>(
          span, static_cast<std::uint64_t>(std::max(1, max_windows)));
      struct Acc {
        std::vector<double> late, wait;
        double weight = 0;
      };
      std::vector<Acc> win(static_cast<size_t>(n));
      for (Acc& a : win) {
        a.late.assign(static_cast<size_t>(p), 0.0);
        a.wait.assign(static_cast<size_t>(p), 0.0);
      }
      for (const Matched& m : matched_all) {
        const size_t w = static_cast<size_t>((m.call - lo) * n / span);
        for (int r = 0; r < p; ++r) {
          win[w].late[static_cast<size_t>(r)] += m.weight * m.lateness[static_cast<size_t>(r)];
          win[w].wait[static_cast<size_t>(r)] += m.weight * m.wait[static_cast<size_t>(r)];
        }
        win[w].weight += m.weight;
      }
      for (std::uint64_t w = 0; w < n; ++w) {
        WindowStats ws;
        ws.first_call = lo + (w * span + n - 1) / n;
        ws.last_call = lo + ((w + 1) * span + n - 1) / n - 1;
        Acc& a = win[static_cast<size_t>(w)];
        ws.calls = a.weight;
        for (int r = 0; r < p; ++r) {
          ws.lateness.push_back(a.weight > 0 ? a.late[static_cast<size_t>(r)] / a.weight : kNan);
          ws.wait.push_back(a.weight > 0 ? a.wait[static_cast<size_t>(r)] / a.weight : kNan);
        }
        cs.windows.push_back(std::move(ws));
      }
    }
    out.push_back(std::move(cs));
  }
  // The communicator with the most ranks first, then by id: the world is usually the first.
  std::stable_sort(out.begin(), out.end(), [](const CommStats& a, const CommStats& b) {
    return a.size != b.size ? a.size > b.size : a.id < b.id;
  });
  return out;
}

namespace {

void quantiles(JsonOut& j, const std::string& name, const Quantiles& q) {
  j.key(name).begin_object(false);
  j.field("mean", q.mean).field("median", q.median).field("p95", q.p95).field("max", q.max);
  j.end_object();
}

void rank_stats(JsonOut& j, const RankStats& r, bool histogram) {
  j.begin_object();
  j.field("rank", r.rank).field("world_rank", r.world_rank).field("host", r.host);
  quantiles(j, "lateness_s", r.lateness);
  quantiles(j, "wait_s", r.wait);
  j.field("last_share", r.last_share);
  j.field("time_in_collective_s", r.seconds);
  j.field("wait_total_s", r.wait_estimate);
  if (histogram) j.numbers("wait_histogram", r.wait_histogram);
  j.end_object();
}

}  // namespace

std::string report_json(const std::vector<CommStats>& comms, const std::vector<RankData>& ranks,
                        const ReportMeta& meta) {
  JsonOut j;
  j.begin_object();
  j.field("format", "papcoll-report").field("version", kReportVersion);
  j.field("created", meta.created).field("papcoll_version", meta.papcoll_version);
  j.field("mpi_library", meta.mpi_library).field("world_size", meta.world_size);
  j.key("clock").begin_object();
  j.field("source", "steady_clock (CLOCK_MONOTONIC); offsets to world rank 0 measured when the "
                    "report is written");
  j.field("resolution_s", meta.clock_resolution);
  j.end_object();
  j.key("sampling").begin_object();
  j.field("samples_per_key", meta.samples_per_key);
  j.field("rule", "a key's calls are all logged up to samples_per_key; then the log keeps one "
                  "call per block of 2^level calls, at a place hashed from the call number "
                  "(report_record.hpp); the same calls are timed");
  j.end_object();
  std::vector<double> edges;
  for (int b = 0; b < kWaitBins - 1; ++b) edges.push_back(wait_bin_upper_edge(b));
  j.numbers("wait_histogram_upper_edges_s", edges);
  j.key("ranks").begin_array();
  for (const RankData& r : ranks) {
    j.begin_object();
    j.field("world_rank", r.world_rank).field("host", r.host);
    j.field("clock_offset_s", r.clock_offset).field("clock_uncertainty_s", r.clock_width / 2);
    j.end_object();
  }
  j.end_array();
  j.key("communicators").begin_array();
  for (const CommStats& c : comms) {
    j.begin_object();
    j.field("id", c.id).field("name", c.name).field("size", c.size);
    j.field("ranks_reporting", c.reporting).field("freed", c.freed);
    j.key("world_ranks").begin_array(true);
    for (int w : c.world_ranks) j.value(w);
    j.end_array();
    j.field("calls", c.calls).field("calls_without_key", c.unkeyed);
    j.field("time_in_collectives_s", c.seconds).field("wait_total_s", c.wait_estimate);
    j.key("stragglers").begin_array(true);
    for (int r : c.stragglers) j.value(r);
    j.end_array();
    j.key("ranks").begin_array();
    for (const RankStats& r : c.ranks) rank_stats(j, r, true);
    j.end_array();
    j.key("keys").begin_array();
    for (const KeyStats& k : c.keys) {
      j.begin_object();
      j.field("operation", collective_name(static_cast<Collective>(k.key.collective)));
      j.field("bytes", k.key.bytes).field("root", k.key.root);
      j.field("calls", k.calls).field("sampled_calls", k.matched).field("sample_level", k.level);
      j.key("algorithms").begin_object();
      for (const auto& [name, n] : k.algorithms) j.field(name, n);
      j.end_object();
      j.key("reasons").begin_object();
      for (int i = 0; i < kReasons; ++i)
        if (k.reasons[i] > 0) j.field(reason_name(static_cast<AutoReason>(i)), k.reasons[i]);
      j.end_object();
      j.field("refusals", k.refusals);
      j.field("auto_predicted_gain", k.mean_gain);
      j.field("time_in_collective_mean_s", k.mean_seconds);
      j.key("prediction").begin_object();
      j.field("calls", k.prediction.calls);
      j.field("mean_abs_error_s", k.prediction.mean_abs_error);
      j.field("max_abs_error_s", k.prediction.max_abs_error);
      j.field("mean_spread_s", k.prediction.mean_spread);
      j.end_object();
      j.key("ranks").begin_array();
      for (const RankStats& r : k.ranks) rank_stats(j, r, false);
      j.end_array();
      j.end_object();
    }
    j.end_array();
    j.key("windows").begin_array();
    for (const WindowStats& w : c.windows) {
      j.begin_object(false);
      j.field("first_call", w.first_call).field("last_call", w.last_call).field("calls", w.calls);
      j.numbers("lateness_s", w.lateness);
      j.numbers("wait_s", w.wait);
      j.end_object();
    }
    j.end_array();
    j.key("last_arrivals").begin_object(false);
    j.key("calls").begin_array(true);
    for (const auto& [call, rank] : c.last_by_call) j.value(call);
    j.end_array();
    j.key("ranks").begin_array(true);
    for (const auto& [call, rank] : c.last_by_call) j.value(rank);
    j.end_array();
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

}  // namespace papcoll::observe
