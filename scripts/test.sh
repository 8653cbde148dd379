#!/usr/bin/env bash
# The test command of the README: set up the project with its test extras, run the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
python -m pip install --quiet --disable-pip-version-check -e ".[test]"
python -m pytest "$@"
