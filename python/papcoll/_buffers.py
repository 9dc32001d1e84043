"""Buffer arguments in mpi4py's conventions, resolved to (address, count, datatype) without copying.

A buffer is any object with the buffer protocol (numpy arrays, array.array, bytearray, memoryview,
...) whose memory is contiguous; its MPI datatype comes from its element type (mpi4py's own table,
MPI._typedict) unless given. Specifications:

  regular side:  buf | (buf, datatype) | (buf, count) | (buf, count, datatype)
  v side:        buf | (buf, counts) | (buf, counts, displs) | (buf, (counts, displs))
                 each optionally followed by a datatype; counts may be one int (the same for
                 every rank); displs default to the packed prefix sums of counts; a plain buffer
                 is split evenly over the ranks. Counts and displacements are in elements
                 (extents) of the datatype. Where papcoll allocates the result, the buffer in a
                 v specification may be None: (None, counts), (None, counts, displs).
"""
import ctypes

import numpy as np
from mpi4py import MPI

from . import _capi


class Error(RuntimeError):
    """An error of papcoll: `code` is the C API's error code (papcoll.ERR_*), `message` the
    library's message (papcoll_last_error()) or, for an argument the Python layer refuses before
    any communication, its own."""

    def __init__(self, code, message):
        self.code = int(code)
        self.message = message
        name = _capi.lib.papcoll_error_string(self.code)
        name = name.decode() if name else "error %d" % self.code
        super().__init__("%s (%s, code %d)" % (message, name, self.code))


def arg_error(where, message):
    return Error(_capi.ERR_ARG, "%s: %s" % (where, message))


def check(rc):
    """Raises Error for a non-zero return code, with the library's message."""
    if rc != _capi.SUCCESS:
        msg = _capi.lib.papcoll_last_error()
        raise Error(rc, msg.decode(errors="replace") if msg else "")


def is_in_place(obj):
    return obj is MPI.IN_PLACE


def _is_buffer(obj):
    if isinstance(obj, np.ndarray):
        return True
    if isinstance(obj, (str, int, float, MPI.Datatype)):
        return False
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def _is_seq(obj):
    return isinstance(obj, (list, tuple, range, np.ndarray))


def datatype_of(dtype):
    """The predefined MPI datatype of a numpy dtype (None if there is none)."""
    if not dtype.isnative or dtype.kind not in "biufc?":
        return None
    return MPI._typedict.get(dtype.char)


def numpy_dtype_of(datatype):
    from mpi4py.util import dtlib
    return dtlib.to_numpy_dtype(datatype)


class Buf:
    """A resolved buffer: the user's object, a numpy view of its memory (never a copy), the
    address, the datatype, the element count and the datatype's extent in bytes."""
    __slots__ = ("obj", "array", "addr", "nbytes", "datatype", "count", "extent")

    def __init__(self, obj, array, datatype, count, extent):
        self.obj = obj
        self.array = array
        self.addr = array.__array_interface__["data"][0]
        self.nbytes = array.nbytes
        self.datatype = datatype
        self.count = count
        self.extent = extent

    @property
    def dtype(self):
        mine = datatype_of(self.array.dtype)
        return self.array.dtype if mine is not None and mine == self.datatype else \
            numpy_dtype_of(self.datatype)


def _memory(obj, where, what, writable):
    """A numpy view of obj's memory, checked for contiguity and writability."""
    if isinstance(obj, np.ndarray):
        arr = obj
    else:
        try:
            mv = memoryview(obj)
        except TypeError:
            raise arg_error(where, "%s (%s) does not support the buffer protocol"
                            % (what, type(obj).__name__)) from None
        try:
            arr = np.asarray(mv)
        except (TypeError, ValueError, NotImplementedError):
            arr = np.asarray(mv.cast("B")) if mv.contiguous else None
            if arr is None:
                raise arg_error(where, "%s is not contiguous" % what) from None
    if not (arr.flags.c_contiguous or arr.flags.f_contiguous):
        raise arg_error(where, "%s is not contiguous in memory" % what)
    if writable and not arr.flags.writeable:
        raise arg_error(where, "%s is read-only" % what)
    return arr


def _datatype(arr, datatype, where, what):
    if datatype is None:
        datatype = datatype_of(arr.dtype)
        if datatype is None:
            raise arg_error(where, "%s has element type %s, which has no predefined MPI datatype; "
                            "give one as (buffer, datatype)" % (what, arr.dtype))
        return datatype, arr.itemsize, arr.size
    if not isinstance(datatype, MPI.Datatype):
        raise arg_error(where, "%s: %r is not an MPI datatype" % (what, datatype))
    extent = datatype.Get_extent()[1]
    if extent <= 0:
        raise arg_error(where, "%s: datatype %s has no positive extent" % (what, datatype))
    return datatype, extent, arr.nbytes // extent


def _split(spec):
    """(buffer, middle items, datatype or None) of a specification."""
    if isinstance(spec, (tuple, list)) and spec and (spec[0] is None or _is_buffer(spec[0])):
        items = list(spec[1:])
        datatype = None
        if items and isinstance(items[-1], MPI.Datatype):
            datatype = items.pop()
        return spec[0], items, datatype
    return spec, [], None


def regular(spec, where, what, writable):
    """Resolves a regular-side specification to a Buf."""
    obj, items, datatype = _split(spec)
    if obj is None:
        raise arg_error(where, "%s is None" % what)
    if len(items) > 1:
        raise arg_error(where, "%s: expected buf, (buf, datatype), (buf, count) or "
                        "(buf, count, datatype)" % what)
    arr = _memory(obj, where, what, writable)
    datatype, extent, available = _datatype(arr, datatype, where, what)
    count = available
    if items:
        count = items[0]
        if not isinstance(count, (int, np.integer)) or count < 0 or count > available:
            raise arg_error(where, "%s: count %r is not in [0, %d], the elements the buffer holds"
                            % (what, count, available))
        count = int(count)
    return Buf(obj, arr, datatype, count, extent)


def _int_list(values, p, where, what):
    if isinstance(values, (int, np.integer)):
        return [int(values)] * p
    if not _is_seq(values):
        raise arg_error(where, "%s must be an int or a sequence of %d ints" % (what, p))
    out = list(values)
    if len(out) != p:
        raise arg_error(where, "%s has %d entries, the communicator %d ranks" % (what, len(out), p))
    for v in out:
        if not isinstance(v, (int, np.integer)):
            raise arg_error(where, "%s holds %r, not an int" % (what, v))
        if v < 0:
            raise arg_error(where, "%s holds a negative value (%d)" % (what, v))
    return [int(v) for v in out]


class VBuf:
    """A resolved v-side buffer: Buf (or None when papcoll is to allocate it), counts, displs,
    their ctypes arrays, and the datatype when the buffer is still to be allocated."""

    def __init__(self, buf, counts, displs, datatype):
        self.buf = buf
        self.counts = counts
        self.displs = displs
        self.datatype = datatype
        p = len(counts)
        self.c_counts = (ctypes.c_int * p)(*counts)
        self.c_displs = (ctypes.c_int * p)(*displs)

    @property
    def span(self):
        """Elements from the start of the buffer to the end of the farthest portion."""
        return max([d + c for c, d in zip(self.counts, self.displs) if c > 0], default=0)


def vector(spec, p, where, what, writable, allow_alloc):
    """Resolves a v-side specification for a communicator of p ranks."""
    obj, items, datatype = _split(spec)
    counts = displs = None
    if len(items) == 1:
        item = items[0]
        if isinstance(item, (tuple, list)) and len(item) == 2 and \
                (item[0] is None or _is_seq(item[0])):
            counts, displs = item
        else:
            counts = item
    elif len(items) == 2:
        counts, displs = items
    elif len(items) > 2:
        raise arg_error(where, "%s: expected buf, (buf, counts), (buf, counts, displs) or "
                        "(buf, (counts, displs)), optionally followed by a datatype" % what)
    if counts is not None:
        counts = _int_list(counts, p, where, what + " counts")
    if displs is not None:
        displs = _int_list(displs, p, where, what + " displacements")
    buf = None
    if obj is None:
        if not allow_alloc:
            raise arg_error(where, "%s is None" % what)
        if counts is None:
            raise arg_error(where, "%s: (None, counts) needs the counts" % what)
    else:
        arr = _memory(obj, where, what, writable)
        datatype, extent, available = _datatype(arr, datatype, where, what)
        buf = Buf(obj, arr, datatype, available, extent)
        if counts is None:
            if available % p:
                raise arg_error(where, "%s holds %d elements, which %d ranks cannot share evenly; "
                                "give the counts as (buffer, counts)" % (what, available, p))
            counts = [available // p] * p
    if displs is None:
        displs, at = [], 0
        for c in counts:
            displs.append(at)
            at += c
    if max(displs, default=0) >= 2**31 or sum(counts) >= 2**31:
        raise arg_error(where, "%s: counts or displacements beyond the range of a C int" % what)
    v = VBuf(buf, counts, displs, datatype)
    if buf is not None and v.span > buf.count:
        raise arg_error(where, "%s holds %d elements, but the counts and displacements reach "
                        "element %d" % (what, buf.count, v.span))
    return v


def allocate(count, dtype, like=None):
    """A new numpy array for a result: like `like` (same shape and memory order) when it has
    `count` elements of `dtype`, else one-dimensional."""
    if like is not None and like.size == count and like.dtype == dtype:
        return np.empty_like(like)
    return np.empty(count, dtype=dtype)


def overlaps(a, b):
    """Whether two resolved buffers share memory (MPI forbids aliasing send and receive)."""
    if a is None or b is None or not a.nbytes or not b.nbytes:
        return False
    return a.addr < b.addr + b.nbytes and b.addr < a.addr + a.nbytes
