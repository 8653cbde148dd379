"""The drawing every picture shares (drawing.py), its rasterising (picture.py), tile effects
in words (tile_text.py) and `suburbia render --svg/--png`.

Checked on positions built by hand: what a player must read is in the SVG as text (tile
names, prices, labels, values, scores), and nothing R10.2 hides is.
"""

import io
import re
from html import unescape

import numpy as np
import pytest

from suburbia_env import Game
from suburbia_env.engine import state_layout as s
from suburbia_env.apps.cli import main as cli_main
from suburbia_env.display.drawing import HEX_RADIUS, TYPE_FILLS, Layout, name_lines, table_svg
from suburbia_env.display.vocabulary import next_red_line
from suburbia_env.engine.hex_grid import cell_index
from suburbia_env.display.picture import (picture_layout, png_to_rgb, render_picture,
                                          svg_to_png)
from suburbia_env.positions import (put_tile_without_effects, set_current_player,
                                    set_market_tile, set_player_values)
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.display.tile_text import (goal_info, tile_catalog, tile_effects,
                                            tile_summary)


def texts(svg: str) -> list[str]:
    return [unescape(text) for text in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


def cell_group(svg: str, seat: int, column: int, row: int) -> str:
    match = re.search(rf'<g class="([^"]*)" data-seat="{seat}" data-cell="{cell_index(column, row)}"'
                      rf'[^>]*>(.*?)</g>', svg, re.S)
    assert match, (seat, column, row)
    return match.group(1) + " " + match.group(2)


def turn_game(players=2, seed=3):
    game = Game(players=players, seed=seed, random_private_goals=True)
    set_current_player(game, 0)
    return game


def test_tiles_are_named_and_coloured_by_type_with_icons_lakes_and_markers_r2_1_r1_4():
    game = turn_game()
    put_tile_without_effects(game, 0, "Office Building", 1, 1, invested=True)
    put_tile_without_effects(game, 0, "Farm", -1, 2, lake=True)
    put_tile_without_effects(game, 0, "Fast Food Restaurant", 0, 3)
    svg = table_svg(game)
    office = cell_group(svg, 0, 1, 1)
    assert "invested" in office and TYPE_FILLS[1] in office  # commercial blue
    assert ">Office<" in office and ">Building<" in office and ">OFFICE<" in office
    assert "Investment marker" in office  # the tooltip says what the marker does (R7.3)
    lake = cell_group(svg, 0, -1, 2)
    assert "lake" in lake and ">Lake<" in lake and "Farm" not in lake  # face down (R6.7)
    food = cell_group(svg, 0, 0, 3)
    assert ">FOOD<" in food and "+3 population for each adjacent residential tile" in food
    starting = cell_group(svg, 1, 0, 2)
    assert ">Heavy<" in starting and TYPE_FILLS[3] in starting  # industrial yellow (R2.3)
    # placeable cells carry their coordinates (R2.4), the others are one grey path
    assert "placeable" in cell_group(svg, 0, 2, 1) and ">2,1<" in cell_group(svg, 0, 2, 1)
    assert f'data-cell="{cell_index(-6, 8)}"' not in svg


def test_market_shows_premiums_costs_and_prices_r4_1():
    """E1: an Office Building ($9) in slot 4 (+$2) costs $11; a Mint in slot 0 $25."""
    game = turn_game()
    set_market_tile(game, 4, "Office Building")
    set_market_tile(game, 0, "Mint")
    set_market_tile(game, 6, None)
    words = texts(table_svg(game))
    assert "slot 4 · +$2" in words and "$9+2" in words and "$11" in words
    assert "slot 0 · +$10" in words and "$15+10" in words and "$25" in words
    assert "slot 6 · +$0" in words and "(empty)" in words
    assert "Basic supply" in words and words.count("4 left") == 3  # R3.5
    assert "Stacks" in words


def test_dale_market_has_four_slots_r9_2():
    words = texts(table_svg(Game(players=1, mode="dale", seed=11)))
    assert [w for w in words if w.startswith("slot ")] == [
        "slot 2 · +$6", "slot 3 · +$4", "slot 4 · +$2", "slot 5 · +$0"]
    assert "Dale" in words and "Player 0" in words


def test_player_values_and_next_red_line_r8_1():
    game = turn_game()
    set_player_values(game, 1, money=23, income=-2, reputation=4, population=14)
    words = texts(table_svg(game, labels={1: "Player 1 · greedy"}))
    assert "Player 1 · greedy" in words
    assert ("$23 · income -2 · reputation +4 · population 14 · red line 15 (1 away) · "
            "markers 3") in words
    assert next_red_line(15) == 22


def test_only_the_viewers_own_private_goal_is_drawn_r10_2():
    game = Game(players=3, seed=21)
    options = {p: [GOALS.names[int(g)] for g in
                   game.state[s.player_base(p) + s.GOAL_OPTIONS:s.player_base(p) + s.GOAL_OPTIONS + 2]]
               for p in range(3)}
    public = texts(table_svg(game))
    for names in options.values():
        assert not any(name in text for name in names for text in public)
    for goal in game.public_goals:
        assert goal in public
    mine = " ".join(texts(table_svg(game, viewer=0)))
    assert all(name in mine for name in options[0])
    assert not any(name in mine for p in (1, 2) for name in options[p])
    while game.pending_decision == "keep_goal":
        game.apply(game.legal_actions()[0])
    kept = {p: game.private_goal(p) for p in range(3)}
    mine = " ".join(texts(table_svg(game, viewer=1)))
    assert f"Your goal: {kept[1]}" in mine
    assert not any(name in mine for p in (0, 2) for name in options[p])
    revealed = " ".join(texts(table_svg(game, reveal=True)))
    assert all(f"goal: {kept[p]}" in revealed for p in range(3))


def test_finished_game_shows_the_final_scores_r8_2_r8_3():
    game = Game(players=2, seed=8, random_private_goals=True)
    choices = np.random.default_rng(8)
    while not game.is_over:
        game.apply(int(choices.choice(game.legal_actions())))
    words = texts(table_svg(game))
    for score in game.final_scores():
        goals = sum(score["public_goals"].values()) + score["private_goal_bonus"]
        line = (f"population {score['population_before_goals']} + goals {goals} + money "
                f"{score['money_converted']} = {score['population']}")
        assert any(text.startswith(line) for text in words), line
        assert any(text.endswith(f"final {score['population']}") for text in words)
    assert any(text.startswith("★ winner") for text in words)
    assert any(text.startswith("Game over · winner") for text in words)


def test_name_lines_fit_a_hex():
    for name in TILES.names:
        lines = name_lines(name)
        assert 1 <= len(lines) <= 3 and all(len(line) <= 10 for line in lines), name
    assert name_lines("Suburbs") == ("Suburbs",)


def test_layout_puts_odd_columns_half_a_cell_lower_r2_1():
    layout = Layout((0, 1))
    x0, y0 = layout.cell_centre(0, cell_index(0, 1))
    x1, y1 = layout.cell_centre(0, cell_index(1, 1))
    assert x1 - x0 == pytest.approx(1.5 * HEX_RADIUS)
    assert y1 - y0 == pytest.approx(np.sqrt(3) / 2 * HEX_RADIUS)
    assert layout.panel_origin(1)[0] > layout.panel_origin(0)[0]


# Pixels --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 4])
def test_rgb_picture_is_the_drawing_rasterised(players):
    game = Game(players=players, seed=1)
    picture = render_picture(game)
    layout = picture_layout(game)
    assert picture.dtype == np.uint8 and picture.shape == (layout.height, layout.width, 3)
    np.testing.assert_array_equal(picture, png_to_rgb(svg_to_png(table_svg(game))))
    # the Suburbs of seat 0 at (0, 0), R2.3: residential green around the name
    x, y = layout.cell_centre(0, cell_index(0, 0))
    patch = picture[int(y) + 14:int(y) + 22, int(x) - 20:int(x) + 20].reshape(-1, 3)
    green = tuple(int(TYPE_FILLS[0][i:i + 2], 16) for i in (1, 3, 5))
    assert (patch == green).all(axis=1).mean() > 0.8


def test_render_command_writes_svg_and_png(tmp_path):
    game = turn_game()
    state = tmp_path / "state.json"
    state.write_text(game.to_json())
    svg, png = tmp_path / "out" / "board.svg", tmp_path / "out" / "board.png"
    output = io.StringIO()
    assert cli_main(["render", str(state), "--svg", str(svg), "--png", str(png)],
                    stdout=output) == 0
    assert svg.read_text() == table_svg(Game.from_json(game.to_json()))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Drawing (SVG) written" in output.getvalue() and "Picture (1508 x" in output.getvalue()
    np.testing.assert_array_equal(png_to_rgb(png.read_bytes()), render_picture(game))


# Words -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, sentences", [
    ("Suburbs", ["When placed: +2 population."]),
    ("Fast Food Restaurant", ["When placed: +1 income.", "+3 population for each adjacent "
                              "residential tile, now and whenever one is placed later."]),
    ("Mint", ["When placed: +3 income.", "+$2 for each civic tile in your borough (this one "
              "included), now and later."]),
    ("Fancy Restaurant", ["When placed: +3 income.", "-1 income for each tile with a "
                          "restaurant icon placed after this one, in any borough."]),
    ("Hotel", ["When placed: +1 income.", "+1 population for each residential tile in the "
               "other players' boroughs, now and later."]),
    ("Casino", ["When placed: -3 reputation.", "+1 income each time you cross a red line "
                "upward from now on."]),
    ("Waterfront Realty", ["+$2 more on every lake payment you receive from now on."]),
    ("Landfill", ["When placed: +2 income.", "-1 reputation for each adjacent non-lake tile, "
                  "now and whenever one is placed later."]),
    ("Lake", ["A tile placed face down: +$2 for each adjacent non-lake tile, now and whenever "
              "one is placed next to it later; nothing for lakes (R6.7)."]),
])
def test_tile_effects_in_words_r6(name, sentences):
    assert tile_effects(TILES.kind(name)) == sentences


def test_catalog_and_goals_in_words():
    catalog = tile_catalog()
    assert len(catalog) == TILES.num_kinds - 1 and catalog[TILES.lake]["type"] == "lake"
    assert tile_summary(TILES.kind("Municipal Airport")).startswith(
        "Municipal Airport (industrial, airport icon, $6).")
    assert goal_info(GOALS.goal("Miser"))["criterion"] == "Lowest income level"
    assert goal_info(GOALS.goal("Public Official"))["criterion"] == (
        "Largest group of connected Civic tiles")
    assert goal_info(GOALS.goal("Spendthrift"))["criterion"].startswith("Least money")


def test_decisions_in_words_r5_r3_6():
    """The log of the web page tells each decision in words, read from the state it is
    taken in; the notation stays what records hold."""
    from suburbia_env.engine import action_space as a
    from suburbia_env.engine.hex_grid import NUM_CELLS
    from suburbia_env.display.render import describe_action
    game = Game(players=2, seed=3)
    assert game.legal_actions_text() == ["keep Developer", "keep Aquaphobian"]
    assert describe_action(a.ACTION_KEEP_GOAL + 1, game.state) == "keeps Aquaphobian as private goal"
    while game.pending_decision == "keep_goal":
        game.apply(game.legal_actions()[0])
    assert [row["tile"] for row in game.market()][2:5] == [
        "Office Building", "Homeowners Association", "Fancy Restaurant"]
    at = cell_index(-1, 0)
    assert describe_action(a.ACTION_BUY + 4 * NUM_CELLS + at, game.state) == (
        "buys Fancy Restaurant from slot 4 and places it at -1,0")
    assert describe_action(a.ACTION_LAKE + 4 * NUM_CELLS + at, game.state) == (
        "takes Fancy Restaurant from slot 4 face down as a lake at -1,0")
    assert describe_action(a.ACTION_BASIC + cell_index(1, 0), game.state) == (
        "buys a Suburbs from the basic supply and places it at 1,0")
    assert describe_action(a.ACTION_INVEST + cell_index(0, 1), game.state) == (
        "invests in Community Park at 0,1")
    assert describe_action(a.ACTION_DISCARD + 2, game.state) == "discards Office Building from slot 2"
    assert describe_action(a.ACTION_REMOVE + 3, game.state) == (
        "removes Homeowners Association from slot 3")
    assert describe_action(a.ACTION_PASS, game.state) == "passes"


def test_events_in_words_name_the_red_line_r8_1():
    from suburbia_env.engine import action_space as a
    from suburbia_env.positions import set_player_values
    from suburbia_env.display.render import describe_events
    game = turn_game()
    set_player_values(game, 0, population=14, money=20)
    game.apply(a.ACTION_BASIC + cell_index(1, 0))  # a Suburbs: +2 population, past the line at 15
    assert describe_events(game.last_events, words=True) == [
        "player 0 pays $3 and places Suburbs at 1,0",
        "player 0: population +2, now 16 (Suburbs at 1,0 of player 0)",
        "player 0 crosses the red line at 15",
        "player 0: income -1, now -1 (red line, R8.1)",
        "player 0: reputation -1, now 0 (red line, R8.1)",
        "player 0: reputation +1, now 1 (Community Park at 0,1 of player 0)"]
    assert describe_events(game.last_events)[3] == "player 0: inc-1 -> -1 (the rules)"
