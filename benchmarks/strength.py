"""Strength benchmark: seeded tournaments between agents (agents/tournament.py).

    python benchmarks/strength.py --agents greedy dale random --mode dale --games 200
    python benchmarks/strength.py --agents greedy ppo:models/baseline.safetensors \
        --mode standard --players 2 --games 400
    python benchmarks/strength.py --agents greedy random --mode solitary --games 100

Game i uses seed SEED+i for every agent (paired comparisons). Prints a table per agent
(win rate with its 95% Wilson interval, mean and median final population, mean margin,
OpenSkill ratings in standard mode, solo ladder ranks of R9.1/R9.2) and writes
results.csv, summary.json and populations.png to --output-dir (default
runs/strength). The same runner is `suburbia match`.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

from agents.tournament_cli import main  # noqa: E402

if __name__ == "__main__":
    main()
