"""papcoll.allreduce and papcoll.reduce: every algorithm against mpi4py's own collectives (exact on
integers, within tolerance on floats), counts 0, 1, odd and large, every root, in-place, allocation
of the result, buffers other than numpy arrays, explicit datatypes."""
import array

import numpy as np
import pytest
from mpi4py import MPI

import papcoll
from conftest import rng_for

ALLREDUCE = papcoll.algorithms("allreduce")
REDUCE = papcoll.algorithms("reduce")
COUNTS = [0, 1, 7, 1000]


def test_algorithm_lists():
    for op in ("allreduce", "reduce", "bcast", "allgatherv", "scatterv", "gatherv"):
        names = papcoll.algorithms(op)
        assert names[-2:] == ["native", "auto"], (op, names)
    assert {"ring", "slt", "prr"} <= set(ALLREDUCE)
    assert "clairvoyant" in REDUCE


@pytest.mark.parametrize("algorithm", ALLREDUCE)
def test_allreduce_int_exact(comm, algorithm):
    results = []
    for salt, count in enumerate(COUNTS):
        x = rng_for(comm, salt).integers(-1000, 1000, size=count, dtype=np.int32)
        before = x.copy()
        got = papcoll.allreduce(comm, x, algorithm=algorithm)
        ran = papcoll.last_algorithm()
        want = np.empty_like(x)
        comm.Allreduce(x, want, op=MPI.SUM)
        results.append((count, got, want, before, x, ran))
    for count, got, want, before, x, ran in results:
        assert got.dtype == np.int32 and got.shape == (count,)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(x, before)          # the send buffer is never written
        if count and algorithm != "auto":
            assert ran == algorithm


@pytest.mark.parametrize("algorithm", ALLREDUCE)
@pytest.mark.parametrize("op", [MPI.SUM, MPI.MAX, MPI.PROD], ids=["sum", "max", "prod"])
def test_allreduce_float(comm, algorithm, op):
    x = rng_for(comm, 11).uniform(0.5, 1.5, size=(37, 3))
    got = papcoll.allreduce(comm, x, op=op, algorithm=algorithm)
    want = np.empty_like(x)
    comm.Allreduce(x, want, op=op)
    assert got.shape == (37, 3)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("algorithm", ALLREDUCE)
def test_allreduce_in_place_and_given_recvbuf(comm, algorithm):
    x = rng_for(comm, 12).integers(0, 100, size=513).astype(np.int64)
    want = np.empty_like(x)
    comm.Allreduce(x, want)
    y = x.copy()
    ret = papcoll.allreduce(comm, MPI.IN_PLACE, y, algorithm=algorithm)
    z = np.zeros_like(x)
    ret2 = papcoll.allreduce(comm, x, z, op=MPI.SUM, algorithm=algorithm)
    assert ret is y and ret2 is z
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(z, want)


def test_allreduce_other_buffers(comm):
    rank, p = comm.Get_rank(), comm.Get_size()
    a = array.array("d", [rank + 0.5] * 5)
    out = array.array("d", [0.0] * 5)
    papcoll.allreduce(comm, a, out, algorithm="ring")
    f32 = np.full(10, rank + 1, dtype=np.float32)
    got32 = papcoll.allreduce(comm, f32, algorithm="prr")
    raw = bytearray(np.full(4, rank, dtype=np.int32).tobytes())        # bytes, typed explicitly
    out_raw = bytearray(16)
    papcoll.allreduce(comm, (raw, MPI.INT), (out_raw, MPI.INT), algorithm="slt")
    part = np.arange(10, dtype=np.int32) + rank                          # (buf, count)
    got_part = papcoll.allreduce(comm, (part, 6), algorithm="ring")
    c = np.full(3, 1 + 1j * rank, dtype=np.complex128)
    got_c = papcoll.allreduce(comm, c, algorithm="rabenseifner")
    flags = np.array([rank == 0, True, False])
    got_flags = papcoll.allreduce(comm, flags, op=MPI.LOR, algorithm="ring")
    total = sum(r + 0.5 for r in range(p))
    assert list(out) == [total] * 5
    assert got32.dtype == np.float32 and np.all(got32 == p * (p + 1) / 2)
    np.testing.assert_array_equal(np.frombuffer(out_raw, dtype=np.int32), [p * (p - 1) // 2] * 4)
    assert got_part.shape == (6,)
    np.testing.assert_array_equal(got_part, p * np.arange(6) + p * (p - 1) // 2)
    np.testing.assert_allclose(got_c, p + 1j * p * (p - 1) / 2)
    np.testing.assert_array_equal(got_flags, [True, True, False])


@pytest.mark.parametrize("algorithm", ALLREDUCE)
def test_allreduce_arrivals(comm, algorithm):
    p = comm.Get_size()
    arrivals = [0.0] * p
    arrivals[p - 1] = 0.01                                    # the last rank predicted late
    x = rng_for(comm, 13).integers(-50, 50, size=333, dtype=np.int32)
    got = papcoll.allreduce(comm, x, algorithm=algorithm, arrivals=arrivals, alpha=1e-5, beta=1e-9)
    want = np.empty_like(x)
    comm.Allreduce(x, want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("algorithm", REDUCE)
def test_reduce_every_root(comm, algorithm):
    p, rank = comm.Get_size(), comm.Get_rank()
    results = []
    for root in range(p):
        for salt, count in enumerate(COUNTS):
            x = rng_for(comm, 100 * root + salt).integers(-99, 99, size=count).astype(np.int32)
            got = papcoll.reduce(comm, x, root=root, algorithm=algorithm)
            want = np.empty_like(x) if rank == root else None
            comm.Reduce(x, want, op=MPI.SUM, root=root)
            results.append((root, got, want))
        xf = rng_for(comm, 100 * root + 50).normal(size=300)
        gotf = papcoll.reduce(comm, xf, op=MPI.SUM, root=root, algorithm=algorithm)
        wantf = np.empty_like(xf) if rank == root else None
        comm.Reduce(xf, wantf, op=MPI.SUM, root=root)
        results.append((root, gotf, wantf))
    for root, got, want in results:
        if rank == root:
            if want.dtype.kind == "f":
                np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
            else:
                np.testing.assert_array_equal(got, want)
        else:
            assert got is None


@pytest.mark.parametrize("algorithm", REDUCE)
def test_reduce_in_place_at_root(comm, algorithm):
    p, rank = comm.Get_size(), comm.Get_rank()
    root = p - 1
    x = np.arange(100, dtype=np.int64) * (rank + 1)
    if rank == root:
        buf = x.copy()
        ret = papcoll.reduce(comm, MPI.IN_PLACE, buf, op=MPI.MAX, root=root, algorithm=algorithm)
    else:
        ret = papcoll.reduce(comm, x, None, op=MPI.MAX, root=root, algorithm=algorithm)
    if rank == root:
        assert ret is buf
        np.testing.assert_array_equal(buf, np.arange(100) * p)
    else:
        assert ret is None
