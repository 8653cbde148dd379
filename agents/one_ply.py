"""What the one-ply players (greedy.py, styles.py) share: the loop that tries every
legal action on a scratch copy through an engine trial kernel (`trial_values`), the
turns left, the projection of a player's final population and the weighted score of a
trial's outcome.

greedy.py's docstring explains the projection (`position_value`), styles.py's the terms a
style adds to it (`style_value`). Greedy is the score with the money weight alone (every
other term weighs 0 and adds exactly nothing) after `turn.full_turn_trial`; the styles
score after `turn.own_turn_trial`. No player writes a field of the state itself.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from suburbia_env.engine import constants as c
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.adjustments import clamped_level
from suburbia_env.engine.event_log import NUM_EVENT_FIELDS
from suburbia_env.engine.legal_actions import legal_action_mask
from suburbia_env.engine.red_lines import red_line_level_change
from suburbia_env.engine.resolution import copy_state, waiting_lake_payments
from suburbia_env.engine.scoring import goal_lead, goal_value, lead_of_values
from suburbia_env.engine.tile_table import (goal_criterion, goal_direction, private_goal_bonus,
                                           public_goal_bonus)
from suburbia_env.engine.turn import (full_turn_trial, income_step_outcome, own_turn_trial,
                                      population_step_outcome)

WEIGHT_NAMES = ("money", "goals", "lakes", "investments", "reputation", "income")
MONEY, GOAL_BONUSES, LAKE_PAYMENTS, INVESTMENTS, REPUTATION, INCOME = range(6)
NUM_WEIGHTS = len(WEIGHT_NAMES)

FULL_TURN = np.bool_(True)
"""`trial_values` plays each action with `turn.full_turn_trial` (a numpy bool, K5)."""
OWN_TURN = np.bool_(False)
"""`trial_values` plays each action with `turn.own_turn_trial`."""

LAKE_PAYMENT_POPULATION = 0.4
"""A $2 lake payment in population at the final conversion of $5 a population (R8.2)."""
GOAL_SPREAD_PER_TURN = 0.15
"""How much wider, per turn left, the spread of a goal's lead at the end is taken to be."""
OWN_CHANCES = np.zeros((0, 3))
"""No refit: the goal chances are `chance_of_lead`'s (the styles always play these)."""


@njit(cache=True)
def turns_left(state):
    """The acting player's turns still to come after the current one (public estimate)."""
    if state[s.FINAL_ROUND] >= 0:
        return max(0, state[s.FINAL_ROUND] - state[s.ROUND])
    tiles_left = state[s.PILE_END] - state[s.PILE_POSITION]
    mode = state[s.MODE]
    if mode == c.MODE_DALE:
        per_round = 4
    elif mode == c.MODE_SOLITARY:
        per_round = 2
    else:
        per_round = state[s.NUM_PLAYERS]
    return tiles_left / per_round + (0 if mode == c.MODE_DALE else 1)


@njit(cache=True)
def position_value(state, player, future_turns, money_weight):
    """Projected final population of the player if it bought nothing more (greedy.py's
    docstring)."""
    if state[s.GAME_OVER]:
        return float(s.score_entry(state, player, s.SCORE_FINAL_POPULATION))
    money = s.money(state, player)
    income = s.income(state, player)
    reputation = s.reputation(state, player)
    population = s.population(state, player)
    option_value = money_weight * future_turns / 20.0 * money
    for _turn in range(int(future_turns + 0.5)):
        before = population
        money, population, _unpaid = income_step_outcome(income, money, population)
        population, _money_if_paid, _owed = population_step_outcome(population, reputation,
                                                                     money)
        change = red_line_level_change(state, before, population)
        income = clamped_level(income + change)
        reputation = clamped_level(reputation + change)
    return population + money / 5.0 + option_value


@njit(cache=True)
def _goal_spread(criterion):
    """The lead on a criterion that is about as sure as one tile more on a count."""
    if criterion == c.CRITERION_MONEY:
        return 8.0
    if criterion == c.CRITERION_INCOME or criterion == c.CRITERION_REPUTATION:
        return 2.0
    return 1.0


@njit(cache=True)
def goal_chance(state, tiles, goals, goal, player, future_turns, chances):
    """The chance the player ends alone in front on a goal, from its lead now: a logistic
    centred half a unit in front (a tie scores nothing, R8.2), wider with more turns left
    (`chance_with`)."""
    return chance_with(chances, goals, goal, goal_lead(state, tiles, goals, goal, player),
                       future_turns)


@njit(cache=True)
def chance_of_lead(goals, goal, lead, future_turns):
    """`goal_chance` of a known lead."""
    spread = _goal_spread(goal_criterion(goals, goal)) * (
        0.5 + GOAL_SPREAD_PER_TURN * future_turns)
    return 1.0 / (1.0 + math.exp(-(lead - 0.5) / spread))


def own_chance_table() -> np.ndarray:
    """`chance_of_lead` in `chance_with`'s form: per criterion, s0 = half its spread, s1 =
    GOAL_SPREAD_PER_TURN x its spread, centre 0.5 (equal up to rounding)."""
    return np.array([[0.5 * _goal_spread(k), GOAL_SPREAD_PER_TURN * _goal_spread(k), 0.5]
                     for k in range(c.NUM_CRITERIA)])


def checked_goal_chances(values) -> np.ndarray:
    """Refit goal chances (`chance_with`) as an array of NUM_CRITERIA rows (s0, s1, centre),
    or OWN_CHANCES for none (None or empty); ValueError naming what is wrong."""
    if values is None or (hasattr(values, "__len__") and len(values) == 0):
        return OWN_CHANCES
    try:
        table = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("must be a list of rows of three numbers (s0, s1, centre)") from None
    if table.shape != (c.NUM_CRITERIA, 3):
        raise ValueError(f"must be {c.NUM_CRITERIA} rows (one per goal criterion) of three "
                         f"numbers (s0, s1, centre), not an array of shape {table.shape}")
    if not np.isfinite(table).all():
        raise ValueError("must hold finite numbers")
    if (table[:, 0] <= 0).any() or (table[:, 1] < 0).any():
        raise ValueError("needs s0 > 0 and s1 >= 0 in every row (the spread s0 + s1 x turns "
                         "left must stay above 0)")
    return table


@njit(cache=True)
def chance_with(chances, goals, goal, lead, future_turns):
    """`chance_of_lead`, or with `chances` (one row per goal criterion, s0, s1 and the
    centre, refit from games by benchmarks/goal_chance.py) the same logistic with the
    spread s0 + s1 x turns left and that centre."""
    if chances.shape[0] == 0:
        return chance_of_lead(goals, goal, lead, future_turns)
    row = chances[goal_criterion(goals, goal)]
    z = -(lead - row[2]) / (row[0] + row[1] * future_turns)
    return 1.0 / (1.0 + math.exp(min(50.0, max(-50.0, z))))


@njit(cache=True)
def expected_goal_bonus(state, tiles, goals, player, future_turns, chances):
    """The public goals' bonuses and the player's own private goal's, each times its
    `goal_chance`; with no other player (Solitary Architect, R9.1) there are no goals."""
    if state[s.NUM_PLAYERS] < 2:
        return 0.0
    total = 0.0
    for index in range(c.MAX_PLAYERS):
        goal = s.public_goal(state, index)
        if goal >= 0:
            total += public_goal_bonus(goals, goal) * goal_chance(
                state, tiles, goals, goal, player, future_turns, chances)
    goal = s.private_goal(state, player)
    if goal >= 0:
        total += private_goal_bonus(goals, goal) * goal_chance(
            state, tiles, goals, goal, player, future_turns, chances)
    return total


@njit(cache=True)
def scored_goals(state, player):
    """The goals `expected_goal_bonus` scores, in its order: the public goals (slots
    0..MAX_PLAYERS-1, -1 where none) and the player's private goal (the last slot)."""
    scored = np.full(c.MAX_PLAYERS + 1, -1, dtype=np.int64)
    for index in range(c.MAX_PLAYERS):
        scored[index] = s.public_goal(state, index)
    scored[c.MAX_PLAYERS] = s.private_goal(state, player)
    return scored


@njit(cache=True)
def others_best_values(state, tiles, goals, player, scored):
    """For each scored goal, the best value of the other players in the goal's direction:
    what `goal_lead` compares the player's own value with."""
    best = np.zeros(scored.shape[0], dtype=np.int64)
    for slot in range(scored.shape[0]):
        goal = scored[slot]
        if goal < 0:
            continue
        found = False
        for other in range(state[s.NUM_PLAYERS]):
            if other == player:
                continue
            value = goal_value(state, tiles, goals, goal, other)
            if not found or (value > best[slot] if goal_direction(goals, goal) == c.GOAL_MOST
                             else value < best[slot]):
                best[slot] = value
                found = True
    return best


@njit(cache=True)
def others_unchanged(state, before, player):
    """Whether every other player's block is as in `before` (a goal's value is read from
    its player's block alone: scoring.goal_value)."""
    for other in range(state[s.NUM_PLAYERS]):
        if other != player and not s.same_player_block(state, before, other):
            return False
    return True


@njit(cache=True)
def expected_goal_bonus_known_others(state, tiles, goals, player, future_turns, scored,
                                     others_best, chances):
    """`expected_goal_bonus` when the other players' values are `others_best` (the
    fast form of the styles' trials, whose own turn leaves the others' blocks as they
    were: `trial_values`); the same sum in the same order."""
    if state[s.NUM_PLAYERS] < 2:
        return 0.0
    total = 0.0
    for slot in range(scored.shape[0]):
        goal = scored[slot]
        if goal < 0:
            continue
        own = goal_value(state, tiles, goals, goal, player)
        lead = own - others_best[slot]
        if goal_direction(goals, goal) == c.GOAL_FEWEST:
            lead = -lead
        bonus = (private_goal_bonus(goals, goal) if slot == c.MAX_PLAYERS
                 else public_goal_bonus(goals, goal))
        total += bonus * chance_with(chances, goals, goal, lead, future_turns)
    return total


@njit(cache=True)
def markers_placed(state, player):
    """Investment markers on the player's tiles (R7.3)."""
    placed = 0
    for position in range(s.tile_count(state, player)):
        if s.is_invested(state, player, s.placed_cell(state, player, position)):
            placed += 1
    return placed


@njit(cache=True)
def style_value(state, tiles, goals, player, future_turns, weights):
    """The score of a trial's outcome for the player (module docstring)."""
    bonus = 0.0
    if weights[GOAL_BONUSES] != 0.0:
        bonus = expected_goal_bonus(state, tiles, goals, player, future_turns, OWN_CHANCES)
    return style_value_with_bonus(state, player, future_turns, weights, bonus)


@njit(cache=True)
def style_value_with_bonus(state, player, future_turns, weights, goal_bonus):
    """`style_value` with the expected goal bonus already known."""
    value = position_value(state, player, future_turns, weights[MONEY])
    phase = min(1.0, future_turns / 20.0)
    if weights[GOAL_BONUSES] != 0.0:
        value += weights[GOAL_BONUSES] * goal_bonus
    if weights[LAKE_PAYMENTS] != 0.0:
        value += (weights[LAKE_PAYMENTS] * phase * LAKE_PAYMENT_POPULATION
                  * waiting_lake_payments(state, player))
    if weights[INVESTMENTS] != 0.0:
        value += weights[INVESTMENTS] * phase * markers_placed(state, player)
    value += weights[REPUTATION] * phase * s.reputation(state, player)
    value += weights[INCOME] * phase * s.income(state, player)
    return value


@njit(cache=True)
def play_trial(scratch, state, tiles, goals, basic_kinds, full_turn, action, log):
    """`scratch` becomes `state` with `action` played by the trial kernel `full_turn` names."""
    copy_state(scratch, state)
    if full_turn:
        full_turn_trial(scratch, tiles, goals, basic_kinds, action, log)
    else:
        own_turn_trial(scratch, tiles, goals, basic_kinds, action, log)


@njit(cache=True)
def trial_values(state, tiles, goals, basic_kinds, weights, full_turn, mask, actions):
    """Fill `mask` and `actions` with the legal actions (the first `count`) and return the
    score (`style_value` with `weights`) of each one's trial, in a new array of `count`
    entries; one legal action is not tried (its score is 0). The trial is
    `turn.full_turn_trial` when `full_turn` (FULL_TURN), else `turn.own_turn_trial`."""
    count = legal_action_mask(state, tiles, basic_kinds, mask, actions)
    values = np.zeros(count)
    if count == 1:
        return values
    player = state[s.CURRENT_PLAYER]
    future_turns = turns_left(state)
    scratch = np.empty_like(state)
    log = np.zeros((1, NUM_EVENT_FIELDS), dtype=np.int32)
    known = weights[GOAL_BONUSES] != 0.0 and state[s.NUM_PLAYERS] >= 2
    scored = scored_goals(state, player)
    others_best = others_best_values(state, tiles, goals, player, scored) if known \
        else np.zeros(scored.shape[0], dtype=np.int64)
    for index in range(count):
        play_trial(scratch, state, tiles, goals, basic_kinds, full_turn, actions[index], log)
        if known:
            bonus = goal_bonus_after_trial(scratch, state, tiles, goals, player, future_turns,
                                           scored, others_best, OWN_CHANCES)
            values[index] = style_value_with_bonus(scratch, player, future_turns, weights,
                                                   bonus)
        else:
            values[index] = style_value(scratch, tiles, goals, player, future_turns, weights)
    return values


@njit(cache=True)
def goal_bonus_after_trial(scratch, state, tiles, goals, player, future_turns, scored,
                           others_best, chances):
    """`expected_goal_bonus` of the player in the trial outcome `scratch` of `state`,
    reusing the other players' goal values read from `state` (`others_best`) when the
    trial left their blocks and the player's private goal as they were."""
    if (s.private_goal(scratch, player) == scored[c.MAX_PLAYERS]
            and others_unchanged(scratch, state, player)):  # not a goal kept now
        return expected_goal_bonus_known_others(scratch, tiles, goals, player, future_turns,
                                                scored, others_best, chances)
    return expected_goal_bonus(scratch, tiles, goals, player, future_turns, chances)


@njit(cache=True)
def others_public_goal_bonus(state, tiles, goals, player, future_turns, chances):
    """What the other players expect from the public goals: each public goal's bonus times
    the best `chance_of_lead` of any other player on it (R8.2), what a denial of the goals
    weighs in the goal term (`trial_goal_bonuses`)."""
    return others_public_goal_bonus_known(state, tiles, goals, player, future_turns,
                                          public_goal_values(state, tiles, goals), chances)


@njit(cache=True)
def public_goal_values(state, tiles, goals):
    """Every seat's `goal_value` on each public goal: row i for public goal slot i (0 for
    an empty slot and the seats not in play)."""
    values = np.zeros((c.MAX_PLAYERS, c.MAX_PLAYERS), dtype=np.int64)
    for index in range(c.MAX_PLAYERS):
        goal = s.public_goal(state, index)
        if goal >= 0:
            for seat in range(state[s.NUM_PLAYERS]):
                values[index, seat] = goal_value(state, tiles, goals, goal, seat)
    return values


@njit(cache=True)
def others_public_goal_bonus_known(state, tiles, goals, player, future_turns, values,
                                   chances):
    """`others_public_goal_bonus` with the other seats' values known (`public_goal_values`,
    read before an own-turn trial that left their blocks as they were); the player's own
    are read from `state`."""
    total = 0.0
    num_players = state[s.NUM_PLAYERS]
    for index in range(c.MAX_PLAYERS):
        goal = s.public_goal(state, index)
        if goal < 0:
            continue
        seats = values[index].copy()
        seats[player] = goal_value(state, tiles, goals, goal, player)
        best = 0.0
        for other in range(num_players):
            if other != player:
                best = max(best, chance_with(
                    chances, goals, goal, lead_of_values(goals, goal, seats, num_players, other),
                    future_turns))
        total += public_goal_bonus(goals, goal) * best
    return total


@njit(cache=True)
def trial_goal_bonuses(state, tiles, goals, basic_kinds, mask, actions, denial, chances):
    """Fill `mask` and `actions` with the legal actions (the first `count`) and return the
    acting player's `expected_goal_bonus` after each one's own-turn trial (R8.2), what
    `trial_values` adds for a goal weight of 1, less `denial` x the other players'
    `others_public_goal_bonus` there (0: the player's own bonus alone); one legal action
    is not tried (0)."""
    count = legal_action_mask(state, tiles, basic_kinds, mask, actions)
    bonuses = np.zeros(count)
    if count == 1 or state[s.NUM_PLAYERS] < 2:
        return bonuses
    player = state[s.CURRENT_PLAYER]
    future_turns = turns_left(state)
    scratch = np.empty_like(state)
    log = np.zeros((1, NUM_EVENT_FIELDS), dtype=np.int32)
    scored = scored_goals(state, player)
    others_best = others_best_values(state, tiles, goals, player, scored)
    values = (public_goal_values(state, tiles, goals) if denial != 0.0
              else np.zeros((c.MAX_PLAYERS, c.MAX_PLAYERS), dtype=np.int64))
    for index in range(count):
        play_trial(scratch, state, tiles, goals, basic_kinds, OWN_TURN, actions[index], log)
        bonuses[index] = goal_bonus_after_trial(scratch, state, tiles, goals, player,
                                                future_turns, scored, others_best, chances)
        if denial != 0.0:
            if others_unchanged(scratch, state, player):
                bonuses[index] -= denial * others_public_goal_bonus_known(
                    scratch, tiles, goals, player, future_turns, values, chances)
            else:
                bonuses[index] -= denial * others_public_goal_bonus(
                    scratch, tiles, goals, player, future_turns, chances)
    return bonuses


@njit(cache=True)
def goal_bonus_rows(states, tiles, goals, basic_kinds, table, first, step, denial, chances):
    """Rows first, first + step, ... of `goal_bonus_table`."""
    mask = np.zeros(table.shape[1], dtype=np.bool_)
    actions = np.zeros(table.shape[1], dtype=np.int32)
    for row in range(first, states.shape[0], step):
        table[row, :] = 0.0
        bonuses = trial_goal_bonuses(states[row], tiles, goals, basic_kinds, mask, actions,
                                     denial, chances)
        for index in range(bonuses.shape[0]):
            table[row, actions[index]] = bonuses[index]


@njit(cache=True, parallel=True)
def goal_bonus_table(states, tiles, goals, basic_kinds, table, num_chunks, denial, chances):
    """Row i of `table` (games x NUM_ACTIONS) becomes `trial_goal_bonuses` of `states[i]`
    at each legal action, 0 elsewhere: the goal prior's term for a batch of games, as the
    fast learner adds it to the policy's scores (training/fast_ppo.py, R8.2). Chunk k
    takes rows k, k + num_chunks, ... on its core."""
    for chunk in prange(num_chunks):
        goal_bonus_rows(states, tiles, goals, basic_kinds, table, chunk, num_chunks, denial,
                        chances)


@njit(cache=True)
def goal_standing(state, tiles, goals, chances):
    """The acting player's `expected_goal_bonus` less the other players'
    `others_public_goal_bonus` (R8.2): where it stands in the goal races, from what it can
    see (its own private goal only, R10.2); 0 once the game is over or without goals (R9.1).
    The potential of the fast learner's goal shaping (training/fast_ppo.py)."""
    if state[s.GAME_OVER] or state[s.NUM_PLAYERS] < 2:
        return 0.0
    player = state[s.CURRENT_PLAYER]
    future_turns = turns_left(state)
    return (expected_goal_bonus(state, tiles, goals, player, future_turns, chances)
            - others_public_goal_bonus(state, tiles, goals, player, future_turns, chances))


@njit(cache=True, parallel=True)
def goal_standings(states, tiles, goals, out, chances):
    """`out[i]` becomes `goal_standing(states[i])`, the games spread over the cores."""
    for row in prange(states.shape[0]):
        out[row] = goal_standing(states[row], tiles, goals, chances)


@njit(cache=True)
def trial_values_reference(state, tiles, goals, basic_kinds, weights, full_turn, mask,
                           actions):
    """`trial_values` without its fast form: every trial scored by `style_value` alone
    (tests/agents/test_one_ply.py: the two agree exactly)."""
    count = legal_action_mask(state, tiles, basic_kinds, mask, actions)
    values = np.zeros(count)
    if count == 1:
        return values
    player = state[s.CURRENT_PLAYER]
    future_turns = turns_left(state)
    scratch = np.empty_like(state)
    log = np.zeros((1, NUM_EVENT_FIELDS), dtype=np.int32)
    for index in range(count):
        play_trial(scratch, state, tiles, goals, basic_kinds, full_turn, actions[index], log)
        values[index] = style_value(scratch, tiles, goals, player, future_turns, weights)
    return values
