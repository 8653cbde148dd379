"""Exceptions the facade raises; each message names the problem."""


class SuburbiaError(Exception):
    """Base class of this package's errors."""


class ConfigError(SuburbiaError, ValueError):
    """A game configuration that the rules do not allow (player count, mode, edition)."""


class IllegalActionError(SuburbiaError, ValueError):
    """An action that is not legal in the current state; the state is left untouched."""


class GameOverError(SuburbiaError, RuntimeError):
    """An action applied to a finished game."""


class NotationError(SuburbiaError, ValueError):
    """Text that is not an action of the notation (README, notation.py)."""


class StateFormatError(SuburbiaError, ValueError):
    """A saved state or game record that is malformed or breaks the rules; names the field."""
