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
