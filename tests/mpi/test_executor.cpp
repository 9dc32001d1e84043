// The executor on hand-written schedules that exercise what today's generators never produce:
// a copy over a block the same step sends, a pending send to a late rank whose block is then
// overwritten, non-contiguous block lists (also with a padded datatype), empty messages, several
// messages per pair and step, rounds whose tags wrap around, and paced steps (a large send that
// waits for the rank's earlier ones to be taken, also when their receiver is late, and small
// sends that do not wait). These schedules are not
// all-reduces; the executor does not care, so each test states the exact expected buffer.
#include <mpi.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "executor/executor.hpp"
#include "executor/node_exchange.hpp"
#include "executor/step_overhead.hpp"
#include "model/node_layout.hpp"
#include "mpi_check.hpp"
#include "schedule/blocks.hpp"

using papcoll_test::Checker;
using namespace papcoll;

namespace {

struct Transfer {
  int round, from, to;
  std::vector<int> blocks;
  Combine combine;
};

// Steps of `me`, ops in the order of `xs` on both sides, as the schedule builder does.
RankSchedule steps_of(int me, const std::vector<Transfer>& xs) {
  std::map<int, std::vector<Op>> by_round;
  for (const Transfer& x : xs) {
    if (x.from == me)
      by_round[x.round].push_back({OpKind::send, x.to, BlockSet(x.blocks), Combine::none});
    if (x.to == me)
      by_round[x.round].push_back({OpKind::recv, x.from, BlockSet(x.blocks), x.combine});
  }
  RankSchedule rs;
  rs.rank = me;
  for (auto& [round, ops] : by_round)
    for (Op& op : ops) rs.add(round, std::move(op));
  return rs;
}

int value(int rank, int64_t i) { return rank * 1000000 + static_cast<int>(i % 999983); }

// Expected content: block b of rank r is the sum over ranks in want[r][b] (empty: unchanged).
using Want = std::map<int, std::map<int, std::vector<int>>>;

class Harness {
 public:
  Harness(Checker& chk) : chk_(chk) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Type_create_resized(MPI_INT, 0, 8, &padded_);
    MPI_Type_commit(&padded_);
    MPI_Op_create(padded_sum, 1, &padded_sum_op_);
  }
  ~Harness() {
    MPI_Op_free(&padded_sum_op_);
    MPI_Type_free(&padded_);
    MPI_Comm_free(&comm_);
  }

  // Runs the schedule on ints (stride 1) or on MPI_INT resized to 8 bytes (stride 2, holes must
  // keep their sentinel), then checks every element on this rank.
  void run(const std::string& name, int64_t count, int blocks, const std::vector<Transfer>& xs,
           const Want& want, bool padded = false, int late_rank = -1, int64_t paced_until = 0,
           int64_t paced_bytes = kPacedBytesMost) {
    const int rank = chk_.rank();
    const int stride = padded ? 2 : 1;
    std::vector<int> buf(static_cast<size_t>(count * stride), -7);
    for (int64_t i = 0; i < count; ++i) buf[i * stride] = value(rank, i);
    DatatypeLayout layout;
    query_layout(padded ? padded_ : MPI_INT, &layout);
    ExecBuffer eb{buf.data(), count, layout, padded ? padded_sum_op_ : MPI_SUM};
    if (rank == late_rank) usleep(30000);
    RankSchedule rs = steps_of(rank, xs);
    // Sends of rounds below paced_until paced, as ScheduleSink::set_paced_until marks them.
    for (const Step& s : rs.steps)
      for (int k = s.first_op; k < s.first_op + s.op_count; ++k)
        rs.ops[k].paced = rs.ops[k].kind == OpKind::send && s.round < paced_until;
    rs.paced_bytes = paced_until > 0 ? paced_bytes : 0;
    const MpiStatus st = execute_schedule(rs, blocks, eb, comm_, scratch_);
    std::string problem = st.ok() ? "" : describe(st);
    for (int b = 0; b < blocks && problem.empty(); ++b) {
      std::vector<int> from = {rank};
      if (auto r = want.find(rank); r != want.end())
        if (auto w = r->second.find(b); w != r->second.end()) from = w->second;
      const BlockRange br = block_range(count, blocks, b);
      for (int64_t i = br.offset; i < br.offset + br.count && problem.empty(); ++i) {
        int expect = 0;
        for (int r : from) expect += value(r, i);
        if (buf[i * stride] != expect || (padded && buf[i * stride + 1] != -7))
          problem = "element " + std::to_string(i) + " (block " + std::to_string(b) + ") is " +
                    std::to_string(buf[i * stride]) + ", expected " + std::to_string(expect);
      }
    }
    chk_.expect(problem.empty(), name + (padded ? " [padded int]" : "") + ": " + problem);
  }

 private:
  static void padded_sum(void* in, void* inout, int* len, MPI_Datatype*) {
    for (int k = 0; k < *len; ++k) static_cast<int*>(inout)[2 * k] += static_cast<int*>(in)[2 * k];
  }

  Checker& chk_;
  MPI_Comm comm_;
  MPI_Datatype padded_;
  MPI_Op padded_sum_op_;
  ScratchBuffer scratch_;
};

constexpr int64_t kBig = 1 << 18;  // ints; beyond every eager limit, so sends really stay pending

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Checker chk("test_executor");
    const int p = chk.size();
    {
      Harness h(chk);
      if (p >= 2) {
        // Both ranks send block 0 and receive the other's block 0 by copy in the same step: the
        // outgoing message must carry the old value.
        h.run("same-step swap", kBig, 2,
              {{0, 0, 1, {0}, Combine::copy}, {0, 1, 0, {0}, Combine::copy}},
              {{0, {{0, {1}}}}, {1, {{0, {0}}}}});
        // Non-contiguous block lists: reduce into scratch, copy in place through a datatype.
        for (bool padded : {false, true})
          h.run(
              "non-contiguous blocks", 1000, 10,
              {{0, 0, 1, {0, 2, 3, 7}, Combine::reduce},
               {0, 1, 0, {1, 4, 9}, Combine::copy},
               {1, 1, 0, {0, 2, 3, 7}, Combine::copy}},
              {{0,
                {{0, {0, 1}}, {2, {0, 1}}, {3, {0, 1}}, {7, {0, 1}}, {1, {1}}, {4, {1}}, {9, {1}}}},
               {1, {{0, {0, 1}}, {2, {0, 1}}, {3, {0, 1}}, {7, {0, 1}}}}},
              padded);
        // Blocks 3 and 4 of 5 are empty for 3 elements: that message vanishes on both sides.
        h.run("empty message", 3, 5,
              {{0, 0, 1, {3, 4}, Combine::reduce}, {0, 0, 1, {0, 4}, Combine::reduce}},
              {{1, {{0, {0, 1}}}}});
        // Two messages per pair and step, and rounds 32767 apart that share a tag.
        h.run("same tag, in order", 40, 4,
              {{5, 0, 1, {0}, Combine::reduce},
               {5, 0, 1, {1}, Combine::copy},
               {5 + 32767, 0, 1, {2}, Combine::reduce},
               {5 + 2 * 32767, 0, 1, {3}, Combine::copy}},
              {{1, {{0, {0, 1}}, {1, {0}}, {2, {0, 1}}, {3, {0}}}}});
      } else {
        for (int k = 0; k < 5; ++k) chk.expect(true, "needs 2 ranks");
      }
      if (p >= 3) {
        // Rank 0's send to late rank 2 is still pending when rank 1's copy of the same block
        // arrives in place: the executor must wait for the send first.
        for (bool padded : {false, true})
          h.run("pending send, then overwrite", kBig, 1,
                {{0, 0, 2, {0}, Combine::copy}, {1, 1, 0, {0}, Combine::copy}},
                {{0, {{0, {1}}}}, {2, {{0, {0}}}}}, padded, 2);
        // Same with a reduce onto the block: rank 2 must still get rank 0's original.
        h.run("pending send, then reduce", kBig, 1,
              {{0, 0, 2, {0}, Combine::copy}, {1, 1, 0, {0}, Combine::reduce}},
              {{0, {{0, {0, 1}}}}, {2, {{0, {0}}}}}, false, 2);
        // Paced steps (executor.cpp, RankSchedule::paced_until): rank 0's round-1 send waits
        // until its round-0 send has been taken, here by rank 2, 30 ms late (a mispredicted
        // arrival): rank 1 then gets its block late, but right.
        h.run("paced send behind a late receiver", kBig, 2,
              {{0, 0, 2, {0}, Combine::copy}, {1, 0, 1, {1}, Combine::copy}},
              {{2, {{0, {0}}}}, {1, {{1, {0}}}}}, false, 2, 2);
        // Large sends to different ranks in consecutive rounds, paced one round at a time, with
        // reduces on both sides of the last round; the last round past paced_until.
        h.run("paced rounds", kBig, 8,
              {{0, 0, 1, {0}, Combine::copy},
               {1, 0, 2, {1}, Combine::copy},
               {1, 2, 1, {7}, Combine::reduce},
               {2, 0, 1, {2}, Combine::reduce},
               {2, 1, 0, {3}, Combine::reduce},
               {3, 1, 2, {4}, Combine::reduce}},
              {{1, {{0, {0}}, {2, {0, 1}}, {7, {1, 2}}}},
               {2, {{1, {0}}, {4, {1, 2}}}},
               {0, {{3, {0, 1}}}}},
              false, -1, 3);
        // The same shape with small messages (below the paced size: ordinary sends), and with a
        // paced size below them (RankSchedule::paced_bytes: synchronous, one round at a time).
        for (int64_t bytes : {kPacedBytesMost, int64_t{4}})
          h.run("paced steps, small messages, synchronous from " + std::to_string(bytes) + " bytes",
                64, 8,
                {{0, 0, 1, {0}, Combine::copy},
                 {1, 0, 2, {1}, Combine::copy},
                 {2, 0, 1, {2}, Combine::reduce},
                 {2, 1, 0, {3}, Combine::reduce}},
                {{1, {{0, {0}}, {2, {0, 1}}}}, {2, {{1, {0}}}}, {0, {{3, {0, 1}}}}}, false, -1, 3,
                bytes);
        // A small paced send behind a late receiver (synchronous from 4 bytes): as above.
        h.run("small paced send behind a late receiver", 64, 2,
              {{0, 0, 2, {0}, Combine::copy}, {1, 0, 1, {1}, Combine::copy}},
              {{2, {{0, {0}}}}, {1, {{1, {0}}}}}, false, 2, 2, 4);
      } else {
        for (int k = 0; k < 8; ++k) chk.expect(true, "needs 3 ranks");
      }
    }
    // A ring's round through the executor (executor/step_overhead.hpp, which `auto` weighs
    // papcoll's many-round schedules with): a time, bit for bit the same on every rank, and the
    // overhead is what it takes beyond the slower latency.
    {
      MPI_Comm dup = MPI_COMM_NULL;
      MPI_Comm_dup(MPI_COMM_WORLD, &dup);
      MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
      ScratchBuffer scratch;
      double round = -1;
      const MpiStatus s = measure_ring_round(dup, scratch, &round);
      chk.expect(s.ok(), "measure_ring_round: " + describe(s));
      double root = round;
      MPI_Bcast(&root, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      chk.expect(std::memcmp(&root, &round, sizeof round) == 0, "ring round differs from rank 0's");
      chk.expect(p < 2 ? round == 0 : std::isfinite(round) && round > 0 && round < 1,
                 "ring round " + std::to_string(round) + " s");
      CostParams c;
      c.alpha = round / 4;
      c.intra_alpha = round / 2;
      chk.expect(step_overhead_from_round(round, c) == round - round / 2,
                 "overhead beyond latency");
      c.alpha = 2 * round;
      chk.expect(step_overhead_from_round(round, c) == 0, "no overhead below the latency");
      MPI_Comm_free(&dup);
    }
    // A node-wide exchange through the executor (executor/node_exchange.hpp, which two-level-rsag's
    // estimate reads): on nodes of two ranks (and a last one of one where p is odd) a line, bit for
    // bit the same on every rank, with a time per piece; nothing with one rank per node. And the
    // line's arithmetic.
    {
      MPI_Comm dup = MPI_COMM_NULL;
      MPI_Comm_dup(MPI_COMM_WORLD, &dup);
      MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
      ScratchBuffer scratch;
      ExchangeLine line{-1, -1};
      MpiStatus s = measure_node_exchange(dup, block_node_layout(p, 2), scratch, &line);
      chk.expect(s.ok(), "measure_node_exchange: " + describe(s));
      double mine[2] = {line.alpha, line.beta}, root[2] = {line.alpha, line.beta};
      MPI_Bcast(root, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      chk.expect(std::memcmp(root, mine, sizeof mine) == 0, "exchange line differs from rank 0's");
      const double piece = line.alpha + line.beta * node_exchange_piece_bytes(2);
      chk.expect(p < 2 ? line.alpha == 0 && line.beta == 0
                       : line.alpha >= 0 && line.beta >= 0 && piece > 0 && piece < 1,
                 "exchange line " + std::to_string(line.alpha) + " s + " +
                     std::to_string(line.beta) + " s/B on nodes of 2");
      ExchangeLine flat{-1, -1};
      s = measure_node_exchange(dup, block_node_layout(p, 1), scratch, &flat);
      chk.expect(s.ok() && flat.alpha == 0 && flat.beta == 0,
                 "one rank per node: nothing measured");
      chk.expect(node_exchange_piece_bytes(32) == 64 << 10 &&
                     node_exchange_piece_bytes(256) == 16 << 10 &&
                     node_exchange_piece_bytes(4096) == 4 << 10,
                 "piece sizes");
      // 31 pieces a rank: 1 KiB in 31 x 10 us, 64 KiB in 31 x (10 us + 63 KiB x 2 ns).
      const double large_s = 31 * (10e-6 + 2e-9 * (63 << 10));
      const ExchangeLine fit = node_exchange_line(31 * 10e-6, large_s, 32, 1024, 64 << 10);
      chk.expect(std::abs(fit.beta - 2e-9) < 1e-18 &&
                     std::abs(fit.alpha - (10e-6 - 2e-9 * 1024)) < 1e-15,
                 "line through two points");
      const ExchangeLine flat_fit = node_exchange_line(1e-3, 0.5e-3, 32, 1024, 64 << 10);
      chk.expect(flat_fit.beta == 0 && std::abs(flat_fit.alpha - 1e-3 / 31) < 1e-15,
                 "never a negative beta");
      chk.expect(node_exchange_line(1e-3, 2e-3, 1, 1024, 64 << 10).alpha == 0 &&
                     node_exchange_line(0, 2e-3, 32, 1024, 64 << 10).beta == 0 &&
                     node_exchange_line(1e-3, 2e-3, 32, 1024, 1024).alpha == 0,
                 "nothing to tell");
      MPI_Comm_free(&dup);
    }
    status = chk.finish();
  }
  MPI_Finalize();
  return status;
}
