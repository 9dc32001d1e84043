#include "schedule/clairvoyant/bit_column_tree.hpp"

#include <stdexcept>

namespace papcoll::clairvoyant {

BitColumnTree::BitColumnTree(int leaves, int bits) : leaves_(leaves), stride_(stride_words(bits)) {
  if (leaves < 1 || bits < 1) throw std::invalid_argument("BitColumnTree: empty");
  while (m_ < leaves) m_ *= 2;
  // Seven spare words so that node 0 can start on a 64-byte boundary.
  storage_.assign(2 * static_cast<size_t>(m_) * static_cast<size_t>(stride_) + 7, 0);
  const uintptr_t addr = reinterpret_cast<uintptr_t>(storage_.data());
  base_ = storage_.data() + ((64 - addr % 64) % 64) / sizeof(uint64_t);
  cur_.assign(static_cast<size_t>(m_), 0);
}

}  // namespace papcoll::clairvoyant
