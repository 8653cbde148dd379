"""xoshiro128**: a small seeded generator whose four 32-bit words live in an int32 array.

Every random choice of the engine (setup shuffles, first player, goal draws) and of the
compiled random players draws from such words, never from a global generator, so the
same seed gives the same game and the generator state is saved with the game (JSON).
All arithmetic is int64 masked to 32 bits, identical compiled and under NUMBA_DISABLE_JIT.

A seed or a redraw the project picks for a person (a game started without a typed seed,
the redraw after an undo or a load) comes from the operating system's secure generator
(`secret_seed`, `secret_words`), never from another seed: from what a player sees first
(the market, the public goals) a search over a small seed space would otherwise find the
seed and with it every hidden fact (R10.2), and words derived from the seed would tell
the deal after each undo. A game's record keeps the seed and the redraw words, so that
it still replays exactly.
"""

import secrets

import numpy as np

from ..errors import ConfigError, shown
from .refcount_free import njit_without_refcounts


_MASK32 = 0xFFFFFFFF
SEED_BITS = 64
"""Bits of a seed the project picks for a person: no search over them is feasible."""
MAX_SEED = 2**SEED_BITS - 1
"""The largest seed a person may type (the command line, the web): a picked seed's range."""


def seed_words(seed: int, count: int = 1) -> np.ndarray:
    """`count` independent generator states (int32[count, 4]) derived from an integer seed."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer, not {shown(seed)}")
    words = np.random.SeedSequence(int(seed)).generate_state(4 * count, dtype=np.uint32)
    words = words.view(np.int32).reshape(count, 4)
    for state in words:
        avoid_zero_state(state)
    return words


def secret_seed() -> int:
    """A seed for a game nobody chose a seed for: SEED_BITS bits from the operating
    system's secure generator (`secrets`), so that the first view cannot be searched for it."""
    return secrets.randbits(SEED_BITS)


def secret_words() -> np.ndarray:
    """Fresh generator words (int32[4]) from the operating system's secure generator, for
    a redraw of what a person cannot see (an undo, a load; Game.redraw_hidden): never a
    function of the game's seed, so that knowing the seed tells nothing of the redraw."""
    words = np.array([secrets.randbits(32) for _ in range(4)], dtype=np.uint32).view(np.int32)
    avoid_zero_state(words)
    return words


@njit_without_refcounts
def avoid_zero_state(words):
    """Make a generator state (int32[4]) usable: the all-zero state is a fixed point."""
    if words[0] == 0 and words[1] == 0 and words[2] == 0 and words[3] == 0:
        words[0] = 1


@njit_without_refcounts
def _load(words, offset, index):
    return np.int64(words[offset + index]) & _MASK32


@njit_without_refcounts
def _store(words, offset, index, value):
    value &= _MASK32
    if value >= 0x80000000:
        value -= 0x100000000
    words[offset + index] = value


@njit_without_refcounts
def _rotate_left(value, shift):
    return ((value << shift) | (value >> (32 - shift))) & _MASK32


@njit_without_refcounts
def next_word(words, offset):
    """Next 32-bit output (0..2**32-1) of the generator stored at words[offset:offset+4]."""
    s0 = _load(words, offset, 0)
    s1 = _load(words, offset, 1)
    s2 = _load(words, offset, 2)
    s3 = _load(words, offset, 3)
    result = (_rotate_left((s1 * 5) & _MASK32, 7) * 9) & _MASK32
    shifted = (s1 << 9) & _MASK32
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= shifted
    s3 = _rotate_left(s3, 11)
    _store(words, offset, 0, s0)
    _store(words, offset, 1, s1)
    _store(words, offset, 2, s2)
    _store(words, offset, 3, s3)
    return result


@njit_without_refcounts
def random_below(words, offset, bound):
    """Uniform integer in 0..bound-1 (bound >= 1), by Lemire's multiply-shift."""
    return np.int64((next_word(words, offset) * np.int64(bound)) >> 32)


@njit_without_refcounts
def shuffle_range(values, start, stop, words, offset):
    """Fisher-Yates shuffle of values[start:stop] in place."""
    for index in range(stop - 1, start, -1):
        other = start + random_below(words, offset, index - start + 1)
        held = values[index]
        values[index] = values[other]
        values[other] = held
