"""Errors as papcoll.Error (code and the library's message) and the progress monitor. Every error
case here fails on every rank alike, so no rank is left waiting in a collective."""
import numpy as np
import pytest
from mpi4py import MPI

import papcoll


def test_error_class():
    assert issubclass(papcoll.Error, RuntimeError)
    assert papcoll.error_string(papcoll.ERR_ALGORITHM)


def test_unknown_algorithm(comm):
    x = np.ones(8)
    with pytest.raises(papcoll.Error) as info:
        papcoll.allreduce(comm, x, algorithm="no-such-algorithm")
    e = info.value
    assert e.code == papcoll.ERR_ALGORITHM
    assert "no-such-algorithm" in e.message and "prr" in e.message     # lists the known ones
    assert e.message in str(e)
    for fn, args in [(papcoll.reduce, (x,)), (papcoll.bcast, (x,)),
                     (papcoll.allgatherv, (x,)), (papcoll.gatherv, (x, (None, [8] * comm.Get_size())))]:
        with pytest.raises(papcoll.Error) as info:
            if fn is papcoll.gatherv and comm.Get_rank() != 0:
                fn(comm, x, None, algorithm="bogus")
            else:
                fn(comm, *args, algorithm="bogus")
        assert info.value.code == papcoll.ERR_ALGORITHM, fn


def test_library_errors_on_every_rank(comm):
    p = comm.Get_size()
    x = np.ones(4)
    with pytest.raises(papcoll.Error) as bad_root:
        papcoll.reduce(comm, x, root=p, algorithm="binomial")   # root out of range
    with pytest.raises(papcoll.Error) as bad_arrivals:
        papcoll.allreduce(comm, x, algorithm="prr", arrivals=[0.0] * (p + 1))
    with pytest.raises(papcoll.Error) as nan_arrivals:
        papcoll.allreduce(comm, x, algorithm="slt", arrivals=[float("nan")] * p)
    # allgatherv with differing send and receive types must have the same bytes on every rank
    with pytest.raises(papcoll.Error) as bytes_mismatch:
        papcoll.allgatherv(comm, np.ones(2), (np.zeros(2 * p, dtype=np.int32), [2] * p))
    assert bad_root.value.code == papcoll.ERR_ARG and "root" in bad_root.value.message
    assert bad_arrivals.value.code == papcoll.ERR_ARRIVALS
    assert nan_arrivals.value.code == papcoll.ERR_ARRIVALS
    assert bytes_mismatch.value.code == papcoll.ERR_ARG
    assert "bytes" in bytes_mismatch.value.message


def test_python_side_argument_errors(comm):
    x = np.ones(6)
    cases = [
        lambda: papcoll.allreduce(comm, x, np.zeros(6, dtype=np.float32)),   # mismatched dtypes
        lambda: papcoll.allreduce(comm, x, np.zeros(5)),                     # mismatched counts
        lambda: papcoll.allreduce(comm, [1.0, 2.0]),                         # not a buffer
        lambda: papcoll.allreduce(comm, x, bytes(48)),                       # read-only recvbuf
        lambda: papcoll.allreduce(comm, x, x),                               # aliased
        lambda: papcoll.allreduce(comm, np.ones((4, 4))[:, 1]),              # not contiguous
        lambda: papcoll.allreduce(comm, np.array(["a", "b"])),               # no MPI datatype
        lambda: papcoll.allreduce(comm, MPI.IN_PLACE),                       # in place, no buffer
        lambda: papcoll.allreduce(comm, x, algorithm=3),
        lambda: papcoll.allgatherv(comm, x, (np.zeros(3), [1] * comm.Get_size())),  # too small
        lambda: papcoll.allgatherv(comm, x, (np.zeros(60), [6, 6])
                                   if comm.Get_size() != 2 else (np.zeros(60), [6])),
        lambda: papcoll.algorithms("alltoall"),
    ]
    codes = []
    for case in cases:
        with pytest.raises(papcoll.Error) as info:
            case()
        codes.append(info.value.code)
    with pytest.raises(TypeError):
        papcoll.allreduce(comm, x, no_such_option=1)
    assert codes == [papcoll.ERR_ARG] * len(cases)


def test_monitor_edge_mode(comm):
    p, rank = comm.Get_size(), comm.Get_rank()
    mon = papcoll.Monitor(comm)
    grads = np.zeros(4096, dtype=np.float32)
    results = []
    for step in range(6):
        with mon:
            grads[:] = rank + step
            mon.edge(0.5)
            if rank == p - 1:
                MPI.Wtime()                   # a token of "second half" work
        got = papcoll.allreduce(comm, MPI.IN_PLACE, grads, algorithm="prr", monitor=mon)
        pattern, source = mon.pattern()
        results.append((got is grads, grads.copy(), step, pattern, source))
    mon.close()
    mon.close()                                   # idempotent
    assert mon.closed
    with pytest.raises(papcoll.Error):
        mon.begin()
    with pytest.raises(papcoll.Error):
        papcoll.allreduce(comm, grads, algorithm="prr", monitor=mon)
    for same, g, step, pattern, source in results:
        assert same
        np.testing.assert_array_equal(g, np.full(4096, p * step + p * (p - 1) / 2, np.float32))
        assert pattern.shape == (p,) and np.all(np.isfinite(pattern)) and pattern.min() == 0.0
        assert source in ("edge", "history", "none")


def test_monitor_history_mode_every_op(comm):
    p, rank = comm.Get_size(), comm.Get_rank()
    mon = papcoll.Monitor(comm, mode="history", predictor="ema", ema_alpha=0.5)
    x = np.arange(10, dtype=np.int64) + rank
    a = papcoll.allreduce(comm, x, algorithm="slt", monitor=mon, monitor_site=1)
    r = papcoll.reduce(comm, x, root=0, algorithm="clairvoyant", monitor=mon, monitor_site=2)
    b = papcoll.bcast(comm, x.copy(), root=1 % p, monitor=mon)
    mon.begin()
    mon.edge(0.5)                                 # accepted and ignored in history mode
    g = papcoll.allgatherv(comm, x, monitor=mon)
    mon.free()
    np.testing.assert_array_equal(a, p * np.arange(10) + p * (p - 1) // 2)
    if rank == 0:
        np.testing.assert_array_equal(r, a)
    np.testing.assert_array_equal(b, np.arange(10) + 1 % p)
    np.testing.assert_array_equal(g, np.concatenate([np.arange(10) + q for q in range(p)]))


def test_monitor_bad_arguments(comm):
    with pytest.raises(papcoll.Error):
        papcoll.Monitor(comm, mode="psychic")
    with pytest.raises(papcoll.Error) as window:
        papcoll.Monitor(comm, mode="history", window=0)          # rejected by the library
    with pytest.raises(TypeError):
        papcoll.Monitor(comm, no_such_field=1)
    mon = papcoll.Monitor(comm)
    with pytest.raises(papcoll.Error) as no_begin:
        mon.edge(0.5)                                            # edge() without begin()
    mon.begin()
    with pytest.raises(papcoll.Error) as bad_fraction:
        mon.edge(1.5)
    mon.close()
    assert window.value.code == papcoll.ERR_ARG and "window" in window.value.message
    assert no_begin.value.code == papcoll.ERR_ARG and "begin" in no_begin.value.message
    assert bad_fraction.value.code == papcoll.ERR_ARG
