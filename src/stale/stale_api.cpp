// The C entry points of the bounded-staleness all-reduce (include/papcoll/stale.h): argument
// checks, the live handles, MPI_Finalize, and what the call board and the straggler report see of
// each call. Nothing escapes into C callers: exceptions become PAPCOLL_ERR_INTERNAL.
//
// Report and board: a call is recorded on the program's communicator as an all-reduce whose
// algorithm is "stale", with this rank's arrival (the post) as its entry time, so the report
// names the late ranks of a training run per step as it does for papcoll_allreduce. The
// engine's own all-reduces between the threads are not recorded (stale_engine.cpp). The observer
// of the communicator is made at the handle's creation, which is collective anyway, so that no
// call needs a collective step (a late rank's call must not make the others wait).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "error/error.hpp"
#include "error/guarded_call.hpp"
#include "observe/call_watch.hpp"
#include "papcoll/stale.h"
#include "prediction/monitor.hpp"
#include "schedule/schedule.hpp"
#include "stale/stale_engine.hpp"

namespace papcoll::stale {
namespace {

std::mutex g_stale_mutex;
std::set<Engine*>& live_engines() {
  static auto* s = new std::set<Engine*>;  // never destroyed: a late call finds it
  return *s;
}

int stale_finalize_hook(MPI_Comm, int, void*, void*) {
  std::vector<Engine*> alive;
  {
    std::lock_guard<std::mutex> lock(g_stale_mutex);
    alive.assign(live_engines().begin(), live_engines().end());
  }
  for (Engine* e : alive) e->shutdown();
  return MPI_SUCCESS;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI is still usable: the place to
// stop the threads of handles the program did not free (as the monitor does).
[[maybe_unused]] bool install_stale_finalize_hook() {
  static const bool ok = [] {
    int key = MPI_KEYVAL_INVALID;
    return MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, stale_finalize_hook, &key, nullptr) ==
               MPI_SUCCESS &&
           MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr) == MPI_SUCCESS;
  }();
  return ok;
}

// The predefined types MPI_SUM is defined on (MPI 4.0 Sec. 6.9.2: C integer, floating point,
// complex; MPI_CHAR is not an integer type there).
bool summable(MPI_Datatype t) {
  const MPI_Datatype ok[] = {MPI_SHORT,
                             MPI_INT,
                             MPI_LONG,
                             MPI_LONG_LONG,
                             MPI_SIGNED_CHAR,
                             MPI_UNSIGNED_CHAR,
                             MPI_UNSIGNED_SHORT,
                             MPI_UNSIGNED,
                             MPI_UNSIGNED_LONG,
                             MPI_UNSIGNED_LONG_LONG,
                             MPI_INT8_T,
                             MPI_INT16_T,
                             MPI_INT32_T,
                             MPI_INT64_T,
                             MPI_UINT8_T,
                             MPI_UINT16_T,
                             MPI_UINT32_T,
                             MPI_UINT64_T,
                             MPI_FLOAT,
                             MPI_DOUBLE,
                             MPI_LONG_DOUBLE,
                             MPI_C_FLOAT_COMPLEX,
                             MPI_C_DOUBLE_COMPLEX,
                             MPI_C_LONG_DOUBLE_COMPLEX};
  return std::find(std::begin(ok), std::end(ok), t) != std::end(ok);
}

bool known_allreduce_algorithm(const char* name) {
  if (name == nullptr) return true;
  const char* list = papcoll_algorithms("allreduce");
  if (list == nullptr) return false;
  const std::string all = std::string(",") + list + ",";
  return all.find("," + std::string(name) + ",") != std::string::npos;
}

// The live engine behind a handle, or null with the reason recorded.
Engine* find_engine(papcoll_stale h, const char* who) {
  auto* e = reinterpret_cast<Engine*>(h);
  std::lock_guard<std::mutex> lock(g_stale_mutex);
  if (h == nullptr) {
    fail(PAPCOLL_ERR_ARG, std::string(who) + ": the handle is NULL");
    return nullptr;
  }
  if (live_engines().count(e) == 0) {
    fail(PAPCOLL_ERR_ARG, std::string(who) + ": not a live handle (freed, or never created)");
    return nullptr;
  }
  return e;
}

// What the board and the report see of one call on the program's communicator.
struct StaleCallWatch {
  observe::CallWatch watch;
  StaleCallWatch(MPI_Comm comm, long long bytes)
      : watch(comm, static_cast<int>(Collective::allreduce), prediction::steady_seconds()) {
    if (!watch.on()) return;
    watch.set_key(bytes, -1);
    // Published at once with what the watchdog can compare (the operation): the engines run the
    // call's messages on their own communicator, so no rank can join it from the board.
    observe::BoardCall c{};
    c.collective = static_cast<int>(Collective::allreduce);
    c.flags = observe::kCallMpiOnly;
    c.units = c.count = -1;
    c.type = c.unit_type = c.op = c.root = -1;
    c.algorithm = observe::kAlgorithmNative;
    watch.publish(c);
    watch.ran("stale", observe::AutoReason::named, NAN);
  }
};

}  // namespace
}  // namespace papcoll::stale

using papcoll::fail;
using papcoll::guarded_call;
using papcoll::stale::Engine;
using papcoll::stale::EngineConfig;
using papcoll::stale::find_engine;

extern "C" void papcoll_stale_config_init(papcoll_stale_config* cfg) {
  if (cfg == nullptr) return;
  *cfg = papcoll_stale_config{};
  cfg->version = PAPCOLL_STALE_CONFIG_VERSION;
  cfg->staleness = 1;
  cfg->deadline = 0.002;
  cfg->algorithm = nullptr;
  cfg->poll_us = 50;
}

extern "C" int papcoll_stale_create(MPI_Comm comm, int count, MPI_Datatype datatype, MPI_Op op,
                                    const papcoll_stale_config* cfg, papcoll_stale* out) {
  constexpr const char* who = "papcoll_stale_create";
  return guarded_call(who, [&]() -> int {
    auto arg = [&](const std::string& m) {
      return fail(PAPCOLL_ERR_ARG, std::string(who) + ": " + m);
    };
    if (out == nullptr) return arg("out is NULL");
    *out = nullptr;
    papcoll_stale_config c;
    papcoll_stale_config_init(&c);
    if (cfg != nullptr) {
      if (cfg->version != PAPCOLL_STALE_CONFIG_VERSION)
        return arg("config version is " + std::to_string(cfg->version) +
                   " (call papcoll_stale_config_init)");
      c = *cfg;
    }
    // Checks every rank makes alike on arguments that must be the same everywhere; a rank that
    // refuses returns before any communication, as a collective whose pattern it cannot know.
    if (c.staleness < 0) return arg("staleness must be >= 0");
    if (!(c.deadline >= 0) || !std::isfinite(c.deadline))
      return arg("deadline must be finite and >= 0");
    if (c.poll_us < 1 || c.poll_us > 100000) return arg("poll_us must be in 1..100000");
    if (!papcoll::stale::known_allreduce_algorithm(c.algorithm))
      return fail(PAPCOLL_ERR_ALGORITHM, std::string(who) + ": unknown algorithm '" + c.algorithm +
                                             "'; valid: " + papcoll_algorithms("allreduce"));
    if (count < 0) return arg("count is negative");
    if (op != MPI_SUM)
      return arg("op must be MPI_SUM (a late contribution is added to a later "
                 "call's)");
    if (datatype == MPI_DATATYPE_NULL || !papcoll::stale::summable(datatype))
      return arg("datatype must be a predefined integer, floating-point or complex type");
    if (comm == MPI_COMM_NULL) return arg("comm is MPI_COMM_NULL");
    int initialized = 0, finalized = 0, inter = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized) return arg("MPI is not initialised or already finalised");
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
      return arg("intercommunicators are not supported");
#ifdef PAPCOLL_SMPI
    return fail(PAPCOLL_ERR_THREAD, std::string(who) +
                                        ": not available under SimGrid SMPI, which runs no "
                                        "threads beside the ranks");
#else
    if (!papcoll::stale::install_stale_finalize_hook())
      return fail(PAPCOLL_ERR_MPI, std::string(who) + ": cannot install the MPI_Finalize hook");
    EngineConfig ec;
    ec.staleness = c.staleness;
    ec.deadline = c.deadline;
    ec.algorithm = c.algorithm != nullptr ? c.algorithm : "";
    ec.poll_us = c.poll_us;
    Engine* e = nullptr;
    if (int rc = Engine::create(comm, count, datatype, ec, &e); rc != PAPCOLL_SUCCESS) return rc;
    // Collective like the creation: the communicator's observer, so no call has to make it.
    int size = 1;
    MPI_Comm_size(comm, &size);
    if (papcoll::observe::active() && size > 1) (void)papcoll::observe::make_observer(comm);
    {
      std::lock_guard<std::mutex> lock(papcoll::stale::g_stale_mutex);
      papcoll::stale::live_engines().insert(e);
    }
    *out = reinterpret_cast<papcoll_stale>(e);
    return PAPCOLL_SUCCESS;
#endif
  });
}

extern "C" int papcoll_stale_allreduce(papcoll_stale h, const void* sendbuf, void* recvbuf,
                                       long long* contributions) {
  constexpr const char* who = "papcoll_stale_allreduce";
  return guarded_call(who, [&]() -> int {
    Engine* e = find_engine(h, who);
    if (e == nullptr) return PAPCOLL_ERR_ARG;
    // A NULL buffer cannot stand in for the others' data here: the call would have to take part
    // without a contribution, which is what a late rank does anyway. Refused on this rank, before
    // anything is posted (the others go on without it: this call of the rank never happens).
    if (recvbuf == nullptr || sendbuf == nullptr)
      return fail(PAPCOLL_ERR_ARG, std::string(who) + ": a buffer is NULL");
    const papcoll::stale::StaleCallWatch w(e->user_comm(), e->bytes());
    return e->allreduce(sendbuf, recvbuf, contributions);
  });
}

extern "C" int papcoll_stale_flush(papcoll_stale h, void* recvbuf, long long* contributions) {
  constexpr const char* who = "papcoll_stale_flush";
  return guarded_call(who, [&]() -> int {
    Engine* e = find_engine(h, who);
    if (e == nullptr) return PAPCOLL_ERR_ARG;
    if (recvbuf == nullptr) return fail(PAPCOLL_ERR_ARG, std::string(who) + ": recvbuf is NULL");
    return e->flush(recvbuf, contributions);
  });
}

extern "C" int papcoll_stale_free(papcoll_stale* h) {
  constexpr const char* who = "papcoll_stale_free";
  return guarded_call(who, [&]() -> int {
    if (h == nullptr) return fail(PAPCOLL_ERR_ARG, std::string(who) + ": h is NULL");
    Engine* e = find_engine(*h, who);
    if (e == nullptr) return PAPCOLL_ERR_ARG;
    {
      std::lock_guard<std::mutex> lock(papcoll::stale::g_stale_mutex);
      papcoll::stale::live_engines().erase(e);
    }
    *h = nullptr;
    int finalized = 0;
    MPI_Finalized(&finalized);
    const int rc = finalized ? PAPCOLL_SUCCESS : e->close();
    delete e;
    return rc;
  });
}
