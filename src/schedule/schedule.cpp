#include "schedule/schedule.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>

namespace papcoll {

BlockSet::BlockSet(std::initializer_list<int> ids) : BlockSet(std::vector<int>(ids)) {}

BlockSet::BlockSet(const std::vector<int>& ids) {
  std::vector<int> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (int b : sorted) append(b);
}

struct BlockSet::Listing {
  explicit Listing(std::shared_ptr<const BlockRule> r) : rule(std::move(r)) {}
  std::shared_ptr<const BlockRule> rule;
  std::once_flag once;  // schedules are shared (the cache), so two threads may read one first
  BlockSet ids;
};

BlockSet BlockSet::named_by(std::shared_ptr<const BlockRule> rule) {
  if (rule == nullptr) throw std::logic_error("BlockSet::named_by: no rule");
  auto listing = std::make_shared<Listing>(std::move(rule));
  BlockSet s;
  s.more_.~vector();
  new (&s.lazy_) std::shared_ptr<Listing>(std::move(listing));
  s.head_ = {0, kRule};
  return s;
}

std::span<const BlockRun> BlockSet::listed_runs() const {
  Listing& l = *lazy_;
  std::call_once(l.once, [&] {
    l.rule->expand(l.ids);
    if (l.ids.empty()) throw std::logic_error("BlockSet: a rule named no block");
  });
  return l.ids.runs();
}

int64_t BlockSet::heap_bytes() const {
  if (is_rule()) return static_cast<int64_t>(sizeof(Listing)) + lazy_->rule->listing_bytes();
  return static_cast<int64_t>(more_.capacity() * sizeof(BlockRun));
}

void BlockSet::append_range(int first, int last) {
  if (is_rule()) throw std::logic_error("BlockSet: a rule's set is complete");
  if (last <= first) return;
  if (empty()) {
    head_ = {first, last - first};
    return;
  }
  BlockRun& tail = more_.empty() ? head_ : more_.back();
  if (first < tail.end()) throw std::logic_error("BlockSet: ids appended out of order");
  if (first == tail.end()) {
    tail.count += last - first;
    return;
  }
  if (more_.empty()) more_.push_back(head_);
  more_.push_back({first, last - first});
}

int64_t BlockSet::size() const {
  int64_t n = 0;
  for (const BlockRun& r : runs()) n += r.count;
  return n;
}

bool BlockSet::contains(int b) const {
  const std::span<const BlockRun> rs = runs();
  const auto it = std::upper_bound(rs.begin(), rs.end(), b,
                                   [](int x, const BlockRun& r) { return x < r.first; });
  return it != rs.begin() && b < std::prev(it)->end();
}

std::vector<int> BlockSet::ids() const {
  std::vector<int> v;
  v.reserve(static_cast<size_t>(size()));
  for_each([&](int b) { v.push_back(b); });
  return v;
}

bool BlockSet::operator==(const BlockSet& o) const {
  if (is_rule() && o.is_rule() && (lazy_ == o.lazy_ || lazy_->rule->same(*o.lazy_->rule)))
    return true;
  const std::span<const BlockRun> a = runs(), b = o.runs();
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

void RankSchedule::new_step(int64_t round) {
  if (!steps.empty() && round < steps.back().round)
    throw std::logic_error("RankSchedule::add: rounds out of order");
  steps.push_back(Step{round, static_cast<int>(ops.size()), 0});
}

int64_t RankSchedule::bytes() const {
  int64_t n = static_cast<int64_t>(steps.capacity() * sizeof(Step) + ops.capacity() * sizeof(Op));
  for (const Op& op : ops) n += op.blocks.heap_bytes();
  return n;
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
