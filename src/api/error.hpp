// Error reporting of the C API: a code returned to the caller plus a message kept per thread, so
// concurrent callers on different communicators never see each other's messages.
#pragma once

#include <string>

namespace papcoll {

// Records `message` as the calling thread's last error and returns `code`.
int fail(int code, std::string message);

}  // namespace papcoll
