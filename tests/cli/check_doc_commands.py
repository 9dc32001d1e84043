#!/usr/bin/env python3
"""Every shell command of README.md and docs/quickstart.md runs, so none can go stale.

Each fenced `sh` block of those pages is run with bash (`set -e`) in a scratch directory that
looks like the repository root (scripts/, examples/, python/, sim/, include/ linked from the
source tree; build/ linked to the build under test), after the substitutions in SHORTEN (fewer
iterations, only the targets the page needs built, `./my_mpi_program` replaced by the example
program). Blocks listed in NOT_RUN are not run here; each entry says which test runs them
instead. When a `text` block follows a command block directly, it is the output the page
promises: the first line of the real output must match its first line with every number
masked. A block that is neither run nor listed fails the test, and so does a NOT_RUN entry that
matches no block (the list must not outlive the page).

  check_doc_commands.py REPO_ROOT BUILD_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

PAGES = ["README.md", "docs/quickstart.md"]

# Blocks run elsewhere: (a pattern found in the block, why it is not run here).
NOT_RUN = [
    (r"^bash scripts/bench\.sh +# main job",
     "the README's two commands: scripts/bench.sh is run shortened by tests/cli/check_main_job.py "
     "(ctest papcoll_main_job and scripts/test.sh's SMPI stage); scripts/test.sh is the suite "
     "itself, which .ci/run runs"),
]

# Substitutions applied to a block before it runs: (pattern, replacement).
SHORTEN = [
    # Only what the quick start uses: the build under test has it (built before ctest runs).
    (r"bash scripts/build\.sh build\b", "PAPCOLL_BUILD_TARGETS=papcoll-intercept bash scripts/build.sh build"),
    # The README's stand-in for the reader's program: the quick start's example program.
    (r"\./my_mpi_program", "./late_rank 6 20 262144"),
    # The quick start's program: 6 calls of 1 MiB instead of 40 of 4 MiB.
    (r"\./late_rank$", "./late_rank 6 20 262144"),
    (r"(papcoll-bench [^\n]*--max-delay 20)$", r"\1 --iters 3 --warmup 1"),
]

LINKED = ["scripts", "examples", "python", "sim", "include", "docs", "tests"]

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def blocks(text):
    """(language, body, the language of the block that follows directly, its body)."""
    found = re.findall(r"^```(\w*)\n(.*?)^```\s*$", text, re.M | re.S)
    spans = [m.span() for m in re.finditer(r"^```(\w*)\n(.*?)^```\s*$", text, re.M | re.S)]
    out = []
    for i, (lang, body) in enumerate(found):
        nxt = None
        if i + 1 < len(found) and text[spans[i][1]:spans[i + 1][0]].strip() == "":
            nxt = found[i + 1]
        out.append((lang, body, nxt))
    return out


def mask(line):
    return re.sub(r"\d+(\.\d+)?", "#", line.strip())


def main(argv):
    root, build = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    used = set()
    with tempfile.TemporaryDirectory(prefix="papcoll-doc-commands-") as scratch:
        for name in LINKED:
            os.symlink(os.path.join(root, name), os.path.join(scratch, name))
        os.symlink(build, os.path.join(scratch, "build"))
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1", PAPCOLL_MPIRUN_TIMEOUT="120")
        # The README's ./my_mpi_program is the quick start's example; compile it first when the
        # README is checked on its own.
        subprocess.run(["mpicc", "-O2", "-o", "late_rank", "examples/late_rank.c"], cwd=scratch,
                       check=True, timeout=120)
        for page in PAGES:
            with open(os.path.join(root, page)) as f:
                text = f.read()
            for lang, body, nxt in blocks(text):
                if lang != "sh":
                    continue
                first = body.strip().splitlines()[0]
                skip = [i for i, (pat, _) in enumerate(NOT_RUN) if re.search(pat, body, re.M)]
                if skip:
                    used.update(skip)
                    print("skip %s: %s -- %s" % (page, first, NOT_RUN[skip[0]][1]))
                    continue
                script = body
                for pat, rep in SHORTEN:
                    script = re.sub(pat, rep, script, flags=re.M)
                run = subprocess.run(["bash", "-e", "-c", script], cwd=scratch, env=env,
                                     capture_output=True, text=True, timeout=600)
                if not check(run.returncode == 0, "%s: %s (status %d)" % (page, first,
                                                                         run.returncode)):
                    print(script, run.stdout[-3000:], run.stderr[-3000:], sep="\n")
                    continue
                if nxt is not None and nxt[0] == "text":
                    want = mask(nxt[1].strip().splitlines()[0])
                    got = [mask(l) for l in run.stdout.splitlines() if l.strip()]
                    check(bool(got) and got[0] == want,
                          "%s: %s prints what the page shows first (%r; got %r)"
                          % (page, first, want, got[0] if got else ""))
    for i, (pat, _) in enumerate(NOT_RUN):
        check(i in used, "NOT_RUN entry %r matches a block" % pat)
    print("doc commands: %s" % ("OK" if not failures else "%d FAILED" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
