// How the tools write numbers into JSON (nlohmann-json): a double with an integral value as an
// integer (20, as std::to_chars and iostreams wrote it before, not nlohmann's 20.0), others in
// their shortest round-trip form, non-finite ones as null (nlohmann's rule). With `significant`
// digits, the value is first rounded as printf's %.Ng rounds it, so a writer that printed that
// many digits before writes the same number (a timing of 9.73 us, not 9.729999999999896).
#pragma once

#include <charconv>
#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

namespace papcoll_cli {

using Json = nlohmann::ordered_json;  // keys in the order written

inline Json json_number(double x, int significant = 0) {
  if (significant > 0 && std::isfinite(x)) {
    char buf[40];
    const auto end =
        std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, significant).ptr;
    std::from_chars(buf, end, x);
  }
  if (std::isfinite(x) && x == std::trunc(x) && std::fabs(x) < 9007199254740992.0)  // 2^53
    return static_cast<long long>(x);
  return x;
}

inline Json json_numbers(const std::vector<double>& v, int significant = 0) {
  Json a = Json::array();
  for (const double x : v) a.push_back(json_number(x, significant));
  return a;
}

}  // namespace papcoll_cli
