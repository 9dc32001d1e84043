// Reading a caller's papcoll_options of any version this library knows (PAPCOLL_OPTIONS_VERSION in
// papcoll.h). A program compiled against an older header passes a shorter struct with its own
// version number, so only the fields of that version may be read; the newer ones keep their
// defaults.
#pragma once

#include <string>

#include "papcoll/papcoll.h"

namespace papcoll {

// *out = the defaults overwritten by the fields `user` has by its version. False, with a message
// in *error, for a version that is not 1..PAPCOLL_OPTIONS_VERSION.
bool read_user_options(const papcoll_options* user, papcoll_options* out, std::string* error);

}  // namespace papcoll
