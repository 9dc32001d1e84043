#include "select/selection.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>

#include "error/hot_path.hpp"
#include "model/node_layout.hpp"
#include "schedule/allgatherv_generators.hpp"
#include "schedule/bcast_generators.hpp"
#include "select/library_estimates.hpp"
#include "select/library_rules.hpp"

namespace papcoll {

namespace {
constexpr const char* kAuto = "auto";
constexpr const char* kNative = "native";
}  // namespace

PAPCOLL_HOT bool resolve_algorithm(Collective c, const char* name, Selection* out) {
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
// it cannot be costed. Each message of the estimate pays the executor's step overhead on top of
// the links' latency (CostParams::step_overhead): what a schedule of many short rounds pays on a
// fast network, and the library's collective, costed without it, does not (step_overhead.hpp).
// The schedule is prepared with it apart, as the call runs it: its block counts weigh it
// (pipeline_blocks), its plans' own estimates do not.
double predicted(const AlgorithmInfo& algo, GeneratorInput in, const std::vector<double>& arrivals,
                 const PrepareInput& prepare) {
  try {
    prepare(algo, &in);
    in.arrivals = arrivals;
    if (in.cost.step_overhead > 0) {
      in.cost.alpha += in.cost.step_overhead;
      if (in.cost.intra_alpha > 0) in.cost.intra_alpha += in.cost.step_overhead;
      // Now in the latency: the block counts a row's estimate derives within (pipeline_blocks)
      // must not add it twice.
      in.cost.step_overhead = 0;
    }
    const double t = algo.predict(in);
    return std::isfinite(t) ? t : kInf;
  } catch (const std::exception&) {
    return kInf;
  }
}

// The row's generation cost for `in` as the call would run it (AlgorithmInfo::generation_cost),
// and the schedule key it would be cached under: cost 0 for rows that have none and for a key in
// `recent`, +inf when it cannot be costed.
double generation_seconds(const AlgorithmInfo& algo, GeneratorInput in,
                          const std::vector<double>& arrivals, const PrepareInput& prepare,
                          const RecentChoices* recent, std::string* key) {
  if (algo.generation_cost == nullptr) return 0;
  try {
    prepare(algo, &in);
    in.arrivals = arrivals;
    *key = schedule_key(algo.collective, &algo, in);
    if (recent != nullptr && recent->contains(*key)) return 0;
    const double t = algo.generation_cost(in);
    return std::isfinite(t) && t >= 0 ? t : kInf;
  } catch (const std::exception&) {
    return kInf;
  }
}

// The bytes of one element of a call of `count` elements (1 when it has none).
double element_bytes(const GeneratorInput& base, int64_t count) {
  return count > 0 && base.bytes > 0 ? base.bytes / static_cast<double>(count) : 1.0;
}

// Whether an arrival-aware row of bcast or allgatherv leaves some rank out of its early group for
// these arrivals. If not, its schedule is the circulant one (with the row's own block count), and
// a difference in predicted time would come from the block count, not from the arrivals: the
// balanced choice stands.
bool leaves_ranks_out(Collective c, const AlgorithmInfo& a, GeneratorInput in,
                      const PrepareInput& prepare) {
  try {
    prepare(a, &in);
    if (c == Collective::bcast) return arrival_bcast_late_ranks(in) > 0;
    if (c == Collective::allgatherv) return arrival_allgatherv_late_ranks(in) > 0;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// Whether `auto` may cost row `a` on this layout: with one rank per node the flat rows (the
// two-level ones would only repeat them); on nodes of several ranks the rows whose estimate knows
// the layout, the two-level ones and the flat ones costed hop by hop (a flat row's flat estimate
// gives every rank a link of its own).
bool costed_here(const AlgorithmInfo& a, bool several_per_node) {
  return several_per_node ? a.topology_aware || a.costed_on_nodes : !a.topology_aware;
}

}  // namespace

AutoVerdict choose_for_arrivals(Collective c, const GeneratorInput& base,
                                const PrepareInput& prepare, double min_gain, double pattern_cost,
                                RecentChoices* recent, MpiLibrary library, double type_bytes) {
  AutoVerdict v;
  // On nodes of several ranks the MPI library's flat algorithms put a node's streams on its one
  // link, and a two-level schedule can beat them with all ranks on time too (docs/algorithms.md,
  // "Nodes of several ranks"): there the rows are costed against the library on every call,
  // balanced or not. With one rank per node the library stands for balanced calls.
  const bool several_per_node = base.nodes != nullptr && !base.nodes->one_rank_per_node();
  if (base.p < 2 || (base.arrivals.empty() && !several_per_node)) return v;
  v.imbalance = imbalance_factor(base.arrivals, base.cost, base.bytes);
  v.why = AutoWhy::balanced;
  if (!(v.imbalance >= kAutoMinImbalance) && !several_per_node) return v;
  // The reduce's margin covers the flat rows' estimates (Clairvoyant's, late-fold's); the
  // two-level rows' and the library model's agree with SMPI within a few percent on nodes.
  if (several_per_node) min_gain = std::min(min_gain, kAutoMinGainOnNodes);
  // The MPI library's collective: what its decision rule runs, under the arrivals and alone.
  const LibraryCall lib{c, library, type_bytes, true};
  {
    GeneratorInput own = base;
    own.arrivals.clear();
    v.balanced_time = library_predict(lib, own);
    v.native_elapsed = library_predict(lib, base);
    v.library_algorithm = library_algorithm(lib, base).name;
    if (!std::isfinite(v.balanced_time)) v.balanced_time = kInf;
    if (!std::isfinite(v.native_elapsed)) v.native_elapsed = kInf;
  }
  v.aware_elapsed = kInf;
  std::string best_key;  // the best aware row's schedule key, where it has a generation cost
  // Rows with a generation cost last: their cost is charged like pattern_cost, and where it alone
  // reaches the best estimate so far the row cannot win, so its predict (which costs about as
  // much: a simulation at p = 1024 takes a tenth of a second) is not called.
  // On nodes of several ranks only the rows whose estimates know the layout are costed as
  // candidates (costed_here); with one rank per node the two-level rows would only repeat the
  // flat rows.
  for (const bool costly : {false, true})
    for (const AlgorithmInfo* a : algorithms_for(c)) {
      if (a->predict == nullptr || a->auto_role != AutoRole::arrival_aware ||
          (a->generation_cost != nullptr) != costly || !auto_weighs(*a, base))
        continue;
      std::string key;
      const double charge = pattern_cost +
                            generation_seconds(*a, base, base.arrivals, prepare, recent, &key);
      if (!(charge < std::min(v.aware_elapsed, v.native_elapsed))) continue;
      double t = predicted(*a, base, base.arrivals, prepare) + charge;
      // A flat row costed hop by hop on nodes (PRR) is weighed at its estimate grown by the
      // margin its bound falls short of SMPI by (selection.hpp).
      if (several_per_node && a->costed_on_nodes && !a->topology_aware)
        t /= 1.0 - kAutoHopByHopShortfall;
      if (t < v.aware_elapsed) {
        v.aware_elapsed = t;
        v.best_aware = a;
        best_key = std::move(key);
      }
    }
  v.why = AutoWhy::small_gain;
  if (std::isfinite(v.balanced_time) && v.balanced_time > 0 && std::isfinite(v.native_elapsed) &&
      std::isfinite(v.aware_elapsed))
    v.gain = (v.native_elapsed - v.aware_elapsed) / v.balanced_time;
  if (v.best_aware != nullptr && std::isfinite(v.balanced_time) &&
      v.native_elapsed - v.aware_elapsed >= min_gain * v.balanced_time) {
    v.algo = v.best_aware;
    v.why = AutoWhy::aware;
    if (recent != nullptr && !best_key.empty()) recent->add(std::move(best_key));
  }
  return v;
}

const AlgorithmInfo* choose_allreduce(int64_t count, bool commutative, const GeneratorInput& base,
                                      const PrepareInput& prepare, AutoVerdict* verdict,
                                      double pattern_cost, RecentChoices* recent,
                                      MpiLibrary library) {
  if (!commutative || count < base.p) {
    if (verdict != nullptr) *verdict = AutoVerdict{nullptr, AutoWhy::rule};
    return nullptr;
  }
  const AutoVerdict v = choose_for_arrivals(Collective::allreduce, base, prepare,
                                            kAutoMinGainAllreduce, pattern_cost, recent, library,
                                            element_bytes(base, count));
  if (verdict != nullptr) *verdict = v;
  return v.algo;
}

const AlgorithmInfo* choose_reduce(int64_t count, bool commutative, const GeneratorInput& base,
                                   const PrepareInput& prepare, AutoVerdict* verdict,
                                   double pattern_cost, RecentChoices* recent, MpiLibrary library) {
  if (!commutative) {
    if (verdict != nullptr) *verdict = AutoVerdict{nullptr, AutoWhy::rule};
    return nullptr;
  }
  // On one node over the shared-memory window (what prepare says for late-fold, whose one-node
  // form is the candidate there) the smaller margin: measured, that form is 0.71-0.88x MPI_Reduce
  // at 4 ranks with a rank late (docs/algorithms.md, "auto of the reduce on one node").
  double min_gain = kAutoMinGainReduce;
  bool one_node_window = false;
  if (const AlgorithmInfo* fold = find_algorithm(Collective::reduce, "late-fold");
      fold != nullptr) {
    GeneratorInput probe = base;
    try {
      prepare(*fold, &probe);
      one_node_window = probe.cost.shared_memory;
      if (one_node_window) min_gain = kAutoMinGainReduceOneNode;
    } catch (const std::exception&) {
    }
  }
  AutoVerdict v = choose_for_arrivals(Collective::reduce, base, prepare, min_gain, pattern_cost,
                                      recent, library, element_bytes(base, count));
  const bool flat = base.nodes == nullptr || base.nodes->one_rank_per_node();
  if (v.algo == nullptr && flat && base.p >= kAutoBalancedReduceMinP && !one_node_window) {
    const LibraryCall lib{Collective::reduce, library, element_bytes(base, count), true};
    const double t_library = library_predict(lib, base);
    const AlgorithmInfo* best = nullptr;
    double t_best = kInf;
    for (const AlgorithmInfo* a : algorithms_for(Collective::reduce)) {
      if (a->auto_role != AutoRole::balanced || a->predict == nullptr) continue;
      const double t = predicted(*a, base, base.arrivals, prepare);
      if (t < t_best) t_best = t, best = a;
    }
    if (best != nullptr && std::isfinite(t_library) &&
        t_best <= (1.0 - kAutoMinGainReduce) * t_library) {
      v.algo = best;
      v.why = AutoWhy::rule;
    }
  }
  if (verdict != nullptr) *verdict = v;
  return v.algo;
}

const AlgorithmInfo* choose_schedule_for_arrivals(Collective c, const AlgorithmInfo* balanced,
                                                  const GeneratorInput& base,
                                                  const PrepareInput& prepare,
                                                  double message_bytes) {
  if (balanced == nullptr || base.arrivals.empty() || base.p < 2) return balanced;
  if (!(imbalance_factor(base.arrivals, base.cost, message_bytes) >= kAutoMinImbalance))
    return balanced;
  const double t_balanced = predicted(*balanced, base, base.arrivals, prepare);
  const double t_own = predicted(*balanced, base, {}, prepare);  // with equal arrivals
  const AlgorithmInfo* best = nullptr;
  double t_best = kInf;
  const bool several_per_node = base.nodes != nullptr && !base.nodes->one_rank_per_node();
  for (const AlgorithmInfo* a : algorithms_for(c)) {
    if (a->auto_role != AutoRole::arrival_aware || a->predict == nullptr) continue;
    if (!costed_here(*a, several_per_node)) continue;  // as in choose_for_arrivals
    if (!a->topology_aware && !leaves_ranks_out(c, *a, base, prepare)) continue;
    const double t = predicted(*a, base, base.arrivals, prepare);
    if (t < t_best) {
      t_best = t;
      best = a;
    }
  }
  if (best != nullptr && std::isfinite(t_own) &&
      t_balanced - t_best >= kAutoMinGainSchedule * t_own)
    return best;
  return balanced;
}

double library_bcast_time(const GeneratorInput& base, MpiLibrary library) {
  GeneratorInput own = base;
  own.arrivals.clear();
  return library_predict(LibraryCall{Collective::bcast, library, 1, true}, own);
}

namespace {

// On nodes of several ranks (docs/algorithms.md, "Nodes of several ranks"): the rows whose
// estimates know the layout (two-level; the ring all-gatherv, costed hop by hop, even without an
// auto_role, which only the choices with one rank per node read) against the MPI library's
// collective on the same layout, both under the call's arrivals (none: all equal). The other flat
// rows' estimates give every rank a link of its own, so they are not candidates there.
const AlgorithmInfo* choose_on_nodes(Collective c, const GeneratorInput& call,
                                     const PrepareInput& prepare, MpiLibrary library) {
  // A whole buffer within the eager limit leaves every sender without waiting for its receiver,
  // in papcoll's executor as in the library: a late rank delays nobody but itself, which the
  // cost model (a send ends when its receiver has it) does not see. Both are compared on time.
  GeneratorInput base = call;
  if ((c == Collective::bcast || c == Collective::allgatherv) &&
      base.bytes <= library_eager_bytes(library, base))
    base.arrivals.clear();
  const double t_library = library_predict(LibraryCall{c, library, 1, true}, base);
  if (!std::isfinite(t_library)) return nullptr;
  const AlgorithmInfo* best = nullptr;
  double t_best = kInf;
  for (const AlgorithmInfo* a : algorithms_for(c)) {
    if (!costed_here(*a, true) || a->predict == nullptr ||
        (a->auto_role == AutoRole::none && !a->costed_on_nodes))
      continue;
    // The two-level rows' estimates and the library model's err alike on nodes; a flat row costed
    // hop by hop (the ring all-gatherv) less so under spread-out arrivals, so it keeps the
    // reduce's larger margin.
    const double margin = a->topology_aware ? kAutoMinGainScheduleOnNodes : kAutoMinGainOnNodes;
    const double t = predicted(*a, base, base.arrivals, prepare);
    if (std::isfinite(t) && t <= (1.0 - margin) * t_library && t < t_best) {
      t_best = t;
      best = a;
    }
  }
  return best;
}

}  // namespace

const AlgorithmInfo* choose_bcast(const GeneratorInput& base, const PrepareInput& prepare,
                                  MpiLibrary library) {
  if (base.p >= 2 && several_ranks_per_node(base))
    return choose_on_nodes(Collective::bcast, base, prepare, library);
  const AlgorithmInfo* circulant = find_algorithm(Collective::bcast, "circulant");
  const AlgorithmInfo* pick =
      choose_schedule_for_arrivals(Collective::bcast, circulant, base, prepare, base.bytes);
  if (pick != circulant || circulant == nullptr || base.p < 2) return pick;
  const double t_circulant = predicted(*circulant, base, {}, prepare);
  const double t_library = library_bcast_time(base, library);
  return std::isfinite(t_circulant) && std::isfinite(t_library) &&
                 t_circulant <= (1.0 - kAutoMinGainBalancedBcast) * t_library
             ? circulant
             : nullptr;
}

const AlgorithmInfo* choose_allgatherv(const GeneratorInput& base, bool shared_window,
                                       const PrepareInput& prepare, MpiLibrary library) {
  if (shared_window) return find_algorithm(Collective::allgatherv, "linear");
  if (base.p >= 2 && several_ranks_per_node(base))
    return choose_on_nodes(Collective::allgatherv, base, prepare, library);
  return choose_schedule_for_arrivals(Collective::allgatherv,
                                      find_algorithm(Collective::allgatherv, "circulant"), base,
                                      prepare, base.bytes / std::max(1, base.p));
}

namespace {

// What a choice on nodes of several ranks reads, exactly (the agreed arrivals too: a pattern that
// repeats, as a loop's persistent straggler does, is weighed once).
// Built into `key` (the memory's buffer): at p = 1024 the arrivals are 8 KiB, and this runs on
// every call, which then allocates nothing. Equal arrivals (a balanced program's oracle pattern)
// are written as their count and one value, a key of about 150 bytes instead of 8 KiB to write,
// hash and compare; the flag before the values keeps the two forms apart.
PAPCOLL_HOT void remembered_key(Collective c, const AutoRequest& r, std::string& key) {
  // The fixed part gathered first and appended once (an append per field cost more than the
  // rest of a balanced call's key).
  char head[256];  // the fields below take about 130 bytes
  size_t used = 0;
  auto put = [&head, &used](const auto& v) {
    static_assert(sizeof v <= 16);
    std::memcpy(head + used, &v, sizeof v);
    used += sizeof v;
  };
  auto put_all = [&key](const auto& v) {
    key.append(reinterpret_cast<const char*>(v.data()), sizeof(v[0]) * v.size());
  };
  put(c);
  put(r.units);
  put(r.commutative);
  put(r.shared_memory);
  put(r.library);
  put(r.base.root);
  put(r.base.bytes);
  put(r.base.cost.alpha);
  put(r.base.cost.beta);
  put(r.base.cost.gamma);
  put(r.base.cost.intra_alpha);
  put(r.base.cost.intra_beta);
  put(r.base.cost.step_overhead);
  put(r.base.cost.exchange_alpha);
  put(r.base.cost.exchange_beta);
  put(r.base.cost.cores_shared);
  put(r.base.cost.shared_memory);
  put(r.base.elem_bytes);
  put(r.pattern_cost);
  put(r.blocks_option);
  put(r.base.counts.size());
  const std::span<const double> a =
      r.arrivals_view.empty() ? std::span<const double>(r.base.arrivals) : r.arrivals_view;
  const bool equal = !a.empty() && std::all_of(a.begin() + 1, a.end(), [&a](double t) {
    return std::memcmp(&t, &a[0], sizeof t) == 0;  // bitwise: -0.0 and 0.0 stay apart
  });
  put(a.size());
  put(equal);
  if (equal) put(a[0]);
  key.reserve(used + sizeof(long long) * r.base.counts.size() +
              (equal ? 0 : sizeof(double) * a.size()));
  key.assign(head, used);
  put_all(r.base.counts);
  if (!equal) put_all(a);
}

}  // namespace

namespace {

// A call is weighed anew unless the same call was weighed lately. What the communicator, its
// layout and the library are is the memory's own (one per communicator); the key holds everything
// else the choice reads. scatterv/gatherv choose their tree where the schedule is cached.
bool remembers(Collective c, const AutoRequest& r) {
  return r.remembered != nullptr && r.base.p >= 2 && c != Collective::scatterv &&
         c != Collective::gatherv;
}

}  // namespace

PAPCOLL_HOT bool find_remembered_choice(Collective c, const AutoRequest& r, AutoChoice* choice) {
  if (!remembers(c, r)) return false;
  remembered_key(c, r, r.remembered->key_buffer());
  RememberedChoice kept;
  if (!r.remembered->find(r.remembered->key_buffer(), &kept)) return false;
  *choice = AutoChoice{};
  choice->algo = kept.algo;
  choice->native = kept.algo == nullptr;
  choice->why = static_cast<AutoWhy>(kept.why);
  choice->gain = kept.gain;
  return true;
}

bool auto_weighs(const AlgorithmInfo& a, const GeneratorInput& base) {
  const bool several_per_node = base.nodes != nullptr && !base.nodes->one_rank_per_node();
  return costed_here(a, several_per_node) && base.p >= a.auto_min_p &&
         (a.auto_max_p <= 0 || base.p <= a.auto_max_p);
}

double auto_estimate(const AlgorithmInfo& algo, const GeneratorInput& base,
                     const PrepareInput& prepare) {
  return predicted(algo, base, base.arrivals, prepare);
}

PAPCOLL_HOT AutoChoice choose_auto(Collective c, const AutoRequest& r) {
  AutoChoice choice;
  // The key is left in the memory's buffer for add() below.
  const bool remember = remembers(c, r);
  if (find_remembered_choice(c, r, &choice)) return choice;
  AutoVerdict v;
  switch (c) {
    case Collective::allreduce:
      choice.algo = choose_allreduce(r.units, r.commutative, r.base, r.prepare, &v, r.pattern_cost,
                                     r.recent, r.library);
      choice.why = v.why;
      choice.gain = v.gain;
      break;
    case Collective::reduce:
      choice.algo = choose_reduce(r.units, r.commutative, r.base, r.prepare, &v, r.pattern_cost,
                                  r.recent, r.library);
      choice.why = v.why;
      choice.gain = v.gain;
      break;
    case Collective::bcast: choice.algo = choose_bcast(r.base, r.prepare, r.library); break;
    case Collective::allgatherv:
      choice.algo = choose_allgatherv(r.base, r.shared_memory, r.prepare, r.library);
      break;
    case Collective::scatterv:
    case Collective::gatherv: choice.tree_by_schedule_source = true; return choice;
  }
  choice.native = choice.algo == nullptr;
  if (remember)
    r.remembered->add(r.remembered->key_buffer(),
                      {choice.algo, static_cast<int>(choice.why), choice.gain});
  return choice;
}

double imbalance_factor(const std::vector<double>& arrivals, const CostParams& cost, double bytes) {
  if (arrivals.empty()) return 0.0;
  const auto [lo, hi] = std::minmax_element(arrivals.begin(), arrivals.end());
  const double one_message = cost.alpha + cost.beta * bytes;
  if (!(one_message > 0)) return *hi > *lo ? std::numeric_limits<double>::infinity() : 0.0;
  return (*hi - *lo) / one_message;
}

}  // namespace papcoll
