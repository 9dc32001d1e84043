#!/usr/bin/env bash
# Installs what papcoll needs to build and test, if missing. Idempotent and non-interactive; run as
# root (or with sudo available) on Debian/Ubuntu.
set -euo pipefail

# libcli11-dev, nlohmann-json3-dev: header-only; the tools' command lines (CLI11) and the JSON the
# tools and the straggler report write (nlohmann-json, kept out of papcoll's installed headers).
# libsimgrid-dev: SimGrid SMPI (smpicxx, smpirun) for the simulated-cluster build, docs/smpi.md;
# python3-matplotlib: the plots of its experiment scripts (sim/experiments/, /usr/bin/python3) and
# papcoll-report --png (docs/report-format.md; tests/cli/check_report_cli.py).
packages=(cmake ninja-build g++ make libopenmpi-dev openmpi-bin libgtest-dev libboost-dev python3
          libcli11-dev nlohmann-json3-dev
          pkg-config libsimgrid-dev python3-matplotlib
          # the Python package and its tests (docs/python.md)
          python3-venv python3-pip python3-setuptools python3-mpi4py python3-numpy python3-pytest
          python3-sklearn
          # the format check (scripts/check_format.sh, .clang-format): pinned to one major version,
          # whose output it compares against
          clang-format-14
          # papcoll.torch, the DDP comm hooks (docs/training.md): torch 1.13 for CPUs with Gloo;
          # PyPI's Linux wheel would pull about 3 GB of CUDA packages
          python3-torch)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
