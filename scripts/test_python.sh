#!/usr/bin/env bash
# The Python package (docs/python.md): a venv on Debian's /usr/bin/python3 that sees the system's
# mpi4py, numpy, pytest and scikit-learn; `pip install .` (libpapcoll with CMake, incrementally);
# tests/python under mpirun at 4 and 1 ranks; then a 2-epoch smoke run of
# examples/train_digits.py at 4 ranks with one straggler. Called by scripts/test.sh
# (PAPCOLL_SKIP_PYTHON=1 skips it there); runs alone as well after scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PAPCOLL_PY_BUILD_DIR=$PWD/build-py PAPCOLL_MPIRUN_TIMEOUT=300
# libpapcoll from the main build when scripts/build.sh has configured it (no second compilation),
# else setup.py configures and builds build-py/cmake.
[[ -f build/CMakeCache.txt ]] && export PAPCOLL_CMAKE_BUILD_DIR=$PWD/build
venv=build-py/venv
[[ -x $venv/bin/python ]] || /usr/bin/python3 -m venv --system-site-packages "$venv"
echo "== python: pip install ."
"$venv/bin/pip" install -q --disable-pip-version-check --no-index --no-build-isolation .
pytest=("$venv/bin/python" -m pytest -q --color=no -p no:cacheprovider tests/python)
for np in 4 1; do
  echo "== python: pytest under mpirun -np $np"
  bash scripts/mpirun.sh -np "$np" "${pytest[@]}"
done
echo "== python: examples/train_digits.py smoke run (np 4, 2 epochs, one straggler)"
bash scripts/mpirun.sh -np 4 "$venv/bin/python" examples/train_digits.py --variants native,prr,auto \
  --epochs 2 --stragglers 1 --delay-ms 5 --quiet --json build-py/train-smoke.json
"$venv/bin/python" - build-py/train-smoke.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
acc = {v: s[v]["test_accuracy"][0] for v in s}
assert min(acc.values()) > 0.8, acc                       # it learns
assert max(acc.values()) - min(acc.values()) <= 0.01, acc  # the all-reduce does not change it
print("train_digits smoke: accuracies", acc)
PY
