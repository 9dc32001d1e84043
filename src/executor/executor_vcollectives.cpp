#include "executor/executor_vcollectives.hpp"

#include "executor/shared_transport.hpp"

namespace papcoll {

MpiStatus execute_bcast(const RankSchedule& rs, int blocks, void* buffer, int64_t count,
                        const DatatypeLayout& layout, MPI_Comm comm, ScratchBuffer& scratch) {
  return execute_schedule(rs, blocks, ExecBuffer{buffer, count, layout, MPI_OP_NULL}, comm,
                          scratch);
}

std::vector<BlockRange> allgatherv_block_table(const int* recvcounts, const int* displs, int p,
                                               int n) {
  std::vector<BlockRange> table;
  table.reserve(static_cast<size_t>(p) * static_cast<size_t>(n));
  for (int o = 0; o < p; ++o)
    for (int j = 0; j < n; ++j) {
      const BlockRange r = block_range(recvcounts[o], n, j);
      table.push_back({static_cast<int64_t>(displs[o]) + r.offset, r.count});
    }
  return table;
}

MpiStatus execute_allgatherv(const RankSchedule& rs, const std::vector<BlockRange>& table,
                             void* recvbuf, const DatatypeLayout& layout, MPI_Comm comm,
                             ScratchBuffer& scratch, SharedWindow* window) {
  int64_t total = 0;
  for (const BlockRange& r : table) total += r.count;
  ExecBuffer buf{recvbuf, total, layout, MPI_OP_NULL};
  buf.block_table = &table;
  return execute_schedule_on(rs, static_cast<int>(table.size()), buf, comm, scratch, window);
}

}  // namespace papcoll
