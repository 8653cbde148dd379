"""One progress line for a recipe run: the stage, how far it is and the time left, from
the first second. On a terminal the line is redrawn in place every second; otherwise
(a log file, a pipe) a plain line is printed when a stage starts, at every tenth of it
and at least every `plain_every` seconds while it runs.

Before a stage has measured its own rate the time left comes from rough rates per stage
kind on the project's 2-core machine (`prior_seconds`), marked "~"; then from the rate
measured so far in the stage.
"""

from __future__ import annotations

import sys
import threading
import time

# Rough rates on the project's 2-core machine (the recipes' timed runs, docs/performance.md
# "Time to strength"), for the estimate of a stage that has not measured its own rate yet.
GREEDY_GAMES_PER_SECOND_PER_WORKER = 60.0
SEARCH_GAMES_PER_SECOND_PER_WORKER = 2.5
DECISIONS_PER_GAME = 24
FIT_DECISION_EPOCHS_PER_SECOND = 2500.0
FAST_FIT_DECISION_EPOCHS_PER_SECOND = 40000.0
FAST_FIT_ENCODED_DECISIONS_PER_SECOND = 15000.0
PPO_STEPS_PER_SECOND = 1000.0
FAST_PPO_STEPS_PER_SECOND = {"dale": 12000.0, "self_play": 1200.0}
DALE_EVALUATION_GAMES_PER_SECOND = 100.0
GREEDY_EVALUATION_GAMES_PER_SECOND = 15.0


def evaluation_seconds(against: str, games: int, players: int = 2) -> float:
    if against == "dale":
        return games / DALE_EVALUATION_GAMES_PER_SECOND
    return games * players / 2 / GREEDY_EVALUATION_GAMES_PER_SECOND


def prior_seconds(stage, recipe=None) -> float:
    """A first estimate of a stage's wall time (recipe.Stage of `recipe`), before it has
    run."""
    if stage.kind == "record":
        per_worker = (SEARCH_GAMES_PER_SECOND_PER_WORKER if "rollout" in stage.demonstrator
                      else GREEDY_GAMES_PER_SECOND_PER_WORKER)
        if stage.demonstrator.endswith(",8"):
            per_worker /= 2
        players = 1 + len(stage.opponents)
        return stage.games * max(1, players / 2) / (per_worker * min(stage.workers, 2))
    if stage.kind == "fit":
        games = [recipe.stage(name).games for name in stage.demonstrations
                 if recipe is not None and not name.endswith(".npz")]
        decisions = (sum(games) if games else 10_000) * DECISIONS_PER_GAME
        if stage.learner == "fast":
            seconds = (decisions / FAST_FIT_ENCODED_DECISIONS_PER_SECOND
                       + decisions * stage.epochs / FAST_FIT_DECISION_EPOCHS_PER_SECOND)
        else:
            seconds = decisions * stage.epochs / FIT_DECISION_EPOCHS_PER_SECOND
    elif stage.kind == "ppo":
        total = stage.settings["total_timesteps"]
        seconds = total / (FAST_PPO_STEPS_PER_SECOND.get(stage.settings.get("mode", "dale"),
                                                         PPO_STEPS_PER_SECOND)
                           if stage.learner == "fast" else PPO_STEPS_PER_SECOND)
        if stage.eval_every:
            seconds += (total // stage.eval_every) * evaluation_seconds("dale", stage.eval_games)
    else:
        seconds = 0.0
    if stage.gate is not None:
        seconds += evaluation_seconds(stage.gate.against, stage.gate.games, stage.gate.players)
    return seconds


def duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class ProgressLine:
    """The run's progress line. `stage()` starts a stage with its estimate, `update()`
    reports its progress; a background thread redraws the line every second."""

    def __init__(self, stream=None, tty: bool | None = None, plain_every: float = 30.0):
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty() if tty is None else tty
        self.plain_every = plain_every
        self.lock = threading.Lock()
        self.label = ""
        self.unit = ""
        self.done = 0.0
        self.total = 1.0
        self.stage_started = time.monotonic()
        self.done_at_start = 0.0
        self.estimate = 0.0
        self.later_seconds = 0.0
        self.note = ""
        self.last_plain = 0.0
        self.last_decile = -1
        self.last_drawn = 0.0
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._tick, daemon=True)
        self.thread.start()

    def stage(self, label: str, unit: str, total: float, done: float, estimate: float,
              later_seconds: float) -> None:
        """A stage begins (or resumes with `done` of `total` already done): `estimate` is
        its prior wall time for the whole stage, `later_seconds` the estimate of the stages
        after it."""
        with self.lock:
            self.label, self.unit, self.total, self.done = label, unit, max(total, 1), done
            self.done_at_start = done
            self.estimate, self.later_seconds = estimate, later_seconds
            self.stage_started = time.monotonic()
            self.note = ""
        self.draw(force=True)

    def update(self, done: float, note: str | None = None) -> None:
        """`done` of the stage's total; `note` (kept until changed, "" to clear) ends the
        line."""
        with self.lock:
            self.done = done
            if note is not None:
                self.note = note
        self.draw()

    def stage_left(self) -> tuple[float, bool]:
        """Seconds left in the stage and whether that is measured (not the prior)."""
        elapsed = time.monotonic() - self.stage_started
        progressed = self.done - self.done_at_start
        left = self.total - self.done
        if progressed > 0 and elapsed > 0:
            return left * elapsed / progressed, True
        return max(self.estimate * left / self.total - elapsed, 0.0), False

    def text(self) -> str:
        with self.lock:
            left, measured = self.stage_left()
            share = 100.0 * self.done / self.total
            elapsed = time.monotonic() - self.stage_started
            if not measured and elapsed > self.estimate:
                stage_eta = f"? (over its estimate of {duration(self.estimate)})"
                run_eta = f"~{duration(self.later_seconds)} after this stage"
            else:
                stage_eta = f"{'' if measured else '~'}{duration(left)}"
                run_eta = f"~{duration(left + self.later_seconds)}"
            text = (f"[{self.label}] {int(self.done):,}/{int(self.total):,} {self.unit} "
                    f"({share:.0f}%), stage ETA {stage_eta}, run ETA {run_eta}")
            return text + (f", {self.note}" if self.note else "")

    def draw(self, force: bool = False) -> None:
        """Redraw the line on a terminal (at most 5 times a second); in a log, print it at
        a new stage, a new tenth of it, or after `plain_every` seconds."""
        now = time.monotonic()
        if self.tty:
            if force or now - self.last_drawn >= 0.2:
                self.stream.write("\r" + self.text() + "\x1b[K")
                self.stream.flush()
                self.last_drawn = now
            return
        decile = int(10 * self.done / self.total)
        if force or now - self.last_plain >= self.plain_every or decile != self.last_decile:
            self.stream.write(self.text() + "\n")
            self.stream.flush()
            self.last_plain, self.last_decile = now, decile

    def message(self, text: str) -> None:
        """A line of its own (an evaluation, a stage done), above the progress line."""
        with self.lock:
            if self.tty:
                self.stream.write("\r\x1b[K")
            self.stream.write(text + "\n")
            self.stream.flush()
        if self.tty and self.label:
            self.draw(force=True)

    def _tick(self) -> None:
        while not self.stopped.wait(1.0):
            if self.label:
                try:
                    self.draw()
                except (ValueError, OSError):  # the stream closed under us
                    return

    def close(self) -> None:
        self.stopped.set()
        if self.tty and self.label:
            self.stream.write("\n")
            self.stream.flush()
