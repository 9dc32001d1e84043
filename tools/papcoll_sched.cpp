// papcoll-sched: print, verify and cost schedules without MPI. See docs/papcoll-sched.md.
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "schedule/registry.hpp"
#include "schedule/schedule_io.hpp"
#include "verify/cost_model.hpp"
#include "verify/verifier.hpp"

using namespace papcoll;

namespace {

const char* kUsage =
    "usage: papcoll-sched list\n"
    "       papcoll-sched show   ALGO --p P [--blocks B] [--root R] [--arrivals a0,a1,...]\n"
    "                            [--tau T] [--collective C] [--format json|text]\n"
    "       papcoll-sched verify ALGO --p P|P1..P2 [--blocks B|B1..B2] [--root R]\n"
    "                            [--arrivals ...] [--random-arrivals N] [--seed S]\n"
    "       papcoll-sched cost   ALGO --p P --bytes M --alpha A --beta B [--gamma G]\n"
    "                            [--blocks B] [--arrivals ...] [--tau T] [--format json|text]\n"
    "ALGO may be 'all' for verify. Arrival times are seconds.\n";

[[noreturn]] void usage_error(const std::string& why) {
  std::cerr << "papcoll-sched: " << why << "\n" << kUsage;
  std::exit(2);
}

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
                                "--gamma", "--random-arrivals", "--seed"};
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

Collective collective_of(const Args& a) {
  Collective c = Collective::allreduce;
  if (a.has("--collective") && !parse_collective(a.get("--collective"), &c))
    usage_error("unknown collective '" + a.get("--collective") + "'");
  return c;
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

// Generator input from the common flags; the cost flags also drive PRR's tau unless --tau is set.
GeneratorInput input_of(const Args& a, const AlgorithmInfo& info, int p, int blocks) {
  GeneratorInput in;
  in.p = p;
  in.blocks = blocks > 0 ? blocks : info.default_blocks(p);
  in.root = a.has("--root") ? parse_range("--root", a.get("--root")).lo : -1;
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
  if (a.has("--bytes")) in.bytes = parse_double("--bytes", a.get("--bytes"));
  if (a.has("--tau")) {
    in.cost = CostParams{parse_double("--tau", a.get("--tau")), 0, 0};
  }
  return in;
}

int cmd_list() {
  for (const AlgorithmInfo& a : all_algorithms())
    std::cout << collective_name(a.collective) << ' ' << a.name << "  " << a.summary << '\n';
  return 0;
}

int cmd_show(const Args& a) {
  const Collective c = collective_of(a);
  const AlgorithmInfo& info = algorithm_of(a, c);
  if (!a.has("--p")) usage_error("show needs --p");
  const int p = parse_range("--p", a.get("--p")).lo;
  if (p < 1) usage_error("--p must be at least 1");
  const int blocks = a.has("--blocks") ? parse_range("--blocks", a.get("--blocks")).lo : 0;
  const Schedule s = info.generate(input_of(a, info, p, blocks));
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
  const Range pr = parse_range("--p", a.get("--p"));
  if (pr.lo < 1) usage_error("--p must be at least 1");
  const bool blocks_given = a.has("--blocks");
  const Range br = blocks_given ? parse_range("--blocks", a.get("--blocks")) : Range{0, 0};
  const int random_n = a.has("--random-arrivals")
                           ? parse_range("--random-arrivals", a.get("--random-arrivals")).lo
                           : 0;
  std::mt19937_64 rng(a.has("--seed") ? std::stoull(a.get("--seed")) : 1);
  long checked = 0;
  for (const AlgorithmInfo* info : algos)
    for (int p = pr.lo; p <= pr.hi; ++p)
      for (int b = br.lo; b <= br.hi; ++b) {
        if (blocks_given && b < 1) usage_error("--blocks must be at least 1");
        for (int k = 0; k <= random_n; ++k) {
          GeneratorInput in = input_of(a, *info, p, b);
          if (k > 0) {  // random arrival pattern, in units of the algorithm's round time
            const double tau = block_round_time(in);
            std::uniform_real_distribution<double> d(0, 3.0 * p * tau);
            in.arrivals.assign(static_cast<size_t>(p), 0.0);
            for (double& x : in.arrivals) x = (rng() % 3 == 0) ? 0.0 : d(rng);
          } else if (!a.has("--arrivals")) {
            in.arrivals.clear();
          }
          const VerifyResult v = verify_schedule(info->generate(in));
          ++checked;
          if (!v.ok) {
            std::cerr << "FAIL " << info->name << " p=" << p << " blocks=" << in.blocks << ": "
                      << v.error << '\n';
            return 1;
          }
        }
      }
  std::cout << "ok: " << checked << " schedule(s) verified\n";
  return 0;
}

int cmd_cost(const Args& a) {
  const Collective c = collective_of(a);
  const AlgorithmInfo& info = algorithm_of(a, c);
  for (const char* f : {"--p", "--bytes", "--alpha", "--beta"})
    if (!a.has(f)) usage_error(std::string("cost needs ") + f);
  const int p = parse_range("--p", a.get("--p")).lo;
  if (p < 1) usage_error("--p must be at least 1");
  const int blocks = a.has("--blocks") ? parse_range("--blocks", a.get("--blocks")).lo : 0;
  const GeneratorInput in = input_of(a, info, p, blocks);
  CostParams cost{parse_double("--alpha", a.get("--alpha")),
                  parse_double("--beta", a.get("--beta")),
                  a.has("--gamma") ? parse_double("--gamma", a.get("--gamma")) : 0.0};
  const double bytes = parse_double("--bytes", a.get("--bytes"));
  if (bytes < 0) usage_error("--bytes must not be negative");
  const Schedule s = info.generate(in);
  const VerifyResult v = verify_schedule(s);
  if (!v.ok) {
    std::cerr << "papcoll-sched: schedule does not verify: " << v.error << '\n';
    return 1;
  }
  const CostResult r = evaluate_cost(s, in.arrivals, cost, static_cast<int64_t>(bytes));
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
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  if (a.command == "list") return cmd_list();
  if (a.command == "show") return cmd_show(a);
  if (a.command == "verify") return cmd_verify(a);
  if (a.command == "cost") return cmd_cost(a);
  usage_error("unknown command '" + a.command + "'");
}
