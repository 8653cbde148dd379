#!/usr/bin/env bash
# The main job in under five minutes, with progress from the first second: install, then
# `suburbia train --recipe quickstart` (training/recipes/quickstart.json): record greedy
# games against Dale, fit the fast network to them, evaluate it against Dale in seeded
# games with a Wilson interval, and say what to run next. Where the system Python refuses
# pip installs (PEP 668), the project lives in .venv (scripts/python_env.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
source scripts/python_env.sh
PYTHON=$(suburbia_python "$PWD")
echo "[quickstart install] pip install -e .[train,bench]: seconds when installed, else" \
     "downloads (torch's CPU build alone is a 192 MB wheel)"
started=$SECONDS
"$PYTHON" -m pip install --disable-pip-version-check -e ".[train,bench]" \
    | { grep -v "^Requirement already satisfied" || true; }
echo "[quickstart install] done in $((SECONDS - started))s"
"$PYTHON" -m suburbia_env.apps.cli train --recipe quickstart --run-dir runs/quickstart
