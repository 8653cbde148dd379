"""benchmarks/goal_chance.py: its records are the term's chances and the races' real
outcomes, and its fit finds the parameters of the chance's form."""

import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
os.environ.setdefault("OMP_NUM_THREADS", "1")

import goal_chance as gc  # noqa: E402
from agents.one_ply import chance_of_lead  # noqa: E402
from score_breakdown import play  # noqa: E402
from suburbia_env.engine.tile_data import GOALS  # noqa: E402
from suburbia_env.engine.tile_table import public_goal_bonus  # noqa: E402


def test_the_records_end_as_the_final_scores_of_the_same_deals():
    """Two games of score_breakdown's deals: the public goals a seat is recorded as winning
    are the bonuses its final score holds (R8.2), at every count of players' seats; each
    chance is the term's (one_ply.chance_of_lead) for the recorded lead and turns left."""
    rows = gc.record("greedy", "goals", 2, 2, 9_000_000)
    scored = play("greedy", "goals", 2, 2, 9_000_000)
    assert set(rows[:, gc.GAME]) == {0, 1}
    for game, record in enumerate(scored):
        for seat, side in ((record["seat"], "agent"), (1 - record["seat"], "opponent")):
            public = rows[(rows[:, gc.GAME] == game) & (rows[:, gc.SEAT] == seat)
                          & (rows[:, gc.PRIVATE] == 0)]
            won = {int(goal) for goal in public[public[:, gc.WON] == 1][:, gc.GOAL]}
            lost = {int(goal) for goal in public[public[:, gc.WON] == 0][:, gc.GOAL]}
            assert not won & lost and len(won | lost) >= 2
            assert sum(public_goal_bonus(GOALS.table, goal) for goal in won) == \
                record[side]["public_goals"]
    for row in rows[::97]:
        assert row[gc.CHANCE] == pytest.approx(chance_of_lead(
            GOALS.table, int(row[gc.GOAL]), int(row[gc.LEAD]), row[gc.TURNS_LEFT]), abs=1e-12)
    assert 0 < rows[:, gc.CHANCE].min() and rows[:, gc.CHANCE].max() < 1


def test_the_fit_finds_the_parameters_the_outcomes_were_drawn_with():
    generator = np.random.default_rng(3)
    lead = generator.integers(-4, 5, 40_000).astype(float)
    future = generator.uniform(0, 18, 40_000)
    truth = (0.3, 0.05, 0.4)
    won = (generator.random(40_000) < gc.fitted_chance(truth, lead, future)).astype(float)
    s0, s1, centre = gc.fit(lead, future, won)
    assert s0 == pytest.approx(0.3, abs=0.06)
    assert s1 == pytest.approx(0.05, abs=0.01)
    assert centre == pytest.approx(0.4, abs=0.06)


@pytest.mark.parametrize("own_form", [True, False])
def test_the_refit_term_with_the_terms_own_chances_is_the_term(own_form):
    """refit_term given the term's own form (spread x (0.5 + 0.15 x turns left), centre
    0.5, one_ply.chance_of_lead), or no fit at all (the term's chances kept), scores every
    legal action as one_ply.trial_goal_bonuses does, at 2 and 4 players."""
    from agents.one_ply import trial_goal_bonuses
    from agents.styles import StyleAgent
    from suburbia_env import Game
    from suburbia_env.engine.action_space import NUM_ACTIONS
    from suburbia_env.engine.tile_data import TILES
    spreads = {0: 1.0, 1: 1.0, 2: 8.0, 3: 1.0, 4: 2.0, 5: 2.0, 6: 1.0, 7: 1.0}
    parameters = np.array([[0.5 * spreads[k], 0.15 * spreads[k], 0.5] if own_form
                           else [0.0, 0.0, 0.0] for k in range(8)])
    term = gc.refit_term(parameters)
    mask, actions = np.zeros(NUM_ACTIONS, np.bool_), np.zeros(NUM_ACTIONS, np.int32)
    compared = 0
    for players, seed in [(2, 51), (4, 52)]:
        game = Game(players, "standard", "2nd", seed)
        seats = [StyleAgent("goals", seed=seed + seat) for seat in range(players)]
        while not game.is_over:
            expected = trial_goal_bonuses(game.state, TILES.table, GOALS.table,
                                          TILES.basic_kinds, mask, actions, 0.0)
            found = term(game.state, TILES.table, GOALS.table, TILES.basic_kinds, mask,
                         actions, 0.0)
            assert found == pytest.approx(expected, abs=1e-9)
            compared += int((expected != 0).any())
            game.apply(seats[game.current_player].act(game))
    assert compared > 40
