"""Bring your own bot (issue 18 item 1): a bot of one's own, named as FILE.py:NAME or
MODULE:NAME or given as an object, plays tournaments like the built-in agents, and a bot
that raises, answers an illegal action, changes the game or runs over the move time
limit loses that game with a line saying why, its seat played to the end by the
stand-in (the first legal action), while the tournament goes on (agents/registry.py,
agents/tournament.py; issue 30 item 10).

The reference bot is examples/my_bot.py's `cheapest_tile`, which is deterministic: its
games against Dale are computed here by hand (a plain loop over `Game`) and every way of
seating it must reproduce them exactly.
"""

from __future__ import annotations

import re
import shlex
import threading
import time

import numpy as np
import pytest

from agents import Agent, AgentSpecError, make_agent
from agents.greedy import GreedyAgent
from agents.registry import CallableAgent
from agents.tournament import (GameTask, format_summary, play_game, run_tournament,
                               summarise)
from repository import REPO as ROOT
from suburbia_env import Game
from suburbia_env.apps.cli import main as cli_main

EXAMPLE = ROOT / "examples" / "my_bot.py"
FILE_SPEC = f"{EXAMPLE}:cheapest_tile"
SEEDS = (10, 11, 12, 13)


def _example():
    """examples/my_bot.py as a module (loaded the way a FILE.py spec loads it)."""
    from agents.registry import _load_file
    return _load_file(FILE_SPEC, str(EXAMPLE))


def hand_played_dale_game(seed: int) -> list[int]:
    """Final populations (player, Dale) of cheapest_tile against Dale, played by hand."""
    bot = _example().cheapest_tile
    game = Game(1, "dale", "2nd", seed)
    while not game.is_over:
        game.apply(bot(game))
    return [score["population"] for score in game.final_scores()]


@pytest.fixture(scope="module")
def expected():
    return {seed: hand_played_dale_game(seed) for seed in SEEDS}


def _populations(result, label):
    """{seed: [bot population, Dale population]} of `label`'s games."""
    by_seed = {}
    for row in result.rows:
        if row["agent"] == label:
            dale = [r for r in result.rows if r["table"] == row["table"] and r["seat"] == 1]
            by_seed[row["seed"]] = [row["population"], dale[0]["population"]]
    return by_seed


# Every way to name or hand over a bot ------------------------------------------------------

def _factory_function(seed=None):
    """A factory taking the seed, returning an Agent."""
    return _example().CheapestTile()


def _factory_of_a_function():
    """A factory of no argument, returning a plain function."""
    return _example().cheapest_tile


class ActOnly:
    """Not an Agent: an object with an act method."""

    def act(self, game):
        return _example().cheapest_tile(game)


def test_every_form_of_the_bot_plays_the_hand_played_games(expected):
    module = _example()
    entrants = [FILE_SPEC, f"{EXAMPLE}:CheapestTile", module.cheapest_tile,
                module.CheapestTile(), module.CheapestTile, _factory_function,
                _factory_of_a_function, ActOnly()]
    result = run_tournament(entrants, "dale", games=len(SEEDS), seed=SEEDS[0], workers=1,
                            progress=False)
    assert result.labels == [FILE_SPEC, f"{EXAMPLE}:CheapestTile", "cheapest_tile",
                             "CheapestTile", "CheapestTile#2", "_factory_function",
                             "_factory_of_a_function", "ActOnly"]
    for label in result.labels:
        assert _populations(result, label) == expected, label
    assert all(row["forfeit"] is None for row in result.rows)
    # objects are keyed "<label>" in the spec column, specs by themselves
    assert result.specs["cheapest_tile"] == "<cheapest_tile>"
    assert result.specs[FILE_SPEC] == FILE_SPEC


def test_module_colon_name_spec_loads_a_bot_from_a_package(tmp_path, monkeypatch, expected):
    package = tmp_path / "mybots"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "strategies.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'examples')!r})\n"
        "from my_bot import cheapest_tile\n\n\n"
        "class Cheapest:\n    def act(self, game):\n        return cheapest_tile(game)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run_tournament(["mybots.strategies:Cheapest"], "dale", games=2, seed=SEEDS[0],
                            workers=1, progress=False)
    assert _populations(result, "mybots.strategies:Cheapest") == {
        seed: expected[seed] for seed in SEEDS[:2]}


def test_the_match_command_seats_a_file_bot_beside_built_in_agents(tmp_path, capsys,
                                                                    expected):
    status = cli_main(["match", "--agents", FILE_SPEC, "greedy", "dale", "--mode", "dale",
                       "--games", "2", "--seed", str(SEEDS[0]), "--workers", "1",
                       "--no-progress", "--output-dir", str(tmp_path)])
    assert status == 0
    printed = capsys.readouterr().out
    bot_line = next(line for line in printed.splitlines() if line.startswith(FILE_SPEC))
    mean = np.mean([expected[seed][0] for seed in SEEDS[:2]])
    assert f"{mean:.1f}" in bot_line.split()
    assert re.search(r"^greedy\s+2\s", printed, re.M) and re.search(r"^dale\s+2\s", printed, re.M)


@pytest.mark.parametrize("spec,message", [
    ("examples/nowhere.py:Bot", "no file 'examples/nowhere.py'"),
    (f"{EXAMPLE}:Missing", "has no 'Missing' (it defines cheapest_tile, CheapestTile)"),
    (f"{EXAMPLE}:", "name the bot after the colon"),
    (str(EXAMPLE), "name the bot in the file after a colon"),
    ("no_such_package.bots:Bot", "no module named 'no_such_package'"),
])
def test_bad_bot_specs_name_the_problem(spec, message):
    with pytest.raises(AgentSpecError, match=re.escape(message)):
        make_agent(spec, allow_code=True)


def test_bot_files_with_errors_are_named(tmp_path):
    broken = tmp_path / "broken_bot.py"
    broken.write_text("def act(game)\n    return 0\n")
    with pytest.raises(AgentSpecError, match=r"syntax error in .*broken_bot.py line 1"):
        make_agent(f"{broken}:act", allow_code=True)
    failing = tmp_path / "failing_bot.py"
    failing.write_text("raise RuntimeError('needs a GPU')\n")
    with pytest.raises(AgentSpecError, match="raised RuntimeError: needs a GPU"):
        make_agent(f"{failing}:Bot", allow_code=True)
    two = tmp_path / "two_arguments.py"
    two.write_text("def bot(game, player):\n    return 0\n")
    with pytest.raises(AgentSpecError, match=r"takes 2 arguments; a bot function takes the "
                                             r"game alone"):
        make_agent(f"{two}:bot", allow_code=True)


def test_code_specs_are_refused_where_code_is_not_allowed():
    """A server taking specs from its clients builds agents without allow_code."""
    with pytest.raises(AgentSpecError, match="names Python code, which is not loaded here"):
        make_agent(FILE_SPEC)


def test_a_bot_reset_gets_the_seed_of_its_seat():
    """CallableAgent passes reset(seed) on to an object that takes it."""
    seen = []

    class Seeded:
        def reset(self, seed):
            seen.append(seed)

        def act(self, game):
            return game.legal_actions()[0]

    agent = make_agent(Seeded())
    assert isinstance(agent, CallableAgent)
    agent.reset(1234)
    assert seen == [1234]


# Forfeits ------------------------------------------------------------------------------------

MISCHIEF_DECISION = 3  # the bot's own decision at which it misbehaves
LIMIT = 0.5  # seconds per decision; cheapest_tile takes milliseconds


class Misbehaving(Agent):
    """cheapest_tile, except at its MISCHIEF_DECISION-th decision of games with an even
    seed, where it does `how`: raise, answer an illegal action, answer garbage, play on the
    game it was shown, or think for `pause` seconds."""

    def __init__(self, how: str, pause: float = 0.0):
        self.how = how
        self.pause = pause
        self.name = f"misbehaving-{how}"
        self.decisions = 0

    def reset(self, seed=None):
        self.decisions = 0

    def act(self, game):
        self.decisions += 1
        if game.seed % 2 == 0 and self.decisions == MISCHIEF_DECISION:
            if self.how == "raise":
                raise ValueError("out of ideas")
            if self.how == "illegal":
                return "buy 0 @ 6,8"  # slot 0 is not Dale's market (R9.2)
            if self.how == "garbage":
                return None
            if self.how == "tamper":
                game.apply(game.legal_actions()[0])
                return game.legal_actions()[0]
            if self.how == "slow":
                time.sleep(self.pause)
        return _example().cheapest_tile(game)


REASONS = {
    "raise": "raised ValueError: out of ideas",
    "illegal": "answered an illegal action 'buy 0 @ 6,8': illegal action",
    "garbage": "answered an illegal action None: an action is an integer or a line of "
               "notation, not None",
    "tamper": "changed the game it was shown (look ahead on game.copy())",
    "slow": f"stopped after {LIMIT:g} s (move time limit {LIMIT:g} s)",
}


def _decision_of_mischief(seed: int) -> tuple[int, int]:
    """(game decision number, round) at which the bot's MISCHIEF_DECISION-th decision of
    the game seeded `seed` comes, found by playing cheapest_tile by hand."""
    bot = _example().cheapest_tile
    game = Game(1, "dale", "2nd", seed)
    for _ in range(MISCHIEF_DECISION - 1):
        game.apply(bot(game))
    return len(game.history) + 1, game.round + 1


def _stand_in_dale_game(seed: int) -> tuple[int, int]:
    """(decisions, Dale's population) of the game seeded `seed` where cheapest_tile plays
    until its MISCHIEF_DECISION-th decision and the stand-in (the first legal action) from
    there, played by hand."""
    bot = _example().cheapest_tile
    game = Game(1, "dale", "2nd", seed)
    for _ in range(MISCHIEF_DECISION - 1):
        game.apply(bot(game))
    while not game.is_over:
        game.apply(int(game.legal_actions()[0]))
    return len(game.history), game.final_scores()[1]["population"]


@pytest.mark.parametrize("how", list(REASONS))
def test_a_misbehaving_bot_forfeits_that_game_and_the_tournament_goes_on(how, expected):
    bot = Misbehaving(how, pause=4 * LIMIT)
    result = run_tournament([bot, "greedy"], "dale", games=len(SEEDS), seed=SEEDS[0],
                            workers=1, progress=False,
                            move_time_limit=LIMIT if how == "slow" else None)
    label = bot.name
    own = {row["seed"]: row for row in result.rows if row["agent"] == label}
    for seed in SEEDS:
        row = own[seed]
        dale = next(r for r in result.rows if r["table"] == row["table"] and r["seat"] == 1)
        if seed % 2:  # odd seeds: the bot behaves and plays the hand-played game
            assert [row["population"], dale["population"]] == expected[seed]
            assert row["forfeit"] is None and row["stand_in_seats"] is None
            continue
        decision, round_number = _decision_of_mischief(seed)
        reason = f"at the game's decision {decision} (round {round_number}): {REASONS[how]}"
        if how == "illegal":  # then the engine's refusal, which names the rule
            assert row["forfeit"].startswith(
                f"{reason} 'buy 0 @ 6,8' (number 116) for player 0: the game against Dale "
                f"uses market slots 2-5 only (R9.2); the pending decision is 'turn'; legal "
                f"now: buy ")
        else:
            assert row["forfeit"] == reason
        assert (row["win"], row["winner"], row["population"]) == (0.0, False, None)
        assert (dale["win"], dale["winner"], dale["forfeit"]) == (1.0, True, None)
        assert row["stand_in_seats"] == dale["stand_in_seats"] == [0]
        assert row["forfeit_decision"] == decision
        # the stand-in played the seat from there to the end of the game
        assert [row["decisions"], dale["population"]] == list(_stand_in_dale_game(seed))
    # greedy's games are untouched by the other agent's forfeits
    assert all(row["forfeit"] is None for row in result.rows if row["agent"] == "greedy")
    summary = summarise(result.rows, result.labels, "dale")
    entry = summary["agents"][label]
    assert (entry["forfeits"], entry["games"]) == (2, 4)
    text = format_summary(summary, result.config)
    assert ("Forfeits (2 in 2 game(s); the seat that forfeits loses the game, ranked last, "
            "and the first legal action plays it to the end (the stand-in)") in text
    assert summary["stand_in_tables"] == [0, 2]
    for seed in (10, 12):
        assert (f"  {label} forfeited game {seed - SEEDS[0]} (seed {seed}, 2 seats) in seat 0: "
                f"at the game's decision") in text


def test_a_slow_move_outside_the_main_thread_is_measured_when_it_returns():
    """No timer signal off the main thread: the move runs to its end, then forfeits."""
    task = GameTask(0, 0, 12, "dale", 1, "2nd", (("slow", "<slow>"),), move_time_limit=LIMIT)
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.update(
        play_game(task, {}, {"<slow>": Misbehaving("slow", pause=2 * LIMIT)})))
    worker.start()
    worker.join(60)
    bot, dale = outcome["rows"]
    assert re.search(rf": took [\d.]+ s \(move time limit {LIMIT:g} s\)$", bot["forfeit"])
    assert float(bot["forfeit"].split("took ")[1].split()[0]) >= 2 * LIMIT
    assert (bot["win"], dale["win"]) == (0.0, 1.0)


def _r8_3_winners(scores: list[dict], seats: list[int]) -> list[int]:
    """The winners among `seats` by R8.3 (population, then reputation, income, money),
    computed here from the final scores, apart from the engine."""
    def key(seat):
        score = scores[seat]
        return score["population"], score["reputation"], score["income"], score["money_left"]
    best = max(key(seat) for seat in seats)
    return [seat for seat in seats if key(seat) == best]


@pytest.mark.slow
@pytest.mark.parametrize("how,players", [("raise", 4), ("illegal", 3), ("slow", 4),
                                         ("tamper", 3)])
def test_a_forfeit_at_a_table_of_several_seats_lets_the_others_play_on(how, players):
    """The seat that forfeits is last (win 0); the stand-in plays it to the end, so the
    others' game completes and the best of them wins (R8.3 among them alone); the results
    mark the games with a stand-in and count them per agent."""
    bot = Misbehaving(how, pause=4 * LIMIT)
    others = ["greedy", "dale", "random"][:players - 1]
    result = run_tournament([bot, *others], "standard", games=players, players=players,
                            seed=SEEDS[0], workers=1, progress=False, keep_records=True,
                            move_time_limit=LIMIT if how == "slow" else None)
    stand_in_tables = []
    for table, record in enumerate(result.records):
        rows = sorted((row for row in result.rows if row["table"] == table),
                      key=lambda row: row["seat"])
        loser = next(row for row in rows if row["agent"] == bot.name)
        game = Game.replay(record)
        assert game.is_over and all(row["decisions"] == len(record["actions"]) for row in rows)
        scores = game.final_scores()
        if rows[0]["seed"] % 2:
            assert loser["forfeit"] is None and loser["stand_in_seats"] is None
            assert [row["win"] for row in rows] == [
                (1 / len(game.winners) if seat in game.winners else 0.0)
                for seat in range(players)]
            continue
        stand_in_tables.append(table)
        assert REASONS[how] in loser["forfeit"]
        assert (loser["win"], loser["winner"], loser["population"], loser["margin"]) == \
            (0.0, False, None, None)
        assert all(row["stand_in_seats"] == [loser["seat"]] for row in rows)
        # from the forfeit on, every decision of that seat is the first legal action
        replay = Game(players, "standard", "2nd", rows[0]["seed"])
        for index, action in enumerate(record["actions"]):
            number = replay.action_number(action)
            if replay.current_player == loser["seat"] and index + 1 >= loser["forfeit_decision"]:
                assert number == int(replay.legal_actions()[0])
            replay.apply(number)
        standing = [row["seat"] for row in rows if row is not loser]
        winners = _r8_3_winners(scores, standing)
        for row in rows:
            if row is loser:
                continue
            best_other = max(scores[seat]["population"] for seat in standing
                             if seat != row["seat"])
            assert row["population"] == scores[row["seat"]]["population"]
            assert row["margin"] == row["population"] - best_other
            assert row["win"] == pytest.approx(1 / len(winners) if row["seat"] in winners
                                               else 0.0)
            assert row["winner"] == (row["seat"] in winners)
        assert sum(row["win"] for row in rows) == pytest.approx(1.0)
    assert stand_in_tables and len(stand_in_tables) == (players + 1) // 2
    summary = summarise(result.rows, result.labels, "standard")
    assert summary["stand_in_tables"] == stand_in_tables
    assert summary["agents"][bot.name]["forfeits"] == len(stand_in_tables)
    assert summary["agents"][bot.name]["stand_in_games"] == 0
    for label in others:
        assert summary["agents"][label]["stand_in_games"] == len(stand_in_tables)
        assert summary["agents"][label]["forfeits"] == 0
    text = format_summary(summary, result.config)
    assert f"Forfeits ({len(stand_in_tables)} in {len(stand_in_tables)} game(s);" in text


class Watcher(Agent):
    """Greedy, writing down each decision it makes or is shown (`observe`), in `seen`: a
    class attribute, so the copies the runner plays write to the same list."""

    name = "watcher"
    seen: list = []
    mischief = None  # "raise", "tamper" or "slow": what observe does at its fifth move

    def act(self, game):
        action = GreedyAgent().act(game)
        self.seen.append(("act", len(game.history), game.current_player, action))
        return action

    def observe(self, game, action, seat):
        self.seen.append(("observe", len(game.history), game.current_player, action, seat))
        if sum(entry[0] == "observe" for entry in self.seen) == 5:
            if self.mischief == "raise":
                raise RuntimeError("cannot watch")
            if self.mischief == "tamper":
                game.apply(action)
            if self.mischief == "slow":
                time.sleep(4 * LIMIT)


class PlainWatcher:
    """The same bot as an object that is no Agent: its observe is shown the moves too."""

    name = "watcher"
    act = Watcher.act
    observe = Watcher.observe
    seen = Watcher.seen
    mischief = None


class StaticWatcher:
    """A plain class whose observe is a static method, writing to the same list."""

    name = "watcher"
    act = Watcher.act
    seen = Watcher.seen
    mischief = None

    @staticmethod
    def observe(game, action, seat):
        StaticWatcher.seen.append(("observe", len(game.history), game.current_player,
                                   action, seat))


@pytest.mark.parametrize("bot", [Watcher, PlainWatcher, StaticWatcher])
def test_observing_bots_are_shown_every_public_move_of_the_other_seats(bot):
    """The runner shows each other seat's move, before it is played, to a bot with an
    `observe`: every decision of the game is either the bot's own or shown to it with the
    action that was played, except the other seats' goal choices (R3.6: hidden)."""
    bot.seen = []
    bot.mischief = None
    result = run_tournament([bot(), "greedy", "greedy"], "standard", games=1, players=3,
                            seed=21, workers=1, progress=False, keep_records=True)
    seat = next(row["seat"] for row in result.rows if row["agent"] == "watcher")
    game = Game(3, "standard", "2nd", 21)
    seen = {entry[1]: entry for entry in bot.seen}
    assert len(seen) == len(bot.seen)
    goal_choices = 0
    for index, action in enumerate(result.records[0]["actions"]):
        number = game.action_number(action)
        if game.current_player == seat:
            assert seen[index][:3] == ("act", index, seat)
        elif game.pending_decision == "keep_goal":
            assert index not in seen
            goal_choices += 1
        else:
            assert seen[index] == ("observe", index, game.current_player, number, seat)
        game.apply(number)
    assert game.is_over and goal_choices == 2
    assert len(seen) == len(result.records[0]["actions"]) - 2


@pytest.mark.parametrize("mischief,reason", [
    ("raise", "observe raised RuntimeError: cannot watch"),
    ("tamper", "changed the game it was shown in observe (look ahead on game.copy())"),
    ("slow", f"observe stopped after {LIMIT:g} s (move time limit {LIMIT:g} s)")])
def test_a_bot_that_fails_while_observing_forfeits(mischief, reason):
    Watcher.seen, Watcher.mischief = [], mischief
    result = run_tournament([Watcher(), "greedy"], "standard", games=1, seed=21, workers=1,
                            progress=False, move_time_limit=LIMIT)
    own = next(row for row in result.rows if row["agent"] == "watcher")
    other = next(row for row in result.rows if row["agent"] == "greedy")
    fifth = [entry for entry in Watcher.seen if entry[0] == "observe"][4]
    assert own["forfeit"].endswith(reason)
    assert own["forfeit"].startswith(f"at the game's decision {fifth[1] + 1} ")
    assert (own["win"], other["win"]) == (0.0, 1.0)
    assert own["forfeit_decision"] == fifth[1] + 1 and own["stand_in_seats"] == [own["seat"]]
    # the move was played, the game went on to its end, and the stand-in, not the bot,
    # took the seat's decisions: the bot was asked and shown nothing more
    assert max(entry[1] for entry in Watcher.seen) == fifth[1]
    assert own["decisions"] == other["decisions"] > fifth[1] + 1
    assert other["population"] is not None and own["population"] is None


def test_objects_reach_worker_processes_and_play_the_same_games(expected):
    serial = run_tournament([Misbehaving("raise"), "greedy"], "dale", games=4, seed=SEEDS[0],
                            workers=1, progress=False)
    parallel = run_tournament([Misbehaving("raise"), "greedy"], "dale", games=4,
                              seed=SEEDS[0], workers=2, progress=False)
    assert parallel.rows == serial.rows


def test_a_bot_defined_in_an_interactive_session_plays_in_this_process():
    """Workers cannot import __main__ of an interactive session: the runner warns and
    plays every game here instead of failing."""
    import sys
    import types
    main = types.ModuleType("__main__")  # no __file__: an interactive session
    exec("def first_move(game):\n    return game.legal_actions()[0]\n", main.__dict__)
    saved = sys.modules["__main__"]
    sys.modules["__main__"] = main
    try:
        with pytest.warns(RuntimeWarning, match="interactive session"):
            result = run_tournament([main.first_move], "dale", games=2, workers=2,
                                    progress=False)
    finally:
        sys.modules["__main__"] = saved
    assert len(result.rows) == 4 and all(row["forfeit"] is None for row in result.rows)


def test_the_match_command_reports_the_forfeits_of_a_bot_file(tmp_path, capsys):
    bot_file = tmp_path / "flaky_bot.py"
    bot_file.write_text(
        "def flaky(game):\n"
        "    if game.seed % 2 == 0 and game.round == 2:\n"
        "        raise KeyError('lost my notes')\n"
        "    return game.legal_actions()[0]\n")
    status = cli_main(["match", "--agents", f"{bot_file}:flaky", "greedy", "--mode", "dale",
                       "--games", "3", "--seed", "4", "--workers", "1", "--no-progress",
                       "--output-dir", str(tmp_path / "out")])
    assert status == 0
    printed = capsys.readouterr().out
    assert "Forfeits (2 in 2 game(s); the seat that forfeits loses the game, ranked last" \
        in printed
    for game, seed in ((0, 4), (2, 6)):
        assert re.search(rf"  {re.escape(str(bot_file))}:flaky forfeited game {game} \(seed "
                         rf"{seed}, 2 seats\) in seat 0: at the game's decision \d+ \(round 3\):"
                         rf" raised KeyError: 'lost my notes'", printed)
    import csv
    with open(tmp_path / "out" / "results.csv") as handle:
        rows = [row for row in csv.DictReader(handle) if row["agent"].endswith(":flaky")]
    assert [bool(row["forfeit"]) for row in rows] == [True, False, True]
    assert [row["stand_in_seats"] for row in rows] == ["0", "", "0"]


# The README's bot and commands ------------------------------------------------------------------

def _readme_section() -> str:
    text = (ROOT / "README.md").read_text()
    return text.split("### Your own bot\n", 1)[1].split("\n#", 1)[0]


def test_the_readme_bot_is_the_example_file_and_about_ten_lines():
    code = re.findall(r"```python\n(.*?)```", _readme_section(), flags=re.S)
    assert len(code) == 1
    assert code[0] in EXAMPLE.read_text()
    assert 6 <= len(code[0].strip().splitlines()) <= 12


def test_the_readme_commands_run(tmp_path, monkeypatch, capsys, expected):
    """The README's commands, with 2 games instead of 100, from the repository folder."""
    commands = re.findall(r"^suburbia (match .*)$", _readme_section(), flags=re.M)
    assert len(commands) == 2
    monkeypatch.chdir(ROOT)
    modes = []
    for number, command in enumerate(commands):
        arguments = shlex.split(command)
        arguments[arguments.index("--games") + 1] = "2"
        arguments += ["--seed", str(SEEDS[0]), "--workers", "1", "--no-progress",
                      "--output-dir", str(tmp_path / str(number))]
        assert cli_main(arguments) == 0
        printed = capsys.readouterr().out
        mode = arguments[arguments.index("--mode") + 1]
        modes.append(mode)
        import csv
        with open(tmp_path / str(number) / "results.csv") as handle:
            rows = list(csv.DictReader(handle))
        bot = [row for row in rows if row["agent"] == "examples/my_bot.py:cheapest_tile"]
        assert len(bot) == 2 and "examples/my_bot.py:cheapest_tile" in printed
        if mode == "dale":
            assert [[int(row["population"]) for row in rows
                     if row["table"] == b["table"]] for b in bot] == [
                expected[seed] for seed in SEEDS[:2]]
        else:
            assert {row["seats"] for row in rows} == {"4"} and len(rows) == 8
            assert "rating mu±sigma" in printed
    assert modes == ["dale", "standard"]
