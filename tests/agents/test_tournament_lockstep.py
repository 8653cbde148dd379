"""agents/tournament_games.play_games_in_lockstep: search games played many at a time
(their network passes merged, agents/lockstep.py) are the games played one after another,
seat row for seat row, whichever games share a block and whether the agents are new."""

from __future__ import annotations

import pytest

from agents.tournament_games import play_game, play_games_in_lockstep
from agents.tournament_tasks import make_tasks
from repository import REPO

MODEL = REPO / "models" / "multiplayer-styles.safetensors"


@pytest.mark.slow
@pytest.mark.parametrize("specs", [
    [f"ppo-rollout:{MODEL},2,2", "greedy"],
    [f"ppo-rollout:{MODEL},2,2,0,inferred-styles,1", "goals", "greedy"]],
    ids=["2p-search-greedy", "3p-goal-search-styles"])
def test_games_in_lockstep_are_the_games_one_at_a_time(specs):
    tasks = make_tasks(specs, "standard", 3, len(specs), seed=31_000_000)
    cache: dict = {}
    alone = [play_game(task, cache, {}) for task in tasks]
    slots: list = []
    together = play_games_in_lockstep(tasks, width=3, cache_slots=slots, sources={})
    assert together == alone
    assert len(slots) == 3
    # Again with the agents of the first call, other games sharing each block.
    again = play_games_in_lockstep(tasks[::-1], width=2, cache_slots=slots, sources={})
    assert again == alone[::-1]
    wins = [row["win"] for outcome in alone for row in outcome["rows"] if row["seat"] == 0]
    assert len(wins) == 3 and all(win is not None for win in wins)
