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

// A predefined type's layout is read from MPI once per thread and kept (its handle never
// changes): every call checks its datatype, and the three queries cost a few microseconds where
// an MPI call is dear (SMPI charges the code between two calls).
MpiStatus query_layout(MPI_Datatype type, DatatypeLayout* out);

// Whether the bytes MPI touches for na elements of la at a and nb elements of lb at b overlap
// (aliased buffers: MPI forbids them unless one is MPI_IN_PLACE).
inline bool spans_overlap(const void* a, int64_t na, const DatatypeLayout& la, const void* b,
                          int64_t nb, const DatatypeLayout& lb) {
  if (a == nullptr || b == nullptr || na <= 0 || nb <= 0 || la.size == 0 || lb.size == 0)
    return false;
  const char* lo_a = static_cast<const char*>(a) + la.true_lb;
  const char* lo_b = static_cast<const char*>(b) + lb.true_lb;
  return lo_a < lo_b + lb.temp_bytes(nb) && lo_b < lo_a + la.temp_bytes(na);
}

// MPI_BYTE: the unit of the copy-only collectives' byte views (DataView).
const DatatypeLayout& byte_layout();

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

// How a schedule sees a call's data. MPI lets ranks describe the same data differently (the root
// sends (n, MPI_INT), the others receive (1, contiguous(n, MPI_INT))) as long as the type
// signatures match, so a block split must be made in units every rank agrees on, or ranks build
// different schedules. `units` elements of `unit` hold the data:
//  - the copy-only collectives (bcast, allgatherv): bytes (MPI_BYTE), units = count * size;
//  - the reductions with a predefined op on a type whose type map has one predefined, dense type
//    (MPI_INT, contiguous(4, MPI_INT), a vector of MPI_DOUBLE, ...): that type;
//  - anything else (user ops, mixed structs, MPI_DOUBLE_INT): the caller's own type and count,
//    which MPI requires to be the same on every rank of a reduction.
// `direct`: the caller's buffer is an array of `units` units as it is (dense layout), so the
// schedule may run on it; else the data is packed into scratch first and unpacked afterwards
// (pack_elements / unpack_elements with the caller's layout).
struct DataView {
  DatatypeLayout unit;
  int64_t units = 0;
  bool direct = true;
};

DataView byte_view(const DatatypeLayout& layout, int64_t count);
MpiStatus reduction_view(const DatatypeLayout& layout, int64_t count, MPI_Op op, DataView* out);

// Whether `t` is a predefined (named) type, remembering the last one seen: its elements are the
// units as they are, and the hot path (8-byte all-reduces) then skips the type decoding. Only
// named types are remembered: their handles are static objects that no derived type can reuse.
bool predefined_type(MPI_Datatype t);

// The one predefined type every basic element of `type` has, or MPI_DATATYPE_NULL when there are
// several (or none). Walks the type's constructors (MPI_Type_get_contents).
MpiStatus single_basic_type(MPI_Datatype type, MPI_Datatype* out);

// A predefined reduction op (MPI_SUM ... MPI_NO_OP), not one of MPI_Op_create.
bool is_predefined_op(MPI_Op op);

// One of the twelve predefined reduction ops (MPI_MAX ... MPI_MINLOC), which MPI defines as
// commutative (MPI 4.0, 6.9.2): no MPI_Op_commutative query needed.
bool commutative_predefined_op(MPI_Op op);

// A hash of a type signature (the sequence of basic types, displacements ignored) that is the
// same for every description of the same sequence: (n, MPI_INT) and (1, contiguous(n, MPI_INT))
// hash alike. Polynomial over the basic types' names, so it composes over concatenation and
// repetition without expanding the sequence. For PAPCOLL_CHECK (api/call_check.hpp).
struct SignatureHash {
  uint64_t hash = 0;
  uint64_t power = 1;   // base^length, to concatenate
  uint64_t length = 0;  // basic elements
};
MpiStatus signature_hash(MPI_Datatype type, SignatureHash* out);
SignatureHash repeat_signature(const SignatureHash& s, uint64_t times);

}  // namespace papcoll
