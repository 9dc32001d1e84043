#!/usr/bin/env python3
"""papcoll-report on a stored report (tests/cli/data/report_sample.json: 4 ranks under
LD_PRELOAD, world rank 2 made 10 ms late before each of 24 8-byte MPI_Allreduce calls):

  text      the summary names rank 2 first with its mean lateness, says what papcoll ran and
            honours --top; the library's reading functions agree with the file
  png       --png writes a PNG (when matplotlib can be imported; else a clear error, status 2)
  errors    a missing file, a file that is not JSON, another format, another version, a bad
            --top and an unknown --comm: status 2 and one line, never a traceback

  check_report_cli.py REPO_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
SCRIPT = os.path.join(ROOT, "scripts", "papcoll-report")
SAMPLE = os.path.join(ROOT, "tests", "cli", "data", "report_sample.json")
sys.path.insert(0, os.path.join(ROOT, "python"))
from papcoll_report import load_report, summary_text  # noqa: E402

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def cli(*args):
    return subprocess.run([sys.executable, SCRIPT] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=120)


def rows(text):
    """The rank column of the straggler table, in order."""
    out, inside = [], False
    for line in text.splitlines():
        if line.strip().startswith("rank ") and "mean" in line:
            inside = True
            continue
        if inside:
            parts = line.split()
            if not parts or not parts[0].isdigit():
                inside = False
                continue
            out.append(int(parts[0]))
    return out


def text_cases():
    doc = load_report(SAMPLE)
    comm = doc["communicators"][0]
    check(comm["stragglers"][0] == 2, "the file's straggler order starts with rank 2: %s"
          % comm["stragglers"])
    mean = comm["ranks"][2]["lateness_s"]["mean"]
    check(0.009 <= mean <= 0.012, "rank 2's mean lateness is about 10 ms: %s" % mean)
    r = cli(SAMPLE, "--top", 2)
    check(r.returncode == 0, "papcoll-report runs: %d %s" % (r.returncode, r.stderr))
    check(rows(r.stdout) == [2, 1] or rows(r.stdout)[:1] == [2] and len(rows(r.stdout)) == 2,
          "--top 2 lists two ranks, rank 2 first: %s\n%s" % (rows(r.stdout), r.stdout))
    check("10.1 ms" in r.stdout, "rank 2's mean lateness is printed (10.1 ms)\n" + r.stdout)
    check("allreduce, 8 B: 24 calls" in r.stdout and "ran native 24" in r.stdout,
          "what papcoll did: the key, its calls and what ran\n" + r.stdout)
    check(summary_text(doc, top=2) == r.stdout, "summary_text is what the command prints")
    r = cli(SAMPLE, "--top", 0)
    check(r.returncode == 0 and rows(r.stdout) == [], "--top 0 lists no rank")


def png_case(tmp):
    png = os.path.join(tmp, "r.png")
    r = cli(SAMPLE, "--png", png)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        check(r.returncode == 2 and "matplotlib" in r.stderr and "Traceback" not in r.stderr,
              "--png without matplotlib: a clear error, status 2: %s" % r.stderr)
        print("skip: no matplotlib for %s, the PNG is not drawn" % sys.executable)
        return
    check(r.returncode == 0 and os.path.getsize(png) > 10000
          and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
          "--png draws a PNG: %d %s" % (r.returncode, r.stderr[-2000:]))


def error_cases(tmp):
    def bad(name, content, words):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(content)
        r = cli(path)
        check(r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr,
              "%s: status 2 and '%s': %d %s" % (name, words, r.returncode, r.stderr))
    r = cli(os.path.join(tmp, "missing.json"))
    check(r.returncode == 2 and "cannot read" in r.stderr, "a missing file: " + r.stderr)
    bad("garbage.json", "{not json", "is not JSON")
    bad("other.json", json.dumps({"format": "something-else"}), "is not a papcoll report")
    doc = json.load(open(SAMPLE))
    doc["version"] = 99
    bad("future.json", json.dumps(doc), "version 99")
    r = cli(SAMPLE, "--top", -1)
    check(r.returncode == 2 and "--top" in r.stderr, "--top -1: usage error: " + r.stderr)
    r = cli(SAMPLE, "--comm", "nope")
    check(r.returncode == 2 and "no communicator 'nope'" in r.stderr,
          "an unknown --comm: " + r.stderr)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        text_cases()
        png_case(tmp)
        error_cases(tmp)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
