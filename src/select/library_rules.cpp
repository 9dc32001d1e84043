#include "select/library_rules.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

#include "model/node_layout.hpp"

namespace papcoll {
namespace library_rules_detail {  // file-local (unity builds: a name of its own)

constexpr uint64_t kAnySize = std::numeric_limits<uint64_t>::max();
constexpr int kAnyP = std::numeric_limits<int>::max();

// One row of a fixed decision: communicators of fewer than `p_below` ranks (and more than the
// previous band's) with messages of fewer than `bytes_below` bytes (and at least the previous
// row's) take `alg`. A band's last row has kAnySize.
struct RuleRow {
  int p_below;
  uint64_t bytes_below;
  int alg;
};

int rule_lookup(std::span<const RuleRow> rows, int p, uint64_t bytes) {
  for (const RuleRow& r : rows)
    if (p < r.p_below && bytes < r.bytes_below) return r.alg;
  return rows.back().alg;
}

// One line per band of communicator sizes, as in the source (clang-format would pack them).
// clang-format off
// Open MPI 4.1.4, coll_tuned_decision_fixed.c (the same thresholds in SimGrid 3.32's
// smpi_openmpi_selector.cpp).
constexpr RuleRow kAllreduceCommutative[] = {
    {4, 8, 4}, {4, 4096, 3}, {4, 8192, 4}, {4, 16384, 3}, {4, 65536, 4}, {4, 262144, 5},
    {4, kAnySize, 6},
    {8, 16, 4}, {8, 8192, 3}, {8, kAnySize, 6},
    {16, 8192, 3}, {16, kAnySize, 6},
    {32, 64, 5}, {32, 4096, 3}, {32, kAnySize, 6},
    {64, 128, 5}, {64, kAnySize, 6},
    {128, 262144, 3}, {128, kAnySize, 6},
    {256, 131072, 2}, {256, 262144, 3}, {256, kAnySize, 6},
    {512, 4096, 2}, {512, kAnySize, 6},
    {2048, 2048, 2}, {2048, 16384, 3}, {2048, kAnySize, 6},
    {4096, 2048, 2}, {4096, 4096, 5}, {4096, 16384, 3}, {4096, kAnySize, 6},
    {kAnyP, 2048, 2}, {kAnyP, 16384, 5}, {kAnyP, 32768, 3}, {kAnyP, kAnySize, 6},
};
constexpr RuleRow kAllreduceNoncommutative[] = {
    {4, 131072, 3}, {4, kAnySize, 1},
    {8, kAnySize, 3},
    {16, 1048576, 3}, {16, kAnySize, 2},
    {128, kAnySize, 3},
    {256, 131072, 2}, {256, 524288, 3}, {256, kAnySize, 2},
    {512, 4096, 2}, {512, 524288, 3}, {512, kAnySize, 2},
    {kAnyP, 2048, 2}, {kAnyP, kAnySize, 3},
};
constexpr RuleRow kBcast[] = {
    {4, 32, 3}, {4, 256, 5}, {4, 512, 3}, {4, 1024, 7}, {4, 32768, 1}, {4, 131072, 5},
    {4, 262144, 2}, {4, 524288, 1}, {4, 1048576, 6}, {4, kAnySize, 5},
    {8, 64, 5}, {8, 128, 6}, {8, 2048, 5}, {8, 8192, 6}, {8, 1048576, 1}, {8, kAnySize, 2},
    {16, 8, 7}, {16, 64, 5}, {16, 4096, 7}, {16, 16384, 5}, {16, 32768, 6}, {16, kAnySize, 1},
    {32, 4096, 7}, {32, 1048576, 6}, {32, kAnySize, 8},
    {64, 2048, 6}, {64, kAnySize, 7},
    {128, kAnySize, 7},
    {256, 2, 6}, {256, 16384, 5}, {256, 32768, 1}, {256, 65536, 5}, {256, kAnySize, 7},
    {1024, 16384, 7}, {1024, 32768, 4}, {1024, kAnySize, 7},
    {2048, 524288, 7}, {2048, kAnySize, 8},
    {4096, 262144, 7}, {4096, kAnySize, 8},
    {kAnyP, 8192, 7}, {kAnyP, 16384, 5}, {kAnyP, 262144, 7}, {kAnyP, kAnySize, 8},
};
constexpr RuleRow kReduceCommutative[] = {
    {4, 8, 7}, {4, 16, 4}, {4, 32, 3}, {4, 262144, 1}, {4, 524288, 3}, {4, 1048576, 2},
    {4, kAnySize, 3},
    {8, 4096, 4}, {8, 65536, 2}, {8, 262144, 5}, {8, 524288, 1}, {8, 1048576, 5},
    {8, kAnySize, 1},
    {16, 8192, 4}, {16, kAnySize, 5},
    {32, 4096, 4}, {32, kAnySize, 5},
    {256, kAnySize, 5},
    {512, 8192, 5}, {512, 16384, 6}, {512, kAnySize, 5},
    {2048, kAnySize, 5},
    {4096, 512, 5}, {4096, 1024, 6}, {4096, 8192, 5}, {4096, 16384, 6}, {4096, kAnySize, 5},
    {kAnyP, 16, 5}, {kAnyP, 32, 6}, {kAnyP, 1024, 5}, {kAnyP, 2048, 6}, {kAnyP, 8192, 5},
    {kAnyP, 16384, 6}, {kAnyP, kAnySize, 5},
};
constexpr RuleRow kReduceNoncommutative[] = {
    {4, 8, 6}, {4, kAnySize, 1},
    {8, kAnySize, 1},
    {16, 1024, 6}, {16, 8192, 1}, {16, 16384, 6}, {16, 262144, 1}, {16, kAnySize, 6},
    {128, kAnySize, 6},
    {256, 512, 6}, {256, 1024, 1}, {256, kAnySize, 6},
    {kAnyP, kAnySize, 6},
};
// All-gatherv: by the average portion (total / p).
constexpr RuleRow kAllgatherv[] = {
    {3, 2048, 3}, {3, 4096, 5}, {3, 8192, 3}, {3, kAnySize, 5},
    {8, 256, 1}, {8, 4096, 4}, {8, 8192, 3}, {8, 16384, 4}, {8, 262144, 2}, {8, kAnySize, 4},
    {16, 1024, 1}, {16, kAnySize, 2},
    {32, 128, 1}, {32, 262144, 2}, {32, kAnySize, 3},
    {64, 256, 1}, {64, 8192, 2}, {64, kAnySize, 3},
    {128, 256, 1}, {128, 4096, 2}, {128, kAnySize, 3},
    {256, 1024, 2}, {256, 65536, 4}, {256, kAnySize, 3},
    {512, 1024, 2}, {512, kAnySize, 3},
    {1024, 512, 2}, {1024, 1024, 1}, {1024, 4096, 2}, {1024, 1048576, 4}, {1024, kAnySize, 3},
    {kAnyP, 4096, 2}, {kAnyP, kAnySize, 4},
};
// clang-format on

uint64_t rule_total_bytes(const GeneratorInput& in) {
  return in.bytes > 0 ? static_cast<uint64_t>(std::llround(in.bytes)) : 0;
}
int64_t rule_element_count(const LibraryCall& call, const GeneratorInput& in) {
  const double t = call.type_bytes > 0 ? call.type_bytes : 1;
  return static_cast<int64_t>(std::llround(in.bytes / t));
}

// Open MPI's and SMPI's segment of `segsize` bytes (COLL_BASE_COMPUTED_SEGCOUNT): whole elements,
// and only when it is smaller than the message; 0 (whole messages) otherwise.
double rule_segment(double segsize, const LibraryCall& call, const GeneratorInput& in) {
  const double t = call.type_bytes > 0 ? call.type_bytes : 1;
  const int64_t count = rule_element_count(call, in);
  if (!(segsize >= t) || !(segsize < t * static_cast<double>(count))) return 0;
  int64_t seg = static_cast<int64_t>(segsize / t);
  if (segsize - static_cast<double>(seg) * t > t / 2) ++seg;
  return static_cast<double>(seg) * t;
}

LibraryAlgorithm rule_algo(LibraryAlgo a, const char* name, double segment = 0, int fanout = 0,
                           bool concurrent = false) {
  return LibraryAlgorithm{a, name, segment, fanout, concurrent};
}

bool rule_uniform_nodes(const GeneratorInput& in) {
  if (in.nodes == nullptr || in.nodes->p() != in.p) return true;
  const int n = in.nodes->nodes();
  std::vector<int> count(static_cast<size_t>(n), 0);
  for (int v : in.nodes->node_of) ++count[static_cast<size_t>(v)];
  for (int c : count)
    if (c != count[0]) return false;
  return true;
}

}  // namespace library_rules_detail

bool several_ranks_per_node(const GeneratorInput& in) {
  using namespace library_rules_detail;
  return in.nodes != nullptr && in.nodes->p() == in.p && !in.nodes->one_rank_per_node();
}

int ompi_fixed_decision(Collective c, bool commutative, int p, uint64_t bytes) {
  using namespace library_rules_detail;
  switch (c) {
    case Collective::allreduce:
      return commutative ? rule_lookup(kAllreduceCommutative, p, bytes)
                         : rule_lookup(kAllreduceNoncommutative, p, bytes);
    case Collective::reduce:
      return commutative ? rule_lookup(kReduceCommutative, p, bytes)
                         : rule_lookup(kReduceNoncommutative, p, bytes);
    case Collective::bcast: return rule_lookup(kBcast, p, bytes);
    case Collective::allgatherv: return rule_lookup(kAllgatherv, p, bytes);
    case Collective::scatterv:
    case Collective::gatherv: return 0;
  }
  return 0;
}

namespace library_rules_detail {  // file-local (unity builds: a name of its own)

uint64_t rule_decision_bytes(const LibraryCall& call, const GeneratorInput& in) {
  if (call.collective == Collective::allgatherv)
    return rule_total_bytes(in) / static_cast<uint64_t>(std::max(1, in.p));
  return rule_total_bytes(in);
}

}  // namespace library_rules_detail

LibraryAlgorithm open_mpi_rule(const LibraryCall& call, const GeneratorInput& in) {
  using namespace library_rules_detail;
  const int p = in.p;
  const int64_t count = rule_element_count(call, in);
  const int alg =
      ompi_fixed_decision(call.collective, call.commutative, p, rule_decision_bytes(call, in));
  // coll/tuned's fixed decisions pass segsize 0 (whole messages) and fanout 0 (a chain of one)
  // to every algorithm in 4.1.
  switch (call.collective) {
    case Collective::allreduce:
      switch (alg) {
        case 1: return rule_algo(LibraryAlgo::linear_reduce_bcast, "basic_linear");
        case 2: return rule_algo(LibraryAlgo::reduce_bcast, "nonoverlapping");
        case 3: return rule_algo(LibraryAlgo::recursive_doubling, "recursive_doubling");
        case 4:
        case 5:  // segmented_ring with segsize 0 is the ring; the ring with count < p recursive
                 // doubling
          if (count < p) return rule_algo(LibraryAlgo::recursive_doubling, "recursive_doubling");
          return rule_algo(LibraryAlgo::ring, alg == 4 ? "ring" : "segmented_ring");
        default:  // redscat_allgather falls back to basic_linear below one element per rank
          if (count < pof2_floor(p) || !call.commutative)
            return rule_algo(LibraryAlgo::linear_reduce_bcast, "basic_linear");
          return rule_algo(LibraryAlgo::rabenseifner_ompi_fold, "rabenseifner");
      }
    case Collective::reduce:
      switch (alg) {
        case 1: return rule_algo(LibraryAlgo::linear, "linear");
        case 2: return rule_algo(LibraryAlgo::chain, "chain", 0, 1);
        case 3: return rule_algo(LibraryAlgo::chain, "pipeline", 0, 1);
        case 4: return rule_algo(LibraryAlgo::binary, "binary", 0, 2);
        case 5: return rule_algo(LibraryAlgo::binomial, "binomial");
        case 6: return rule_algo(LibraryAlgo::in_order_binary, "in-order_binary", 0, 2);
        default:
          if (count < pof2_floor(p) || !call.commutative)
            return rule_algo(LibraryAlgo::linear, "linear");
          return rule_algo(LibraryAlgo::reduce_scatter_gather, "rabenseifner");
      }
    case Collective::bcast:
      switch (alg) {
        case 1: return rule_algo(LibraryAlgo::linear, "basic_linear", 0, 0, true);
        case 2: return rule_algo(LibraryAlgo::chain, "chain", 0, 1, true);
        case 3: return rule_algo(LibraryAlgo::chain, "pipeline", 0, 1, true);
        case 4: return rule_algo(LibraryAlgo::split_binary, "split_binary_tree", 0, 2, true);
        case 5: return rule_algo(LibraryAlgo::binary, "binary_tree", 0, 2, true);
        case 6: return rule_algo(LibraryAlgo::ompi_binomial, "binomial", 0, 0, true);
        case 7: return rule_algo(LibraryAlgo::knomial, "knomial", 0, 4, true);
        case 8: return rule_algo(LibraryAlgo::scatter_doubling, "scatter_allgather");
        default: return rule_algo(LibraryAlgo::scatter_ring, "scatter_allgather_ring");
      }
    case Collective::allgatherv:
      switch (alg) {
        case 1: return rule_algo(LibraryAlgo::gatherv_bcast, "default");
        case 2: return rule_algo(LibraryAlgo::bruck, "bruck");
        case 3: return rule_algo(LibraryAlgo::ring, "ring");
        case 4:
          if (p % 2 != 0)
            return rule_algo(LibraryAlgo::ring, "ring");  // neighbor exchange needs even p
          return rule_algo(LibraryAlgo::neighbor_exchange, "neighbor");
        default: return rule_algo(LibraryAlgo::pairwise, "two_proc");
      }
    case Collective::scatterv:
    case Collective::gatherv: return rule_algo(LibraryAlgo::linear_v, "basic_linear");
  }
  return rule_algo(LibraryAlgo::linear, "linear");
}

LibraryAlgorithm smpi_ompi_rule(const LibraryCall& call, const GeneratorInput& in) {
  using namespace library_rules_detail;
  const int p = in.p;
  const int64_t count = rule_element_count(call, in);
  const double m = in.bytes;
  const int alg =
      ompi_fixed_decision(call.collective, call.commutative, p, rule_decision_bytes(call, in));
  switch (call.collective) {
    case Collective::allreduce:
      switch (alg) {
        case 1:
        case 2: return rule_algo(LibraryAlgo::reduce_bcast, "redbcast");
        case 3: return rule_algo(LibraryAlgo::recursive_doubling, "rdb");
        case 4:
          if (count < p) return rule_algo(LibraryAlgo::reduce_bcast, "redbcast");  // lr's fallback
          return rule_algo(LibraryAlgo::ring, "lr");
        case 5: {
          // allreduce-ompi-ring-segmented.cpp: 1 MiB segments; below p of them, lr.
          const double seg = rule_segment(1 << 20, call, in);
          if (seg <= 0 || m < p * seg) {
            if (count < p) return rule_algo(LibraryAlgo::reduce_bcast, "redbcast");
            return rule_algo(LibraryAlgo::ring, "lr");
          }
          return rule_algo(LibraryAlgo::segmented_ring, "ompi_ring_segmented", seg);
        }
        default: return rule_algo(LibraryAlgo::rabenseifner, "rab_rdb");
      }
    case Collective::reduce:
      switch (alg) {
        case 2:  // reduce-ompi.cpp: fanout p / 2, 64 KiB segments
          return rule_algo(LibraryAlgo::chain, "ompi_chain", rule_segment(64 << 10, call, in),
                           std::max(1, p / 2));
        case 3: {  // the chain of one with 1, 32 or 64 KiB segments by p and size
          const double seg = p > 0.0410 / 1024 * m + 9.7128   ? 1024
                             : p > 0.0033 / 1024 * m + 1.6761 ? 32 << 10
                                                              : 64 << 10;
          return rule_algo(LibraryAlgo::chain, "ompi_pipeline", rule_segment(seg, call, in), 1);
        }
        case 4:
          return rule_algo(LibraryAlgo::binary, "ompi_binary", rule_segment(32 << 10, call, in), 2);
        case 5: {  // whole messages for small p or sizes, 1 KiB segments where p is large for m
          double seg = 0;
          if (!((p < 8 && m < 20480) || m < 2048 || count <= 1) && p > 0.6016 / 1024 * m + 1.3496)
            seg = 1024;
          return rule_algo(LibraryAlgo::binomial, "ompi_binomial", rule_segment(seg, call, in));
        }
        case 6: return rule_algo(LibraryAlgo::in_order_binary, "ompi_in_order_binary", 0, 2);
        default: return rule_algo(LibraryAlgo::linear, "ompi_basic_linear");  // 1, and 7 (no rab)
      }
    case Collective::bcast:
      switch (alg) {
        case 1:  // basic_linear runs NTSL: a chain pipelined in 8 KiB segments
          return rule_algo(LibraryAlgo::chain, "NTSL", m > 8192 ? rule_segment(8192, call, in) : 0,
                           1);
        case 2:
        case 3: {  // ompi_pipeline: 128, 64 or 16 KiB segments by p and size
          double seg = 128 << 10;
          if (p < 1.6134e-6 * m + 2.1102)
            seg = 128 << 10;
          else if (p < 2.3679e-6 * m + 1.1787)
            seg = 64 << 10;
          else if (p < 3.2118e-6 * m + 8.7936)
            seg = 16 << 10;
          return rule_algo(LibraryAlgo::chain, "ompi_pipeline", rule_segment(seg, call, in), 1,
                           true);
        }
        case 4:
          return rule_algo(LibraryAlgo::split_binary, "ompi_split_bintree",
                           rule_segment(m < 370728 ? 1024 : 8192, call, in), 2);
        case 5:  // NTSB: a binary tree pipelined in 8 KiB segments
          return rule_algo(LibraryAlgo::binary, "NTSB", m > 8192 ? rule_segment(8192, call, in) : 0,
                           2);
        case 6: return rule_algo(LibraryAlgo::binomial, "binomial_tree");
        case 7:  // MVAPICH's intra-node k-nomial, radix 4, one level's sends at once
          return rule_algo(LibraryAlgo::knomial, "mvapich2_knomial_intra_node", 0, 4, true);
        case 8: return rule_algo(LibraryAlgo::scatter_doubling, "scatter_rdb_allgather");
        default: return rule_algo(LibraryAlgo::scatter_ring, "scatter_LR_allgather");
      }
    case Collective::allgatherv:
      switch (alg) {
        case 1: return rule_algo(LibraryAlgo::gatherv_bcast, "GB");
        case 2: return rule_algo(LibraryAlgo::bruck, "ompi_bruck");
        case 3: return rule_algo(LibraryAlgo::ring, "mpich_ring");
        case 4:
          if (p % 2 != 0) return rule_algo(LibraryAlgo::ring, "ring");
          return rule_algo(LibraryAlgo::neighbor_exchange, "ompi_neighborexchange");
        default: return rule_algo(LibraryAlgo::pairwise, "pair");
      }
    case Collective::scatterv:
    case Collective::gatherv: return rule_algo(LibraryAlgo::linear_v, "default", 0, 0, true);
  }
  return rule_algo(LibraryAlgo::linear, "linear");
}

LibraryAlgorithm smpi_mpich_rule(const LibraryCall& call, const GeneratorInput& in) {
  using namespace library_rules_detail;
  // smpi_mpich_selector.cpp (SimGrid 3.32). MPI_COMM_WORLD and its duplicates are not SMP
  // communicators, so the commutative reductions and the broadcast take the two-level
  // algorithms over SMPI's node and leader communicators.
  const int p = in.p;
  const int64_t count = rule_element_count(call, in);
  const double m = in.bytes;
  switch (call.collective) {
    case Collective::allreduce:
      if (call.commutative) return rule_algo(LibraryAlgo::two_level, "mvapich2_two_level");
      return rule_algo(LibraryAlgo::recursive_doubling, "rdb");
    case Collective::reduce:
      if (call.commutative) return rule_algo(LibraryAlgo::two_level, "mvapich2_two_level");
      return rule_algo(LibraryAlgo::binomial, "binomial");
    case Collective::bcast:
      if (rule_uniform_nodes(in)) return rule_algo(LibraryAlgo::smp_binomial, "SMP_binomial");
      if (m < 12288 || p <= 8) return rule_algo(LibraryAlgo::binomial, "binomial_tree");
      if (m < 524288 && p % 2 == 0)
        return rule_algo(LibraryAlgo::scatter_doubling, "scatter_rdb_allgather");
      return rule_algo(LibraryAlgo::scatter_ring, "scatter_LR_allgather");
    case Collective::allgatherv: {
      // The selector sums the counts, in elements, where MPICH sums bytes.
      const int64_t total = count;
      if (is_pof2(p) && total < 524288)
        return rule_algo(LibraryAlgo::allgather_doubling, "mpich_rdb");
      if (total <= 81920) return rule_algo(LibraryAlgo::bruck, "ompi_bruck");
      return rule_algo(LibraryAlgo::ring, "mpich_ring");
    }
    case Collective::scatterv:
    case Collective::gatherv: return rule_algo(LibraryAlgo::linear_v, "default", 0, 0, true);
  }
  return rule_algo(LibraryAlgo::linear, "linear");
}

LibraryAlgorithm mpich_rule(const LibraryCall& call, const GeneratorInput& in) {
  using namespace library_rules_detail;
  // maint/tuning/coll/ch4/generic.json picks a composition: on a communicator with node structure
  // ("comm_hierarchy=parent") the node-aware alpha/beta ones for commutative reductions and for
  // most broadcasts, otherwise "gamma", the flat MPIR algorithm of
  // maint/tuning/coll/mpir/generic.json (MPICH 4.1.2).
  const int p = in.p;
  const int64_t count = rule_element_count(call, in);
  const double m = in.bytes;
  const bool hierarchy = several_ranks_per_node(in);
  switch (call.collective) {
    case Collective::allreduce:
      if (hierarchy && call.commutative)
        return rule_algo(LibraryAlgo::two_level, "composition_alpha");
      if (m <= 8 || !call.commutative || count < pof2_floor(p))
        return rule_algo(LibraryAlgo::recursive_doubling, "recursive_doubling");
      return rule_algo(LibraryAlgo::rabenseifner, "reduce_scatter_allgather");
    case Collective::reduce:
      if (hierarchy && call.commutative)
        return rule_algo(LibraryAlgo::two_level, "composition_alpha");
      if (m <= 2048 || !call.commutative || count < pof2_floor(p))
        return rule_algo(LibraryAlgo::binomial, "binomial");
      return rule_algo(LibraryAlgo::reduce_scatter_gather, "reduce_scatter_gather");
    case Collective::bcast:
      if (hierarchy && (p < 8 || m < 12288 || (is_pof2(p) && m < 524288)))
        return rule_algo(LibraryAlgo::smp_binomial, "composition_alpha");
      if (p < 8 || m <= 12288) return rule_algo(LibraryAlgo::binomial, "binomial");
      if (is_pof2(p) && m <= 524288)
        return rule_algo(LibraryAlgo::scatter_doubling, "scatter_recursive_doubling_allgather");
      return rule_algo(LibraryAlgo::scatter_ring, "scatter_ring_allgather");
    case Collective::allgatherv:
      if (is_pof2(p) && m < 524288)
        return rule_algo(LibraryAlgo::allgather_doubling, "recursive_doubling");
      if (m < 81920) return rule_algo(LibraryAlgo::bruck, "brucks");
      return rule_algo(LibraryAlgo::ring, "ring");
    case Collective::scatterv:
    case Collective::gatherv: return rule_algo(LibraryAlgo::linear_v, "linear", 0, 0, true);
  }
  return rule_algo(LibraryAlgo::linear, "linear");
}

}  // namespace papcoll
