"""Inputs that are not actions, and the check every misuse message passes; shared by the
engine's misuse tests (tests/engine/test_misuse_errors.py) and the environments'
(tests/environments/test_misuse_env_errors.py), issue 22 item 3."""

from __future__ import annotations

import numpy as np

from suburbia_env import NUM_ACTIONS
from suburbia_env.errors import shown

# Not an action number, of every kind: wrong types, out of range, beyond int64 / uint64.
NOT_ACTION_NUMBERS = [
    -1, NUM_ACTIONS, 2**31, 2**63 - 1, 2**63, 2**64, 2**64 + 1, -(2**63), -(2**63) - 1,
    10**5000, -(10**5000), 1.0, 3.5, float("nan"), float("inf"), None, True, False,
    np.float64(3.0), np.float32(1.0), np.bool_(True), np.complex128(1), np.uint64(2**64 - 1),
    np.int64(-1), np.int8(-1), np.uint32(2**32 - 1), [], [1], (1,), {}, {1: 2}, set(),
    object(), b"pass", bytearray(b"pass"), np.zeros(2, dtype=np.int64), range(3),
]


def case_id(value) -> str:
    """A test id for any input, however large or strange (the project's own `shown`)."""
    return shown(value)[:40]


def assert_names_the_problem(message: str) -> None:
    """A misuse message is short enough to read, even for huge inputs, and no traceback."""
    assert message and len(message) < 2000
    assert "Traceback" not in message
