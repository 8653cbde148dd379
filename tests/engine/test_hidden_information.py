"""Redrawing hidden information (R10.2) for look-ahead: public facts kept, the rest redrawn."""

import numpy as np
import pytest

from hidden_facts import seen_by, undrawn_stacks, with_other_hidden_facts
from random_play import midgame
from suburbia_env.engine import state_layout as s
from suburbia_env.errors import ArgumentError, ConfigError
from suburbia_env.engine.hidden_information import redraw_hidden_information
from suburbia_env.engine.checks.invariants import check_invariants
from suburbia_env.engine.rng import secret_words, seed_words
from suburbia_env.engine.state_layout import player_base
from suburbia_env.engine.setup import stack_sizes
from suburbia_env.engine.tile_data import GOALS, TILES

CONFIGURATIONS = [(1, "dale"), (2, "standard"), (4, "standard"), (1, "solitary")]


def _words(seed):
    return np.random.default_rng(seed).integers(1, 2**31, size=4).astype(np.int32)


@pytest.mark.parametrize("players,mode", CONFIGURATIONS)
@pytest.mark.parametrize("decisions", [0, 7, 25])
def test_redraw_keeps_every_public_fact_and_the_tile_count(players, mode, decisions):
    """R10.1: what the viewer sees is unchanged; every physical tile is still in one place."""
    game = midgame(dict(players=players, mode=mode), 11 + decisions, decisions)
    viewer = max(game.current_player, 0)  # a finished game is viewed by seat 0
    redrawn = game.state.copy()
    redraw_hidden_information(redrawn, TILES.table, GOALS.table, viewer, _words(3))
    assert check_invariants(redrawn, TILES.table) == 0
    np.testing.assert_array_equal(seen_by(redrawn, viewer), seen_by(game.state, viewer))
    for field in (s.PILE_POSITION, s.PILE_A_END, s.PILE_B_END, s.PILE_END):
        assert redrawn[field] == game.state[field]
    own = player_base(viewer)
    assert (redrawn[own:own + s.PLAYER_STRIDE] == game.state[own:own + s.PLAYER_STRIDE]).all()


def test_stack_order_and_composition_are_redrawn_from_the_unseen_tiles():
    """R10.2: the undrawn tiles are a fresh draw from stack + box of each letter."""
    game = midgame(dict(players=1, mode="dale"), 5, 4)
    state = game.state
    truth = undrawn_stacks(state).copy()
    samples = []
    for seed in range(40):
        redrawn = state.copy()
        redraw_hidden_information(redrawn, TILES.table, GOALS.table, 0, _words(seed))
        samples.append(undrawn_stacks(redrawn).copy())
    assert any((sample != truth).any() for sample in samples)
    one_more_round = TILES.table.shape[0] - 1
    kinds_seen = set(np.concatenate(samples).tolist())
    kinds_in_pile_or_box = set(truth.tolist()) | {
        kind for kind in range(one_more_round) if state[s.BOX + kind] > 0}
    assert kinds_seen <= kinds_in_pile_or_box
    assert kinds_seen - set(truth.tolist()), "box tiles never reached the redrawn stacks"
    for sample in samples:
        assert (sample == one_more_round).sum() == 1


def test_one_more_round_stays_in_its_block():
    """R9.2: with Dale, One More Round is shuffled among the last 12 C tiles + itself."""
    game = midgame(dict(players=1, mode="dale"), 8, 0)
    state = game.state
    sizes = stack_sizes(state[s.NUM_PLAYERS], state[s.MODE], state[s.EDITION])
    block_start = state[s.PILE_B_END] + sizes[2]
    block_stop = block_start + sizes[3] + 1
    one_more_round = TILES.table.shape[0] - 1
    positions = set()
    for seed in range(200):
        redrawn = state.copy()
        redraw_hidden_information(redrawn, TILES.table, GOALS.table, 0, _words(seed))
        pile = redrawn[s.PILE:s.PILE + s.PILE_CAPACITY]
        positions.add(int(np.flatnonzero(pile[:redrawn[s.PILE_END]] == one_more_round)[0]))
    assert positions <= set(range(block_start, block_stop))
    assert len(positions) >= sizes[3] - 2


def test_other_players_goals_are_redrawn_from_goals_the_viewer_has_not_seen():
    game = midgame(dict(players=3, mode="standard"), 21, 9)
    viewer = game.current_player
    state = game.state
    seen = set(state[s.PUBLIC_GOALS:s.PUBLIC_GOALS + 3].tolist())
    seen |= set(state[player_base(viewer) + s.GOAL_OPTIONS:
                      player_base(viewer) + s.GOAL_OPTIONS + 2].tolist())
    changed = False
    for seed in range(20):
        redrawn = state.copy()
        redraw_hidden_information(redrawn, TILES.table, GOALS.table, viewer, _words(seed))
        dealt = []
        for player in range(3):
            base = player_base(player)
            options = redrawn[base + s.GOAL_OPTIONS:base + s.GOAL_OPTIONS + 2].tolist()
            if player == viewer:
                continue
            dealt += options
            assert redrawn[base + s.PRIVATE_GOAL] in (-1, options[0])
            changed |= options != state[base + s.GOAL_OPTIONS:base + s.GOAL_OPTIONS + 2].tolist()
        assert not set(dealt) & seen
        assert len(set(dealt)) == len(dealt)
    assert changed


def test_same_words_same_redraw():
    game = midgame(dict(players=2, mode="standard"), 2, 12)
    first, second = game.state.copy(), game.state.copy()
    redraw_hidden_information(first, TILES.table, GOALS.table, 0, _words(9))
    redraw_hidden_information(second, TILES.table, GOALS.table, 0, _words(9))
    np.testing.assert_array_equal(first, second)



@pytest.mark.parametrize("decisions", [0, 10, 30])
def test_the_redraw_does_not_depend_on_the_hidden_facts(decisions):
    """No leak (R10.2): positions that differ only in hidden facts redraw identically."""
    game = midgame(dict(players=1, mode="dale"), 30 + decisions, decisions)
    other = with_other_hidden_facts(game.state, decisions)
    assert check_invariants(other, TILES.table) == 0
    assert (other != game.state).any()
    first, second = game.state.copy(), other
    redraw_hidden_information(first, TILES.table, GOALS.table, 0, _words(4))
    redraw_hidden_information(second, TILES.table, GOALS.table, 0, _words(4))
    np.testing.assert_array_equal(first, second)


def test_game_redraw_hidden_is_the_redraw_of_its_words_and_forgets_the_seed():
    """`Game.redraw_hidden` (what an undo and a load call): the viewer's view is kept, the
    stacks to come are dealt anew, the same words give the same deal (a record keeps
    them), and the game no longer claims to be the deal of its seed."""
    game = midgame(dict(players=3, mode="standard"), 6, 9)
    viewer = game.current_player
    words = secret_words()
    redrawn = game.copy()
    redrawn.redraw_hidden(viewer, words)
    assert redrawn.seed is None and game.seed is not None
    np.testing.assert_array_equal(seen_by(redrawn.state, viewer), seen_by(game.state, viewer))
    assert not np.array_equal(undrawn_stacks(redrawn.state), undrawn_stacks(game.state))
    by_hand = game.state.copy()
    redraw_hidden_information(by_hand, TILES.table, GOALS.table, viewer, words.copy())
    np.testing.assert_array_equal(redrawn.state, by_hand)
    with pytest.raises(ArgumentError, match="player must be a seat"):
        game.copy().redraw_hidden(3, secret_words())


def test_seed_words_refuse_a_negative_seed():
    with pytest.raises(ConfigError, match="seed must be a non-negative integer"):
        seed_words(-6)
