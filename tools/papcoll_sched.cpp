// papcoll-sched: print, verify and cost schedules without MPI. See docs/papcoll-sched.md.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/link_model_io.hpp"
#include "papcoll_sched_time.hpp"
#include "schedule/circulant/circulant_check.hpp"
#include "schedule/circulant/circulant_skips.hpp"
#include "schedule/circulant/circulant_timing.hpp"
#include "schedule/clairvoyant/bench.hpp"
#include "schedule/clairvoyant/clairvoyant.hpp"
#include "schedule/portions.hpp"
#include "schedule/registry.hpp"
#include "schedule/scatter_gather/scatter_gather_generators.hpp"
#include "schedule/schedule_io.hpp"
#include "model/node_layout.hpp"
#include "verify/cost_model.hpp"
#include "verify/port_check.hpp"
#include "verify/verifier.hpp"

using namespace papcoll;

namespace {

const char* kUsage =
    "usage: papcoll-sched list\n"
    "       papcoll-sched show   ALGO --p P [--blocks B] [--root R] [--arrivals a0,a1,...]\n"
    "                            [--tau T] [--collective C] [--format json|text]\n"
    "                            [--round-time D] [--impl I]\n"
    "       papcoll-sched verify ALGO --p P|P1..P2 [--blocks B|B1..B2] [--root R|all]\n"
    "                            [--arrivals ...] [--random-arrivals N] [--seed S]\n"
    "       papcoll-sched cost   ALGO --p P --bytes M --alpha A --beta B [--gamma G]\n"
    "                            [--blocks B] [--arrivals ...] [--tau T] [--format json|text]\n"
    "       scatterv/gatherv (ALGO may be written scatterv-ALGO, and may be auto):\n"
    "       papcoll-sched show|verify|cost ALGO --collective scatterv|gatherv --p P\n"
    "                            [--root R] [--counts c0,c1,...] [--elem-bytes E]\n"
    "                            [--model FILE | --alpha A --beta B] [--bytes M]\n"
    "       papcoll-sched time   ALGO --p P [--rank R|all] [--blocks B] [--root R]\n"
    "                            [--arrivals a0,...|--pattern balanced|one-late|random]\n"
    "                            [--bytes M] [--calls N] [--seed S] [--format json|text]\n"
    "       papcoll-sched bench clairvoyant --p P|P1..P2 [--blocks N] [--dist uniform,skewed]\n"
    "                            [--runs R] [--impl linear,pairing,segtree] [--seed S] [--json]\n"
    "       papcoll-sched verify-circulant --from P1 --to P2 [--threads N] [--json]\n"
    "       papcoll-sched bench circulant --from P1 --to P2 [--step S]\n"
    "                            [--impl logp|reference|both] [--json]\n"
    "ALGO may be 'all' for verify. Arrival times are seconds. --collective defaults to\n"
    "allreduce, or to the only collective that has ALGO (e.g. clairvoyant: reduce).\n"
    "--round-time D: Clairvoyant's round time in seconds (default: the Hockney time of one\n"
    "block); --impl: clairvoyant's implementation, linear|pairing|segtree (same schedule).\n"
    "show, verify, cost, time also take --one-node 0|1: the schedule as it runs when every\n"
    "rank is on one node and the shared-memory transport carries the call (default 0).\n";

[[noreturn]] void usage_error(const std::string& why) {
  std::cerr << "papcoll-sched: " << why << "\n" << kUsage;
  std::exit(2);
}

// Limits that keep one command's memory bounded (docs/papcoll-sched.md, "Limits"). A schedule
// holds about p * B operations (B blocks, p for most algorithms by default): p * B <= 2^20 keeps
// show, verify and cost under about 1 GB (ring at p = 1024: 1.0 GB, 40 s on the project's VM).
constexpr int kMaxScheduleP = 1024;
constexpr long long kMaxScheduleWork = 1LL << 20;
constexpr long long kMaxAllgathervBlocks = 1LL << 30;
// bench clairvoyant: P * N <= 2^24 (about 400 MB for the segment tree).
constexpr long long kMaxClairvoyantWork = 1LL << 24;
constexpr int kMaxRandomArrivals = 100000;
constexpr int kMaxRuns = 100000;
constexpr int kMaxThreads = 256;
// time generates one rank's part of a schedule, O(p + blocks) for every algorithm.
constexpr int kMaxTimeP = 1 << 20;
constexpr int kMaxCalls = 1000000;
// Bytes as a double that still converts to int64_t exactly.
constexpr double kMaxBytes = 9007199254740992.0;  // 2^53

struct Range {
  int lo = 0, hi = 0;
};

Range parse_range(const std::string& flag, const std::string& v) {
  Range r;
  const auto dots = v.find("..");
  try {
    size_t used = 0;
    if (dots == std::string::npos) {
      r.lo = r.hi = std::stoi(v, &used);
      if (used != v.size()) throw std::invalid_argument(v);
    } else {
      r.lo = std::stoi(v.substr(0, dots));
      r.hi = std::stoi(v.substr(dots + 2));
    }
  } catch (const std::exception&) {
    usage_error(flag + " needs an integer or a range N..M, got '" + v + "'");
  }
  if (r.lo > r.hi) usage_error(flag + ": empty range '" + v + "'");
  return r;
}

double parse_double(const std::string& flag, const std::string& v) {
  try {
    size_t used = 0;
    const double d = std::stod(v, &used);
    if (used != v.size() || !std::isfinite(d)) throw std::invalid_argument(v);
    return d;
  } catch (const std::exception&) {
    usage_error(flag + " needs a finite number, got '" + v + "'");
  }
}

// One integer in [lo, hi], else a usage error that names the range.
long long parse_int(const std::string& flag, const std::string& v, long long lo, long long hi) {
  long long x = 0;
  try {
    size_t used = 0;
    x = std::stoll(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
  } catch (const std::exception&) {
    usage_error(flag + " needs an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                ", got '" + v + "'");
  }
  if (x < lo || x > hi)
    usage_error(flag + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
                v);
  return x;
}

// A seed: any unsigned 64-bit integer.
uint64_t parse_seed(const std::string& flag, const std::string& v) {
  try {
    size_t used = 0;
    if (v.empty() || v[0] == '-') throw std::invalid_argument(v);
    const unsigned long long x = std::stoull(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
    return x;
  } catch (const std::exception&) {
    usage_error(flag + " needs an integer in 0..18446744073709551615, got '" + v + "'");
  }
}

// --p as a count of ranks (or, with `range`, P1..P2) within 1..max.
Range parse_p(const std::string& v, bool range, int max = kMaxScheduleP) {
  const Range r = parse_range("--p", v);
  if (r.lo < 1) usage_error("--p must be at least 1");
  if ((range ? r.hi : r.lo) > max)
    usage_error("--p must be at most " + std::to_string(max) +
                " (a schedule's memory grows with p * blocks; docs/papcoll-sched.md, Limits)");
  return range ? r : Range{r.lo, r.lo};
}

// --blocks B or B1..B2, each at least 1 (the p * blocks limit is checked with p in input_of).
Range parse_blocks(const std::string& v) {
  const Range r = parse_range("--blocks", v);
  if (r.lo < 1) usage_error("--blocks must be at least 1");
  if (r.hi > kMaxScheduleWork) usage_error("--blocks must be at most 2^20");
  return r;
}

std::vector<double> parse_list(const std::string& flag, const std::string& v) {
  std::vector<double> out;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(parse_double(flag, item));
  return out;
}

struct Args {
  std::string command, algo;
  std::map<std::string, std::string> flags;
  bool has(const std::string& f) const { return flags.count(f) > 0; }
  std::string get(const std::string& f, const std::string& def = "") const {
    auto it = flags.find(f);
    return it == flags.end() ? def : it->second;
  }
};

Args parse_args(int argc, char** argv) {
  static const char* known[] = {"--p", "--blocks", "--root", "--arrivals", "--tau",
                                "--collective", "--format", "--bytes", "--alpha", "--beta",
                                "--gamma", "--random-arrivals", "--seed", "--round-time",
                                "--impl", "--counts", "--elem-bytes", "--model", "--rank",
                                "--pattern", "--calls", "--one-node", "--nodes",
                                "--intra-alpha", "--intra-beta"};
  Args a;
  if (argc < 2) usage_error("missing command");
  a.command = argv[1];
  int i = 2;
  if (a.command != "list") {
    if (argc < 3 || argv[2][0] == '-') usage_error("missing algorithm name");
    a.algo = argv[2];
    i = 3;
  }
  for (; i < argc; ++i) {
    std::string f = argv[i];
    std::string value;
    const auto eq = f.find('=');
    if (eq != std::string::npos) {
      value = f.substr(eq + 1);
      f = f.substr(0, eq);
    } else {
      if (i + 1 >= argc) usage_error("option " + f + " needs a value");
      value = argv[++i];
    }
    bool ok = false;
    for (const char* k : known) ok = ok || f == k;
    if (!ok) usage_error("unknown option " + f);
    a.flags[f] = value;
  }
  return a;
}

bool is_scatter_gather(Collective c) {
  return c == Collective::scatterv || c == Collective::gatherv;
}

// ALGO written as COLLECTIVE-ALGO (scatterv-binomial-maxfirst) or ALGO-COLLECTIVE
// (circulant-bcast) is ALGO with --collective.
void split_collective_prefix(Args& a) {
  for (Collective c : {Collective::allreduce, Collective::reduce, Collective::bcast,
                       Collective::allgatherv, Collective::scatterv, Collective::gatherv}) {
    const std::string prefix = std::string(collective_name(c)) + "-";
    const std::string suffix = "-" + std::string(collective_name(c));
    std::string rest;
    if (a.algo.rfind(prefix, 0) == 0)
      rest = a.algo.substr(prefix.size());
    else if (a.algo.size() > suffix.size() &&
             a.algo.compare(a.algo.size() - suffix.size(), suffix.size(), suffix) == 0)
      rest = a.algo.substr(0, a.algo.size() - suffix.size());
    else
      continue;
    if (!find_algorithm(c, rest) && !(rest == "auto" && is_scatter_gather(c))) continue;
    if (a.has("--collective") && a.get("--collective") != collective_name(c))
      usage_error("'" + a.algo + "' contradicts --collective " + a.get("--collective"));
    a.flags["--collective"] = collective_name(c);
    a.algo = rest;
    return;
  }
}

// --collective, else allreduce when it has the algorithm, else the one collective that has it
// (clairvoyant, radix-k: reduce). A name several others share needs --collective.
Collective collective_of(const Args& a) {
  Collective c = Collective::allreduce;
  if (a.has("--collective")) {
    if (!parse_collective(a.get("--collective"), &c))
      usage_error("unknown collective '" + a.get("--collective") + "'");
    return c;
  }
  if (a.algo == "all" || find_algorithm(Collective::allreduce, a.algo)) return c;
  int found = 0;
  for (const AlgorithmInfo& x : all_algorithms())
    if (a.algo == x.name && (found == 0 || x.collective != c)) {
      c = x.collective;
      ++found;
    }
  if (found > 1) usage_error("'" + a.algo + "' exists for several collectives: give --collective");
  return found ? c : Collective::allreduce;
}

const AlgorithmInfo& algorithm_of(const Args& a, Collective c) {
  const AlgorithmInfo* info = find_algorithm(c, a.algo);
  if (!info) {
    std::string names;
    for (const AlgorithmInfo* x : algorithms_for(c)) names += std::string(" ") + x->name;
    usage_error("unknown " + std::string(collective_name(c)) + " algorithm '" + a.algo +
                "'; known:" + names);
  }
  return *info;
}

std::vector<long long> parse_counts(const std::string& v) {
  std::vector<long long> out;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      const long long c = std::stoll(item, &used);
      if (used != item.size() || c < 0) throw std::invalid_argument(item);
      out.push_back(c);
    } catch (const std::exception&) {
      usage_error("--counts needs non-negative integers, got '" + item + "'");
    }
  }
  return out;
}

// The --model file, read and validated once; its p is checked against each schedule's.
std::shared_ptr<const LinkModel> model_of(const Args& a) {
  static std::shared_ptr<const LinkModel> model;
  if (!model) {
    const LinkModelResult r = read_link_model_file(a.get("--model"));
    if (!r.ok()) usage_error(r.error);
    model = r.model;
  }
  return model;
}

// Generator input from the common flags; the cost flags also drive PRR's tau unless --tau is set.
GeneratorInput input_of(const Args& a, const AlgorithmInfo& info, int p, int blocks) {
  GeneratorInput in;
  in.p = p;
  // For allgatherv --blocks is per rank (origin o owns the global blocks o*n .. o*n+n-1).
  const int per = info.collective == Collective::allgatherv ? p : 1;
  // B in all is at most 2^20, or for allgatherv 2^30 (p * --blocks: a rank's part of the
  // circulant and Bruck schedules grows with --blocks and log p, not with B; show, verify and cost
  // still stop at p * B <= 2^20, check_whole_schedule).
  const long long total_blocks =
      blocks > 0 ? static_cast<long long>(blocks) * per : default_blocks_for(info, p);
  const long long limit = per > 1 ? kMaxAllgathervBlocks : kMaxScheduleWork;
  if (total_blocks > limit)
    usage_error("--blocks: " + std::to_string(total_blocks) + " blocks in all are more than " +
                (per > 1 ? "2^30 (allgatherv: p * --blocks)" : "2^20"));
  in.blocks = static_cast<int>(total_blocks);
  in.root = a.has("--root") && a.get("--root") != "all"
                ? static_cast<int>(parse_int("--root", a.get("--root"), 0, p - 1))
                : -1;
  if (a.has("--arrivals")) {
    in.arrivals = parse_list("--arrivals", a.get("--arrivals"));
    if (static_cast<int>(in.arrivals.size()) != p)
      usage_error("--arrivals has " + std::to_string(in.arrivals.size()) + " values for p=" +
                  std::to_string(p));
  }
  if (a.has("--alpha")) in.cost.alpha = parse_double("--alpha", a.get("--alpha"));
  if (a.has("--beta")) in.cost.beta = parse_double("--beta", a.get("--beta"));
  if (a.has("--gamma")) in.cost.gamma = parse_double("--gamma", a.get("--gamma"));
  else if (a.has("--alpha") || a.has("--beta")) in.cost.gamma = 0;
  if (a.has("--bytes")) {
    in.bytes = parse_double("--bytes", a.get("--bytes"));
    if (in.bytes < 0 || in.bytes > kMaxBytes) usage_error("--bytes must be in 0..2^53");
  }
  if (a.has("--tau")) {
    in.cost = CostParams{parse_double("--tau", a.get("--tau")), 0, 0};
  }
  if (a.has("--one-node"))
    in.cost.shared_memory = parse_int("--one-node", a.get("--one-node"), 0, 1) == 1;
  if (a.has("--nodes")) {
    const int per = static_cast<int>(parse_int("--nodes", a.get("--nodes"), 1, 1 << 20));
    in.nodes = std::make_shared<const NodeLayout>(block_node_layout(p, per));
  }
  if (a.has("--intra-alpha")) in.cost.intra_alpha = parse_double("--intra-alpha", a.get("--intra-alpha"));
  if (a.has("--intra-beta")) in.cost.intra_beta = parse_double("--intra-beta", a.get("--intra-beta"));
  if (a.has("--round-time")) {
    in.round_time = parse_double("--round-time", a.get("--round-time"));
    if (in.round_time <= 0) usage_error("--round-time must be positive");
  }
  if (a.has("--impl")) {
    const std::string name = info.name, impl_name = a.get("--impl");
    if (name == "two-level") {
      // The row the leaders run (two_level.hpp, leaders_row).
      const AlgorithmInfo* inner = find_algorithm(info.collective, impl_name);
      if (inner == nullptr || inner->topology_aware)
        usage_error("--impl of two-level must name another " +
                    std::string(collective_name(info.collective)) + " algorithm");
    } else {
      if (name != "clairvoyant") usage_error("--impl applies to clairvoyant and two-level only");
      clairvoyant::Impl impl;
      if (!clairvoyant::parse_impl(impl_name, &impl))
        usage_error("--impl must be linear, pairing or segtree");
    }
    in.impl = impl_name;
  }
  for (const char* f : {"--counts", "--elem-bytes", "--model"})
    if (a.has(f) && !is_scatter_gather(info.collective))
      usage_error(std::string(f) + " applies to scatterv and gatherv only");
  if (a.has("--counts")) {
    in.counts = parse_counts(a.get("--counts"));
    if (static_cast<int>(in.counts.size()) != p)
      usage_error("--counts has " + std::to_string(in.counts.size()) + " values for p=" +
                  std::to_string(p));
  }
  if (a.has("--elem-bytes")) {
    in.elem_bytes = parse_double("--elem-bytes", a.get("--elem-bytes"));
    if (in.elem_bytes < 0) usage_error("--elem-bytes must not be negative");
  }
  if (!in.counts.empty()) {  // the portions' bytes, summed as doubles, must stay exact integers
    double total = 0;
    for (long long c : in.counts) total += static_cast<double>(c) * in.elem_bytes;
    if (!(total <= kMaxBytes)) usage_error("--counts times --elem-bytes must total at most 2^53 bytes");
  }
  if (is_scatter_gather(info.collective) && (in.cost.alpha < 0 || in.cost.beta < 0))
    usage_error("--alpha and --beta must not be negative");
  if (a.has("--model")) {
    in.link_model = model_of(a);
    if (in.link_model->p() != p)
      usage_error(a.get("--model") + ": the model is for p=" +
                  std::to_string(in.link_model->p()) + " ranks, not p=" + std::to_string(p));
  }
  return in;
}

// show, verify and cost build the whole schedule (every rank's part): its size is bounded by
// p * blocks <= 2^20 (docs/papcoll-sched.md, "Limits").
void check_whole_schedule(const GeneratorInput& in) {
  if (static_cast<long long>(in.p) * in.blocks > kMaxScheduleWork)
    usage_error("p * blocks must be at most 2^20 (" + std::to_string(kMaxScheduleWork) +
                "; for allgatherv blocks counts p * --blocks): p=" + std::to_string(in.p) +
                " and " + std::to_string(in.blocks) + " blocks are too many");
}

// ALGO for the generator input; for scatterv/gatherv `auto` is the tree with the smallest
// predicted time (choose_sg_tree), reported on stderr.
const AlgorithmInfo& resolved_algorithm(const Args& a, Collective c, int p, int blocks,
                                        GeneratorInput* in) {
  if (a.algo != "auto" || !is_scatter_gather(c)) {
    const AlgorithmInfo& info = algorithm_of(a, c);
    *in = input_of(a, info, p, blocks);
    return info;
  }
  *in = input_of(a, *algorithms_for(c).front(), p, blocks);
  const SgChoice choice = choose_sg_tree(c, *in);
  std::cerr << "papcoll-sched: auto chose " << choice.algorithm->name << " (predicted "
            << choice.predicted << " s)\n";
  return *choice.algorithm;
}

// papcoll-sched time (papcoll_sched_time.hpp): the calling rank's generation per call. Patterns:
// balanced (no arrival times), one-late (rank p/2 arrives 2p block times after the others, long
// enough for PRR's whole pre-reduction), random (uniform in [0, 2p block times), --seed).
int cmd_time(const Args& a) {
  const Collective c = collective_of(a);
  if (!a.has("--p")) usage_error("time needs --p");
  const int p = parse_p(a.get("--p"), false, kMaxTimeP).lo;
  const int blocks = a.has("--blocks")
                         ? static_cast<int>(parse_int("--blocks", a.get("--blocks"), 0, kMaxScheduleWork))
                         : 0;
  GeneratorInput in;
  const AlgorithmInfo& info = resolved_algorithm(a, c, p, blocks, &in);
  if (!a.has("--bytes")) in.bytes = 4.0 * (1 << 20);
  sched_time::Options opt;
  opt.pattern = a.has("--arrivals") ? "given" : a.get("--pattern", "balanced");
  if (a.has("--arrivals") && a.has("--pattern")) usage_error("give --arrivals or --pattern");
  const double tau = block_round_time(in);
  if (opt.pattern == "one-late") {
    in.arrivals.assign(static_cast<size_t>(p), 0.0);
    in.arrivals[static_cast<size_t>(p / 2)] = 2.0 * p * tau;
  } else if (opt.pattern == "random") {
    std::mt19937_64 rng(a.has("--seed") ? parse_seed("--seed", a.get("--seed")) : 1);
    std::uniform_real_distribution<double> d(0, 2.0 * p * tau);
    in.arrivals.resize(static_cast<size_t>(p));
    for (double& x : in.arrivals) x = d(rng);
  } else if (opt.pattern != "balanced" && opt.pattern != "given") {
    usage_error("--pattern must be balanced, one-late or random");
  }
  if (!info.uses_arrivals) in.arrivals.clear();
  if (a.has("--calls")) opt.calls = static_cast<int>(parse_int("--calls", a.get("--calls"), 1, kMaxCalls));
  const std::string rank = a.get("--rank", "0");
  if (rank == "all") {
    for (int r = 0; r < p; ++r) opt.ranks.push_back(r);
  } else {
    opt.ranks.push_back(static_cast<int>(parse_int("--rank", rank, 0, p - 1)));
  }
  const std::string fmt = a.get("--format", "text");
  if (fmt != "json" && fmt != "text") usage_error("--format must be json or text");
  opt.json = fmt == "json";
  return sched_time::run(info, in, opt);
}

int cmd_list() {
  for (const AlgorithmInfo& a : all_algorithms())
    std::cout << collective_name(a.collective) << ' ' << a.name << "  " << a.summary << '\n';
  return 0;
}

int cmd_show(const Args& a) {
  const Collective c = collective_of(a);
  if (!a.has("--p")) usage_error("show needs --p");
  const int p = parse_p(a.get("--p"), false).lo;
  const int blocks = a.has("--blocks") ? parse_blocks(a.get("--blocks")).lo : 0;
  GeneratorInput in;
  const AlgorithmInfo& info = resolved_algorithm(a, c, p, blocks, &in);
  check_whole_schedule(in);
  const Schedule s = generate_schedule(info, in);
  const std::string fmt = a.get("--format", "text");
  if (fmt == "json") write_schedule_json(std::cout, s);
  else if (fmt == "text") write_schedule_text(std::cout, s);
  else usage_error("--format must be json or text");
  return 0;
}

int cmd_verify(const Args& a) {
  const Collective c = collective_of(a);
  std::vector<const AlgorithmInfo*> algos;
  if (a.algo == "all") algos = algorithms_for(c);
  else algos.push_back(&algorithm_of(a, c));
  if (!a.has("--p")) usage_error("verify needs --p");
  const Range pr = parse_p(a.get("--p"), true);
  const bool blocks_given = a.has("--blocks");
  const Range br = blocks_given ? parse_blocks(a.get("--blocks")) : Range{0, 0};
  const int random_n = a.has("--random-arrivals")
                           ? static_cast<int>(parse_int("--random-arrivals",
                                                        a.get("--random-arrivals"), 0,
                                                        kMaxRandomArrivals))
                           : 0;
  std::mt19937_64 rng(a.has("--seed") ? parse_seed("--seed", a.get("--seed")) : 1);
  const bool all_roots = a.get("--root") == "all";
  long checked = 0;
  for (const AlgorithmInfo* info : algos)
    for (int p = pr.lo; p <= pr.hi; ++p)
      for (int b = br.lo; b <= br.hi; ++b)
      for (int root = 0; root < (all_roots ? p : 1); ++root) {
        for (int k = 0; k <= random_n; ++k) {
          GeneratorInput in = input_of(a, *info, p, b);
          check_whole_schedule(in);
          if (all_roots) in.root = root;
          if (k > 0) {  // random arrival pattern, in units of the algorithm's round time
            const double tau = in.round_time > 0 ? in.round_time : block_round_time(in);
            std::uniform_real_distribution<double> d(0, 3.0 * p * tau);
            in.arrivals.assign(static_cast<size_t>(p), 0.0);
            for (double& x : in.arrivals) x = (rng() % 3 == 0) ? 0.0 : d(rng);
          } else if (!a.has("--arrivals")) {
            in.arrivals.clear();
          }
          const Schedule s = generate_schedule(*info, in);
          VerifyResult v = verify_schedule(s);
          // Clairvoyant promises more: one send and one receive per rank and round, and never a
          // segment sent in the round it arrives (Sect. 4.2).
          if (v.ok && std::string(info->name) == "clairvoyant") v = verify_single_port(s);
          ++checked;
          if (!v.ok) {
            std::cerr << "FAIL " << info->name << " p=" << p << " blocks=" << in.blocks;
            if (s.root >= 0) std::cerr << " root=" << s.root;
            std::cerr << ": " << v.error << '\n';
            return 1;
          }
        }
      }
  std::cout << "ok: " << checked << " schedule(s) verified\n";
  return 0;
}

int cmd_cost(const Args& a) {
  const Collective c = collective_of(a);
  const bool sg = is_scatter_gather(c);
  if (!sg) {
    for (const char* f : {"--p", "--bytes", "--alpha", "--beta"})
      if (!a.has(f)) usage_error(std::string("cost needs ") + f);
  } else {  // portions from --counts or --bytes, links from --model or --alpha and --beta
    if (!a.has("--p")) usage_error("cost needs --p");
    if (!a.has("--counts") && !a.has("--bytes")) usage_error("cost needs --counts or --bytes");
    if (!a.has("--model") && !(a.has("--alpha") && a.has("--beta")))
      usage_error("cost needs --model, or --alpha and --beta");
  }
  const int p = parse_p(a.get("--p"), false).lo;
  const int blocks = a.has("--blocks") ? parse_blocks(a.get("--blocks")).lo : 0;
  GeneratorInput in;
  const AlgorithmInfo& info = resolved_algorithm(a, c, p, blocks, &in);
  check_whole_schedule(in);
  const double bytes = in.bytes;
  const Schedule s = generate_schedule(info, in);
  const VerifyResult v = verify_schedule(s);
  if (!v.ok) {
    std::cerr << "papcoll-sched: schedule does not verify: " << v.error << '\n';
    return 1;
  }
  CostResult r;
  if (sg) {
    r = evaluate_cost(s, in.arrivals, in.cost, portion_bytes(in), in.link_model.get());
  } else {
    CostParams cost{parse_double("--alpha", a.get("--alpha")),
                    parse_double("--beta", a.get("--beta")),
                    a.has("--gamma") ? parse_double("--gamma", a.get("--gamma")) : 0.0};
    cost.intra_alpha = in.cost.intra_alpha;
    cost.intra_beta = in.cost.intra_beta;
    r = evaluate_cost(s, in.arrivals, cost, static_cast<int64_t>(bytes), in.nodes.get());
  }
  std::cout << std::setprecision(12);
  if (a.get("--format", "text") == "json") {
    std::cout << "{\"ranks\":[";
    for (size_t i = 0; i < r.ranks.size(); ++i) {
      const RankCost& rc = r.ranks[i];
      std::cout << (i ? "," : "") << "{\"rank\":" << rc.rank << ",\"arrival\":" << rc.arrival
                << ",\"finish\":" << rc.finish << ",\"elapsed\":" << rc.elapsed << '}';
    }
    std::cout << "],\"mean_elapsed\":" << r.mean_elapsed << ",\"max_finish\":" << r.max_finish
              << "}\n";
  } else {
    std::cout << "rank  arrival  finish  elapsed\n";
    for (const RankCost& rc : r.ranks)
      std::cout << rc.rank << "  " << rc.arrival << "  " << rc.finish << "  " << rc.elapsed
                << '\n';
    std::cout << "mean_elapsed " << r.mean_elapsed << "\nmax_finish " << r.max_finish << '\n';
    // What `auto` would cost the row with, without building the schedule (AlgorithmInfo::predict).
    if (info.predict != nullptr && !sg) {
      GeneratorInput e = in;
      e.cost.alpha = parse_double("--alpha", a.get("--alpha"));
      e.cost.beta = parse_double("--beta", a.get("--beta"));
      e.cost.gamma = a.has("--gamma") ? parse_double("--gamma", a.get("--gamma")) : 0.0;
      std::cout << "estimate " << info.predict(e) << '\n';
    }
  }
  return 0;
}

// --- circulant broadcast schedules (docs/circulant.md) ---------------------------------------
// `verify-circulant` and `bench circulant` take their own flags: --from, --to, --threads, --step,
// --impl and the valueless --json.
struct CirculantFlags {
  int from = 0, to = 0, threads = 0, step = 1;
  std::string impl = "both";
  bool json = false;
};

CirculantFlags parse_circulant_flags(int argc, char** argv, int first) {
  CirculantFlags f;
  bool have_from = false, have_to = false;
  for (int i = first; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--json") {
      f.json = true;
      continue;
    }
    if (i + 1 >= argc) usage_error("option " + flag + " needs a value");
    const std::string v = argv[++i];
    if (flag == "--impl") {
      if (v != "logp" && v != "reference" && v != "both")
        usage_error("--impl must be logp, reference or both");
      f.impl = v;
      continue;
    }
    if (flag == "--from") f.from = static_cast<int>(parse_int(flag, v, 1, circulant::kMaxP)), have_from = true;
    else if (flag == "--to") f.to = static_cast<int>(parse_int(flag, v, 1, circulant::kMaxP)), have_to = true;
    else if (flag == "--threads") f.threads = static_cast<int>(parse_int(flag, v, 0, kMaxThreads));
    else if (flag == "--step") f.step = static_cast<int>(parse_int(flag, v, 1, circulant::kMaxP));
    else usage_error("unknown option " + flag);
  }
  if (!have_from || !have_to) usage_error("needs --from and --to");
  if (f.from < 1 || f.to < f.from || f.to > circulant::kMaxP)
    usage_error("need 1 <= --from <= --to <= 2^29");
  if (f.step < 1 || f.threads < 0) usage_error("--step must be >= 1, --threads >= 0");
  return f;
}

int cmd_verify_circulant(int argc, char** argv) {
  const CirculantFlags f = parse_circulant_flags(argc, argv, 2);
  const auto t0 = std::chrono::steady_clock::now();
  const circulant::CheckResult r = circulant::check_circulant_range(f.from, f.to, f.threads);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const circulant::CheckStats& st = r.stats;
  const double mean_v = st.processors ? double(st.total_violations) / double(st.processors) : 0;
  if (f.json) {
    std::cout << "{\"ok\":" << (r.ok ? "true" : "false") << ",\"from\":" << f.from
              << ",\"to\":" << f.to << ",\"p_checked\":" << st.p_checked
              << ",\"processors\":" << st.processors << ",\"max_recursive_calls\":"
              << st.max_calls << ",\"max_calls_p\":" << st.worst_calls_p
              << ",\"max_violations\":" << st.max_violations
              << ",\"max_violations_p\":" << st.worst_violations_p
              << ",\"mean_violations\":" << mean_v << ",\"seconds\":" << secs;
    if (!r.ok) std::cout << ",\"error\":\"" << r.error << '"';
    std::cout << "}\n";
  } else if (r.ok) {
    std::cout << "ok: " << st.p_checked << " values of p in " << f.from << ".." << f.to << " ("
              << st.processors << " processors) satisfy the four conditions\n"
              << "max recursive calls " << st.max_calls << " (p=" << st.worst_calls_p << ")\n"
              << "max send-schedule violations " << st.max_violations
              << " (p=" << st.worst_violations_p << "), mean " << mean_v << " per processor\n"
              << "seconds " << secs << '\n';
  }
  if (!r.ok) std::cerr << "FAIL " << r.error << '\n';
  return r.ok ? 0 : 1;
}

int cmd_bench_circulant(int argc, char** argv) {
  const CirculantFlags f = parse_circulant_flags(argc, argv, 3);
  std::vector<circulant::TimingResult> res;
  using circulant::SendImpl;
  if (f.impl != "reference")
    res.push_back(circulant::time_circulant(f.from, f.to, SendImpl::logp, f.step));
  if (f.impl != "logp")
    res.push_back(circulant::time_circulant(f.from, f.to, SendImpl::reference, f.step));
  if (res.size() == 2 && res[0].checksum != res[1].checksum) {
    std::cerr << "papcoll-sched: logp and reference send schedules differ\n";
    return 1;
  }
  if (f.json) {
    std::cout << "{\"results\":[";
    for (size_t i = 0; i < res.size(); ++i)
      std::cout << (i ? "," : "") << "{\"impl\":\"" << circulant::send_impl_name(res[i].impl)
                << "\",\"from\":" << res[i].from << ",\"to\":" << res[i].to
                << ",\"step\":" << res[i].step << ",\"p_count\":" << res[i].p_count
                << ",\"processors\":" << res[i].processors << ",\"total_s\":" << res[i].total_s
                << ",\"per_proc_us\":" << res[i].per_proc_us << '}';
    std::cout << "]}\n";
  } else {
    std::cout << "impl       from      to   step  total_s  per_proc_us\n";
    for (const circulant::TimingResult& t : res)
      std::cout << std::left << std::setw(9) << circulant::send_impl_name(t.impl) << std::right
                << std::setw(6) << t.from << std::setw(8) << t.to << std::setw(7) << t.step
                << std::setw(9) << std::setprecision(4) << t.total_s << std::setw(13)
                << t.per_proc_us << '\n';
  }
  return 0;
}

// --- Clairvoyant generator benchmark (docs/papcoll-sched.md, "bench clairvoyant") -----------
// Flags: --p P or P1..P2 (the powers of two in the range: the grid of Table 1 of "Improving
// Clairvoyant"), --blocks N (default N = P), --dist uniform|skewed (comma list), --runs R,
// --impl (comma list), --seed S, and the valueless --json.
int cmd_bench_clairvoyant(int argc, char** argv) {
  std::vector<int> ps;
  int blocks = 0, runs = 20;
  uint64_t seed = 1;
  bool json = false;
  std::vector<clairvoyant::Dist> dists = {clairvoyant::Dist::uniform, clairvoyant::Dist::skewed};
  std::vector<clairvoyant::Impl> impls = {clairvoyant::Impl::linear, clairvoyant::Impl::pairing,
                                          clairvoyant::Impl::segtree};
  auto split = [](const std::string& v) {
    std::vector<std::string> out;
    std::stringstream ss(v);
    std::string item;
    while (std::getline(ss, item, ',')) out.push_back(item);
    return out;
  };
  for (int i = 3; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--json") {
      json = true;
      continue;
    }
    if (i + 1 >= argc) usage_error("option " + flag + " needs a value");
    const std::string v = argv[++i];
    if (flag == "--p") {
      const Range r = parse_range(flag, v);
      if (r.lo < 1) usage_error("--p must be at least 1");
      ps.clear();
      if (r.lo == r.hi) ps = {r.lo};
      else
        for (int64_t q = 1; q <= r.hi; q *= 2)
          if (q >= r.lo) ps.push_back(static_cast<int>(q));
      if (ps.empty()) usage_error("--p " + v + " holds no power of two");
    } else if (flag == "--blocks") {
      blocks = static_cast<int>(parse_int(flag, v, 1, kMaxClairvoyantWork));
    } else if (flag == "--runs") {
      runs = static_cast<int>(parse_int(flag, v, 1, kMaxRuns));
    } else if (flag == "--seed") {
      seed = parse_seed(flag, v);
    } else if (flag == "--dist") {
      dists.clear();
      for (const std::string& d : split(v)) {
        clairvoyant::Dist x;
        if (!clairvoyant::parse_dist(d, &x)) usage_error("--dist takes uniform and/or skewed");
        dists.push_back(x);
      }
    } else if (flag == "--impl") {
      impls.clear();
      for (const std::string& d : split(v)) {
        clairvoyant::Impl x;
        if (!clairvoyant::parse_impl(d, &x)) usage_error("--impl takes linear, pairing, segtree");
        impls.push_back(x);
      }
    } else {
      usage_error("unknown option " + flag);
    }
  }
  if (ps.empty()) usage_error("bench clairvoyant needs --p");
  for (int p : ps)
    if (static_cast<long long>(p) * (blocks > 0 ? blocks : p) > kMaxClairvoyantWork)
      usage_error("bench clairvoyant: P * N must be at most 2^24 (" +
                  std::to_string(kMaxClairvoyantWork) + "), P=" + std::to_string(p) + " and N=" +
                  std::to_string(blocks > 0 ? blocks : p) + " are too many");
  if (dists.empty() || impls.empty()) usage_error("--dist and --impl need at least one value");
  const clairvoyant::BenchResult r = clairvoyant::bench(ps, blocks, dists, impls, runs, seed);
  std::cout << (json ? clairvoyant::bench_json(r) : clairvoyant::bench_text(r));
  if (!r.identical) {
    std::cerr << "papcoll-sched: implementations disagree: " << r.mismatch << '\n';
    return 1;
  }
  return 0;
}

}  // namespace

int run(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "verify-circulant")
    return cmd_verify_circulant(argc, argv);
  if (argc >= 3 && std::string(argv[1]) == "bench" && std::string(argv[2]) == "circulant")
    return cmd_bench_circulant(argc, argv);
  if (argc >= 3 && std::string(argv[1]) == "bench" && std::string(argv[2]) == "clairvoyant")
    return cmd_bench_clairvoyant(argc, argv);
  Args a = parse_args(argc, argv);
  split_collective_prefix(a);
  try {
    if (a.command == "list") return cmd_list();
    if (a.command == "show") return cmd_show(a);
    if (a.command == "verify") return cmd_verify(a);
    if (a.command == "cost") return cmd_cost(a);
    if (a.command == "time") return cmd_time(a);
  } catch (const std::invalid_argument& e) {  // a generator refusing its input
    usage_error(e.what());
  }
  usage_error("unknown command '" + a.command + "'");
}

// No exception ends the program with a signal: bad input is a usage error (exit 2, from the
// checks above or a generator refusing its input), anything else an internal error (exit 1).
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::invalid_argument& e) {
    usage_error(e.what());
  } catch (const std::bad_alloc&) {
    std::cerr << "papcoll-sched: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "papcoll-sched: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "papcoll-sched: internal error: unknown exception\n";
  }
  return 1;
}
