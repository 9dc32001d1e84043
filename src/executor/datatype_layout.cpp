#include "executor/datatype_layout.hpp"
#include "error/hot_path.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

namespace papcoll {

namespace {

// The last predefined types this thread queried, round robin.
struct NamedLayouts {
  static constexpr int kSlots = 4;
  DatatypeLayout slot[kSlots];
  int next = 0;
};
thread_local NamedLayouts t_named;

}  // namespace

PAPCOLL_HOT MpiStatus query_layout(MPI_Datatype type, DatatypeLayout* out) {
  if (type != MPI_DATATYPE_NULL)
    for (const DatatypeLayout& kept : t_named.slot)
      if (kept.type == type) {
        *out = kept;
        return {};
      }
  DatatypeLayout l;
  l.type = type;
  MPI_Aint lb = 0;
  PAPCOLL_MPI_TRY(MPI_Type_get_extent(type, &lb, &l.extent), "MPI_Type_get_extent");
  PAPCOLL_MPI_TRY(MPI_Type_get_true_extent(type, &l.true_lb, &l.true_extent),
                  "MPI_Type_get_true_extent");
  PAPCOLL_MPI_TRY(MPI_Type_size(type, &l.size), "MPI_Type_size");
  l.dense = lb == 0 && l.true_lb == 0 && l.extent == l.true_extent && l.extent == l.size;
  *out = l;
  if (predefined_type(type)) {
    t_named.slot[t_named.next] = l;
    t_named.next = (t_named.next + 1) % NamedLayouts::kSlots;
  }
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

namespace papcoll {

const DatatypeLayout& byte_layout() {
  static const DatatypeLayout l = [] {
    DatatypeLayout b;
    b.type = MPI_BYTE;
    b.extent = b.true_extent = 1;
    b.size = 1;
    b.dense = true;
    return b;
  }();
  return l;
}

DataView byte_view(const DatatypeLayout& layout, int64_t count) {
  return DataView{byte_layout(), count * layout.size, layout.dense};
}

namespace {

// A derived type's constructor: its integers, addresses and component types. Component types
// that are themselves derived are freed with it (MPI_Type_get_contents returns new handles).
class Contents {
 public:
  MpiStatus read(MPI_Datatype type) {
    int ni = 0, na = 0, nt = 0;
    PAPCOLL_MPI_TRY(MPI_Type_get_envelope(type, &ni, &na, &nt, &combiner), "MPI_Type_get_envelope");
    if (combiner == MPI_COMBINER_NAMED) return {};
    ints.resize(static_cast<size_t>(ni));
    addrs.resize(static_cast<size_t>(na));
    types.resize(static_cast<size_t>(nt));
    PAPCOLL_MPI_TRY(MPI_Type_get_contents(type, ni, na, nt, ints.data(), addrs.data(),
                                          types.data()),
                    "MPI_Type_get_contents");
    return {};
  }
  ~Contents() {
    for (MPI_Datatype& t : types) {
      int ni = 0, na = 0, nt = 0, c = MPI_COMBINER_NAMED;
      if (MPI_Type_get_envelope(t, &ni, &na, &nt, &c) == MPI_SUCCESS && c != MPI_COMBINER_NAMED)
        MPI_Type_free(&t);
    }
  }
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> addrs;
  std::vector<MPI_Datatype> types;
};

constexpr uint64_t kMod = (uint64_t{1} << 61) - 1;  // a Mersenne prime
constexpr uint64_t kBase = 0x1F3D5B79A2C4E687ULL % kMod;

uint64_t mul_mod(uint64_t a, uint64_t b) {
  const unsigned __int128 x = static_cast<unsigned __int128>(a) * b;
  const uint64_t lo = static_cast<uint64_t>(x & kMod), hi = static_cast<uint64_t>(x >> 61);
  uint64_t r = lo + hi;
  if (r >= kMod) r -= kMod;
  return r;
}

SignatureHash concat(const SignatureHash& a, const SignatureHash& b) {
  uint64_t h = mul_mod(a.hash, b.power) + b.hash;
  if (h >= kMod) h -= kMod;
  return {h, mul_mod(a.power, b.power), a.length + b.length};
}

// A basic type's token: its name, which is the same in every process (handles may not be).
MpiStatus basic_token(MPI_Datatype type, SignatureHash* out) {
  char name[MPI_MAX_OBJECT_NAME] = {0};
  int len = 0;
  PAPCOLL_MPI_TRY(MPI_Type_get_name(type, name, &len), "MPI_Type_get_name");
  uint64_t h = 1469598103934665603ULL;  // FNV-1a of the name
  for (int i = 0; i < len; ++i) h = (h ^ static_cast<unsigned char>(name[i])) * 1099511628211ULL;
  int size = 0;
  PAPCOLL_MPI_TRY(MPI_Type_size(type, &size), "MPI_Type_size");
  if (len == 0) h ^= static_cast<uint64_t>(size) * 0x9E3779B97F4A7C15ULL;  // unnamed: its size
  *out = {h % kMod + 1 == kMod ? 1 : h % kMod + 1, kBase, 1};
  return {};
}

MpiStatus signature_of(MPI_Datatype type, int depth, SignatureHash* out) {
  if (depth > 64) return {MPI_ERR_TYPE, "MPI_Type_get_contents (nesting too deep)"};
  Contents c;
  if (MpiStatus s = c.read(type); !s.ok()) return s;
  if (c.combiner == MPI_COMBINER_NAMED) return basic_token(type, out);
  if (c.combiner == MPI_COMBINER_STRUCT) {
    SignatureHash all;
    for (size_t i = 0; i < c.types.size(); ++i) {
      SignatureHash field;
      if (MpiStatus s = signature_of(c.types[i], depth + 1, &field); !s.ok()) return s;
      all = concat(all, repeat_signature(field, static_cast<uint64_t>(std::max(c.ints[i + 1], 0))));
    }
    *out = all;
    return {};
  }
  if (c.types.size() != 1) return {MPI_ERR_TYPE, "MPI_Type_get_contents (unknown combiner)"};
  // Every other constructor repeats its one component type: size / size(component) times.
  int size = 0, old_size = 0;
  PAPCOLL_MPI_TRY(MPI_Type_size(type, &size), "MPI_Type_size");
  PAPCOLL_MPI_TRY(MPI_Type_size(c.types[0], &old_size), "MPI_Type_size");
  SignatureHash old;
  if (MpiStatus s = signature_of(c.types[0], depth + 1, &old); !s.ok()) return s;
  *out = old_size > 0 ? repeat_signature(old, static_cast<uint64_t>(size / old_size))
                      : SignatureHash{};
  return {};
}

MpiStatus basic_type_of(MPI_Datatype type, int depth, MPI_Datatype* out) {
  *out = MPI_DATATYPE_NULL;
  if (depth > 64) return {};
  Contents c;
  if (MpiStatus s = c.read(type); !s.ok()) return s;
  if (c.combiner == MPI_COMBINER_NAMED) {
    *out = type;
    return {};
  }
  MPI_Datatype found = MPI_DATATYPE_NULL;
  for (size_t i = 0; i < c.types.size(); ++i) {
    if (c.combiner == MPI_COMBINER_STRUCT && c.ints[i + 1] <= 0) continue;  // no elements
    MPI_Datatype b = MPI_DATATYPE_NULL;
    if (MpiStatus s = basic_type_of(c.types[i], depth + 1, &b); !s.ok()) return s;
    if (b == MPI_DATATYPE_NULL || (found != MPI_DATATYPE_NULL && b != found)) return {};
    found = b;
  }
  *out = found;
  return {};
}

}  // namespace

SignatureHash repeat_signature(const SignatureHash& s, uint64_t times) {
  SignatureHash result, square = s;
  for (; times > 0; times >>= 1) {
    if (times & 1) result = concat(result, square);
    square = concat(square, square);
  }
  return result;
}

MpiStatus signature_hash(MPI_Datatype type, SignatureHash* out) {
  return signature_of(type, 0, out);
}

MpiStatus single_basic_type(MPI_Datatype type, MPI_Datatype* out) {
  return basic_type_of(type, 0, out);
}

bool is_predefined_op(MPI_Op op) {
  for (MPI_Op o : {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR,
                   MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP})
    if (op == o) return true;
  return false;
}

PAPCOLL_HOT bool commutative_predefined_op(MPI_Op op) {
  for (MPI_Op o : {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR,
                   MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC})
    if (op == o) return true;
  return false;
}

PAPCOLL_HOT bool predefined_type(MPI_Datatype t) {
  static std::atomic<MPI_Datatype> last_named{MPI_DATATYPE_NULL};
  if (t == last_named.load(std::memory_order_relaxed)) return true;
  int ni = 0, na = 0, nt = 0, combiner = MPI_COMBINER_NAMED;
  if (MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner) != MPI_SUCCESS ||
      combiner != MPI_COMBINER_NAMED)
    return false;
  last_named.store(t, std::memory_order_relaxed);
  return true;
}

MpiStatus reduction_view(const DatatypeLayout& layout, int64_t count, MPI_Op op, DataView* out) {
  *out = DataView{layout, count, true};  // the caller's own elements
  if (!is_predefined_op(op) || layout.size == 0 || predefined_type(layout.type)) return {};
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  if (MpiStatus s = single_basic_type(layout.type, &basic); !s.ok()) return s;
  if (basic == MPI_DATATYPE_NULL) return {};
  if (basic == layout.type) return {};  // already a predefined type: its elements are the units
  DatatypeLayout unit;
  if (MpiStatus s = query_layout(basic, &unit); !s.ok()) return s;
  if (!unit.dense || layout.size % unit.size != 0) return {};
  *out = DataView{unit, count * (layout.size / unit.size), layout.dense};
  return {};
}

}  // namespace papcoll
