#include "api/selection.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <cstring>
#include <limits>


namespace papcoll {

namespace {
constexpr const char* kAuto = "auto";
constexpr const char* kNative = "native";
}  // namespace

bool resolve_algorithm(Collective c, const char* name, Selection* out) {
  if (name == nullptr || std::strcmp(name, kAuto) == 0) {
    *out = Selection{true, nullptr};
    return true;
  }
  if (std::strcmp(name, kNative) == 0) {
    *out = Selection{false, nullptr};
    return true;
  }
  const AlgorithmInfo* a = find_algorithm(c, name);
  if (a == nullptr) return false;
  *out = Selection{false, a};
  return true;
}

std::string algorithm_names(Collective c, const char* sep) {
  std::string names;
  for (const AlgorithmInfo* a : algorithms_for(c)) names += std::string(a->name) + sep;
  if (names.empty()) return names;  // nothing papcoll could run or choose between
  return names + kNative + sep + kAuto;
}

namespace {

const double kInf = std::numeric_limits<double>::infinity();

// The candidate's estimate for `in` as the call would run it, with `arrivals` (the preparation of
// an algorithm that ignores arrivals drops them; its estimate still depends on them); +inf when
// it cannot be costed.
double predicted(const AlgorithmInfo& algo, GeneratorInput in, const std::vector<double>& arrivals,
                 const PrepareInput& prepare) {
  try {
    prepare(algo, &in);
    in.arrivals = arrivals;
    const double t = algo.predict(in);
    return std::isfinite(t) ? t : kInf;
  } catch (const std::exception&) {
    return kInf;
  }
}

}  // namespace

AutoVerdict choose_for_arrivals(Collective c, const GeneratorInput& base, const PrepareInput& prepare,
                                double min_gain) {
  AutoVerdict v;
  if (base.arrivals.empty() || base.p < 2) return v;
  v.imbalance = imbalance_factor(base.arrivals, base.cost, base.bytes);
  v.why = AutoWhy::balanced;
  if (!(v.imbalance >= kAutoMinImbalance)) return v;
  v.balanced_time = v.native_elapsed = v.aware_elapsed = kInf;
  for (const AlgorithmInfo* a : algorithms_for(c)) {
    if (a->predict == nullptr) continue;
    if (a->auto_role == AutoRole::balanced) {
      v.balanced_time = std::min(v.balanced_time, predicted(*a, base, {}, prepare));
      v.native_elapsed = std::min(v.native_elapsed, predicted(*a, base, base.arrivals, prepare));
    } else if (a->auto_role == AutoRole::arrival_aware) {
      const double t = predicted(*a, base, base.arrivals, prepare);
      if (t < v.aware_elapsed) {
        v.aware_elapsed = t;
        v.best_aware = a;
      }
    }
  }
  if (base.root >= 0 && base.root < base.p && std::isfinite(v.balanced_time)) {
    // A rooted collective of the MPI library (segmented, eager trees) lets a rank leave once its
    // data is handed on: only the root must wait for the latest arrival. The best that can do.
    const double latest = *std::max_element(base.arrivals.begin(), base.arrivals.end());
    const double root_wait = latest - base.arrivals[static_cast<size_t>(base.root)];
    v.native_elapsed =
        std::min(v.native_elapsed, v.balanced_time + root_wait / static_cast<double>(base.p));
  }
  v.why = AutoWhy::small_gain;
  if (std::isfinite(v.balanced_time) && v.balanced_time > 0 && std::isfinite(v.native_elapsed) &&
      std::isfinite(v.aware_elapsed))
    v.gain = (v.native_elapsed - v.aware_elapsed) / v.balanced_time;
  if (v.best_aware != nullptr && std::isfinite(v.balanced_time) &&
      v.native_elapsed - v.aware_elapsed >= min_gain * v.balanced_time) {
    v.algo = v.best_aware;
    v.why = AutoWhy::aware;
  }
  return v;
}

const AlgorithmInfo* choose_allreduce(int64_t count, bool commutative, const GeneratorInput& base,
                                      const PrepareInput& prepare, AutoVerdict* verdict) {
  if (!commutative || count < base.p) {
    if (verdict != nullptr) *verdict = AutoVerdict{nullptr, AutoWhy::rule};
    return nullptr;
  }
  const AutoVerdict v =
      choose_for_arrivals(Collective::allreduce, base, prepare, kAutoMinGainAllreduce);
  if (verdict != nullptr) *verdict = v;
  return v.algo;
}

const AlgorithmInfo* choose_reduce(bool commutative, const GeneratorInput& base,
                                   const PrepareInput& prepare, AutoVerdict* verdict) {
  if (!commutative) {
    if (verdict != nullptr) *verdict = AutoVerdict{nullptr, AutoWhy::rule};
    return nullptr;
  }
  const AutoVerdict v = choose_for_arrivals(Collective::reduce, base, prepare, kAutoMinGainReduce);
  if (verdict != nullptr) *verdict = v;
  return v.algo;
}

const AlgorithmInfo* choose_bcast(const GeneratorInput&) {
  return find_algorithm(Collective::bcast, "circulant");
}

const AlgorithmInfo* choose_allgatherv(const GeneratorInput&, bool shared_window) {
  return find_algorithm(Collective::allgatherv, shared_window ? "linear" : "circulant");
}

AutoChoice choose_auto(Collective c, const AutoRequest& r) {
  AutoChoice choice;
  AutoVerdict v;
  switch (c) {
    case Collective::allreduce:
      choice.algo = choose_allreduce(r.units, r.commutative, r.base, r.prepare, &v);
      choice.why = v.why;
      choice.gain = v.gain;
      break;
    case Collective::reduce:
      choice.algo = choose_reduce(r.commutative, r.base, r.prepare, &v);
      choice.why = v.why;
      choice.gain = v.gain;
      break;
    case Collective::bcast:
      choice.algo = choose_bcast(r.base);
      break;
    case Collective::allgatherv:
      choice.algo = choose_allgatherv(r.base, r.shared_memory);
      break;
    case Collective::scatterv:
    case Collective::gatherv:
      choice.tree_by_schedule_source = true;
      return choice;
  }
  choice.native = choice.algo == nullptr;
  return choice;
}

double imbalance_factor(const std::vector<double>& arrivals, const CostParams& cost,
                        double bytes) {
  if (arrivals.empty()) return 0.0;
  const auto [lo, hi] = std::minmax_element(arrivals.begin(), arrivals.end());
  const double one_message = cost.alpha + cost.beta * bytes;
  if (!(one_message > 0)) return *hi > *lo ? std::numeric_limits<double>::infinity() : 0.0;
  return (*hi - *lo) / one_message;
}

}  // namespace papcoll
