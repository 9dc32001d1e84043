// The all-reduce's phases after the early reduce (late_fold.hpp, FoldTail): what late-fold and
// relay-fold share once the early group's sum is at the relay.
#include <algorithm>
#include <limits>

#include "schedule/late_fold/late_fold.hpp"

namespace papcoll {
namespace {

// Above this many early positions the estimate samples kSampledPositions of them.
constexpr int kExactPositions = 512;
constexpr int kSampledPositions = 256;

// Early ranks that hand the result to the chain and the root when there is a chain (`wanted` of
// them at most): positions from the last down, skipping the result stream's senders where there
// are others. O(q + wanted).
std::vector<int> tail_servers(const FoldCirculant& c, int wanted) {
  std::vector<int> idle;
  for (int k = 0; k < c.q(); ++k) idle.push_back(c.idle_sender(k));
  std::vector<int> s, busy;
  for (int v = c.positions() - 1; v >= 1 && static_cast<int>(s.size()) < wanted; --v)
    (std::find(idle.begin(), idle.end(), v) != idle.end() ? busy : s).push_back(v);
  if (s.empty()) s = busy;
  if (s.empty()) s.push_back(0);
  return s;
}

}  // namespace

FoldTail::FoldTail(const LateFoldLayout& l, const BlockRuns& runs, int64_t t1)
    : l_(l),
      runs_(runs),
      c_(static_cast<int>(l.rank_at.size()), runs.count()),
      stream_(result_stream(c_, runs.count())),
      serving_(tail_servers(c_, std::max(1, l.late - 1) + 1)) {
  // The chain's hops come between the early phase and phase 2: R2 = T1 + late + 1.
  r2_ = t1 + l.late + 1;
  serve_ = r2_ + std::max<int64_t>(c_.rounds(), stream_.round.back() + 1);
}

void FoldTail::emit(const GeneratorInput& in, int r, ScheduleSink& out) const {
  const int n = runs_.count(), late = l_.late;
  auto one = [&](int b) { return runs_.set(b); };
  const int relay = l_.rank_at[0];
  const int stream_to = late == 1 ? l_.root : l_.chain.front();
  // The root hands block b to the relay in round R2 + b - 1, so hop h of the chain (chain[h] ->
  // chain[h + 1], the last one into the root) carries it in round R2 + b - 1 - (late - 1) + h.
  auto hop_round = [&](int b, int h) { return r2_ + b - late + h; };
  const int v = l_.position[r];
  if (r == l_.root) {
    out.reserve(r, 3 * static_cast<size_t>(n));
    for (int b = 0; b < n; ++b) {
      if (late >= 2) out.recv(r, hop_round(b, late - 2), l_.chain.back(), one(b), Combine::reduce);
      out.send(r, r2_ + b - 1, relay, one(b));
      if (late == 1)
        out.recv(r, r2_ + stream_.round[b], l_.rank_at[stream_.sender[b]], one(b), Combine::copy);
    }
  } else if (v < 0) {
    const int i =
        static_cast<int>(std::find(l_.chain.begin(), l_.chain.end(), r) - l_.chain.begin());
    const int next = i + 1 < late - 1 ? l_.chain[i + 1] : l_.root;
    for (int b = 0; b < n; ++b) {
      if (i > 0) out.recv(r, hop_round(b, i - 1), l_.chain[i - 1], one(b), Combine::reduce);
      out.send(r, hop_round(b, i), next, one(b));
      if (i == 0)
        out.recv(r, r2_ + stream_.round[b], l_.rank_at[stream_.sender[b]], one(b), Combine::copy);
    }
  } else {
    const std::vector<FoldCirculant::Transfer> ts = c_.transfers(v);
    out.reserve(r, ts.size() + 2 * static_cast<size_t>(n));
    if (v == 0)
      for (int b = 0; b < n; ++b) out.recv(r, r2_ + b - 1, l_.root, one(b), Combine::reduce);
    for (const FoldCirculant::Transfer& t : ts) {
      if (t.send)
        out.send(r, r2_ + t.round, l_.rank_at[t.peer], one(t.block));
      else
        out.recv(r, r2_ + t.round, l_.rank_at[t.peer], one(t.block), Combine::copy);
    }
    for (int b = 0; b < n; ++b)
      if (stream_.sender[b] == v) out.send(r, r2_ + stream_.round[b], stream_to, one(b));
  }
  if (late < 2) return;
  // The other late ranks get the whole result from a server each.
  const BlockSet all = BlockSet::range(0, std::max(1, in.blocks));
  std::vector<int> recipients(l_.chain.begin() + 1, l_.chain.end());
  recipients.push_back(l_.root);
  for (size_t i = 0; i < recipients.size(); ++i) {
    const int server = l_.rank_at[serving_[i % serving_.size()]];
    if (r == server) out.send(r, serve_ + static_cast<int64_t>(i), recipients[i], all);
    if (r == recipients[i])
      out.recv(r, serve_ + static_cast<int64_t>(i), server, all, Combine::copy);
  }
}

// The broadcast starts when the relay has the early sum and the root has the chain's first block,
// one reduced block per round (the relay's pace), and a position finishes with its last round.
void FoldTail::estimate(const GeneratorInput& in, const std::vector<double>& a, double relay_ready,
                        std::vector<double>& finish, std::vector<double>* has) const {
  const CostParams& cp = in.cost;
  const double whole = cp.alpha + cp.beta * in.bytes;
  const int n = runs_.count(), positions = c_.positions();
  const RunClock tr = run_clock(in, runs_, true);
  const double chain_in = chain_estimate(l_.chain, a, a[l_.root], tr, finish);
  const double s2 = std::max({relay_ready, chain_in, a[l_.root]}) +
                    tr.at(1);  // block 0 at the relay
  finish[l_.rank_at[0]] = s2 + tr.at(n);
  if (positions <= kExactPositions) {
    for (int v = 1; v < positions; ++v) finish[l_.rank_at[v]] = s2 + tr.at(c_.span(v).last + 1);
  } else {
    // Each position's last round costs O(log p) to find; over thousands of positions and up to
    // eight candidate counts of late ranks that is what the whole plan costs. The mean over
    // evenly spaced positions stands for every early rank (only the mean elapsed time is used).
    double sum = 0;
    for (int i = 0; i < kSampledPositions; ++i) {
      const int v = 1 +
                    static_cast<int>(static_cast<int64_t>(i) * (positions - 1) / kSampledPositions);
      sum += tr.at(c_.span(v).last + 1);
    }
    for (int v = 1; v < positions; ++v) finish[l_.rank_at[v]] = s2 + sum / kSampledPositions;
  }
  const double streamed = s2 + tr.at(stream_.round.back() + 1);
  finish[l_.root] = s2 + tr.at(n - 1);  // its last block to the relay
  if (l_.late == 1) {
    finish[l_.root] = streamed;
    if (has != nullptr) *has = finish;
    return;
  }
  finish[l_.chain.front()] = std::max(finish[l_.chain.front()], streamed);
  // A server holds the result from its part of the broadcast on; only its finish waits for what
  // it hands on.
  if (has != nullptr) *has = finish;
  std::vector<int> recipients(l_.chain.begin() + 1, l_.chain.end());
  recipients.push_back(l_.root);
  std::vector<double> free(static_cast<size_t>(positions), 0.0);
  for (size_t i = 0; i < recipients.size(); ++i) {
    const int v = serving_[i % serving_.size()];
    const double start = std::max({finish[l_.rank_at[v]], finish[recipients[i]], free[v]});
    free[v] = finish[recipients[i]] = finish[l_.rank_at[v]] = start + whole;
    if (has != nullptr) (*has)[recipients[i]] = finish[recipients[i]];
  }
}

ReduceFoldLayout reduce_fold_layout(const std::vector<int>& order, int root, int late) {
  const int p = static_cast<int>(order.size());
  ReduceFoldLayout l;
  for (int i = 0; i < p; ++i) {
    const int r = order[i];
    const bool is_late = i >= p - late;
    if (r == root) {
      l.root_late = is_late;
      if (!is_late) l.group.insert(l.group.begin(), r);
      continue;
    }
    (is_late ? l.chain : l.group).push_back(r);
  }
  return l;
}

ReduceFoldTail::ReduceFoldTail(const ReduceFoldLayout& l, const BlockRuns& runs, int root,
                               int64_t t1)
    : l_(l),
      runs_(runs),
      root_(root),
      // After the early phase, one round per late rank (the chain's hops and a late root's).
      r2_(t1 + static_cast<int64_t>(l.chain.size()) + (l.root_late ? 1 : 0) + 1) {}

void ReduceFoldTail::emit(int r, ScheduleSink& out) const {
  const int n = runs_.count(), sink = l_.group[0];
  const int chain = static_cast<int>(l_.chain.size());
  auto one = [&](int b) { return runs_.set(b); };
  // The chain's hop h carries block b in round r2 + b - chain + h, its last hop into the sink
  // one round before the sink takes block b (root early) or hands it on (root late).
  auto hop_round = [&](int b, int h) { return r2_ + b - chain + h; };
  if (const auto it = std::find(l_.chain.begin(), l_.chain.end(), r); it != l_.chain.end()) {
    const int i = static_cast<int>(it - l_.chain.begin());
    for (int b = 0; b < n; ++b) {
      if (i > 0) out.recv(r, hop_round(b, i - 1), l_.chain[i - 1], one(b), Combine::reduce);
      out.send(r, hop_round(b, i), i + 1 < chain ? l_.chain[i + 1] : sink, one(b));
    }
    return;
  }
  if (r == root_ && l_.root_late) {
    for (int b = 0; b < n; ++b) out.recv(r, r2_ + b, sink, one(b), Combine::reduce);
    return;
  }
  if (r != sink) return;
  for (int b = 0; b < n; ++b) {
    if (chain > 0) out.recv(r, hop_round(b, chain - 1), l_.chain.back(), one(b), Combine::reduce);
    if (l_.root_late) out.send(r, r2_ + b, root_, one(b));
  }
}

void ReduceFoldTail::estimate(const GeneratorInput& in, const std::vector<double>& a,
                              double sink_ready, std::vector<double>& finish) const {
  const int n = runs_.count(), sink = l_.group[0];
  if (l_.chain.empty() && !l_.root_late) return;
  const RunClock tr = run_clock(in, runs_, true);
  const double chain_out =
      l_.chain.empty() ? -std::numeric_limits<double>::infinity()
                       : chain_estimate(l_.chain, a, std::max(a[sink], sink_ready), tr, finish);
  // The sink takes block b once it has the early sum and the chain has brought block b.
  const double first = std::max(sink_ready, chain_out);
  finish[sink] = std::max(finish[sink], first + tr.at(n));
  if (l_.root_late) {  // the collector hands block b on in the next round
    const double start = std::max(first, a[root_]);
    finish[root_] = start + tr.at(n);
    finish[sink] = std::max(finish[sink], start + tr.at(n));
  }
}

}  // namespace papcoll
