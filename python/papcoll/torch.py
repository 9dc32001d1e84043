"""papcoll.torch: PyTorch DistributedDataParallel communication hooks running papcoll's
all-reduce (docs/training.md). Imported on its own (`import papcoll.torch`): papcoll itself does
not need torch.

    from mpi4py import MPI
    import torch, papcoll.torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    papcoll.torch.init_process_group(MPI.COMM_WORLD)      # Gloo beside mpi4py (rank/size from MPI)
    model = DDP(net)
    hook = papcoll.torch.register(model)                    # exact: DDP's allreduce_hook's result
    # or papcoll.torch.register(model, staleness=1)         # bounded staleness (opt-in)
    for x, y in data:
        opt.zero_grad(); loss(model(x), y).backward(); opt.step()
    if hook.flush():                                        # staleness: what is still pending
        opt.step()
    hook.close()                                            # collective

Two hooks:
  - exact (staleness=0, the default): each bucket's gradients are divided by the number of ranks
    and summed by papcoll in place on the bucket's own buffer (no copy; MPI.IN_PLACE on a numpy
    view of the tensor), so the result is DDP's allreduce_hook's up to the order of the sum.
    Options: algorithm (default "auto"); wait: "spin" runs papcoll.allreduce at once on the
    backward pass's thread (arrival-aware algorithms can start before the last rank comes, and
    waiting ranks poll in MPI), "sleep" through a staleness-0 papcoll.StaleAllreduce (waiting
    ranks sleep, the all-reduce starts when every rank is in: for ranks that share cores, where a
    spinning rank takes the CPU a late one needs), "auto" (default) "sleep" when some host runs
    more ranks than it has cores, else "spin"; monitor, with "spin" ("history": papcoll's arrival
    history with sampling, no thread, default; "edge": a progress monitor thread fed by forward
    hooks of the module, begin() before the forward pass and edge(edge_fraction) after it;
    None).
  - bounded staleness (staleness=S >= 1): papcoll.StaleAllreduce per bucket; a step's all-reduce
    does not wait for ranks later than `deadline` seconds after the first; their gradients join a
    later step (at most S steps later), never dropped or applied twice, and every rank applies the
    same update: the mean of the gradients the step's all-reduce included. The first step runs
    exactly (DDP may rebuild its buckets after it); flush() at the end gives what is pending.

Both record their calls in papcoll's straggler report when PAPCOLL_REPORT is set in the
environment before papcoll is imported (docs/report-format.md): report=PATH writes it at close().
"""
import os
import socket
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist
from mpi4py import MPI

import papcoll

__all__ = ["init_process_group", "register", "PapcollHook", "allreduce_hook", "stale_hook"]

# The dtypes papcoll can sum in place (a predefined MPI type through numpy); others go through a
# float32 copy.
_IN_PLACE_DTYPES = {torch.float32, torch.float64}


def init_process_group(comm=None, backend="gloo", timeout=timedelta(minutes=5)):
    """The default process group of torch.distributed beside an mpi4py communicator (collective
    over comm, default MPI.COMM_WORLD): rank and world size from comm, a TCP store served by
    comm rank 0 on a free port it picks (sent to the others over MPI, so concurrent jobs never
    collide), at 127.0.0.1 when every rank is on one host, else at rank 0's host name
    (MASTER_ADDR / MASTER_PORT in the environment take precedence). Returns the process group;
    does nothing when one is already initialised."""
    comm = MPI.COMM_WORLD if comm is None else comm
    if dist.is_initialized():
        return dist.group.WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    hosts = comm.allgather(socket.gethostname())
    host = os.environ.get("MASTER_ADDR") or ("127.0.0.1" if len(set(hosts)) == 1 else hosts[0])
    port = int(os.environ.get("MASTER_PORT", "0"))
    store, error = None, None
    if rank == 0:
        try:
            # wait_for_workers=False: the others learn the port only after this returns.
            store = dist.TCPStore(host, port, size, True, timeout=timeout,
                                  wait_for_workers=False)
            port = store.port
        except Exception as e:  # every rank must learn of it, or the others wait forever
            error = "%s: %s" % (type(e).__name__, e)
    port, error = comm.bcast((port, error), root=0)
    if error is not None:
        raise RuntimeError("papcoll.torch.init_process_group: rank 0 could not start the TCP "
                           "store at %s:%d: %s" % (host, port, error))
    if rank != 0:
        store = dist.TCPStore(host, port, size, False, timeout=timeout)
    dist.init_process_group(backend, store=store, rank=rank, world_size=size, timeout=timeout)
    return dist.group.WORLD


def _ranks_share_cores(comm):
    """Whether this host runs more of comm's ranks than it has cores for this process (the rule
    papcoll's block counts use, docs/circulant.md)."""
    host = comm.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        ranks = host.Get_size()
    finally:
        host.Free()
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return ranks > cores


def _done(tensor):
    fut = torch.futures.Future()
    fut.set_result(tensor)
    return fut


def _as_array(tensor):
    """A numpy view of a contiguous CPU tensor's memory (never a copy)."""
    return tensor.detach().numpy()


class PapcollHook:
    """The state of papcoll's DDP comm hook (see the module's documentation); made by
    register(). Attributes: comm, algorithm, staleness, deadline, calls (all-reduces so far),
    contributions (per stale call, the number of gradients it included, when keep_counts)."""

    def __init__(self, comm=None, algorithm="auto", monitor="history", staleness=0,
                 deadline=0.002, report=None, edge_fraction=1.0 / 3.0, keep_counts=True,
                 wait="auto"):
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.size = self.comm.Get_size()
        if wait not in ("auto", "spin", "sleep"):
            raise ValueError("wait must be 'auto', 'spin' or 'sleep', not %r" % (wait,))
        if wait == "auto":
            wait = "sleep" if self.comm.allreduce(_ranks_share_cores(self.comm), op=MPI.LOR) \
                else "spin"
        self.wait = wait
        self.algorithm = algorithm
        self.staleness = int(staleness)
        if self.staleness < 0:
            raise ValueError("staleness must be >= 0")
        self.deadline = float(deadline)
        self.report = report
        self.edge_fraction = float(edge_fraction)
        self.calls = 0
        self.keep_counts = keep_counts
        self.contributions = []
        self._handles = {}      # bucket index -> (StaleAllreduce, layout, parameter places)
        self._bucket_of = {}    # id(parameter) -> bucket index
        self.last_counts = {}   # bucket index -> gradients its latest call (or flush) included
        self._warm = False      # the first step is over (stale: from then on)
        self._module_hooks = []
        if report is not None and not os.environ.get("PAPCOLL_REPORT"):
            raise papcoll.Error(papcoll.ERR_ARG, "papcoll.torch: report=%r needs PAPCOLL_REPORT "
                                "in the environment before papcoll is imported (the library "
                                "records only then)" % (report,))
        if monitor not in (None, "history", "edge"):
            raise ValueError("monitor must be 'history', 'edge' or None, not %r" % (monitor,))
        self._waits = {}        # wait="sleep": bucket index -> (StaleAllreduce S=0, layout)
        self.monitor_mode = monitor if self.staleness == 0 and self.wait == "spin" else None
        self.monitor = None
        if self.monitor_mode == "history":
            self.monitor = papcoll.Monitor(self.comm, mode="history", predictor="sma",
                                           history_sample=16)
        elif self.monitor_mode == "edge":
            self.monitor = papcoll.Monitor(self.comm)

    # -- the module's forward hooks (monitor="edge"): this step's computation starts before the
    # forward pass; after it, edge_fraction of the step's computation is done (the forward is
    # about a third of forward + backward).
    def attach(self, module):
        if self.monitor_mode == "edge":
            mon, fraction = self.monitor, self.edge_fraction
            self._module_hooks.append(module.register_forward_pre_hook(
                lambda m, inp: mon.begin()))
            self._module_hooks.append(module.register_forward_hook(
                lambda m, inp, out: mon.edge(fraction)))

    def exact(self, bucket):
        """DDP's allreduce_hook by papcoll: divide by the number of ranks, sum in place."""
        tensor = bucket.buffer()
        tensor.div_(self.size)
        if self.wait == "sleep" and tensor.dtype in _IN_PLACE_DTYPES and \
                tensor.device.type == "cpu":
            self._sleeping_allreduce(tensor, bucket.index())
        else:
            self._allreduce(tensor, bucket.index())
        self.calls += 1
        return _done(tensor)

    def _sleeping_allreduce(self, tensor, index):
        """The exact sum through a staleness-0 handle: this thread sleeps on a condition variable
        until every rank is in, the handle's threads poll with sleeps, and the all-reduce starts
        when all are there, so no waiting rank spins in MPI on a core a late rank needs."""
        layout = (tensor.numel(), tensor.dtype)
        entry = self._waits.get(index)
        if entry is None or entry[1] != layout:
            # DDP rebuilt its buckets (after the first step): every rank sees it alike.
            if entry is not None:
                entry[0].close()
            entry = self._waits[index] = (papcoll.StaleAllreduce(
                self.comm, _as_array(tensor), staleness=0, algorithm=self.algorithm), layout)
        _, n = entry[0].allreduce(MPI.IN_PLACE, _as_array(tensor))
        assert n == self.size, "a staleness-0 call included %d of %d ranks" % (n, self.size)

    def _allreduce(self, tensor, index):
        options = {}
        if self.monitor is not None:
            options = {"monitor": self.monitor, "monitor_site": index + 1}
        if tensor.dtype in _IN_PLACE_DTYPES and tensor.is_contiguous() and \
                tensor.device.type == "cpu":
            papcoll.allreduce(self.comm, MPI.IN_PLACE, _as_array(tensor),
                              algorithm=self.algorithm, **options)
        else:
            work = tensor.to(device="cpu", dtype=torch.float32).contiguous()
            papcoll.allreduce(self.comm, MPI.IN_PLACE, _as_array(work),
                              algorithm=self.algorithm, **options)
            tensor.copy_(work)

    def stale(self, bucket):
        """Bounded staleness: the mean of the gradients this step's call included."""
        tensor = bucket.buffer()
        index = bucket.index()
        if not self._warm:
            # DDP may rebuild its buckets after the first step (from the order gradients became
            # ready): the stale handles are made for the buckets it keeps.
            out = self.exact(bucket)
            if bucket.is_last():
                self._warm = True
            return out
        if tensor.dtype not in _IN_PLACE_DTYPES or tensor.device.type != "cpu":
            raise TypeError("papcoll.torch: staleness needs float32 or float64 CPU gradients, "
                            "not %s on %s" % (tensor.dtype, tensor.device))
        layout = (tensor.numel(), tensor.dtype, tuple(id(p) for p in bucket.parameters()))
        entry = self._handles.get(index)
        if entry is None:
            handle = papcoll.StaleAllreduce(self.comm, _as_array(tensor),
                                            staleness=self.staleness, deadline=self.deadline,
                                            algorithm=self.algorithm)
            base = tensor.data_ptr()
            size = tensor.element_size()
            places = [(p, (g.data_ptr() - base) // size, g.numel())
                      for p, g in zip(bucket.parameters(), bucket.gradients())]
            entry = self._handles[index] = (handle, layout, places)
            for p in bucket.parameters():
                self._bucket_of[id(p)] = index
        elif entry[1] != layout:
            # Every rank sees the same buckets, so every rank raises here alike.
            raise RuntimeError("papcoll.torch: DDP changed bucket %d after the first step; the "
                               "bounded-staleness hook needs the buckets to stay as they are "
                               "(their pending gradients belong to them)" % index)
        _, n = entry[0].allreduce(MPI.IN_PLACE, _as_array(tensor))
        if n > 0:
            tensor.div_(n)
        else:
            tensor.zero_()
        self.calls += 1
        self.last_counts[index] = n
        if self.keep_counts:
            self.contributions.append(n)
        return _done(tensor)

    def last_count(self, param):
        """The number of gradients the latest stale call (or flush) of param's bucket included
        (its .grad is their mean); None before its first stale call."""
        index = self._bucket_of.get(id(param))
        return None if index is None else self.last_counts.get(index)

    def flush(self):
        """Collective. The bounded-staleness hook's pending gradients (late ranks' ones that no
        call included yet, at most S steps' worth): sets each parameter's .grad to their mean
        per bucket (None for buckets with nothing pending) and returns how many gradients that
        was, summed over buckets (0: nothing to apply). Call optimizer.step() when it is > 0.
        The exact hook has nothing pending: returns 0."""
        total = 0
        for index in sorted(self._handles):
            handle, layout, places = self._handles[index]
            out, n = handle.flush()
            total += n
            self.last_counts[index] = n
            for p, offset, numel in places:
                if n > 0:
                    p.grad = torch.from_numpy(out[offset:offset + numel] / n).view_as(p).to(p.dtype)
                else:
                    p.grad = None
        return total

    def close(self):
        """Collective: frees the handles and the monitor, writes the report when report=PATH
        (papcoll.write_report, collective over MPI.COMM_WORLD). Idempotent."""
        for h in self._module_hooks:
            h.remove()
        self._module_hooks = []
        handles, self._handles = self._handles, {}
        for index in sorted(handles):
            handles[index][0].close()
        waits, self._waits = self._waits, {}
        for index in sorted(waits):
            waits[index][0].close()
        if self.monitor is not None:
            self.monitor.close()
            self.monitor = None
        if self.report is not None:
            papcoll.write_report(self.report)
            self.report = None


def allreduce_hook(state, bucket):
    """The exact hook: register with ddp.register_comm_hook(PapcollHook(...), allreduce_hook)."""
    return state.exact(bucket)


def stale_hook(state, bucket):
    """The bounded-staleness hook (state.staleness >= 1)."""
    return state.stale(bucket)


def register(ddp_model, comm=None, algorithm="auto", monitor="history", staleness=0,
             deadline=0.002, report=None, edge_fraction=1.0 / 3.0, keep_counts=True,
             wait="auto"):
    """Registers papcoll's comm hook on a DistributedDataParallel model and returns its state
    (PapcollHook): exact when staleness == 0, else bounded staleness. Collective over comm
    (default MPI.COMM_WORLD, whose ranks must be the process group's in the same order)."""
    comm = MPI.COMM_WORLD if comm is None else comm
    mine = (comm.Get_rank(), comm.Get_size()) != (dist.get_rank(), dist.get_world_size())
    if comm.allreduce(mine, op=MPI.LOR):  # every rank raises alike
        raise papcoll.Error(papcoll.ERR_ARG, "papcoll.torch.register: the communicator's ranks "
                            "differ from the process group's (rank %d of %d here, %d of %d in "
                            "the group)" % (comm.Get_rank(), comm.Get_size(), dist.get_rank(),
                                            dist.get_world_size()))
    state = PapcollHook(comm, algorithm=algorithm, monitor=monitor, staleness=staleness,
                        deadline=deadline, report=report, edge_fraction=edge_fraction,
                        keep_counts=keep_counts, wait=wait)
    state.attach(ddp_model)
    ddp_model.register_comm_hook(state, allreduce_hook if state.staleness == 0 else stale_hook)
    return state
