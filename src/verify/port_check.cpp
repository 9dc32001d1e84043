#include "verify/port_check.hpp"

#include <algorithm>
#include <iterator>
#include <sstream>
#include <vector>

namespace papcoll {

VerifyResult verify_single_port(const Schedule& s) {
  for (const RankSchedule& rs : s.ranks)
    for (const Step& st : rs.steps) {
      int sends = 0, recvs = 0;
      std::vector<int> sent, received;
      for (const Op& op : rs.ops_of(st)) {
        std::vector<int>& v = op.kind == OpKind::send ? sent : received;
        (op.kind == OpKind::send ? sends : recvs) += 1;
        op.blocks.for_each([&](int b) { v.push_back(b); });
      }
      std::ostringstream where;
      where << "rank " << rs.rank << " round " << st.round;
      if (sends > 1) return {false, where.str() + ": more than one send"};
      if (recvs > 1) return {false, where.str() + ": more than one receive"};
      std::sort(sent.begin(), sent.end());
      std::sort(received.begin(), received.end());
      std::vector<int> both;
      std::set_intersection(sent.begin(), sent.end(), received.begin(), received.end(),
                            std::back_inserter(both));
      if (!both.empty()) {
        where << ": block " << both.front() << " is received and sent in the same round";
        return {false, where.str()};
      }
    }
  return {};
}

}  // namespace papcoll
