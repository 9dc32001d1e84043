#include "schedule/circulant_tables.hpp"

#include "schedule/circulant_recv.hpp"
#include "schedule/circulant_send.hpp"

namespace papcoll::circulant {

Tables make_tables(int p) {
  Tables t;
  t.skips = make_skips(p);
  const int q = t.skips.q;
  t.recv.assign(static_cast<size_t>(p) * q, 0);
  t.send.assign(t.recv.size(), 0);
  if (q == 0) return t;
  for (int v = 0; v < p; ++v) {
    recv_schedule(t.skips, v, &t.recv[static_cast<size_t>(v) * q]);
    send_schedule(t.skips, v, &t.send[static_cast<size_t>(v) * q]);
  }
  return t;
}

}  // namespace papcoll::circulant
