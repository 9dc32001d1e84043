#include "papcoll_model_measure.hpp"

#include <algorithm>
#include <cmath>

#include "model/hockney_fit.hpp"
#include "model/pair_rounds.hpp"

namespace papcoll_model {
namespace {

using papcoll::LineFit;

constexpr int kTag = 7;

// The series of one pair, kept by its initiator (the lower rank a of {a, b}).
struct PairSeries {
  int a = 0, b = 0;
  std::vector<double> bytes_ab, time_ab;  // m bytes a -> b, 0 back
  std::vector<double> bytes_ba, time_ba;  // 0 bytes a -> b, m back
};

struct PairFit {
  LineFit ab, ba;
  double alpha = 0, alpha_ci = 0;  // half of the latency sum, both directions' intercepts averaged
};

PairFit fit_pair(const PairSeries& s) {
  PairFit f;
  f.ab = papcoll::fit_line(s.bytes_ab, s.time_ab, papcoll::relative_weights(s.bytes_ab, s.time_ab));
  f.ba = papcoll::fit_line(s.bytes_ba, s.time_ba, papcoll::relative_weights(s.bytes_ba, s.time_ba));
  const double sum = (f.ab.intercept + f.ba.intercept) / 2;
  f.alpha = sum / 2;
  f.alpha_ci =
      std::sqrt(f.ab.intercept_ci * f.ab.intercept_ci + f.ba.intercept_ci * f.ba.intercept_ci) / 4;
  return f;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// `reps` round trips with `peer`: the initiator sends `out` bytes and receives `back`; the other
// side mirrors it. Returns the initiator's median round-trip time (0 elsewhere).
double round_trips(MPI_Comm comm, bool initiator, int peer, int out, int back, int reps, char* buf,
                   int* mpi_rc) {
  std::vector<double> t;
  for (int r = 0; r < reps && *mpi_rc == MPI_SUCCESS; ++r) {
    if (initiator) {
      const double t0 = MPI_Wtime();
      *mpi_rc = MPI_Send(buf, out, MPI_BYTE, peer, kTag, comm);
      if (*mpi_rc == MPI_SUCCESS)
        *mpi_rc = MPI_Recv(buf, back, MPI_BYTE, peer, kTag, comm, MPI_STATUS_IGNORE);
      t.push_back(MPI_Wtime() - t0);
    } else {
      *mpi_rc = MPI_Recv(buf, out, MPI_BYTE, peer, kTag, comm, MPI_STATUS_IGNORE);
      if (*mpi_rc == MPI_SUCCESS) *mpi_rc = MPI_Send(buf, back, MPI_BYTE, peer, kTag, comm);
    }
  }
  return t.empty() ? 0 : median(std::move(t));
}

}  // namespace

std::string measure_link_model(MPI_Comm user_comm, const MeasureOptions& opt, MeasureResult* out) {
  MPI_Comm comm;
  MPI_Comm_dup(user_comm, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const auto rounds = papcoll::round_robin_rounds(p);
  std::vector<PairSeries> mine;  // the pairs this rank initiates
  for (const auto& round : rounds)
    for (const auto& [a, b] : round)
      if (a == rank) mine.push_back(PairSeries{a, b, {}, {}, {}, {}});
  const long long largest = *std::max_element(opt.sizes.begin(), opt.sizes.end());
  std::vector<char> buf(static_cast<size_t>(std::max(largest, 1LL)), 0);

  const double start = MPI_Wtime();
  double worst_alpha = 0, worst_beta = 0;
  int sweeps = 0, mpi_rc = MPI_SUCCESS;
  while (true) {
    const double sweep_start = MPI_Wtime();
    for (const auto& round : rounds) {
      int peer = -1;
      for (const auto& [a, b] : round)
        if (a == rank || b == rank) peer = a == rank ? b : a;
      if (peer >= 0) {
        const bool initiator = rank < peer;
        PairSeries* s = nullptr;
        for (PairSeries& x : mine)
          if (x.b == peer) s = &x;
        for (long long m : opt.sizes)
          for (int dir = 0; dir < 2; ++dir) {
            const int out_bytes = dir == 0 ? static_cast<int>(m) : 0;
            const int back_bytes = dir == 0 ? 0 : static_cast<int>(m);
            if (sweeps == 0)  // warm-up: connections, pages, protocol switches
              round_trips(comm, initiator, peer, out_bytes, back_bytes, 1, buf.data(), &mpi_rc);
            const double t = round_trips(comm, initiator, peer, out_bytes, back_bytes, opt.reps,
                                         buf.data(), &mpi_rc);
            if (initiator) {
              (dir == 0 ? s->bytes_ab : s->bytes_ba).push_back(static_cast<double>(m));
              (dir == 0 ? s->time_ab : s->time_ba).push_back(t);
            }
          }
      }
      if (mpi_rc == MPI_SUCCESS) mpi_rc = MPI_Barrier(comm);
    }
    ++sweeps;
    // Agree on the verdict: the worst estimate over all pairs, the time spent and MPI's health.
    double local[3] = {0, 0, mpi_rc == MPI_SUCCESS ? 0.0 : 1.0};
    for (const PairSeries& s : mine) {
      const PairFit f = fit_pair(s);
      local[0] = std::max(local[0], papcoll::relative_ci(f.alpha, f.alpha_ci));
      local[1] = std::max({local[1], papcoll::relative_ci(f.ab.slope, f.ab.slope_ci),
                           papcoll::relative_ci(f.ba.slope, f.ba.slope_ci)});
      if (!f.ab.ok || !f.ba.ok) local[0] = local[1] = HUGE_VAL;
    }
    double global[3];
    MPI_Allreduce(local, global, 3, MPI_DOUBLE, MPI_MAX, comm);
    if (global[2] > 0) {
      MPI_Comm_free(&comm);
      return "an MPI call failed during the ping-pongs";
    }
    worst_alpha = global[0];
    worst_beta = global[1];
    double times[2] = {MPI_Wtime() - start, MPI_Wtime() - sweep_start};
    MPI_Bcast(times, 2, MPI_DOUBLE, 0, comm);
    const bool tight = worst_alpha <= opt.target_ci && worst_beta <= opt.target_ci;
    if (sweeps >= opt.max_sweeps || (sweeps >= opt.min_sweeps && tight) ||
        times[0] + times[1] > opt.budget_s) {
      out->converged = tight;
      out->seconds = times[0];
      break;
    }
  }

  // Every initiator writes its pairs into p x p matrices; rank 0 sums them.
  const size_t pp = static_cast<size_t>(p) * static_cast<size_t>(p);
  std::vector<double> local(2 * pp, 0.0), global(2 * pp, 0.0);
  int clamped = 0;
  auto put = [&](double* m, int i, int j, double v) {
    if (!(v >= 0)) {
      ++clamped;
      v = 0;
    }
    m[static_cast<size_t>(i) * p + j] = v;
  };
  for (const PairSeries& s : mine) {
    const PairFit f = fit_pair(s);
    put(local.data(), s.a, s.b, f.alpha);
    put(local.data(), s.b, s.a, f.alpha);
    put(local.data() + pp, s.a, s.b, f.ab.slope);
    put(local.data() + pp, s.b, s.a, f.ba.slope);
  }
  MPI_Reduce(local.data(), global.data(), static_cast<int>(2 * pp), MPI_DOUBLE, MPI_SUM, 0, comm);
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &clamped, &clamped, 1, MPI_INT, MPI_SUM, 0, comm);
  MPI_Comm_free(&comm);
  if (rank != 0) return "";
  out->sweeps = sweeps;
  out->worst_alpha_ci = worst_alpha;
  out->worst_beta_ci = worst_beta;
  out->clamped = clamped;
  papcoll::LinkModelResult r = papcoll::LinkModel::from_matrices(
      p, std::vector<double>(global.begin(), global.begin() + static_cast<std::ptrdiff_t>(pp)),
      std::vector<double>(global.begin() + static_cast<std::ptrdiff_t>(pp), global.end()));
  if (!r.ok()) return r.error;
  out->model = std::move(r.model);
  return "";
}

}  // namespace papcoll_model
