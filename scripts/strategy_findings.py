"""The strategy study's numbers (issue 33, item 6), computed from the data of
scripts/strategy_data.py: one home for them, shared by notebooks/strategy.ipynb (which
draws the pictures and writes notebooks/data/strategy-findings.json) and by the test
that checks docs/strategy.md quotes what they are (tests/docs/test_strategy_study.py).

    python scripts/strategy_findings.py              # print the findings
    python scripts/strategy_findings.py --write      # and write the findings file

Values are the review's (agents/review.py): for a candidate move at a decision, the
deciding seat's expected final margin (population points over the best other seat, R8.2)
and win probability after it. Comparisons are paired within a decision (the same redraws
serve every candidate, so the position's luck cancels): the kind of move studied, taken
as the policy's most probable candidate of that kind, against the policy's most probable
candidate of the other kinds. Intervals are 95%: bootstrap over games (decisions of one
game are not independent), Wilson for win rates of games. A finding is established when
its interval excludes 0 (or the fair share, for seats); the others are listed as not
established.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "notebooks" / "data" / "strategy"
PAGE = ROOT / "docs" / "strategy.md"
PAGE_START = "<!-- findings: written by python scripts/strategy_findings.py --update-page -->"
PAGE_END = "<!-- findings: end -->"
DATA_START = "<!-- data: written by python scripts/strategy_findings.py --update-page -->"
DATA_END = "<!-- data: end -->"
TAKEAWAY_START = ("<!-- takeaways: written by python scripts/strategy_findings.py "
                  "--update-page -->")
TAKEAWAY_END = "<!-- takeaways: end -->"
FINDINGS_FILE = ROOT / "notebooks" / "data" / "strategy-findings.json"
BOOTSTRAP = 2000
BOOTSTRAP_SEED = 20261127
Z = 1.959964
MINIMUM_GAMES = 10
MINIMUM_ROWS = 20
MINIMUM_CHOICES = 8
"""A goal is listed once it was one of the two drawn options this many times."""


def load(folder: Path = DATA) -> tuple[pd.DataFrame, list[dict]]:
    """Every candidate row and every game of the data folder's finished chunks."""
    frames, games = [], []
    for path in sorted(folder.glob("games-*.jsonl.gz")):
        chunk = path.name[len("games-"):-len(".jsonl.gz")]
        candidates = folder / f"candidates-{chunk}.csv.gz"
        if not candidates.exists():
            continue
        frames.append(pd.read_csv(candidates, keep_default_na=False,
                                  na_values={"col": [""], "row": [""]}))
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            games.extend(json.loads(line) for line in handle if line.strip())
    if not frames:
        raise FileNotFoundError(f"no finished chunk of strategy data in {folder}")
    return pd.concat(frames, ignore_index=True), games


def wilson(successes: float, trials: int) -> tuple[float, float]:
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + Z * Z / (2 * trials)) / (1 + Z * Z / trials)
    half = Z * math.sqrt(p * (1 - p) / trials + Z * Z / (4 * trials * trials)) / (1 + Z * Z / trials)
    return centre - half, centre + half


def bootstrap_mean(values, games, seed: int = BOOTSTRAP_SEED) -> dict:
    """Mean of `values` with a 95% bootstrap interval resampling whole games."""
    values = np.asarray(values, dtype=np.float64)
    games = np.asarray(games)
    if values.size == 0:
        return {"mean": float("nan"), "low": float("nan"), "high": float("nan"), "n": 0,
                "games": 0}
    labels, index = np.unique(games, return_inverse=True)
    sums = np.bincount(index, weights=values)
    counts = np.bincount(index).astype(np.float64)
    generator = np.random.default_rng(seed)
    picks = generator.integers(0, labels.size, size=(BOOTSTRAP, labels.size))
    means = sums[picks].sum(axis=1) / np.maximum(counts[picks].sum(axis=1), 1.0)
    low, high = np.quantile(means, [0.025, 0.975])
    return {"mean": float(values.mean()), "low": float(low), "high": float(high),
            "n": int(values.size), "games": int(labels.size)}


def bootstrap_ratio(numerator, denominator, games, seed: int = BOOTSTRAP_SEED) -> dict:
    """sum(numerator) / sum(denominator) (a rate per unit, e.g. final margin per step of
    goal lead) with a 95% bootstrap interval resampling whole games."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    if numerator.size == 0 or denominator.sum() == 0:
        return {"mean": float("nan"), "low": float("nan"), "high": float("nan"), "n": 0,
                "games": 0}
    labels, index = np.unique(np.asarray(games), return_inverse=True)
    tops = np.bincount(index, weights=numerator)
    bottoms = np.bincount(index, weights=denominator)
    generator = np.random.default_rng(seed)
    picks = generator.integers(0, labels.size, size=(BOOTSTRAP, labels.size))
    ratios = tops[picks].sum(axis=1) / np.maximum(bottoms[picks].sum(axis=1), 1e-9)
    low, high = np.quantile(ratios, [0.025, 0.975])
    return {"mean": float(numerator.sum() / denominator.sum()), "low": float(low),
            "high": float(high), "n": int(numerator.size), "games": int(labels.size)}


MONEY_BANDS = (("$0-4", 0, 4), ("$5-9", 5, 9), ("$10-14", 10, 14), ("$15 or more", 15, 999))
ROUND_BANDS = (("rounds 1-4", 1, 4), ("rounds 5-8", 5, 8), ("rounds 9-12", 9, 12),
               ("rounds 13+", 13, 99))
STANDINGS = (("behind by 3 or more", -999, -3), ("behind by 1-2", -2, -1), ("level", 0, 0),
             ("ahead", 1, 999))
OWNED_BANDS = (("no", 0, 0), ("1-2", 1, 2), ("3-4", 3, 4), ("5 or more", 5, 999))
TYPES = ("residential", "commercial", "civic", "industrial")


def decision_key(frame: pd.DataFrame) -> pd.Series:
    return frame["game"].astype(str) + ":" + frame["decision"].astype(str)


def representatives(frame: pd.DataFrame, chosen: pd.Series) -> pd.DataFrame:
    """Per decision with candidates both in and out of `chosen`: the policy's most probable
    candidate of each side, and the difference (in minus out) of margin and win."""
    frame = frame.assign(_key=decision_key(frame), _in=chosen.values)
    ordered = frame.sort_values(["_key", "policy_probability"], ascending=[True, False])
    first = ordered.drop_duplicates(["_key", "_in"])
    inside = first[first["_in"]].set_index("_key")
    outside = first[~first["_in"]].set_index("_key")
    both = inside.join(outside[["margin", "win", "move"]].add_suffix("_other"), how="inner")
    both["d_margin"] = both["margin"] - both["margin_other"]
    both["d_win"] = both["win"] - both["win_other"]
    return both.reset_index()


def turns(candidates: pd.DataFrame) -> pd.DataFrame:
    return candidates[candidates["decision_kind"] == "turn"]


def signed(value: float, digits: int = 1) -> str:
    return f"{value:+.{digits}f}"


def interval_text(result: dict, digits: int = 1, unit: str = "") -> str:
    if not result["n"]:
        return "no data"
    return (f"{signed(result['mean'], digits)}{unit} [{signed(result['low'], digits)}, "
            f"{signed(result['high'], digits)}]")


def established(result: dict) -> bool:
    """The interval excludes 0, from enough games for a bootstrap to mean something."""
    return (result["games"] >= MINIMUM_GAMES and result["n"] >= MINIMUM_ROWS
            and (result["low"] > 0 or result["high"] < 0))


def article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


class Findings:
    """The findings in the order they are written, each with its sentence."""

    def __init__(self):
        self.items: dict[str, dict] = {}

    def add(self, key: str, result: dict, sentence: str, is_established: bool) -> None:
        self.items[key] = {**{k: (None if isinstance(v, float) and math.isnan(v)
                                  else round(float(v), 4) if isinstance(v, float)
                                  else int(v) if isinstance(v, (np.integer, bool)) else v)
                              for k, v in result.items()},
                           "established": bool(is_established), "text": sentence}

    def established(self) -> list[str]:
        return [item["text"] for item in self.items.values() if item["established"]]

    def not_established(self) -> list[str]:
        return [item["text"] for item in self.items.values() if not item["established"]]


def kind_comparison(candidates: pd.DataFrame, kind: str) -> pd.DataFrame:
    frame = turns(candidates)
    return representatives(frame, frame["move_kind"] == kind)


KIND_WORDS = {"lake": "a lake", "invest": "an investment", "basic": "a basic tile",
              "buy": "buying a market tile"}


def kind_findings(candidates: pd.DataFrame, findings: Findings) -> dict[str, pd.DataFrame]:
    """A lake, an investment, a basic tile, a market tile: against the other kinds."""
    tables = {}
    for kind in ("lake", "invest", "basic", "buy"):
        paired = kind_comparison(candidates, kind)
        tables[kind] = paired
        overall = bootstrap_mean(paired["d_margin"], paired["game"])
        findings.add(f"{kind}_overall", overall,
                     f"{KIND_WORDS[kind].capitalize()} against the best other kind of move: "
                     f"{interval_text(overall)} final margin ({plural(overall['n'], 'decision')}).",
                     established(overall))
        for phase in ("A", "B", "C"):
            part = paired[paired["phase"] == phase]
            result = bootstrap_mean(part["d_margin"], part["game"])
            findings.add(f"{kind}_phase_{phase}", result,
                         f"{KIND_WORDS[kind].capitalize()} in stack {phase}: "
                         f"{interval_text(result)} final margin against the best other "
                         f"kind ({plural(result['n'], 'decision')}).", established(result))
    for kind in ("lake", "invest", "basic", "buy"):
        paired = tables[kind]
        for label, low, high in MONEY_BANDS:
            part = paired[(paired["money"] >= low) & (paired["money"] <= high)]
            result = bootstrap_mean(part["d_margin"], part["game"])
            findings.add(f"{kind}_money_{low}", result,
                         f"{KIND_WORDS[kind].capitalize()} with {label} in hand: "
                         f"{interval_text(result)} final margin against the best other kind "
                         f"({plural(result['n'], 'decision')}).", established(result))
    investments = tables["invest"]
    for label, low, high in ROUND_BANDS:
        part = investments[(investments["round"] >= low) & (investments["round"] <= high)]
        result = bootstrap_mean(part["d_margin"], part["game"])
        findings.add(f"invest_round_{low}", result,
                     f"An investment in {label}: {interval_text(result)} final margin "
                     f"against the best other kind ({plural(result['n'], 'decision')}).",
                     established(result))
    for tile_type in TYPES:
        part = investments[investments["tile_type"] == tile_type]
        result = bootstrap_mean(part["d_margin"], part["game"])
        top = part["tile"].value_counts()
        result["commonest_tile"] = str(top.index[0]) if len(top) else ""
        result["commonest_share"] = float(top.iloc[0] / len(part)) if len(top) else 0.0
        findings.add(f"invest_in_{tile_type}", result,
                     f"An investment in {article(tile_type)} tile: {interval_text(result)} "
                     f"final margin against the best other kind "
                     f"({plural(result['n'], 'decision')}).", established(result))
    basics = tables["basic"]
    for tile in sorted(basics["tile"].unique()):
        for phase in ("A", "B", "C"):
            part = basics[(basics["tile"] == tile) & (basics["phase"] == phase)]
            if len(part) < MINIMUM_ROWS:
                continue
            result = bootstrap_mean(part["d_margin"], part["game"])
            findings.add(f"basic_{tile}_{phase}", result,
                         f"The basic {tile} in stack {phase}: {interval_text(result)} final "
                         f"margin against the best other kind "
                         f"({plural(result['n'], 'decision')}).", established(result))
    lakes = tables["lake"]
    around = lakes[[f"adjacent_{name}" for name in
                    ("residential", "commercial", "civic", "industrial", "lake")]].sum(axis=1)
    for label, low, high in (("0-1", 0, 1), ("2", 2, 2), ("3+", 3, 99)):
        part = lakes[(around >= low) & (around <= high)]
        result = bootstrap_mean(part["d_margin"], part["game"])
        findings.add(f"lake_adjacent_{label}", result,
                     f"A lake touching {label} tiles: {interval_text(result)} final margin "
                     f"against the best other kind ({plural(result['n'], 'decision')}).",
                     established(result))
    return tables


def relative_buys(candidates: pd.DataFrame) -> pd.DataFrame:
    """Buy candidates with `relative_margin`: their margin minus that of the move the
    policy would otherwise play (its most probable other candidate at the decision)."""
    frame = turns(candidates).assign(_key=lambda f: decision_key(f))
    frame = frame.sort_values(["_key", "policy_probability", "candidate"],
                              ascending=[True, False, True])
    rank = frame.groupby("_key").cumcount()
    top = frame[rank == 0].set_index("_key")["margin"]
    second = frame[rank == 1].set_index("_key")["margin"]
    other = np.where(rank == 0, frame["_key"].map(second), frame["_key"].map(top))
    frame = frame.assign(relative_margin=frame["margin"] - other)
    frame = frame[frame["relative_margin"].notna()]
    return frame[frame["move_kind"] == "buy"]


def tile_values(candidates: pd.DataFrame, minimum: int = MINIMUM_ROWS) -> pd.DataFrame:
    """Per market tile bought (buy candidates): relative_margin with its interval; the
    tiles with `minimum` rows or more."""
    return per_tile(relative_buys(candidates), "relative_margin", minimum)


def per_tile(buys: pd.DataFrame, column: str, minimum: int) -> pd.DataFrame:
    """Per tile of `buys`: the mean of `column` with its interval (whole games
    resampled), its type and mean round; tiles with `minimum` rows or more, best first."""
    rows = []
    for tile, part in buys.groupby("tile"):
        if len(part) < minimum:
            continue
        result = bootstrap_mean(part[column], part["game"])
        rows.append({"tile": tile, "type": part["tile_type"].iloc[0],
                     "mean_round": float(part["round"].mean()), **result})
    table = pd.DataFrame(rows)
    return table.sort_values("mean", ascending=False).reset_index(drop=True) if rows else table


def market_buys(candidates: pd.DataFrame) -> pd.DataFrame:
    """Buy candidates of the turns with two or more valued, with `market_margin`: their
    margin minus the mean margin of the other market tiles valued at the same turn (which
    tile to buy, not whether to buy; the mean, not the best, so no selection bias)."""
    frame = turns(candidates)
    frame = frame[frame["move_kind"] == "buy"].assign(_key=lambda f: decision_key(f))
    grouped = frame.groupby("_key")["margin"]
    total, count = grouped.transform("sum"), grouped.transform("count")
    frame = frame.assign(market_margin=frame["margin"] - (total - frame["margin"])
                         / (count - 1).where(count > 1))
    return frame[count > 1]


def market_values(candidates: pd.DataFrame, minimum: int = MINIMUM_ROWS) -> pd.DataFrame:
    """Per market tile: market_margin with its interval, tiles with `minimum` rows or more."""
    return per_tile(market_buys(candidates), "market_margin", minimum)


def tile_findings(candidates: pd.DataFrame, findings: Findings) -> pd.DataFrame:
    market = market_values(candidates)
    for _, row in market.iterrows():
        findings.add(f"market_{row['tile']}", row[["mean", "low", "high", "n", "games"]].to_dict(),
                     f"Buying {row['tile']} ({row['type']}, mean round {row['mean_round']:.0f}) "
                     f"rather than another market tile valued at the same turn: "
                     f"{interval_text(row)} final margin ({plural(int(row['n']), 'time')}).",
                     established(row))
    table = tile_values(candidates)
    for _, row in table.iterrows():
        findings.add(f"tile_{row['tile']}", row[["mean", "low", "high", "n", "games"]].to_dict(),
                     f"Buying {row['tile']} ({row['type']}, mean round "
                     f"{row['mean_round']:.0f}): {interval_text(row)} final margin against "
                     f"the move the policy would otherwise play ({plural(int(row['n']), 'time')}).",
                     established(row))
    buys = relative_buys(candidates)
    for tile_type in ("residential", "commercial", "civic", "industrial"):
        for phase in ("A", "B", "C"):
            part = buys[(buys["tile_type"] == tile_type) & (buys["phase"] == phase)]
            result = bootstrap_mean(part["relative_margin"], part["game"])
            findings.add(f"type_{tile_type}_phase_{phase}", result,
                         f"{article(tile_type).capitalize()} tile bought in stack {phase}: "
                         f"{interval_text(result)} final margin against the move the policy "
                         f"would otherwise play "
                         f"({plural(result['n'], 'time')}).", established(result))
    for tile_type in TYPES:
        part = buys[buys["tile_type"] == tile_type]
        owned = part[f"own_{tile_type}"]
        for label, low, high in OWNED_BANDS:
            group = part[(owned >= low) & (owned <= high)]
            if group.empty:
                continue
            result = bootstrap_mean(group["relative_margin"], group["game"])
            findings.add(f"borough_{tile_type}_{low}", result,
                         f"{article(tile_type).capitalize()} tile bought when your borough "
                         f"already has {label} {tile_type} tiles: {interval_text(result)} final "
                         f"margin against the move the policy would otherwise play "
                         f"({plural(result['n'], 'time')}).", established(result))
    for tile_type, neighbour in (("industrial", "residential"), ("residential", "industrial"),
                                 ("commercial", "commercial"), ("residential", "lake"),
                                 ("commercial", "residential"), ("civic", "residential")):
        part = buys[buys["tile_type"] == tile_type]
        touching = part[part[f"adjacent_{neighbour}"] > 0]
        apart = part[part[f"adjacent_{neighbour}"] == 0]
        difference = _difference(touching, apart, "relative_margin")
        findings.add(f"adjacent_{tile_type}_{neighbour}", difference,
                     f"{article(tile_type).capitalize()} tile placed next to {article(neighbour)} tile rather than "
                     f"away from one: {interval_text(difference)} final margin "
                     f"({len(touching)} against {len(apart)} placements).",
                     established(difference))
    return table


def _difference(first: pd.DataFrame, second: pd.DataFrame, column: str) -> dict:
    """Mean of `column` in `first` minus in `second`, bootstrap over games together."""
    if first.empty or second.empty:
        return {"mean": float("nan"), "low": float("nan"), "high": float("nan"), "n": 0,
                "games": 0}
    games = np.union1d(first["game"].unique(), second["game"].unique())
    position = {game: index for index, game in enumerate(games)}
    sums, counts = np.zeros((2, games.size)), np.zeros((2, games.size))
    for side, frame in enumerate((first, second)):
        index = frame["game"].map(position).to_numpy()
        sums[side] = np.bincount(index, weights=frame[column].to_numpy(), minlength=games.size)
        counts[side] = np.bincount(index, minlength=games.size)
    generator = np.random.default_rng(BOOTSTRAP_SEED)
    picks = generator.integers(0, games.size, size=(BOOTSTRAP, games.size))
    means = [sums[side][picks].sum(1) / np.maximum(counts[side][picks].sum(1), 1) for side in (0, 1)]
    low, high = np.quantile(means[0] - means[1], [0.025, 0.975])
    return {"mean": float(first[column].mean() - second[column].mean()), "low": float(low),
            "high": float(high), "n": int(len(first) + len(second)), "games": int(games.size)}


def goal_findings(candidates: pd.DataFrame, findings: Findings) -> pd.DataFrame:
    """Which goal to keep (R3.6) and when advancing the private goal pays."""
    keeps = candidates[candidates["decision_kind"] == "keep_goal"].assign(
        _key=lambda f: decision_key(f))
    mean_of_decision = keeps.groupby("_key")["margin"].transform("mean")
    keeps = keeps.assign(relative=2 * (keeps["margin"] - mean_of_decision))  # kept minus other
    rows = []
    for goal, part in keeps.groupby("tile"):
        result = bootstrap_mean(part["relative"], part["game"])
        rows.append({"goal": goal, **result})
    table = pd.DataFrame(rows)
    if rows:
        table = table.sort_values("mean", ascending=False).reset_index(drop=True)
    for _, row in table.iterrows():
        if row["n"] >= MINIMUM_CHOICES:
            findings.add(f"keep_{row['goal']}", row[["mean", "low", "high", "n", "games"]].to_dict(),
                         f"Keeping {row['goal']} rather than the other goal drawn: "
                         f"{interval_text(row)} final margin ({plural(int(row['n']), 'choice')}).",
                         established(row))
    frame = turns(candidates)
    paired = representatives(frame, frame["d_private_lead"] > 0)
    for label, low, high in (("behind by 3 or more", -999, -3), ("behind by 1-2", -2, -1),
                             ("level", 0, 0), ("ahead", 1, 999)):
        part = paired[(paired["private_lead"] >= low) & (paired["private_lead"] <= high)]
        result = bootstrap_mean(part["d_margin"], part["game"])
        findings.add(f"private_chase_{label.split()[0]}_{high}", result,
                     f"A move that gains on your private goal when you are {label} on it: "
                     f"{interval_text(result)} final margin against the best move that does "
                     f"not ({plural(result['n'], 'decision')}).", established(result))
    for phase in ("A", "B", "C"):
        for label, low, high in STANDINGS:
            part = paired[(paired["phase"] == phase) & (paired["private_lead"] >= low)
                          & (paired["private_lead"] <= high)]
            result = bootstrap_mean(part["d_margin"], part["game"])
            findings.add(f"private_chase_{phase}_{label.split()[0]}_{high}", result,
                         f"A move that gains on your private goal in stack {phase} when you "
                         f"are {label} on it: {interval_text(result)} final margin against "
                         f"the best move that does not ({plural(result['n'], 'decision')}).",
                         established(result))
    frame_keys = frame.assign(_key=decision_key(frame)).sort_values(
        ["_key", "policy_probability"], ascending=[True, False])
    not_gaining = frame_keys[~(frame_keys["d_private_lead"] > 0)].drop_duplicates("_key")
    steps = paired["d_private_lead"] - paired["_key"].map(
        not_gaining.set_index("_key")["d_private_lead"])
    paired = paired.assign(steps=steps)
    for goal, part in paired.groupby("private_goal"):
        if len(part) < MINIMUM_ROWS:
            continue
        result = bootstrap_ratio(part["d_margin"], part["steps"], part["game"])
        findings.add(f"private_step_{goal}", result,
                     f"Gaining on {goal} as your private goal: {interval_text(result, 2)} "
                     f"final margin per step of lead gained against the best move that "
                     f"gains none ({plural(result['n'], 'decision')}, "
                     f"{part['steps'].mean():.1f} steps a move).", established(result))
    for phase in ("A", "B", "C"):
        part = paired[paired["phase"] == phase]
        result = bootstrap_mean(part["d_margin"], part["game"])
        findings.add(f"private_chase_phase_{phase}", result,
                     f"A move that gains on your private goal in stack {phase}: "
                     f"{interval_text(result)} final margin against the best move that does "
                     f"not ({plural(result['n'], 'decision')}).", established(result))
    public = representatives(frame, (frame[["d_public_lead_0", "d_public_lead_1",
                                            "d_public_lead_2"]] > 0).any(axis=1))
    result = bootstrap_mean(public["d_margin"], public["game"])
    findings.add("public_chase", result,
                 f"A move that gains on a public goal: {interval_text(result)} final margin "
                 f"against the best move that does not ({plural(result['n'], 'decision')}).",
                 established(result))
    gains = public[["d_public_lead_0", "d_public_lead_1", "d_public_lead_2"]].to_numpy()
    leads = public[["public_lead_0", "public_lead_1", "public_lead_2"]].to_numpy()
    lead = leads[np.arange(len(public)), gains.argmax(axis=1)]
    for label, low, high in STANDINGS:
        part = public[(lead >= low) & (lead <= high)]
        result = bootstrap_mean(part["d_margin"], part["game"])
        findings.add(f"public_chase_{label.split()[0]}_{high}", result,
                     f"A move that gains on a public goal when you are {label} on it: "
                     f"{interval_text(result)} final margin against the best move that does "
                     f"not ({plural(result['n'], 'decision')}).", established(result))
    for phase in ("A", "B", "C"):
        part = public[public["phase"] == phase]
        result = bootstrap_mean(part["d_margin"], part["game"])
        findings.add(f"public_chase_phase_{phase}", result,
                     f"A move that gains on a public goal in stack {phase}: "
                     f"{interval_text(result)} final margin against the best move that does "
                     f"not ({plural(result['n'], 'decision')}).", established(result))
    return table


def red_line_findings(candidates: pd.DataFrame, findings: Findings) -> pd.DataFrame:
    """Crossing a red line (R8.1) now against the best move that does not."""
    frame = turns(candidates)
    paired = representatives(frame, frame["red_lines"] > 0)
    for label, low, high in (("rounds 1-4", 1, 4), ("rounds 5-8", 5, 8),
                             ("rounds 9-12", 9, 12), ("rounds 13+", 13, 99)):
        part = paired[(paired["round"] >= low) & (paired["round"] <= high)]
        result = bootstrap_mean(part["d_margin"], part["game"])
        findings.add(f"red_line_{label.split()[1]}", result,
                     f"Crossing a red line in {label}: {interval_text(result)} final margin "
                     f"against the best move that crosses none ({plural(result['n'], 'decision')}).",
                     established(result))
    return paired


def seat_findings(candidates: pd.DataFrame, games: list[dict], findings: Findings) -> pd.DataFrame:
    """First player and turn order: wins of self-play games (Wilson) and the search's
    win probability at each seat's first decision."""
    rows = []
    for players in (2, 3, 4):
        played = [g for g in games if g["players"] == players and g["lineup"] == "self"]
        for position in range(players):
            wins = 0.0
            for game in played:
                seat = (game["first_player"] + position) % players
                if seat in game["winners"]:
                    wins += 1.0 / len(game["winners"])
            low, high = wilson(wins, len(played))
            rows.append({"players": players, "turn_position": position + 1,
                         "games": len(played), "win_share": wins / max(len(played), 1),
                         "low": low, "high": high})
    table = pd.DataFrame(rows)
    for players in (2, 3, 4):
        first = table[(table["players"] == players) & (table["turn_position"] == 1)].iloc[0]
        fair = 1 / players
        result = {"mean": first["win_share"], "low": first["low"], "high": first["high"],
                  "n": int(first["games"]), "games": int(first["games"])}
        findings.add(f"first_player_{players}p", result,
                     f"At {players} players the first player wins "
                     f"{first['win_share']:.2f} [{first['low']:.2f}, {first['high']:.2f}] of "
                     f"self-play games (fair share {fair:.2f}; {plural(int(first['games']), 'game')}).",
                     first["games"] >= MINIMUM_GAMES
                     and (first["low"] > fair or first["high"] < fair))
    keeps = candidates[(candidates["decision_kind"] == "keep_goal") & (candidates["best"] == 1)]
    for players in (2, 3, 4):
        part = keeps[(keeps["players"] == players) & (keeps["lineup"] == "self")]
        first = part[part["turn_position"] == 0]
        last = part[part["turn_position"] == players - 1]
        difference = _difference(first, last, "value_margin")
        findings.add(f"first_minus_last_value_{players}p", difference,
                     f"At {players} players the search values the first seat over the last "
                     f"at the start by {interval_text(difference)} final margin "
                     f"({plural(difference['games'], 'self-play game')}).", established(difference))
    return table


def cost_findings(candidates: pd.DataFrame, findings: Findings) -> pd.DataFrame:
    """What the played moves of each agent cost by the search (best minus played)."""
    decided = candidates.assign(_key=decision_key(candidates))
    best = decided[decided["best"] == 1].set_index("_key")
    played = decided[decided["played"] == 1].set_index("_key")
    both = played.join(best[["margin", "win"]].add_suffix("_best"), how="inner")
    both["cost_margin"] = both["margin_best"] - both["margin"]
    rows = []
    for agent in ("model", "greedy"):
        part = both[both["agent"] == agent]
        result = bootstrap_mean(part["cost_margin"], part["game"])
        rows.append({"agent": agent, **result})
        findings.add(f"cost_{agent}", result,
                     f"{article(agent).capitalize()} move costs {interval_text(result)} final margin a decision "
                     f"against the search's best ({plural(result['n'], 'decision')}; the best of "
                     f"noisy values, so biased up).", established(result))
    return pd.DataFrame(rows)


def compute(folder: Path = DATA) -> tuple[Findings, dict]:
    """Every finding and the tables the notebook draws."""
    candidates, games = load(folder)
    findings = Findings()
    tables = {"candidates": candidates, "games": games}
    tables["seats"] = seat_findings(candidates, games, findings)
    tables["kinds"] = kind_findings(candidates, findings)
    tables["tiles"] = tile_findings(candidates, findings)
    tables["goals"] = goal_findings(candidates, findings)
    tables["red_lines"] = red_line_findings(candidates, findings)
    tables["costs"] = cost_findings(candidates, findings)
    return findings, tables


def summary(candidates: pd.DataFrame, games: list[dict]) -> dict:
    by_players = {str(p): sum(g["players"] == p for g in games) for p in (2, 3, 4)}
    lineups = {name: sum(g["lineup"] == name for g in games) for name in ("self", "greedy")}
    decisions = candidates.drop_duplicates(["game", "decision"])
    settings = games[0]["settings"] if games else {}
    return {"games": len(games), "games_by_players": by_players, "games_by_lineup": lineups,
            "decisions": int(len(decisions)), "candidates": int(len(candidates)),
            "samples": settings.get("samples"), "policy_candidates": settings.get("candidates"),
            "seed": settings.get("seed"), "model": settings.get("model")}


def findings_document(findings: Findings, tables: dict) -> dict:
    return {"data": summary(tables["candidates"], tables["games"]),
            "findings": findings.items,
            "takeaways": takeaways(findings) + [not_established_line(findings)]}


SECTIONS = (("Seats", ("first_player", "first_minus_last")),
            ("Kinds of move", ("lake_", "invest_", "basic_", "buy_")),
            ("Tiles", ("market_", "tile_", "type_", "borough_", "adjacent_")),
            ("Goals", ("keep_", "private_chase", "private_step", "public_chase")),
            ("Red lines", ("red_line",)),
            ("The agents' moves", ("cost_",)))


def markdown(findings: Findings) -> str:
    """The findings as docs/strategy.md lists them: by section, established first."""
    lines = []
    for title, prefixes in SECTIONS:
        keys = [key for key in findings.items if key.startswith(prefixes)]
        lines += [f"#### {title}", ""]
        lines += [f"- **{findings.items[key]['text']}**" for key in keys
                  if findings.items[key]["established"]]
        missing = [key for key in keys if not findings.items[key]["established"]]
        if missing:
            lines += ["- Not established:"]
            lines += [f"  - {findings.items[key]['text']}" for key in missing]
        lines.append("")
    return "\n".join(lines)


def quote(findings: Findings, key: str, digits: int = 1) -> str:
    """A finding's number and interval for a takeaway, flagged when not established."""
    item = findings.items.get(key)
    if item is None or not item["n"]:
        return "no data"
    text = interval_text(item, digits)
    return text if item["established"] else f"{text} (not established)"


def ranked(findings: Findings, prefix: str, sign: int, count: int, digits: int = 1) -> list[str]:
    """'Name mean [low, high]' of the established findings of `prefix` whose mean has the
    sign `sign`, strongest first, at most `count`."""
    chosen = [(key, item) for key, item in findings.items.items()
              if key.startswith(prefix) and item["established"] and sign * item["mean"] > 0]
    chosen.sort(key=lambda pair: -sign * pair[1]["mean"])
    return [f"{key[len(prefix):]} {interval_text(item, digits)}" for key, item in chosen[:count]]


def joined(names: list[str]) -> str:
    """'a, b and c' ('' for none)."""
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def listing(names: list[str]) -> str:
    return ", ".join(names) if names else "none established"


TAKEAWAY_CLAIMS = (
    ("lake_overall", "-"), ("invest_overall", "-"), ("basic_overall", "-"),
    ("lake_money_0", "+"), ("lake_money_15", "-"), ("buy_money_15", "+"),
    ("invest_round_1", "-"), ("invest_in_civic", "-"),
    ("basic_Community Park_A", "-"), ("basic_Community Park_C", "+"),
    ("basic_Suburbs_C", "-"), ("basic_Heavy Factory_B", "-"),
    ("borough_residential_1", "-"), ("borough_residential_5", "+"),
    ("adjacent_commercial_commercial", "+"), ("adjacent_residential_lake", "+"),
    ("adjacent_residential_industrial", "-"), ("adjacent_industrial_residential", "-"),
    ("public_chase", "+"), ("public_chase_phase_A", "+"), ("public_chase_phase_C", "+"),
    ("public_chase_behind_-3", "+"), ("public_chase_ahead_999", "+"),
    ("private_chase_phase_A", "-"), ("private_chase_phase_C", "+"),
    ("private_chase_A_ahead_999", "-"), ("private_chase_C_level_0", "+"),
    ("private_chase_behind_-3", "0"), ("private_step_Miser", "-"),
    ("private_step_Miscreant", "-"), ("keep_Miscreant", "+"),
    ("red_line_1-4", "-"), ("red_line_13+", "+"), ("red_line_5-8", "0"), ("red_line_9-12", "0"),
    ("first_player_2p", "+"), ("first_minus_last_value_2p", "+"),
    ("borough_commercial_0", "-"), ("borough_commercial_5", "-"),
)
"""What the takeaways' words rely on: '+'/'-' an established finding of that sign, '0' a
finding not established. check_takeaways lists the ones the data no longer bears out, and
the page is not rewritten then: the advice must be reworded, not silently contradicted."""


TAKEAWAY_ORDERS = (
    ("lake_money_0", "lake_money_5"), ("lake_money_5", "lake_money_15"),
    ("invest_round_13", "invest_round_1"), ("public_chase_phase_C", "public_chase_phase_B"),
    ("public_chase_phase_B", "public_chase_phase_A"),
    *((f"public_chase_{standing}", "public_chase_ahead_999")
      for standing in ("behind_-3", "behind_-1", "level_0")),
)
"""(greater, smaller) pairs of means the takeaways' words ("most late", "least when
ahead", "short of money", "early") rely on."""


def check_takeaways(findings: Findings) -> list[str]:
    """The takeaway claims the findings do not bear out (empty when all hold)."""
    wrong = []
    for greater, smaller in TAKEAWAY_ORDERS:
        if (greater not in findings.items or smaller not in findings.items
                or not findings.items[greater]["mean"] > findings.items[smaller]["mean"]):
            wrong.append(f"{greater} > {smaller}: not borne out")
    if findings.items.get("invest_in_civic", {}).get("commonest_tile") != "Community Park":
        wrong.append("invest_in_civic: the commonest civic investment is not the Community Park")
    for key, expected in TAKEAWAY_CLAIMS:
        item = findings.items.get(key)
        if item is None:
            wrong.append(f"{key}: missing")
            continue
        if expected == "0":
            holds = not item["established"]
        elif key.startswith("first_player_"):
            holds = item["established"] and item["low"] > 1 / int(key[-2])
        else:
            holds = item["established"] and (item["mean"] > 0) == (expected == "+")
        if not holds:
            wrong.append(f"{key}: expected {expected}, found {item['text']}")
    return wrong


def share(findings: Findings, key: str) -> str:
    item = findings.items[key]
    text = f"{item['mean']:.2f} [{item['low']:.2f}, {item['high']:.2f}]"
    return text if item["established"] else f"{text} (not established)"


def takeaways(findings: Findings) -> list[str]:
    """The page's "What to take away": rules a player can act on, each quoting its
    findings (mean [95% interval], final margin), so the numbers cannot drift from the
    data; the words rest on TAKEAWAY_CLAIMS, checked by check_takeaways."""
    q = lambda key, digits=1: quote(findings, key, digits)  # noqa: E731
    invest_keys = [key for key in findings.items if key.startswith("invest_")]
    invest_below = sum(findings.items[key]["established"] and findings.items[key]["mean"] < 0
                       for key in invest_keys)
    market = [item for key, item in findings.items.items() if key.startswith("market_")]
    market_open = [item for item in market if not item["established"]]
    spread = [item["mean"] for item in market_open] or [0.0]
    civic = findings.items["invest_in_civic"]
    return [
        "**Buying from the market is usually the better move; lakes, investments and basic "
        "tiles are the exceptions below.** (The policy itself buys on most turns, which this "
        "comparison partly reflects.) Against the policy's preferred move of another kind, its "
        f"preferred lake came out at {q('lake_overall')}, its preferred investment at "
        f"{q('invest_overall')}, its preferred basic tile at {q('basic_overall')}; its "
        f"preferred market tile at {q('buy_overall')}, and at {q('buy_money_15')} with $15 or "
        "more in hand.",
        "**Take a lake when you are short of money:** with $0-4 in hand a lake came out at "
        f"{q('lake_money_0')} against the best other kind, with $5-9 at {q('lake_money_5')}, "
        f"with $15 or more at {q('lake_money_15')}. How many tiles it touches mattered less "
        f"(0-1: {q('lake_adjacent_0-1')}; 3 or more: {q('lake_adjacent_3+')}).",
        "**Don't invest early, and not in the starting Community Park:** an investment came "
        f"out at {q('invest_round_1')} in rounds 1-4 and {q('invest_round_13')} from round "
        f"13; in a civic tile ({civic['commonest_share']:.0%} of them the "
        f"{civic['commonest_tile']}) {q('invest_in_civic')}, in a "
        f"residential one {q('invest_in_residential')}. It was worse than the alternative in "
        f"{invest_below} of the {len(invest_keys)} situations measured (by stack, round, "
        "money in hand and type of tile).",
        "**A basic tile is a late fallback:** the Community Park came out at "
        f"{q('basic_Community Park_A')} in stack A but {q('basic_Community Park_C')} in "
        f"stack C; Suburbs at {q('basic_Suburbs_C')} even in stack C, the Heavy Factory at "
        f"{q('basic_Heavy Factory_B')} in stack B.",
        "**Which market tile to buy:** against the other market tiles valued at the same "
        f"turn, these paid more: {listing(ranked(findings, 'market_', +1, 6))}; "
        f"these paid less: {listing(ranked(findings, 'market_', -1, 5))}. The other "
        f"{len(market_open)} tiles measured came out between {signed(min(spread))} and "
        f"{signed(max(spread))}, none established.",
        "**Against whatever else the policy would have played**, the buys that paid were "
        f"{listing(ranked(findings, 'tile_', +1, 5))}; the costliest were "
        f"{listing(ranked(findings, 'tile_', -1, 4))}.",
        "**What is already in the borough:** a residential tile bought with 1-2 residential "
        f"tiles already there came out at {q('borough_residential_1')} against the policy's "
        f"alternative, with 5 or more at {q('borough_residential_5')} (only "
        f"{plural(findings.items['borough_residential_5']['n'], 'time')}); a commercial tile "
        f"cost about the same however many you had ({q('borough_commercial_0')} with none, "
        f"{q('borough_commercial_5')} with 5 or more).",
        "**Placement:** a commercial tile next to a commercial one "
        f"{q('adjacent_commercial_commercial')}, a residential tile next to a lake "
        f"{q('adjacent_residential_lake')}; a residential tile next to an industrial one "
        f"{q('adjacent_residential_industrial')}, an industrial tile next to a residential "
        f"one {q('adjacent_industrial_residential')} (each against the same tile placed "
        "away from that neighbour).",
        "**Which goal to keep at setup** (rather than the other one drawn): keep "
        f"{listing(ranked(findings, 'keep_', +1, 4))}; give up "
        f"{listing(ranked(findings, 'keep_', -1, 4))}.",
        "**Chase public goals all game, most late:** a move gaining on one came out at "
        f"{q('public_chase')} against the best move that does not (stack A "
        f"{q('public_chase_phase_A')}, stack C {q('public_chase_phase_C')}); still "
        f"{q('public_chase_behind_-3')} when behind by 3 or more, least when already ahead "
        f"({q('public_chase_ahead_999')}).",
        "**Chase your private goal late, not early:** gaining on it came out at "
        f"{q('private_chase_phase_A')} in stack A and {q('private_chase_phase_C')} in stack "
        f"C; in stack A when already ahead at {q('private_chase_A_ahead_999')}, in stack C "
        f"when level at {q('private_chase_C_level_0')}. No standing was found where to give "
        f"it up: behind by 3 or more, gaining on it came out at "
        f"{q('private_chase_behind_-3')}.",
        "**Per step of private-goal lead** (a step is the goal's unit: a tile, a dollar, a "
        f"point), worth chasing: {listing(ranked(findings, 'private_step_', +1, 5, 2))}; not "
        f"worth it: {listing(ranked(findings, 'private_step_', -1, 4, 2))}. Miser and "
        "Miscreant count fewest income and fewest reputation: lowering your own to win them "
        f"does not pay ({q('private_step_Miser', 2)} and {q('private_step_Miscreant', 2)} a "
        f"step), even though keeping Miscreant at setup did ({q('keep_Miscreant')}).",
        f"**Red lines: avoid them early, don't fear them late.** Crossing one came out at "
        f"{q('red_line_1-4')} in rounds 1-4, {q('red_line_5-8')} in rounds 5-8, "
        f"{q('red_line_9-12')} in rounds 9-12 and {q('red_line_13+')} from round 13, against "
        "the best move crossing none.",
        "**Going first helps at 2 players:** the first player won "
        f"{share(findings, 'first_player_2p')} of self-play games (fair share 0.50) and the "
        f"search valued the first seat over the last at {q('first_minus_last_value_2p')} "
        f"final margin at the start. At 3 players: win share "
        f"{share(findings, 'first_player_3p')} against a fair 0.33, first seat over last "
        f"{q('first_minus_last_value_3p')}; at 4 players: win share "
        f"{share(findings, 'first_player_4p')} against a fair 0.25, first seat over last "
        f"{q('first_minus_last_value_4p')}.",
    ]


def not_established_line(findings: Findings) -> str:
    """One line naming, by topic, what the data could not establish."""
    def open_names(prefix: str) -> list[str]:
        return [key[len(prefix):] for key, item in findings.items.items()
                if key.startswith(prefix) and not item["established"]]
    seats = [name.replace("p", "") for name in open_names("first_player_")]
    red_lines = open_names("red_line_")
    market = open_names("market_")
    measured_goals = {key[len("private_step_"):] for key in findings.items
                      if key.startswith("private_step_")}
    kept_goals = {key[len("keep_"):] for key in findings.items if key.startswith("keep_")}
    unmeasured = sorted(kept_goals - measured_goals)
    return ("**Not established:** the first player's win share at "
            f"{joined(seats) + ' players' if seats else 'no player count'}; crossing a red "
            f"line in rounds {joined(red_lines) if red_lines else '(none)'}; the value of "
            f"keeping {joined(open_names('keep_')) if open_names('keep_') else 'no goal'} "
            "rather than the goal drawn with it; "
            f"the rank of {len(market)} market tiles against the others on offer; the "
            f"per-step value of {joined(open_names('private_step_')) or 'no goal'}, and of "
            f"{joined(unmeasured) if unmeasured else 'no other goal'} (fewer than {MINIMUM_ROWS} "
            "decisions where a move raised the lead); the value of tiles offered fewer than "
            f"{MINIMUM_ROWS} times; which seat is best beyond the first player's; and "
            "anything about play stronger than the model's, since every value is the "
            "model playing on.")


def takeaway_markdown(findings: Findings) -> str:
    lines = [f"- {text}" for text in takeaways(findings)]
    lines.append(f"- {not_established_line(findings)}")
    return "\n".join(lines) + "\n"


def data_markdown(data: dict) -> str:
    """The data's size as docs/strategy.md states it."""
    players = data["games_by_players"]
    lineup = data["games_by_lineup"]
    return (f"**Size:** {data['games']} games ({players['2']} at 2 players, {players['3']} "
            f"at 3, {players['4']} at 4; {lineup['self']} of the model against itself, "
            f"{lineup['greedy']} against greedy), {data['decisions']} decisions, "
            f"{data['candidates']} candidate moves valued, {data['samples']} redraws each.\n")


def replace_block(text: str, start: str, end: str, body: str) -> str:
    first, rest = text.split(start, 1)
    _, last = rest.split(end, 1)
    return f"{first}{start}\n\n{body}\n{end}{last}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--write", action="store_true",
                        help=f"write {FINDINGS_FILE.relative_to(ROOT)}")
    parser.add_argument("--markdown", action="store_true",
                        help="print the findings as docs/strategy.md lists them")
    parser.add_argument("--update-page", action="store_true",
                        help="rewrite the findings block of docs/strategy.md")
    options = parser.parse_args(argv)
    findings, tables = compute(options.data)
    document = findings_document(findings, tables)
    if options.markdown:
        print(markdown(findings))
        return 0
    if options.update_page:
        text = replace_block(PAGE.read_text(), DATA_START, DATA_END,
                             data_markdown(document["data"]))
        wrong = check_takeaways(findings)
        if wrong:
            raise SystemExit("the takeaways' wording no longer holds; reword them:\n  "
                             + "\n  ".join(wrong))
        text = replace_block(text, TAKEAWAY_START, TAKEAWAY_END, takeaway_markdown(findings))
        PAGE.write_text(replace_block(text, PAGE_START, PAGE_END, markdown(findings)))
    print(json.dumps(document["data"]))
    print(f"Established ({len(findings.established())}):")
    for text in findings.established():
        print("  " + text)
    print(f"Could not be established ({len(findings.not_established())}):")
    for text in findings.not_established():
        print("  " + text)
    if options.write:
        FINDINGS_FILE.write_text(json.dumps(document, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
