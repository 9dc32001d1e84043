// libpapcoll-intercept: papcoll under an unmodified MPI program (LD_PRELOAD), through MPI's
// profiling interface. Each wrapped collective goes to papcoll with the algorithm its environment
// variable names (intercept_config.hpp), or straight to the PMPI_ function for "native".
//
// When papcoll refuses a call it has not communicated yet (PAPCOLL_ERR_ARG: an intercommunicator,
// a datatype it cannot run, MPI_COMM_NULL, ...; PAPCOLL_ERR_ALGORITHM; PAPCOLL_ERR_OP: a
// non-commutative op for an algorithm that reorders), and those refusals depend only on arguments
// every rank passes alike, so every rank then runs the MPI library's collective instead, which
// also applies MPI's own argument checks and error handler. A failure after papcoll started
// communicating cannot be handed over; it goes to the communicator's error handler as
// MPI_ERR_OTHER with papcoll's message on stderr.
//
// papcoll's own MPI calls (its "native" paths, agreement broadcasts) come back through these
// wrappers; a per-thread depth counter sends them to PMPI_ directly.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "intercept/intercept_config.hpp"
#include "intercept/intercept_stats.hpp"
#include "papcoll/papcoll.h"

namespace papcoll::intercept {
namespace {

thread_local int t_depth = 0;

struct Inside {
  Inside() { ++t_depth; }
  ~Inside() { --t_depth; }
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
};

bool refused_before_communicating(int rc) {
  return rc == PAPCOLL_ERR_ARG || rc == PAPCOLL_ERR_ALGORITHM || rc == PAPCOLL_ERR_OP;
}

double bytes_of(long long count, MPI_Datatype type) {
  int size = 0;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
  return static_cast<double>(count) * size;
}

template <typename RunPapcoll, typename RunNative>
int dispatch(Operation op, MPI_Comm comm, double bytes, RunPapcoll run_papcoll,
             RunNative run_native) {
  if (t_depth > 0) return run_native();
  const Inside inside;
  const OperationChoice& choice = config()[op];
  const double t0 = PMPI_Wtime();
  if (choice.native) {
    const int rc = run_native();
    record_call(op, comm, "native", bytes, PMPI_Wtime() - t0);
    return rc;
  }
  papcoll_options opt;
  papcoll_options_init(&opt);
  opt.algorithm = choice.algorithm.c_str();
  const int rc = run_papcoll(&opt);
  if (rc == PAPCOLL_SUCCESS) {
    const std::string ran = papcoll_last_algorithm();
    record_call(op, comm, ran.empty() ? "none" : ran, bytes, PMPI_Wtime() - t0);
    return MPI_SUCCESS;
  }
  if (refused_before_communicating(rc)) {
    const std::string why = papcoll_last_error();
    const int native_rc = run_native();
    record_call(op, comm, "native", bytes, PMPI_Wtime() - t0, why);
    return native_rc;
  }
  std::fprintf(stderr, "papcoll-intercept: %s failed: %s\n", mpi_function_name(op),
               papcoll_last_error());
  if (comm != MPI_COMM_NULL) PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
  return MPI_ERR_OTHER;
}

}  // namespace
}  // namespace papcoll::intercept

using papcoll::intercept::dispatch;
using papcoll::intercept::Operation;

extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm) {
  return dispatch(
      Operation::allreduce, comm, papcoll::intercept::bytes_of(count, datatype),
      [&](const papcoll_options* o) {
        return papcoll_allreduce(sendbuf, recvbuf, count, datatype, op, comm, o);
      },
      [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  return dispatch(
      Operation::reduce, comm, papcoll::intercept::bytes_of(count, datatype),
      [&](const papcoll_options* o) {
        return papcoll_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, o);
      },
      [&] { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); });
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return dispatch(
      Operation::bcast, comm, papcoll::intercept::bytes_of(count, datatype),
      [&](const papcoll_options* o) {
        return papcoll_bcast(buffer, count, datatype, root, comm, o);
      },
      [&] { return PMPI_Bcast(buffer, count, datatype, root, comm); });
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  return dispatch(
      Operation::allgatherv, comm,
      sendbuf == MPI_IN_PLACE ? 0.0 : papcoll::intercept::bytes_of(sendcount, sendtype),
      [&](const papcoll_options* o) {
        return papcoll_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, comm, o);
      },
      [&] {
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, comm);
      });
}

int MPI_Finalize(void) {
  if (papcoll::intercept::config().verbose) papcoll::intercept::print_summary();
  return PMPI_Finalize();
}

}  // extern "C"
