#include "api/scatter_gather_call.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <utility>

#include "error/error.hpp"
#include "model/link_model_io.hpp"

namespace papcoll {
namespace {

// The broadcast header: these fields, then one int64 per rank (its portion in bytes).
enum HeaderField {
  kCode,         // PAPCOLL_SUCCESS or the root's error code
  kTextLength,   // chars of the text that follows: the root's error message, or the path of the
                 // model whose values follow
  kModelSerial,  // 0: no model; else the model's serial in every rank's LinkModelCache
  kModelValues,  // doubles that follow (0: the model is cached everywhere; 2: homogeneous alpha,
                 // beta; 2 p^2: the alpha matrix then the beta matrix, row-major)
  kAlphaBits,    // the root's Hockney alpha and beta, bit for bit
  kBetaBits,
  kHeaderFields
};

// A root's error message longer than this is cut (a path is never cut).
constexpr size_t kMaxMessage = 1 << 16;

std::int64_t bits_of(double v) {
  std::int64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

double double_of(std::int64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

MpiStatus bcast_doubles(std::vector<double>& v, int root, MPI_Comm comm) {
  constexpr size_t kChunk = size_t{1} << 28;  // keeps each count within int
  for (size_t at = 0; at < v.size(); at += kChunk)
    PAPCOLL_MPI_TRY(MPI_Bcast(v.data() + at, static_cast<int>(std::min(kChunk, v.size() - at)),
                              MPI_DOUBLE, root, comm),
                    "MPI_Bcast");
  return {};
}

std::vector<double> model_values(const LinkModel& m) {
  if (m.is_homogeneous()) return {m.alpha(0, 0), m.beta(0, 0)};
  const int p = m.p();
  std::vector<double> v;
  v.reserve(2 * static_cast<size_t>(p) * static_cast<size_t>(p));
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) v.push_back(m.alpha(i, j));
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) v.push_back(m.beta(i, j));
  return v;
}

LinkModelResult model_of_values(int p, const std::vector<double>& v) {
  if (v.size() == 2) return LinkModel::homogeneous(p, v[0], v[1]);
  const auto half = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  return LinkModel::from_matrices(p, std::vector<double>(v.begin(), half),
                                  std::vector<double>(half, v.end()));
}

}  // namespace

ArgProblem check_root_portions(const CollectiveCall& call, const PortionsArgs& a,
                               DatatypeLayout* layout, std::vector<long long>* bytes) {
  ArgProblem pr;
  const int p = call.p();
  if (a.counts == nullptr) pr.note(PAPCOLL_ERR_ARG, std::string(a.counts_name) + " is NULL", false);
  if (a.displs == nullptr) pr.note(PAPCOLL_ERR_ARG, "displs is NULL", false);
  if (std::string why; pr.ok()) {
    const int code = call.datatype_problem(a.type, a.type_name, layout, &why);
    if (code != PAPCOLL_SUCCESS) pr.note(code, why, false);
  }
  if (!pr.ok()) return pr;
  bytes->assign(static_cast<size_t>(p), 0);
  long long total = 0;
  for (int i = 0; i < p && pr.ok(); ++i) {
    if (a.counts[i] < 0)
      pr.note(PAPCOLL_ERR_ARG,
              std::string(a.counts_name) + "[" + std::to_string(i) + "] is negative (" +
                  std::to_string(a.counts[i]) + ")",
              false);
    else if (a.displs[i] < 0)
      pr.note(PAPCOLL_ERR_ARG,
              "displs[" + std::to_string(i) + "] is negative (" + std::to_string(a.displs[i]) + ")",
              false);
    (*bytes)[i] = static_cast<long long>(std::max(a.counts[i], 0)) * layout->size;
    total += (*bytes)[i];
  }
  if (!pr.ok()) return pr;
  if (total > INT_MAX)
    pr.note(PAPCOLL_ERR_ARG,
            "the portions have " + std::to_string(total) + " bytes in all; at most " +
                std::to_string(INT_MAX) + " are supported",
            false);
  else if (total > 0 && a.buf == nullptr)
    pr.note(PAPCOLL_ERR_ARG, std::string(a.buf_name) + " is NULL");
  return pr;
}

ArgProblem check_own_portion(const CollectiveCall& call, const OwnArgs& a, DatatypeLayout* layout) {
  ArgProblem pr;
  if (a.buf == MPI_IN_PLACE)
    pr.note(PAPCOLL_ERR_ARG,
            std::string(a.buf_name) + " is MPI_IN_PLACE on a rank that is not the root", false);
  else if (a.count < 0)
    pr.note(PAPCOLL_ERR_ARG,
            std::string(a.count_name) + " is negative (" + std::to_string(a.count) + ")", false);
  if (std::string why; pr.ok()) {
    const int code = call.datatype_problem(a.type, a.type_name, layout, &why);
    if (code != PAPCOLL_SUCCESS) pr.note(code, why, false);
  }
  if (pr.ok() && a.count > 0 && layout->size > 0 && a.buf == nullptr)
    pr.note(PAPCOLL_ERR_ARG, std::string(a.buf_name) + " is NULL");
  return pr;
}

ArgProblem check_own_bytes(const OwnArgs& a, const DatatypeLayout& layout, long long root_bytes,
                           const std::string& root_side) {
  ArgProblem pr;
  const long long mine = static_cast<long long>(a.count) * layout.size;
  if (mine != root_bytes)
    pr.note(PAPCOLL_ERR_ARG,
            std::string(a.count_name) + " * size(" + a.type_name + ") = " + std::to_string(mine) +
                " bytes differs from " + root_side + " = " + std::to_string(root_bytes) + " bytes",
            false);
  return pr;
}

long long RootInput::total() const {
  long long t = 0;
  for (long long b : bytes) t += b;
  return t;
}

GeneratorInput RootInput::generator_input(int p, int root) const {
  GeneratorInput in;
  in.p = p;
  in.root = root;
  in.blocks = p;
  in.cost = cost;
  in.counts = bytes;
  in.elem_bytes = 1;
  in.bytes = static_cast<double>(total());
  in.link_model = link_model;
  return in;
}

int agree_on_root_input(const CollectiveCall& call, int root, const ArgProblem& problem,
                        std::vector<long long> bytes, RootInput* out) {
  CommContext& ctx = call.context();
  const int p = call.p();
  const bool is_root = call.rank() == root;
  std::vector<std::int64_t> header(kHeaderFields + static_cast<size_t>(p), 0);
  std::string text;
  std::shared_ptr<const LinkModel> model;
  std::vector<double> values;
  if (is_root) {
    int code = problem.code;
    text = problem.what;
    const char* path = call.options().model_file;
    if (code == PAPCOLL_SUCCESS && path != nullptr) {
      if (const LinkModelCache::Entry* e = ctx.link_models.find_path(path)) {
        header[kModelSerial] = static_cast<std::int64_t>(e->serial);
        model = e->model;
      } else {
        LinkModelResult r = read_link_model_file(path, p);
        if (r.ok()) {
          model = std::move(r.model);
          values = model_values(*model);
          text = path;
          header[kModelSerial] = static_cast<std::int64_t>(ctx.link_models.next_serial());
          header[kModelValues] = static_cast<std::int64_t>(values.size());
        } else {
          code = PAPCOLL_ERR_MODEL;
          text = "options->model_file: " + r.error;
        }
      }
    }
    if (code != PAPCOLL_SUCCESS) {
      if (text.size() > kMaxMessage) text.resize(kMaxMessage);
      header[kModelSerial] = header[kModelValues] = 0;
    }
    header[kCode] = code;
    header[kTextLength] = static_cast<std::int64_t>(text.size());
    header[kAlphaBits] = bits_of(call.cost().alpha);
    header[kBetaBits] = bits_of(call.cost().beta);
    if (code == PAPCOLL_SUCCESS)
      std::copy(bytes.begin(), bytes.end(), header.begin() + kHeaderFields);
  }
  if (int rc =
          MPI_Bcast(header.data(), static_cast<int>(header.size()), MPI_INT64_T, root, ctx.comm);
      rc != MPI_SUCCESS)
    return call.mpi_error({rc, "MPI_Bcast"});
  if (header[kTextLength] > 0) {
    text.resize(static_cast<size_t>(header[kTextLength]));
    if (int rc = MPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, root, ctx.comm);
        rc != MPI_SUCCESS)
      return call.mpi_error({rc, "MPI_Bcast"});
  }
  if (header[kCode] != PAPCOLL_SUCCESS) {
    const int code = static_cast<int>(header[kCode]);
    if (is_root) return fail(code, std::string(call.who()) + ": " + text);
    return fail(code, std::string(call.who()) + ": the root (rank " + std::to_string(root) +
                          ") refused the call: " + text);
  }

  const auto serial = static_cast<std::uint64_t>(header[kModelSerial]);
  if (header[kModelValues] > 0) {
    values.resize(static_cast<size_t>(header[kModelValues]));
    if (MpiStatus s = bcast_doubles(values, root, ctx.comm); !s.ok()) return call.mpi_error(s);
    if (!is_root) {
      LinkModelResult r = model_of_values(p, values);
      if (!r.ok())
        return fail(PAPCOLL_ERR_INTERNAL,
                    std::string(call.who()) + ": the root's link model is invalid: " + r.error);
      model = std::move(r.model);
    }
    if (ctx.link_models.add(text, model).serial != serial)
      return fail(PAPCOLL_ERR_INTERNAL,
                  std::string(call.who()) + ": link model caches differ between ranks");
  } else if (serial != 0) {
    const LinkModelCache::Entry* e = ctx.link_models.find_serial(serial);
    if (e == nullptr)
      return fail(PAPCOLL_ERR_INTERNAL, std::string(call.who()) + ": link model " +
                                            std::to_string(serial) + " of the root is not cached");
    model = e->model;
  }

  out->bytes.assign(header.begin() + kHeaderFields, header.end());
  out->cost = call.cost();
  out->cost.alpha = double_of(header[kAlphaBits]);
  out->cost.beta = double_of(header[kBetaBits]);
  out->link_model = std::move(model);
  return PAPCOLL_SUCCESS;
}

}  // namespace papcoll
