"""Exceptions the facade raises; each message names the problem.

Every misuse of the public API (Game, the three environments, notation, the loaders,
the agent registry and model files) raises a `SuburbiaError`; each class also derives
from the builtin exception the same misuse raised before, so `except ValueError` keeps
working. An exception of any other type is a bug of this package.
"""

import reprlib

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlong = 40


def shown(value) -> str:
    """`repr(value)` cut to a readable length for an error message: a 10 MB string is quoted
    by its ends and its length, a 5,000-digit number by its size (repr alone would fail
    beyond Python's limit on int-to-text conversion)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**40:
        digits = int(abs(value).bit_length() * 0.30103) + 1
        return f"{'-' if value < 0 else ''}<an integer of about {digits} digits>"
    try:
        text = _REPR.repr(value)
    except Exception:  # a foreign object whose repr fails must not hide the real error
        return f"<{type(value).__name__} object>"
    if isinstance(value, (str, bytes)) and len(value) > _REPR.maxstring:
        text += f" ({len(value)} characters)"
    return text


class SuburbiaError(Exception):
    """Base class of this package's errors."""


class ConfigError(SuburbiaError, ValueError):
    """A game configuration that the rules do not allow (player count, mode, edition), or
    an option of an environment or an agent that is not one of its values."""


class ArgumentError(SuburbiaError, ValueError):
    """An argument of the wrong type or outside its range where no action is involved: a
    seat, an environment index, an agent name, a seed."""


class IllegalActionError(SuburbiaError, ValueError):
    """An action that is not legal in the current state; the state is left untouched."""


class GameOverError(SuburbiaError, RuntimeError):
    """An action applied to a finished game."""


class NotationError(SuburbiaError, ValueError):
    """Text that is not an action of the notation (docs/reference.md, notation.py)."""


class StateFormatError(SuburbiaError, ValueError):
    """A saved state or game record that is malformed or breaks the rules; names the field."""


class ModelFormatError(SuburbiaError, ValueError):
    """A model file that cannot be loaded safely: malformed, corrupted, not matching its
    description, or a pickled model loaded without explicit permission; names the file."""


class ModelFileNotFoundError(ModelFormatError, FileNotFoundError):
    """A model file that does not exist."""
