#include "api/call_check.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "error/error.hpp"
#include "executor/datatype_layout.hpp"

namespace papcoll {

const bool g_check_mode = [] {
  const char* v = std::getenv("PAPCOLL_CHECK");
  return v != nullptr && std::strcmp(v, "1") == 0;
}();

namespace {

// The descriptor as it travels: fixed size, so the check is one MPI_Allgather.
enum Field {
  kVerdict,
  kCollective,
  kRoot,
  kOp,
  kCount,
  kElementHash,
  kElementSize,
  kWholeHash,
  kWholeLength,
  kPortionsHash,
  kAlgorithmName,                      // kNameWords words of the algorithm's name
  kTypeName = kAlgorithmName + 3,      // kNameWords words of the datatype's name
  kFields = kTypeName + 3
};
constexpr size_t kNameBytes = 3 * sizeof(std::int64_t) - 1;

const MPI_Op* predefined_ops(size_t* n) {
  static const MPI_Op ops[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,    MPI_PROD,   MPI_LAND,
                               MPI_BAND, MPI_LOR,  MPI_BOR,    MPI_LXOR,   MPI_BXOR,
                               MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
  *n = sizeof ops / sizeof ops[0];
  return ops;
}
const char* const kOpNames[] = {"MPI_MAX",  "MPI_MIN",  "MPI_SUM",    "MPI_PROD",   "MPI_LAND",
                                "MPI_BAND", "MPI_LOR",  "MPI_BOR",    "MPI_LXOR",   "MPI_BXOR",
                                "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"};
constexpr std::int64_t kUserOp = 100;

// Handles of predefined ops may differ between processes; their index in the list does not.
std::int64_t op_id(MPI_Op op) {
  if (op == MPI_OP_NULL) return -1;
  size_t n = 0;
  const MPI_Op* ops = predefined_ops(&n);
  for (size_t i = 0; i < n; ++i)
    if (ops[i] == op) return static_cast<std::int64_t>(i) + 1;
  return kUserOp;
}

std::string op_name(std::int64_t id) {
  if (id == -1) return "MPI_OP_NULL";
  if (id == kUserOp) return "a user-defined op";
  if (id >= 1 && id <= 14) return kOpNames[id - 1];
  return "none";
}

const char* collective_name(std::int64_t c) {
  static const char* names[] = {"papcoll_allreduce", "papcoll_reduce",   "papcoll_bcast",
                                "papcoll_allgatherv", "papcoll_scatterv", "papcoll_gatherv"};
  return c >= 0 && c < 6 ? names[c] : "?";
}

void put_name(std::int64_t* words, const char* name) {
  char text[kNameBytes + 1] = {0};
  std::memcpy(text, name, std::min(std::strlen(name), kNameBytes));  // cut, still terminated
  std::memcpy(words, text, sizeof text);
}

std::string get_name(const std::int64_t* words) {
  char text[kNameBytes + 1];
  std::memcpy(text, words, sizeof text);
  text[kNameBytes] = 0;
  return text;
}

std::string type_text(const std::int64_t* d) {
  const std::string name = get_name(d + kTypeName);
  if (!name.empty()) return name;
  return "a derived datatype of " + std::to_string(d[kElementSize]) + " bytes";
}

int encode(const CollectiveCall& call, const CallDescriptor& in, int verdict,
           std::array<std::int64_t, kFields>* out) {
  std::array<std::int64_t, kFields>& d = *out;
  d.fill(0);
  d[kVerdict] = verdict;
  d[kCollective] = static_cast<std::int64_t>(call.collective());
  d[kRoot] = in.root;
  d[kOp] = in.has_op ? op_id(in.op) : 0;
  d[kCount] = -1;
  d[kPortionsHash] = static_cast<std::int64_t>(in.portions_hash);
  put_name(&d[kAlgorithmName], call.options().algorithm != nullptr ? call.options().algorithm
                                                                     : "auto");
  if (verdict != PAPCOLL_SUCCESS || in.count < 0 || in.type == MPI_DATATYPE_NULL)
    return PAPCOLL_SUCCESS;
  SignatureHash element;
  if (MpiStatus s = signature_hash(in.type, &element); !s.ok()) return call.mpi_error(s);
  const SignatureHash whole = repeat_signature(element, static_cast<std::uint64_t>(in.count));
  int size = 0;
  if (int rc = MPI_Type_size(in.type, &size); rc != MPI_SUCCESS)
    return call.mpi_error({rc, "MPI_Type_size"});
  d[kCount] = in.count;
  d[kElementHash] = static_cast<std::int64_t>(element.hash ^ (element.length << 40));
  d[kElementSize] = size;
  d[kWholeHash] = static_cast<std::int64_t>(whole.hash);
  d[kWholeLength] = static_cast<std::int64_t>(whole.length);
  char name[MPI_MAX_OBJECT_NAME] = {0};
  int len = 0;
  if (MPI_Type_get_name(in.type, name, &len) == MPI_SUCCESS) put_name(&d[kTypeName], name);
  return PAPCOLL_SUCCESS;
}

// The first difference from rank 0, field by field: "" when every rank agrees.
std::string first_mismatch(const std::vector<std::int64_t>& all, int p, const char* count_name) {
  auto at = [&](int r) { return &all[static_cast<size_t>(r) * kFields]; };
  const std::int64_t* z = at(0);
  auto ranks = [](int r, const std::string& a, const std::string& b) {
    return ": rank 0 has " + a + ", rank " + std::to_string(r) + " has " + b;
  };
  for (int r = 1; r < p; ++r)
    if (at(r)[kCollective] != z[kCollective])
      return std::string("operation differs: rank 0 calls ") + collective_name(z[kCollective]) +
             ", rank " + std::to_string(r) + " calls " + collective_name(at(r)[kCollective]);
  for (int r = 1; r < p; ++r)
    if (at(r)[kRoot] != z[kRoot])
      return "root differs" + ranks(r, std::to_string(z[kRoot]), std::to_string(at(r)[kRoot]));
  for (int r = 1; r < p; ++r)
    if (get_name(at(r) + kAlgorithmName) != get_name(z + kAlgorithmName))
      return "algorithm differs" + ranks(r, "'" + get_name(z + kAlgorithmName) + "'",
                                         "'" + get_name(at(r) + kAlgorithmName) + "'");
  for (int r = 1; r < p; ++r)
    if (at(r)[kOp] != z[kOp])
      return "op differs" + ranks(r, op_name(z[kOp]), op_name(at(r)[kOp]));
  for (int r = 1; r < p; ++r) {
    const std::int64_t* d = at(r);
    if ((d[kCount] < 0) != (z[kCount] < 0)) return "count differs (one side has none)";
    if (z[kCount] < 0) continue;
    // Different descriptions of the same type signature are fine (MPI allows them).
    if (d[kWholeHash] == z[kWholeHash] && d[kWholeLength] == z[kWholeLength]) continue;
    if (d[kElementHash] == z[kElementHash])
      return std::string(count_name) + " differs" +
             ranks(r, std::to_string(z[kCount]), std::to_string(d[kCount]));
    return "datatype differs" + ranks(r, type_text(z) + " (count " + std::to_string(z[kCount]) +
                                             ")",
                                      type_text(d) + " (count " + std::to_string(d[kCount]) + ")");
  }
  for (int r = 1; r < p; ++r)
    if (at(r)[kPortionsHash] != z[kPortionsHash])
      return "recvcounts[o] * size(recvtype) differ for some portion o between rank 0 and rank " +
             std::to_string(r);
  return "";
}

}  // namespace

unsigned long long hash_sizes(const long long* sizes, int n) {
  std::uint64_t h = 1469598103934665603ULL;
  for (int i = 0; i < n; ++i) {
    h ^= static_cast<std::uint64_t>(sizes[i]);
    h *= 1099511628211ULL;
  }
  return h;
}

int check_call(CollectiveCall& call, MPI_Comm comm, const CallDescriptor& d, int verdict) {
  // The own refusal's message must survive the exchange.
  const std::string own_message = verdict != PAPCOLL_SUCCESS ? papcoll_last_error() : "";
  PAPCOLL_TRY(call.open_context(comm, /*settle_network=*/false));
  std::array<std::int64_t, kFields> mine;
  PAPCOLL_TRY(encode(call, d, verdict, &mine));
  const int p = call.p();
  std::vector<std::int64_t> all(static_cast<size_t>(p) * kFields);
  if (int rc = MPI_Allgather(mine.data(), kFields, MPI_INT64_T, all.data(), kFields, MPI_INT64_T,
                             call.context().comm);
      rc != MPI_SUCCESS)
    return call.mpi_error({rc, "MPI_Allgather"});
  if (verdict != PAPCOLL_SUCCESS) return fail_local(verdict, own_message);
  const std::string who = std::string(call.who()) + ": PAPCOLL_CHECK: ";
  for (int r = 0; r < p; ++r) {
    const std::int64_t code = all[static_cast<size_t>(r) * kFields + kVerdict];
    if (code != PAPCOLL_SUCCESS)
      return fail_local(static_cast<int>(code),
                        who + "rank " + std::to_string(r) + " refused the call (" +
                            papcoll_error_string(static_cast<int>(code)) +
                            "; its papcoll_last_error() says why)");
  }
  // An agreed refusal, but the call must not be handed to the MPI library either (the
  // interposition library would): the arguments are inconsistent. Hence fail_local.
  const std::string what = first_mismatch(all, p, d.count_name);
  if (!what.empty()) return fail_local(PAPCOLL_ERR_ARG, who + what);
  return PAPCOLL_SUCCESS;
}

}  // namespace papcoll
