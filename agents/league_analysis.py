"""Strategy statistics from recorded league games (docs/dataset.md): what separates the
seats that win from those that lose, written so that a Suburbia player can read it.

Every game of the dataset is replayed move by move (`seat_facts`); the event log of each
action (suburbia_env/engine/event_log.py) says what each seat bought, for how much and when,
its lakes and what they paid (R6.7), its investments (R7.3) and the red lines it crossed
(R8.1); the entry's scores give the goal bonuses (R8.2). Time is told by the stack the
market refills from at the decision (R4.2): phase A (the opening), B (the middle game)
and C (the end game), whatever the player count.

Statistics: proportions with 95% Wilson intervals; differences between winners and
losers with a 95% percentile bootstrap over whole games, raw and adjusted for the agent
in the seat (Mantel-Haenszel strata, agents/statistics.py), since strong agents both win
more and play their own way. These are associations in games between given agents,
not causes: a tile winners buy more often may be bought because the game was going
well. Forfeited games are left out.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from suburbia_env import Game
from suburbia_env.engine import constants as c
from suburbia_env.engine import event_log as ev
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.tile_table import tile_type

from .statistics import game_bootstrap_difference, newcombe_interval, wilson_interval

PHASES = ("A", "B", "C")
LOG_CAPACITY = 8192  # events of one action; a full log may have dropped some (checked)
BASIC_KINDS = {int(kind) for kind in TILES.basic_kinds}


def phase_of(game: Game) -> str:
    """The stack the market refills from now (R4.2): A, B or C."""
    sizes = game.stack_sizes()
    return "A" if sizes["A"] > 0 else "B" if sizes["B"] > 0 else "C"


def _player_values(game: Game, seat: int) -> dict:
    state = game.player_state(seat)
    return {name: state[name] for name in ("money", "income", "reputation", "population")}


def seat_facts(entry: dict) -> list[dict]:
    """One dict per seat of a finished game of the dataset, from replaying its record:
    seat, agent, turn position, win (1/winners for a shared win, R8.3), final population
    and margin over the best other seat, the purchases (market and basic tiles), lakes,
    investments and red lines with their round and phase, the money lakes paid, the goal
    bonuses, and the values of each seat when each phase began. [] for a game with a
    forfeit (the stand-in's moves are no agent's)."""
    if entry["forfeits"]:
        return []
    record = entry["record"]
    players = entry["players"]
    game = Game(players, "standard", entry["edition"], entry["seed"],
                record["config"].get("random_private_goals", False), log_capacity=LOG_CAPACITY)
    seats = [{"purchases": [], "lakes": [], "investments": [], "red_lines": [],
              "lake_money": 0, "phase_start": {}} for _ in range(players)]
    for action in record["actions"]:
        round_number, phase = game.round + 1, phase_of(game)
        for seat, facts in enumerate(seats):
            facts["phase_start"].setdefault(phase, _player_values(game, seat))
        game.apply(action)
        if len(game.last_events) >= LOG_CAPACITY:
            raise RuntimeError(f"table {entry['table']}: an action's events overflowed the log")
        for row in game.last_events:
            event, seat, kind = int(row[ev.FIELD_EVENT]), int(row[ev.FIELD_PLAYER]), int(row[ev.FIELD_SOURCE_KIND])
            when = {"round": round_number, "phase": phase}
            if event == ev.EVENT_PLACE and int(row[ev.FIELD_ATTRIBUTE]) == 1:
                seats[seat]["lakes"].append({**when, "premium": int(row[ev.FIELD_AMOUNT])})
            elif event == ev.EVENT_PLACE:
                seats[seat]["purchases"].append({
                    **when, "tile": TILES.names[kind], "price": int(row[ev.FIELD_AMOUNT]),
                    "basic": kind in BASIC_KINDS,
                    "type": c.TYPE_NAMES[tile_type(TILES.table, kind)]})
            elif event == ev.EVENT_INVEST:
                seats[seat]["investments"].append({**when, "tile": TILES.names[kind],
                                                   "price": int(row[ev.FIELD_AMOUNT])})
            elif event == ev.EVENT_RED_LINE:
                seats[seat]["red_lines"].append({**when, "direction": int(row[ev.FIELD_AMOUNT]),
                                                 "line": int(row[ev.FIELD_VALUE_AFTER])})
            elif event == ev.EVENT_EFFECT and kind == TILES.lake and int(row[ev.FIELD_ATTRIBUTE]) == c.ATTR_MONEY:
                seats[seat]["lake_money"] += int(row[ev.FIELD_AMOUNT])
    scores = game.final_scores()
    if [score["population"] for score in scores] != [s["population"] for s in entry["scores"]]:
        raise RuntimeError(f"table {entry['table']}: the record replays to other scores")
    populations = [score["population"] for score in scores]
    result = []
    for seat, (facts, score) in enumerate(zip(seats, scores)):
        result.append({
            "table": entry["table"], "seed": entry["seed"], "players": players, "seat": seat,
            "agent": entry["agents"][seat],
            "turn_position": (seat - entry["first_player"]) % players,
            "win": float(entry["wins"][seat]), "winner": seat in entry["winners"],
            "population": score["population"],
            "margin": score["population"] - max(p for k, p in enumerate(populations) if k != seat),
            "public_goals": dict(score["public_goals"]),
            "private_goal": score["private_goal"],
            "private_goal_bonus": score["private_goal_bonus"],
            "final_round": game.round, **facts})
    return result


def all_seat_facts(entries: list[dict]) -> tuple[list[dict], int]:
    """The seats of every finished game, and the number of forfeited games left out."""
    seats, forfeited = [], 0
    for entry in entries:
        facts = seat_facts(entry)
        forfeited += not facts
        seats.extend(facts)
    return seats, forfeited


def _share(wins: float, games: int, fair: float | None = None) -> dict:
    low, high = wilson_interval(wins, games)
    entry = {"games": games, "wins": wins, "share": wins / games if games else float("nan"),
             "low": low, "high": high}
    if fair is not None:
        entry["fair"] = fair
        entry["established"] = bool(games) and not low <= fair <= high
    return entry


# Turn order ----------------------------------------------------------------------------

def turn_position_table(seats: list[dict]) -> list[dict]:
    """Per player count and turn position (1 = first player, R3.6): win share with its
    interval against the fair share 1/players, and mean final population. The league
    plays every deal with the agents rotated, so each position is held by every agent
    equally often and the agents' strength cancels."""
    table = []
    for players in sorted({seat["players"] for seat in seats}):
        here = [seat for seat in seats if seat["players"] == players]
        for position in range(players):
            own = [seat for seat in here if seat["turn_position"] == position]
            table.append({"players": players, "position": position + 1,
                          **_share(sum(seat["win"] for seat in own), len(own), 1 / players),
                          "mean_population": float(np.mean([s["population"] for s in own]))
                          if own else float("nan")})
    return table


# Goals ---------------------------------------------------------------------------------

def _decisive(seat: dict, bonus: int, others: list[dict]) -> bool:
    """Whether the seat won and, without this bonus, would not have been strictly ahead."""
    best_other = max(other["population"] for other in others)
    return seat["winner"] and seat["population"] - bonus <= best_other


def goal_table(seats: list[dict]) -> list[dict]:
    """Per goal, public (R3.6, R8.2: the one player strictly ahead scores it) and
    private (scored only strictly alone in front): how often it was scored when in play,
    the mean bonus when scored, the win share of the seat that scored it, and how often
    the bonus decided the game (its scorer won and would not have without it)."""
    by_game: dict[int, list[dict]] = {}
    for seat in seats:
        by_game.setdefault(seat["table"], []).append(seat)
    rows = []
    for goal in GOALS.names:
        public_games = scored = 0
        bonuses, winners, decisive = [], [], 0
        for game in by_game.values():
            if goal not in game[0]["public_goals"]:
                continue
            public_games += 1
            takers = [seat for seat in game if seat["public_goals"][goal] > 0]
            if takers:
                scored += 1
                taker = takers[0]
                bonuses.append(taker["public_goals"][goal])
                winners.append(taker["win"])
                decisive += _decisive(taker, taker["public_goals"][goal],
                                      [s for s in game if s is not taker])
        held = [seat for seat in seats if seat["private_goal"] == goal]
        achieved = [seat for seat in held if seat["private_goal_bonus"] > 0]
        missed = [seat for seat in held if seat["private_goal_bonus"] == 0]
        fair = float(np.mean([1 / seat["players"] for seat in held])) if held else float("nan")
        private_decisive = sum(_decisive(seat, seat["private_goal_bonus"],
                                         [s for s in by_game[seat["table"]] if s is not seat])
                               for seat in achieved)
        rows.append({
            "goal": goal,
            "public": {"games": public_games, **_rate(scored, public_games),
                       "mean_bonus": float(np.mean(bonuses)) if bonuses else float("nan"),
                       "scorer_win": _share(sum(winners), len(winners)),
                       "fair": (float(np.mean([1 / game[0]["players"] for game in by_game.values()
                                               if goal in game[0]["public_goals"]]))
                                if public_games else float("nan")),
                       "decisive": _rate(decisive, scored)},
            "private": {"held": len(held), **_rate(len(achieved), len(held)),
                        "mean_bonus": float(np.mean([s["private_goal_bonus"] for s in achieved]))
                        if achieved else float("nan"),
                        "win_when_achieved": _share(sum(s["win"] for s in achieved),
                                                    len(achieved)),
                        "win_when_missed": _share(sum(s["win"] for s in missed), len(missed)),
                        "win_difference": dict(zip(("difference", "low", "high"),
                                                   newcombe_interval(
                                                       sum(s["win"] for s in achieved),
                                                       len(achieved),
                                                       sum(s["win"] for s in missed),
                                                       len(missed)))),
                        "fair": fair, "decisive": _rate(private_decisive, len(achieved))}})
    return rows


def _rate(count: float, total: int) -> dict:
    low, high = wilson_interval(count, total)
    return {"count": count, "rate": count / total if total else float("nan"), "low": low,
            "high": high}


# Winners against losers ------------------------------------------------------------------

def _difference_rows(names: list[str], values: np.ndarray, seats: list[dict],
                     resamples: int, seed: int) -> list[dict]:
    """Winner minus loser means of each column of `values`, raw and within agents."""
    won = np.array([seat["win"] > 0 for seat in seats])
    games = np.array([seat["table"] for seat in seats])
    agents = np.array([seat["agent"] for seat in seats])
    raw = game_bootstrap_difference(values, won, games, None, resamples, seed)
    adjusted = game_bootstrap_difference(values, won, games, agents, resamples, seed)
    rows = []
    for column, name in enumerate(names):
        winners, losers = values[won, column], values[~won, column]
        rows.append({"name": name, "winners": float(winners.mean()) if winners.size else np.nan,
                     "losers": float(losers.mean()) if losers.size else np.nan,
                     "difference": float(raw[0][column]), "low": float(raw[1][column]),
                     "high": float(raw[2][column]),
                     "adjusted": float(adjusted[0][column]),
                     "adjusted_low": float(adjusted[1][column]),
                     "adjusted_high": float(adjusted[2][column])})
        rows[-1]["established"] = _excludes_zero_alike(rows[-1])
    return rows


def _excludes_zero_alike(row: dict) -> bool:
    """Both intervals, raw and within agents, exist and lie on the same side of 0."""
    sides = [np.sign(row["low"]) if row["low"] > 0 or row["high"] < 0 else 0,
             np.sign(row["adjusted_low"])
             if row["adjusted_low"] > 0 or row["adjusted_high"] < 0 else 0]
    return bool(sides[0] != 0 and sides[0] == sides[1])


def tile_table(seats: list[dict], resamples: int = 1000, seed: int = 0,
               minimum_buyers: int = 10) -> list[dict]:
    """Per tile: the share of winners' and of losers' boroughs that bought it (market or
    supply, lakes excluded), their difference with intervals, and the mean phase-A/B/C
    split of its purchases. Tiles bought by fewer than `minimum_buyers` seats are left
    out (no interval would be informative)."""
    names = [name for name in TILES.names[:TILES.lake]
             if sum(any(p["tile"] == name for p in seat["purchases"]) for seat in seats)
             >= minimum_buyers]
    bought = np.array([[any(p["tile"] == name for p in seat["purchases"]) for name in names]
                       for seat in seats], dtype=np.float64).reshape(len(seats), len(names))
    rows = _difference_rows(names, bought, seats, resamples, seed)
    for row in rows:
        phases = Counter(p["phase"] for seat in seats for p in seat["purchases"]
                         if p["tile"] == row["name"])
        row["buyers"] = int(sum(any(p["tile"] == row["name"] for p in seat["purchases"])
                                for seat in seats))
        row["phases"] = {phase: phases.get(phase, 0) for phase in PHASES}
    return sorted(rows, key=lambda row: -row["difference"])


def timing_measures(seat: dict) -> dict:
    """Per seat: market purchases, money spent and mean price of the tiles bought in each
    phase; lakes, investments and red lines (net, up minus fall-backs) in each phase;
    money the lakes paid; the values (income, reputation, population) at the start of
    phases B and C."""
    measures = {}
    for phase in PHASES:
        bought = [p for p in seat["purchases"] if p["phase"] == phase]
        spent = (sum(p["price"] for p in bought)
                 + sum(lake["premium"] for lake in seat["lakes"] if lake["phase"] == phase)
                 + sum(i["price"] for i in seat["investments"] if i["phase"] == phase))
        measures[f"tiles bought in {phase}"] = len(bought)
        measures[f"$ spent in {phase}"] = spent
        measures[f"lakes in {phase}"] = sum(lake["phase"] == phase for lake in seat["lakes"])
        measures[f"investments in {phase}"] = sum(i["phase"] == phase
                                                  for i in seat["investments"])
        measures[f"red lines in {phase}"] = sum(r["direction"] for r in seat["red_lines"]
                                                if r["phase"] == phase)
    measures["lakes"] = len(seat["lakes"])
    measures["$ paid by lakes"] = seat["lake_money"]
    measures["investments"] = len(seat["investments"])
    measures["red lines (net)"] = sum(r["direction"] for r in seat["red_lines"])
    for phase in PHASES[1:]:
        start = seat["phase_start"].get(phase)
        for value in ("income", "reputation", "population"):
            measures[f"{value} at start of {phase}"] = np.nan if start is None else start[value]
    return measures


def timing_table(seats: list[dict], resamples: int = 1000, seed: int = 0) -> list[dict]:
    """Winner minus loser means of every `timing_measures` column, with intervals. Seats
    whose game never reached a phase are left out of that phase's start values."""
    measures = [timing_measures(seat) for seat in seats]
    names = list(measures[0]) if measures else []
    rows = []
    for name in names:
        column = np.array([m[name] for m in measures], dtype=np.float64)
        kept = ~np.isnan(column)
        subset = [seat for seat, keep in zip(seats, kept) if keep]
        if not subset:
            continue
        rows.extend(_difference_rows([name], column[kept].reshape(-1, 1), subset, resamples,
                                     seed))
    return rows


def count_groups(seats: list[dict], key: str, top: int = 3) -> list[dict]:
    """Win share against the fair share (mean of 1/players) for seats grouped by how many
    lakes or investments (`key`) they made: 0, 1, ..., `top`+."""
    groups: dict[int, list[dict]] = {}
    for seat in seats:
        groups.setdefault(min(len(seat[key]), top), []).append(seat)
    rows = []
    for count in sorted(groups):
        group = groups[count]
        rows.append({"count": f"{count}+" if count == top else str(count), "seats": len(group),
                     **_share(sum(s["win"] for s in group), len(group),
                              float(np.mean([1 / s["players"] for s in group]))),
                     "mean_population": float(np.mean([s["population"] for s in group]))})
    return rows


# Findings --------------------------------------------------------------------------------

def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _interval(low: float, high: float, percent: bool = True) -> str:
    if percent:
        return f"[{_percent(low)}, {_percent(high)}]"
    return f"[{low:+.2f}, {high:+.2f}]"


def findings(seats: list[dict], positions: list[dict], goals: list[dict], tiles: list[dict],
             timing: list[dict], minimum_games: int = 30) -> tuple[list[str], list[str]]:
    """The findings as sentences with their numbers and 95% intervals: (established,
    not established). A finding is established when its interval excludes the fair share
    (win shares) or zero (differences, raw and agent-adjusted alike)."""
    established, open_questions = [], []

    def file(sentence: str, is_established: bool):
        (established if is_established else open_questions).append(sentence)

    for row in positions:
        last = max(r["position"] for r in positions if r["players"] == row["players"])
        if row["position"] != 1 and (row["position"] != last or row["players"] == 2):
            continue
        which = "first player" if row["position"] == 1 else "last player in turn order"
        file(f"At {row['players']} players the {which} won {_percent(row['share'])} "
             f"{_interval(row['low'], row['high'])} of {row['games']} games "
             f"(fair share {_percent(row['fair'])}).", row["established"])
    for goal in goals:
        public = goal["public"]
        if public["games"] >= minimum_games:
            scorer = public["scorer_win"]
            file(f"Public goal {goal['goal']} was scored in {_percent(public['rate'])} "
                 f"{_interval(public['low'], public['high'])} of the {public['games']} games "
                 f"it was in play, worth {public['mean_bonus']:.1f} population on average; "
                 f"its scorer won {_percent(scorer['share'])} "
                 f"{_interval(scorer['low'], scorer['high'])} of those games (fair share "
                 f"{_percent(public['fair'])}) and the bonus decided "
                 f"{_percent(public['decisive']['rate'])} "
                 f"{_interval(public['decisive']['low'], public['decisive']['high'])} of them.",
                 bool(scorer["games"]) and not scorer["low"] <= public["fair"] <= scorer["high"])
        elif public["games"]:
            open_questions.append(f"Public goal {goal['goal']}: only {public['games']} games "
                                  f"in play, too few to say what it is worth.")
        private = goal["private"]
        if private["held"] >= minimum_games:
            achieved, missed = private["win_when_achieved"], private["win_when_missed"]
            gap = private["win_difference"]
            known = bool(achieved["games"] and missed["games"])
            file(f"Private goal {goal['goal']} was achieved by {_percent(private['rate'])} "
                 f"{_interval(private['low'], private['high'])} of the {private['held']} seats "
                 f"that kept it, for {private['mean_bonus']:.1f} population on average; they "
                 f"won {_percent(achieved['share']) if achieved['games'] else '-'} of their "
                 f"games when they achieved it and {_percent(missed['share'])} when they "
                 f"missed it, a difference of "
                 + (f"{100 * gap['difference']:+.1f} points [{100 * gap['low']:+.1f}, "
                    f"{100 * gap['high']:+.1f}]." if known else "- (no seat in one group)."),
                 known and not gap["low"] <= 0 <= gap["high"])
        elif private["held"]:
            open_questions.append(f"Private goal {goal['goal']}: kept by only "
                                  f"{private['held']} seats, too few to say what it is worth.")
    unsettled = []
    for row in tiles:
        sentence = (f"Winners bought {row['name']} in {_percent(row['winners'])} of their "
                    f"boroughs, losers in {_percent(row['losers'])}: "
                    f"{100 * row['difference']:+.1f} points [{100 * row['low']:+.1f}, "
                    f"{100 * row['high']:+.1f}], {100 * row['adjusted']:+.1f} "
                    f"[{100 * row['adjusted_low']:+.1f}, {100 * row['adjusted_high']:+.1f}] "
                    f"within the same agent.")
        if row["established"]:
            established.append(sentence)
        else:
            unsettled.append(f"{row['name']} ({100 * row['difference']:+.1f} "
                             f"[{100 * row['low']:+.1f}, {100 * row['high']:+.1f}])")
    if unsettled:
        open_questions.append(f"For {len(unsettled)} tiles no difference between winners' and "
                              f"losers' purchases was established (raw or within the same "
                              f"agent, points): {', '.join(unsettled)}.")
    for row in timing:
        name = row["name"][0].upper() + row["name"][1:]
        file(f"{name}: winners {row['winners']:.2f} per seat, losers {row['losers']:.2f}, a "
             f"difference of {row['difference']:+.2f} "
             f"{_interval(row['low'], row['high'], False)} ({row['adjusted']:+.2f} "
             f"{_interval(row['adjusted_low'], row['adjusted_high'], False)} within the same "
             f"agent).", row["established"])
    return established, open_questions


def analyse(entries: list[dict], resamples: int = 1000, seed: int = 0,
            minimum_buyers: int = 10, minimum_games: int = 30) -> dict:
    """Every table of the study and its findings (the notebook's one call)."""
    seats, forfeited = all_seat_facts(entries)
    if not seats:
        raise ValueError(f"no finished game to analyse ({forfeited} forfeited)")
    positions = turn_position_table(seats)
    goals = goal_table(seats)
    tiles = tile_table(seats, resamples, seed, minimum_buyers)
    timing = timing_table(seats, resamples, seed)
    established, open_questions = findings(seats, positions, goals, tiles, timing,
                                           minimum_games)
    return {"seats": seats, "games": len({seat["table"] for seat in seats}),
            "forfeited": forfeited,
            "agents": sorted({seat["agent"] for seat in seats}),
            "player_counts": dict(sorted(Counter(s["players"] for s in seats
                                                 if s["seat"] == 0).items())),
            "positions": positions, "goals": goals, "tiles": tiles, "timing": timing,
            "lakes": count_groups(seats, "lakes"),
            "investments": count_groups(seats, "investments"),
            "invested_tiles": Counter(i["tile"] for s in seats for i in s["investments"]),
            "established": established, "not_established": open_questions}


# Plots -------------------------------------------------------------------------------------

def _figure(width: float, height: float, columns: int = 1):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    figure = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(figure)
    return figure, [figure.add_subplot(1, columns, index + 1) for index in range(columns)]


def _error_bars(rows: list[dict], key: str = "share", low: str = "low", high: str = "high"):
    return np.array([[row[key] - row[low] for row in rows], [row[high] - row[key] for row in rows]])


def plot_turn_positions(positions: list[dict]):
    """Win share by turn position, one panel per player count, the fair share dashed."""
    counts = sorted({row["players"] for row in positions})
    figure, axes = _figure(3.2 * len(counts) + 1, 3.4, len(counts))
    for panel, players in zip(axes, counts):
        rows = [row for row in positions if row["players"] == players]
        panel.bar([row["position"] for row in rows], [row["share"] for row in rows],
                  yerr=_error_bars(rows), color="tab:blue", capsize=4)
        panel.axhline(1 / players, color="black", linestyle="--", linewidth=1)
        panel.set_title(f"{players} players ({rows[0]['games']} games)")
        panel.set_xlabel("turn position (1 = first player)")
        panel.set_xticks([row["position"] for row in rows])
    axes[0].set_ylabel("win share [95% Wilson]")
    figure.tight_layout()
    return figure


def plot_goals(goals: list[dict]):
    """Public goals: how often scored and the scorer's win share; private goals: how
    often achieved and the win share when achieved against missed."""
    public = [g for g in goals if g["public"]["games"]]
    private = [g for g in goals if g["private"]["held"]]
    figure, (left, right) = _figure(13, 5.5, 2)
    positions = np.arange(len(public))
    scored = [g["public"] for g in public]
    left.barh(positions - 0.2, [row["rate"] for row in scored], 0.4,
              xerr=_error_bars(scored, "rate"), label="scored in the game", color="tab:gray")
    scorers = [g["public"]["scorer_win"] for g in public]
    left.barh(positions + 0.2, [row["share"] for row in scorers], 0.4,
              xerr=_error_bars(scorers), label="its scorer won the game", color="tab:green")
    left.set_yticks(positions, [g["goal"] for g in public], fontsize=8)
    left.set_title("Public goals")
    left.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.05), ncol=2)
    positions = np.arange(len(private))
    achieved = [g["private"]["win_when_achieved"] for g in private]
    missed = [g["private"]["win_when_missed"] for g in private]
    right.barh(positions - 0.2, [row["share"] for row in achieved], 0.4,
               xerr=_error_bars(achieved), label="win share when achieved", color="tab:green")
    right.barh(positions + 0.2, [row["share"] for row in missed], 0.4,
               xerr=_error_bars(missed), label="win share when missed", color="tab:red")
    right.set_yticks(positions, [g["goal"] for g in private], fontsize=8)
    right.set_title("Private goals")
    right.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.05), ncol=2)
    figure.tight_layout()
    return figure


def plot_differences(rows: list[dict], title: str, scale: float = 1.0, unit: str = ""):
    """Winner minus loser differences with their intervals, raw and within agents."""
    figure, (axes,) = _figure(8, 0.28 * len(rows) + 1.5)
    positions = np.arange(len(rows))
    for offset, prefix, colour, label in ((-0.15, "", "tab:blue", "raw"),
                                          (0.15, "adjusted_", "tab:orange", "within agent")):
        centre = "difference" if not prefix else "adjusted"
        values = np.array([row[centre] for row in rows]) * scale
        errors = np.array([[row[centre] - row[f"{prefix}low"] for row in rows],
                           [row[f"{prefix}high"] - row[centre] for row in rows]]) * scale
        axes.errorbar(values, positions + offset, xerr=errors, fmt="o", color=colour,
                      markersize=3, capsize=2, label=label)
    axes.axvline(0, color="black", linewidth=1)
    axes.set_yticks(positions, [row["name"] for row in rows], fontsize=8)
    axes.invert_yaxis()
    axes.set_xlabel(f"winners minus losers{unit} [95% game bootstrap]")
    axes.set_title(title)
    axes.legend(fontsize=8)
    figure.tight_layout()
    return figure


def plot_count_groups(lakes: list[dict], investments: list[dict]):
    """Win share by number of lakes and of investments, the fair share dashed."""
    figure, axes = _figure(9, 3.4, 2)
    for panel, rows, name in ((axes[0], lakes, "lakes made"),
                              (axes[1], investments, "investments made")):
        panel.bar([row["count"] for row in rows], [row["share"] for row in rows],
                  yerr=_error_bars(rows), color="tab:cyan", capsize=4)
        for index, row in enumerate(rows):
            panel.hlines(row["fair"], index - 0.4, index + 0.4, color="black",
                         linestyle="--", linewidth=1)
            panel.annotate(f"{row['seats']}", (index, 0.02), ha="center", fontsize=8)
        panel.set_xlabel(name)
    axes[0].set_ylabel("win share [95% Wilson]")
    figure.tight_layout()
    return figure


# Tables as text ----------------------------------------------------------------------------

def _columns(header: list[str], lines: list[list[str]]) -> str:
    widths = [max(len(row[index]) for row in [header, *lines]) for index in range(len(header))]
    text = ["  ".join(cell.ljust(width) if index == 0 else cell.rjust(width)
                      for index, (cell, width) in enumerate(zip(row, widths)))
            for row in [header, *lines]]
    text.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(text)


def _share_text(entry: dict) -> str:
    if not entry["games"]:
        return "-"
    return f"{entry['share']:.3f} [{entry['low']:.3f}, {entry['high']:.3f}]"


def _rate_text(entry: dict) -> str:
    if np.isnan(entry["rate"]):
        return "-"
    return f"{entry['rate']:.3f} [{entry['low']:.3f}, {entry['high']:.3f}]"


def _difference_text(entry: dict) -> str:
    if np.isnan(entry["difference"]):
        return "-"
    return f"{entry['difference']:+.3f} [{entry['low']:+.3f}, {entry['high']:+.3f}]"


def format_positions(positions: list[dict]) -> str:
    return _columns(["players", "turn position", "games", "win share [95% CI]", "fair share",
                     "mean pop"],
                    [[str(row["players"]), str(row["position"]), str(row["games"]),
                      _share_text(row), f"{row['fair']:.3f}", f"{row['mean_population']:.1f}"]
                     for row in positions])


def format_goals(goals: list[dict]) -> str:
    public = [[g["goal"], str(g["public"]["games"]), _rate_text(g["public"]),
               f"{g['public']['mean_bonus']:.1f}" if g["public"]["count"] else "-",
               _share_text(g["public"]["scorer_win"]), _rate_text(g["public"]["decisive"])]
              for g in goals if g["public"]["games"]]
    private = [[g["goal"], str(g["private"]["held"]), _rate_text(g["private"]),
                f"{g['private']['mean_bonus']:.1f}" if g["private"]["count"] else "-",
                _share_text(g["private"]["win_when_achieved"]),
                _share_text(g["private"]["win_when_missed"]),
                _difference_text(g["private"]["win_difference"])]
               for g in goals if g["private"]["held"]]
    return ("Public goals (R8.2: only a player strictly ahead scores):\n"
            + _columns(["goal", "games", "scored [95% CI]", "bonus", "scorer won [95% CI]",
                        "bonus decided the game"], public)
            + "\n\nPrivate goals (scored only strictly alone in front):\n"
            + _columns(["goal", "kept", "achieved [95% CI]", "bonus", "won when achieved",
                        "won when missed", "difference [95% CI]"], private))


def format_differences(rows: list[dict], scale: float = 1.0, digits: int = 2) -> str:
    def number(value):
        return "-" if np.isnan(value) else f"{scale * value:+.{digits}f}"

    return _columns(["", "winners", "losers", "difference [95% CI]", "within agent [95% CI]",
                     "established"],
                    [[row["name"], f"{scale * row['winners']:.{digits}f}",
                      f"{scale * row['losers']:.{digits}f}",
                      f"{number(row['difference'])} [{number(row['low'])}, "
                      f"{number(row['high'])}]",
                      f"{number(row['adjusted'])} [{number(row['adjusted_low'])}, "
                      f"{number(row['adjusted_high'])}]",
                      "yes" if row["established"] else "no"] for row in rows])


def format_groups(rows: list[dict], name: str) -> str:
    return _columns([name, "seats", "win share [95% CI]", "fair share", "mean pop"],
                    [[row["count"], str(row["seats"]), _share_text(row), f"{row['fair']:.3f}",
                      f"{row['mean_population']:.1f}"] for row in rows])
