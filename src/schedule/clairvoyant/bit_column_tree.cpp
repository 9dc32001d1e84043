#include "schedule/clairvoyant/bit_column_tree.hpp"

#include <stdexcept>

namespace papcoll::clairvoyant {

BitColumnTree::BitColumnTree(int capacity, int bits)
    : capacity_(capacity), stride_(stride_words(bits)) {
  if (capacity < 1 || bits < 1) throw std::invalid_argument("BitColumnTree: empty");
  int m = 1;
  while (m < capacity) m *= 2;
  // Nodes 0..m-1 (node 0 unused), the zero column, and spare words so that node 0 can start on a
  // 128-byte boundary: no column straddles a cache line, and with 8-word columns a node and its
  // sibling differ in one address bit (bit_columns_avx2.cpp).
  const size_t stride = static_cast<size_t>(stride_);
  storage_.assign((static_cast<size_t>(m) + 1) * stride + kAlignSpare, 0);
  const uintptr_t addr = reinterpret_cast<uintptr_t>(storage_.data());
  base_ = storage_.data() + ((128 - addr % 128) % 128) / sizeof(uint64_t);
  zero_ = base_ + static_cast<size_t>(m) * stride;
  leaf_.assign(static_cast<size_t>(m), zero_);
  reset(capacity);
}

void BitColumnTree::reset(int leaves) {
  if (leaves < 1 || leaves > capacity_)
    throw std::invalid_argument("BitColumnTree: bad leaf count");
  leaves_ = leaves;
  m_ = 1;
  while (m_ < leaves) m_ *= 2;
}

}  // namespace papcoll::clairvoyant
