"""Small statistics for results tables: Wilson intervals for win rates."""

from __future__ import annotations

import math


def wilson_interval(successes: float, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) with no trials.

    Shared wins may count as half a success, as in win-rate tables.
    """
    if trials <= 0:
        return 0.0, 1.0
    proportion = successes / trials
    denominator = 1 + z * z / trials
    centre = (proportion + z * z / (2 * trials)) / denominator
    half_width = z * math.sqrt(proportion * (1 - proportion) / trials
                               + z * z / (4 * trials * trials)) / denominator
    # The interval holds the proportion itself, which rounding can leave out at 0 or 1.
    return (max(0.0, min(proportion, centre - half_width)),
            min(1.0, max(proportion, centre + half_width)))


def stratified_difference(values, in_group, strata=None, weights=None):
    """Difference of mean `values` (shape (seats, k)) between the seats `in_group` marks
    and the others, within each stratum, combined with Mantel-Haenszel weights
    n1 n0 / (n1 + n0): a difference that strata of unequal make-up (e.g. agents that win
    more and play differently) cannot produce on their own. `weights` (seats,) counts
    each seat that many times (a bootstrap resample). NaN where no stratum has both
    groups."""
    import numpy as np
    values = np.asarray(values, dtype=np.float64)
    values = values.reshape(len(values), -1) if values.ndim < 2 else values
    in_group = np.asarray(in_group, dtype=bool)
    strata = np.zeros(len(in_group), dtype=np.int64) if strata is None else np.asarray(strata)
    weights = np.ones(len(in_group)) if weights is None else np.asarray(weights, np.float64)
    total = np.zeros(values.shape[1])
    weight_sum = 0.0
    for stratum in np.unique(strata):
        here = strata == stratum
        first, second = weights * (here & in_group), weights * (here & ~in_group)
        n1, n0 = first.sum(), second.sum()
        if n1 == 0 or n0 == 0:
            continue
        weight = n1 * n0 / (n1 + n0)
        total += weight * (first @ values / n1 - second @ values / n0)
        weight_sum += weight
    return total / weight_sum if weight_sum else np.full(values.shape[1], np.nan)


def game_bootstrap_difference(values, in_group, games, strata=None, resamples: int = 1000,
                              seed: int = 0, level: float = 0.95):
    """`stratified_difference` with a percentile bootstrap interval that resamples whole
    games (the seats of one game are not independent: one of them wins). Returns
    (estimate, low, high), arrays of shape (k,)."""
    import numpy as np
    games = np.asarray(games)
    names, game_index = np.unique(games, return_inverse=True)
    estimate = stratified_difference(values, in_group, strata)
    generator = np.random.default_rng(seed)
    draws = np.empty((resamples, estimate.size))
    for number in range(resamples):
        counts = np.bincount(generator.integers(0, len(names), len(names)),
                             minlength=len(names))
        draws[number] = stratified_difference(values, in_group, strata, counts[game_index])
    tail = (1 - level) / 2 * 100
    low, high = np.full(estimate.size, np.nan), np.full(estimate.size, np.nan)
    some = ~np.isnan(draws).all(axis=0)  # columns no resample can compare stay NaN
    if some.any():
        low[some], high[some] = np.nanpercentile(draws[:, some], [tail, 100 - tail], axis=0)
    return estimate, low, high


def newcombe_interval(successes_1: float, trials_1: int, successes_2: float, trials_2: int,
                      z: float = 1.959964) -> tuple[float, float, float]:
    """The difference of two independent proportions p1 - p2 with Newcombe's hybrid
    score interval (1998, method 10), built from the two Wilson intervals: returns
    (difference, low, high); NaN when either group is empty."""
    if trials_1 <= 0 or trials_2 <= 0:
        return math.nan, math.nan, math.nan
    first, second = successes_1 / trials_1, successes_2 / trials_2
    low_1, high_1 = wilson_interval(successes_1, trials_1, z)
    low_2, high_2 = wilson_interval(successes_2, trials_2, z)
    difference = first - second
    return (difference,
            difference - math.sqrt((first - low_1) ** 2 + (high_2 - second) ** 2),
            difference + math.sqrt((high_1 - first) ** 2 + (second - low_2) ** 2))
