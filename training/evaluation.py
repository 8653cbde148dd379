"""Evaluating a policy against Dale (R9.2) in many seeded games at once (vector env)."""

from __future__ import annotations

import numpy as np

from agents.statistics import wilson_interval
from suburbia_env.scoring import ladder_rank
from suburbia_env.vector_env import SuburbiaVectorEnv


def evaluate_against_dale(policy, games: int = 200, seed: int = 12345, num_envs: int = 64,
                          edition: str = "2nd", deterministic: bool = True) -> dict:
    """Play `games` Dale-mode games with `policy` (a MaskablePPO model or any object with
    `predict(observations, action_masks=..., deterministic=...)`) and summarise them.

    Returns win rate (a shared win counts half) with its 95% Wilson interval, mean and
    median final population, mean margin over Dale, and the solo ladder ranks (R9.1,
    counted only in won games).
    """
    num_envs = max(1, min(num_envs, games))
    env = SuburbiaVectorEnv(num_envs, players=1, mode="dale", edition=edition,
                            observation_format="flat", num_threads=1)
    observations, _ = env.reset(seed=seed)
    populations, dale_populations, wins = [], [], []
    started = num_envs
    active = np.ones(num_envs, dtype=bool)
    while active.any():
        actions, _ = policy.predict(observations, action_masks=env.action_masks(),
                                    deterministic=deterministic)
        observations, _, terminated, _, infos = env.step(np.asarray(actions, dtype=np.int64))
        for index in np.flatnonzero(terminated & active):
            own, dale = infos["final_populations"][index][:2]
            winners = infos["final_winners"][index][:2]
            populations.append(int(own))
            dale_populations.append(int(dale))
            wins.append(1.0 if winners[0] and not winners[1] else 0.5 if winners[0] else 0.0)
            if started < games:
                started += 1
            else:
                active[index] = False
    populations = np.array(populations[:games])
    dale_populations = np.array(dale_populations[:games])
    wins = np.array(wins[:games])
    low, high = wilson_interval(wins.sum(), len(wins))
    ranks: dict[str, int] = {}
    for population, won in zip(populations, wins):
        if won == 1.0:
            rank = ladder_rank(int(population))
            ranks[rank] = ranks.get(rank, 0) + 1
    return {"games": int(len(wins)), "win_rate": float(wins.mean()), "win_rate_low": low,
            "win_rate_high": high, "mean_population": float(populations.mean()),
            "median_population": float(np.median(populations)),
            "mean_dale_population": float(dale_populations.mean()),
            "mean_margin": float((populations - dale_populations).mean()), "ranks": ranks}
