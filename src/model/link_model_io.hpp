// The model file (docs/model-format.md): a versioned, line-oriented text form of LinkModel.
//
//   papcoll-model 1
//   p 4
//   default 5e-06 1e-09          (optional: every pair not listed)
//   0 1 2e-05 8.5e-09            (FROM TO ALPHA BETA, seconds and seconds per byte)
//   end
//
// Reading validates everything (header and version, p, ranks in range, each ordered pair once and
// none missing, finite non-negative values, the closing `end` that tells a truncated file) and
// reports the first problem with its line number; nothing here throws.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "model/link_model.hpp"

namespace papcoll {

inline constexpr const char* kModelHeader = "papcoll-model";
inline constexpr int kModelVersion = 1;

// `source` names the text in error messages (a path, or "model"). expected_p > 0 also requires
// the model to be for exactly that many ranks (a communicator's size).
LinkModelResult parse_link_model(std::string_view text, const std::string& source,
                                 int expected_p = 0) noexcept;
LinkModelResult read_link_model_file(const std::string& path, int expected_p = 0) noexcept;

// Writes `m` so that parse_link_model reads it back bit for bit: a homogeneous model as one
// `default` line, any other as one line per ordered pair.
void write_link_model(std::ostream& out, const LinkModel& m);

}  // namespace papcoll
