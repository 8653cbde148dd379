"""The search agents (agents/value_search.py) with the committed baseline model: legal,
reproducible play, the policy's own choice with one candidate, no use of hidden facts
(R10.2), and clear errors for modes and specs they cannot serve."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents import AgentSpecError, PPOAgent, ValueSearchAgent, make_agent
from hidden_facts import with_other_hidden_facts
from suburbia_env import Game
from suburbia_env.errors import ConfigError

BASELINE = Path(__file__).resolve().parents[1] / "models" / "baseline.safetensors"


def _play(agent, seed, decisions=None):
    game = Game(1, "dale", "2nd", seed)
    agent.reset(seed)
    chosen = []
    while not game.is_over and (decisions is None or len(chosen) < decisions):
        action = agent.act(game)
        assert game.is_legal(action)
        chosen.append(action)
        game.apply(action)
    return game, chosen


@pytest.fixture(scope="module")
def rollout_agent():
    return make_agent(f"ppo-rollout:{BASELINE},3,2")


def test_specs_give_the_documented_settings():
    rollout = make_agent(f"ppo-rollout:{BASELINE}")
    assert (rollout.evaluation, rollout.candidates, rollout.samples, rollout.prior_weight,
            rollout.reward, rollout.margin_weight) == ("rollout", 4, 4, 0.0, "win_loss", 0.5)
    critic = make_agent(f"ppo-search:{BASELINE},5,2,0.1")
    assert (critic.evaluation, critic.candidates, critic.samples, critic.prior_weight,
            critic.reward) == ("critic", 5, 2, 0.1, "margin")


@pytest.mark.parametrize("spec,message", [
    ("ppo-rollout:", "give the model file"),
    (f"ppo-rollout:{BASELINE},0", "at least 1"),
    (f"ppo-search:{BASELINE},two", "whole numbers"),
    (f"ppo-search:{BASELINE},1,2,3,4,5", "up to four"),
    (f"ppo-rollout:{BASELINE},1,2,0,chess", "must be one of model, greedy, dale, random"),
])
def test_bad_search_specs_name_the_problem(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def test_a_whole_game_against_dale_is_legal_and_reproducible(rollout_agent):
    first, first_actions = _play(rollout_agent, seed=3)
    second, second_actions = _play(make_agent(f"ppo-rollout:{BASELINE},3,2"), seed=3)
    assert first.is_over
    assert first_actions == second_actions
    assert first.final_scores() == second.final_scores()


def test_one_candidate_is_the_policy_own_choice():
    """With one candidate nothing is searched: the agent plays the model's top action."""
    search = ValueSearchAgent(BASELINE, candidates=1, samples=1)
    policy = PPOAgent(BASELINE)
    game = Game(1, "dale", "2nd", 8)
    for _ in range(12):
        assert search.act(game) == policy.act(game)
        game.apply(policy.act(game))


@pytest.mark.parametrize("evaluation", ["rollout", "critic"])
def test_hidden_facts_do_not_change_the_choice(evaluation):
    """R10.2: positions that differ only in stack order, box split and the place of
    One More Round get the same action from the same agent seed."""
    agent = ValueSearchAgent(BASELINE, candidates=4, samples=2, evaluation=evaluation,
                             reward="margin")
    differing = 0
    for seed in range(4):
        game, _ = _play(PPOAgent(BASELINE), seed, decisions=3 * seed)
        other = Game.from_state(game.config, with_other_hidden_facts(game.state, seed))
        differing += int((other.state != game.state).any())
        agent.reset(seed)
        action = agent.act(game)
        agent.reset(seed)
        assert agent.act(other) == action
    assert differing == 4


def test_search_changes_some_choices(rollout_agent):
    """Not the policy in disguise: over a game some searched choices differ from it."""
    policy = PPOAgent(BASELINE)
    game = Game(1, "dale", "2nd", 5)
    rollout_agent.reset(5)
    differences = 0
    while not game.is_over:
        action = rollout_agent.act(game)
        differences += int(action != policy.act(game))
        game.apply(action)
    assert differences > 0


def _standard_position(players, seed, decisions):
    game = Game(players, "standard", "2nd", seed)
    policy = PPOAgent(BASELINE)
    for _ in range(decisions):
        game.apply(policy.act(game))
    return game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_standard_games_are_searched_legally_and_reproducibly(players):
    """The other seats are played by the model inside the trials (each from its own
    view); the same agent seed gives the same choices."""
    game = _standard_position(players, seed=players, decisions=players + 3)
    chosen = []
    for _ in range(2):
        agent = make_agent(f"ppo-rollout:{BASELINE},2,1")
        agent.reset(11)
        replay = game.copy()
        actions = []
        for _ in range(3):
            action = agent.act(replay)
            assert replay.is_legal(action)
            actions.append(action)
            replay.apply(action)
        chosen.append(actions)
    assert chosen[0] == chosen[1]


@pytest.mark.parametrize("evaluation,opponent", [("rollout", "model"), ("critic", "model"),
                                                 ("rollout", "greedy")])
def test_hidden_facts_of_standard_games_do_not_change_the_choice(evaluation, opponent):
    """R10.2 in a 3-player game: other stack orders, One More Round elsewhere and other
    goals drawn, kept and returned by the other players leave the choice unchanged."""
    agent = ValueSearchAgent(BASELINE, candidates=3, samples=2, evaluation=evaluation,
                             reward="margin", opponent=opponent)
    for seed in range(3):
        game = _standard_position(3, seed, decisions=3 + 2 * seed)
        other = Game.from_state(game.config, with_other_hidden_facts(game.state, seed))
        others = [p for p in range(3) if p != game.current_player]
        assert any(other.goal_options(p) != game.goal_options(p) for p in others)
        agent.reset(seed)
        action = agent.act(game)
        agent.reset(seed)
        assert agent.act(other) == action


def test_a_tournament_seats_the_search_in_a_standard_game():
    from agents.tournament import run_tournament
    result = run_tournament([f"ppo-rollout:{BASELINE},2,1,0,greedy", "greedy"],
                            mode="standard", games=1, workers=1, progress=False)
    assert len(result.rows) == 2 and sum(row["win"] for row in result.rows) == 1.0


def test_solitary_games_are_searched(rollout_agent):
    game, actions = _play_solitary(rollout_agent)
    assert game.is_over and len(actions) > 10


def _play_solitary(agent):
    game = Game(1, "solitary", "2nd", 2)
    agent.reset(2)
    actions = []
    while not game.is_over:
        actions.append(agent.act(game))
        game.apply(actions[-1])
    return game, actions


def test_bad_settings_are_refused():
    with pytest.raises(ConfigError, match="unknown evaluation"):
        ValueSearchAgent(BASELINE, evaluation="mcts")
    with pytest.raises(ConfigError, match="at least 1"):
        ValueSearchAgent(BASELINE, samples=0)
    with pytest.raises(ConfigError, match="unknown reward scheme"):
        ValueSearchAgent(BASELINE, reward="score")
