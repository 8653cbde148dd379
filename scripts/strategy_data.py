"""Data of the strategy study (issue 33, item 6): strong agents' games, every decision
valued by the game review's evaluator (agents/review.py), for notebooks/strategy.ipynb.

    nice -n 19 python scripts/strategy_data.py --chunks 160         # resumes where it stopped
    nice -n 19 python scripts/strategy_data.py --chunks 2 --out /tmp/s --games-per-chunk 2

Games: models/multiplayer.safetensors (deterministic, `ppo:`) at 2, 3 and 4 players,
against itself and against greedy (LINEUPS, cycled game by game; the seats of the two
agents rotate with the game's index). Game `g` is seeded `seed + g`, its redraws
`redraw_seed(seed, g)`: a chunk is made again exactly.

Each decision of kind `turn` or `keep_goal` with more than one legal move is evaluated as
the review evaluates it (`DecisionEvaluator.evaluate` on `Position`s: the deciding seat's
knowledge, what it cannot see redrawn, R10.2; every copy played out by the model), with
the candidates the review tries (the policy's `candidates` most probable moves and the
move played) and, for a paired comparison of the kinds of move, the policy's most probable
move of each kind (buy, lake, basic tile, investment) missing from them. Discards and
forced moves are not evaluated (they decide little and would cost as much).

A chunk of `--games-per-chunk` games is written as two files in `--out`, each written
whole or not at all (a temporary file renamed), so an interrupted run loses at most the
chunk under way and a rerun skips finished chunks:

- `games-NNNN.jsonl.gz`: one line per game: index, seed, players, lineup, agents, first
  player, the game record (replays to the same game), final scores, winners, settings;
- `candidates-NNNN.csv.gz`: one row per candidate of an evaluated decision (COLUMNS).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents import make_agent  # noqa: E402
from agents.review import (DecisionEvaluator, Position, SearchSettings,  # noqa: E402
                           observation_of, redraw_words, replay_decisions, top_moves)
from suburbia_env import Game  # noqa: E402
from suburbia_env.engine import constants as c  # noqa: E402
from suburbia_env.engine import event_log as ev  # noqa: E402
from suburbia_env.engine import state_layout as s  # noqa: E402
from suburbia_env.engine.action_space import (KIND_BASIC, KIND_BUY, KIND_INVEST,  # noqa: E402
                                              KIND_KEEP_GOAL, KIND_LAKE, KIND_VERBS,
                                              NUM_ACTIONS, action_fields)
from suburbia_env.engine.hex_grid import cell_coordinates, neighbour_coordinates  # noqa: E402
from suburbia_env.engine.scoring import goal_lead  # noqa: E402
from suburbia_env.engine.tile_data import GOALS, TILES  # noqa: E402
from suburbia_env.engine.tile_table import tile_cost, tile_type  # noqa: E402

MODEL = ROOT / "models" / "multiplayer.safetensors"
MODEL_SPEC = "ppo:models/multiplayer.safetensors"
LINEUPS = ((2, "self"), (2, "greedy"), (3, "self"), (2, "self"), (4, "self"), (2, "greedy"),
           (3, "greedy"), (4, "greedy"))
"""(players, opponent) of game g is LINEUPS[g % 8]: 2-player games are half the games
(the cheapest to evaluate), "greedy" puts greedy in every other seat."""
STUDY_SETTINGS = SearchSettings(candidates=3, samples=4)
"""The review's evaluator with fewer redraws (4, the review 16) and candidates (3 plus
the move played plus one of each kind of move): the budget goes to more positions, which
the study's averages need more than precise values of single positions (docs/strategy.md,
"The data")."""
EVALUATED_KINDS = ("turn", "keep_goal")
MOVE_KINDS = (KIND_BUY, KIND_LAKE, KIND_BASIC, KIND_INVEST)
TYPE_NAMES = (*c.TYPE_NAMES, "lake")
BASIC_KINDS = tuple(int(kind) for kind in TILES.basic_kinds)

DECISION_COLUMNS = (
    "game", "players", "lineup", "agent", "seat", "turn_position", "decision", "round",
    "phase", "decision_kind", "legal_moves", "money", "income", "reputation", "population",
    "tiles", *(f"own_{name}" for name in TYPE_NAMES), "markers_left", "private_goal",
    "private_lead", "public_lead_0", "public_lead_1", "public_lead_2", "value_win",
    "value_margin")
CANDIDATE_COLUMNS = (
    "candidate", "move", "move_kind", "tile", "tile_type", "price", "col", "row",
    *(f"adjacent_{name}" for name in TYPE_NAMES), "policy_probability", "played", "best",
    "win", "margin", "score", "d_money", "d_income", "d_reputation", "d_population",
    "red_lines", "d_private_lead", "d_public_lead_0", "d_public_lead_1", "d_public_lead_2")
COLUMNS = DECISION_COLUMNS + CANDIDATE_COLUMNS
"""One row per candidate. value_win/value_margin: the deciding seat's win probability and
expected final margin after the search's best candidate (the position's value before the
move); win/margin/score: after this candidate (the values after the move, for the move
played); d_*: what the candidate changes at once for the deciding seat (money, income,
reputation, population, its lead on its private goal and on each public goal, R8.2);
red_lines: red lines it crosses up minus those it falls back below (R8.1)."""


def lineup_of(game_index: int) -> tuple[int, str, list[str]]:
    """Players, opponent and the agent of every seat of game `game_index`."""
    players, opponent = LINEUPS[game_index % len(LINEUPS)]
    if opponent == "self":
        return players, opponent, ["model"] * players
    turn = game_index // len(LINEUPS)
    return players, opponent, ["model" if (seat + turn) % 2 == 0 else "greedy"
                               for seat in range(players)]


def redraw_seed(seed: int, game_index: int) -> int:
    return int(np.random.SeedSequence([seed, game_index, 7]).generate_state(1)[0])


def play_game(game_index: int, seed: int, model_agent) -> dict:
    """One seeded game of lineup_of(game_index), as a dict with its record."""
    players, opponent, agents = lineup_of(game_index)
    game_seed = seed + game_index
    game = Game(players, "standard", seed=game_seed)
    seated = [model_agent if agent == "model" else make_agent("greedy", seed=game_seed)
              for agent in agents]
    while not game.is_over:
        game.apply(seated[game.current_player].act(game))
    return {"game": game_index, "seed": game_seed, "players": players, "lineup": opponent,
            "agents": agents, "first_player": int(game.state[s.FIRST_PLAYER]),
            "public_goals": game.public_goals, "record": game.record(),
            "final_scores": game.final_scores(), "winners": game.winners}


def phase_of(game: Game) -> str:
    sizes = game.stack_sizes()
    return "A" if sizes["A"] > 0 else "B" if sizes["B"] > 0 else "C"


def borough_counts(game: Game, seat: int) -> tuple[dict, dict]:
    """Tiles of each type (lakes apart) in the seat's borough, and the type of each cell."""
    counts = {name: 0 for name in TYPE_NAMES}
    cells = {}
    for tile in game.player_state(seat)["borough"]:
        kind = "lake" if tile["lake"] else c.TYPE_NAMES[tile_type(TILES.table,
                                                                 TILES.kind(tile["tile"]))]
        counts[kind] += 1
        cells[(tile["col"], tile["row"])] = kind
    return counts, cells


def goal_leads(state: np.ndarray, seat: int) -> list[int]:
    """The seat's lead on its private goal and on each public goal (R8.2), 0 if none."""
    leads = []
    for goal in [int(s.private_goal(state, seat)), *s.public_goals(state).tolist()[:3]]:
        leads.append(int(goal_lead(state, TILES.table, GOALS.table, goal, seat))
                     if goal >= 0 else 0)
    return leads + [0] * (4 - len(leads))


def move_facts(game: Game, action: int, cells: dict) -> dict:
    """What a candidate is: its kind, tile, type, price, cell and the types around it."""
    move_kind, choice, cell = action_fields.py_func(int(action))
    kind, tile, type_name, price = KIND_VERBS[move_kind], "", "", 0
    col = row = None
    if move_kind in (KIND_BUY, KIND_LAKE):
        tile_kind = int(s.market_slot(game.state, choice))
        tile = TILES.names[tile_kind]
        type_name = ("lake" if move_kind == KIND_LAKE
                     else c.TYPE_NAMES[tile_type(TILES.table, tile_kind)])
        premium = c.SLOT_PREMIUMS[choice]
        price = premium if move_kind == KIND_LAKE else tile_cost(TILES.table, tile_kind) + premium
    elif move_kind == KIND_BASIC:
        tile_kind = BASIC_KINDS[choice]
        tile = TILES.names[tile_kind]
        type_name = c.TYPE_NAMES[tile_type(TILES.table, tile_kind)]
        price = tile_cost(TILES.table, tile_kind)
    elif move_kind == KIND_INVEST:
        tile_kind = int(s.cell_kind(game.state, game.current_player, cell))
        tile = TILES.names[tile_kind]
        type_name = c.TYPE_NAMES[tile_type(TILES.table, tile_kind)]
    elif move_kind == KIND_KEEP_GOAL:
        tile = GOALS.names[int(s.goal_options(game.state, game.current_player)[choice])]
    adjacent = {name: 0 for name in TYPE_NAMES}
    if cell >= 0:
        col, row = cell_coordinates(cell)
        for neighbour in neighbour_coordinates(col, row):
            if neighbour in cells:
                adjacent[cells[neighbour]] += 1
    return {"move_kind": kind, "tile": tile, "tile_type": type_name, "price": price,
            "col": col, "row": row, **{f"adjacent_{n}": v for n, v in adjacent.items()}}


def move_effects(game: Game, action: int, seat: int, leads: list[int]) -> dict:
    """What the candidate changes at once for the deciding seat (on a copy)."""
    after = game.copy()
    before = game.player_state(seat)
    after.apply(int(action))
    now = after.player_state(seat)
    red = sum(int(row[ev.FIELD_AMOUNT]) for row in after.last_events
              if int(row[ev.FIELD_EVENT]) == ev.EVENT_RED_LINE
              and int(row[ev.FIELD_PLAYER]) == seat)
    new_leads = goal_leads(after.state, seat)
    names = ("d_private_lead", "d_public_lead_0", "d_public_lead_1", "d_public_lead_2")
    return {"d_money": now["money"] - before["money"],
            "d_income": now["income"] - before["income"],
            "d_reputation": now["reputation"] - before["reputation"],
            "d_population": now["population"] - before["population"],
            "red_lines": red,
            **{name: new - old for name, new, old in zip(names, new_leads, leads)}}


def candidates_of(probabilities: np.ndarray, mask: np.ndarray, action: int,
                  settings: SearchSettings, decision_kind: str) -> np.ndarray:
    """The review's candidates (the policy's most probable and the move played) and the
    policy's most probable move of each kind of move (MOVE_KINDS) not yet among them."""
    chosen = list(top_moves(probabilities, mask, settings.candidates))
    if action not in chosen:
        chosen.append(action)
    if decision_kind == "turn":
        legal = np.flatnonzero(mask)
        kinds = {action_fields.py_func(int(move))[0] for move in chosen}
        by_probability = legal[np.argsort(-probabilities[legal], kind="stable")]
        for kind in MOVE_KINDS:
            if kind in kinds:
                continue
            for move in by_probability:
                if action_fields.py_func(int(move))[0] == kind:
                    chosen.append(int(move))
                    break
    return np.array(chosen, dtype=np.int32)


def evaluate_games(games: list[dict], evaluator: DecisionEvaluator, seed: int) -> list[dict]:
    """One row (COLUMNS) per candidate of every evaluated decision of `games`."""
    settings = evaluator.settings
    began = time.process_time()
    pending = []  # (game, decision facts, candidate facts, position)
    for entry in games:
        final, replayed = replay_decisions(entry["record"])
        generator = np.random.default_rng(redraw_seed(seed, entry["game"]))
        config = final.config
        chosen = [(index, item) for index, item in enumerate(replayed)
                  if item[2] in EVALUATED_KINDS]
        observations = np.stack([observation_of(item[0], item[1]) for _, item in chosen])
        masks = np.zeros((len(chosen), NUM_ACTIONS), dtype=np.bool_)
        for row, (_, item) in enumerate(chosen):
            masks[row] = Game.view(config, item[0]).legal_action_mask()
        probabilities = evaluator.policy_probabilities(observations, masks)
        for row, (index, (state, seat, kind, round_number, action, _text)) in enumerate(chosen):
            if masks[row].sum() < 2:
                continue
            game = Game.from_state(config, state)
            candidates = candidates_of(probabilities[row], masks[row], action, settings, kind)
            counts, cells = borough_counts(game, seat)
            leads = goal_leads(state, seat)
            player = game.player_state(seat)
            private = int(s.private_goal(state, seat))
            decision = {
                "game": entry["game"], "players": entry["players"], "lineup": entry["lineup"],
                "agent": entry["agents"][seat], "seat": seat,
                "turn_position": (seat - entry["first_player"]) % entry["players"],
                "decision": index, "round": round_number, "phase": phase_of(game),
                "decision_kind": kind, "legal_moves": int(masks[row].sum()),
                **{key: player[key] for key in ("money", "income", "reputation",
                                                "population", "markers_left")},
                "tiles": len(player["borough"]),
                **{f"own_{name}": value for name, value in counts.items()},
                "private_goal": GOALS.names[private] if private >= 0 else "",
                "private_lead": leads[0], "public_lead_0": leads[1],
                "public_lead_1": leads[2], "public_lead_2": leads[3]}
            facts = []
            for number, move in enumerate(candidates):
                facts.append({"candidate": number, "move": game.action_to_text(int(move)),
                              **move_facts(game, int(move), cells),
                              "policy_probability": float(probabilities[row][move]),
                              "played": int(move == action),
                              **move_effects(game, int(move), seat, leads)})
            pending.append((decision, facts, Position(state, seat, candidates,
                                                      redraw_words(generator))))
    prepared = time.process_time()
    evaluations = [None] * len(pending)
    for players in sorted({entry["players"] for entry in games}):
        # one player count a call: the evaluator's batches share the count of seats
        chosen = [number for number, item in enumerate(pending)
                  if item[0]["players"] == players]
        for number, evaluation in zip(chosen, evaluator.evaluate(
                [pending[number][2] for number in chosen])):
            evaluations[number] = evaluation
    print(f"  {len(pending)} decisions: preparing {prepared - began:.0f} s, search "
          f"{time.process_time() - prepared:.0f} s processor", flush=True)
    rows = []
    for (decision, facts, position), evaluation in zip(pending, evaluations):
        seat = position.viewer
        decision["value_win"] = float(evaluation.win_probabilities[evaluation.best, seat])
        decision["value_margin"] = float(evaluation.margins[evaluation.best, seat])
        for number, fact in enumerate(facts):
            rows.append({**decision, **fact, "best": int(number == evaluation.best),
                         "win": float(evaluation.win_probabilities[number, seat]),
                         "margin": float(evaluation.margins[number, seat]),
                         "score": float(evaluation.scores[number])})
    return rows


def write_whole(path: Path, lines: list[str]) -> None:
    """Write a gzipped text file whole or not at all."""
    temporary = path.with_name(path.name + ".part")
    with gzip.open(temporary, "wt", encoding="utf-8", compresslevel=9) as handle:
        handle.writelines(lines)
    os.replace(temporary, path)


def csv_lines(rows: list[dict]) -> list[str]:
    def cell(value) -> str:
        if value is None:
            return ""
        if isinstance(value, float):
            return f"{value:.4g}"
        text = str(value)
        return f'"{text}"' if "," in text or '"' in text else text
    return [",".join(COLUMNS) + "\n"] + [",".join(cell(row[name]) for name in COLUMNS) + "\n"
                                        for row in rows]


def run_chunk(chunk: int, games_per_chunk: int, seed: int, out: Path, model_agent,
              evaluator: DecisionEvaluator) -> tuple[int, int]:
    """Play and evaluate chunk `chunk`; (games, candidate rows) written."""
    first = chunk * games_per_chunk
    began = time.process_time()
    games = [play_game(index, seed, model_agent)
             for index in range(first, first + games_per_chunk)]
    played = time.process_time()
    rows = evaluate_games(games, evaluator, seed)
    print(f"chunk {chunk}: playing {played - began:.0f} s, evaluating "
          f"{time.process_time() - played:.0f} s processor", flush=True)
    settings = {"model": MODEL.name, "games_per_chunk": games_per_chunk,
                "candidates": evaluator.settings.candidates,
                "samples": evaluator.settings.samples,
                "margin_weight": evaluator.settings.margin_weight, "seed": seed}
    for entry in games:
        entry["settings"] = settings
        entry["redraw_seed"] = redraw_seed(seed, entry["game"])
    write_whole(out / f"candidates-{chunk:04d}.csv.gz", csv_lines(rows))
    write_whole(out / f"games-{chunk:04d}.jsonl.gz",
                [json.dumps(entry, separators=(",", ":")) + "\n" for entry in games])
    return len(games), len(rows)


def check_resumable(out: Path, options) -> None:
    """Refuse to add chunks made with other settings to a folder: a chunk's number says
    which games it holds only for one chunk size, seed and search."""
    for path in sorted(out.glob("games-*.jsonl.gz"))[:1]:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            made = json.loads(handle.readline())["settings"]
        wanted = {"games_per_chunk": options.games_per_chunk, "seed": options.seed,
                  "samples": options.samples, "candidates": options.candidates}
        different = {key: (made.get(key), value) for key, value in wanted.items()
                     if made.get(key) != value}
        if different:
            raise SystemExit(f"{out} holds chunks made with other settings "
                             f"(theirs, yours: {different}): resume with theirs or use "
                             f"another --out")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=160, help="chunks 0..N-1 (default 160)")
    parser.add_argument("--first-chunk", type=int, default=0)
    parser.add_argument("--games-per-chunk", type=int, default=2)
    parser.add_argument("--seed", type=int, default=330000)
    parser.add_argument("--samples", type=int, default=STUDY_SETTINGS.samples)
    parser.add_argument("--candidates", type=int, default=STUDY_SETTINGS.candidates)
    parser.add_argument("--out", type=Path, default=ROOT / "notebooks" / "data" / "strategy")
    parser.add_argument("--stop-at", type=float, default=None,
                        help="start no chunk after this Unix time")
    options = parser.parse_args(argv)
    if options.games_per_chunk < 1 or options.chunks < 1:
        parser.error("--chunks and --games-per-chunk must be at least 1")
    options.out.mkdir(parents=True, exist_ok=True)
    check_resumable(options.out, options)
    import torch
    torch.set_num_threads(1)
    settings = SearchSettings(candidates=options.candidates, samples=options.samples)
    evaluator = DecisionEvaluator(MODEL, settings)
    model_agent = make_agent(MODEL_SPEC, seed=options.seed)
    for chunk in range(options.first_chunk, options.chunks):
        if (options.out / f"games-{chunk:04d}.jsonl.gz").exists():
            continue
        if options.stop_at is not None and time.time() > options.stop_at:
            print(f"stopping before chunk {chunk}: --stop-at reached", flush=True)
            break
        began, cpu = time.perf_counter(), time.process_time()
        games, rows = run_chunk(chunk, options.games_per_chunk, options.seed, options.out,
                                model_agent, evaluator)
        print(f"chunk {chunk}: {games} games, {rows} candidate rows, "
              f"{time.perf_counter() - began:.0f} s wall, "
              f"{time.process_time() - cpu:.0f} s processor", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
