// Clock offsets between ranks, measured once when a monitor is created. Arrival estimates are
// exchanged as times on a common clock (rank 0's), so the pattern is right on clusters whose node
// clocks differ by far more than the delays being predicted.
#pragma once

#include <mpi.h>

#include <functional>

#include "executor/mpi_status.hpp"

namespace papcoll::prediction {

struct ClockSync {
  double offset = 0;     // this rank's clock minus rank 0's (seconds); 0 on rank 0
  double width = 0;      // width of the interval known to hold the offset (error <= width / 2)
  double rtt = 0;        // shortest round trip seen
  double reference = 0;  // rank 0's clock at the end of the measurement: the common origin
  // The common time of a local clock reading.
  double common(double local) const { return local - offset - reference; }
};

// Collective over `comm` (which must carry no other traffic with tag `tag`). Every rank except 0
// does at least `samples` ping-pongs with rank 0 (rank 0 answers them in arrival order, so all
// ranks measure at once). Rank 0 reads its clock t0 between the ping's send (t1) and the answer's
// receipt (t2), so t1 - t0 <= offset <= t2 - t0 for every sample; the offset is the middle of the
// intersection of these intervals (the classic "offset of the minimum round trip" is the special
// case of one sample; the intersection also combines a sample that was quick one way with one that
// was quick the other way). Until the interval is under 40 us wide it goes on, up to 16 x
// `samples` or 0.25 s, and while it is still over 1 ms wide up to 0.1 s x `samples` (at most 1 s):
// ranks that share cores are descheduled in the middle of round trips. `now` is the local clock
// in seconds.
MpiStatus sync_clocks(MPI_Comm comm, int samples, int tag, const std::function<double()>& now,
                      ClockSync* out);

}  // namespace papcoll::prediction
