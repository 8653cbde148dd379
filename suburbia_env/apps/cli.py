"""The `suburbia` command: play in the terminal, run tournaments, train, benchmark,
replay game records and render saved games.

    suburbia play [--opponents dale]                   you against Dale the bot (R9.2)
    suburbia play --players 3 --opponents greedy random
    suburbia play --mode solitary                      Solitary Architect (R9.1)
    suburbia play --resume saved.json                  continue a saved or unfinished game
    suburbia match --agents greedy dale random --mode dale --games 100
    suburbia train --total-timesteps 100000 --output-dir runs/try
    suburbia train --backend rllib [--address HOST:PORT]  PPO with RLlib on Ray
    suburbia train --recipe dale                       a released model's whole recipe
    suburbia bench --quick
    suburbia replay game.json [--boards]
    suburbia review game.json [--out DIR]             every decision evaluated by the search
    suburbia render state.json --png board.png [--svg board.svg] [--text]
    suburbia serve [--port 8000]                       play, watch and replay in a browser
    suburbia convert-model model.zip model.safetensors  a pickled model to the safe format

`suburbia <command> --help` lists each command's options; `suburbia --version` the
version. Bad input (a file that is not what it should be, an option out of range, a path
that cannot be written) gives a message on stderr and a non-zero status, never a
traceback (a bad option: one line naming it, suburbia_env/arguments.py). Exit statuses:
0 done; 1 a file or folder that cannot be read or written; 2 bad input; 3 a command that
needs an extra the install lacks (match and league: bench; train and ppo agents: train;
serve: web), which it names; 4 `serve` on a port another program holds; 70 an unexpected
error, reported as an internal error with its type (SUBURBIA_DEBUG=1 shows the
traceback); 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import sys
from pathlib import Path
from typing import TextIO

from ..arguments import ArgumentParser
from ..errors import StateFormatError, SuburbiaError, shown
from ..engine.rng import MAX_SEED, secret_seed
from ..game import Game
from ..versions import version_text
from .command_errors import (EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_MISSING_EXTRA,
                             EXIT_OS_ERROR, EXIT_PORT_TAKEN, CliError, PortTakenError)
from .terminal_game import TerminalGame
from .terminal_saving import default_save_path, offer_to_save, save_game
from .terminal_saving import write_error as _write_error
from .terminal_screen import final_scores_lines

MAX_JSON_BYTES = 100_000_000  # a state or record file larger than this is refused

# What a command needs beyond the core install: the extra of pyproject.toml that brings
# each optional module (tqdm is in two extras: the command's own is named), and the core
# dependencies, which only a damaged install lacks.
EXTRA_OF_MODULE = {"torch": "train", "stable_baselines3": "train", "sb3_contrib": "train",
                   "safetensors": "train", "tensorboard": "train", "rich": "train",
                   "openskill": "bench", "matplotlib": "bench", "fastapi": "web",
                   "uvicorn": "web", "cryptography": "web", "pettingzoo": "pettingzoo",
                   "pyspiel": "openspiel", "open_spiel": "openspiel"}
EXTRA_OF_COMMAND = {"train": "train", "review": "train", "match": "bench", "tournament": "bench",
                    "league": "bench", "bench": "bench", "serve": "web"}
CORE_MODULES = ("numpy", "numba", "gymnasium", "resvg_py", "PIL")


# play: the terminal game lives in terminal_game.py and its terminal_*.py -------------------

def _play_setup(args) -> tuple[Game, int, dict, dict, str]:
    """The game, the person's seat, the agents and their specs by seat, and where the seed
    came from: "given" (--seed), "random" (the default) or "file" (--resume)."""
    from agents import make_agent
    from agents.table import agent_seed
    opponents = list(args.opponents) if args.opponents else []
    if args.seed is not None and not 0 <= args.seed <= MAX_SEED:
        raise CliError(f"--seed must be 0..2**64-1, not {shown(args.seed)}")
    saved = None
    args.hints_used = 0
    if args.resume is not None:
        saved, hints_used = _load_saved(args.resume)
        if hints_used is not None:  # saved by a game with hints: they go on, counted
            args.hints, args.hints_used = True, hints_used.get(args.seat if saved.config.mode
                                                               == "standard" else 0, 0)
        if saved.is_over:
            raise CliError(f"{args.resume}: the saved game is already over")
        for option, value, wanted in (("--mode", args.mode, saved.config.mode),
                                      ("--players", args.players, saved.config.players),
                                      ("--edition", args.edition, saved.config.edition),
                                      ("--seed", args.seed, saved.seed)):
            if value is not None and value != wanted:
                raise CliError(f"{args.resume} holds a game with {option} {wanted}, not {value}")
        args.mode, args.players = saved.config.mode, saved.config.players
    mode = args.mode
    if mode is None:
        if args.players is None and opponents in ([], ["dale"]):
            mode = "dale"
        else:
            mode = "standard"
    if mode == "dale":
        if opponents not in ([], ["dale"]) or args.players not in (None, 1):
            raise CliError("against Dale (R9.2) you play alone: the engine plays Dale; use "
                           "--players N --opponents ... for a standard game")
        players, seats = 1, {}
    elif mode == "solitary":
        if opponents or args.players not in (None, 1):
            raise CliError("Solitary Architect (R9.1) has no opponents and one player")
        players, seats = 1, {}
    else:
        opponents = opponents or ["dale"]
        players = args.players if args.players is not None else len(opponents) + 1
        if players not in (2, 3, 4):
            raise CliError(f"a standard game seats 2 to 4 players (R3.1), not {players}")
        if len(opponents) > players - 1:
            raise CliError(f"{len(opponents)} opponents do not fit at a table of {players}")
        if not 0 <= args.seat < players:
            raise CliError(f"--seat must be 0..{players - 1}")
        others = [seat for seat in range(players) if seat != args.seat]
        seats = {seat: opponents[number % len(opponents)] for number, seat in enumerate(others)}
    human = args.seat if mode == "standard" else 0
    source = "file" if saved is not None else "given" if args.seed is not None else "random"
    if saved is None:
        saved = Game(players, mode, args.edition or "2nd",
                     args.seed if args.seed is not None else secret_seed())
    game = saved
    seed = game.seed if isinstance(game.seed, int) else secret_seed()  # the bots' seeds
    agents = {seat: make_agent(spec, seed=agent_seed(seed, seat),
                               allow_pickle=args.allow_pickle)
              for seat, spec in seats.items()}
    for agent in agents.values():
        agent.check_mode(mode)
    return game, human, agents, seats, source


def _resume_hint(args, game: Game, human: int, labels: dict[int, str]) -> str:
    """The options that seat the same players again after `--resume PATH`."""
    if game.config.mode != "standard":
        return ""
    specs = [shlex.quote(labels[seat]) for seat in sorted(labels)]
    hint = f" --seat {human}" if human else ""
    return hint + " --opponents " + " ".join(specs) + (" --allow-pickle" if args.allow_pickle
                                                       else "")


def command_play(args, extra, stdin: TextIO, stdout: TextIO) -> int:
    try:
        game, human, agents, labels, seed_source = _play_setup(args)
    except (ValueError, FileNotFoundError) as error:
        raise CliError(str(error)) from None
    if args.hints and game.config.mode == "solitary":
        raise CliError("--hints: Solitary Architect (R9.1) has no opponent to win against, so "
                       "the search has no win probability to hint with")
    session = TerminalGame(game, human, agents, stdin, stdout, not args.no_board, labels,
                           save_path=args.save_record or args.resume,
                           resume_hint=_resume_hint(args, game, human, labels),
                           seed_source=seed_source, hints=args.hints,
                           hints_used=args.hints_used)
    status = session.run()
    game = session.game  # an undo replaces the game
    if args.save_record and game.is_over:
        try:
            what = save_game(game, args.save_record, human,  # a state after a redraw
                             session.hints_used if args.hints else None)
            print(f"{what.capitalize()} written to {args.save_record}", file=stdout)
        except (OSError, ValueError) as error:  # the finished game is not lost for that
            print(f"Cannot write {shown(str(args.save_record))}: {_write_error(error)}",
                  file=stdout)
            offer_to_save(game, human, stdin, stdout, default_save_path(game), True)
            return 1
    return status


# match, train, bench ------------------------------------------------------------------------

def command_match(args, extra, stdin, stdout) -> int:
    from agents.tournament_cli import run_from_arguments
    run_from_arguments(args, stdout)
    return 0


def command_league(args, extra, stdin, stdout) -> int:
    from agents.league import run_from_arguments
    from agents.tournament_tasks import TournamentError
    try:
        run_from_arguments(args, stdout)
    except TournamentError as error:
        raise CliError(str(error)) from None
    return 0


def command_train(args, extra, stdin, stdout) -> int:
    """stable-baselines3 (training/train.py), or RLlib on Ray with --backend rllib
    (training/rllib_train.py); each backend parses the other options itself. With
    --recipe: a whole recipe (training/recipe_runner.py)."""
    if any(arg == "--recipe" or arg.startswith("--recipe=") for arg in extra):
        from training.recipe_runner import main as run_recipe
        return run_recipe(list(extra))
    backend = ArgumentParser(prog="suburbia train", add_help=False)
    backend.add_argument("--backend", choices=("sb3", "rllib"), default="sb3",
                         help="sb3: MaskablePPO in this process (default); rllib: PPO with "
                              "RLlib on Ray")
    chosen, rest = backend.parse_known_args(list(extra))
    if chosen.backend == "rllib":
        from agents.ray_session import import_ray
        import_ray()  # names the extra to install when Ray is missing
        from training.rllib_train import main as train_main
        train_main(rest)
        return 0
    from training.config import parse_config  # --help and bad options need no torch
    config = parse_config(rest)
    from training.train import train
    train(config)
    return 0


def engine_speed_script() -> Path:
    """benchmarks/engine_speed.py of the source tree this package runs from."""
    return Path(__file__).resolve().parents[2] / "benchmarks" / "engine_speed.py"


def load_engine_speed():
    """The module benchmarks/engine_speed.py (not part of the installed package)."""
    path = engine_speed_script()
    if not path.is_file():
        raise CliError(f"the engine benchmark is not here: {path} (it ships with the source "
                       f"tree, not the installed package)")
    spec = importlib.util.spec_from_file_location("engine_speed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def command_bench(args, extra, stdin, stdout) -> int:
    load_engine_speed().main(list(extra))
    return 0


# replay, render -----------------------------------------------------------------------------

def _read_json(path: Path, what: str):
    """The JSON value of a file; CliError for a file that cannot be read, is too large,
    is not UTF-8 text or not JSON, nests too deeply or holds a number too long to read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_JSON_BYTES + 1)
    except (OSError, ValueError) as error:  # ValueError: a NUL character in the path
        raise CliError(f"cannot read the {what} {shown(str(path))}: "
                       f"{_write_error(error)}") from None
    if len(data) > MAX_JSON_BYTES:
        raise CliError(f"{path}: larger than {MAX_JSON_BYTES} bytes, not a {what}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CliError(f"{path} is not UTF-8 text (byte {error.start} cannot be decoded): "
                       f"not a {what}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise CliError(f"{path} is not JSON ({error})") from None
    except RecursionError:
        raise CliError(f"{path}: JSON nested too deeply to be a {what}") from None
    except ValueError as error:  # e.g. a number beyond Python's int-to-text limit
        raise CliError(f"{path}: JSON that cannot be read ({str(error).split(';')[0]})") \
            from None


def command_replay(args, extra, stdin, stdout) -> int:
    """Step through a game record: each action, its event lines, optionally the board."""
    from ..serialization import replay_record
    record = _read_json(args.record, "game record")
    try:
        replay_record(record)  # checks the whole record first, naming the first bad field
    except StateFormatError as error:
        raise CliError(f"{args.record}: {error}") from None
    config = record["config"]
    game = Game(config["players"], config["mode"], config["edition"], record["seed"],
                config.get("random_private_goals", False))

    def say(text: str = "") -> None:
        print(text, file=stdout)

    say(f"Replaying {args.record}: {config['mode']} game, {config['players']} player(s), "
        f"edition {config['edition']}, seed {record['seed']}, {len(record['actions'])} actions")
    if args.boards:
        say(game.render())
    for number, action in enumerate(record["actions"], start=1):
        seat, round_number = game.current_player, game.round + 1
        events = game.apply(action)
        say(f"{number}. round {round_number}, player {seat}: {action}")
        for line in events:
            say(f"    {line}")
        if args.boards:
            say()
            say(game.render())
            say()
    say()
    if game.is_over:
        for line in final_scores_lines(game):
            say(line)
    else:
        say(f"The record ends before the game is over (round {game.round + 1}, "
            f"{game.pending_decision} of player {game.current_player}).")
    return 0


def command_review(args, extra, stdin, stdout) -> int:
    """Evaluate every decision of a finished game record (agents/review.py) and write
    decisions.json, decisions.csv and win_probability.png (docs/review.md)."""
    import time
    from agents.review import ReviewInputError, SearchSettings, review_record
    from agents.review_files import summary_lines, write_review
    record = _read_json(args.record, "game record")
    settings = SearchSettings(candidates=args.candidates, samples=args.samples,
                              threads=args.threads)
    if args.seed is not None and not 0 <= args.seed <= MAX_SEED:
        raise CliError(f"--seed must be 0..2**64-1, not {shown(args.seed)}")
    out = args.out if args.out is not None else args.record.parent / (args.record.stem
                                                                       + "-review")
    began = time.perf_counter()

    def progress(text: str) -> None:
        print(f"review: {text}", file=stdout, flush=True)

    try:
        review = review_record(record, model=args.model, settings=settings, seed=args.seed,
                               progress=progress, allow_pickle=args.allow_pickle)
    except (StateFormatError, ReviewInputError) as error:
        raise CliError(f"{args.record}: {error}") from None
    seconds = time.perf_counter() - began
    try:
        paths = write_review(review, out, args.record.name)
    except (OSError, ValueError) as error:
        raise CliError(f"cannot write the review into {shown(str(out))}: "
                       f"{_write_error(error)}") from None
    for line in summary_lines(review, seconds):
        print(line, file=stdout)
    print("Written: " + ", ".join(str(path) for path in paths), file=stdout)
    return 0


def _load_game(path: Path) -> Game:
    """A game from a state file (suburbia-state) or a game record (replayed)."""
    return _load_saved(path)[0]


def _load_saved(path: Path) -> tuple[Game, dict[int, int] | None]:
    """`_load_game`, and the hints each person asked for when the file says (a game that
    allowed hints, its optional field `hints_used`)."""
    from ..formats.records import read_hints_used
    from ..serialization import game_from_dict, replay_record
    data = _read_json(path, "game file")
    try:
        if isinstance(data, dict) and data.get("format") == "suburbia-record":
            game = replay_record(data)
        else:
            game = game_from_dict(data)
        return game, read_hints_used(data, game.config.players)
    except StateFormatError as error:
        raise CliError(f"{path}: {error}") from None


def write_bytes(data: bytes, path: Path) -> None:
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(data)
    except (OSError, ValueError) as error:
        raise CliError(f"cannot write {path}: {_write_error(error)}") from None


def command_render(args, extra, stdin, stdout) -> int:
    """The drawing of drawing.py (the web page's, the rgb_array mode's) as SVG and/or PNG;
    public information only, the private goals once the game is over (R10.2)."""
    from ..display.drawing import table_svg
    from ..display.picture import svg_to_png
    game = _load_game(args.file)
    svg = table_svg(game) if (args.png or args.svg) else None
    if args.svg:
        write_bytes(svg.encode("utf-8"), args.svg)
        print(f"Drawing (SVG) written to {args.svg}", file=stdout)
    if args.png:
        png = svg_to_png(svg)
        write_bytes(png, args.png)
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        print(f"Picture ({width} x {height} pixels) written to {args.png}", file=stdout)
    if args.text or not (args.png or args.svg):
        print(game.render(), file=stdout)
    return 0


def command_serve(args, extra, stdin, stdout) -> int:
    """`suburbia serve`: the web application (suburbia_env/apps/web), on 127.0.0.1 by default;
    without the web extra, main names it (missing_module_message)."""
    from .web.server import run_server
    return run_server(args, stdout)


# Parser -------------------------------------------------------------------------------------

def _add_secret_seed(parser: argparse.ArgumentParser, what: str, shown_when: str) -> None:
    """--seed of a command whose default is a secret seed (a person's game, the review's
    redraws): 64 bits from the operating system's secure generator."""
    parser.add_argument("--seed", type=int, default=None,
                        help=f"{what}, 0..2**64-1 (default: 64 random bits from the "
                             f"operating system's secure generator, {shown_when})")


def _add_allow_pickle(parser: argparse.ArgumentParser, what: str) -> None:
    """--allow-pickle: the one way to load a pickled model, which runs its code."""
    parser.add_argument("--allow-pickle", action="store_true",
                        help=f"{what}, which runs code stored in the file (trusted files "
                             f"only)")


def _add_record(parser: argparse.ArgumentParser, description: str) -> None:
    """The game record a command reads (replay, review)."""
    parser.add_argument("record", type=Path, help=description)


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="suburbia", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--version", action="version", version=version_text(),
                        help="print the version (package, rules, environment ids) and exit")
    commands = parser.add_subparsers(dest="command", metavar="command", required=True)

    play = commands.add_parser("play", help="play in the terminal against agents or Dale",
                               description="Play in the terminal. With no options: you against "
                                           "Dale the bot (R9.2), on a random seed. At the "
                                           "prompt type a move's number or the move itself "
                                           "(buy 3 @ -1,0), info <slot|tile>, legal, undo, "
                                           "save, help or quit.")
    play.add_argument("--opponents", nargs="+", metavar="SPEC",
                      help="agent specs of the other seats: random, dale, greedy, "
                           "greedy:WEIGHTS, goals, lakes, reputation, hoarder, ppo:PATH. Just 'dale' (the default) with no "
                           "--players means the Dale mode of R9.2")
    play.add_argument("--players", type=int, help="seats at the table in a standard game, 2-4")
    play.add_argument("--mode", choices=("dale", "solitary", "standard"),
                      help="dale (you against Dale, R9.2), solitary (R9.1) or standard "
                           "(default: dale for '--opponents dale' alone, else standard)")
    play.add_argument("--seat", type=int, default=0,
                      help="your seat in a standard game, 0..players-1 (default 0)")
    _add_secret_seed(play, "seed of the setup", "shown when the game is over")
    play.add_argument("--edition", choices=("2nd", "1st"), default=None,
                      help="stack layout: 2nd (default) or 1st (R3.2, R3.3)")
    play.add_argument("--resume", type=Path, metavar="FILE",
                      help="continue a saved game (a game record or a saved state, e.g. the "
                           "file an unfinished game was saved to); its mode, players and "
                           "edition are the file's, and what you cannot see is dealt anew "
                           "(R10.2)")
    play.add_argument("--no-board", action="store_true",
                      help="draw the game only when asked ('board')")
    play.add_argument("--save-record", type=Path, metavar="PATH",
                      help="write the game record (JSON) here at the end, or the unfinished "
                           "game (your position, without what you cannot see) if you leave "
                           "or the input ends")
    play.add_argument("--hints", action="store_true",
                      help="allow the 'hint' command: the search's best moves for your "
                           "decision, from what you can see only (off by default; the final "
                           "screen and the record say how many you used)")
    _add_allow_pickle(play, "let ppo agents load pickled stable-baselines3 .zip models")
    play.set_defaults(handler=command_play)

    from agents.tournament_cli import add_arguments
    for name in ("match", "tournament"):
        match = commands.add_parser(name, help="seeded tournament between agents "
                                    "(agents/tournament.py)" if name == "match"
                                    else "same as match")
        add_arguments(match)
        match.set_defaults(handler=command_match)

    from agents.league import add_arguments as add_league_arguments
    league = commands.add_parser("league", help="agents against each other at 2, 3 and 4 "
                                 "players, rated (agents/league.py)")
    add_league_arguments(league)
    league.set_defaults(handler=command_league)

    train = commands.add_parser("train", add_help=False,
                                help="train MaskablePPO (options: suburbia train --help), or "
                                     "PPO with RLlib on Ray (suburbia train --backend rllib "
                                     "--help)")
    train.set_defaults(handler=command_train, passthrough=True)
    bench = commands.add_parser("bench", add_help=False,
                                help="engine speed benchmark (options: suburbia bench --help)")
    bench.set_defaults(handler=command_bench, passthrough=True)

    replay = commands.add_parser("replay", help="show a game record step by step")
    _add_record(replay, "game record JSON (suburbia-record)")
    replay.add_argument("--boards", action="store_true", help="draw the game after every step")
    replay.set_defaults(handler=command_replay)

    review = commands.add_parser(
        "review", help="evaluate every decision of a finished game record with the search",
        description="For every decision of a finished game: the move played, the search's "
                    "best move, what the difference costs in win probability and expected "
                    "final margin, the policy's top moves, and each seat's win probability "
                    "over the game; each seat's biggest mistakes are printed. Each decision "
                    "is evaluated from what its seat knew (R10.2). Files: decisions.json, "
                    "decisions.csv, win_probability.png (docs/review.md). Needs the train "
                    "extra.")
    _add_record(review, "finished game record JSON (suburbia-record)")
    review.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="folder of the files (default: RECORD-review beside the record)")
    review.add_argument("--model", type=Path, default=None, metavar="PATH",
                        help="model to search with (default: models/multiplayer.safetensors "
                             "at 2-4 players, models/baseline.safetensors against Dale)")
    review.add_argument("--candidates", type=int, default=4, metavar="K",
                        help="the policy's K most probable moves are searched, with the move "
                             "played: 1..64 (default 4)")
    review.add_argument("--samples", type=int, default=16, metavar="S",
                        help="redraws of the hidden facts each candidate is played out on: "
                             "1..256 (default 16)")
    review.add_argument("--threads", type=int, default=1,
                        help="torch threads: 1..64 (default 1)")
    _add_secret_seed(review, "seed of the redraws", "written in the files")
    _add_allow_pickle(review, "let --model be a pickled stable-baselines3 .zip")
    review.set_defaults(handler=command_review)

    render = commands.add_parser("render", help="picture (PNG, SVG) and/or text of a saved game")
    render.add_argument("file", type=Path,
                        help="saved state JSON (suburbia-state) or a game record")
    render.add_argument("--png", type=Path, help="write the picture (PNG) here")
    render.add_argument("--svg", type=Path, help="write the drawing (SVG) here")
    render.add_argument("--text", action="store_true",
                        help="print the text rendering (the default without --png/--svg)")
    render.set_defaults(handler=command_render)

    serve = commands.add_parser("serve", help="play, watch and replay games in a browser",
                                description="The web application: start a game against "
                                            "agents, watch bots, replay records. Needs "
                                            "pip install -e \".[web]\".")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1, this machine only)")
    serve.add_argument("--port", type=int, default=8000,
                       help="port, 0..65535 (default 8000; 0: any free port); one another "
                            "program holds gives exit status 4")
    serve.add_argument("--allow-host", action="append", metavar="NAME",
                       help="a name the server is reached by, besides localhost and its "
                            "addresses (repeatable): requests naming any other host are "
                            "refused, a guard against DNS rebinding")
    serve.add_argument("--models", type=Path, action="append", metavar="DIR",
                       help="folder of trained models offered as ppo:PATH agents (default: "
                            "./models); only files under these folders can be loaded")
    serve.add_argument("--store", default=None, metavar="PATH",
                       help="SQLite file that keeps every game and replay, written as moves "
                            "are made, so that a restarted server resumes them (default: "
                            "suburbia/web-games.sqlite3 under the user's data folder; "
                            "':memory:' keeps nothing after the server stops)")
    serve.add_argument("--max-games", type=int, default=10_000,
                       help="games and replays kept, in all: 1 or more (default 10000); when "
                            "full, the longest-idle one of the network holding the most "
                            "makes room")
    serve.add_argument("--max-games-per-client", type=int, default=None,
                       help="games and replays one client address may hold: 1 or more "
                            "(default 20; on a loopback --host, where only this machine's "
                            "users connect, --max-games)")
    serve.add_argument("--max-games-per-network", type=int, default=None,
                       help="games and replays one network (/24 IPv4, /64 IPv6) may hold: "
                            "1 or more (default 60; on a loopback --host, --max-games)")
    serve.add_argument("--idle-minutes", type=float, default=7 * 24 * 60,
                       help="a game or replay nobody played for this long is deleted (reading "
                            "it does not count): a number above 0 (default 10080, a week)")
    serve.add_argument("--trusted-proxy", action="append", default=None, metavar="ADDRESS",
                       help="a reverse proxy whose X-Forwarded-For header names the client "
                            "(repeat for several); without it the header is ignored and the "
                            "limits count the connecting address")
    serve.add_argument("--secret-file", type=Path,
                       help="key that seals saved games (default: suburbia/web-secret.key "
                            "under the user's config folder, made on first use)")
    serve.set_defaults(handler=command_serve)

    convert = commands.add_parser(
        "convert-model", help="convert a pickled MaskablePPO .zip to the safe model format",
        description="Write NAME.safetensors (the policy's weights) and NAME.json (its "
                    "description) from a stable-baselines3 MaskablePPO zip. Nothing in the "
                    "zip is unpickled: its network is read from the plain JSON fields and "
                    "its weights with torch.load(weights_only=True), so an untrusted file "
                    "can be converted (agents/model_format.py).")
    convert.add_argument("source", type=Path, help="the MaskablePPO .zip")
    convert.add_argument("destination", type=Path, help="NAME.safetensors (NAME.json is "
                                                          "written beside it)")
    convert.add_argument("--env-id", default=None,
                         help="the gym id the model was trained on, e.g. Suburbia-v1 "
                              "(recorded in the description; default: unknown)")
    convert.add_argument("--notes", default=None, help="provenance text for the description")
    convert.set_defaults(handler=command_convert_model)
    return parser


def command_convert_model(args, extra, stdin, stdout) -> int:
    from agents.model_format import convert_pickled_model
    path = convert_pickled_model(args.source, args.destination, args.env_id, args.notes)
    print(f"Wrote {path} ({path.stat().st_size / 1e6:.1f} MB) and {path.with_suffix('.json')}; "
          f"play it with ppo:{path}", file=stdout)
    return 0


def main(argv: list[str] | None = None, stdin: TextIO | None = None,
         stdout: TextIO | None = None) -> int:
    """Entry point of the `suburbia` command; returns the exit status."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "passthrough", False):
        command = f"suburbia {args.command}"
        print(f"{command}: error: unrecognized arguments: {shown(' '.join(extra))} (see "
              f"{command} --help)", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)
    if stdin is None:
        _tolerate_bad_text(sys.stdin, "replace")  # invalid UTF-8 typed: refused, not fatal
    if stdout is None:
        _tolerate_bad_text(sys.stdout, "backslashreplace")  # odd bytes in file names
    try:
        return args.handler(args, extra, stdin or sys.stdin, stdout or sys.stdout)
    except PortTakenError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_PORT_TAKEN
    except (CliError, SuburbiaError) as error:  # ConfigError, ModelFormatError, ...: bad input
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped (e.g. `| head`)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as error:  # a file or folder that cannot be read or written
        where = f": {error.filename}" if error.filename else ""
        print(f"error: {error.strerror or error}{where}", file=sys.stderr)
        return EXIT_OS_ERROR
    except MemoryError:
        print("error: out of memory", file=sys.stderr)
        return EXIT_OS_ERROR
    except Exception as error:  # a bug of this package: short report, traceback on request
        missing = (missing_module_message(args.command, error)
                   if isinstance(error, ModuleNotFoundError) else None)
        if missing:
            print(f"error: {missing}", file=sys.stderr)
            return EXIT_MISSING_EXTRA
        if os.environ.get("SUBURBIA_DEBUG"):
            raise
        print(f"internal error ({type(error).__name__}: {shown(str(error))}); please report "
              f"it with the command that caused it (SUBURBIA_DEBUG=1 shows the traceback)",
              file=sys.stderr)
        return EXIT_INTERNAL_ERROR


def missing_module_message(command: str, error: ModuleNotFoundError) -> str | None:
    """What to install when `command` stopped on a module that is not installed; None for a
    module that no extra brings (then it is a bug, reported as an internal error)."""
    module = (error.name or "").split(".")[0]
    if module in CORE_MODULES:
        return (f"`suburbia {command}` needs the module {module!r}, a dependency of the core "
                f"install that is missing: reinstall with pip install -e . (in a clone) or "
                f"pip install --force-reinstall suburbia-env")
    extra = EXTRA_OF_MODULE.get(module)
    if module == "tqdm":
        extra = EXTRA_OF_COMMAND.get(command, "bench")
    if extra is None:
        return None
    return (f"`suburbia {command}` needs the '{extra}' extra (the module {module!r} is not "
            f"installed): pip install -e \".[{extra}]\" in a clone, or pip install "
            f"\"suburbia-env[{extra}]\"")


def _tolerate_bad_text(stream, errors: str) -> None:
    """Let a standard stream replace what it cannot decode or encode instead of raising."""
    try:
        stream.reconfigure(errors=errors)
    except (AttributeError, ValueError, OSError):  # not a TextIOWrapper (tests, pipes)
        pass


if __name__ == "__main__":
    sys.exit(main())
