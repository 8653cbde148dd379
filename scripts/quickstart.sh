#!/usr/bin/env bash
# The main job: set up, train a small agent against Dale for a few minutes (progress bar),
# then evaluate it against Dale in 200 seeded games and print the table.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
python -m pip install --quiet --disable-pip-version-check -e ".[train,bench]"
suburbia train --config training/configs/quickstart.json
suburbia match --agents ppo:runs/quickstart/model.safetensors greedy random --mode dale --games 200 \
    --output-dir runs/quickstart/evaluation
