// What papcoll knows about the network under a communicator (docs/calibration.md): Hockney
// parameters for links within a node and between nodes, the local reduction speed per datatype
// class, and where they came from. calibrate.hpp fills it (measured, from the cache file, from
// PAPCOLL_NETWORK or a link model file) identically on every rank of the communicator; the
// collectives read it through in_use(). No MPI in this file.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "model/link_model.hpp"
#include "schedule/registry.hpp"

namespace papcoll {

// Where a communicator's parameters came from: the values of enum papcoll_network_source.
enum class NetworkSource : int {
  defaults = 0,     // papcoll's built-in CostParams (nothing measured or given)
  measured = 1,     // measured on this communicator (calibration_measure.hpp)
  cache = 2,        // read from the calibration cache file (calibration_file.hpp)
  environment = 3,  // PAPCOLL_NETWORK=alpha,beta[,gamma]
  model_file = 4,   // PAPCOLL_NETWORK=FILE, a link model (papcoll-model measure)
  options = 5,      // papcoll_options.alpha / beta (a call's, or papcoll_calibrate's)
};
const char* network_source_name(NetworkSource s);  // "measured", ...

// The reduction speed differs with the element type (vector width, integer or floating-point
// units): the classes papcoll measures. Other predefined types count as double.
enum class GammaClass : int { float32 = 0, float64 = 1, integer = 2 };
inline constexpr int kGammaClasses = 3;
const char* gamma_class_name(GammaClass c);  // "float", "double", "int"

inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

// One class of links: alpha in seconds, beta in seconds per byte; NaN when not known (no such
// link in the communicator, or not measured).
struct LinkParams {
  double alpha = kUnknown;
  double beta = kUnknown;
  bool known() const;
};

struct NetworkParams {
  LinkParams intra;                                              // two ranks on one node
  LinkParams inter;                                              // two ranks on different nodes
  double gamma[kGammaClasses] = {kUnknown, kUnknown, kUnknown};  // seconds per byte reduced
  int nodes = 1;                                                 // nodes the communicator spans
  NetworkSource source = NetworkSource::defaults;
  double seconds = 0;  // how long the measurement took (rank 0's clock); 0 unless measured

  // The Hockney parameters of the communicator's collectives for data of class c: the links
  // between nodes when it spans several (every collective's critical path crosses them), else
  // those within the node; papcoll's defaults (CostParams) for what is not known.
  // cores_shared stays false (the caller's).
  CostParams in_use(GammaClass c) const;

  // A fixed array of doubles and back, for one broadcast: every rank ends with the root's values
  // bit for bit.
  static constexpr int kWireDoubles = 11;
  void to_wire(double* out) const;
  static NetworkParams from_wire(const double* in);
};

// PAPCOLL_NETWORK's value: "alpha,beta" or "alpha,beta,gamma" (seconds, seconds per byte; alpha
// and beta finite and > 0, gamma finite and >= 0, for every class), or else the path of a link
// model file. `error` is set for a value that starts like a number but is not such a list.
struct NetworkSetting {
  bool is_path = false;
  std::string path;
  NetworkParams params;  // the numbers (source environment), links of both classes
  std::string error;
};
NetworkSetting parse_network_setting(const std::string& value);

// The parameters a link model gives a communicator whose rank i is on node node_of[i]: intra =
// the median alpha and beta over ordered pairs on one node, inter = over pairs on different nodes
// (at most kSampledPairs pairs of each class, spread evenly, so p = 4096 costs no p^2 memory).
// Source model_file; gamma unknown.
inline constexpr int64_t kSampledPairs = int64_t{1} << 16;
NetworkParams params_from_link_model(const LinkModel& m, const std::vector<int>& node_of);

// The median of the finite values of v (NaN if none); the mean of the two middle ones for an
// even count. Reorders v.
double median_of(std::vector<double>& v);

}  // namespace papcoll
