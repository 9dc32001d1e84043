"""Shared fixtures of the papcoll Python tests. Run under mpirun: every rank runs every test in
the same order, so each test makes the same collective calls on every rank and asserts only after
its calls (an assertion failing on one rank must not leave the others waiting in a collective)."""
import numpy as np
import pytest
from mpi4py import MPI

import papcoll


@pytest.fixture
def comm():
    return MPI.COMM_WORLD


def rng_for(comm, salt):
    """A generator with a seed that differs per rank and per test, identical across runs."""
    return np.random.default_rng(1000 * salt + comm.Get_rank())


def shared_rng(salt):
    """The same generator on every rank (for shapes every rank must agree on)."""
    return np.random.default_rng(7919 * salt + 17)


def pytest_report_header(config):
    return "papcoll %s from %s, MPI ranks: %d" % (papcoll.__version__, papcoll.__file__,
                                                  MPI.COMM_WORLD.Get_size())


# Under mpirun every rank runs pytest: only rank 0 reports as usual; the others write their report
# into a buffer and print it (each line prefixed with the rank) only when a test failed there.
_quiet = {}


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if MPI.COMM_WORLD.Get_rank() > 0:
        import io
        import sys
        _quiet["stdout"], _quiet["buffer"] = sys.stdout, io.StringIO()
        sys.stdout = _quiet["buffer"]      # the terminal reporter, created next, writes here


def pytest_unconfigure(config):
    if "buffer" in _quiet:
        import sys
        sys.stdout = _quiet["stdout"]
        lines = _quiet.pop("buffer").getvalue().splitlines()
        if lines and ("failed" in lines[-1] or "error" in lines[-1]):
            rank = MPI.COMM_WORLD.Get_rank()
            print("".join("[rank %d] %s\n" % (rank, line) for line in lines), end="")
