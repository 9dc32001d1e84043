// A plain MPI program (no papcoll header) for the straggler report and the hang watchdog under
// LD_PRELOAD=libpapcoll-intercept.so (run_observe.py):
//
//   stragglers late OUT LATE_RANK DELAY_MS CALLS   LATE_RANK sleeps DELAY_MS before each of CALLS
//       8-byte MPI_Allreduce calls; every rank notes its own entry times (CLOCK_MONOTONIC, the
//       clock papcoll reads), and rank 0 writes OUT: each rank's mean lateness against the
//       earliest rank of each call, the truth the report must match
//   stragglers hang LATE_RANK SLEEP_S CALLS HANG_AT   LATE_RANK sleeps SLEEP_S before call
//       HANG_AT (1-based) of CALLS
//   stragglers many CALLS   CALLS 8-byte calls; rank 0 prints "rss_growth_kb K": the largest
//       growth of any rank's resident memory between call 2000 and the last
//   stragglers mixed CALLS   CALLS 8-byte all-reduces, with a 16-byte broadcast from rank 1
//       after every 97th and a 16-byte all-reduce after the first three of every 1000: loops
//       of one key broken by others (the interposition library's steady state and its
//       template); rank 0 prints "mixed A8 B16 A16", the calls of each key
//
// Every call's result is checked; a wrong one exits with status 3.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

namespace {

double now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void sleep_for(double seconds) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(seconds);
  ts.tv_nsec = static_cast<long>((seconds - static_cast<double>(ts.tv_sec)) * 1e9);
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int rank_of() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int size_of() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

// One 8-byte all-reduce, checked.
void allreduce_checked(int call) {
  const int p = size_of();
  double x = rank_of() + call, y = -1;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double want = p * (p - 1) / 2.0 + static_cast<double>(p) * call;
  if (y != want) {
    std::fprintf(stderr, "stragglers: rank %d call %d: got %g, want %g\n", rank_of(), call, y,
                 want);
    std::exit(3);
  }
}

long rss_kb() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long kb = -1;
  while (std::fgets(line, sizeof line, f) != nullptr)
    if (std::strncmp(line, "VmRSS:", 6) == 0) kb = std::atol(line + 6);
  std::fclose(f);
  return kb;
}

int late(const char* out, int late_rank, double delay_ms, int calls) {
  const int p = size_of(), me = rank_of();
  std::vector<double> entries(static_cast<size_t>(calls));
  for (int c = 0; c < calls; ++c) {
    if (me == late_rank) sleep_for(delay_ms / 1000.0);
    entries[static_cast<size_t>(c)] = now();
    allreduce_checked(c);
  }
  std::vector<double> all(me == 0 ? static_cast<size_t>(p) * calls : 0);
  MPI_Gather(entries.data(), calls, MPI_DOUBLE, all.data(), calls, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (me != 0) return 0;
  std::vector<double> mean(static_cast<size_t>(p), 0.0);
  for (int c = 0; c < calls; ++c) {
    double lo = all[static_cast<size_t>(c)];
    for (int r = 1; r < p; ++r) lo = std::min(lo, all[static_cast<size_t>(r) * calls + c]);
    for (int r = 0; r < p; ++r)
      mean[static_cast<size_t>(r)] += all[static_cast<size_t>(r) * calls + c] - lo;
  }
  std::FILE* f = std::fopen(out, "w");
  if (f == nullptr) return 2;
  std::fprintf(f, "{\"late_rank\": %d, \"calls\": %d, \"mean_lateness_s\": [", late_rank, calls);
  for (int r = 0; r < p; ++r)
    std::fprintf(f, "%s%.9f", r ? ", " : "", mean[static_cast<size_t>(r)] / calls);
  std::fprintf(f, "]}\n");
  std::fclose(f);
  return 0;
}

int hang(int late_rank, double sleep_s, int calls, int hang_at) {
  for (int c = 1; c <= calls; ++c) {
    if (c == hang_at && rank_of() == late_rank) sleep_for(sleep_s);
    allreduce_checked(c);
  }
  if (rank_of() == 0) std::printf("stragglers hang: all %d calls correct\n", calls);
  return 0;
}

// A 16-byte broadcast from rank 1, checked.
void bcast_checked(int call) {
  int v[4] = {-1, -1, -1, -1};
  if (rank_of() == 1)
    for (int i = 0; i < 4; ++i) v[i] = call + i;
  MPI_Bcast(v, 4, MPI_INT, 1, MPI_COMM_WORLD);
  for (int i = 0; i < 4; ++i)
    if (v[i] != call + i) {
      std::fprintf(stderr, "stragglers: rank %d broadcast %d: got %d, want %d\n", rank_of(), call,
                   v[i], call + i);
      std::exit(3);
    }
}

// A 16-byte all-reduce, checked.
void allreduce2_checked(int call) {
  const int p = size_of();
  double x[2] = {1.0 * call, 1.0 * rank_of()}, y[2] = {-1, -1};
  MPI_Allreduce(x, y, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (y[0] != 1.0 * p * call || y[1] != p * (p - 1) / 2.0) {
    std::fprintf(stderr, "stragglers: rank %d 16-byte call %d: got %g %g\n", rank_of(), call, y[0],
                 y[1]);
    std::exit(3);
  }
}

int mixed(int calls) {
  long a8 = 0, b16 = 0, a16 = 0;
  for (int c = 1; c <= calls; ++c) {
    allreduce_checked(c);
    ++a8;
    if (c % 97 == 0) {
      bcast_checked(c);
      ++b16;
    }
    if (c % 1000 < 3) {
      allreduce2_checked(c);
      ++a16;
    }
  }
  if (rank_of() == 0) std::printf("mixed %ld %ld %ld\n", a8, b16, a16);
  return 0;
}

int many(int calls) {
  long before = 0;
  for (int c = 1; c <= calls; ++c) {
    allreduce_checked(c);
    if (c == 2000) before = rss_kb();
  }
  long growth = rss_kb() - before, worst = 0;
  MPI_Reduce(&growth, &worst, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank_of() == 0) std::printf("rss_growth_kb %ld\n", worst);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 2;
  if (argc == 6 && std::strcmp(argv[1], "late") == 0)
    rc = late(argv[2], std::atoi(argv[3]), std::atof(argv[4]), std::atoi(argv[5]));
  else if (argc == 6 && std::strcmp(argv[1], "hang") == 0)
    rc = hang(std::atoi(argv[2]), std::atof(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  else if (argc == 3 && std::strcmp(argv[1], "many") == 0)
    rc = many(std::atoi(argv[2]));
  else if (argc == 3 && std::strcmp(argv[1], "mixed") == 0)
    rc = mixed(std::atoi(argv[2]));
  else if (rank_of() == 0)
    std::fprintf(stderr, "usage: stragglers late OUT RANK DELAY_MS CALLS | hang RANK SLEEP_S "
                         "CALLS HANG_AT | many CALLS\n");
  MPI_Finalize();
  return rc;
}
