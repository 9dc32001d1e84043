#!/usr/bin/env bash
# mpirun with the flags this project needs on one machine: root allowed, more ranks than cores,
# no binding (ranks must share 2 cores), shared memory without kernel single-copy (not available
# in containers), and a hard timeout so a deadlock fails instead of hanging.
exec mpirun --allow-run-as-root --oversubscribe --bind-to none --timeout "${PAPCOLL_MPIRUN_TIMEOUT:-600}" \
  --mca btl self,vader,tcp --mca btl_vader_single_copy_mechanism none "$@"
