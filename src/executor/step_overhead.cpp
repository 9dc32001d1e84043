#include "executor/step_overhead.hpp"

#include <algorithm>
#include <cmath>

#include "executor/datatype_layout.hpp"

namespace papcoll {
namespace {

// Rank `rank`'s part of `rounds` rounds of a ring: send block 0 to the next rank, receive it from
// the previous one.
RankSchedule ring_rounds(int rank, int p, int rounds) {
  RankSchedule rs;
  rs.rank = rank;
  const int next = (rank + 1) % p, prev = (rank + p - 1) % p;
  for (int k = 0; k < rounds; ++k) {
    rs.add(k, Op{.kind = OpKind::send, .peer = next, .blocks = BlockSet::range(0, 1)});
    rs.add(k, Op{.kind = OpKind::recv,
                 .peer = prev,
                 .blocks = BlockSet::range(0, 1),
                 .combine = Combine::copy});
  }
  return rs;
}

}  // namespace

MpiStatus measure_ring_round(MPI_Comm comm, ScratchBuffer& scratch, double* out) {
  *out = 0;
  int rank = 0, p = 1;
  if (int rc = MPI_Comm_rank(comm, &rank); rc != MPI_SUCCESS) return {rc, "MPI_Comm_rank"};
  if (int rc = MPI_Comm_size(comm, &p); rc != MPI_SUCCESS) return {rc, "MPI_Comm_size"};
  if (p < 2) return {};
  int value = rank;
  ExecBuffer buf;
  buf.work = &value;
  buf.count = 1;
  if (MpiStatus s = query_layout(MPI_INT, &buf.layout); !s.ok()) return s;
  const RankSchedule warm = ring_rounds(rank, p, kStepOverheadWarmRounds);
  const RankSchedule timed = ring_rounds(rank, p, kStepOverheadRounds);
  if (MpiStatus s = execute_schedule(warm, 1, buf, comm, scratch); !s.ok()) return s;
  // The timed ring starts from a barrier's exit, whose skew (about a latency) is spread over the
  // rounds.
  if (int rc = MPI_Barrier(comm); rc != MPI_SUCCESS) return {rc, "MPI_Barrier"};
  const double t0 = MPI_Wtime();
  if (MpiStatus s = execute_schedule(timed, 1, buf, comm, scratch); !s.ok()) return s;
  const double mine = (MPI_Wtime() - t0) / kStepOverheadRounds;
  double slowest = 0;
  if (int rc = MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm); rc != MPI_SUCCESS)
    return {rc, "MPI_Allreduce"};
  *out = std::isfinite(slowest) && slowest > 0 ? slowest : 0.0;
  return {};
}

double step_overhead_from_round(double round_seconds, const CostParams& cost) {
  const double alpha = std::max(cost.alpha, cost.intra_alpha);
  if (!std::isfinite(round_seconds) || !std::isfinite(alpha)) return 0;
  return std::max(0.0, round_seconds - std::max(0.0, alpha));
}

}  // namespace papcoll
