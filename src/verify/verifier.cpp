#include "verify/verifier.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace papcoll {
namespace {

// A set of contributing ranks as a bitset.
struct Contrib {
  std::vector<uint64_t> w;
  explicit Contrib(int p = 0) : w(static_cast<size_t>((p + 63) / 64), 0) {}
  void add(int r) { w[r / 64] |= uint64_t{1} << (r % 64); }
  bool empty() const {
    return std::all_of(w.begin(), w.end(), [](uint64_t x) { return x == 0; });
  }
  bool intersects(const Contrib& o) const {
    for (size_t i = 0; i < w.size(); ++i)
      if (w[i] & o.w[i]) return true;
    return false;
  }
  void merge(const Contrib& o) {
    for (size_t i = 0; i < w.size(); ++i) w[i] |= o.w[i];
  }
  int count() const {
    int c = 0;
    for (uint64_t x : w) c += __builtin_popcountll(x);
    return c;
  }
};

template <typename... T>
std::string msg(const T&... parts) {
  std::ostringstream o;
  (o << ... << parts);
  return o.str();
}

VerifyResult fail(std::string e) { return {false, std::move(e)}; }

// Initial holdings and the postcondition per collective. Block ids are global.
void initial_state(const Schedule& s, std::vector<std::vector<Contrib>>& st) {
  for (int r = 0; r < s.p; ++r)
    for (int b = 0; b < s.blocks; ++b) {
      switch (s.collective) {
        case Collective::allreduce:
        case Collective::reduce:
          st[r][b].add(r);
          break;
        case Collective::bcast:
        case Collective::scatterv:
          if (r == s.root) st[r][b].add(r);
          break;
        case Collective::allgatherv:
        case Collective::gatherv:
          // blocks of origin o are [o*B/p, (o+1)*B/p) for allgatherv; block r for gatherv.
          if (s.collective == Collective::gatherv ? b == r
                                                  : static_cast<int64_t>(b) * s.p / s.blocks == r)
            st[r][b].add(r);
          break;
      }
    }
}

VerifyResult postcondition(const Schedule& s, const std::vector<std::vector<Contrib>>& st) {
  const bool reduction = s.collective == Collective::allreduce || s.collective == Collective::reduce;
  for (int r = 0; r < s.p; ++r) {
    const bool needs_all = s.collective == Collective::allreduce ||
                           s.collective == Collective::bcast ||
                           s.collective == Collective::allgatherv ||
                           ((s.collective == Collective::reduce ||
                             s.collective == Collective::gatherv) && r == s.root);
    for (int b = 0; b < s.blocks; ++b) {
      const Contrib& c = st[r][b];
      if (s.collective == Collective::scatterv) {
        if (b == r && c.empty()) return fail(msg("rank ", r, " ends without its portion ", b));
        continue;
      }
      if (!needs_all) continue;
      if (reduction) {
        if (c.count() != s.p)
          return fail(msg("rank ", r, " ends with block ", b, " holding ", c.count(), " of ", s.p,
                          " contributions"));
      } else if (c.empty()) {
        return fail(msg("rank ", r, " ends without block ", b));
      }
    }
  }
  return {};
}

}  // namespace

VerifyResult verify_schedule(const Schedule& s) {
  if (s.p < 1) return fail("p must be at least 1");
  if (s.blocks < 1) return fail("blocks must be at least 1");
  if (static_cast<int>(s.ranks.size()) != s.p) return fail("schedule has a wrong number of ranks");
  const bool rooted = s.collective == Collective::reduce || s.collective == Collective::bcast ||
                      s.collective == Collective::scatterv || s.collective == Collective::gatherv;
  if (rooted && (s.root < 0 || s.root >= s.p)) return fail(msg("root ", s.root, " out of range"));
  // Block i of a scatterv/gatherv is rank i's portion; any other count would leave portions
  // unchecked (fewer blocks) or unowned (more).
  if ((s.collective == Collective::scatterv || s.collective == Collective::gatherv) &&
      s.blocks != s.p)
    return fail(msg(collective_name(s.collective), " needs one block per rank: blocks=", s.blocks,
                    ", p=", s.p));

  // Structure, and the pairing of every send with exactly one receive in the same round.
  using Key = std::tuple<int64_t, int, int>;  // round, from, to
  std::map<Key, std::vector<const Op*>> sends, recvs;
  for (int r = 0; r < s.p; ++r) {
    const RankSchedule& rs = s.ranks[r];
    if (rs.rank != r) return fail(msg("ranks[", r, "] says it is rank ", rs.rank));
    int64_t next_op = 0;
    for (size_t i = 0; i < rs.steps.size(); ++i) {
      const Step& st = rs.steps[i];
      if (i > 0 && st.round <= rs.steps[i - 1].round)
        return fail(msg("rank ", r, ": rounds not strictly increasing at step ", i));
      if (st.op_count < 1 || st.first_op != next_op ||
          st.first_op + static_cast<int64_t>(st.op_count) > static_cast<int64_t>(rs.ops.size()))
        return fail(msg("rank ", r, ": step ", i, " does not cover the next ops"));
      next_op += st.op_count;
      std::set<int> received;
      for (const Op& op : rs.ops_of(st)) {
        if (op.peer < 0 || op.peer >= s.p || op.peer == r)
          return fail(msg("rank ", r, " round ", st.round, ": bad peer ", op.peer));
        if (op.blocks.empty()) return fail(msg("rank ", r, " round ", st.round, ": empty message"));
        if (op.blocks.front() < 0 || op.blocks.back() >= s.blocks)
          return fail(msg("rank ", r, " round ", st.round, ": block ",
                          op.blocks.front() < 0 ? op.blocks.front() : op.blocks.back(),
                          " out of range"));
        if (op.kind == OpKind::send) {
          if (op.combine != Combine::none)
            return fail(msg("rank ", r, " round ", st.round, ": a send with a combine mode"));
          sends[{st.round, r, op.peer}].push_back(&op);
        } else {
          if (op.combine == Combine::none)
            return fail(msg("rank ", r, " round ", st.round, ": a receive without combine mode"));
          bool twice = false;
          int dup = 0;
          op.blocks.for_each([&](int b) {
            if (!received.insert(b).second && !twice) {
              twice = true;
              dup = b;
            }
          });
          if (twice)
            return fail(msg("rank ", r, " round ", st.round, ": block ", dup,
                            " received twice in one step"));
          recvs[{st.round, op.peer, r}].push_back(&op);
        }
      }
    }
  }
  for (const auto& [key, list] : sends) {
    auto it = recvs.find(key);
    const size_t n = it == recvs.end() ? 0 : it->second.size();
    if (n != list.size())
      return fail(msg("round ", std::get<0>(key), ": ", list.size(), " send(s) from ",
                      std::get<1>(key), " to ", std::get<2>(key), " but ", n, " receive(s)"));
    for (size_t i = 0; i < n; ++i)
      if (list[i]->blocks != it->second[i]->blocks)
        return fail(msg("round ", std::get<0>(key), ": send from ", std::get<1>(key), " to ",
                        std::get<2>(key), " and its receive carry different blocks"));
  }
  for (const auto& [key, list] : recvs)
    if (!sends.count(key))
      return fail(msg("round ", std::get<0>(key), ": receive at ", std::get<2>(key), " from ",
                      std::get<1>(key), " has no send"));

  // Data flow, round by round: a rank's state before round t is the result of its steps < t, so
  // processing all ranks' steps of round t together equals any asynchronous execution.
  std::vector<std::vector<Contrib>> st(static_cast<size_t>(s.p),
                                       std::vector<Contrib>(static_cast<size_t>(s.blocks),
                                                            Contrib(s.p)));
  initial_state(s, st);
  std::map<int64_t, std::vector<std::pair<int, const Step*>>> by_round;
  for (int r = 0; r < s.p; ++r) {
    if (static_cast<int64_t>(s.ranks[r].ops.size()) !=
        (s.ranks[r].steps.empty() ? 0
                                  : s.ranks[r].steps.back().first_op + s.ranks[r].steps.back().op_count))
      return fail(msg("rank ", r, ": ops outside every step"));
    for (const Step& step : s.ranks[r].steps) by_round[step.round].push_back({r, &step});
  }
  const bool reduction = s.collective == Collective::allreduce || s.collective == Collective::reduce;
  for (const auto& [round, steps] : by_round) {
    std::map<Key, std::vector<std::vector<Contrib>>> payload;  // per (round,from,to), per message
    for (const auto& [r, step] : steps)
      for (const Op& op : s.ranks[r].ops_of(*step)) {
        if (op.kind != OpKind::send) continue;
        std::vector<Contrib> data;
        int missing = -1;
        op.blocks.for_each([&](int b) {
          if (st[r][b].empty() && missing < 0) missing = b;
          data.push_back(st[r][b]);
        });
        if (missing >= 0)
          return fail(msg("rank ", r, " round ", round, " sends block ", missing,
                          " before it holds it"));
        payload[{round, r, op.peer}].push_back(std::move(data));
      }
    std::map<Key, size_t> next;
    for (const auto& [r, step] : steps)
      for (const Op& op : s.ranks[r].ops_of(*step)) {
        if (op.kind != OpKind::recv) continue;
        const Key key{round, op.peer, r};
        const std::vector<Contrib>& data = payload[key][next[key]++];
        if (op.combine == Combine::reduce && !reduction)
          return fail(msg("rank ", r, " round ", round, ": reduce combine in a ",
                          collective_name(s.collective)));
        size_t k = 0;
        int twice = -1;
        op.blocks.for_each([&](int b) {
          Contrib& mine = st[r][b];
          if (op.combine == Combine::copy) {
            mine = data[k];
          } else if (mine.intersects(data[k])) {
            if (twice < 0) twice = b;
          } else {
            mine.merge(data[k]);
          }
          ++k;
        });
        if (twice >= 0)
          return fail(msg("rank ", r, " round ", round, ": block ", twice,
                          " would count a contribution twice"));
      }
  }
  return postcondition(s, st);
}

}  // namespace papcoll
