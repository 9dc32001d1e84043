// The calibration cache file (docs/calibration-format.md): what a measurement found for one
// set of hosts, communicator size and MPI library, so that later runs skip the measurement.
//
//   papcoll-calibration 1
//   key 9f2c61d0a4b3e857
//   ranks 48
//   nodes 48
//   library Open MPI v4.1.4, package: Debian OpenMPI 4.1.4-3, ...
//   intra none
//   inter 2.2e-05 8e-09
//   gamma float 2.5e-10
//   gamma double 2.6e-10
//   gamma int 2.4e-10
//   measured_seconds 0.0071
//   end
//
// Reading validates everything and says what is wrong (the caller warns and measures again);
// nothing here throws or touches MPI.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/network_params.hpp"

namespace papcoll {

inline constexpr const char* kCalibrationHeader = "papcoll-calibration";
inline constexpr int kCalibrationVersion = 1;

// What a file must match to be used.
struct CalibrationKey {
  std::uint64_t hash = 0;  // calibration_key_hash of the three below
  int ranks = 0;
  std::string library;  // MPI_Get_library_version, one line
};

// FNV-1a (64 bit) over the sorted hashes of the ranks' host names, the communicator size and
// the MPI library's version string: a host list in any rank order gives the same key. Under
// PAPCOLL_NODES the pretended layout's key (NodeLayout::key) is mixed in too, so a measurement of
// pretended nodes never stands in for the real ones or the other way round; empty otherwise,
// which leaves the key as it always was.
std::uint64_t calibration_key_hash(std::vector<std::uint64_t> host_hashes, int ranks,
                                   std::string_view library, std::string_view layout_key = {});
// FNV-1a (64 bit) of a byte string (a host name).
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = 14695981039346656037ULL);
// 16 lower-case hex digits.
std::string key_text(std::uint64_t hash);
// The library string as it is stored: control characters (newlines) replaced by spaces, trailing
// spaces dropped, at most 512 characters.
std::string one_line(std::string_view text);

struct CalibrationFileResult {
  bool ok = false;
  NetworkParams params;  // source cache, seconds 0
  std::string error;     // why the file cannot be used
};

// `source` names the text in messages (the path). The file must be for `key` (hash, ranks and
// library all equal); else a "foreign" error that says which differs.
CalibrationFileResult parse_calibration(std::string_view text, const std::string& source,
                                        const CalibrationKey& key);
// The file's text for params measured for `key`; parse_calibration reads back the same doubles.
std::string write_calibration(const NetworkParams& params, const CalibrationKey& key);

}  // namespace papcoll
