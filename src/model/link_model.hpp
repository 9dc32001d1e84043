// Per-pair Hockney communication model of a heterogeneous network: sending m bytes from rank i to
// rank j takes t(i, j, m) = alpha(i, j) + beta(i, j) * m seconds. This is the point-to-point model
// of CPM/MPIBlib (Lastovetsky, Rychkov, O'Flynn 2010) that the model-based scatter/gather trees
// use for their predictions (Dichev, Rychkov, Lastovetsky, Sect. 2: "we only use t(i, j, m)").
// No MPI here; docs/model-format.md describes the file form (link_model_io.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace papcoll {

class LinkModel;

// A model or the reason there is none. Never throws: the C API hands `error` to its caller.
struct LinkModelResult {
  std::shared_ptr<const LinkModel> model;  // null on error
  std::string error;
  bool ok() const { return model != nullptr; }
};

class LinkModel {
 public:
  // One alpha and one beta for every pair, without a p*p matrix.
  static LinkModelResult homogeneous(int p, double alpha, double beta);
  // Row-major p*p matrices: alpha[i*p + j] is the latency of the link i -> j. Diagonal entries are
  // never used and not checked.
  static LinkModelResult from_matrices(int p, std::vector<double> alpha, std::vector<double> beta);

  int p() const { return p_; }
  bool is_homogeneous() const { return homogeneous_; }
  double alpha(int from, int to) const { return alpha_[index(from, to)]; }
  double beta(int from, int to) const { return beta_[index(from, to)]; }
  double time(int from, int to, double bytes) const {
    return alpha(from, to) + beta(from, to) * bytes;
  }

 private:
  LinkModel() = default;
  size_t index(int from, int to) const {
    return homogeneous_ ? 0 : static_cast<size_t>(from) * static_cast<size_t>(p_) + to;
  }

  int p_ = 0;
  bool homogeneous_ = true;
  std::vector<double> alpha_, beta_;  // one entry when homogeneous, else p*p
};

// Empty when the value may be a link parameter (finite and not negative), else why not, naming
// `what` ("alpha of link 2 -> 3").
std::string check_link_value(double v, const std::string& what);

// The shortest decimal text that reads back as exactly v (std::to_chars), for files and messages.
std::string link_value_text(double v);

}  // namespace papcoll
