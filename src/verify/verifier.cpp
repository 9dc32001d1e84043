#include "verify/verifier.hpp"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace papcoll {
namespace {

// Every (rank, block)'s set of contributing ranks, as bitsets in one flat array: the verifier
// runs in the unit tests for thousands of schedules, and a vector per set made it allocation-bound.
class Holdings {
 public:
  Holdings(int p, int blocks)
      : words_(static_cast<size_t>((p + 63) / 64)),
        blocks_(static_cast<size_t>(blocks)),
        bits_(static_cast<size_t>(p) * blocks_ * words_, 0) {}
  size_t words() const { return words_; }
  uint64_t* at(int r, int b) { return &bits_[(static_cast<size_t>(r) * blocks_ + b) * words_]; }
  const uint64_t* at(int r, int b) const {
    return &bits_[(static_cast<size_t>(r) * blocks_ + b) * words_];
  }

 private:
  size_t words_, blocks_;
  std::vector<uint64_t> bits_;
};

void add(uint64_t* c, int r) { c[r / 64] |= uint64_t{1} << (r % 64); }
bool empty(const uint64_t* c, size_t n) {
  return std::all_of(c, c + n, [](uint64_t x) { return x == 0; });
}
bool intersects(const uint64_t* a, const uint64_t* b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] & b[i]) return true;
  return false;
}
void merge(uint64_t* a, const uint64_t* b, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] |= b[i];
}
int count(const uint64_t* c, size_t n) {
  int k = 0;
  for (size_t i = 0; i < n; ++i) k += __builtin_popcountll(c[i]);
  return k;
}

// One message, for pairing sends with receives: sorted by (round, from, to) with a stable sort,
// the messages of one key stay in op order, which is the order MPI matches them in.
struct Message {
  int64_t round;
  int from, to;
  const Op* op;
};
bool key_less(const Message& a, const Message& b) {
  return std::tie(a.round, a.from, a.to) < std::tie(b.round, b.from, b.to);
}
bool same_key(const Message& a, const Message& b) {
  return a.round == b.round && a.from == b.from && a.to == b.to;
}
// [first, end of first's key group)
size_t group_end(const std::vector<Message>& v, size_t first) {
  size_t e = first + 1;
  while (e < v.size() && same_key(v[e], v[first])) ++e;
  return e;
}

template <typename... T>
std::string msg(const T&... parts) {
  std::ostringstream o;
  (o << ... << parts);
  return o.str();
}

VerifyResult fail(std::string e) { return {false, std::move(e)}; }

// Initial holdings and the postcondition per collective. Block ids are global.
void initial_state(const Schedule& s, Holdings& st) {
  for (int r = 0; r < s.p; ++r)
    for (int b = 0; b < s.blocks; ++b) {
      switch (s.collective) {
        case Collective::allreduce:
        case Collective::reduce: add(st.at(r, b), r); break;
        case Collective::bcast:
        case Collective::scatterv:
          if (r == s.root) add(st.at(r, b), r);
          break;
        case Collective::allgatherv:
        case Collective::gatherv:
          // blocks of origin o are [o*B/p, (o+1)*B/p) for allgatherv; block r for gatherv.
          if (s.collective == Collective::gatherv ? b == r
                                                  : static_cast<int64_t>(b) * s.p / s.blocks == r)
            add(st.at(r, b), r);
          break;
      }
    }
}

VerifyResult postcondition(const Schedule& s, const Holdings& st) {
  const size_t w = st.words();
  const bool reduction = s.collective == Collective::allreduce ||
                         s.collective == Collective::reduce;
  for (int r = 0; r < s.p; ++r) {
    const bool needs_all =
        s.collective == Collective::allreduce || s.collective == Collective::bcast ||
        s.collective == Collective::allgatherv ||
        ((s.collective == Collective::reduce || s.collective == Collective::gatherv) &&
         r == s.root);
    for (int b = 0; b < s.blocks; ++b) {
      const uint64_t* c = st.at(r, b);
      if (s.collective == Collective::scatterv) {
        if (b == r && empty(c, w)) return fail(msg("rank ", r, " ends without its portion ", b));
        continue;
      }
      if (!needs_all) continue;
      if (reduction) {
        if (count(c, w) != s.p)
          return fail(msg("rank ", r, " ends with block ", b, " holding ", count(c, w), " of ", s.p,
                          " contributions"));
      } else if (empty(c, w)) {
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
  std::vector<Message> sends, recvs;
  // received_in[b] == step number when block b was already received in that step, copied_in[b]
  // when by a copy. Several reduces of one block in a step are fine (the executor receives each
  // into its own scratch and reduces them in op order); a copy must be the block's only receive.
  std::vector<int64_t> received_in(static_cast<size_t>(s.blocks), -1);
  std::vector<int64_t> copied_in(static_cast<size_t>(s.blocks), -1);
  int64_t step_number = 0;
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
      ++step_number;
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
          sends.push_back({st.round, r, op.peer, &op});
        } else {
          if (op.combine == Combine::none)
            return fail(msg("rank ", r, " round ", st.round, ": a receive without combine mode"));
          int dup = -1;
          const bool copy = op.combine == Combine::copy;
          op.blocks.for_each([&](int b) {
            if (received_in[b] == step_number && (copy || copied_in[b] == step_number) && dup < 0)
              dup = b;
            received_in[b] = step_number;
            if (copy) copied_in[b] = step_number;
          });
          if (dup >= 0)
            return fail(msg("rank ", r, " round ", st.round, ": block ", dup,
                            " received twice in one step, once by a copy"));
          recvs.push_back({st.round, op.peer, r, &op});
        }
      }
    }
  }
  std::stable_sort(sends.begin(), sends.end(), key_less);
  std::stable_sort(recvs.begin(), recvs.end(), key_less);
  for (size_t i = 0, j = 0; i < sends.size();) {
    const Message& key = sends[i];
    const size_t i_end = group_end(sends, i);
    while (j < recvs.size() && key_less(recvs[j], key)) ++j;
    const size_t j_end = j < recvs.size() && same_key(recvs[j], key) ? group_end(recvs, j) : j;
    if (j_end - j != i_end - i)
      return fail(msg("round ", key.round, ": ", i_end - i, " send(s) from ", key.from, " to ",
                      key.to, " but ", j_end - j, " receive(s)"));
    for (size_t k = 0; k < i_end - i; ++k)
      if (sends[i + k].op->blocks != recvs[j + k].op->blocks)
        return fail(msg("round ", key.round, ": send from ", key.from, " to ", key.to,
                        " and its receive carry different blocks"));
    i = i_end;
    j = j_end;
  }
  for (size_t j = 0, i = 0; j < recvs.size(); j = group_end(recvs, j)) {
    while (i < sends.size() && key_less(sends[i], recvs[j])) ++i;
    if (i == sends.size() || !same_key(sends[i], recvs[j]))
      return fail(msg("round ", recvs[j].round, ": receive at ", recvs[j].to, " from ",
                      recvs[j].from, " has no send"));
  }

  // Data flow, round by round: a rank's state before round t is the result of its steps < t, so
  // processing all ranks' steps of round t together equals any asynchronous execution.
  Holdings st(s.p, s.blocks);
  const size_t w = st.words();
  initial_state(s, st);
  struct RankStep {
    int64_t round;
    int rank;
    const Step* step;
  };
  std::vector<RankStep> by_round;
  for (int r = 0; r < s.p; ++r) {
    if (static_cast<int64_t>(s.ranks[r].ops.size()) !=
        (s.ranks[r].steps.empty()
             ? 0
             : s.ranks[r].steps.back().first_op + s.ranks[r].steps.back().op_count))
      return fail(msg("rank ", r, ": ops outside every step"));
    for (const Step& step : s.ranks[r].steps) by_round.push_back({step.round, r, &step});
  }
  // A rank has at most one step per round: (round, rank) orders them uniquely.
  std::sort(by_round.begin(), by_round.end(), [](const RankStep& a, const RankStep& b) {
    return std::tie(a.round, a.rank) < std::tie(b.round, b.rank);
  });
  const bool reduction = s.collective == Collective::allreduce ||
                         s.collective == Collective::reduce;
  // The round's messages, their contents as sent (the senders' holdings before the round) in
  // `words`, sorted by (from, to) in send order; next[i]: receives already matched in the group
  // starting at i.
  std::vector<Message> sent;
  std::vector<size_t> offset, next;
  std::vector<uint64_t> words;
  for (size_t first = 0; first < by_round.size();) {
    const int64_t round = by_round[first].round;
    size_t last = first;
    while (last < by_round.size() && by_round[last].round == round) ++last;
    sent.clear();
    words.clear();
    for (size_t k = first; k < last; ++k) {
      const int r = by_round[k].rank;
      for (const Op& op : s.ranks[r].ops_of(*by_round[k].step)) {
        if (op.kind != OpKind::send) continue;
        int missing = -1;
        op.blocks.for_each([&](int b) {
          const uint64_t* c = st.at(r, b);
          if (missing < 0 && empty(c, w)) missing = b;
          words.insert(words.end(), c, c + w);
        });
        if (missing >= 0)
          return fail(
              msg("rank ", r, " round ", round, " sends block ", missing, " before it holds it"));
        sent.push_back({round, r, op.peer, &op});
      }
    }
    // Each message's words start where the previous message's end, in send order.
    offset.assign(sent.size() + 1, 0);
    for (size_t m = 0; m < sent.size(); ++m)
      offset[m + 1] = offset[m] + static_cast<size_t>(sent[m].op->blocks.size()) * w;
    std::vector<size_t> order(sent.size());
    for (size_t m = 0; m < order.size(); ++m) order[m] = m;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return key_less(sent[a], sent[b]); });
    next.assign(order.size(), 0);
    for (size_t k = first; k < last; ++k) {
      const int r = by_round[k].rank;
      for (const Op& op : s.ranks[r].ops_of(*by_round[k].step)) {
        if (op.kind != OpKind::recv) continue;
        const Message key{round, op.peer, r, &op};
        // The pairing above guarantees the group exists and has a message left.
        const size_t g = static_cast<size_t>(
            std::lower_bound(order.begin(), order.end(), key,
                             [&](size_t a, const Message& m) { return key_less(sent[a], m); }) -
            order.begin());
        const uint64_t* data = &words[offset[order[g + next[g]++]]];
        if (op.combine == Combine::reduce && !reduction)
          return fail(msg("rank ", r, " round ", round, ": reduce combine in a ",
                          collective_name(s.collective)));
        int twice = -1;
        op.blocks.for_each([&](int b) {
          uint64_t* mine = st.at(r, b);
          if (op.combine == Combine::copy) {
            std::copy(data, data + w, mine);
          } else if (intersects(mine, data, w)) {
            if (twice < 0) twice = b;
          } else {
            merge(mine, data, w);
          }
          data += w;
        });
        if (twice >= 0)
          return fail(msg("rank ", r, " round ", round, ": block ", twice,
                          " would count a contribution twice"));
      }
    }
    first = last;
  }
  return postcondition(s, st);
}

bool one_version_schedule(const RankSchedule& rs) {
  // Per block: 0 not sent yet, 1 sent, 2 sent and received into since.
  std::unordered_map<int, char> state;
  for (const Step& st : rs.steps) {
    const std::span<const Op> ops = rs.ops_of(st);
    // The executors post a step's sends before its receives.
    for (const Op& op : ops)
      if (op.kind == OpKind::send)
        for (int b : op.blocks.ids()) {
          char& s = state[b];
          if (s == 2) return false;
          s = 1;
        }
    for (const Op& op : ops)
      if (op.kind == OpKind::recv)
        for (int b : op.blocks.ids())
          if (auto it = state.find(b); it != state.end()) it->second = 2;
  }
  return true;
}

}  // namespace papcoll
