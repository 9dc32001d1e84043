/* papcoll: bounded-staleness all-reduce (docs/algorithms.md, "Bounded-staleness all-reduce").
 *
 * An opt-in for data-parallel training with stragglers, after eager-SGD's partial collectives
 * (Li, Ben-Nun, Di Girolamo, Alistarh, Hoefler, PPoPP'20): a call completes without waiting for
 * ranks that arrive later than `deadline` seconds after the first rank; their contributions are
 * folded into a later call of the same handle, never dropped and never counted twice. Unlike
 * papcoll_allreduce, a call's result is not the sum over every rank's buffer of this call but
 * the sum of the contributions the call included, and their number is returned with it.
 *
 * Guarantees, for the calls n = 1, 2, ... of one handle (every rank makes the same calls):
 *  - every rank (late or not) gets the same result and the same count for call n;
 *  - each contribution (one rank's buffer at one call) is in exactly one call's result, or in
 *    the result of papcoll_stale_flush;
 *  - the contribution a rank makes at call k is in the result of a call n with
 *    k <= n <= k + staleness: a rank whose contribution would otherwise become older is waited
 *    for, so a persistently slow rank makes the calls synchronous instead of drifting;
 *  - staleness 0 waits for every rank at every call: the result is then the sum of every rank's
 *    buffer of that call and the count is the communicator's size, as papcoll_allreduce.
 *
 * Each handle runs a background thread (MPI_THREAD_MULTIPLE is required, PAPCOLL_ERR_THREAD
 * otherwise) that takes part in the calls for its rank while the rank computes; papcoll's
 * all-reduce (options.algorithm) runs between these threads on private duplicates of the
 * communicator. Not available under SimGrid SMPI. */
#ifndef PAPCOLL_STALE_H
#define PAPCOLL_STALE_H

#include "papcoll/papcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct papcoll_stale_s *papcoll_stale;

#define PAPCOLL_STALE_CONFIG_VERSION 1
typedef struct papcoll_stale_config {
  int version;           /* set by papcoll_stale_config_init */
  int staleness;         /* S >= 0, in calls of the handle; default 1 */
  double deadline;       /* seconds after the first rank's arrival (as rank 0's thread learns
                            of it) that a call waits for the others; >= 0; default 0.002 */
  const char *algorithm; /* the all-reduce run between the threads: NULL or "auto" (default),
                            any name papcoll_algorithms("allreduce") lists, or "native" */
  int poll_us;           /* the thread's polling interval while a call is open, 1..100000
                            microseconds; it backs off to 4x while nothing happens; default 50 */
} papcoll_stale_config;

void papcoll_stale_config_init(papcoll_stale_config *cfg);

/* Collective over `comm` (an intracommunicator): a handle for calls on buffers of `count`
 * elements of `datatype`, a predefined arithmetic type (integers, floating point, complex), and
 * `op`, which must be MPI_SUM. cfg NULL: the defaults. *out is NULL after an error. */
int papcoll_stale_create(MPI_Comm comm, int count, MPI_Datatype datatype, MPI_Op op,
                         const papcoll_stale_config *cfg, papcoll_stale *out);

/* One call: contributes sendbuf (count elements; MPI_IN_PLACE: recvbuf's) and returns, in
 * recvbuf, the sum of the contributions the call included and, in *contributions (may be
 * NULL), their number (0 when every rank was late and nothing was pending). Returns when the
 * call's result exists: at once for a rank that arrives after the call completed without it
 * (its buffer is then kept for a later call), else when the call completes. The send buffer is
 * never written. Every rank must make the same sequence of calls on a handle, from one thread at
 * a time (different handles may be used from different threads). */
int papcoll_stale_allreduce(papcoll_stale h, const void *sendbuf, void *recvbuf,
                            long long *contributions);

/* Collective, waits for every rank: the sum of every contribution still pending (made by a
 * rank that was late and not yet included) into recvbuf and their number into *contributions
 * (0 and zeros when none). Call it after the last papcoll_stale_allreduce, e.g. at the end of
 * training, to apply what the last calls left out. */
int papcoll_stale_flush(papcoll_stale h, void *recvbuf, long long *contributions);

/* Collective: stops the thread, frees the duplicates and sets *h to NULL. Contributions still
 * pending (no flush after the last late call) are dropped, and then every rank returns
 * PAPCOLL_ERR_ARG naming their number. A handle alive at MPI_Finalize is shut down there. */
int papcoll_stale_free(papcoll_stale *h);

#ifdef __cplusplus
}
#endif

#endif
