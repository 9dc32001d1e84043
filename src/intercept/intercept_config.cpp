#include "intercept/intercept_config.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "papcoll/papcoll.h"

namespace papcoll::intercept {
namespace {

bool listed(const char* list, const std::string& name) {
  if (list == nullptr) return false;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');)
    if (item == name) return true;
  return false;
}

std::string env_name(Operation op) {
  std::string n = std::string("PAPCOLL_") + operation_name(op);
  for (char& c : n) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return n;
}

Config parse() {
  Config cfg;
  const char* verbose = std::getenv("PAPCOLL_VERBOSE");
  cfg.verbose = verbose != nullptr && *verbose != '\0' && std::string(verbose) != "0";
  if (const char* model = std::getenv("PAPCOLL_MODEL"); model != nullptr) cfg.model_file = model;
  if (const char* h = std::getenv("PAPCOLL_HISTORY"); h != nullptr && *h != '\0')
    cfg.history = std::string(h) != "0";
  if (const char* m = std::getenv("PAPCOLL_HISTORY_MIN_BYTES"); m != nullptr && *m != '\0') {
    char* end = nullptr;
    const long long v = std::strtoll(m, &end, 10);
    if (end != nullptr && *end == '\0' && v >= 0)
      cfg.history_min_bytes = v;
    else
      std::fprintf(stderr,
                   "papcoll-intercept: PAPCOLL_HISTORY_MIN_BYTES=%s is not a byte count; "
                   "using %lld\n",
                   m, cfg.history_min_bytes);
  }
  if (const char* n = std::getenv("PAPCOLL_HISTORY_SAMPLE"); n != nullptr && *n != '\0') {
    char* end = nullptr;
    const long v = std::strtol(n, &end, 10);
    if (end != nullptr && *end == '\0' && v >= 1 && v <= 1000000)
      cfg.history_sample = static_cast<int>(v);
    else
      std::fprintf(stderr,
                   "papcoll-intercept: PAPCOLL_HISTORY_SAMPLE=%s is not in 1..1000000; "
                   "using %d\n",
                   n, cfg.history_sample);
  }
  for (int i = 0; i < static_cast<int>(Operation::count); ++i) {
    const auto op = static_cast<Operation>(i);
    OperationChoice& c = cfg.ops[i];
    c.algorithm = "auto";
    const std::string var = env_name(op);
    const char* value = std::getenv(var.c_str());
    if (value == nullptr || *value == '\0') continue;
    const std::string v = value;
    if (v == "native") {
      c.native = true;
    } else if (v == "auto" || listed(papcoll_algorithms(operation_name(op)), v)) {
      c.algorithm = v;
      c.is_auto = v == "auto";
    } else {
      const char* known = papcoll_algorithms(operation_name(op));
      std::fprintf(stderr,
                   "papcoll-intercept: %s=%s is not an algorithm of %s (known: %s); using the MPI "
                   "library's %s\n",
                   var.c_str(), value, operation_name(op), known ? known : "none",
                   mpi_function_name(op));
      c.native = true;
    }
  }
  return cfg;
}

}  // namespace

const char* operation_name(Operation op) {
  switch (op) {
    case Operation::allreduce: return "allreduce";
    case Operation::reduce: return "reduce";
    case Operation::bcast: return "bcast";
    case Operation::allgatherv: return "allgatherv";
    case Operation::scatterv: return "scatterv";
    case Operation::gatherv: return "gatherv";
    case Operation::count: break;
  }
  return "?";
}

const char* mpi_function_name(Operation op) {
  switch (op) {
    case Operation::allreduce: return "MPI_Allreduce";
    case Operation::reduce: return "MPI_Reduce";
    case Operation::bcast: return "MPI_Bcast";
    case Operation::allgatherv: return "MPI_Allgatherv";
    case Operation::scatterv: return "MPI_Scatterv";
    case Operation::gatherv: return "MPI_Gatherv";
    case Operation::count: break;
  }
  return "?";
}

const Config& config() {
  static const Config cfg = parse();  // thread-safe initialisation
  return cfg;
}

}  // namespace papcoll::intercept
