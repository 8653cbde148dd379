"""How fast the environments step, beside the raw engine measured in the same run.

    python benchmarks/env_speed.py [--seconds S] [--repeats R] [--quick] [--seed N] [--modes]
                                   [--breakdown]

Every measurement plays uniformly random legal actions for about S seconds (after a
warm-up call that loads the compiled kernels) and reports learner decisions per second.
Only the first reset is seeded, as in a training loop (a seeded reset also rebuilds
Gymnasium's generator, which costs more than a game's reset itself). Rows:
- the Gymnasium env (SuburbiaEnv, dict observations) against Dale: the env alone (time
  inside reset/step) and env + Python-side sampling (`np.flatnonzero` of the mask and a
  draw from a seeded generator), since that sampling is a visible part of the loop;
- the PettingZoo AEC env, 2 players, through the usual agent_iter/last/step loop (env
  time = last() + step());
- the vector env (SuburbiaVectorEnv, flat observations, against Dale) at N = 1, 64 and
  1024 games with 1 and 2 numba threads, with `copy=True` (fresh output arrays, the
  default) and `copy=False` (the env's own buffers); actions for the whole batch are
  drawn with one vectorised numpy pass (`np.nonzero` of the mask batch, one uniform draw
  per row);
- with `--modes`, the vector env (N=256, copy=False, all threads) in each mode: against
  Dale, Solitary Architect (no opponent), 2 and 4 players against random compiled
  opponents; it shows how much of a step Dale's turn (R9.2) is;
- with `--breakdown`, where a vector-env step against Dale spends its time on one core:
  compiled loops step 256 games in turn, as the vector env does, adding one part at a
  time (the engine with the mask its random learner samples from; + the observation;
  + the env's own step, whose second mask is the mask's cost), and Dale's cell choice
  alone over positions of those games;
- the raw engine in the same mode, measured just before each row so that both see the
  same machine load: `random_play.play_random_games` (one thread) and
  `play_random_games_parallel` (two threads), decisions per second, where the mask and
  the sampling happen inside compiled code and no observation is encoded.
Each row is measured R times (`--repeats`, default 1) and the fastest run is printed,
as timeit does: on a shared machine the slower runs measure the neighbours' load.
Figures are printed, never asserted (timings depend on the machine and its load).
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from suburbia_env.engine import action_space as a  # noqa: E402
from suburbia_env.engine import constants as c  # noqa: E402
from suburbia_env.engine import event_log as ev  # noqa: E402
from suburbia_env.engine import state_layout as s  # noqa: E402
from suburbia_env.engine.dale import dale_choose_cell, dale_choose_slot  # noqa: E402
from suburbia_env.engine.env_core import (OPPONENT_DALE, Settings, play_game_opponents,  # noqa: E402
                                   reset_game, step_legal_game)
from suburbia_env.envs.env_runner import ENGINE_TABLES, new_games  # noqa: E402
from suburbia_env.envs.gym_env import SuburbiaEnv  # noqa: E402
from suburbia_env.engine.legal_actions import legal_action_mask  # noqa: E402
from suburbia_env.engine.observation import update_observation  # noqa: E402
from suburbia_env.envs.pettingzoo import env as pettingzoo_env  # noqa: E402
from suburbia_env.engine.random_play import (play_random_games,  # noqa: E402
                                             play_random_games_parallel)
from suburbia_env.engine.rng import random_below, seed_words  # noqa: E402
from suburbia_env.engine.tile_data import GOALS, TILES  # noqa: E402
from suburbia_env.engine.turn import apply_legal_action  # noqa: E402
from suburbia_env.envs.vector_env import SuburbiaVectorEnv  # noqa: E402

VECTOR_SIZES = (1, 64, 1024)
THREADS = (1, 2)
MODE_ROWS = (  # --modes: label, seats and mode of the raw engine, vector env options
    ("dale", 2, c.MODE_DALE, {}),
    ("solitary", 1, c.MODE_SOLITARY, {"players": 1, "mode": "solitary"}),
    ("2p random", 2, c.MODE_STANDARD, {"players": 2, "mode": "standard", "opponents": "random"}),
    ("4p random", 4, c.MODE_STANDARD, {"players": 4, "mode": "standard", "opponents": "random"}),
)


def sample_batch(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a bool mask batch, without a Python
    loop: the nonzero entries come row by row, so row i's legal actions sit at
    offsets[i] .. offsets[i] + counts[i] - 1 of the flat list."""
    rows, columns = np.nonzero(masks)
    counts = np.bincount(rows, minlength=masks.shape[0])
    offsets = np.cumsum(counts) - counts
    picks = offsets + (rng.random(masks.shape[0]) * counts).astype(np.int64)
    return columns[picks]


# Measurements -------------------------------------------------------------------------------

def measure_gym(seconds: float, seed: int) -> dict:
    env = SuburbiaEnv()
    rng = np.random.default_rng(seed)
    env_time = steps = 0
    episode = 0
    env.reset(seed=seed)  # warm-up
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        before = time.perf_counter()
        observation, _ = env.reset(seed=seed if episode == 0 else None)
        env_time += time.perf_counter() - before
        episode += 1
        terminated = False
        while not terminated:
            legal = np.flatnonzero(observation["action_mask"])
            action = int(legal[rng.integers(legal.size)])
            before = time.perf_counter()
            observation, _, terminated, _, _ = env.step(action)
            env_time += time.perf_counter() - before
            steps += 1
    total = time.perf_counter() - start
    return {"steps": steps, "env": steps / env_time, "with_sampling": steps / total}


def measure_pettingzoo(seconds: float, seed: int, players: int) -> dict:
    env = pettingzoo_env(players=players)
    rng = np.random.default_rng(seed)
    env_time = steps = 0
    episode = 0
    env.reset(seed=seed)  # warm-up
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        before = time.perf_counter()
        env.reset(seed=seed if episode == 0 else None)
        env_time += time.perf_counter() - before
        episode += 1
        for _ in env.agent_iter():
            before = time.perf_counter()
            observation, _, termination, truncation, _ = env.last()
            env_time += time.perf_counter() - before
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(legal.size)])
                steps += 1
            before = time.perf_counter()
            env.step(action)
            env_time += time.perf_counter() - before
    total = time.perf_counter() - start
    return {"steps": steps, "env": steps / env_time, "with_sampling": steps / total}


def measure_vector(seconds: float, seed: int, num_envs: int, threads: int, copy: bool,
                   **options) -> dict:
    env = SuburbiaVectorEnv(num_envs, observation_format="flat", num_threads=threads, copy=copy,
                            **options)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    env.step(sample_batch(env.masks, rng))  # warm-up (loads the parallel kernel)
    env_time = calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = sample_batch(env.masks, rng)
        before = time.perf_counter()
        env.step(actions)
        env_time += time.perf_counter() - before
        calls += 1
    total = time.perf_counter() - start
    steps = calls * num_envs
    return {"steps": steps, "env": steps / env_time, "with_sampling": steps / total}


def measure_engine(seconds: float, seed: int, seats: int, mode: int, threads: int) -> float:
    """Decisions/s of compiled random games, in batches until `seconds` have passed."""
    tiles, goals, basic_kinds = TILES.table, GOALS.table, TILES.basic_kinds
    warm = seed_words(seed + 999, 4)
    if threads == 1:
        play_random_games(seats, mode, c.EDITION_SECOND, warm, warm, tiles, goals, basic_kinds)
    else:
        numba.set_num_threads(threads)
        play_random_games_parallel(seats, mode, c.EDITION_SECOND, warm, warm, tiles, goals,
                                   basic_kinds, threads)
    decisions = 0
    batch = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game_seeds = seed_words(seed * 1000 + batch, 64)
        player_seeds = seed_words(seed * 1000 + batch + 500_000, 64)
        if threads == 1:
            played = play_random_games(seats, mode, c.EDITION_SECOND, game_seeds, player_seeds,
                                       tiles, goals, basic_kinds)
        else:
            played = play_random_games_parallel(seats, mode, c.EDITION_SECOND, game_seeds,
                                                player_seeds, tiles, goals, basic_kinds,
                                                threads)
        decisions += int(played.sum())
        batch += 1
    return decisions / (time.perf_counter() - start)


# Breakdown of a vector-env step against Dale ---------------------------------------------
# Not cached: numba's cache only notices edits to a function's own file.

PART_ENGINE, PART_OBSERVATION, PART_ENV_STEP = 0, 1, 2
PART_LABELS = ("engine: learner's mask, action, Dale's turn",
               "+ observation", "+ the env's step (a second mask)")
BREAKDOWN_GAMES = 256
POSITION_STRIDE = 7  # positions from every stage of the games, not only their first rounds


@njit(cache=False)
def step_games_in_turn(part, rounds, tables, settings, games, game_seeds, actions, log, positions,
                       stored):
    """Step every game once per round with a random legal learner action, resetting
    finished games, up to `part`; store every POSITION_STRIDE-th position the learner
    decides in, up to positions.shape[0]. Returns the learner decisions made."""
    decisions = 0
    for _ in range(rounds):
        for index in range(games.states.shape[0]):
            state = games.states[index]
            if state[s.GAME_OVER]:
                reset_game(tables, settings, games, index, game_seeds[index], actions, log)
            if stored[0] < positions.shape[0] and decisions % POSITION_STRIDE == 0:
                positions[stored[0]] = state
                stored[0] += 1
            count = legal_action_mask(state, tables.tiles, tables.basic_kinds, games.masks[index],
                                      actions)
            action = actions[random_below(games.rng_words[index], 0, count)]
            if part == PART_ENV_STEP:
                step_legal_game(tables, settings, games, index, action, actions, log)
            else:
                apply_legal_action(state, tables.tiles, tables.goals, tables.basic_kinds, action,
                                   log)
                play_game_opponents(tables, games, index, actions, log)
                if part == PART_OBSERVATION:
                    update_observation(state, tables.tiles, 0, games.observations[index],
                                       games.encoded[index])
            decisions += 1
    return decisions


@njit(cache=False)
def choose_dale_cells(positions, tiles, log):
    """Dale's cell choice (R9.2) at each stored position, for the tile he would take
    from the market as it stands (Dale's own turn happens inside the engine's step)."""
    chosen = 0
    for index in range(positions.shape[0]):
        state = positions[index]
        slot = dale_choose_slot(state, tiles, 1 << 30)  # Dale pays a flat price (R9.2)
        if slot >= 0:
            chosen += dale_choose_cell(state, tiles, log, c.DALE_SEAT,
                                       s.market_slot(state, slot)) >= 0
    return chosen


def measure_breakdown(repeats: int, seed: int) -> tuple[list[float], float]:
    """Microseconds per learner step of each cumulative part, and per Dale cell choice
    (the fastest of `repeats` runs)."""
    tiles = TILES.table
    games = new_games(BREAKDOWN_GAMES, 2, 0, np.full(4, OPPONENT_DALE, dtype=np.int32))
    games.states[:, s.GAME_OVER] = 1
    games.rng_words[:] = seed_words(seed + 1, BREAKDOWN_GAMES)
    settings = Settings(c.MODE_DALE, c.EDITION_SECOND, 1, False, 0, 0.0, False)
    game_seeds = seed_words(seed + 2, BREAKDOWN_GAMES)
    actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
    log = np.zeros((1, ev.NUM_EVENT_FIELDS), dtype=np.int32)
    positions = np.zeros((4096, s.STATE_SIZE), dtype=np.int32)
    stored = np.zeros(1, dtype=np.int64)
    arguments = (ENGINE_TABLES, settings, games, game_seeds, actions, log)
    best = [float("inf")] * 3
    for part in range(3):
        step_games_in_turn(part, 2, *arguments, positions, stored)  # compile and warm up
    # Fill the stored positions before any timed run: writing them (and faulting in their
    # pages) would otherwise land in the first timed run.
    rounds_to_fill = positions.shape[0] * POSITION_STRIDE // BREAKDOWN_GAMES + 1
    step_games_in_turn(PART_ENGINE, rounds_to_fill, *arguments, positions, stored)
    for _ in range(repeats):
        for part in range(3):
            start = time.perf_counter()
            decisions = step_games_in_turn(part, 100, *arguments, positions, stored)
            best[part] = min(best[part], (time.perf_counter() - start) / decisions * 1e6)
    positions = positions[:stored[0]]
    choose_dale_cells(positions[:8], tiles, log)
    choice = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        chosen = choose_dale_cells(positions, tiles, log)
        choice = min(choice, (time.perf_counter() - start) / max(1, chosen) * 1e6)
    return best, choice


def print_breakdown(parts: list[float], dale_choice: float) -> None:
    engine, with_observation, env_step = parts
    mask = env_step - with_observation
    print(f"\nWhere a vector-env step against Dale goes, one core, {BREAKDOWN_GAMES} games "
          f"stepped in turn (us per learner step, fastest run):")
    for label, value in zip(PART_LABELS, parts):
        print(f"  {label:<46} {value:6.2f}")
    print(f"  => engine without the mask {engine - mask:.2f}, mask {mask:.2f}, observation "
          f"{with_observation - engine:.2f}; the env's compiled step about "
          f"{with_observation:.2f}")
    print(f"  Dale's cell choice alone (R9.2), at stored learner decisions, the tile he would "
          f"take: {dale_choice:.2f} us")


def fastest(repeats: int, measure) -> dict | float:
    """The fastest of `repeats` runs of `measure()` (by env steps/s for env rows)."""
    runs = [measure() for _ in range(repeats)]
    return max(runs, key=lambda run: run["env"] if isinstance(run, dict) else run)


# Report ---------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="seconds of play per measurement (default 3)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="runs per row, the fastest printed (default 1)")
    parser.add_argument("--quick", action="store_true", help="0.5 s per measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--breakdown", action="store_true",
                        help="also where a vector-env step against Dale spends its time")
    parser.add_argument("--modes", action="store_true",
                        help="also the vector env (N=256, 2 threads, copy=False) in each mode: "
                             "how much of a step Dale's turn is")
    args = parser.parse_args(argv)
    seconds = 0.5 if args.quick else args.seconds
    if seconds <= 0:
        parser.error("--seconds must be positive")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    repeats = args.repeats
    available = numba.config.NUMBA_NUM_THREADS
    threads = [count for count in THREADS if count <= available]

    # The raw engine is measured right before each environment row, in the same mode
    # and thread count, so that both figures see the same machine load.
    rows = []
    raw = fastest(repeats, lambda: measure_engine(seconds, args.seed, 2, c.MODE_DALE, 1))
    rows.append(("Gymnasium SuburbiaEnv (dict)", "dale", 1,
                 fastest(repeats, lambda: measure_gym(seconds, args.seed)), raw))
    raw = fastest(repeats, lambda: measure_engine(seconds, args.seed, 2, c.MODE_STANDARD, 1))
    rows.append(("PettingZoo AEC env (wrapped)", "2 players", 1,
                 fastest(repeats, lambda: measure_pettingzoo(seconds, args.seed, 2)), raw))
    for num_envs in VECTOR_SIZES:
        for count in threads:
            raw = fastest(repeats,
                          lambda: measure_engine(seconds, args.seed, 2, c.MODE_DALE, count))
            for copy in (True, False):
                vector = fastest(repeats, lambda: measure_vector(seconds, args.seed, num_envs,
                                                                  count, copy))
                rows.append((f"SuburbiaVectorEnv N={num_envs} copy={'yes' if copy else 'no'}",
                             "dale", count, vector, raw))
    if args.modes:
        count = threads[-1]
        for label, seats, mode, options in MODE_ROWS:
            raw = fastest(repeats, lambda: measure_engine(seconds, args.seed, seats, mode, count))
            vector = fastest(repeats, lambda: measure_vector(seconds, args.seed, 256, count, False,
                                                             **options))
            rows.append(("SuburbiaVectorEnv N=256 copy=no", label, count, vector, raw))

    print(f"Environment speed: learner decisions per second with random legal actions, "
          f"{seconds:g} s per measurement, fastest of {repeats}; CPUs: {os.cpu_count()}, numba threads available: "
          f"{available}")
    header = (f"{'environment':<34} {'mode':<10} {'thr':>3} | {'env steps/s':>12} "
              f"{'env+sampling/s':>15} | {'raw engine dec/s':>16} {'env/raw':>8}")
    print(header)
    print("-" * len(header))
    for name, mode, count, figures, raw in rows:
        print(f"{name:<34} {mode:<10} {count:>3} | {figures['env']:>12,.0f} "
              f"{figures['with_sampling']:>15,.0f} | {raw:>16,.0f} "
              f"{100 * figures['env'] / raw:>7.1f}%")
    print("env steps/s: time inside the environment's own calls only; env+sampling/s: the "
          "whole loop including choosing the action in Python/numpy. Raw engine: compiled "
          "random games (mask + sampling + apply, no observation), same mode and threads.")
    if args.breakdown:
        print_breakdown(*measure_breakdown(max(3, repeats), args.seed))


if __name__ == "__main__":
    main()
