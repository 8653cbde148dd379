"""The terminal game of `suburbia play`: a person against agents or Dale at a text prompt.

A thin wrapper over `Game` (game.py), which decides every rule; this module only shows
the game and reads the person's commands:

    <number>         the move of that number in the list 'legal' prints
    <move>           a move in the action notation: buy 3 @ -1,0, keep Investor, pass ...
    legal [words]    the legal moves, numbered (only those starting with `words`)
    info <what>      a tile's effects in words (a market slot, a tile name, a label or
                     a cell of your borough's map, lake) or a goal's criterion
    market           the market with every tile's effects in full
    board            the whole table, every borough; show: this decision's screen again
    log              every move of the others since your last decision
    undo             back to before your last decision (bots' moves after it undone too)
    hint             the search's best moves for this decision, from what you can see
                     only (agents/hints.py; `suburbia play --hints`, off by default)
    save [file]      save now and go on playing; quit: leave (offering to save)

A save of an unfinished game holds the person's position without what the person cannot
see (no seed; the stacks and the others' goals dealt anew), and resuming deals that anew
again (R10.2): saving, peeking at what follows and resuming tells nothing of the tiles to
come. A seed nobody typed has 64 bits from the operating system's secure generator, and
an undo's redraw takes fresh secret words (rng.py), so that no search finds them.

What is printed is what the person's seat may know (R10.1): other seats' kept and
returned goals, the order of the stacks and the position of One More Round are never
shown (R10.2), so a bot's `keep` is printed without its goal and a random seed (which
would tell the stacks) only once the game is over. The screen of a decision (the
acting player's borough, their numbers, the market with the tiles' effects, the moves)
fits 80 columns by 24 lines.

The bots are the agents of the registry, played by the tournaments' loop (agents/
table.py), one decision at a time between the person's: seeded once per game as in a
tournament (`agent_seed`), so an undo takes their replies back and a bot that draws at
random may answer the same move differently the second time. A bot that watches
(`Agent.observe`) is shown every move of the other seats before it is played, the
person's too, never a goal choice (R3.6); after an undo it is reset and shown the moves
that remain. A bot that fails (raises, answers an illegal action, changes the game it
was shown) forfeits as in a tournament: the stand-in (the first legal action) plays its
seat from then on, and the person is told.
Every move of the others since the person's last decision is on the next screen, folded
to the latest when they do not all fit ('log' lists them all).
"""

from __future__ import annotations

import shlex
import textwrap
import threading
from pathlib import Path
from typing import TextIO

import numpy as np

from ..display.render import describe_event
from ..display.vocabulary import (YOU, player_name, public_move_words, seat_with_agent,
                                  your_seat_name)
from ..engine import event_log as ev
from ..engine.legal_actions import illegal_reason
from ..engine.rng import secret_words
from ..engine.tile_data import TILES
from ..errors import IllegalActionError, SuburbiaError, shown
from ..game import Game
from .terminal_info import info_lines
from .terminal_saving import (default_save_path, name_problem, offer_to_save, save_game,
                              saved_lines, write_error)
from .terminal_screen import (decision_screen, final_scores_lines, full_market_lines,
                              group_legal_moves, log_lines)
from .terminal_text import SCREEN_WIDTH, fitted, numbered_columns, read_line, wrap

QUIT_WORDS = ("quit", "exit", "q")

PLAY_HELP = """Commands:
  <number>       the move of that number in the list 'legal' prints
  <move>         a move in the action notation: buy 3 @ -1,0  lake 5 @ 1,1
                 basic suburbs @ 0,3  invest 0,1  discard 4  remove 2  pass
                 keep <goal>. A cell is <col>,<row>: columns -6..6, rows 0..8;
                 odd columns sit half a row lower (R2.1); '+' marks where a tile
                 may go (R2.4)
  legal [words]  the legal moves, numbered; 'legal buy 3': only those of slot 3
  info <what>    a tile's effects: a market slot (info 3), a tile name or its
                 start (info office), a label or a cell of your map (info HF,
                 info 0,1), lake; or a goal (info investor)
  market         the market with the tiles' effects in full
  board          the whole table: every borough, the public goals, the supply
  show           this decision's screen again
  log            every move of the others since your last decision
  undo           back to before your last decision (and the bots' replies to it)
  hint           the search's best moves now, from what you can see (--hints)
  save [file]    save your position now (not what you cannot see) and go on
  help           this text
  quit           leave the game (you are offered to save it)"""


_HEADLINES = (ev.EVENT_PLACE, ev.EVENT_DALE_BUY, ev.EVENT_INVEST, ev.EVENT_DISCARD, ev.EVENT_PASS)


def headline_events(game: Game, exclude: int) -> list[str]:
    """What the other seats did in the last `Game.apply`, one line a move (placements,
    investments, discards, passes), in the words of the event log (render.py)."""
    return [describe_event(row, game.config.mode == "dale") for row in game.last_events
            if row[ev.FIELD_EVENT] in _HEADLINES and row[ev.FIELD_PLAYER] >= 0
            and row[ev.FIELD_PLAYER] != exclude]


def seat_label(game: Game, seat: int, human: int, labels: dict[int, str]) -> str:
    if seat == human:
        return your_seat_name(seat)
    return seat_with_agent(game.config.mode, seat, labels.get(seat, "agent"))


# The session -----------------------------------------------------------------------------

class TerminalGame:
    """One person at seat `human` against the agents of `opponents` (seat -> agent), on
    `stdin`/`stdout`. `labels` names the agents' seats (their specs). `seed_source`:
    "given" (the person chose it: printed), "random" (printed only once the game is over,
    since it tells the stacks, R10.2) or "file" (a resumed game: not printed, and what the
    person cannot see is dealt anew from fresh secret words, R10.2, so that a file read
    or loaded twice tells nothing of the tiles to come)."""

    def __init__(self, game: Game, human: int, opponents: dict, stdin: TextIO,
                 stdout: TextIO, show_board: bool = True, labels: dict[int, str] | None = None,
                 save_path: Path | None = None, resume_hint: str = "",
                 seed_source: str = "given", hints: bool = False, hints_used: int = 0):
        self.game = game
        self.hints = hints
        self.hints_used = hints_used  # a resumed game's count goes on
        self._hinter = None
        self._hinter_loading: threading.Thread | None = None
        self.human = human
        self.opponents = opponents
        self.stdin, self.stdout = stdin, stdout
        self.show_board = show_board
        self.labels = labels or {seat: getattr(agent, "name", "agent")
                                 for seat, agent in opponents.items()}
        self.default = (Path(save_path) if save_path
                        else default_save_path(game, seed_known=seed_source == "given"))
        self.resume_hint = resume_hint
        self.seed_source = seed_source
        self.undo_points = self._undo_points_of_history()
        self.setup_seed = game.seed  # still the setup's seed after a redraw
        self.loaded_without_history = seed_source == "file" and not self.undo_points
        self.saved_state: np.ndarray | None = None
        self.saved_hints = hints_used
        self.recent: list[str] = []  # the others' moves since the person's last one
        self._shown_for = None
        from agents.table import Table
        self.table = Table(opponents, on_forfeit=self._stand_in)  # the bots' loop
        self.watched: list[tuple[Game, int]] = []  # (position, move) shown to watching bots
        self._show_history_to_watchers()
        if seed_source == "file" and not game.is_over:  # after the history is replayed
            game.redraw_hidden(human, secret_words())

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def _hints_count(self) -> int | None:
        """The hints asked for, written with a saved game that allows them (else None)."""
        return self.hints_used if self.hints else None

    def _undo_points_of_history(self) -> list[Game]:
        """The positions before each of the person's decisions so far, replayed from the
        seed (a resumed record); none when the history does not replay to this state."""
        game = self.game
        if game.seed is None or not game.history:
            return []
        try:
            replay = Game(game.config.players, game.config.mode, game.config.edition,
                          game.seed, game.config.random_private_goals)
            points = []
            for text in game.history:
                if replay.current_player == self.human:
                    points.append(replay.copy())
                replay.apply(text)
        except SuburbiaError:
            return []
        return points if np.array_equal(replay.state, game.state) else []

    # Running ------------------------------------------------------------------------------

    def run(self) -> int:
        """Play until the game ends (0), the person quits (0), the input ends (1) or Ctrl-C
        (130). On quitting or Ctrl-C the person is offered to save the unfinished game;
        when the input ends it is saved without asking."""
        for line in wrap(f"{self._table_words()}; {YOU} are "
                         f"{player_name(self.game.config.mode, self.human)}."):
            self.say(line)
        if self.hints and not self.game.is_over:
            self._load_hinter_in_background()
        if self.seed_source == "given":
            self.say(f"Seed {self.game.seed}.")
        elif self.seed_source == "random":
            for line in wrap("The seed was drawn at random; it is shown when the game is "
                             "over, since it fixes the hidden order of the stacks (R10.2). "
                             "--seed N chooses one."):
                self.say(line)
        elif not self.game.is_over:
            for line in wrap("Resumed: what you cannot see (the order of the stacks, One "
                             "More Round, the others' goals) was dealt anew (R10.2)."):
                self.say(line)
        self.say("Type 'help' for the commands.")
        try:
            status = self._loop()
        except KeyboardInterrupt:
            self.say()
            self.say("Interrupted.")
            offer_to_save(self.game, self.human, self.stdin, self.stdout, self.default, True,
                          self.resume_hint, self._hints_count())
            return 130
        if status == "quit":
            if self.saved_state is not None and np.array_equal(
                    self.saved_state, self.game.state) and self.saved_hints == self.hints_used:
                self.say(f"The game is saved in {self.default}.")
                self.say("Continue it with:")
                self.say(f"  suburbia play --resume {shlex.quote(str(self.default))}"
                         f"{self.resume_hint}")
                return 0
            offer_to_save(self.game, self.human, self.stdin, self.stdout, self.default, True,
                          self.resume_hint, self._hints_count())
            return 0
        if status == "end of input":
            offer_to_save(self.game, self.human, self.stdin, self.stdout, self.default, False,
                          self.resume_hint, self._hints_count())
            return 1
        self._game_over()
        return 0

    def _table_words(self) -> str:
        game = self.game
        edition = "" if game.config.edition == "2nd" else f", {game.config.edition} edition"
        if game.config.mode == "dale":
            return f"Suburbia against Dale the bot (R9.2){edition}"
        if game.config.mode == "solitary":
            return f"Suburbia, Solitary Architect (R9.1){edition}"
        others = ", ".join(f"{player_name(game.config.mode, seat)} "
                           f"{self.labels.get(seat, 'agent')}" for seat in sorted(self.opponents))
        return f"Suburbia, {game.num_seats} players{edition}: {others}"

    def _game_over(self) -> None:
        game = self.game
        self.say()
        for line in fitted(game.render()) if self.show_board else ["The game is over."]:
            self.say(line)
        self.say()
        names = {self.human: YOU, **{seat: seat_with_agent(game.config.mode, seat, label)
                                     for seat, label in self.labels.items()}}
        for line in final_scores_lines(game, names):
            self.say(line)
        if self.hints:
            self.say(f"Hints used: {self.hints_used}.")
        if self.setup_seed is not None:
            self.say(f"Seed {self.setup_seed}: the same setup again with --seed "
                     f"{self.setup_seed}.")

    def _loop(self) -> str:
        """Decisions until the game is over ("over"), the person quits ("quit") or the
        input ends ("end of input")."""
        game_seen = None
        while not self.game.is_over:
            game = self.game
            seat = game.current_player
            if seat != self.human:
                self._bot_move(seat)
                continue
            key = (id(game), len(game.history), game.pending_decision)
            if key != game_seen:
                game_seen = key
                self._show_decision()
            self.stdout.write(f"player {self.human}> ")
            self.stdout.flush()
            line = read_line(self.stdin)
            if line is None:
                self.say()
                self.say("End of input: the game is left unfinished.")
                return "end of input"
            outcome = self._command(line)
            if outcome == "quit":
                return "quit"
            if outcome == "show":
                game_seen = None
        return "over"

    def _bot_move(self, seat: int) -> None:
        """The bot of `seat` decides (or the stand-in), the watching bots are shown the
        move, and it is played: one step of the table (agents/table.py)."""
        game = self.game
        move = self.table.step(game, on_move=lambda _, number, __: self._keep(game, number))
        self.recent += headline_events(game, exclude=self.human)
        self.say(f"{seat_label(game, seat, self.human, self.labels)}: "
                 f"{public_move_words(game.history[-1])}")
        for line in move.events:
            self.say(f"    {line}")

    def _stand_in(self, seat: int, problem: str) -> None:
        """The bot of `seat` failed (the table's forfeit): the stand-in plays its seat from
        now on, and the person is told why."""
        for line in wrap(f"{seat_label(self.game, seat, self.human, self.labels)} failed "
                         f"({problem}); the stand-in, which takes the first legal action, "
                         f"plays its seat from now on."):
            self.say(line)

    def _keep(self, game: Game, number: int) -> None:
        """Keep a move shown to watching bots, to show it again after an undo."""
        from agents.base import observers
        if observers(self.table.playing, game):
            self.watched.append((game.copy(), number))

    def _watch(self, game: Game, number: int) -> None:
        """Show a move about to be played (the person's, or one replayed after an undo) to
        the bots that watch (the table's `show_or_forfeit`: never a goal choice, R3.6), and
        keep it for after an undo."""
        self._keep(game, number)
        self.table.show_or_forfeit(game, number)

    def _show_history_to_watchers(self) -> None:
        """A resumed game: the watching bots are shown the moves of its history, replayed
        from its seed (none when the history does not replay to this state)."""
        game = self.game
        if game.seed is None or not game.history:
            return
        try:
            replay = Game(game.config.players, game.config.mode, game.config.edition,
                          game.seed, game.config.random_private_goals)
            moves = []
            for text in game.history:
                number = replay.action_number(text)
                moves.append((replay.copy(), number))
                replay.apply(number)
        except SuburbiaError:
            return
        if np.array_equal(replay.state, game.state):
            self._rewatch(moves)

    def _rewatch(self, moves: list[tuple[Game, int]]) -> None:
        """Reset the watching bots (seeded as at the start) and show them `moves` again."""
        from agents.base import observers
        watching = {seat for position, _ in moves
                    for seat, _ in observers(self.table.playing, position)}
        self.table.reseed(self.setup_seed or 0, seats=watching)
        self.watched = []
        for position, number in moves:
            self._watch(position, number)

    def _show_decision(self) -> None:
        game = self.game
        self.say()
        if self.show_board:
            for line in decision_screen(game, self.human, self.labels, recent=self.recent):
                self.say(line)
            return
        mine = game.player_state(self.human)
        lines = wrap(f"Round {game.round + 1}. You: ${mine['money']}, income "
                     f"{mine['income']}, reputation {mine['reputation']}, population "
                     f"{mine['population']}, markers left {mine['markers_left']}, "
                     f"{len(mine['borough'])} tiles")
        lines += wrap("Market: " + " | ".join(f"slot {row['slot']} {row['tile']} "
                                              f"${row['price']}" for row in game.market()))
        if game.pending_decision == "keep_goal":
            lines += wrap("Your drawn goals (R3.6): "
                          + ", ".join(game.goal_options(self.human)))
        elif game.private_goal(self.human):
            lines.append(f"Your private goal: {game.private_goal(self.human)}")
        legal = game.legal_actions_text()
        lines.append(f"Legal moves ({len(legal)}; a number picks one of 'legal'):")
        lines += [part for line in group_legal_moves(legal)
                  for part in textwrap.wrap(line.strip(), SCREEN_WIDTH, initial_indent="  ",
                                            subsequent_indent="    ")]
        for line in lines:
            self.say(line)

    # Commands -----------------------------------------------------------------------------

    def _command(self, line: str) -> str | None:
        """Carry out one typed line; "quit" to leave, "show" to draw the screen again."""
        game = self.game
        words = line.strip().split()
        command = " ".join(words).lower()
        verb = command.split(" ", 1)[0] if command else ""
        rest = " ".join(words[1:])
        if not command:
            return None
        if command in QUIT_WORDS:
            self.say("You left the game.")
            return "quit"
        if command in ("help", "?"):
            self.say(PLAY_HELP)
        elif verb == "legal":
            self._legal(rest)
        elif verb == "info":
            for text in info_lines(game, self.human, rest):
                self.say(text)
        elif command == "market":
            for text in full_market_lines(game):
                self.say(text)
        elif command == "board":
            for text in fitted(game.render()):
                self.say(text)
        elif command in ("show", "look"):
            return "show"
        elif command == "log":
            for text in log_lines(self.recent):
                self.say(text)
        elif command == "undo":
            return self._undo()
        elif command == "hint":
            self._hint()
        elif verb == "save":
            self._save(" ".join(line.strip().split(None, 1)[1:]))
        elif command.isascii() and command.isdigit():
            self._play_number(command)
        else:
            self._play(line.strip())
        return None

    def _load_hinter_in_background(self) -> None:
        """Start loading the hints' search and model while the person reads the board,
        so that the first hint answers as fast as the later ones (issue 33: 2 s)."""
        def load() -> None:
            from agents.hints import Hinter
            try:
                self._hinter = Hinter(self.game.config.mode)
            except Exception as error:  # raised again at the hint, as without the thread
                self._hinter_error = error
        self._hinter_error: Exception | None = None
        self._hinter_loading = threading.Thread(target=load, name="hints-loader", daemon=True)
        self._hinter_loading.start()

    def _loaded_hinter(self):
        """The hints' search, once its background loading is over; a loading error is
        raised here, at the hint."""
        if self._hinter is None and self._hinter_loading is None:
            self._load_hinter_in_background()
        self._hinter_loading.join()
        if self._hinter is None:
            raise self._hinter_error
        return self._hinter

    def _hint(self) -> None:
        """The search's moves for the person's decision, from the person's knowledge only
        (agents/hints.py redraws what the seat cannot see, R10.2); counted."""
        if not self.hints:
            self.say("Hints are off in this game: start it with 'suburbia play --hints'.")
            return
        self.say("Thinking about your move...")
        from agents.hints import hint_lines
        try:
            answer = self._loaded_hinter().hint(self.game, self.human)
        except SuburbiaError as error:
            self.say(f"No hint: {error}")
            return
        self.hints_used += 1
        for line in hint_lines(answer):
            for part in wrap(line):
                self.say(part)

    def _legal(self, words: str) -> None:
        moves = list(enumerate(self.game.legal_actions_text(), start=1))
        wanted = " ".join(words.lower().split())
        chosen = [(number, text) for number, text in moves
                  if text.lower().startswith(wanted)] if wanted else moves
        if not chosen:
            self.say(f"No legal move starts with {shown(words)}; 'legal' lists all "
                     f"{len(moves)}.")
            return
        for text in numbered_columns(chosen):
            self.say(text)

    def _play_number(self, digits: str) -> None:
        legal = self.game.legal_actions()
        number = int(digits) if len(digits) <= 6 else 0
        if not 1 <= number <= len(legal):
            for line in wrap(f"Not accepted: {shown(digits) if len(digits) > 6 else digits} "
                             f"is not a move number; the moves are numbered 1 to "
                             f"{len(legal)} ('legal')."):
                self.say(line)
            return
        self._play(int(legal[number - 1]))

    def _play(self, move) -> None:
        """Apply a move (notation or action number); a move that is not legal now is
        refused with the rule that forbids it (legal_actions.illegal_reason)."""
        game = self.game
        try:
            number = game.action_number(move)
            if not game.is_legal(number):
                why = illegal_reason(game.state, TILES.table, TILES.basic_kinds, number)
                raise IllegalActionError(f"illegal action {game.action_to_text(number)!r}: "
                                         f"{why}")
            before = game.copy()
            self._watch(game, number)
            events = game.apply(number)
        except SuburbiaError as error:
            for line in wrap(f"Not accepted: {str(error).rstrip('.')}."):
                self.say(line)
            self.say("Type 'legal' for the legal moves or 'help' for the notation.")
            return
        self.undo_points.append(before)
        self.recent = headline_events(game, exclude=self.human)  # Dale's turn (R9.2)
        self.say(f"you: {game.history[-1]}")
        for event in events:
            self.say(f"    {event}")

    def _undo(self) -> str | None:
        """Back to the position before the person's last decision: everything after it,
        the bots' moves included, is taken back (the engine decides nothing new). What the
        person cannot see is then dealt anew (R10.2), so that the tiles drawn after the
        move, now seen, tell nothing of the stacks to come."""
        if not self.undo_points:
            self.say("Nothing to undo: you have taken no decision"
                     + (" since the game was loaded." if self.loaded_without_history
                        else "."))
            return None
        point = self.undo_points.pop().copy()
        self.recent = []
        self._rewatch([(position, number) for position, number in self.watched
                       if len(position.history) < len(point.history)])
        taken_back = self.game.history[len(point.history):]
        point.redraw_hidden(self.human, secret_words())
        self.game = point
        others = len(taken_back) - 1
        self.say(f"Undone: your '{taken_back[0]}'" + (
            f" and the {others} decision{'s' if others != 1 else ''} after it." if others
            else "."))
        return "show"

    def _save(self, name: str) -> None:
        target = Path(name.strip()) if name.strip() else self.default
        problem = name_problem(target)
        if problem is None:
            try:
                what = save_game(self.game, target, self.human, self._hints_count())
            except (OSError, ValueError) as error:
                problem = write_error(error)
        if problem is not None:
            self.say(f"Cannot write {shown(str(target))}: {problem}.")
            return
        self.default = target
        self.saved_state = self.game.state.copy()
        self.saved_hints = self.hints_used
        for line in saved_lines("Saved in", target, what):
            self.say(line)
        self.say("Continue it later with:")
        self.say(f"  suburbia play --resume {shlex.quote(str(target))}{self.resume_hint}")


def play_session(game: Game, human: int, opponents: dict, stdin: TextIO, stdout: TextIO,
                 show_board: bool = True, labels: dict[int, str] | None = None,
                 save_path: Path | None = None, resume_hint: str = "",
                 seed_source: str = "given", hints: bool = False, hints_used: int = 0) -> int:
    """Play `game` with a person at seat `human` (see `TerminalGame.run`)."""
    return TerminalGame(game, human, opponents, stdin, stdout, show_board, labels, save_path,
                        resume_hint, seed_source, hints, hints_used).run()
