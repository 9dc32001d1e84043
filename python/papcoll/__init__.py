"""papcoll: MPI collectives robust to imbalanced process arrival, for mpi4py programs.

    from mpi4py import MPI
    import numpy as np, papcoll

    x = np.arange(4.0) * MPI.COMM_WORLD.Get_rank()
    y = papcoll.allreduce(MPI.COMM_WORLD, x, algorithm="prr")   # allocates and returns y
    papcoll.allreduce(MPI.COMM_WORLD, MPI.IN_PLACE, x, op=MPI.MAX)

Every collective takes an mpi4py intracommunicator and buffers in mpi4py's conventions (see
papcoll._buffers), never copies or writes the send buffer, and raises papcoll.Error on failure.
Keyword options map to the C API's papcoll_options (include/papcoll/papcoll.h): algorithm,
monitor, monitor_site, arrivals, arrivals_agreed, blocks, alpha, beta, gamma, model_file.
papcoll.StaleAllreduce is the bounded-staleness all-reduce (opt-in), papcoll.torch a comm hook
for PyTorch's DistributedDataParallel (imported on its own: `import papcoll.torch`; papcoll
itself does not need torch). Documentation: docs/python.md, docs/training.md.
"""
import ctypes

import numpy as np
from mpi4py import MPI

from . import _capi
from ._buffers import Error
from . import _buffers as _b
from ._stale import StaleAllreduce

__version__ = "0.1.0"
__all__ = ["Error", "Monitor", "allreduce", "reduce", "bcast", "allgatherv", "scatterv", "gatherv",
           "algorithms", "last_algorithm", "error_string", "write_report", "calibrate",
           "last_network", "last_executor_costs", "StaleAllreduce"]

SUCCESS = _capi.SUCCESS
ERR_ARG = _capi.ERR_ARG
ERR_ALGORITHM = _capi.ERR_ALGORITHM
ERR_OP = _capi.ERR_OP
ERR_ARRIVALS = _capi.ERR_ARRIVALS
ERR_MPI = _capi.ERR_MPI
ERR_INTERNAL = _capi.ERR_INTERNAL
ERR_THREAD = _capi.ERR_THREAD
ERR_MODEL = _capi.ERR_MODEL
ERR_PEER = _capi.ERR_PEER

_lib = _capi.lib
_IN_PLACE = ctypes.c_void_p(_capi.IN_PLACE_ADDR)


def error_string(code):
    """Static description of an error code."""
    s = _lib.papcoll_error_string(int(code))
    return s.decode() if s else ""


def last_algorithm():
    """The algorithm the calling thread's last collective ran ("native": the MPI library's; "":
    nothing to move or failed before choosing). Tells what "auto" picked."""
    return _lib.papcoll_last_algorithm().decode()


def write_report(path=None):
    """Writes the straggler report (docs/report-format.md) of everything recorded so far to
    `path` (significant at world rank 0; None: the file PAPCOLL_REPORT names). Collective over
    MPI.COMM_WORLD: call it on every process. Recording needs PAPCOLL_REPORT in the environment
    (papcoll.Error otherwise); read the file with papcoll-report."""
    _b.check(_lib.papcoll_report_write(None if path is None else str(path).encode()))


def last_network():
    """The network parameters the calling thread's last collective (or calibrate()) ran with, as
    a dict: "source" (where alpha and beta came from: "none" when the call read none, as
    "native" or "auto" without arrival times, "defaults", "measured", "cache", "environment",
    "model_file", "options"), "alpha", "beta", "gamma" (s, s/byte, s/byte), the communicator's
    "alpha_intra"/"beta_intra" and "alpha_inter"/"beta_inter" (0: none known), "gamma_float",
    "gamma_double", "gamma_int", "nodes" and "calibration_seconds" (docs/calibration.md). The
    sibling of last_algorithm(); local."""
    info = _capi.NetworkInfo()
    _lib.papcoll_network_info_init(ctypes.byref(info))
    _b.check(_lib.papcoll_last_network(ctypes.byref(info)))
    out = {"source": _capi.NETWORK_SOURCES.get(info.source, str(info.source))}
    for name, _ in _capi.NetworkInfo._fields_:
        if name not in ("version", "source"):
            out[name] = getattr(info, name)
    return out


def last_executor_costs():
    """What the calling thread's last collective weighed papcoll's schedules with beyond the
    network parameters, as a dict: "step_overhead" (s a step of papcoll's executor costs beyond
    the links' latency), "exchange_alpha" and "exchange_beta" (an exchange inside a node, s +
    s/byte per piece); each measured once per communicator (the step overhead by the first call
    that runs or weighs a schedule, the exchange by "auto" and the two-level rows on nodes of
    several ranks), 0 where the call read none, as "native" (docs/calibration.md).
    papcoll-sched auto takes them to reproduce the call's choice offline. Local."""
    costs = _capi.ExecutorCosts()
    _lib.papcoll_executor_costs_init(ctypes.byref(costs))
    _b.check(_lib.papcoll_last_executor_costs(ctypes.byref(costs)))
    return {name: getattr(costs, name) for name, _ in _capi.ExecutorCosts._fields_
            if name != "version"}


def calibrate(comm, alpha=None, beta=None, gamma=None):
    """Collective over comm: settles its network parameters now, as its first collective that
    reads them would (measured within a time budget, or the cache file's, or PAPCOLL_NETWORK's),
    or takes `alpha` and `beta` (s and s/byte, both given and > 0; `gamma`, s/byte of local
    reduction, optional with them), which then hold for every later call on comm. Call it with
    the same arguments on every rank. Returns the parameters as last_network() does; every rank
    gets the same values. docs/calibration.md."""
    where = "papcoll.calibrate"
    if (alpha is None) != (beta is None) or (gamma is not None and alpha is None):
        raise _b.arg_error(where, "give alpha and beta (and optionally gamma), or none of them")
    kwargs = {} if alpha is None else {"alpha": alpha, "beta": beta}
    if gamma is not None:
        kwargs["gamma"] = gamma
    opt = _Options(where, None, None, kwargs)
    _b.check(_lib.papcoll_calibrate(_comm(comm, where), opt.ref))
    return last_network()


def algorithms(collective):
    """The algorithm names of a collective ("allreduce", "reduce", "bcast", "allgatherv",
    "scatterv", "gatherv"); the list ends with "native" and "auto"."""
    s = _lib.papcoll_algorithms(str(collective).encode())
    if s is None:
        raise _b.arg_error("papcoll.algorithms", "unknown collective %r" % (collective,))
    return [name for name in s.decode().split(",") if name]


class _Options:
    """A papcoll_options struct and what its pointers point to, alive for one call."""

    def __init__(self, where, algorithm, monitor, kwargs):
        self.opt = _capi.Options()
        _lib.papcoll_options_init(ctypes.byref(self.opt))
        o = self.opt
        if algorithm is not None:
            if not isinstance(algorithm, str):
                raise _b.arg_error(where, "algorithm must be a string, not %r" % (algorithm,))
            self._algorithm = algorithm.encode()
            o.algorithm = self._algorithm
        if monitor is not None:
            if not isinstance(monitor, Monitor):
                raise _b.arg_error(where, "monitor must be a papcoll.Monitor")
            o.monitor = monitor._live_handle(where)
        for key, value in kwargs.items():
            if key == "arrivals":
                if value is None:
                    continue
                arr = np.ascontiguousarray(value, dtype=np.float64).ravel()
                self._arrivals = arr
                o.arrivals = arr.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
                o.arrivals_count = arr.size
            elif key in ("arrivals_agreed", "blocks", "monitor_site"):
                setattr(o, key, int(value))
            elif key in ("alpha", "beta", "gamma"):
                setattr(o, key, float(value))
            elif key == "model_file":
                if value is not None:
                    self._model_file = str(value).encode()
                    o.model_file = self._model_file
            else:
                raise TypeError("%s() got an unexpected keyword argument %r" % (where, key))

    @property
    def ref(self):
        return ctypes.byref(self.opt)


def _comm(comm, where):
    if not isinstance(comm, MPI.Comm) or comm == MPI.COMM_NULL:
        raise _b.arg_error(where, "comm must be an mpi4py communicator, not %r" % (comm,))
    return _capi.handle(comm)


def _same_type(where, send, recv):
    if send.datatype != recv.datatype:
        raise _b.arg_error(where, "mismatch in send and receive datatypes (%s and %s)"
                           % (send.datatype.Get_name(), recv.datatype.Get_name()))
    if send.count != recv.count:
        raise _b.arg_error(where, "mismatch in send count %d and receive count %d"
                           % (send.count, recv.count))
    if _b.overlaps(send, recv):
        raise _b.arg_error(where, "sendbuf and recvbuf share memory; use MPI.IN_PLACE")


def allreduce(comm, sendbuf, recvbuf=None, op=MPI.SUM, algorithm="auto", monitor=None,
              **options):
    """MPI_Allreduce by papcoll. sendbuf: a buffer or MPI.IN_PLACE (then recvbuf holds the input
    and receives the result). recvbuf None: allocated like sendbuf. Returns recvbuf."""
    where = "papcoll.allreduce"
    c = _comm(comm, where)
    opt = _Options(where, algorithm, monitor, options)
    if _b.is_in_place(sendbuf):
        if recvbuf is None:
            raise _b.arg_error(where, "MPI.IN_PLACE needs recvbuf")
        r = _b.regular(recvbuf, where, "recvbuf", writable=True)
        send_addr = _IN_PLACE
    else:
        s = _b.regular(sendbuf, where, "sendbuf", writable=False)
        if recvbuf is None:
            recvbuf = _b.allocate(s.count, s.dtype, s.array)
        r = _b.regular(recvbuf, where, "recvbuf", writable=True)
        _same_type(where, s, r)
        send_addr = s.addr
    _b.check(_lib.papcoll_allreduce(send_addr, r.addr, r.count, _capi.handle(r.datatype),
                                    _capi.handle(op), c, opt.ref))
    return r.obj


def reduce(comm, sendbuf, recvbuf=None, op=MPI.SUM, root=0, algorithm="auto", monitor=None,
           **options):
    """MPI_Reduce by papcoll. At root, recvbuf None is allocated like sendbuf and returned;
    MPI.IN_PLACE as sendbuf at the root only. Returns None at the other ranks."""
    where = "papcoll.reduce"
    c = _comm(comm, where)
    opt = _Options(where, algorithm, monitor, options)
    at_root = comm.Get_rank() == root
    if _b.is_in_place(sendbuf):
        if not at_root:
            raise _b.arg_error(where, "MPI.IN_PLACE is allowed at the root only")
        if recvbuf is None:
            raise _b.arg_error(where, "MPI.IN_PLACE needs recvbuf at the root")
        r = _b.regular(recvbuf, where, "recvbuf", writable=True)
        send_addr, count, datatype, recv_addr = _IN_PLACE, r.count, r.datatype, r.addr
    else:
        s = _b.regular(sendbuf, where, "sendbuf", writable=False)
        send_addr, count, datatype, recv_addr = s.addr, s.count, s.datatype, None
        if at_root:
            if recvbuf is None:
                recvbuf = _b.allocate(s.count, s.dtype, s.array)
            r = _b.regular(recvbuf, where, "recvbuf", writable=True)
            _same_type(where, s, r)
            recv_addr = r.addr
    _b.check(_lib.papcoll_reduce(send_addr, recv_addr, count, _capi.handle(datatype),
                                 _capi.handle(op), int(root), c, opt.ref))
    return r.obj if at_root else None


def bcast(comm, buf, root=0, algorithm="auto", monitor=None, **options):
    """MPI_Bcast by papcoll: buf (every rank, the same count) is sent from root (which only reads
    it) to the others. Returns buf."""
    where = "papcoll.bcast"
    c = _comm(comm, where)
    opt = _Options(where, algorithm, monitor, options)
    b = _b.regular(buf, where, "buf", writable=comm.Get_rank() != root)
    _b.check(_lib.papcoll_bcast(b.addr, b.count, _capi.handle(b.datatype), int(root), c, opt.ref))
    return b.obj


def _alloc_v(v, dtype):
    """Allocates the buffer of a v specification that had None for it."""
    arr = np.empty(v.span, dtype=dtype)
    datatype = v.datatype if v.datatype is not None else _b.datatype_of(arr.dtype)
    v.buf = _b.Buf(arr, arr, datatype, arr.size, arr.itemsize)
    return arr


def allgatherv(comm, sendbuf, recvbuf=None, algorithm="auto", monitor=None, **options):
    """MPI_Allgatherv by papcoll. recvbuf: (buf, counts[, displs]) (a plain buffer is split
    evenly); (None, counts[, displs]) allocates it with sendbuf's element type; None on every rank
    gathers the counts first (one extra allgather) and allocates the concatenation. sendbuf may be
    MPI.IN_PLACE (the contribution is at displs[rank] in recvbuf). Returns the receive buffer."""
    where = "papcoll.allgatherv"
    c = _comm(comm, where)
    opt = _Options(where, algorithm, monitor, options)
    p = comm.Get_size()
    in_place = _b.is_in_place(sendbuf)
    s = None if in_place else _b.regular(sendbuf, where, "sendbuf", writable=False)
    if recvbuf is None:
        if in_place:
            raise _b.arg_error(where, "MPI.IN_PLACE needs recvbuf")
        recvbuf = (None, comm.allgather(s.count))
    v = _b.vector(recvbuf, p, where, "recvbuf", writable=True, allow_alloc=not in_place)
    if v.buf is None:
        _alloc_v(v, s.dtype if v.datatype is None else _b.numpy_dtype_of(v.datatype))
    r = v.buf
    if in_place:
        send_addr, scount, stype = _IN_PLACE, 0, r.datatype
    else:
        if _b.overlaps(s, r):
            raise _b.arg_error(where, "sendbuf and recvbuf share memory; use MPI.IN_PLACE")
        send_addr, scount, stype = s.addr, s.count, s.datatype
    _b.check(_lib.papcoll_allgatherv(send_addr, scount, _capi.handle(stype), r.addr, v.c_counts,
                                     v.c_displs, _capi.handle(r.datatype), c, opt.ref))
    return r.obj


def scatterv(comm, sendbuf, recvbuf=None, root=0, algorithm="auto", monitor=None, **options):
    """MPI_Scatterv by papcoll. sendbuf (read at root only): (buf, counts[, displs]) or a buffer
    split evenly. recvbuf: a buffer; MPI.IN_PLACE at the root (its portion stays in sendbuf);
    None on every rank: the root first sends each rank its count and element type (one extra
    scatter) and every rank allocates its portion. Returns the receive buffer (the root's send
    buffer with MPI.IN_PLACE)."""
    where = "papcoll.scatterv"
    c = _comm(comm, where)
    opt = _Options(where, algorithm, monitor, options)
    p, rank = comm.Get_size(), comm.Get_rank()
    at_root = rank == root
    sv = None
    if at_root:
        sv = _b.vector(sendbuf, p, where, "sendbuf", writable=False, allow_alloc=False)
    if recvbuf is None:
        sizes = [(cnt, sv.buf.dtype.str) for cnt in sv.counts] if at_root else None
        cnt, dtype = comm.scatter(sizes, root=root)
        recvbuf = np.empty(cnt, dtype=np.dtype(dtype))
    in_place = _b.is_in_place(recvbuf)
    if in_place:
        if not at_root:
            raise _b.arg_error(where, "MPI.IN_PLACE is allowed at the root only")
        recv_addr, rcount, rtype, result = _IN_PLACE, sv.counts[rank], sv.buf.datatype, sv.buf.obj
    else:
        r = _b.regular(recvbuf, where, "recvbuf", writable=True)
        if at_root and _b.overlaps(sv.buf, r):
            raise _b.arg_error(where, "sendbuf and recvbuf share memory; use MPI.IN_PLACE")
        recv_addr, rcount, rtype, result = r.addr, r.count, r.datatype, r.obj
    if at_root:
        args = (sv.buf.addr, sv.c_counts, sv.c_displs, _capi.handle(sv.buf.datatype))
    else:
        args = (None, None, None, _capi.handle(MPI.DATATYPE_NULL))
    _b.check(_lib.papcoll_scatterv(*args, recv_addr, rcount, _capi.handle(rtype), int(root), c,
                                   opt.ref))
    return result


def gatherv(comm, sendbuf, recvbuf=None, root=0, algorithm="auto", monitor=None, **options):
    """MPI_Gatherv by papcoll. recvbuf (used at root only): (buf, counts[, displs]), a buffer
    split evenly, or (None, counts[, displs]) to allocate it with sendbuf's element type. sendbuf
    may be MPI.IN_PLACE at the root (its portion is already at displs[root]). Returns the receive
    buffer at the root, None elsewhere."""
    where = "papcoll.gatherv"
    c = _comm(comm, where)
    opt = _Options(where, algorithm, monitor, options)
    p, rank = comm.Get_size(), comm.Get_rank()
    at_root = rank == root
    in_place = _b.is_in_place(sendbuf)
    if in_place and not at_root:
        raise _b.arg_error(where, "MPI.IN_PLACE is allowed at the root only")
    s = None if in_place else _b.regular(sendbuf, where, "sendbuf", writable=False)
    rv = None
    if at_root:
        if recvbuf is None:
            raise _b.arg_error(where, "recvbuf is needed at the root: (buf, counts[, displs]) or "
                               "(None, counts[, displs])")
        rv = _b.vector(recvbuf, p, where, "recvbuf", writable=True, allow_alloc=not in_place)
        if rv.buf is None:
            _alloc_v(rv, s.dtype if rv.datatype is None else _b.numpy_dtype_of(rv.datatype))
        if _b.overlaps(s, rv.buf):
            raise _b.arg_error(where, "sendbuf and recvbuf share memory; use MPI.IN_PLACE")
    if in_place:
        send = (_IN_PLACE, 0, _capi.handle(rv.buf.datatype))
    else:
        send = (s.addr, s.count, _capi.handle(s.datatype))
    if at_root:
        recv = (rv.buf.addr, rv.c_counts, rv.c_displs, _capi.handle(rv.buf.datatype))
    else:
        recv = (None, None, None, _capi.handle(MPI.DATATYPE_NULL))
    _b.check(_lib.papcoll_gatherv(*send, *recv, int(root), c, opt.ref))
    return rv.buf.obj if at_root else None


_MODES = {"edge": 0, "history": 1}
_PREDICTORS = {"last": 0, "sma": 1, "ema": 2}
_SOURCES = {0: "none", 1: "edge", 2: "history"}


class Monitor:
    """A progress monitor (docs/prediction.md) over comm, created collectively. Per iteration:
    begin() when the computation starts, edge(f) when a fraction f of it is done, then a
    collective with monitor=this. `with mon:` calls begin() on entry (nothing on exit), so

        mon = papcoll.Monitor(comm)
        for step in ...:
            with mon:
                first_half(); mon.edge(0.5); second_half()
            papcoll.allreduce(comm, MPI.IN_PLACE, grads, monitor=mon, algorithm="prr")
        mon.close()       # collective; frees the monitor (also: free())

    mode "edge" (default, a background thread: needs MPI_THREAD_MULTIPLE, which mpi4py requests
    by default) or "history" (no thread; predictor "last", "sma" or "ema"). Other keywords set
    the fields of papcoll_monitor_config."""

    def __init__(self, comm, mode="edge", predictor="sma", **config):
        where = "papcoll.Monitor"
        c = _comm(comm, where)
        cfg = _capi.MonitorConfig()
        _lib.papcoll_monitor_config_init(ctypes.byref(cfg))
        try:
            cfg.mode = _MODES[mode] if isinstance(mode, str) else int(mode)
            cfg.predictor = _PREDICTORS[predictor] if isinstance(predictor, str) else int(predictor)
        except KeyError as e:
            raise _b.arg_error(where, "unknown mode or predictor %s" % e) from None
        for key, value in config.items():
            if key in ("window", "warmup_messages", "sync_samples", "poll_us", "history_sample"):
                setattr(cfg, key, int(value))
            elif key in ("ema_alpha", "horizon", "test_clock_offset", "history_spread"):
                setattr(cfg, key, float(value))
            else:
                raise TypeError("Monitor() got an unexpected keyword argument %r" % key)
        self._handle = ctypes.c_void_p()
        self._size = comm.Get_size()
        _b.check(_lib.papcoll_monitor_create_config(c, ctypes.byref(cfg),
                                                    ctypes.byref(self._handle)))

    def _live_handle(self, where):
        if not self._handle:
            raise _b.arg_error(where, "the monitor is closed")
        return self._handle

    @property
    def closed(self):
        return not self._handle

    def begin(self):
        """The computation of this iteration starts now (local)."""
        _b.check(_lib.papcoll_monitor_begin(self._live_handle("papcoll.Monitor.begin")))

    def edge(self, fraction):
        """A fraction (0 < fraction <= 1) of this iteration's computation is done (local)."""
        _b.check(_lib.papcoll_monitor_edge(self._live_handle("papcoll.Monitor.edge"),
                                           float(fraction)))

    def pattern(self):
        """(arrival pattern of the latest collective in seconds relative to the earliest rank,
        source: "edge", "history" or "none")."""
        out = np.zeros(self._size, dtype=np.float64)
        source = ctypes.c_int(0)
        _b.check(_lib.papcoll_monitor_pattern(self._live_handle("papcoll.Monitor.pattern"),
                                              out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                                              self._size, ctypes.byref(source)))
        return out, _SOURCES.get(source.value, str(source.value))

    def close(self):
        """Frees the monitor (collective over its communicator). Idempotent."""
        if self._handle:
            _b.check(_lib.papcoll_monitor_free(ctypes.byref(self._handle)))
            self._handle = ctypes.c_void_p()

    free = close

    def __enter__(self):
        self.begin()
        return self

    def __exit__(self, *exc):
        return False
