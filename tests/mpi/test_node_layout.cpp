// Node detection (src/executor/node_detection.hpp, docs/ARCHITECTURE.md "Nodes"): every rank of a
// communicator's context holds the same layout; it is what MPI_Comm_split_type
// (MPI_COMM_TYPE_SHARED) says, and on Open MPI that is the ranks' host (the processor names), or
// PAPCOLL_NODES's layout when that is set and valid; sub-communicators (reordered, spanning part
// of a node) get the restriction of the world's layout; and the collectives stay exact whatever
// the layout says (a pretended node boundary only turns the shared-memory window off).
//
// PAPCOLL_TEST_EXPECT_NODES (a PAPCOLL_NODES form) states the layout MPI must detect: the
// multi-node harness (tests/multinode/, docs/multinode.md) sets it to the emulated nodes.
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "executor/comm_context.hpp"
#include "model/node_layout.hpp"
#include "mpi_check.hpp"
#include "papcoll/papcoll.h"

using papcoll::NodeLayout;
using papcoll_test::Checker;

namespace {

std::string text(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

// Whether every rank of `comm` holds the same bytes.
bool same_everywhere(MPI_Comm comm, const std::string& bytes) {
  const uint64_t h = std::hash<std::string>{}(bytes);
  uint64_t lo = 0, hi = 0;
  MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, comm);
  return lo == hi;
}

// The layout of `comm` by a route of its own: each rank's node leader's rank in `comm`, from the
// node communicator's rank 0, allgathered.
NodeLayout split_type_layout(MPI_Comm comm) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int leader = rank;
  MPI_Bcast(&leader, 1, MPI_INT, 0, node);
  MPI_Comm_free(&node);
  std::vector<int> all(static_cast<size_t>(p));
  MPI_Allgather(&leader, 1, MPI_INT, all.data(), 1, MPI_INT, comm);
  return papcoll::node_layout_from_labels(std::vector<int64_t>(all.begin(), all.end()));
}

// Ranks grouped by MPI_Get_processor_name.
NodeLayout host_layout(MPI_Comm comm) {
  int p = 1;
  MPI_Comm_size(comm, &p);
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> all(static_cast<size_t>(p) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, comm);
  std::vector<int64_t> labels(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r)
    labels[static_cast<size_t>(r)] = static_cast<int64_t>(std::hash<std::string>{}(
        std::string(all.data() + static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME)));
  return papcoll::node_layout_from_labels(labels);
}

std::optional<NodeLayout> env_layout(const char* var, int world) {
  const char* v = std::getenv(var);
  if (v == nullptr || *v == '\0') return std::nullopt;
  std::string error;
  return papcoll::parse_node_spec(v, world, &error);
}

// The world layout restricted to `comm` (its ranks' world ranks), renumbered.
NodeLayout restricted(const NodeLayout& world, MPI_Comm comm) {
  int p = 1, world_rank = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  std::vector<int> ranks(static_cast<size_t>(p));
  MPI_Allgather(&world_rank, 1, MPI_INT, ranks.data(), 1, MPI_INT, comm);
  std::vector<int64_t> labels;
  for (int r : ranks) labels.push_back(world.node_of[static_cast<size_t>(r)]);
  return papcoll::node_layout_from_labels(labels);
}

// Exact integer all-reduce (every algorithm, auto, native) and all-gatherv on `comm`.
void check_collectives(Checker& check, MPI_Comm comm, const std::string& where) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const int n = 3001;
  std::vector<std::string> algos{"auto", "native"};
  {
    std::stringstream list(papcoll_algorithms("allreduce"));
    for (std::string name; std::getline(list, name, ',');) algos.push_back(name);
  }
  for (const std::string& algo : algos) {
    std::vector<int> in(n), out(n, -1);
    for (int i = 0; i < n; ++i) in[static_cast<size_t>(i)] = (rank + 1) * 7 + i % 13;
    papcoll_options opt;
    papcoll_options_init(&opt);
    opt.algorithm = algo.c_str();
    const int rc = papcoll_allreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, comm, &opt);
    bool exact = true;
    for (int i = 0; i < n && exact; ++i)
      exact = out[static_cast<size_t>(i)] == 7 * p * (p + 1) / 2 + p * (i % 13);
    check.expect_success(rc, where + ": allreduce " + algo);
    check.expect(exact, where + ": allreduce " + algo + " result");
  }
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  int total = 0;
  for (int r = 0; r < p; ++r) {
    counts[static_cast<size_t>(r)] = 100 + 37 * r;
    displs[static_cast<size_t>(r)] = total;
    total += counts[static_cast<size_t>(r)];
  }
  std::vector<int> mine(static_cast<size_t>(counts[static_cast<size_t>(rank)]));
  for (size_t i = 0; i < mine.size(); ++i) mine[i] = rank * 100000 + static_cast<int>(i);
  std::vector<int> all(static_cast<size_t>(total), -1);
  const int rc = papcoll_allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_INT, all.data(),
                                    counts.data(), displs.data(), MPI_INT, comm, nullptr);
  bool exact = true;
  for (int r = 0; r < p && exact; ++r)
    for (int i = 0; i < counts[static_cast<size_t>(r)] && exact; ++i)
      exact = all[static_cast<size_t>(displs[static_cast<size_t>(r)] + i)] == r * 100000 + i;
  check.expect_success(rc, where + ": allgatherv");
  check.expect(exact, where + ": allgatherv result");
}

// The context of `comm` against what its layouts must be.
void check_context(Checker& check, MPI_Comm comm, const NodeLayout& want_nodes,
                   const NodeLayout& want_machine, bool overridden, const std::string& where) {
  papcoll::CommContext* ctx = nullptr;
  const papcoll::MpiStatus s = papcoll::comm_context(comm, &ctx);
  if (!check.expect(s.ok() && ctx != nullptr && ctx->nodes && ctx->machine_nodes,
                    where + ": context with both layouts"))
    return;
  const NodeLayout& nodes = *ctx->nodes;
  const NodeLayout& machine = *ctx->machine_nodes;
  check.expect(same_everywhere(comm, nodes.key() + "|" + machine.key()),
               where + ": every rank holds the same layouts");
  check.expect(machine == want_machine, where + ": detected " + text(machine.node_of) +
                                            ", MPI_Comm_split_type says " +
                                            text(want_machine.node_of));
  check.expect(nodes == want_nodes, where + ": layout in use " + text(nodes.node_of) +
                                        ", expected " + text(want_nodes.node_of));
  check.expect(ctx->nodes_overridden == overridden, where + ": nodes_overridden");
  check.expect(!ctx->shared_memory || (nodes.single_node() && machine.single_node()),
               where + ": the shared-memory window only on one node of both layouts");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  check.expect(nodes.p() == ctx->size && nodes.local_index(rank) >= 0,
               where + ": layout of the communicator's size");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    Checker check("test_node_layout");
    const int p = check.size(), rank = check.rank();
    const NodeLayout machine = split_type_layout(MPI_COMM_WORLD);
    // On Open MPI (and MPICH), ranks share memory exactly when they share a host.
    check.expect(machine == host_layout(MPI_COMM_WORLD),
                 "MPI_Comm_split_type's nodes " + text(machine.node_of) +
                     " are the processor names' " + text(host_layout(MPI_COMM_WORLD).node_of));
    if (const auto expect = env_layout("PAPCOLL_TEST_EXPECT_NODES", p))
      check.expect(machine == *expect, "MPI detects " + text(machine.node_of) +
                                           ", PAPCOLL_TEST_EXPECT_NODES says " +
                                           text(expect->node_of));
    const std::optional<NodeLayout> pretend = env_layout("PAPCOLL_NODES", p);
    const NodeLayout world = pretend ? *pretend : machine;
    if (rank == 0)
      std::printf("test_node_layout: MPI detects %s; in use: %s%s\n", machine.describe().c_str(),
                  world.describe().c_str(), pretend ? " (PAPCOLL_NODES)" : "");
    check_context(check, MPI_COMM_WORLD, world, machine, pretend.has_value(), "world");
    check_collectives(check, MPI_COMM_WORLD, "world");

    // Reversed rank order: the same nodes, numbered from the new rank 0.
    MPI_Comm reversed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - rank, &reversed);
    check_context(check, reversed, restricted(world, reversed), split_type_layout(reversed),
                  pretend.has_value(), "reversed");
    check.expect(restricted(machine, reversed) == split_type_layout(reversed),
                 "reversed: MPI's own split is the world's restricted");
    check_collectives(check, reversed, "reversed");
    MPI_Comm_free(&reversed);

    // Every other rank: spans part of each node (and unequal nodes when nodes hold 2 or 3).
    if (p >= 3) {
      MPI_Comm odd;
      MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &odd);
      check_context(check, odd, restricted(world, odd), split_type_layout(odd), pretend.has_value(),
                    "every other rank");
      check.expect(restricted(machine, odd) == split_type_layout(odd),
                   "every other rank: MPI's own split is the world's restricted");
      check_collectives(check, odd, "every other rank");
      MPI_Comm_free(&odd);
    }
    // A communicator of one rank.
    papcoll::CommContext* self = nullptr;
    check.expect(papcoll::comm_context(MPI_COMM_SELF, &self).ok() && self->nodes->p() == 1 &&
                     self->nodes->single_node(),
                 "MPI_COMM_SELF: one rank on one node");
    MPI_Barrier(MPI_COMM_WORLD);
    const int rc = check.finish();
    MPI_Finalize();
    return rc;
  }
}
