// Small entry points of the C API that need no communicator.
#include <array>
#include <string>

#include "api/selection.hpp"
#include "papcoll/papcoll.h"

extern "C" void papcoll_options_init(papcoll_options* opt) {
  if (opt == nullptr) return;
  *opt = papcoll_options{};
  opt->version = PAPCOLL_OPTIONS_VERSION;
}

extern "C" const char* papcoll_algorithms(const char* collective) {
  using papcoll::Collective;
  constexpr Collective kAll[] = {Collective::allreduce,  Collective::reduce,
                                 Collective::bcast,      Collective::allgatherv,
                                 Collective::scatterv,   Collective::gatherv};
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
