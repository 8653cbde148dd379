"""The command line of a tournament (`suburbia match`, benchmarks/strength.py): its
arguments, and a run from them that prints the results table and writes the files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from suburbia_env.arguments import ArgumentParser
from suburbia_env.errors import ConfigError

from .registry import AGENT_SPECS, allow_pickle_in_spec
from .tournament import run_tournament
from .tournament_files import write_outputs
from .tournament_results import format_summary, summarise
from .tournament_tasks import (BACKENDS, DEFAULT_WORKERS, MAX_GAMES, MAX_WORKERS, MODES,
                               TournamentError)


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=BACKENDS, default="process",
                        help="process: games in local processes (default); ray: games as Ray "
                             "tasks on a Ray cluster, --workers games at once (needs "
                             "pip install -e \".[distributed]\"); same results for the same "
                             "seeds")
    parser.add_argument("--address", default=None, metavar="HOST:PORT",
                        help="with --backend ray: the Ray cluster's head, or 'auto' for the "
                             "cluster this machine belongs to (default: a Ray instance "
                             "started on this machine for the run)")
    from .ray_session import add_insecure_argument
    add_insecure_argument(parser)


def add_time_limit_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--move-time-limit", type=float, default=None, metavar="SECONDS",
                        help="an agent whose decision takes longer forfeits the game: a number "
                             "above 0; a seat's first decision of each game is not timed "
                             "(default: no limit)")


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--agents", nargs="+", default=["greedy", "dale", "random"],
                        metavar="SPEC", help=f"agent specs: {', '.join(AGENT_SPECS)} "
                        "(FILE.py:NAME, MODULE:NAME: your own Agent, agent factory or function "
                        "(game) -> action; default: greedy dale random)")
    parser.add_argument("--mode", choices=MODES, default="dale",
                        help="dale: each agent alone against Dale (R9.2); solitary: alone "
                             "(R9.1); standard: the agents at one table (default dale)")
    parser.add_argument("--players", type=int, default=None,
                        help="seats in standard mode, 2-4 (default: number of agents, at most 4)")
    parser.add_argument("--games", type=int, default=100,
                        help=f"games, 1..{MAX_GAMES} (per agent in the solo modes; default 100)")
    parser.add_argument("--seed", type=int, default=0,
                        help="game i uses seed SEED+i, 0..2**63-1 (default 0)")
    parser.add_argument("--edition", choices=("2nd", "1st"), default="2nd",
                        help="stack layout: 2nd (default) or 1st (R3.2, R3.3)")
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS,
                        help=f"parallel processes, 1..{MAX_WORKERS} (1: in this process), or "
                             f"games at once with --backend ray (default {DEFAULT_WORKERS})")
    add_backend_arguments(parser)
    parser.add_argument("--output-dir", type=Path, default=Path("runs/strength"),
                        help="where results.csv, summary.json and populations.png go "
                             "(default runs/strength)")
    parser.add_argument("--records", action="store_true",
                        help="also write every game's record (replayable, suburbia replay)")
    add_time_limit_argument(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--allow-pickle", action="store_true",
                        help="let ppo agents load pickled stable-baselines3 .zip models, which "
                             "runs code stored in the file (trusted files only)")
    return parser


def run_from_arguments(arguments: argparse.Namespace, out=None) -> dict:
    out = out or sys.stdout
    agents = list(arguments.agents)
    if getattr(arguments, "allow_pickle", False):  # the permission travels in the specs
        agents = [allow_pickle_in_spec(spec) for spec in agents]
    try:
        result = run_tournament(agents, arguments.mode, arguments.games,
                                arguments.players, arguments.seed, arguments.edition,
                                arguments.workers, not arguments.no_progress, arguments.records,
                                getattr(arguments, "move_time_limit", None),
                                getattr(arguments, "backend", "process"),
                                getattr(arguments, "address", None))
    except (ConfigError, ValueError, OSError, TournamentError) as error:
        raise SystemExit(f"error: {error}") from None
    summary = summarise(result.rows, result.labels, result.config["mode"])
    print(format_summary(summary, result.config), file=out)
    paths = write_outputs(result, summary, arguments.output_dir)
    print(f"{len(result.rows)} seat results in {result.seconds:.1f} s; wrote "
          + ", ".join(str(path) for path in paths.values()), file=out)
    return summary


def main(argv: list[str] | None = None) -> dict:
    parser = add_arguments(ArgumentParser(
        prog="strength", description="Play a seeded tournament between agents and summarise it."))
    return run_from_arguments(parser.parse_args(argv))
