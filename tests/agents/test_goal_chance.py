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


def reference_bonuses(state, chances) -> tuple[np.ndarray, np.ndarray]:
    """(legal actions, each one's expected goal bonus after its own-turn trial) with the
    refit chances computed here: bonus x 1 / (1 + exp(-(lead - centre) / (s0 + s1 T)))
    over the public goals and the player's private goal (R8.2)."""
    from agents.one_ply import OWN_TURN, play_trial, turns_left
    from suburbia_env.engine import state_layout as s
    from suburbia_env.engine.action_space import NUM_ACTIONS
    from suburbia_env.engine.event_log import NUM_EVENT_FIELDS
    from suburbia_env.engine.legal_actions import legal_action_mask
    from suburbia_env.engine.scoring import goal_lead
    from suburbia_env.engine.tile_data import TILES
    from suburbia_env.engine.tile_table import goal_criterion, private_goal_bonus
    mask, actions = np.zeros(NUM_ACTIONS, np.bool_), np.zeros(NUM_ACTIONS, np.int32)
    count = legal_action_mask(state, TILES.table, TILES.basic_kinds, mask, actions)
    bonuses = np.zeros(count)
    player, future = state[s.CURRENT_PLAYER], turns_left(state)
    scratch = np.empty_like(state)
    log = np.zeros((1, NUM_EVENT_FIELDS), dtype=np.int32)
    for index in range(count if count > 1 else 0):
        play_trial(scratch, state, TILES.table, GOALS.table, TILES.basic_kinds, OWN_TURN,
                   actions[index], log)
        goals = [(s.public_goal(scratch, i), public_goal_bonus) for i in range(4)]
        goals.append((s.private_goal(scratch, player), private_goal_bonus))
        for goal, worth in goals:
            if goal >= 0:
                s0, s1, centre = chances[goal_criterion(GOALS.table, goal)]
                lead = goal_lead(scratch, TILES.table, GOALS.table, goal, player)
                bonuses[index] += worth(GOALS.table, goal) / (
                    1 + np.exp(-(lead - centre) / (s0 + s1 * future)))
    return actions[:count].copy(), bonuses


def test_the_goal_term_with_refit_chances_is_the_reference_and_its_own_is_unchanged():
    """trial_goal_bonuses with a refit table scores each legal action as the reference
    above, at 2 and 4 players; with own_chance_table (the term's own form as a table) as
    with OWN_CHANCES, up to rounding."""
    from agents.one_ply import OWN_CHANCES, own_chance_table, trial_goal_bonuses
    from agents.styles import StyleAgent
    from suburbia_env import Game
    from suburbia_env.engine.action_space import NUM_ACTIONS
    from suburbia_env.engine.tile_data import TILES
    refit = np.array([[0.13, 0.04, 0.24], [0.17, 0.04, -0.27], [3.6, 1.27, -2.9],
                      [0.05, 0.07, 0.7], [1.07, 1.07, 1.25], [2.0, 0.48, -1.69],
                      [0.03, 0.02, 0.05], [0.08, 0.06, 0.07]])
    mask, actions = np.zeros(NUM_ACTIONS, np.bool_), np.zeros(NUM_ACTIONS, np.int32)
    compared = differing = 0
    for players, seed in [(2, 51), (4, 52)]:
        game = Game(players, "standard", "2nd", seed)
        seats = [StyleAgent("goals", seed=seed + seat) for seat in range(players)]
        while not game.is_over:
            state = game.state
            own = trial_goal_bonuses(state, TILES.table, GOALS.table, TILES.basic_kinds, mask,
                                     actions, 0.0, OWN_CHANCES)
            as_table = trial_goal_bonuses(state, TILES.table, GOALS.table, TILES.basic_kinds,
                                          mask, actions, 0.0, own_chance_table())
            assert as_table == pytest.approx(own, abs=1e-9)
            found = trial_goal_bonuses(state, TILES.table, GOALS.table, TILES.basic_kinds,
                                       mask, actions, 0.0, refit)
            legal, expected = reference_bonuses(state, refit)
            assert np.array_equal(actions[:len(found)], legal)
            assert found == pytest.approx(expected, abs=1e-9)
            compared += len(found) > 1
            differing += not np.allclose(found, own)
            game.apply(seats[game.current_player].act(game))
    assert compared > 40 and differing > compared // 2


def test_a_model_copy_with_refit_chances_carries_and_plays_them(tmp_path):
    """with_chances (the benchmark's --paired-games): the copy's ppo: agent holds the
    refit table and plays the goal term with it; a bad table is refused by name."""
    from agents.model_format import ModelFormatError
    from agents.ppo_agent import PPOAgent
    from agents.goal_term import goal_prior_scores
    from suburbia_env import Game
    from suburbia_env.engine.action_space import NUM_ACTIONS
    from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
    from suburbia_env.engine.tile_data import TILES
    released = Path("models/multiplayer-goal-prior.safetensors")
    table = gc.refit_table({"lakes": {"fit": {"s0": 0.2, "s1": 0.03, "centre": -0.2}}})
    assert table[1].tolist() == [0.2, 0.03, -0.2] and table[2].tolist() == [4.0, 1.2, 0.5]
    agent = PPOAgent(gc.with_chances(released, table, tmp_path / "copy"))
    assert agent.goal_chances.tolist() == table.tolist()
    assert agent.goal_prior_weight == PPOAgent(released).goal_prior_weight
    game = Game(2, "standard", "2nd", 61)
    observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    mask, actions = np.zeros(NUM_ACTIONS, np.bool_), np.zeros(NUM_ACTIONS, np.int32)
    for _ in range(30):
        encode_observation(game.state, TILES.table, game.current_player, observation)
        probabilities = agent.policy_probabilities(observation, game.legal_action_mask())
        legal, scores = goal_prior_scores(game.state, probabilities, agent.goal_prior_weight,
                                          mask, actions, 0.0, table)
        chosen = agent.act(game)
        assert chosen == legal[np.argmax(scores)]
        game.apply(chosen)
    bad = table.copy()
    bad[3, 0] = 0.0
    with pytest.raises(ModelFormatError, match="goal_chances needs s0 > 0"):
        PPOAgent(gc.with_chances(released, bad, tmp_path / "bad"))
