#include "model/pair_rounds.hpp"

#include <algorithm>

namespace papcoll {

std::vector<std::vector<std::pair<int, int>>> round_robin_rounds(int p) {
  std::vector<std::vector<std::pair<int, int>>> rounds;
  if (p < 2) return rounds;
  // n players on a circle of n - 1 seats plus one fixed seat; with odd p the fixed player is a
  // dummy, and whoever meets it sits out.
  const int n = p % 2 == 0 ? p : p + 1;
  const int circle = n - 1;
  for (int r = 0; r < circle; ++r) {
    std::vector<std::pair<int, int>> round;
    auto meet = [&](int a, int b) {
      if (a >= p || b >= p) return;  // the dummy
      round.emplace_back(std::min(a, b), std::max(a, b));
    };
    meet(r, n - 1);
    for (int k = 1; k < n / 2; ++k) meet((r + k) % circle, (r - k + circle) % circle);
    std::sort(round.begin(), round.end());
    rounds.push_back(std::move(round));
  }
  return rounds;
}

}  // namespace papcoll
