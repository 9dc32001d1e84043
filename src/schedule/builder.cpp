#include "schedule/builder.hpp"

#include <algorithm>
#include <stdexcept>

namespace papcoll {

ScheduleBuilder::ScheduleBuilder(Collective collective, std::string algorithm, int p, int blocks,
                                 int root)
    : steps_(static_cast<size_t>(p)) {
  schedule_.collective = collective;
  schedule_.algorithm = std::move(algorithm);
  schedule_.p = p;
  schedule_.blocks = blocks;
  schedule_.root = root;
}

void ScheduleBuilder::transfer(int round, int from, int to, std::vector<int> blocks,
                               Combine combine) {
  if (blocks.empty()) return;
  if (from == to) throw std::logic_error("schedule transfer from a rank to itself");
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  Step& s = steps_[static_cast<size_t>(from)][round];
  s.round = round;
  s.ops.push_back(Op{OpKind::send, to, blocks, Combine::none});
  Step& r = steps_[static_cast<size_t>(to)][round];
  r.round = round;
  r.ops.push_back(Op{OpKind::recv, from, std::move(blocks), combine});
}

Schedule ScheduleBuilder::build() && {
  schedule_.ranks.resize(steps_.size());
  for (size_t r = 0; r < steps_.size(); ++r) {
    schedule_.ranks[r].rank = static_cast<int>(r);
    for (auto& [round, step] : steps_[r]) schedule_.ranks[r].steps.push_back(std::move(step));
  }
  return std::move(schedule_);
}

std::vector<int> block_span(int first, int last) {
  std::vector<int> v;
  for (int b = first; b < last; ++b) v.push_back(b);
  return v;
}

std::vector<int> chunk_blocks(int blocks, int parts, int j) {
  const int first = static_cast<int>(static_cast<int64_t>(j) * blocks / parts);
  const int last = static_cast<int>(static_cast<int64_t>(j + 1) * blocks / parts);
  return block_span(first, last);
}

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::allreduce: return "allreduce";
    case Collective::reduce: return "reduce";
    case Collective::bcast: return "bcast";
    case Collective::allgatherv: return "allgatherv";
    case Collective::scatterv: return "scatterv";
    case Collective::gatherv: return "gatherv";
  }
  return "?";
}

bool parse_collective(const std::string& s, Collective* out) {
  for (Collective c : {Collective::allreduce, Collective::reduce, Collective::bcast,
                       Collective::allgatherv, Collective::scatterv, Collective::gatherv}) {
    if (s == collective_name(c)) {
      *out = c;
      return true;
    }
  }
  return false;
}

}  // namespace papcoll
