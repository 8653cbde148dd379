"""Golden playthroughs: seeded games written out decision by decision (after OpenSpiel's).

Each file under `tests/golden/` holds the games of one setup (mode, edition, player
count, seated agents). For every decision it records the acting seat, the legal-action
count, a digest of the legal mask and of that seat's observation, the decision in
notation and the event-log lines it caused. `test_golden.py` replays the same games and
diffs them against the files, so a change of behaviour shows as a diff of these files
and nothing else can slip through: a rules change (RULES.md "Revisions") is meant to
change exactly the games it touches; a refactoring changes none.

Regenerate after an intended change, then read the diff:

    python tests/golden_playthroughs.py          # all files
    python tests/golden_playthroughs.py dale-2nd  # one
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from suburbia_env import Game
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.display.render import describe_events
from suburbia_env.engine.tile_data import TILES

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
GAME_SEEDS = (0, 1)
DIGEST_CHARS = 16


@dataclass(frozen=True)
class Setup:
    """One golden file: a table of agents ("random", "greedy" or "dale" per seat)."""

    name: str
    mode: str
    edition: str
    agents: tuple[str, ...]

    @property
    def players(self) -> int:
        return len(self.agents)


def _standard(edition: str, players: int) -> Setup:
    return Setup(f"standard-{players}p-{edition}", "standard", edition, ("random",) * players)


SETUPS = tuple(
    [_standard(edition, players) for edition in ("2nd", "1st") for players in (2, 3, 4)]
    + [Setup(f"solitary-{edition}", "solitary", edition, ("random",)) for edition in ("2nd", "1st")]
    + [Setup(f"dale-{edition}", "dale", edition, ("random",)) for edition in ("2nd", "1st")]
    + [Setup("dale-2nd-greedy", "dale", "2nd", ("greedy",)),
       Setup("standard-2p-2nd-greedy-vs-dale-procedure", "standard", "2nd", ("greedy", "dale"))]
)


def _digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:DIGEST_CHARS]


def _make_agents(setup: Setup, game_seed: int) -> list:
    from agents.dale_agent import DaleAgent
    from agents.greedy import GreedyAgent
    from agents.random_agent import RandomAgent

    made = []
    for seat, name in enumerate(setup.agents):
        if name == "random":
            made.append(RandomAgent(seed=1_000 * game_seed + seat))
        elif name == "greedy":
            made.append(GreedyAgent())
        else:
            made.append(DaleAgent())
    return made


def playthrough_lines(setup: Setup, game_seed: int) -> list[str]:
    """The golden lines of one seeded game of `setup`."""
    game = Game(players=setup.players, mode=setup.mode, edition=setup.edition, seed=game_seed)
    agents = _make_agents(setup, game_seed)
    dale_mode = setup.mode == "dale"
    observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    lines = [f"game seed {game_seed}: {setup.mode}, edition {setup.edition}, "
             f"{setup.players} player(s): {', '.join(setup.agents)}",
             f"public goals: {', '.join(game.public_goals) or 'none'}"]
    decision = 0
    while not game.is_over:
        seat = game.current_player
        mask = game.legal_action_mask()
        encode_observation(game.state, TILES.table, seat, observation)
        action = agents[seat].act(game)
        text = game.action_to_text(game.action_number(action))
        lines.append(f"#{decision} round {game.round + 1} seat {seat} {game.pending_decision} "
                     f"legal {int(mask.sum())} mask {_digest(mask)} "
                     f"observation {_digest(observation)}: {text}")
        game.apply(action)
        lines.extend(f"  {line}" for line in describe_events(game.last_events, dale_mode))
        decision += 1
    for score in game.final_scores():
        lines.append(f"final seat {score['player']}: population {score['population']}, "
                     f"reputation {score['reputation']}, income {score['income']}, "
                     f"money {score['money_left']}, winner {score['winner']}")
    return lines


def golden_text(setup: Setup) -> str:
    lines = [f"# Golden playthrough {setup.name}: regenerate with "
             f"`python tests/golden_playthroughs.py {setup.name}`"]
    for game_seed in GAME_SEEDS:
        lines.extend(playthrough_lines(setup, game_seed))
    return "\n".join(lines) + "\n"


def golden_path(setup: Setup) -> Path:
    return GOLDEN_DIR / f"{setup.name}.txt"


def main(names: list[str]) -> None:
    known = {setup.name: setup for setup in SETUPS}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise SystemExit(f"unknown setup(s) {', '.join(unknown)}; known: {', '.join(known)}")
    GOLDEN_DIR.mkdir(exist_ok=True)
    for setup in [known[name] for name in names] or SETUPS:
        golden_path(setup).write_text(golden_text(setup))
        print(f"wrote {golden_path(setup)}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main(sys.argv[1:])
