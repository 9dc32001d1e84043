// papcoll-sched library: what an MPI library runs for a collective and how long the library model
// predicts it to take (select/library_model.hpp; docs/papcoll-sched.md, "library").
#pragma once

namespace papcoll::sched_library {

// argv[1] is "library"; returns the exit status (2 for a usage error, after printing why).
int run(int argc, char** argv);

}  // namespace papcoll::sched_library
