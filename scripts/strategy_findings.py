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
    buys = relative_buys(candidates)
    rows = []
    for tile, part in buys.groupby("tile"):
        if len(part) < minimum:
            continue
        result = bootstrap_mean(part["relative_margin"], part["game"])
        rows.append({"tile": tile, "type": part["tile_type"].iloc[0],
                     "mean_round": float(part["round"].mean()), **result})
    table = pd.DataFrame(rows)
    return table.sort_values("mean", ascending=False).reset_index(drop=True) if rows else table


def tile_findings(candidates: pd.DataFrame, findings: Findings) -> pd.DataFrame:
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
            "findings": findings.items}


SECTIONS = (("Seats", ("first_player", "first_minus_last")),
            ("Kinds of move", ("lake_", "invest_", "basic_", "buy_")),
            ("Tiles", ("tile_", "type_", "adjacent_")),
            ("Goals", ("keep_", "private_chase", "public_chase")),
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
