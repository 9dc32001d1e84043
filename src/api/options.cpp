// Small entry points of the C API that need no communicator, and the options versions.
#include "api/options.hpp"

#include <array>
#include <cstddef>
#include <cstring>
#include <string>

#include "error/hot_path.hpp"
#include "papcoll/papcoll.h"
#include "select/selection.hpp"

namespace papcoll {
namespace {

// Bytes of the struct that version v has: everything before the first field a later version added.
size_t options_bytes(int version) {
  switch (version) {
    case 1: return offsetof(papcoll_options, model_file);
    case 2: return sizeof(papcoll_options);
  }
  return 0;
}
static_assert(PAPCOLL_OPTIONS_VERSION == 2, "options_bytes must know every version");

}  // namespace

PAPCOLL_HOT bool read_user_options(const papcoll_options* user, papcoll_options* out,
                                   std::string* error) {
  papcoll_options_init(out);
  if (user == nullptr) return true;
  const size_t n = options_bytes(user->version);
  if (n == 0) {
    *error = "options->version is " + std::to_string(user->version) + ", expected 1.." +
             std::to_string(PAPCOLL_OPTIONS_VERSION) + " (call papcoll_options_init)";
    return false;
  }
  std::memcpy(static_cast<void*>(out), static_cast<const void*>(user), n);
  out->version = PAPCOLL_OPTIONS_VERSION;
  return true;
}

}  // namespace papcoll

extern "C" PAPCOLL_HOT void papcoll_options_init(papcoll_options* opt) {
  if (opt == nullptr) return;
  *opt = papcoll_options{};
  opt->version = PAPCOLL_OPTIONS_VERSION;
}

extern "C" const char* papcoll_algorithms(const char* collective) {
  using papcoll::Collective;
  constexpr Collective kAll[] = {Collective::allreduce,  Collective::reduce,   Collective::bcast,
                                 Collective::allgatherv, Collective::scatterv, Collective::gatherv};
  // Built once so the returned pointers stay valid for the life of the program.
  static const std::array<std::string, std::size(kAll)> lists = [&] {
    std::array<std::string, std::size(kAll)> l;
    for (size_t i = 0; i < l.size(); ++i) l[i] = papcoll::algorithm_names(kAll[i], ",");
    return l;
  }();
  Collective c;
  if (collective == nullptr || !papcoll::parse_collective(collective, &c)) return nullptr;
  for (size_t i = 0; i < lists.size(); ++i)
    if (kAll[i] == c) return lists[i].c_str();
  return nullptr;
}
