#include "papcoll_bench_options.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli11.hpp"
#include "cli_common.hpp"

namespace papcoll_bench {

namespace {

// Digits only, in [lo, hi].
bool parse_count(const std::string& s, long long lo, long long hi, long long* out) {
  return !s.empty() && s[0] != '-' && papcoll_cli::parse_integer(s, lo, hi, out);
}

// A plain decimal number >= 0 (digits and a point), at most 3.6e6.
bool parse_plain_number(const std::string& s, double* out) {
  if (s.empty() || s.find_first_not_of("0123456789.") != std::string::npos) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v) || v < 0 || v > 3.6e6) return false;
  *out = v;
  return true;
}

// A duration in ms: a plain number is milliseconds (as --max-delay always took); "ns", "us",
// "ms" and "s" name the unit. At most one hour.
bool parse_duration_ms(const std::string& s, double* out) {
  double seconds = 0;
  if (!papcoll_cli::parse_duration_s(s, 1e-3, &seconds)) return false;
  const double ms = seconds * 1e3;
  if (!(ms >= 0) || ms > 3.6e6) return false;
  *out = ms;
  return true;
}

// "k-late:3" -> 3. The count of late ranks, at least 1 (K < p is checked once p is known).
bool parse_late_count(const std::string& s, int* out) {
  long long k = 0;
  if (!parse_count(s, 1, 1000000, &k)) return false;
  *out = static_cast<int>(k);
  return true;
}

// One --size item: elements (N, or NK, NM, NG: times 1024^1/2/3, as always) or bytes (NB, NKiB,
// NMiB, NGiB), which become elements once --dtype is known.
struct SizeArg {
  long long n = 0;
  bool bytes = false;
};

bool parse_size_arg(const std::string& s, SizeArg* out) {
  if (s.empty()) return false;
  if (s.back() == 'B') {
    out->bytes = true;
    return papcoll_cli::parse_bytes(s, LLONG_MAX, &out->n);
  }
  long long mult = 1;
  std::string digits = s;
  switch (s.back()) {
    case 'K':
    case 'k': mult = 1LL << 10; break;
    case 'M':
    case 'm': mult = 1LL << 20; break;
    case 'G':
    case 'g': mult = 1LL << 30; break;
    default: break;
  }
  if (mult != 1) digits.pop_back();
  long long n = 0;
  if (!parse_count(digits, 0, LLONG_MAX / mult, &n) || n * mult > INT_MAX) return false;
  out->n = n * mult;
  out->bytes = false;
  return true;
}

// "" and the element count, or the problem.
std::string size_in_elements(const SizeArg& a, Dtype d, long long* out) {
  if (!a.bytes) {
    *out = a.n;
    return "";
  }
  const int size = dtype_size(d);
  const std::string what = a.n > 0 && a.n % 1024 == 0
                               ? format_count(a.n) + "iB (" + std::to_string(a.n) + " bytes)"
                               : std::to_string(a.n) + "B";
  if (a.n % size != 0)
    return what + " is not a whole number of " + dtype_name(d) + " elements (" +
           std::to_string(size) + " bytes each)";
  if (a.n / size > INT_MAX)
    return what + " is more than " + std::to_string(INT_MAX) + " " + dtype_name(d) +
           " elements (MPI counts are int)";
  *out = a.n / size;
  return "";
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

std::vector<std::string> split_commas(const std::string& s) { return papcoll_cli::split_commas(s); }

std::string format_count(long long n) {
  if (n > 0 && n % (1LL << 30) == 0) return std::to_string(n >> 30) + "G";
  if (n > 0 && n % (1LL << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n > 0 && n % (1LL << 10) == 0) return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

// The command line of papcoll-bench, parsed with CLI11 (tools/cli_common.hpp). Every option's
// value is checked by its own function, whose message names the option.
ParseResult parse_bench_options(int argc, const char* const* argv, BenchOptions& out) {
  using papcoll_cli::add_checked;
  CLI::App app{"", "papcoll-bench"};
  papcoll_cli::configure(
      app,
      "Imbalanced-arrival benchmark of Proficz (allreduce-slt-prr, Fig. 9): every rank emulates "
      "a computation phase of its own length, then calls the collective. Run it under mpirun: "
      "mpirun ... papcoll-bench [OPTIONS]",
      "Sizes: N elements, with K/M/G = 1024^1/2/3 elements, or bytes with B/KiB/MiB/GiB (4MiB: 1M "
      "floats). Durations: 200us, 20ms, 0.5s (a plain number is milliseconds).\n"
      "Exit status: 0 ok, 1 a result was incorrect or papcoll returned an error, 2 bad usage.\n"
      "docs/papcoll-bench.md");
  std::vector<SizeArg> sizes;  // resolved to elements once --dtype is known
  bool sizes_given = false;

  // --- what to measure -----------------------------------------------------------------------
  add_checked(
      app, "--op",
      [&](const std::string& v) -> std::string {
        if (v.empty()) return "needs a value";
        out.op = v;  // checked against the table of op runners by main
        return "";
      },
      "collective to measure: allreduce, reduce, bcast, allgatherv, scatterv, gatherv "
      "(reduce, bcast, scatterv, gatherv: root 0; default allreduce)",
      "NAME")
      ->group("What to measure");
  add_checked(
      app, "--algo",
      [&](const std::string& v) -> std::string {
        out.algorithms.clear();
        for (const std::string& a : papcoll_cli::split_commas(v)) {
          if (a.empty()) return "empty algorithm name in '" + v + "'";
          if (std::find(out.algorithms.begin(), out.algorithms.end(), a) != out.algorithms.end())
            return "algorithm '" + a + "' listed twice";
          out.algorithms.push_back(a);
        }
        return "";
      },
      "algorithms: any name papcoll accepts for the op, 'auto', and 'native' (the MPI "
      "library's collective directly); 'all' is every one of them. Defaults:\n"
      "allreduce ring,rabenseifner,recursive-doubling,linear,slt,prr,native\n"
      "reduce clairvoyant,binomial,rabenseifner,radix-k,ring,native\n"
      "bcast circulant,binomial,scatter-allgather,chain,native\n"
      "allgatherv circulant,ring,bruck,linear,auto,native\n"
      "scatterv, gatherv linear,binomial,binomial-minfirst,binomial-maxfirst,\n"
      "traff,traff-model,auto,native",
      "A,B,...|all")
      ->group("What to measure");
  add_checked(
      app, "--size",
      [&](const std::string& v) -> std::string {
        sizes.clear();
        sizes_given = true;
        for (const std::string& s : papcoll_cli::split_commas(v)) {
          SizeArg a;
          if (!parse_size_arg(s, &a))
            return "'" + s + "' is not an element count (N, NK, NM or NG, at most " +
                   std::to_string(INT_MAX) + ") or a byte count (NB, NKiB, NMiB, NGiB)";
          sizes.push_back(a);
        }
        return "";
      },
      "elements per rank (allgatherv, scatterv, gatherv: in all); K/M/G = 1024^1/2/3 "
      "elements, or bytes: 4MiB (default 1M)",
      "N[,N...]")
      ->group("What to measure");
  add_checked(
      app, "--dtype",
      [&](const std::string& v) -> std::string {
        if (v == "float")
          out.dtype = Dtype::float32;
        else if (v == "double")
          out.dtype = Dtype::float64;
        else if (v == "int")
          out.dtype = Dtype::int32;
        else if (v == "long")
          out.dtype = Dtype::int64;
        else
          return "'" + v + "' is not one of float, double, int, long";
        return "";
      },
      "element type (default float); the op is MPI_SUM", "float|double|int|long")
      ->group("What to measure");
  add_checked(
      app, "--shape",
      [&](const std::string& v) -> std::string {
        if (v == "regular")
          out.shape = Shape::regular;
        else if (v == "irregular")
          out.shape = Shape::irregular;
        else if (v == "degenerate")
          out.shape = Shape::degenerate;
        else
          return "'" + v + "' is not one of regular, irregular, degenerate";
        return "";
      },
      "allgatherv contributions: equal, rank i in proportion to i, or rank 0 "
      "everything (default regular)",
      "regular|irregular|degenerate")
      ->group("What to measure");
  add_checked(
      app, "--counts-dist",
      [&](const std::string& v) -> std::string {
        const std::string bad =
            "'" + v +
            "' is not one of equal, cpu-speed, cpu-speed:measure, ratio:R (R a number >= 1)";
        if (v == "equal")
          out.counts_dist = CountsDist::equal;
        else if (v == "cpu-speed")
          out.counts_dist = CountsDist::cpu_speed;
        else if (v == "cpu-speed:measure")
          out.counts_dist = CountsDist::cpu_speed_measured;
        else if (v.rfind("ratio:", 0) == 0) {
          double r = 0;
          if (!parse_plain_number(v.substr(6), &r) || !(r >= 1)) return bad;
          out.counts_dist = CountsDist::ratio;
          out.counts_ratio = r;
        } else
          return bad;
        return "";
      },
      "scatterv/gatherv portions: equal; in proportion to CPU speeds (seeded "
      "stand-ins in [1,4), or :measure with a trivial CPU benchmark per rank, as in "
      "Dichev et al.); ratio:R geometric, largest/smallest = R (default equal)",
      "equal|cpu-speed|cpu-speed:measure|ratio:R")
      ->group("What to measure");
  add_checked(
      app, "--model",
      [&](const std::string& v) -> std::string {
        if (v.empty()) return "needs a file name";
        out.model_path = v;
        return "";
      },
      "link model file for the model-based scatterv/gatherv trees "
      "(papcoll_options.model_file; default: papcoll's alpha, beta)",
      "FILE")
      ->group("What to measure");
  for (const char* flag : {"--alpha", "--beta", "--gamma"}) {
    double* target = flag[2] == 'a' ? &out.alpha : flag[2] == 'b' ? &out.beta : &out.gamma;
    add_checked(
        app, flag,
        [target](const std::string& v) -> std::string {
          char* end = nullptr;
          const double x = std::strtod(v.c_str(), &end);
          if (v.empty() || *end != '\0' || !(x >= 0) || !std::isfinite(x))
            return "'" + v + "' is not a number >= 0";
          *target = x;
          return "";
        },
        flag[2] == 'a'   ? "papcoll_options.alpha: seconds per message (0 = papcoll's)"
        : flag[2] == 'b' ? "papcoll_options.beta: seconds per byte sent (0 = papcoll's)"
                         : "papcoll_options.gamma: seconds per byte reduced (0 = papcoll's)",
        flag[2] == 'a' ? "S" : "S/B")
        ->group("What to measure");
  }
  add_checked(
      app, "--blocks",
      [&](const std::string& v) -> std::string {
        long long n = 0;
        if (!parse_count(v, 0, INT_MAX, &n)) return "'" + v + "' is not an integer >= 0";
        out.blocks = static_cast<int>(n);
        return "";
      },
      "blocks per buffer (allgatherv: per rank), 0 = algorithm default (default 0)", "B")
      ->group("What to measure");

  // --- iterations and delays -----------------------------------------------------------------
  add_checked(
      app, "--iters",
      [&](const std::string& v) -> std::string {
        long long n = 0;
        if (!parse_count(v, 1, 1000000, &n)) return "'" + v + "' is not an integer in 1..1000000";
        out.iters = static_cast<int>(n);
        return "";
      },
      "measured iterations (default 32)", "N")
      ->group("Iterations and delays");
  add_checked(
      app, "--warmup",
      [&](const std::string& v) -> std::string {
        long long n = 0;
        if (!parse_count(v, 0, 1000000, &n)) return "'" + v + "' is not an integer in 0..1000000";
        out.warmup = static_cast<int>(n);
        return "";
      },
      "discarded iterations before them (default 3)", "N")
      ->group("Iterations and delays");
  add_checked(
      app, "--mode",
      [&](const std::string& v) -> std::string {
        if (v == "none")
          out.mode = DelayMode::none;
        else if (v == "one-late")
          out.mode = DelayMode::one_late;
        else if (v == "rand-late")
          out.mode = DelayMode::rand_late;
        else if (v.rfind("k-late:", 0) == 0 && parse_late_count(v.substr(7), &out.late_count))
          out.mode = DelayMode::k_late;
        else if (v.rfind("staggered:", 0) == 0 && parse_late_count(v.substr(10), &out.late_count))
          out.mode = DelayMode::staggered;
        else
          return "'" + v +
                 "' is not one of none, one-late, rand-late, k-late:K, staggered:K (K an "
                 "integer >= 1, the number of late ranks)";
        return "";
      },
      "delay mode: none, one-late, rand-late, k-late:K (K ranks late by the max "
      "delay), staggered:K (K ranks late by max/K, 2max/K, ..., max); K < p "
      "(default one-late)",
      "M")
      ->group("Iterations and delays");
  add_checked(
      app, "--max-delay",
      [&](const std::string& v) -> std::string {
        out.max_delays_ms.clear();
        for (const std::string& s : papcoll_cli::split_commas(v)) {
          double ms = 0;
          if (!parse_duration_ms(s, &ms))
            return "'" + s +
                   "' is not a duration >= 0 (ms, or with a unit: 200us, 20ms, 0.5s; at "
                   "most 1 hour)";
          out.max_delays_ms.push_back(ms);
        }
        return "";
      },
      "maximal delay: a number of ms, or with a unit: 200us, 20ms, 0.5s\n(default 20)", "D[,D...]")
      ->group("Iterations and delays");
  add_checked(
      app, "--compute-ms",
      [&](const std::string& v) -> std::string {
        if (!parse_duration_ms(v, &out.compute_ms))
          return "'" + v +
                 "' is not a duration >= 0 (ms, or with a unit: 200us, 20ms, 0.5s; at "
                 "most 1 hour)";
        return "";
      },
      "base of the emulated computation, ms or with a unit (paper: 100;\ndefault 10)", "D")
      ->group("Iterations and delays");
  add_checked(
      app, "--seed",
      [&](const std::string& v) -> std::string {
        if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
          return "'" + v + "' is not a non-negative integer";
        errno = 0;
        const unsigned long long s = std::strtoull(v.c_str(), nullptr, 10);
        if (errno != 0) return "'" + v + "' is out of range";
        out.seed = s;
        return "";
      },
      "seed of the data and of the shared random delays (default 1)", "S")
      ->group("Iterations and delays");

  // --- arrival patterns ----------------------------------------------------------------------
  add_checked(
      app, "--pat",
      [&](const std::string& v) -> std::string {
        out.pats.clear();
        for (const std::string& x : papcoll_cli::split_commas(v)) {
          PatMode m;
          if (x == "oracle")
            m = PatMode::oracle;
          else if (x == "monitor")
            m = PatMode::monitor;
          else if (x == "history")
            m = PatMode::history;
          else if (x == "none")
            m = PatMode::none;
          else
            return "'" + x + "' is not one of oracle, monitor, history, none";
          if (std::find(out.pats.begin(), out.pats.end(), m) != out.pats.end())
            return "'" + x + "' listed twice";
          out.pats.push_back(m);
        }
        return "";
      },
      "arrival pattern papcoll gets (default oracle): oracle (the injected "
      "times), monitor (progress-monitor thread, begin + edge(0.5) as in Fig. 9; "
      "needs MPI_THREAD_MULTIPLE), history (predicted from earlier iterations, "
      "no thread), none. A list runs every algorithm with each, interleaved",
      "P[,P...]")
      ->group("Arrival patterns");
  add_checked(
      app, "--predictor",
      [&](const std::string& v) -> std::string {
        if (v == "last")
          out.predictor = Predictor::last;
        else if (v == "sma")
          out.predictor = Predictor::sma;
        else if (v == "ema")
          out.predictor = Predictor::ema;
        else
          return "'" + v + "' is not one of last, sma, ema";
        return "";
      },
      "history predictor (default sma)", "last|sma|ema")
      ->group("Arrival patterns");
  add_checked(
      app, "--window",
      [&](const std::string& v) -> std::string {
        long long n = 0;
        if (!parse_count(v, 1, 1024, &n)) return "'" + v + "' is not an integer in 1..1024";
        out.window = static_cast<int>(n);
        return "";
      },
      "SMA window (default 4)", "K")
      ->group("Arrival patterns");
  add_checked(
      app, "--ema-alpha",
      [&](const std::string& v) -> std::string {
        double a = 0;
        if (!parse_plain_number(v, &a) || !(a > 0 && a <= 1))
          return "'" + v + "' is not a number in (0, 1]";
        out.ema_alpha = a;
        return "";
      },
      "EMA weight of the newest pattern, (0,1] (default 0.5)", "A")
      ->group("Arrival patterns");
  add_checked(
      app, "--warmup-messages",
      [&](const std::string& v) -> std::string {
        long long n = 0;
        if (!parse_count(v, 0, 64, &n)) return "'" + v + "' is not an integer in 0..64";
        out.warmup_messages = static_cast<int>(n);
        return "";
      },
      "monitor: warm-up messages to each ring neighbour after the exchange, "
      "0..64 (default 1)",
      "N")
      ->group("Arrival patterns");
  papcoll_cli::add_flag(app, "--oracle-with-monitor", out.oracle_with_monitor,
                        "oracle runs also run the monitor (begin, edge, its thread) with the "
                        "oracle's pattern taking precedence: separates the monitor's side "
                        "effects from its prediction")
      ->group("Arrival patterns");

  // --- output --------------------------------------------------------------------------------
  add_checked(
      app, "--json",
      [&](const std::string& v) -> std::string {
        if (v.empty()) return "needs a file name";
        out.json_path = v;
        return "";
      },
      "also write the results as JSON to FILE (rank 0)", "FILE")
      ->group("Output");
  add_checked(
      app, "--csv",
      [&](const std::string& v) -> std::string {
        if (v.empty()) return "needs a file name";
        out.csv_path = v;
        return "";
      },
      "also write one CSV row per algorithm and case to FILE (rank 0)", "FILE")
      ->group("Output");
  papcoll_cli::add_flag(app, "--quiet", out.quiet, "no progress lines on stderr")->group("Output");
  bool no_check = false;
  papcoll_cli::add_flag(app, "--no-check", no_check,
                        "timing only: no reference collective and no output check per iteration "
                        "(large simulations with folded buffers, docs/smpi.md)")
      ->group("Output");

  const papcoll_cli::Parsed parsed = papcoll_cli::parse(app, argc, argv);
  if (parsed.kind == papcoll_cli::Parsed::help) return ParseResult{ParseResult::help, parsed.text};
  if (parsed.kind == papcoll_cli::Parsed::error)
    return ParseResult{ParseResult::error, parsed.text};
  if (no_check) out.check = false;
  if (sizes_given) {
    out.sizes.clear();
    for (const SizeArg& s : sizes) {
      long long n = 0;
      if (std::string e = size_in_elements(s, out.dtype, &n); !e.empty())
        return ParseResult{ParseResult::error, "--size: " + e};
      out.sizes.push_back(n);
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
