"""The text rendering of a game (render.py): header, market, stacks, supply, goals, seats
and the hex map of each borough (R2.1, R4.1, R8.1, R10.1, R10.2).

Expected texts are written by hand from the rules and the layout described in
render.py: every grid row takes two lines, even columns on the first, odd columns
(half a cell lower, R2.1) on the second; each column is 5 characters wide.
"""

import re

import numpy as np
import pytest

from suburbia_env import Game
from suburbia_env.engine import state_layout as s
from suburbia_env.positions import (put_tile_without_effects, set_current_player,
                                    set_market_tile, set_player_values)
from suburbia_env.display.render import TILE_LABELS, render_borough, render_events, render_game
from suburbia_env.display.vocabulary import next_red_line
from suburbia_env.engine.tile_data import GOALS, TILES


def _market_rows(text: str) -> dict[int, tuple[str, str, str, str]]:
    """slot -> (premium, tile, cost, price) read back from the market table."""
    rows = {}
    section = text.split("Market (", 1)[1].split("\n\n", 1)[0]
    for line in section.splitlines()[2:]:
        full = re.match(r"^\s+(\d)\s+(\+\d+)\s+(.+?)\s+(\d+)\s+(\d+)$", line)
        empty = re.match(r"^\s+(\d)\s+(\+\d+)\s+\(empty\)$", line)
        if full:
            rows[int(full.group(1))] = (full.group(2), full.group(3), full.group(4), full.group(5))
        elif empty:
            rows[int(empty.group(1))] = (empty.group(2), "(empty)", "", "")
        else:
            raise AssertionError(f"unreadable market line {line!r}")
    return rows


def _seat_section(text: str, title: str) -> str:
    for section in text.split("\n\n"):
        if section.startswith(title):
            return section
    raise AssertionError(f"no section {title!r} in\n{text}")


def _turn_game(players: int = 2, seed: int = 3) -> Game:
    game = Game(players=players, seed=seed, random_private_goals=True)
    set_current_player(game, 0)
    return game


def test_starting_borough_map_r2_3():
    """R2.3: Suburbs (0,0), Community Park (0,1), Heavy Factory (0,2); the box is
    columns -1..1 and rows 0..3 (one-cell margin, clipped at row 0)."""
    game = _turn_game()
    lines, kinds = render_borough(game.state, 1)
    assert lines == [
        "     -1    0    1",
        "  0       Sub",
        "      .         .",
        "  1       CP",
        "      .         .",
        "  2       HF",
        "      .         .",
        "  3        .",
        "      .         .",
    ]
    assert {TILES.names[k] for k in kinds} == {"Suburbs", "Community Park", "Heavy Factory"}


def test_known_position_map_lakes_investments_and_odd_columns_r2_1():
    """Odd columns are drawn half a cell lower (R2.1): (1,1) sits on the second line of
    row 1, between (0,1) and (0,2) that it touches (R2.2); (2,1) on the first line.
    A lake shows as ~~~ whatever tile it was made of; an invested tile carries *."""
    game = _turn_game()
    put_tile_without_effects(game, 0, "Office Building", 1, 1, invested=True)
    put_tile_without_effects(game, 0, "Power Station", 2, 1)
    put_tile_without_effects(game, 0, "Farm", -1, 2, lake=True)
    put_tile_without_effects(game, 0, "Postal Service", 0, 3)
    lines, kinds = render_borough(game.state, 0)
    assert lines == [
        "     -2   -1    0    1    2    3",
        "  0   .        Sub        .",
        "           .         .         .",
        "  1   .        CP        PSt",
        "           .        OB*        .",
        "  2   .        HF         .",
        "          ~~~        .         .",
        "  3   .        PSe        .",
        "           .         .         .",
        "  4   .         .         .",
        "           .         .         .",
    ]
    # The lake's tile (Farm) is face down: not a tile shown on the map.
    assert {TILES.names[k] for k in kinds} == {"Suburbs", "Community Park", "Heavy Factory",
                                               "Office Building", "Power Station",
                                               "Postal Service"}
    text = render_game(game)
    assert "\n".join("  " + line for line in lines) in _seat_section(text, "Player 0")
    legend = text.split("Legend", 1)[1].splitlines()
    assert "  OB   Office Building" in legend
    assert "  PSe  Postal Service" in legend
    assert "  PSt  Power Station" in legend
    assert "  ~~~  lake (a tile placed face down, R6.7)" in legend
    assert "  *    investment marker on the tile (R7.3)" in legend
    assert not any(line.endswith(" Farm") for line in legend)
    assert "markers left 2" in _seat_section(text, "Player 0")


def test_map_is_clipped_to_the_grid_edges_r2_1():
    """Tiles at column 6 and row 8: no margin beyond the grid (13 x 9 cells)."""
    game = _turn_game()
    put_tile_without_effects(game, 0, "Suburbs", 6, 8)
    lines, _ = render_borough(game.state, 0)
    assert lines[0].split() == ["-1", "0", "1", "2", "3", "4", "5", "6"]
    assert lines[-2].startswith("  8 ")
    assert lines[-2].split()[-1] == "Sub"
    assert len(lines) == 1 + 2 * 9


def test_tile_labels_are_short_and_distinct():
    assert len(set(TILE_LABELS)) == len(TILE_LABELS)
    assert all(1 <= len(label) <= 3 for label in TILE_LABELS)
    kind = TILES.kind
    assert TILE_LABELS[kind("Postal Service")] != TILE_LABELS[kind("Power Station")]
    assert TILE_LABELS[kind("Suburbs")] == "Sub"
    assert TILE_LABELS[kind("Community Park")] == "CP"


def test_market_table_prices_r4_1_r5_1():
    """Price = cost + premium of the slot (+10 +8 +6 +4 +2 +0 +0). E1: an Office Building
    ($9) in slot 4 costs $11; a Mint ($15) in slot 0 costs $25."""
    game = _turn_game()
    set_market_tile(game, 4, "Office Building")
    set_market_tile(game, 0, "Mint")
    set_market_tile(game, 6, None)
    rows = _market_rows(render_game(game))
    assert sorted(rows) == list(range(7))
    assert rows[4] == ("+2", "Office Building", "9", "11")
    assert rows[0] == ("+10", "Mint", "15", "25")
    assert rows[6] == ("+0", "(empty)", "", "")
    assert [rows[slot][0] for slot in range(7)] == ["+10", "+8", "+6", "+4", "+2", "+0", "+0"]


def test_dale_market_shows_slots_2_to_5_only_r9_2():
    game = Game(players=1, mode="dale", seed=11)
    rows = _market_rows(render_game(game))
    assert sorted(rows) == [2, 3, 4, 5]
    assert [rows[slot][0] for slot in (2, 3, 4, 5)] == ["+6", "+4", "+2", "+0"]
    assert all(rows[slot][1] != "(empty)" for slot in (2, 3, 4, 5))
    text = render_game(game)
    assert "Dale\n" in text + "\n" and "Player 0" in text
    assert "Suburbia: against Dale the bot (R9.2), 1 player, edition 2nd" in text


@pytest.mark.parametrize("players, a_left, b_left, c_left", [(2, 7, 12, 18), (4, 15, 20, 30)])
def test_stacks_and_supply_at_setup_r3_2_r3_5(players, a_left, b_left, c_left):
    """R3.2 (2nd edition): A 14/22 minus the 7 market tiles, B 12/20, C 17/29 plus One
    More Round. R3.5: four of each basic tile."""
    text = render_game(Game(players=players, seed=2))
    assert f"Stacks left: A {a_left}, B {b_left}, C {c_left}" in text
    assert "Basic supply (R3.5): Suburbs 4, Community Park 4, Heavy Factory 4" in text


def test_first_edition_stack_sizes_r3_3():
    """R3.3: 3 players: A 18 (-7 market), B 18, C 22 + One More Round."""
    text = render_game(Game(players=3, edition="1st", seed=2))
    assert "Stacks left: A 11, B 18, C 23" in text
    assert "standard game, 3 players, edition 1st" in text


def test_header_round_decision_and_final_round():
    game = Game(players=3, seed=4)
    text = render_game(game)
    first = int(game.state[s.FIRST_PLAYER])
    assert "Round 1; final round: not known yet" in text
    assert f"Player {first} to decide: keep one of two drawn goals (R3.6)" in text
    for _ in range(3):
        game.apply(game.legal_actions()[0])
    assert f"Player {first} to decide: take a turn" in render_game(game)
    game.state[s.ROUND] = 5
    game.state[s.FINAL_ROUND] = 6
    assert "Round 6; final round: round 7" in render_game(game)


def test_seat_values_and_red_line_distance_r8_1():
    game = _turn_game()
    set_player_values(game, 1, money=23, income=-2, reputation=4, population=14)
    seat = _seat_section(render_game(game), "Player 1")
    assert ("money $23, income -2, reputation 4, population 14, markers left 3, "
            "next red line at 15 (1 away)") in seat


@pytest.mark.parametrize("population, line", [(0, 15), (14, 15), (15, 22), (21, 22), (22, 29),
                                              (94, 95), (98, 101), (100, 101), (101, 103),
                                              (150, 151)])
def test_next_red_line_r8_1(population, line):
    """Lines at 15, 22, 29, ..., 95, 98, then every odd number from 101; a line is
    crossed on reaching its value, so at 15 the next one is 22."""
    assert next_red_line(population) == line


def test_private_goals_are_never_shown_r10_2():
    """Neither the drawn goal options nor the kept private goals appear, at any step."""
    for mode, players in (("standard", 2), ("standard", 4)):
        game = Game(players=players, mode=mode, seed=21)
        hidden = {GOALS.names[int(g)] for p in range(players)
                  for g in game.state[s.player_base(p) + s.GOAL_OPTIONS:
                                      s.player_base(p) + s.GOAL_OPTIONS + 2]}
        assert len(hidden) == 2 * players
        public = set(game.public_goals)
        assert len(public) == players and not hidden & public
        choices = np.random.default_rng(5)
        while not game.is_over:
            text = render_game(game)
            for name in hidden:
                assert name not in text, f"{name} shown at decision {len(game.history)}"
            for name in public:
                assert name in text
            game.apply(int(choices.choice(game.legal_actions())))
        assert "Private goals: hidden (R10.2)" in render_game(game)


def test_game_over_shows_winners_and_score_sums_r8_2_r8_3():
    game = Game(players=2, seed=8, random_private_goals=True)
    choices = np.random.default_rng(8)
    while not game.is_over:
        game.apply(int(choices.choice(game.legal_actions())))
    text = render_game(game)
    winners = ", ".join(f"Player {p}" for p in game.winners)
    assert f"Game over. Winner(s): {winners}" in text
    for score in game.final_scores():
        seat = _seat_section(text, f"Player {score['player']}")
        match = re.search(r"final score: population (\d+) \+ goals (\d+) \+ money (\d+) = (\d+)",
                          seat)
        assert match, seat
        before, goals, money, final = map(int, match.groups())
        assert before + goals + money == final == score["population"]
        assert money == score["money_converted"]


def test_render_events_numbers_the_lines_of_e1():
    """E1: Office Building from slot 4 (+$2) at (1,1): pays $11, income +1, the Park's
    reputation +1; then steps 2 and 3."""
    game = _turn_game()
    set_market_tile(game, 4, "Office Building")
    game.apply("buy 4 @ 1,1")
    text = render_events(game)
    lines = text.splitlines()
    assert lines[0] == "1. player 0 pays $11 and places Office Building at 1,1"
    assert "2. player 0: inc+1 -> 1 (Office Building at 1,1 of player 0)" in lines
    assert "3. player 0: rep+1 -> 2 (Community Park at 0,1 of player 0)" in lines
    assert "4. player 0: income step +1, money now $5" in lines
    assert "5. player 0: population step +2, population now 4" in lines


def test_game_render_method_uses_render_game():
    game = Game(players=2, seed=1)
    assert game.render() == render_game(game)


@pytest.mark.parametrize("players", [2, 4])
def test_one_more_round_event_names_the_final_round_r4_3(players):
    """R4.3: One More Round drawn by a refill during round r (0-based; even on the last
    turn of the round) makes round r + 1 the final one, shown counting from 1: r + 2."""
    game = Game(players=players, seed=31, random_private_goals=True)
    choices = np.random.default_rng(31)
    while not game.is_over:
        round_before = game.round
        lines = game.apply(int(choices.choice(game.legal_actions())))
        drawn = [line for line in lines if line.startswith("One More Round is drawn")]
        if drawn:
            assert drawn == [f"One More Round is drawn: round {round_before + 2} is the final "
                             f"round (R4.3)"]
            assert f"final round: round {round_before + 2}" in render_game(game)
            return
    raise AssertionError("One More Round was never drawn")
