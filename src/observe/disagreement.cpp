#include "observe/disagreement.hpp"

#include <cstdio>
#include <map>
#include <utility>

#include "observe/mpi_names.hpp"
#include "schedule/registry.hpp"

namespace papcoll::observe {
namespace {

std::string algorithm_label(const BoardCall& c) {
  if (c.algorithm == kAlgorithmAuto) return "'auto'";
  if (c.algorithm == kAlgorithmNative) return "'native'";
  if (c.collective < 0 || c.collective > static_cast<int>(Collective::gatherv)) return "?";
  const std::vector<const AlgorithmInfo*> all =
      algorithms_for(static_cast<Collective>(c.collective));
  if (c.algorithm < 0 || c.algorithm >= static_cast<int>(all.size())) return "?";
  return std::string("'") + all[static_cast<size_t>(c.algorithm)]->name + "'";
}

std::string op_label(std::int32_t op) {
  if (op == kUserOp) return "a user-defined op";
  if (op < 0) return "none";
  return op_name(op);
}

std::string data_label(const BoardCall& c) {
  const Collective col = static_cast<Collective>(c.collective);
  if (c.units < 0) return "unknown";
  if (col == Collective::allreduce || col == Collective::reduce) {
    std::string s = std::to_string(c.units) + " of " + type_name(c.unit_type);
    if (c.type < 0 || c.type != c.unit_type) s += " (count " + std::to_string(c.count) + ")";
    return s;
  }
  return std::to_string(c.units) + " bytes";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string arrivals_label(const BoardCall& c) {
  if ((c.flags & kCallArrivals) == 0) return "none";
  if ((c.flags & kCallArrivalsAgreed) == 0) return "given (rank 0's broadcast)";
  char buf[48];
  std::snprintf(buf, sizeof buf, "agreed (hash %016llx)",
                static_cast<unsigned long long>(c.arrivals_hash));
  return buf;
}

std::string portions_label(const BoardCall& c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "hash %016llx", static_cast<unsigned long long>(c.portions_hash));
  return buf;
}

// Scatterv and gatherv: each rank has its own portion, and only the root the others'. A call the
// interposition library handed to the MPI library shows only its operation, root and algorithm.
bool not_rooted_v(const BoardCall& c) {
  return c.collective != static_cast<int>(Collective::scatterv) &&
         c.collective != static_cast<int>(Collective::gatherv) && (c.flags & kCallMpiOnly) == 0;
}
bool everywhere(const BoardCall&) { return true; }
bool papcoll_calls(const BoardCall& c) { return (c.flags & kCallMpiOnly) == 0; }

struct Field {
  const char* name;
  std::string (*value)(const BoardCall&);
  bool (*compared)(const BoardCall&);
};

const Field kFields[] = {
    {"operation",
     [](const BoardCall& c) { return std::string(collective_label(c.collective, "?")); },
     everywhere},
    {"root", [](const BoardCall& c) { return std::to_string(c.root); }, everywhere},
    {"algorithm", algorithm_label, everywhere},
    {"op", [](const BoardCall& c) { return op_label(c.op); }, papcoll_calls},
    {"data", data_label, not_rooted_v},
    {"portions", portions_label, not_rooted_v},
    {"blocks", [](const BoardCall& c) { return std::to_string(c.blocks); }, papcoll_calls},
    {"alpha, beta, gamma",
     [](const BoardCall& c) {
       return number(c.alpha) + ", " + number(c.beta) + ", " + number(c.gamma);
     },
     papcoll_calls},
    {"progress monitor",
     [](const BoardCall& c) { return std::string((c.flags & kCallMonitor) ? "yes" : "no"); },
     papcoll_calls},
    {"arrival times", arrivals_label, not_rooted_v},
};

}  // namespace

const char* collective_label(int collective, const char* unknown) {
  return collective >= 0 && collective <= static_cast<int>(Collective::gatherv)
             ? collective_name(static_cast<Collective>(collective))
             : unknown;
}

std::string rank_list(const std::vector<int>& ranks) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (j >= i + 2)
      parts.push_back(std::to_string(ranks[i]) + "-" + std::to_string(ranks[j]));
    else
      for (size_t k = i; k <= j; ++k) parts.push_back(std::to_string(ranks[k]));
    i = j + 1;
  }
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

std::string disagreement(const std::vector<const BoardCall*>& calls) {
  for (const Field& f : kFields) {
    // Ranks by value, in the order the values first appear.
    std::vector<std::pair<std::string, std::vector<int>>> groups;
    for (size_t r = 0; r < calls.size(); ++r) {
      if (calls[r] == nullptr || !f.compared(*calls[r])) continue;
      const std::string v = f.value(*calls[r]);
      auto it = groups.begin();
      while (it != groups.end() && it->first != v) ++it;
      if (it == groups.end())
        groups.push_back({v, {static_cast<int>(r)}});
      else
        it->second.push_back(static_cast<int>(r));
    }
    if (groups.size() < 2) continue;
    std::string out = std::string(f.name) + ": ";
    for (size_t i = 0; i < groups.size(); ++i)
      out += (i ? "; " : "") + rank_list(groups[i].second) + " " + groups[i].first;
    return out;
  }
  return "";
}

}  // namespace papcoll::observe
