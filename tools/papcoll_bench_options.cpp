#include "papcoll_bench_options.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace papcoll_bench {

const char* const kUsage =
    "usage: mpirun ... papcoll-bench [options]\n"
    "Imbalanced-arrival benchmark of Proficz (allreduce-slt-prr, Fig. 9).\n"
    "  --op allreduce          collective to measure (default allreduce)\n"
    "  --algo A,B,...          algorithms: any name papcoll accepts for the op, plus 'native'\n"
    "                          (MPI_Allreduce directly); default\n"
    "                          ring,rabenseifner,recursive-doubling,linear,slt,prr,native\n"
    "  --size N[,N...]         elements per rank; suffix K/M/G = 1024^1/2/3 (default 1M)\n"
    "  --dtype float|double|int|long   element type (default float); the op is MPI_SUM\n"
    "  --iters N               measured iterations (default 32)\n"
    "  --warmup N              discarded iterations before them (default 3)\n"
    "  --mode none|one-late|rand-late  delay mode (default one-late)\n"
    "  --max-delay MS[,MS...]  maximal delay in ms (default 20)\n"
    "  --compute-ms MS         base of the emulated computation (paper: 100; default 10)\n"
    "  --pat oracle|none       pass the injected arrival times to papcoll, or none\n"
    "                          (default oracle)\n"
    "  --blocks B              blocks per buffer, 0 = algorithm default (default 0)\n"
    "  --seed S                seed of the data and of the shared random delays (default 1)\n"
    "  --json FILE             also write the results as JSON to FILE (rank 0)\n"
    "  --quiet                 no progress lines on stderr\n"
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

const char* delay_mode_name(DelayMode m) {
  switch (m) {
    case DelayMode::none: return "none";
    case DelayMode::one_late: return "one-late";
    case DelayMode::rand_late: return "rand-late";
  }
  return "?";
}

const char* pat_mode_name(PatMode m) { return m == PatMode::oracle ? "oracle" : "none"; }

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
      "--compute-ms", "--pat", "--blocks", "--seed", "--json"};
  std::vector<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") return ParseResult{ParseResult::help, ""};
    if (flag == "--quiet") {
      out.quiet = true;
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
    if (std::find(seen.begin(), seen.end(), flag) != seen.end())
      return fail("option " + flag + " given twice (use a comma list for a sweep)");
    seen.push_back(flag);

    long long n = 0;
    if (flag == "--op") {
      if (value != "allreduce") return fail("--op: unknown operation '" + value + "' (known: allreduce)");
      out.op = value;
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
    } else if (flag == "--mode") {
      if (value == "none") out.mode = DelayMode::none;
      else if (value == "one-late") out.mode = DelayMode::one_late;
      else if (value == "rand-late") out.mode = DelayMode::rand_late;
      else return fail("--mode: '" + value + "' is not one of none, one-late, rand-late");
    } else if (flag == "--max-delay") {
      out.max_delays_ms.clear();
      for (const std::string& s : split_commas(value)) {
        double ms = 0;
        if (!parse_ms(s, &ms))
          return fail("--max-delay: '" + s + "' is not a number of milliseconds >= 0");
        out.max_delays_ms.push_back(ms);
      }
    } else if (flag == "--compute-ms") {
      if (!parse_ms(value, &out.compute_ms))
        return fail("--compute-ms: '" + value + "' is not a number of milliseconds >= 0");
    } else if (flag == "--pat") {
      if (value == "oracle") out.pat = PatMode::oracle;
      else if (value == "none") out.pat = PatMode::none;
      else return fail("--pat: '" + value + "' is not one of oracle, none");
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
    }
  }
  return ParseResult{};
}

std::string validate_algorithms(const BenchOptions& opt,
                                const std::vector<std::string>& accepted) {
  for (const std::string& a : opt.algorithms) {
    if (std::find(accepted.begin(), accepted.end(), a) != accepted.end()) continue;
    std::string names;
    for (const std::string& x : accepted) names += (names.empty() ? "" : ", ") + x;
    return "--algo: unknown " + opt.op + " algorithm '" + a + "' (known: " + names + ")";
  }
  return "";
}

}  // namespace papcoll_bench
