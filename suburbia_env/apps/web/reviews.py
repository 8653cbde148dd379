"""Reviews of finished games for the web server (issue 33, docs/review.md): the search
evaluates a replay's decisions in one worker thread, one review at a time, and the page
asks how far it is.

A review takes seconds to a minute of CPU (agents/review.py), so a request never waits
for it: it is queued, and its progress and result are read by polling. A finished review is
kept in the store beside its replay (a restarted server answers it) and deleted with it.
Only finished games are reviewed; a review of a finished game may show every hidden fact
(the final scores and private goals already shown at the end of a replay).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

from ...errors import SuburbiaError
from .agent_specs import hide_paths
from .errors import WebError

KEPT = 32
"""Reviews kept; the oldest is forgotten when one more is asked for."""
DEFAULT_CANDIDATES = 4
DEFAULT_SAMPLES = 16
MAX_CANDIDATES = 8
MAX_SAMPLES = 32
"""Bounds of the settings a request may ask for: a review's time grows with both."""


class ReviewJob:
    """One replay's review: its status (queued, running, done, failed), the progress lines
    printed so far, the review document (agents/review_files.review_document) or the error
    that stopped it."""

    def __init__(self, record: dict | None, candidates: int, samples: int, seed: int | None,
                 on_done=None):
        self.record = record
        self.on_done = on_done  # called with the job once done: the store keeps it
        self.candidates = candidates
        self.samples = samples
        self.seed = seed
        self.status = "queued"
        self.progress: list[str] = []
        self.document: dict | None = None
        self.csv: str | None = None
        self.mistakes: dict[str, list[int]] = {}
        self.error: str | None = None

    def run(self) -> None:
        from agents.review import SearchSettings, review_record
        from agents.review_files import decisions_csv, review_document
        self.status = "running"
        try:
            review = review_record(self.record, settings=SearchSettings(
                candidates=self.candidates, samples=self.samples), seed=self.seed,
                progress=self.progress.append)
            self.seed = review.redraw_seed
            self.document = review_document(review)
            self.csv = decisions_csv(review)
            self.mistakes = {str(seat): [decision.index for decision in review.mistakes(seat)]
                             for seat in range(review.seats)}
            self.status = "done"
            if self.on_done is not None:
                self.on_done(self)
        except ModuleNotFoundError as error:
            self.error = (f"the server cannot review games: the module {error.name!r} is "
                          f"missing (pip install -e \".[train]\")")
            self.status = "failed"
        except (SuburbiaError, ValueError) as error:
            self.error = hide_paths(str(error))
            self.status = "failed"
        except Exception as error:  # a bug: said, never left "running" forever
            self.error = f"internal error ({type(error).__name__}) while reviewing"
            self.status = "failed"

    def kept(self) -> dict:
        """What the store keeps of a finished review (database.py `reviews`)."""
        return {"candidates": self.candidates, "samples": self.samples,
                "seed": str(self.seed), "progress": self.progress, "document": self.document,
                "csv": self.csv, "mistakes": self.mistakes}

    @classmethod
    def from_kept(cls, data: dict) -> "ReviewJob":
        job = cls(None, int(data["candidates"]), int(data["samples"]), int(data["seed"]))
        job.status = "done"
        job.progress = list(data["progress"])
        job.document, job.csv, job.mistakes = data["document"], data["csv"], data["mistakes"]
        return job

    def answer(self) -> dict:
        answer = {"status": self.status, "progress": list(self.progress),
                  "candidates": self.candidates, "samples": self.samples}
        if self.status == "done":
            answer["review"] = self.document
            answer["redraw_seed"] = str(self.seed)  # 64 bits: more than a JS number holds
            answer["mistakes"] = self.mistakes
        if self.error is not None:
            answer["error"] = self.error
        return answer


class ReviewJobs:
    """The server's reviews, by replay id, run one at a time by one worker thread; each
    finished one is kept in the store beside its replay (`database`), the last KEPT in
    memory too."""

    def __init__(self, database=None):
        self._database = database
        self._jobs: OrderedDict[str, ReviewJob] = OrderedDict()
        self._lock = threading.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="review")

    def start(self, replay_id: str, record: dict | None, over: bool,
              candidates: int | None = None, samples: int | None = None,
              seed: int | None = None) -> dict:
        """Queue the review of a replay, or answer the one kept for it when the settings
        given (None: any) are its own. `seed`: the redraws' seed, to make a review again
        exactly; none given, the search draws 64 bits from the operating system."""
        if record is None:
            raise WebError(409, "this game has no seed-and-moves record (it began from a "
                                "loaded state, or an undo dealt its hidden stacks anew): it "
                                "cannot be reviewed")
        if not over:
            raise WebError(409, "the record ends before the game is over: a review is of a "
                                "finished game")
        with self._lock:
            job = self._job(replay_id)
            asked = {"candidates": candidates, "samples": samples, "seed": seed}
            other = job is not None and any(value is not None and getattr(job, name) != value
                                            for name, value in asked.items())
            if other and job.status in ("queued", "running"):  # one at a time per replay
                raise WebError(409, "this replay's review with other settings is under way: "
                                    "ask again when it is done")
            if job is None or job.status == "failed" or other:
                job = ReviewJob(record, candidates or DEFAULT_CANDIDATES,
                                samples or DEFAULT_SAMPLES, seed,
                                on_done=lambda done: self._keep(replay_id, done))
                self._remember(replay_id, job)
                self._worker.submit(job.run)
            return job.answer()

    def _job(self, replay_id: str) -> ReviewJob | None:
        """The replay's review in memory, else the one its store keeps (under the lock)."""
        job = self._jobs.get(replay_id)
        if job is None and self._database is not None:
            kept = self._database.load_review(replay_id)
            if kept is not None:
                job = ReviewJob.from_kept(kept)
                self._remember(replay_id, job)
        return job

    def _remember(self, replay_id: str, job: ReviewJob) -> None:
        self._jobs[replay_id] = job
        self._jobs.move_to_end(replay_id)
        while len(self._jobs) > KEPT:
            self._jobs.popitem(last=False)

    def _keep(self, replay_id: str, job: ReviewJob) -> None:
        if self._database is not None:
            self._database.save_review(replay_id, job.kept())

    def answer(self, replay_id: str) -> dict:
        with self._lock:
            job = self._job(replay_id)
        return job.answer() if job is not None else {"status": "none"}

    def files(self, replay_id: str) -> dict[str, tuple[bytes, str]]:
        """The finished review's files as `suburbia review` writes them (docs/review.md):
        decisions.json and decisions.csv, each (content, media type)."""
        with self._lock:
            job = self._job(replay_id)
        if job is None or job.status != "done":
            raise WebError(409, "this replay has no finished review: ask for one first "
                                "(POST /api/replays/{id}/review) and wait until it is done")
        return {"decisions.json": (json.dumps(job.document, indent=1).encode() + b"\n",
                                   "application/json"),
                "decisions.csv": (job.csv.encode(), "text/csv; charset=utf-8")}

    def close(self) -> None:
        self._worker.shutdown(wait=False, cancel_futures=True)
