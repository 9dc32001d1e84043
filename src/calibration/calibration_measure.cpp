#include "calibration/calibration_measure.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "calibration/calibration_plan.hpp"

namespace papcoll {
namespace {

// Tags on the private duplicate. Nothing else is in flight on it while the measurement runs (it
// happens inside a collective call, before the call's own messages).
constexpr int kTagPing = 32001;
constexpr int kTagPong = 32002;
constexpr int kTagStop = 32003;

constexpr double kFirstLargeBytes = 64 << 10;
constexpr double kMaxLargeBytes = 4 << 20;
// Ping-pong steps (a small and a large round trip each) per pair and phase.
constexpr int kMinSteps = 3;
constexpr int kMaxSteps = 24;

// What each rank reports to rank 0: one pair's estimates per phase (as its initiator) and its
// own gammas; NaN for what it did not measure.
enum Report {
  kIntraAlpha,
  kIntraBeta,
  kInterAlpha,
  kInterBeta,
  kGamma0,
  kReportDoubles = kGamma0 + kGammaClasses
};

// Seconds per byte of MPI_Reduce_local(MPI_SUM) over 64 KiB of each class, the fastest of a few
// runs within budget_s.
void measure_gammas(double budget_s, double* gamma) {
  constexpr int kBytes = 64 << 10;
  const MPI_Datatype types[kGammaClasses] = {MPI_FLOAT, MPI_DOUBLE, MPI_INT};
  const int sizes[kGammaClasses] = {4, 8, 4};
  std::vector<char> in(kBytes, 0), inout(kBytes, 0);
  const double start = MPI_Wtime();
  for (int c = 0; c < kGammaClasses; ++c) {
    const int n = kBytes / sizes[c];
    double best = std::numeric_limits<double>::infinity();
    // Untimed first run: page faults, cold caches.
    MPI_Reduce_local(in.data(), inout.data(), n, types[c], MPI_SUM);
    for (int rep = 0; rep < 5; ++rep) {
      const double t = MPI_Wtime();
      MPI_Reduce_local(in.data(), inout.data(), n, types[c], MPI_SUM);
      best = std::min(best, MPI_Wtime() - t);
      if (rep >= 1 && MPI_Wtime() - start > budget_s * (c + 1) / kGammaClasses) break;
    }
    gamma[c] = std::max(0.0, best) / kBytes;
  }
}

double round_trip(MPI_Comm comm, int partner, const char* data, int bytes, MpiStatus* s) {
  const double t = MPI_Wtime();
  int rc = MPI_Send(data, bytes, MPI_BYTE, partner, kTagPing, comm);
  if (rc == MPI_SUCCESS)
    rc = MPI_Recv(nullptr, 0, MPI_BYTE, partner, kTagPong, comm, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) *s = {rc, "MPI_Send/MPI_Recv (calibration)"};
  return MPI_Wtime() - t;
}

// The initiator's side of one pair: alpha and beta, within budget_s.
MpiStatus drive(MPI_Comm comm, int partner, double budget_s, double* alpha, double* beta) {
  MpiStatus s;
  double large = kFirstLargeBytes;
  std::vector<char> data(static_cast<size_t>(large), 0);
  round_trip(comm, partner, data.data(), 0, &s);  // untimed: connection set-up, the partner's
                                                  // arrival from the previous phase
  std::vector<double> small_rtt, large_rtt, prev_large_rtt;
  double prev_large = large;
  StepBudget budget(budget_s, kMinSteps, kMaxSteps);
  const double start = MPI_Wtime();
  while (s.ok() && budget.another(MPI_Wtime() - start)) {
    const double t_small = round_trip(comm, partner, data.data(), 0, &s);
    const double t_large = round_trip(comm, partner, data.data(), static_cast<int>(large), &s);
    budget.done(t_small + t_large);
    small_rtt.push_back(t_small);
    large_rtt.push_back(t_large);
    std::vector<double> smalls = small_rtt;
    if (grow_large_message(median_of(smalls), t_large, large, kMaxLargeBytes) &&
        larger_message_fits(MPI_Wtime() - start, t_small, t_large, budget_s)) {
      prev_large = large;
      prev_large_rtt = std::move(large_rtt);
      large_rtt.clear();
      large *= 4;
      data.resize(static_cast<size_t>(large), 0);
    }
  }
  if (large_rtt.empty()) {  // the budget ended right after a growth: the smaller size's samples
    large_rtt = std::move(prev_large_rtt);
    large = prev_large;
  }
  const int stop = MPI_Send(nullptr, 0, MPI_BYTE, partner, kTagStop, comm);
  if (s.ok() && stop != MPI_SUCCESS) s = {stop, "MPI_Send (calibration)"};
  const PairEstimate e = estimate_pair(small_rtt, large_rtt, large);
  *alpha = e.alpha;
  *beta = e.beta;
  return s;
}

// The other side: answers every ping with an empty pong until the initiator says stop. One
// receive of any tag into a buffer of the largest ping, never MPI_Probe: SMPI charges every
// probe's polling (smpi/iprobe, 100 us of simulated time per poll by default), which showed up as
// a 50 us alpha on a 1 us network.
MpiStatus respond(MPI_Comm comm, int partner) {
  const std::unique_ptr<char[]> buf(new char[static_cast<size_t>(kMaxLargeBytes)]);  // untouched
  for (;;) {
    MPI_Status st;
    PAPCOLL_MPI_TRY(MPI_Recv(buf.get(), static_cast<int>(kMaxLargeBytes), MPI_BYTE, partner,
                             MPI_ANY_TAG, comm, &st),
                    "MPI_Recv (calibration)");
    if (st.MPI_TAG == kTagStop) return {};
    PAPCOLL_MPI_TRY(MPI_Send(nullptr, 0, MPI_BYTE, partner, kTagPong, comm),
                    "MPI_Send (calibration)");
  }
}

MpiStatus run_phase(MPI_Comm comm, const Pairing& pair, double budget_s, double* alpha,
                    double* beta) {
  if (pair.partner < 0) return {};
  return pair.initiator ? drive(comm, pair.partner, budget_s, alpha, beta)
                        : respond(comm, pair.partner);
}

}  // namespace

MpiStatus measure_network(MPI_Comm comm, const NodeLayout& layout, double budget_s,
                          NetworkParams* out, double started) {
  const double start = started >= 0 ? started : MPI_Wtime();
  int rank = 0, p = 1;
  PAPCOLL_MPI_TRY(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  PAPCOLL_MPI_TRY(MPI_Comm_size(comm, &p), "MPI_Comm_size");
  const std::vector<int>& node_of = layout.node_of;
  const int nodes = layout.nodes();
  const bool intra_phase = nodes < p;  // some node holds two ranks or more
  const bool inter_phase = nodes > 1;
  const BudgetSplit split = split_budget(budget_s, intra_phase, inter_phase);

  std::vector<double> mine(kReportDoubles, kUnknown);
  measure_gammas(split.gamma_s, &mine[kGamma0]);
  if (intra_phase)
    if (MpiStatus s = run_phase(comm, intra_node_pair(node_of, rank), split.intra_s,
                                &mine[kIntraAlpha], &mine[kIntraBeta]);
        !s.ok())
      return s;
  if (inter_phase)
    if (MpiStatus s = run_phase(comm, inter_node_pair(node_of, rank), split.inter_s,
                                &mine[kInterAlpha], &mine[kInterBeta]);
        !s.ok())
      return s;

  std::vector<double> all(rank == 0 ? static_cast<size_t>(p) * kReportDoubles : 0);
  PAPCOLL_MPI_TRY(MPI_Gather(mine.data(), kReportDoubles, MPI_DOUBLE, all.data(), kReportDoubles,
                             MPI_DOUBLE, 0, comm),
                  "MPI_Gather (calibration)");
  double wire[NetworkParams::kWireDoubles] = {};
  if (rank == 0) {
    auto median_field = [&](int field) {
      std::vector<double> v;
      for (int r = 0; r < p; ++r) v.push_back(all[static_cast<size_t>(r) * kReportDoubles + field]);
      return median_of(v);
    };
    NetworkParams n;
    n.nodes = nodes;
    n.source = NetworkSource::measured;
    n.intra = {median_field(kIntraAlpha), median_field(kIntraBeta)};
    n.inter = {median_field(kInterAlpha), median_field(kInterBeta)};
    for (int c = 0; c < kGammaClasses; ++c) n.gamma[c] = median_field(kGamma0 + c);
    n.seconds = MPI_Wtime() - start;
    n.to_wire(wire);
  }
  PAPCOLL_MPI_TRY(MPI_Bcast(wire, NetworkParams::kWireDoubles, MPI_DOUBLE, 0, comm),
                  "MPI_Bcast (calibration)");
  *out = NetworkParams::from_wire(wire);
  return {};
}

}  // namespace papcoll
