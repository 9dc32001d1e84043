#include "model/link_model.hpp"

#include <charconv>
#include <cmath>
#include <exception>

namespace papcoll {

std::string link_value_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string check_link_value(double v, const std::string& what) {
  if (std::isnan(v)) return what + " is NaN";
  if (std::isinf(v)) return what + " is infinite";
  if (v < 0) return what + " is negative (" + link_value_text(v) + ")";
  return {};
}

LinkModelResult LinkModel::homogeneous(int p, double alpha, double beta) {
  if (p < 1) return {nullptr, "model needs p >= 1, got " + std::to_string(p)};
  for (const std::string& e : {check_link_value(alpha, "alpha"), check_link_value(beta, "beta")})
    if (!e.empty()) return {nullptr, e};
  try {
    std::shared_ptr<LinkModel> m(new LinkModel());
    m->p_ = p;
    m->alpha_ = {alpha};
    m->beta_ = {beta};
    return {std::move(m), {}};
  } catch (const std::exception& e) {
    return {nullptr, std::string("cannot allocate the model: ") + e.what()};
  }
}

LinkModelResult LinkModel::from_matrices(int p, std::vector<double> alpha,
                                         std::vector<double> beta) {
  if (p < 1) return {nullptr, "model needs p >= 1, got " + std::to_string(p)};
  const size_t n = static_cast<size_t>(p) * static_cast<size_t>(p);
  if (alpha.size() != n || beta.size() != n)
    return {nullptr, "model for p=" + std::to_string(p) + " needs " + std::to_string(n) +
                         " alpha and beta values, got " + std::to_string(alpha.size()) + " and " +
                         std::to_string(beta.size())};
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) {
      if (i == j) continue;
      const size_t at = static_cast<size_t>(i) * p + j;
      // The message only for a bad value: building it for each of p*(p-1) pairs took seconds.
      if (check_link_value(alpha[at], {}).empty() && check_link_value(beta[at], {}).empty())
        continue;
      const std::string link = " of link " + std::to_string(i) + " -> " + std::to_string(j);
      const size_t k = static_cast<size_t>(i) * p + j;
      for (const std::string& e :
           {check_link_value(alpha[k], "alpha" + link), check_link_value(beta[k], "beta" + link)})
        if (!e.empty()) return {nullptr, e};
    }
  try {
    std::shared_ptr<LinkModel> m(new LinkModel());
    m->p_ = p;
    m->homogeneous_ = false;
    m->alpha_ = std::move(alpha);
    m->beta_ = std::move(beta);
    return {std::move(m), {}};
  } catch (const std::exception& e) {
    return {nullptr, std::string("cannot allocate the model: ") + e.what()};
  }
}

}  // namespace papcoll
