"""The games held by the web server, each behind an unguessable id.

A `GameSession` wraps one `Game` with who sits where (a person or an agent spec per
deciding seat), the secret seat tokens, the decisions taken (action numbers and the seat
that took each), the event log in words and the bots' worker thread. It holds no rule:
legality, effects and scoring are the engine's (`Game.apply`, `Game.legal_action_mask`,
`Game.final_scores`); this module only calls it, and its views (`GameViews`, views.py)
turn the answers into JSON for one viewer at a time, leaving out what R10.2 hides.

Bots move on their own thread, never on a request's: the worker copies the game, lets the
agent think on the copy outside the lock, and applies the answer only if nothing changed
meanwhile (an undo, say). The page learns of each change by a long poll (`Notifier`,
long_poll.py). The bots decide and watch through the game loop of tournaments
(agents/table.py): bots that watch the game (`observe`) are shown every move of the other
seats as it is played, and a bot seated later, or again after an undo, is first shown the
moves so far, so that it knows what a player at the table would. A bot that fails pauses
the bots with the table's reason, where a tournament would hand its seat to the stand-in.

Replays are replays.py's; `Store` (store.py) keeps games and replays apart by id, each
written to the database (database.py) as it changes and live in memory only while in
use, and bounds what they hold.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass

from ...display.render import describe_action, describe_events
from ...display.vocabulary import public_move_words
from ...engine import action_space as a
from ...engine import state_layout as s
from ...engine.rng import secret_words
from ...errors import SuburbiaError
from ...serialization import game_from_json
from ...game import Game
from .errors import WebError
from .long_poll import Notifier
from .seats import Seat, new_id, new_token, seat_labels
from .views import GameViews

MAX_DECISIONS = 5000
"""Decisions one game or replay may hold (a 4-player game takes about 150)."""


# Games -------------------------------------------------------------------------------------

@dataclass
class LogEntry:
    """One decision: in words and in notation, each also as the other players may read
    it (which goal a `keep` keeps is hidden, R10.2), and the event lines in words."""

    number: int
    round: int
    seat: int
    notation: str
    words: str
    lines: list[str]

    def for_viewer(self, viewer: int | None, reveal: bool, label: str) -> dict:
        shown = reveal or viewer == self.seat
        return {"n": self.number, "round": self.round + 1, "seat": self.seat, "who": label,
                "action": self.words if shown else public_move_words(self.words),
                "notation": self.notation if shown else _public_notation(self.notation),
                "lines": self.lines}


def _public_notation(text: str) -> str:
    """The notation as every player may read it: which goal was kept is hidden (R10.2)."""
    return "keep ?" if text.startswith("keep ") else text


def event_lines(game: Game) -> list[str]:
    """The events of the last decision in words (render.describe_events, words=True)."""
    return describe_events(game.last_events, game.config.mode == "dale", words=True)


@dataclass
class BotStatus:
    delay_ms: int = 700
    paused: bool = False
    fast_forward: bool = False
    steps: int = 0  # moves allowed while paused ("step")
    phase: str = "idle"  # idle, waiting (the chosen pace), loading (an agent), thinking
    seat: int | None = None
    since: float = 0.0
    error: str | None = None


@dataclass(frozen=True)
class Redraw:
    """A redraw of an undo or a load: before decision `at` (0-based), what seat `viewer`
    cannot see was dealt anew from generator `words` (`Game.redraw_hidden`), fresh secret
    words (`rng.secret_words`) kept here so that the game replays exactly."""

    at: int
    viewer: int
    words: list[int]

    def to_list(self) -> list:
        return [self.at, self.viewer, list(self.words)]

    def apply(self, game: Game) -> None:
        game.redraw_hidden(self.viewer, self.words)

    @classmethod
    def fresh(cls, at: int, viewer: int) -> "Redraw":
        """A redraw from words no seed tells (R10.2): the operating system's secure ones."""
        return cls(at, viewer, [int(word) for word in secret_words()])

    @classmethod
    def of(cls, entry) -> "Redraw":
        if isinstance(entry, Redraw):
            return entry
        at, viewer, words = entry
        return cls(int(at), int(viewer), [int(word) for word in words])


def _bot_table():
    """The bots' loop (agents/table.py), with no bot seated yet: each is seated when it
    first decides."""
    from agents.table import Table
    return Table({})


class GameSession(GameViews):
    """One game: seats, tokens, decisions, log, bots (see the module docstring)."""

    def __init__(self, *, mode: str, players: int, edition: str, seed: int,
                 seed_chosen: bool, seats: list[Seat], client: str, agent_factory,
                 base_state: str | None = None, actions: list[int] | None = None,
                 deciders: list[int] | None = None, redraws: list | None = None,
                 undos: int = 0, delay_ms: int = 700, paused: bool = False,
                 identity: dict | None = None, saved_state: str | None = None,
                 hints: bool = False, hints_used: dict | None = None):
        """`seed` may have 64 bits (`rng.secret_seed`): more than an SQLite INTEGER or a
        JavaScript number holds exactly, so it is kept and sent as text outside Python.
        `saved_state`: a loaded save's state, which the decisions must replay to; then the
        person's unseen facts are dealt anew (`_continue_saved`). `hints`: the person
        may ask the search for hints (one person against bots only, `check_hints`)."""
        if hints:
            check_hints(mode, seats)
        identity = identity or {"id": new_id(), "owner_token": new_token(),
                                "tokens": {new_token(): seat.seat for seat in seats
                                           if seat.human}}
        self.id = identity["id"]
        self.kind = "game"
        self.client = client
        self.mode, self.players, self.edition = mode, players, edition
        self.seed, self.seed_chosen = seed, seed_chosen
        self.seats = seats
        self.labels = seat_labels(mode, seats)
        self.base_state = base_state  # a loaded state's JSON; None: set up from the seed
        self.tokens = {token: int(seat) for token, seat in identity["tokens"].items()}
        self.owner_token = identity["owner_token"]
        self.persist = None  # Store: writes the record after each change (active: bool)
        self.created = self.last_seen = time.monotonic()
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.notifier = Notifier()
        self.version = 0
        self.bots = BotStatus(delay_ms=delay_ms, paused=paused)
        self._agent_factory = agent_factory
        self._table = _bot_table()
        self._svg_cache: dict[tuple, str] = {}
        self.board_version = 0  # changes with the game itself, not with the bots' status
        self.closed = False
        self.undos = undos
        self.hints = bool(hints)
        self.hints_used = {int(seat): int(count) for seat, count in (hints_used or {}).items()}
        self.hint_running = False
        self.redraws: list[Redraw] = [Redraw.of(entry) for entry in redraws or []]
        self._replay(list(actions or []), list(deciders or []))
        if saved_state is not None:
            self._continue_saved(saved_state)
        self.version = 1
        self._worker = None
        if any(not seat.human for seat in seats):
            self._worker = threading.Thread(target=self._bot_loop, name=f"bots-{self.id[:6]}",
                                            daemon=True)
            self._worker.start()

    # Who is asking -------------------------------------------------------------------------

    @property
    def humans(self) -> list[int]:
        return [seat.seat for seat in self.seats if seat.human]

    def seat_of(self, token: str | None) -> int | None:
        """The seat of a seat token; None for the owner's token and for no token. Raises
        403 for a token that is not one of this game's."""
        if token is None:
            return None
        given = token.encode("utf-8", "replace")  # any text compares, none raises
        for known, seat in self.tokens.items():
            if secrets.compare_digest(known.encode(), given):
                return seat
        if secrets.compare_digest(self.owner_token.encode(), given):
            return None
        raise WebError(403, "this token is not one of this game's seats")

    def is_member(self, token: str | None) -> bool:
        if token is None:
            return False
        self.seat_of(token)
        return True

    def is_creator(self, token: str | None) -> bool:
        """Whether `token` is the creator's: the owner token, or the token of the seat
        handed to the creator (the first person's); an invited person's is not."""
        if token is None:
            return False
        seat = self.seat_of(token)
        return seat is None or seat == min(self.humans, default=None)

    def reveal_for(self, viewer: int | None) -> bool:
        """Whether a viewer may see everything: the game is over, or nobody at the table is
        a person (a watched all-bot game). A seat never sees the others' goals before."""
        return self.game.is_over or not self.humans

    # Playing --------------------------------------------------------------------------------

    def _base_game(self) -> Game:
        if self.base_state is not None:
            return game_from_json(self.base_state)
        return Game(self.players, self.mode, self.edition, self.seed)

    def _replay(self, actions: list[int], deciders: list[int]) -> None:
        """Set the game up again and apply `actions`, with each undo's redraw at its place."""
        self.game = self._base_game()
        self.actions, self.deciders, self.log = [], [], []
        for index, (number, decider) in enumerate(zip(actions, deciders)):
            self._redraw_at(index)
            if self.game.current_player != decider:
                raise WebError(422, "the saved decisions do not replay")
            self._apply(number)
        self._redraw_at(len(self.actions))

    def _continue_saved(self, saved_state: str) -> None:
        """A loaded save goes on where it was saved, with what its person cannot see dealt
        anew from fresh secret words (R10.2), as after an undo: loading the same save twice
        shows the same table but never tells the tiles to come. A finished game, or one
        without a person (nothing hidden from anyone), goes on as it was."""
        if self.game.to_json() != saved_state:
            raise WebError(422, "the sealed game does not replay to its saved state")
        if self.game.is_over or len(self.humans) != 1:
            return
        redraw = Redraw.fresh(len(self.actions), self.humans[0])
        self.redraws.append(redraw)
        redraw.apply(self.game)

    def _redraw_at(self, index: int, game: Game | None = None) -> None:
        for redraw in self.redraws:
            if redraw.at == index:
                redraw.apply(self.game if game is None else game)

    def _apply(self, number: int) -> None:
        game = self.game
        seat, round_number = game.current_player, game.round
        text = game.action_to_text(number)
        words = describe_action(number, game.state)
        self._show_move(game, number)
        game.apply(number)
        self.actions.append(number)
        self.deciders.append(seat)
        self.log.append(LogEntry(len(self.actions), round_number, seat, text, words,
                                 event_lines(game)))
        self.version += 1
        self.board_version += 1

    def _show_move(self, game: Game, number: int, seats=None) -> None:
        """Show the move about to be played to the watching bots (the table's `show`, of
        `seats` only when given); a bot that fails there pauses the bots, never the
        server."""
        for seat, problem in self._table.show(game, number, seats):
            self.bots.error = f"{self.labels.get(seat, '?')} failed: {problem}"

    def _show_history(self, seat: int) -> None:
        """Show a newly seated bot the moves played so far, as replayed here."""
        game = self._base_game()
        for index, number in enumerate(self.actions):
            self._redraw_at(index, game)
            self._show_move(game, number, {seat})
            game.apply(number)

    def _changed(self) -> None:
        self.changed.notify_all()
        self.notifier.notify()

    def _check_open(self) -> None:
        if self.closed:
            raise WebError(503, "this game was just put away or deleted; ask again")

    def _save(self, active: bool = True) -> None:
        """Write the record to the store (`persist`) before the change is answered;
        `active`: a move or a setting, which renews the game's idle time."""
        if self.persist is not None:
            self.persist(self, active)

    # The store's record ------------------------------------------------------------------------

    def record_data(self) -> dict:
        """What the store keeps of this game (database.py): its setup, seats and tokens,
        decisions, redraws and the bots' pace; `restore` replays it."""
        return {"mode": self.mode, "players": self.players, "edition": self.edition,
                "seed": str(self.seed), "seed_chosen": self.seed_chosen,
                "base_state": self.base_state,
                "seats": [seat.to_dict() for seat in self.seats],
                "owner_token": self.owner_token, "tokens": dict(self.tokens),
                "actions": list(self.actions), "deciders": list(self.deciders),
                "redraws": [redraw.to_list() for redraw in self.redraws],
                "undos": self.undos,
                "hints": self.hints, "hints_used": self.hints_used,
                "bots": {"delay_ms": self.bots.delay_ms, "paused": self.bots.paused}}

    @classmethod
    def restore(cls, session_id: str, client: str, version: int, data: dict,
                agent_factory) -> "GameSession":
        """The game of a store record, at its last written decision; its bots (if any)
        carry on from there."""
        seats = [Seat(int(seat["seat"]), seat["agent"], str(seat["label"]))
                 for seat in data["seats"]]
        session = cls(mode=data["mode"], players=int(data["players"]),
                      edition=data["edition"], seed=int(data["seed"]),
                      seed_chosen=bool(data["seed_chosen"]), seats=seats, client=client,
                      agent_factory=agent_factory, base_state=data["base_state"],
                      actions=data["actions"], deciders=data["deciders"],
                      redraws=data["redraws"], undos=int(data["undos"]),
                      delay_ms=int(data["bots"]["delay_ms"]),
                      paused=bool(data["bots"]["paused"]),
                      hints=bool(data.get("hints", False)), hints_used=data.get("hints_used"),
                      identity={"id": session_id, "owner_token": data["owner_token"],
                                "tokens": data["tokens"]})
        with session.lock:
            session.version = max(session.version, int(version))
        return session

    def play(self, seat: int | None, number: int, expected_version: int | None) -> None:
        """A person's decision; only the seat whose decision it is may take it."""
        with self.lock:
            self._check_open()
            game = self.game
            if seat is None:
                raise WebError(403, "only a person's seat token can play; this request has none")
            if game.is_over:
                raise WebError(409, "the game is over")
            if game.current_player != seat:
                raise WebError(409, f"it is not your decision: "
                                    f"{self.labels.get(game.current_player, '?')} decides now")
            if expected_version is not None and expected_version != self.version:
                raise WebError(409, f"the game changed meanwhile (version {self.version}, "
                                    f"you saw {expected_version}); look again and decide")
            if not 0 <= number < a.NUM_ACTIONS or not game.is_legal(number):
                raise WebError(422, f"illegal action {number} "
                                    f"({_safe_text(game, number)}): not among the legal "
                                    f"actions of this {game.pending_decision} decision")
            self._apply(number)
            self.bots.fast_forward = False
            self._save()
            self._changed()

    def can_undo(self, seat: int | None) -> bool:
        """Undo is for a person playing against bots only: no other person may lose a move."""
        return (seat is not None and len(self.humans) == 1 and seat in self.deciders
                and not self.game.is_over)

    def undo(self, seat: int | None) -> None:
        """Take back this seat's last decision and everything after it: the game is set up
        again and the decisions before it replayed (the engine decides nothing new). Then
        what the person cannot see is dealt anew (R10.2, `Game.redraw_hidden`): the tiles
        drawn after the move, now seen, must tell nothing of the stacks to come."""
        with self.lock:
            self._check_open()
            if seat is None or len(self.humans) != 1:
                raise WebError(409, "undo is for one person playing against bots")
            if seat not in self.deciders:
                raise WebError(409, "you have taken no decision to undo")
            if self.game.is_over:
                raise WebError(409, "the game is over: no undo after the final scoring")
            last = max(index for index, decider in enumerate(self.deciders) if decider == seat)
            self.undos += 1
            self.redraws = [redraw for redraw in self.redraws if redraw.at < last]
            self.redraws.append(Redraw.fresh(last, seat))
            self._table = _bot_table()  # seated again, they are shown the moves that remain
            self._replay(self.actions[:last], self.deciders[:last])
            self.version += 1
            self.board_version += 1
            self.bots.fast_forward = False
            self.bots.error = None
            self._save()
            self._changed()

    # Hints (issue 33; the search runs in hints.py's worker) -------------------------------

    def hints_used_all(self) -> dict[int, int]:
        """Hints asked for by each person (0 for one who asked none)."""
        return {seat: self.hints_used.get(seat, 0) for seat in self.humans}

    def can_hint(self, seat: int | None) -> bool:
        return (self.hints and seat is not None and len(self.humans) == 1
                and not self.game.is_over and self.game.current_player == seat)

    def begin_hint(self, seat: int | None) -> Game:
        """Check that `seat` may have a hint now and mark one running (one at a time per
        game); the search gets a copy of the game and knows only what `seat` does, since
        `agents.hints` redraws the rest (R10.2)."""
        with self.lock:
            self._check_open()
            if seat is None:
                raise WebError(403, "a hint is for a person's seat: this request has no "
                                    "seat token")
            if len(self.humans) != 1:
                raise WebError(409, "hints are for one person playing against bots, not for "
                                    "a game of several people")
            if not self.hints:
                raise WebError(409, "this game was made without hints (tick \"hints\" "
                                    "when making a game)")
            if self.game.is_over:
                raise WebError(409, "the game is over: there is no decision to hint at")
            if self.game.current_player != seat:
                raise WebError(409, "a hint is for your own decision: it is not yours now")
            if self.hint_running:
                raise WebError(409, "a hint is already being worked out for this game; wait "
                                    "for it")
            self.hint_running = True
            return self.game.copy()

    def end_hint(self, seat: int, given: bool) -> None:
        """The hint is over; a given one is counted and written to the store."""
        with self.lock:
            self.hint_running = False
            if given:
                self.hints_used[seat] = self.hints_used.get(seat, 0) + 1
                self.version += 1
                try:
                    self._save()
                except WebError:  # deleted or expired meanwhile
                    return
                self._changed()

    def set_bots(self, delay_ms: int | None, paused: bool | None, skip: bool, step: bool) -> None:
        with self.lock:
            self._check_open()
            if delay_ms is not None:
                self.bots.delay_ms = delay_ms
            if paused is not None:
                self.bots.paused = paused
            if skip:
                self.bots.fast_forward = True
            if step:
                self.bots.steps += 1
            if skip or step or paused is False:
                self.bots.error = None
            self.version += 1
            self._save()
            self._changed()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            self._changed()

    # The bots' thread ----------------------------------------------------------------------------

    def _bot_to_move(self) -> Seat | None:
        game = self.game
        if game.is_over or self.closed or self.bots.error:
            return None
        seat = next((seat for seat in self.seats if seat.seat == game.current_player), None)
        if seat is None or seat.human:
            return None
        if self.bots.paused and not self.bots.steps and not self.bots.fast_forward:
            return None
        return seat

    def _bot_loop(self) -> None:
        while True:
            with self.lock:
                while not self.closed and self._bot_to_move() is None:
                    if self.game.is_over:
                        self.bots.phase = "idle"
                        return
                    self.bots.phase, self.bots.seat = "idle", None
                    self.changed.wait(timeout=30)
                if self.closed:
                    return
                seat = self._bot_to_move()
                version = self.version
                self.bots.phase, self.bots.seat, self.bots.since = "waiting", seat.seat, time.time()
                deadline = time.monotonic() + self.bots.delay_ms / 1000
                while (not self.closed and self.version == version and not self.bots.fast_forward
                       and not self.bots.steps and time.monotonic() < deadline):
                    self.changed.wait(timeout=max(0.0, deadline - time.monotonic()))
                if self.closed:
                    return
                if self.version != version or self._bot_to_move() is not seat:
                    continue
                copy, table = self.game.copy(), self._table
                agent = table.agents.get(seat.seat)
                self.bots.phase = "loading" if agent is None else "thinking"
                self.bots.since = time.time()
                self.version += 1  # the page shows the phase
                version = self.version
                self.notifier.notify()
            try:
                if agent is None:
                    agent = self._agent_factory(seat.agent, self.seed, seat.seat, self.mode)
                    with self.lock:
                        table = self._table
                        table.seat(seat.seat, agent)
                        self._show_history(seat.seat)
                        self.bots.phase, self.bots.since = "thinking", time.time()
                        self.notifier.notify()
                number, problem = table.decision(copy)
            except Exception as error:  # a bot that cannot be built
                problem = f"{type(error).__name__}: {error}"
            if problem is not None:  # an agent's failure pauses the bots, never the server
                with self.lock:
                    self.bots.error = f"{seat.label} failed: {problem}"
                    self.bots.phase = "idle"
                    self.version += 1
                    self._changed()
                continue
            with self.lock:
                if self.version != version or self.closed:
                    continue  # undone or changed while thinking: think again
                self._apply(number)
                if self.bots.steps:
                    self.bots.steps -= 1
                self.bots.phase = "idle"
                try:
                    self._save()
                except WebError:  # deleted or expired meanwhile: the game is closed
                    return
                self._changed()

    @property
    def has_record(self) -> bool:
        """Whether the seed and the moves replay this game: not after a loaded state or an
        undo's redraw."""
        return self.base_state is None and not self.redraws

    def record(self) -> dict:
        """The game record (seed and actions); only offered when nothing is hidden."""
        with self.lock:
            if self.base_state is not None:
                raise WebError(409, "this game was loaded from a state, not set up from a seed: "
                                    "download its state instead")
            if not self.has_record:
                raise WebError(409, "an undo or a load dealt the hidden stacks anew (R10.2), "
                                    "so the seed and the moves no longer replay this game: "
                                    "download its state, or replay it here")
            from ...formats.records import record_document
            return record_document(self.game.config, self.seed,
                                   [entry.notation for entry in self.log],
                                   self.hints_used_all() if self.hints else None)

    def save_payload(self) -> dict:
        """Everything needed to continue: the state JSON, how the game was set up, the
        decisions (for undo) and the seats."""
        with self.lock:
            return {"state": self.game.to_json(), "base_state": self.base_state,
                    "mode": self.mode, "players": self.players, "edition": self.edition,
                    "seed": self.seed, "seed_chosen": self.seed_chosen,
                    "actions": list(self.actions), "deciders": list(self.deciders),
                    "redraws": [redraw.to_list() for redraw in self.redraws],
                    "undos": self.undos,
                    "hints": self.hints, "hints_used": self.hints_used,
                    "seats": [seat.to_dict() for seat in self.seats],
                    "delay_ms": self.bots.delay_ms}


def check_hints(mode: str, seats: list[Seat]) -> None:
    """Hints are for one person playing against bots, in a game with opponents."""
    if sum(seat.human for seat in seats) != 1:
        raise WebError(422, "hints: for one person playing against bots, not for a game of "
                            "several people (or of bots only)")
    if mode == "solitary":
        raise WebError(422, "hints: Solitary Architect (R9.1) has no opponent to win against, "
                            "so the search has no win probability to hint with")


def _safe_text(game: Game, number: int) -> str:
    try:
        text = game.action_to_text(number)
    except SuburbiaError:
        return "not an action"
    return "keep a goal" if text.startswith("keep ") else text


