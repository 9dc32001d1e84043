// Predefined MPI datatypes and ops as small numbers that mean the same in every process (their
// handles are addresses in Open MPI, which differ between processes), and their names. The call
// board publishes a call's datatype and op this way (call_board.hpp); a datatype or op that is
// not in these tables (derived types, MPI_Op_create) has no number, and such a call cannot be
// joined by a rank that refused it.
#pragma once

#include <mpi.h>

namespace papcoll::observe {

// -1 when `t` is not a predefined type of the table.
int type_index(MPI_Datatype t);
MPI_Datatype type_of_index(int index);  // MPI_DATATYPE_NULL for an unknown index
const char* type_name(int index);       // "MPI_INT", "?" for an unknown index

int op_index(MPI_Op op);
MPI_Op op_of_index(int index);  // MPI_OP_NULL for an unknown index
const char* op_name(int index);

}  // namespace papcoll::observe
