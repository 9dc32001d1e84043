#include "api/call_check.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "error/error.hpp"
#include "executor/datatype_layout.hpp"
#include "observe/disagreement.hpp"

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
  kAlgorithmName,                  // kNameWords words of the algorithm's name
  kTypeName = kAlgorithmName + 3,  // kNameWords words of the datatype's name
  kFields = kTypeName + 3
};
constexpr size_t kNameBytes = 3 * sizeof(std::int64_t) - 1;

const MPI_Op* predefined_ops(size_t* n) {
  static const MPI_Op ops[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                               MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                               MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
  *n = sizeof ops / sizeof ops[0];
  return ops;
}
const char* const kOpNames[] = {"MPI_MAX",    "MPI_MIN",    "MPI_SUM",     "MPI_PROD", "MPI_LAND",
                                "MPI_BAND",   "MPI_LOR",    "MPI_BOR",     "MPI_LXOR", "MPI_BXOR",
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
  static const char* names[] = {"papcoll_allreduce",  "papcoll_reduce",   "papcoll_bcast",
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
  put_name(&d[kAlgorithmName],
           call.options().algorithm != nullptr ? call.options().algorithm : "auto");
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

// "ranks 0-2 have X, rank 3 has Y": every rank with its value, grouped by value in the order the
// values first appear.
std::string groups(int p, const std::function<std::string(int)>& value) {
  std::vector<std::pair<std::string, std::vector<int>>> g;
  for (int r = 0; r < p; ++r) {
    const std::string v = value(r);
    auto it = g.begin();
    while (it != g.end() && it->first != v) ++it;
    if (it == g.end())
      g.push_back({v, {r}});
    else
      it->second.push_back(r);
  }
  if (g.size() < 2) return "";
  std::string out;
  for (size_t i = 0; i < g.size(); ++i)
    out += (i ? ", " : "") + observe::rank_list(g[i].second) +
           (g[i].second.size() == 1 ? " has " : " have ") + g[i].first;
  return out;
}

// The first field on which the ranks differ, with every rank's value: "" when they agree.
std::string first_mismatch(const std::vector<std::int64_t>& all, int p, const char* count_name) {
  auto at = [&](int r) { return &all[static_cast<size_t>(r) * kFields]; };
  std::string g =
      groups(p, [&](int r) { return std::string(collective_name(at(r)[kCollective])); });
  if (!g.empty()) {
    // "calls papcoll_bcast" reads better than "has" for the operation.
    for (const char* has : {" has ", " have "})
      for (size_t at_ = g.find(has); at_ != std::string::npos; at_ = g.find(has, at_ + 1))
        g.replace(at_, std::strlen(has), std::strcmp(has, " has ") == 0 ? " calls " : " call ");
    return "operation differs: " + g;
  }
  g = groups(p, [&](int r) { return std::to_string(at(r)[kRoot]); });
  if (!g.empty()) return "root differs: " + g;
  g = groups(p, [&](int r) { return "'" + get_name(at(r) + kAlgorithmName) + "'"; });
  if (!g.empty()) return "algorithm differs: " + g;
  g = groups(p, [&](int r) { return op_name(at(r)[kOp]); });
  if (!g.empty()) return "op differs: " + g;
  // The data: different descriptions of the same type signature are fine (MPI allows them).
  auto none = [&](int r) { return at(r)[kCount] < 0; };
  g = groups(p, [&](int r) { return std::string(none(r) ? "none" : "some"); });
  if (!g.empty()) return "count differs (some ranks have none): " + g;
  if (!none(0)) {
    const std::string sig = groups(p, [&](int r) {
      return std::to_string(at(r)[kWholeHash]) + "/" + std::to_string(at(r)[kWholeLength]);
    });
    if (!sig.empty()) {
      const bool same_element =
          groups(p, [&](int r) { return std::to_string(at(r)[kElementHash]); }).empty();
      if (same_element)
        return std::string(count_name) +
               " differs: " + groups(p, [&](int r) { return std::to_string(at(r)[kCount]); });
      return "datatype differs: " + groups(p, [&](int r) {
               return type_text(at(r)) + " (count " + std::to_string(at(r)[kCount]) + ")";
             });
    }
  }
  if (!groups(p, [&](int r) { return std::to_string(at(r)[kPortionsHash]); }).empty())
    return "recvcounts[o] * size(recvtype) differ for some portion o: " + observe::rank_list([&] {
             std::vector<int> v;
             for (int r = 1; r < p; ++r)
               if (at(r)[kPortionsHash] != at(0)[kPortionsHash]) v.push_back(r);
             return v;
           }()) +
           " against rank 0";
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
  const std::string who = std::string(call.who()) + ": PAPCOLL_CHECK: ";
  std::vector<int> refusing;
  for (int r = 0; r < p; ++r)
    if (all[static_cast<size_t>(r) * kFields + kVerdict] != PAPCOLL_SUCCESS) refusing.push_back(r);
  if (!refusing.empty()) {
    // The error path only: every rank's reason, so that the others can name it.
    constexpr int kReason = 160;
    std::vector<char> mine_text(kReason, 0), texts(static_cast<size_t>(p) * kReason, 0);
    std::strncpy(mine_text.data(), own_message.c_str(), kReason - 1);
    if (int rc = MPI_Allgather(mine_text.data(), kReason, MPI_CHAR, texts.data(), kReason, MPI_CHAR,
                               call.context().comm);
        rc != MPI_SUCCESS)
      return call.mpi_error({rc, "MPI_Allgather"});
    if (verdict != PAPCOLL_SUCCESS) return fail_local(verdict, own_message);
    std::string m = who + observe::rank_list(refusing) + " refused the call, so no rank ran it: ";
    for (size_t i = 0; i < refusing.size(); ++i) {
      const int r = refusing[i];
      const char* text = texts.data() + static_cast<size_t>(r) * kReason;
      m += (i ? "; " : "") + std::string("rank ") + std::to_string(r) + ": " +
           std::string(text, strnlen(text, kReason));
    }
    return fail_local(PAPCOLL_ERR_PEER, std::move(m));
  }
  // An agreed refusal, but the call must not be handed to the MPI library either (the
  // interposition library would): the arguments are inconsistent. Hence fail_local.
  const std::string what = first_mismatch(all, p, d.count_name);
  if (!what.empty()) return fail_local(PAPCOLL_ERR_ARG, who + what);
  return PAPCOLL_SUCCESS;
}

}  // namespace papcoll
