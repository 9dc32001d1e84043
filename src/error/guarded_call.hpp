// The C API's exception barrier: nothing may escape into C callers, so an exception (a resource
// failure or a bug) in an entry point's body becomes PAPCOLL_ERR_INTERNAL with a message. Here,
// beside the error state, so that every layer with an entry point of its own (the collectives,
// the monitor, the report writer) uses the same barrier without including src/api/.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "error/error.hpp"
#include "error/hot_path.hpp"
#include "papcoll/papcoll.h"

namespace papcoll {

// Runs an entry point's body for the C API; an exception becomes PAPCOLL_ERR_INTERNAL.
template <typename Body>
PAPCOLL_HOT int guarded_call(const char* who, Body body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(PAPCOLL_ERR_INTERNAL, std::string(who) + ": out of memory");
  } catch (const std::exception& e) {
    return fail(PAPCOLL_ERR_INTERNAL, std::string(who) + ": " + e.what());
  } catch (...) {
    return fail(PAPCOLL_ERR_INTERNAL, std::string(who) + ": unknown exception");
  }
}

}  // namespace papcoll
