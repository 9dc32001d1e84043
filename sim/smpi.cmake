# The SimGrid SMPI variant of the build (option PAPCOLL_SMPI, docs/smpi.md). Included by
# CMakeLists.txt after project(), with smpicc/smpicxx as the compilers.

# The wrappers bring SimGrid's mpi.h and libsimgrid themselves; FindMPI would find Open MPI
# instead. These empty targets stand in for FindMPI's so the targets link as in the normal build.
foreach(lang C CXX)
  if(NOT TARGET MPI::MPI_${lang})
    add_library(MPI::MPI_${lang} INTERFACE IMPORTED)
  endif()
endforeach()

# Code that must use simulated time instead of the host's clock tests this macro.
add_compile_definitions(PAPCOLL_SMPI)

# Static, so that libpapcoll is part of the program. SMPI gives every simulated rank its own
# copy of the program's globals (smpi/privatization:dlopen loads a private copy of the program
# per rank), but a shared library is loaded once for all ranks: its thread-local last error,
# keyvals and caches would then be shared by every rank.
set(PAPCOLL_LIBRARY_TYPE STATIC)

# Targets that use no MPI. smpicxx links programs as shared objects that only smpirun can start
# and redefines malloc, exit, sleep... in every file; SMPI_PRETEND_CC (SimGrid's own switch)
# makes it a plain compiler, so papcoll-sched stays an ordinary command.
if(CMAKE_VERSION VERSION_LESS 3.21)
  message(FATAL_ERROR "PAPCOLL_SMPI needs CMake 3.21 or later (CXX_LINKER_LAUNCHER)")
endif()
function(papcoll_smpi_plain_targets)
  set(plain "${CMAKE_COMMAND};-E;env;SMPI_PRETEND_CC=1")
  foreach(target ${ARGN})
    set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${plain}"
                                               CXX_LINKER_LAUNCHER "${plain}")
  endforeach()
endfunction()
