#include "calibration/calibrate.hpp"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "calibration/calibration_file.hpp"
#include "calibration/calibration_measure.hpp"
#include "calibration/calibration_plan.hpp"
#include "error/error.hpp"
#include "executor/mpi_status.hpp"
#include "model/link_model_io.hpp"
#include "papcoll/papcoll.h"

namespace papcoll {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

CalibrationSettings read_settings() {
  CalibrationSettings s;
  if (const char* m = env("PAPCOLL_CALIBRATION")) {
    const std::string v = m;
    if (v == "auto")
      s.mode = CalibrationMode::automatic;
    else if (v == "always")
      s.mode = CalibrationMode::always;
    else if (v == "off")
      s.mode = CalibrationMode::off;
    else
      s.problems += "PAPCOLL_CALIBRATION=" + v + " is not auto, always or off (using auto); ";
  }
  if (const char* b = env("PAPCOLL_CALIBRATION_BUDGET_MS")) {
    double ms = 0;
    const char* end = b + std::strlen(b);
    const auto r = std::from_chars(b, end, ms);
    if (r.ec == std::errc() && r.ptr == end && std::isfinite(ms) && ms > 0 && ms <= 60000)
      s.budget_s = ms / 1000;
    else
      s.problems += std::string("PAPCOLL_CALIBRATION_BUDGET_MS=") + b +
                    " is not a number of milliseconds in (0, 60000] (using 15); ";
  }
  if (const char* dir = env("PAPCOLL_CALIBRATION_CACHE")) {
    s.cache_dir = dir;
  } else if (const char* xdg = env("XDG_CACHE_HOME")) {
    s.cache_dir = std::string(xdg) + "/papcoll";
  } else if (const char* home = env("HOME")) {
    s.cache_dir = std::string(home) + "/.cache/papcoll";
  }
  if (const char* n = env("PAPCOLL_NETWORK")) s.network = n;
  if (const char* v = env("PAPCOLL_VERBOSE")) s.verbose = std::strcmp(v, "0") != 0;
  return s;
}

// Earlier results in this process, by key (PAPCOLL_CALIBRATION=auto): a second communicator over
// the same hosts and size measures nothing.
std::mutex g_known_mutex;
std::map<std::uint64_t, NetworkParams> g_known;

void warn(const std::string& text) { std::fprintf(stderr, "papcoll: %s\n", text.c_str()); }

std::string library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING + 1] = {};
  int len = 0;
  if (MPI_Get_library_version(buf, &len) != MPI_SUCCESS) return "unknown MPI library";
  return one_line(std::string_view(buf, static_cast<size_t>(std::max(0, len))));
}

// The file's text if it exists (and is not absurdly large); *exists false if there is none.
bool read_small_file(const std::string& path, std::string* text, bool* exists, std::string* why) {
  std::ifstream in(path, std::ios::binary);
  *exists = static_cast<bool>(in);
  if (!in) return false;
  constexpr size_t kLimit = 16 << 10;
  text->assign(kLimit + 1, '\0');
  in.read(text->data(), static_cast<std::streamsize>(text->size()));
  text->resize(static_cast<size_t>(in.gcount()));
  if (in.bad()) {
    *why = "cannot be read";
    return false;
  }
  return true;
}

// Atomically: a reader sees the old file or the new one, never half of one, even when several
// ranks or jobs write the same key at once.
bool write_atomically(const std::string& path, const std::string& text, std::string* why) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) {
    *why = ec.message();
    return false;
  }
  static unsigned counter = 0;
  const std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." +
                          std::to_string(++counter);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      *why = "cannot write " + tmp;
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    *why = std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

std::string value_text(double v) {
  if (!std::isfinite(v)) return "none";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

void print_verbose(const NetworkParams& n, int p) {
  const CostParams c = n.in_use(GammaClass::float32);
  std::ostringstream o;
  o << "network of a communicator of " << p << " rank(s) on " << n.nodes
    << " node(s): alpha=" << value_text(c.alpha) << " s beta=" << value_text(c.beta)
    << " s/B (intra " << value_text(n.intra.alpha) << ' ' << value_text(n.intra.beta) << ", inter "
    << value_text(n.inter.alpha) << ' ' << value_text(n.inter.beta) << "), gamma float/double/int "
    << value_text(n.gamma[0]) << '/' << value_text(n.gamma[1]) << '/' << value_text(n.gamma[2])
    << " s/B; " << network_source_name(n.source);
  if (n.source == NetworkSource::measured) o << " in " << value_text(n.seconds * 1e3) << " ms";
  warn(o.str());
}

// Rank 0's choice before any measurement: true with *out set when the parameters are known
// without measuring. `warnings` collects what rank 0 tells the user.
bool decide_without_measuring(const CalibrationSettings& set, int p, int nodes,
                              const std::vector<int>& node_of, const CalibrationKey& key,
                              const std::string& cache_path, NetworkParams* out) {
  if (!set.network.empty()) {
    const NetworkSetting ns = parse_network_setting(set.network);
    if (!ns.is_path && ns.error.empty()) {
      *out = ns.params;
      out->nodes = nodes;
      return true;
    }
    if (!ns.is_path) {
      warn("PAPCOLL_NETWORK=" + set.network + " ignored: " + ns.error);
    } else {
      LinkModelResult m = read_link_model_file(ns.path, p);
      if (m.ok()) {
        *out = params_from_link_model(*m.model, node_of);
        return true;
      }
      warn("PAPCOLL_NETWORK=" + set.network + " ignored: " + m.error);
    }
  }
  if (set.mode == CalibrationMode::off) {
    *out = NetworkParams{};
    out->nodes = nodes;
    return true;
  }
  if (set.mode != CalibrationMode::automatic) return false;
  {
    std::lock_guard<std::mutex> lock(g_known_mutex);
    if (const auto it = g_known.find(key.hash); it != g_known.end()) {
      *out = it->second;
      out->seconds = 0;
      if (out->source == NetworkSource::measured) out->source = NetworkSource::cache;
      return true;
    }
  }
  if (cache_path.empty()) return false;
  std::string text, why;
  bool exists = false;
  if (!read_small_file(cache_path, &text, &exists, &why)) {
    if (exists) warn("calibration cache " + cache_path + " ignored: " + why);
    return false;
  }
  const CalibrationFileResult r = parse_calibration(text, cache_path, key);
  if (!r.ok) {
    warn("calibration cache ignored (measuring again): " + r.error);
    return false;
  }
  *out = r.params;
  out->nodes = nodes;
  return true;
}

}  // namespace

const CalibrationSettings& calibration_settings() {
  static const CalibrationSettings s = read_settings();
  return s;
}

std::string calibration_cache_path(const std::string& dir, const std::string& key) {
  return dir.empty() ? std::string() : dir + "/calibration-" + key + ".txt";
}

int calibrate_network(MPI_Comm comm, const NodeLayout& layout, bool nodes_overridden,
                      const char* who, NetworkParams* out) {
  const double started = MPI_Wtime();
  const CalibrationSettings& set = calibration_settings();
  auto mpi = [&](const MpiStatus& s) {
    return fail(PAPCOLL_ERR_MPI, std::string(who) + ": calibration: " + describe(s));
  };
  int rank = 0, p = 1;
  if (int rc = MPI_Comm_rank(comm, &rank); rc != MPI_SUCCESS) return mpi({rc, "MPI_Comm_rank"});
  if (int rc = MPI_Comm_size(comm, &p); rc != MPI_SUCCESS) return mpi({rc, "MPI_Comm_size"});

  // The hosts, for the cache file's key: one 8-byte hash per rank, the same array on every rank.
  // Which ranks share a node is the context's layout (MPI_Comm_split_type), not these names.
  char name[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int len = 0;
  if (int rc = MPI_Get_processor_name(name, &len); rc != MPI_SUCCESS)
    return mpi({rc, "MPI_Get_processor_name"});
  const std::uint64_t mine = fnv1a64(std::string_view(name, static_cast<size_t>(std::max(0, len))));
  std::vector<std::uint64_t> hosts(static_cast<size_t>(p));
  if (int rc = MPI_Allgather(&mine, 1, MPI_UINT64_T, hosts.data(), 1, MPI_UINT64_T, comm);
      rc != MPI_SUCCESS)
    return mpi({rc, "MPI_Allgather"});
  const std::vector<int>& node_of = layout.node_of;
  const int nodes = layout.nodes();

  double wire[NetworkParams::kWireDoubles + 1] = {};  // [0]: 1 = known without measuring
  CalibrationKey key;
  std::string cache_path;
  if (rank == 0) {
    if (!set.problems.empty()) {
      static bool warned = false;
      if (!warned) warn(set.problems);
      warned = true;
    }
    key.ranks = p;
    key.library = library_version();
    key.hash = calibration_key_hash(hosts, p, key.library,
                                    nodes_overridden ? layout.key() : std::string());
    cache_path = calibration_cache_path(set.cache_dir, key_text(key.hash));
    NetworkParams known;
    if (decide_without_measuring(set, p, nodes, node_of, key, cache_path, &known)) {
      wire[0] = 1;
      known.to_wire(wire + 1);
    }
  }
  if (int rc = MPI_Bcast(wire, NetworkParams::kWireDoubles + 1, MPI_DOUBLE, 0, comm);
      rc != MPI_SUCCESS)
    return mpi({rc, "MPI_Bcast"});
  NetworkParams n;
  if (wire[0] == 1) {
    n = NetworkParams::from_wire(wire + 1);
  } else {
    if (MpiStatus s = measure_network(comm, layout, set.budget_s, &n, started); !s.ok())
      return mpi(s);
    if (rank == 0) {
      {
        std::lock_guard<std::mutex> lock(g_known_mutex);
        g_known[key.hash] = n;
      }
      std::string why;
      if (!cache_path.empty() && (n.intra.known() || n.inter.known()) &&
          !write_atomically(cache_path, write_calibration(n, key), &why) && set.verbose)
        warn("calibration cache " + cache_path + " not written: " + why);
    }
  }
  if (rank == 0 && set.verbose) print_verbose(n, p);
  *out = n;
  return PAPCOLL_SUCCESS;
}

}  // namespace papcoll
