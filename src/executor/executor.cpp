// Execution model. A rank walks its steps in order; per step it posts all receives, then all sends,
// waits for the receives and combines them. There is no barrier per round: a rank only waits for
// its own messages, so early ranks run ahead as far as their data allows.
//
// Why this cannot deadlock: before posting the operations of its round-t step a rank blocks only
// on messages of earlier rounds, and afterwards only on messages of rounds <= t. By induction over
// rounds, every rank eventually posts every round-t operation, so each message is matched.
//
// Message matching: tag = round (mod a bound every MPI supports). Two messages between the same
// pair with the same tag (same step, or rounds 32767 apart) are posted in the same order on both
// sides, and MPI's non-overtaking rule matches them in that order.
//
// Sends stay pending past their step, as the paper's non-blocking sends do, because the receiver
// may be late. A pending send reads the work buffer, so before a receive overwrites or reduces a
// block, exactly the pending sends that read that block are waited for.
//
// Paced sends (Op::paced, where the generator predicts the receiver present; docs/algorithms.md,
// "Paced sends"): those of at least RankSchedule::paced_bytes are synchronous, and a step posts
// them only once the rank's earlier paced sends are complete, so a rank that fell behind (or, as
// a broadcast's root, receives nothing) does not put several rounds' messages on its link at
// once. That wait is on messages of earlier rounds, so the induction above still holds.
//
// Deferred initial values (ExecBuffer::initial): a block's own value stays in the caller's send
// buffer until the block is first written or combined; sends of such blocks read it there, a
// receive that overwrites a block needs no copy at all, and a block a receive combines into is
// copied just before the receive completes. Whatever is left is copied at the end.
#include "executor/executor.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include "executor/shared_transport.hpp"
#include "schedule/blocks.hpp"

namespace papcoll {

char* ScratchBuffer::reserve(int64_t bytes) {
  if (bytes > size_) {
    data_.reset(new char[static_cast<size_t>(bytes)]);
    size_ = bytes;
  }
  return data_.get();
}

void ScratchBuffer::abandon() {
  (void)data_.release();  // intentional leak, see header
  size_ = 0;
}

namespace {

constexpr int kTagBound = 32767;  // MPI guarantees MPI_TAG_UB >= 32767
constexpr int64_t kScratchAlign = 64;

int tag_of(int round) { return ((round % kTagBound) + kTagBound) % kTagBound; }

struct Range {
  int64_t offset;  // elements
  int64_t count;
};

// Element ranges covered by a block list, adjacent blocks merged, empty blocks dropped. Both sides
// of a message compute the same ranges, so a message of 0 elements is skipped by both.
void ranges_of(const BlockSet& blocks, const ExecBuffer& buf, int nblocks,
               std::vector<Range>& out) {
  out.clear();
  auto add = [&](const BlockRange& r) {
    if (r.count == 0) return;
    if (!out.empty() && out.back().offset + out.back().count == r.offset)
      out.back().count += r.count;
    else
      out.push_back({r.offset, r.count});
  };
  for (const BlockRun& run : blocks.runs()) {
    if (buf.block_table == nullptr) {  // the even split: a run is one range of elements
      const BlockRange first = block_range(buf.count, nblocks, run.first);
      const BlockRange last = block_range(buf.count, nblocks, run.end() - 1);
      add({first.offset, last.offset + last.count - first.offset});
      continue;
    }
    for (int b = run.first; b < run.end(); ++b) add((*buf.block_table)[static_cast<size_t>(b)]);
  }
}

int64_t total_of(const std::vector<Range>& ranges) {
  int64_t n = 0;
  for (const Range& r : ranges) n += r.count;
  return n;
}

struct RecvPlan {
  const Op* op;
  std::vector<Range> ranges;
  int64_t n;
  int64_t scratch_offset;  // -1: lands in the work buffer
};

class Run {
 public:
  Run(int blocks, const ExecBuffer& buf, MPI_Comm comm, ScratchBuffer& scratch)
      : blocks_(blocks),
        buf_(buf),
        comm_(comm),
        scratch_(scratch),
        readers_head_(static_cast<size_t>(blocks), -1),
        sent_in_step_(static_cast<size_t>(blocks), -1),
        in_work_(static_cast<size_t>(blocks), buf.initial == nullptr ? 1 : 0) {}

  MpiStatus run(const RankSchedule& rs) {
    // Below most MPIs' eager limits an ordinary send completes at once: only a synchronous one
    // tells when the receiver took it.
    paced_bytes_ = rs.paced_bytes > 0 ? rs.paced_bytes : kPacedBytesMost;
    for (size_t i = 0; i < rs.steps.size(); ++i) {
      const MpiStatus s = step(rs.ops_of(rs.steps[i]), rs.steps[i].round, static_cast<int>(i));
      if (!s.ok()) return s;
    }
    // Blocks never written: their own value, which no pending send reads from `work`.
    for (int b = 0; b < blocks_; ++b)
      if (const MpiStatus c = bring_in(b); !c.ok()) return c;
    if (sends_.empty()) return {};
    return wait_all(static_cast<int>(sends_.size()), sends_.data());
  }

 private:
  const DatatypeLayout& layout() const { return buf_.layout; }

  MpiStatus step(std::span<const Op> ops, int64_t round, int index) {
    const int tag = tag_of(round);
    for (const Op& op : ops)
      if (op.kind == OpKind::send) op.blocks.for_each([&](int b) { sent_in_step_[b] = index; });

    // A receive needs scratch if it reduces, or if it copies over a block this step also sends:
    // the send must read the old value, and it may still be in flight when the receive lands.
    plans_.clear();
    int64_t scratch_bytes = 0;
    for (const Op& op : ops) {
      if (op.kind != OpKind::recv) continue;
      RecvPlan p{&op, {}, 0, -1};
      ranges_of(op.blocks, buf_, blocks_, p.ranges);
      p.n = total_of(p.ranges);
      if (p.n == 0) continue;
      bool overlaps_send = false;
      op.blocks.for_each(
          [&](int b) { overlaps_send = overlaps_send || sent_in_step_[b] == index; });
      if (op.combine == Combine::reduce || overlaps_send) {
        p.scratch_offset = (scratch_bytes + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
        scratch_bytes = p.scratch_offset + layout().temp_bytes(p.n);
      }
      plans_.push_back(std::move(p));
    }
    // Safe to move the scratch: every receive of earlier steps has completed, and sends never
    // read scratch.
    char* scratch = scratch_.reserve(scratch_bytes);

    recv_reqs_.assign(plans_.size(), MPI_REQUEST_NULL);
    for (size_t i = 0; i < plans_.size(); ++i) {
      const RecvPlan& p = plans_[i];
      if (p.scratch_offset >= 0) {
        char* base = scratch + p.scratch_offset - layout().true_lb;
        PAPCOLL_MPI_TRY(MPI_Irecv(base, static_cast<int>(p.n), layout().type, p.op->peer, tag,
                                  comm_, &recv_reqs_[i]),
                        "MPI_Irecv");
      } else {
        const MpiStatus w = wait_readers(p.op->blocks);
        if (!w.ok()) return w;
        PAPCOLL_MPI_TRY(post(Post::recv, p.ranges, p.op->peer, tag, &recv_reqs_[i]), "MPI_Irecv");
        // Overwritten whole: the block's own value is not needed in `work`.
        p.op->blocks.for_each([&](int b) { in_work_[b] = 1; });
      }
    }

    bool waited = false;
    for (const Op& op : ops) {
      if (op.kind != OpKind::send) continue;
      ranges_of(op.blocks, buf_, blocks_, send_ranges_);
      if (send_ranges_.empty()) continue;
      // From the send buffer while every block of the message is still there (nothing to track:
      // that memory is never written), else from `work`, the rest brought in first.
      bool from_initial = buf_.initial != nullptr;
      op.blocks.for_each([&](int b) { from_initial = from_initial && !in_work_[b]; });
      if (!from_initial)
        for (const BlockRun& run : op.blocks.runs())
          for (int b = run.first; b < run.end(); ++b)
            if (const MpiStatus c = bring_in(b); !c.ok()) return c;
      const bool sync = op.paced && total_of(send_ranges_) * layout().size >= paced_bytes_;
      if (sync && !waited) {
        waited = true;
        for (; paced_done_ < paced_.size(); ++paced_done_)
          if (MpiStatus w = wait_all(1, &sends_[paced_[paced_done_]]); !w.ok()) return w;
      }
      MPI_Request req = MPI_REQUEST_NULL;
      PAPCOLL_MPI_TRY(post(sync ? Post::sync_send : Post::send, send_ranges_, op.peer, tag, &req,
                           from_initial ? const_cast<void*>(buf_.initial) : buf_.work),
                      sync ? "MPI_Issend" : "MPI_Isend");
      const int id = static_cast<int>(sends_.size());
      sends_.push_back(req);
      if (sync) paced_.push_back(id);
      if (from_initial) continue;
      op.blocks.for_each([&](int b) {
        readers_.push_back({id, readers_head_[b]});
        readers_head_[b] = static_cast<int>(readers_.size()) - 1;
      });
    }
    // Blocks a receive combines into, copied while the messages travel (no pending send reads
    // them from `work`: they were not there).
    for (const RecvPlan& p : plans_)
      if (p.op->combine == Combine::reduce)
        for (const BlockRun& run : p.op->blocks.runs())
          for (int b = run.first; b < run.end(); ++b)
            if (const MpiStatus c = bring_in(b); !c.ok()) return c;

    if (MpiStatus w = wait_all(static_cast<int>(recv_reqs_.size()), recv_reqs_.data()); !w.ok())
      return w;

    for (const RecvPlan& p : plans_) {
      if (p.scratch_offset < 0) continue;
      const MpiStatus w = wait_readers(p.op->blocks);
      if (!w.ok()) return w;
      const char* in = scratch + p.scratch_offset - layout().true_lb;
      int64_t done = 0;
      for (const Range& r : p.ranges) {
        const char* src = layout().at(in, done);
        char* dst = layout().at(buf_.work, r.offset);
        if (p.op->combine == Combine::reduce) {
          PAPCOLL_MPI_TRY(MPI_Reduce_local(src, dst, static_cast<int>(r.count), layout().type,
                                           buf_.op),
                          "MPI_Reduce_local");
        } else {
          const MpiStatus c = copy_elements(dst, src, r.count, layout(), comm_);
          if (!c.ok()) return c;
        }
        done += r.count;
      }
      p.op->blocks.for_each([&](int b) { in_work_[b] = 1; });
    }
    return {};
  }

  // Copies block b's own value from the send buffer into `work` unless it is there already.
  MpiStatus bring_in(int b) {
    if (in_work_[b]) return {};
    in_work_[b] = 1;
    const BlockRange r = buf_.block_table == nullptr ? block_range(buf_.count, blocks_, b)
                                                     : (*buf_.block_table)[static_cast<size_t>(b)];
    if (r.count == 0) return {};
    return copy_elements(layout().at(buf_.work, r.offset), layout().at(buf_.initial, r.offset),
                         r.count, layout(), comm_);
  }

  // Posts one message over `ranges` of the work buffer: directly for one range, through an
  // hindexed datatype for several (no packing copy; the type may be freed while in flight).
  enum class Post { recv, send, sync_send };
  int post(Post kind, const std::vector<Range>& ranges, int peer, int tag, MPI_Request* req,
           void* base_buffer = nullptr) {
    void* const buffer = base_buffer != nullptr ? base_buffer : buf_.work;
    auto start = [&](void* base, int n, MPI_Datatype t) {
      switch (kind) {
        case Post::send: return MPI_Isend(base, n, t, peer, tag, comm_, req);
        case Post::sync_send: return MPI_Issend(base, n, t, peer, tag, comm_, req);
        case Post::recv: break;
      }
      return MPI_Irecv(base, n, t, peer, tag, comm_, req);
    };
    if (ranges.size() == 1)
      return start(layout().at(buffer, ranges[0].offset), static_cast<int>(ranges[0].count),
                   layout().type);
    lens_.clear();
    displs_.clear();
    for (const Range& r : ranges) {
      lens_.push_back(static_cast<int>(r.count));
      displs_.push_back(static_cast<MPI_Aint>(r.offset * layout().extent));
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = MPI_Type_create_hindexed(static_cast<int>(ranges.size()), lens_.data(), displs_.data(),
                                      layout().type, &t);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Type_commit(&t);
    if (rc == MPI_SUCCESS) rc = start(buffer, 1, t);
    MPI_Type_free(&t);
    return rc;
  }

  // Completes every pending send that reads one of `blocks`.
  MpiStatus wait_readers(const BlockSet& blocks) {
    for (const BlockRun& run : blocks.runs())
      for (int b = run.first; b < run.end(); ++b) {
        for (int n = readers_head_[b]; n >= 0; n = readers_[n].next)
          PAPCOLL_MPI_TRY(MPI_Wait(&sends_[readers_[n].send], MPI_STATUS_IGNORE), "MPI_Wait");
        readers_head_[b] = -1;
      }
    return {};
  }

  struct ReaderNode {
    int send;  // index into sends_
    int next;  // older reader of the same block, -1: none
  };

  const int blocks_;
  const ExecBuffer& buf_;
  const MPI_Comm comm_;
  ScratchBuffer& scratch_;
  std::vector<MPI_Request> sends_;   // every send of the run; completed ones are null
  std::vector<int> paced_;           // the synchronous sends (indices into sends_), in order
  size_t paced_done_ = 0;            // paced_[..paced_done_) are complete
  int64_t paced_bytes_ = 0;          // paced sends of at least this many bytes are synchronous
  std::vector<ReaderNode> readers_;  // per block, a list of the sends that read it
  std::vector<int> readers_head_;    // newest reader node per block, -1: none pending
  std::vector<int> sent_in_step_;    // index of the last step that sent the block
  std::vector<char> in_work_;        // per block: `work` holds its value (ExecBuffer::initial)
  std::vector<RecvPlan> plans_;      // per-step working storage, kept to reuse allocations
  std::vector<MPI_Request> recv_reqs_;
  std::vector<Range> send_ranges_;
  std::vector<int> lens_;
  std::vector<MPI_Aint> displs_;
};

}  // namespace

MpiStatus execute_schedule(const RankSchedule& rs, int blocks, const ExecBuffer& buf, MPI_Comm comm,
                           ScratchBuffer& scratch) {
  if (buf.count == 0 || rs.steps.empty()) return {};
  if (buf.block_table != nullptr && static_cast<int>(buf.block_table->size()) != blocks)
    return {MPI_ERR_ARG, "execute_schedule: block table size differs from the block count"};
  Run run(blocks, buf, comm, scratch);
  const MpiStatus s = run.run(rs);
  if (!s.ok()) scratch.abandon();
  return s;
}

MpiStatus execute_allreduce(const RankSchedule& rs, int blocks, const void* sendbuf, void* recvbuf,
                            int64_t count, const DatatypeLayout& layout, MPI_Op op, MPI_Comm comm,
                            ScratchBuffer& scratch, SharedWindow* window) {
  ExecBuffer buf{recvbuf, count, layout, op};
  if (sendbuf != MPI_IN_PLACE) {
    // Over MPI the send buffer's blocks are copied as the schedule needs them (ExecBuffer::
    // initial); the shared-memory transport and an empty schedule take the whole copy first.
    if (window == nullptr && !rs.steps.empty() && count > 0) {
      buf.initial = sendbuf;
    } else {
      const MpiStatus c = copy_elements(recvbuf, sendbuf, count, layout, comm);
      if (!c.ok()) return c;
    }
  }
  return execute_schedule_on(rs, blocks, buf, comm, scratch, window);
}

}  // namespace papcoll
