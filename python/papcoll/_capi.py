"""ctypes declarations of the C API (include/papcoll/papcoll.h) and the loaded library.

The library is papcoll/_lib/libpapcoll.so, built by setup.py with CMake against the MPI of
`mpicc`; PAPCOLL_LIBRARY in the environment names another file (e.g. a development build's
build/lib/libpapcoll.so). It must be linked to the same MPI library as mpi4py: the MPI handles
are passed through unchanged.
"""
import ctypes
import os

from mpi4py import MPI

from ctypes import POINTER, c_char_p, c_double, c_int, c_void_p


def _library_path():
    env = os.environ.get("PAPCOLL_LIBRARY")
    if env:
        return env
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib", "libpapcoll.so")
    if not os.path.exists(here):
        raise ImportError("papcoll: the shared library is missing (" + here + "); install the "
                          "package with `pip install .` from the repository root, or set "
                          "PAPCOLL_LIBRARY to a built libpapcoll.so")
    return here


lib = ctypes.CDLL(_library_path())

# MPI handles as the C API sees them: pointers in Open MPI, ints in MPICH and its derivatives.
Handle = c_void_p if MPI._sizeof(MPI.COMM_WORLD) == ctypes.sizeof(c_void_p) else c_int


def handle(obj):
    """The C handle of an mpi4py object (communicator, datatype, op)."""
    return Handle(MPI._handleof(obj))


# MPI_IN_PLACE is a special address ((void *) 1 in Open MPI); mpi4py exposes its value.
IN_PLACE_ADDR = int(MPI.IN_PLACE)

SUCCESS = 0
ERR_ARG = 1
ERR_ALGORITHM = 2
ERR_OP = 3
ERR_ARRIVALS = 4
ERR_MPI = 5
ERR_INTERNAL = 6
ERR_THREAD = 7
ERR_MODEL = 8
ERR_PEER = 9


class Options(ctypes.Structure):
    """struct papcoll_options (PAPCOLL_OPTIONS_VERSION 2)."""
    _fields_ = [("version", c_int),
                ("algorithm", c_char_p),
                ("blocks", c_int),
                ("arrivals", POINTER(c_double)),
                ("arrivals_agreed", c_int),
                ("alpha", c_double),
                ("beta", c_double),
                ("gamma", c_double),
                ("arrivals_count", c_int),
                ("monitor", c_void_p),
                ("monitor_site", c_int),
                ("model_file", c_char_p)]


class MonitorConfig(ctypes.Structure):
    """struct papcoll_monitor_config (PAPCOLL_MONITOR_CONFIG_VERSION 2)."""
    _fields_ = [("version", c_int),
                ("mode", c_int),
                ("predictor", c_int),
                ("window", c_int),
                ("ema_alpha", c_double),
                ("warmup_messages", c_int),
                ("sync_samples", c_int),
                ("horizon", c_double),
                ("poll_us", c_int),
                ("test_clock_offset", c_double),
                ("history_sample", c_int),
                ("history_spread", c_double)]


class NetworkInfo(ctypes.Structure):
    """struct papcoll_network_info (PAPCOLL_NETWORK_INFO_VERSION 1)."""
    _fields_ = [("version", c_int),
                ("source", c_int),
                ("alpha", c_double),
                ("beta", c_double),
                ("gamma", c_double),
                ("alpha_intra", c_double),
                ("beta_intra", c_double),
                ("alpha_inter", c_double),
                ("beta_inter", c_double),
                ("gamma_float", c_double),
                ("gamma_double", c_double),
                ("gamma_int", c_double),
                ("nodes", c_int),
                ("calibration_seconds", c_double)]


class ExecutorCosts(ctypes.Structure):
    """struct papcoll_executor_costs (PAPCOLL_EXECUTOR_COSTS_VERSION 1)."""
    _fields_ = [("version", c_int),
                ("step_overhead", c_double),
                ("exchange_alpha", c_double),
                ("exchange_beta", c_double)]


class StaleConfig(ctypes.Structure):
    """struct papcoll_stale_config (include/papcoll/stale.h, PAPCOLL_STALE_CONFIG_VERSION 1)."""
    _fields_ = [("version", c_int),
                ("staleness", c_int),
                ("deadline", c_double),
                ("algorithm", c_char_p),
                ("poll_us", c_int)]


# enum papcoll_network_source, by name.
NETWORK_SOURCES = {-1: "none", 0: "defaults", 1: "measured", 2: "cache", 3: "environment",
                   4: "model_file", 5: "options"}


def _declare(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


_opt = POINTER(Options)
_ints = POINTER(c_int)
_declare("papcoll_options_init", None, _opt)
_declare("papcoll_allreduce", c_int, c_void_p, c_void_p, c_int, Handle, Handle, Handle, _opt)
_declare("papcoll_reduce", c_int, c_void_p, c_void_p, c_int, Handle, Handle, c_int, Handle, _opt)
_declare("papcoll_bcast", c_int, c_void_p, c_int, Handle, c_int, Handle, _opt)
_declare("papcoll_allgatherv", c_int, c_void_p, c_int, Handle, c_void_p, _ints, _ints, Handle,
         Handle, _opt)
_declare("papcoll_scatterv", c_int, c_void_p, _ints, _ints, Handle, c_void_p, c_int, Handle, c_int,
         Handle, _opt)
_declare("papcoll_gatherv", c_int, c_void_p, c_int, Handle, c_void_p, _ints, _ints, Handle, c_int,
         Handle, _opt)
_declare("papcoll_monitor_config_init", None, POINTER(MonitorConfig))
_declare("papcoll_monitor_create_config", c_int, Handle, POINTER(MonitorConfig), POINTER(c_void_p))
_declare("papcoll_monitor_begin", c_int, c_void_p)
_declare("papcoll_monitor_edge", c_int, c_void_p, c_double)
_declare("papcoll_monitor_pattern", c_int, c_void_p, POINTER(c_double), c_int, _ints)
_declare("papcoll_monitor_free", c_int, POINTER(c_void_p))
_declare("papcoll_error_string", c_char_p, c_int)
_declare("papcoll_last_error", c_char_p)
_declare("papcoll_last_algorithm", c_char_p)
_declare("papcoll_algorithms", c_char_p, c_char_p)
_declare("papcoll_stale_config_init", None, POINTER(StaleConfig))
_declare("papcoll_stale_create", c_int, Handle, c_int, Handle, Handle, POINTER(StaleConfig),
         POINTER(c_void_p))
_declare("papcoll_stale_allreduce", c_int, c_void_p, c_void_p, c_void_p, POINTER(ctypes.c_longlong))
_declare("papcoll_stale_flush", c_int, c_void_p, c_void_p, POINTER(ctypes.c_longlong))
_declare("papcoll_stale_free", c_int, POINTER(c_void_p))
_declare("papcoll_report_write", c_int, c_char_p)
_declare("papcoll_network_info_init", None, POINTER(NetworkInfo))
_declare("papcoll_calibrate", c_int, Handle, _opt)
_declare("papcoll_last_network", c_int, POINTER(NetworkInfo))
_declare("papcoll_executor_costs_init", None, POINTER(ExecutorCosts))
_declare("papcoll_last_executor_costs", c_int, POINTER(ExecutorCosts))
