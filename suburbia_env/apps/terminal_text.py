"""Text in and out of the terminal game: one typed line read safely, and lines wrapped,
packed or set in columns to fit the 80 x 24 screen (SCREEN_WIDTH, SCREEN_HEIGHT)."""

from __future__ import annotations

import textwrap
from typing import TextIO

MAX_LINE = 10_000  # characters of one typed line that are read; the rest is skipped
SCREEN_WIDTH = 80
SCREEN_HEIGHT = 24


def numbered_columns(moves: list[tuple[int, str]], width: int = SCREEN_WIDTH) -> list[str]:
    """`12 buy 2 @ -1,0` items in aligned columns, filled row by row, within `width`."""
    if not moves:
        return []
    items = [f"{number:>{len(str(moves[-1][0]))}} {text}" for number, text in moves]
    cell = max(len(item) for item in items) + 3
    per_line = max(1, (width - 2 + 3) // cell)
    return ["  " + "".join(item.ljust(cell) for item in items[start:start + per_line]).rstrip()
            for start in range(0, len(items), per_line)]


def wrap(text: str, width: int = SCREEN_WIDTH, indent: str = "") -> list[str]:
    return textwrap.wrap(text, width=width, subsequent_indent=indent or "  ",
                         initial_indent=indent, break_on_hyphens=False) or [""]


def packed(items: list[str], width: int = SCREEN_WIDTH, gap: str = "   ") -> list[str]:
    """`items` on as few lines as fit `width`, never splitting one (the later lines
    indented by two spaces)."""
    lines = [items[0]]
    for item in items[1:]:
        if len(lines[-1]) + len(gap) + len(item) <= width:
            lines[-1] += gap + item
        else:
            lines.append("  " + item)
    return lines


def fitted(text: str, width: int = SCREEN_WIDTH) -> list[str]:
    """The lines of `text`, each longer than `width` wrapped, its continuation indented
    two more spaces than the line (the whole table of `board` on an 80-column screen)."""
    lines = []
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip(" ")))
        lines += [line] if len(line) <= width else textwrap.wrap(
            line.strip(), width, initial_indent=indent, subsequent_indent=indent + "  ",
            break_on_hyphens=False)
    return lines


def read_line(stdin: TextIO) -> str | None:
    """One typed line, None at the end of the input. A line longer than MAX_LINE is read
    to its end and returned cut (the notation then refuses it); bytes that are not UTF-8
    text become U+FFFD (refused the same way)."""
    try:
        line = stdin.readline(MAX_LINE)
        if len(line) == MAX_LINE and not line.endswith("\n"):
            while True:  # skip the rest of the over-long line
                rest = stdin.readline(MAX_LINE)
                if not rest or rest.endswith("\n"):
                    break
    except UnicodeDecodeError:
        return "\ufffd"
    except ValueError:  # the input stream was closed
        return None
    return line or None
