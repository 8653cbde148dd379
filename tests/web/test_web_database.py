"""The web server's store (suburbia_env/apps/web/database.py, store.Store): records that
replay a game exactly (64-bit seeds and redraw words kept as they were), the networks
the limits count, and store files it cannot use refused with a clear message."""

import os
import sqlite3
import stat

import pytest

from suburbia_env.apps.web.database import Database, StoreError, network_of
from suburbia_env.apps.web.seats import Seat
from suburbia_env.apps.web.sessions import GameSession, Redraw
from suburbia_env.apps.web.store import Limits, Store


@pytest.mark.parametrize("client, network", [
    ("203.0.113.77", "203.0.113.0/24"),
    ("::ffff:203.0.113.77", "203.0.113.0/24"),
    ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
    ("testclient", "testclient"),
])
def test_limits_count_a_client_with_its_network(client, network):
    assert network_of(client) == network


def test_a_game_comes_back_from_its_row_with_its_seed_redraws_and_tokens(tmp_path):
    """A seed above 2**63 (what a 64-bit secure generator gives) and an undo's redraw
    words (four int32 generator words, extremes included) are kept exactly; the game read back is the same game, position and log."""
    store = Store(Limits(), Database(tmp_path / "games.sqlite3"))
    seed = 2**64 - 59
    session = GameSession(mode="standard", players=2, edition="2nd", seed=seed,
                          seed_chosen=False, seats=[Seat(0, None, "A"), Seat(1, None, "B")],
                          client="198.51.100.7", agent_factory=None)
    store.add(session)
    for _ in range(6):
        session.play(session.game.current_player, int(session.game.legal_actions()[0]), None)
    with session.lock:  # an undo's redraw, as GameSession.undo makes
        session.redraws.append(Redraw(len(session.actions), 0, [-2**31, 2**31 - 1, 12345, -7]))
        session.redraws[-1].apply(session.game)
        session._save()
    state, log = session.game.to_json(), [entry.notation for entry in session.log]
    store.close_all()
    again = store.get(session.id, "game")
    assert again is not session
    assert again.seed == seed and again.redraws == session.redraws
    assert again.game.to_json() == state and [entry.notation for entry in again.log] == log
    assert again.tokens == session.tokens and again.owner_token == session.owner_token
    mode = stat.S_IMODE(os.stat(tmp_path / "games.sqlite3").st_mode)
    assert mode == 0o600


def test_store_files_it_cannot_use_are_refused_by_name(tmp_path):
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not a game store"):
        Database(junk)
    newer = tmp_path / "newer.sqlite3"
    Database(newer).close()
    with sqlite3.connect(newer) as connection:
        connection.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(StoreError, match="store version 99"):
        Database(newer)
