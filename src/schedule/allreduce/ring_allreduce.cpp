// Ring all-reduce (Thakur, Rabenseifner, Gropp 2005): p-1 rounds of reduce-scatter, then p-1 rounds
// of allgather, rank r always sending to r+1. The B blocks are dealt to p chunks; with B < p some
// chunks are empty and their messages vanish. Rank r's part: in reduce-scatter round h it sends
// chunk r-h and receives chunk r-1-h (what r-1 sends); after it, r holds chunk r+1 complete, and in
// allgather round h it sends chunk r+1-h and receives chunk r-h.
#include "schedule/allreduce_generators.hpp"
#include "schedule/estimate.hpp"

namespace papcoll {

void ring_allreduce_schedule(const GeneratorInput& in, ScheduleSink& out) {
  const int p = in.p;
  if (p == 1) return;
  auto chunk = [&](int j) { return chunk_blocks(in.blocks, p, ((j % p) + p) % p); };
  for (int r = out.first_rank(); r < out.last_rank(); ++r) {
    const int next = (r + 1) % p, prev = (r + p - 1) % p;
    out.reserve(r, 4 * static_cast<size_t>(p - 1));
    for (int h = 0; h + 1 < p; ++h) {
      out.send(r, h, next, chunk(r - h));
      out.recv(r, h, prev, chunk(r - 1 - h), Combine::reduce);
    }
    for (int h = 0; h + 1 < p; ++h) {
      out.send(r, p - 1 + h, next, chunk(r + 1 - h));
      out.recv(r, p - 1 + h, prev, chunk(r - h), Combine::copy);
    }
  }
}

// Every rank finishes p - 1 reduce-scatter steps (a chunk sent, received, reduced) and p - 1
// all-gather steps after the last arrival: each step waits for the neighbour's previous one, so
// after p - 1 steps every rank has waited for every other (estimate.hpp).
double ring_allreduce_predict(const GeneratorInput& in) {
  const int p = in.p;
  if (p == 1) return 0;
  const double chunk =
      estimate::blocks_bytes(in, std::max(1.0, static_cast<double>(in.blocks) / p));
  const CostParams& c = in.cost;
  return estimate::all_finish_after_last(in,
                                         (p - 1) * (2 * c.alpha + (2 * c.beta + c.gamma) * chunk));
}

}  // namespace papcoll
