"""The engine's kernels for one-ply players: a trial of the mover's own turn
(turn.own_turn_trial) or of the whole turn (turn.full_turn_trial), a goal's lead (scoring.goal_lead, R8.2) and the lake payments
still open (resolution.waiting_lake_payments, R6.7)."""

import numpy as np
import pytest

from agents.greedy import GreedyAgent
from suburbia_env import Game
from suburbia_env.engine import action_space as a
from suburbia_env.engine import constants as c
from suburbia_env.engine import event_log as ev
from suburbia_env.engine import state_layout as s
from suburbia_env.positions import put_tile_without_effects
from suburbia_env.engine.hex_grid import NUM_CELLS, cell_index
from suburbia_env.engine.legal_actions import legal_action_mask
from suburbia_env.engine.resolution import waiting_lake_payments
from suburbia_env.engine.scoring import goal_lead, public_goal_winner
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.turn import (apply_legal_action, cheapest_discard_slot,
                                      full_turn_trial, own_turn_trial)
from tests.rules_builders import new_game, set_goals

LOG = ev.new_log(0)


def _positions(players, mode, seed, games=2, every=3):
    """Positions before turns of seeded greedy games (every `every`-th decision)."""
    greedy = GreedyAgent()
    found = []
    for game_seed in range(seed, seed + games):
        game = Game(players, mode, seed=game_seed, random_private_goals=True)
        decision = 0
        while not game.is_over:
            if decision % every == 0:
                found.append(game.state.copy())
            game.apply(greedy.act(game))
            decision += 1
    return found


def _legal(state):
    mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
    return legal_action_mask(state, TILES.table, TILES.basic_kinds, mask, actions), actions


def _attributes(state, player):
    return (s.money(state, player), s.income(state, player), s.reputation(state, player),
            s.population(state, player), tuple(s.cell_kinds(state, player)),
            tuple(s.cell_flag_row(state, player)))


@pytest.mark.parametrize("players, mode", [(2, "standard"), (4, "standard"),
                                           (1, "solitary")])
def test_own_turn_trial_ends_the_turn_as_play_does(players, mode):
    """The mover's money, levels, population and borough after a trial are those of the
    real turn (its discard the cheapest slot) once steps 2 and 3 are done (R5.1-R5.3);
    the trial draws nothing (R10.2) and hands the turn to nobody."""
    compared = 0
    for state in _positions(players, mode, 400):
        if state[s.PENDING_DECISION] != c.DECISION_TURN:
            continue
        player = int(state[s.CURRENT_PLAYER])
        count, actions = _legal(state)
        for action in actions[:count:7]:
            trial = state.copy()
            own_turn_trial(trial, TILES.table, GOALS.table, TILES.basic_kinds, action, LOG)
            real = state.copy()
            apply_legal_action(real, TILES.table, GOALS.table, TILES.basic_kinds, action, LOG)
            if real[s.PENDING_DECISION] == c.DECISION_DISCARD and real[s.CURRENT_PLAYER] == player:
                slot = cheapest_discard_slot(real, player)
                apply_legal_action(real, TILES.table, GOALS.table, TILES.basic_kinds,
                                   a.ACTION_DISCARD + slot, LOG)
            assert trial[s.PILE_POSITION] == state[s.PILE_POSITION]
            assert trial[s.CURRENT_PLAYER] == player and trial[s.GAME_OVER] == 0
            if real[s.GAME_OVER]:
                continue
            assert _attributes(trial, player) == _attributes(real, player)
            compared += 1
    assert compared > 100


def test_own_turn_trial_leaves_dale_and_the_market_alone():
    """Against Dale the trial stops before his turn (R9.2): his borough, money and the
    pile are as they were; the market has lost only the mover's tile (R9.2: no slide)."""
    for state in _positions(1, "dale", 410)[:40]:
        if state[s.PENDING_DECISION] != c.DECISION_TURN:
            continue
        count, actions = _legal(state)
        trial = state.copy()
        own_turn_trial(trial, TILES.table, GOALS.table, TILES.basic_kinds, actions[count - 1],
                       LOG)
        assert _attributes(trial, c.DALE_SEAT) == _attributes(state, c.DALE_SEAT)
        assert trial[s.PILE_POSITION] == state[s.PILE_POSITION]
        assert trial[s.ROUND] == state[s.ROUND]
        market_before = sum(int(k) >= 0 for k in s.market_slots(state))
        market_after = sum(int(k) >= 0 for k in s.market_slots(trial))
        assert market_before - market_after in (0, 1, 2)


@pytest.mark.parametrize("players, mode", [(2, "standard"), (3, "standard"),
                                           (1, "solitary"), (1, "dale")])
def test_full_turn_trial_plays_the_whole_turn_with_the_stacks_drawn_out(players, mode):
    """The whole turn as play makes it, on a copy whose pile is drawn out: nothing hidden
    is drawn (R10.2: the market keeps only tiles it showed), Dale places no tile (R9.2;
    his tiles may still react to the mover's, R7.1 step 7), and the trial stops at the
    next turn or at the end of the game (R4.3), never at a discard or removal of the
    mover. Until step 3 the mover's values are those of `own_turn_trial`; only Solitary
    Architect's removal (R9.1) may cost more money."""
    compared = 0
    for state in _positions(players, mode, 420, every=4):
        if state[s.PENDING_DECISION] != c.DECISION_TURN:
            continue
        player = int(state[s.CURRENT_PLAYER])
        count, actions = _legal(state)
        shown = sorted(int(kind) for kind in s.market_slots(state) if kind >= 0)
        for action in actions[:count:9]:
            trial = state.copy()
            full_turn_trial(trial, TILES.table, GOALS.table, TILES.basic_kinds, action, LOG)
            own = state.copy()
            own_turn_trial(own, TILES.table, GOALS.table, TILES.basic_kinds, action, LOG)
            assert trial[s.PILE_POSITION] == state[s.PILE_END]
            market = [int(kind) for kind in s.market_slots(trial) if kind >= 0]
            assert all(shown.count(kind) >= market.count(kind) for kind in market)
            if mode == "dale":
                assert (_attributes(trial, c.DALE_SEAT)[4:]
                        == _attributes(state, c.DALE_SEAT)[4:])  # his borough
            if trial[s.GAME_OVER]:
                continue
            assert trial[s.PENDING_DECISION] == c.DECISION_TURN
            mine, expected = _attributes(trial, player), _attributes(own, player)
            if mode == "solitary":
                assert mine[1:] == expected[1:] and mine[0] <= expected[0]
            else:
                assert mine == expected
            compared += 1
    assert compared > 50


@pytest.mark.parametrize("players, mode", [(2, "standard"), (4, "standard"),
                                           (1, "solitary")])
def test_full_turn_trial_of_the_last_turn_ends_and_scores_the_game(players, mode):
    """The last move of a game, tried: the game ends and is scored as it was in play
    (R4.3, R8.2), though the trial drew nothing."""
    greedy = GreedyAgent()
    for seed in (440, 441):
        game = Game(players, mode, seed=seed, random_private_goals=True)
        while True:
            before, action = game.state.copy(), greedy.act(game)
            game.apply(action)
            if game.is_over:
                break
        trial = before.copy()
        full_turn_trial(trial, TILES.table, GOALS.table, TILES.basic_kinds, action, LOG)
        assert trial[s.GAME_OVER] == 1
        for player in range(players):
            assert (s.score_entry(trial, player, s.SCORE_FINAL_POPULATION)
                    == s.score_entry(game.state, player, s.SCORE_FINAL_POPULATION))
            assert (s.score_entry(trial, player, s.SCORE_WINNER)
                    == s.score_entry(game.state, player, s.SCORE_WINNER))


def test_own_turn_trial_pays_the_cheapest_discard():
    """A basic tile is followed by the discard of the cheapest affordable slot: slot 6,
    premium 0 (R4.1, R5.1b); Suburbs costs $3 and income 0 (R3.4) adds nothing."""
    game = new_game(2, seed=3)
    state = game.state.copy()
    player = int(state[s.CURRENT_PLAYER])
    basic = list(TILES.basic_kinds).index(TILES.kind("Suburbs"))
    action = a.ACTION_BASIC + basic * NUM_CELLS + cell_index(0, 3)
    kept = s.market_slot(state, 5)
    before = s.money(state, player)
    own_turn_trial(state, TILES.table, GOALS.table, TILES.basic_kinds, action, LOG)
    assert s.market_slot(state, 6) == -1 and s.market_slot(state, 5) == kept
    assert s.money(state, player) == before - 3


def test_goal_lead_counts_against_the_best_other_player():
    """Aquatic Engineer (most lakes) and Aquaphobian (fewest lakes), R8.2: seat 0 has two
    lakes, seat 1 one, seat 2 none."""
    game = new_game(3, seed=5)
    set_goals(game, ["Aquatic Engineer", "Aquaphobian"], {})
    for player, cells in ((0, [(0, 3), (0, 4)]), (1, [(0, 3)])):
        for column, row in cells:
            put_tile_without_effects(game, player, "High School", column, row, lake=True)
    state = game.state
    most, fewest = GOALS.goal("Aquatic Engineer"), GOALS.goal("Aquaphobian")
    assert [goal_lead(state, TILES.table, GOALS.table, most, p) for p in range(3)] == [1, -1, -2]
    assert [goal_lead(state, TILES.table, GOALS.table, fewest, p) for p in range(3)] == [-2, -1, 1]
    put_tile_without_effects(game, 1, "Middle School", 0, 4, lake=True)
    assert goal_lead(game.state, TILES.table, GOALS.table, most, 0) == 0
    assert public_goal_winner(game.state, TILES.table, GOALS.table, most) == -1


@pytest.mark.parametrize("players", [2, 4])
def test_goal_lead_above_zero_is_the_public_goal_winner(players):
    """Over positions of seeded games: a lead above 0 on a public goal means the player
    would score it now, and only then (R8.2)."""
    checked = 0
    for state in _positions(players, "standard", 420, games=2, every=5):
        for index in range(c.MAX_PLAYERS):
            goal = s.public_goal(state, index)
            if goal < 0:
                continue
            winner = public_goal_winner(state, TILES.table, GOALS.table, goal)
            for player in range(players):
                lead = goal_lead(state, TILES.table, GOALS.table, goal, player)
                assert (lead > 0) == (winner == player)
                checked += 1
    assert checked >= 70


def test_waiting_lake_payments_count_the_empty_cells_next_to_lakes():
    """R6.7: a lake at (0,3), below the Heavy Factory (0,2), has five empty neighbours;
    invested it pays twice each; a second lake at (0,4) takes one of them and has five of
    its own (R2.2 neighbours of an even column)."""
    game = new_game(2, seed=7)
    assert waiting_lake_payments(game.state, 0) == 0
    put_tile_without_effects(game, 0, "Office Building", 0, 3, lake=True)
    assert waiting_lake_payments(game.state, 0) == 5
    assert waiting_lake_payments(game.state, 1) == 0
    put_tile_without_effects(game, 0, "Office Building", 0, 4, lake=True, invested=True)
    assert waiting_lake_payments(game.state, 0) == 4 + 2 * 5
