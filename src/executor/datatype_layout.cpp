#include "executor/datatype_layout.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

namespace papcoll {

MpiStatus query_layout(MPI_Datatype type, DatatypeLayout* out) {
  DatatypeLayout l;
  l.type = type;
  MPI_Aint lb = 0;
  PAPCOLL_MPI_TRY(MPI_Type_get_extent(type, &lb, &l.extent), "MPI_Type_get_extent");
  PAPCOLL_MPI_TRY(MPI_Type_get_true_extent(type, &l.true_lb, &l.true_extent),
                  "MPI_Type_get_true_extent");
  PAPCOLL_MPI_TRY(MPI_Type_size(type, &l.size), "MPI_Type_size");
  l.dense = lb == 0 && l.true_lb == 0 && l.extent == l.true_extent && l.extent == l.size;
  *out = l;
  return {};
}

MpiStatus copy_elements(void* dst, const void* src, int64_t n, const DatatypeLayout& layout,
                        MPI_Comm comm) {
  if (n <= 0 || dst == src) return {};
  if (layout.dense) {
    std::memcpy(dst, src, static_cast<size_t>(n * layout.extent));
    return {};
  }
  // Bounded chunks keep the pack buffer small and its size within int.
  const int64_t chunk = std::max<int64_t>(1, (int64_t{1} << 24) / std::max(layout.size, 1));
  int pack_bytes = 0;
  PAPCOLL_MPI_TRY(MPI_Pack_size(static_cast<int>(std::min(chunk, n)), layout.type, comm,
                                &pack_bytes),
                  "MPI_Pack_size");
  std::unique_ptr<char[]> packed(new char[static_cast<size_t>(std::max(pack_bytes, 1))]);
  for (int64_t done = 0; done < n; done += chunk) {
    const int m = static_cast<int>(std::min(chunk, n - done));
    int pos = 0;
    PAPCOLL_MPI_TRY(MPI_Pack(layout.at(src, done), m, layout.type, packed.get(), pack_bytes, &pos,
                             comm),
                    "MPI_Pack");
    int upos = 0;
    PAPCOLL_MPI_TRY(MPI_Unpack(packed.get(), pack_bytes, &upos, layout.at(dst, done), m,
                               layout.type, comm),
                    "MPI_Unpack");
  }
  return {};
}

namespace {

// Elements per MPI_Pack/MPI_Unpack call: their sizes and positions are ints.
int64_t pack_chunk(const DatatypeLayout& layout) {
  return std::max<int64_t>(1, (int64_t{1} << 28) / std::max(layout.size, 1));
}

}  // namespace

MpiStatus pack_elements(char* packed, const void* src, int64_t n, const DatatypeLayout& layout,
                        MPI_Comm comm) {
  if (n <= 0) return {};
  if (layout.dense) {
    std::memcpy(packed, src, static_cast<size_t>(n * layout.size));
    return {};
  }
  const int64_t chunk = pack_chunk(layout);
  for (int64_t done = 0; done < n; done += chunk) {
    const int m = static_cast<int>(std::min(chunk, n - done));
    const int bytes = m * layout.size;
    int pos = 0;
    PAPCOLL_MPI_TRY(MPI_Pack(layout.at(src, done), m, layout.type, packed + done * layout.size,
                             bytes, &pos, comm),
                    "MPI_Pack");
    if (pos != bytes) return {MPI_ERR_TYPE, "MPI_Pack"};
  }
  return {};
}

MpiStatus unpack_elements(void* dst, const char* packed, int64_t n, const DatatypeLayout& layout,
                          MPI_Comm comm) {
  if (n <= 0) return {};
  if (layout.dense) {
    std::memcpy(dst, packed, static_cast<size_t>(n * layout.size));
    return {};
  }
  const int64_t chunk = pack_chunk(layout);
  for (int64_t done = 0; done < n; done += chunk) {
    const int m = static_cast<int>(std::min(chunk, n - done));
    int pos = 0;
    PAPCOLL_MPI_TRY(MPI_Unpack(packed + done * layout.size, m * layout.size, &pos,
                               layout.at(dst, done), m, layout.type, comm),
                    "MPI_Unpack");
  }
  return {};
}

}  // namespace papcoll
