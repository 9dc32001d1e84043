// Hand-made schedules for the tests: a whole schedule from a list of transfers, and a rank's
// schedule with some ops removed (to check that consumers catch broken schedules); random arrival
// patterns for the generators' tests.
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "schedule/schedule.hpp"
#include "schedule/schedule_sink.hpp"

namespace papcoll {

class ScheduleBuilder {
 public:
  ScheduleBuilder(Collective c, std::string algorithm, int p, int blocks, int root = -1)
      : sink_(p, 0, p) {
    s_.collective = c;
    s_.algorithm = std::move(algorithm);
    s_.p = p;
    s_.blocks = blocks;
    s_.root = root;
  }
  void transfer(int64_t round, int from, int to, BlockSet blocks, Combine combine) {
    sink_.transfer(round, from, to, blocks, combine);
  }
  Schedule build() && {
    s_.ranks = std::move(sink_).take();
    return std::move(s_);
  }

 private:
  Schedule s_;
  ScheduleSink sink_;
};

// rs without the ops `drop` accepts (a step left without ops disappears).
template <typename Drop>
RankSchedule without_ops(const RankSchedule& rs, Drop drop) {
  RankSchedule out;
  out.rank = rs.rank;
  for (const Step& st : rs.steps)
    for (const Op& op : rs.ops_of(st))
      if (!drop(st, op)) out.add(st.round, Op(op));
  return out;
}

// Paced sends (Op::paced) as ScheduleSink::set_paced_until leaves them: the round below which
// every send of `s` is paced and from which none is (0: none paced), or -1 where the paced sends
// are no such prefix of the rounds.
inline int64_t paced_until(const Schedule& s) {
  int64_t until = 0;
  for (const RankSchedule& rs : s.ranks)
    for (const Step& st : rs.steps)
      for (const Op& op : rs.ops_of(st))
        if (op.paced) until = std::max(until, st.round + 1);
  for (const RankSchedule& rs : s.ranks)
    for (const Step& st : rs.steps)
      for (const Op& op : rs.ops_of(st))
        if (op.paced != (op.kind == OpKind::send && st.round < until)) return -1;
  return until;
}

// Whether every send of rs is paced (none of its receives: the flag is a send's).
inline bool every_send_paced(const RankSchedule& rs) {
  for (const Op& op : rs.ops)
    if (op.paced != (op.kind == OpKind::send)) return false;
  return true;
}

inline bool none_paced(const RankSchedule& rs) {
  return std::none_of(rs.ops.begin(), rs.ops.end(), [](const Op& op) { return op.paced; });
}

// Arrival times of p ranks: each on time with probability 1/4, else uniform in [0, 3 p tau) (tau:
// the time of a block round).
inline std::vector<double> random_arrivals(std::mt19937_64& rng, int p, double tau) {
  std::uniform_real_distribution<double> d(0, 3.0 * p * tau);
  std::vector<double> a(static_cast<size_t>(p));
  for (double& x : a) x = (rng() % 4 == 0) ? 0.0 : d(rng);
  return a;
}

}  // namespace papcoll

namespace papcoll {

// The schedule with each step's ops in a canonical order (receives first, then by peer; ops with
// the same kind and peer keep their order, which matters for matching): the order of a step's
// ops to different peers has no meaning to any consumer.
inline Schedule canonical(Schedule s) {
  for (RankSchedule& rs : s.ranks) {
    for (const Step& st : rs.steps) {
      auto first = rs.ops.begin() + st.first_op;
      std::stable_sort(first, first + st.op_count, [](const Op& a, const Op& b) {
        if (a.kind != b.kind) return a.kind == OpKind::recv;
        return a.peer < b.peer;
      });
    }
  }
  return s;
}

}  // namespace papcoll
