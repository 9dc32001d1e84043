"""papcoll.bcast, allgatherv, scatterv and gatherv: every algorithm at every root against mpi4py's
own collectives, counts with zeros, gaps between portions, in-place and allocated results."""
import numpy as np
import pytest
from mpi4py import MPI

import papcoll
from conftest import rng_for, shared_rng

BCAST = papcoll.algorithms("bcast")
ALLGATHERV = papcoll.algorithms("allgatherv")
SCATTERV = papcoll.algorithms("scatterv")
GATHERV = papcoll.algorithms("gatherv")


def shapes(p, salt):
    """(counts, displs) cases every rank agrees on: regular, with zeros, with gaps, all zero."""
    rng = shared_rng(salt)
    regular = [5] * p
    zeros = [0 if r % 2 else int(rng.integers(1, 40)) for r in range(p)]
    random = [int(c) for c in rng.integers(0, 60, size=p)]
    gaps_counts = [int(c) for c in rng.integers(0, 20, size=p)]
    gaps_displs, at = [], 3
    for c in reversed(gaps_counts):                   # portions in reverse order with holes
        gaps_displs.insert(0, at)
        at += c + 2
    packed = lambda cs: [int(sum(cs[:r])) for r in range(len(cs))]
    return [(regular, packed(regular)), (zeros, packed(zeros)), (random, packed(random)),
            (gaps_counts, gaps_displs), ([0] * p, [0] * p)]


@pytest.mark.parametrize("algorithm", BCAST)
def test_bcast_every_root(comm, algorithm):
    p, rank = comm.Get_size(), comm.Get_rank()
    results = []
    for root in range(p):
        for count in (0, 1, 17, 3000):
            data = shared_rng(count + root).integers(0, 1 << 30, size=count).astype(np.int32)
            buf = data.copy() if rank == root else np.full(count, -1, dtype=np.int32)
            ret = papcoll.bcast(comm, buf, root=root, algorithm=algorithm)
            results.append((ret is buf, buf, data))
        fdata = shared_rng(root).normal(size=(10, 10))
        fbuf = fdata.copy() if rank == root else np.zeros((10, 10))
        papcoll.bcast(comm, fbuf, root, algorithm=algorithm)
        results.append((True, fbuf, fdata))
    for same, buf, data in results:
        assert same
        np.testing.assert_array_equal(buf, data)


def test_bcast_read_only_root(comm):
    rank = comm.Get_rank()
    payload = bytes(range(200))
    buf = payload if rank == 0 else bytearray(200)        # the root only reads its buffer
    papcoll.bcast(comm, buf, root=0, algorithm="circulant")
    assert bytes(buf) == payload


@pytest.mark.parametrize("algorithm", ALLGATHERV)
def test_allgatherv(comm, algorithm):
    p, rank = comm.Get_size(), comm.Get_rank()
    results = []
    for salt, (counts, displs) in enumerate(shapes(p, 1)):
        mine = rng_for(comm, salt).integers(-500, 500, size=counts[rank]).astype(np.int32)
        span = max([d + c for c, d in zip(counts, displs)] + [0])
        recv = np.full(span, -7, dtype=np.int32)
        want = np.full(span, -7, dtype=np.int32)
        ret = papcoll.allgatherv(comm, mine, (recv, counts, displs), algorithm=algorithm)
        comm.Allgatherv(mine, (want, counts, displs, MPI.INT))
        ip = want.copy()                                  # in place: own portion already there
        ip_other = np.full(span, -7, dtype=np.int32)
        ip_other[displs[rank]:displs[rank] + counts[rank]] = mine
        papcoll.allgatherv(comm, MPI.IN_PLACE, (ip_other, (counts, displs)), algorithm=algorithm)
        results.append((ret is recv, recv, want, ip_other, ip))
    x = rng_for(comm, 9).normal(size=rank + 2)                # recvbuf None: allocated
    got = papcoll.allgatherv(comm, x, algorithm=algorithm)
    want_f = np.concatenate(comm.allgather(x))
    for same, recv, want, ip_got, ip_want in results:
        assert same
        np.testing.assert_array_equal(recv, want)
        np.testing.assert_array_equal(ip_got, ip_want)
    np.testing.assert_allclose(got, want_f, rtol=0, atol=0)


def test_allgatherv_types_and_allocation(comm):
    p, rank = comm.Get_size(), comm.Get_rank()
    counts = [2 * r for r in range(p)]
    mine = np.full(counts[rank], rank, dtype=np.int16)
    got = papcoll.allgatherv(comm, mine, (None, counts))            # allocated with the counts
    raw = np.zeros(sum(counts) * 2, dtype=np.uint8)                 # different type, same bytes
    papcoll.allgatherv(comm, mine, (raw, [2 * c for c in counts], MPI.BYTE), algorithm="ring")
    want = np.repeat(np.arange(p), counts).astype(np.int16)
    assert got.dtype == np.int16
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(raw.view(np.int16), want)


@pytest.mark.parametrize("algorithm", SCATTERV)
def test_scatterv_every_root(comm, algorithm):
    p, rank = comm.Get_size(), comm.Get_rank()
    results = []
    for root in range(p):
        for salt, (counts, displs) in enumerate(shapes(p, 2 + root)):
            span = max([d + c for c, d in zip(counts, displs)] + [0])
            data = shared_rng(10 * root + salt).normal(size=span)
            send = (data, counts, displs) if rank == root else None
            recv = np.full(counts[rank], np.nan)
            ret = papcoll.scatterv(comm, send, recv, root=root, algorithm=algorithm)
            want = data[displs[rank]:displs[rank] + counts[rank]]
            results.append((ret is recv, recv, want))
        # recvbuf None on every rank: counts and element type come from the root
        counts = [r + 1 for r in range(p)]
        data = np.arange(sum(counts), dtype=np.int64) * (root + 1)
        got = papcoll.scatterv(comm, (data, counts) if rank == root else None, root=root,
                               algorithm=algorithm)
        off = sum(counts[:rank])
        results.append((True, got, data[off:off + counts[rank]]))
        # in place at the root: its portion stays in sendbuf
        if rank == root:
            ret = papcoll.scatterv(comm, (data, counts), MPI.IN_PLACE, root=root,
                                   algorithm=algorithm)
            results.append((ret is data, data, np.arange(sum(counts)) * (root + 1)))
        else:
            recv = np.zeros(counts[rank], dtype=np.int64)
            papcoll.scatterv(comm, None, recv, root=root, algorithm=algorithm)
            results.append((True, recv, data[off:off + counts[rank]]))
    for same, got, want in results:
        assert same
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("algorithm", GATHERV)
def test_gatherv_every_root(comm, algorithm):
    p, rank = comm.Get_size(), comm.Get_rank()
    results = []
    for root in range(p):
        for salt, (counts, displs) in enumerate(shapes(p, 30 + root)):
            span = max([d + c for c, d in zip(counts, displs)] + [0])
            mine = rng_for(comm, 10 * root + salt).integers(0, 1 << 20, size=counts[rank])
            mine = mine.astype(np.int32)
            recv = np.full(span, -1, dtype=np.int32) if rank == root else None
            want = np.full(span, -1, dtype=np.int32) if rank == root else None
            ret = papcoll.gatherv(comm, mine, (recv, counts, displs) if rank == root else None,
                                  root=root, algorithm=algorithm)
            comm.Gatherv(mine, (want, counts, displs, MPI.INT) if rank == root else None, root)
            results.append((root, ret, recv, want))
        # (None, counts) at the root: allocated; in place at the root
        counts = [3] * p
        mine = np.full(3, rank, dtype=np.float64)
        got = papcoll.gatherv(comm, mine, (None, counts) if rank == root else None, root=root,
                              algorithm=algorithm)
        want = np.repeat(np.arange(p), 3).astype(np.float64) if rank == root else None
        results.append((root, got, got, want))
        if rank == root:
            buf = np.zeros(3 * p)
            buf[3 * rank:3 * rank + 3] = rank
            papcoll.gatherv(comm, MPI.IN_PLACE, (buf, counts), root=root, algorithm=algorithm)
        else:
            buf = None
            papcoll.gatherv(comm, mine, None, root=root, algorithm=algorithm)
        results.append((root, buf, buf, want))
    for root, ret, recv, want in results:
        if rank == root:
            assert ret is recv
            np.testing.assert_array_equal(recv, want)
        else:
            assert ret is None
