// papcoll-sched library: what an MPI library runs for a collective and how long the library model
// predicts it to take (select/library_model.hpp; docs/papcoll-sched.md, "library"). Its flags are
// also those of papcoll-sched auto (papcoll_sched_auto.cpp), which parses them here.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "schedule/registry.hpp"
#include "select/library_model.hpp"

namespace papcoll::sched_library {

// argv[1] is "library"; returns the exit status (2 for a usage error, after printing why).
int run(int argc, char** argv);

// A call as `library`'s flags describe it: argv[2] the collective, then the flags (those of
// `library` and `extra`). A usage error prints why and `usage` under `command`'s name and exits
// with status 2.
struct CallArgs {
  LibraryCall call;
  GeneratorInput in;  // p, bytes, root, cost, arrivals, nodes
  std::map<std::string, std::string> flags;
  std::string format;  // text or json
};
CallArgs parse_call_args(int argc, char** argv, const std::vector<std::string>& extra,
                         const char* command, const char* usage);
// After parse_call_args, with its command's usage: a flag's value as a finite number, and a
// usage error.
double flag_number(const std::string& flag, const std::string& value);
[[noreturn]] void flag_error(const std::string& why);

}  // namespace papcoll::sched_library
