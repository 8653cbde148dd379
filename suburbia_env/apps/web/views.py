"""The JSON views of games: what one viewer may see now (R10.1, R10.2), with the seed as
text, the legal actions grouped for clicking (the engine's decoder,
engine/action_space.py) and the final scoring."""

from __future__ import annotations

import time

from ...display.drawing import table_svg
from ...display.tile_text import goal_info
from ...display.vocabulary import DALE, seat_name
from ...engine import action_space as a
from ...engine import state_layout as s
from ...game import Game
from .agent_specs import hide_paths
from .seats import DALE_SEAT

MAX_LOG_SENT = 400
"""Log entries sent in one view at most (the page asks for the ones it has not seen)."""


def seed_text(seed: int | None) -> str | None:
    """A seed as the JSON views send it: decimal text, since a seed of 64 bits is more
    than a JavaScript number holds exactly (2**53)."""
    return None if seed is None else str(int(seed))


def legal_choices(game: Game) -> dict:
    """The engine's legal actions, grouped for clicking: buy/lake by slot and basic by
    tile, each a map cell -> action number; invest cell -> number; discard/remove slot ->
    number; keep option -> number; pass -> number or null."""
    choices = {"buy": {}, "lake": {}, "basic": {}, "invest": {}, "discard": {}, "remove": {},
               "keep": {}, "pass": None}
    for number in game.legal_actions():
        number = int(number)
        move = a.decode_action(number)
        if move.kind in ("buy", "lake"):
            choices[move.kind].setdefault(str(move.slot), {})[str(move.cell)] = number
        elif move.kind == "basic":
            choices["basic"].setdefault(str(move.basic), {})[str(move.cell)] = number
        elif move.kind == "invest":
            choices["invest"][str(move.cell)] = number
        elif move.kind in ("discard", "remove"):
            choices[move.kind][str(move.slot)] = number
        elif move.kind == "keep":
            choices["keep"][str(move.option)] = number
        else:
            choices["pass"] = number
    return choices


def final_scores_view(game: Game, labels: dict[int, str]) -> dict:
    """The final scoring broken down (R8.2, R8.3) from `Game.final_scores`."""
    rows = []
    for score in game.final_scores():
        rows.append({**score, "label": labels.get(score["player"],
                                                  seat_name(game.config.mode, score["player"])),
                     "goals_total": sum(score["public_goals"].values())
                     + score["private_goal_bonus"]})
    rank = game.solo_rank()
    note = None
    if game.config.mode == "dale" and rank is None:
        note = "No ladder rank: Dale was not beaten (R9.2)"
    return {"rows": rows, "public_goals": game.public_goals, "solo_rank": rank, "note": note,
            "winners": [labels.get(p, seat_name(game.config.mode, p)) for p in game.winners]}


class GameViews:
    """What a viewer of a game (sessions.GameSession) may see now (R10.1, R10.2): its
    view as JSON, its drawing, the seed and why it is not shown."""

    @property
    def origin(self) -> str:
        """How the game was set up: "random" (a secret seed), "chosen" (the creator typed
        the seed) or "position" (the creator loaded a state, with every hidden fact)."""
        if self.base_state is not None:
            return "position"
        return "chosen" if self.seed_chosen else "random"

    def _creator(self, viewer: int | None) -> bool:
        return viewer is not None and bool(self.humans) and viewer == self.humans[0]

    def seed_for(self, viewer: int | None) -> int | None:
        """The seed, to a viewer who may know it: everybody once nothing is hidden, else
        only the person who typed it (the creator's seat); a random seed would tell the
        others the stacks and goals (R10.2). None for a game set up from a position."""
        if self.origin == "position":
            return None
        if self.reveal_for(viewer):
            return self.seed
        if self.origin == "chosen" and self._creator(viewer):
            return self.seed
        return None

    def seed_note(self, viewer: int | None) -> str | None:
        """Why the seed is not shown, in true words: the other seats must know when the
        game's creator could know the hidden stacks and goals (a typed seed, a loaded
        position)."""
        if self.seed_for(viewer) is not None:
            return None
        if self.origin == "position":
            if self._creator(viewer):
                return "none, this game began from the position you loaded"
            return ("none, this game began from a position its creator loaded from a file, "
                    "so the creator may know the hidden stacks and goals (R10.2)")
        if self.origin == "chosen":
            return ("chosen by the game's creator, who may therefore know the hidden stacks "
                    "and goals (R10.2); shown when the game is over")
        return ("random, shown when the game is over (it would tell the hidden stacks and "
                "goals, R10.2)")

    def svg(self, viewer: int | None, reveal: bool) -> str:
        """The drawing for one viewer, cached per position: at most one per seat, the
        watcher and the revealed table, whatever a client asks (bounded memory)."""
        key = (self.board_version, viewer, reveal)
        cached = self._svg_cache.get(key)
        if cached is None:
            if any(known[0] != self.board_version for known in self._svg_cache):
                self._svg_cache.clear()
            order = tuple(range(self.game.num_seats))
            if viewer is not None:
                order = (viewer,) + tuple(seat for seat in order if seat != viewer)
            labels = dict(self.labels)
            if viewer is not None:
                labels[viewer] = labels[viewer] + " (you)"
            cached = table_svg(self.game, viewer=viewer, labels=labels, reveal=reveal,
                               seats=order, seed_shown=self.seed_for(viewer))
            self._svg_cache[key] = cached
        return cached

    def view(self, viewer: int | None, log_since: int = 0) -> dict:
        """What `viewer` (a seat, or None for a watcher) may see now (R10.1, R10.2)."""
        with self.lock:
            game = self.game
            reveal = self.reveal_for(viewer)
            own = viewer is not None and not game.is_over and game.current_player == viewer
            bots = self.bots
            thinking = None
            if bots.phase in ("waiting", "loading", "thinking") and bots.seat is not None:
                thinking = {"seat": bots.seat, "label": self.labels[bots.seat],
                            "phase": bots.phase,
                            "elapsed_ms": int((time.time() - bots.since) * 1000)}
            log_since = max(0, min(log_since, len(self.log)))
            entries = self.log[log_since:][-MAX_LOG_SENT:]
            view = {
                "kind": "game", "id": self.id, "version": self.version,
                "mode": self.mode, "players": self.players, "edition": self.edition,
                "seed": seed_text(self.seed_for(viewer)),
                "seed_note": self.seed_note(viewer), "origin": self.origin,
                "you": viewer, "round": game.round + 1, "over": game.is_over,
                "current": game.current_player, "decision": game.pending_decision,
                "seats": [{"seat": seat.seat, "label": seat.label,
                           "kind": "person" if seat.human else "agent",
                           "agent": seat.agent, "you": seat.seat == viewer}
                          for seat in self.seats]
                         + ([{"seat": DALE_SEAT, "label": DALE, "kind": "dale", "agent": None,
                              "you": False}] if self.mode == "dale" else []),
                "svg": self.svg(viewer, reveal),
                "market": game.market(),
                "legal": legal_choices(game) if own else None,
                "goal_options": None, "private_goal": None,
                "log": [entry.for_viewer(viewer, reveal, self.labels.get(entry.seat, "?"))
                        for entry in entries],
                "log_since": log_since, "log_from": len(self.log) - len(entries),
                "log_total": len(self.log),
                "bots": {"delay_ms": bots.delay_ms, "paused": bots.paused,
                         "fast_forward": bots.fast_forward, "thinking": thinking,
                         "error": hide_paths(bots.error) if bots.error else None,
                         "present": any(not x.human for x in self.seats)},
                "scores": final_scores_view(game, self.labels) if game.is_over else None,
                "can_undo": self.can_undo(viewer),
                "can_save": viewer is not None and (len(self.humans) <= 1 or game.is_over)
                or (viewer is None and not self.humans),
                "can_download": reveal,
                "has_record": self.has_record,
                "hints": {"on": self.hints, "can_ask": self.can_hint(viewer),
                          "running": self.hint_running,
                          "used": {str(seat): count
                                   for seat, count in self.hints_used_all().items()}},
            }
            if viewer is not None:
                private = int(s.private_goal(game.state, viewer))
                if private >= 0:
                    view["private_goal"] = goal_info(private)
                elif own and game.pending_decision == "keep_goal":
                    view["goal_options"] = [goal_info(int(goal)) for goal in
                                            s.goal_options(game.state, viewer)]
            return view
