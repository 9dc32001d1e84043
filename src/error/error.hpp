// Error reporting of the C API: a code returned to the caller plus a message kept per thread, so
// concurrent callers on different communicators never see each other's messages. The bottom
// layer: every other layer may include it (the calibration, the monitor and the report writer
// report through it too), and it includes nothing of papcoll but the public header.
#pragma once

#include <string>

namespace papcoll {

// Records `message` as the calling thread's last error and returns `code`.
int fail(int code, std::string message);

// The same for an error that only this rank sees while the other ranks of the call went on (a
// scatterv/gatherv rank's own arguments, reported after it relayed the others' portions): the
// interposition library must not hand such a call to the MPI library on this rank alone.
int fail_local(int code, std::string message);

// Whether the calling thread's last error came from fail_local().
bool last_error_is_local();

}  // namespace papcoll
