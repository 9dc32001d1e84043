#include "schedule/late_fold/late_fold.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include "schedule/circulant/circulant_recv.hpp"
#include "schedule/circulant/circulant_send.hpp"
#include "schedule/circulant/circulant_tables.hpp"
#include "schedule/clairvoyant/clairvoyant.hpp"
#include "schedule/clairvoyant/finish_rounds.hpp"
#include "schedule/plan_memo.hpp"

namespace papcoll {

FoldCirculant::FoldCirculant(int positions, int blocks)
    : m_(positions), n_(std::max(1, blocks)), sk_(circulant::make_skips(std::max(2, positions))) {
  nv_ = n_ + sk_.q - 1;
  rounds_ = m_ == 1 ? 0 : circulant::real_rounds(sk_.q, nv_);
  x_ = circulant::virtual_rounds(sk_.q, nv_);
}

std::vector<FoldCirculant::Transfer> FoldCirculant::transfers(int v) const {
  std::vector<Transfer> out;
  if (m_ == 1) return out;
  const int q = sk_.q;
  int recvblock[circulant::kMaxQ], sendblock[circulant::kMaxQ];
  circulant::recv_schedule(sk_, v, recvblock);
  circulant::send_schedule(sk_, v, sendblock);
  out.reserve(2 * static_cast<size_t>(n_));
  for (int t = 0; t < rounds_; ++t) {
    const circulant::Round rd = circulant::round_of(q, nv_, t);
    const int skip = sk_.skip[rd.k];
    const int to = (v + skip) % m_, from = (v - skip % m_ + m_) % m_;
    // Blocks above nv - 1 are sent as nv - 1 (Algorithm 1), a padding block: never real.
    if (const int sent = sendblock[rd.k] + rd.offset; sent >= 0 && sent < n_ && to != 0)
      out.push_back({t, true, to, sent});
    if (const int got = recvblock[rd.k] + rd.offset; got >= 0 && got < n_ && v != 0)
      out.push_back({t, false, from, got});
  }
  return out;
}

FoldCirculant::Timing FoldCirculant::timing(int v) const {
  const int q = sk_.q;
  Timing tm;
  if (v == 0) {  // the root sends block t in round t
    tm.first = 0;
    tm.last = n_ - 1;
    return tm;
  }
  int recvblock[circulant::kMaxQ], sendblock[circulant::kMaxQ];
  circulant::recv_schedule(sk_, v, recvblock);
  circulant::send_schedule(sk_, v, sendblock);
  auto mod = [q](int a) { return ((a % q) + q) % q; };
  // Round index k of phase j carries value + j q - x, in forward round j q + k - x: block b with
  // value = b + x (mod q) comes in round b - value + k. The q values cover every residue once.
  for (int k = 0; k < q; ++k) tm.recv_delay[mod(recvblock[k])] = k - recvblock[k];
  tm.first = recv_round(tm, 0);
  for (int b = 1; b < std::min(n_, 2 * q); ++b) tm.first = std::min(tm.first, recv_round(tm, b));
  for (int b = std::max(0, n_ - q); b < n_; ++b) tm.last = std::max(tm.last, recv_round(tm, b));
  // The last real send of each round index: the largest block b < n with b = value - x (mod q).
  for (int k = 0; k < q; ++k) {
    if ((v + sk_.skip[k]) % m_ == 0) continue;
    const int base = sendblock[k] - x_;
    const int b = n_ - 1 - mod(n_ - 1 - base);
    if (b >= 0 && b >= base) tm.last = std::max(tm.last, b - sendblock[k] + k);
  }
  return tm;
}

namespace {

constexpr int kExactSpans = 512, kSampledSpans = 256;

}  // namespace

struct FoldCirculant::Spans {
  int positions = 0, blocks = 0;
  int last_real_round = -1;
  std::vector<int> v;  // the positions held, ascending (empty: every v = 1 .. M - 1 at v - 1)
  std::vector<Span> span;
};

const FoldCirculant::Spans& FoldCirculant::spans() const {
  if (spans_ != nullptr) return *spans_;
  // A shape's table costs O(M log M) (up to 512 positions) to build and a few kB to keep; one
  // p's candidate counts of late ranks make up to eight shapes.
  struct Kept {
    uint64_t epoch = 0;
    std::shared_ptr<const Spans> spans;
  };
  thread_local std::array<Kept, 16> kept;
  const uint64_t epoch = plan_memo_detail::epoch.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const Kept& k = kept[i];
    if (k.spans != nullptr && k.epoch == epoch && k.spans->positions == m_ &&
        k.spans->blocks == n_) {
      spans_ = k.spans;
      if (i != 0) std::rotate(kept.begin(), kept.begin() + i, kept.begin() + i + 1);
      return *spans_;
    }
  }
  auto t = std::make_shared<Spans>();
  t->positions = m_;
  t->blocks = n_;
  if (m_ > 1) {
    t->last_real_round = n_ - 1;  // the root's last send
    const bool exact = m_ - 1 <= kExactSpans;
    const int held = exact ? m_ - 1 : kSampledSpans;
    for (int i = 0; i < held; ++i) {
      const int v = 1 + static_cast<int>(static_cast<int64_t>(i) * (m_ - 1) / held);
      const Timing tm = timing(v);
      if (!exact) t->v.push_back(v);
      t->span.push_back({tm.first, tm.last});
      t->last_real_round = std::max(t->last_real_round, tm.last);
    }
  }
  std::rotate(kept.rbegin(), kept.rbegin() + 1, kept.rend());  // the oldest goes
  kept[0] = Kept{epoch, t};
  spans_ = std::move(t);
  return *spans_;
}

FoldCirculant::Span FoldCirculant::span(int v) const {
  if (v == 0 || m_ == 1) {
    const Timing tm = timing(v);
    return {tm.first, tm.last};
  }
  const Spans& t = spans();
  if (t.v.empty()) return t.span[v - 1];
  const auto it = std::lower_bound(t.v.begin(), t.v.end(), v);
  if (it != t.v.end() && *it == v) return t.span[it - t.v.begin()];
  const Timing tm = timing(v);
  return {tm.first, tm.last};
}

int FoldCirculant::last_real_round() const { return m_ == 1 ? -1 : spans().last_real_round; }

ResultStream result_stream(const FoldCirculant& c, int blocks) {
  ResultStream s;
  s.round.resize(static_cast<size_t>(blocks));
  s.sender.resize(static_cast<size_t>(blocks));
  if (c.positions() == 1) {  // no broadcast: the root itself hands each block on
    for (int b = 0; b < blocks; ++b) s.round[b] = b;
    return s;
  }
  std::map<int, FoldCirculant::Timing> timing;  // the q idle senders
  auto held_before = [&](int v, int b, int t) {
    auto it = timing.find(v);
    if (it == timing.end()) it = timing.emplace(v, c.timing(v)).first;
    return c.recv_round(it->second, b) < t;
  };
  int t = 0;
  for (int b = 0; b < blocks; ++b) {
    while (!held_before(c.idle_sender(t), b, t)) ++t;
    s.round[b] = t;
    s.sender[b] = c.idle_sender(t);
    ++t;
  }
  return s;
}

LateFoldPlan late_fold_plan(const GeneratorInput& in) {
  GeneratorInput chunks = in;
  chunks.blocks = in.p;
  LateFoldPlan plan;
  plan.prr = prr_plan(chunks);
  plan.chunk_time = block_round_time(chunks);
  // PRR caps the slots at 4p + 8 (more pre-steps cannot help it); the early group's reduce needs
  // the true spread, or Clairvoyant plans for late ranks that arrive long before they do and the
  // early ones wait on them (the cost model then took up to 3.7 times the estimate).
  if (static_cast<int>(in.arrivals.size()) == in.p && plan.chunk_time > 0) {
    const double first = in.arrivals[plan.prr.order[0]];
    for (int i = 0; i < in.p; ++i) {
      const double s =
          std::floor((in.arrivals[plan.prr.order[i]] - first) / plan.chunk_time + 1e-9);
      plan.prr.slot[i] = std::isfinite(s) ? static_cast<long>(std::clamp(s, 0.0, 1e12)) : 0;
    }
  }
  plan.quantised.assign(static_cast<size_t>(in.p), 0.0);
  for (int i = 0; i < in.p; ++i)
    plan.quantised[plan.prr.order[i]] = static_cast<double>(plan.prr.slot[i]) * plan.chunk_time;
  return plan;
}

int max_late(const LateFoldPlan& plan, int cap) {
  const auto& slot = plan.prr.slot;
  const int p = static_cast<int>(slot.size());
  int later = 0;
  while (later < p - 1 && slot[p - 1 - later] > slot[0]) ++later;
  return std::min({later, cap, p - 1});
}

LateFoldLayout late_fold_layout(const std::vector<int>& order, int late) {
  const int p = static_cast<int>(order.size());
  LateFoldLayout l;
  l.late = late;
  l.root = order[p - 1];
  l.chain.assign(order.end() - late, order.end() - 1);
  l.rank_at.assign(order.begin(), order.end() - late);
  l.position.assign(static_cast<size_t>(p), -1);
  for (int v = 0; v < static_cast<int>(l.rank_at.size()); ++v) l.position[l.rank_at[v]] = v;
  return l;
}

double chain_estimate(const std::vector<int>& members, const std::vector<double>& a,
                      double receiver_arrival, const RunClock& hop, std::vector<double>& finish) {
  const long n = static_cast<long>(hop.before.size()) - 1;
  const double first = hop.at(1);
  double in = -std::numeric_limits<double>::infinity();  // block 0 at the current member
  for (size_t h = 0; h < members.size(); ++h) {
    const double next = h + 1 < members.size() ? a[members[h + 1]] : receiver_arrival;
    const double start = std::max({in, a[members[h]], next});
    finish[members[h]] = start + hop.at(n);
    in = start + first;
  }
  return in;
}

BlockRuns late_fold_runs(int fine_blocks, int p, bool ramp_up) {
  const int fine = std::max(1, fine_blocks);
  int q = 0;
  while ((1LL << q) < p) ++q;
  return fold_runs(fine, std::clamp(fine / (2 * std::max(p, 1)), 1, 4), std::max(q, 1), ramp_up);
}

BlockRuns fold_runs(int fine_blocks, int per, int q, bool ramp_up) {
  const int fine = std::max(1, fine_blocks);
  per = std::max(1, per);
  // The ramp: q blocks of each size 1, 2, 4, ... below `per`.
  std::vector<int> ramp;
  for (int size = 1; ramp_up && size < per; size *= 2)
    for (int i = 0; i < q; ++i) ramp.push_back(size);
  int ramp_fine = 0;
  for (int r : ramp) ramp_fine += r;
  BlockRuns runs;
  runs.first.push_back(0);
  auto add = [&](int size) { runs.first.push_back(runs.first.back() + size); };
  if (ramp_fine >= fine) {
    for (int b = 0; b < fine; ++b) add(1);
    return runs;
  }
  std::vector<int> sizes = ramp;
  for (int left = fine - ramp_fine; left > 0; left -= per) sizes.push_back(std::min(per, left));

  for (int size : sizes) add(size);
  return runs;
}

RunClock run_clock(const GeneratorInput& in, const BlockRuns& runs, bool reduced) {
  const CostParams& c = in.cost;
  const double per_fine = in.blocks > 0 ? in.bytes / in.blocks : in.bytes;
  const double per_byte = c.beta + (reduced ? c.gamma : 0.0);
  RunClock clock;
  clock.before.assign(1, 0.0);
  for (int i = 0; i < runs.count(); ++i)
    clock.before.push_back(clock.before.back() + c.alpha + per_byte * per_fine * runs.size(i));
  clock.tail = c.alpha + per_byte * per_fine * runs.size(runs.count() - 1);
  return clock;
}

namespace {

// The early group's Clairvoyant instance, and e's round time, start and rounds array.
clairvoyant::Instance early_instance(const GeneratorInput& in, const BlockRuns& runs,
                                     const std::vector<int>& group, const std::vector<double>& a,
                                     EarlyReduce& e) {
  const int m = static_cast<int>(group.size());
  e.last_round.assign(static_cast<size_t>(m), -1);
  const double per_fine = in.blocks > 0 ? in.bytes / in.blocks : in.bytes;
  const double segment =
      per_fine * (runs.count() > 0 ? static_cast<double>(runs.first.back()) / runs.count() : 1.0);
  e.round_time = in.cost.alpha + (in.cost.beta + in.cost.gamma) * segment;
  if (!(e.round_time > 1e-12) || !std::isfinite(e.round_time)) e.round_time = 1e-12;
  e.start = std::numeric_limits<double>::infinity();
  for (int r : group) e.start = std::min(e.start, a[r]);
  clairvoyant::Instance c;
  c.p = m;
  c.segments = runs.count();
  c.root = 0;
  c.round_time = e.round_time;
  c.arrivals.resize(static_cast<size_t>(m));
  for (int v = 0; v < m; ++v) c.arrivals[v] = a[group[v]] - e.start;
  return c;
}

}  // namespace

EarlyReduce early_reduce(const GeneratorInput& in, const BlockRuns& runs,
                         const std::vector<int>& group, const std::vector<double>& a) {
  EarlyReduce e;
  const clairvoyant::Instance c = early_instance(in, runs, group, a, e);
  e.ops.resize(group.size());
  if (c.p < 2) return e;
  const clairvoyant::Result res = clairvoyant::run(clairvoyant::default_impl(c), c);
  e.rounds = static_cast<int64_t>(res.round_starts.size());
  for (size_t k = 0; k < res.round_starts.size(); ++k) {
    const size_t end = k + 1 < res.round_starts.size() ? res.round_starts[k + 1].first
                                                       : res.transfers.size();
    for (size_t i = res.round_starts[k].first; i < end; ++i) {
      const clairvoyant::Transfer& t = res.transfers[i];
      const int seg = static_cast<int>(t.segment);
      const auto round = static_cast<int64_t>(k);
      e.ops[t.from].push_back({round, true, group[t.to], seg, false});
      e.ops[t.to].push_back({round, false, group[t.from], seg, t.copy != 0});
      e.last_round[t.from] = e.last_round[t.to] = res.round_starts[k].round;
    }
  }
  return e;
}

EarlyReduce early_reduce_timing(const GeneratorInput& in, const BlockRuns& runs,
                                const std::vector<int>& group, const std::vector<double>& sim,
                                const std::vector<double>& a) {
  EarlyReduce e;
  const clairvoyant::Instance c = early_instance(in, runs, group, sim, e);
  e.start = std::numeric_limits<double>::infinity();
  for (int r : group) e.start = std::min(e.start, a[r]);
  if (c.p < 2) return e;
  const std::shared_ptr<const clairvoyant::FinishRounds> f = clairvoyant::finish_rounds(c);
  e.rounds = f->transfer_rounds;
  e.last_round = f->last_round;
  return e;
}

int late_fold_blocks(const GeneratorInput& in) {
  const int p = std::max(1, in.p);
  if (in.cost.shared_memory) {
    // The one-node form: blocks of about 256 KiB (at most 64), so the root reduces, and the
    // readers copy, a block while the rest is still being copied (as the linear all-gatherv
    // over the window, docs/shared-memory.md).
    const double n = std::ceil(in.bytes / (256.0 * 1024));
    return std::isfinite(n) ? static_cast<int>(std::clamp(n, 1.0, 64.0)) : 1;
  }
  if (in.cost.cores_shared || !(in.bytes > 0) || !(in.cost.alpha > 0)) return p;
  int q = 0;
  while ((1LL << q) < p) ++q;
  // (n + q) (alpha + beta bytes / n), the circulant's time, is least at n = sqrt(q beta bytes /
  // alpha) blocks; four fine blocks per logical one (late_fold_runs).
  const double n = 4 * std::sqrt(std::max(q, 1) * in.cost.beta * in.bytes / in.cost.alpha);
  if (!std::isfinite(n)) return p;
  const long long per_chunk = std::clamp(std::llround(n / p), 1LL, std::max(1LL, (1LL << 16) / p));
  return static_cast<int>(per_chunk * p);
}

}  // namespace papcoll
