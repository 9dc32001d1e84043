#include "schedule/group_phase.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace papcoll {
namespace {

BlockSet mapped_blocks(const BlockSet& s, std::span<const BlockSet> map) {
  if (map.empty()) return s;
  BlockSet out;
  std::vector<int> ids;
  bool ascending = true;
  int last = -1;
  s.for_each([&](int b) {
    for (const BlockRun& r : map[static_cast<size_t>(b)].runs()) {
      if (r.first <= last) ascending = false;
      if (ascending) out.append_range(r.first, r.end());
      for (int i = r.first; i < r.end(); ++i) ids.push_back(i);
      last = std::max(last, r.end() - 1);
    }
  });
  return ascending ? out : BlockSet(ids);
}

void check_phase(const GeneratorInput& in, const GroupPhase& g) {
  if (in.p != static_cast<int>(g.members.size()) || in.p < 1)
    throw std::invalid_argument("emit_phase: a phase of p=" + std::to_string(in.p) + " over " +
                                std::to_string(g.members.size()) + " members");
  if (g.stride < 1) throw std::invalid_argument("emit_phase: stride below 1");
}

// The phase's ranks for member indices [lo, hi), mapped into the whole.
std::vector<RankSchedule> run_phase(GeneratorFn generate, const GeneratorInput& in,
                                    const GroupPhase& g, int lo, int hi) {
  ScheduleSink sub(in.p, lo, hi);
  generate(in, sub);
  std::vector<RankSchedule> ranks = std::move(sub).take();
  for (RankSchedule& rs : ranks) {
    RankSchedule mapped;
    mapped.rank = g.members[static_cast<size_t>(rs.rank)];
    mapped.paced_bytes = rs.paced_bytes;
    mapped.ops.reserve(rs.ops.size());
    mapped.steps.reserve(rs.steps.size());
    for (const Step& st : rs.steps)
      for (const Op& op : rs.ops_of(st))
        mapped.add(g.first_round + g.stride * st.round,
                   Op{op.kind, g.members[static_cast<size_t>(op.peer)],
                      mapped_blocks(op.blocks, g.block_map), op.combine, op.paced});
    rs = std::move(mapped);
  }
  return ranks;
}

}  // namespace

void emit_phase(GeneratorFn generate, const GeneratorInput& in, const GroupPhase& g,
                ScheduleSink& out) {
  check_phase(in, g);
  int lo = in.p, hi = -1;
  for (int i = 0; i < in.p; ++i)
    if (out.wants(g.members[static_cast<size_t>(i)])) lo = std::min(lo, i), hi = std::max(hi, i);
  if (hi < 0) return;
  for (const RankSchedule& rs : run_phase(generate, in, g, lo, hi + 1)) {
    if (!out.wants(rs.rank)) continue;
    out.reserve(rs.rank, rs.ops.size());
    // The phase's paced sends stay paced in the whole (and only they: the other phases' ranks,
    // a late one among them, are no receivers the phase's generator predicted).
    if (rs.paced_bytes > 0 && g.keep_pacing) out.set_paced_bytes(rs.paced_bytes);
    for (const Step& st : rs.steps)
      for (const Op& op : rs.ops_of(st)) {
        if (op.kind == OpKind::send)
          out.send(rs.rank, st.round, op.peer, op.blocks, op.paced && g.keep_pacing);
        else
          out.recv(rs.rank, st.round, op.peer, op.blocks, op.combine);
      }
  }
}

RankSchedule phase_rank(GeneratorFn generate, const GeneratorInput& in, const GroupPhase& g,
                        int index) {
  check_phase(in, g);
  return std::move(run_phase(generate, in, g, index, index + 1).front());
}

std::vector<int64_t> last_receive_rounds(const RankSchedule& rs, int blocks) {
  std::vector<int64_t> last(static_cast<size_t>(std::max(blocks, 0)), -1);
  for (const Step& st : rs.steps)
    for (const Op& op : rs.ops_of(st))
      if (op.kind == OpKind::recv)
        op.blocks.for_each([&](int b) {
          if (b >= 0 && b < blocks) last[static_cast<size_t>(b)] = st.round;
        });
  return last;
}

}  // namespace papcoll
