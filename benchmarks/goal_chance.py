"""How well the goal term's chances predict the goal races: at every decision of seeded
games, each seat's `one_ply.goal_chance` on each public goal and its own private goal
(the chance to end alone in front, R8.2) against whether it did, per criterion; then
the chance refitted from those games.

    python benchmarks/goal_chance.py --opponent goals --games 300 --seed 9100000

Game i has seed SEED + i; the agent sits at seat i mod PLAYERS and the opponent in every
other seat (score_breakdown.seated_game: the same deals and seats). Printed per criterion: the
records (seat x decision x goal), the mean chance, the share won, the log loss and the
share won in five bands of the chance. The refit keeps the chance's form, a logistic in
the lead, `1 / (1 + exp(-(lead - centre) / (s0 + s1 x turns left)))`, and fits s0, s1 and
the centre per criterion by maximum likelihood on the even games; its log loss is
printed on the odd games beside the term's own (docs/yardsticks.md, "The goal term's
chances, measured"). --output writes the records' summary and the fit as JSON, with the
fit as `suburbia train --goal-chances FILE` reads it (`goal_chances`).

With --paired-games N the agent (a model carrying the goal term) then plays N games of
score_breakdown's deals from --paired-seed twice: with its term as released, and with the
refit chances in its term (a copy of the model whose description carries them,
policy.goal_chances; no training), and the paired difference is printed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from agents.one_ply import (OWN_CHANCES, goal_chance, own_chance_table,  # noqa: E402
                            turns_left)
from agents.registry import make_agent  # noqa: E402
from suburbia_env.engine import constants as c  # noqa: E402
from suburbia_env.engine import state_layout as s  # noqa: E402
from suburbia_env.engine.scoring import goal_lead  # noqa: E402
from suburbia_env.engine.tile_data import GOALS, TILES  # noqa: E402
from suburbia_env.engine.tile_table import goal_criterion  # noqa: E402
from score_breakdown import play, seated_game  # noqa: E402

CRITERIA = {c.CRITERION_FEATURE_COUNT: "tiles of a type or icon", c.CRITERION_LAKE_COUNT: "lakes",
            c.CRITERION_MONEY: "money", c.CRITERION_MARKERS_PLACED: "investment markers",
            c.CRITERION_INCOME: "income", c.CRITERION_REPUTATION: "reputation",
            c.CRITERION_LARGEST_LAKE_GROUP: "largest lake group",
            c.CRITERION_LARGEST_FEATURE_GROUP: "largest group of a type"}
FIELDS = ("game", "seat", "goal", "private", "criterion", "lead", "turns_left", "chance", "won")
GAME, SEAT, GOAL, PRIVATE, CRITERION, LEAD, TURNS_LEFT, CHANCE, WON = range(len(FIELDS))
BANDS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


PRIVATE_SLOT = c.MAX_PLAYERS


def seat_goals(state, seat: int) -> list[tuple[int, int]]:
    """(slot, goal) of the goals a seat races for: the public ones (slots 0..3) and its own
    private goal once kept (PRIVATE_SLOT, R8.2)."""
    goals = [(index, s.public_goal(state, index)) for index in range(c.MAX_PLAYERS)]
    goals.append((PRIVATE_SLOT, s.private_goal(state, seat)))
    return [(slot, goal) for slot, goal in goals if goal >= 0]


def scored(state, seat: int, slot: int) -> bool:
    """Whether the seat's final score holds the goal's bonus (R8.2): read from the score,
    not from the final position, whose money is already converted."""
    if slot == PRIVATE_SLOT:
        return s.score_entry(state, seat, s.SCORE_PRIVATE_GOAL) > 0
    return s.public_goal_bonus(state, seat, slot) > 0


def record(agent_spec: str, opponent: str, players: int, games: int, seed: int) -> np.ndarray:
    """One row (FIELDS) per seat, decision and goal of the seat: its lead and chance then
    and whether its final score holds the goal's bonus (1) or not (0)."""
    agent = make_agent(agent_spec)
    rows = []
    for index in range(games):
        game, table, _ = seated_game(agent, opponent, players, index, seed)
        pending = []
        while not game.is_over:
            state = game.state
            future = turns_left(state)
            for seat in range(players):
                for slot, goal in seat_goals(state, seat):
                    pending.append((seat, goal, slot, goal_criterion(GOALS.table, goal),
                                    goal_lead(state, TILES.table, GOALS.table, goal, seat),
                                    future, goal_chance(state, TILES.table, GOALS.table, goal,
                                                        seat, future, OWN_CHANCES)))
            table.step(game)
        final = game.state
        for seat, goal, slot, criterion, lead, future, chance in pending:
            rows.append((index, seat, goal, slot == PRIVATE_SLOT, criterion, lead, future,
                         chance, scored(final, seat, slot)))
    return np.array(rows, dtype=np.float64).reshape(-1, len(FIELDS))


def log_loss(chances: np.ndarray, won: np.ndarray) -> float:
    chances = np.clip(chances, 1e-6, 1 - 1e-6)
    return float(-np.mean(won * np.log(chances) + (1 - won) * np.log(1 - chances)))


def fitted_chance(parameters, lead, future):
    """The term's form with fitted (s0, s1, centre)."""
    s0, s1, centre = parameters
    return 1.0 / (1.0 + np.exp(np.clip(-(lead - centre) / (s0 + s1 * future), -50, 50)))


def fit(lead: np.ndarray, future: np.ndarray, won: np.ndarray) -> tuple[float, float, float]:
    """(s0, s1, centre) of largest likelihood, s0 > 0 and s1 >= 0 (softplus), by L-BFGS."""
    import torch
    torch.manual_seed(0)
    x, t, y = (torch.tensor(v, dtype=torch.float64) for v in (lead, future, won))
    raw = torch.tensor([0.5, -2.0, 0.5], dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.LBFGS([raw], max_iter=500, line_search_fn="strong_wolfe")

    def loss():
        optimizer.zero_grad()
        spread = torch.nn.functional.softplus(raw[0]) + 1e-3 + \
            torch.nn.functional.softplus(raw[1]) * t
        value = torch.nn.functional.binary_cross_entropy_with_logits((x - raw[2]) / spread, y)
        value.backward()
        return value
    optimizer.step(loss)
    with torch.no_grad():
        softplus = torch.nn.functional.softplus
        return (float(softplus(raw[0])) + 1e-3, float(softplus(raw[1])), float(raw[2]))


def refit_table(result: dict) -> np.ndarray:
    """The refit chances as the goal term reads them (`one_ply.chance_with`): one row (s0,
    s1, centre) per criterion; a criterion without a fit keeps the term's own
    (`one_ply.own_chance_table`)."""
    table = own_chance_table()
    for criterion, name in CRITERIA.items():
        fitted = result.get(name, {}).get("fit")
        if fitted:
            table[criterion] = (fitted["s0"], fitted["s1"], fitted["centre"])
    return table


def with_chances(model: Path, chances: np.ndarray, folder: Path) -> Path:
    """A copy of a safe-format model in `folder` whose network carries `chances`
    (its description's policy.goal_chances): `ppo:` of it plays the refit term."""
    folder.mkdir(parents=True, exist_ok=True)
    weights, description = model.with_suffix(".safetensors"), model.with_suffix(".json")
    target = folder / weights.name
    shutil.copyfile(weights, target)
    plain = json.loads(description.read_text())
    plain["policy"]["goal_chances"] = chances.tolist()
    target.with_suffix(".json").write_text(json.dumps(plain, indent=1) + "\n")
    return target


def paired_play(agent_spec: str, opponent: str, players: int, games: int, seed: int,
                result: dict) -> dict:
    """The agent's games as released and with the refit chances in its term, on the same
    deals: win shares, paired difference (95% normal interval), games up and down, and the
    mean public goals' bonuses and population before the goals of both."""
    if not agent_spec.startswith("ppo:"):
        raise SystemExit("--paired-games plays a ppo:MODEL agent with refit chances")
    released = play(agent_spec, opponent, players, games, seed)
    with tempfile.TemporaryDirectory() as folder:
        refit_model = with_chances(Path(agent_spec[len("ppo:"):]), refit_table(result),
                                   Path(folder))
        refit = play(f"ppo:{refit_model}", opponent, players, games, seed)
    differences = np.array([b["win"] - a["win"] for a, b in zip(released, refit)])
    half = 1.96 * differences.std(ddof=1) / math.sqrt(games)

    def mean(records, part):
        return float(np.mean([record["agent"][part] for record in records]))
    return {"games": games, "released": float(np.mean([r["win"] for r in released])),
            "refit": float(np.mean([r["win"] for r in refit])),
            "difference": float(differences.mean()),
            "interval": [float(differences.mean() - half), float(differences.mean() + half)],
            "up": int((differences > 0).sum()), "down": int((differences < 0).sum()),
            "public_goals": [mean(released, "public_goals"), mean(refit, "public_goals")],
            "before_goals": [mean(released, "population_before_goals"),
                             mean(refit, "population_before_goals")]}


def summary(rows: np.ndarray) -> dict:
    """Per criterion: records, mean chance, share won, log loss, the share won per band
    of the chance, and the refit with its held-out log loss beside the term's."""
    out = {}
    for criterion, name in CRITERIA.items():
        part = rows[rows[:, CRITERION] == criterion]
        if not len(part):
            continue
        chance, won = part[:, CHANCE], part[:, WON]
        bands = np.digitize(chance, BANDS[1:-1])
        train, held = part[part[:, GAME] % 2 == 0], part[part[:, GAME] % 2 == 1]
        parameters = (fit(train[:, LEAD], train[:, TURNS_LEFT], train[:, WON]) if len(train)
                      else None)
        out[name] = {
            "records": int(len(part)), "mean_chance": float(chance.mean()),
            "won": float(won.mean()), "log_loss": log_loss(chance, won),
            "bands": [{"chance": [BANDS[b], BANDS[b + 1]], "records": int((bands == b).sum()),
                       "mean_chance": float(chance[bands == b].mean()),
                       "won": float(won[bands == b].mean())}
                      for b in range(len(BANDS) - 1) if (bands == b).any()],
            "fit": None if parameters is None else {
                "s0": parameters[0], "s1": parameters[1], "centre": parameters[2],
                "held_out_log_loss": log_loss(fitted_chance(parameters, held[:, LEAD],
                                                            held[:, TURNS_LEFT]),
                                              held[:, WON]) if len(held) else None,
                "held_out_log_loss_of_the_term": log_loss(held[:, CHANCE], held[:, WON])
                if len(held) else None}}
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="ppo:models/multiplayer-goal-prior.safetensors")
    parser.add_argument("--opponent", default="goals")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=9_100_000)
    parser.add_argument("--output", type=Path, default=None, metavar="JSON")
    parser.add_argument("--paired-games", type=int, default=0, metavar="N",
                        help="then play N games as released and with the refit term")
    parser.add_argument("--paired-seed", type=int, default=7_600_000)
    arguments = parser.parse_args(argv)
    if arguments.games < 2:
        parser.error("--games must be at least 2 (the fit takes the even games, the check "
                     "the odd ones)")
    rows = record(arguments.agent, arguments.opponent, arguments.players, arguments.games,
                  arguments.seed)
    result = summary(rows)
    print(f"{arguments.agent} against {arguments.opponent}, {arguments.players} players, "
          f"{arguments.games} games from seed {arguments.seed}: {len(rows)} records")
    for name, entry in result.items():
        bands = "  ".join(f"{band['chance'][0]:.1f}-{band['chance'][1]:.1f}: "
                          f"{band['mean_chance']:.2f} -> {band['won']:.2f}"
                          for band in entry["bands"])
        print(f"{name:>24}: {entry['records']:6d} records, chance {entry['mean_chance']:.3f}, "
              f"won {entry['won']:.3f}, log loss {entry['log_loss']:.3f}")
        print(f"{'':>26}{bands}")
        if entry["fit"]:
            fitted = entry["fit"]
            print(f"{'':>26}refit: spread {fitted['s0']:.3f} + {fitted['s1']:.3f} x turns "
                  f"left, centre {fitted['centre']:+.2f}; held-out log loss "
                  f"{fitted['held_out_log_loss']:.3f} (the term's "
                  f"{fitted['held_out_log_loss_of_the_term']:.3f})")
    paired = None
    if arguments.paired_games > 1:
        paired = paired_play(arguments.agent, arguments.opponent, arguments.players,
                             arguments.paired_games, arguments.paired_seed, result)
        print(f"{arguments.paired_games} games from seed {arguments.paired_seed}: as released "
              f"{paired['released']:.3f}, with the refit chances {paired['refit']:.3f}, "
              f"difference {paired['difference']:+.3f} [{paired['interval'][0]:+.3f}, "
              f"{paired['interval'][1]:+.3f}] ({paired['up']} up, {paired['down']} down); "
              f"public goals {paired['public_goals'][0]:.1f} -> {paired['public_goals'][1]:.1f}, "
              f"before the goals {paired['before_goals'][0]:.1f} -> "
              f"{paired['before_goals'][1]:.1f}")
    if arguments.output:
        arguments.output.write_text(json.dumps({"arguments": {
            key: str(value) for key, value in vars(arguments).items()},
            "criteria": result, "goal_chances": refit_table(result).tolist(),
            "paired": paired}, indent=1) + "\n")
    return result


if __name__ == "__main__":
    main()
