// Which implementation a call uses: a schedule from the algorithm table, MPI's own collective
// ("native"), or papcoll's choice ("auto", also a NULL name).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "schedule/registry.hpp"
#include "schedule/schedule_cache.hpp"
#include "select/library_model.hpp"

namespace papcoll {

struct Selection {
  bool is_auto = false;
  const AlgorithmInfo* algo = nullptr;  // nullptr (and not auto): the MPI library's collective
};

// False for a name that is neither in the table for `c` nor "auto"/"native".
bool resolve_algorithm(Collective c, const char* name, Selection* out);

// Every name resolve_algorithm accepts for `c`, table order first, separated by `sep`.
std::string algorithm_names(Collective c, const char* sep);

// Faraj et al.'s imbalance factor of an arrival pattern: the largest arrival difference over the
// time of one point-to-point message of the whole buffer (alpha + beta * bytes). 0 for an empty
// (balanced) pattern.
double imbalance_factor(const std::vector<double>& arrivals, const CostParams& cost, double bytes);

// "auto" of the collectives that have imbalance-aware algorithms (allreduce: prr, slt; reduce:
// clairvoyant), docs/algorithms.md "auto": the MPI library's own collective unless the agreed
// arrival pattern is imbalanced enough for an imbalance-aware algorithm to pay off.
//
//  1. No arrival pattern, fewer than 2 ranks, or an imbalance factor below kAutoMinImbalance (the
//     arrival spread is shorter than one whole-buffer message): the MPI library (nullptr). There
//     is nothing to hide, and the MPI library's tuned collective is at least as fast as papcoll's
//     balanced schedules.
//  2. Otherwise the cost model (verify/cost_model.hpp) predicts the mean elapsed time (own arrival
//     to own finish) of every imbalance-aware candidate under the arrivals, and the library model
//     (select/library_model.hpp) that of the MPI library's collective: the algorithm the running
//     library's decision rule picks for this size and p, estimated under the same arrivals and
//     with equal arrivals (the collective's own time). The best imbalance-aware candidate is
//     chosen if it saves at least min_gain x that own time against the library under the
//     arrivals; else the MPI library. min_gain is a margin for what the models leave out:
//     allreduce 0.02 (it only rules out ties such as PRR = ring at p = 3), reduce 0.35 (Open
//     MPI's MPI_Reduce was measured 20-35 % faster than papcoll's binomial tree; with the
//     `generic` library, the best textbook algorithm and a rooted collective's best case, only
//     the root waiting for the latest arrival, stand in for the library).
//
// Deterministic arithmetic on agreed input (arrivals, Hockney parameters, sizes): every rank
// takes the same decision.
inline constexpr double kAutoMinImbalance = 1.0;
// min_gain of allreduce and reduce (see choose_for_arrivals).
inline constexpr double kAutoMinGainAllreduce = 0.02;
inline constexpr double kAutoMinGainReduce = 0.35;
// From this many ranks on, with one rank per node, a reduce that nothing arrival-aware speeds up
// takes papcoll's balanced reduce (Rabenseifner's, radix-k) where it is predicted
// kAutoMinGainReduce faster than the library's: Open MPI 4.1 and SMPI's ompi selector run a
// binomial tree of the whole vector there, about twice a bandwidth-optimal reduce
// (docs/algorithms.md, "auto", step 5).
inline constexpr int kAutoBalancedReduceMinP = 128;
// ... on one node over the shared-memory window, where the cost model charges the window's copies
// like messages and so underrates late-fold's one-node form (docs/algorithms.md).
inline constexpr double kAutoMinGainReduceOneNode = 0.20;

// Completes a generator input for one algorithm as the call would run it (blocks, round time).
using PrepareInput = std::function<void(const AlgorithmInfo&, GeneratorInput*)>;

// Whether `auto` weighs row `a` for `base` at all: on nodes of several ranks only the rows whose
// estimates know the layout (the two-level ones, and the flat ones costed hop by hop), with one
// rank per node only the flat ones, and only within the row's range of p (auto_min_p,
// auto_max_p). Each collective's rule then picks among those (its auto_role, its own tests).
bool auto_weighs(const AlgorithmInfo& a, const GeneratorInput& base);

// A candidate's estimate as `auto` weighs it (before the rules' margins and charges): `base`
// completed by `prepare` for `algo`, each message paying the step overhead on top of the links'
// latency (CostParams::step_overhead); +inf where it cannot be costed. papcoll-sched auto
// prints it for every row.
double auto_estimate(const AlgorithmInfo& algo, const GeneratorInput& base,
                     const PrepareInput& prepare);

// Why auto chose what it chose (the straggler report, docs/report-format.md).
enum class AutoWhy {
  rule,        // the collective's fixed rule (no arrival rule applies)
  no_pattern,  // no arrival pattern (or fewer than 2 ranks)
  balanced,    // imbalance factor below kAutoMinImbalance
  small_gain,  // the best imbalance-aware candidate saves less than min_gain
  aware,       // the imbalance-aware candidate pays off
};

struct AutoVerdict {
  const AlgorithmInfo* algo = nullptr;  // nullptr: the MPI library's collective
  AutoWhy why = AutoWhy::no_pattern;
  // (native_elapsed - aware_elapsed) / balanced_time where all three are finite, else NaN.
  double gain = std::numeric_limits<double>::quiet_NaN();
  double imbalance = 0;       // imbalance_factor of the arrivals
  double balanced_time = 0;   // the MPI library's collective, equal arrivals: its own time
  double native_elapsed = 0;  // the MPI library's collective under the arrivals
  double aware_elapsed = 0;   // best imbalance-aware candidate under the arrivals
  const AlgorithmInfo* best_aware = nullptr;
  const char* library_algorithm = "";  // what the library model says the library runs
};

// The rule above over the registry's arrival-aware candidates of collective c
// (AlgorithmInfo::auto_role), each costed by its O(p) estimate (AlgorithmInfo::predict) for
// `base` as `prepare` completes it, against `library`'s collective (library_model.hpp, with
// elements of `type_bytes` bytes). `base` has p, root, cost, bytes and the agreed arrivals
// (empty: none).
// `pattern_cost` (AutoRequest::pattern_cost) is added to every aware candidate's estimate, and
// a row's generation cost (AlgorithmInfo::generation_cost) to its own unless `recent` holds the
// row's schedule key for `base` (then it is a pattern chosen lately, whose schedule is built);
// choosing such a row adds its key to `recent`.
AutoVerdict choose_for_arrivals(Collective c, const GeneratorInput& base,
                                const PrepareInput& prepare, double min_gain,
                                double pattern_cost = 0, RecentChoices* recent = nullptr,
                                MpiLibrary library = MpiLibrary::generic, double type_bytes = 1);

// "auto" per collective, every one a function of agreed input only (docs/algorithms.md, "auto"):
// allreduce: MPI's collective for non-commutative ops (every schedule reorders the reduction) and
// for vectors shorter than p (most blocks would be empty), else choose_for_arrivals with
// kAutoMinGainAllreduce.
const AlgorithmInfo* choose_allreduce(int64_t count, bool commutative, const GeneratorInput& base,
                                      const PrepareInput& prepare, AutoVerdict* verdict = nullptr,
                                      double pattern_cost = 0, RecentChoices* recent = nullptr,
                                      MpiLibrary library = MpiLibrary::generic);
// reduce: MPI_Reduce for a non-commutative op, else choose_for_arrivals with kAutoMinGainReduce
// (`count` elements in base.bytes).
const AlgorithmInfo* choose_reduce(int64_t count, bool commutative, const GeneratorInput& base,
                                   const PrepareInput& prepare, AutoVerdict* verdict = nullptr,
                                   double pattern_cost = 0, RecentChoices* recent = nullptr,
                                   MpiLibrary library = MpiLibrary::generic);
// bcast and allgatherv run papcoll's own schedules (docs/algorithms.md, "auto of bcast and
// allgatherv"): the balanced one (`balanced`: the circulant broadcast or all-gatherv, Traff 2023)
// unless the agreed arrivals of `base` have an imbalance factor of at least kAutoMinImbalance,
// measured against one message of `message_bytes` (what one rank contributes: the root's whole
// buffer for bcast, a portion, bytes / p on average, for allgatherv), and the registry's best
// arrival-aware row of c (auto_role arrival_aware, costed by its predict as `prepare` completes
// the input) leaves some rank out of its early group (else it is the circulant schedule) and is
// predicted to save at least kAutoMinGainSchedule x the balanced one's own time (its mean elapsed
// time with equal arrivals) against the balanced one under the same arrivals. Both run on the
// same executor, so the margin only rules out ties.
inline constexpr double kAutoMinGainSchedule = 0.02;
const AlgorithmInfo* choose_schedule_for_arrivals(Collective c, const AlgorithmInfo* balanced,
                                                  const GeneratorInput& base,
                                                  const PrepareInput& prepare,
                                                  double message_bytes);
// bcast: the arrival-aware broadcast by the rule above; else, balanced, the circulant broadcast
// only where the cost model predicts it at least kAutoMinGainBalancedBcast faster than the
// broadcast the MPI library runs (library_bcast_time: `library`'s decision rule and the library
// model's estimate of that algorithm, equal arrivals), otherwise the MPI library's own
// (nullptr): a balanced program pays nothing where papcoll has nothing to gain (small messages
// and few ranks), and keeps the circulant's gain where it is large (many ranks).
inline constexpr double kAutoMinGainBalancedBcast = 0.10;
double library_bcast_time(const GeneratorInput& base, MpiLibrary library);
const AlgorithmInfo* choose_bcast(const GeneratorInput& base, const PrepareInput& prepare,
                                  MpiLibrary library = MpiLibrary::generic);
// allgatherv: the linear schedule over the shared-memory window when every rank is on one node
// (`shared_window`: the transport is on and the call fits it; a late reader there simply copies
// later), else the circulant all-to-all broadcast or the arrival-aware all-gatherv by the rule
// above. On nodes of several ranks (base.nodes), both take the two-level row where it is predicted
// kAutoMinGainScheduleOnNodes faster than the MPI library's collective on that layout, else the
// library.
const AlgorithmInfo* choose_allgatherv(const GeneratorInput& base, bool shared_window,
                                       const PrepareInput& prepare,
                                       MpiLibrary library = MpiLibrary::generic);
// The margin of that rule, and of the reduce on such nodes (choose_for_arrivals): the library
// model and the two-level estimates agree with SMPI within a few percent on gige-8x6 and
// gige-16x8 (docs/results.md), and a balanced program must not lose.
inline constexpr double kAutoMinGainOnNodes = 0.05;
// The broadcast's and the all-gatherv's margin on such nodes for the two-level rows, the
// all-reduce's (kAutoMinGainAllreduce): the library model and the two-level estimates err alike
// there (gige-16x8, a balanced 4 MiB all-gatherv: two-level 0.963 of the library in the model,
// 0.970 in SMPI), so a larger margin only hands the library calls it loses. A flat row costed hop
// by hop keeps kAutoMinGainOnNodes: the ring all-gatherv's estimate under random lateness at
// gige-16x8 passed 2 % where SMPI measured it 1.03x the library.
inline constexpr double kAutoMinGainScheduleOnNodes = 0.02;
// On such nodes PRR's estimate, costed hop by hop, is a bound on the work that waits for late
// ranks, and it came out 3 % under SMPI with one rank late (gige-8x6: 84.3 ms against 86.9;
// gige-16x8: 135.9 against 139.5) where the two-level rows' estimates came within 1 % of theirs
// (two-level-rsag: 137.2 against 136.2). Weighed against the others, its estimate is taken as that
// much longer.
inline constexpr double kAutoHopByHopShortfall = 0.03;

// The one seam through which every collective's "auto" is resolved (api/collective_driver.hpp
// calls it; it applies the per-collective rules above). Everything in the request is agreed
// on by every rank, so every rank takes the same decision.
struct AutoRequest {
  int64_t units = 0;           // the data in the call's agreed units (datatype_layout.hpp DataView)
  bool commutative = true;     // the op's (reductions)
  GeneratorInput base;         // p, root, cost, bytes, counts and the agreed arrivals
  PrepareInput prepare;        // completes `base` for one algorithm (blocks, round time)
  bool shared_memory = false;  // all-gatherv: the shared-memory transport can carry the call
  // allreduce, reduce: what acting on the pattern costs per call on top of the algorithm: with a
  // sampled history (docs/prediction.md, "Sampling") a site whose calls run an arrival-aware
  // algorithm is measured on every call, p - 1 small messages per rank; 0 when the pattern comes
  // from the caller or from a measurement made anyway. Added to the aware candidate's estimate.
  double pattern_cost = 0;
  // allreduce, reduce: the communicator's recent choices (RecentChoices); null charges every
  // costly row its generation cost.
  RecentChoices* recent = nullptr;
  // The communicator's latest choices (RememberedChoices); null: every call is weighed anew.
  RememberedChoices* remembered = nullptr;
  // The block count the caller's options force (0: each row's own), which `prepare` reads.
  int blocks_option = 0;
  // The MPI library running (api/mpi_library.hpp), whose collective auto weighs papcoll's
  // schedules against; the same on every rank.
  MpiLibrary library = MpiLibrary::generic;
  // The agreed arrival times where the caller keeps them, base.arrivals still empty: the
  // remembered choices are looked up in them without a copy (find_remembered_choice); empty when
  // base.arrivals holds them.
  std::span<const double> arrivals_view;
};
struct AutoChoice {
  const AlgorithmInfo* algo = nullptr;  // the registry row that runs
  bool native = false;                  // the MPI library's collective
  // scatterv/gatherv: choose_sg_tree picks the tree where the schedule is obtained (cached with
  // it, api/schedule_source.hpp obtain_sg_schedule).
  bool tree_by_schedule_source = false;
  AutoWhy why = AutoWhy::rule;  // with the gain, for the straggler report
  double gain = std::numeric_limits<double>::quiet_NaN();
};
AutoChoice choose_auto(Collective c, const AutoRequest& r);

// The choice choose_auto made for this very call lately (r.remembered; the arrivals are
// r.arrivals_view where set, else r.base.arrivals), if it is remembered: what choose_auto asks
// first, callable without base.arrivals filled in.
bool find_remembered_choice(Collective c, const AutoRequest& r, AutoChoice* choice);

}  // namespace papcoll
