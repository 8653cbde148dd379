"""How fast the compiled engine plays: games/s and decisions/s of uniformly random legal
play, compile and start-up times, and where the time of a decision goes.

    python benchmarks/engine_speed.py [--games N] [--seed S] [--quick] [--skip-cold]

Every decision computes the legal mask and samples uniformly among the legal actions
(random_play.py). Figures are printed, never asserted. Sections:
1. games/s and decisions/s per configuration on one core (`play_random_games`) and on
   all numba threads (`play_random_games_parallel`, prange), after a warm-up;
2. start-up: a fresh interpreter importing the package and making the first call of
   every engine entry point, once with an empty numba cache (cold compile) and once
   with the normal cache (warm start);
3. a breakdown of one decision into copying the state, the legal mask, sampling and
   applying the action (resolution), by timing compiled loops over a stored set of
   states taken from random games.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np
from numba import njit

from suburbia_env.engine import action_space as a
from suburbia_env.engine import constants as c
from suburbia_env.engine import event_log as ev
from suburbia_env.engine import state_layout as s
from suburbia_env.arguments import ArgumentParser
from suburbia_env.engine.legal_actions import legal_action_mask
from suburbia_env.engine.random_play import play_random_games, play_random_games_parallel
from suburbia_env.engine.rng import random_below, seed_words
from suburbia_env.engine.setup import new_game
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.turn import apply_legal_action

BREAKDOWN_GAMES = 24  # games whose states feed the breakdown (150 decisions each at most)

CONFIGS = (  # label, seats, mode
    ("2 players", 2, c.MODE_STANDARD),
    ("3 players", 3, c.MODE_STANDARD),
    ("4 players", 4, c.MODE_STANDARD),
    ("solitary", 1, c.MODE_SOLITARY),
    ("dale", 2, c.MODE_DALE),
)


# Compiled loops of the breakdown --------------------------------------------------------
# Not cached: numba's cache only notices edits to a function's own file, so a cached
# copy of these loops could go on measuring an old engine after an engine edit.

@njit(cache=False)
def collect_states(num_players, mode, edition, game_seeds, player_seeds, tiles, goals,
                   basic_kinds, capacity):
    """The state before every decision of random games, up to `capacity` states."""
    stored = np.zeros((capacity, s.STATE_SIZE), dtype=np.int32)
    chosen = np.zeros(capacity, dtype=np.int32)
    state = np.zeros(s.STATE_SIZE, dtype=np.int32)
    mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
    words = np.zeros(4, dtype=np.int32)
    log = np.zeros((1, ev.NUM_EVENT_FIELDS), dtype=np.int32)
    count = 0
    for game in range(game_seeds.shape[0]):
        new_game(state, tiles, goals, basic_kinds, num_players, mode, edition, 1,
                 game_seeds[game])
        words[:] = player_seeds[game]
        while state[s.GAME_OVER] == 0:
            legal = legal_action_mask(state, tiles, basic_kinds, mask, actions)
            action = actions[random_below(words, 0, legal)]
            if count < capacity:
                stored[count] = state
                chosen[count] = action
                count += 1
            apply_legal_action(state, tiles, goals, basic_kinds, action, log)
    return stored[:count], chosen[:count]


@njit(cache=False)
def copy_state(destination, source):
    """Element by element: in numba this is ~10x faster than `destination[:] = source`,
    which goes through a temporary array (measured in this script's report)."""
    for index in range(source.shape[0]):
        destination[index] = source[index]


@njit(cache=False)
def time_copy_only(stored, repeats):
    scratch = np.zeros(s.STATE_SIZE, dtype=np.int32)
    total = 0
    for _ in range(repeats):
        for index in range(stored.shape[0]):
            copy_state(scratch, stored[index])
            total += scratch[s.ROUND]
    return total


@njit(cache=False)
def time_slice_copy(stored, repeats):
    scratch = np.zeros(s.STATE_SIZE, dtype=np.int32)
    total = 0
    for _ in range(repeats):
        for index in range(stored.shape[0]):
            scratch[:] = stored[index]
            total += scratch[s.ROUND]
    return total


@njit(cache=False)
def time_mask_only(stored, tiles, basic_kinds, repeats):
    mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
    total = 0
    for _ in range(repeats):
        for index in range(stored.shape[0]):
            total += legal_action_mask(stored[index], tiles, basic_kinds, mask, actions)
    return total


@njit(cache=False)
def time_mask_and_sample(stored, tiles, basic_kinds, repeats, words):
    mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
    total = 0
    for _ in range(repeats):
        for index in range(stored.shape[0]):
            count = legal_action_mask(stored[index], tiles, basic_kinds, mask, actions)
            total += actions[random_below(words, 0, count)]
    return total


@njit(cache=False)
def time_copy_and_apply(stored, chosen, tiles, goals, basic_kinds, repeats):
    """Copy each stored state and apply the action that was sampled there."""
    scratch = np.zeros(s.STATE_SIZE, dtype=np.int32)
    log = np.zeros((1, ev.NUM_EVENT_FIELDS), dtype=np.int32)
    total = 0
    for _ in range(repeats):
        for index in range(stored.shape[0]):
            copy_state(scratch, stored[index])
            apply_legal_action(scratch, tiles, goals, basic_kinds, chosen[index], log)
            total += scratch[s.ROUND]
    return total


@njit(cache=False)
def time_setup(num_players, mode, edition, game_seeds, tiles, goals, basic_kinds):
    state = np.zeros(s.STATE_SIZE, dtype=np.int32)
    total = 0
    for game in range(game_seeds.shape[0]):
        new_game(state, tiles, goals, basic_kinds, num_players, mode, edition, 1,
                 game_seeds[game])
        total += state[s.MARKET]
    return total


# Measurements ---------------------------------------------------------------------------

def _engine_args():
    return TILES.table, GOALS.table, TILES.basic_kinds


def _seeds(seed: int, games: int, salt: int) -> tuple[np.ndarray, np.ndarray]:
    return seed_words(seed * 1000 + salt, games), seed_words(seed * 1000 + salt + 500, games)


def _timed(function, *args) -> tuple[float, object]:
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def measure_throughput(games: int, seed: int, edition: int) -> list[dict]:
    """Games/s and decisions/s per configuration, one core and all threads."""
    threads = numba.get_num_threads()
    rows = []
    for salt, (label, seats, mode) in enumerate(CONFIGS):
        game_seeds, player_seeds = _seeds(seed, games, salt)
        warm_seeds, warm_players = _seeds(seed + 1, 8, salt)
        play_random_games(seats, mode, edition, warm_seeds, warm_players, *_engine_args())
        play_random_games_parallel(seats, mode, edition, warm_seeds, warm_players,
                                   *_engine_args(), threads)
        serial_time, serial = _timed(play_random_games, seats, mode, edition, game_seeds,
                                     player_seeds, *_engine_args())
        chunks = max(threads, min(games, 16 * threads))
        parallel_time, parallel = _timed(play_random_games_parallel, seats, mode, edition,
                                         game_seeds, player_seeds, *_engine_args(), chunks)
        if not np.array_equal(serial, parallel):
            raise RuntimeError(f"{label}: serial and parallel runs of the same seeds differ")
        decisions = int(serial.sum())
        rows.append({"config": label, "games": games, "decisions": decisions,
                     "decisions_per_game": decisions / games,
                     "serial_games_per_s": games / serial_time,
                     "serial_decisions_per_s": decisions / serial_time,
                     "parallel_games_per_s": games / parallel_time,
                     "parallel_decisions_per_s": decisions / parallel_time})
    return rows


def measure_breakdown(games: int, seed: int, edition: int, operations: int,
                      full_loop_us: dict[str, float]) -> list[dict]:
    """Microseconds per decision for copy, mask, sampling and apply, per configuration.

    The states before every decision of `games` random games are collected; 256 of
    them, evenly spread over the games' phases (so they stay in the CPU caches like the
    one live state of a real loop), are each processed `operations / 256` times.
    """
    rows = []
    tiles, goals, basic_kinds = _engine_args()
    for salt, (label, seats, mode) in enumerate(CONFIGS):
        game_seeds, player_seeds = _seeds(seed + 7, games, salt)
        collected, chosen = collect_states(seats, mode, edition, game_seeds, player_seeds,
                                           tiles, goals, basic_kinds, 150 * games)
        picks = np.linspace(0, collected.shape[0] - 1, min(256, collected.shape[0])).astype(int)
        stored = np.ascontiguousarray(collected[picks])
        chosen = np.ascontiguousarray(chosen[picks])
        count = stored.shape[0]
        repeats = max(1, operations // count)
        words = seed_words(seed, 1)[0]
        # Warm-up (compile or load from the cache) on a few states.
        time_copy_only(stored[:2], 1)
        time_slice_copy(stored[:2], 1)
        time_mask_only(stored[:2], tiles, basic_kinds, 1)
        time_mask_and_sample(stored[:2], tiles, basic_kinds, 1, words.copy())
        time_copy_and_apply(stored[:2], chosen[:2], tiles, goals, basic_kinds, 1)
        time_setup(seats, mode, edition, game_seeds[:2], tiles, goals, basic_kinds)
        per_decision = 1e6 / (count * repeats)
        copy_time, _ = _timed(time_copy_only, stored, repeats)
        slice_time, _ = _timed(time_slice_copy, stored, repeats)
        mask_time, _ = _timed(time_mask_only, stored, tiles, basic_kinds, repeats)
        sample_time, _ = _timed(time_mask_and_sample, stored, tiles, basic_kinds, repeats,
                                words.copy())
        apply_time, _ = _timed(time_copy_and_apply, stored, chosen, tiles, goals, basic_kinds,
                               repeats)
        setup_time, _ = _timed(time_setup, seats, mode, edition, game_seeds, tiles, goals,
                               basic_kinds)
        decisions_per_game = collected.shape[0] / games
        rows.append({"config": label, "states": count,
                     "copy_us": copy_time * per_decision,
                     "slice_copy_us": slice_time * per_decision,
                     "mask_us": mask_time * per_decision,
                     "sample_us": max(0.0, sample_time - mask_time) * per_decision,
                     "apply_us": max(0.0, apply_time - copy_time) * per_decision,
                     "setup_us": setup_time * 1e6 / games / decisions_per_game,
                     "full_loop_us": full_loop_us.get(label, float("nan"))})
    return rows


_STARTUP_SCRIPT = r"""
import json, time
start = time.perf_counter()
import numpy as np
from suburbia_env import Game
from suburbia_env.engine.checks.invariants import check_invariants
from suburbia_env.engine.random_play import play_random_games, play_random_games_parallel
from suburbia_env.engine.rng import seed_words
from suburbia_env.engine.tile_data import GOALS, TILES
imported = time.perf_counter()
game = Game(players=2, seed=0)
while not game.is_over:
    game.apply(int(game.legal_actions()[0]))
check_invariants(game.state, TILES.table)
facade = time.perf_counter()
words = seed_words(0, 1)
for seats, mode in ((2, 0), (1, 1), (2, 2)):
    play_random_games(seats, mode, 0, words, words, TILES.table, GOALS.table, TILES.basic_kinds)
serial = time.perf_counter()
play_random_games_parallel(2, 0, 0, words, words, TILES.table, GOALS.table, TILES.basic_kinds, 1)
parallel = time.perf_counter()
print(json.dumps({"import": imported - start, "game_facade": facade - imported,
                  "random_play": serial - facade, "parallel_random_play": parallel - serial,
                  "total": parallel - start}))
"""


def measure_startup(cache_dir: str | None) -> dict:
    """Run the start-up script in a fresh interpreter; `cache_dir` None = normal cache."""
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", _STARTUP_SCRIPT], env=env,
                            capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"start-up script failed:\n{result.stderr}")
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    figures["process_wall"] = wall
    return figures


# Report -----------------------------------------------------------------------------------

def _print_throughput(rows: list[dict], edition: str) -> None:
    threads = numba.get_num_threads()
    print(f"Random legal play, edition {edition} (mask computed at every decision), "
          f"numba threads: {threads}, CPUs: {os.cpu_count()}")
    print(f"{'config':<10} {'games':>6} {'dec/game':>8} | {'1 core games/s':>14} "
          f"{'decisions/s':>12} | {f'{threads} threads games/s':>17} {'decisions/s':>12} "
          f"{'speed-up':>8}")
    for row in rows:
        print(f"{row['config']:<10} {row['games']:>6} {row['decisions_per_game']:>8.1f} | "
              f"{row['serial_games_per_s']:>14,.0f} {row['serial_decisions_per_s']:>12,.0f} | "
              f"{row['parallel_games_per_s']:>17,.0f} {row['parallel_decisions_per_s']:>12,.0f} "
              f"{row['parallel_games_per_s'] / row['serial_games_per_s']:>7.2f}x")


def _print_breakdown(rows: list[dict]) -> None:
    print("Where one decision's time goes (microseconds per decision, one core, compiled "
          "loops over 256 stored states):")
    print(f"{'config':<10} {'mask':>7} {'sample':>7} {'apply':>7} {'setup':>7} {'sum':>7} "
          f"{'full loop':>9} | {'mask %':>6} {'apply %':>7} | {'copy':>6} {'a[:]=b':>7}")
    for row in rows:
        total = row["mask_us"] + row["sample_us"] + row["apply_us"] + row["setup_us"]
        print(f"{row['config']:<10} {row['mask_us']:>7.2f} {row['sample_us']:>7.2f} "
              f"{row['apply_us']:>7.2f} {row['setup_us']:>7.2f} {total:>7.2f} "
              f"{row['full_loop_us']:>9.2f} | {100 * row['mask_us'] / total:>5.0f}% "
              f"{100 * row['apply_us'] / total:>6.0f}% | {row['copy_us']:>6.2f} "
              f"{row['slice_copy_us']:>7.2f}")
    print("  mask: legal_action_mask; sample: drawing one of the legal actions; apply: "
          "apply_legal_action up to the next decision (resolution, steps 2-3, refill, Dale's "
          "turn); setup: new_game spread over the game's decisions; full loop: 1 / the "
          "one-core decisions/s above. copy: copying a state element by element (subtracted "
          "from apply); a[:]=b: the same copy written as a numba slice assignment.")


def _print_startup(label: str, figures: dict) -> None:
    print(f"{label}: total {figures['total']:.1f} s (import {figures['import']:.1f} s, first "
          f"Game + full game {figures['game_facade']:.1f} s, first random games "
          f"{figures['random_play']:.1f} s, first parallel call "
          f"{figures['parallel_random_play']:.1f} s; process {figures['process_wall']:.1f} s)")


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="suburbia bench",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4000,
                        help="games per configuration for throughput, 1 or more (default 4000)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the games, 0 or more (default 0)")
    parser.add_argument("--edition", choices=c.EDITION_NAMES, default="2nd",
                        help="stack layout: 2nd (default) or 1st (R3.2, R3.3)")
    parser.add_argument("--quick", action="store_true",
                        help="400 games per configuration and no cold compile")
    parser.add_argument("--skip-cold", action="store_true",
                        help="skip the cold compile measurement (about a minute)")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    games = 400 if args.quick else args.games
    if games < 1:
        parser.error("--games must be at least 1")
    edition = c.EDITION_NAMES.index(args.edition)

    load = os.getloadavg()
    print(f"Load average before the run: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
          f"(figures are only comparable on an otherwise idle machine)")
    rows = measure_throughput(games, args.seed, edition)
    _print_throughput(rows, args.edition)
    print()
    full_loop = {row["config"]: 1e6 / row["serial_decisions_per_s"] for row in rows}
    _print_breakdown(measure_breakdown(BREAKDOWN_GAMES, args.seed, edition,
                                       20_000 if args.quick else 100_000, full_loop))
    print()
    print("Start-up in a fresh interpreter: import the package, play a full game through "
          "Game, random games of three modes, one parallel call.")
    measure_startup(None)  # make sure the normal cache is filled
    _print_startup("warm start (cached)", measure_startup(None))
    if args.quick or args.skip_cold:
        print("cold compile: skipped (--quick / --skip-cold)")
    else:
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as empty_cache:
            _print_startup("cold compile (empty NUMBA_CACHE_DIR)", measure_startup(empty_cache))


if __name__ == "__main__":
    main()
