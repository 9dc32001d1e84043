// The one schedule representation every algorithm emits and every consumer (verifier, cost model,
// MPI executor, JSON writer) reads. No MPI here: generators are pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace papcoll {

enum class Collective { allreduce, reduce, bcast, allgatherv, scatterv, gatherv };

enum class OpKind { send, recv };

// What a receive does with the incoming blocks: fold them into the local partial result (reduce) or
// overwrite the local blocks (copy). Sends carry Combine::none.
enum class Combine { none, reduce, copy };

struct Op {
  OpKind kind = OpKind::send;
  int peer = 0;
  std::vector<int> blocks;  // ascending, no duplicates
  Combine combine = Combine::none;
};

// All ops of one rank in one round. Sends read the rank's state before this step's receives are
// combined, so a block may be sent and overwritten/reduced in the same step.
struct Step {
  int round = 0;
  std::vector<Op> ops;
};

struct RankSchedule {
  int rank = 0;
  std::vector<Step> steps;  // strictly increasing rounds
};

struct Schedule {
  Collective collective = Collective::allreduce;
  std::string algorithm;
  int p = 1;
  int root = -1;  // -1: no root
  int blocks = 1;
  std::vector<RankSchedule> ranks;  // ranks[r].rank == r
};

const char* collective_name(Collective c);
bool parse_collective(const std::string& s, Collective* out);

}  // namespace papcoll
