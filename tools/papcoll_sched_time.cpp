#include "papcoll_sched_time.hpp"

#include <malloc.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <new>
#include <sstream>

#include "json_number.hpp"
#include "schedule/clairvoyant/finish_rounds.hpp"
#include "schedule/plan_memo.hpp"
#include "schedule/schedule_cache.hpp"

namespace papcoll::sched_time {
namespace {

std::atomic<bool> g_counting{false};
std::atomic<long long> g_bytes{0}, g_allocations{0}, g_live{0}, g_peak{0};

void* counted_alloc(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  if (g_counting.load(std::memory_order_relaxed)) {
    const long long size = static_cast<long long>(malloc_usable_size(p));
    g_bytes += size;
    ++g_allocations;
    const long long live = g_live += size;
    long long peak = g_peak.load();
    while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
    }
  }
  return p;
}

void counted_free(void* p) {
  if (p == nullptr) return;
  if (g_counting.load(std::memory_order_relaxed))
    g_live -= static_cast<long long>(malloc_usable_size(p));
  std::free(p);
}

// The work of one call is the generating thread's CPU time, not wall time: on a shared machine a
// preempted call would otherwise count the other processes' time (what matters is the work per
// rank and call on one core).
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct RankFigures {
  int rank = 0;
  double first_us = 0, repeat_us = 0;
  long long bytes = 0, allocations = 0, peak = 0;
  long long kept = 0;  // live after the first call, measured on the first rank timed
  size_t steps = 0, ops = 0;
  long long schedule_bytes = 0;
  // Ops whose blocks a rule names (schedule.hpp, BlockRule), and the time to list them all as the
  // executor's first pack does: the first listing of the process (which builds what the rules
  // share, such as the circulant all-gatherv's table of p) and one more, of a new schedule.
  size_t rule_ops = 0;
  bool listed = false;  // false where the listings would exceed kMaxListingBytes
  double listing_first_us = 0, listing_us = 0;
};

// Listing every op of one rank at p = 2^20 would hold 1.4 GB (166 messages of a block per origin).
constexpr long long kMaxListingBytes = 256LL << 20;

// Lists every rule-named op of a new schedule of `rank`; thread CPU time in us.
double listing_us(const AlgorithmInfo& algo, const GeneratorInput& in, int rank) {
  const RankSchedule rs = generate_rank(algo, in, rank);
  int64_t ids = 0;
  const double t0 = thread_seconds();
  for (const Op& op : rs.ops)
    if (op.blocks.named_by_rule()) ids += op.blocks.size();
  const double us = (thread_seconds() - t0) * 1e6;
  if (ids < 0) std::abort();
  return us;
}

// `first_in_process`: nothing is kept yet, so what the first call leaves allocated once its
// schedule is gone is what the memos keep of one pattern (later calls' evictions free the
// entries of earlier ones while counting).
RankFigures time_rank(const AlgorithmInfo& algo, const GeneratorInput& in, int rank, int calls,
                      bool first_in_process) {
  RankFigures f;
  f.rank = rank;
  std::vector<double> first, repeat;
  for (int i = 0; i < calls; ++i) {
    const bool count = i == 0;
    // Every first call is a new pattern's: nothing of an earlier one's simulations or plans kept.
    clairvoyant::clear_finish_rounds();
    forget_plans();
    if (count) AllocationCounter::start();
    {
      const double t0 = thread_seconds();
      RankSchedule rs = generate_rank(algo, in, rank);
      first.push_back((thread_seconds() - t0) * 1e6);
      if (count) {
        f.bytes = AllocationCounter::bytes();
        f.allocations = AllocationCounter::allocations();
        f.peak = AllocationCounter::peak();
        f.steps = rs.steps.size();
        f.ops = rs.ops.size();
        f.schedule_bytes = rs.bytes();
      }
    }
    if (count) {
      if (first_in_process) f.kept = AllocationCounter::live();
      AllocationCounter::stop();
    }
  }
  // A repeated call: the key of the call's input and the cache lookup that finds it.
  ScheduleCache cache;
  cache.insert(schedule_key(algo.collective, &algo, in),
               {std::make_shared<const RankSchedule>(generate_rank(algo, in, rank)), nullptr,
                nullptr});
  for (int i = 0; i < calls; ++i) {
    const double t0 = thread_seconds();
    std::shared_ptr<const RankSchedule> hit;
    const bool found = cache.find(schedule_key(algo.collective, &algo, in), &hit);
    repeat.push_back((thread_seconds() - t0) * 1e6);
    if (!found) std::abort();
  }
  f.first_us = median(first);
  f.repeat_us = median(repeat);
  const RankSchedule rs = generate_rank(algo, in, rank);
  for (const Op& op : rs.ops) f.rule_ops += op.blocks.named_by_rule();
  f.listed = f.rule_ops > 0 && rs.bytes() <= kMaxListingBytes;
  if (f.listed) {
    f.listing_first_us = listing_us(algo, in, rank);
    f.listing_us = listing_us(algo, in, rank);
  }
  return f;
}

}  // namespace

void AllocationCounter::start() {
  g_bytes = 0;
  g_allocations = 0;
  g_live = 0;
  g_peak = 0;
  g_counting = true;
}
void AllocationCounter::stop() { g_counting = false; }
long long AllocationCounter::bytes() { return g_bytes; }
long long AllocationCounter::allocations() { return g_allocations; }
long long AllocationCounter::peak() { return g_peak; }
long long AllocationCounter::live() { return g_live; }

int run(const AlgorithmInfo& algo, const GeneratorInput& in, const Options& opt) {
  std::vector<RankFigures> all;
  for (int r : opt.ranks) all.push_back(time_rank(algo, in, r, opt.calls, all.empty()));
  // Several ranks: the slowest first call is the figure (every rank must have its schedule).
  const RankFigures& worst =
      *std::max_element(all.begin(), all.end(), [](const RankFigures& a, const RankFigures& b) {
        return a.first_us < b.first_us;
      });
  RankFigures m = worst;
  for (const RankFigures& f : all) {
    m.repeat_us = std::max(m.repeat_us, f.repeat_us);
    m.bytes = std::max(m.bytes, f.bytes);
    m.peak = std::max(m.peak, f.peak);
    m.steps = std::max(m.steps, f.steps);
    m.listing_first_us = std::max(m.listing_first_us, f.listing_first_us);
    m.listing_us = std::max(m.listing_us, f.listing_us);
    m.listed = m.listed && f.listed;
  }
  const char* ranks = all.size() > 1 ? "all" : nullptr;
  std::ostringstream o;
  if (opt.json) {
    using papcoll_cli::json_number;
    constexpr int kDigits = 6;  // as the stream's default precision wrote them before
    papcoll_cli::Json doc{{"format", "papcoll-sched-time/1"},
                          {"collective", collective_name(algo.collective)},
                          {"algorithm", algo.name},
                          {"p", in.p},
                          {"blocks", in.blocks},
                          {"pattern", opt.pattern}};
    if (ranks) {
      doc["rank"] = "all";
      doc["slowest_rank"] = worst.rank;
    } else {
      doc["rank"] = worst.rank;
    }
    doc["calls"] = opt.calls;
    doc["first_call_us"] = json_number(m.first_us, kDigits);
    doc["repeated_call_us"] = json_number(m.repeat_us, kDigits);
    doc["allocated_bytes"] = m.bytes;
    doc["allocations"] = m.allocations;
    doc["peak_bytes"] = m.peak;
    doc["kept_bytes"] = all.front().kept;
    doc["steps"] = m.steps;
    doc["ops"] = m.ops;
    doc["schedule_bytes"] = m.schedule_bytes;
    doc["rule_ops"] = m.rule_ops;
    doc["listed"] = m.listed;
    doc["listing_first_us"] = json_number(m.listing_first_us, kDigits);
    doc["listing_us"] = json_number(m.listing_us, kDigits);
    o << doc.dump() << '\n';
  } else {
    o << "time " << collective_name(algo.collective) << ' ' << algo.name << ": p=" << in.p
      << " blocks=" << in.blocks << " pattern=" << opt.pattern << " rank="
      << (ranks ? "all (slowest: " + std::to_string(worst.rank) + ")" : std::to_string(worst.rank))
      << " calls=" << opt.calls << '\n';
    char line[256];
    std::snprintf(
        line, sizeof line,
        "first call    %12.2f us (median thread CPU time; the rank's part generated alone)\n",
        m.first_us);
    o << line;
    std::snprintf(line, sizeof line, "repeated call %12.2f us (median; key and cache lookup)\n",
                  m.repeat_us);
    o << line;
    o << "allocated     " << m.bytes << " bytes in " << m.allocations << " allocations (peak "
      << m.peak << " bytes live)\n";
    o << "kept          " << all.front().kept << " bytes after the first call (rank "
      << all.front().rank << "; what the row's memos hold of one pattern)\n";
    o << "schedule      " << m.steps << " steps, " << m.ops << " ops, " << m.schedule_bytes
      << " bytes" << (m.rule_ops > 0 ? " (rule-named blocks counted listed)" : "") << "\n";
    if (m.rule_ops > 0 && !m.listed) {
      o << "listing       not measured: the " << m.rule_ops
        << " rule-named ops would list more than 256 MiB\n";
    } else if (m.rule_ops > 0) {
      std::snprintf(line, sizeof line,
                    "listing       %12.2f us for the %zu rule-named ops when first read (%.2f us "
                    "the first time in the process)\n",
                    m.listing_us, m.rule_ops, m.listing_first_us);
      o << line;
    }
  }
  std::cout << o.str();
  return 0;
}

}  // namespace papcoll::sched_time

// Every allocation of papcoll-sched goes through the counter (cheap when not counting).
void* operator new(std::size_t n) { return papcoll::sched_time::counted_alloc(n); }
void* operator new[](std::size_t n) { return papcoll::sched_time::counted_alloc(n); }
void operator delete(void* p) noexcept { papcoll::sched_time::counted_free(p); }
void operator delete[](void* p) noexcept { papcoll::sched_time::counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { papcoll::sched_time::counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { papcoll::sched_time::counted_free(p); }
