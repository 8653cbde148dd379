"""The one decoder of action numbers (engine/action_space.py, R5, R3.6, R9.1): its
compiled form, which the kernels call, and its Python form agree on every number, each
number decodes to the fields the notation names and encodes back, and anything that is
no action or no field of one is refused with a message naming it."""

from __future__ import annotations

import numpy as np
import pytest

from suburbia_env.engine import action_space as a
from suburbia_env.engine.hex_grid import NUM_CELLS, cell_index
from suburbia_env.formats.notation import format_action, parse_action


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_the_kernels_decoder_and_pythons_agree_on_every_number(dtype):
    for number in range(a.NUM_ACTIONS):
        compiled = a.action_fields(dtype(number))
        assert compiled == a.action_fields.py_func(number)
        assert a.action_number(*compiled) == number
        assert a.decode_action(dtype(number)).number == number


def test_each_kind_takes_its_block_of_numbers_in_order():
    kinds = [a.action_fields.py_func(number)[0] for number in range(a.NUM_ACTIONS)]
    assert kinds == sorted(kinds)
    assert [kinds.count(kind) for kind in range(len(a.KIND_VERBS))] == \
        [7 * NUM_CELLS, 7 * NUM_CELLS, 3 * NUM_CELLS, NUM_CELLS, 7, 7, 2, 1]


@pytest.mark.parametrize("number, action, notation", [
    (0, a.Action("buy", slot=0, cell=0), "buy 0 @ -6,0"),
    (3 * 117 + cell_index(-1, 0), a.Action("buy", slot=3, cell=cell_index(-1, 0)),
     "buy 3 @ -1,0"),
    (819 + 5 * 117 + cell_index(1, 1), a.Action("lake", slot=5, cell=cell_index(1, 1)),
     "lake 5 @ 1,1"),
    (1638 + 2 * 117 + cell_index(0, 3), a.Action("basic", basic=2, cell=cell_index(0, 3)),
     "basic factory @ 0,3"),
    (1989 + cell_index(0, 1), a.Action("invest", cell=cell_index(0, 1)), "invest 0,1"),
    (2106 + 4, a.Action("discard", slot=4), "discard 4"),
    (2113 + 2, a.Action("remove", slot=2), "remove 2"),
    (2120 + 1, a.Action("keep", option=1), "keep option 1"),
    (2122, a.Action("pass"), "pass"),
])
def test_numbers_of_the_reference_decode_to_their_fields(number, action, notation):
    """The numbers of docs/reference.md ("Action notation"), field by field."""
    assert a.decode_action(number) == action
    assert a.encode_action(action) == action.number == number
    assert format_action(number) == notation
    if not notation.startswith("keep"):
        assert parse_action(notation) == number


@pytest.mark.parametrize("number", [-1, a.NUM_ACTIONS, 10**20, True, 1.0, "3", None])
def test_what_is_no_action_number_is_refused(number):
    with pytest.raises(ValueError, match=r"an action number is an integer 0\.\.2122"):
        a.decode_action(number)


@pytest.mark.parametrize("action, message", [
    (a.Action("build", slot=0, cell=0), "an action's kind is one of buy, lake, basic"),
    (a.Action("buy", cell=3), r"buy: the slot is an integer 0\.\.6, not None"),
    (a.Action("lake", slot=7, cell=0), r"lake: the slot is an integer 0\.\.6, not 7"),
    (a.Action("basic", basic=3, cell=0), r"basic: the basic is an integer 0\.\.2, not 3"),
    (a.Action("invest", cell=NUM_CELLS), r"invest: the cell is an integer 0\.\.116"),
    (a.Action("keep", option=True), r"keep: the option is an integer 0\.\.1, not True"),
])
def test_an_action_with_a_bad_field_is_refused_naming_it(action, message):
    with pytest.raises(ValueError, match=message):
        a.encode_action(action)
