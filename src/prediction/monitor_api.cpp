// The C entry points of the progress monitor (include/papcoll/papcoll.h) and the table behind
// their handles. Nothing escapes into C callers: exceptions become PAPCOLL_ERR_INTERNAL.
//
// Handles. A papcoll_monitor is never a pointer to anything: it is the number of a slot in the
// table below and the slot's generation at creation, packed into the pointer's bits. Freeing a
// monitor bumps its slot's generation, so every copy of the old handle is refused afterwards
// ("was freed") without reading memory, and a value that never was a handle (garbage, an
// uninitialised variable) fails the tag or range check. A generation is 32 bits: a stale handle
// could only match again after 2^32 create/free cycles on the same slot.
//
// Concurrent free. Every use of a handle (a papcoll_monitor_* call, or a collective whose options
// name it, from its option checks to its return) holds a lease on the table entry. Free first
// marks the entry as being freed (from then on other uses fail with "was freed"), then agrees
// with the other ranks on how many collective calls the monitor serves: the most any rank let in
// (Monitor::agree_calls). A collective call that comes while that number is being agreed waits
// for it, and gets its lease if it is one of them. The free then waits until this rank has let in
// that many calls and every lease is returned, takes the entry out of the table, closes and
// deletes the monitor. So a free that races with a collective call's start, coming first on some
// ranks and after it on others, lets the call use the monitor on every rank (it finishes normally
// and the free completes after it); a call that starts on every rank after the frees returns
// PAPCOLL_ERR_ARG on every rank.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "error/error.hpp"
#include "error/hot_path.hpp"
#include "papcoll/papcoll.h"
#include "prediction/monitor.hpp"

namespace papcoll::prediction {

struct MonitorLease::Entry {
  std::unique_ptr<Monitor> monitor;
  int leases = 0;             // MonitorLease objects alive
  bool freeing = false;       // a free is under way: other uses are refused
  bool calls_agreed = false;  // the free knows `served`
  int waiting = 0;            // collective calls waiting for `served`
  std::uint64_t calls = 0;    // collective calls let in (monitor_for_call)
  std::uint64_t served = 0;   // the calls every rank lets in, agreed by the free
};

namespace {

static_assert(sizeof(std::uintptr_t) >= 8, "handles pack a slot and a 32-bit generation");

// Bits of a handle: generation (32) | tag (12) | slot + 1 (20). The tag makes small integers and
// most garbage fail at once; slot + 1 keeps every handle non-NULL.
constexpr std::uint64_t kTag = 0xA5C;
constexpr int kSlotBits = 20;
constexpr std::uint64_t kMaxSlots = (std::uint64_t{1} << kSlotBits) - 1;

struct Slot {
  std::uint32_t generation = 1;
  MonitorLease::Entry* entry = nullptr;  // owned; null while the slot is free
};

struct HandleTable {
  std::mutex mu;
  std::condition_variable released;  // a lease of a freeing entry was returned
  std::vector<Slot> slots;
  std::vector<std::uint32_t> free_slots;
};

// Never destroyed: a monitor the program did not free stays valid until exit, and no static
// destructor can race with a late call.
HandleTable& table() {
  static HandleTable* t = new HandleTable;
  return *t;
}

papcoll_monitor encode(std::uint32_t slot, std::uint32_t generation) {
  const std::uint64_t v = (std::uint64_t{generation} << 32) | (kTag << kSlotBits) | (slot + 1);
  return reinterpret_cast<papcoll_monitor>(static_cast<std::uintptr_t>(v));
}

// The slot of `h` when it is live, else nullptr and the reason.
Slot* find_locked(HandleTable& t, papcoll_monitor h, std::string* why) {
  const auto v = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(h));
  const std::uint64_t low = v & ((std::uint64_t{1} << kSlotBits) - 1);
  if (h == nullptr) {
    *why = "the monitor is NULL";
  } else if (((v >> kSlotBits) & 0xFFF) != kTag || low == 0 || low > t.slots.size()) {
    *why = "not a monitor handle (garbage or uninitialised)";
  } else {
    Slot& s = t.slots[low - 1];
    if (s.entry != nullptr && s.generation == static_cast<std::uint32_t>(v >> 32)) return &s;
    *why = "the monitor was freed (a stale handle)";
  }
  return nullptr;
}

template <class F>
int guarded(const char* who, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return fail(PAPCOLL_ERR_INTERNAL, std::string(who) + ": out of memory");
  } catch (const std::exception& e) {
    return fail(PAPCOLL_ERR_INTERNAL, std::string(who) + ": " + e.what());
  } catch (...) {
    return fail(PAPCOLL_ERR_INTERNAL, std::string(who) + ": unknown exception");
  }
}

// Runs f(Monitor&) under a lease, or fails with PAPCOLL_ERR_ARG naming why the handle is refused.
template <class F>
int with_monitor(const char* who, papcoll_monitor h, F&& f) {
  return guarded(who, [&]() -> int {
    std::string why;
    const MonitorLease m = monitor_from_handle(h, &why);
    if (!m) return fail(PAPCOLL_ERR_ARG, std::string(who) + ": " + why);
    return f(*m.get());
  });
}

// Adds a created monitor to the table (taking it from `m` only on success); its handle.
papcoll_monitor insert(std::unique_ptr<Monitor>& m) {
  HandleTable& t = table();
  auto entry = std::make_unique<MonitorLease::Entry>();
  std::lock_guard<std::mutex> lock(t.mu);
  std::uint32_t slot;
  if (!t.free_slots.empty()) {
    slot = t.free_slots.back();
    t.free_slots.pop_back();
  } else {
    if (t.slots.size() >= kMaxSlots) throw std::runtime_error("too many live monitors");
    t.slots.emplace_back();
    slot = static_cast<std::uint32_t>(t.slots.size() - 1);
  }
  entry->monitor = std::move(m);
  t.slots[slot].entry = entry.release();
  return encode(slot, t.slots[slot].generation);
}

// papcoll_monitor_free: agree on the calls served, wait for them and the leases, out of the
// table, close, delete.
int free_monitor(papcoll_monitor* mon, const char* who) {
  if (mon == nullptr) return fail(PAPCOLL_ERR_ARG, std::string(who) + ": mon is NULL");
  HandleTable& t = table();
  MonitorLease::Entry* e = nullptr;
  std::uint64_t mine = 0;
  {
    std::lock_guard<std::mutex> lock(t.mu);
    std::string why;
    Slot* s = find_locked(t, *mon, &why);
    if (s == nullptr) return fail(PAPCOLL_ERR_ARG, std::string(who) + ": " + why);
    e = s->entry;
    if (e->freeing)
      return fail(PAPCOLL_ERR_ARG, std::string(who) + ": the monitor was freed (another thread "
                                                      "is freeing it)");
    e->freeing = true;
    mine = e->calls;
  }
  // Collective: the entry stays in the table (only this free takes it out), so `e` lives.
  std::uint64_t served = mine;
  const MpiStatus agreed = e->monitor->agree_calls(mine, &served);
  std::unique_ptr<MonitorLease::Entry> entry;
  {
    std::unique_lock<std::mutex> lock(t.mu);
    e->served = agreed.ok() ? served : mine;
    e->calls_agreed = true;
    t.released.notify_all();
    t.released.wait(lock,
                    [&] { return e->calls >= e->served && e->leases == 0 && e->waiting == 0; });
    std::string why;
    Slot* s = find_locked(t, *mon, &why);
    entry.reset(e);
    if (s != nullptr && s->entry == e) {
      s->entry = nullptr;
      ++s->generation;
      t.free_slots.push_back(static_cast<std::uint32_t>(s - t.slots.data()));
    }
  }
  *mon = nullptr;
  if (!agreed.ok()) {
    (void)entry.release();  // requests may still point into it
    return fail(PAPCOLL_ERR_MPI, std::string(who) + ": " + describe(agreed));
  }
  const int rc = entry->monitor->close();
  // After an MPI failure requests may still point into the monitor: leak it rather than free
  // memory MPI might write.
  if (rc != PAPCOLL_SUCCESS) (void)entry->monitor.release();
  return rc;
}

}  // namespace

PAPCOLL_HOT void MonitorLease::release() noexcept {
  if (entry_ == nullptr) return;
  HandleTable& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  if (--entry_->leases == 0 && entry_->freeing) t.released.notify_all();
  entry_ = nullptr;
  m_ = nullptr;
}

MonitorLease monitor_from_handle(papcoll_monitor h, std::string* why) {
  HandleTable& t = table();
  std::string reason;
  std::lock_guard<std::mutex> lock(t.mu);
  Slot* s = find_locked(t, h, &reason);
  if (s != nullptr && s->entry->freeing) {
    s = nullptr;
    reason = "the monitor was freed (a stale handle)";
  }
  if (s == nullptr) {
    if (why != nullptr) *why = reason;
    return {};
  }
  ++s->entry->leases;
  return MonitorLease(s->entry->monitor.get(), s->entry);
}

MonitorLease monitor_for_call(papcoll_monitor h, std::string* why) {
  HandleTable& t = table();
  std::string reason;
  std::unique_lock<std::mutex> lock(t.mu);
  Slot* s = find_locked(t, h, &reason);
  if (s == nullptr) {
    if (why != nullptr) *why = reason;
    return {};
  }
  MonitorLease::Entry* e = s->entry;
  if (e->freeing) {
    // The free keeps the entry (and waits for this waiter) until the count is known.
    ++e->waiting;
    t.released.wait(lock, [&] { return e->calls_agreed; });
    --e->waiting;
    if (e->calls >= e->served) {
      t.released.notify_all();
      if (why != nullptr) *why = "the monitor was freed (a stale handle)";
      return {};
    }
  }
  ++e->calls;
  ++e->leases;
  return MonitorLease(e->monitor.get(), e);
}

int monitor_calls_in_flight(papcoll_monitor h) {
  HandleTable& t = table();
  std::string why;
  std::lock_guard<std::mutex> lock(t.mu);
  const Slot* s = find_locked(t, h, &why);
  return s != nullptr ? s->entry->leases : -1;
}

bool monitor_quiet_call(papcoll_monitor h, int site, int* following, int every) {
  MonitorLease lease = monitor_from_handle(h);
  return lease && lease->quiet_call(site, following, every);
}

void monitor_count_quiet(papcoll_monitor h, int site, int calls) {
  MonitorLease lease = monitor_from_handle(h);
  if (lease) lease->count_quiet(site, calls);
}

}  // namespace papcoll::prediction

using papcoll::fail;
using papcoll::prediction::free_monitor;
using papcoll::prediction::guarded;
using papcoll::prediction::Monitor;
using papcoll::prediction::with_monitor;

extern "C" void papcoll_monitor_config_init(papcoll_monitor_config* cfg) {
  if (cfg == nullptr) return;
  *cfg = papcoll_monitor_config{};
  cfg->version = PAPCOLL_MONITOR_CONFIG_VERSION;
  cfg->mode = PAPCOLL_MONITOR_EDGE;
  cfg->predictor = PAPCOLL_PREDICT_SMA;
  cfg->window = 4;
  cfg->ema_alpha = 0.5;
  cfg->warmup_messages = 1;
  cfg->sync_samples = 8;
  cfg->horizon = 3600.0;
  cfg->poll_us = 100;
  cfg->test_clock_offset = 0.0;
  cfg->history_sample = 1;
  cfg->history_spread = 1e-4;
}

extern "C" int papcoll_monitor_create_config(MPI_Comm comm, const papcoll_monitor_config* cfg,
                                             papcoll_monitor* mon) {
  constexpr const char* who = "papcoll_monitor_create";
  return guarded(who, [&]() -> int {
    if (mon == nullptr) return fail(PAPCOLL_ERR_ARG, std::string(who) + ": mon is NULL");
    *mon = nullptr;
    papcoll_monitor_config defaults;
    papcoll_monitor_config_init(&defaults);
    Monitor* m = nullptr;
    papcoll_monitor_config c = defaults;
    if (cfg != nullptr && cfg->version == 1) {
      // A program built against version 1 passes the shorter struct: its fields, defaults for
      // the rest.
      std::memcpy(&c, cfg, offsetof(papcoll_monitor_config, history_sample));
      c.version = PAPCOLL_MONITOR_CONFIG_VERSION;
    } else if (cfg != nullptr) {
      c = *cfg;
    }
    const int rc = Monitor::create(comm, c, &m);
    if (rc != PAPCOLL_SUCCESS) return rc;
    std::unique_ptr<Monitor> owned(m);
    try {
      *mon = papcoll::prediction::insert(owned);
    } catch (...) {
      (void)owned->close();  // collective like the creation: every rank gets here alike
      throw;
    }
    return PAPCOLL_SUCCESS;
  });
}

extern "C" int papcoll_monitor_create(MPI_Comm comm, papcoll_monitor* mon) {
  return papcoll_monitor_create_config(comm, nullptr, mon);
}

extern "C" int papcoll_monitor_begin(papcoll_monitor mon) {
  return with_monitor("papcoll_monitor_begin", mon, [](Monitor& m) { return m.begin(); });
}

extern "C" int papcoll_monitor_edge(papcoll_monitor mon, double fraction) {
  return with_monitor("papcoll_monitor_edge", mon, [&](Monitor& m) { return m.edge(fraction); });
}

extern "C" int papcoll_monitor_pattern(papcoll_monitor mon, double* pattern, int count,
                                       int* source) {
  return with_monitor("papcoll_monitor_pattern", mon,
                      [&](Monitor& m) { return m.pattern(pattern, count, source); });
}

extern "C" int papcoll_monitor_test_inject(papcoll_monitor mon, double remaining) {
  return with_monitor("papcoll_monitor_test_inject", mon,
                      [&](Monitor& m) { return m.inject(remaining); });
}

extern "C" int papcoll_monitor_free(papcoll_monitor* mon) {
  constexpr const char* who = "papcoll_monitor_free";
  return guarded(who, [&] { return free_monitor(mon, who); });
}
