"""The `suburbia` command: play in the terminal, run tournaments, train, benchmark,
replay game records and render saved games.

    suburbia play [--opponents dale]                   you against Dale the bot (R9.2)
    suburbia play --players 3 --opponents greedy random
    suburbia play --mode solitary                      Solitary Architect (R9.1)
    suburbia play --resume saved.json                  continue a saved or unfinished game
    suburbia match --agents greedy dale random --mode dale --games 100
    suburbia train --total-timesteps 100000 --output-dir runs/try
    suburbia bench --quick
    suburbia replay game.json [--boards]
    suburbia render state.json --png board.png [--svg board.svg] [--text]
    suburbia serve [--port 8000]                       play, watch and replay in a browser
    suburbia convert-model model.zip model.safetensors  a pickled model to the safe format

`suburbia <command> --help` lists each command's options. Bad input (a file that is not
what it should be, an option out of range, a path that cannot be written) gives a message
on stderr and a non-zero status, never a traceback; an unexpected error is reported as an
internal error with its type (SUBURBIA_DEBUG=1 shows the traceback).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import shlex
import sys
from pathlib import Path
from typing import TextIO

import numpy as np

from .errors import StateFormatError, SuburbiaError, shown
from .game import Game

QUIT_WORDS = ("quit", "exit", "q")
CELLS_SHOWN = 40  # at most this many cells are listed per line of the compact legal list
MAX_LINE = 10_000  # characters of one typed line that are read; the rest is skipped
MAX_JSON_BYTES = 100_000_000  # a state or record file larger than this is refused
MAX_SEED = 2**64 - 1
EXIT_BAD_INPUT = 2
EXIT_OS_ERROR = 1
EXIT_INTERNAL_ERROR = 70


class CliError(Exception):
    """A command that cannot run as asked; main prints it and exits with status 2."""


# Legal moves, compactly ---------------------------------------------------------------------

def group_legal_moves(moves: list[str]) -> list[str]:
    """Lines listing the legal moves compactly: moves that differ only by cell are grouped,
    and slots or basic tiles sharing the same cells are listed together."""
    placements: dict[str, dict[tuple[str, ...], list[str]]] = {}
    singles: dict[str, list[str]] = {}
    order: list[str] = []
    cells_of: dict[tuple[str, str], list[str]] = {}
    for move in moves:
        verb, _, rest = move.partition(" ")
        if verb not in order:
            order.append(verb)
        if "@" in rest:
            argument, _, cell = rest.partition("@")
            cells_of.setdefault((verb, argument.strip()), []).append(cell.strip())
        else:
            singles.setdefault(verb, []).append(rest)
    for (verb, argument), cells in cells_of.items():
        placements.setdefault(verb, {}).setdefault(tuple(cells), []).append(argument)
    lines = []
    forms = {"buy": ("buy <slot> @ <col>,<row>", "slots"),
             "lake": ("lake <slot> @ <col>,<row>", "slots"),
             "basic": ("basic <tile> @ <col>,<row>", "tiles")}
    for verb in order:
        if verb in placements:
            form, noun = forms.get(verb, (f"{verb} <x> @ <col>,<row>", "choices"))
            for cells, arguments in placements[verb].items():
                shown = " ".join(cells[:CELLS_SHOWN])
                more = f" ... ({len(cells)} cells)" if len(cells) > CELLS_SHOWN else ""
                lines.append(f"  {form}: {noun} {' '.join(arguments)}; cells {shown}{more}")
        elif verb == "pass":
            lines.append("  pass")
        elif verb == "keep":
            lines.append("  keep <goal>: " + " | ".join(singles[verb]))
        else:
            form = {"invest": "invest <col>,<row>", "discard": "discard <slot>",
                    "remove": "remove <slot>"}.get(verb, f"{verb} <x>")
            lines.append(f"  {form}: {' '.join(singles[verb])}")
    return lines


# play ------------------------------------------------------------------------------------

PLAY_HELP = """Commands:
  <move>   a move in the action notation, e.g.  buy 3 @ -1,0   lake 5 @ 1,1
           basic suburbs @ 0,3   invest 0,1   discard 4   remove 2   keep <goal>   pass
           (cells are <col>,<row>: columns -6..6, rows 0..8; odd columns sit half a
           cell lower, R2.1)
  legal    list every legal move, one per line
  board    draw the game again
  help     this text
  quit     leave the game"""


def _seat_label(game: Game, seat: int, human: int, labels: dict[int, str]) -> str:
    if seat == human:
        return f"you (player {seat})"
    if game.config.mode == "dale" and seat == 1:
        return "Dale"
    return f"player {seat} ({labels[seat]})"


def final_scores_lines(game: Game, labels: dict[int, str] | None = None) -> list[str]:
    """The final scoring of a finished game as a table (R8.2, R8.3), with the solo rank."""
    labels = labels or {}
    lines = ["Final scores (R8.2):",
             f"  {'seat':<22} {'population':>10} {'goals':>6} {'money':>6} {'final':>6}  winner"]
    for score in game.final_scores():
        seat = score["player"]
        name = labels.get(seat) or ("Dale" if game.config.mode == "dale" and seat == 1
                                    else f"player {seat}")
        goals = sum(score["public_goals"].values()) + score["private_goal_bonus"]
        lines.append(f"  {name:<22} {score['population_before_goals']:>10} {goals:>6} "
                     f"{score['money_converted']:>6} {score['population']:>6}  "
                     f"{'yes' if score['winner'] else ''}")
    if game.config.mode == "solitary":
        lines.append(f"Solo ladder rank (R9.1): {game.solo_rank()}")
    elif game.config.mode == "dale":
        rank = game.solo_rank()
        lines.append(f"Solo ladder rank (R9.1): {rank}" if rank
                     else "No ladder rank: Dale was not beaten (R9.2)")
    return lines


def columns(items: list[str], width: int = 96) -> list[str]:
    """Items in aligned columns, filled row by row, lines at most about `width` wide."""
    if not items:
        return []
    cell = max(len(item) for item in items) + 2
    per_line = max(1, width // cell)
    return ["  " + "".join(item.ljust(cell) for item in items[start:start + per_line]).rstrip()
            for start in range(0, len(items), per_line)]


def _status_line(game: Game, seat: int) -> str:
    state = game.player_state(seat)
    return (f"Round {game.round + 1}. You: ${state['money']}, income {state['income']}, "
            f"reputation {state['reputation']}, population {state['population']}, "
            f"markers left {state['markers_left']}, {len(state['borough'])} tiles")


def read_line(stdin: TextIO) -> str | None:
    """One typed line, None at the end of the input. A line longer than MAX_LINE is read
    to its end and returned cut (the notation then refuses it); bytes that are not UTF-8
    text become U+FFFD (refused the same way)."""
    try:
        line = stdin.readline(MAX_LINE)
        if len(line) == MAX_LINE and not line.endswith("\n"):
            while True:  # skip the rest of the over-long line
                rest = stdin.readline(MAX_LINE)
                if not rest or rest.endswith("\n"):
                    break
    except UnicodeDecodeError:
        return "\ufffd"
    except ValueError:  # the input stream was closed
        return None
    return line or None


def default_save_path(game: Game) -> Path:
    """Where an unfinished game is saved unless the person names a file."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path(f"suburbia-{game.config.mode}-seed{game.seed or 0}-{stamp}.json")


def save_game(game: Game, path: Path) -> str:
    """Write the game to `path`: its record (seed and moves, replayable) when replaying it
    gives this very state, else the saved state itself. Returns what was written."""
    record = game.record()
    try:
        replayed = Game.replay(record)
        same = np.array_equal(replayed.state, game.state)
    except SuburbiaError:
        same = False
    text = (json.dumps(record, indent=1) + "\n") if same else game.to_json()
    path = Path(path).expanduser()
    if path.parent != Path("."):
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return "game record" if same else "game state"


def _write_error(error: Exception) -> str:
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)  # ValueError: a path with a NUL character


def offer_to_save(game: Game, stdin: TextIO, stdout: TextIO, default: Path, ask: bool,
                  resume_hint: str = "") -> Path | None:
    """Save an unfinished game: ask for a file name (Enter: `default`, 'no': not saved)
    when `ask`, else (the input has ended) write `default`. A file that cannot be written
    gets its reason and a new question; the end of the input or Ctrl-C at the question
    saves to `default`, or, if that cannot be written, to a new file in the current
    folder."""

    def say(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    asking, fallback = ask, default_save_path(game)
    for _ in range(6):
        answer = None
        if asking:
            stdout.write(f"Save the unfinished game? File name [{default}], or 'no': ")
            stdout.flush()
            try:
                answer = read_line(stdin)
            except KeyboardInterrupt:
                say()
            if answer is None:  # end of input or Ctrl-C: the default, nobody to ask
                asking = False
            elif answer.strip().lower() in ("no", "n"):
                say("The game was not saved.")
                return None
        target = Path(answer.strip()) if answer and answer.strip() else default
        problem = None
        if any(ord(character) < 32 or character in "\x7f\ufffd" for character in str(target)):
            problem = "a file name cannot hold control characters or bytes that are not text"
        else:
            try:
                what = save_game(game, target)
            except (OSError, ValueError) as error:
                problem = _write_error(error)
        if problem is None:
            say(f"The unfinished game ({what}) is saved in {target}.")
            say(f"Continue it with: suburbia play --resume {shlex.quote(str(target))}"
                f"{resume_hint}")
            return target
        say(f"Cannot write {shown(str(target))}: {problem}.")
        if not asking:
            if target == fallback:
                break
            default = fallback  # nobody to ask: a new file in the current folder
    say("The game was not saved.")
    return None


def play_session(game: Game, human: int, opponents: dict, stdin: TextIO, stdout: TextIO,
                 show_board: bool = True, labels: dict[int, str] | None = None,
                 save_path: Path | None = None, resume_hint: str = "") -> int:
    """Play `game` with a person at seat `human` (reading moves from `stdin`) and agents at
    the seats of `opponents`. Returns 0 when the game ends or the person quits, 1 when
    the input ends first, 130 after Ctrl-C. Malformed or illegal moves, whatever their
    size or characters, get a message and a new prompt; the game goes on. On quitting or
    Ctrl-C the person is offered to save the unfinished game (`save_path` or a default
    name); when the input ends it is saved there without asking."""
    labels = labels or {seat: getattr(agent, "name", "agent") for seat, agent in opponents.items()}
    default = Path(save_path) if save_path else default_save_path(game)

    def say(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    say(f"You are player {human}. Type 'help' for the commands.")
    try:
        status = _play_moves(game, human, opponents, stdin, stdout, show_board, labels, say)
    except KeyboardInterrupt:
        say()
        say("Interrupted.")
        offer_to_save(game, stdin, stdout, default, True, resume_hint)
        return 130
    if status == "quit":
        offer_to_save(game, stdin, stdout, default, True, resume_hint)
        return 0
    if status == "end of input":
        offer_to_save(game, stdin, stdout, default, False, resume_hint)
        return 1
    say()
    say(game.render() if show_board else "The game is over.")
    say()
    for line in final_scores_lines(game, {human: "you", **{k: f"player {k} ({v})"
                                                           for k, v in labels.items()}}):
        say(line)
    return 0


def _play_moves(game: Game, human: int, opponents: dict, stdin: TextIO, stdout: TextIO,
                show_board: bool, labels: dict, say) -> str:
    """The moves of a play session until the game is over ("over"), the person quits
    ("quit") or the input ends ("end of input")."""
    shown_for = None
    while not game.is_over:
        seat = game.current_player
        if seat != human:
            agent = opponents.get(seat)
            if agent is None:
                raise CliError(f"seat {seat} decides but nobody plays it")
            action = agent.act(game)
            text = game.action_to_text(action)
            events = game.apply(action)
            say(f"{_seat_label(game, seat, human, labels)}: {text}")
            for line in events:
                say(f"    {line}")
            continue
        decision_key = (len(game.history), game.pending_decision)
        if shown_for != decision_key:
            shown_for = decision_key
            if show_board:
                say()
                say(game.render())
            else:
                say()
                say(_status_line(game, human))
                say("Market: " + " | ".join(f"slot {row['slot']} {row['tile']} ${row['price']}"
                                            for row in game.market()))
            say()
            goal = game.private_goal(human)
            if game.pending_decision == "keep_goal":
                say("Your drawn goals (R3.6): " + ", ".join(game.goal_options(human)))
            elif goal:
                say(f"Your private goal: {goal}")
            legal = game.legal_actions_text()
            say(f"Legal moves ({len(legal)}):")
            for line in group_legal_moves(legal):
                say(line)
        stdout.write(f"player {human}> ")
        stdout.flush()
        line = read_line(stdin)
        if line is None:
            say()
            say("End of input: the game is left unfinished.")
            return "end of input"
        command = " ".join(line.strip().split()).lower()
        if not command:
            continue
        if command in QUIT_WORDS:
            say("You left the game.")
            return "quit"
        if command in ("help", "?"):
            say(PLAY_HELP)
            continue
        if command == "legal":
            for line in columns(game.legal_actions_text()):
                say(line)
            continue
        if command == "board":
            say(game.render())
            continue
        try:
            events = game.apply(line.strip())
        except SuburbiaError as error:
            say(f"Not accepted: {error}")
            say("Type 'legal' for the legal moves or 'help' for the notation.")
            continue
        say(f"you: {game.history[-1]}")
        for event in events:
            say(f"    {event}")
    return "over"


def _play_setup(args) -> tuple[Game, int, dict, dict]:
    from agents import make_agent
    from agents.tournament import agent_seed
    opponents = list(args.opponents) if args.opponents else []
    if not 0 <= args.seed <= MAX_SEED:
        raise CliError(f"--seed must be 0..2**64-1, not {shown(args.seed)}")
    saved = None
    if args.resume is not None:
        saved = _load_game(args.resume)
        if saved.is_over:
            raise CliError(f"{args.resume}: the saved game is already over")
        for option, value, wanted in (("--mode", args.mode, saved.config.mode),
                                      ("--players", args.players, saved.config.players),
                                      ("--edition", args.edition, saved.config.edition)):
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
    game = saved if saved is not None else Game(players, mode, args.edition or "2nd", args.seed)
    seed = game.seed if isinstance(game.seed, int) else args.seed
    agents = {seat: make_agent(spec, seed=agent_seed(seed, seat),
                               allow_pickle=args.allow_pickle)
              for seat, spec in seats.items()}
    for agent in agents.values():
        agent.check_mode(mode)
    return game, human, agents, seats


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
        game, human, agents, labels = _play_setup(args)
    except (ValueError, FileNotFoundError) as error:
        raise CliError(str(error)) from None
    status = play_session(game, human, agents, stdin, stdout, not args.no_board, labels,
                          save_path=args.save_record or args.resume,
                          resume_hint=_resume_hint(args, game, human, labels))
    if args.save_record and game.is_over:
        try:
            save_game(game, args.save_record)
            print(f"Game record written to {args.save_record}", file=stdout)
        except (OSError, ValueError) as error:  # the finished game is not lost for that
            print(f"Cannot write {shown(str(args.save_record))}: {_write_error(error)}",
                  file=stdout)
            offer_to_save(game, stdin, stdout, default_save_path(game), True)
            return 1
    return status


# match, train, bench ------------------------------------------------------------------------

def command_match(args, extra, stdin, stdout) -> int:
    from agents.tournament import run_from_arguments
    run_from_arguments(args, stdout)
    return 0


def command_league(args, extra, stdin, stdout) -> int:
    from agents.league import run_from_arguments
    from agents.tournament import TournamentError
    try:
        run_from_arguments(args, stdout)
    except TournamentError as error:
        raise CliError(str(error)) from None
    return 0


def command_train(args, extra, stdin, stdout) -> int:
    from training.train import main as train_main
    train_main(list(extra))
    return 0


def engine_speed_script() -> Path:
    """benchmarks/engine_speed.py of the source tree this package runs from."""
    return Path(__file__).resolve().parent.parent / "benchmarks" / "engine_speed.py"


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
    from .serialization import replay_record
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


def _load_game(path: Path) -> Game:
    """A game from a state file (suburbia-state) or a game record (replayed)."""
    from .serialization import game_from_dict, replay_record
    data = _read_json(path, "game file")
    try:
        if isinstance(data, dict) and data.get("format") == "suburbia-record":
            return replay_record(data)
        return game_from_dict(data)
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
    from .drawing import table_svg
    from .picture import svg_to_png
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
    """`suburbia serve`: the web application (suburbia_env/web), on 127.0.0.1 by default."""
    try:
        from .web.server import run_server
    except ImportError as error:
        raise CliError(f"the web application needs its extra: pip install -e \".[web]\" "
                       f"({error})") from None
    return run_server(args, stdout)


# Parser -------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="suburbia", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    commands = parser.add_subparsers(dest="command", metavar="command", required=True)

    play = commands.add_parser("play", help="play in the terminal against agents or Dale",
                               description="Play in the terminal. With no options: you against "
                                           "Dale the bot (R9.2).")
    play.add_argument("--opponents", nargs="+", metavar="SPEC",
                      help="agent specs of the other seats: random, dale, greedy, "
                           "greedy:WEIGHTS, ppo:PATH. Just 'dale' (the default) with no "
                           "--players means the Dale mode of R9.2")
    play.add_argument("--players", type=int, help="seats at the table in a standard game (2-4)")
    play.add_argument("--mode", choices=("dale", "solitary", "standard"),
                      help="default: dale for '--opponents dale' alone, else standard")
    play.add_argument("--seat", type=int, default=0, help="your seat in a standard game")
    play.add_argument("--seed", type=int, default=0, help="seed of the setup (default 0)")
    play.add_argument("--edition", choices=("2nd", "1st"), default=None,
                      help="default 2nd")
    play.add_argument("--resume", type=Path, metavar="FILE",
                      help="continue a saved game (a game record or a saved state, e.g. the "
                           "file an unfinished game was saved to); its mode, players and "
                           "edition are the file's")
    play.add_argument("--no-board", action="store_true",
                      help="draw the game only when asked ('board')")
    play.add_argument("--save-record", type=Path, metavar="PATH",
                      help="write the game record (JSON) here at the end, or the unfinished "
                           "game if you leave or the input ends")
    play.add_argument("--allow-pickle", action="store_true",
                      help="let ppo agents load pickled stable-baselines3 .zip models, which "
                           "runs code stored in the file (trusted files only)")
    play.set_defaults(handler=command_play)

    from agents.tournament import add_arguments
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
                                help="train MaskablePPO (options: suburbia train --help)")
    train.set_defaults(handler=command_train, passthrough=True)
    bench = commands.add_parser("bench", add_help=False,
                                help="engine speed benchmark (options: suburbia bench --help)")
    bench.set_defaults(handler=command_bench, passthrough=True)

    replay = commands.add_parser("replay", help="show a game record step by step")
    replay.add_argument("record", type=Path, help="game record JSON (suburbia-record)")
    replay.add_argument("--boards", action="store_true", help="draw the game after every step")
    replay.set_defaults(handler=command_replay)

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
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free)")
    serve.add_argument("--models", type=Path, action="append", metavar="DIR",
                       help="folder of trained models offered as ppo:PATH agents (default: "
                            "./models); only files under these folders can be loaded")
    serve.add_argument("--max-games", type=int, default=200,
                       help="games and replays held at once, in all (default 200)")
    serve.add_argument("--max-games-per-client", type=int, default=20,
                       help="games and replays one client address may hold (default 20)")
    serve.add_argument("--idle-minutes", type=float, default=120,
                       help="a game nobody looked at for this long is dropped (default 120)")
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
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if stdin is None:
        _tolerate_bad_text(sys.stdin, "replace")  # invalid UTF-8 typed: refused, not fatal
    if stdout is None:
        _tolerate_bad_text(sys.stdout, "backslashreplace")  # odd bytes in file names
    try:
        return args.handler(args, extra, stdin or sys.stdin, stdout or sys.stdout)
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
        if os.environ.get("SUBURBIA_DEBUG"):
            raise
        print(f"internal error ({type(error).__name__}: {shown(str(error))}); please report "
              f"it with the command that caused it (SUBURBIA_DEBUG=1 shows the traceback)",
              file=sys.stderr)
        return EXIT_INTERNAL_ERROR


def _tolerate_bad_text(stream, errors: str) -> None:
    """Let a standard stream replace what it cannot decode or encode instead of raising."""
    try:
        stream.reconfigure(errors=errors)
    except (AttributeError, ValueError, OSError):  # not a TextIOWrapper (tests, pipes)
        pass


if __name__ == "__main__":
    sys.exit(main())
