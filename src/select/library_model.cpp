#include "select/library_model.hpp"

#include <algorithm>
#include <bit>
#include <limits>

#include "schedule/estimate.hpp"
#include "schedule/plan_memo.hpp"
#include "select/library_estimates.hpp"
#include "select/library_rules.hpp"

namespace papcoll {

const char* mpi_library_name(MpiLibrary l) {
  switch (l) {
    case MpiLibrary::generic: return "generic";
    case MpiLibrary::open_mpi: return "open-mpi";
    case MpiLibrary::mpich: return "mpich";
    case MpiLibrary::smpi_ompi: return "smpi-ompi";
    case MpiLibrary::smpi_mpich: return "smpi-mpich";
  }
  return "generic";
}

bool parse_mpi_library(std::string_view name, MpiLibrary* out) {
  struct Name {
    std::string_view name;
    MpiLibrary library;
  };
  static constexpr Name kNames[] = {
      {"generic", MpiLibrary::generic},     {"open-mpi", MpiLibrary::open_mpi},
      {"ompi", MpiLibrary::open_mpi},       {"mpich", MpiLibrary::mpich},
      {"smpi-ompi", MpiLibrary::smpi_ompi}, {"smpi-mpich", MpiLibrary::smpi_mpich}};
  for (const Name& n : kNames)
    if (n.name == name) {
      *out = n.library;
      return true;
    }
  return false;
}

MpiLibrary mpi_library_from_version(std::string_view version) {
  if (version.find("Open MPI") != std::string_view::npos) return MpiLibrary::open_mpi;
  if (version.rfind("MPICH", 0) == 0) return MpiLibrary::mpich;
  return MpiLibrary::generic;
}

namespace library_model_detail {  // file-local (unity builds: a name of its own)

double library_mean_elapsed(const std::vector<double>& finish, const GeneratorInput& in) {
  const std::vector<double> a = estimate::arrivals_of(in);
  return estimate::mean_elapsed(finish, a);
}

// The textbook algorithms the generic library is credited with (the best of them for the
// arrivals: an optimistic model, auto's before it knew libraries).
std::vector<LibraryAlgorithm> generic_candidates(Collective c) {
  switch (c) {
    case Collective::allreduce:
      return {{LibraryAlgo::ring, "ring"},
              {LibraryAlgo::rabenseifner, "rabenseifner"},
              {LibraryAlgo::recursive_doubling, "recursive_doubling"}};
    case Collective::reduce:
      return {{LibraryAlgo::binomial, "binomial"},
              {LibraryAlgo::reduce_scatter_gather, "rabenseifner"}};
    case Collective::bcast:
      return {{LibraryAlgo::binomial, "binomial"},
              {LibraryAlgo::scatter_ring, "scatter_ring_allgather"}};
    case Collective::allgatherv:
      return {{LibraryAlgo::ring, "ring"}, {LibraryAlgo::bruck, "bruck"}};
    case Collective::scatterv:
    case Collective::gatherv: return {{LibraryAlgo::linear_v, "linear"}};
  }
  return {};
}

struct Best {
  LibraryAlgorithm algo;
  std::vector<double> finish;
};

Best generic_best(const LibraryCall& call, const GeneratorInput& in) {
  const std::vector<double> a = estimate::arrivals_of(in);
  Best best;
  double t_best = std::numeric_limits<double>::infinity();
  for (const LibraryAlgorithm& cand : generic_candidates(call.collective)) {
    std::vector<double> f = library_algorithm_finish(call, cand, in, a);
    const double t = estimate::mean_elapsed(f, a);
    if (t < t_best) {
      t_best = t;
      best = Best{cand, std::move(f)};
    }
  }
  if (call.collective == Collective::reduce && in.p > 1) {
    // At best a rooted collective lets every rank leave once its data is handed on and only the
    // root waits for the latest arrival (segmented, eager trees): the balanced time plus the
    // root's wait, spread over the ranks.
    const int root = in.root >= 0 && in.root < in.p ? in.root : 0;
    double balanced = std::numeric_limits<double>::infinity();
    for (const LibraryAlgorithm& cand : generic_candidates(call.collective)) {
      const std::vector<double> zero(static_cast<size_t>(in.p), 0.0);
      balanced = std::min(
          balanced, estimate::mean_elapsed(library_algorithm_finish(call, cand, in, zero), zero));
    }
    const double last = *std::max_element(a.begin(), a.end());
    std::vector<double> f(static_cast<size_t>(in.p));
    for (int r = 0; r < in.p; ++r) f[static_cast<size_t>(r)] = a[static_cast<size_t>(r)] + balanced;
    f[static_cast<size_t>(root)] = std::max(a[static_cast<size_t>(root)], last) + balanced;
    if (estimate::mean_elapsed(f, a) < t_best) best.finish = std::move(f);
  }
  return best;
}

}  // namespace library_model_detail

LibraryAlgorithm library_algorithm(const LibraryCall& call, const GeneratorInput& in) {
  using namespace library_model_detail;
  switch (call.library) {
    case MpiLibrary::open_mpi: return open_mpi_rule(call, in);
    case MpiLibrary::mpich: return mpich_rule(call, in);
    case MpiLibrary::smpi_ompi: return smpi_ompi_rule(call, in);
    case MpiLibrary::smpi_mpich: return smpi_mpich_rule(call, in);
    case MpiLibrary::generic: break;
  }
  return generic_best(call, in).algo;
}

std::vector<double> library_finish(const LibraryCall& call, const GeneratorInput& in) {
  using namespace library_model_detail;
  if (call.library == MpiLibrary::generic) return generic_best(call, in).finish;
  return library_algorithm_finish(call, library_algorithm(call, in), in, estimate::arrivals_of(in));
}

double library_predict(const LibraryCall& call, const GeneratorInput& in) {
  using namespace library_model_detail;
  if (in.p < 2) return 0;
  // auto weighs the library's collective on time and under the arrivals on every call it costs
  // (0.25 ms each at 1024 ranks on nodes): the figure on time is the same from call to call. Eight
  // kept: a loop of several collectives, each with a new pattern per call, keeps each one's.
  using Memo = PlanMemo<double, /*kReadsBlocks=*/true, /*kKept=*/8>;
  thread_local Memo memo;
  const Memo::Tag tag{static_cast<uint64_t>(call.collective) |
                          static_cast<uint64_t>(call.library) << 8 |
                          static_cast<uint64_t>(call.commutative) << 16,
                      std::bit_cast<uint64_t>(call.type_bytes)};
  return *memo.get(
      in, [&](const GeneratorInput& g) { return library_mean_elapsed(library_finish(call, g), g); },
      tag);
}

}  // namespace papcoll
