// Text and JSON renderings of a schedule (format documented in docs/schedule-format.md).
#pragma once

#include <ostream>

#include "schedule/schedule.hpp"

namespace papcoll {

void write_schedule_json(std::ostream& out, const Schedule& s);
void write_schedule_text(std::ostream& out, const Schedule& s);

}  // namespace papcoll
