"""Calling a compiled kernel without numba's per-call type dispatch.

numba's dispatcher works out the type of every argument on each call: about 1.7 us for
the fifteen arrays and numbers a Gymnasium step once passed, a sixth of a step. An
environment's buffers keep their types for its whole life, so it resolves the compiled
entry point once and calls that (about 0.4 us per call, most of it reading the eleven
arrays). The entry point trusts its arguments' types: call it only with arguments of the
types it was resolved for.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numba


def compiled_entry_point(kernel, arguments: Sequence) -> Callable:
    """The machine-code entry of `kernel` for the types of `arguments` (compiled or
    loaded from numba's cache if needed); `kernel` itself under NUMBA_DISABLE_JIT."""
    if not hasattr(kernel, "compile"):
        return kernel
    return kernel.compile(tuple(numba.typeof(argument) for argument in arguments))
