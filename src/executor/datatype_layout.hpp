// Memory layout of an MPI datatype as the executor needs it: element i of a buffer starts at byte
// i*extent, and a temporary buffer only has to cover the bytes MPI actually touches (true extent),
// which differ from extent for resized or padded types (MPI_DOUBLE_INT, user structs).
#pragma once

#include <mpi.h>

#include <cstdint>

#include "executor/mpi_status.hpp"

namespace papcoll {

struct DatatypeLayout {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Aint extent = 0;
  MPI_Aint true_lb = 0;
  MPI_Aint true_extent = 0;
  int size = 0;  // bytes of data per element
  // Element bytes are exactly [i*extent, (i+1)*extent): a run of elements can be moved with memcpy
  // without touching holes the user may not want written.
  bool dense = false;

  // Address of element i of the buffer that starts at `base` (MPI's buffer address).
  char* at(void* base, int64_t i) const { return static_cast<char*>(base) + i * extent; }
  const char* at(const void* base, int64_t i) const {
    return static_cast<const char*>(base) + i * extent;
  }
  // Bytes a temporary buffer of n elements needs.
  int64_t temp_bytes(int64_t n) const { return n <= 0 ? 0 : (n - 1) * extent + true_extent; }
};

MpiStatus query_layout(MPI_Datatype type, DatatypeLayout* out);

// Copies n elements from src to dst (both MPI buffer addresses). Dense types use memcpy; others
// go through MPI_Pack/MPI_Unpack so holes in dst stay untouched. `comm` only supplies the error
// handler and is otherwise irrelevant.
MpiStatus copy_elements(void* dst, const void* src, int64_t n, const DatatypeLayout& layout,
                        MPI_Comm comm);

// Packs n elements at `src` (an MPI buffer address) into exactly n * size bytes at `packed`, and
// back: the form the shared-memory window stores (shared_window.hpp). Dense types are a memcpy.
// Fails with MPI_ERR_TYPE if MPI's packed form of the type is not n * size bytes.
MpiStatus pack_elements(char* packed, const void* src, int64_t n, const DatatypeLayout& layout,
                        MPI_Comm comm);
MpiStatus unpack_elements(void* dst, const char* packed, int64_t n, const DatatypeLayout& layout,
                          MPI_Comm comm);

}  // namespace papcoll
