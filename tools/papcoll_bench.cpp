// papcoll-bench: the imbalanced-arrival benchmark of Proficz, "Improving all-reduce collective
// operations for imbalanced process arrival patterns" (Sec. 5.1, Fig. 9). Every rank emulates a
// computation phase of its own length, then enters the collective; the figures are the average
// over ranks of (own completion - own arrival), the paper's, and of (own completion - the last
// rank's arrival), the post-arrival time P, also quoted as P/delta. See docs/papcoll-bench.md.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "papcoll/papcoll.h"
#include "papcoll_bench_clock.hpp"
#include "papcoll_bench_counts.hpp"
#include "papcoll_bench_options.hpp"
#include "papcoll_bench_report.hpp"

using namespace papcoll_bench;

namespace {

// ---------------------------------------------------------------------------------------------
// Deterministic random numbers (splitmix64): the same seed gives the same stream on every rank
// and every platform, which the shared delays rely on.

std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t purpose, std::uint64_t a,
                          std::uint64_t b, std::uint64_t c = 0) {
  return mix64(mix64(mix64(mix64(seed) ^ purpose) ^ a) ^ b) ^ mix64(c);
}

struct Rng {
  std::uint64_t state;
  std::uint64_t next() { return mix64(state += 0x9e3779b97f4a7c15ULL); }
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

enum : std::uint64_t {
  kPurposeData = 1,
  kPurposeDelay = 2,
  kPurposeLateSet = 3,
  kPurposeOrder = 4
};

// ---------------------------------------------------------------------------------------------
// Op runners. One OpCase holds the buffers of one (op, size, dtype) and knows how to make fresh
// input, run one algorithm on it (the timed part) and check the output against plain MPI.
// Adding an op = one more OpCase subclass + one row in kOpRunners.

struct CaseParams {
  long long count = 0;
  Dtype dtype = Dtype::float32;
  Shape shape = Shape::regular;
  std::vector<double> weights;  // scatterv/gatherv: the ranks' shares (--counts-dist)
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, p = 1;
};

class OpCase {
 public:
  virtual ~OpCase() = default;
  // Fig. 9 line 2 plus the reference of line 17: fresh random input for this rank, and (when
  // `reference`) the expected output computed with plain MPI. Collective over the communicator.
  virtual void generate(std::uint64_t data_seed, bool reference) = 0;
  // Poisons the output buffer so an algorithm that skips part of it is caught. Local.
  virtual void reset_output() = 0;
  // The timed call (Fig. 9 line 15). "native" means the MPI library's own collective. Returns
  // PAPCOLL_SUCCESS or an error code.
  virtual int run(const std::string& algorithm, const papcoll_options* opt) = 0;
  // Output vs the reference (Fig. 9 line 17). Local.
  virtual bool check() const = 0;
};

// The cases' buffers come from malloc, not operator new: under SimGrid SMPI (compiled with
// smpicxx, whose helpers header turns malloc into SMPI's) an allocation above
// --cfg=smpi/auto-shared-malloc-thresh is then folded onto memory shared by every simulated rank,
// which is what lets 1M-float runs fit at 512 and 1024 ranks (docs/smpi.md, "Scale").
template <class T>
struct MallocAllocator {
  using value_type = T;
  MallocAllocator() = default;
  template <class U>
  MallocAllocator(const MallocAllocator<U>&) {}
  T* allocate(std::size_t n) {
    void* p = malloc(n * sizeof(T) > 0 ? n * sizeof(T) : 1);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) { free(p); }
  template <class U>
  bool operator==(const MallocAllocator<U>&) const {
    return true;
  }
};
template <class T>
using Buffer = std::vector<T, MallocAllocator<T>>;

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, float>)
    return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, double>)
    return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, int>)
    return MPI_INT;
  else
    return MPI_LONG;
}

template <class T>
class AllreduceCase final : public OpCase {
 public:
  explicit AllreduceCase(const CaseParams& cp)
      : cp_(cp), n_(static_cast<size_t>(cp.count)), send_(n_), recv_(n_), ref_(n_) {
    if constexpr (std::is_floating_point_v<T>) abs_ref_.resize(n_);
  }

  void generate(std::uint64_t data_seed, bool reference) override {
    Rng rng{data_seed};
    for (T& x : send_) {
      if constexpr (std::is_floating_point_v<T>)
        x = static_cast<T>(2.0 * rng.uniform01() - 1.0);
      else
        x = static_cast<T>(static_cast<long>(rng.next() % 2001) - 1000);
    }
    if (!reference) return;
    MPI_Allreduce(send_.data(), ref_.data(), cp_.count, mpi_type<T>(), MPI_SUM, cp_.comm);
    if constexpr (std::is_floating_point_v<T>) {
      // Error bound of a float sum in any order: proportional to the sum of |x| over ranks.
      for (size_t i = 0; i < n_; ++i) recv_[i] = std::abs(send_[i]);
      MPI_Allreduce(recv_.data(), abs_ref_.data(), cp_.count, mpi_type<T>(), MPI_SUM, cp_.comm);
    }
  }

  void reset_output() override {
    const T poison = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN()
                                                           : std::numeric_limits<T>::min();
    std::fill(recv_.begin(), recv_.end(), poison);
  }

  int run(const std::string& algorithm, const papcoll_options* opt) override {
    if (algorithm == "native") {
      return MPI_Allreduce(send_.data(), recv_.data(), cp_.count, mpi_type<T>(), MPI_SUM,
                           cp_.comm) == MPI_SUCCESS
                 ? PAPCOLL_SUCCESS
                 : PAPCOLL_ERR_MPI;
    }
    return papcoll_allreduce(send_.data(), recv_.data(), cp_.count, mpi_type<T>(), MPI_SUM,
                             cp_.comm, opt);
  }

  bool check() const override {
    if constexpr (std::is_floating_point_v<T>) {
      // Relative bound: p * eps' * sum|x|, eps' = 1e-5 (float) or 1e-12 (double), generous
      // against reordering (the true bound is about (p-1) * machine epsilon * sum|x|).
      const double eps = std::is_same_v<T, float> ? 1e-5 : 1e-12;
      for (size_t i = 0; i < n_; ++i) {
        const double bound = eps * cp_.p * static_cast<double>(abs_ref_[i]);
        const double diff = std::abs(static_cast<double>(recv_[i]) - static_cast<double>(ref_[i]));
        if (!(diff <= bound)) return false;  // also catches NaN
      }
      return true;
    } else {
      return std::equal(recv_.begin(), recv_.end(), ref_.begin());
    }
  }

 private:
  CaseParams cp_;
  size_t n_;
  Buffer<T> send_, recv_, ref_, abs_ref_;
};

// Reduce to rank 0 (MPI_SUM). Only the root has an output buffer: the others pass recvbuf = NULL
// to papcoll_reduce, as MPI_Reduce allows, and check nothing (MPI_Reduce gets a scratch vector,
// mpi_out). The reference is MPI_Reduce.
template <class T>
class ReduceCase final : public OpCase {
 public:
  static constexpr int kRoot = 0;

  explicit ReduceCase(const CaseParams& cp)
      : cp_(cp),
        n_(static_cast<size_t>(cp.count)),
        root_(cp.rank == kRoot),
        send_(n_),
        recv_(root_ ? n_ : 0),
        ref_(root_ ? n_ : 0) {
    if constexpr (std::is_floating_point_v<T>) {
      abs_send_.resize(n_);
      if (root_) abs_ref_.resize(n_);
    }
  }

  void generate(std::uint64_t data_seed, bool reference) override {
    Rng rng{data_seed};
    for (T& x : send_) {
      if constexpr (std::is_floating_point_v<T>)
        x = static_cast<T>(2.0 * rng.uniform01() - 1.0);
      else
        x = static_cast<T>(static_cast<long>(rng.next() % 2001) - 1000);
    }
    if (!reference) return;
    MPI_Reduce(send_.data(), mpi_out(ref_), cp_.count, mpi_type<T>(), MPI_SUM, kRoot, cp_.comm);
    if constexpr (std::is_floating_point_v<T>) {
      for (size_t i = 0; i < n_; ++i) abs_send_[i] = std::abs(send_[i]);
      MPI_Reduce(abs_send_.data(), mpi_out(abs_ref_), cp_.count, mpi_type<T>(), MPI_SUM, kRoot,
                 cp_.comm);
    }
  }

  void reset_output() override {
    const T poison = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN()
                                                           : std::numeric_limits<T>::min();
    std::fill(recv_.begin(), recv_.end(), poison);
  }

  int run(const std::string& algorithm, const papcoll_options* opt) override {
    if (algorithm == "native") {
      return MPI_Reduce(send_.data(), mpi_out(recv_), cp_.count, mpi_type<T>(), MPI_SUM, kRoot,
                        cp_.comm) == MPI_SUCCESS
                 ? PAPCOLL_SUCCESS
                 : PAPCOLL_ERR_MPI;
    }
    return papcoll_reduce(send_.data(), out(recv_), cp_.count, mpi_type<T>(), MPI_SUM, kRoot,
                          cp_.comm, opt);
  }

  bool check() const override {
    if (!root_) return true;
    if constexpr (std::is_floating_point_v<T>) {
      // The bound of AllreduceCase::check.
      const double eps = std::is_same_v<T, float> ? 1e-5 : 1e-12;
      for (size_t i = 0; i < n_; ++i) {
        const double bound = eps * cp_.p * static_cast<double>(abs_ref_[i]);
        const double diff = std::abs(static_cast<double>(recv_[i]) - static_cast<double>(ref_[i]));
        if (!(diff <= bound)) return false;  // also catches NaN
      }
      return true;
    } else {
      return std::equal(recv_.begin(), recv_.end(), ref_.begin());
    }
  }

 private:
  // The receive buffer of a call: the vector at the root, NULL elsewhere.
  T* out(Buffer<T>& v) const { return root_ ? v.data() : nullptr; }
  // MPI_Reduce's: a scratch vector off the root. MPI ignores it there, but SimGrid's
  // arrival_pattern_aware reduce (--cfg=smpi/reduce:arrival_pattern_aware) writes into recvbuf on
  // every rank and crashes on NULL.
  T* mpi_out(Buffer<T>& v) {
    if (root_) return v.data();
    if (scratch_.size() != n_) scratch_.resize(n_);
    return scratch_.data();
  }

  CaseParams cp_;
  size_t n_;
  bool root_;
  Buffer<T> send_, recv_, ref_, abs_send_, abs_ref_, scratch_;
};

// Fresh random values (the data of every case): floats in [-1, 1), integers in [-1000, 1000].
template <class T>
void fill_random(Buffer<T>& v, std::uint64_t data_seed) {
  Rng rng{data_seed};
  for (T& x : v) {
    if constexpr (std::is_floating_point_v<T>)
      x = static_cast<T>(2.0 * rng.uniform01() - 1.0);
    else
      x = static_cast<T>(static_cast<long>(rng.next() % 2001) - 1000);
  }
}

template <class T>
void poison(Buffer<T>& v) {
  const T bad = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN()
                                                      : std::numeric_limits<T>::min();
  std::fill(v.begin(), v.end(), bad);
}

// Broadcast from rank 0. The root's buffer is the input (never poisoned); the reference is the
// root's data, which every rank gets once with MPI_Bcast. Outputs are compared bit for bit.
template <class T>
class BcastCase final : public OpCase {
 public:
  static constexpr int kRoot = 0;

  explicit BcastCase(const CaseParams& cp)
      : cp_(cp),
        root_(cp.rank == kRoot),
        buf_(static_cast<size_t>(cp.count)),
        ref_(static_cast<size_t>(cp.count)) {}

  void generate(std::uint64_t data_seed, bool reference) override {
    if (root_) fill_random(ref_, data_seed);
    if (reference)
      MPI_Bcast(ref_.data(), static_cast<int>(cp_.count), mpi_type<T>(), kRoot, cp_.comm);
    if (root_) buf_ = ref_;
  }
  void reset_output() override {
    if (!root_) poison(buf_);
  }
  int run(const std::string& algorithm, const papcoll_options* opt) override {
    if (algorithm == "native")
      return MPI_Bcast(buf_.data(), static_cast<int>(cp_.count), mpi_type<T>(), kRoot, cp_.comm) ==
                     MPI_SUCCESS
                 ? PAPCOLL_SUCCESS
                 : PAPCOLL_ERR_MPI;
    return papcoll_bcast(buf_.data(), static_cast<int>(cp_.count), mpi_type<T>(), kRoot, cp_.comm,
                         opt);
  }
  bool check() const override {
    return std::memcmp(buf_.data(), ref_.data(), buf_.size() * sizeof(T)) == 0;
  }

 private:
  CaseParams cp_;
  bool root_;
  Buffer<T> buf_, ref_;
};

// All-gatherv of --size elements in all, split by --shape (regular: equal portions, irregular:
// rank i's in proportion to i as in Traff's experiments, degenerate: rank 0 has everything),
// packed in rank order. The reference is MPI_Allgatherv of the same input.
template <class T>
class AllgathervCase final : public OpCase {
 public:
  explicit AllgathervCase(const CaseParams& cp)
      : cp_(cp), counts_(portions(cp)), displs_(static_cast<size_t>(cp.p), 0) {
    for (int i = 1; i < cp.p; ++i) displs_[i] = displs_[i - 1] + counts_[i - 1];
    send_.resize(static_cast<size_t>(counts_[cp.rank]));
    recv_.resize(static_cast<size_t>(cp.count));
    ref_.resize(static_cast<size_t>(cp.count));
  }

  void generate(std::uint64_t data_seed, bool reference) override {
    fill_random(send_, data_seed);
    if (!reference) return;
    MPI_Allgatherv(send_.data(), counts_[cp_.rank], mpi_type<T>(), ref_.data(), counts_.data(),
                   displs_.data(), mpi_type<T>(), cp_.comm);
  }
  void reset_output() override { poison(recv_); }
  int run(const std::string& algorithm, const papcoll_options* opt) override {
    if (algorithm == "native")
      return MPI_Allgatherv(send_.data(), counts_[cp_.rank], mpi_type<T>(), recv_.data(),
                            counts_.data(), displs_.data(), mpi_type<T>(), cp_.comm) == MPI_SUCCESS
                 ? PAPCOLL_SUCCESS
                 : PAPCOLL_ERR_MPI;
    return papcoll_allgatherv(send_.data(), counts_[cp_.rank], mpi_type<T>(), recv_.data(),
                              counts_.data(), displs_.data(), mpi_type<T>(), cp_.comm, opt);
  }
  bool check() const override {
    return std::memcmp(recv_.data(), ref_.data(), recv_.size() * sizeof(T)) == 0;
  }

 private:
  static std::vector<int> portions(const CaseParams& cp) {
    std::vector<int> c(static_cast<size_t>(cp.p), 0);
    long long given = 0;
    const long long weights = static_cast<long long>(cp.p) * (cp.p - 1) / 2;
    for (int i = 0; i < cp.p; ++i) {
      switch (cp.shape) {
        case Shape::regular: c[i] = static_cast<int>(cp.count / cp.p); break;
        case Shape::irregular:
          c[i] = weights > 0 ? static_cast<int>(cp.count * i / weights) : 0;
          break;
        case Shape::degenerate: c[i] = i == 0 ? static_cast<int>(cp.count) : 0; break;
      }
      given += c[i];
    }
    c[static_cast<size_t>(cp.p) - 1] += static_cast<int>(cp.count - given);  // the remainder
    return c;
  }

  CaseParams cp_;
  std::vector<int> counts_, displs_;
  Buffer<T> send_, recv_, ref_;
};

// Scatterv from rank 0 of --size elements in all, split by --counts-dist (proportional_counts of
// cp.weights), packed in rank order. The root's buffer is the input (never poisoned); the
// reference is MPI_Scatterv of the same input. Outputs are compared bit for bit.
template <class T>
class ScattervCase final : public OpCase {
 public:
  static constexpr int kRoot = 0;

  explicit ScattervCase(const CaseParams& cp)
      : cp_(cp),
        root_(cp.rank == kRoot),
        counts_(proportional_counts(cp.count, cp.weights)),
        displs_(static_cast<size_t>(cp.p), 0) {
    for (int i = 1; i < cp.p; ++i) displs_[i] = displs_[i - 1] + counts_[i - 1];
    if (root_) send_.resize(static_cast<size_t>(cp.count));
    recv_.resize(static_cast<size_t>(counts_[cp.rank]));
    ref_.resize(recv_.size());
  }

  void generate(std::uint64_t data_seed, bool reference) override {
    if (root_) fill_random(send_, data_seed);
    if (!reference) return;
    MPI_Scatterv(send_.data(), counts_.data(), displs_.data(), mpi_type<T>(), ref_.data(),
                 counts_[cp_.rank], mpi_type<T>(), kRoot, cp_.comm);
  }
  void reset_output() override { poison(recv_); }
  int run(const std::string& algorithm, const papcoll_options* opt) override {
    if (algorithm == "native")
      return MPI_Scatterv(send_.data(), counts_.data(), displs_.data(), mpi_type<T>(), recv_.data(),
                          counts_[cp_.rank], mpi_type<T>(), kRoot, cp_.comm) == MPI_SUCCESS
                 ? PAPCOLL_SUCCESS
                 : PAPCOLL_ERR_MPI;
    return papcoll_scatterv(send_.data(), counts_.data(), displs_.data(), mpi_type<T>(),
                            recv_.data(), counts_[cp_.rank], mpi_type<T>(), kRoot, cp_.comm, opt);
  }
  bool check() const override {
    return std::memcmp(recv_.data(), ref_.data(), recv_.size() * sizeof(T)) == 0;
  }

 private:
  CaseParams cp_;
  bool root_;
  std::vector<int> counts_, displs_;
  Buffer<T> send_, recv_, ref_;
};

// Gatherv to rank 0 of --size elements in all, split by --counts-dist, packed in rank order; only
// the root has an output buffer. The reference is MPI_Gatherv of the same input.
template <class T>
class GathervCase final : public OpCase {
 public:
  static constexpr int kRoot = 0;

  explicit GathervCase(const CaseParams& cp)
      : cp_(cp),
        root_(cp.rank == kRoot),
        counts_(proportional_counts(cp.count, cp.weights)),
        displs_(static_cast<size_t>(cp.p), 0) {
    for (int i = 1; i < cp.p; ++i) displs_[i] = displs_[i - 1] + counts_[i - 1];
    send_.resize(static_cast<size_t>(counts_[cp.rank]));
    if (root_) {
      recv_.resize(static_cast<size_t>(cp.count));
      ref_.resize(recv_.size());
    }
  }

  void generate(std::uint64_t data_seed, bool reference) override {
    fill_random(send_, data_seed);
    if (!reference) return;
    MPI_Gatherv(send_.data(), counts_[cp_.rank], mpi_type<T>(), ref_.data(), counts_.data(),
                displs_.data(), mpi_type<T>(), kRoot, cp_.comm);
  }
  void reset_output() override { poison(recv_); }
  int run(const std::string& algorithm, const papcoll_options* opt) override {
    if (algorithm == "native")
      return MPI_Gatherv(send_.data(), counts_[cp_.rank], mpi_type<T>(), recv_.data(),
                         counts_.data(), displs_.data(), mpi_type<T>(), kRoot,
                         cp_.comm) == MPI_SUCCESS
                 ? PAPCOLL_SUCCESS
                 : PAPCOLL_ERR_MPI;
    return papcoll_gatherv(send_.data(), counts_[cp_.rank], mpi_type<T>(), recv_.data(),
                           counts_.data(), displs_.data(), mpi_type<T>(), kRoot, cp_.comm, opt);
  }
  bool check() const override {
    return std::memcmp(recv_.data(), ref_.data(), recv_.size() * sizeof(T)) == 0;
  }

 private:
  CaseParams cp_;
  bool root_;
  std::vector<int> counts_, displs_;
  Buffer<T> send_, recv_, ref_;
};

template <template <class> class Case>
std::unique_ptr<OpCase> make_typed(const CaseParams& cp) {
  switch (cp.dtype) {
    case Dtype::float32: return std::make_unique<Case<float>>(cp);
    case Dtype::float64: return std::make_unique<Case<double>>(cp);
    case Dtype::int32: return std::make_unique<Case<int>>(cp);
    case Dtype::int64: return std::make_unique<Case<long>>(cp);
  }
  return nullptr;
}

struct OpRunner {
  const char* name;                // --op value
  const char* collective;          // name for papcoll_algorithms()
  const char* default_algorithms;  // --algo default
  std::unique_ptr<OpCase> (*make)(const CaseParams&);
};

const OpRunner kOpRunners[] = {
    {"allreduce", "allreduce", "ring,rabenseifner,recursive-doubling,linear,slt,prr,native",
     make_typed<AllreduceCase>},
    {"reduce", "reduce", "clairvoyant,binomial,rabenseifner,radix-k,ring,native",
     make_typed<ReduceCase>},
    {"bcast", "bcast", "circulant,binomial,scatter-allgather,chain,native", make_typed<BcastCase>},
    {"allgatherv", "allgatherv", "circulant,ring,bruck,linear,auto,native",
     make_typed<AllgathervCase>},
    {"scatterv", "scatterv",
     "linear,binomial,binomial-minfirst,binomial-maxfirst,traff,traff-model,auto,native",
     make_typed<ScattervCase>},
    {"gatherv", "gatherv",
     "linear,binomial,binomial-minfirst,binomial-maxfirst,traff,traff-model,auto,native",
     make_typed<GathervCase>},
};

const OpRunner* find_runner(const std::string& op) {
  for (const OpRunner& r : kOpRunners)
    if (op == r.name) return &r;
  return nullptr;
}

// The first k entries of a random permutation of 0..p-1 (a partial Fisher-Yates shuffle).
std::vector<int> first_of_permutation(Rng& rng, int p, int k) {
  std::vector<int> order(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) order[r] = r;
  for (int i = 0; i < k; ++i) {
    const int j = i + static_cast<int>(rng.next() % static_cast<std::uint64_t>(p - i));
    std::swap(order[i], order[j]);
  }
  order.resize(static_cast<size_t>(k));
  return order;
}

// ---------------------------------------------------------------------------------------------
// The delay model (Fig. 9 lines 3-8). Returns every rank's halfTime in ms; identical on all
// ranks because the random delays come from a stream seeded identically everywhere (all p
// delays are drawn, each rank takes its own).
std::vector<double> half_times_ms(const BenchOptions& o, double max_delay_ms, int p,
                                  std::uint64_t delay_seed) {
  std::vector<double> half(static_cast<size_t>(p), (max_delay_ms + o.compute_ms) / 2.0);
  switch (o.mode) {
    case DelayMode::none: break;
    case DelayMode::one_late:
      // The late rank's arrival is max_delay later than the others'. Fig. 9's pseudo-code
      // reads halfTime += maxDelay (2 x maxDelay in total, as halfTime is slept twice), but
      // the paper's text ("delayed for maxDelay") and its Table 3 (ring at 1000 ms max delay:
      // 1047 ms ~= 47/48 * 1000 + 68) show a total delay of maxDelay; we follow the latter.
      half[p > 1 ? 1 : 0] += max_delay_ms / 2.0;
      break;
    case DelayMode::rand_late: {
      Rng rng{delay_seed};
      for (double& h : half) h += rng.uniform01() * max_delay_ms / 2.0;  // total: U[0,max)
      break;
    }
    case DelayMode::k_late:
    case DelayMode::staggered: {
      // Which ranks are late, and for staggered in which order, is fixed for the run (persistent
      // stragglers, as one-late's rank 1, so a history predictor can learn them): the first K of a
      // permutation seeded by --seed alone. k-late: all K by max_delay; staggered: the i-th of
      // them by i/K x max_delay, i = 1..K.
      Rng rng{stream_seed(o.seed, kPurposeLateSet, 0, 0)};
      const int k = std::min(o.late_count, p);  // K < p was checked (check_mode_for_ranks)
      const std::vector<int> late = first_of_permutation(rng, p, k);
      for (int i = 0; i < k; ++i) {
        const double delay = o.mode == DelayMode::k_late ? max_delay_ms
                                                         : max_delay_ms * (i + 1) / k;
        half[static_cast<size_t>(late[i])] += delay / 2.0;
      }
      break;
    }
  }
  return half;
}

// ---------------------------------------------------------------------------------------------
// P's time line. The post-arrival time compares one rank's finish with another's arrival, so
// both must be read on one clock. Ranks on one node share BenchClock (steady_clock is the
// system-wide CLOCK_MONOTONIC on Linux; under SMPI it is the simulated MPI_Wtime); then the times
// are absolute. Across nodes (MPI_WTIME_IS_GLOBAL is false in Open MPI 4.1) every rank measures
// from its own exit from the iteration's barriers instead, which are as close to simultaneous as
// the ranks can make them: P is then off by the skew of the exits (docs/papcoll-bench.md).

double clock_s(BenchClock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

bool ranks_share_a_clock(MPI_Comm comm) {
#ifdef PAPCOLL_SMPI
  (void)comm;
  return true;
#else
  int p = 0, node_size = 0;
  MPI_Comm node;
  MPI_Comm_size(comm, &p);
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  int all = node_size == p ? 1 : 0;  // the same answer on every rank, whatever MPI does
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
#endif
}

// Called right after the barriers: 0 on a shared clock, else this rank's barrier exit.
double timeline_origin_s(bool shared_clock) {
  return shared_clock ? 0.0 : clock_s(BenchClock::now());
}

// ---- HOOK: edge(0.5), Fig. 9 line 12 -------------------------------------------------------
// The progress monitor (paper Sec. 3, docs/prediction.md): with --pat monitor this rank has done
// `fraction` of its computation; papcoll_monitor_edge() estimates the rest from the time since
// papcoll_monitor_begin() (called after the barriers) and the monitor's thread exchanges the
// estimate while the second sleep runs. It is called between the two sleeps; the second sleep
// runs to an absolute deadline, so time spent here does not shift this rank's arrival.
struct EdgeInfo {
  double fraction;     // 0.5
  double remaining_s;  // the second half of the emulated computation (not told to papcoll)
  int iteration;       // negative during warm-up
  const std::string* algorithm;
  papcoll_monitor monitor;  // NULL unless --pat monitor
};
int edge_hook(const EdgeInfo& info) {
  return info.monitor != nullptr ? papcoll_monitor_edge(info.monitor, info.fraction)
                                 : PAPCOLL_SUCCESS;
}
// ---------------------------------------------------------------------------------------------

// Mean absolute error (ms) between the pattern papcoll used and the injected one, both relative
// to their earliest rank.
double pattern_error_ms(const std::vector<double>& used_s, const std::vector<double>& injected_s) {
  const double lo_u = *std::min_element(used_s.begin(), used_s.end());
  const double lo_i = *std::min_element(injected_s.begin(), injected_s.end());
  double sum = 0;
  for (size_t i = 0; i < used_s.size(); ++i)
    sum += std::abs((used_s[i] - lo_u) - (injected_s[i] - lo_i));
  return sum / static_cast<double>(used_s.size()) * 1e3;
}

// One row of the tables: an algorithm run with one source of arrival patterns.
struct Variant {
  int algo;  // index into opt.algorithms
  PatMode pat;
};

std::vector<std::string> accepted_algorithms(const OpRunner& r) {
  std::vector<std::string> names;
  if (const char* list = papcoll_algorithms(r.collective))
    for (const std::string& a : split_commas(list))
      if (!a.empty()) names.push_back(a);
  // "native" is the benchmark's own (MPI directly, never through papcoll); "auto" lets papcoll
  // choose. Both may already be in papcoll's list.
  for (const char* extra : {"auto", "native"})
    if (std::find(names.begin(), names.end(), extra) == names.end()) names.push_back(extra);
  return names;
}

std::string mpi_library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string s(buf, static_cast<size_t>(std::max(len, 0)));
  const auto nl = s.find_first_of("\r\n");
  if (nl != std::string::npos) s.resize(nl);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  // Every rank parses the same argv with the same code (no MPI needed): all accept or all exit 2.
  // Parsed first because --pat monitor decides the thread level MPI is initialised with.
  BenchOptions opt;
  const ParseResult parsed = parse_bench_options(argc, argv, opt);
  int thread_level = MPI_THREAD_SINGLE;
  if (parsed.kind == ParseResult::run && uses_monitor_thread(opt))
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &thread_level);
  else
    MPI_Init(&argc, &argv);
  const MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const double wall_start = MPI_Wtime();
  auto finish = [](int code) {
    MPI_Finalize();
    return code;
  };

  if (parsed.kind == ParseResult::help) {
    if (rank == 0) std::cout << parsed.message;
    return finish(0);
  }
  auto usage_error = [&](const std::string& msg) {
    if (rank == 0)
      std::cerr << "papcoll-bench: " << msg << "\n(papcoll-bench --help lists the options)\n";
    return finish(2);
  };
  if (parsed.kind == ParseResult::error) return usage_error(parsed.message);
  const OpRunner* runner = find_runner(opt.op);
  if (!runner) {
    std::string known;
    for (const OpRunner& r : kOpRunners) known += (known.empty() ? "" : ", ") + std::string(r.name);
    return usage_error("--op: unknown operation '" + opt.op + "' (known: " + known + ")");
  }
  if (opt.algorithms.empty()) opt.algorithms = split_commas(runner->default_algorithms);
  if (std::string err = validate_algorithms(opt, accepted_algorithms(*runner)); !err.empty())
    return usage_error(err);
  if (std::string err = check_mode_for_ranks(opt, p); !err.empty()) return usage_error(err);

  // Fail before the sweep, not after it, if the JSON or CSV file cannot be written.
  for (const auto& [flag, path] :
       {std::pair<const char*, const std::string*>{"--json", &opt.json_path},
        {"--csv", &opt.csv_path}}) {
    int ok = 1;
    if (rank == 0 && !path->empty()) {
      std::ofstream probe(*path, std::ios::app);
      ok = probe.good() ? 1 : 0;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) return usage_error(std::string(flag) + ": cannot write '" + *path + "'");
  }

  // The monitors: one per pattern source that needs one, for the whole run. The call-site key of
  // the history predictor is the (configuration, variant): each row learns only from its own
  // earlier iterations, never from another algorithm's run of the same iteration.
  papcoll_monitor edge_monitor = nullptr, history_monitor = nullptr;
  std::vector<PatMode> monitors_needed = opt.pats;
  if (uses_monitor_thread(opt)) monitors_needed.push_back(PatMode::monitor);
  for (PatMode m : monitors_needed) {
    if (m != PatMode::monitor && m != PatMode::history) continue;
    if (m == PatMode::monitor && edge_monitor != nullptr) continue;
    papcoll_monitor_config mc;
    papcoll_monitor_config_init(&mc);
    mc.mode = m == PatMode::monitor ? PAPCOLL_MONITOR_EDGE : PAPCOLL_MONITOR_HISTORY;
    mc.predictor = opt.predictor == Predictor::last  ? PAPCOLL_PREDICT_LAST
                   : opt.predictor == Predictor::ema ? PAPCOLL_PREDICT_EMA
                                                     : PAPCOLL_PREDICT_SMA;
    mc.window = opt.window;
    mc.ema_alpha = opt.ema_alpha;
    mc.warmup_messages = opt.warmup_messages;
    papcoll_monitor& mon = m == PatMode::monitor ? edge_monitor : history_monitor;
    if (const int rc = papcoll_monitor_create_config(comm, &mc, &mon); rc != PAPCOLL_SUCCESS) {
      if (rank == 0)
        std::cerr << "papcoll-bench: --pat " << pat_mode_name(m) << ": " << papcoll_error_string(rc)
                  << ": " << papcoll_last_error() << "\n";
#ifdef PAPCOLL_SMPI
      if (rank == 0 && rc == PAPCOLL_ERR_THREAD)
        std::cerr << "papcoll-bench: SimGrid SMPI simulates no threads (MPI_THREAD_MULTIPLE is "
                     "never provided), so the monitor thread (--pat monitor, "
                     "--oracle-with-monitor) is unavailable; use --pat oracle or history\n";
#endif
      return finish(1);
    }
  }
  auto free_monitors = [&] {
    if (edge_monitor != nullptr) papcoll_monitor_free(&edge_monitor);
    if (history_monitor != nullptr) papcoll_monitor_free(&history_monitor);
  };

  RunInfo info;
  info.opt = opt;
  info.p = p;
  info.mpi_library = mpi_library_version();
  // papcoll's network parameters for the sweep, settled now rather than inside the first timed
  // (warm-up) call: the options' alpha and beta when both are given, else measured or cached
  // (docs/calibration.md). delta is computed from what papcoll runs with.
  papcoll_network_info net;
  papcoll_network_info_init(&net);
  {
    papcoll_options copt;
    papcoll_options_init(&copt);
    copt.alpha = opt.alpha;
    copt.beta = opt.beta;
    copt.gamma = opt.gamma;
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    if (papcoll_calibrate(comm, &copt) != PAPCOLL_SUCCESS ||
        papcoll_last_network(&net) != PAPCOLL_SUCCESS) {
      if (rank == 0)
        std::cerr << "papcoll-bench: papcoll_calibrate: " << papcoll_last_error() << "\n";
      return finish(1);
    }
    info.delta = delta_params(opt, net);
    info.delta.calibrate_call_s = MPI_Wtime() - t0;
  }
  info.shared_clock = ranks_share_a_clock(comm);
  MPI_Query_thread(&thread_level);
  info.thread_level = thread_level == MPI_THREAD_MULTIPLE     ? "MPI_THREAD_MULTIPLE"
                      : thread_level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                      : thread_level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                                                              : "MPI_THREAD_SINGLE";
  // The ranks' shares of a scatterv/gatherv (--counts-dist), the same on every rank.
  std::vector<double> speeds(static_cast<size_t>(p), 1.0);
  if (opt.counts_dist == CountsDist::cpu_speed_measured) {
    const double mine = measure_cpu_speed();
    MPI_Allgather(&mine, 1, MPI_DOUBLE, speeds.data(), 1, MPI_DOUBLE, comm);
  }
  const std::vector<double> rank_weights =
      counts_weights(opt.counts_dist, opt.counts_ratio, p, opt.seed, speeds);
  if (rank == 0) {
    print_header(std::cout, info);
    if (opt.op == "scatterv" || opt.op == "gatherv") {
      const double lo = *std::min_element(rank_weights.begin(), rank_weights.end());
      std::cout << "# portions (" << counts_dist_label(opt.counts_dist, opt.counts_ratio)
                << ") per rank, relative to the smallest:";
      for (double w : rank_weights) std::cout << ' ' << format_ms(w / lo);
      std::cout << "\n# link model: "
                << (opt.model_path.empty() ? "none (papcoll's alpha, beta)" : opt.model_path)
                << "\n";
    }
    std::cout.flush();
  }

  const int n_alg = static_cast<int>(opt.algorithms.size());
  std::vector<Variant> variants;
  for (int a = 0; a < n_alg; ++a)
    for (PatMode m : opt.pats) variants.push_back(Variant{a, m});
  const int n_var = static_cast<int>(variants.size());
  const int n_cfg = static_cast<int>(opt.sizes.size() * opt.max_delays_ms.size());
  const bool progress = rank == 0 && !opt.quiet;
  double last_progress = MPI_Wtime();
  std::vector<ConfigResult> configs;
  bool any_failure = false;
  // Per rank: elapsed, arrival, finish (the last two on P's time line).
  std::vector<double> all_times(3 * static_cast<size_t>(p));
  std::vector<double> all_arrivals(static_cast<size_t>(p)), all_finishes(static_cast<size_t>(p));

  int cfg_index = 0;
  for (const long long count : opt.sizes) {
    CaseParams cp;
    cp.count = count;
    cp.weights = rank_weights;
    cp.dtype = opt.dtype;
    cp.comm = comm;
    cp.rank = rank;
    cp.p = p;
    std::unique_ptr<OpCase> op_case;
    int alloc_ok = 1;
    try {
      op_case = runner->make(cp);
    } catch (const std::bad_alloc&) {
      alloc_ok = 0;
    }
    MPI_Allreduce(MPI_IN_PLACE, &alloc_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!alloc_ok) {
      if (rank == 0)
        std::cerr << "papcoll-bench: cannot allocate the buffers for --size " << count
                  << " on some rank\n";
      free_monitors();
      return finish(1);
    }

    for (const double max_delay : opt.max_delays_ms) {
      ConfigResult cr;
      cr.count = count;
      cr.max_delay_ms = max_delay;
      cr.algos.resize(static_cast<size_t>(n_var));
      for (int a = 0; a < n_var; ++a) {
        cr.algos[a].algorithm = opt.algorithms[variants[a].algo];
        cr.algos[a].pat = variants[a].pat;
        cr.algos[a].rank_sum_ms.assign(static_cast<size_t>(p), 0.0);
      }
      std::vector<bool> failed(static_cast<size_t>(n_var), false);
      if (progress && n_cfg > 1 && MPI_Wtime() - last_progress > 2.0) {
        std::fprintf(stderr, "papcoll-bench: [%d/%d] size=%s max-delay=%sms\n", cfg_index + 1,
                     n_cfg, format_count(count).c_str(), format_ms(max_delay).c_str());
        last_progress = MPI_Wtime();
      }

      std::vector<double> arrivals(static_cast<size_t>(p)), used(static_cast<size_t>(p));

      const int total_iters = opt.warmup + opt.iters;
      for (int step = 0; step < total_iters; ++step) {
        const int iteration = step - opt.warmup;  // negative: warm-up, discarded
        op_case->generate(stream_seed(opt.seed, kPurposeData, static_cast<std::uint64_t>(rank),
                                      static_cast<std::uint64_t>(cfg_index),
                                      static_cast<std::uint64_t>(step)),
                          opt.check);
        const std::vector<double> half = half_times_ms(
            opt, max_delay, p,
            stream_seed(opt.seed, kPurposeDelay, static_cast<std::uint64_t>(cfg_index),
                        static_cast<std::uint64_t>(step)));
        // The oracle arrival pattern: each rank's total emulated computation, in seconds.
        for (int r = 0; r < p; ++r) arrivals[r] = 2.0 * half[r] / 1000.0;
        const auto my_half = std::chrono::duration_cast<BenchClock::duration>(
            std::chrono::duration<double, std::milli>(half[rank]));

        // The variants in an order drawn anew each iteration (the same on every rank): a fixed
        // cyclic order, only rotated, put each variant after the same one every time, and what
        // that one leaves in the caches biased it alike in every iteration (measured: the
        // 16 KiB broadcast on gige-8x6, one variant 2 % slower behind one neighbour, 1 % faster
        // behind another).
        Rng order_rng{stream_seed(opt.seed, kPurposeOrder, static_cast<std::uint64_t>(cfg_index),
                                  static_cast<std::uint64_t>(step))};
        const std::vector<int> order = first_of_permutation(order_rng, n_var, n_var);
        for (int k = 0; k < n_var; ++k) {
          const int a = order[static_cast<size_t>(k)];
          if (failed[a]) continue;  // identical on all ranks (set from an allreduce)
          const std::string& alg = opt.algorithms[variants[a].algo];
          const PatMode pat = variants[a].pat;
          // "native" is MPI_Allreduce called directly: papcoll (and its monitor) is not involved.
          const bool through_papcoll = alg != "native";
          papcoll_options popt;
          papcoll_options_init(&popt);
          popt.blocks = opt.blocks;
          popt.alpha = opt.alpha;
          popt.beta = opt.beta;
          popt.gamma = opt.gamma;
          popt.algorithm = alg.c_str();
          popt.model_file = opt.model_path.empty() ? nullptr : opt.model_path.c_str();
          if (pat == PatMode::oracle) {
            popt.arrivals = arrivals.data();
            popt.arrivals_agreed = 1;
          }
          // --oracle-with-monitor: the monitor thread runs (begin, edge, exchange) but the
          // oracle's arrivals take precedence, so its side effects hit oracle runs as well.
          const bool edge_mode = pat == PatMode::monitor ||
                                 (pat == PatMode::oracle && opt.oracle_with_monitor);
          papcoll_monitor mon = nullptr;
          if (through_papcoll && edge_mode) mon = edge_monitor;
          if (through_papcoll && pat == PatMode::history) mon = history_monitor;
          popt.monitor = mon;
          popt.monitor_site = cfg_index * n_var + a;
          op_case->reset_output();

          MPI_Barrier(comm);
          MPI_Barrier(comm);
          // The origin of this rank's arrival and finish on P's time line (timeline_origin_s).
          const double origin = timeline_origin_s(info.shared_clock);
          // Fig. 9: the computation phase starts after the barriers (begin), edge(0.5) between
          // the two sleeps. Only the edge mode uses them; history needs nothing from the program.
          if (mon != nullptr && edge_mode) papcoll_monitor_begin(mon);
          const auto start = BenchClock::now();
          sleep_until(start + my_half);
          const int edge_rc = edge_hook(
              EdgeInfo{0.5, half[rank] / 1000.0, iteration, &alg, edge_mode ? mon : nullptr});
          sleep_until(start + 2 * my_half);

          const double arrival = clock_s(BenchClock::now()) - origin;
          const double t0 = MPI_Wtime();
          int rc = op_case->run(alg, &popt);
          const double t1 = MPI_Wtime();
          const double finish = clock_s(BenchClock::now()) - origin;
          // What papcoll ran (auto's choice) and the executor's costs it ran with, read before any
          // other papcoll call.
          const std::string ran = through_papcoll ? papcoll_last_algorithm() : "";
          papcoll_executor_costs costs;
          papcoll_executor_costs_init(&costs);
          if (through_papcoll) papcoll_last_executor_costs(&costs);
          if (rc == PAPCOLL_SUCCESS && edge_rc != PAPCOLL_SUCCESS) rc = edge_rc;

          // The pattern papcoll ran with: the oracle's, the monitor's agreed one, or none (all
          // equal). Identical on every rank, so rank 0's error is everyone's.
          bool have_pattern = through_papcoll;
          int source = PAPCOLL_PATTERN_NONE;
          if (pat == PatMode::oracle)
            used = arrivals;
          else
            std::fill(used.begin(), used.end(), 0.0);
          if (mon != nullptr && pat != PatMode::oracle &&
              papcoll_monitor_pattern(mon, used.data(), p, &source) != 0)
            have_pattern = false;
          const bool ok = rc == PAPCOLL_SUCCESS && (!opt.check || op_case->check());
          if (rc != PAPCOLL_SUCCESS) {
            const std::string msg = papcoll_last_error();
            std::fprintf(stderr, "papcoll-bench: rank %d: %s algorithm '%s' failed: %s: %s\n", rank,
                         opt.op.c_str(), alg.c_str(), papcoll_error_string(rc), msg.c_str());
            if (rank == 0 && cr.algos[a].error_message.empty())
              cr.algos[a].error_message = std::string(papcoll_error_string(rc)) + ": " + msg;
          }
          const double mine[3] = {t1 - t0, arrival, finish};
          MPI_Allgather(mine, 3, MPI_DOUBLE, all_times.data(), 3, MPI_DOUBLE, comm);
          int flags = (rc != PAPCOLL_SUCCESS ? 2 : 0) | (rc == PAPCOLL_SUCCESS && !ok ? 1 : 0);
          MPI_Allreduce(MPI_IN_PLACE, &flags, 1, MPI_INT, MPI_BOR, comm);

          AlgoResult& res = cr.algos[a];
          if (rc == PAPCOLL_SUCCESS) {
            res.step_overhead_s = costs.step_overhead;
            res.exchange_alpha_s = costs.exchange_alpha;
            res.exchange_beta_s_per_byte = costs.exchange_beta;
          }
          if (flags & 2) {
            ++res.error_iterations;
            failed[a] = true;
            if (res.error_message.empty())
              res.error_message = "failed on another rank (see stderr)";
            continue;
          }
          if (flags & 1) ++res.incorrect_iterations;
          if (iteration >= 0 && have_pattern) {
            res.pred_err_ms.push_back(pattern_error_ms(used, arrivals));
            if (mon != nullptr && pat != PatMode::oracle && source >= 0 && source < 3)
              ++res.source_counts[source];
          }
          if (iteration >= 0) {
            double sum = 0;
            for (int r = 0; r < p; ++r) {
              const double elapsed = all_times[3 * static_cast<size_t>(r)];
              sum += elapsed;
              res.rank_sum_ms[r] += elapsed * 1e3;
              all_arrivals[r] = all_times[3 * static_cast<size_t>(r) + 1];
              all_finishes[r] = all_times[3 * static_cast<size_t>(r) + 2];
            }
            res.samples_ms.push_back(sum / p * 1e3);
            if (!ran.empty()) {
              auto it = std::find_if(res.ran.begin(), res.ran.end(),
                                     [&](const auto& e) { return e.first == ran; });
              if (it == res.ran.end())
                res.ran.emplace_back(ran, 1);
              else
                ++it->second;
            }
            const PostArrival pa = post_arrival(all_arrivals, all_finishes);
            res.post_arrival_ms.push_back(pa.post_arrival_ms);
            res.arrival_lag_ms.push_back(pa.arrival_lag_ms);
          }
        }

        if (progress && MPI_Wtime() - last_progress > 2.0) {
          std::fprintf(stderr,
                       "papcoll-bench: [%d/%d] size=%s max-delay=%sms: iteration %d/%d "
                       "(with %d warm-up), %.0f s\n",
                       cfg_index + 1, n_cfg, format_count(count).c_str(),
                       format_ms(max_delay).c_str(), step + 1, total_iters, opt.warmup,
                       MPI_Wtime() - wall_start);
          last_progress = MPI_Wtime();
        }
      }

      for (const AlgoResult& r : cr.algos) any_failure = any_failure || !r.correct();
      if (rank == 0) {
        print_table(std::cout, info, cr);
        std::cout.flush();
      }
      configs.push_back(std::move(cr));
      ++cfg_index;
    }
  }

  info.wall_s = MPI_Wtime() - wall_start;
  int code = any_failure ? 1 : 0;
  if (rank == 0) {
    std::cout << "\n# wall time " << format_ms(info.wall_s) << " s"
              << (any_failure ? "; SOME RESULTS INCORRECT OR FAILED" : "") << "\n";
    const auto write_file = [&](const std::string& path, auto&& write) {
      if (path.empty()) return;
      std::ofstream out(path, std::ios::trunc);
      write(out, info, configs);
      out.close();
      if (!out) {
        std::cerr << "papcoll-bench: writing '" << path << "' failed\n";
        code = 1;
      }
    };
    write_file(opt.json_path, write_json);
    write_file(opt.csv_path, write_csv);
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, comm);
  free_monitors();
  return finish(code);
}
