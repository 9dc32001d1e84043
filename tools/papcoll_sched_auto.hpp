// papcoll-sched auto: what `auto` runs for a call and why, offline (select/selection.hpp): the
// rule's verdict and every row's estimate, with what a call measures once per communicator (the
// executor's step overhead, a node-wide exchange) given as flags (docs/papcoll-sched.md, "auto").
#pragma once

namespace papcoll::sched_auto {

// argv[1] is "auto"; returns the exit status (2 for a usage error, after printing why).
int run(int argc, char** argv);

}  // namespace papcoll::sched_auto
