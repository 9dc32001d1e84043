#!/usr/bin/env python3
"""The main job (scripts/bench.sh), shortened (PAPCOLL_BENCH_QUICK=1: a few iterations of 64K
floats, 16 simulated ranks), with papcoll-bench builds given so nothing is installed or built.
Its figures mean nothing at that length; what is checked is that the job tells its story:

  verdicts  the closing lines hold papcoll-bench's verdict of `auto` for each of this machine's
            four cases (all-reduce and reduce, balanced and rank 1 late) and for the simulated
            case, each the very line papcoll-bench printed under its table, with the means of
            the `auto` and `native` rows of that table
  report    the straggler report's two lines name rank 1, the late one
  picture   the PNG whose path the job prints exists beside the JSON and is a PNG

  check_main_job.py REPO_ROOT PAPCOLL_BENCH [--smpi SMPI_PAPCOLL_BENCH] [--only-smpi]

Without --smpi the simulated part is left out (PAPCOLL_BENCH_SMPI_BIN=skip) and the check is that
the job says so: ctest runs before scripts/test.sh builds the SMPI variant, and that stage runs
this script again with --smpi --only-smpi (this machine's part is not run twice).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def table_means(output, verdict_line):
    """The mean_ms column of the table printed right above verdict_line, by algorithm."""
    lines = output.splitlines()
    i = lines.index(verdict_line)
    means = {}
    while i > 0 and not lines[i - 1].startswith("algorithm "):
        i -= 1
        fields = lines[i].split()
        # Rows only: not the verdicts, nor the comment lines (the executor costs) under a table.
        if len(fields) > 3 and not lines[i].startswith(("verdict ", "#")):
            means[fields[0]] = float(fields[2])
    return means


def main(argv):
    root, bench = argv[0], os.path.abspath(argv[1])
    smpi = None
    if "--smpi" in argv:
        smpi = os.path.abspath(argv[argv.index("--smpi") + 1])
    only_smpi = "--only-smpi" in argv
    with tempfile.TemporaryDirectory(prefix="papcoll-main-job-") as out:
        env = dict(os.environ, PAPCOLL_BENCH_QUICK="1", PAPCOLL_BENCH_OUT=out,
                   PAPCOLL_BENCH_BIN="skip" if only_smpi else bench,
                   PAPCOLL_BENCH_SMPI_BIN=smpi or "skip")
        run = subprocess.run(["bash", os.path.join(root, "scripts", "bench.sh")], env=env,
                             capture_output=True, text=True, timeout=280)
        output = run.stdout
        if not check(run.returncode == 0, "scripts/bench.sh exits 0 (status %d)" % run.returncode):
            print(output[-4000:], run.stderr[-4000:], sep="\n")
            return 1
        marker = "== What papcoll changed"
        if not check(marker in output, "the closing lines begin with '%s'" % marker):
            print(output[-4000:])
            return 1
        closing = output[output.index(marker):]

        # verdicts
        # (operation, the verdict's delay mode and delay as a pattern)
        cases = [] if only_smpi else [("allreduce", "none"), ("allreduce", r"one-late 20ms"),
                                      ("reduce", "none"), ("reduce", r"one-late 20ms")]
        if smpi:
            cases.append(("allreduce", "one-late 50ms"))
        verdicts = [l.strip() for l in closing.splitlines() if l.strip().startswith("verdict ")]
        check(len(verdicts) == len(cases),
              "%d verdict lines at the end, one per case (got %d)" % (len(cases), len(verdicts)))
        for (op, mode), line in zip(cases, verdicts):
            what = "%s %s" % (op, mode)
            check(re.match(r"verdict %s 64K %s history: auto( \([^)]*\))? \d+\.\d+x native, "
                           % (op, mode), line) is not None, "%s: the verdict is auto's: %s"
                  % (what, line))
            above = output[:output.index(marker)]
            if not check(line in above.splitlines(),
                         "%s: the same line is under papcoll-bench's table above" % what):
                continue
            means = table_means(above, line)
            m = re.search(r"mean (\S+) vs (\S+) ms", line)
            check(m is not None and "auto" in means and "native" in means
                  and abs(float(m.group(1)) - means["auto"]) <= 0.01 * means["auto"] + 0.002
                  and abs(float(m.group(2)) - means["native"]) <= 0.01 * means["native"] + 0.002,
                  "%s: its means are the table's auto and native rows (%s; table %s)"
                  % (what, m.group(0) if m else "-", means))
        if smpi:
            check("Simulated with SimGrid SMPI" in closing and "gige-48" in closing,
                  "the simulated case is labelled as simulated, with its platform")
        else:
            check("simulated part left out" in output, "the job says the simulated part is left out")

        # report
        if not only_smpi:
            m = re.search(r"straggler report of the .*: rank (\d+) was late by ([\d.]+) ms", closing)
            check(m is not None and m.group(1) == "1",
                  "the straggler report names rank 1 (%s)" % (m.group(0) if m else "no line"))
            check(re.search(r"the 3 other ranks waited [\d.]+ s", closing) is not None,
                  "the straggler report says how long the 3 others waited")

        # picture
        m = re.search(r"^picture .*: (\S+)$", closing, re.M)
        if check(m is not None, "the job prints the picture's path"):
            png = m.group(1)
            json_dir = out
            check(os.path.dirname(os.path.abspath(png)) == os.path.abspath(json_dir)
                  and any(f.endswith(".json") for f in os.listdir(json_dir)),
                  "the picture is beside the JSON (%s)" % png)
            with open(png, "rb") as f:
                head = f.read(8)
            check(head == b"\x89PNG\r\n\x1a\n" and os.path.getsize(png) > 10000,
                  "%s is a PNG (%d bytes)" % (png, os.path.getsize(png)))
        for name in os.listdir(out):
            if name.endswith(".json") and name != "straggler-report.json":
                with open(os.path.join(out, name)) as f:
                    doc = json.load(f)
                check(all(r["correct"] for r in doc["results"]),
                      "%s: every row's results correct" % name)
    print("main job: %s" % ("OK" if not failures else "%d FAILED" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
