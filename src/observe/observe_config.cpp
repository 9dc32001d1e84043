#include "observe/observe_config.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace papcoll::observe {
namespace {

ObserveConfig read_config() {
  ObserveConfig c;
#ifdef PAPCOLL_SMPI
  c.board = false;
  c.timeout = 0;
  return c;
#else
  auto env = [](const char* name) -> const char* {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? v : nullptr;
  };
  if (const char* v = env("PAPCOLL_BOARD"); v != nullptr && std::strcmp(v, "0") == 0)
    c.board = false;
  if (const char* v = env("PAPCOLL_BOARD_SHARED"); v != nullptr && std::strcmp(v, "0") == 0)
    c.board_shared = false;
  if (const char* v = env("PAPCOLL_REPORT")) {
    c.report = true;
    c.report_path = v;
  }
  if (const char* v = env("PAPCOLL_REPORT_SAMPLES")) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end != v && *end == '\0' && n >= 16 && n <= (1L << 20))
      c.report_samples = static_cast<int>(n);
    else
      std::fprintf(stderr, "papcoll: PAPCOLL_REPORT_SAMPLES=%s is not in 16..1048576; using %d\n",
                   v, c.report_samples);
  }
  if (const char* v = env("PAPCOLL_TIMEOUT")) {
    char* end = nullptr;
    const double t = std::strtod(v, &end);
    if (end != v && *end == '\0' && std::isfinite(t) && t >= 0 && t <= 1e6) {
      c.timeout = t;
      c.timeout_given = t > 0;
    } else {
      std::fprintf(stderr,
                   "papcoll: PAPCOLL_TIMEOUT=%s is not a number of seconds in 0..1e6; "
                   "the watchdog keeps its default (%g s)\n",
                   v, c.timeout);
    }
  }
  if (const char* v = env("PAPCOLL_TIMEOUT_ACTION")) {
    if (std::strcmp(v, "abort") == 0)
      c.abort = true;
    else if (std::strcmp(v, "warn") != 0)
      std::fprintf(stderr, "papcoll: PAPCOLL_TIMEOUT_ACTION=%s is not warn or abort; using warn\n",
                   v);
  }
  if (c.watchdog() && !c.board) {
    if (c.timeout_given)
      std::fprintf(stderr, "papcoll: PAPCOLL_TIMEOUT needs the call board (PAPCOLL_BOARD=0 is "
                           "set); the watchdog is off\n");
    c.timeout = 0;
    c.timeout_given = false;
  }
  return c;
#endif
}

const ObserveConfig g_config = read_config();

}  // namespace

const ObserveConfig& config() { return g_config; }

const bool g_active = g_config.board || g_config.report || g_config.watchdog();
// The default timeout watches papcoll's own calls only: the calls the interposition library hands
// to the MPI library stay as cheap as without it unless PAPCOLL_TIMEOUT is set.
const bool g_watching_native = g_config.report || g_config.timeout_given;

}  // namespace papcoll::observe
