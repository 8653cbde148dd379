"""Replays held by the web server: a game record, or a game played here, stepped both
ways from a few kept positions."""

from __future__ import annotations

import secrets
import time

from ...display.drawing import table_svg
from ...display.render import describe_action
from ...display.vocabulary import seat_name
from ...errors import SuburbiaError
from ...serialization import game_from_json, replay_record
from ...game import Game
from .errors import WebError
from .seats import new_id, new_token
from .sessions import MAX_DECISIONS, GameSession, Redraw, event_lines
from .views import final_scores_view, seed_text


class ReplaySession:
    """A game replayed once and stepped both ways: a game record, or a game played here
    (`of_game`, undo's redraws included). Every CHECKPOINT-th position, and the one after
    each redraw, is kept and the others replayed from the one before, so that a replay
    holds a few dozen states, not one per decision. `record` is None when no seed-and-moves
    record replays the game."""

    CHECKPOINT = 16

    def __init__(self, record: dict, client: str, labels: dict[int, str] | None = None):
        actions = record.get("actions") if isinstance(record, dict) else None
        if isinstance(actions, list) and len(actions) > MAX_DECISIONS:
            raise WebError(413, f"actions: {len(actions)} decisions; a record holds at most "
                                f"{MAX_DECISIONS}")
        try:
            final = replay_record(record)  # checks everything, naming the first bad field
        except SuburbiaError as error:
            raise WebError(422, f"not a replayable game record: {error}") from None
        config = final.config
        game = Game(config.players, config.mode, config.edition, int(record["seed"]),
                    config.random_private_goals)
        self._data = {"record": record}
        self._walk(client, labels, record, game, record["actions"], [])

    @classmethod
    def of_game(cls, session: GameSession, client: str) -> "ReplaySession":
        """The replay of a game played here, from its setup (a seed or a loaded state)."""
        with session.lock:
            record = session.record() if session.has_record else None
            replay = cls.__new__(cls)
            replay._data = {"record": record, "labels": {str(k): v for k, v in
                                                         session.labels.items()},
                            "game": {"mode": session.mode, "players": session.players,
                                     "edition": session.edition, "seed": str(session.seed),
                                     "base_state": session.base_state},
                            "moves": list(session.actions),
                            "redraws": [redraw.to_list() for redraw in session.redraws]}
            replay._walk(client, session.labels, record, session._base_game(),
                         list(session.actions), list(session.redraws))
        return replay

    def record_data(self) -> dict:
        """What the store keeps of this replay: the record it was opened from, or the
        setup, moves and redraws of the game played here."""
        return self._data

    @classmethod
    def restore(cls, session_id: str, client: str, data: dict) -> "ReplaySession":
        if "game" not in data:
            replay = cls(data["record"], client)
        else:
            setup = data["game"]
            game = (game_from_json(setup["base_state"]) if setup["base_state"] is not None
                    else Game(int(setup["players"]), setup["mode"], setup["edition"],
                              int(setup["seed"])))
            replay = cls.__new__(cls)
            replay._data = data
            replay._walk(client, {int(k): v for k, v in data["labels"].items()},
                         data["record"], game, data["moves"],
                         [Redraw.of(entry) for entry in data["redraws"]])
        if "maker_token" in data:  # kept with the record: its maker still deletes it
            replay.maker_token = replay._data["maker_token"] = data["maker_token"]
        replay.id = session_id
        return replay

    def _walk(self, client: str, labels: dict[int, str] | None, record: dict | None,
              game: Game, moves: list, redraws: list[Redraw]) -> None:
        self.id = new_id()
        self.kind = "replay"
        self.maker_token = self._data.setdefault("maker_token", new_token())  # it deletes it
        self.client = client
        self.created = self.last_seen = time.monotonic()
        self.record = record
        self.config = game.config
        self.seed = game.seed
        self.labels = {seat: (labels or {}).get(seat) or seat_name(game.config.mode, seat)
                       for seat in range(game.num_seats)}
        self.checkpoints = {0: game.state.copy()}
        self.numbers: list[int] = []
        self.steps: list[dict] = []
        for number, move in enumerate(moves, start=1):
            for redraw in redraws:
                if redraw.at == number - 1:
                    redraw.apply(game)
                    self.checkpoints[number - 1] = game.state.copy()
            seat, round_number = game.current_player, game.round
            action = game.action_number(move)
            words = describe_action(action, game.state)
            text = game.action_to_text(action)
            game.apply(action)
            self.numbers.append(action)
            if number % self.CHECKPOINT == 0:
                self.checkpoints[number] = game.state.copy()
            self.steps.append({"n": number, "round": round_number + 1, "seat": seat,
                               "who": self.labels[seat], "action": words, "notation": text,
                               "lines": event_lines(game)})
        self._svg_cache: dict[int, str] = {}

    @property
    def total(self) -> int:
        return len(self.steps)

    def is_maker(self, token: str | None) -> bool:
        return token is not None and secrets.compare_digest(
            self.maker_token.encode(), token.encode("utf-8", "replace"))

    def game_at(self, step: int) -> Game:
        checkpoint = max(kept for kept in self.checkpoints if kept <= step)
        game = Game.from_state(self.config, self.checkpoints[checkpoint], self.seed)
        for number in self.numbers[checkpoint:step]:
            game.apply(number)
        return game

    def view(self, step: int) -> dict:
        step = max(0, min(step, self.total))
        game = self.game_at(step)
        svg = self._svg_cache.get(step)
        if svg is None:
            svg = table_svg(game, labels=self.labels, reveal=True, seed_shown=self.seed)
            if len(self._svg_cache) >= 8:  # bounded: a drawing is some 100 kB
                self._svg_cache.pop(next(iter(self._svg_cache)))
            self._svg_cache[step] = svg
        rounds: dict[int, int] = {}
        for entry in self.steps:
            rounds.setdefault(entry["round"], entry["n"] - 1)
        return {"kind": "replay", "id": self.id, "step": step, "total": self.total,
                "has_record": self.record is not None,
                "mode": self.config.mode, "players": self.config.players,
                "edition": self.config.edition, "seed": seed_text(self.seed), "svg": svg,
                "round": game.round + 1, "over": game.is_over,
                "this_step": self.steps[step - 1] if step else None,
                "next_step": ({k: v for k, v in self.steps[step].items() if k != "lines"}
                              if step < self.total else None),
                "rounds": [{"round": r, "step": first} for r, first in sorted(rounds.items())],
                "scores": final_scores_view(game, self.labels) if game.is_over else None}
