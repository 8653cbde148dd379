"""The terminal game of `suburbia play` (suburbia_env/apps/terminal_game.py), issue 19 item 4.

Driven as a person plays it: typed lines on the input stream of `TerminalGame` (and of
one real `python -m suburbia_env.apps.cli play` process), checked against what the engine
says of the same position. What is checked: no hidden information printed (R10.2),
tile effects in words (`info`, the market), moves chosen by number, undo, save and
resume, the seed, the 80x24 screen, illegal moves refused with their rule, every move of
the others shown (folded, 'log'), watching bots shown the moves and a failing bot
replaced by the stand-in.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import Agent, make_agent
from agents.greedy import GreedyAgent
from agents.table import agent_seed
from hidden_facts import seen_by, undrawn_stacks, with_other_hidden_facts
from suburbia_env import Game
from suburbia_env.engine import state_layout as s
from suburbia_env.apps.cli import main
from suburbia_env.apps.terminal_game import TerminalGame
from suburbia_env.apps.terminal_screen import _recent_lines, decision_screen, market_lines
from suburbia_env.apps.terminal_text import SCREEN_HEIGHT, SCREEN_WIDTH
from suburbia_env.engine.tile_data import GOALS, TILES

PROMPT = re.compile(r"player \d> ")


def session(game: Game, typed: list[str], human: int = 0, specs: dict | None = None,
            show_board: bool = True, seed_source: str = "given",
            save_path: Path | None = None) -> tuple[TerminalGame, int, str]:
    """A TerminalGame fed `typed` (one line each), the agents of `specs` seated as
    `suburbia play` seats them; (session, exit status, everything printed)."""
    specs = specs or {}
    seed = game.seed if game.seed is not None else 0
    agents = {seat: make_agent(spec, seed=agent_seed(seed, seat))
              for seat, spec in specs.items()}
    stdin, stdout = io.StringIO("".join(f"{line}\n" for line in typed)), io.StringIO()
    terminal = TerminalGame(game, human, agents, stdin, stdout, show_board, dict(specs),
                            save_path=save_path, seed_source=seed_source)
    status = terminal.run()
    return terminal, status, stdout.getvalue()


def screens(output: str) -> list[list[str]]:
    """The decision screens printed: from a decision's header line to its prompt."""
    found = []
    for chunk in PROMPT.split(output)[:-1]:
        lines = chunk.split("\n")
        headers = [index for index, line in enumerate(lines) if line.startswith("Round ")]
        if headers:
            found.append(lines[headers[-1]:])
    return found


def printed_lines(output: str) -> list[str]:
    """The lines as a terminal shows them: what follows a prompt starts on a new line
    (the person's typing and Enter end the prompt's line)."""
    return [line for chunk in PROMPT.split(output) for line in chunk.splitlines()]


def replay_with_bots(game: Game, human_moves, specs: dict) -> Game:
    """The game the person's moves and the agents of `specs` (seeded as play seeds them)
    make, computed without the terminal."""
    agents = {seat: make_agent(spec, seed=agent_seed(game.seed, seat))
              for seat, spec in specs.items()}
    moves = iter(human_moves)
    while not game.is_over:
        seat = game.current_player
        if seat in agents:
            game.apply(agents[seat].act(game))
        else:
            try:
                move = next(moves)
            except StopIteration:
                break
            game.apply(move)
    return game


# Moves by number -------------------------------------------------------------------------------

def test_the_dale_game_starts_with_the_goal_choice_and_numbers_pick_moves():
    """R9.2 (revised 2026-11-25): the player keeps one of two drawn goals first; a number
    picks that move of the numbered list ('legal'), the goal list on screen included."""
    game = Game(1, "dale", seed=3)
    assert game.goal_options(0) == ["Civil Engineer", "Builder"]
    after_keep = game.copy()
    after_keep.apply("keep Builder")
    fifth = after_keep.legal_actions_text()[4]
    terminal, status, output = session(game, ["0", "3", "2", "legal", "5"])
    assert terminal.game.history == ["keep Builder", fifth]
    first = screens(output)[0]
    assert first[0] == "Round 1. Player 0, you keep one of your two drawn goals (R3.6)"
    assert "  1) keep Civil Engineer: Most Civic tiles in own borough (+15)" in first
    assert "  2) keep Builder: Most Residential tiles in own borough (+15)" in first
    assert "Not accepted: 0 is not a move number; the moves are numbered 1 to 2 ('legal')." \
        in output
    assert "Not accepted: 3 is not a move number" in output
    listed = re.findall(r"(?<![\d,])(\d+) ((?:buy|lake|basic|invest) \S+(?: @ -?\d+,\d+)?)",
                        output)
    assert listed == [(str(number), text) for number, text
                      in enumerate(after_keep.legal_actions_text(), start=1)]
    assert "Dale keeps" not in output  # Dale has no private goal (R9.2)
    assert status == 1  # the input ended: saved unfinished


def test_legal_filters_by_its_words_and_keeps_the_numbers():
    game = Game(1, "dale", seed=3)
    game.apply("keep Builder")
    legal = game.legal_actions_text()
    wanted = [(number, text) for number, text in enumerate(legal, start=1)
              if text.startswith("lake 4")]
    _, _, output = session(game, ["legal lake 4", "legal frobnicate"])
    listed = re.findall(r"(\d+) (lake 4 @ -?\d+,\d+)", output)
    assert [(int(number), text) for number, text in listed] == wanted
    assert f"No legal move starts with 'frobnicate'; 'legal' lists all {len(legal)}." in output


# Illegal moves say why --------------------------------------------------------------------------

def test_illegal_moves_are_refused_with_their_rule():
    """Each refusal names the rule that forbids the move (legal_actions.illegal_reason)
    with the numbers behind it; nothing refused changes the game."""
    typed = ["buy 2 @ -1,0", "pass", "keep Investor", "keep Builder",
             "buy 2 @ 0,1", "buy 2 @ 6,8", "buy 0 @ -1,0", "basic park @ 5,5", "invest 3,3",
             "discard 3", "keep Builder", "pass", "invest 0,0", "discard 5", "buy 2 @ -1,0",
             "buy 3 @ -1,0", "invest 0,1", "lake 2 @ -1,0", "discard 2", "discard 5"]
    terminal, _, output = session(Game(1, "dale", seed=3), typed)
    text = " ".join(output.split())
    expected = [
        "illegal action 'buy 2 @ -1,0': player 0 first keeps one of the two goals drawn "
        "(R3.6): keep <goal>.",
        "illegal action 'pass': player 0 first keeps one of the two goals drawn (R3.6): "
        "keep <goal>.",
        "'keep Investor': Investor is not one of the goals drawn by player 0 (Civil "
        "Engineer, Builder).",
        "illegal action 'buy 2 @ 0,1': cell 0,1 of player 0's borough already holds "
        "Community Park (R2.4).",
        "illegal action 'buy 2 @ 6,8': cell 6,8 touches no tile or lake of player 0's "
        "borough: a new tile goes next to one (R2.4).",
        "illegal action 'buy 0 @ -1,0': the game against Dale uses market slots 2-5 only "
        "(R9.2).",
        "illegal action 'basic park @ 5,5': cell 5,5 touches no tile or lake of player 0's "
        "borough: a new tile goes next to one (R2.4).",
        "illegal action 'invest 3,3': player 0 has no tile at 3,3 to invest in (R5.1d).",
        "illegal action 'discard 3': a discard follows buying a basic tile or investing "
        "(R5.1b, d).",
        "illegal action 'keep Builder': the goals were kept at the start of the game (R3.6).",
        "illegal action 'pass': a player passes only when no option of step 1 is "
        "affordable and placeable (R5.1).",
        "illegal action 'buy 2 @ -1,0': Fancy Restaurant in slot 2 costs $9 + premium $6 = "
        "$15; player 0 has $12 (R5.1a).",
        "illegal action 'lake 2 @ -1,0': player 0 now discards a market tile, paying its "
        "premium (R5.1b, d): discard <slot>.",
        "illegal action 'discard 2': discarding slot 2 costs its premium $6; player 0 has "
        "$0 (R5.1b, d).",
    ]
    assert text.count("Not accepted: ") == len(expected)
    for message in expected:
        assert "Not accepted: " + message in text, message
    assert all(len(line) <= SCREEN_WIDTH for line in printed_lines(output))
    assert terminal.game.history == ["keep Builder", "invest 0,0", "discard 5", "buy 3 @ -1,0",
                                     "invest 0,1", "discard 5"]


# Effects in words ------------------------------------------------------------------------------

def test_the_market_lists_each_tile_with_its_effects():
    game = Game(1, "dale", seed=3)
    assert market_lines(game) == [
        "slot   + price tile                   type effects ('info <slot>')",
        "   2  +6   $12 Municipal Airport      ind  -1 rep per adj res; ... info 2",
        "   3  +4    $8 Landfill               ind  +2 inc; -1 rep per adj tile",
        "   4  +2   $11 Office Building        com  +1 inc; +1 inc per adj com",
        "   5  +0    $6 Homeowners Association res  +1 pop; +$2 per res anywhere"]
    _, _, output = session(game, ["market"])
    assert ("slot 2: $12 (6 + premium 6) Municipal Airport (industrial, airport icon, $6). -1\n"
            "  reputation for each adjacent residential tile, now and whenever one is placed\n"
            "  later. +1 income for each tile with an airport icon in every borough (this one\n"
            "  included), now and later.\n") in output
    assert ("slot 5: $6 (6 + premium 0) Homeowners Association (residential, $6). When\n"
            "  placed: +1 population. +$2 for each residential tile in every borough (this\n"
            "  one included), now and later.\n") in output


@pytest.mark.parametrize("what, expected", [
    ("3", "Slot 3: $8 (4 + premium 4). Landfill (industrial, $4). When placed: +2 income. "
          "-1 reputation for each adjacent non-lake tile, now and whenever one is placed "
          "later."),
    ("0", "The game against Dale uses market slots 2-5 only (R9.2)."),
    ("7", "There is no market slot 7 (slots are 0..6)."),
    ("Office Building", "Office Building (commercial, office icon, $9). When placed: +1 "
                        "income. +1 income for each adjacent commercial tile, now and "
                        "whenever one is placed later."),
    ("office", "'office' could be: Office Building, Office of Bureaucracy, Local EPA Office."),
    ("air", "'air' could be: Municipal Airport, Domestic Airport, International Airport, Air "
            "Traffic Controller."),
    ("mint", "Mint (civic, $15). When placed: +3 income. +$2 for each civic tile in your "
             "borough (this one included), now and later. Note: own(Civic) counts the Mint "
             "itself."),
    ("HF", "Heavy Factory (industrial, $3). When placed: +1 income. -1 reputation for each "
           "adjacent residential or civic tile, now and whenever one is placed later. Note: "
           "Starting tile and basic supply tile."),
    ("0,1", "Your 0,1: Community Park (civic, $4). When placed: -1 income. +1 reputation for "
            "each adjacent residential, commercial or industrial tile, now and whenever one "
            "is placed later."),
    ("5,5", "Your borough has no tile at '5,5'."),
    ("lake", "Lake. A tile placed face down: +$2 for each adjacent non-lake tile, now and "
             "whenever one is placed next to it later; nothing for lakes (R6.7)."),
    ("investor", "Goal Investor: Highest income level. As a public goal +15 population to "
                 "the one player strictly in front; as a private goal +15 to its owner if "
                 "strictly alone in front of all players (R8.2)."),
    ("xyz", "No tile, slot, cell or goal is called 'xyz'."),
])
def test_info_says_a_tiles_effects_in_words(what, expected):
    _, _, output = session(Game(1, "dale", seed=3), [f"info {what}"])
    said = PROMPT.split(output)[1]
    assert all(len(line) <= SCREEN_WIDTH for line in printed_lines(said))
    assert " ".join(said.split()).startswith(expected)


# Undo ------------------------------------------------------------------------------------------

def test_undo_takes_back_the_persons_move_and_the_bots_replies():
    """At a table of three (seat 1 the person): the bots of seats 2 and 0 reply to each
    move; undo goes back to the position before the person's move, replies and all, as
    the person saw it, with the unseen stacks dealt anew (R10.2)."""
    specs = {0: "greedy", 2: "random"}
    game = Game(3, seed=11)
    replay_with_bots(game, [], specs)  # the bots' goals, up to the person's first decision
    assert game.current_player == 1 and game.pending_decision == "keep_goal"
    before_goal = game.copy()
    keep = game.legal_actions_text()[1]
    at_turn = replay_with_bots(game.copy(), [keep], specs)
    turn = at_turn.legal_actions_text()[0]
    after_turn = replay_with_bots(at_turn.copy(), [turn], specs)
    assert after_turn.current_player == 1
    replies_to_turn = len(after_turn.history) - len(at_turn.history) - 1
    replies_to_keep = len(at_turn.history) - len(before_goal.history) - 1
    assert (replies_to_keep, replies_to_turn) == (2, 2)  # seats 2 and 0 reply each time
    typed = ["undo", "2", "1", "undo", "undo", "undo"]
    terminal, _, output = session(game, typed, human=1, specs=specs)
    taken_back = re.findall(r"Undone: .*", output)
    assert taken_back == [f"Undone: your '{turn}' and the 2 decisions after it.",
                          f"Undone: your '{keep}' and the 2 decisions after it."]
    assert output.count("Nothing to undo: you have taken no decision.") == 2
    assert np.array_equal(seen_by(terminal.game.state, 1), seen_by(before_goal.state, 1))
    assert terminal.game.history == before_goal.history
    assert not np.array_equal(undrawn_stacks(terminal.game.state),
                              undrawn_stacks(before_goal.state))
    again, _, _ = session(Game(3, seed=11), typed, human=1, specs=specs)
    assert np.array_equal(seen_by(again.game.state, 1), seen_by(terminal.game.state, 1))
    assert not np.array_equal(undrawn_stacks(again.game.state),  # fresh secret words:
                              undrawn_stacks(terminal.game.state))  # not the seed's


def test_undo_never_shows_the_tiles_drawn_after_the_move():
    """A Dale game (R9.2): the tiles that entered the market after the person's move are
    seen; after the undo the stacks to come are dealt anew from all unseen tiles, with
    fresh secret words (rng.secret_words): the same undo of the same seed deals anew
    each time."""
    game = Game(1, "dale", seed=3)
    terminal, _, output = session(game, ["keep Builder", "lake 2 @ -1,0", "undo"])
    assert "Undone: your 'lake 2 @ -1,0'" in output
    before = Game(1, "dale", seed=3)
    before.apply("keep Builder")
    assert np.array_equal(seen_by(terminal.game.state, 0), seen_by(before.state, 0))
    assert not np.array_equal(undrawn_stacks(terminal.game.state), undrawn_stacks(before.state))
    assert terminal.game.seed is None  # no longer the deal of seed 3
    again, _, _ = session(Game(1, "dale", seed=3), ["keep Builder", "lake 2 @ -1,0", "undo"])
    assert np.array_equal(seen_by(again.game.state, 0), seen_by(terminal.game.state, 0))
    assert not np.array_equal(undrawn_stacks(again.game.state),
                              undrawn_stacks(terminal.game.state))


def test_undo_then_a_new_move_continues_from_the_earlier_position():
    game = Game(1, "dale", seed=3)
    terminal, _, output = session(game, ["keep Builder", "lake 2 @ -1,0", "undo",
                                         "basic park @ -1,0"])
    expected = Game(1, "dale", seed=3)
    expected.apply("keep Builder")
    expected.apply("basic park @ -1,0")
    assert terminal.game.history == expected.history
    assert terminal.game.player_state(0) == expected.player_state(0)
    assert "Undone: your 'lake 2 @ -1,0'." in output


# Save and resume -------------------------------------------------------------------------------

def hidden_of(game: Game, viewer: int) -> tuple:
    """What `viewer` cannot see (R10.2): the stacks to come and the others' goals."""
    return (tuple(undrawn_stacks(game.state)),
            tuple(int(goal) for seat in range(game.num_seats) if seat != viewer
                  for goal in s.goal_options(game.state, seat)))


def test_a_save_holds_the_position_but_nothing_the_person_cannot_see(in_tmp):
    """An unfinished game is saved as the person's position: no seed, and what the
    person cannot see (the stacks' order, One More Round, the others' goals) dealt anew
    from fresh secret words (R10.2), so reading the file tells nothing hidden."""
    specs = {1: "greedy"}
    terminal, _, output = session(Game(2, seed=5), ["1", "1", "save mine.json", "quit"],
                                  specs=specs)
    assert "Saved in mine.json (your position, not what you cannot see).\n" \
        "Continue it later with:\n" in output
    text = (in_tmp / "mine.json").read_text()
    saved = Game.from_json(text)
    live = terminal.game
    assert json.loads(text)["seed"] is None
    assert np.array_equal(seen_by(saved.state, 0), seen_by(live.state, 0))
    assert not np.array_equal(undrawn_stacks(saved.state), undrawn_stacks(live.state))
    assert json.dumps([TILES.names[kind] for kind in undrawn_stacks(live.state)[:4]])[1:-1] \
        not in text  # the true stacks to come are nowhere in the file
    assert hidden_of(saved, 0) != hidden_of(live, 0)


def test_resuming_a_save_twice_shows_the_same_table_but_deals_the_unseen_anew(in_tmp):
    """Resuming deals anew what the person cannot see (R10.2), as an undo does: a person
    who saves, peeks at what follows and resumes learns nothing of the tiles to come."""
    specs = {1: "greedy"}
    terminal, _, _ = session(Game(2, seed=5), ["1", "1", "save mine.json", "quit"], specs=specs)
    text = (in_tmp / "mine.json").read_text()
    resumed = []
    for _ in range(2):
        again, _, output = session(Game.from_json(text), ["quit", "no"], specs=specs,
                                   seed_source="file")
        assert "Resumed: what you cannot see (the order of the stacks, One More Round, the " \
            "others' goals) was dealt anew (R10.2)." in " ".join(output.split())
        assert np.array_equal(seen_by(again.game.state, 0), seen_by(terminal.game.state, 0))
        resumed.append(again.game)
    assert hidden_of(resumed[0], 0) != hidden_of(resumed[1], 0)
    assert hidden_of(resumed[0], 0) != hidden_of(Game.from_json(text), 0)
    # through the command line, an old save (a record: its seed in plain) resumes the same
    # way, and undo still reaches back into its moves
    record = Game(2, seed=5)
    replay_with_bots(record, [Game(2, seed=5).legal_actions_text()[0]], specs)
    (in_tmp / "old.json").write_text(json.dumps(record.record()))
    stdout = io.StringIO()
    status = main(["play", "--resume", "old.json", "--opponents", "greedy", "--no-board"],
                  stdin=io.StringIO("undo\nquit\nno\n"), stdout=stdout)
    assert status == 0 and "Resumed: what you cannot see" in stdout.getvalue()
    assert f"Undone: your '{record.history[0]}'" in stdout.getvalue()


def _seats_of(game: Game):
    """(seat, move) of each decision of a seeded game's history."""
    replay = Game(game.config.players, game.config.mode, game.config.edition, game.seed)
    for move in game.history:
        yield replay.current_player, move
        replay.apply(move)


def test_a_saved_state_without_its_record_resumes_too(in_tmp):
    """A game whose seed is unknown (a position): resuming gives the same position as the
    person sees it, with no undo before."""
    game = Game(1, "solitary", seed=2)
    for _ in range(3):
        game.apply(game.legal_actions()[0])
    game = Game.from_json(game.to_json())
    game.seed = None
    _, _, output = session(game, ["save state.json", "quit"], seed_source="file")
    stored = json.loads((in_tmp / "state.json").read_text())
    assert stored["format"] == "suburbia-state"
    assert "Saved in state.json (your position, not what you cannot see)." in output
    stdout = io.StringIO()
    assert main(["play", "--resume", "state.json", "--no-board"],
                stdin=io.StringIO("undo\nsave back.json\nquit\n"), stdout=stdout) == 0
    back = Game.from_json((in_tmp / "back.json").read_text())
    assert np.array_equal(seen_by(back.state, 0), seen_by(game.state, 0))
    assert "Nothing to undo: you have taken no decision since the game was loaded." \
        in stdout.getvalue()


# The seed ----------------------------------------------------------------------------------------

def test_the_seed_is_random_by_default_and_shown_when_the_game_is_over():
    """Always the first legal move ('1'): the printed seed replays to the same game."""
    stdout = io.StringIO()
    assert main(["play", "--no-board"], stdin=io.StringIO("1\n" * 400), stdout=stdout) == 0
    output = stdout.getvalue()
    assert "The seed was drawn at random; it is shown when the game is over" in output
    seed = int(re.search(r"Seed (\d+): the same setup again with --seed \1\.", output)[1])
    game = Game(1, "dale", seed=seed)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    assert output.count("you: ") == len(game.history)  # Dale's turns are the engine's
    scores = game.final_scores()
    line = next(text for text in output.splitlines() if text.strip().startswith("you "))
    assert line.split()[1:5] == [str(scores[0]["population_before_goals"]),
                                 str(sum(scores[0]["public_goals"].values())
                                     + scores[0]["private_goal_bonus"]),
                                 str(scores[0]["money_converted"]),
                                 str(scores[0]["population"])]
    before_end = output[:output.index("Final scores")]
    assert len(str(seed)) < 6 or str(seed) not in before_end  # it tells the stacks (R10.2)
    # two games: two seeds
    other = io.StringIO()
    main(["play", "--no-board"], stdin=io.StringIO("1\n" * 400), stdout=other)
    assert f"Seed {seed}:" not in other.getvalue()


def test_seed_option_sets_the_game_and_is_printed():
    stdout = io.StringIO()
    assert main(["play", "--seed", "7", "--mode", "solitary"], stdin=io.StringIO("quit\nno\n"),
                stdout=stdout) == 0
    output = stdout.getvalue()
    assert output.splitlines()[:3] == ["Suburbia, Solitary Architect (R9.1); you are player 0.",
                                       "Seed 7.", "Type 'help' for the commands."]
    expected = Game(1, "solitary", seed=7).market()
    first_screen = "\n".join(screens(output)[0])
    for row in expected:
        assert f"${row['price']} {row['tile']}" in first_screen


# The screen: 80 x 24 -----------------------------------------------------------------------------

TABLES = [(1, "dale", "2nd"), (1, "solitary", "2nd"), (2, "standard", "2nd"),
          (3, "standard", "2nd"), (4, "standard", "2nd"), (1, "dale", "1st"),
          (4, "standard", "1st")]


@pytest.mark.parametrize("players, mode, edition", TABLES)
def test_every_decision_screen_fits_80_columns_by_24_lines(players, mode, edition):
    """Whole games, every seat played at random: the screen of every decision of seat 0
    (early, middle and late; goal choice, turns and discards) fits the terminal, with
    the prompt on its 24th line."""
    labels = {1: "greedy", 2: "random", 3: "dale"}
    kinds = set()
    for seed in range(3):
        game = Game(players, mode, edition, seed)
        generator = np.random.default_rng(seed)
        while not game.is_over:
            if game.current_player == 0:
                lines = decision_screen(game, 0, labels)
                assert len(lines) + 1 <= SCREEN_HEIGHT, "\n".join(lines)
                assert max(len(line) for line in lines) <= SCREEN_WIDTH, "\n".join(lines)
                assert lines[0].startswith(f"Round {game.round + 1}")
                assert any(line.startswith("Your borough") for line in lines)
                kinds.add(game.pending_decision)
            game.apply(int(generator.choice(game.legal_actions())))
    assert {"turn", "discard"} <= kinds
    assert ("keep_goal" in kinds) == (mode != "solitary")


def test_the_printed_screens_fit_at_a_table_of_four():
    """What the terminal really prints between two prompts, in a game of four against
    greedy, random and Dale's procedure: at most 23 lines before each prompt."""
    specs = {1: "greedy", 2: "random", 3: "dale"}
    game = Game(4, seed=8)
    terminal, status, output = session(game, ["1"] * 200, specs=specs)
    assert status == 0 and terminal.game.is_over
    printed = screens(output)
    assert len(printed) >= 15
    for screen in printed:
        assert len(screen) <= SCREEN_HEIGHT and screen[-1] == ""  # the prompt's own line
        assert max(len(line) for line in screen) <= SCREEN_WIDTH, "\n".join(screen)


def test_the_screen_shows_the_acting_players_borough_and_numbers():
    game = Game(1, "dale", seed=3)
    game.apply("keep Builder")
    game.apply("basic park @ -1,0")
    lines = decision_screen(game, 0, {})
    text = "\n".join(lines)
    mine = game.player_state(0)
    assert f"You: ${mine['money']}, income {mine['income']}, reputation {mine['reputation']}" \
        in text
    assert "Your goal: Builder" in text
    assert "CP Community Park" in text and "HF Heavy Factory" in text  # the map's key
    dale = game.player_state(1)
    assert f"Dale: ${dale['money']} inc {dale['income']} rep {dale['reputation']} pop " \
           f"{dale['population']}" in text
    borough = lines[lines.index(next(line for line in lines
                                     if line.startswith("Your borough"))) + 1:]
    assert borough[0].split()[:4] == ["-2", "-1", "0", "1"]  # the columns of the map
    assert "CP" in borough[1 + 2]  # Community Park, the new one, at -1,0: odd column, row 0


def test_the_screen_recalls_what_the_others_did_since_the_persons_move():
    """Dale's turn follows the person's in the same step (R9.2); bots' moves are their
    own steps: the next screen names them above the market when there is room."""
    game = Game(1, "dale", seed=3)
    _, _, output = session(game, ["keep Builder", "basic park @ -1,0", "discard 5"])
    dale_move = re.search(r"\n    (Dale pays \$3 and places .* at -?\d+,\d+)\n", output)[1]
    assert screens(output)[-1][1] == f"Last moves: {dale_move}"
    assert "Last moves" not in "\n".join(screens(output)[0] + screens(output)[1])
    specs = {1: "greedy", 2: "random"}
    _, _, output = session(Game(3, seed=12), ["1", "1"], specs=specs)
    placed = re.findall(r"\n    (player [12] pays \$\d+ and places [^\n]*)", output)
    assert len(placed) == 3  # two before the second screen, one after
    assert_news(screens(output)[1], placed[:2])
    assert screens(output)[1][0].startswith("Round 1; first: P1 greedy. Player 0, you take")


def test_help_and_board_fit_80_columns():
    _, _, output = session(Game(4, seed=8), ["help", "board"],
                           specs={1: "greedy", 2: "random", 3: "dale"})
    said = PROMPT.split(output)
    assert 15 <= len(said[1].splitlines()) <= SCREEN_HEIGHT - 1  # help: one screen
    board = said[2].splitlines()
    assert board[0] == "Suburbia: standard game, 4 players, edition 2nd"
    assert "Private goals: hidden (R10.2)" in board
    assert any(line.startswith("Legend") for line in board)
    assert max(len(line) for line in said[1].splitlines() + board) <= SCREEN_WIDTH


# Hidden information (R10.2) ----------------------------------------------------------------------

def _at_persons_turn(players: int, seed: int, decisions: int) -> Game:
    game = Game(players, "standard", seed=seed)
    generator = np.random.default_rng(seed)
    while len(game.history) < decisions or game.current_player != 0 \
            or game.pending_decision != "turn":
        game.apply(int(generator.choice(game.legal_actions())))
    return game


COMMANDS = ["show", "board", "market", "info 0", "info 3", "info 0,0", "legal", "legal buy",
            "help", "undo", "foo", "buy 9 @ 0,0", "buy 0 @ 6,8", "keep Investor", "pass",
            "info investor", "save", "quit"]


@pytest.mark.parametrize("players", [2, 4])
def test_what_is_printed_does_not_depend_on_hidden_facts(players, in_tmp):
    """The same position with another stack order, One More Round elsewhere and other
    goals drawn, kept and returned by the other players: every command prints the same
    (and the saved file holds none of them: `save_game`)."""
    game = _at_persons_turn(players, seed=players, decisions=14)
    outputs = []
    for variant in range(4):
        state = game.state if variant == 0 else with_other_hidden_facts(game.state, variant)
        twin = Game.from_state(game.config, state)
        if variant:
            assert not np.array_equal(twin.state, game.state)
        _, _, output = session(twin, COMMANDS, seed_source="file",
                               specs={seat: "random" for seat in range(1, players)},
                               save_path=in_tmp / f"game{variant}.json")
        outputs.append(output.replace(f"game{variant}.json", "game.json"))
    assert outputs[1:] == outputs[:1] * 3
    assert "Private goals: hidden (R10.2)" in outputs[0]


def test_no_other_players_goal_is_printed_before_the_end():
    """A whole game of four: the goals the bots drew, kept and returned never appear
    before the final scoring; each bot's keep is printed without its goal."""
    specs = {1: "greedy", 2: "random", 3: "random"}
    game = Game(4, seed=21)
    terminal, status, output = session(game, ["1"] * 200, specs=specs, seed_source="random")
    assert status == 0
    during = output[:output.index("Final scores")]
    state = terminal.game.state
    for seat in (1, 2, 3):
        base = s.player_base(seat)
        for goal in state[base + s.GOAL_OPTIONS:base + s.GOAL_OPTIONS + 2]:
            assert GOALS.names[goal] not in during, (seat, GOALS.names[goal])
        assert f"player {seat} ({specs[seat]}): keeps a private goal" in during
    assert during.count("keeps a private goal") >= 3
    own = terminal.game.goal_options(0)
    assert f"1) keep {own[0]}: " in during  # the person's own goals are theirs to see
    assert "Seed 21" not in during and "Seed 21: the same setup again" in output


def test_the_no_board_screen_fits_80_columns():
    game = Game(3, seed=4)
    _, _, output = session(game, ["1"] * 6, specs={1: "random", 2: "random"},
                           show_board=False)
    assert "Legal moves (" in output
    assert max(len(line) for line in printed_lines(output)) <= SCREEN_WIDTH


# A real process --------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_real_process_plays_saves_and_resumes(in_tmp):
    environment = dict(os.environ, OMP_NUM_THREADS="1")
    command = [sys.executable, "-m", "suburbia_env.apps.cli", "play", "--seed", "3"]
    completed = subprocess.run(command, input="2\ninfo 2\nbuy 2 @ 6,8\n1\nsave g.json\nquit\n",
                               capture_output=True, text=True, cwd=in_tmp, env=environment,
                               timeout=300)
    assert completed.returncode == 0, completed.stderr
    output = completed.stdout
    assert output.splitlines()[:3] == ["Suburbia against Dale the bot (R9.2); you are player 0.",
                                       "Seed 3.", "Type 'help' for the commands."]
    assert "you: keep Builder" in output and "Slot 2: $12 (6 + premium 6). Municipal" in output
    assert "Not accepted: illegal action 'buy 2 @ 6,8': cell 6,8 touches no tile or lake of " \
        "player 0's borough: a new tile goes next to one (R2.4)." in " ".join(output.split())
    assert "The game is saved in g.json.\nContinue it with:\n  suburbia play --resume g.json\n" \
        in output
    assert all(len(line) <= SCREEN_WIDTH for line in printed_lines(output))
    expected = Game(1, "dale", seed=3)
    expected.apply("keep Builder")
    expected.apply(expected.legal_actions()[0])
    saved = Game.from_json((in_tmp / "g.json").read_text())
    assert saved.seed is None and np.array_equal(seen_by(saved.state, 0),
                                                 seen_by(expected.state, 0))
    resumed = subprocess.run(command[:-2] + ["--resume", "g.json", "--no-board"],
                             input="quit\nno\n", capture_output=True, text=True, cwd=in_tmp,
                             env=environment, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "Seed" not in resumed.stdout.splitlines()[1]
    assert "Resumed: what you cannot see" in resumed.stdout
    assert f"Round {expected.round + 1}." in resumed.stdout


# The others' moves and the watching bots (issue 30 item 13) ----------------------------------

def assert_news(screen: list[str], moves: list[str]) -> None:
    """The screen lists `moves` under its header line, all of them, or the latest ones
    after a line that counts the others and names 'log', or only that count."""
    news = [line for line in screen[1:] if line.startswith("Last moves")
            or line.startswith(" " * len("Last moves: ") + "player ")]
    assert news and screen[1] == news[0]
    if news[0] == f"Last moves: {moves[0]}":
        assert news == [news[0]] + [" " * 12 + text for text in moves[1:]]
    elif news[0].endswith("since your last decision; 'log' lists them"):
        assert news == [f"Last moves: {len(moves)} since your last decision; 'log' lists them"]
    else:
        folded = int(re.match(rf"Last moves: \.\.\. (\d+) earlier \(type 'log' to see all "
                              rf"{len(moves)}\), then:$", news[0])[1])
        assert [line.strip() for line in news[1:]] == moves[folded:]


def test_every_move_of_the_others_since_the_persons_decision_is_shown_or_logged():
    """At a table of four, three bots move between two decisions of the person: the next
    screen lists them all, or folds the earliest ones with their number and 'log' lists
    every one, in order."""
    specs = {1: "greedy", 2: "random", 3: "greedy"}
    _, _, output = session(Game(4, seed=12), ["1", "1", "log"], specs=specs)
    last_move = output.rsplit("you: ", 1)[1]
    placed = re.findall(r"\n    (player [123] pays \$\d+ and places [^\n]*)", last_move)
    assert len(placed) == 3
    screen = screens(output)[-1]
    assert len(screen) <= SCREEN_HEIGHT and max(map(len, screen)) <= SCREEN_WIDTH
    assert_news(screen, placed)
    logged = output.split("player 0> ")[-2].splitlines()  # what 'log' printed
    assert logged == ["Since your last decision (3 moves):"] + [
        f"{number:>3}. {text}" for number, text in enumerate(placed, start=1)]


def test_moves_that_do_not_fit_are_folded_and_counted():
    game = Game(2, seed=4)
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[0])
    recent = [f"player 1 pays ${number} and places Tile {number} at 0,{number}"
              for number in range(30)]
    lines = decision_screen(game, 0, {1: "greedy"}, recent=recent)
    assert len(lines) <= SCREEN_HEIGHT - 1 and max(map(len, lines)) <= SCREEN_WIDTH
    first = next(index for index, line in enumerate(lines) if line.startswith("Last moves"))
    folded = int(re.match(r"Last moves: \.\.\. (\d+) earlier \(type 'log' to see all 30\), "
                          r"then:$", lines[first])[1])
    listed = [line.strip() for line in lines[first + 1:first + 1 + 30 - folded]]
    assert listed == recent[folded:] and 0 < 30 - folded < 20
    # with one line for them, it says how many there are; a shorter screen keeps it
    assert _recent_lines(recent, SCREEN_WIDTH, 1) == [
        "Last moves: 30 since your last decision; 'log' lists them"]
    for height in range(12, SCREEN_HEIGHT):
        lines = decision_screen(game, 0, {1: "greedy"}, recent=recent, height=height)
        assert len(lines) <= height and any(line.startswith("Last moves") for line in lines)


class Watcher(Agent):
    """Greedy, writing down each move it is shown (`observe`) and each reset."""

    name = "watcher"

    def __init__(self):
        self.seen = []

    def reset(self, seed=None):
        self.seen.append(("reset", seed))

    def act(self, game):
        return GreedyAgent().act(game)

    def observe(self, game, action, seat):
        self.seen.append((len(game.history), game.current_player, action, seat))


def _watch_session(typed: list[str], watcher: Agent, seed: int = 21) -> tuple[TerminalGame, str]:
    game = Game(3, seed=seed)
    agents = {1: watcher, 2: make_agent("greedy", seed=agent_seed(seed, 2))}
    stdout = io.StringIO()
    terminal = TerminalGame(game, 0, agents, io.StringIO("".join(f"{t}\n" for t in typed)),
                            stdout, False, {1: "watcher", 2: "greedy"})
    terminal.run()
    return terminal, stdout.getvalue()


def _shown_moves(history: list[str], seed: int, seat: int) -> list[tuple]:
    """(decision index, mover, action, seat) of every move of the other seats that a
    watcher in `seat` is to be shown: all but its own and the goal choices (R3.6)."""
    game = Game(3, seed=seed)
    shown = []
    for index, text in enumerate(history):
        number = game.action_number(text)
        if game.current_player != seat and game.pending_decision != "keep_goal":
            shown.append((index, game.current_player, number, seat))
        game.apply(number)
    return shown


@pytest.mark.slow
def test_a_watching_bot_is_shown_every_move_of_the_others_in_the_terminal():
    """As in a tournament: the person's moves and the other bot's, before each is
    played, never a goal choice (R3.6), to the end of the game."""
    watcher = Watcher()
    terminal, _ = _watch_session(["1"] * 400, watcher)
    assert terminal.game.is_over
    expected = _shown_moves(terminal.game.history, 21, 1)
    assert watcher.seen == expected and len(expected) > 30
    assert not any(entry[1] == 1 for entry in expected)


def test_after_an_undo_a_watching_bot_is_reset_and_shown_the_moves_that_remain():
    watcher = Watcher()
    terminal, output = _watch_session(["1", "1", "1", "undo"], watcher)
    assert "Undone: your" in output
    last_reset = max(index for index, entry in enumerate(watcher.seen) if entry[0] == "reset")
    assert watcher.seen[last_reset] == ("reset", agent_seed(21, 1))
    remaining = watcher.seen[last_reset + 1:]
    history = terminal.game.history
    assert remaining == _shown_moves(history, 21, 1)[:len(remaining)]
    assert remaining and all(entry[0] < len(history) for entry in remaining)
    before_undo = watcher.seen[:last_reset]
    assert remaining == [entry for entry in before_undo if entry[0] < len(history)]


class FailsOnItsSecondTurn(Agent):
    """First legal action, except that it raises on its second turn (after its goal)."""

    name = "flaky"

    def __init__(self):
        self.turns = 0

    def act(self, game):
        if game.pending_decision == "turn":
            self.turns += 1
            if self.turns == 2:
                raise RuntimeError("lost the thread")
        return game.legal_actions()[0]


def test_a_bot_that_fails_in_the_terminal_is_replaced_by_the_stand_in():
    """As a tournament's forfeit: the person is told, and the first legal action plays
    the seat from then on; the person's game goes on."""
    game = Game(2, seed=8)
    stdout = io.StringIO()
    terminal = TerminalGame(game, 0, {1: FailsOnItsSecondTurn()},
                            io.StringIO("1\n" * 400), stdout, False, {1: "flaky"})
    assert terminal.run() == 0 and terminal.game.is_over
    printed = stdout.getvalue()
    assert printed.count("failed") == 1
    assert re.search(r"player 1 \(flaky\) failed \(raised RuntimeError: lost the thread\); the "
                     r"stand-in, which takes the first legal action, plays its seat from "
                     r"now on\.", " ".join(printed.split()))
    replay = Game(2, seed=8)
    for text in terminal.game.history:
        number = replay.action_number(text)
        if replay.current_player == 1:
            assert number == int(replay.legal_actions()[0])
        replay.apply(number)
