/* papcoll: MPI collectives that stay fast under imbalanced process arrival patterns.
 * C API. Every function returns PAPCOLL_SUCCESS or an error code; papcoll_last_error() gives the
 * message of the calling thread's last error. Nothing here aborts the program.
 *
 * Errors seen by one rank only (docs/errors.md): a rank whose buffer is NULL or aliased (send and
 * receive buffers overlapping without MPI_IN_PLACE) but whose other arguments are valid still
 * takes part in the collective with stand-in data (its readable send data, else the op's
 * identity, else zeros), leaves its buffers untouched and returns PAPCOLL_ERR_ARG. A rank that
 * cannot know the message pattern (a negative count, MPI_DATATYPE_NULL, MPI_OP_NULL, an unknown
 * algorithm, a root out of range, a wrong agreed arrival vector), on the communicator's first
 * call as on any other, takes the call as the other ranks published it on papcoll's call board
 * and takes part with stand-in data too, returning its own code. Every other rank whose result
 * holds that stand-in data returns PAPCOLL_ERR_PEER naming the rank and its reason; a rank whose
 * result does not depend on it (the root of a broadcast, say) completes normally. With
 * PAPCOLL_CHECK=1 in the environment every call first checks that all ranks agree on operation,
 * type signature, op, root and algorithm and returns an error on every rank naming the first
 * mismatch. Ranks may describe their data differently as long as the type signatures match, as
 * in MPI. */
#ifndef PAPCOLL_PAPCOLL_H
#define PAPCOLL_PAPCOLL_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PAPCOLL_VERSION_MAJOR 0
#define PAPCOLL_VERSION_MINOR 1
/* 2 added model_file. Version 1 structs (compiled against an older header) are still accepted:
 * papcoll reads only the fields that version has and takes the defaults for the rest. */
#define PAPCOLL_OPTIONS_VERSION 2

enum papcoll_error {
  PAPCOLL_SUCCESS = 0,
  PAPCOLL_ERR_ARG = 1,       /* bad argument: negative count, null buffer, bad options, ... */
  PAPCOLL_ERR_ALGORITHM = 2, /* unknown algorithm name for this collective */
  PAPCOLL_ERR_OP = 3,        /* operation not supported by the algorithm (non-commutative) */
  PAPCOLL_ERR_ARRIVALS = 4,  /* arrival times of the wrong length or not finite */
  PAPCOLL_ERR_MPI = 5,       /* an MPI call failed; the message names it */
  PAPCOLL_ERR_INTERNAL = 6,  /* a generated schedule failed its own checks: a papcoll bug */
  PAPCOLL_ERR_THREAD = 7,    /* the progress monitor's thread needs MPI_THREAD_MULTIPLE, which
                                the MPI library does not provide (see papcoll_monitor_create) */
  PAPCOLL_ERR_MODEL = 8,     /* options.model_file cannot be read or is not a valid link model
                                for the communicator (docs/model-format.md) */
  PAPCOLL_ERR_PEER = 9       /* another rank erred in this call and took part with stand-in
                                data that this rank's result holds; the message names the rank
                                and its reason (docs/errors.md) */
};

/* A progress monitor (docs/prediction.md): predicts the arrival pattern of the collectives that
 * name it in their options. Opaque; created and freed collectively over a communicator. A handle
 * is a key into papcoll's table of live monitors, never dereferenced: a freed (stale) handle or
 * one that never was a handle gives PAPCOLL_ERR_ARG from every function that takes it. */
typedef struct papcoll_monitor_s *papcoll_monitor;

/* Options of one collective call. Initialise with papcoll_options_init(); a NULL options pointer
 * means all defaults. */
typedef struct papcoll_options {
  int version;               /* set by papcoll_options_init */
  const char *algorithm;     /* NULL or "auto": let papcoll choose; "native": the MPI library's
                                own collective; else e.g. "ring", "prr" */
  int blocks;                /* number of blocks the buffer is split into; 0: algorithm default */
  const double *arrivals;    /* NULL, or comm-size arrival times in seconds (any common origin) */
  int arrivals_agreed;       /* 1: the caller guarantees `arrivals` is bit-identical on every
                                rank; 0: papcoll makes it so by taking rank 0's vector */
  double alpha, beta, gamma; /* Hockney parameters (s, s/byte, s/byte); 0 or less: the
                                communicator's (measured or given, papcoll_calibrate) */
  int arrivals_count;        /* entries in `arrivals`, checked against the comm size (with
                                arrivals_agreed == 0, rank 0's is what counts); 0: not checked */
  papcoll_monitor monitor;   /* NULL, or a monitor created on this communicator: the call takes
                                its agreed arrival pattern (unless `arrivals` is given) */
  int monitor_site;          /* call-site key of the monitor's history predictor: calls with the
                                same key share one history; 0 (default): one history for all */
  /* ---- version 2 ---- */
  const char *model_file; /* NULL, or the path of a link model file (docs/model-format.md) for
                             the model-based scatterv/gatherv trees; NULL: every pair of ranks
                             has `alpha` and `beta`. Read by the root of the call only, once per
                             communicator and path, and sent to the other ranks. Other
                             collectives ignore it. */
} papcoll_options;
/* Arrival times are read only by algorithms that use them ("auto", "slt", "prr", reduce's
 * "clairvoyant"); others ignore them. `arrivals` must be NULL on every rank or on none, since
 * with arrivals_agreed == 0 the non-NULL case is a broadcast. Not finite values or a wrong
 * arrivals_count give PAPCOLL_ERR_ARRIVALS on every rank. */

void papcoll_options_init(papcoll_options *opt);

/* Like MPI_Allreduce. Supports MPI_IN_PLACE, count 0, every predefined datatype and op (and
 * user ops on contiguous types); sendbuf overlapping recvbuf without MPI_IN_PLACE is
 * PAPCOLL_ERR_ARG on that rank (it still takes part, docs/errors.md); algorithms that reorder the
 * reduction refuse non-commutative ops with PAPCOLL_ERR_OP unless the algorithm is "auto", which
 * then uses MPI_Allreduce. "auto" (default) runs MPI_Allreduce unless the arrival times
 * (options.arrivals or a monitor) spread over at least one whole-buffer message time and the cost
 * model predicts that prr or slt pays off (docs/algorithms.md, "auto of allreduce and reduce");
 * papcoll_last_algorithm() then says "native". The send buffer is never written. Every rank must
 * pass the same options (algorithm, blocks, Hockney parameters; arrivals too unless arrivals_agreed
 * == 0): they determine the message pattern. The first call on a communicator duplicates it
 * (collectively); the duplicate is freed with it. */
int papcoll_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, const papcoll_options *opt);

/* Like MPI_Reduce: the result lands in recvbuf at `root` only; recvbuf is not used (and may be
 * NULL) at the other ranks. MPI_IN_PLACE as sendbuf is allowed at the root only (PAPCOLL_ERR_ARG
 * elsewhere); a root outside [0, comm size) gives PAPCOLL_ERR_ARG. Datatypes, ops, count 0, the
 * non-commutative rule and the options are as for papcoll_allreduce; every rank must pass the
 * same root. Algorithms: papcoll_algorithms("reduce") ("clairvoyant" builds its schedule from the
 * arrival times, with the round time of one block under the Hockney parameters); "auto" takes
 * MPI_Reduce without arrival times, when their spread is below one whole-buffer message time, for
 * non-commutative ops, and unless the cost model predicts that clairvoyant pays off. The send
 * buffer is never written; non-root ranks that combine partial results use memory papcoll keeps per
 * communicator. */
int papcoll_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   int root, MPI_Comm comm, const papcoll_options *opt);

/* Like MPI_Bcast. Count 0 and every datatype with a positive extent; a root outside [0, comm
 * size) gives PAPCOLL_ERR_ARG. Algorithms: papcoll_algorithms("bcast"). The root's buffer is only
 * read. `blocks` is the number of pieces the buffer is pipelined in (0: from the Hockney
 * parameters, registry.cpp pipeline_blocks; never more than the bytes of the data). "auto" is
 * "circulant", Traff's round-optimal n-block broadcast (docs/circulant.md). Every rank must pass
 * the same root and options and a (count, datatype) with the same type signature (the root
 * (n, MPI_INT), another rank (1, contiguous(n, MPI_INT)) is fine): blocks are split in bytes of
 * the signature. */
int papcoll_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  const papcoll_options *opt);

/* Like MPI_Allgatherv: MPI_IN_PLACE (the contribution already at displs[rank] in recvbuf), zero
 * counts, any displacements (in recvtype extents), a sendtype that differs from recvtype with the
 * same number of bytes. `blocks` is the number of blocks per rank (0: from the Hockney
 * parameters). "auto" is "circulant", Traff's all-to-all broadcast (docs/circulant.md); ranks that
 * contribute nothing send nothing. Each rank may use its own recvtype, recvcounts and displs, as
 * MPI allows, as long as recvcounts[o] * size(recvtype) (the type signature of portion o) is the
 * same on every rank: blocks are split in those bytes. Overlapping sendbuf and recvbuf (not
 * MPI_IN_PLACE) is PAPCOLL_ERR_ARG on that rank. The send buffer is never written. */
int papcoll_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                       MPI_Comm comm, const papcoll_options *opt);

/* Like MPI_Scatterv and MPI_Gatherv (docs/scatter-gather.md): any root, zero counts, any
 * displacements (in extents of the root's type; scatterv's may overlap), a type on the other side
 * that differs with the same number of bytes per portion, MPI_IN_PLACE at the root (scatterv:
 * as recvbuf, the root's portion stays in sendbuf; gatherv: as sendbuf, it is already at
 * displs[root] in recvbuf). The arguments MPI reads at the root only (scatterv: sendbuf,
 * sendcounts, displs, sendtype; gatherv: recvbuf, recvcounts, displs, recvtype) may be NULL or
 * MPI_DATATYPE_NULL elsewhere. The send buffer is never written. At most 2^31 - 1 bytes in all.
 *
 * Algorithms: papcoll_algorithms("scatterv"), trees of Dichev, Rychkov and Lastovetsky
 * (docs/algorithms.md, "Scatterv and gatherv"): linear, binomial, binomial-minfirst,
 * binomial-maxfirst, traff, traff-model; "auto" (default) takes the tree with the smallest
 * predicted time under the link model; "native" is MPI_Scatterv / MPI_Gatherv. The model is
 * options.model_file (PAPCOLL_ERR_MODEL when it cannot be read, is invalid or is for another
 * number of ranks), else options.alpha and beta for every pair. A relay forwards the portions of
 * its whole subtree in one message.
 *
 * Every rank must derive the same tree, but only the root knows every count, so each call of a
 * papcoll tree begins with one broadcast from the root: every portion's size in bytes, the root's
 * Hockney parameters and link model (the model's values only the first time a path is used on the
 * communicator) and the root's verdict on its own arguments. Hence only the root's model_file,
 * alpha and beta count, and an error in the root's arguments (or its model) is returned on every
 * rank with the root's code. A rank whose own arguments are wrong (a negative count, a NULL buffer,
 * or scatterv's recvcount * size(recvtype) / gatherv's sendcount * size(sendtype) differing from
 * the root's bytes for it) still relays the other ranks' portions, writes nothing into its
 * buffer, returns PAPCOLL_ERR_ARG and (gatherv) sends zero bytes in place of its portion; the
 * other ranks cannot see that error. Every rank must pass the same root and algorithm. */
int papcoll_scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm, const papcoll_options *opt);
int papcoll_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                    MPI_Comm comm, const papcoll_options *opt);

/* ---- Progress monitor and arrival-time prediction (docs/prediction.md) -------------------------
 *
 * Per iteration of an iterative program: papcoll_monitor_begin() when the computation starts,
 * papcoll_monitor_edge(mon, f) when a known fraction f of it is done (the paper's edge(0.5)), then
 * a collective whose options name the monitor. Every collective call with a monitor is one step of
 * the monitor (all ranks must make the same calls in the same order, as for any collective) and
 * runs with an arrival pattern that is bit-identical on every rank by construction:
 *  - edge mode (the default; a background thread, needs MPI_THREAD_MULTIPLE): at edge() the thread
 *    sends this rank's predicted arrival time (begin + elapsed / f) to the others while the
 *    application computes, then warms up the connections the collective will use. A rank that did
 *    not call edge() contributes its actual arrival at the collective's entry instead. The call
 *    waits until every rank has contributed (so a rank that never calls edge only synchronises the
 *    entry, never hangs), and sanitises the vector with one deterministic rule.
 *  - history mode (no thread, any thread level): each call's measured entry times are exchanged
 *    with nonblocking point-to-point messages and predict the next call's pattern per call site
 *    (last value, simple or exponential moving average).
 * Times are on a common clock: offsets to rank 0 are measured at creation (ping-pong). */

enum papcoll_monitor_mode {
  PAPCOLL_MONITOR_EDGE = 0, /* background thread + edge() estimates; history as fallback */
  PAPCOLL_MONITOR_HISTORY =
      1 /* no thread: history prediction only; edge() is accepted and ignored */
};
enum papcoll_predictor {
  PAPCOLL_PREDICT_LAST = 0, /* the previous call's pattern */
  PAPCOLL_PREDICT_SMA = 1,  /* mean of the last `window` patterns (default) */
  PAPCOLL_PREDICT_EMA = 2   /* s = ema_alpha * pattern + (1 - ema_alpha) * s */
};
/* Where the pattern of the latest call came from (papcoll_monitor_pattern). */
enum papcoll_pattern_source {
  PAPCOLL_PATTERN_NONE = 0,   /* nothing usable: all ranks treated as arriving together */
  PAPCOLL_PATTERN_EDGE = 1,   /* this iteration's exchanged estimates */
  PAPCOLL_PATTERN_HISTORY = 2 /* the history predictor of the call site */
};

#define PAPCOLL_MONITOR_CONFIG_VERSION 2
typedef struct papcoll_monitor_config {
  int version;              /* set by papcoll_monitor_config_init */
  int mode;                 /* enum papcoll_monitor_mode; default PAPCOLL_MONITOR_EDGE */
  int predictor;            /* enum papcoll_predictor; default PAPCOLL_PREDICT_SMA */
  int window;               /* SMA window, 1..1024; default 4 */
  double ema_alpha;         /* EMA weight of the newest pattern, (0, 1]; default 0.5 */
  int warmup_messages;      /* edge mode: small messages to each ring neighbour after the
                               exchange, 0..64; default 1 */
  int sync_samples;         /* ping-pongs per rank with rank 0 for the clock offsets, 1..1000;
                               default 8 */
  double horizon;           /* seconds: estimates farther than this from the latest contribution
                               are treated as unknown; default 3600 */
  int poll_us;              /* edge mode: the thread's polling interval while messages are in
                               flight (backing off to 8x while nothing moves), microseconds,
                               1..100000; default 100 */
  double test_clock_offset; /* TESTING ONLY: seconds added to this rank's clock (emulates
                               unsynchronised node clocks); default 0 */
  /* Since version 2. Sampling of the measured exchange (docs/prediction.md, "Sampling"): a call
   * site whose newest measured arrival pattern and whose prediction are both balanced (spread
   * below history_spread seconds) has its arrivals measured on one call in history_sample only;
   * an imbalanced one on every call, unless its last 4 imbalanced predictions went unused (the
   * calls ran algorithms that read no arrival times): it is then sampled too, and gets no
   * prediction. 1..1000000; default 1 (every call, every call predicted). The LD_PRELOAD
   * library uses 16 (PAPCOLL_HISTORY_SAMPLE). */
  int history_sample;
  double history_spread; /* seconds, >= 0; default 1e-4 */
} papcoll_monitor_config;

void papcoll_monitor_config_init(papcoll_monitor_config *cfg);

/* Collective over `comm` (an intracommunicator). papcoll_monitor_create uses the defaults (edge
 * mode): it returns PAPCOLL_ERR_THREAD on every rank if MPI_Query_thread is below
 * MPI_THREAD_MULTIPLE on any rank; use mode PAPCOLL_MONITOR_HISTORY there. *mon is NULL after an
 * error. */
int papcoll_monitor_create(MPI_Comm comm, papcoll_monitor *mon);
int papcoll_monitor_create_config(MPI_Comm comm, const papcoll_monitor_config *cfg,
                                  papcoll_monitor *mon);
/* The computation of this iteration starts now. Local, cheap. */
int papcoll_monitor_begin(papcoll_monitor mon);
/* `fraction` (0 < fraction <= 1) of this iteration's computation is done: the remaining time is
 * estimated as elapsed since begin / fraction * (1 - fraction). Only the first edge() between two
 * collectives counts; one without a begin() in the iteration is refused (PAPCOLL_ERR_ARG). Local:
 * the exchange runs in the monitor's thread. */
int papcoll_monitor_edge(papcoll_monitor mon, double fraction);
/* The arrival pattern the monitor agreed for its latest collective, in seconds relative to the
 * earliest rank (count entries; count must be the communicator size), and its source (enum
 * papcoll_pattern_source; may be NULL). All zeros with PAPCOLL_PATTERN_NONE. Bit-identical on every
 * rank. The call ran with it unless options.arrivals was given (that takes precedence). Local. */
int papcoll_monitor_pattern(papcoll_monitor mon, double *pattern, int count, int *source);
/* Collective over the monitor's communicator: completes the exchanges in flight, stops the thread,
 * frees the monitor's duplicate communicators and sets *mon to NULL. A monitor still alive at
 * MPI_Finalize is shut down there (the handle must then only be freed).
 * Threads: from the moment the free starts, every other use of the handle on this process returns
 * PAPCOLL_ERR_ARG ("the monitor was freed"); calls already using it (a collective naming it in its
 * options, a papcoll_monitor_* call) finish normally first, and the free waits for them. Like any
 * collective, the free must come in the same order relative to the monitor's collectives on every
 * rank. */
int papcoll_monitor_free(papcoll_monitor *mon);
/* TESTING ONLY: the next edge() on this rank contributes `remaining` seconds (any value: NaN,
 * infinities, negative, huge) instead of its own estimate. */
int papcoll_monitor_test_inject(papcoll_monitor mon, double remaining);

/* ---- Straggler report (docs/report-format.md) ----------------------------------------------
 *
 * With PAPCOLL_REPORT=FILE in the environment of every process, papcoll records every collective
 * it runs (per communicator and call key: calls, algorithms and auto's reasons, time in the
 * collective, each rank's entry time; no message on the call path) and writes FILE, a versioned
 * JSON document naming each rank's lateness against the earliest rank, at MPI_Finalize (when a
 * papcoll collective ran on a communicator of every process, or under libpapcoll-intercept).
 * papcoll_report_write writes one on demand: collective over MPI_COMM_WORLD (one gather; call it
 * on every process, with no collective running on another thread); `path` counts at world rank 0
 * (NULL: the FILE of PAPCOLL_REPORT). PAPCOLL_ERR_ARG on every process when PAPCOLL_REPORT is not
 * set or the file cannot be written. Read it with papcoll-report (docs/python.md). */
int papcoll_report_write(const char *path);

/* Static description of an error code. */
const char *papcoll_error_string(int code);
/* Message of the calling thread's last failed call ("" if none). */
const char *papcoll_last_error(void);
/* The algorithm the calling thread's last collective call ran: a name papcoll_algorithms() lists,
 * "native" (the MPI library's collective) or "" when the call had nothing to move (count 0)
 * or failed before choosing. Tells what "auto" picked. */
const char *papcoll_last_algorithm(void);

/* ---- The network's parameters (docs/calibration.md) ---------------------------------------------
 *
 * Several algorithms need the network's Hockney parameters: PRR's slot length, Clairvoyant's round
 * time, the pipelined broadcasts' block counts, "auto"'s costs, the scatterv/gatherv trees without
 * a link model. Unless the caller gives them (options.alpha and beta, PAPCOLL_NETWORK in the
 * environment), papcoll measures them once per communicator, at the first collective on it that
 * reads them or at papcoll_calibrate: a short ping-pong between pairs of ranks within a time
 * budget (PAPCOLL_CALIBRATION_BUDGET_MS, default 15), links within a node and between nodes
 * apart, and the local reduction speed per datatype class. Every rank ends with identical values.
 * The result is kept in a cache file keyed by the hosts, the communicator size and the MPI library
 * (PAPCOLL_CALIBRATION=auto|always|off, default auto: reuse a matching file), so later runs skip
 * the measurement. */

/* Where the parameters came from. */
enum papcoll_network_source {
  PAPCOLL_NET_NONE = -1,       /* the last call read no parameters (failed early, count 0,
                                  "native", one rank, "auto" of an all-reduce or reduce without
                                  arrival times: the MPI library's, costed by nothing) */
  PAPCOLL_NET_DEFAULTS = 0,    /* papcoll's built-in values (PAPCOLL_CALIBRATION=off) */
  PAPCOLL_NET_MEASURED = 1,    /* measured on this communicator */
  PAPCOLL_NET_CACHE = 2,       /* an earlier measurement: the cache file, or this process */
  PAPCOLL_NET_ENVIRONMENT = 3, /* PAPCOLL_NETWORK=alpha,beta[,gamma] */
  PAPCOLL_NET_MODEL_FILE = 4,  /* PAPCOLL_NETWORK=FILE, a link model (papcoll-model measure) */
  PAPCOLL_NET_OPTIONS = 5      /* options.alpha / options.beta */
};

#define PAPCOLL_NETWORK_INFO_VERSION 1
typedef struct papcoll_network_info {
  int version; /* set by papcoll_network_info_init */
  int source;  /* enum papcoll_network_source of alpha and beta */
  double alpha, beta,
      gamma; /* what the call ran with (s, s/byte, s/byte; gamma for its datatype) */
  double alpha_intra, beta_intra; /* the communicator's links within a node; 0: none known */
  double alpha_inter, beta_inter; /* between nodes; 0: none known */
  double gamma_float, gamma_double, gamma_int; /* reduction speed per class; 0: not known */
  int nodes;                  /* nodes the communicator spans (ranks with the same host name) */
  double calibration_seconds; /* how long the communicator's measurement took (rank 0's
                                 clock, the same on every rank); 0 when it was not measured */
} papcoll_network_info;

void papcoll_network_info_init(papcoll_network_info *info);

/* Collective over comm: settles the communicator's network parameters now (measuring them, or
 * taking the cache file's, PAPCOLL_NETWORK's, or opt's alpha and beta when both are > 0, which
 * then hold for every later call on comm), replacing what an earlier call settled. opt may be
 * NULL; its algorithm and other fields are ignored. papcoll_last_network() then reports the
 * result. The first call on a communicator duplicates it, as the collectives do. */
int papcoll_calibrate(MPI_Comm comm, const papcoll_options *opt);

/* The parameters the calling thread's last collective call (or papcoll_calibrate) used: the
 * sibling of papcoll_last_algorithm(). source PAPCOLL_NET_NONE (values 0) when it read none.
 * PAPCOLL_ERR_ARG for a NULL info or an unknown version. Local. */
int papcoll_last_network(papcoll_network_info *info);

/* What the calling thread's last collective call weighed and sized papcoll's schedules with
 * beyond the network parameters: measured once per communicator by the first call that runs or
 * weighs a schedule (docs/calibration.md), the same on every rank. step_overhead: what a step of
 * papcoll's executor costs beyond the links' latency, s (a ring timed through it; 0 where ranks
 * share cores); "auto" adds it to every message of its estimates, and every pipeline's block
 * count reads it. exchange_alpha, exchange_beta: how an exchange inside a node ran, s + s/byte
 * per piece ("auto" and the two-level rows, on nodes of several ranks). 0 where the call read
 * none ("native", or "auto" of a reduction without arrival times). */
#define PAPCOLL_EXECUTOR_COSTS_VERSION 1
typedef struct papcoll_executor_costs {
  int version; /* set by papcoll_executor_costs_init */
  double step_overhead;
  double exchange_alpha, exchange_beta;
} papcoll_executor_costs;

void papcoll_executor_costs_init(papcoll_executor_costs *costs);

/* PAPCOLL_ERR_ARG for a NULL costs or an unknown version. Local. papcoll-sched auto takes these
 * figures (--step-overhead, --exchange) to reproduce a call's choice offline. */
int papcoll_last_executor_costs(papcoll_executor_costs *costs);

/* Comma-separated names of the algorithms available for a collective ("allreduce", ...), or NULL
 * for an unknown collective. The list ends with "native" (the MPI library's own collective) and
 * "auto"; it is empty for a collective without any schedule algorithm. */
const char *papcoll_algorithms(const char *collective);

#ifdef __cplusplus
}
#endif

#endif
