// Clairvoyant reduce (Marendic et al. 2016, as fixed and improved by Proficz & Ocetkiewicz,
// "Improving Clairvoyant", J. Supercomput. 2021; "the paper" below). Given every process's arrival
// time a_i, the round time d, the root and N segments, the generator simulates the greedy
// algorithm and emits every transfer (round, sender, receiver, segment).
//
// Three implementations produce the identical transfer list on every input (tests check it):
//   linear   Listing 2 with the fixes of Sect. 4 (bounded inner loop, guarded updates, round
//            numbers in the queues, the extra state P' of 4.2, a deterministic queue);
//   pairing  the same with one boost::heap::pairing_heap per segment for the peer search, as the
//            original authors proposed (kept for comparison, Sect. 4.1 / 5.7);
//   segtree  Listing 8 with every improvement of Sect. 5: idle-round skipping (5.1), the active set
//            by merge-and-clean (5.2, Listing 6), one bit per state (5.3), the segment tree over
//            bit-packed columns (5.4, Listings 3-5, 7) in the doubled index space ordered by
//            fractional arrival times (5.4.3), batch rebuild (5.4.4) and the pseudo-root (5.6).
//
// The exact rules all three share (where the listings are ambiguous, docs/algorithms.md says why):
//  * Time: a_i = k_i * d + f_i with integer k_i and 0 <= f_i < d (clock.hpp); a process's
//    availability is (k, f), advancing k by one per round it takes part in. Comparisons are exact.
//  * Round: G = the not-yet-finished processes whose availability is < head + d (strict, as in
//    Listing 6), ordered by availability, ties by rank; the head is the earliest.
//  * Sink: the root if it is in G (processed first: the pseudo-root of Listing 8), else the head.
//  * Receivers are processed in that order; receiver i takes the lexicographically smallest
//    (segment s, peer z): z != i in G, z has not sent this round, z holds s in state A/P (not P'),
//    and i holds s in A/P -- or, for the sink, in any state but P'. Peers are ordered by G order,
//    the root at its own place (Listing 8 keeps the root's leaf where it is).
//  * A transfer sets z's cell to E and i's to P' (P again after the round). A receiver whose cell
//    was E (only the sink) overwrites instead of reducing (ClvTransfer::copy).
//  * The run ends when every process but the root has all cells in E.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "schedule/schedule.hpp"
#include "schedule/schedule_sink.hpp"

namespace papcoll {

struct GeneratorInput;

namespace clairvoyant {

struct Instance {
  int p = 1;
  int segments = 1;  // N
  int root = 0;
  std::vector<double> arrivals;  // one per process (any unit, the same as round_time); empty: all 0
  double round_time = 1;         // d > 0
};

// 12 bytes: about P*N of them are written per run (6 MB at P = N = 512), and writing (and
// first touching) that memory was a fifth of segtree's time. The round is kept per round, not per
// transfer (Result::round_starts).
struct Transfer {
  int from = 0;  // the peer z that sends
  int to = 0;    // the receiver i
  uint32_t segment : 31 = 0;
  uint32_t copy : 1 = 0;  // receiver held the segment in state E: overwrite, do not reduce
  bool operator==(const Transfer&) const = default;
};
static_assert(sizeof(Transfer) == 12);

// Transfers from index `first` on (up to the next RoundStart) happen in round `round`.
struct RoundStart {
  int64_t round = 0;  // the algorithm's round number, idle rounds included
  size_t first = 0;
  bool operator==(const RoundStart&) const = default;
};

struct Result {
  // Every transfer in generation order: ascending round, then the round's receiver order. Rank r's
  // input queue I(r) is the sublist with to == r, its output queue O(r) the one with from == r.
  std::vector<Transfer> transfers;
  std::vector<RoundStart> round_starts;  // ascending rounds, one per round with a transfer
  void add(int64_t round, int from, int to, int segment, bool copy) {
    if (round_starts.empty() || round_starts.back().round != round)
      round_starts.push_back({round, transfers.size()});
    transfers.push_back({from, to, static_cast<uint32_t>(segment), copy});
  }
  int64_t round_of(size_t transfer) const;  // the round of transfers[transfer]
  // The same transfers in the same rounds.
  bool same_transfers(const Result& o) const {
    return transfers == o.transfers && round_starts == o.round_starts;
  }
  int64_t rounds = 0;       // number of rounds simulated (last round + 1)
  int64_t busy_rounds = 0;  // rounds with at least two processes in G
  int64_t searches = 0;     // peer searches in those rounds (the sum of |G|)
  double state_bits = 0;    // bits of per-(process, segment) state the implementation allocates
};

enum class Impl { linear, pairing, segtree };

const char* impl_name(Impl i);
bool parse_impl(std::string_view s, Impl* out);

// Throws std::invalid_argument on p < 1, segments < 1, a root out of range, a round time that is
// not positive and finite, non-finite arrivals or a wrong number of them.
Result run_linear(const Instance& in);
Result run_pairing(const Instance& in);
Result run_segtree(const Instance& in);
Result run(Impl impl, const Instance& in);

// The implementation used when none is asked for: the fastest for the instance
// (docs/algorithms.md).
Impl default_impl(const Instance& in);

// The transfers as the steps of a papcoll reduce schedule (one block per segment), for the ranks
// `out` asks for. Rounds are renumbered 0, 1, 2, ... over the rounds that hold a transfer, keeping
// their order.
void emit_schedule(const Result& r, ScheduleSink& out);
// The whole schedule.
Schedule to_schedule(const Instance& in, const Result& r);

// Registry entry: Instance from GeneratorInput (d = in.round_time, or block_round_time(in) when
// that is not positive; root -1 means 0), implementation from in.impl (empty: default_impl).
void generate(const GeneratorInput& in, ScheduleSink& out);
Instance instance_of(const GeneratorInput& in);
// The arrivals as the simulation reads them: each process's whole rounds k0 and the rank of its
// fractional time (clock.hpp), as bytes.
std::string arrival_key(const GeneratorInput& in);

}  // namespace clairvoyant
}  // namespace papcoll
