#include "calibration/network_params.hpp"
#include "error/hot_path.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace papcoll {

const char* network_source_name(NetworkSource s) {
  switch (s) {
    case NetworkSource::defaults: return "defaults";
    case NetworkSource::measured: return "measured";
    case NetworkSource::cache: return "cache";
    case NetworkSource::environment: return "PAPCOLL_NETWORK";
    case NetworkSource::model_file: return "model-file";
    case NetworkSource::options: return "options";
  }
  return "?";
}

const char* gamma_class_name(GammaClass c) {
  switch (c) {
    case GammaClass::float32: return "float";
    case GammaClass::float64: return "double";
    case GammaClass::integer: return "int";
  }
  return "?";
}

PAPCOLL_HOT bool LinkParams::known() const {
  return std::isfinite(alpha) && std::isfinite(beta) && alpha >= 0 && beta >= 0;
}

PAPCOLL_HOT CostParams NetworkParams::in_use(GammaClass c) const {
  CostParams cost;
  const LinkParams& links = nodes > 1 && inter.known() ? inter : intra;
  if (links.known()) {
    cost.alpha = links.alpha;
    cost.beta = links.beta;
  } else if (inter.known()) {
    cost.alpha = inter.alpha;
    cost.beta = inter.beta;
  }
  // Schedules that know the node layout (GeneratorInput::nodes) take the links inside a node
  // from here; left at 0 (the links between nodes) where they were not measured.
  if (nodes > 1 && intra.known()) {
    cost.intra_alpha = intra.alpha;
    cost.intra_beta = intra.beta;
  }
  const double g = gamma[static_cast<int>(c)];
  if (std::isfinite(g) && g >= 0) cost.gamma = g;
  return cost;
}

void NetworkParams::to_wire(double* out) const {
  out[0] = intra.alpha;
  out[1] = intra.beta;
  out[2] = inter.alpha;
  out[3] = inter.beta;
  for (int k = 0; k < kGammaClasses; ++k) out[4 + k] = gamma[k];
  out[7] = nodes;
  out[8] = static_cast<double>(source);
  out[9] = seconds;
  out[10] = 0;  // reserved
}

NetworkParams NetworkParams::from_wire(const double* in) {
  NetworkParams n;
  n.intra = {in[0], in[1]};
  n.inter = {in[2], in[3]};
  for (int k = 0; k < kGammaClasses; ++k) n.gamma[k] = in[4 + k];
  n.nodes = static_cast<int>(in[7]);
  n.source = static_cast<NetworkSource>(static_cast<int>(in[8]));
  n.seconds = in[9];
  return n;
}

namespace {

bool read_number(std::string_view text, double* out) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

NetworkSetting parse_network_setting(const std::string& value) {
  NetworkSetting s;
  // A list of numbers starts like one (NaN and infinity included, to be refused as such).
  auto starts_with_ci = [&](const char* word) {
    for (size_t i = 0; word[i] != '\0'; ++i)
      if (i >= value.size() || std::tolower(static_cast<unsigned char>(value[i])) != word[i])
        return false;
    return true;
  };
  const bool numeric = !value.empty() && (std::isdigit(static_cast<unsigned char>(value[0])) ||
                                          value[0] == '.' || value[0] == '-' || value[0] == '+' ||
                                          starts_with_ci("nan") || starts_with_ci("inf"));
  if (!numeric) {
    s.is_path = true;
    s.path = value;
    return s;
  }
  std::vector<double> v;
  size_t at = 0;
  while (at <= value.size()) {
    const size_t comma = value.find(',', at);
    const std::string_view field(value.data() + at,
                                 (comma == std::string::npos ? value.size() : comma) - at);
    double x = 0;
    if (!read_number(field, &x)) {
      s.error = "'" + std::string(field) + "' is not a number";
      return s;
    }
    v.push_back(x);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (v.size() != 2 && v.size() != 3) {
    s.error = "expected alpha,beta or alpha,beta,gamma (seconds, seconds per byte), found " +
              std::to_string(v.size()) + " numbers";
    return s;
  }
  if (!(std::isfinite(v[0]) && v[0] > 0) || !(std::isfinite(v[1]) && v[1] > 0)) {
    s.error = "alpha and beta must be finite and > 0";
    return s;
  }
  if (v.size() == 3 && !(std::isfinite(v[2]) && v[2] >= 0)) {
    s.error = "gamma must be finite and >= 0";
    return s;
  }
  s.params.intra = s.params.inter = {v[0], v[1]};
  if (v.size() == 3)
    for (double& g : s.params.gamma) g = v[2];
  s.params.source = NetworkSource::environment;
  return s;
}

double median_of(std::vector<double>& v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return kUnknown;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lo + (hi - lo) / 2;
}

NetworkParams params_from_link_model(const LinkModel& m, const std::vector<int>& node_of) {
  NetworkParams n;
  n.source = NetworkSource::model_file;
  const int p = m.p();
  std::vector<int> nodes(node_of.begin(), node_of.end());
  std::sort(nodes.begin(), nodes.end());
  n.nodes =
      std::max<int>(1, static_cast<int>(std::unique(nodes.begin(), nodes.end()) - nodes.begin()));
  if (m.is_homogeneous() || p < 2) {
    if (p >= 2) {
      const LinkParams l{m.alpha(0, 1), m.beta(0, 1)};
      if (n.nodes > 1) n.inter = l;
      if (n.nodes < p) n.intra = l;
    }
    return n;
  }
  // Ordered pairs (i, j), i != j, numbered 0 .. p(p-1)-1; every stride-th of them.
  const int64_t pairs = static_cast<int64_t>(p) * (p - 1);
  const int64_t stride = std::max<int64_t>(1, pairs / kSampledPairs);
  std::vector<double> a[2], b[2];  // [0] intra, [1] inter
  for (int64_t k = 0; k < pairs; k += stride) {
    const int i = static_cast<int>(k / (p - 1));
    int j = static_cast<int>(k % (p - 1));
    if (j >= i) ++j;
    const bool same = static_cast<size_t>(std::max(i, j)) < node_of.size() &&
                      node_of[i] == node_of[j];
    a[same ? 0 : 1].push_back(m.alpha(i, j));
    b[same ? 0 : 1].push_back(m.beta(i, j));
  }
  n.intra = {median_of(a[0]), median_of(b[0])};
  n.inter = {median_of(a[1]), median_of(b[1])};
  return n;
}

}  // namespace papcoll
