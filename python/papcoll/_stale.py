"""The bounded-staleness all-reduce (include/papcoll/stale.h; docs/python.md, "Bounded
staleness"): a handle over a communicator for a sequence of sum all-reduces of one buffer shape,
in which a call does not wait for ranks later than a deadline; their contributions are folded into
a later call (at most `staleness` calls later), never dropped, never counted twice."""
import ctypes

from mpi4py import MPI

from . import _buffers as _b
from . import _capi

_lib = _capi.lib
_IN_PLACE = ctypes.c_void_p(_capi.IN_PLACE_ADDR)


class StaleAllreduce:
    """Bounded-staleness sum all-reduce over `comm` (collective constructor).

        st = papcoll.StaleAllreduce(comm, grads, staleness=1, deadline=0.002)
        for step in ...:
            compute(grads)
            _, n = st.allreduce(MPI.IN_PLACE, grads)   # grads: the sum of n contributions
            theta -= lr * grads / n                   # n may be 0: nothing arrived in time
        total, n = st.flush()                          # what the last calls left pending
        if n: theta -= lr * total / n
        st.close()                                     # collective

    `like`: a buffer whose element count and type every call uses (numpy array, any buffer,
    (buf, datatype)), or a pair (count, numpy dtype). staleness (S >= 0, in calls): a rank's
    contribution is in a call at most S calls after it made it; 0 waits for every rank at every
    call (then each call is an exact all-reduce with n == comm.size). deadline (seconds, default
    0.002): how long a call waits for the others after the first rank arrived. algorithm: the
    all-reduce papcoll runs between the ranks' background threads (default auto). Every rank
    gets the same result and count for every call. Needs MPI_THREAD_MULTIPLE (mpi4py's
    default)."""

    def __init__(self, comm, like, staleness=1, deadline=None, algorithm=None, poll_us=None):
        where = "papcoll.StaleAllreduce"
        if not isinstance(comm, MPI.Comm) or comm == MPI.COMM_NULL:
            raise _b.arg_error(where, "comm must be an mpi4py communicator, not %r" % (comm,))
        if isinstance(like, tuple) and len(like) == 2 and isinstance(like[0], int) and \
                not _b._is_buffer(like[0]):
            import numpy as np
            count, dtype = like
            dtype = np.dtype(dtype)
            datatype = _b.datatype_of(dtype)
            if datatype is None:
                raise _b.arg_error(where, "dtype %s has no predefined MPI datatype" % dtype)
        else:
            buf = _b.regular(like, where, "like", writable=False)
            count, datatype = buf.count, buf.datatype
        self.count = int(count)
        self.datatype = datatype
        self.dtype = _b.numpy_dtype_of(datatype)
        self.staleness = int(staleness)
        cfg = _capi.StaleConfig()
        _lib.papcoll_stale_config_init(ctypes.byref(cfg))
        cfg.staleness = self.staleness
        if deadline is not None:
            cfg.deadline = float(deadline)
        if algorithm is not None:
            self._algorithm = str(algorithm).encode()
            cfg.algorithm = self._algorithm
        if poll_us is not None:
            cfg.poll_us = int(poll_us)
        self.deadline = cfg.deadline
        self.size = comm.Get_size()
        self._handle = ctypes.c_void_p()
        _b.check(_lib.papcoll_stale_create(_capi.handle(comm), self.count, _capi.handle(datatype),
                                           _capi.handle(MPI.SUM), ctypes.byref(cfg),
                                           ctypes.byref(self._handle)))

    @property
    def closed(self):
        return not self._handle

    def _live(self, where):
        if not self._handle:
            raise _b.arg_error(where, "the handle is closed")
        return self._handle

    def _buffer(self, spec, where, what, writable):
        buf = _b.regular(spec, where, what, writable=writable)
        if buf.datatype != self.datatype or buf.count != self.count:
            raise _b.arg_error(where, "%s has %d elements of %s; this handle is for %d of %s"
                               % (what, buf.count, buf.datatype.Get_name(), self.count,
                                  self.datatype.Get_name()))
        return buf

    def _result(self, recvbuf, where):
        if recvbuf is None:
            import numpy as np
            recvbuf = np.empty(self.count, dtype=self.dtype)
        return self._buffer(recvbuf, where, "recvbuf", writable=True)

    def allreduce(self, sendbuf, recvbuf=None):
        """One call: contributes sendbuf (MPI.IN_PLACE: recvbuf's contents); returns
        (recvbuf, n), recvbuf holding the sum of the n contributions this call included (the
        same on every rank). recvbuf None: allocated. Returns at once when this rank arrives
        after the call completed without it (its buffer then joins a later call)."""
        where = "papcoll.StaleAllreduce.allreduce"
        h = self._live(where)
        if _b.is_in_place(sendbuf):
            if recvbuf is None:
                raise _b.arg_error(where, "MPI.IN_PLACE needs recvbuf")
            r = self._buffer(recvbuf, where, "recvbuf", writable=True)
            send = _IN_PLACE
        else:
            s = self._buffer(sendbuf, where, "sendbuf", writable=False)
            r = self._result(recvbuf, where)
            if _b.overlaps(s, r):
                raise _b.arg_error(where, "sendbuf and recvbuf share memory; use MPI.IN_PLACE")
            send = ctypes.c_void_p(s.addr)
        n = ctypes.c_longlong(0)
        _b.check(_lib.papcoll_stale_allreduce(h, send, ctypes.c_void_p(r.addr), ctypes.byref(n)))
        return r.obj, n.value

    def flush(self, recvbuf=None):
        """Collective, waits for every rank: (recvbuf, n) with the sum of the n contributions
        still pending (late ones no call included yet; n == 0 and zeros when none). Call it after
        the last allreduce() and apply its result like a call's."""
        where = "papcoll.StaleAllreduce.flush"
        h = self._live(where)
        r = self._result(recvbuf, where)
        n = ctypes.c_longlong(0)
        _b.check(_lib.papcoll_stale_flush(h, ctypes.c_void_p(r.addr), ctypes.byref(n)))
        return r.obj, n.value

    def close(self):
        """Collective: stops the background thread and frees the handle. Raises Error (ERR_ARG,
        on every rank) when contributions were still pending (no flush() after the last call);
        the handle is freed anyway. Idempotent."""
        if self._handle:
            h = self._handle
            self._handle = ctypes.c_void_p()
            _b.check(_lib.papcoll_stale_free(ctypes.byref(h)))

    free = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
