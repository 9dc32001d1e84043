#!/usr/bin/env python3
"""The straggler report and the hang watchdog under LD_PRELOAD=libpapcoll-intercept.so, on an
unmodified MPI program (stragglers.cpp), with papcoll's path (PAPCOLL_ALLREDUCE=auto) and the
MPI library's (=native) alike:

  report     one rank sleeps DELAY before every call: the report names it first, with the mean
             lateness the program measured itself within the clock's resolution + 1 ms;
             papcoll-report names it first and draws the PNG (when matplotlib is there)
  watchdog   one rank sleeps past PAPCOLL_TIMEOUT before one call: exactly one watchdog line,
             naming exactly that rank (and the call), after at most timeout + 1 s of waiting;
             the program then completes correctly
  abort      the same with PAPCOLL_TIMEOUT_ACTION=abort: the job ends through MPI_Abort
  mixed      loops of one key broken by two others: every call counted under its key
  bounded    10^5 calls: the report counts them all and keeps at most PAPCOLL_REPORT_SAMPLES of
             them per key; resident memory grows by less than 4 MiB

  run_observe.py MPIEXEC PROGRAM INTERCEPT_LIB REPO_ROOT [mpirun flags...]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

MPIEXEC, PROGRAM, LIB, ROOT = sys.argv[1:5]
FLAGS = sys.argv[5:]
sys.path.insert(0, os.path.join(ROOT, "python"))
from papcoll_report import load_report, summary_text  # noqa: E402

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def run(np_, args, env, timeout=240):
    cmd = [MPIEXEC] + FLAGS + ["-np", str(np_), "-x", "LD_PRELOAD=" + LIB]
    for k in env:
        cmd += ["-x", k]
    cmd += [PROGRAM] + [str(a) for a in args]
    full = dict(os.environ, **env)
    return subprocess.run(cmd, env=full, capture_output=True, text=True, timeout=timeout)


def report_case(tmp, algorithm, np_=4, late=2, delay_ms=25.0, calls=40):
    out = os.path.join(tmp, "truth-%s.json" % algorithm)
    rep = os.path.join(tmp, "report-%s.json" % algorithm)
    r = run(np_, ["late", out, late, delay_ms, calls],
            {"PAPCOLL_ALLREDUCE": algorithm, "PAPCOLL_REPORT": rep})
    what = "report (%s, rank %d late by %g ms, %d ranks)" % (algorithm, late, delay_ms, np_)
    if not check(r.returncode == 0, what + ": the program ran\n" + r.stderr[-3000:]):
        return
    truth = json.load(open(out))["mean_lateness_s"]
    doc = load_report(rep)
    comm = doc["communicators"][0]
    check(comm["size"] == np_ and comm["calls"] == calls,
          what + ": one communicator of %d ranks, %d calls (got %d ranks, %d calls)"
          % (np_, calls, comm["size"], comm["calls"]))
    check(comm["stragglers"][0] == late,
          what + ": rank %d named first (order %s)" % (late, comm["stragglers"]))
    tolerance = doc["clock"]["resolution_s"] + 1e-3
    for r_ in range(np_):
        got = comm["ranks"][r_]["lateness_s"]["mean"]
        check(got is not None and abs(got - truth[r_]) <= tolerance,
              what + ": rank %d's mean lateness %s s against the program's own %.6f s "
              "(tolerance %.6f s)" % (r_, got, truth[r_], tolerance))
    key = comm["keys"][0]
    check(key["operation"] == "allreduce" and key["bytes"] == 8 and key["calls"] == calls,
          what + ": the key is allreduce, 8 bytes, %d calls: %s" % (calls, key))
    check(key["sampled_calls"] == calls, what + ": every call logged (%d)" % key["sampled_calls"])
    text = summary_text(doc, top=3)
    first = re.search(r"top stragglers.*\n.*\n\s+(\d+)\s", text)
    check(first is not None and int(first.group(1)) == late,
          what + ": papcoll-report lists rank %d first:\n%s" % (late, text))
    cli = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "papcoll-report"), rep,
                          "--top", "2"], capture_output=True, text=True)
    check(cli.returncode == 0 and "top stragglers" in cli.stdout,
          what + ": scripts/papcoll-report runs\n" + cli.stdout + cli.stderr)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("skip papcoll-report --png: no matplotlib for %s" % sys.executable)
        return
    png = os.path.join(tmp, "report-%s.png" % algorithm)
    cli = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "papcoll-report"), rep,
                          "--png", png], capture_output=True, text=True)
    check(cli.returncode == 0 and os.path.getsize(png) > 10000 and
          open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", what + ": --png draws " + png +
          "\n" + cli.stderr)


LINE = re.compile(r"papcoll watchdog: (.*) \((\d+) ranks\), call (\d+) \((\w+)\): rank (\d+) has "
                  r"waited ([0-9.]+) s; not arrived: (.*)")


def watchdog_case(algorithm, np_=4, late=1, sleep_s=3.0, timeout=1.0, calls=8, hang_at=5):
    r = run(np_, ["hang", late, sleep_s, calls, hang_at],
            {"PAPCOLL_ALLREDUCE": algorithm, "PAPCOLL_TIMEOUT": str(timeout)})
    what = "watchdog (%s, rank %d sleeps %g s before call %d, timeout %g s)" % (
        algorithm, late, sleep_s, hang_at, timeout)
    check(r.returncode == 0 and "all %d calls correct" % calls in r.stdout,
          what + ": the program completes correctly\n" + r.stdout + r.stderr[-3000:])
    lines = [l for l in r.stderr.splitlines() if l.startswith("papcoll watchdog:")]
    warn = [LINE.match(l) for l in lines if "not arrived" in l]
    if not check(len(warn) == 1 and warn[0] is not None,
                 what + ": exactly one watchdog line: %s" % lines):
        return
    m = warn[0]
    missing = m.group(7)
    named = re.findall(r"(?:^|; )rank (\d+) \(", missing)
    check(named == [str(late)], what + ": names exactly rank %d: %s" % (late, m.group(0)))
    check(m.group(1) == "MPI_COMM_WORLD" and int(m.group(2)) == np_ and int(m.group(3)) == hang_at
          and m.group(4) == "allreduce",
          what + ": names the communicator, the call number and the operation: " + m.group(0))
    waited = float(m.group(6))
    check(timeout <= waited <= timeout + 1.0,
          what + ": within timeout + 1 s (waited %.2f s)" % waited)
    check(any("call %d completed after" % hang_at in l for l in lines),
          what + ": says when the call completed: %s" % lines)


def abort_case(np_=3):
    r = run(np_, ["hang", 1, 30, 4, 2], {"PAPCOLL_TIMEOUT": "0.5", "PAPCOLL_TIMEOUT_ACTION": "abort"},
            timeout=60)
    check(r.returncode != 0 and "PAPCOLL_TIMEOUT_ACTION=abort: calling MPI_Abort" in r.stderr
          and "not arrived: rank 1 (" in r.stderr,
          "watchdog abort: the job ends through MPI_Abort with the line (rc %d)\n%s"
          % (r.returncode, r.stderr[-2000:]))


def bounded_case(tmp, np_=2, calls=100000):
    rep = os.path.join(tmp, "report-many.json")
    r = run(np_, ["many", calls], {"PAPCOLL_REPORT": rep}, timeout=400)
    what = "bounded (%d calls, %d ranks)" % (calls, np_)
    if not check(r.returncode == 0, what + ": the program ran\n" + r.stderr[-2000:]):
        return
    growth = int(re.search(r"rss_growth_kb (-?\d+)", r.stdout).group(1))
    check(growth < 4096, what + ": resident memory grew by %d KiB from call 2000 on" % growth)
    doc = load_report(rep)
    key = doc["communicators"][0]["keys"][0]
    cap = doc["sampling"]["samples_per_key"]
    check(key["calls"] == calls and 0 < key["sampled_calls"] <= cap and key["sample_level"] >= 5,
          what + ": every call counted, at most %d logged: calls %d, sampled %d, level %d"
          % (cap, key["calls"], key["sampled_calls"], key["sample_level"]))


def mixed_case(tmp, np_=2, calls=6000):
    """Loops of one key broken by calls of others: the interposition library's steady state
    (numbered and counted later, comm_observer.hpp SteadyLoop) loses no call and numbers every
    call alike, with the report and with the watchdog armed too."""
    rep = os.path.join(tmp, "report-mixed.json")
    r = run(np_, ["mixed", calls], {"PAPCOLL_REPORT": rep, "PAPCOLL_TIMEOUT": "60"})
    what = "mixed keys (%d calls, %d ranks)" % (calls, np_)
    if not check(r.returncode == 0, what + ": the program ran\n" + r.stderr[-2000:]):
        return
    a8, b16, a16 = (int(x) for x in re.search(r"mixed (\d+) (\d+) (\d+)", r.stdout).groups())
    comm = load_report(rep)["communicators"][0]
    got = {(k["operation"], k["bytes"], k["root"]): k["calls"] for k in comm["keys"]}
    want = {("allreduce", 8, -1): a8, ("bcast", 16, 1): b16, ("allreduce", 16, -1): a16}
    check(got == want and comm["calls"] == a8 + b16 + a16,
          what + ": calls per key %s, want %s; in all %d, want %d"
          % (got, want, comm["calls"], a8 + b16 + a16))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for algorithm in ("auto", "native"):
            report_case(tmp, algorithm)
        for algorithm in ("auto", "native"):
            watchdog_case(algorithm)
        abort_case()
        bounded_case(tmp)
        mixed_case(tmp)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
