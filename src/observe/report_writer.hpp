// Writing the straggler report (docs/report-format.md): collective over MPI_COMM_WORLD. Every
// process sends its records once to world rank 0 (one gather: the only messages the report ever
// costs), after the clock offsets to world rank 0 are measured (prediction/clock_sync.hpp);
// world rank 0 computes the statistics (report_stats.hpp) and writes the file.
#pragma once

namespace papcoll::observe {

// `path` counts at world rank 0; `who` names the caller in messages. A papcoll code, the same
// on every process (the message in papcoll_last_error()).
int write_report(const char* path, const char* who);

}  // namespace papcoll::observe
