"""Bots of the web app watch the game (suburbia_env/apps/web/sessions.py): a bot with an
`observe` (agents/base.py) is shown each move of the other seats, the goal choice
excepted (R3.6: hidden); one seated late, or again after an undo, is first shown the
moves so far, as replayed after the undo."""

import time

from agents import Agent
from suburbia_env import Game
from suburbia_env.apps.web.seats import Seat
from suburbia_env.apps.web.sessions import GameSession


class Recorder(Agent):
    """Plays the first legal action; writes down (decision, mover, action, own seat) of
    every move it is shown."""

    name = "recorder"

    def __init__(self):
        self.seen = []

    def act(self, game):
        return int(game.legal_actions()[0])

    def observe(self, game, action, seat):
        self.seen.append((len(game.history), game.current_player, action, seat))


def _wait(session, condition, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with session.lock:
            if condition():
                return
        time.sleep(0.01)
    raise AssertionError("the bot did not move in time")


def _person_plays(session, decisions):
    """The person (seat 0) takes `decisions` decisions, the first legal action each time,
    waiting for the bot between them."""
    for _ in range(decisions):
        _wait(session, lambda: session.game.current_player == 0)
        with session.lock:
            session.play(0, int(session.game.legal_actions()[0]), None)


def _shown_to(seat, actions, seed):
    """What a watcher at `seat` must be shown of a game of `seed` whose decisions are
    `actions`: every other seat's move but a goal choice."""
    game = Game(2, "standard", "2nd", seed)
    shown = []
    for number in actions:
        if game.current_player != seat and game.pending_decision != "keep_goal":
            shown.append((len(game.history), game.current_player, number, seat))
        game.apply(number)
    return shown


def test_web_bots_are_shown_the_other_seats_moves_and_again_after_an_undo():
    made = []

    def factory(spec, seed, seat, mode):
        made.append(Recorder())
        return made[-1]

    session = GameSession(mode="standard", players=2, edition="2nd", seed=5, seed_chosen=True,
                          seats=[Seat(0, None, "You"), Seat(1, "recorder", "Bot")],
                          client="test", agent_factory=factory, delay_ms=0)
    try:
        _person_plays(session, 8)
        _wait(session, lambda: session.game.current_player == 0)
        with session.lock:
            actions = list(session.actions)
        assert len(made) == 1
        assert made[0].seen == _shown_to(1, actions, 5)
        assert any(mover == 0 for _, mover, _, _ in made[0].seen)

        with session.lock:
            session.undo(0)
        _person_plays(session, 1)
        _wait(session, lambda: session.game.current_player == 0 and len(made) == 2)
        with session.lock:
            actions = list(session.actions)
        # seated again, the bot was shown the moves that remain, once each (the undo's
        # redraw changes only what nobody sees: not who decides, nor the action numbers)
        assert made[1].seen == _shown_to(1, actions, 5)
    finally:
        session.close()
