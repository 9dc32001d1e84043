#include "executor/executor_reduce.hpp"

#include <algorithm>

#include "executor/shared_transport.hpp"

namespace papcoll {
namespace {

bool receives_anything(const RankSchedule& rs) {
  return std::any_of(rs.ops.begin(), rs.ops.end(),
                     [](const Op& op) { return op.kind == OpKind::recv; });
}

}  // namespace

MpiStatus execute_reduce(const RankSchedule& rs, int blocks, int rank, int root,
                         const void* sendbuf, void* recvbuf, int64_t count,
                         const DatatypeLayout& layout, MPI_Op op, MPI_Comm comm,
                         ScratchBuffer& scratch, ScratchBuffer& work, SharedWindow* window) {
  if (count == 0) return {};
  auto run = [&](const ExecBuffer& buf) {
    return execute_schedule_on(rs, blocks, buf, comm, scratch, window);
  };
  if (rank == root) {
    if (sendbuf != MPI_IN_PLACE) {
      const MpiStatus c = copy_elements(recvbuf, sendbuf, count, layout, comm);
      if (!c.ok()) return c;
    }
    return run(ExecBuffer{recvbuf, count, layout, op});
  }
  if (!receives_anything(rs)) {
    // Only sends: the executor reads the buffer and never writes it, so the caller's send buffer
    // serves as the work buffer as it is (const_cast only to fit ExecBuffer).
    return run(ExecBuffer{const_cast<void*>(sendbuf), count, layout, op});
  }
  // MPI's buffer address of the work buffer: element i's data starts at i*extent + true_lb, so the
  // memory reserved from `work` begins at the first byte MPI touches.
  char* mem = work.reserve(layout.temp_bytes(count));
  void* base = mem - layout.true_lb;
  MpiStatus s = copy_elements(base, sendbuf, count, layout, comm);
  if (s.ok()) s = run(ExecBuffer{base, count, layout, op});
  // A failed run may leave receives posted into the work buffer: never reuse that memory.
  if (!s.ok()) work.abandon();
  return s;
}

}  // namespace papcoll
