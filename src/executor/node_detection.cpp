#include "executor/node_detection.hpp"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace papcoll {
namespace {

// The node of this process under PAPCOLL_NODES, read once per process: -1 when the variable is
// unset or invalid (then said once on stderr).
int64_t override_label() {
  static const int64_t label = [] {
    const char* text = std::getenv("PAPCOLL_NODES");
    if (text == nullptr || *text == '\0') return int64_t{-1};
    int world = 1, world_rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    std::string error;
    const std::optional<NodeLayout> l = parse_node_spec(text, world, &error);
    if (!l) {
      std::fprintf(stderr, "papcoll: %s; using the nodes MPI detects\n", error.c_str());
      return int64_t{-1};
    }
    return static_cast<int64_t>(l->node_of[static_cast<size_t>(world_rank)]);
  }();
  return label;
}

}  // namespace

MpiStatus shared_node_of(MPI_Comm comm, SharedNode* out) {
  MPI_Comm node = MPI_COMM_NULL;
  // key 0 keeps the order of `comm`, so the node communicator's rank 0 is the node's lowest rank.
  PAPCOLL_MPI_TRY(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                  "MPI_Comm_split_type");
  MPI_Group node_group = MPI_GROUP_NULL, comm_group = MPI_GROUP_NULL;
  int size = 1, zero = 0, leader = MPI_UNDEFINED;
  MpiStatus s = mpi_check(MPI_Comm_size(node, &size), "MPI_Comm_size");
  if (s.ok()) s = mpi_check(MPI_Comm_group(node, &node_group), "MPI_Comm_group");
  if (s.ok()) s = mpi_check(MPI_Comm_group(comm, &comm_group), "MPI_Comm_group");
  if (s.ok())
    s = mpi_check(MPI_Group_translate_ranks(node_group, 1, &zero, comm_group, &leader),
                  "MPI_Group_translate_ranks");
  if (node_group != MPI_GROUP_NULL) MPI_Group_free(&node_group);
  if (comm_group != MPI_GROUP_NULL) MPI_Group_free(&comm_group);
  MPI_Comm_free(&node);
  if (!s.ok()) return s;
  if (leader == MPI_UNDEFINED) return mpi_check(MPI_ERR_INTERN, "MPI_Group_translate_ranks");
  *out = SharedNode{leader, size};
  return {};
}

MpiStatus detect_node_layouts(MPI_Comm comm, NodeLayouts* out) {
  int p = 1;
  PAPCOLL_MPI_TRY(MPI_Comm_size(comm, &p), "MPI_Comm_size");
  SharedNode mine;
  if (MpiStatus s = shared_node_of(comm, &mine); !s.ok()) return s;
  const int64_t sent[2] = {mine.leader, override_label()};
  std::vector<int64_t> all(2 * static_cast<size_t>(p));
  PAPCOLL_MPI_TRY(MPI_Allgather(sent, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm),
                  "MPI_Allgather");
  std::vector<int64_t> leaders(static_cast<size_t>(p)), labels(static_cast<size_t>(p));
  bool every_rank_overrides = true;
  for (size_t r = 0; r < static_cast<size_t>(p); ++r) {
    leaders[r] = all[2 * r];
    labels[r] = all[2 * r + 1];
    every_rank_overrides = every_rank_overrides && labels[r] >= 0;
  }
  out->machine = std::make_shared<const NodeLayout>(node_layout_from_labels(leaders));
  out->overridden = every_rank_overrides;
  out->nodes = every_rank_overrides
                   ? std::make_shared<const NodeLayout>(node_layout_from_labels(labels))
                   : out->machine;
  return {};
}

}  // namespace papcoll
