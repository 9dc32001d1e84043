// papcoll-model: makes and inspects link model files (docs/model-format.md) for the model-based
// scatterv/gatherv trees. `measure` runs under mpirun and estimates every pair's Hockney
// parameters by ping-pong (papcoll_model_measure.hpp); `homogeneous` writes one alpha and beta
// for every pair; `show` validates a file and summarises it. See docs/papcoll-model.md.
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "cli11.hpp"
#include "cli_common.hpp"
#include "model/link_model_io.hpp"
#include "papcoll_model_measure.hpp"

namespace {

using papcoll::LinkModel;

const char* const kHelpHint = "(papcoll-model --help lists the commands, papcoll-model COMMAND "
                              "--help their options)";

struct Args {
  std::string command, file;
  std::map<std::string, std::string> flags;
  std::string error;
  std::string help;  // set when --help was asked: the text to print
  bool has(const std::string& f) const { return flags.count(f) > 0; }
  std::string get(const std::string& f) const {
    auto it = flags.find(f);
    return it == flags.end() ? "" : it->second;
  }
};

// The command line with CLI11 (tools/cli_common.hpp): one subcommand per command, each with its
// own options; their values are checked where they are used (measure_options, homogeneous, show).
Args parse_args(int argc, char** argv) {
  Args a;
  CLI::App app{"", "papcoll-model"};
  papcoll_cli::configure(
      app,
      "Makes and inspects link model files (docs/model-format.md) for the model-based "
      "scatterv/gatherv trees.",
      "Byte counts: 1024, 64K or 64KiB, 1M or 1MiB. Durations: 90, 90s, 1500ms (a plain number "
      "is seconds).\nFILE '-' is standard output. Exit status: 0 ok, 1 failure, 2 bad usage.\n"
      "docs/papcoll-model.md");
  CLI::App* measure = papcoll_cli::add_command(
      app, "measure",
      "under mpirun: ping-pong every pair of ranks (round-robin rounds, all ranks busy), fit t = "
      "alpha + beta * m per direction by least squares, repeat sweeps until every 95% confidence "
      "interval is within --target-ci or --budget-s is spent; rank 0 writes the model");
  papcoll_cli::add_kept(*measure, "--out", a.flags, "where rank 0 writes the model (required)",
                        "FILE");
  papcoll_cli::add_kept(*measure, "--sizes", a.flags,
                        "ping-pong sizes in bytes (default 1,1K,16K,64K,256K); at least two "
                        "different",
                        "M1,M2,...");
  papcoll_cli::add_kept(*measure, "--reps", a.flags,
                        "round trips per point, their median (default 7)", "N");
  papcoll_cli::add_kept(*measure, "--budget-s", a.flags,
                        "no sweep starts that would end after this many seconds (default 60)", "S");
  papcoll_cli::add_kept(*measure, "--target-ci", a.flags,
                        "stop once every 95% CI half-width is at most X times its estimate "
                        "(default 0.05)",
                        "X");
  papcoll_cli::add_kept(*measure, "--min-sweeps", a.flags, "at least this many sweeps (default 2)",
                        "N");
  papcoll_cli::add_kept(*measure, "--max-sweeps", a.flags, "at most this many sweeps (default 100)",
                        "N");
  CLI::App* homogeneous = papcoll_cli::add_command(
      app, "homogeneous", "one alpha (s) and beta (s/byte) for every pair of P ranks");
  papcoll_cli::add_kept(*homogeneous, "--p", a.flags, "ranks, 1..65536 (required)", "P");
  papcoll_cli::add_kept(*homogeneous, "--alpha", a.flags, "latency, seconds (required)", "A");
  papcoll_cli::add_kept(*homogeneous, "--beta", a.flags, "seconds per byte (required)", "B");
  papcoll_cli::add_kept(*homogeneous, "--out", a.flags, "the model file to write (required)",
                        "FILE");
  CLI::App* show = papcoll_cli::add_command(
      app, "show", "read and validate FILE (with --p: for exactly P ranks) and summarise it");
  show->add_option("FILE", a.file, "the model file");
  papcoll_cli::add_kept(*show, "--p", a.flags, "the ranks the model must be for, 1..65536", "P");

  // The command comes first (anything else there is not a command, as it always was).
  static const char* const kCommands[] = {"measure", "homogeneous", "show"};
  const std::string first = argc >= 2 ? argv[1] : "";
  const bool help = first == "--help" || first == "-h" || first == "help";
  if (argc < 2) {
    a.error = "missing command";
    return a;
  }
  if (!help &&
      std::find(std::begin(kCommands), std::end(kCommands), first) == std::end(kCommands)) {
    a.error = "unknown command '" + first + "'";
    return a;
  }
  a.command = first;
  if (help) {
    a.help = app.help();
    return a;
  }
  const papcoll_cli::Parsed parsed = papcoll_cli::parse(app, argc, argv);
  if (parsed.kind == papcoll_cli::Parsed::help) a.help = parsed.text;
  if (parsed.kind == papcoll_cli::Parsed::error) a.error = parsed.text;
  return a;
}

bool parse_long(const std::string& s, long long lo, long long hi, long long* out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), nullptr, 10);
  if (errno != 0 || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_double(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

// Checks the measure options; "" or the problem.
std::string measure_options(const Args& a, papcoll_model::MeasureOptions* o) {
  if (!a.has("--out")) return "measure needs --out FILE";
  long long n = 0;
  if (a.has("--sizes")) {
    o->sizes.clear();
    std::stringstream list(a.get("--sizes"));
    for (std::string item; std::getline(list, item, ',');) {
      if (!papcoll_cli::parse_bytes(item, INT_MAX, &n))
        return "--sizes: '" + item + "' is not a byte count (N, NK or NKiB, NM or NMiB)";
      o->sizes.push_back(n);
    }
    std::vector<long long> distinct = o->sizes;
    std::sort(distinct.begin(), distinct.end());
    if (std::unique(distinct.begin(), distinct.end()) - distinct.begin() < 2)
      return "--sizes needs at least two different sizes (a line through one point is not "
             "determined)";
  }
  if (a.has("--reps")) {
    if (!parse_long(a.get("--reps"), 1, 100000, &n)) return "--reps: an integer in 1..100000";
    o->reps = static_cast<int>(n);
  }
  if (a.has("--min-sweeps")) {
    if (!parse_long(a.get("--min-sweeps"), 1, 1000000, &n)) return "--min-sweeps: an integer >= 1";
    o->min_sweeps = static_cast<int>(n);
  }
  if (a.has("--max-sweeps")) {
    if (!parse_long(a.get("--max-sweeps"), 1, 1000000, &n)) return "--max-sweeps: an integer >= 1";
    o->max_sweeps = static_cast<int>(n);
  }
  if (o->min_sweeps > o->max_sweeps) return "--min-sweeps is above --max-sweeps";
  if (a.has("--budget-s") && !papcoll_cli::parse_duration_s(a.get("--budget-s"), 1.0, &o->budget_s))
    return "--budget-s: seconds >= 0 (90, or with a unit: 90s, 1500ms)";
  if (a.has("--target-ci") &&
      (!parse_double(a.get("--target-ci"), &o->target_ci) || !(o->target_ci > 0)))
    return "--target-ci: a number > 0 (relative half-width, e.g. 0.05)";
  return "";
}

// Writes `text` to `path` ('-': standard output); false if that failed.
bool write_text(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return static_cast<bool>(std::cout.flush());
  }
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

// The model file with `comments` after the header line.
std::string model_text(const LinkModel& m, const std::string& comments) {
  std::ostringstream s;
  papcoll::write_link_model(s, m);
  std::string text = s.str();
  text.insert(text.find('\n') + 1, comments);
  return text;
}

std::string format_g(double v, int digits = 3) {
  std::ostringstream s;
  s << std::setprecision(digits) << v;
  return s.str();
}

int measure(int argc, char** argv, const Args& a) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  auto finish = [](int code) {
    MPI_Finalize();
    return code;
  };
  papcoll_model::MeasureOptions o;
  if (const std::string e = measure_options(a, &o); !e.empty()) {
    if (rank == 0) std::cerr << "papcoll-model: " << e << "\n" << kHelpHint << "\n";
    return finish(2);
  }
  const std::string out_path = a.get("--out");
  int writable = 1;
  if (rank == 0 && out_path != "-") writable = std::ofstream(out_path, std::ios::app).good();
  MPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!writable) {
    if (rank == 0) std::cerr << "papcoll-model: cannot write '" << out_path << "'\n";
    return finish(1);
  }
  papcoll_model::MeasureResult r;
  const std::string error = papcoll_model::measure_link_model(MPI_COMM_WORLD, o, &r);
  int code = error.empty() ? 0 : 1;
  if (rank == 0 && !error.empty()) std::cerr << "papcoll-model: measure: " << error << "\n";
  if (rank == 0 && error.empty()) {
    std::string sizes;
    for (long long m : o.sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(m);
    std::ostringstream c;
    c << "# measured by papcoll-model measure (docs/papcoll-model.md): p=" << p
      << ", ping-pong sizes " << sizes << " bytes, median of " << o.reps
      << " round trips per point, " << r.sweeps << " sweeps in " << format_g(r.seconds) << " s\n"
      << "# alpha: half the round-trip latency of the pair (a round trip cannot split it between\n"
      << "# the directions); beta: each direction's own least-squares slope\n"
      << "# worst relative 95% CI half-width: alpha " << format_g(r.worst_alpha_ci) << ", beta "
      << format_g(r.worst_beta_ci) << " (target " << format_g(o.target_ci) << ": "
      << (r.converged ? "reached" : "NOT reached") << ")\n";
    if (r.clamped > 0) c << "# " << r.clamped << " negative estimates written as 0\n";
    if (!write_text(out_path, model_text(*r.model, c.str()))) {
      std::cerr << "papcoll-model: writing '" << out_path << "' failed\n";
      code = 1;
    } else if (out_path != "-") {
      std::cout << "papcoll-model: wrote " << out_path << ": p=" << p << ", " << r.sweeps
                << " sweeps in " << format_g(r.seconds) << " s, worst relative 95% CI alpha "
                << format_g(r.worst_alpha_ci) << " beta " << format_g(r.worst_beta_ci)
                << (r.converged ? "" : " (target not reached: raise --budget-s or --reps)")
                << (r.clamped > 0
                        ? ", " + std::to_string(r.clamped) + " negative estimates set to 0"
                        : "")
                << "\n";
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return finish(code);
}

int homogeneous(const Args& a) {
  long long p = 0;
  double alpha = 0, beta = 0;
  if (!a.has("--out") || !a.has("--p") || !a.has("--alpha") || !a.has("--beta")) {
    std::cerr << "papcoll-model: homogeneous needs --p, --alpha, --beta and --out\n"
              << kHelpHint << "\n";
    return 2;
  }
  if (!parse_long(a.get("--p"), 1, 1 << 16, &p)) {
    std::cerr << "papcoll-model: --p: an integer in 1..65536\n";
    return 2;
  }
  if (!parse_double(a.get("--alpha"), &alpha) || !parse_double(a.get("--beta"), &beta)) {
    std::cerr << "papcoll-model: --alpha and --beta must be finite numbers\n";
    return 2;
  }
  const papcoll::LinkModelResult r = LinkModel::homogeneous(static_cast<int>(p), alpha, beta);
  if (!r.ok()) {
    std::cerr << "papcoll-model: " << r.error << "\n";
    return 2;
  }
  const std::string text = model_text(*r.model, "# written by papcoll-model homogeneous\n");
  if (!write_text(a.get("--out"), text)) {
    std::cerr << "papcoll-model: writing '" << a.get("--out") << "' failed\n";
    return 1;
  }
  return 0;
}

struct LinkStats {
  double min = 0, median = 0, max = 0;
};

// Min, max and the upper median (element n/2 of the sorted off-diagonal values, as sorting them
// would give) of one parameter over the ordered pairs, in constant memory: link values are finite
// and not negative, so their bit patterns order like the values, and the median is found one byte
// of the pattern at a time (8 counting passes over the pairs).
LinkStats link_stats(const LinkModel& m, double (LinkModel::*value)(int, int) const) {
  const int p = m.p();
  LinkStats st;
  if (m.is_homogeneous()) {
    st.min = st.median = st.max = (m.*value)(0, 1);
    return st;
  }
  auto for_each_pair = [&](auto&& f) {
    for (int i = 0; i < p; ++i)
      for (int j = 0; j < p; ++j)
        if (i != j) f((m.*value)(i, j));
  };
  st.min = INFINITY;
  st.max = -INFINITY;
  for_each_pair([&](double v) {
    st.min = std::min(st.min, v);
    st.max = std::max(st.max, v);
  });
  auto bits = [](double v) {
    v += 0.0;  // -0 as +0: a set sign bit would order it above every positive value
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  };
  long long rank = static_cast<long long>(p) * (p - 1) / 2;  // the element wanted, 0-based
  std::uint64_t prefix = 0;
  for (int shift = 56; shift >= 0; shift -= 8) {
    const std::uint64_t high_mask = shift == 56 ? 0 : ~std::uint64_t{0} << (shift + 8);
    long long count[256] = {};
    for_each_pair([&](double v) {
      const std::uint64_t b = bits(v);
      if ((b & high_mask) == prefix) ++count[(b >> shift) & 0xFF];
    });
    int byte = 0;
    while (rank >= count[byte]) rank -= count[byte++];
    prefix |= static_cast<std::uint64_t>(byte) << shift;
  }
  std::memcpy(&st.median, &prefix, sizeof prefix);
  return st;
}

int show(const Args& a) {
  if (a.file.empty()) {
    std::cerr << "papcoll-model: show needs a FILE\n" << kHelpHint << "\n";
    return 2;
  }
  long long expected = 0;
  if (a.has("--p") && !parse_long(a.get("--p"), 1, 1 << 16, &expected)) {
    std::cerr << "papcoll-model: --p: an integer in 1..65536\n";
    return 2;
  }
  const papcoll::LinkModelResult r =
      papcoll::read_link_model_file(a.file, static_cast<int>(expected));
  if (!r.ok()) {
    std::cerr << "papcoll-model: " << r.error << "\n";
    return 1;
  }
  const LinkModel& m = *r.model;
  const int p = m.p();
  std::cout << a.file << ": valid, p=" << p << ", "
            << (m.is_homogeneous() ? "homogeneous" : "per-pair links") << "\n";
  if (p < 2) return 0;
  // Summaries straight from the model, with no copy of its p x p values (p may be 65536 for a
  // homogeneous model, 4096 for per-pair links).
  auto summary = [&](double (LinkModel::*value)(int, int) const, const char* name,
                     const char* unit) {
    const LinkStats st = link_stats(m, value);
    std::cout << "  " << name << " [" << unit << "]: min " << format_g(st.min) << ", median "
              << format_g(st.median) << ", max " << format_g(st.max) << "\n";
  };
  summary(&LinkModel::alpha, "alpha", "s");
  summary(&LinkModel::beta, "beta", "s/byte");
  if (m.is_homogeneous() || p > 16) return 0;
  std::cout << "  latency alpha(i, j) in microseconds / bandwidth 1/beta(i, j) in MB/s (row i "
               "sends to column j):\n";
  for (int i = 0; i < p; ++i) {
    std::cout << "  " << std::setw(3) << i << ":";
    for (int j = 0; j < p; ++j) {
      if (i == j) {
        std::cout << std::setw(16) << "-";
        continue;
      }
      const double bw = m.beta(i, j) > 0 ? 1e-6 / m.beta(i, j) : INFINITY;
      std::cout << std::setw(8) << format_g(m.alpha(i, j) * 1e6) << "/" << std::setw(7)
                << format_g(bw, 4);
    }
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

int run(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  if (!a.help.empty()) {
    std::cout << a.help;
    return 0;
  }
  if (!a.error.empty()) {
    std::cerr << "papcoll-model: " << a.error << "\n" << kHelpHint << "\n";
    if (a.command == "measure") {  // under mpirun: every rank exits the same way
      MPI_Init(&argc, &argv);
      MPI_Finalize();
    }
    return 2;
  }
  if (a.command == "measure") return measure(argc, argv, a);
  if (a.command == "homogeneous") return homogeneous(a);
  return show(a);
}

// No exception ends the program with a signal: it is reported and the exit status is 1 (under
// mpirun, after MPI_Init, MPI_Abort ends the other ranks too rather than leave them waiting).
int main(int argc, char** argv) {
  std::string error;
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    error = "out of memory";
  } catch (const std::exception& e) {
    error = std::string("internal error: ") + e.what();
  } catch (...) {
    error = "internal error: unknown exception";
  }
  std::cerr << "papcoll-model: " << error << "\n";
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}
