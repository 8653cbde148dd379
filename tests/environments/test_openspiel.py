"""Suburbia as an OpenSpiel game (suburbia_env/envs/openspiel_game.py, issue 20 item 3).

OpenSpiel's own consistency checks (`pyspiel.random_sim_test`, with serialization), the
deal as explicit chance outcomes, the same game as the engine's `Game` for the same seed
and decisions, hidden information (R10.2) kept out of every player's information state
and observation, and OpenSpiel's information-set MCTS playing against Dale's procedure
(R9.2) with seeded generators throughout.
"""

from __future__ import annotations

import pickle
import re

import numpy as np
import pyspiel  # the openspiel extra (part of .[test])
import pytest
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

from agents import DaleAgent
from repository import REPO
from suburbia_env import Game
from suburbia_env.engine import action_space as a
from suburbia_env.envs import openspiel_game as og
from suburbia_env.engine import state_layout as s
from suburbia_env.errors import ConfigError
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.engine.tile_data import TILES

CONFIGS = [dict(), dict(players=3), dict(players=4, edition="1st"),
           dict(players=1, mode="dale"), dict(players=2, reward="margin")]


def deal(state, seed_bytes) -> None:
    for byte in seed_bytes:
        state.apply_action(byte)


def play_randomly(game, seed: int, stop_after: int | None = None):
    """A state played by uniform chance and uniform random decisions from `seed`."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if stop_after is not None and len(state.history()) >= stop_after:
            break
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def decisions(state) -> list[int]:
    """The players' decisions of a state's history (the deal's chance bytes removed)."""
    return state.history()[og.SEED_BYTES:]


def expected_returns(scores: list[dict], players: int) -> list[float]:
    """Win/loss (R8.3) from the engine's final scores: +1 sole winner, 0 shared, -1 loss."""
    winners = [row["player"] for row in scores if row["winner"]]
    return [(1.0 if len(winners) == 1 else 0.0) if seat in winners else -1.0
            for seat in range(players)]


# OpenSpiel's own checks -------------------------------------------------------------------

@pytest.mark.parametrize("parameters", CONFIGS)
def test_openspiel_random_simulation_checks_pass_with_serialization(parameters):
    game = og.load_game(**parameters)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_type_and_sizes():
    game = og.load_game()
    kind = game.get_type()
    assert kind.short_name == "python_suburbia"
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_distinct_actions() == a.NUM_ACTIONS == 2123
    assert game.max_chance_outcomes() == 256
    assert (game.num_players(), game.min_utility(), game.max_utility()) == (2, -1.0, 1.0)
    assert game.information_state_tensor_shape() == [OBSERVATION_SIZE] == [8759]
    assert game.observation_tensor_shape() == [OBSERVATION_SIZE]
    three = pyspiel.load_game("python_suburbia(players=3)")
    assert three.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert three.num_players() == 3
    dale = og.load_game(players=1, mode="dale")
    assert dale.num_players() == 1  # Dale is not a player of OpenSpiel: the engine plays him


@pytest.mark.parametrize("parameters,message", [
    (dict(players=5), r"wrong player count: mode 'standard' is played by 2 to 4 players"),
    (dict(players=1, mode="solitary"), r"mode must be 'standard' or 'dale'"),
    (dict(players=2, mode="dale"), r"mode 'dale' is played by 1 player, not 2"),
    (dict(reward="points"), r"reward must be one of win_loss, margin, not 'points'"),
    (dict(edition="3rd"), r"edition must be '2nd' or '1st'"),
])
def test_bad_parameters_are_named(parameters, message):
    with pytest.raises(ConfigError, match=message):
        og.load_game(**parameters)


def test_public_and_all_player_observers_are_refused():
    game = og.load_game()
    for kind in (pyspiel.IIGObservationType(public_info=True, perfect_recall=False,
                                            private_info=pyspiel.PrivateInfoType.NONE),
                 pyspiel.IIGObservationType(public_info=True, perfect_recall=False,
                                            private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)):
        with pytest.raises(ValueError, match="observes as one player"):
            game.make_py_observer(kind)


# The deal: chance ---------------------------------------------------------------------------

def test_the_deal_is_four_chance_nodes_of_equally_likely_bytes_giving_the_seed():
    game = og.load_game()
    state = game.new_initial_state()
    for drawn in range(og.SEED_BYTES):
        assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
        outcomes = state.chance_outcomes()
        assert [outcome for outcome, _ in outcomes] == list(range(256))
        assert {probability for _, probability in outcomes} == {1 / 256}
        assert sum(probability for _, probability in outcomes) == pytest.approx(1.0)
        assert state.seed is None
        state.apply_action([0, 1, 0, 7][drawn])
    assert not state.is_chance_node()
    assert state.seed == 0x00010007 == 65543
    engine = Game(2, seed=65543)
    assert state.current_player() == engine.current_player
    assert state.legal_actions() == engine.legal_actions().tolist()
    assert state.suburbia_game().market() == engine.market()
    assert state.action_to_string(state.current_player(), a.ACTION_KEEP_GOAL) == \
        f"keep {engine.goal_options(engine.current_player)[0]}"


# Same game as the engine --------------------------------------------------------------------

@pytest.mark.parametrize("parameters", CONFIGS)
def test_the_final_scores_are_those_of_game_replaying_the_seed_and_decisions(parameters):
    game = og.load_game(**parameters)
    state = play_randomly(game, seed=11)
    config = game.config
    engine = Game(config.players, config.mode, config.edition, state.seed)
    for action in decisions(state):
        engine.apply(action)
    assert engine.is_over
    wrapped = state.suburbia_game()
    assert wrapped.final_scores() == engine.final_scores()
    np.testing.assert_array_equal(wrapped.state, engine.state)
    scores = engine.final_scores()
    if parameters.get("reward") == "margin":
        populations = [row["population"] for row in scores]
        assert state.returns() == pytest.approx(
            [(populations[0] - populations[1]) / 100, (populations[1] - populations[0]) / 100])
    else:
        assert state.returns() == expected_returns(scores, config.players)


def test_the_dale_game_returns_the_single_players_result_against_dale():
    state = play_randomly(og.load_game(players=1, mode="dale"), seed=3)
    scores = state.suburbia_game().final_scores()
    assert len(scores) == 2  # the player and Dale (R9.2)
    assert state.returns() == [1.0 if scores[0]["winner"] and not scores[1]["winner"]
                               else 0.0 if scores[0]["winner"] else -1.0]


# Hidden information (R10.2) -----------------------------------------------------------------

def hidden_facts(state) -> tuple:
    game = state.suburbia_game()
    pile = tuple(game.state[s.PILE + game.state[s.PILE_POSITION]:s.PILE + game.state[s.PILE_END]])
    goals = tuple(tuple(game.goal_options(seat)) for seat in range(game.num_seats))
    return pile, goals


@pytest.mark.parametrize("players", [2, 3, 4])
def test_other_players_goals_never_appear_in_a_players_views(players):
    game = og.load_game(players=players)
    for stop_after in (og.SEED_BYTES, og.SEED_BYTES + players, og.SEED_BYTES + 20, None):
        state = play_randomly(game, seed=players, stop_after=stop_after)
        engine = state.suburbia_game()
        for player in range(players):
            views = (state.information_state_string(player), state.observation_string(player))
            for goal in engine.goal_options(player):
                assert all(goal in view for view in views)
            for other in range(players):
                if other == player or state.is_terminal():
                    continue  # at the end the final scores name every private goal (R8.2)
                for goal in engine.goal_options(other):
                    assert not any(goal in view for view in views), (player, other, goal)


@pytest.mark.parametrize("parameters", [dict(players=2), dict(players=3),
                                        dict(players=1, mode="dale")])
def test_resampling_changes_the_hidden_facts_and_nothing_the_player_sees(parameters):
    """A world drawn by resample_from_infostate differs from the true one in what the
    player cannot see (stack order, One More Round's place, other players' goals) and in
    nothing the player sees: its information state and observation, strings and
    tensors, are those of the true state."""
    game = og.load_game(**parameters)
    sampler = pyspiel.UniformProbabilitySampler(5, 0.0, 1.0)
    for stop_after in (og.SEED_BYTES + 1, og.SEED_BYTES + 9, og.SEED_BYTES + 18):
        state = play_randomly(game, seed=21, stop_after=stop_after)
        assert len(state.history()) == stop_after  # not over yet
        player = state.current_player()
        world = state.resample_from_infostate(player, sampler)
        assert hidden_facts(world) != hidden_facts(state)
        assert world.seed is None and state.seed is not None
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.observation_string(player) == state.observation_string(player)
        assert world.information_state_tensor(player) == state.information_state_tensor(player)
        assert world.observation_tensor(player) == state.observation_tensor(player)
        assert world.legal_actions() == state.legal_actions()
        assert world.history() == state.history()


def test_information_tensor_is_the_shared_encoders_vector_of_the_players_seat():
    state = play_randomly(og.load_game(players=3), seed=8, stop_after=og.SEED_BYTES + 12)
    engine = state.suburbia_game()
    for player in range(3):
        expected = np.zeros(OBSERVATION_SIZE, np.float32)
        encode_observation(engine.state, TILES.table, player, expected)
        np.testing.assert_array_equal(np.array(state.information_state_tensor(player),
                                               np.float32), expected)
    assert state.clone().information_state_tensor(0) == state.information_state_tensor(0)
    before_deal = og.load_game().new_initial_state()
    assert set(before_deal.information_state_tensor(0)) == {0.0}


def test_information_state_records_own_keep_and_hides_the_others_keep():
    state = og.load_game().new_initial_state()
    deal(state, [0, 0, 0, 7])
    first = state.current_player()
    second = 1 - first
    engine = state.suburbia_game()
    state.apply_action(a.ACTION_KEEP_GOAL + 1)
    kept = engine.goal_options(first)[1]
    assert f"player {first}: keep {kept}" in state.information_state_string(first)
    assert f"player {first}: keeps a goal" in state.information_state_string(second)
    assert kept not in state.information_state_string(second)


def test_a_resampled_world_survives_serialization_and_pickling():
    game = og.load_game(players=2)
    state = play_randomly(game, seed=4, stop_after=og.SEED_BYTES + 6)
    world = state.resample_from_infostate(state.current_player(),
                                          pyspiel.UniformProbabilitySampler(9, 0.0, 1.0))
    for copy in (game.deserialize_state(world.serialize()), pickle.loads(pickle.dumps(world))):
        assert str(copy) == str(world) != str(state)
        assert hidden_facts(copy) == hidden_facts(world)
        assert copy.seed is None


# Bots and evaluation ------------------------------------------------------------------------

def play_with_bots(state, bots, rng: np.random.RandomState):
    """The game loop of OpenSpiel's evaluate_bots, without its restart_at (which
    open-spiel 2.0.2's ISMCTSBot does not implement)."""
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(bots[state.current_player()].step(state)))
    return state


def ismcts_bot(game, seed: int, simulations: int = 12):
    """OpenSpiel's IS-MCTS with random rollouts, every generator seeded (its default
    resampler draws from an unseeded sampler)."""
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
                           uct_c=2.0, max_simulations=simulations,
                           random_state=np.random.RandomState(seed + 1))
    sampler = pyspiel.UniformProbabilitySampler(seed + 2, 0.0, 1.0)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    return bot


@pytest.mark.parametrize("parameters", [dict(players=2), dict(players=1, mode="dale")])
def test_information_set_mcts_plays_a_whole_game_against_dale(parameters):
    """IS-MCTS against Dale's procedure: seat 1 played by agents.DaleAgent through
    AgentBot in a standard game, the engine's Dale in the Dale game (R9.2). Every
    search samples worlds with resample_from_infostate and checks that each keeps the
    searcher's information state. Same seeds, same game."""
    game = og.load_game(**parameters)
    histories = []
    for _ in range(2):
        bots = [ismcts_bot(game, seed=40)]
        if game.num_players() == 2:
            bots.append(og.AgentBot(DaleAgent()))
        state = play_with_bots(game.new_initial_state(), bots, np.random.RandomState(6))
        histories.append(state.history())
        scores = state.suburbia_game().final_scores()
        assert len(scores) == 2
        if game.num_players() == 2:
            assert state.returns() == expected_returns(scores, 2)
            assert sum(state.returns()) == 0.0
        else:
            winners = [row["player"] for row in scores if row["winner"]]
            assert state.returns() == [1.0 if winners == [0] else 0.0 if 0 in winners
                                       else -1.0]
        engine = Game(*(game.config.players, game.config.mode), seed=state.seed)
        for action in decisions(state):
            engine.apply(action)
        assert engine.final_scores() == scores
    assert histories[0] == histories[1]


def test_openspiel_evaluate_bots_plays_dale_against_openspiels_random_bot():
    game = og.load_game()
    results = []
    for seed in range(2):
        bots = [og.AgentBot(DaleAgent()), pyspiel.make_uniform_random_bot(1, seed)]
        state = game.new_initial_state()
        returns = evaluate_bots(state, bots, np.random.RandomState(seed))
        assert returns == expected_returns(state.suburbia_game().final_scores(), 2)
        results.append(returns)
    assert results == [[1.0, -1.0], [1.0, -1.0]]  # Dale's procedure beats random play


def test_the_python_blocks_of_docs_openspiel_run(capsys):
    text = (REPO / "docs" / "openspiel.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 2
    for index, block in enumerate(blocks):
        exec(compile(block, f"docs/openspiel.md block {index}", "exec"), {})
    returns, population = capsys.readouterr().out.split("] ")
    assert returns + "]" in ("[-1.0, 1.0]", "[0.0, 0.0]", "[1.0, -1.0]")
    assert int(population) >= 0
