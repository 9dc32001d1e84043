// The calls that go straight to the MPI library whatever the rest of dispatch would find ("no
// tax on balanced calls", docs/intercept.md): decided per operation once, from what is constant
// after load (the operation's choice, PAPCOLL_CHECK, PAPCOLL_VERBOSE, the arrival history's
// threshold), so that such a call costs the wrapper one table read, one type size from a
// per-thread cache and one compare before the PMPI_ call (observed like every call to the MPI
// library when the report or the watchdog is on, intercept_observe.hpp).
//
// Which calls: an operation set to native, and all-reduce and reduce under `auto` below the
// history's PAPCOLL_HISTORY_MIN_BYTES (every size without the history), which dispatch sends to
// the MPI library anyway (no arrival pattern, selection.cpp) after the same tests; and a
// broadcast under `auto` of a byte count the communicator ran as the MPI library's before. Not
// with PAPCOLL_CHECK (it checks every call) or PAPCOLL_VERBOSE (it counts them). Every input is
// the same on every rank (the environment mpirun exports, the bytes every rank passes alike), so
// every rank takes the same path.
#pragma once

#include <mpi.h>

#include <atomic>

#include "intercept/intercept_config.hpp"

namespace papcoll::intercept {

// Hidden: read without the GOT (the interposition library's own; only MPI_ names are its API).
#define PAPCOLL_INTERCEPT_LOCAL __attribute__((visibility("hidden")))

// Per operation: calls of fewer bytes than this go straight to the MPI library (0: none).
PAPCOLL_INTERCEPT_LOCAL extern long long g_quick_below[static_cast<int>(Operation::count)];
// MPI_Bcast under `auto` with the same conditions: a byte count the communicator already ran as
// the MPI library's broadcast goes there directly (intercept.cpp quick_known_bcast).
PAPCOLL_INTERCEPT_LOCAL extern bool g_quick_bcast_auto;
// observe::g_watching_native (the report or the watchdog is on), copied at load: read without
// going through libpapcoll's GOT entry.
PAPCOLL_INTERCEPT_LOCAL extern bool g_observing;

// The size of `type`, from a one-entry per-thread cache that MPI_Type_free invalidates (a freed
// derived type's handle may come back with another size). -1 when MPI refuses the type.
long long type_size_slow(MPI_Datatype type);
struct TypeSizeCache {
  MPI_Datatype type{};
  long long size = -1;
  unsigned long frees = ~0UL;
};
__attribute__((tls_model("initial-exec"),
               visibility("hidden"))) inline constinit thread_local TypeSizeCache t_type_size;
PAPCOLL_INTERCEPT_LOCAL extern std::atomic<unsigned long> g_type_frees;

inline long long type_size(MPI_Datatype type) {
  const TypeSizeCache& c = t_type_size;
  if (c.type == type && c.frees == g_type_frees.load(std::memory_order_acquire)) [[likely]]
    return c.size;
  return type_size_slow(type);
}

// count * the type's size, or -1 when either is invalid (the full path reports it).
inline long long call_bytes(int count, MPI_Datatype type) {
  const long long size = type_size(type);
  return count < 0 || size < 0 ? -1 : static_cast<long long>(count) * size;
}

// count * the type's size from the per-thread cache alone: -1 when either is invalid,
// kTypeNotCached when the cache does not hold the type (the wrapper's quick path then goes out
// of line, where type_size() finds it).
inline constexpr long long kTypeNotCached = -2;
inline long long cached_call_bytes(int count, MPI_Datatype type) {
  const TypeSizeCache& c = t_type_size;
  if (c.type != type || c.frees != g_type_frees.load(std::memory_order_acquire)) [[unlikely]]
    return kTypeNotCached;
  return count < 0 || c.size < 0 ? -1 : static_cast<long long>(count) * c.size;
}

// The call's bytes when it goes straight to the MPI library, else -1.
inline long long quick_native(Operation op, int count, MPI_Datatype type) {
  const long long below = g_quick_below[static_cast<int>(op)];
  if (below <= 0) return -1;
  const long long bytes = call_bytes(count, type);
  return bytes < below ? bytes : -1;
}

}  // namespace papcoll::intercept
