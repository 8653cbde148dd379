#!/usr/bin/env bash
# The test command of the README: set up the project with its test extras, run the suite.
# Where the system Python refuses pip installs (PEP 668), the project lives in .venv
# (scripts/python_env.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
source scripts/python_env.sh
PYTHON=$(suburbia_python "$PWD")
"$PYTHON" -m pip install --quiet --disable-pip-version-check -e ".[test]"
"$PYTHON" -m pytest "$@"
