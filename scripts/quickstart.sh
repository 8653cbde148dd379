#!/usr/bin/env bash
# The main job: set up, train a small agent against Dale for a few minutes (progress bar),
# then evaluate it against Dale in 200 seeded games and print the table. Where the system
# Python refuses pip installs (PEP 668), the project lives in .venv (scripts/python_env.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
source scripts/python_env.sh
PYTHON=$(suburbia_python "$PWD")
"$PYTHON" -m pip install --quiet --disable-pip-version-check -e ".[train,bench]"
"$PYTHON" -m suburbia_env.apps.cli train --config training/configs/quickstart.json
"$PYTHON" -m suburbia_env.apps.cli match --agents ppo:runs/quickstart/model.safetensors greedy random \
    --mode dale --games 200 --output-dir runs/quickstart/evaluation
