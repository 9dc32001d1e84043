#!/usr/bin/env python3
"""Runs conformance_datatypes (an unmodified MPI program) at NP ranks: once without papcoll (the
program must pass on the MPI library alone), then under LD_PRELOAD=libpapcoll-intercept.so once per
algorithm index k, forcing the k-th algorithm of every operation (cycling through shorter lists, so
every algorithm of every operation runs; `auto` and `native` included), and checks with
PAPCOLL_VERBOSE=1 that the forced algorithms really ran.

Case groups (conformance_datatypes.cpp): the REGULAR ones always (today every group); KNOWN_FAILING
groups (cases papcoll is known to fail, none now) run by default after the regular ones and count
like any other failure (their lines say "known-failing"); --skip-known-failing (or
PAPCOLL_CONFORMANCE_SKIP_KNOWN=1) leaves them out. PENDING groups (checks of fixes not merged yet,
none now) run only with --pending (or PAPCOLL_CONFORMANCE_PENDING=1). A group that hangs is cut by the
program's watchdog (30 s per case), which names the case; the groups after it run again in a new
invocation.

--own-cores passes PAPCOLL_CORES_SHARED=0: papcoll then treats every rank as having its own core
(the block-count rule pipelines in several blocks even when ranks outnumber this machine's cores).

usage: run_conformance_datatypes.py MPIEXEC NP PROGRAM INTERCEPT_LIB PAPCOLL_SCHED
           [--own-cores] [--skip-known-failing] [--pending] [mpirun flags...]
"""
import os
import re
import subprocess
import sys
import time

OPS = ["allreduce", "reduce", "bcast", "allgatherv", "scatterv", "gatherv"]
MPI_NAMES = {"allreduce": "MPI_Allreduce", "reduce": "MPI_Reduce", "bcast": "MPI_Bcast",
             "allgatherv": "MPI_Allgatherv", "scatterv": "MPI_Scatterv",
             "gatherv": "MPI_Gatherv"}
# Mixed type signatures (ranks describing the same data with different counts and datatypes): the
# block count comes from agreed units (docs/errors.md), so the ranks' schedules agree. aliased:
# MPI_Allreduce with sendbuf == recvbuf returns an error on every rank instead of aborting.
REGULAR = ["types", "large", "comms", "mixed-bcast", "mixed-allgatherv", "mixed-scatterv",
           "mixed-gatherv", "aliased"]
# Groups papcoll is known to fail (none now), and checks of fixes not merged yet (none now).
KNOWN_FAILING = {}
PENDING = {}
# Open MPI 4.1's fixed decision rule for MPI_Allgatherv sizes the call with the rank's own send
# type, so ranks whose (sendcount, sendtype) differ with the same signature pick different
# algorithms and hang (found by the mixed group, natively). Its ring algorithm is correct: the
# MPI library's own path (native, and papcoll's fallbacks) uses it here.
OMPI_FLAGS = ["--mca", "coll_tuned_use_dynamic_rules", "1",
              "--mca", "coll_tuned_allgatherv_algorithm", "3"]
CASE_TIMEOUT = 30  # seconds per case (the largest take about 3 s here at 5 ranks)


def algorithms(sched):
    out = subprocess.run([sched, "list"], check=True, capture_output=True, text=True).stdout
    names = {op: [] for op in OPS}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in names:
            names[parts[0]].append(parts[1])
    for op in OPS:
        names[op] += ["auto", "native"]
    return names


def summary_rows(stderr):
    rows = {}
    for line in stderr.splitlines():
        m = re.match(r"\s+(MPI_\w+)\s+(\S+)\s+(\d+)\s+\d+\s+\S+\s+(\d+)", line)
        if m:
            rows[(m.group(1), m.group(2))] = (int(m.group(3)), int(m.group(4)))
    return rows


class Runner:
    def __init__(self, mpiexec, np_, prog, lib, flags, own_cores):
        self.mpiexec, self.np, self.prog, self.lib = mpiexec, np_, prog, lib
        self.flags = flags + OMPI_FLAGS
        self.own_cores = own_cores

    def invoke(self, groups, env_vars, preload, case_timeout):
        env_vars = dict(env_vars, PAPCOLL_CONF_CASE_TIMEOUT=str(case_timeout))
        if self.own_cores:
            env_vars["PAPCOLL_CORES_SHARED"] = "0"
        cmd = [self.mpiexec, *self.flags, "-np", str(self.np)]
        if preload:
            cmd += ["-x", "LD_PRELOAD=" + self.lib]
        for k in env_vars:
            cmd += ["-x", k]
        cmd += [self.prog, *groups]
        env = dict(os.environ, **env_vars)
        try:
            r = subprocess.run(cmd, env=env, capture_output=True, text=True,
                               timeout=case_timeout * 4 + 120)
            return r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
            return -9, out, err + "\n(killed: the whole invocation timed out)"

    def groups(self, groups, env_vars, preload, case_timeout):
        """Runs the groups, again after a group that hung or crashed; returns ({group: (ok,
        detail)}, stderr of all invocations)."""
        results, stderr_all, todo = {}, "", list(groups)
        while todo:
            rc, out, err = self.invoke(todo, env_vars, preload, case_timeout)
            stderr_all += err
            done = {}
            for line in out.splitlines():
                m = re.match(r"GROUP (\S+) (ok|FAIL) (.*)", line)
                if m:
                    done[m.group(1)] = (m.group(2) == "ok", m.group(3))
            results.update(done)
            missing = [g for g in todo if g not in done]
            if not missing:
                if rc != 0 and all(results[g][0] for g in todo):
                    results[todo[-1]] = (False, f"exit status {rc} after the groups passed:"
                                                f" {err[-800:]}")
                break
            hung = missing[0]
            timeout = re.search(r"TIMEOUT case (.*?) \(world rank", err)
            results[hung] = (False, ("hang: " + timeout.group(1)) if timeout else
                             f"crash or kill (exit status {rc}): {err[-800:]}")
            todo = missing[1:]
        return results, stderr_all


def main():
    args = sys.argv[1:]
    own_cores = "--own-cores" in args
    skip_known = "--skip-known-failing" in args or \
        os.environ.get("PAPCOLL_CONFORMANCE_SKIP_KNOWN") == "1"
    pending = "--pending" in args or os.environ.get("PAPCOLL_CONFORMANCE_PENDING") == "1"
    args = [a for a in args if a not in ("--own-cores", "--skip-known-failing", "--pending")]
    mpiexec, np_, prog, lib, sched = args[:5]
    flags = args[5:]
    names = algorithms(sched)
    runs = max(len(v) for v in names.values())
    runner = Runner(mpiexec, int(np_), prog, lib, flags, own_cores)
    label = f"np={np_}{' own-cores' if own_cores else ''}"
    known = [] if skip_known else list(KNOWN_FAILING)
    pend = list(PENDING) if pending else []
    start = time.monotonic()
    failures, known_failures, checks = 0, [], 0

    # The program on the MPI library alone: a failure here is the program's or the library's.
    res, err = runner.groups(REGULAR + known + pend, {}, False, CASE_TIMEOUT)
    for g, (ok, detail) in res.items():
        if not ok:
            failures += 1
            print(f"FAIL {label} without papcoll, group {g}: {detail}\n{err[-3000:]}")
    print(f"{'ok  ' if all(ok for ok, _ in res.values()) else 'FAIL'} {label} without papcoll: "
          + ", ".join(f"{g} {'ok' if ok else 'FAIL'}" for g, (ok, _) in res.items()))

    for k in range(runs):
        forced = {op: names[op][k % len(names[op])] for op in OPS}
        env = {"PAPCOLL_" + op.upper(): forced[op] for op in OPS}
        env["PAPCOLL_VERBOSE"] = "1"
        run_label = ", ".join(f"{op}={forced[op]}" for op in OPS)
        # One invocation for all groups (the regular ones first); a group that hangs or crashes
        # is reported and the groups after it run again.
        res, err = runner.groups(REGULAR + known + pend, env, True, CASE_TIMEOUT)
        rows = summary_rows(err)
        problems = {g: detail for g, (ok, detail) in res.items() if not ok}
        checks += sum(int(detail.split()[0]) for ok, detail in res.values() if ok)
        for op in OPS:
            want = forced[op]
            if want == "auto":
                continue  # papcoll names what auto chose
            if op in ("scatterv", "gatherv") and int(np_) == 1 and want != "native":
                continue  # one rank: nothing for a tree to move
            if (MPI_NAMES[op], want) not in rows and not problems:
                ran = sorted(a for (f, a) in rows if f == MPI_NAMES[op])
                problems["(summary)"] = f"{MPI_NAMES[op]} never ran {want} (ran: {ran})"
        if problems:
            failures += 1
            for g, detail in problems.items():
                kind = " (known-failing)" if g in KNOWN_FAILING else \
                    " (pending)" if g in PENDING else ""
                if g in KNOWN_FAILING:
                    known_failures.append(f"[{run_label}] {g}: {detail}")
                print(f"FAIL {label} [{run_label}] group {g}{kind}: {detail}"[:3000])
            print("\n".join(line for line in err.splitlines()
                            if "conformance FAIL" in line or "TIMEOUT" in line)[:4000])
        print(f"{'ok  ' if not problems else 'FAIL'} {label} [{run_label}]: " +
              ", ".join(f"{g} {detail.split(' (')[0] if ok else 'FAIL'}"
                        for g, (ok, detail) in res.items()))
    took = time.monotonic() - start
    print(f"{label}: {runs} algorithm runs x groups {REGULAR + known + pend}, {checks} checks "
          f"passed per rank, {failures} failing invocation(s)"
          + (f", of them {len(known_failures)} in the known-failing groups "
             f"({'; '.join(sorted(set(KNOWN_FAILING[g] for g in known)))})" if known_failures else "")
          + (", known-failing groups skipped" if skip_known else "")
          + f"; {took:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
