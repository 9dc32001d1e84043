#include "intercept/intercept_stats.hpp"

#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace papcoll::intercept {
namespace {

struct Totals {
  double calls = 0, bytes = 0, seconds = 0, fallbacks = 0;
};

std::mutex g_mutex;  // MPI_THREAD_MULTIPLE programs may call collectives from several threads
std::map<std::pair<int, std::string>, Totals> g_totals;  // (operation, algorithm)
std::set<std::tuple<MPI_Comm, int, std::string>> g_announced;

}  // namespace

void record_call(Operation op, MPI_Comm comm, const std::string& algorithm, double bytes,
                 double seconds, const std::string& refusal) {
  if (!config().verbose) return;  // the totals feed PAPCOLL_VERBOSE's summary only
  const bool fallback = !refusal.empty();
  std::lock_guard<std::mutex> lock(g_mutex);
  Totals& t = g_totals[{static_cast<int>(op), algorithm}];
  t.calls += 1;
  t.bytes += bytes;
  t.seconds += seconds;
  if (fallback) t.fallbacks += 1;
  if (!config().verbose || algorithm == "none") return;
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  if (rank == 0 && g_announced.insert({comm, static_cast<int>(op), algorithm}).second)
    std::fprintf(stderr, "papcoll-intercept: %s on a communicator of %d rank(s) -> %s%s%s\n",
                 mpi_function_name(op), size, algorithm.c_str(),
                 fallback ? " (papcoll refused: " : "", fallback ? (refusal + ")").c_str() : "");
}

void print_summary() {
  // Every rank must contribute the same rows: gather the union of keys first. A fixed key space
  // (operation x algorithm names seen anywhere) is built by exchanging the local names.
  std::vector<std::pair<int, std::string>> keys;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const auto& [k, v] : g_totals) keys.push_back(k);
  }
  std::string mine;
  for (const auto& [op, algo] : keys) mine += std::to_string(op) + ":" + algo + "\n";
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<size_t>(size)), displs(static_cast<size_t>(size), 0);
  PMPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int i = 1; i < size; ++i) displs[i] = displs[i - 1] + lens[i - 1];
  std::string all(static_cast<size_t>(displs.back() + lens.back()), '\0');
  PMPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR,
                  MPI_COMM_WORLD);
  std::set<std::pair<int, std::string>> union_keys;
  for (size_t at = 0; at < all.size();) {
    const size_t nl = all.find('\n', at);
    const std::string line = all.substr(at, nl - at);
    const size_t colon = line.find(':');
    union_keys.insert({std::stoi(line.substr(0, colon)), line.substr(colon + 1)});
    at = nl + 1;
  }
  std::vector<double> local, sum(union_keys.size() * 3), max_s(union_keys.size());
  std::vector<double> local_s;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const auto& k : union_keys) {
      const auto it = g_totals.find(k);
      const Totals t = it == g_totals.end() ? Totals{} : it->second;
      local.insert(local.end(), {t.calls, t.bytes, t.fallbacks});
      local_s.push_back(t.seconds);
    }
  }
  PMPI_Reduce(local.data(), sum.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_SUM, 0,
              MPI_COMM_WORLD);
  PMPI_Reduce(local_s.data(), max_s.data(), static_cast<int>(local_s.size()), MPI_DOUBLE, MPI_MAX,
              0, MPI_COMM_WORLD);
  if (rank != 0) return;
  std::fprintf(stderr,
               "papcoll-intercept summary (%d ranks; calls and bytes summed over ranks, "
               "time: the slowest rank's total)\n",
               size);
  std::fprintf(stderr, "  %-15s %-20s %10s %14s %10s %10s\n", "operation", "algorithm", "calls",
               "bytes", "time_s", "fallbacks");
  size_t i = 0;
  for (const auto& [op, algo] : union_keys) {
    std::fprintf(stderr, "  %-15s %-20s %10.0f %14.0f %10.4f %10.0f\n",
                 mpi_function_name(static_cast<Operation>(op)), algo.c_str(), sum[3 * i],
                 sum[3 * i + 1], max_s[i], sum[3 * i + 2]);
    ++i;
  }
}

}  // namespace papcoll::intercept
