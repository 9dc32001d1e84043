#include "papcoll_sched_library.hpp"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "model/node_layout.hpp"
#include "select/library_model.hpp"

namespace papcoll::sched_library {
namespace {

const char* kUsage =
    "usage: papcoll-sched library COLLECTIVE --p P --bytes M [--library L] [--alpha A]\n"
    "           [--beta B] [--gamma G] [--type-bytes T] [--root R]\n"
    "           [--arrivals a0,a1,...|--late R:S[,R:S...]] [--nodes K] [--intra-alpha A]\n"
    "           [--intra-beta B] [--format text|json]\n"
    "COLLECTIVE: allreduce, reduce, bcast, allgatherv, scatterv, gatherv. L: generic (default),\n"
    "open-mpi, mpich, smpi-ompi, smpi-mpich. --late R:S: rank R arrives S seconds after the\n"
    "others. --nodes K: K consecutive ranks per node. Times in seconds, sizes in bytes.\n";

// The command whose flags are being parsed and its usage (library, or auto:
// papcoll_sched_auto.cpp).
const char* t_command = "library";
const char* t_usage = kUsage;

[[noreturn]] void usage_error(const std::string& why) {
  std::cerr << "papcoll-sched: " << t_command << ": " << why << "\n" << t_usage;
  std::exit(2);
}

double number(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(x))
    usage_error(flag + ": not a number: '" + v + "'");
  return x;
}

int integer(const std::string& flag, const std::string& v, long long lo, long long hi) {
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || x < lo || x > hi)
    usage_error(flag + " must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int>(x);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);) out.push_back(part);
  return out;
}

bool collective_of(const std::string& name, Collective* c) {
  for (Collective x : {Collective::allreduce, Collective::reduce, Collective::bcast,
                       Collective::allgatherv, Collective::scatterv, Collective::gatherv})
    if (name == collective_name(x)) {
      *c = x;
      return true;
    }
  return false;
}

}  // namespace

CallArgs parse_call_args(int argc, char** argv, const std::vector<std::string>& extra,
                         const char* command, const char* usage) {
  t_command = command;
  t_usage = usage;
  if (argc < 3 || argv[2][0] == '-') usage_error("missing collective");
  CallArgs args;
  LibraryCall& call = args.call;
  GeneratorInput& in = args.in;
  std::map<std::string, std::string>& flags = args.flags;
  if (!collective_of(argv[2], &call.collective))
    usage_error(std::string("unknown collective '") + argv[2] + "'");
  std::vector<std::string> known = {"--p",          "--bytes", "--library",    "--alpha",
                                    "--beta",       "--gamma", "--type-bytes", "--root",
                                    "--arrivals",   "--late",  "--nodes",      "--intra-alpha",
                                    "--intra-beta", "--format"};
  known.insert(known.end(), extra.begin(), extra.end());
  for (int i = 3; i < argc; ++i) {
    const std::string f = argv[i];
    bool ok = false;
    for (const std::string& k : known) ok = ok || f == k;
    if (!ok) usage_error("unknown flag '" + f + "'");
    if (i + 1 >= argc) usage_error(f + " needs a value");
    flags[f] = argv[++i];
  }
  auto has = [&](const char* f) { return flags.count(f) > 0; };
  if (!has("--p") || !has("--bytes")) usage_error("--p and --bytes are required");
  in.p = integer("--p", flags["--p"], 1, 1 << 20);
  in.bytes = number("--bytes", flags["--bytes"]);
  if (in.bytes < 0 || in.bytes > 9007199254740992.0) usage_error("--bytes must be in 0..2^53");
  if (has("--library") && !parse_mpi_library(flags["--library"], &call.library))
    usage_error("unknown library '" + flags["--library"] + "'");
  if (has("--alpha")) in.cost.alpha = number("--alpha", flags["--alpha"]);
  if (has("--beta")) in.cost.beta = number("--beta", flags["--beta"]);
  in.cost.gamma = has("--gamma")                    ? number("--gamma", flags["--gamma"])
                  : has("--alpha") || has("--beta") ? 0
                                                    : in.cost.gamma;
  if (has("--intra-alpha")) in.cost.intra_alpha = number("--intra-alpha", flags["--intra-alpha"]);
  if (has("--intra-beta")) in.cost.intra_beta = number("--intra-beta", flags["--intra-beta"]);
  if (in.cost.alpha < 0 || in.cost.beta < 0 || in.cost.gamma < 0)
    usage_error("--alpha, --beta and --gamma must not be negative");
  const bool reduction = call.collective == Collective::allreduce ||
                         call.collective == Collective::reduce;
  call.type_bytes = has("--type-bytes") ? number("--type-bytes", flags["--type-bytes"])
                    : reduction         ? 4
                                        : 1;
  if (!(call.type_bytes > 0)) usage_error("--type-bytes must be positive");
  in.root = has("--root") ? integer("--root", flags["--root"], 0, in.p - 1) : 0;
  if (has("--arrivals") && has("--late")) usage_error("give --arrivals or --late");
  if (has("--arrivals")) {
    for (const std::string& v : split(flags["--arrivals"], ','))
      in.arrivals.push_back(number("--arrivals", v));
    if (static_cast<int>(in.arrivals.size()) != in.p)
      usage_error("--arrivals has " + std::to_string(in.arrivals.size()) +
                  " values for p=" + std::to_string(in.p));
  }
  if (has("--late")) {
    in.arrivals.assign(static_cast<size_t>(in.p), 0.0);
    for (const std::string& item : split(flags["--late"], ',')) {
      const auto rs = split(item, ':');
      if (rs.size() != 2) usage_error("--late wants R:S pairs");
      in.arrivals[static_cast<size_t>(integer("--late", rs[0], 0, in.p - 1))] =
          number("--late", rs[1]);
    }
  }
  if (has("--nodes")) {
    const int k = integer("--nodes", flags["--nodes"], 1, in.p);
    in.nodes = std::make_shared<NodeLayout>(block_node_layout(in.p, k));
  }
  args.format = has("--format") ? flags["--format"] : "text";
  if (args.format != "text" && args.format != "json") usage_error("--format must be text or json");
  return args;
}

double flag_number(const std::string& flag, const std::string& value) {
  return number(flag, value);
}

[[noreturn]] void flag_error(const std::string& why) { usage_error(why); }

int run(int argc, char** argv) {
  CallArgs args = parse_call_args(argc, argv, {}, "library", kUsage);
  const LibraryCall& call = args.call;
  const GeneratorInput& in = args.in;
  const std::string& format = args.format;
  const LibraryAlgorithm a = library_algorithm(call, in);
  const double predicted = library_predict(call, in);
  GeneratorInput own = in;
  own.arrivals.clear();
  const double balanced = library_predict(call, own);
  if (format == "json") {
    std::cout << "{\"library\": \"" << mpi_library_name(call.library) << "\", \"collective\": \""
              << collective_name(call.collective) << "\", \"p\": " << in.p
              << ", \"bytes\": " << static_cast<long long>(in.bytes) << ", \"algorithm\": \""
              << a.name << "\", \"segment_bytes\": " << a.segment_bytes
              << ", \"fanout\": " << a.fanout << ", \"predicted_s\": " << predicted
              << ", \"balanced_s\": " << balanced << "}\n";
    return 0;
  }
  std::cout << mpi_library_name(call.library) << " " << collective_name(call.collective)
            << " p=" << in.p << " bytes=" << static_cast<long long>(in.bytes) << ": " << a.name;
  if (a.segment_bytes > 0) std::cout << " in segments of " << a.segment_bytes << " bytes";
  if (a.fanout > 0) std::cout << " (fanout " << a.fanout << ")";
  std::cout << "\npredicted mean elapsed " << predicted << " s";
  if (!in.arrivals.empty()) std::cout << " (equal arrivals: " << balanced << " s)";
  std::cout << "\n";
  return 0;
}

}  // namespace papcoll::sched_library
