"""Fuzzing the doors of the engine with hypothesis (issue 22, item 6).

Inputs are mutations of real ones: saved states (JSON documents of seeded random games of
every mode, at the goal choice, mid-game, at a pending discard or removal and at the
end, changed as JSON values, as bytes of text, or holding Python values), raw state
vectors given to Game.from_state (the door of hand-made positions), game records, lines
of notation, action values (legal ones in several forms too) and model files (the
description as JSON values or bytes, the weights as bytes). Each must be either refused
with the right exception, a SuburbiaError subclass (StateFormatError for states and
records, NotationError for notation, IllegalActionError, NotationError or GameOverError
for actions, the game left untouched; ModelFormatError or ConfigError for models), or
accepted; an accepted state or record is then played to the end by random legal moves
with every invariant holding after each step (`invariants.check_reachable`, or for a
hand-made vector `check_consistency`), the observation of every seat and the redraw of
hidden information running on each state, and its saved text round-trips; an accepted
model picks a legal action. Any other exception, or an invariant broken, fails the test.

The CI run tries a bounded number of examples (the whole file takes well under a minute).
A long run multiplies every test's examples and counts the inputs tried::

    SUBURBIA_FUZZ_SCALE=50 SUBURBIA_FUZZ_REPORT=fuzz-plain.json OMP_NUM_THREADS=1 \\
        timeout 1500 python -m pytest tests/engine/test_fuzz.py -q -p no:cacheprovider

and once more with compiled bounds checks (an out-of-place index raises IndexError, which
fails the test, instead of corrupting memory silently), in numba's cache of its own::

    NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=/tmp/suburbia-boundscheck-cache \\
        SUBURBIA_FUZZ_SCALE=25 SUBURBIA_FUZZ_REPORT=fuzz-boundscheck.json ...

docs/fuzzing.md has the details and the findings of the last long run. A failing example
is printed with its reproduction blob and kept in hypothesis' example database
(.hypothesis/), which replays it first next time.
"""

from __future__ import annotations

import atexit
import copy
import json
import os
import shutil
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from suburbia_env import (Game, GameOverError, IllegalActionError, NotationError,
                          StateFormatError, SuburbiaError)
from suburbia_env.errors import ModelFormatError
from suburbia_env.engine import action_space as a
from suburbia_env.engine import constants as c
from suburbia_env.engine import state_layout as s
from suburbia_env.game import GameConfig
from suburbia_env.engine.hidden_information import redraw_hidden_information
from suburbia_env.engine.checks.invariants import (check_consistency, check_reachable,
                                                   describe_invariant_error)
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.engine.tile_data import GOALS, TILES

pytestmark = pytest.mark.slow  # hundreds of mutated inputs played to the end

SCALE = max(1, int(os.environ.get("SUBURBIA_FUZZ_SCALE", "1")))
"""Multiplies the examples of every test: 1 in CI, e.g. 200 for a long run."""
REPORT = os.environ.get("SUBURBIA_FUZZ_REPORT")
"""A JSON file that receives the tally of inputs tried (by kind and outcome), rewritten
every few hundred inputs and at exit, so a run cut short by `timeout` still counts."""

TALLY: Counter = Counter()


def _write_report() -> None:
    if REPORT:
        with open(REPORT + ".tmp", "w") as report:
            json.dump({"scale": SCALE, "numba_boundscheck": os.environ.get("NUMBA_BOUNDSCHECK"),
                       "tally": dict(sorted(TALLY.items()))}, report, indent=1)
        os.replace(REPORT + ".tmp", REPORT)


atexit.register(_write_report)


def _count(kind: str, outcome: str) -> None:
    """One input of `kind` tried: `outcome` is "refused" or "accepted"."""
    TALLY[f"{kind}: {outcome}"] += 1
    if REPORT and sum(TALLY.values()) % 250 == 0:
        _write_report()


def fuzz_settings(examples: int):
    return settings(max_examples=examples * SCALE, deadline=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


CONFIGS = (dict(players=2), dict(players=3, edition="1st"),
           dict(players=4, random_private_goals=True), dict(players=1, mode="solitary"),
           dict(players=1, mode="solitary", edition="1st"), dict(players=1, mode="dale"),
           dict(players=1, mode="dale", edition="1st", random_private_goals=True))


def _random_game(config: dict, seed: int) -> tuple[Game, list[Game]]:
    """A finished seeded random game and copies of it at interesting decisions."""
    game = Game(seed=seed, **config)
    rng = np.random.default_rng(seed)
    kept = [game.copy()]
    while not game.is_over:
        if game.pending_decision in ("discard", "remove", "keep_goal") or rng.random() < 0.08:
            kept.append(game.copy())
        game.apply(int(rng.choice(game.legal_actions())))
    kept.append(game.copy())
    return game, kept


@lru_cache(maxsize=None)
def _corpus() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(state documents, record documents, lines of notation played) of 14 games."""
    states, records, lines = [], [], set()
    for index, config in enumerate(CONFIGS):
        for seed in (index, 100 + index):
            game, kept = _random_game(config, seed)
            states += [copy_.to_json() for copy_ in kept[::max(1, len(kept) // 6)]]
            states.append(game.to_json())
            records.append(json.dumps(game.record()))
            lines.update(game.history)
    return tuple(states), tuple(records), tuple(sorted(lines))


def _check_play_to_the_end(game: Game, rng: np.random.Generator, reachable: bool = True) -> None:
    """Random legal play to the end with every invariant after each step
    (`check_reachable`; for a hand-made state vector that play need not reach,
    `check_consistency`, the invariants play keeps from any state that entered); the
    observation of every seat and the redraw of what the player cannot see (which must
    pass the same check) run on each state; a reachable state's saved text round-trips at
    the start and at the end (check_reachable in between is what the loader checks)."""
    check = check_reachable if reachable else check_consistency
    observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    if reachable:
        _check_round_trip(game)
    for _ in range(2000):
        code = int(check(game.state, TILES.table))
        assert code == 0, describe_invariant_error(code)
        for seat in range(game.num_seats):
            encode_observation(game.state, TILES.table, seat, observation)
        if game.is_over:
            if reachable:
                _check_round_trip(game)
            return
        trial = game.state.copy()
        redraw_hidden_information(trial, TILES.table, GOALS.table, game.current_player,
                                  rng.integers(1, 2**31, size=4).astype(np.int32))
        code = int(check(trial, TILES.table))
        assert code == 0, "after a redraw: " + describe_invariant_error(code)
        legal = game.legal_actions()
        assert legal.size > 0, "no legal action while the game runs"
        game.apply(int(rng.choice(legal)))
    raise AssertionError("the game did not end within 2000 decisions")


def _check_round_trip(game: Game) -> None:
    text = game.to_json()
    loaded = Game.from_json(text)
    assert np.array_equal(loaded.state, game.state)
    assert loaded.to_json() == text


# Values and mutations ----------------------------------------------------------------------

NAMES = (TILES.names + GOALS.names + c.DECISION_NAMES + c.MODE_NAMES + c.EDITION_NAMES
         + c.BASIC_NOTATION_NAMES + ("A", "B", "C", "suburbia-state", "suburbia-record"))
BOUNDARIES = (-1, 0, 1, 2, 3, 4, 6, 7, 15, 16, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32 - 1,
              2**32, 2**63, 10**30, -10**30)

json_scalars = st.one_of(
    st.integers(-3, 130), st.sampled_from(BOUNDARIES), st.integers(-2**70, 2**70),
    st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(NAMES), st.text(max_size=12))
json_values = st.recursive(json_scalars, lambda children: st.one_of(
    st.lists(children, max_size=4), st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=6),
                                                    children, max_size=3)), max_leaves=8)


def _containers(document) -> list:
    """Every dict and list inside a document (the document first)."""
    found, stack = [], [document]
    while stack:
        node = stack.pop()
        found.append(node)
        children = node.values() if isinstance(node, dict) else node
        stack.extend(child for child in children if isinstance(child, (dict, list)))
    return found


@st.composite
def mutated_documents(draw, documents: tuple[str, ...]):
    """A document with one to three mutations: a value replaced (by any JSON value, a
    nearby integer or a name), a field or entry removed, added or duplicated, or two
    entries swapped."""
    document = json.loads(draw(st.sampled_from(documents)))
    for _ in range(draw(st.integers(1, 3))):
        containers = _containers(document)
        node = containers[draw(st.integers(0, len(containers) - 1))]
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        operation = draw(st.sampled_from(("replace", "nudge", "remove", "add", "swap",
                                          "duplicate")))
        if not keys or operation == "add":
            value = draw(json_values)
            if isinstance(node, dict):
                node[draw(st.sampled_from(NAMES) | st.text(max_size=8))] = value
            else:
                node.insert(draw(st.integers(0, len(node))), value)
            continue
        key = keys[draw(st.integers(0, len(keys) - 1))]
        if operation == "replace":
            node[key] = draw(json_values)
        elif operation == "nudge":
            value = node[key]
            if isinstance(value, int) and not isinstance(value, bool):
                node[key] = value + draw(st.sampled_from((-3, -2, -1, 1, 2, 3)))
            else:
                node[key] = draw(json_scalars)
        elif operation == "remove":
            del node[key]
        elif operation == "swap":
            other = keys[draw(st.integers(0, len(keys) - 1))]
            node[key], node[other] = node[other], node[key]
        elif isinstance(node, list):
            node.insert(key, copy.deepcopy(node[key]))
        else:
            node[key] = copy.deepcopy(node[keys[draw(st.integers(0, len(keys) - 1))]])
    return document


def _load_or_refuse(text, kind: str) -> Game | None:
    try:
        game = Game.from_json(text)
    except StateFormatError:
        _count(kind, "refused")
        return None
    _count(kind, "accepted")
    return game


# Saved states ------------------------------------------------------------------------------

@fuzz_settings(300)
@given(data=st.data())
def test_mutated_states_are_refused_or_play_to_the_end(data):
    document = data.draw(mutated_documents(_corpus()[0]))
    game = _load_or_refuse(json.dumps(document), "state documents")
    if game is not None:
        _check_play_to_the_end(game, np.random.default_rng(data.draw(st.integers(0, 2**32))))


@fuzz_settings(150)
@given(data=st.data())
def test_mutated_state_text_is_refused_or_plays_to_the_end(data):
    """Bytes of the saved text changed, inserted or deleted (also invalid UTF-8)."""
    text = bytearray(data.draw(st.sampled_from(_corpus()[0])).encode())
    for _ in range(data.draw(st.integers(1, 4))):
        position = data.draw(st.integers(0, len(text) - 1))
        operation = data.draw(st.sampled_from(("set", "insert", "delete")))
        if operation == "delete":
            del text[position:position + data.draw(st.integers(1, 8))]
        else:
            chunk = data.draw(st.binary(min_size=1, max_size=6)
                              | st.sampled_from([b"9" * 40, b"[" * 3000, b'"', b"\xff", b"-"]))
            text[position:position + (len(chunk) if operation == "set" else 0)] = chunk
    game = _load_or_refuse(bytes(text), "state texts")
    if game is not None:
        _check_play_to_the_end(game, np.random.default_rng(len(text)))


class _Odd:
    def __repr__(self):
        raise RuntimeError("a repr that fails")


python_values = st.one_of(st.sampled_from([np.int64(3), np.int32(-1), np.float64(2.0), (1, 2),
                                           frozenset({1}), b"Farm", float("nan"), _Odd(),
                                           np.array([1, 2]), 1j, Ellipsis]), json_scalars)


@fuzz_settings(100)
@given(data=st.data())
def test_state_dicts_with_python_values_are_refused_or_load(data):
    """game_from_dict takes any object: values JSON cannot hold are refused too."""
    from suburbia_env.serialization import game_from_dict
    document = json.loads(data.draw(st.sampled_from(_corpus()[0])))
    containers = _containers(document)
    node = containers[data.draw(st.integers(0, len(containers) - 1))]
    keys = list(node) if isinstance(node, dict) else list(range(len(node)))
    if keys:
        node[keys[data.draw(st.integers(0, len(keys) - 1))]] = data.draw(python_values)
    try:
        game = game_from_dict(document)
    except StateFormatError:
        _count("state dicts with Python values", "refused")
        return
    _count("state dicts with Python values", "accepted")
    _check_play_to_the_end(game, np.random.default_rng(0))


# State vectors -----------------------------------------------------------------------------

# Entries that compiled code reads as indices, counts or bounds: drawn more often.
INDEX_ENTRIES = tuple(sorted(
    {s.NUM_PLAYERS, s.MODE, s.EDITION, s.FIRST_PLAYER, s.CURRENT_PLAYER, s.PENDING_DECISION,
     s.ROUND, s.FINAL_ROUND, s.GAME_OVER, s.PLACEMENT_COUNTER, s.PILE_POSITION, s.PILE_A_END,
     s.PILE_B_END, s.PILE_END, *range(s.SUPPLY, s.SUPPLY + 3),
     *range(s.MARKET, s.MARKET + c.NUM_SLOTS), *range(s.PUBLIC_GOALS, s.PUBLIC_GOALS + 4)}
    | {s.player_base(seat) + offset for seat in range(c.MAX_PLAYERS)
       for offset in (s.MONEY, s.INCOME, s.REPUTATION, s.POPULATION, s.MARKERS_LEFT,
                      s.PRIVATE_GOAL, s.GOAL_OPTIONS, s.GOAL_OPTIONS + 1, s.TILE_COUNT,
                      s.LAKE_COUNT, s.ORDER, s.ORDER + 3, s.ORDER + 4)}))


@st.composite
def mutated_state_vectors(draw):
    """(configuration, state vector) of a decision of random play with one to four entries
    changed: set to a nearby value, a boundary, a small number or another entry's value,
    or two entries swapped."""
    game = draw(st.sampled_from(_decision_states()))
    state = game.state.copy()
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.sampled_from(INDEX_ENTRIES) | st.integers(0, s.STATE_SIZE - 1))
        operation = draw(st.sampled_from(("nudge", "boundary", "small", "copy", "swap")))
        if operation == "swap":
            other = draw(st.integers(0, s.STATE_SIZE - 1))
            state[index], state[other] = state[other], state[index]
            continue
        value = {"nudge": lambda: int(state[index]) + draw(st.sampled_from((-3, -2, -1, 1, 2,
                                                                              3))),
                 "boundary": lambda: draw(st.sampled_from(BOUNDARIES)),
                 "small": lambda: draw(st.integers(-3, 130)),
                 "copy": lambda: int(state[draw(st.integers(0, s.STATE_SIZE - 1))])}[operation]()
        state[index] = (value + 2**31) % 2**32 - 2**31  # as int32 holds it
    return game.config, state


@fuzz_settings(300)
@given(data=st.data())
def test_mutated_state_vectors_are_refused_or_play_to_the_end(data):
    """Game.from_state, the door for hand-made positions (positions.py): a state it accepts
    passes `check_invariants`, on which no kernel reads or writes out of place, and play
    from it keeps `check_consistency` to the end (wrapped int32 values, cells, kinds, seats
    and stack bounds out of range are refused)."""
    config, state = data.draw(mutated_state_vectors())
    try:
        game = Game.from_state(config, state)
    except StateFormatError:
        _count("state vectors", "refused")
        return
    _count("state vectors", "accepted")
    _check_play_to_the_end(game, np.random.default_rng(data.draw(st.integers(0, 2**32))),
                           reachable=bool(check_reachable(game.state, TILES.table) == 0))


# Game records ------------------------------------------------------------------------------

@fuzz_settings(60)
@given(data=st.data())
def test_mutated_records_are_refused_or_play_to_the_end(data):
    records = _corpus()[1]
    if data.draw(st.booleans()):
        record = data.draw(mutated_documents(records))
    else:  # actions replaced by lines of other games, cut or repeated
        record = json.loads(data.draw(st.sampled_from(records)))
        actions = record["actions"]
        for _ in range(data.draw(st.integers(1, 3))):
            index = data.draw(st.integers(0, max(0, len(actions) - 1)))
            operation = data.draw(st.sampled_from(("line", "cut", "repeat")))
            if operation == "line":
                actions[index:index + 1] = [data.draw(st.sampled_from(_corpus()[2]))]
            elif operation == "cut":
                del actions[index:]
            else:
                actions.insert(index, actions[index] if actions else "pass")
    try:
        game = Game.replay(json.dumps(record))
    except StateFormatError:
        _count("records", "refused")
        return
    _count("records", "accepted")
    _check_play_to_the_end(game, np.random.default_rng(len(game.history)))


# Notation and actions ----------------------------------------------------------------------

notation_lines = st.one_of(
    st.text(max_size=30),
    st.sampled_from(("buy", "lake", "basic", "invest", "discard", "remove", "keep", "pass",
                     "BUY", " pass ", "buy 3@1,1")),
    st.builds(lambda verb, slot, column, row, space: f"{verb}{space}{slot} @ {column},{row}",
              st.sampled_from(("buy", "lake", "basic", "invest")),
              st.one_of(st.integers(-20, 20), st.sampled_from(BOUNDARIES),
                        st.sampled_from(c.BASIC_NOTATION_NAMES),
                        st.integers(10**10, 10**20).map(lambda n: "9" * 5000 + str(n))),
              st.integers(-10, 10) | st.sampled_from(BOUNDARIES),
              st.integers(-3, 12) | st.sampled_from(BOUNDARIES),
              st.sampled_from((" ", "  ", "\t", "\u00a0", "\u2003", ""))),
    st.builds(lambda verb, number: f"{verb} {number}", st.sampled_from(("discard", "remove",
                                                                        "invest")),
              st.integers(-10, 10) | st.sampled_from(BOUNDARIES) | st.sampled_from(
                  ["\u0663", "\uff13", "3,", "1,1,1", "٣,٣"])),
    st.builds(lambda name: f"keep {name}", st.sampled_from(GOALS.names) | st.text(max_size=20)))

action_values = st.one_of(
    st.integers(-10, a.NUM_ACTIONS + 10), st.sampled_from(BOUNDARIES),
    st.integers(-2**200, 2**200), st.booleans(), st.none(), st.floats(),
    st.sampled_from([np.int64(a.ACTION_PASS), np.int32(-1), np.uint64(2**64 - 1), np.float32(3.0),
                     np.bool_(True), np.array(5), np.array([1, 2]), [1], (2,), b"pass", 1j,
                     object()]),
    notation_lines)


@lru_cache(maxsize=None)
def _decision_states() -> tuple[Game, ...]:
    """Games at every kind of decision of every mode, the finished ones included."""
    games = []
    for index, config in enumerate(CONFIGS):
        _, kept = _random_game(config, 200 + index)
        games += kept[::max(1, len(kept) // 5)] + [kept[-1]]
    return tuple(games)


@fuzz_settings(400)
@given(data=st.data(), line=notation_lines)
def test_notation_is_parsed_or_refused_with_notation_error(data, line):
    game = data.draw(st.sampled_from(_decision_states())).copy()
    try:
        number = game.text_to_action(line)
    except NotationError:
        assert not game.is_legal(line)
        _count("notation lines", "refused")
        return
    _count("notation lines", "accepted")
    assert 0 <= number < a.NUM_ACTIONS
    assert game.action_to_text(number)  # every parsed action can be written back
    assert game.is_legal(line) == game.is_legal(number)


def _legal_action_forms(game: Game, number: int) -> list:
    """A legal action as agents may answer it: its number in several types, its notation
    with other spacing or case."""
    text = game.action_to_text(number)
    return [number, np.int64(number), np.int32(number), np.uint16(number), text,
            f"  {text}\t", text.upper(), text.replace(" ", "  ")]


@fuzz_settings(400)
@given(data=st.data(), action=action_values)
def test_actions_apply_or_are_refused_without_touching_the_game(data, action):
    game = data.draw(st.sampled_from(_decision_states())).copy()
    if not game.is_over and data.draw(st.integers(0, 3)) == 0:  # a legal action in a form
        number = int(data.draw(st.sampled_from(list(game.legal_actions()))))
        action = data.draw(st.sampled_from(_legal_action_forms(game, number)))
    before = game.state.copy()
    legal = game.is_legal(action)
    assert isinstance(legal, bool)
    try:
        game.apply(action)
    except (IllegalActionError, NotationError, GameOverError) as error:
        assert isinstance(error, SuburbiaError)
        assert not legal
        assert np.array_equal(game.state, before), "a refused action changed the game"
        _count("actions", "refused")
        return
    _count("actions", "accepted")
    assert legal
    _check_play_to_the_end(game, np.random.default_rng(0))


# Model files -----------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _tiny_model() -> tuple[str, bytes, str]:
    """(folder, weights, description text) of an untrained policy in the safe format:
    the compact extractor and one layer of 8 units (agents/model_format.py)."""
    import tempfile

    import gymnasium as gym
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents.model_format import save_safe_model
    from suburbia_env.envs.env_options import observation_spaces
    from agents.features import SuburbiaFeatures
    torch.manual_seed(0)
    policy = MaskableActorCriticPolicy(
        observation_spaces("flat"), gym.spaces.Discrete(a.NUM_ACTIONS), lambda _: 0.0,
        net_arch=[8], features_extractor_class=SuburbiaFeatures,
        features_extractor_kwargs={"features_dim": 8})
    folder = tempfile.mkdtemp(prefix="suburbia-fuzz-model-")
    atexit.register(shutil.rmtree, folder, True)
    weights = save_safe_model(policy, os.path.join(folder, "tiny.safetensors"), 0.99, None)
    return folder, weights.read_bytes(), weights.with_suffix(".json").read_text()


def _mutated_bytes(data, original: bytes, most: int = 4) -> bytes:
    """`original` with one to `most` runs of bytes changed, inserted or deleted."""
    changed = bytearray(original)
    for _ in range(data.draw(st.integers(1, most))):
        position = data.draw(st.integers(0, max(0, len(changed) - 1))  # near the start
                             | st.floats(0, 1, exclude_max=True).map(  # or anywhere
                                 lambda share: int(share * len(changed))))
        operation = data.draw(st.sampled_from(("set", "insert", "delete")))
        if operation == "delete":
            del changed[position:position + data.draw(st.integers(1, 8))]
        else:
            chunk = data.draw(st.binary(min_size=1, max_size=8) | st.sampled_from(
                [b"\xff" * 8, b"\x00" * 8, b"9" * 20, b'"', b"[" * 50, b"-1"]))
            changed[position:position + (len(chunk) if operation == "set" else 0)] = chunk
    return bytes(changed)


@fuzz_settings(60)
@given(data=st.data())
def test_mutated_model_files_are_refused_or_play(data):
    """A model whose description (as JSON values or as bytes) or weights (the SHA-256 in the
    description made to match, so that the safetensors reader sees the bytes) were changed:
    ModelFormatError or ConfigError (a SuburbiaError naming the file), or it loads and
    picks a legal action, or says its output is no probability distribution (finite
    weights so large that the network overflows)."""
    import hashlib

    from agents import PPOAgent
    folder, weights, description = _tiny_model()
    part = data.draw(st.sampled_from(("description", "description text", "weights")))
    if part == "description":
        description = json.dumps(data.draw(mutated_documents((description,))))
    elif part == "description text":
        description = _mutated_bytes(data, description.encode()).decode("utf-8", "replace")
    else:
        weights = _mutated_bytes(data, weights)
        document = json.loads(description)
        document["weights"].update(sha256=hashlib.sha256(weights).hexdigest(), bytes=len(weights))
        description = json.dumps(document)
    path = os.path.join(folder, "model.safetensors")
    with open(path, "wb") as file:
        file.write(weights)
    with open(os.path.join(folder, "model.json"), "w") as file:
        file.write(description)
    try:
        agent = PPOAgent(path)
    except SuburbiaError as error:
        assert "model." in str(error) and len(str(error)) < 2000, str(error)
        _count(f"model files ({part})", "refused")
        return
    game = data.draw(st.sampled_from(_decision_states()))
    if game.is_over:
        _count(f"model files ({part})", "accepted")
        return
    try:
        action = agent.act(game)
    except ModelFormatError as error:  # finite weights whose output overflows
        assert "not a probability distribution" in str(error), str(error)
        _count(f"model files ({part})", "accepted, refused to play")
        return
    _count(f"model files ({part})", "accepted")
    assert game.is_legal(action)
