#include "executor/node_exchange.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

#include "executor/datatype_layout.hpp"

namespace papcoll {
namespace {

// Rank `rank`'s part of `exchanges` exchanges on its node (members ascending, the rank at
// position `me`): in each, block `me` to every other member and block j from member j, in shifts
// t = 1 .. c - 1 as two-level-rsag lists them (to the member t after, from the member t before).
// The buffer holds one block per member, so the exchange is an all-gather inside the node, whose
// messages are those of two-level-rsag's reduce-scatter and all-gather alike.
RankSchedule exchange_rounds(int rank, const std::vector<int>& members, int me, int exchanges) {
  RankSchedule rs;
  rs.rank = rank;
  const int c = static_cast<int>(members.size());
  for (int k = 0; k < exchanges; ++k)
    for (int t = 1; t < c; ++t) {
      const int to = (me + t) % c, from = (me - t + c) % c;
      rs.add(k,
             Op{.kind = OpKind::send, .peer = members[to], .blocks = BlockSet::range(me, me + 1)});
      rs.add(k, Op{.kind = OpKind::recv,
                   .peer = members[from],
                   .blocks = BlockSet::range(from, from + 1),
                   .combine = Combine::copy});
    }
  return rs;
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// Each of this rank's exchanges of pieces of `piece` bytes (a multiple of 4) with its node-mates,
// seconds per exchange, after untimed ones and a barrier (collective: every rank calls it).
MpiStatus time_exchange(MPI_Comm comm, const std::vector<int>& members, int rank, int me,
                        int64_t piece, void* memory, ScratchBuffer& scratch, double* seconds) {
  const int c = static_cast<int>(members.size());
  ExecBuffer buf;
  buf.work = memory;
  buf.count = c * (piece / 4);
  if (MpiStatus s = query_layout(MPI_INT, &buf.layout); !s.ok()) return s;
  if (c > 1) {
    const RankSchedule warm = exchange_rounds(rank, members, me, kNodeExchangeWarm);
    if (MpiStatus s = execute_schedule(warm, c, buf, comm, scratch); !s.ok()) return s;
  }
  // The timed exchanges start from a barrier's exit, whose skew is spread over them.
  if (int rc = MPI_Barrier(comm); rc != MPI_SUCCESS) return {rc, "MPI_Barrier"};
  *seconds = 0;
  if (c > 1) {
    const RankSchedule timed = exchange_rounds(rank, members, me, kNodeExchangeTimed);
    const double t0 = MPI_Wtime();
    if (MpiStatus s = execute_schedule(timed, c, buf, comm, scratch); !s.ok()) return s;
    *seconds = (MPI_Wtime() - t0) / kNodeExchangeTimed;
  }
  return {};
}

// The lower median (an element of `v`, so exact); 0 for none.
double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
  std::nth_element(v.begin(), mid, v.end());
  return std::isfinite(*mid) ? *mid : 0.0;
}

}  // namespace

int64_t node_exchange_piece_bytes(int largest_node) {
  constexpr int64_t kPiece = int64_t{64} << 10, kAll = int64_t{4} << 20, kLeast = int64_t{4} << 10;
  const int64_t c = std::max(1, largest_node);
  return std::max(kLeast, std::min(kPiece, kAll / c / 4 * 4));
}

ExchangeLine node_exchange_line(double small_seconds, double large_seconds, int node_size,
                                int64_t small, int64_t large) {
  if (node_size < 2 || small < 0 || large <= small || !std::isfinite(small_seconds) ||
      !std::isfinite(large_seconds) || !(small_seconds > 0) || !(large_seconds > 0))
    return {};
  const double messages = node_size - 1;
  ExchangeLine line;
  line.beta = std::max(0.0, (large_seconds - small_seconds) / (messages * double(large - small)));
  line.alpha = std::max(0.0, small_seconds / messages - line.beta * double(small));
  return line;
}

MpiStatus measure_node_exchange(MPI_Comm comm, const NodeLayout& nodes, ScratchBuffer& scratch,
                                ExchangeLine* out) {
  *out = {};
  int rank = 0, p = 1;
  if (int rc = MPI_Comm_rank(comm, &rank); rc != MPI_SUCCESS) return {rc, "MPI_Comm_rank"};
  if (int rc = MPI_Comm_size(comm, &p); rc != MPI_SUCCESS) return {rc, "MPI_Comm_size"};
  if (p < 2 || nodes.p() != p || nodes.largest_node() < 2) return {};
  const std::vector<int> members = nodes.ranks_on(nodes.node_of[static_cast<size_t>(rank)]);
  const int c = static_cast<int>(members.size());
  const int me =
      static_cast<int>(std::find(members.begin(), members.end(), rank) - members.begin());
  const int64_t large = node_exchange_piece_bytes(nodes.largest_node());
  // malloc, not new: under SMPI an allocation this large is folded onto memory every simulated
  // rank shares (--cfg=smpi/auto-shared-malloc-thresh), as the programs' own buffers are. A rank
  // alone on its node exchanges nothing but takes part in the barriers and the gather.
  std::unique_ptr<void, FreeDeleter> memory(
      c > 1 ? std::calloc(static_cast<size_t>(c), static_cast<size_t>(large)) : nullptr);
  // Agreed before any exchange: a rank without its buffer would leave its node-mates waiting for
  // it. Then nothing is measured anywhere (the port model stands).
  int have = c < 2 || memory != nullptr ? 1 : 0, all_have = 0;
  if (int rc = MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, comm); rc != MPI_SUCCESS)
    return {rc, "MPI_Allreduce"};
  if (all_have == 0) return {};
  double small_s = 0, large_s = 0;
  if (MpiStatus s = time_exchange(comm, members, rank, me, kNodeExchangeSmallPiece, memory.get(),
                                  scratch, &small_s);
      !s.ok())
    return s;
  if (MpiStatus s = time_exchange(comm, members, rank, me, large, memory.get(), scratch, &large_s);
      !s.ok())
    return s;
  const ExchangeLine own = node_exchange_line(small_s, large_s, c, kNodeExchangeSmallPiece, large);
  // The median rank's line, not the slowest's: a measurement made once has outliers that a
  // repeated exchange does not (under SMPI at 1024 ranks on opa-32x32 the 64 KiB exchange took
  // the median rank 0.31 ms and the slowest 3.2 ms, its first use of memory; the row's exchanges
  // then took about 0.3 ms each). Every rank sorts the same gathered lines, so the median is the
  // same everywhere; a rank alone on its node has none.
  const double local[2] = {own.alpha, own.beta};
  std::vector<double> all(2 * static_cast<size_t>(p));
  if (int rc = MPI_Allgather(local, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, comm);
      rc != MPI_SUCCESS)
    return {rc, "MPI_Allgather"};
  const std::vector<int> sizes = nodes.node_sizes();
  std::vector<double> alphas, betas;
  for (int r = 0; r < p; ++r)
    if (sizes[static_cast<size_t>(nodes.node_of[static_cast<size_t>(r)])] > 1 &&
        (all[2 * r] > 0 || all[2 * r + 1] > 0)) {
      alphas.push_back(all[2 * r]);
      betas.push_back(all[2 * r + 1]);
    }
  *out = {median(alphas), median(betas)};
  return {};
}

}  // namespace papcoll
