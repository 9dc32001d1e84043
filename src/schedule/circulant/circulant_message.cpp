#include "schedule/circulant/circulant_message.hpp"

#include <algorithm>
#include <mutex>

#include "schedule/allgatherv_generators.hpp"
#include "schedule/circulant/circulant_recv.hpp"
#include "schedule/circulant/circulant_skips.hpp"

namespace papcoll::circulant {

RecvTable::RecvTable(int p) : p_(p) {
  const Skips sk = make_skips(p);
  q_ = sk.q;
  cells_.resize(static_cast<size_t>(p) * q_);
  int row[kMaxQ];
  for (int v = 0; v < p; ++v) {
    recv_schedule(sk, v, row);
    for (int k = 0; k < q_; ++k)
      cells_[static_cast<size_t>(k) * p + v] = static_cast<int8_t>(row[k]);
  }
}

std::shared_ptr<const RecvTable> recv_table(int p) {
  // A communicator has one size, a program a few: the last kKept tables stay, most recent first.
  constexpr size_t kKept = 4;
  static std::mutex mutex;
  static std::vector<std::shared_ptr<const RecvTable>> kept;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = std::find_if(kept.begin(), kept.end(), [&](const auto& t) { return t->p() == p; });
  std::shared_ptr<const RecvTable> table = it != kept.end() ? *it
                                                            : std::make_shared<const RecvTable>(p);
  if (it != kept.end()) kept.erase(it);
  kept.insert(kept.begin(), table);
  if (kept.size() > kKept) kept.pop_back();
  return table;
}

namespace {

// Position o of the group owns the blocks owned(o): the even split of `blocks` over p positions
// (the whole communicator), or the run a group table gives.
class AllgatherMessage final : public BlockRule {
 public:
  AllgatherMessage(int p, int blocks, int k, int offset, int to)
      : p_(p), blocks_(blocks), k_(k), offset_(offset), to_(to) {}
  AllgatherMessage(std::shared_ptr<const std::vector<BlockRun>> owned, int k, int offset, int to)
      : p_(static_cast<int>(owned->size())),
        k_(k),
        offset_(offset),
        to_(to),
        owned_(std::move(owned)) {}

  void expand(BlockSet& out) const override {
    const std::shared_ptr<const RecvTable> table = recv_table(p_);
    const int8_t* col = table->column(k_);
    auto take = [&](int o, int first, int count) {
      if (o == to_ || count == 0) return;
      const int j = col[o < to_ ? to_ - o : to_ - o + p_] + offset_;
      if (j >= 0) out.append(first + std::min(j, count - 1));
    };
    if (owned_ != nullptr) {
      for (int o = 0; o < p_; ++o) take(o, (*owned_)[o].first, (*owned_)[o].count);
      return;
    }
    // Origin o's first block ceil(o B / p) = o base + ceil(o extra / p), stepped without a
    // division: whole + (frac > 0) with o extra = whole p + frac.
    const int base = blocks_ / p_, extra = blocks_ % p_;
    int whole = 0, frac = 0, first = 0;
    for (int o = 0; o < p_; ++o) {
      frac += extra;
      if (frac >= p_) frac -= p_, ++whole;
      const int next = (o + 1) * base + whole + (frac > 0);
      take(o, first, next - first);
      first = next;
    }
  }

  bool same(const BlockRule& other) const override {
    const auto* o = dynamic_cast<const AllgatherMessage*>(&other);
    return o != nullptr && o->p_ == p_ && o->blocks_ == blocks_ && o->k_ == k_ &&
           o->offset_ == offset_ && o->to_ == to_ && o->owned_ == owned_;
  }

  // At most one run per origin.
  int64_t listing_bytes() const override {
    return static_cast<int64_t>(p_) * static_cast<int64_t>(sizeof(BlockRun));
  }

 private:
  int p_, blocks_ = 0, k_, offset_, to_;
  std::shared_ptr<const std::vector<BlockRun>> owned_;
};

// With one block per origin: the origins whose block reaches `to` in a round of index k, those at
// to - d for d in [skip[k], skip[k+1]) (the second fact of the header), as positions
// [lo, end) mod p with end - lo < p.
struct OriginRange {
  int lo, end;
};
OriginRange one_block_origins(const Skips& sk, int k, int to) {
  const int p = sk.p;
  const int lo = ((to - sk.skip[k + 1] + 1) % p + p) % p;
  return {lo, lo + sk.skip[k + 1] - sk.skip[k]};
}

}  // namespace

BlockSet allgather_message(const Skips& sk, int blocks, int k, int offset, int to) {
  const int p = sk.p;
  if (p < 2) return {};
  if (blocks > p)
    return k + offset < 0 ? BlockSet{}
                          : BlockSet::named_by(
                                std::make_shared<const AllgatherMessage>(p, blocks, k, offset, to));
  const auto [lo, end] = one_block_origins(sk, k, to);
  BlockSet s;
  if (end > p) s.append_range(0, origin_first_block(blocks, p, end - p));
  s.append_range(origin_first_block(blocks, p, lo),
                 origin_first_block(blocks, p, std::min(end, p)));
  return s;
}

BlockSet group_allgather_message(const Skips& sk,
                                 const std::shared_ptr<const std::vector<BlockRun>>& owned, int n,
                                 int k, int offset, int to) {
  const int g = sk.p;
  if (g < 2) return {};
  if (n > 1)
    return k + offset < 0
               ? BlockSet{}
               : BlockSet::named_by(std::make_shared<const AllgatherMessage>(owned, k, offset, to));
  const auto [lo, end] = one_block_origins(sk, k, to);
  BlockSet s;
  auto add = [&](int from, int until) {
    for (int o = from; o < until; ++o) s.append_range((*owned)[o].first, (*owned)[o].end());
  };
  if (end > g) add(0, end - g);
  add(lo, std::min(end, g));
  return s;
}

}  // namespace papcoll::circulant
