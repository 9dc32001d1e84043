#include "schedule/circulant/circulant_group.hpp"

#include <algorithm>
#include <vector>

#include "schedule/circulant/circulant_message.hpp"
#include "schedule/circulant/circulant_recv.hpp"
#include "schedule/circulant/circulant_send.hpp"
#include "schedule/circulant/circulant_tables.hpp"

namespace papcoll::circulant {

int group_rounds(int g, int n) {
  if (g < 2) return 0;
  int q = 0;
  while ((int64_t{1} << q) < g) ++q;
  return std::max(1, n) - 1 + q;
}

void emit_group(std::span<const int> members, int v, std::span<const GroupOrigin> origins,
                int64_t first_round, bool ids_ascend, ScheduleSink& out) {
  const int g = static_cast<int>(members.size());
  if (g < 2 || origins.empty()) return;
  int n = 1;
  for (const GroupOrigin& o : origins) n = std::max(n, o.blocks.count);
  const Skips sk = make_skips(g);
  const int q = sk.q;
  const size_t count = origins.size();
  const int rank = members[static_cast<size_t>(v)];
  // Every member an origin, in order (the arrival-aware all-gatherv's early group): Algorithm
  // 2's messages as in circulant_allgatherv.cpp, O(g) for the table plus O(n + log g), where the
  // loop below computes a receive and a send schedule per origin, O(g log g).
  bool every_member = ids_ascend && count == static_cast<size_t>(g);
  for (size_t i = 0; every_member && i < count; ++i)
    every_member = origins[i].v == static_cast<int>(i);
  if (every_member) {
    auto owned = std::make_shared<std::vector<BlockRun>>(count);
    for (size_t i = 0; i < count; ++i) (*owned)[i] = origins[i].blocks;
    const std::shared_ptr<const std::vector<BlockRun>> table = std::move(owned);
    for (int t = 0; t < real_rounds(q, n); ++t) {
      const Round rd = round_of(q, n, t);
      const int to = (v + sk.skip[rd.k]) % g, from = (v - sk.skip[rd.k] + g) % g;
      out.send(rank, first_round + t, members[static_cast<size_t>(to)],
               group_allgather_message(sk, table, n, rd.k, rd.offset, to));
      out.recv(rank, first_round + t, members[static_cast<size_t>(from)],
               group_allgather_message(sk, table, n, rd.k, rd.offset, v), Combine::copy);
    }
    return;
  }
  // Per origin: v's receive and send schedule as virtual processor (v - o) mod g of its instance.
  std::vector<int> recv(count * q), send(count * q);
  for (size_t i = 0; i < count; ++i) {
    const int rel = ((v - origins[i].v) % g + g) % g;
    recv_schedule(sk, rel, &recv[i * q]);
    send_schedule(sk, rel, &send[i * q]);
  }
  // Block j of origin i (capped to its last block), or -1 when it owns none.
  auto id = [&](size_t i, int j) {
    const BlockRun& b = origins[i].blocks;
    return b.count == 0 ? -1 : b.first + std::min(j, b.count - 1);
  };
  std::vector<int> sent_ids, got_ids;
  auto block_set = [&](std::vector<int>& ids) {
    if (ids_ascend) {
      BlockSet s;
      for (int b : ids) s.append(b);
      return s;
    }
    return BlockSet(ids);
  };
  for (int t = 0; t < real_rounds(q, n); ++t) {
    const Round rd = round_of(q, n, t);
    const int skip = sk.skip[rd.k];
    const int to = (v + skip) % g, from = (v - skip + g) % g;
    sent_ids.clear();
    got_ids.clear();
    for (size_t i = 0; i < count; ++i) {
      const int o = origins[i].v;
      if (o != to) {
        const int j = send[i * q + rd.k] + rd.offset;
        if (j >= 0 && id(i, j) >= 0) sent_ids.push_back(id(i, j));
      }
      if (o != v) {
        const int j = recv[i * q + rd.k] + rd.offset;
        if (j >= 0 && id(i, j) >= 0) got_ids.push_back(id(i, j));
      }
    }
    out.send(rank, first_round + t, members[static_cast<size_t>(to)], block_set(sent_ids));
    out.recv(rank, first_round + t, members[static_cast<size_t>(from)], block_set(got_ids),
             Combine::copy);
  }
}

}  // namespace papcoll::circulant
