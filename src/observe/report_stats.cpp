#include "observe/report_stats.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

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
    cs.reporting = static_cast<int>(
        std::count_if(part.begin(), part.end(), [](const CommData* c) { return c != nullptr; }));
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
          const double scale = ks.matched > 0
                                   ? static_cast<double>(ks.calls) / static_cast<double>(ks.matched)
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
      const std::uint64_t n =
          std::min<std::uint64_t>(span, static_cast<std::uint64_t>(std::max(1, max_windows)));
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

// nlohmann-json (header-only, private to the library: never in an installed header), keys in the
// order written. Numbers as the report always wrote them (printf's %.9g): rounded to 9
// significant digits (std::to_chars and back: snprintf and strtod made writing a 4096-rank report
// take 1.7 times as long), an integral value as an integer, non-finite as null.
using Json = nlohmann::ordered_json;

Json report_number(double x) {
  if (!std::isfinite(x)) return nullptr;
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, 9).ptr;
  double r = x;
  std::from_chars(buf, end, r);
  if (r == std::trunc(r) && std::fabs(r) < 9007199254740992.0) return static_cast<long long>(r);
  return r;
}

Json report_numbers(const std::vector<double>& v) {
  Json a = Json::array();
  for (const double x : v) a.push_back(report_number(x));
  return a;
}

Json quantiles(const Quantiles& q) {
  return Json{{"mean", report_number(q.mean)},
              {"median", report_number(q.median)},
              {"p95", report_number(q.p95)},
              {"max", report_number(q.max)}};
}

Json rank_stats(const RankStats& r, bool histogram) {
  Json j{{"rank", r.rank}, {"world_rank", r.world_rank}, {"host", r.host}};
  j["lateness_s"] = quantiles(r.lateness);
  j["wait_s"] = quantiles(r.wait);
  j["last_share"] = report_number(r.last_share);
  j["time_in_collective_s"] = report_number(r.seconds);
  j["wait_total_s"] = report_number(r.wait_estimate);
  if (histogram) j["wait_histogram"] = report_numbers(r.wait_histogram);
  return j;
}

Json key_stats(const KeyStats& k) {
  Json j{{"operation", collective_name(static_cast<Collective>(k.key.collective))},
         {"bytes", k.key.bytes},
         {"root", k.key.root},
         {"calls", k.calls},
         {"sampled_calls", k.matched},
         {"sample_level", k.level}};
  Json algorithms = Json::object();
  for (const auto& [name, n] : k.algorithms) algorithms[name] = n;
  j["algorithms"] = std::move(algorithms);
  Json reasons = Json::object();
  for (int i = 0; i < kReasons; ++i)
    if (k.reasons[i] > 0) reasons[reason_name(static_cast<AutoReason>(i))] = k.reasons[i];
  j["reasons"] = std::move(reasons);
  j["refusals"] = k.refusals;
  j["auto_predicted_gain"] = report_number(k.mean_gain);
  j["time_in_collective_mean_s"] = report_number(k.mean_seconds);
  j["prediction"] = Json{{"calls", k.prediction.calls},
                         {"mean_abs_error_s", report_number(k.prediction.mean_abs_error)},
                         {"max_abs_error_s", report_number(k.prediction.max_abs_error)},
                         {"mean_spread_s", report_number(k.prediction.mean_spread)}};
  Json ranks = Json::array();
  for (const RankStats& r : k.ranks) ranks.push_back(rank_stats(r, false));
  j["ranks"] = std::move(ranks);
  return j;
}

Json comm_stats(const CommStats& c) {
  Json j{{"id", c.id},
         {"name", c.name},
         {"size", c.size},
         {"ranks_reporting", c.reporting},
         {"freed", c.freed},
         {"world_ranks", c.world_ranks},
         {"calls", c.calls},
         {"calls_without_key", c.unkeyed},
         {"time_in_collectives_s", report_number(c.seconds)},
         {"wait_total_s", report_number(c.wait_estimate)},
         {"stragglers", c.stragglers}};
  Json ranks = Json::array();
  for (const RankStats& r : c.ranks) ranks.push_back(rank_stats(r, true));
  j["ranks"] = std::move(ranks);
  Json keys = Json::array();
  for (const KeyStats& k : c.keys) keys.push_back(key_stats(k));
  j["keys"] = std::move(keys);
  Json windows = Json::array();
  for (const WindowStats& w : c.windows)
    windows.push_back(Json{{"first_call", w.first_call},
                           {"last_call", w.last_call},
                           {"calls", report_number(w.calls)},
                           {"lateness_s", report_numbers(w.lateness)},
                           {"wait_s", report_numbers(w.wait)}});
  j["windows"] = std::move(windows);
  // Which rank came last in every matched call, in call order: training loops read it to tell a
  // persistent straggler from random ones.
  Json last_calls = Json::array(), last_ranks = Json::array();
  for (const auto& [call, rank] : c.last_by_call) {
    last_calls.push_back(call);
    last_ranks.push_back(rank);
  }
  j["last_arrivals"] = Json{{"calls", std::move(last_calls)}, {"ranks", std::move(last_ranks)}};
  return j;
}

}  // namespace

std::string report_json(const std::vector<CommStats>& comms, const std::vector<RankData>& ranks,
                        const ReportMeta& meta) {
  Json doc{{"format", "papcoll-report"},      {"version", kReportVersion},
           {"created", meta.created},         {"papcoll_version", meta.papcoll_version},
           {"mpi_library", meta.mpi_library}, {"world_size", meta.world_size}};
  doc["clock"] = Json{{"source", "steady_clock (CLOCK_MONOTONIC); offsets to world rank 0 measured "
                                 "when the report is written"},
                      {"resolution_s", report_number(meta.clock_resolution)}};
  doc["sampling"] = Json{{"samples_per_key", meta.samples_per_key},
                         {"rule", "a key's calls are all logged up to samples_per_key; then the "
                                  "log keeps one call per block of 2^level calls, at a place "
                                  "hashed from the call number (report_record.hpp); the same "
                                  "calls are timed"}};
  std::vector<double> edges;
  for (int b = 0; b < kWaitBins - 1; ++b) edges.push_back(wait_bin_upper_edge(b));
  doc["wait_histogram_upper_edges_s"] = report_numbers(edges);
  Json world = Json::array();
  for (const RankData& r : ranks)
    world.push_back(Json{{"world_rank", r.world_rank},
                         {"host", r.host},
                         {"clock_offset_s", report_number(r.clock_offset)},
                         {"clock_uncertainty_s", report_number(r.clock_width / 2)}});
  doc["ranks"] = std::move(world);
  Json communicators = Json::array();
  for (const CommStats& c : comms) communicators.push_back(comm_stats(c));
  doc["communicators"] = std::move(communicators);
  return doc.dump(2) + "\n";
}

}  // namespace papcoll::observe
