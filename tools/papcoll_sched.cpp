// papcoll-sched: print, verify and cost schedules without MPI. See docs/papcoll-sched.md.
#include <algorithm>
#include <cctype>
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

#include "cli11.hpp"
#include "cli_common.hpp"
#include "json_number.hpp"
#include "model/link_model_io.hpp"
#include "model/node_layout.hpp"
#include "papcoll_sched_auto.hpp"
#include "papcoll_sched_library.hpp"
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
#include "verify/cost_model.hpp"
#include "verify/port_check.hpp"
#include "verify/verifier.hpp"

using namespace papcoll;
using papcoll_cli::Json;
using papcoll_cli::json_number;

namespace {

const char* const kHelpHint =
    "(papcoll-sched --help lists the commands, papcoll-sched COMMAND --help their options)";

[[noreturn]] void usage_error(const std::string& why) {
  std::cerr << "papcoll-sched: " << why << "\n" << kHelpHint << "\n";
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

// Seconds: a number, or one with a unit (20ms, 200us, 0.5s, 750ns).
double parse_seconds(const std::string& flag, const std::string& v) {
  double s = 0;
  if (!v.empty() && std::isalpha(static_cast<unsigned char>(v.back())) &&
      papcoll_cli::parse_duration_s(v, 1.0, &s))
    return s;
  try {
    size_t used = 0;
    const double d = std::stod(v, &used);
    if (used != v.size() || !std::isfinite(d)) throw std::invalid_argument(v);
    return d;
  } catch (const std::exception&) {
    usage_error(flag +
                " needs a finite number of seconds, or one with a unit (20ms, 200us, "
                "0.5s), got '" +
                v + "'");
  }
}

// Bytes: a number, or a count with a suffix (4MiB, 64K).
double parse_byte_size(const std::string& flag, const std::string& v) {
  long long n = 0;
  if (!v.empty() && std::isalpha(static_cast<unsigned char>(v.back())) &&
      papcoll_cli::parse_bytes(v, 1LL << 53, &n))
    return static_cast<double>(n);
  try {
    size_t used = 0;
    const double d = std::stod(v, &used);
    if (used != v.size() || !std::isfinite(d)) throw std::invalid_argument(v);
    return d;
  } catch (const std::exception&) {
    usage_error(flag + " needs a number of bytes, or one with a suffix (4MiB, 64K), got '" + v +
                "'");
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
  while (std::getline(ss, item, ',')) out.push_back(parse_seconds(flag, item));
  return out;
}

struct Args {
  std::string command, algo;
  std::map<std::string, std::string> flags;
  bool json = false;  // verify-circulant, bench circulant, bench clairvoyant: --json
  bool has(const std::string& f) const { return flags.count(f) > 0; }
  std::string get(const std::string& f, const std::string& def = "") const {
    auto it = flags.find(f);
    return it == flags.end() ? def : it->second;
  }
};

// The options of show, verify, cost and time: every one of them reads the generator input's
// flags (input_of), so each takes them all, as it always did.
void add_schedule_flags(CLI::App& cmd, Args& a) {
  using papcoll_cli::add_kept;
  add_kept(cmd, "--p", a.flags, "number of ranks (verify: a range P1..P2)", "P");
  add_kept(cmd, "--blocks", a.flags,
           "number of blocks (verify: a range B1..B2; allgatherv: per rank); default: the "
           "algorithm's",
           "B");
  add_kept(cmd, "--root", a.flags, "root rank of a rooted collective (verify: all = every root)",
           "R");
  add_kept(cmd, "--collective", a.flags,
           "allreduce, reduce, bcast, allgatherv, scatterv, gatherv (default: allreduce if it has "
           "ALGO, else the one collective that has it)",
           "C");
  add_kept(cmd, "--arrivals", a.flags,
           "one arrival time per rank, seconds (or with a unit: 20ms), comma separated",
           "a0,a1,...");
  add_kept(cmd, "--tau", a.flags,
           "round time of the arrival-aware generators: alpha = T, beta = gamma = 0 for the "
           "generator (seconds, or with a unit)",
           "T");
  add_kept(cmd, "--round-time", a.flags,
           "Clairvoyant's round time (seconds, or with a unit; default: one block's Hockney "
           "time)",
           "D");
  add_kept(cmd, "--impl", a.flags, "Clairvoyant's implementation: linear, pairing, segtree", "I");
  add_kept(cmd, "--one-node", a.flags,
           "1: the schedule as it runs when every rank is on one node (default 0)", "0|1");
  add_kept(cmd, "--bytes", a.flags, "the whole buffer, bytes (or with a suffix: 4MiB)", "M");
  add_kept(cmd, "--alpha", a.flags, "Hockney latency, seconds per message (or with a unit: 5us)",
           "A");
  add_kept(cmd, "--beta", a.flags, "seconds per byte sent", "B");
  add_kept(cmd, "--gamma", a.flags, "seconds per byte reduced (0 when --alpha or --beta is given)",
           "G");
  add_kept(cmd, "--counts", a.flags, "scatterv/gatherv: each rank's portion in elements",
           "c0,c1,...");
  add_kept(cmd, "--elem-bytes", a.flags,
           "scatterv/gatherv: bytes per element of --counts (default 1)", "E");
  add_kept(cmd, "--model", a.flags,
           "scatterv/gatherv: per-pair link model file (docs/model-format.md)", "FILE");
  add_kept(cmd, "--format", a.flags, "show, cost, time: text or json (default text)", "json|text");
  add_kept(cmd, "--random-arrivals", a.flags,
           "verify: also N random arrival patterns per (algorithm, p, blocks)", "N");
  add_kept(cmd, "--seed", a.flags, "verify, time: seed of the random arrivals (default 1)", "S");
  add_kept(cmd, "--rank", a.flags, "time: the rank to time, or all (default 0)", "R|all");
  add_kept(cmd, "--pattern", a.flags, "time: balanced, one-late or random arrivals", "P");
  add_kept(cmd, "--calls", a.flags, "time: measurements per figure (default 20)", "N");
  add_kept(cmd, "--nodes", a.flags,
           "K consecutive ranks per node: schedules and the cost model on that layout (default: "
           "one rank per node)",
           "K");
  add_kept(cmd, "--intra-alpha", a.flags,
           "latency inside a node, seconds (or with a unit; default: --alpha)", "A");
  add_kept(cmd, "--intra-beta", a.flags, "seconds per byte inside a node (default: --beta)", "B");
}

// The command line with CLI11 (tools/cli_common.hpp): a subcommand per command. Values are kept
// as given and checked where they are used, with messages that name the flag.
Args parse_args(int argc, char** argv) {
  Args a;
  CLI::App app{"", "papcoll-sched"};
  papcoll_cli::configure(
      app, "Prints, verifies, costs and times papcoll's schedules without MPI.",
      "ALGO may be written COLLECTIVE-ALGO (scatterv-binomial-maxfirst) or ALGO-COLLECTIVE "
      "(circulant-bcast); 'all' for verify; for scatterv/gatherv also 'auto'.\nDurations: a "
      "number of seconds, or 20ms, 200us, 0.5s. Byte counts: a number, or 4MiB, 64K.\nExit "
      "status: 0 ok, 1 a schedule fails verification or an internal error, 2 bad usage.\n"
      "docs/papcoll-sched.md");
  papcoll_cli::add_command(app, "list", "every algorithm, by collective, with a summary");
  const struct {
    const char* name;
    const char* what;
  } kScheduleCommands[] = {
      {"show", "print ALGO's schedule (every rank's steps)"},
      {"verify", "verify ALGO's schedules symbolically (ALGO may be all; --p and --blocks may be "
                 "ranges)"},
      {"cost", "each rank's arrival, finish and elapsed time under the Hockney cost model"},
      {"time", "what one call costs a rank to get its part of the schedule"}};
  for (const auto& c : kScheduleCommands) {
    CLI::App* cmd = papcoll_cli::add_command(app, c.name, c.what);
    cmd->add_option("ALGO", a.algo, "the algorithm (papcoll-sched list)")->type_name("");
    add_schedule_flags(*cmd, a);
  }
  CLI::App* vc = papcoll_cli::add_command(
      app, "verify-circulant",
      "check the circulant broadcast's skips and send schedules for every p in --from..--to "
      "(docs/circulant.md)");
  papcoll_cli::add_kept(*vc, "--from", a.flags, "first p (required)", "P1");
  papcoll_cli::add_kept(*vc, "--to", a.flags, "last p (required)", "P2");
  papcoll_cli::add_kept(*vc, "--threads", a.flags, "worker threads, 0 = all cores (default 0)",
                        "N");
  papcoll_cli::add_flag(*vc, "--json", a.json, "one JSON object instead of text");
  // Listed for --help; run() hands them to sched_library and sched_auto before this parser sees
  // them.
  papcoll_cli::add_command(app, "library",
                           "what an MPI library runs for a collective and the library model's "
                           "time for it ('papcoll-sched library' alone: its options)")
      ->allow_extras();
  papcoll_cli::add_command(app, "auto",
                           "what auto runs for a call and why, with every row's estimate "
                           "('papcoll-sched auto' alone: its options)")
      ->allow_extras();
  CLI::App* bench =
      papcoll_cli::add_command(app, "bench", "time generators: clairvoyant, circulant");
  CLI::App* bc = papcoll_cli::add_command(
      *bench, "circulant", "time the circulant send schedules for every p in --from..--to");
  papcoll_cli::add_kept(*bc, "--from", a.flags, "first p (required)", "P1");
  papcoll_cli::add_kept(*bc, "--to", a.flags, "last p (required)", "P2");
  papcoll_cli::add_kept(*bc, "--step", a.flags, "every step-th p (default 1)", "S");
  papcoll_cli::add_kept(*bc, "--impl", a.flags, "logp, reference or both (default both)", "I");
  papcoll_cli::add_flag(*bc, "--json", a.json, "one JSON object instead of text");
  CLI::App* bv = papcoll_cli::add_command(
      *bench, "clairvoyant",
      "time Clairvoyant's three implementations on random arrivals (Table 1 of \"Improving "
      "Clairvoyant\")");
  papcoll_cli::add_kept(*bv, "--p", a.flags,
                        "ranks, or P1..P2: the powers of two in the range (required)", "P");
  papcoll_cli::add_kept(*bv, "--blocks", a.flags, "segments N (default N = P)", "N");
  papcoll_cli::add_kept(*bv, "--dist", a.flags, "uniform and/or skewed (default both)",
                        "uniform,skewed");
  papcoll_cli::add_kept(*bv, "--runs", a.flags, "runs per cell (default 20)", "R");
  papcoll_cli::add_kept(*bv, "--impl", a.flags, "linear, pairing, segtree (default all)", "I,...");
  papcoll_cli::add_kept(*bv, "--seed", a.flags, "seed of the arrivals (default 1)", "S");
  papcoll_cli::add_flag(*bv, "--json", a.json, "one JSON object instead of text");

  // The command comes first (anything else there is not a command, as it always was).
  static const char* const kCommands[] = {"list", "show", "verify",
                                          "cost", "time", "verify-circulant",
                                          "bench"};
  const std::string first = argc >= 2 ? argv[1] : "";
  if (first == "--help" || first == "-h" || first == "help") {
    std::cout << app.help();
    std::exit(0);
  }
  if (argc < 2) usage_error("missing command");
  if (std::find(std::begin(kCommands), std::end(kCommands), first) == std::end(kCommands))
    usage_error("unknown command '" + first + "'");
  a.command = first;
  if (first == "bench") {
    const std::string second = argc >= 3 ? argv[2] : "";
    if (second == "clairvoyant" || second == "circulant")
      a.command += " " + second;
    else if (second != "--help" && second != "-h")
      usage_error("unknown command 'bench" + (second.empty() ? "" : " " + second) +
                  "' (bench clairvoyant or bench circulant)");
  }
  const papcoll_cli::Parsed parsed = papcoll_cli::parse(app, argc, argv);
  if (parsed.kind == papcoll_cli::Parsed::help) {
    std::cout << parsed.text;
    std::exit(0);
  }
  if (parsed.kind == papcoll_cli::Parsed::error) usage_error(parsed.text);
  const bool takes_algo = first == "show" || first == "verify" || first == "cost" ||
                          first == "time";
  if (takes_algo && a.algo.empty()) usage_error("missing algorithm name");
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
  const long long total_blocks = blocks > 0 ? static_cast<long long>(blocks) * per
                                            : default_blocks_for(info, p);
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
      usage_error("--arrivals has " + std::to_string(in.arrivals.size()) +
                  " values for p=" + std::to_string(p));
  }
  if (a.has("--alpha")) in.cost.alpha = parse_seconds("--alpha", a.get("--alpha"));
  if (a.has("--beta")) in.cost.beta = parse_double("--beta", a.get("--beta"));
  if (a.has("--gamma"))
    in.cost.gamma = parse_double("--gamma", a.get("--gamma"));
  else if (a.has("--alpha") || a.has("--beta"))
    in.cost.gamma = 0;
  if (a.has("--bytes")) {
    in.bytes = parse_byte_size("--bytes", a.get("--bytes"));
    if (in.bytes < 0 || in.bytes > kMaxBytes) usage_error("--bytes must be in 0..2^53");
  }
  if (a.has("--tau")) {
    in.cost = CostParams{parse_seconds("--tau", a.get("--tau")), 0, 0};
  }
  if (a.has("--one-node"))
    in.cost.shared_memory = parse_int("--one-node", a.get("--one-node"), 0, 1) == 1;
  if (a.has("--nodes")) {
    const int per = static_cast<int>(parse_int("--nodes", a.get("--nodes"), 1, 1 << 20));
    in.nodes = std::make_shared<const NodeLayout>(block_node_layout(p, per));
  }
  if (a.has("--intra-alpha"))
    in.cost.intra_alpha = parse_seconds("--intra-alpha", a.get("--intra-alpha"));
  if (a.has("--intra-beta"))
    in.cost.intra_beta = parse_double("--intra-beta", a.get("--intra-beta"));
  if (a.has("--round-time")) {
    in.round_time = parse_seconds("--round-time", a.get("--round-time"));
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
      usage_error("--counts has " + std::to_string(in.counts.size()) +
                  " values for p=" + std::to_string(p));
  }
  if (a.has("--elem-bytes")) {
    in.elem_bytes = parse_double("--elem-bytes", a.get("--elem-bytes"));
    if (in.elem_bytes < 0) usage_error("--elem-bytes must not be negative");
  }
  if (!in.counts.empty()) {  // the portions' bytes, summed as doubles, must stay exact integers
    double total = 0;
    for (long long c : in.counts) total += static_cast<double>(c) * in.elem_bytes;
    if (!(total <= kMaxBytes))
      usage_error("--counts times --elem-bytes must total at most 2^53 bytes");
  }
  if (is_scatter_gather(info.collective) && (in.cost.alpha < 0 || in.cost.beta < 0))
    usage_error("--alpha and --beta must not be negative");
  if (a.has("--model")) {
    in.link_model = model_of(a);
    if (in.link_model->p() != p)
      usage_error(a.get("--model") + ": the model is for p=" + std::to_string(in.link_model->p()) +
                  " ranks, not p=" + std::to_string(p));
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
  const int blocks = a.has("--blocks") ? static_cast<int>(parse_int("--blocks", a.get("--blocks"),
                                                                    0, kMaxScheduleWork))
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
  if (a.has("--calls"))
    opt.calls = static_cast<int>(parse_int("--calls", a.get("--calls"), 1, kMaxCalls));
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
  if (fmt == "json")
    write_schedule_json(std::cout, s);
  else if (fmt == "text")
    write_schedule_text(std::cout, s);
  else
    usage_error("--format must be json or text");
  return 0;
}

int cmd_verify(const Args& a) {
  const Collective c = collective_of(a);
  std::vector<const AlgorithmInfo*> algos;
  if (a.algo == "all")
    algos = algorithms_for(c);
  else
    algos.push_back(&algorithm_of(a, c));
  if (!a.has("--p")) usage_error("verify needs --p");
  const Range pr = parse_p(a.get("--p"), true);
  const bool blocks_given = a.has("--blocks");
  const Range br = blocks_given ? parse_blocks(a.get("--blocks")) : Range{0, 0};
  const int random_n =
      a.has("--random-arrivals")
          ? static_cast<int>(
                parse_int("--random-arrivals", a.get("--random-arrivals"), 0, kMaxRandomArrivals))
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
    CostParams cost{parse_seconds("--alpha", a.get("--alpha")),
                    parse_double("--beta", a.get("--beta")),
                    a.has("--gamma") ? parse_double("--gamma", a.get("--gamma")) : 0.0};
    cost.intra_alpha = in.cost.intra_alpha;
    cost.intra_beta = in.cost.intra_beta;
    r = evaluate_cost(s, in.arrivals, cost, static_cast<int64_t>(bytes), in.nodes.get());
  }
  std::cout << std::setprecision(12);
  if (a.get("--format", "text") == "json") {
    Json ranks = Json::array();
    for (const RankCost& rc : r.ranks)
      ranks.push_back(Json{{"rank", rc.rank},
                           {"arrival", json_number(rc.arrival, 12)},
                           {"finish", json_number(rc.finish, 12)},
                           {"elapsed", json_number(rc.elapsed, 12)}});
    const Json doc{{"ranks", std::move(ranks)},
                   {"mean_elapsed", json_number(r.mean_elapsed, 12)},
                   {"max_finish", json_number(r.max_finish, 12)}};
    std::cout << doc.dump() << '\n';
  } else {
    std::cout << "rank  arrival  finish  elapsed\n";
    for (const RankCost& rc : r.ranks)
      std::cout << rc.rank << "  " << rc.arrival << "  " << rc.finish << "  " << rc.elapsed << '\n';
    std::cout << "mean_elapsed " << r.mean_elapsed << "\nmax_finish " << r.max_finish << '\n';
    // What `auto` would cost the row with, without building the schedule (AlgorithmInfo::predict).
    if (info.predict != nullptr && !sg) {
      GeneratorInput e = in;
      e.cost.alpha = parse_seconds("--alpha", a.get("--alpha"));
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

CirculantFlags circulant_flags(const Args& a) {
  CirculantFlags f;
  f.json = a.json;
  if (a.has("--impl")) {
    const std::string v = a.get("--impl");
    if (v != "logp" && v != "reference" && v != "both")
      usage_error("--impl must be logp, reference or both");
    f.impl = v;
  }
  if (!a.has("--from") || !a.has("--to")) usage_error("needs --from and --to");
  f.from = static_cast<int>(parse_int("--from", a.get("--from"), 1, circulant::kMaxP));
  f.to = static_cast<int>(parse_int("--to", a.get("--to"), 1, circulant::kMaxP));
  if (a.has("--threads"))
    f.threads = static_cast<int>(parse_int("--threads", a.get("--threads"), 0, kMaxThreads));
  if (a.has("--step"))
    f.step = static_cast<int>(parse_int("--step", a.get("--step"), 1, circulant::kMaxP));
  if (f.to < f.from) usage_error("need 1 <= --from <= --to <= 2^29");
  return f;
}

int cmd_verify_circulant(const Args& a) {
  const CirculantFlags f = circulant_flags(a);
  const auto t0 = std::chrono::steady_clock::now();
  const circulant::CheckResult r = circulant::check_circulant_range(f.from, f.to, f.threads);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const circulant::CheckStats& st = r.stats;
  const double mean_v = st.processors ? double(st.total_violations) / double(st.processors) : 0;
  if (f.json) {
    Json doc{{"ok", r.ok},
             {"from", f.from},
             {"to", f.to},
             {"p_checked", st.p_checked},
             {"processors", st.processors},
             {"max_recursive_calls", st.max_calls},
             {"max_calls_p", st.worst_calls_p},
             {"max_violations", st.max_violations},
             {"max_violations_p", st.worst_violations_p},
             {"mean_violations", json_number(mean_v, 6)},
             {"seconds", json_number(secs, 6)}};
    if (!r.ok) doc["error"] = r.error;
    std::cout << doc.dump() << '\n';
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

int cmd_bench_circulant(const Args& a) {
  const CirculantFlags f = circulant_flags(a);
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
    Json results = Json::array();
    for (const circulant::TimingResult& t : res)
      results.push_back(Json{{"impl", circulant::send_impl_name(t.impl)},
                             {"from", t.from},
                             {"to", t.to},
                             {"step", t.step},
                             {"p_count", t.p_count},
                             {"processors", t.processors},
                             {"total_s", json_number(t.total_s, 6)},
                             {"per_proc_us", json_number(t.per_proc_us, 6)}});
    std::cout << Json{{"results", std::move(results)}}.dump() << '\n';
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
int cmd_bench_clairvoyant(const Args& a) {
  std::vector<int> ps;
  int blocks = 0, runs = 20;
  uint64_t seed = 1;
  const bool json = a.json;
  std::vector<clairvoyant::Dist> dists = {clairvoyant::Dist::uniform, clairvoyant::Dist::skewed};
  std::vector<clairvoyant::Impl> impls = {clairvoyant::Impl::linear, clairvoyant::Impl::pairing,
                                          clairvoyant::Impl::segtree};
  if (a.has("--p")) {
    const std::string v = a.get("--p");
    const Range r = parse_range("--p", v);
    if (r.lo < 1) usage_error("--p must be at least 1");
    if (r.lo == r.hi)
      ps = {r.lo};
    else
      for (int64_t q = 1; q <= r.hi; q *= 2)
        if (q >= r.lo) ps.push_back(static_cast<int>(q));
    if (ps.empty()) usage_error("--p " + v + " holds no power of two");
  }
  if (a.has("--blocks"))
    blocks = static_cast<int>(parse_int("--blocks", a.get("--blocks"), 1, kMaxClairvoyantWork));
  if (a.has("--runs")) runs = static_cast<int>(parse_int("--runs", a.get("--runs"), 1, kMaxRuns));
  if (a.has("--seed")) seed = parse_seed("--seed", a.get("--seed"));
  if (a.has("--dist")) {
    dists.clear();
    for (const std::string& d : papcoll_cli::split_commas(a.get("--dist"))) {
      clairvoyant::Dist x;
      if (!clairvoyant::parse_dist(d, &x)) usage_error("--dist takes uniform and/or skewed");
      dists.push_back(x);
    }
  }
  if (a.has("--impl")) {
    impls.clear();
    for (const std::string& d : papcoll_cli::split_commas(a.get("--impl"))) {
      clairvoyant::Impl x;
      if (!clairvoyant::parse_impl(d, &x)) usage_error("--impl takes linear, pairing, segtree");
      impls.push_back(x);
    }
  }
  if (ps.empty()) usage_error("bench clairvoyant needs --p");
  for (int p : ps)
    if (static_cast<long long>(p) * (blocks > 0 ? blocks : p) > kMaxClairvoyantWork)
      usage_error("bench clairvoyant: P * N must be at most 2^24 (" +
                  std::to_string(kMaxClairvoyantWork) + "), P=" + std::to_string(p) +
                  " and N=" + std::to_string(blocks > 0 ? blocks : p) + " are too many");
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
  // The library model's command parses its own flags (tools/papcoll_sched_library.cpp).
  if (argc >= 2 && std::string(argv[1]) == "library") return sched_library::run(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "auto") return sched_auto::run(argc, argv);
  Args a = parse_args(argc, argv);
  if (a.command == "verify-circulant") return cmd_verify_circulant(a);
  if (a.command == "bench circulant") return cmd_bench_circulant(a);
  if (a.command == "bench clairvoyant") return cmd_bench_clairvoyant(a);
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
