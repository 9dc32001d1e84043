#include "executor/shared_transport.hpp"

#include <algorithm>
#include <vector>

#include "schedule/blocks.hpp"

namespace papcoll {
namespace {

constexpr int64_t kMaxWindowBytes = int64_t{1} << 30;

BlockRange range_of(const ExecBuffer& buf, int blocks, int b) {
  return buf.block_table != nullptr ? (*buf.block_table)[static_cast<size_t>(b)]
                                    : block_range(buf.count, blocks, b);
}

}  // namespace

bool fits_shared_window(int p, int64_t blocks, int64_t data_bytes) {
  // What SharedWindow::reserve may allocate for it, headroom included.
  const int64_t segment = 4096 + 2 * 8 * blocks + data_bytes * 3 / 2 + 4096;
  return blocks >= 0 && data_bytes >= 0 && segment <= kMaxWindowBytes / std::max(p, 1);
}

MpiStatus execute_schedule_shared(const RankSchedule& rs, int blocks, const ExecBuffer& buf,
                                  SharedWindow& win, MPI_Comm comm, ScratchBuffer& scratch) {
  const DatatypeLayout& layout = buf.layout;
  win.begin_call();
  // Per block: 0 not yet sent, 1 published, 2 published and since received into (a later send
  // would carry other data than the published copy: the schedule is not one-version).
  std::vector<char> published(static_cast<size_t>(blocks), 0);
  // Where block b lies in a segment: the blocks one after the other, in block order. Every rank
  // computes the same positions from the block lengths (agreed), whatever its own table's
  // offsets in its buffer (its displacements, gaps, a packed or an in-place buffer).
  std::vector<int64_t> segment_at(static_cast<size_t>(blocks) + 1, 0);
  for (int b = 0; b < blocks; ++b)
    segment_at[b + 1] = segment_at[b] + range_of(buf, blocks, b).count;
  char* own = win.data(rs.rank);
  for (const Step& st : rs.steps) {
    const std::span<const Op> ops = rs.ops_of(st);
    for (const Op& op : ops) {
      if (op.kind != OpKind::send) continue;
      for (int b : op.blocks.ids()) {
        char& state = published[static_cast<size_t>(b)];
        if (state == 2)
          return {MPI_ERR_INTERN,
                  "execute_schedule_shared: a block sent again after a receive into it"};
        if (state == 1) continue;
        state = 1;
        const BlockRange r = range_of(buf, blocks, b);
        if (r.count == 0) continue;  // both sides skip empty blocks
        const MpiStatus s = pack_elements(own + segment_at[b] * layout.size,
                                          layout.at(buf.work, r.offset), r.count, layout, comm);
        if (!s.ok()) return s;
        win.publish(b);
      }
    }
    for (const Op& op : ops) {
      if (op.kind != OpKind::recv) continue;
      const char* from = win.data(op.peer);
      for (int b : op.blocks.ids()) {
        if (published[static_cast<size_t>(b)] == 1) published[static_cast<size_t>(b)] = 2;
        const BlockRange r = range_of(buf, blocks, b);
        if (r.count == 0) continue;
        win.wait_published(op.peer, b);
        const char* packed = from + segment_at[b] * layout.size;
        char* dst = layout.at(buf.work, r.offset);
        if (op.combine == Combine::copy) {
          const MpiStatus s = unpack_elements(dst, packed, r.count, layout, comm);
          if (!s.ok()) return s;
          continue;
        }
        // A reduction reads the sender's segment in place where the packed form is the
        // datatype's own layout; otherwise the block is unpacked into scratch memory first.
        const void* in = packed;
        if (!layout.dense) {
          char* tmp = scratch.reserve(layout.temp_bytes(r.count)) - layout.true_lb;
          const MpiStatus s = unpack_elements(tmp, packed, r.count, layout, comm);
          if (!s.ok()) return s;
          in = tmp;
        }
        PAPCOLL_MPI_TRY(MPI_Reduce_local(in, dst, static_cast<int>(r.count), layout.type, buf.op),
                        "MPI_Reduce_local");
      }
    }
  }
  win.end_call();
  return {};
}

MpiStatus execute_schedule_on(const RankSchedule& rs, int blocks, const ExecBuffer& buf,
                              MPI_Comm comm, ScratchBuffer& scratch, SharedWindow* window) {
  return window != nullptr ? execute_schedule_shared(rs, blocks, buf, *window, comm, scratch)
                           : execute_schedule(rs, blocks, buf, comm, scratch);
}

}  // namespace papcoll
