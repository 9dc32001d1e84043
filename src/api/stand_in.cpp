#include "api/stand_in.hpp"
#include "error/hot_path.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

namespace papcoll {

PAPCOLL_HOT StandInBuffer::~StandInBuffer() {
  if (!abandoned_) delete[] mem_;
}

void* StandInBuffer::elements(const DatatypeLayout& layout, int64_t n) {
  const int64_t bytes = std::max<int64_t>(1, layout.temp_bytes(n));
  if (!abandoned_) delete[] mem_;
  abandoned_ = false;
  mem_ = new char[static_cast<size_t>(bytes)]();
  return mem_ - layout.true_lb;
}

namespace {

template <typename T>
bool integer_identity(MPI_Op op, T* out) {
  if (op == MPI_SUM || op == MPI_BOR || op == MPI_BXOR || op == MPI_LOR || op == MPI_LXOR)
    *out = 0;
  else if (op == MPI_PROD || op == MPI_LAND)
    *out = 1;
  else if (op == MPI_MAX)
    *out = std::numeric_limits<T>::lowest();
  else if (op == MPI_MIN)
    *out = std::numeric_limits<T>::max();
  else if (op == MPI_BAND)
    *out = static_cast<T>(~T{0});
  else
    return false;
  return true;
}

template <typename T>
bool float_identity(MPI_Op op, T* out) {
  if (op == MPI_SUM)
    *out = -T{0};  // x + -0 is x for every x, -0 included
  else if (op == MPI_PROD)
    *out = T{1};
  else if (op == MPI_MAX)
    *out = -std::numeric_limits<T>::infinity();
  else if (op == MPI_MIN)
    *out = std::numeric_limits<T>::infinity();
  else
    return false;
  return true;
}

template <typename T, bool kFloat>
bool unit_identity(MPI_Op op, std::vector<char>* bytes) {
  T v{};
  bool ok;
  if constexpr (kFloat)
    ok = float_identity(op, &v);
  else
    ok = integer_identity(op, &v);
  if (!ok) return false;
  bytes->resize(sizeof v);
  std::memcpy(bytes->data(), &v, sizeof v);
  return true;
}

bool bool_identity(MPI_Op op, std::vector<char>* bytes) {
  bool v;
  if (op == MPI_LAND)
    v = true;
  else if (op == MPI_LOR || op == MPI_LXOR)
    v = false;
  else
    return false;
  bytes->resize(sizeof v);
  std::memcpy(bytes->data(), &v, sizeof v);
  return true;
}

// The identity of `op` on one element of the predefined type `t`, as bytes.
bool identity_bytes(MPI_Datatype t, MPI_Op op, std::vector<char>* bytes) {
#define PAPCOLL_INT(mpi, c) \
  if (t == mpi) return unit_identity<c, false>(op, bytes);
#define PAPCOLL_FLOAT(mpi, c) \
  if (t == mpi) return unit_identity<c, true>(op, bytes);
  PAPCOLL_INT(MPI_INT, int)
  PAPCOLL_INT(MPI_UNSIGNED, unsigned)
  PAPCOLL_INT(MPI_LONG, long)
  PAPCOLL_INT(MPI_UNSIGNED_LONG, unsigned long)
  PAPCOLL_INT(MPI_LONG_LONG, long long)
  PAPCOLL_INT(MPI_UNSIGNED_LONG_LONG, unsigned long long)
  PAPCOLL_INT(MPI_SHORT, short)
  PAPCOLL_INT(MPI_UNSIGNED_SHORT, unsigned short)
  PAPCOLL_INT(MPI_SIGNED_CHAR, signed char)
  PAPCOLL_INT(MPI_UNSIGNED_CHAR, unsigned char)
  PAPCOLL_INT(MPI_BYTE, unsigned char)
  PAPCOLL_INT(MPI_INT8_T, std::int8_t)
  PAPCOLL_INT(MPI_INT16_T, std::int16_t)
  PAPCOLL_INT(MPI_INT32_T, std::int32_t)
  PAPCOLL_INT(MPI_INT64_T, std::int64_t)
  PAPCOLL_INT(MPI_UINT8_T, std::uint8_t)
  PAPCOLL_INT(MPI_UINT16_T, std::uint16_t)
  PAPCOLL_INT(MPI_UINT32_T, std::uint32_t)
  PAPCOLL_INT(MPI_UINT64_T, std::uint64_t)
  PAPCOLL_INT(MPI_AINT, MPI_Aint)
  PAPCOLL_INT(MPI_OFFSET, MPI_Offset)
  PAPCOLL_INT(MPI_COUNT, MPI_Count)
  PAPCOLL_FLOAT(MPI_FLOAT, float)
  PAPCOLL_FLOAT(MPI_DOUBLE, double)
  PAPCOLL_FLOAT(MPI_LONG_DOUBLE, long double)
#undef PAPCOLL_INT
#undef PAPCOLL_FLOAT
  if (t == MPI_C_BOOL) return bool_identity(op, bytes);
  return false;
}

}  // namespace

bool fill_identity(void* buf, int64_t n, const DatatypeLayout& layout, MPI_Op op) {
  if (n <= 0 || layout.size == 0) return true;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  if (!single_basic_type(layout.type, &basic).ok() || basic == MPI_DATATYPE_NULL) return false;
  std::vector<char> one;
  if (!identity_bytes(basic, op, &one)) return false;
  int basic_size = 0;
  if (MPI_Type_size(basic, &basic_size) != MPI_SUCCESS ||
      basic_size != static_cast<int>(one.size()) || layout.size % basic_size != 0)
    return false;
  // The packed form of n elements is n * size bytes of basic elements, one after the other.
  const int64_t units = n * (layout.size / basic_size);
  std::vector<char> packed(static_cast<size_t>(units) * one.size());
  for (int64_t u = 0; u < units; ++u)
    std::memcpy(packed.data() + u * basic_size, one.data(), one.size());
  return unpack_elements(buf, packed.data(), n, layout, MPI_COMM_SELF).ok();
}

}  // namespace papcoll
