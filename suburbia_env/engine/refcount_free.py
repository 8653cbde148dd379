"""Kernels compiled without numba's reference counting.

numba counts the references to every array a compiled function holds: each call between
kernels increments and decrements the count of each array argument through a library
call with an atomic operation. Resolving a placement makes dozens of small calls (every
adjustment is one, R7.2), and Dale tries several placements per turn, so these counts
cost about a fifth of a Gymnasium step. A kernel that never allocates or returns an
array needs none of them: `njit_without_refcounts` compiles it with numba's `_nrt=False`
(the same machine code without the counting).

numba compiles every kernel such a kernel calls in the same mode, and rejects an
allocation there at compile time: only kernels that never allocate, directly or through
their callees, may carry this decorator. The few that allocate (game setup, the vector
environment's batches, test helpers) keep plain `njit(cache=True)`.
"""

from numba import njit


def njit_without_refcounts(function):
    """`njit(cache=True)` without reference counting (see the module docstring)."""
    return njit(cache=True, _nrt=False)(function)


def inline_accessor(function):
    """A kernel numba pastes into every kernel that calls it (and Python may call), without
    reference counts: the accessors of the state (state_layout.py) and of the tile and goal
    tables (tile_table.py) read an entry as directly as indexing it would, with no call."""
    return njit(cache=True, inline="always", _nrt=False)(function)
