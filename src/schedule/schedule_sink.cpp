#include "schedule/schedule_sink.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace papcoll {

ScheduleSink::ScheduleSink(int p, int first, int last) : p_(p), first_(first), last_(last) {
  if (p < 1 || first < 0 || last > p || first > last)
    throw std::invalid_argument("ScheduleSink: ranks [" + std::to_string(first) + ", " +
                                std::to_string(last) + ") of p=" + std::to_string(p));
  ranks_.resize(static_cast<size_t>(last - first));
}

void ScheduleSink::misuse(int rank, const Op& op) const {
  if (!wants(rank)) throw std::logic_error("ScheduleSink: an op for a rank not asked for");
  (void)op;
  throw std::logic_error("schedule transfer from a rank to itself");
}

void ScheduleSink::add_unordered(RankOps& r, int64_t round, Op&& op) {
  if (r.ordered) {
    r.ordered = false;
    r.rounds.reserve(r.rs.ops.capacity());
    for (const Step& st : r.rs.steps) r.rounds.insert(r.rounds.end(), st.op_count, st.round);
  }
  r.rs.ops.push_back(std::move(op));
  r.rounds.push_back(round);
}

void ScheduleSink::reserve(int rank, size_t ops) {
  if (!wants(rank)) return;
  RankOps& r = ranks_[static_cast<size_t>(rank - first_)];
  r.rs.ops.reserve(ops);
  r.rs.steps.reserve(ops);
}

void ScheduleSink::transfer(int64_t round, int from, int to, const BlockSet& blocks,
                            Combine combine) {
  if (blocks.empty()) return;
  if (from == to) throw std::logic_error("schedule transfer from a rank to itself");
  if (wants(from)) add(from, round, Op{OpKind::send, to, blocks, Combine::none});
  if (wants(to)) add(to, round, Op{OpKind::recv, from, blocks, combine});
}

std::vector<RankSchedule> ScheduleSink::take() && {
  std::vector<RankSchedule> out(ranks_.size());
  for (size_t i = 0; i < ranks_.size(); ++i) {
    RankOps& r = ranks_[i];
    RankSchedule& rs = out[i];
    if (r.ordered) {
      rs = std::move(r.rs);
    } else {
      std::vector<size_t> order(r.rounds.size());
      for (size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return r.rounds[a] < r.rounds[b]; });
      rs.ops.reserve(order.size());
      for (size_t k : order) rs.add(r.rounds[k], std::move(r.rs.ops[k]));
    }
    rs.rank = first_ + static_cast<int>(i);
    bool any_paced = false;
    for (const Step& st : rs.steps)
      for (size_t k = st.first_op; k < static_cast<size_t>(st.first_op + st.op_count); ++k) {
        Op& op = rs.ops[k];
        if (op.kind == OpKind::send && st.round < paced_until_) op.paced = true;
        any_paced = any_paced || op.paced;
      }
    rs.paced_bytes = any_paced ? paced_bytes_ : 0;
  }
  ranks_.clear();
  return out;
}

BlockSet chunk_blocks(int blocks, int parts, int j) {
  const int first = static_cast<int>(static_cast<int64_t>(j) * blocks / parts);
  const int last = static_cast<int>(static_cast<int64_t>(j + 1) * blocks / parts);
  return BlockSet::range(first, last);
}

}  // namespace papcoll
