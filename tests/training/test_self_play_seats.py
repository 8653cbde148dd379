"""Self-play's compiled seats (agents/batched_seats.py): every greedy, style and Dale seat
of a batch of self-play games moves as GreedyAgent, StyleAgent and DaleAgent move on the
same states, at 2, 3 and 4 players; the style seats really are the styles."""

from collections import Counter

import numpy as np
import pytest

from agents.batched_seats import (DALE_SEAT_POLICY, GREEDY_SEAT_POLICY, STYLE_NAMES,
                                  style_seat_policy, tie_draw)
from agents.dale_agent import DaleAgent
from agents.greedy import GreedyAgent
from agents.styles import StyleAgent
from suburbia_env import Game
from suburbia_env.game import GameConfig
from training.self_play import SelfPlayVecEnv


class GameDraws:
    """A StyleAgent's generator replaced by a game's generator words (a copy): the draws
    the self-play env gives that game's style seats, in the same order."""

    def __init__(self, words: np.ndarray):
        self.words = words

    def random(self) -> float:
        return float(tie_draw(self.words))


def _replay(env, states, rng_words, actions, done, counts: Counter) -> None:
    """Replay one step of every game that did not end in Python with the agents
    themselves, and check it reaches the env's state."""
    styles = {style_seat_policy(k): StyleAgent(name) for k, name in enumerate(STYLE_NAMES)}
    greedy, dale = GreedyAgent(), DaleAgent()
    for index in np.flatnonzero(~done):
        players = int(env.players[index])
        game = Game.from_state(GameConfig(players, "standard", "2nd"), states[index].copy())
        learner = int(env.learners[index])
        game.apply(int(actions[index]))
        draws = GameDraws(rng_words[index].copy())
        while not game.is_over and game.current_player != learner:
            policy = int(env.seat_policies[index, game.current_player])
            if policy == GREEDY_SEAT_POLICY:
                agent = greedy
            elif policy == DALE_SEAT_POLICY:
                agent = dale
            else:
                agent = styles[policy]
                agent._generator = draws
            counts[policy] += 1
            game.apply(agent.act(game))
        assert np.array_equal(game.state, env.states[index]), f"game {index} differs"
        assert np.array_equal(draws.words, env.runner.games.rng_words[index])


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_seats_move_as_the_agents_do(players):
    env = SelfPlayVecEnv(num_envs=6, players=players, dale_share=0.1, greedy_share=0.5,
                         style_share=0.4, seed=players)
    env.reset()
    generator = np.random.default_rng(players)
    counts = Counter()
    for _ in range(60):
        states = env.states.copy()
        rng_words = env.runner.games.rng_words.copy()
        actions = np.array([generator.choice(np.flatnonzero(mask))
                            for mask in env.action_masks()])
        _, _, done, _ = env.step(actions)
        _replay(env, states, rng_words, actions, done, counts)
    assert counts[GREEDY_SEAT_POLICY] > 30 and counts[DALE_SEAT_POLICY] > 0
    assert sum(counts[style_seat_policy(k)] for k in range(len(STYLE_NAMES))) > 30


def test_style_share_seats_every_style_and_only_styles():
    env = SelfPlayVecEnv(num_envs=32, players=4, dale_share=0.0, greedy_share=0.0,
                         style_share=1.0, seed=5)
    env.reset()
    seen = Counter(int(env.seat_policies[index, seat]) for index in range(32)
                   for seat in range(4) if seat != env.learners[index])
    assert set(seen) == {style_seat_policy(k) for k in range(len(STYLE_NAMES))}
    assert sum(seen.values()) == 96


def test_an_empty_pool_falls_back_on_the_styles_without_greedy():
    env = SelfPlayVecEnv(num_envs=8, players=2, dale_share=0.0, greedy_share=0.0,
                         style_share=0.5, seed=2)
    env.reset()
    policies = {int(env.seat_policies[index, 1 - env.learners[index]]) for index in range(8)}
    assert policies <= {style_seat_policy(k) for k in range(len(STYLE_NAMES))}


def test_shares_with_styles_must_add_up_to_at_most_one():
    with pytest.raises(ValueError, match="style_share"):
        SelfPlayVecEnv(num_envs=2, dale_share=0.3, greedy_share=0.5, style_share=0.3)
    from training.config import parse_config
    config = parse_config(["--mode", "self_play", "--style-share", "0.25"])
    assert config.style_share == 0.25
    with pytest.raises(SystemExit, match="--style-share"):
        parse_config(["--mode", "self_play", "--greedy-share", "0.5", "--style-share", "0.6"])


def test_same_seed_same_style_games():
    def play(seed):
        env = SelfPlayVecEnv(num_envs=4, players=(2, 4), greedy_share=0.0, dale_share=0.0,
                             style_share=1.0, seed=seed)
        env.reset()
        generator = np.random.default_rng(seed)
        for _ in range(40):
            env.step(np.array([generator.choice(np.flatnonzero(mask))
                               for mask in env.action_masks()]))
        return env.states.copy()
    assert np.array_equal(play(7), play(7))
    assert not np.array_equal(play(7), play(8))


def _style_seats(env) -> Counter:
    return Counter(STYLE_NAMES[style_seat_policy(0) - int(env.seat_policies[index, seat])]
                   for index in range(env.num_envs)
                   for seat in range(int(env.players[index])) if seat != env.learners[index])


def test_style_weights_choose_which_styles_sit():
    only_goals = SelfPlayVecEnv(num_envs=32, players=4, dale_share=0.0, greedy_share=0.0,
                                style_share=1.0, seed=5, style_weights=(1, 0, 0, 0))
    only_goals.reset()
    assert _style_seats(only_goals) == Counter({"goals": 96})
    weighted = SelfPlayVecEnv(num_envs=256, players=4, dale_share=0.0, greedy_share=0.0,
                              style_share=1.0, seed=5, style_weights=(3, 0, 0, 1))
    weighted.reset()
    seats = _style_seats(weighted)
    assert set(seats) == {"goals", "hoarder"} and sum(seats.values()) == 768
    # 768 seats, goals with probability 3/4: 576 expected, sigma 12.
    assert 520 < seats["goals"] < 632


def test_equal_style_weights_deal_the_tables_of_the_default():
    def tables(**weights):
        env = SelfPlayVecEnv(num_envs=16, players=(2, 3, 4), dale_share=0.1,
                             greedy_share=0.3, style_share=0.6, seed=11, **weights)
        env.reset()
        return env.seat_policies.copy(), env.states.copy()
    default, equal, doubled = tables(), tables(style_weights=(1, 1, 1, 1)), \
        tables(style_weights=(3, 3, 3, 3))
    assert all(np.array_equal(a, b) for a, b in zip(default, equal))
    assert all(np.array_equal(a, b) for a, b in zip(default, doubled))


@pytest.mark.parametrize("weights, problem", [((1, 1, 1), "4 whole numbers"),
                                              ((0, 0, 0, 0), "not all 0"),
                                              ((1, -1, 1, 1), "0 or more"),
                                              ((1.5, 1, 1, 1), "whole numbers"),
                                              ((True, 1, 1, 1), "whole numbers"),
                                              (3, "4 whole numbers")])
def test_bad_style_weights_are_refused_by_name(weights, problem):
    with pytest.raises(ValueError, match="style_weights") as error:
        SelfPlayVecEnv(num_envs=2, style_share=1.0, dale_share=0.0, style_weights=weights)
    assert problem.split()[0] in str(error.value)


def test_training_config_takes_style_weights_and_repeated_player_counts():
    from training.config import parse_config
    config = parse_config(["--mode", "self_play", "--players", "2", "2", "3", "4",
                           "--style-share", "0.6", "--style-weights", "2", "1", "1", "1"])
    assert (config.players, config.style_weights) == ([2, 2, 3, 4], [2, 1, 1, 1])
    assert parse_config([]).style_weights == [1, 1, 1, 1]
    for bad in (["1", "1", "1"], ["0", "0", "0", "0"], ["1", "1", "1", "1001"]):
        with pytest.raises(SystemExit, match="--style-weights must be 4 whole numbers"):
            parse_config(["--mode", "self_play", "--style-weights", *bad])
    with pytest.raises(SystemExit, match="1 to 8 player counts"):
        parse_config(["--mode", "self_play", "--players", *["2"] * 9])


def test_a_player_count_given_twice_is_drawn_twice_as_often():
    env = SelfPlayVecEnv(num_envs=300, players=(2, 2, 4), seed=3)
    env.reset()
    counts = Counter(int(count) for count in env.players)
    assert set(counts) == {2, 4}
    # 300 games, 2 players with probability 2/3: 200 expected, sigma 8.2.
    assert 170 < counts[2] < 230
