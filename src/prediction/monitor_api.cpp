// The C entry points of the progress monitor (include/papcoll/papcoll.h). Nothing escapes into C
// callers: exceptions become PAPCOLL_ERR_INTERNAL.
#include <new>
#include <string>

#include "api/error.hpp"
#include "papcoll/papcoll.h"
#include "prediction/monitor.hpp"

namespace {

using papcoll::fail;
using papcoll::prediction::Monitor;

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

int bad_handle(const char* who) {
  return fail(PAPCOLL_ERR_ARG, std::string(who) + ": not a monitor (NULL, freed or garbage)");
}

}  // namespace

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
    const int rc = Monitor::create(comm, cfg != nullptr ? *cfg : defaults, &m);
    if (rc != PAPCOLL_SUCCESS) return rc;
    auto* h = new papcoll_monitor_s;
    h->impl = m;
    *mon = h;
    return PAPCOLL_SUCCESS;
  });
}

extern "C" int papcoll_monitor_create(MPI_Comm comm, papcoll_monitor* mon) {
  return papcoll_monitor_create_config(comm, nullptr, mon);
}

extern "C" int papcoll_monitor_begin(papcoll_monitor mon) {
  constexpr const char* who = "papcoll_monitor_begin";
  return guarded(who, [&]() -> int {
    Monitor* m = papcoll::prediction::monitor_from_handle(mon);
    return m ? m->begin() : bad_handle(who);
  });
}

extern "C" int papcoll_monitor_edge(papcoll_monitor mon, double fraction) {
  constexpr const char* who = "papcoll_monitor_edge";
  return guarded(who, [&]() -> int {
    Monitor* m = papcoll::prediction::monitor_from_handle(mon);
    return m ? m->edge(fraction) : bad_handle(who);
  });
}

extern "C" int papcoll_monitor_pattern(papcoll_monitor mon, double* pattern, int count,
                                       int* source) {
  constexpr const char* who = "papcoll_monitor_pattern";
  return guarded(who, [&]() -> int {
    Monitor* m = papcoll::prediction::monitor_from_handle(mon);
    return m ? m->pattern(pattern, count, source) : bad_handle(who);
  });
}

extern "C" int papcoll_monitor_test_inject(papcoll_monitor mon, double remaining) {
  constexpr const char* who = "papcoll_monitor_test_inject";
  return guarded(who, [&]() -> int {
    Monitor* m = papcoll::prediction::monitor_from_handle(mon);
    return m ? m->inject(remaining) : bad_handle(who);
  });
}

extern "C" int papcoll_monitor_free(papcoll_monitor* mon) {
  constexpr const char* who = "papcoll_monitor_free";
  return guarded(who, [&]() -> int {
    if (mon == nullptr) return fail(PAPCOLL_ERR_ARG, std::string(who) + ": mon is NULL");
    Monitor* m = papcoll::prediction::monitor_from_handle(*mon);
    if (m == nullptr) return bad_handle(who);
    const int rc = m->close();
    // After an MPI failure requests may still point into the monitor: leak it rather than free
    // memory MPI might write.
    if (rc == PAPCOLL_SUCCESS) delete m;
    (*mon)->magic = 0;  // a stale copy of the handle is refused, not followed
    delete *mon;
    *mon = nullptr;
    return rc;
  });
}
