"""Saving and loading games (formats/): the `suburbia-state` JSON format and the
`suburbia-record` game record (docs/state-format.md).

Round trips are checked at every decision of seeded random games in every mode and
edition; malformed and rule-breaking states must fail with an error naming the field.
"""

import copy
import json
import time
from pathlib import Path

import numpy as np
import pytest

from suburbia_env import Game, StateFormatError
from suburbia_env import serialization
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.constants import NUM_TYPES, STACK_NAMES
from suburbia_env.engine.hex_grid import NEIGHBOURS, cell_index
from suburbia_env.engine.checks.bounds import MONEY_BOUND, POPULATION_BOUND
from suburbia_env.positions import put_tile_without_effects
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.tile_table import private_goal_bonus, tile_copies, tile_stack

CONFIGS = [
    dict(players=2, mode="standard", edition="2nd"),
    dict(players=3, mode="standard", edition="2nd"),
    dict(players=4, mode="standard", edition="2nd"),
    dict(players=2, mode="standard", edition="1st"),
    dict(players=3, mode="standard", edition="1st"),
    dict(players=4, mode="standard", edition="1st"),
    dict(players=2, mode="standard", edition="2nd", random_private_goals=True),
    dict(players=1, mode="solitary", edition="2nd"),
    dict(players=1, mode="solitary", edition="1st"),
    dict(players=1, mode="dale", edition="2nd"),
    dict(players=1, mode="dale", edition="1st"),
]


def _config_id(config: dict) -> str:
    extra = "-random-goals" if config.get("random_private_goals") else ""
    return f"{config['mode']}-{config['players']}p-{config['edition']}{extra}"


def _random_action(game: Game, rng: np.random.Generator) -> int:
    return int(rng.choice(game.legal_actions()))


def _play(game: Game, rng: np.random.Generator, decisions: int | None = None) -> Game:
    """Random legal decisions, `decisions` of them or to the end of the game."""
    while not game.is_over and decisions != 0:
        game.apply(_random_action(game, rng))
        if decisions is not None:
            decisions -= 1
    return game


def _reload(game: Game) -> Game:
    """Save and load, checking the exact round trip (state vector and text)."""
    text = game.to_json()
    loaded = Game.from_json(text)
    assert np.array_equal(loaded.state, game.state)
    assert loaded.to_json() == text
    assert serialization.game_to_dict(loaded) == json.loads(text)
    assert loaded.config == game.config
    assert loaded.seed == game.seed
    return loaded


# Round trips --------------------------------------------------------------------------

@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
@pytest.mark.parametrize("seed", [11, 12])
def test_round_trip_at_every_decision_and_play_on_from_the_loaded_game(config, seed):
    """Every decision point of a random game, the finished game included, survives
    to_json/from_json exactly; and a game that is saved and reloaded at every decision
    plays on exactly like the original (same legal actions, same final state)."""
    original = Game(seed=seed, **config)
    reloaded = _reload(original)
    rng = np.random.default_rng(seed)
    while not original.is_over:
        assert np.array_equal(reloaded.legal_actions(), original.legal_actions())
        action = _random_action(original, rng)
        original.apply(action)
        reloaded = _reload(reloaded)
        reloaded.apply(action)
        assert np.array_equal(reloaded.state, original.state)
        _reload(original)
    assert reloaded.is_over
    assert reloaded.final_scores() == original.final_scores()


def test_position_with_lake_and_investment_round_trips():
    """A position with a lake and an invested tile (R5.1c, d) round-trips."""
    game = _crafted_game()
    _reload(game)


def test_derived_entries_are_rebuilt_from_the_borough():
    """Counts and placeable cells are rebuilt on load (R2.4, R6.7: lakes count for no
    type). Player 0 holds Suburbs, Park, Factory (R2.3), a Fast Food Restaurant lake at
    (1,1) and an invested Suburbs at (-1,1)."""
    loaded = Game.from_json(_crafted_game().to_json())
    base = s.player_base(0)
    state = loaded.state
    assert state[base + s.TILE_COUNT] == 5
    assert state[base + s.LAKE_COUNT] == 1
    residential, commercial, civic, industrial = state[base + s.FEATURE_COUNT:
                                                       base + s.FEATURE_COUNT + NUM_TYPES]
    assert (residential, commercial, civic, industrial) == (2, 0, 1, 1)
    # The restaurant icon of the face-down Fast Food Restaurant does not count either.
    assert state[base + s.FEATURE_COUNT + NUM_TYPES + 0] == 0
    occupied = {cell_index(0, 0), cell_index(0, 1), cell_index(0, 2), cell_index(1, 1),
                cell_index(-1, 1)}
    neighbours = {int(n) for cell in occupied for n in NEIGHBOURS[cell] if n >= 0}
    expected_placeable = neighbours - occupied
    placeable = {cell for cell in range(s.NUM_CELLS)
                 if state[base + s.CELL_FLAGS + cell] & s.FLAG_PLACEABLE}
    assert placeable == expected_placeable
    assert [int(c) for c in state[base + s.ORDER:base + s.ORDER + 5]] == [
        cell_index(0, 0), cell_index(0, 1), cell_index(0, 2), cell_index(1, 1), cell_index(-1, 1)]
    assert state[base + s.CELL_FLAGS + cell_index(-1, 1)] & s.FLAG_INVESTED
    assert state[base + s.CELL_FLAGS + cell_index(1, 1)] & s.FLAG_LAKE


# The document of a new game ---------------------------------------------------------

def test_new_two_player_game_document_follows_setup_rules():
    """R3.2 (2nd edition, 2 players: A 14 with the 7 market tiles, B 12, C 6+6+5 plus One
    More Round), R3.4 start values, R3.5 supply, R3.6 goals, R2.3 starting borough."""
    data = json.loads(Game(players=2, seed=3).to_json())
    assert (data["format"], data["version"]) == ("suburbia-state", 2)
    assert data["config"] == {"players": 2, "mode": "standard", "edition": "2nd",
                              "random_private_goals": False}
    assert data["seed"] == 3
    assert (data["round"], data["final_round"], data["game_over"]) == (0, None, False)
    assert data["pending_decision"] == "keep_goal"
    assert data["current_player"] == data["first_player"]
    assert data["placement_counter"] == 1
    assert None not in data["market"] and len(data["market"]) == 7
    assert sorted(data["drawn"]) == sorted(data["market"])
    assert len(data["stacks"]["A"]) == 14 - 7
    assert len(data["stacks"]["B"]) == 12
    assert len(data["stacks"]["C"]) == 6 + 6 + 5 + 1
    assert data["stacks"]["C"].count("One More Round") == 1
    assert 6 <= data["stacks"]["C"].index("One More Round") <= 12
    assert data["supply"] == {"suburbs": 4, "park": 4, "factory": 4}
    assert data["discarded"] == {}
    for basic in ("Suburbs", "Community Park", "Heavy Factory"):
        assert data["box"][basic] == 8 - 4 - 2  # copies - supply - starting tiles
    assert len(data["public_goals"]) == 2
    for player in data["players"]:
        assert (player["money"], player["income"], player["reputation"],
                player["population"], player["markers_left"]) == (15, 0, 1, 2, 3)
        assert player["private_goal"] is None and len(player["goal_options"]) == 2
        assert player["score"] is None
        assert player["borough"] == [
            {"col": 0, "row": 0, "tile": "Suburbs", "lake": False, "invested": False,
             "sequence": 0},
            {"col": 0, "row": 1, "tile": "Community Park", "lake": False, "invested": False,
             "sequence": 0},
            {"col": 0, "row": 2, "tile": "Heavy Factory", "lake": False, "invested": False,
             "sequence": 0}]
    dealt = data["public_goals"] + [g for p in data["players"] for g in p["goal_options"]]
    assert len(set(dealt)) == 6


def test_new_game_stack_sizes_in_first_edition_and_with_dale():
    """R3.3: 3 players, 1st edition: A 18 (7 in the market), B 18, C 9 + 9 + 4 and One
    More Round in the block. R9.2: Dale has A, B, C of 25, four A tiles in slots 2-5,
    C as 13 then 12 with One More Round; three goals, none about lakes or markers."""
    first = json.loads(Game(players=3, edition="1st", seed=4).to_json())
    assert [len(first["stacks"][n]) for n in "ABC"] == [18 - 7, 18, 9 + 9 + 4 + 1]
    assert 9 <= first["stacks"]["C"].index("One More Round") <= 18
    dale = json.loads(Game(players=1, mode="dale", seed=4).to_json())
    assert [len(dale["stacks"][n]) for n in "ABC"] == [25 - 4, 25, 25 + 1]
    assert 13 <= dale["stacks"]["C"].index("One More Round") <= 25
    assert dale["market"][0] is None and dale["market"][1] is None and dale["market"][6] is None
    assert all(dale["market"][slot] for slot in range(2, 6))
    assert len(dale["players"]) == 2 and dale["first_player"] == 0
    assert len(dale["public_goals"]) == 3
    lake_or_marker_goals = {"Aquatic Engineer", "Aquaphobian", "Harbormaster", "Employer"}
    assert not lake_or_marker_goals & set(dale["public_goals"])
    player, dale_seat = dale["players"]
    assert len(player["goal_options"]) == 2 and player["private_goal"] is None  # R9.2 revised
    assert not set(player["goal_options"]) & set(dale["public_goals"])
    assert dale_seat["goal_options"] == [] and dale_seat["private_goal"] is None
    assert dale["pending_decision"] == "keep_goal" and dale["current_player"] == 0


def test_dale_game_goal_documents_follow_R9_2():
    """The player of a Dale game keeps one of two drawn goals; Dale holds none."""
    game = Game(players=1, mode="dale", seed=5)
    data = json.loads(game.to_json())
    assert np.array_equal(Game.from_json(json.dumps(data)).state, game.state)
    bad = copy.deepcopy(data)
    bad["players"][1]["goal_options"] = ["Builder", "Miser"]
    _assert_error(bad, "players[1].goal_options", "must hold 0 entries, not 2")
    bad = copy.deepcopy(data)
    bad["players"][0]["goal_options"] = []
    _assert_error(bad, "players[0].goal_options", "must hold 2 entries, not 0")
    game.apply(game.legal_actions_text()[1])
    data = json.loads(game.to_json())
    assert data["players"][0]["private_goal"] == game.goal_options(0)[1]
    assert np.array_equal(Game.from_json(json.dumps(data)).state, game.state)
    bad = copy.deepcopy(data)
    bad["players"][0]["private_goal"] = None
    _assert_error(bad, "players[0].private_goal", "must be a kept goal")
    solo = json.loads(Game(players=1, mode="solitary", seed=4).to_json())
    assert solo["public_goals"] == [] and solo["pending_decision"] == "turn"


def test_every_field_written_is_documented_in_docs_state_format():
    """docs/state-format.md is the specification: it must name every field the format uses."""
    data = json.loads(_play(Game(players=2, seed=5), np.random.default_rng(5)).to_json())
    player = data["players"][0]
    doc = (Path(__file__).resolve().parents[2] / "docs" / "state-format.md").read_text()
    expected = ([f"`{key}" for key in data] + [f"`config.{key}`" for key in data["config"]]
                + [f"`stacks.{key}" if key == "A" else f"`.{key}`" for key in data["stacks"]]
                + [f"`players[i].{key}`" for key in player]
                + [f'"{key}"' for key in player["borough"][0]]
                + [f"`{key}`" for key in player["score"]])
    assert [text for text in expected if text not in doc] == []


# Malformed and rule-breaking states ---------------------------------------------------

CRAFTED_ACTIONS = ["lake 6 @ 1,1", "invest 0,0", "discard 6", "basic suburbs @ -1,1",
                   "discard 6", "invest 0,2", "discard 6", "invest -1,1", "discard 6"]


def _crafted_game() -> Game:
    """2 players, goals kept, player 0 first. Player 0 makes a Fast Food Restaurant lake
    at (1,1), buys a Suburbs for (-1,1) and invests in it (markers_left 2); player 1
    invests in two starting tiles, so his borough holds the starting tiles only."""
    game = Game(players=2, seed=24)
    assert game.state[s.FIRST_PLAYER] == 0
    for _ in range(2):
        game.apply(game.legal_actions_text()[0])
    for action in CRAFTED_ACTIONS:
        game.apply(action)
    return game


def _hand_made_game() -> Game:
    """A 2-player game with tiles put by hand (positions.py): a Fancy Restaurant lake at
    (1,1) and an invested Suburbs at (-1,1) for player 0, taken from the box."""
    game = Game(players=2, seed=21)
    _play(game, np.random.default_rng(21), decisions=2)
    put_tile_without_effects(game, 0, "Fancy Restaurant", 1, 1, lake=True)
    put_tile_without_effects(game, 0, "Suburbs", -1, 1, invested=True)
    return game


@pytest.fixture(scope="module")
def documents() -> dict:
    """State documents to break: a crafted position, a mid game, a finished game, a Dale
    game at the player's turn and a new Solitary Architect game."""
    mid = _play(Game(players=2, seed=31), np.random.default_rng(31), decisions=14)
    # The tests below edit cells beyond the starting tiles and the untouched C stack.
    assert not mid.is_over and mid.pending_decision == "turn"
    assert len(mid.player_state(0)["borough"]) >= 5 and len(mid.player_state(1)["borough"]) >= 4
    assert mid.stack_sizes()["C"] == 17 + 1
    finished = _play(Game(players=3, seed=32), np.random.default_rng(32))
    dale = _play(Game(players=1, mode="dale", seed=33), np.random.default_rng(33), decisions=3)
    solitary = Game(players=1, mode="solitary", seed=34)
    return {name: json.loads(game.to_json()) for name, game in
            (("crafted", _crafted_game()), ("mid", mid), ("finished", finished),
             ("dale", dale), ("solitary", solitary))}


def _load_error(data) -> str:
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(StateFormatError) as error:
        Game.from_json(text)
    return str(error.value)


def _assert_error(data, field: str, *phrases: str) -> None:
    message = _load_error(data)
    assert message.startswith(field + ":"), message
    for phrase in phrases:
        assert phrase in message, message


def _box_tile_of_stack(data: dict, stack: str) -> str:
    """The name of a tile of the given stack (A, B, C) that the box holds."""
    for name, count in data["box"].items():
        kind = TILES.kind(name)
        if (count and kind != TILES.one_more_round
                and STACK_NAMES[tile_stack(TILES.table, kind)] == stack):
            return name
    raise AssertionError(f"no {stack} tile in the box")


def test_documents_load(documents):
    for data in documents.values():
        Game.from_json(json.dumps(data))


def test_json_syntax_and_top_level(documents):
    text = json.dumps(documents["mid"])
    _assert_error(text[:-5], "state", "JSON syntax error")
    _assert_error("[1, 2]", "state", "must be an object")
    _assert_error('{"format": "suburbia-state", "format": "x"}', "JSON", "'format' appears twice")
    with pytest.raises(StateFormatError, match="expected JSON text"):
        Game.from_json(documents["mid"])


def test_format_and_version(documents):
    data = copy.deepcopy(documents["mid"])
    data["format"] = "suburbia-record"
    _assert_error(data, "format", "must be 'suburbia-state'")
    data = copy.deepcopy(documents["mid"])
    data["version"] = 3
    _assert_error(data, "version", "version 3 is not supported", "reads versions 1, 2")
    data["version"] = "2"
    _assert_error(data, "version", "must be an integer, not '2' (a string)")


def test_version_1_loads_standard_games_whose_rules_did_not_change(documents):
    """RULES.md revision of 2026-11-25 changed R9.1 and R9.2 only: a version-1 standard
    game is the same game under today's rules and loads as such."""
    for name in ("mid", "finished"):
        old = dict(copy.deepcopy(documents[name]), version=1)
        assert np.array_equal(Game.from_json(json.dumps(old)).state,
                              Game.from_json(json.dumps(documents[name])).state)


@pytest.mark.parametrize("mode", ["dale", "solitary"])
def test_version_1_solo_games_are_refused_naming_the_version(documents, mode):
    """A solo game of version 1 was played without the player's goals (R9.2) or with the
    +2/+2 fall-back (R9.1): it never goes on under the revised rules."""
    data = dict(copy.deepcopy(documents[mode]), version=1)
    _assert_error(data, "version", "version 1 was written under the rules before the "
                  "revision of 2026-11-25", f"the {mode} game", "standard games only")


def test_missing_and_unknown_fields(documents):
    data = copy.deepcopy(documents["mid"])
    del data["round"]
    _assert_error(data, "round", "missing field")
    data = copy.deepcopy(documents["mid"])
    data["colour"] = "red"
    _assert_error(data, "colour", "unknown field")
    data = copy.deepcopy(documents["mid"])
    del data["players"][1]["borough"][2]["sequence"]
    _assert_error(data, "players[1].borough[2].sequence", "missing field")
    data = copy.deepcopy(documents["mid"])
    data["stacks"]["D"] = []
    _assert_error(data, "stacks.D", "unknown field")


@pytest.mark.parametrize("field, value, phrase", [
    ("players", 5, "5 is outside 1..4"),
    ("players", 1, "wrong player count"),  # standard is played by 2 to 4 (R3.1)
    ("players", "2", "must be an integer"),
    ("players", True, "must be an integer, not true"),
    ("mode", "coop", "must be one of 'standard', 'solitary', 'dale'"),
    ("edition", "3rd", "must be one of '2nd', '1st'"),
    ("random_private_goals", 0, "must be true or false"),
])
def test_config_values(documents, field, value, phrase):
    data = copy.deepcopy(documents["mid"])
    data["config"][field] = value
    expected_field = "config.players" if field == "players" else f"config.{field}"
    _assert_error(data, expected_field, phrase)


def test_player_count_must_match_the_config(documents):
    data = copy.deepcopy(documents["mid"])
    data["config"]["players"] = 3  # the stacks of 3 players are larger (R3.2: A 18)
    _assert_error(data, "stacks.A", "the A stack of this configuration has 18")
    data = copy.deepcopy(documents["mid"])
    data["players"].append(copy.deepcopy(data["players"][0]))
    _assert_error(data, "players", "must hold 2 entries, not 3")
    data = copy.deepcopy(documents["dale"])
    data["players"].pop()  # Dale takes a seat of his own (R9.2)
    _assert_error(data, "players", "must hold 2 entries, not 1")


@pytest.mark.parametrize("field, value, expected", [
    ("income", 17, "players[1].income: 17 is outside -5..15"),
    ("income", -6, "players[1].income: -6 is outside -5..15"),
    ("reputation", 16, "players[1].reputation: 16 is outside -5..15"),
    ("money", -1, "players[1].money: -1 is outside 0.."),
    ("population", -2, "players[1].population: -2 is outside 0.."),
    ("markers_left", 4, "players[1].markers_left: 4 is outside 0..3"),
    ("money", "12", "players[1].money: must be an integer, not '12' (a string)"),
    ("population", 2.0, "players[1].population: must be an integer, not 2.0"),
    ("money", 2**31, f"players[1].money: 2147483648 is outside 0..{MONEY_BOUND} (no game "
                     f"gives more"),
    ("population", POPULATION_BOUND + 1, f"players[1].population: {POPULATION_BOUND + 1} is "
                                         f"outside 0..{POPULATION_BOUND}"),
])
def test_player_values(documents, field, value, expected):
    """R1.2 levels -5..15, R1.3 money and population >= 0, three markers (R3.4)."""
    data = copy.deepcopy(documents["mid"])
    data["players"][1][field] = value
    assert _load_error(data).startswith(expected)


def test_markers_left_is_three_minus_invested_tiles(documents):
    """R3.4, R5.1d: each invested tile holds one of the three markers."""
    data = copy.deepcopy(documents["crafted"])
    assert data["players"][0]["markers_left"] == 2
    data["players"][0]["markers_left"] = 3
    _assert_error(data, "players[0].markers_left", "3, but 1 tiles of the borough carry a marker")
    data = copy.deepcopy(documents["crafted"])
    invested = [cell for cell in data["players"][0]["borough"] if cell["invested"]]
    invested[0]["invested"] = False
    _assert_error(data, "players[0].markers_left", "2, but 0 tiles")


def test_unknown_names(documents):
    data = copy.deepcopy(documents["mid"])
    slot = next(i for i, name in enumerate(data["market"]) if name)
    data["market"][slot] = "Skyscraperr"
    _assert_error(data, f"market[{slot}]", "unknown tile 'Skyscraperr'")
    data = copy.deepcopy(documents["mid"])
    data["players"][0]["borough"][3]["tile"] = "suburbs"  # names are spelled exactly
    _assert_error(data, "players[0].borough[3].tile", "unknown tile 'suburbs'")
    data = copy.deepcopy(documents["mid"])
    data["stacks"]["B"][0] = "Lake"  # a lake is a flag on a tile, not a tile
    _assert_error(data, "stacks.B[0]", "unknown tile 'Lake'")
    data = copy.deepcopy(documents["mid"])
    data["box"]["Castle"] = 1
    _assert_error(data, "box.Castle", "unknown tile 'Castle'")
    data = copy.deepcopy(documents["mid"])
    data["public_goals"][1] = "Astronaut"
    _assert_error(data, "public_goals[1]", "unknown goal 'Astronaut'")
    data = copy.deepcopy(documents["mid"])
    data["players"][0]["goal_options"][0] = 7
    _assert_error(data, "players[0].goal_options[0]", "must be a goal name, not 7")


def test_cells_on_the_grid_and_unique(documents):
    """R2.1: columns -6..6, rows 0..8."""
    for field, value, phrase in (("col", 7, "7 is outside -6..6"), ("row", 9, "9 is outside 0..8"),
                                 ("row", -1, "-1 is outside 0..8")):
        data = copy.deepcopy(documents["mid"])
        data["players"][0]["borough"][3][field] = value
        _assert_error(data, f"players[0].borough[3].{field}", phrase)
    data = copy.deepcopy(documents["crafted"])
    borough = data["players"][0]["borough"]
    borough[4]["col"], borough[4]["row"] = borough[3]["col"], borough[3]["row"]
    _assert_error(data, "players[0].borough[4]", "cell (1, 1) is already taken by "
                                                 "players[0].borough[3]")


def test_starting_tiles_present(documents):
    """R2.3: Suburbs (0,0), Community Park (0,1), Heavy Factory (0,2) open every borough."""
    data = copy.deepcopy(documents["crafted"])
    del data["players"][1]["borough"][1]
    _assert_error(data, "players[1].borough[1]", "expected the starting Community Park at (0, 1)")
    data = copy.deepcopy(documents["crafted"])
    data["players"][1]["borough"][0]["lake"] = True
    _assert_error(data, "players[1].borough[0]", "expected the starting Suburbs at (0, 0)")
    data = copy.deepcopy(documents["crafted"])
    data["players"][1]["borough"] = data["players"][1]["borough"][:2]
    _assert_error(data, "players[1].borough", "holds 2 cells; the starting tiles alone are 3")


def test_borough_connected_to_the_starting_tiles(documents):
    """R2.4: a tile goes next to the borough. A Fancy Restaurant taken from the box and
    put at (6,8), far from everything, is rejected, naming that cell."""
    data = copy.deepcopy(documents["crafted"])
    name = _box_tile_of_stack(data, "A")
    data["box"][name] -= 1
    sequence = data["placement_counter"]
    data["placement_counter"] += 1
    borough = data["players"][1]["borough"]
    assert len(borough) == 3  # player 1 holds the starting tiles only
    borough.append({"col": 6, "row": 8, "tile": name, "lake": False, "invested": False,
                    "sequence": sequence})
    _assert_error(data, "players[1].borough[3]", "cell (6, 8) is not connected")
    borough[3]["col"], borough[3]["row"] = 1, 2  # next to the Heavy Factory at (0, 2)
    # Connected now, but a tile of the box was never drawn from the stacks.
    _assert_error(data, "drawn", f"{name}: the tiles drawn from the stacks are not exactly")


def test_hand_made_position_breaking_adjacency_is_rejected():
    """positions.py does not check R2.4; the loader does."""
    game = Game(players=2, seed=40)
    put_tile_without_effects(game, 1, "Suburbs", 4, 6)
    message = _load_error(game.to_json())
    assert message.startswith("players[1].borough[3]: cell (4, 6) is not connected"), message


def test_placement_sequences(documents):
    """R7.2: every placement takes the next global number; cells are in placement order."""
    data = copy.deepcopy(documents["mid"])
    borough = data["players"][0]["borough"]
    assert len(borough) >= 5
    borough[3]["sequence"], borough[4]["sequence"] = borough[4]["sequence"], borough[3]["sequence"]
    _assert_error(data, "players[0].borough[4].sequence", "cells are listed in placement order")
    data = copy.deepcopy(documents["mid"])
    data["players"][1]["borough"][3]["sequence"] = data["players"][0]["borough"][3]["sequence"]
    _assert_error(data, "players[1].borough[3].sequence", "also the number of players[0]")
    data = copy.deepcopy(documents["mid"])
    data["placement_counter"] += 1
    _assert_error(data, "placement_counter", "no tile has placement number")
    data = copy.deepcopy(documents["mid"])
    data["players"][0]["borough"][3]["sequence"] = data["placement_counter"]
    _assert_error(data, "players[0].borough[3].sequence", "is outside 1..")


def test_pending_decision_and_current_player(documents):
    data = copy.deepcopy(documents["mid"])
    data["game_over"] = True
    _assert_error(data, "pending_decision", "does not fit game_over true")
    data = copy.deepcopy(documents["finished"])
    data["pending_decision"] = "turn"
    _assert_error(data, "pending_decision", "does not fit game_over true")
    data = copy.deepcopy(documents["finished"])
    data["current_player"] = 0
    _assert_error(data, "current_player", "must be null when the game is over")
    data = copy.deepcopy(documents["mid"])
    data["current_player"] = 2
    _assert_error(data, "current_player", "2 is outside 0..1")
    data = copy.deepcopy(documents["mid"])
    data["current_player"] = None
    _assert_error(data, "current_player", "must be an integer, not null")
    data = copy.deepcopy(documents["dale"])
    data["current_player"] = 1
    _assert_error(data, "current_player", "1 is Dale")
    data = copy.deepcopy(documents["mid"])
    data["pending_decision"] = "remove"
    _assert_error(data, "pending_decision", "Solitary Architect only (R9.1)")
    data = copy.deepcopy(documents["mid"])
    data["pending_decision"] = "keep_goal"
    _assert_error(data, "pending_decision", "goals are kept before the first turn")
    data = copy.deepcopy(documents["dale"])
    data["pending_decision"] = "keep_goal"
    _assert_error(data, "pending_decision", "goals are kept before the first turn")
    data = copy.deepcopy(documents["solitary"])
    data["pending_decision"] = "keep_goal"
    _assert_error(data, "pending_decision", "nobody chooses a private goal")
    data = copy.deepcopy(documents["mid"])
    data["pending_decision"] = "sleep"
    _assert_error(data, "pending_decision", "must be one of")


def test_first_player_in_range(documents):
    data = copy.deepcopy(documents["mid"])
    data["first_player"] = 2
    _assert_error(data, "first_player", "2 is outside 0..1")
    data = copy.deepcopy(documents["dale"])
    data["first_player"] = 1  # the player always goes first against Dale (R9.2)
    _assert_error(data, "first_player", "1 is outside 0..0")


def test_market_slots(documents):
    """R4.1: seven slots; R9.2: Dale uses slots 2..5 only; only A/B/C tiles in the market."""
    data = copy.deepcopy(documents["dale"])
    occupied = next(slot for slot in range(2, 6) if data["market"][slot])
    data["market"][0], data["market"][occupied] = data["market"][occupied], None
    _assert_error(data, "market[0]", "uses slots 2..5 only")
    data = copy.deepcopy(documents["mid"])
    data["market"] = data["market"][:6]
    _assert_error(data, "market", "must hold 7 entries, not 6")
    data = copy.deepcopy(documents["mid"])
    data["market"][6] = "Suburbs"
    _assert_error(data, "market[6]", "cannot be in the market")


def test_rng_state(documents):
    data = copy.deepcopy(documents["mid"])
    data["rng_state"] = data["rng_state"][:3]
    _assert_error(data, "rng_state", "must hold 4 entries, not 3")
    data["rng_state"] = [1, 2, 3, 2**32]
    _assert_error(data, "rng_state[3]", "4294967296 is outside 0..4294967295")
    data["rng_state"] = [0, 0, 0, 0]
    _assert_error(data, "rng_state", "all four words are 0")


def test_stacks_and_drawn_tiles(documents):
    """R3.2: the stack sizes of the configuration; each stack holds its own tiles."""
    data = copy.deepcopy(documents["mid"])
    data["stacks"]["B"].pop()
    _assert_error(data, "stacks.B", "the B stack of this configuration has 12")
    data = copy.deepcopy(documents["mid"])
    name_b = _box_tile_of_stack(data, "B")
    data["stacks"]["C"][-1] = name_b
    _assert_error(data, f"stacks.C[{len(data['stacks']['C']) - 1}]",
                  f"'{name_b}' is not a tile of the C stack")
    data = copy.deepcopy(documents["mid"])
    data["drawn"][0] = "Suburbs"
    _assert_error(data, "drawn[0]", "'Suburbs' is not a tile of the A stack")
    data = copy.deepcopy(documents["mid"])
    data["drawn"] = data["drawn"] + ["Farm"] * 100
    _assert_error(data, "drawn", "but the stacks of this configuration hold 44")


def test_one_more_round_exactly_once(documents):
    """R4.3: one One More Round, in the C block it was shuffled into (R3.2)."""
    data = copy.deepcopy(documents["mid"])
    c_stack = data["stacks"]["C"]
    omr = c_stack.index("One More Round")
    data["box"][c_stack[omr + 1]] = data["box"].get(c_stack[omr + 1], 0) + 1
    c_stack[omr + 1] = "One More Round"
    _assert_error(data, f"stacks.C[{omr + 1}]", "a second One More Round")
    data = copy.deepcopy(documents["mid"])
    data["discarded"]["One More Round"] = 1
    _assert_error(data, "tiles.One More Round", "2 found")
    data = copy.deepcopy(documents["mid"])
    name_c = _box_tile_of_stack(data, "C")
    data["box"][name_c] -= 1
    data["box"]["One More Round"] = 1
    c_stack = data["stacks"]["C"]
    c_stack[c_stack.index("One More Round")] = name_c
    _assert_error(data, "stacks.C", "One More Round is neither in the stacks nor drawn")
    data = copy.deepcopy(documents["mid"])
    c_stack = data["stacks"]["C"]
    c_stack.remove("One More Round")
    c_stack.append("One More Round")  # below the last five C tiles: outside its block
    _assert_error(data, f"stacks.C[{len(c_stack) - 1}]", "outside the block")
    data = copy.deepcopy(documents["finished"])
    data["discarded"]["One More Round"] = 0
    data["box"]["One More Round"] = 1
    _assert_error(data, "discarded", "One More Round was drawn")


def test_every_tile_in_exactly_one_place(documents):
    """tiles.csv copies = stacks + market + supply + boroughs (lakes as their tile) +
    discarded + box, for each tile."""
    data = copy.deepcopy(documents["crafted"])
    data["box"]["Fast Food Restaurant"] = data["box"].get("Fast Food Restaurant", 0) + 1
    copies = tile_copies(TILES.table, TILES.kind("Fast Food Restaurant"))
    _assert_error(data, "tiles.Fast Food Restaurant", f"{copies + 1} found", "boroughs 1",
                  f"tiles.csv has {copies}")
    data = copy.deepcopy(documents["crafted"])
    data["box"]["Suburbs"] -= 1
    # 8 Suburbs: 3 in the supply, 3 in the boroughs (two starting, one bought), 2 in the box.
    _assert_error(data, "tiles.Suburbs", "7 found", "supply 3", "boroughs 3", "box 1",
                  "tiles.csv has 8")
    data = copy.deepcopy(documents["mid"])
    data["supply"]["park"] = 5
    _assert_error(data, "supply.park", "5 is outside 0..4")
    data = copy.deepcopy(documents["finished"])
    name = next(name for name in data["discarded"] if name != "One More Round")
    data["discarded"][name] += 1
    _assert_error(data, f"tiles.{name}", "tiles.csv has")
    data = copy.deepcopy(documents["mid"])
    data["discarded"]["Heavy Factory"] = 1
    data["box"]["Heavy Factory"] -= 1
    _assert_error(data, "discarded.Heavy Factory", "basic tiles never are")


def test_lake_is_a_market_tile(documents):
    """R5.1c: a lake is a market tile turned face down; basic tiles are never in the market."""
    data = copy.deepcopy(documents["crafted"])
    data["players"][0]["borough"][4]["lake"] = True  # the hand-placed Suburbs
    _assert_error(data, "players[0].borough[4].lake", "'Suburbs' never is in the market")


def test_goals(documents):
    """R3.6: as many public goals as players, each goal tile once, a private goal kept
    from the two drawn, in turn order; R9.2: three with Dale, none about lakes or
    markers; R9.1: none in solitary."""
    data = copy.deepcopy(documents["mid"])
    data["public_goals"].append(next(g for g in GOALS.names if g not in _dealt(data)))
    _assert_error(data, "public_goals", "holds 3 goals, but standard is played with 2")
    data = copy.deepcopy(documents["mid"])
    data["public_goals"][1] = data["public_goals"][0]
    _assert_error(data, "public_goals[1]", "already dealt as public_goals[0]")
    data = copy.deepcopy(documents["mid"])
    data["players"][1]["goal_options"][0] = data["players"][0]["goal_options"][1]
    _assert_error(data, "players[1].goal_options[0]", "already dealt as players[0].goal_options[1]")
    data = copy.deepcopy(documents["mid"])
    data["players"][0]["private_goal"] = data["public_goals"][0]
    _assert_error(data, "players[0].private_goal", "is not one of the goals this player drew")
    data = copy.deepcopy(documents["mid"])
    data["players"][0]["private_goal"] = None
    _assert_error(data, "players[0].private_goal", "must be a kept goal")
    data = copy.deepcopy(documents["dale"])
    data["public_goals"] = data["public_goals"][:2]
    _assert_error(data, "public_goals", "holds 2 goals, but dale is played with 3")
    data = copy.deepcopy(documents["dale"])
    data["public_goals"][0] = "Harbormaster"
    _assert_error(data, "public_goals[0]", "not played with Dale")
    data = copy.deepcopy(documents["solitary"])
    data["public_goals"] = ["Builder"]
    _assert_error(data, "public_goals", "holds 1 goals, but solitary is played with 0")
    data = copy.deepcopy(documents["solitary"])
    data["players"][0]["goal_options"] = ["Builder", "Miser"]
    _assert_error(data, "players[0].goal_options", "must hold 0 entries, not 2")


def _dealt(data: dict) -> set[str]:
    return set(data["public_goals"]) | {g for p in data["players"] for g in p["goal_options"]}


def test_goals_are_kept_in_turn_order():
    """R3.6: during goal keeping, the players before the current one (from the first
    player) have kept a goal and the others have not."""
    game = Game(players=3, seed=50)
    game.apply(game.legal_actions()[0])
    data = json.loads(game.to_json())
    first = data["first_player"]
    data["players"][(first + 1) % 3]["private_goal"] = data["players"][(first + 1) % 3][
        "goal_options"][0]
    _assert_error(data, f"players[{(first + 1) % 3}].private_goal", "must be null")


def test_final_round_and_one_more_round(documents):
    """R4.3: final_round is set exactly when One More Round has been drawn; the game
    ends after the final round."""
    data = copy.deepcopy(documents["finished"])
    data["final_round"] = None
    _assert_error(data, "final_round", "null, but One More Round has been drawn")
    data = copy.deepcopy(documents["mid"])
    data["final_round"] = data["round"] + 1
    _assert_error(data, "final_round", "One More Round is still in the stacks")
    data = copy.deepcopy(documents["finished"])
    data["final_round"] = data["round"] - 1
    _assert_error(data, "final_round", "at game over it equals round")


def test_score_block(documents):
    """R8.2: the score block exists exactly at game over and adds up; R8.3 winners."""
    data = copy.deepcopy(documents["mid"])
    data["players"][0]["score"] = copy.deepcopy(documents["finished"]["players"][0]["score"])
    _assert_error(data, "players[0].score", "must be null until the game is over")
    data = copy.deepcopy(documents["finished"])
    data["players"][2]["score"] = None
    _assert_error(data, "players[2].score", "must be an object, not null")
    data = copy.deepcopy(documents["finished"])
    data["players"][1]["score"]["final_population"] += 1
    _assert_error(data, "players[1].score.final_population", "differs from the population")
    data = copy.deepcopy(documents["finished"])
    data["players"][1]["score"]["population_before_goals"] += 1
    _assert_error(data, "players[1].score.final_population", "is not population_before_goals")
    data = copy.deepcopy(documents["finished"])
    data["players"][1]["score"]["public_goals"][0] = 3
    _assert_error(data, "players[1].score.public_goals[0]", "3: the bonus of")
    data = copy.deepcopy(documents["finished"])
    winner = next(p for p, player in enumerate(data["players"]) if player["score"]["winner"])
    data["players"][winner]["score"]["winner"] = False
    _assert_error(data, f"players[{winner}].score.winner", "must be true")
    data = copy.deepcopy(documents["finished"])
    data["players"][0]["money"] = 7
    _assert_error(data, "players[0].money", "7 left after final scoring")


def test_seed_field(documents):
    data = copy.deepcopy(documents["mid"])
    data["seed"] = -1
    _assert_error(data, "seed", "must be a non-negative integer or null")
    data["seed"] = None
    assert Game.from_json(json.dumps(data)).seed is None


def test_types_inside_cells_and_maps(documents):
    data = copy.deepcopy(documents["crafted"])
    data["players"][0]["borough"][3]["lake"] = "yes"
    _assert_error(data, "players[0].borough[3].lake", "must be true or false, not 'yes'")
    data = copy.deepcopy(documents["mid"])
    data["players"][0]["borough"] = {"0,0": "Suburbs"}
    _assert_error(data, "players[0].borough", "must be a list, not an object")
    data = copy.deepcopy(documents["mid"])
    data["box"] = ["Farm"]
    _assert_error(data, "box", "must be an object of tile counts")
    data = copy.deepcopy(documents["mid"])
    name = next(iter(data["box"]))
    data["box"][name] = "2"
    _assert_error(data, f"box.{name}", "must be an integer")


def test_a_failed_load_builds_no_game_and_changes_nothing(documents, monkeypatch):
    """A load that fails raises before any Game exists, leaves its input as it was,
    and does not disturb games loaded before or after."""
    good = json.dumps(documents["mid"])
    before = Game.from_json(good)
    snapshot = before.state.copy()
    built = []
    original_from_state = Game.from_state.__func__

    def counting_from_state(cls, *args, **kwargs):
        built.append(1)
        return original_from_state(cls, *args, **kwargs)

    monkeypatch.setattr(Game, "from_state", classmethod(counting_from_state))
    bad = copy.deepcopy(documents["mid"])
    bad["players"][1]["income"] = 17
    untouched = copy.deepcopy(bad)
    with pytest.raises(StateFormatError):
        serialization.game_from_dict(bad)
    assert built == []
    assert bad == untouched
    assert np.array_equal(before.state, snapshot)
    assert np.array_equal(Game.from_json(good).state, snapshot)
    assert built == [1]


# States play cannot reach (issue 22) -----------------------------------------------------

def _document_at(config: dict, seed: int, predicate) -> dict:
    """The document of the first decision of a seeded random game where `predicate(game)`."""
    game = Game(seed=seed, **config)
    rng = np.random.default_rng(seed)
    while not predicate(game):
        assert not game.is_over, "no decision of this game fits"
        game.apply(_random_action(game, rng))
    return json.loads(game.to_json())


def _load_quickly(data, seconds: float = 5.0) -> str:
    """The load error, which must come within `seconds` (bounded time, issue 22)."""
    started = time.perf_counter()
    with pytest.raises(StateFormatError) as error:
        if isinstance(data, dict):  # a dict may hold numbers too long for JSON text
            serialization.game_from_dict(data)
        else:
            Game.from_json(data)
    message = str(error.value)
    assert time.perf_counter() - started < seconds, message
    return message


@pytest.mark.parametrize("field, value, expected", [
    ("placement_counter", 2**31 - 1, "placement_counter: 2147483647 is outside 1..229"),
    ("round", 2**31 - 1, "round: 2147483647 is outside 0..16 (the last round the stacks"),
    ("round", 10**30, "round: <an integer of 100 bits> is outside 0..16"),
    ("round", 10**5000, "round: <an integer of 16610 bits> is outside 0..16"),
], ids=["counter 2**31-1", "round 2**31-1", "round 10**30", "round 10**5000"])
def test_huge_integers_are_refused_quickly(documents, field, value, expected):
    """A 3 KB state once made the loader build a list of 2**31 numbers; a huge round made
    a game that never ends (R3.2, R4.3: the stacks bound the rounds)."""
    data = copy.deepcopy(documents["mid"])
    data[field] = value
    assert _load_quickly(data).startswith(expected)


def test_money_and_population_within_what_a_game_can_give(documents):
    """R1.3 sets no upper bound, but the tiles and turns do (invariants.MONEY_BOUND): a
    money of 2**31 - 10 once wrapped to a negative number after one turn."""
    for field, bound in (("money", MONEY_BOUND), ("population", POPULATION_BOUND)):
        data = copy.deepcopy(documents["mid"])
        data["players"][0][field] = 2**31 - 10
        assert _load_quickly(data).startswith(f"players[0].{field}: 2147483638 is outside "
                                              f"0..{bound} (no game gives more")


def test_text_that_is_not_a_document_is_refused_quickly(documents):
    """Invalid UTF-8, deep nesting, 5,000-digit numbers and huge texts raise
    StateFormatError quickly (they raised UnicodeDecodeError, RecursionError, ValueError)."""
    text = json.dumps(documents["mid"])
    for bad, phrase in (
            (b"\xff\xfe\xfa" + text.encode(), "state: "),
            (text.encode()[:100] + b"\xc3\x28" + text.encode()[100:], "state: not UTF-8 text"),
            ("[" * 200_000 + "]" * 200_000, "state: "),
            (text.replace('"round": ', '"round": ' + "9" * 5000 + "0", 1), "state: "),
            (" " * (serialization.MAX_DOCUMENT_SIZE + 1), "state: 1,000,001 characters"),
            (text.replace('"mode": "standard"', '"mode": "' + "x" * 500_000 + '"'),
             "config.mode: must be one of")):
        message = _load_quickly(bad)
        assert message.startswith(phrase) and len(message) < 400, message[:400]


def _hostile_documents(documents) -> list:
    """Inputs of up to MAX_DOCUMENT_SIZE characters built to cost time or memory."""
    limit = serialization.MAX_DOCUMENT_SIZE
    text = json.dumps(documents["mid"])
    many_names = copy.deepcopy(documents["mid"])
    many_names["drawn"] = ["Farm"] * ((limit - len(text)) // 8)
    many_counts = copy.deepcopy(documents["mid"])
    many_counts["discarded"] = {f"tile {index}": 2**31 - 1 for index in range(30_000)}
    deep_cells = copy.deepcopy(documents["mid"])
    deep_cells["players"][0]["borough"] = [{"col": [[[[[[0]]]]]]}] * 20_000
    return [
        "[" + "0," * (limit // 2 - 2) + "0]",  # half a million numbers
        '{"a": ' * (limit // 7) + "1" + "}" * (limit // 7),  # nesting 140,000 deep
        "[" + ",".join(["9" * 4000] * (limit // 4001 - 1)) + "]",  # long numbers
        json.dumps(dict(documents["mid"], placement_counter=2**31 - 1)),
        json.dumps(many_names)[:limit],
        json.dumps(many_counts),
        json.dumps(deep_cells),
    ]


def test_loading_takes_bounded_memory_and_time_whatever_the_input(documents):
    """No input of up to MAX_DOCUMENT_SIZE characters makes the loader hold more than a
    few times its size in memory, or take seconds (a 3 KB state once made it build a
    list of 2**31 numbers)."""
    import tracemalloc
    for text in _hostile_documents(documents):
        assert len(text) <= serialization.MAX_DOCUMENT_SIZE
        tracemalloc.start()
        try:
            message = _load_quickly(text, seconds=10)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 100_000_000, (peak, message[:200])
        assert len(message) < 1000, message[:1000]


def test_record_text_that_is_not_a_record_is_refused_quickly(finished_record):
    text = json.dumps(finished_record)
    for bad in (b"\xff" + text.encode(), "{" * 100_000, text.replace('"seed": 65', '"seed": '
                                                                     + "7" * 5000)):
        with pytest.raises(StateFormatError, match="^record: "):
            Game.replay(bad)
    record = copy.deepcopy(finished_record)
    record["actions"][3] = "pass " + "9" * 1_000_000
    with pytest.raises(StateFormatError) as error:
        Game.replay(record)
    assert str(error.value).startswith("actions[3]: 'pass 999") and len(str(error.value)) < 1000


@pytest.mark.parametrize("config, decision", [(dict(players=2), "discard"),
                                              (dict(players=1, mode="solitary"), "remove")])
def test_a_pending_discard_or_removal_needs_a_payable_slot(config, decision):
    """R5.1b, d, R9.1: with no payable slot the engine skips the discard or removal, so a
    state waiting for one has none; loaded, it left no legal action, not even `pass`."""
    data = _document_at(config, 0, lambda game: game.pending_decision == decision)
    player = data["players"][data["current_player"]]
    player["money"] = 0
    for slot in (5, 6):  # the slots of premium 0 go to the discarded tiles
        name = data["market"][slot]
        if name is not None:
            data["discarded"][name] = data["discarded"].get(name, 0) + 1
            data["market"][slot] = None
    _assert_error(data, "pending_decision", "no legal action", "no payable slot")


def test_tiles_drawn_are_the_tiles_on_the_table_market_and_discarded(documents):
    """Every drawn tile is somewhere on the table, in the market or discarded; nothing on
    the table was never drawn. A drawn entry swapped for a box tile of its stack keeps
    every count but breaks that."""
    data = copy.deepcopy(documents["mid"])
    index = next(i for i, name in enumerate(data["drawn"])
                 if name not in data["market"] and i >= 7)  # a tile placed or discarded
    name = data["drawn"][index]
    stack = STACK_NAMES[tile_stack(TILES.table, TILES.kind(name))]
    other = next(n for n, count in data["box"].items() if count and n != name
                 and n != "One More Round"
                 and STACK_NAMES[tile_stack(TILES.table, TILES.kind(n))] == stack)
    data["drawn"][index] = other  # the drawn list is a record, not a place of tiles
    message = _load_error(data)
    assert message.startswith("drawn: "), message
    assert "the tiles drawn from the stacks are not exactly" in message


def test_drawn_tiles_match_the_turns_played(documents):
    """R4.2: 7 tiles at setup, one per turn; round and current player fix how many."""
    for change in ({"round": documents["mid"]["round"] + 1},
                   {"current_player": 1 - documents["mid"]["current_player"]}):
        data = dict(copy.deepcopy(documents["mid"]), **change)
        _assert_error(data, "drawn", "do not match the turns played")


def test_market_shapes_that_R4_2_cannot_produce(documents):
    """R4.2: while the stacks hold tiles the market is full, its tiles in draw order
    (slot 0 the newest); R9.2: Dale's slots 2..5 hold the round's four tiles in order."""
    data = copy.deepcopy(documents["mid"])
    name = data["market"][3]
    data["market"][3] = None
    data["discarded"][name] = data["discarded"].get(name, 0) + 1
    _assert_error(data, "market", "a shape R4.2 cannot produce")
    data = copy.deepcopy(documents["mid"])
    slots = [slot for slot in range(7) if data["market"][slot] != data["market"][0]]
    data["market"][0], data["market"][slots[0]] = data["market"][slots[0]], data["market"][0]
    _assert_error(data, "market", "the newest in slot 0")
    data = copy.deepcopy(documents["dale"])
    market = data["market"]
    assert market[2] != market[5]
    market[2], market[5] = market[5], market[2]
    _assert_error(data, "market", "with Dale the tiles drawn at the round start")


def test_placement_order_respects_adjacency(documents):
    """R2.4: each tile, in placement order, goes next to an earlier one. Swapping two
    placements keeps the borough connected but puts a tile before its only neighbour."""
    data = copy.deepcopy(documents["finished"])
    for player in data["players"]:
        borough = player["borough"]
        for index in range(3, len(borough) - 1):
            later = borough[index + 1]
            earlier = {(cell["col"], cell["row"]) for cell in borough[:index]}
            neighbours = {(int(n) % 13 - 6, int(n) // 13)
                          for n in NEIGHBOURS[cell_index(later["col"], later["row"])] if n >= 0}
            if not neighbours & earlier:  # next to borough[index] only
                first, second = borough[index], borough[index + 1]
                first["sequence"], second["sequence"] = second["sequence"], first["sequence"]
                borough[index], borough[index + 1] = second, first
                where = data["players"].index(player)
                _assert_error(data, f"players[{where}].borough[{index}]",
                              "not next to an earlier tile", "R2.4")
                return
    raise AssertionError("no placement next to the one before it only")


def test_a_player_without_a_finished_turn_keeps_the_start_values():
    """R3.4: tiles pay their owner only and the starting tiles react to their own borough,
    so a player who has not finished a turn still has $15, income 0, reputation 1,
    population 2."""
    data = _document_at(dict(players=3), 5, lambda game: len(game.history) == 4)
    waiting = (data["first_player"] + 2) % 3
    data["players"][waiting]["money"] = 16
    _assert_error(data, f"players[{waiting}]", "start values")


def test_one_placement_or_investment_per_turn():
    """R5.1: a player who has not taken a turn has placed nothing. The first player's
    lake moved to the second player's borough keeps every count."""
    game = Game(players=2, seed=24)
    for _ in range(2):
        game.apply(game.legal_actions_text()[0])
    game.apply("lake 6 @ 1,1")
    data = json.loads(game.to_json())
    data["players"][1]["borough"].append(data["players"][0]["borough"].pop())
    data["players"][0]["money"] = 15
    _assert_error(data, "players[1].borough", "more placements and investments than turns")


def test_dale_never_makes_lakes_nor_invests():
    """R9.2: Dale takes a tile each round and never makes a lake or invests."""
    data = _document_at(dict(players=1, mode="dale"), 7, lambda game: game.round == 3)
    dale = data["players"][1]
    assert len(dale["borough"]) == 6
    lake = copy.deepcopy(data)
    lake["players"][1]["borough"][4]["lake"] = True
    _assert_error(lake, "players[1].borough", "Dale not with one tile per round, no lake")
    invested = copy.deepcopy(data)
    invested["players"][1]["borough"][4]["invested"] = True
    invested["players"][1]["markers_left"] = 2
    _assert_error(invested, "players[1].borough", "no investment (R9.2)")


def test_final_round_follows_from_where_one_more_round_was_drawn():
    """R4.3: drawn during round r, One More Round makes r + 1 the final round."""
    data = _document_at(dict(players=2), 3, lambda game: game.state[s.FINAL_ROUND] == game.round + 1)
    data["final_round"] = data["round"]
    _assert_error(data, "final_round", "does not follow from where One More Round was drawn")


def test_scores_are_what_final_scoring_computes(documents):
    """R8.2: a goal bonus or a money conversion that adds up but is not what scoring.py
    gives from the board is refused."""
    data = copy.deepcopy(documents["finished"])
    player = next(p for p, player in enumerate(data["players"])
                  if player["private_goal"] and not player["score"]["private_goal"])
    score = data["players"][player]["score"]
    goal = GOALS.goal(data["players"][player]["private_goal"])
    bonus = private_goal_bonus(GOALS.table, goal)
    score["private_goal"] = bonus  # a private goal the board does not achieve
    score["population_before_goals"] -= bonus
    _assert_error(data, f"players[{player}].score", "differ from what final scoring computes")
    data = copy.deepcopy(documents["finished"])
    player, index = next((p, i) for p, player in enumerate(data["players"])
                         for i, bonus in enumerate(player["score"]["public_goals"]) if bonus)
    score = data["players"][player]["score"]
    score["population_before_goals"] += score["public_goals"][index]
    score["public_goals"][index] = 0
    _assert_error(data, f"players[{player}].score", "differ from what final scoring computes")


# Game records ---------------------------------------------------------------------------

@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
def test_record_replays_to_the_identical_state(config):
    """The record holds config, seed and the history; replaying it, from the dict or
    from its JSON text, reaches the identical final state and history."""
    game = _play(Game(seed=61, **config), np.random.default_rng(61))
    record = game.record()
    assert record == {"format": "suburbia-record", "version": 2, "config": game.config.to_dict(),
                      "seed": 61, "actions": game.history}
    assert len(record["actions"]) > 10 and all(isinstance(a, str) for a in record["actions"])
    for source in (record, json.dumps(record)):
        replayed = Game.replay(source)
        assert np.array_equal(replayed.state, game.state)
        assert replayed.history == game.history
        assert replayed.final_scores() == game.final_scores()


def test_record_prefix_replays_to_the_state_at_that_point():
    game = Game(players=3, seed=62)
    rng = np.random.default_rng(62)
    states = [game.state.copy()]
    while not game.is_over:
        game.apply(_random_action(game, rng))
        states.append(game.state.copy())
    record = game.record()
    for count in (0, 1, 3, len(states) // 2, len(states) - 2):
        partial = dict(record, actions=record["actions"][:count])
        assert np.array_equal(Game.replay(partial).state, states[count])


def test_record_actions_are_the_notation():
    """The actions are the text notation, e.g. `keep <goal>` for R3.6."""
    game = Game(players=2, seed=63)
    second_option = game.goal_options(game.current_player)[1]
    game.apply(f"keep {second_option}")
    assert game.record()["actions"] == [f"keep {second_option}"]


def test_record_of_a_loaded_or_hand_made_game_is_refused(documents):
    """A record must replay into the game: a game loaded mid-play (no history) or edited
    by hand has none, and one without a seed cannot be set up again."""
    loaded = Game.from_json(json.dumps(documents["mid"]))
    with pytest.raises(StateFormatError, match="does not reach its state"):
        loaded.record()
    with pytest.raises(StateFormatError, match="does not reach its state"):
        _hand_made_game().record()
    no_seed = copy.deepcopy(documents["mid"])
    no_seed["seed"] = None
    with pytest.raises(StateFormatError, match="^seed: this game has no seed"):
        Game.from_json(json.dumps(no_seed)).record()
    fresh = Game.from_json(Game(players=2, seed=64).to_json())
    assert fresh.record()["actions"] == []


@pytest.fixture(scope="module")
def finished_record() -> dict:
    game = _play(Game(players=2, seed=65), np.random.default_rng(65))
    return game.record()


def _replay_error(record) -> str:
    with pytest.raises(StateFormatError) as error:
        Game.replay(record)
    return str(error.value)


def test_replay_names_the_first_bad_action(finished_record):
    """R3.6: goals come first, so `pass` cannot be action 0; R2.4: (0,0) holds the
    starting Suburbs, so no tile can go there; nothing follows the end of the game."""
    actions = finished_record["actions"]
    first_turn = next(i for i, a in enumerate(actions) if not a.startswith("keep"))
    cases = [
        (0, "pass", "illegal action"),
        (first_turn, "basic suburbs @ 0,0", "illegal action"),
        (first_turn + 1, "buy seven @ 1,1", "is not an action"),
        (first_turn, "buy 3 @ 9,9", "off the borough"),
        (len(actions), "pass", "the game is over"),
    ]
    for index, action, phrase in cases:
        record = copy.deepcopy(finished_record)
        record["actions"][index:index + 1] = [action]
        message = _replay_error(record)
        assert message.startswith(f"actions[{index}]: {action!r}: "), message
        assert phrase in message, message
    record = copy.deepcopy(finished_record)
    record["actions"][2] = 5
    assert _replay_error(record).startswith("actions[2]: must be an action in notation, not 5")


@pytest.mark.parametrize("mode", ["dale", "solitary"])
def test_version_1_records_replay_standard_games_and_refuse_solo_ones(finished_record, mode):
    old = dict(finished_record, version=1)
    assert np.array_equal(Game.replay(old).state, Game.replay(finished_record).state)
    game = _play(Game(players=1, mode=mode, seed=64), np.random.default_rng(64), decisions=3)
    record = dict(game.record(), version=1)
    assert _replay_error(record).startswith("version: version 1 was written under the rules "
                                            "before the revision of 2026-11-25")


def test_replay_checks_the_record_fields(finished_record):
    for field, value, expected in (
            ("format", "suburbia-state", "format: must be 'suburbia-record'"),
            ("version", 3, "version: version 3 is not supported"),
            ("seed", None, "seed: must be a non-negative integer, not null"),
            ("seed", "65", "seed: must be a non-negative integer"),
            ("actions", "pass", "actions: must be a list"),
            ("config", {"players": 5, "mode": "standard", "edition": "2nd",
                        "random_private_goals": False}, "config.players: 5 is outside 1..4")):
        record = dict(finished_record, **{field: value})
        assert _replay_error(record).startswith(expected)
    record = dict(finished_record)
    del record["seed"]
    assert _replay_error(record).startswith("seed: missing field")
    assert _replay_error(json.dumps(finished_record)[:40]).startswith("record: JSON syntax error")
    assert _replay_error("[]").startswith("record: must be an object, not a list")


@pytest.mark.parametrize("value", [np.array([1, 2]), [1, 2], {"a": 1}, None, 3])
def test_a_format_field_of_any_python_value_is_refused_by_name(value):
    """The sealed-save check reads `format` first: an array there (found by the fuzzer)
    raised numpy's ambiguous-truth ValueError instead of a StateFormatError."""
    document = json.loads(Game(players=2, seed=0).to_json())
    document["format"] = value
    with pytest.raises(StateFormatError, match="format"):
        serialization.game_from_dict(document)
