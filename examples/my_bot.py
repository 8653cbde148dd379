"""A bot of your own (README, "Your own bot"): buy the cheapest tile on offer.

    suburbia match --agents examples/my_bot.py:cheapest_tile greedy dale --mode dale --games 100
    suburbia match --agents examples/my_bot.py:CheapestTile greedy dale random --mode standard --players 4

The function and the class play alike; the class shows the Agent interface.
"""

from agents import Agent


def cheapest_tile(game):
    """Buy the cheapest tile on offer, else make the first legal move."""
    prices = {row["slot"]: row["price"] for row in game.market()}
    moves = game.legal_actions_text()  # e.g. "buy 3 @ -1,0", "basic park @ 0,2", "pass"
    buys = [move for move in moves if move.startswith("buy ")]
    if buys:
        return min(buys, key=lambda move: prices[int(move.split()[1])])
    return moves[0]


class CheapestTile(Agent):
    """The same bot as an Agent subclass (agents/base.py): `reset(seed)` comes before
    each game, `act(game)` for each decision."""

    def act(self, game):
        return cheapest_tile(game)
