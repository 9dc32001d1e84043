#include "executor/executor_scatter_gather.hpp"

#include <algorithm>
#include <cstring>

namespace papcoll {
namespace {

constexpr int kRootPortionTag = 1;  // the root's self-message that converts its own portion

// Which blocks this rank's steps send or receive.
std::vector<char> touched_blocks(const RankSchedule& rs, int p) {
  std::vector<char> touched(static_cast<size_t>(p), 0);
  for (const Op& op : rs.ops)
    op.blocks.for_each([&](int b) { touched[static_cast<size_t>(b)] = 1; });
  return touched;
}

bool has_receive(const RankSchedule& rs) {
  for (const Op& op : rs.ops)
    if (op.kind == OpKind::recv) return true;
  return false;
}

// Places the blocks marked in `which` one after the other, in block order; the others get empty
// ranges (this rank's steps never name them). Returns the bytes needed.
int64_t compact_table(const std::vector<char>& which, const std::vector<long long>& bytes,
                      std::vector<BlockRange>* table) {
  table->assign(bytes.size(), BlockRange{0, 0});
  int64_t at = 0;
  for (size_t i = 0; i < bytes.size(); ++i)
    if (which[i]) {
      (*table)[i] = BlockRange{at, bytes[i]};
      at += bytes[i];
    }
  return at;
}

// compact_table's layout in the communicator's `work` buffer (never a null pointer).
char* compact_buffer(const std::vector<char>& which, const std::vector<long long>& bytes,
                     std::vector<BlockRange>* table, CommContext& ctx) {
  return ctx.work.reserve(std::max<int64_t>(1, compact_table(which, bytes, table)));
}

// Block i at its displacement in the root's buffer of a dense type, where its bytes are exactly
// [displs[i] * extent, + bytes[i]). The root's own block is not moved by the schedule.
void in_place_table(const RootPortions& all, const std::vector<long long>& bytes, int root,
                    std::vector<BlockRange>* table) {
  table->assign(bytes.size(), BlockRange{0, 0});
  for (size_t i = 0; i < bytes.size(); ++i)
    if (static_cast<int>(i) != root)
      (*table)[i] = BlockRange{static_cast<int64_t>(all.displs[i]) * all.layout.extent, bytes[i]};
}

MpiStatus run(const RankSchedule& rs, const std::vector<BlockRange>& table, void* work,
              CommContext& ctx) {
  int64_t total = 0;
  for (const BlockRange& r : table) total += r.count;
  ExecBuffer buf{work, total, byte_layout(), MPI_OP_NULL};
  buf.block_table = &table;
  return execute_schedule(rs, static_cast<int>(table.size()), buf, ctx.comm, ctx.scratch);
}

// As run(), in the communicator's `work` buffer, which a failed run must give up: a receive may
// still be posted into it.
MpiStatus run_in_work(const RankSchedule& rs, const std::vector<BlockRange>& table, char* work,
                      CommContext& ctx) {
  const MpiStatus s = run(rs, table, work, ctx);
  if (!s.ok()) ctx.work.abandon();
  return s;
}

// n elements of `l` at src (an MPI buffer address) into exactly `bytes` bytes at dst.
MpiStatus pack_portion(char* dst, int64_t bytes, const void* src, int n, const DatatypeLayout& l,
                       MPI_Comm comm) {
  if (bytes == 0) return {};
  if (l.dense) {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    return {};
  }
  int pos = 0;
  PAPCOLL_MPI_TRY(MPI_Pack(src, n, l.type, dst, static_cast<int>(bytes), &pos, comm), "MPI_Pack");
  if (pos != bytes) return {MPI_ERR_TRUNCATE, "MPI_Pack (packed size is not the data size)"};
  return {};
}

MpiStatus unpack_portion(void* dst, int n, const DatatypeLayout& l, const char* src, int64_t bytes,
                         MPI_Comm comm) {
  if (bytes == 0) return {};
  if (l.dense) {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    return {};
  }
  int pos = 0;
  PAPCOLL_MPI_TRY(MPI_Unpack(src, static_cast<int>(bytes), &pos, dst, n, l.type, comm),
                  "MPI_Unpack");
  if (pos != bytes) return {MPI_ERR_TRUNCATE, "MPI_Unpack (packed size is not the data size)"};
  return {};
}

// The root's own portion from one side's datatype to the other's: a plain copy for the same type
// and count, else MPI converts between the two (equal type signatures) in a message to itself.
MpiStatus convert_portion(void* dst, int dst_count, const DatatypeLayout& dst_l, const void* src,
                          int src_count, const DatatypeLayout& src_l, const CommContext& ctx) {
  if (static_cast<long long>(dst_count) * dst_l.size == 0) return {};
  if (dst_l.type == src_l.type && dst_count == src_count)
    return copy_elements(dst, src, dst_count, dst_l, ctx.comm);
  return mpi_check(MPI_Sendrecv(src, src_count, src_l.type, ctx.rank, kRootPortionTag, dst,
                                dst_count, dst_l.type, ctx.rank, kRootPortionTag, ctx.comm,
                                MPI_STATUS_IGNORE),
                   "MPI_Sendrecv");
}

// The only blocks of a non-root are its own: it can run on its own buffer directly.
bool leaf_on_own_buffer(const std::vector<char>& touched, int rank, const OwnPortion& own) {
  if (!own.usable || !own.layout.dense) return false;
  for (size_t i = 0; i < touched.size(); ++i)
    if (touched[i] && static_cast<int>(i) != rank) return false;
  return true;
}

}  // namespace

MpiStatus execute_scatterv(const RankSchedule& rs, const std::vector<long long>& bytes, int root,
                           const RootPortions& all, const OwnPortion& own, bool in_place,
                           CommContext& ctx) {
  const int p = static_cast<int>(bytes.size()), rank = ctx.rank;
  std::vector<BlockRange> table;
  if (rank == root) {
    // The root only sends, so sendbuf is never written.
    if (has_receive(rs)) return {MPI_ERR_INTERN, "execute_scatterv (the root receives)"};
    if (all.layout.dense) {
      in_place_table(all, bytes, root, &table);
      const MpiStatus s = run(rs, table, all.buf, ctx);
      if (!s.ok()) return s;
    } else {
      const std::vector<char> touched = touched_blocks(rs, p);
      char* work = compact_buffer(touched, bytes, &table, ctx);
      for (int i = 0; i < p; ++i)
        if (touched[i]) {
          const MpiStatus s = pack_portion(work + table[i].offset, bytes[i],
                                           all.layout.at(all.buf, all.displs[i]), all.counts[i],
                                           all.layout, ctx.comm);
          if (!s.ok()) return s;
        }
      const MpiStatus s = run_in_work(rs, table, work, ctx);
      if (!s.ok()) return s;
    }
    if (in_place) return {};
    return convert_portion(own.buf, own.count, own.layout, all.layout.at(all.buf, all.displs[root]),
                           all.counts[root], all.layout, ctx);
  }

  std::vector<char> touched = touched_blocks(rs, p);
  if (leaf_on_own_buffer(touched, rank, own)) {
    table.assign(static_cast<size_t>(p), BlockRange{0, 0});
    table[rank] = BlockRange{0, bytes[rank]};
    return run(rs, table, own.buf, ctx);
  }
  touched[rank] = 1;
  char* work = compact_buffer(touched, bytes, &table, ctx);
  const MpiStatus s = run_in_work(rs, table, work, ctx);
  if (!s.ok() || !own.usable) return s;
  return unpack_portion(own.buf, own.count, own.layout, work + table[rank].offset, bytes[rank],
                        ctx.comm);
}

MpiStatus execute_gatherv(const RankSchedule& rs, const std::vector<long long>& bytes, int root,
                          const RootPortions& all, const OwnPortion& own, bool in_place,
                          CommContext& ctx) {
  const int p = static_cast<int>(bytes.size()), rank = ctx.rank;
  std::vector<BlockRange> table;
  if (rank == root) {
    // First the own portion: the children are still gathering theirs.
    if (!in_place) {
      const MpiStatus s = convert_portion(all.layout.at(all.buf, all.displs[root]),
                                          all.counts[root], all.layout, own.buf, own.count,
                                          own.layout, ctx);
      if (!s.ok()) return s;
    }
    if (all.layout.dense) {
      in_place_table(all, bytes, root, &table);
      return run(rs, table, all.buf, ctx);
    }
    const std::vector<char> touched = touched_blocks(rs, p);
    char* work = compact_buffer(touched, bytes, &table, ctx);
    const MpiStatus s = run_in_work(rs, table, work, ctx);
    if (!s.ok()) return s;
    for (int i = 0; i < p; ++i)
      if (touched[i]) {
        const MpiStatus u = unpack_portion(all.layout.at(all.buf, all.displs[i]), all.counts[i],
                                           all.layout, work + table[i].offset, bytes[i], ctx.comm);
        if (!u.ok()) return u;
      }
    return {};
  }

  std::vector<char> touched = touched_blocks(rs, p);
  if (leaf_on_own_buffer(touched, rank, own)) {
    // A leaf only sends: sendbuf is never written.
    if (has_receive(rs)) return {MPI_ERR_INTERN, "execute_gatherv (a leaf receives)"};
    table.assign(static_cast<size_t>(p), BlockRange{0, 0});
    table[rank] = BlockRange{0, bytes[rank]};
    return run(rs, table, own.buf, ctx);
  }
  touched[rank] = 1;
  char* work = compact_buffer(touched, bytes, &table, ctx);
  char* mine = work + table[rank].offset;
  if (own.usable) {
    const MpiStatus s = pack_portion(mine, bytes[rank], own.buf, own.count, own.layout, ctx.comm);
    if (!s.ok()) return s;
  } else if (bytes[rank] > 0) {
    std::memset(mine, 0, static_cast<size_t>(bytes[rank]));
  }
  return run_in_work(rs, table, work, ctx);
}

}  // namespace papcoll
