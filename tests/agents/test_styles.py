"""The heuristic players of distinct styles (agents/styles.py): seated by their specs,
the same game for the same seed, legal in every mode, and each playing its style on
positions of seeded games and on hand-built ones."""

from __future__ import annotations

import numpy as np
import pytest

from agents import AgentSpecError, make_agent
from agents.greedy import GreedyAgent, greedy_action
from agents.one_ply import OWN_CHANCES, expected_goal_bonus, turns_left
from agents.registry import AGENT_SPECS
from agents.styles import STYLES, WEIGHT_NAMES, StyleAgent, style_action
from agents.tournament_cli import add_arguments
from suburbia_env import Game
from suburbia_env.engine import action_space as a
from suburbia_env.engine import event_log as ev
from suburbia_env.engine import state_layout as s
from suburbia_env.positions import put_tile_without_effects
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.turn import own_turn_trial

LOG = ev.new_log(0)
MASK = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
ACTIONS = np.zeros(a.NUM_ACTIONS, dtype=np.int32)


def test_every_style_is_a_spec():
    for style in ("goals", "lakes", "reputation", "hoarder"):
        agent = make_agent(f" {style} ", seed=1)
        assert isinstance(agent, StyleAgent) and agent.name == style
        assert np.array_equal(agent.weights, STYLES[style])
        assert style in AGENT_SPECS


def test_style_weights_from_the_spec():
    agent = make_agent("lakes:1,2,3,4,5,6")
    assert agent.name == "lakes:1,2,3,4,5,6" and list(agent.weights) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("spec, message", [
    ("goals:1,2", f"takes {len(WEIGHT_NAMES)} finite weights"),
    ("hoarder:a,b,c,d,e,f", "finite weights"),
    ("reputation:1,1,1,1,1,nan", "finite weights"),
])
def test_bad_style_specs_are_refused(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def test_the_command_lines_list_the_styles():
    import argparse
    text = add_arguments(argparse.ArgumentParser()).format_help()
    for style in STYLES:
        assert style in text


def test_the_web_offers_the_styles(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient
    from suburbia_env.apps.web import Settings, create_app
    app = create_app(Settings(secret_file=tmp_path / "secret.key", model_dirs=[tmp_path]))
    with TestClient(app, base_url="http://127.0.0.1") as client:  # a Host it answers
        agents = client.get("/api/options").json()["agents"]
        assert {"greedy", *STYLES} <= set(agents)
        body = {"mode": "standard", "players": 2, "delay_ms": 0, "seed": 5,
                "seats": [{"kind": "person"}, {"kind": "agent", "agent": "hoarder"}]}
        assert client.post("/api/games", json=body).status_code == 201


def _play(seats, players, mode, seed):
    """Every action of a game whose seats are the given agents, each checked legal."""
    game = Game(players, mode, seed=seed)
    for seat, agent in enumerate(seats):
        agent.reset(seed * 10 + seat)
    played = []
    while not game.is_over:
        action = seats[game.current_player].act(game)
        assert action in game.legal_actions()
        played.append(action)
        game.apply(action)
    return played


@pytest.mark.parametrize("style", list(STYLES))
def test_a_style_plays_the_same_game_for_the_same_seed(style):
    first = _play([StyleAgent(style), StyleAgent(style)], 2, "standard", 11)
    again = _play([StyleAgent(style), StyleAgent(style)], 2, "standard", 11)
    assert first == again


@pytest.mark.slow
@pytest.mark.parametrize("players, mode", [(1, "solitary"), (1, "dale"), (2, "standard"),
                                           (3, "standard"), (4, "standard")])
def test_styles_play_only_legal_moves(players, mode):
    """Random players in some seats spread the positions the styles meet; Dale's seat
    is the engine's (R9.2)."""
    styles = list(STYLES)
    for game in range(3):
        seats = []
        seat_count = 1 if mode != "standard" else players
        for seat in range(seat_count):
            if seat % 2 == 1 and game < 2:
                seats.append(make_agent("random", seed=game))
            else:
                seats.append(StyleAgent(styles[(game + seat) % len(styles)]))
        decisions = _play(seats, players, mode, 300 + game)
        assert len(decisions) > 10


# Their styles ---------------------------------------------------------------------------

def _greedy_positions():
    """Positions before turns of seeded greedy games, 2 and 4 players (R5.1)."""
    greedy = GreedyAgent()
    found = []
    for players, seeds in ((2, range(500, 506)), (4, range(600, 603))):
        for seed in seeds:
            game = Game(players, "standard", seed=seed, random_private_goals=True)
            while not game.is_over:
                if game.pending_decision == "turn":
                    found.append(game.state.copy())
                game.apply(greedy.act(game))
    return found


@pytest.fixture(scope="module")
def positions():
    return _greedy_positions()


def _choice(state, who):
    if who == "greedy":
        return int(greedy_action(state, TILES.table, GOALS.table, TILES.basic_kinds, 0.7,
                                 MASK, ACTIONS))
    return int(style_action(state, TILES.table, GOALS.table, TILES.basic_kinds,
                            np.array(STYLES[who], dtype=np.float64), 0.0, MASK, ACTIONS))


def _after(state, action):
    trial = state.copy()
    own_turn_trial(trial, TILES.table, GOALS.table, TILES.basic_kinds, action, LOG)
    return trial


def _measures(state, action):
    player = int(state[s.CURRENT_PLAYER])
    trial = _after(state, action)
    is_lake = a.ACTION_LAKE <= action < a.ACTION_BASIC
    is_invest = action >= a.ACTION_INVEST
    return {"lakes": float(is_lake or is_invest),
            "reputation": float(s.reputation(trial, player)),
            "hoarder": float(s.money(trial, player) + 5 * s.income(trial, player)),
            "goals": expected_goal_bonus(trial, TILES.table, GOALS.table, player,
                                         turns_left(state), OWN_CHANCES)}


@pytest.mark.slow
def test_each_style_plays_its_style_on_the_same_positions(positions):
    """At the positions of seeded greedy games each style's own measure of its chosen
    move is the highest of all five players': lakes and investments made, reputation,
    money plus five times income, and expected goal bonuses after its turn; and each
    plays another move than greedy at many positions."""
    players = ["greedy", *STYLES]
    totals = {who: {measure: 0.0 for measure in STYLES} for who in players}
    differs = {style: 0 for style in STYLES}
    for state in positions:
        chosen = {who: _choice(state, who) for who in players}
        for who in players:
            for measure, value in _measures(state, chosen[who]).items():
                totals[who][measure] += value
        for style in STYLES:
            differs[style] += chosen[style] != chosen["greedy"]
    for style in STYLES:
        others = [who for who in players if who != style]
        assert all(totals[style][style] > totals[who][style] for who in others), \
            (style, {who: round(totals[who][style], 1) for who in players})
        assert differs[style] >= 0.15 * len(positions), (style, differs[style], len(positions))


def _keep_goal_game():
    """A 2-player game at seat 0's goal choice (R3.6) whose options are Aquaphobian
    (fewest lakes) first and Aquatic Engineer (most lakes) second, seat 0 holding the
    only lake: it leads on the second and trails on the first (R8.2)."""
    game = Game(2, "standard", seed=21)
    while game.pending_decision != "keep_goal" or game.current_player != 0:
        game.apply(game.legal_actions()[0])
    s.set_goal_option(game.state, 0, 0, GOALS.goal("Aquaphobian"))
    s.set_goal_option(game.state, 0, 1, GOALS.goal("Aquatic Engineer"))
    put_tile_without_effects(game, 0, "High School", 0, 3, lake=True)
    return game


def test_the_goals_player_keeps_the_goal_it_leads():
    game = _keep_goal_game()
    assert GreedyAgent().act(game) == a.ACTION_KEEP_GOAL  # greedy does not value goals
    for seed in range(5):
        assert StyleAgent("goals", seed=seed).act(game) == a.ACTION_KEEP_GOAL + 1


def test_the_reputation_player_invests_in_its_park_where_greedy_makes_a_lake():
    """The first turn of seed 1: investing in the starting Community Park (0,1) applies
    its effects again (R7.3): income -1, reputation +1 for each of the adjacent Suburbs
    and Heavy Factory (R2.3). The reputation player takes it; greedy makes a lake."""
    game = Game(2, "standard", seed=1, random_private_goals=True)
    assert game.action_to_text(StyleAgent("reputation", seed=0).act(game)) == "invest 0,1"
    assert game.action_to_text(GreedyAgent().act(game)).startswith("lake ")


def test_the_switching_player_switches_at_the_stated_round():
    """`switching:greedy,hoarder,round=6` plays greedy's choice before round 6 and the
    hoarder's from round 6 on (the hoarder seeded with the second seed drawn from the
    agent's), some of those differ from greedy's; the same seed gives the same game."""
    from agents.styles import SwitchingAgent
    from agents.table import Table

    spec = "switching:greedy,hoarder,round=6"
    switching = make_agent(spec, seed=5)
    assert isinstance(switching, SwitchingAgent) and switching.switch_rounds == [6]
    greedy, hoarder = GreedyAgent(), StyleAgent("hoarder")
    switching.reset(21)
    hoarder.reset(int(np.random.SeedSequence(21).generate_state(2)[1]))
    game = Game(2, "standard", seed=21)
    other = GreedyAgent()
    before = after = differing = 0
    while not game.is_over:
        if game.current_player == 1:
            game.apply(other.act(game))
            continue
        action = switching.act(game)
        greedy_choice = greedy.act(game)
        if game.round + 1 < 6:
            assert action == greedy_choice
            before += 1
        else:
            assert action == hoarder.act(game)
            after += 1
            differing += action != greedy_choice
        game.apply(action)
    assert before >= 5 and after >= 5 and differing >= 2

    histories = []
    for _ in range(2):
        game = Game(2, "standard", seed=33)
        table = Table({0: make_agent(spec), 1: make_agent("lakes")})
        table.reseed(33)
        table.play_out(game)
        histories.append(list(game.history))
    assert histories[0] == histories[1]


@pytest.mark.parametrize("spec, message", [
    ("switching:greedy,hoarder", "rounds they start from"),
    ("switching:greedy,hoarder,round=1", "rising round"),
    ("switching:greedy,goals,hoarder,round=6", "2 rising round"),
    ("switching:greedy,goals,hoarder,round=6/4", "rising round"),
    ("switching:greedy,hoarder,round=six", "whole numbers"),
    ("switching:greedy,switching:goals,round=3", "another switching"),
])
def test_bad_switching_specs_name_the_problem(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def test_a_tournament_seats_the_switching_player():
    from agents.tournament import run_tournament
    result = run_tournament(["switching:greedy,lakes,round=4", "greedy"], mode="standard",
                            games=2, workers=1, progress=False)
    assert len(result.rows) == 4 and sum(row["win"] for row in result.rows) == 2.0
    assert {row["agent"] for row in result.rows} == {"switching:greedy,lakes,round=4",
                                                     "greedy"}


def test_a_style_plays_one_of_its_best_actions_and_each_can_be_drawn():
    """`best_actions` is the set `act` draws from (what the search's opponent model
    expects of a style): on 2-player positions every choice lies in it, and where several
    actions tie, different tie draws reach more than one of them."""
    from agents.styles import StyleAgent
    policy = GreedyAgent()
    tied = 0
    for style in STYLES:
        game = Game(2, "standard", "2nd", 41)
        for _ in range(30):
            if game.is_over:
                break
            best = StyleAgent(style).best_actions(game)
            chosen = {StyleAgent(style, seed=seed).act(game) for seed in range(12)}
            assert chosen <= set(best.tolist())
            if best.size > 2:
                tied += 1
                assert len(chosen) > 1
            game.apply(policy.act(game))
    assert tied >= 3
