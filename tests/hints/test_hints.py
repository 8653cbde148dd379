"""Hints for a person playing against bots (agents/hints.py, issue 33 item 3): the search's
best moves for the person's decision, from the person's knowledge only (R10.2)."""

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.greedy import GreedyAgent
from agents.hints import HINT_SETTINGS, HintRefused, Hinter, hint, hint_lines
from suburbia_env import Game
from suburbia_env.engine import state_layout as s

from hidden_facts import with_other_hidden_facts


def greedy_game(players: int, seed: int, decisions: int) -> Game:
    game = Game(players=players, seed=seed)
    agent = GreedyAgent()
    while len(game.history) < decisions:
        game.apply(agent.act(game))
    return game


@pytest.fixture(scope="module")
def hinter():
    return Hinter("standard")


@pytest.mark.slow
def test_a_hint_is_the_same_for_positions_the_person_cannot_tell_apart(hinter):
    """Two games that differ only in what the person cannot see (the stack order, One
    More Round's place, the other seats' goals) get identical hints from the same seed;
    the moves are the person's legal moves, best first, with win probability and margin."""
    game = greedy_game(3, seed=21, decisions=10)
    seat = game.current_player
    twin = Game.from_state(game.config, with_other_hidden_facts(game.state, 4))
    drawn = int(game.state[s.PILE_POSITION])
    assert not np.array_equal(game.state[s.PILE + drawn:s.PILE + game.state[s.PILE_END]],
                              twin.state[s.PILE + drawn:s.PILE + twin.state[s.PILE_END]])
    first, second = hinter.hint(game, seat, seed=5), hinter.hint(twin, seat, seed=5)
    assert first == second
    moves = first["moves"]
    assert 2 <= len(moves) <= HINT_SETTINGS.candidates
    legal = set(game.legal_actions().tolist())
    for move in moves:
        assert move["action"] in legal
        assert game.action_to_text(move["action"]) == move["move"]
        assert 0.0 <= move["win_probability"] <= 1.0
    assert first["samples"] == HINT_SETTINGS.samples
    lines = hint_lines(first)
    assert lines[1].startswith(f"  best: {moves[0]['move']}  win ")
    assert lines[2].strip() == moves[0]["words"] and len(lines) == 1 + 2 * len(moves)


@pytest.mark.slow
def test_a_hint_is_refused_for_another_seat_and_after_the_end(hinter):
    game = greedy_game(2, seed=3, decisions=4)
    with pytest.raises(HintRefused, match="it is not yours now"):
        hint(game, 1 - game.current_player, evaluator=hinter.evaluator)
    while not game.is_over:
        game.apply(GreedyAgent().act(game))
    with pytest.raises(HintRefused, match="the game is over"):
        hint(game, 0, evaluator=hinter.evaluator)
