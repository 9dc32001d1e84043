// Shared by the MPI test programs (plain main(), no gtest: gtest does not know about ranks).
// Every rank records the outcome of each check in the same order; at the end the outcomes are
// combined so that a check fails if it failed on any rank, and every rank exits with the same
// status, which is what mpirun needs to report the job correctly.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "papcoll/papcoll.h"

namespace papcoll_test {

class Checker {
 public:
  explicit Checker(const char* program) : program_(program), start_(Clock::now()) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const { return rank_; }
  int size() const { return size_; }

  // Must be called the same number of times on every rank.
  bool expect(bool ok, const std::string& what) {
    failed_.push_back(ok ? 0 : 1);
    if (!ok) std::fprintf(stderr, "[%s rank %d] FAIL: %s\n", program_, rank_, what.c_str());
    return ok;
  }

  // A papcoll call that must succeed; the message carries papcoll's own explanation.
  bool expect_success(int rc, const std::string& what) {
    return expect(rc == PAPCOLL_SUCCESS,
                  what + ": returned " + std::to_string(rc) + " (" + papcoll_last_error() + ")");
  }

  bool expect_code(int rc, int want, const std::string& what) {
    return expect(rc == want, what + ": returned " + std::to_string(rc) + ", expected " +
                                  std::to_string(want) + " (" + papcoll_last_error() + ")");
  }

  // Prints the summary on rank 0 and returns the exit status for main().
  int finish() {
    long n = static_cast<long>(failed_.size()), lo = 0, hi = 0;
    MPI_Allreduce(&n, &lo, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&n, &hi, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi) {
      if (rank_ == 0)
        std::fprintf(stderr, "%s: ranks ran different numbers of checks (%ld..%ld)\n", program_, lo,
                     hi);
      return 1;
    }
    std::vector<unsigned char> any(failed_.size());
    MPI_Allreduce(failed_.data(), any.data(), static_cast<int>(n), MPI_UNSIGNED_CHAR, MPI_MAX,
                  MPI_COMM_WORLD);
    long bad = 0;
    for (unsigned char f : any) bad += f;
    const double secs = std::chrono::duration<double>(Clock::now() - start_).count();
    if (rank_ == 0)
      std::printf("%s np=%d: %ld passed, %ld failed (%.2f s)\n", program_, size_, n - bad, bad,
                  secs);
    return bad == 0 ? 0 : 1;
  }

 private:
  using Clock = std::chrono::steady_clock;
  const char* program_;
  Clock::time_point start_;
  int rank_ = 0, size_ = 1;
  std::vector<unsigned char> failed_;
};

// Deterministic pseudo-random bits from a few integers (splitmix64), so every rank can compute
// every other rank's input.
inline uint64_t mix(uint64_t a, uint64_t b = 0, uint64_t c = 0) {
  uint64_t z = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL) * 0xBF58476D1CE4E5B9ULL ^
               (c + 0x85157AF5ULL) * 0x94D049BB133111EBULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace papcoll_test
