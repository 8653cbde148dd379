"""compiled_call.compiled_entry_point: the dispatcher-free call gives the dispatcher's results."""

import numpy as np

from suburbia_env.engine.compiled_call import compiled_entry_point
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.engine.red_lines import red_lines_at_or_below
from suburbia_env.engine.setup import new_game
from suburbia_env.engine import state_layout as s
from suburbia_env.engine import constants as c
from suburbia_env.engine.rng import seed_words
from suburbia_env.engine.tile_data import GOALS, TILES


def test_entry_point_of_a_scalar_kernel_matches_the_dispatcher():
    entry = compiled_entry_point(red_lines_at_or_below, (0,))
    values = [entry(population) for population in range(-3, 140)]
    assert values == [red_lines_at_or_below(population) for population in range(-3, 140)]
    assert values[3 + 15] == 1 and values[3 + 101] == 19  # R8.1: first line 15, 101 the 19th


def test_entry_point_of_an_array_kernel_writes_what_the_dispatcher_writes():
    state = np.zeros(s.STATE_SIZE, dtype=np.int32)
    new_game(state, TILES.table, GOALS.table, TILES.basic_kinds, 3, c.MODE_STANDARD,
             c.EDITION_SECOND, 0, seed_words(5, 1)[0])
    by_dispatcher = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    by_entry = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    encode_observation(state, TILES.table, 1, by_dispatcher)
    entry = compiled_entry_point(encode_observation, (state, TILES.table, 1, by_entry))
    entry(state, TILES.table, 1, by_entry)
    assert by_entry.any()
    np.testing.assert_array_equal(by_entry, by_dispatcher)
