#include "papcoll_bench_options.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace papcoll_bench {

const char* const kUsage =
    "usage: mpirun ... papcoll-bench [options]\n"
    "Imbalanced-arrival benchmark of Proficz (allreduce-slt-prr, Fig. 9).\n"
    "  --op allreduce|reduce|bcast|allgatherv|scatterv|gatherv   collective to measure\n"
    "                          (default allreduce; reduce, bcast, scatterv, gatherv: root 0)\n"
    "  --algo A,B,...|all      algorithms: any name papcoll accepts for the op, 'auto', and\n"
    "                          'native' (the MPI library's collective directly); 'all' is every\n"
    "                          one of them; default\n"
    "                          ring,rabenseifner,recursive-doubling,linear,slt,prr,native\n"
    "                          (reduce: clairvoyant,binomial,rabenseifner,radix-k,ring,native;\n"
    "                          bcast: circulant,binomial,scatter-allgather,chain,native;\n"
    "                          allgatherv: circulant,ring,bruck,linear,auto,native; scatterv,\n"
    "                          gatherv: linear,binomial,binomial-minfirst,binomial-maxfirst,\n"
    "                          traff,traff-model,auto,native)\n"
    "  --size N[,N...]         elements per rank (allgatherv, scatterv, gatherv: in all);\n"
    "                          suffix K/M/G = 1024^1/2/3 (default 1M)\n"
    "  --shape regular|irregular|degenerate   allgatherv contributions: equal, rank i in\n"
    "                          proportion to i, or rank 0 everything (default regular)\n"
    "  --counts-dist equal|cpu-speed|cpu-speed:measure|ratio:R   scatterv/gatherv portions:\n"
    "                          equal; in proportion to CPU speeds (seeded stand-ins in [1,4),\n"
    "                          or :measure with a trivial CPU benchmark per rank, as in\n"
    "                          Dichev et al.); ratio:R geometric, largest/smallest = R\n"
    "                          (default equal)\n"
    "  --alpha S, --beta S/B, --gamma S/B  papcoll_options' Hockney parameters (message latency,\n"
    "                          time per byte sent, per byte reduced; 0 = papcoll's defaults)\n"
    "  --model FILE            link model file for the model-based scatterv/gatherv trees\n"
    "                          (papcoll_options.model_file; default: papcoll's alpha, beta)\n"
    "  --dtype float|double|int|long   element type (default float); the op is MPI_SUM\n"
    "  --iters N               measured iterations (default 32)\n"
    "  --warmup N              discarded iterations before them (default 3)\n"
    "  --mode M                delay mode: none, one-late, rand-late, k-late:K (K ranks late\n"
    "                          by the max delay), staggered:K (K ranks late by max/K, 2max/K,\n"
    "                          ..., max); K < p (default one-late)\n"
    "  --max-delay D[,D...]    maximal delay: a number of ms, or with a unit: 200us, 20ms,\n"
    "                          0.5s (default 20)\n"
    "  --compute-ms MS         base of the emulated computation (paper: 100; default 10)\n"
    "  --pat P[,P...]          arrival pattern papcoll gets (default oracle): oracle (the\n"
    "                          injected times), monitor (progress-monitor thread, begin +\n"
    "                          edge(0.5) as in Fig. 9; needs MPI_THREAD_MULTIPLE), history\n"
    "                          (predicted from earlier iterations, no thread), none. A list\n"
    "                          runs every algorithm with each, interleaved\n"
    "  --predictor last|sma|ema   history predictor (default sma)\n"
    "  --window K              SMA window (default 4)\n"
    "  --ema-alpha A           EMA weight of the newest pattern, (0,1] (default 0.5)\n"
    "  --warmup-messages N     monitor: warm-up messages to each ring neighbour after the\n"
    "                          exchange, 0..64 (default 1)\n"
    "  --oracle-with-monitor   oracle runs also run the monitor (begin, edge, its thread) with\n"
    "                          the oracle's pattern taking precedence: separates the monitor's\n"
    "                          side effects from its prediction\n"
    "  --blocks B              blocks per buffer (allgatherv: per rank), 0 = algorithm\n"
    "                          default (default 0)\n"
    "  --seed S                seed of the data and of the shared random delays (default 1)\n"
    "  --json FILE             also write the results as JSON to FILE (rank 0)\n"
    "  --csv FILE              also write one CSV row per algorithm and case to FILE (rank 0)\n"
    "  --quiet                 no progress lines on stderr\n"
    "  --no-check              timing only: no reference collective and no output check per\n"
    "                          iteration (large simulations with folded buffers, docs/smpi.md)\n"
    "  --help                  this text\n"
    "Exit status: 0 ok, 1 a result was incorrect or papcoll returned an error, 2 bad usage.\n";

namespace {

bool parse_int(const std::string& s, long long lo, long long hi, long long* out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_ms(const std::string& s, double* out) {
  if (s.empty() || s.find_first_not_of("0123456789.") != std::string::npos) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v) || v < 0 || v > 3.6e6) return false;
  *out = v;
  return true;
}

// A duration in ms: a plain number is milliseconds (as --max-delay always took); "us", "ms" and
// "s" name the unit.
bool parse_duration_ms(const std::string& s, double* out) {
  struct Unit {
    const char* suffix;
    double ms;
  };
  // "s" last: it ends the other two.
  static const Unit kUnits[] = {{"us", 1e-3}, {"ms", 1.0}, {"s", 1e3}};
  std::string number = s;
  double scale = 1.0;
  for (const Unit& u : kUnits) {
    const std::string suffix = u.suffix;
    if (s.size() > suffix.size() &&
        s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) {
      number = s.substr(0, s.size() - suffix.size());
      scale = u.ms;
      break;
    }
  }
  // Not parse_ms: its bound is in the number's own unit (5000000us is 5 s).
  if (number.empty() || number.find_first_not_of("0123456789.") != std::string::npos) return false;
  char* end = nullptr;
  const double ms = std::strtod(number.c_str(), &end) * scale;
  if (*end != '\0' || !std::isfinite(ms) || ms < 0 || ms > 3.6e6) return false;
  *out = ms;
  return true;
}

// "k-late:3" -> 3. The count of late ranks, at least 1 (K < p is checked once p is known).
bool parse_late_count(const std::string& s, int* out) {
  long long k = 0;
  if (!parse_int(s, 1, 1000000, &k)) return false;
  *out = static_cast<int>(k);
  return true;
}

bool parse_size(const std::string& s, long long* out) {
  if (s.empty()) return false;
  long long mult = 1;
  std::string digits = s;
  switch (s.back()) {
    case 'K': case 'k': mult = 1LL << 10; break;
    case 'M': case 'm': mult = 1LL << 20; break;
    case 'G': case 'g': mult = 1LL << 30; break;
    default: break;
  }
  if (mult != 1) digits.pop_back();
  long long n = 0;
  if (!parse_int(digits, 0, LLONG_MAX / mult, &n)) return false;
  n *= mult;
  if (n > INT_MAX) return false;  // papcoll and MPI take an int count
  *out = n;
  return true;
}

}  // namespace

const char* shape_name(Shape s) {
  switch (s) {
    case Shape::regular: return "regular";
    case Shape::irregular: return "irregular";
    case Shape::degenerate: return "degenerate";
  }
  return "?";
}

std::string counts_dist_label(CountsDist d, double ratio) {
  switch (d) {
    case CountsDist::equal: return "equal";
    case CountsDist::cpu_speed: return "cpu-speed";
    case CountsDist::cpu_speed_measured: return "cpu-speed:measure";
    case CountsDist::ratio: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "ratio:%g", ratio);
      return buf;
    }
  }
  return "?";
}

const char* delay_mode_name(DelayMode m) {
  switch (m) {
    case DelayMode::none: return "none";
    case DelayMode::one_late: return "one-late";
    case DelayMode::rand_late: return "rand-late";
    case DelayMode::k_late: return "k-late";
    case DelayMode::staggered: return "staggered";
  }
  return "?";
}

std::string delay_mode_label(DelayMode m, int k) {
  if (m == DelayMode::k_late || m == DelayMode::staggered)
    return std::string(delay_mode_name(m)) + ":" + std::to_string(k);
  return delay_mode_name(m);
}

const char* pat_mode_name(PatMode m) {
  switch (m) {
    case PatMode::oracle: return "oracle";
    case PatMode::monitor: return "monitor";
    case PatMode::history: return "history";
    case PatMode::none: return "none";
  }
  return "?";
}

const char* predictor_name(Predictor p) {
  switch (p) {
    case Predictor::last: return "last";
    case Predictor::sma: return "sma";
    case Predictor::ema: return "ema";
  }
  return "?";
}

std::string pats_label(const std::vector<PatMode>& pats) {
  std::string s;
  for (PatMode m : pats) s += (s.empty() ? "" : ",") + std::string(pat_mode_name(m));
  return s;
}

bool uses_monitor_thread(const BenchOptions& opt) {
  const auto has = [&](PatMode m) {
    return std::find(opt.pats.begin(), opt.pats.end(), m) != opt.pats.end();
  };
  return has(PatMode::monitor) || (opt.oracle_with_monitor && has(PatMode::oracle));
}

const char* dtype_name(Dtype d) {
  switch (d) {
    case Dtype::float32: return "float";
    case Dtype::float64: return "double";
    case Dtype::int32: return "int";
    case Dtype::int64: return "long";
  }
  return "?";
}

int dtype_size(Dtype d) {
  switch (d) {
    case Dtype::float32: return sizeof(float);
    case Dtype::float64: return sizeof(double);
    case Dtype::int32: return sizeof(int);
    case Dtype::int64: return sizeof(long);
  }
  return 0;
}

bool dtype_is_float(Dtype d) { return d == Dtype::float32 || d == Dtype::float64; }

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string format_count(long long n) {
  if (n > 0 && n % (1LL << 30) == 0) return std::to_string(n >> 30) + "G";
  if (n > 0 && n % (1LL << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n > 0 && n % (1LL << 10) == 0) return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

ParseResult parse_bench_options(int argc, const char* const* argv, BenchOptions& out) {
  auto fail = [](std::string msg) { return ParseResult{ParseResult::error, std::move(msg)}; };
  static const char* const kWithValue[] = {
      "--op", "--algo", "--size", "--dtype", "--iters", "--warmup", "--mode", "--max-delay",
      "--compute-ms", "--pat", "--blocks", "--seed", "--json", "--predictor", "--window",
      "--ema-alpha", "--warmup-messages", "--shape", "--counts-dist", "--model", "--alpha", "--beta", "--gamma",
      "--csv"};
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") return ParseResult{ParseResult::help, ""};
    if (flag == "--no-check") {
      out.check = false;
      continue;
    }
    if (flag == "--quiet") {
      out.quiet = true;
      continue;
    }
    if (flag == "--oracle-with-monitor") {
      out.oracle_with_monitor = true;
      continue;
    }
    std::string value;
    bool has_value = false;
    const auto eq = flag.find('=');
    if (flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    }
    const bool known = std::find_if(std::begin(kWithValue), std::end(kWithValue),
                                    [&](const char* k) { return flag == k; }) !=
                       std::end(kWithValue);
    if (!known) {
      if (flag.rfind("-", 0) == 0) return fail("unknown option '" + flag + "'");
      return fail("unexpected argument '" + flag + "' (options start with --)");
    }
    if (!has_value) {
      if (i + 1 >= argc) return fail("option " + flag + " needs a value");
      value = argv[++i];
    }
    // A repeated option overrides the earlier one (scripts append their caller's options).

    long long n = 0;
    if (flag == "--op") {
      if (value.empty()) return fail("--op needs a value");
      out.op = value;  // checked against the table of op runners by main
    } else if (flag == "--algo") {
      out.algorithms.clear();
      for (const std::string& a : split_commas(value)) {
        if (a.empty()) return fail("--algo: empty algorithm name in '" + value + "'");
        if (std::find(out.algorithms.begin(), out.algorithms.end(), a) != out.algorithms.end())
          return fail("--algo: algorithm '" + a + "' listed twice");
        out.algorithms.push_back(a);
      }
    } else if (flag == "--size") {
      out.sizes.clear();
      for (const std::string& s : split_commas(value)) {
        if (!parse_size(s, &n))
          return fail("--size: '" + s + "' is not an element count (N, NK, NM or NG, at most " +
                      std::to_string(INT_MAX) + ")");
        out.sizes.push_back(n);
      }
    } else if (flag == "--dtype") {
      if (value == "float") out.dtype = Dtype::float32;
      else if (value == "double") out.dtype = Dtype::float64;
      else if (value == "int") out.dtype = Dtype::int32;
      else if (value == "long") out.dtype = Dtype::int64;
      else return fail("--dtype: '" + value + "' is not one of float, double, int, long");
    } else if (flag == "--iters") {
      if (!parse_int(value, 1, 1000000, &n))
        return fail("--iters: '" + value + "' is not an integer in 1..1000000");
      out.iters = static_cast<int>(n);
    } else if (flag == "--warmup") {
      if (!parse_int(value, 0, 1000000, &n))
        return fail("--warmup: '" + value + "' is not an integer in 0..1000000");
      out.warmup = static_cast<int>(n);
    } else if (flag == "--shape") {
      if (value == "regular") out.shape = Shape::regular;
      else if (value == "irregular") out.shape = Shape::irregular;
      else if (value == "degenerate") out.shape = Shape::degenerate;
      else return fail("--shape: '" + value + "' is not one of regular, irregular, degenerate");
    } else if (flag == "--counts-dist") {
      const std::string bad = "--counts-dist: '" + value +
                              "' is not one of equal, cpu-speed, cpu-speed:measure, ratio:R "
                              "(R a number >= 1)";
      if (value == "equal") out.counts_dist = CountsDist::equal;
      else if (value == "cpu-speed") out.counts_dist = CountsDist::cpu_speed;
      else if (value == "cpu-speed:measure") out.counts_dist = CountsDist::cpu_speed_measured;
      else if (value.rfind("ratio:", 0) == 0) {
        double r = 0;
        if (!parse_ms(value.substr(6), &r) || !(r >= 1)) return fail(bad);
        out.counts_dist = CountsDist::ratio;
        out.counts_ratio = r;
      } else return fail(bad);
    } else if (flag == "--alpha" || flag == "--beta" || flag == "--gamma") {
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (value.empty() || end == nullptr || *end != '\0' || !(v >= 0) || !std::isfinite(v))
        return fail(flag + ": '" + value + "' is not a number >= 0");
      (flag == "--alpha" ? out.alpha : flag == "--beta" ? out.beta : out.gamma) = v;
    } else if (flag == "--model") {
      if (value.empty()) return fail("--model needs a file name");
      out.model_path = value;
    } else if (flag == "--mode") {
      if (value == "none") out.mode = DelayMode::none;
      else if (value == "one-late") out.mode = DelayMode::one_late;
      else if (value == "rand-late") out.mode = DelayMode::rand_late;
      else if (value.rfind("k-late:", 0) == 0 &&
               parse_late_count(value.substr(7), &out.late_count))
        out.mode = DelayMode::k_late;
      else if (value.rfind("staggered:", 0) == 0 &&
               parse_late_count(value.substr(10), &out.late_count))
        out.mode = DelayMode::staggered;
      else
        return fail("--mode: '" + value +
                    "' is not one of none, one-late, rand-late, k-late:K, staggered:K (K an "
                    "integer >= 1, the number of late ranks)");
    } else if (flag == "--max-delay") {
      out.max_delays_ms.clear();
      for (const std::string& s : split_commas(value)) {
        double ms = 0;
        if (!parse_duration_ms(s, &ms))
          return fail("--max-delay: '" + s +
                      "' is not a duration >= 0 (ms, or with a unit: 200us, 20ms, 0.5s; at "
                      "most 1 hour)");
        out.max_delays_ms.push_back(ms);
      }
    } else if (flag == "--compute-ms") {
      if (!parse_ms(value, &out.compute_ms))
        return fail("--compute-ms: '" + value + "' is not a number of milliseconds >= 0");
    } else if (flag == "--pat") {
      out.pats.clear();
      for (const std::string& v : split_commas(value)) {
        PatMode m;
        if (v == "oracle") m = PatMode::oracle;
        else if (v == "monitor") m = PatMode::monitor;
        else if (v == "history") m = PatMode::history;
        else if (v == "none") m = PatMode::none;
        else return fail("--pat: '" + v + "' is not one of oracle, monitor, history, none");
        if (std::find(out.pats.begin(), out.pats.end(), m) != out.pats.end())
          return fail("--pat: '" + v + "' listed twice");
        out.pats.push_back(m);
      }
    } else if (flag == "--predictor") {
      if (value == "last") out.predictor = Predictor::last;
      else if (value == "sma") out.predictor = Predictor::sma;
      else if (value == "ema") out.predictor = Predictor::ema;
      else return fail("--predictor: '" + value + "' is not one of last, sma, ema");
    } else if (flag == "--window") {
      if (!parse_int(value, 1, 1024, &n))
        return fail("--window: '" + value + "' is not an integer in 1..1024");
      out.window = static_cast<int>(n);
    } else if (flag == "--warmup-messages") {
      if (!parse_int(value, 0, 64, &n))
        return fail("--warmup-messages: '" + value + "' is not an integer in 0..64");
      out.warmup_messages = static_cast<int>(n);
    } else if (flag == "--ema-alpha") {
      double a = 0;
      if (!parse_ms(value, &a) || !(a > 0 && a <= 1))
        return fail("--ema-alpha: '" + value + "' is not a number in (0, 1]");
      out.ema_alpha = a;
    } else if (flag == "--blocks") {
      if (!parse_int(value, 0, INT_MAX, &n))
        return fail("--blocks: '" + value + "' is not an integer >= 0");
      out.blocks = static_cast<int>(n);
    } else if (flag == "--seed") {
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
        return fail("--seed: '" + value + "' is not a non-negative integer");
      errno = 0;
      const unsigned long long s = std::strtoull(value.c_str(), nullptr, 10);
      if (errno != 0) return fail("--seed: '" + value + "' is out of range");
      out.seed = s;
    } else if (flag == "--json") {
      if (value.empty()) return fail("--json needs a file name");
      out.json_path = value;
    } else if (flag == "--csv") {
      if (value.empty()) return fail("--csv needs a file name");
      out.csv_path = value;
    }
  }
  return ParseResult{};
}

std::string check_mode_for_ranks(const BenchOptions& opt, int p) {
  if (opt.mode != DelayMode::k_late && opt.mode != DelayMode::staggered) return "";
  if (opt.late_count < p) return "";
  return "--mode " + delay_mode_label(opt.mode, opt.late_count) +
         ": the number of late ranks must be less than the number of ranks (p = " +
         std::to_string(p) + ")";
}

std::string validate_algorithms(BenchOptions& opt, const std::vector<std::string>& accepted) {
  if (std::find(opt.algorithms.begin(), opt.algorithms.end(), "all") != opt.algorithms.end()) {
    if (opt.algorithms.size() > 1) return "--algo: 'all' takes no other names";
    // The registry's names in its order, then auto and native: the comparison's reference last.
    opt.algorithms.clear();
    for (const std::string& a : accepted)
      if (a != "auto" && a != "native") opt.algorithms.push_back(a);
    opt.algorithms.push_back("auto");
    opt.algorithms.push_back("native");
    return "";
  }
  for (const std::string& a : opt.algorithms) {
    if (std::find(accepted.begin(), accepted.end(), a) != accepted.end()) continue;
    std::string names;
    for (const std::string& x : accepted) names += (names.empty() ? "" : ", ") + x;
    return "--algo: unknown " + opt.op + " algorithm '" + a + "' (known: " + names + ")";
  }
  return "";
}

}  // namespace papcoll_bench
