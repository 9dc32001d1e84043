#include "papcoll_sched_auto.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_number.hpp"
#include "papcoll_sched_library.hpp"
#include "select/selection.hpp"

namespace papcoll::sched_auto {

using papcoll_cli::Json;
using papcoll_cli::json_number;
namespace {

const char* kUsage =
    "usage: papcoll-sched auto COLLECTIVE --p P --bytes M [--library L] [--alpha A] [--beta B]\n"
    "           [--gamma G] [--type-bytes T] [--root R] [--arrivals a0,a1,...|--late R:S[,...]]\n"
    "           [--nodes K] [--intra-alpha A] [--intra-beta B] [--step-overhead S]\n"
    "           [--exchange A,B] [--blocks N] [--format text|json]\n"
    "COLLECTIVE: allreduce, reduce, bcast, allgatherv. The flags of 'papcoll-sched library', and\n"
    "what a call measures once per communicator: --step-overhead S, the executor's cost of a\n"
    "step beyond the links' latency; --exchange A,B, a node-wide exchange's line, A seconds +\n"
    "B seconds per byte a piece (docs/calibration.md). --blocks N: the call's block count\n"
    "(allgatherv: per rank). Times in seconds, sizes in bytes.\n";

const char* why_name(AutoWhy w) {
  switch (w) {
    case AutoWhy::rule: return "rule";
    case AutoWhy::no_pattern: return "no_pattern";
    case AutoWhy::balanced: return "balanced";
    case AutoWhy::small_gain: return "small_gain";
    case AutoWhy::aware: return "aware";
  }
  return "";
}

// What a call on nodes over the network prepares for a row (api/reduction_call.cpp, bcast.cpp,
// allgatherv.cpp; the one-node shared-memory transport is not modelled here): the block count
// from the row's default or --blocks, never more than the call's units; arrivals only for a row
// that reads them.
PrepareInput prepare_for(Collective c, int64_t units, int64_t largest, int blocks_option) {
  return [=](const AlgorithmInfo& algo, GeneratorInput* in) {
    if (c == Collective::allgatherv) {
      const int p = in->p;
      const long long per_rank =
          blocks_option > 0 ? blocks_option : std::max(1, default_block_count(algo, *in) / p);
      const long long n = std::max(1LL, std::min({per_rank, static_cast<long long>(largest),
                                                  static_cast<long long>((1 << 22) / p)}));
      in->blocks = static_cast<int>(p * n);
    } else {
      const long long wanted = blocks_option > 0 ? blocks_option : default_block_count(algo, *in);
      in->blocks = static_cast<int>(std::max(1LL, std::min<long long>(wanted, units)));
    }
    if (!algo.uses_arrivals) in->arrivals.clear();
  };
}

}  // namespace

int run(int argc, char** argv) {
  using sched_library::flag_error;
  using sched_library::flag_number;
  sched_library::CallArgs args = sched_library::parse_call_args(
      argc, argv, {"--step-overhead", "--exchange", "--blocks"}, "auto", kUsage);
  const Collective c = args.call.collective;
  if (c == Collective::scatterv || c == Collective::gatherv)
    flag_error("auto of scatterv and gatherv picks a tree where the schedule is built: "
               "papcoll-sched cost scatterv-auto");
  GeneratorInput base = args.in;
  auto has = [&](const char* f) { return args.flags.count(f) > 0; };
  if (has("--step-overhead")) {
    base.cost.step_overhead = flag_number("--step-overhead", args.flags["--step-overhead"]);
    if (base.cost.step_overhead < 0) flag_error("--step-overhead must not be negative");
  }
  if (has("--exchange")) {
    const std::string& v = args.flags["--exchange"];
    const size_t comma = v.find(',');
    if (comma == std::string::npos) flag_error("--exchange wants A,B");
    base.cost.exchange_alpha = flag_number("--exchange", v.substr(0, comma));
    base.cost.exchange_beta = flag_number("--exchange", v.substr(comma + 1));
    if (!(base.cost.exchange_alpha > 0) || base.cost.exchange_beta < 0)
      flag_error("--exchange: A must be positive, B not negative");
  }
  int blocks_option = 0;
  if (has("--blocks")) {
    const double b = flag_number("--blocks", args.flags["--blocks"]);
    if (b < 1 || b > (1 << 22) || b != std::floor(b)) flag_error("--blocks must be in 1..2^22");
    blocks_option = static_cast<int>(b);
  }
  // The call's agreed units (api/datatype_layout.hpp): elements for the reductions, bytes else;
  // the all-gatherv's portions equal, the remainder on the first ranks.
  const bool reduction = c == Collective::allreduce || c == Collective::reduce;
  const int64_t units = reduction ? std::llround(base.bytes / args.call.type_bytes)
                                  : std::llround(base.bytes);
  if (reduction && c == Collective::allreduce) base.root = -1;
  int64_t largest = 0;
  if (c == Collective::allgatherv) {
    base.root = -1;
    base.elem_bytes = 1;
    for (int r = 0; r < base.p; ++r) {
      base.counts.push_back(units / base.p + (r < units % base.p ? 1 : 0));
      largest = std::max<int64_t>(largest, base.counts.back());
    }
  }
  const PrepareInput prepare = prepare_for(c, units, largest, blocks_option);
  AutoVerdict v;
  const AlgorithmInfo* chosen = nullptr;
  switch (c) {
    case Collective::allreduce:
      chosen = choose_allreduce(units, true, base, prepare, &v, 0, nullptr, args.call.library);
      break;
    case Collective::reduce:
      chosen = choose_reduce(units, true, base, prepare, &v, 0, nullptr, args.call.library);
      break;
    case Collective::bcast: chosen = choose_bcast(base, prepare, args.call.library); break;
    default: chosen = choose_allgatherv(base, false, prepare, args.call.library); break;
  }
  // Every row of the collective with an estimate; computed only for those the rule weighs on this
  // layout and p (the others' can be a global simulation: late-fold's at p = 10^6 takes seconds).
  struct Row {
    const AlgorithmInfo* algo;
    double estimate;
    bool weighed;
  };
  std::vector<Row> rows;
  for (const AlgorithmInfo* a : algorithms_for(c)) {
    if (a->auto_role == AutoRole::none || a->predict == nullptr) continue;
    const bool weighed = auto_weighs(*a, base);
    rows.push_back(
        {a, weighed ? auto_estimate(*a, base, prepare) : std::numeric_limits<double>::quiet_NaN(),
         weighed});
  }
  const char* name = chosen != nullptr ? chosen->name : "native";
  const bool verdict = reduction;  // the reductions' rule reports why and its figures
  if (args.format == "json") {
    Json doc{{"collective", collective_name(c)},
             {"library", mpi_library_name(args.call.library)},
             {"p", base.p},
             {"bytes", static_cast<long long>(base.bytes)},
             {"auto", name}};
    if (verdict) {
      doc["why"] = why_name(v.why);
      doc["library_algorithm"] = v.library_algorithm;
      doc["library_s"] = json_number(v.native_elapsed, 9);
      doc["library_balanced_s"] = json_number(v.balanced_time, 9);
      doc["best_aware"] = v.best_aware != nullptr ? v.best_aware->name : "";
      doc["best_aware_s"] = json_number(v.aware_elapsed, 9);
      doc["gain"] = json_number(v.gain, 6);
    }
    Json list = Json::array();
    for (const Row& r : rows)
      list.push_back({{"algorithm", r.algo->name},
                      {"estimate_s", json_number(r.estimate, 9)},
                      {"weighed", r.weighed}});
    doc["estimates"] = std::move(list);
    std::cout << doc.dump() << '\n';
    return 0;
  }
  std::cout << "auto " << collective_name(c) << " p=" << base.p
            << " bytes=" << static_cast<long long>(base.bytes) << " ("
            << mpi_library_name(args.call.library) << "): " << name << '\n';
  std::cout << std::setprecision(6);
  if (verdict) {
    std::cout << "why " << why_name(v.why) << "; the library (" << v.library_algorithm << ") "
              << v.native_elapsed << " s, equal arrivals " << v.balanced_time << " s";
    if (v.best_aware != nullptr)
      std::cout << "; best arrival-aware " << v.best_aware->name << " " << v.aware_elapsed
                << " s, gain " << v.gain;
    std::cout << '\n';
  }
  std::cout << "estimates (mean elapsed, s; each message with the step overhead):\n";
  for (const Row& r : rows)
    if (r.weighed)
      std::cout << "  " << std::left << std::setw(20) << r.algo->name << r.estimate << '\n';
    else
      std::cout << "  " << std::left << std::setw(20) << r.algo->name << "not weighed here\n";
  return 0;
}

}  // namespace papcoll::sched_auto
