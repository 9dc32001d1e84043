"""papcoll.calibrate and papcoll.last_network: a communicator's network parameters from Python
(docs/calibration.md). Every call here is made on every rank alike, and every assertion comes
after the test's collective calls."""
import math

import numpy as np
import pytest

import papcoll

FIELDS = {"source", "alpha", "beta", "gamma", "alpha_intra", "beta_intra", "alpha_inter",
          "beta_inter", "gamma_float", "gamma_double", "gamma_int", "nodes",
          "calibration_seconds"}


def test_calibrate_agrees_on_every_rank(comm):
    c = comm.Dup()  # a communicator of its own: its parameters are settled here, not earlier
    try:
        net = papcoll.calibrate(c)
        again = papcoll.last_network()
        everyone = c.allgather(net)
    finally:
        c.Free()
    assert set(net) == FIELDS
    assert net == again
    assert all(e == net for e in everyone)  # the same values, bit for bit, on every rank
    if comm.Get_size() > 1:
        # Measured here, or an earlier run's cache file for these hosts, this size and this MPI.
        assert net["source"] in ("measured", "cache"), net
        assert net["alpha"] > 0 and net["beta"] > 0 and net["nodes"] >= 1, net
        assert 0 < net["alpha"] < 1e-2 and 0 < net["beta"] < 1e-6, net  # sane for any network
    else:
        assert net["source"] == "defaults", net  # nothing to measure with one rank


def test_given_parameters_hold_for_later_calls(comm):
    p = comm.Get_size()
    c = comm.Dup()
    try:
        given = papcoll.calibrate(c, alpha=3e-5, beta=2e-9)
        # PRR reads the parameters (its slot length); one rank late.
        x = np.arange(64.0) + c.Get_rank()
        arrivals = [0.0] * p
        arrivals[p - 1] = 0.01
        y = papcoll.allreduce(c, x, algorithm="prr", arrivals=arrivals)
        used = papcoll.last_network()
        papcoll.allreduce(c, x, algorithm="native")
        native = papcoll.last_network()
    finally:
        c.Free()
    assert given["source"] == "options" and given["alpha"] == 3e-5 and given["beta"] == 2e-9
    assert np.array_equal(y, np.arange(64.0) * p + p * (p - 1) / 2)
    if p > 1:
        assert used["source"] == "options", used
        assert used["alpha"] == 3e-5 and used["beta"] == 2e-9, used
    assert native["source"] == "none" and native["alpha"] == 0, native


def test_calibrate_errors(comm):
    with pytest.raises(papcoll.Error) as no_comm:
        papcoll.calibrate(None)
    with pytest.raises(papcoll.Error) as half:
        papcoll.calibrate(comm, alpha=1e-5)
    with pytest.raises(papcoll.Error) as not_finite:
        papcoll.calibrate(comm, alpha=math.nan, beta=1e-9)
    assert no_comm.value.code == papcoll.ERR_ARG
    assert half.value.code == papcoll.ERR_ARG and "alpha and beta" in half.value.message
    assert not_finite.value.code == papcoll.ERR_ARG and "not finite" in not_finite.value.message


def test_last_executor_costs(comm):
    """What auto measured once per communicator and weighed the call with: the same on every
    rank; nothing for a named row or the library's collective."""
    p = comm.Get_size()
    c = comm.Dup()
    try:
        x = np.arange(256, dtype=np.int64) + c.Get_rank()
        arrivals = [0.0] * p
        arrivals[p - 1] = 0.02
        y = papcoll.allreduce(c, x, algorithm="auto", arrivals=arrivals)
        costs = papcoll.last_executor_costs()
        everyone = c.allgather(costs)
        papcoll.allreduce(c, x, algorithm="native")
        native = papcoll.last_executor_costs()
    finally:
        c.Free()
    assert np.array_equal(y, np.arange(256) * p + p * (p - 1) // 2)
    assert set(costs) == {"step_overhead", "exchange_alpha", "exchange_beta"}
    assert all(e == costs for e in everyone)
    assert all(math.isfinite(v) and v >= 0 for v in costs.values()), costs
    assert native == {"step_overhead": 0, "exchange_alpha": 0, "exchange_beta": 0}, native
