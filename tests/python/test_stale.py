"""papcoll.StaleAllreduce, the bounded-staleness all-reduce (docs/algorithms.md): its invariants
through the numpy bindings with injected late ranks of random identity, and its errors."""
import time

import numpy as np
import pytest
from mpi4py import MPI

import papcoll


@pytest.mark.parametrize("staleness", [0, 1, 2])
def test_every_contribution_once_within_the_bound(comm, staleness):
    p, rank = comm.Get_size(), comm.Get_rank()
    K = 12
    late = np.random.default_rng(40 + staleness).integers(0, p, size=K)   # same on every rank
    st = papcoll.StaleAllreduce(comm, (p * K, np.int64), staleness=staleness, deadline=0.001)
    results, counts = [], []
    for k in range(K):
        if p > 1 and rank == late[k]:
            time.sleep(0.02)
        x = np.zeros(p * K, dtype=np.int64)
        x[rank * K + k] = 1
        if k % 2:
            out, n = st.allreduce(x)                       # allocated
            assert x[rank * K + k] == 1 and x.sum() == 1   # the send buffer is not written
        else:
            out, n = st.allreduce(MPI.IN_PLACE, x)
            assert out is x
        results.append(out.copy())
        counts.append(n)
    rest, n = st.flush()
    results.append(rest)
    counts.append(n)
    st.close()
    assert st.closed
    res = np.stack(results)                               # (K + 1, p K)
    every = comm.allgather((res, counts))
    assert all(np.array_equal(every[0][0], r) and every[0][1] == c for r, c in every)
    assert np.array_equal(res.sum(axis=0), np.ones(p * K)) and set(np.unique(res)) <= {0, 1}
    assert list(res.sum(axis=1)) == counts
    applied_at = res.argmax(axis=0)
    made_at = np.arange(p * K) % K
    assert np.all(applied_at >= made_at) and np.all(applied_at - made_at <= staleness)
    if staleness == 0:
        assert counts[:K] == [p] * K and counts[K] == 0


def test_floats_average_and_context_manager(comm):
    p = comm.Get_size()
    g = np.full(100, 2.0, dtype=np.float32)
    with papcoll.StaleAllreduce(comm, g, staleness=1) as st:
        total, n = st.allreduce(g)
        assert total.dtype == np.float32 and 1 <= n
        np.testing.assert_array_equal(total, np.full(100, 2.0 * n, np.float32))
        rest, m = st.flush()
        assert n + m == p
    assert st.closed


def test_errors(comm):
    x = np.zeros(8)
    with pytest.raises(papcoll.Error) as bad_dtype:
        papcoll.StaleAllreduce(comm, np.zeros(4, dtype=bool))      # MPI_SUM not defined on bool
    with pytest.raises(papcoll.Error) as bad_algorithm:
        papcoll.StaleAllreduce(comm, x, algorithm="nope")
    with pytest.raises(papcoll.Error):
        papcoll.StaleAllreduce(comm, x, staleness=-1)
    st = papcoll.StaleAllreduce(comm, x)
    with pytest.raises(papcoll.Error):
        st.allreduce(np.zeros(7))                                    # wrong count
    with pytest.raises(papcoll.Error):
        st.allreduce(np.zeros(8, dtype=np.float32))                  # wrong type
    with pytest.raises(papcoll.Error):
        st.allreduce(MPI.IN_PLACE)                                   # in place, no buffer
    st.allreduce(MPI.IN_PLACE, x)
    st.flush()
    st.close()
    st.close()                                                       # idempotent
    with pytest.raises(papcoll.Error):
        st.allreduce(MPI.IN_PLACE, x)
    assert bad_dtype.value.code == papcoll.ERR_ARG
    assert bad_algorithm.value.code == papcoll.ERR_ALGORITHM and "prr" in bad_algorithm.value.message
