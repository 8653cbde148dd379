"""The one game loop (agents/table.py) that tournaments, the recording of demonstrations,
the web's bots and the terminal's play: seats, reseeding, showing moves to the agents
that observe them, forfeits and the stand-in, one decision at a time or to the end."""

from __future__ import annotations

import io

import pytest

from agents import Agent, make_agent
from agents.greedy import GreedyAgent
from agents.table import SeatingError, Table, agent_seed
from agents.tournament import run_tournament
from suburbia_env import Game
from suburbia_env.apps.terminal_game import TerminalGame


class FirstLegal(Agent):
    """What a person typing "1" at every decision of the terminal plays."""

    name = "first"

    def act(self, game):
        return int(game.legal_actions()[0])


class Watcher(Agent):
    """Greedy, writing down each reset, decision and move it is shown (`observe`) in
    `seen`: a class attribute, so the copy a tournament plays writes to the same list."""

    name = "watcher"
    seen: list = []

    def reset(self, seed=None):
        self.seen.append(("reset", seed))

    def act(self, game):
        action = GreedyAgent().act(game)
        self.seen.append(("act", len(game.history), action))
        return action

    def observe(self, game, action, seat):
        self.seen.append(("observe", len(game.history), game.current_player, action, seat))


@pytest.mark.slow
def test_the_terminals_bots_are_shown_the_moves_as_a_tournaments():
    """A person who types "1" (the first legal move) at every decision, beside a watching
    bot and greedy, plays the game a tournament plays with the first legal move in the
    person's seat: the watcher decides the same and is shown the same moves (the person's
    and greedy's, never a goal choice, R3.6) with the same actions, in the same order."""
    seed = 21
    Watcher.seen = []
    result = run_tournament([FirstLegal(), Watcher(), "greedy"], "standard", games=1,
                            players=3, seed=seed, workers=1, progress=False,
                            keep_records=True)
    assert [row["seat"] for row in result.rows if row["agent"] == "watcher"] == [1]
    in_tournament = list(Watcher.seen)
    assert in_tournament[0] == ("reset", agent_seed(seed, 1))

    Watcher.seen = []
    agents = {1: Watcher(), 2: make_agent("greedy", seed=agent_seed(seed, 2))}
    terminal = TerminalGame(Game(3, seed=seed), 0, agents, io.StringIO("1\n" * 500),
                            io.StringIO(), False, {1: "watcher", 2: "greedy"})
    assert terminal.run() == 0 and terminal.game.is_over
    assert terminal.game.history == result.records[0]["actions"]
    assert Watcher.seen == in_tournament[1:]
    shown = [entry for entry in Watcher.seen if entry[0] == "observe"]
    assert {entry[2] for entry in shown} == {0, 2}
    assert len(shown) == len(terminal.game.history) - 2 - sum(
        entry[0] == "act" for entry in Watcher.seen)  # all but its own and 2 goal choices


def test_one_step_at_a_time_plays_the_game_that_play_out_plays():
    def table():
        seated = Table({0: make_agent("random"), 1: make_agent("random")})
        seated.reseed(7)
        return seated

    whole = Game(2, seed=7)
    assert table().play_out(whole) == {}
    stepped, moves, seats = Game(2, seed=7), [], table()
    while not stepped.is_over:
        mover = stepped.current_player
        move = seats.step(stepped)
        assert move.seat == mover and not move.by_stand_in
        moves.append(move.number)
    assert stepped.history == whole.history and len(moves) == len(whole.history)
    assert (stepped.state == whole.state).all()


class ResetFails(FirstLegal):
    def reset(self, seed=None):
        raise RuntimeError("no generator")


def test_an_agent_whose_reset_raises_forfeits_and_the_stand_in_plays_its_seat():
    told = []
    table = Table({0: ResetFails(), 1: make_agent("random")},
                  on_forfeit=lambda seat, problem: told.append((seat, problem)))
    table.reseed(3)
    reason = "reset before the game raised RuntimeError: no generator"
    assert table.forfeited == {0: (1, reason)} and told == [(0, reason)]
    assert list(table.playing) == [1]
    game = Game(2, seed=3)
    while game.current_player != 0:
        table.step(game)
    first_legal = int(game.legal_actions()[0])
    move = table.step(game)
    assert (move.seat, move.number, move.by_stand_in) == (0, first_legal, True)


class AnswersNonsense(FirstLegal):
    def act(self, game):
        return "build a castle"


def test_an_illegal_answer_forfeits_at_that_decision_and_the_game_goes_on():
    game = Game(2, seed=4)
    mover = game.current_player
    table = Table({mover: AnswersNonsense(), 1 - mover: make_agent("random")})
    table.reseed(4)
    move = table.step(game)
    assert move.by_stand_in and len(game.history) == 1
    decision, reason = table.forfeited[mover]
    assert decision == 1
    assert reason.startswith("at the game's decision 1 (round 1): answered an illegal "
                             "action 'build a castle'")
    assert table.play_out(game) == {mover: (decision, reason)} and game.is_over


def test_a_seat_that_no_agent_plays_is_named():
    game = Game(2, seed=5)
    mover = game.current_player
    with pytest.raises(SeatingError, match=f"seat {mover} decides but no agent plays it"):
        Table({1 - mover: make_agent("random")}).step(game)
    assert game.history == []
