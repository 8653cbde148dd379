"""Saving the terminal game: where, what (a finished game's record or state, an
unfinished game's position without what its person cannot see, R10.2) and asking."""

from __future__ import annotations

import datetime
import json
import shlex
from pathlib import Path
from typing import TextIO

import numpy as np

from ..engine.rng import secret_words
from ..errors import SuburbiaError, shown
from ..formats.records import HINTS_FIELD
from ..formats.state_writer import game_to_json
from ..game import Game
from .terminal_text import SCREEN_WIDTH, read_line


def default_save_path(game: Game, seed_known: bool = False) -> Path:
    """Where an unfinished game is saved unless the person names a file, in the current
    folder: `suburbia-dale-seed7-20261125-130000.json`. The seed is in the name only when
    the person chose it; a random one stays unshown until the game is over (it fixes the
    order of the stacks, R10.2)."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    seed = f"seed{game.seed}-" if seed_known and game.seed is not None else ""
    return Path(f"suburbia-{game.config.mode}-{seed}{stamp}.json")

SAVED_POSITION = "your position, not what you cannot see"


def save_game(game: Game, path: Path, viewer: int, hints_used: int | None = None) -> str:
    """Write the game to `path`; returns what was written. A finished game, which hides
    nothing any more: its record (seed and moves) when replaying it gives this very
    state, else its state. An unfinished game: its position as seat `viewer` knows it
    (R10.1), in the state format but with no seed and with what the seat cannot see (the
    stacks' order, One More Round, the others' goals) dealt anew from fresh secret words
    (R10.2), so the file tells nothing hidden; resuming it deals that anew again
    (`TerminalGame`), so that reading the file tells nothing of the tiles to come either.
    `hints_used` (a game played with hints): the record or state says how many the person
    asked for (its optional field `hints_used`), and `--resume` counts on from there."""
    counts = None if hints_used is None else {viewer: int(hints_used)}
    if game.is_over:
        record = game.record() if game.seed is not None else None
        try:
            same = record is not None and np.array_equal(Game.replay(record).state, game.state)
        except SuburbiaError:
            same = False
        if same and counts is not None:
            record[HINTS_FIELD] = {str(viewer): count for viewer, count in counts.items()}
        text = (json.dumps(record, indent=1) + "\n") if same else game_to_json(game, counts)
        what = "game record" if same else "game state"
    else:
        position = game.copy()
        position.redraw_hidden(viewer, secret_words())
        text, what = game_to_json(position, counts), SAVED_POSITION
    path = Path(path).expanduser()
    if path.parent != Path("."):
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return what


def saved_lines(lead: str, target: Path, what: str) -> list[str]:
    """`Saved in FILE (what was written).`, the file name whole on the first line."""
    line = f"{lead} {target} ({what})."
    return [line] if len(line) <= SCREEN_WIDTH else [f"{lead} {target},", f"  {what}."]


def write_error(error: Exception) -> str:
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)  # ValueError: a path with a NUL character


def name_problem(target: Path) -> str | None:
    """Why `target` cannot name a file the game is saved in; None when it can."""
    if any(ord(character) < 32 or character in "\x7f\ufffd" for character in str(target)):
        return "a file name cannot hold control characters or bytes that are not text"
    return None


def offer_to_save(game: Game, viewer: int, stdin: TextIO, stdout: TextIO, default: Path,
                  ask: bool, resume_hint: str = "", hints_used: int | None = None
                  ) -> Path | None:
    """Save an unfinished game as seat `viewer` knows it (`save_game`): ask for a file
    name (Enter: `default`, 'no': not saved) when `ask`, else (the input has ended) write
    `default`. A file that cannot be written gets its reason and a new question; the end
    of the input or Ctrl-C at the question saves to `default`, or, if that cannot be
    written, to a new file in the current folder. `hints_used`: see `save_game`."""

    def say(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    asking, fallback = ask, default_save_path(game)
    for _ in range(6):
        answer = None
        if asking:
            stdout.write(f"Save the unfinished game? Enter: in {default}\n"
                         f"(or type another file name, or 'no'): ")
            stdout.flush()
            try:
                answer = read_line(stdin)
            except KeyboardInterrupt:
                say()
            if answer is None:  # end of input or Ctrl-C: the default, nobody to ask
                asking = False
            elif answer.strip().lower() in ("no", "n"):
                say("The game was not saved.")
                return None
        target = Path(answer.strip()) if answer and answer.strip() else default
        problem = name_problem(target)
        if problem is None:
            try:
                what = save_game(game, target, viewer, hints_used)
            except (OSError, ValueError) as error:
                problem = write_error(error)
        if problem is None:
            for line in saved_lines("The game is saved in", target, what):
                say(line)
            say("Continue it with:")
            say(f"  suburbia play --resume {shlex.quote(str(target))}{resume_hint}")
            return target
        say(f"Cannot write {shown(str(target))}: {problem}.")
        if not asking:
            if target == fallback:
                break
            default = fallback  # nobody to ask: a new file in the current folder
    say("The game was not saved.")
    return None
