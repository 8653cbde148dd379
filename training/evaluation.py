"""Evaluating a policy against Dale (R9.2) in many seeded games at once (vector env)."""

from __future__ import annotations

import numpy as np

from agents.statistics import wilson_interval
from suburbia_env.engine.scoring import ladder_rank
from suburbia_env.envs.vector_env import SuburbiaVectorEnv


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


GREEDY_BLOCK = 12
"""Games against greedy split into blocks (on a cluster) start at multiples of this, so
that a game's seat (its index modulo 2, 3 or 4 players) is the same in any block."""


def evaluate_against_greedy(policy, games: int = 200, seed: int = 12345, players: int = 2,
                            edition: str = "2nd", deterministic: bool = True) -> dict:
    """Play `games` standard games of `players` seats, `policy` in one seat (rotated game
    by game) and the greedy player in the others; the yardstick of the multi-player model
    (issue 18). A shared win counts as 1/winners (agents.tournament)."""
    return summarise_against_greedy(play_against_greedy(policy, 0, games, seed, players,
                                                        edition, deterministic), players)


def play_against_greedy(policy, first: int, count: int, seed: int, players: int,
                        edition: str = "2nd", deterministic: bool = True) -> dict[str, list]:
    """Games first..first+count-1 of evaluate_against_greedy (game i: seed + i, the
    policy in seat i % players), one list entry per game: any split of the games into
    blocks gives, concatenated, the lists of one call. A network trained with the goal
    prior plays with it (agents/ppo_agent.py)."""
    from agents.greedy import GreedyAgent
    from agents.goal_term import goal_prior_scores
    from agents.ppo_agent import (carried_goal_chances, carried_goal_prior_denial,
                                  carried_goal_prior_weight)
    from suburbia_env.engine.action_space import NUM_ACTIONS
    from suburbia_env import Game
    from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
    from suburbia_env.engine.tile_data import TILES

    greedy = GreedyAgent()
    observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    goal_weight = carried_goal_prior_weight(policy)
    goal_denial = carried_goal_prior_denial(policy)
    goal_chances = carried_goal_chances(policy)
    if goal_weight and not deterministic:
        raise ValueError("a policy with a goal prior is evaluated deterministically")
    scratch_mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    scratch_actions = np.zeros(NUM_ACTIONS, dtype=np.int32)
    populations, best_others, wins = [], [], []
    for index in range(first, first + count):
        game = Game(players=players, mode="standard", edition=edition, seed=seed + index)
        learner = index % players
        while not game.is_over:
            if game.current_player == learner:
                encode_observation(game.state, TILES.table, learner, observation)
                if goal_weight:
                    probabilities = policy_probabilities(policy, observation,
                                                         game.legal_action_mask())
                    actions, scores = goal_prior_scores(game.state, probabilities, goal_weight,
                                                        scratch_mask, scratch_actions,
                                                        goal_denial, goal_chances)
                    game.apply(int(actions[np.argmax(scores)]))
                    continue
                action, _ = policy.predict(observation, action_masks=game.legal_action_mask(),
                                           deterministic=deterministic)
                game.apply(int(np.asarray(action).reshape(-1)[0]))
            else:
                game.apply(greedy.act(game))
        final = [score["population"] for score in game.final_scores()]
        winners = game.winners
        populations.append(final[learner])
        best_others.append(max(value for seat, value in enumerate(final) if seat != learner))
        wins.append(1.0 / len(winners) if learner in winners else 0.0)
    return {"populations": populations, "best_others": best_others, "wins": wins}


def policy_probabilities(policy, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The masked probabilities over the flat action space of a fast learner's network
    (a SparsePolicy or a loaded model of one) at one observation."""
    import torch
    network = getattr(policy, "policy", policy).network
    with torch.inference_mode():
        scores = network.dense_scores(torch.from_numpy(observation[None]),
                                      torch.from_numpy(mask[None]))[0]
    return torch.softmax(scores.double(), 0).numpy()


def summarise_against_greedy(played: dict[str, list], players: int) -> dict:
    """evaluate_against_greedy's summary of the per-game lists of play_against_greedy."""
    wins_array = np.array(played["wins"])
    populations_array = np.array(played["populations"])
    games = len(wins_array)
    low, high = wilson_interval(wins_array.sum(), games)
    return {"games": games, "players": players, "win_rate": float(wins_array.mean()),
            "win_rate_low": low, "win_rate_high": high,
            "mean_population": float(populations_array.mean()),
            "median_population": float(np.median(populations_array)),
            "mean_best_other_population": float(np.mean(played["best_others"])),
            "mean_margin": float((populations_array - np.array(played["best_others"])).mean())}


def evaluate_model(policy, against: str, games: int, seed: int, players: int) -> dict:
    """A recipe's evaluation: against Dale (R9.2), or the greedy player at `players`
    seats."""
    if against == "dale":
        return evaluate_against_dale(policy, games, seed)
    return evaluate_against_greedy(policy, games, seed, players)


def main(argv: list[str] | None = None) -> None:
    """`python -m training.evaluation MODEL`: the evaluations of training and of the
    recipes' gates, from the command line."""
    import argparse
    import json

    import torch

    from agents.model_format import load_safe_model
    parser = argparse.ArgumentParser(
        prog="python -m training.evaluation",
        description="Seeded games of a safe-format model's policy (its most probable legal "
                    "action) against Dale or the greedy player, with a 95% Wilson interval.")
    parser.add_argument("model", help="a .safetensors model (agents/model_format.py)")
    parser.add_argument("--against", choices=("dale", "greedy"), default="dale")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2,
                        help="seats against greedy (default 2)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=12345, help="seed of the first game")
    arguments = parser.parse_args(argv)
    if arguments.games < 1:
        parser.error("--games must be at least 1")
    torch.set_num_threads(1)
    policy = load_safe_model(arguments.model)
    if arguments.against == "dale":
        result = evaluate_against_dale(policy, arguments.games, arguments.seed)
    else:
        result = evaluate_against_greedy(policy, arguments.games, arguments.seed,
                                         arguments.players)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
