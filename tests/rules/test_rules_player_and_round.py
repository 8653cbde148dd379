"""R1.1 (what a player has) and R1.5 (a round is one turn of each player from the first)."""

import numpy as np
import pytest

from suburbia_env import Game
from suburbia_env.engine import state_layout as s


def test_R1_1_a_player_has_money_levels_population_markers_goal_and_borough():
    game = Game(players=3, seed=11)
    while game.pending_decision == "keep_goal":
        game.apply(game.legal_actions()[0])
    for seat in range(3):
        state = game.player_state(seat)
        assert (state["money"], state["income"], state["reputation"], state["population"],
                state["markers_left"]) == (15, 0, 1, 2, 3)
        assert [(cell["col"], cell["row"], cell["tile"]) for cell in state["borough"]] == [
            (0, 0, "Suburbs"), (0, 1, "Community Park"), (0, 2, "Heavy Factory")]
        assert game.private_goal(seat) in game.goal_options(seat)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R1_5_a_round_is_one_turn_of_each_player_starting_with_the_first(players):
    game = Game(players=players, seed=players, random_private_goals=True)
    first = int(game.state[s.FIRST_PLAYER])
    generator = np.random.default_rng(players)
    turns = []  # (round, player) at the start of each turn
    while not game.is_over:
        if game.pending_decision == "turn":
            turns.append((game.round, game.current_player))
        game.apply(int(generator.choice(game.legal_actions())))
    for index, (round_number, player) in enumerate(turns):
        assert round_number == index // players
        assert player == (first + index) % players
    assert len(turns) % players == 0  # the game ends at the end of a round
