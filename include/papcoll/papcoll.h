/* papcoll: MPI collectives that stay fast under imbalanced process arrival patterns.
 * C API. Every function returns PAPCOLL_SUCCESS or an error code; papcoll_last_error() gives the
 * message of the calling thread's last error. Nothing here aborts the program. */
#ifndef PAPCOLL_PAPCOLL_H
#define PAPCOLL_PAPCOLL_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PAPCOLL_VERSION_MAJOR 0
#define PAPCOLL_VERSION_MINOR 1
#define PAPCOLL_OPTIONS_VERSION 1

enum papcoll_error {
  PAPCOLL_SUCCESS = 0,
  PAPCOLL_ERR_ARG = 1,          /* bad argument: negative count, null buffer, bad options, ... */
  PAPCOLL_ERR_ALGORITHM = 2,    /* unknown algorithm name for this collective */
  PAPCOLL_ERR_OP = 3,           /* operation not supported by the algorithm (non-commutative) */
  PAPCOLL_ERR_ARRIVALS = 4,     /* arrival times of the wrong length or not finite */
  PAPCOLL_ERR_MPI = 5,          /* an MPI call failed; the message names it */
  PAPCOLL_ERR_INTERNAL = 6      /* a generated schedule failed its own checks: a papcoll bug */
};

/* Options of one collective call. Initialise with papcoll_options_init(); a NULL options pointer
 * means all defaults. */
typedef struct papcoll_options {
  int version;              /* set by papcoll_options_init */
  const char *algorithm;    /* NULL or "auto": let papcoll choose; else e.g. "ring", "prr" */
  int blocks;               /* number of blocks the buffer is split into; 0: algorithm default */
  const double *arrivals;   /* NULL, or comm-size arrival times in seconds (any common origin) */
  int arrivals_agreed;      /* 1: the caller guarantees `arrivals` is bit-identical on every
                               rank; 0: papcoll makes it so by taking rank 0's vector */
  double alpha, beta, gamma;/* Hockney parameters (s, s/byte, s/byte); 0 or less: defaults */
} papcoll_options;

void papcoll_options_init(papcoll_options *opt);

/* Like MPI_Allreduce. Supports MPI_IN_PLACE, count 0, every predefined datatype and op (and
 * user ops on contiguous types); algorithms that reorder the reduction refuse non-commutative ops
 * with PAPCOLL_ERR_OP unless the algorithm is "auto", which then uses MPI_Allreduce. The send
 * buffer is never written. */
int papcoll_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, const papcoll_options *opt);

/* Static description of an error code. */
const char *papcoll_error_string(int code);
/* Message of the calling thread's last failed call ("" if none). */
const char *papcoll_last_error(void);

/* Comma-separated names of the algorithms available for a collective ("allreduce", ...), or NULL
 * for an unknown collective. */
const char *papcoll_algorithms(const char *collective);

#ifdef __cplusplus
}
#endif

#endif
