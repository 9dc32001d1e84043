// Which MPI library is running, for auto's model of the library's collectives
// (select/library_model.hpp): found once per process and the same on every rank.
//  1. PAPCOLL_LIBRARY, when set to one of generic, open-mpi (or ompi), mpich, smpi-ompi,
//     smpi-mpich (any other value: a warning on stderr and the next rule);
//  2. in the SimGrid build (PAPCOLL_SMPI), SMPI's smpi/coll-selector: ompi or mpich, anything
//     else generic;
//  3. else MPI_Get_library_version: Open MPI or MPICH, anything else generic.
// Every rank must see the same PAPCOLL_LIBRARY (mpirun -x): auto's decision reads it.
#pragma once

#include "select/library_model.hpp"

namespace papcoll {

MpiLibrary running_mpi_library();

}  // namespace papcoll
