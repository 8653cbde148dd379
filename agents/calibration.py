"""Win probabilities you can trust (issue 33, item 4; docs/calibration.md): the
calibration map the review and the hints apply, and the measures of calibration.

The review's win probability of a seat is the mean share of the win (R8.3) over the
search's copies of the game (agents/review.py). How often a reported p actually wins is
measured on held-out games (agents/calibration_data.py, benchmarks/calibration.py); where
it is off, a map fitted on other games corrects it.

The map (`CalibrationMap`): per released model (named by file and SHA-256, so another
model is never corrected with a map it was not fitted for), mode and seat count, a
non-decreasing piecewise-linear function of the raw probability through knots (x, y) from
(0, y0) to (1, y1), fitted by isotonic regression (pool adjacent violators) on the
fitting games. It maps [0, 1] into [0, 1] and never reverses an order. A game's seats'
probabilities sum to 1 before the map; after it, they are divided by their sum, so they
sum to 1 again (a seat's calibrated value then depends a little on the other seats').
Stored as JSON (`MAPS_FILE`, "suburbia-calibration", version `MAPS_VERSION`), read as
plain data, nothing executed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from suburbia_env.errors import ConfigError

MAPS_FILE = Path(__file__).resolve().with_name("calibration_maps.json")
MAPS_FORMAT = "suburbia-calibration"
MAPS_VERSION = 1


# The map -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CurveKey:
    model_sha256: str
    mode: str
    seats: int


@dataclass(frozen=True)
class Curve:
    """One non-decreasing piecewise-linear map of [0, 1] into [0, 1]."""

    xs: np.ndarray
    ys: np.ndarray

    def __call__(self, raw: np.ndarray) -> np.ndarray:
        return np.interp(np.clip(raw, 0.0, 1.0), self.xs, self.ys)


def checked_curve(knots, where: str) -> Curve:
    """The curve of a list of [x, y] knots, refused with the reason unless x runs from 0
    to 1 strictly increasing and y is non-decreasing within [0, 1]."""
    try:
        array = np.array(knots, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: knots must be a list of [x, y] numbers") from None
    if array.ndim != 2 or array.shape[1] != 2 or array.shape[0] < 2:
        raise ConfigError(f"{where}: knots must be at least two [x, y] pairs")
    xs, ys = array[:, 0], array[:, 1]
    if not (np.all(np.isfinite(array)) and xs[0] == 0.0 and xs[-1] == 1.0
            and np.all(np.diff(xs) > 0)):
        raise ConfigError(f"{where}: the knots' x must rise strictly from 0 to 1")
    if not (np.all(np.diff(ys) >= 0) and ys[0] >= 0.0 and ys[-1] <= 1.0):
        raise ConfigError(f"{where}: the knots' y must be non-decreasing within [0, 1]")
    return Curve(xs, ys)


class CalibrationMap:
    """The curves of one model (the module docstring); an empty map is the identity."""

    def __init__(self, curves: dict[CurveKey, Curve] | None = None, source: str = "",
                 entries: dict[CurveKey, dict] | None = None):
        self.curves = curves or {}
        self.source = source
        self.entries = entries or {}

    def curve(self, mode: str, seats: int) -> tuple[CurveKey, Curve] | None:
        for key, curve in self.curves.items():
            if key.mode == mode and key.seats == seats:
                return key, curve
        return None

    def apply(self, mode: str, seats: int, raw: np.ndarray) -> np.ndarray:
        """float[row, seat] of calibrated probabilities, each row summing to 1 as the raw
        rows do (module docstring); the raw values themselves if no curve fits."""
        found = self.curve(mode, seats)
        raw = np.asarray(raw, dtype=np.float64)
        if found is None:
            return raw
        mapped = found[1](raw)
        return renormalised(mapped, raw)

    def describe(self, mode: str, seats: int) -> dict | None:
        """What the files say about the map applied, None if none applies."""
        found = self.curve(mode, seats)
        if found is None:
            return None
        entry = self.entries[found[0]]
        return {"file": Path(self.source).name, "format": MAPS_FORMAT,
                "version": MAPS_VERSION, "mode": mode, "seats": seats,
                "method": "isotonic", "fitted_games": entry.get("games"),
                "fitted_points": entry.get("points")}


def renormalised(mapped: np.ndarray, raw: np.ndarray) -> np.ndarray:
    """Rows divided by their sum, so every seat's probabilities sum to what the raw ones
    do (1); a row whose mapped values are all 0 keeps the raw values."""
    mapped = np.atleast_2d(mapped)
    totals = mapped.sum(axis=1, keepdims=True)
    raw_totals = np.atleast_2d(raw).sum(axis=1, keepdims=True)
    safe = np.where(totals > 0, totals, 1.0)
    result = np.where(totals > 0, mapped * raw_totals / safe, np.atleast_2d(raw))
    return result.reshape(np.shape(raw))


IDENTITY = CalibrationMap()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_maps(path: Path = MAPS_FILE) -> dict:
    """The maps file as plain data, refused with the reason if it is not one."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ConfigError(f"{path}: not a calibration file ({error})") from None
    if not isinstance(document, dict) or document.get("format") != MAPS_FORMAT:
        raise ConfigError(f"{path}: format must be {MAPS_FORMAT!r}")
    if document.get("version") != MAPS_VERSION:
        raise ConfigError(f"{path}: version {document.get('version')!r} is not "
                          f"{MAPS_VERSION}, the version this code reads")
    if not isinstance(document.get("maps"), list):
        raise ConfigError(f"{path}: maps must be a list")
    return document


def calibration_for(model_path: Path, path: Path = MAPS_FILE) -> CalibrationMap:
    """The curves fitted for this model file (matched by its SHA-256); the identity when
    there is no maps file or no curve for it."""
    if not Path(path).exists():
        return IDENTITY
    document = read_maps(path)
    sha = None
    curves, entries = {}, {}
    for index, entry in enumerate(document["maps"]):
        where = f"{path}: maps[{index}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where} must be an object")
        if sha is None:
            sha = file_sha256(model_path) if Path(model_path).is_file() else ""
        if entry.get("model_sha256") != sha:
            continue
        key = CurveKey(sha, str(entry.get("mode")), int(entry.get("seats", 0)))
        curves[key] = checked_curve(entry.get("knots"), where)
        entries[key] = entry
    return CalibrationMap(curves, str(path), entries) if curves else IDENTITY


# Fitting -----------------------------------------------------------------------------------


def isotonic_knots(raw: np.ndarray, outcome: np.ndarray, levels: int = 16
                   ) -> list[list[float]]:
    """Knots of the non-decreasing fit of `outcome` on `raw`, from x = 0 to x = 1.

    The points are first grouped by raw value rounded to a multiple of 1/`levels` (the
    review's values are means over 16 copies: multiples of 1/16 but for shared wins), so
    no knot rests on a handful of points; each group is one knot at its mean raw value,
    and pool adjacent violators makes the groups' mean outcomes non-decreasing. The ends
    extend the first and last fitted values flat."""
    raw = np.asarray(raw, dtype=np.float64)
    outcome = np.asarray(outcome, dtype=np.float64)
    level = np.rint(np.clip(raw, 0.0, 1.0) * levels).astype(np.int64)
    present, inverse = np.unique(level, return_inverse=True)
    counts = np.bincount(inverse).astype(np.float64)
    xs = np.bincount(inverse, weights=raw) / counts
    sums = np.bincount(inverse, weights=outcome)
    blocks: list[list[float]] = []  # [points, sum of outcomes, first group, last group]
    for index in range(present.size):
        blocks.append([counts[index], sums[index], index, index])
        while len(blocks) > 1 and (blocks[-2][1] / blocks[-2][0]
                                   > blocks[-1][1] / blocks[-1][0]):
            last = blocks.pop()
            blocks[-1][0] += last[0]
            blocks[-1][1] += last[1]
            blocks[-1][3] = last[3]
    fitted = np.empty(present.size)
    for points, total, first, last in blocks:
        fitted[int(first):int(last) + 1] = total / points
    knots = [[round(float(x), 6), round(float(min(max(y, 0.0), 1.0)), 6)]
             for x, y in zip(xs, fitted)]
    if knots[0][0] > 0.0:
        knots.insert(0, [0.0, knots[0][1]])
    else:
        knots[0][0] = 0.0
    if knots[-1][0] < 1.0:
        knots.append([1.0, knots[-1][1]])
    else:
        knots[-1][0] = 1.0
    return knots


# Measures ----------------------------------------------------------------------------------


@dataclass
class Bin:
    low: float
    high: float
    count: int
    mean_reported: float
    mean_outcome: float
    low_outcome: float = float("nan")
    high_outcome: float = float("nan")
    """The 95% interval of `mean_outcome` (bootstrap over games)."""


def bin_index(reported: np.ndarray, bins: int) -> np.ndarray:
    """The equal-width bin of each probability, 0..bins-1 (1.0 in the last bin)."""
    return np.minimum((np.asarray(reported, dtype=np.float64) * bins).astype(np.int64),
                      bins - 1)


def calibration_error(reported: np.ndarray, outcome: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error: over equal-width bins, the share of points in the bin
    times |mean outcome - mean reported|."""
    reported = np.asarray(reported, dtype=np.float64)
    outcome = np.asarray(outcome, dtype=np.float64)
    if reported.size == 0:
        return float("nan")
    index = bin_index(reported, bins)
    sum_reported = np.bincount(index, weights=reported, minlength=bins)
    sum_outcome = np.bincount(index, weights=outcome, minlength=bins)
    return float(np.abs(sum_outcome - sum_reported).sum() / reported.size)


def reliability(reported: np.ndarray, outcome: np.ndarray, groups: np.ndarray,
                bins: int = 10, resamples: int = 1000, seed: int = 0
                ) -> tuple[list[Bin], float, tuple[float, float]]:
    """The reliability bins, the ECE and its 95% interval. Intervals come from a
    bootstrap over `groups` (games): the points of one game share its outcome, so they
    are resampled together, never one by one."""
    reported = np.asarray(reported, dtype=np.float64)
    outcome = np.asarray(outcome, dtype=np.float64)
    groups = np.asarray(groups)
    index = bin_index(reported, bins)
    result = []
    for number in range(bins):
        inside = index == number
        result.append(Bin(number / bins, (number + 1) / bins, int(inside.sum()),
                          float(reported[inside].mean()) if inside.any() else float("nan"),
                          float(outcome[inside].mean()) if inside.any() else float("nan")))
    error = calibration_error(reported, outcome, bins)
    names, group_of = np.unique(groups, return_inverse=True)
    members = [np.flatnonzero(group_of == g) for g in range(names.size)]
    generator = np.random.default_rng(seed)
    errors, bin_means = [], [[] for _ in range(bins)]
    for _ in range(resamples):
        chosen = np.concatenate([members[g] for g in
                                 generator.integers(0, names.size, names.size)])
        errors.append(calibration_error(reported[chosen], outcome[chosen], bins))
        chosen_index = index[chosen]
        counts = np.bincount(chosen_index, minlength=bins)
        sums = np.bincount(chosen_index, weights=outcome[chosen], minlength=bins)
        for number in range(bins):
            if counts[number]:
                bin_means[number].append(sums[number] / counts[number])
    for number, means in enumerate(bin_means):
        if result[number].count and means:
            result[number].low_outcome = float(np.percentile(means, 2.5))
            result[number].high_outcome = float(np.percentile(means, 97.5))
    interval = (float(np.percentile(errors, 2.5)), float(np.percentile(errors, 97.5)))
    return result, error, interval
