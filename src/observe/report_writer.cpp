#include "observe/report_writer.hpp"

#include <mpi.h>

#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "error/error.hpp"
#include "error/guarded_call.hpp"
#include "observe/comm_observer.hpp"
#include "observe/observe_config.hpp"
#include "observe/report_stats.hpp"
#include "papcoll/papcoll.h"
#include "prediction/clock_sync.hpp"
#include "prediction/monitor.hpp"

namespace papcoll::observe {
namespace {

constexpr int kSyncTag = 7;

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string mpi_library() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  if (PMPI_Get_library_version(v, &len) != MPI_SUCCESS) return "";
  std::string s(v, static_cast<size_t>(len));
  const size_t nl = s.find_first_of("\n,");
  return nl == std::string::npos ? s : s.substr(0, nl);
}

double clock_resolution() {
  timespec ts{};
  if (clock_getres(CLOCK_MONOTONIC, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// World rank 0 only: every process's part in, the file out. Returns the message ("" = fine).
std::string compose_and_write(const char* path, const std::vector<std::string>& parts, int world) {
  std::vector<RankData> ranks(parts.size());
  for (size_t i = 0; i < parts.size(); ++i)
    if (!deserialize(parts[i].data(), parts[i].size(), &ranks[i]))
      return "the record of world rank " + std::to_string(i) + " is damaged";
  ReportMeta meta;
  meta.created = utc_now();
  meta.papcoll_version = std::to_string(PAPCOLL_VERSION_MAJOR) + "." +
                         std::to_string(PAPCOLL_VERSION_MINOR);
  meta.mpi_library = mpi_library();
  meta.world_size = world;
  meta.clock_resolution = clock_resolution();
  meta.samples_per_key = config().report_samples;
  const std::string json = report_json(analyze(ranks), ranks, meta);
  std::FILE* f = std::fopen(path, "w");
  if (f == nullptr) return std::string("cannot open ") + path + " for writing";
  const bool ok = std::fwrite(json.data(), 1, json.size(), f) == json.size();
  if (std::fclose(f) != 0 || !ok) return std::string("cannot write ") + path;
  return "";
}

}  // namespace

int write_report(const char* path, const char* who) {
  const std::string w = std::string(who) + ": ";
  int world = 1, me = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &world);
  PMPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm comm = MPI_COMM_NULL;
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
    return fail(PAPCOLL_ERR_MPI, w + "MPI_Comm_dup failed");
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

  RankData mine;
  mine.world_rank = me;
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  if (PMPI_Get_processor_name(host, &len) == MPI_SUCCESS) mine.host.assign(host, len);
  mine.comms = report_snapshot();
  // Entry times are on each process's own steady clock: the offsets to world rank 0 put them on
  // one clock (on one node they are 0 up to the measurement's width).
  prediction::ClockSync clock;
  MpiStatus s = prediction::sync_clocks(comm, 8, kSyncTag, prediction::steady_seconds, &clock);
  mine.clock_offset = clock.offset;
  mine.clock_width = clock.width;
  const std::string bytes = serialize(mine);

  int n = static_cast<int>(bytes.size());
  std::vector<int> sizes(me == 0 ? static_cast<size_t>(world) : 0), displs;
  std::string all;
  int rc = s.ok() ? MPI_SUCCESS : s.code;
  if (rc == MPI_SUCCESS) rc = PMPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm);
  if (rc == MPI_SUCCESS && me == 0) {
    long long total = 0;
    for (int x : sizes) {
      displs.push_back(static_cast<int>(total));
      total += x;
    }
    all.resize(static_cast<size_t>(total));
  }
  if (rc == MPI_SUCCESS)
    rc = PMPI_Gatherv(bytes.data(), n, MPI_BYTE, all.data(), sizes.data(), displs.data(), MPI_BYTE,
                      0, comm);
  std::string problem;
  if (rc != MPI_SUCCESS) {
    problem = "gathering the records failed (" + describe(MpiStatus{rc, "MPI_Gatherv"}) + ")";
  } else if (me == 0) {
    std::vector<std::string> parts;
    for (int r = 0; r < world; ++r)
      parts.push_back(all.substr(static_cast<size_t>(displs[static_cast<size_t>(r)]),
                                 static_cast<size_t>(sizes[static_cast<size_t>(r)])));
    problem = compose_and_write(path, parts, world);
  }
  // Every process returns world rank 0's verdict.
  int plen = static_cast<int>(problem.size());
  PMPI_Bcast(&plen, 1, MPI_INT, 0, comm);
  problem.resize(static_cast<size_t>(plen));
  PMPI_Bcast(problem.data(), plen, MPI_CHAR, 0, comm);
  PMPI_Comm_free(&comm);
  if (!problem.empty()) {
    if (me == 0)
      std::fprintf(stderr, "papcoll: %sreport not written: %s\n", w.c_str(), problem.c_str());
    return fail(PAPCOLL_ERR_ARG, w + problem);
  }
  return PAPCOLL_SUCCESS;
}

}  // namespace papcoll::observe

extern "C" int papcoll_report_write(const char* path) {
  constexpr const char* kWho = "papcoll_report_write";
  return papcoll::guarded_call(kWho, [&] {
    using papcoll::observe::config;
    if (!config().report)
      return papcoll::fail(PAPCOLL_ERR_ARG, std::string(kWho) +
                                                ": nothing is recorded: set PAPCOLL_REPORT in "
                                                "the environment of every process");
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
      return papcoll::fail(PAPCOLL_ERR_ARG,
                           std::string(kWho) + ": MPI is not initialised or already finalised");
    const char* file = path != nullptr ? path : config().report_path.c_str();
    return papcoll::observe::write_report(file, kWho);
  });
}
