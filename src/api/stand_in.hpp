// Stand-in data for a rank that takes part in a call it has erred in (collective_driver.hpp): its
// buffer is NULL or aliased, but it still knows the call's message pattern, so it sends and
// receives with memory of its own instead, and its caller's buffers stay untouched. What it
// contributes (docs/errors.md): its own send data where that is readable, else for reductions the
// identity of the op (0 for MPI_SUM, 1 for MPI_PROD, the lowest value for MPI_MAX, ...), so the
// other ranks' results are those of the ranks that did not err, else zeros.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>

#include "executor/datatype_layout.hpp"

namespace papcoll {

class StandInBuffer {
 public:
  StandInBuffer() = default;
  StandInBuffer(const StandInBuffer&) = delete;
  StandInBuffer& operator=(const StandInBuffer&) = delete;
  ~StandInBuffer();
  // MPI buffer address of n zeroed elements of `layout` (never null).
  void* elements(const DatatypeLayout& layout, int64_t n);
  // After a failed run a receive may still be posted into it: never free it.
  void abandon() { abandoned_ = true; }
  bool in_use() const { return mem_ != nullptr; }

 private:
  char* mem_ = nullptr;
  bool abandoned_ = false;
};

// Writes the identity of `op` into n elements of `layout` at buf (an MPI buffer address). False
// when papcoll knows none: a user-defined op, MPI_MAXLOC/MPI_MINLOC, a type whose basic elements
// are not all of one integer, floating-point or boolean type.
bool fill_identity(void* buf, int64_t n, const DatatypeLayout& layout, MPI_Op op);

}  // namespace papcoll
