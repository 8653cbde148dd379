"""Compiled environment steps shared by every environment, and the bundles they take.

One learner step is one compiled call: apply the learner's action, let the compiled
opponents play until the learner decides again (or the game ends, or an external seat
is to act), compute the reward, and write the observation and the action mask. Rules
stay in the engine kernels; this module only sequences them. env_runner.py drives these
kernels for the Gymnasium, vector and self-play environments.

A kernel here takes three bundles instead of dozens of positional arguments (numba
passes a named tuple of arrays as cheaply as the arrays one by one):
- `Tables`: the read-only tables of tile_data.py, shared by every game (K4);
- `Settings`: the scalar options of an environment (mode, edition, reward, ...);
- `Games`: the batch buffers, one row per game (state, learner, observation, mask, ...),
  and `Outcomes`, what a batch step reports per game (reward, result, final scores).
"""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from . import state_layout as s
from .dale import dale_policy_action
from .legal_actions import is_legal_action, legal_action_mask
from .observation import copy_observation, update_observation
from .refcount_free import njit_without_refcounts
from .rng import avoid_zero_state, next_word, random_below
from .setup import new_game
from .turn import apply_legal_action

# Compiled opponents, one per seat.
OPPONENT_RANDOM = 0
OPPONENT_DALE = 1
OPPONENT_EXTERNAL = 2  # a Python policy: compiled play stops and hands over
OPPONENT_NAMES = ("random", "dale")

# Reward schemes, paid when the game ends (plus optional population shaping).
REWARD_WIN_LOSS = 0  # +1 sole winner, 0 shared win, -1 otherwise (R8.3)
REWARD_MARGIN = 1  # (own final population - best other final population) / 100
REWARD_NAMES = ("win_loss", "margin")

# Results of a learner step.
STEP_RUNNING = 0
STEP_TERMINATED = 1
STEP_ILLEGAL = 2  # state untouched; the caller raises or ends the episode
STEP_GAME_OVER = 3  # the game was already over
STEP_WAITING = 4  # an external seat is to act; finish_game_step once it has played


class Tables(NamedTuple):
    """The read-only tables of tile_data.py (kernels never write them, K4)."""
    tiles: np.ndarray
    goals: np.ndarray
    basic_kinds: np.ndarray


class Settings(NamedTuple):
    """An environment's options, fixed for its life (env_options.py checks them)."""
    mode: int
    edition: int
    random_goals: int
    random_seats: bool  # the vector env draws the learner's seat at each reset
    reward_scheme: int
    population_shaping: float
    autoreset: bool  # a finished game is reset within the batch step (vector env)


class Games(NamedTuple):
    """The buffers of a batch of games, one row per game (env_runner.new_games)."""
    players: np.ndarray  # int32[n]: seats of each game (Dale included, R9.2)
    states: np.ndarray  # int32[n, STATE_SIZE]
    learners: np.ndarray  # int32[n]
    opponent_kinds: np.ndarray  # int32[n, 4]: OPPONENT_* per seat
    rng_words: np.ndarray  # int32[n, 4]: each game's own generator (opponents, next seeds)
    populations_before: np.ndarray  # int32[n]: the learner's population at its decision
    observations: np.ndarray  # float32[n, OBSERVATION_SIZE]
    encoded: np.ndarray  # encoding cache of each observation row (observation.py)
    masks: np.ndarray  # bool[n, NUM_ACTIONS]


class Outcomes(NamedTuple):
    """What a batch step reports per game (env_runner.new_outcomes); apart from `Games`
    so that a one-game step unboxes only the buffers it uses."""
    rewards: np.ndarray  # float64[n]
    terminated: np.ndarray  # bool[n]
    results: np.ndarray  # int32[n]: STEP_* of the last step
    final_observations: np.ndarray  # float32[n, OBSERVATION_SIZE]: before an autoreset
    final_populations: np.ndarray  # int32[n, 4]
    final_winners: np.ndarray  # int32[n, 4]


@njit_without_refcounts
def opponent_action(state, tiles, basic_kinds, kind, rng_words, log, mask, actions):
    if kind == OPPONENT_DALE:
        return dale_policy_action(state, tiles, basic_kinds, log, mask, actions)
    count = legal_action_mask(state, tiles, basic_kinds, mask, actions)
    return actions[random_below(rng_words, 0, count)]


@njit_without_refcounts
def play_opponents(state, tiles, goals, basic_kinds, learner, opponent_kinds, rng_words, mask,
                   actions, log):
    """Compiled opponents decide until the learner's turn, an external seat or the end."""
    while state[s.GAME_OVER] == 0 and state[s.CURRENT_PLAYER] != learner:
        seat = state[s.CURRENT_PLAYER]
        if opponent_kinds[seat] == OPPONENT_EXTERNAL:
            return
        action = opponent_action(state, tiles, basic_kinds, opponent_kinds[seat], rng_words,
                                 log, mask, actions)
        apply_legal_action(state, tiles, goals, basic_kinds, action, log)


@njit_without_refcounts
def play_game_opponents(tables, games, index, actions, log):
    """`play_opponents` in game `index` of a batch."""
    play_opponents(games.states[index], tables.tiles, tables.goals, tables.basic_kinds,
                   games.learners[index], games.opponent_kinds[index], games.rng_words[index],
                   games.masks[index], actions, log)


@njit_without_refcounts
def final_reward(state, learner, scheme):
    """Terminal reward of the learner under a scheme (R8.3 decides the winners)."""
    if scheme == REWARD_MARGIN:
        best_other = -1
        for other in range(state[s.NUM_PLAYERS]):
            if other != learner:
                best_other = max(best_other,
                                 s.score_entry(state, other, s.SCORE_FINAL_POPULATION))
        return (s.score_entry(state, learner, s.SCORE_FINAL_POPULATION) - best_other) / 100.0
    if s.score_entry(state, learner, s.SCORE_WINNER) == 0:
        return -1.0
    for other in range(state[s.NUM_PLAYERS]):
        if other != learner and s.score_entry(state, other, s.SCORE_WINNER):
            return 0.0
    return 1.0


@njit_without_refcounts
def write_outputs(state, tiles, basic_kinds, seat, observation, encoded, mask, actions):
    update_observation(state, tiles, seat, observation, encoded)
    legal_action_mask(state, tiles, basic_kinds, mask, actions)


@njit_without_refcounts
def write_game_outputs(tables, games, index, actions):
    """Observation and mask of game `index`, from its learner's seat."""
    write_outputs(games.states[index], tables.tiles, tables.basic_kinds, games.learners[index],
                  games.observations[index], games.encoded[index], games.masks[index], actions)


@njit(cache=True)
def reset_game(tables, settings, games, index, game_seed, actions, log):
    """New game in row `index` (its players and learner set), dealt from `game_seed`;
    compiled opponents play up to the learner's first decision (or an external seat);
    outputs written."""
    avoid_zero_state(game_seed)
    avoid_zero_state(games.rng_words[index])
    new_game(games.states[index], tables.tiles, tables.goals, tables.basic_kinds,
             games.players[index], settings.mode, settings.edition, settings.random_goals,
             game_seed)
    play_game_opponents(tables, games, index, actions, log)
    learner = games.learners[index]
    games.populations_before[index] = s.population(games.states[index], learner)
    write_game_outputs(tables, games, index, actions)


@njit_without_refcounts
def step_game(tables, settings, games, index, action, actions, log):
    """One learner decision in game `index`; returns (reward, STEP_* result)."""
    state = games.states[index]
    if state[s.GAME_OVER]:
        return 0.0, STEP_GAME_OVER
    if not is_legal_action(state, tables.tiles, tables.basic_kinds, action):
        return 0.0, STEP_ILLEGAL
    return step_legal_game(tables, settings, games, index, action, actions, log)


@njit_without_refcounts
def step_game_action_last(tables, settings, games, index, actions, log, action):
    """`step_game` with the action last, so that the Gymnasium env binds every other
    argument once (functools.partial) and passes the action alone (EnvRunner.step_call)."""
    return step_game(tables, settings, games, index, action, actions, log)


@njit_without_refcounts
def step_legal_game(tables, settings, games, index, action, actions, log):
    """`step_game` for an action already known legal in a running game (a batch is
    checked whole first)."""
    state = games.states[index]
    learner = games.learners[index]
    games.populations_before[index] = s.population(state, learner)
    return step_legal_rows(tables, settings, state, action, learner, games.opponent_kinds[index],
                           games.rng_words[index], games.observations[index],
                           games.encoded[index], games.masks[index], actions, log)


@njit_without_refcounts
def step_legal_rows(tables, settings, state, action, learner, opponent_kinds, rng_words,
                    observation, encoded, mask, actions, log):
    """The learner's legal action on one game's rows, then the compiled opponents, then
    reward and outputs; STEP_WAITING (no output written) when an external seat is to act.
    The hot path of every environment: it takes the game's rows once and hands the
    per-game kernels arrays, not bundles (measured faster)."""
    tiles = tables.tiles
    basic_kinds = tables.basic_kinds
    population_before = s.population(state, learner)
    apply_legal_action(state, tiles, tables.goals, basic_kinds, action, log)
    play_opponents(state, tiles, tables.goals, basic_kinds, learner, opponent_kinds, rng_words,
                   mask, actions, log)
    if state[s.GAME_OVER] == 0 and state[s.CURRENT_PLAYER] != learner:
        return 0.0, STEP_WAITING
    return finish_learner_step(state, tiles, basic_kinds, learner, settings, population_before,
                               observation, encoded, mask, actions)


@njit_without_refcounts
def apply_external_action(tables, games, index, action, actions, log):
    """An external seat's action in game `index`, then the compiled opponents; False
    (state untouched) if the action is not legal."""
    state = games.states[index]
    if state[s.GAME_OVER] or not is_legal_action(state, tables.tiles, tables.basic_kinds,
                                                 action):
        return False
    apply_legal_action(state, tables.tiles, tables.goals, tables.basic_kinds, action, log)
    play_game_opponents(tables, games, index, actions, log)
    return True


@njit_without_refcounts
def finish_game_step(tables, settings, games, index, actions):
    """`finish_learner_step` of game `index` (after its external seats have played)."""
    learner = games.learners[index]
    return finish_learner_step(games.states[index], tables.tiles, tables.basic_kinds, learner,
                               settings, games.populations_before[index],
                               games.observations[index], games.encoded[index],
                               games.masks[index], actions)


@njit_without_refcounts
def finish_learner_step(state, tiles, basic_kinds, learner, settings, population_before,
                        observation, encoded, mask, actions):
    """Reward and outputs once the learner decides again or the game is over.

    Shaping pays `population_shaping` per point of population gained since the
    learner's previous decision; the terminal reward comes on top.
    """
    reward = settings.population_shaping * (s.population(state, learner) - population_before)
    write_outputs(state, tiles, basic_kinds, learner, observation, encoded, mask, actions)
    if state[s.GAME_OVER]:
        return reward + final_reward(state, learner, settings.reward_scheme), STEP_TERMINATED
    return reward, STEP_RUNNING


@njit_without_refcounts
def chunk_bounds(chunk, count, num_chunks):
    """(first, stop) of the items of one of `num_chunks` near-equal chunks of `count`
    items: the games one core takes in a batch."""
    return chunk * count // num_chunks, (chunk + 1) * count // num_chunks


@njit_without_refcounts
def record_final_scores(state, populations, winners):
    """Per seat final population and winner flag of a finished game (-1 / 0 for empty seats)."""
    populations[:] = -1
    winners[:] = 0
    for seat in range(state[s.NUM_PLAYERS]):
        populations[seat] = s.score_entry(state, seat, s.SCORE_FINAL_POPULATION)
        winners[seat] = s.score_entry(state, seat, s.SCORE_WINNER)


@njit_without_refcounts
def next_game_seed(rng_words, offset, out):
    """Four generator words for the next game, drawn from an environment's own generator."""
    for index in range(4):
        word = next_word(rng_words, offset)
        out[index] = word - 0x100000000 if word >= 0x80000000 else word


@njit(cache=True)
def reset_drawn_game(tables, settings, games, index, actions, log):
    """`reset_game` with the game's seed (and, with random seats, the learner's seat)
    drawn from the game's own generator."""
    seed = np.empty(4, dtype=np.int32)
    next_game_seed(games.rng_words[index], 0, seed)
    if settings.random_seats:
        games.learners[index] = random_below(games.rng_words[index], 0, games.players[index])
    reset_game(tables, settings, games, index, seed, actions, log)


@njit(cache=True)
def reset_range(tables, settings, games, first, stop):
    actions = np.empty(games.masks.shape[1], dtype=np.int32)
    log = np.zeros((1, 8), dtype=np.int32)
    for index in range(first, stop):
        reset_drawn_game(tables, settings, games, index, actions, log)


@njit_without_refcounts
def first_illegal_action(tables, games, step_actions, first, stop):
    """Index of the first of games first..stop-1 whose action is illegal or which is over,
    else -1: a batch is checked whole before any game moves."""
    for index in range(first, stop):
        if games.states[index, s.GAME_OVER] or not is_legal_action(
                games.states[index], tables.tiles, tables.basic_kinds, step_actions[index]):
            return index
    return -1


@njit(cache=True)
def step_range(tables, settings, games, outcomes, step_actions, first, stop):
    """Games first..stop-1 of a batch whose actions `first_illegal_action` passed; returns
    how many of them finished (and, with autoreset, were reset)."""
    actions = np.empty(games.masks.shape[1], dtype=np.int32)
    log = np.zeros((1, 8), dtype=np.int32)
    finished = 0
    for index in range(first, stop):
        reward, result = step_legal_game(tables, settings, games, index, step_actions[index],
                                         actions, log)
        outcomes.rewards[index] = reward
        outcomes.results[index] = result
        outcomes.terminated[index] = result == STEP_TERMINATED
        if result == STEP_TERMINATED:
            finished += 1
            if settings.autoreset:
                copy_observation(games.observations[index], outcomes.final_observations[index],
                                 games.players[index])
                record_final_scores(games.states[index], outcomes.final_populations[index],
                                    outcomes.final_winners[index])
                reset_drawn_game(tables, settings, games, index, actions, log)
    return finished


@njit(cache=True)
def reset_batch_serial(tables, settings, games):
    """`reset_batch` on one thread."""
    reset_range(tables, settings, games, 0, games.states.shape[0])


@njit(cache=True)
def step_batch_serial(tables, settings, games, outcomes, step_actions):
    """`step_batch` on one thread."""
    illegal = first_illegal_action(tables, games, step_actions, 0, games.states.shape[0])
    if illegal >= 0:
        return illegal, 0
    return -1, step_range(tables, settings, games, outcomes, step_actions, 0,
                          games.states.shape[0])


@njit(cache=True, parallel=True)
def reset_batch(tables, settings, games, num_chunks):
    """Reset every game of a batch, in `num_chunks` chunks over the cores (numba prange)."""
    num_games = games.states.shape[0]
    for chunk in prange(num_chunks):
        first, stop = chunk_bounds(chunk, num_games, num_chunks)
        reset_range(tables, settings, games, first, stop)


@njit(cache=True, parallel=True)
def step_batch(tables, settings, games, outcomes, step_actions, num_chunks):
    """Step every game of a batch; with autoreset a finished game is reset in the same step.

    The whole batch is checked first, each chunk on its core: with an illegal action (or
    a finished game) anywhere, nothing moves and (index of the first such game, 0) is
    returned, else (-1, number of games that finished).

    With autoreset, the observation of a finished game goes to `final_observations`, its
    final populations and winner flags (R8.2, R8.3) per seat to `final_populations` /
    `final_winners`, before the reset; `results` holds each game's STEP_* value.
    """
    num_games = games.states.shape[0]
    illegal_in_chunk = np.empty(num_chunks, dtype=np.int64)
    for chunk in prange(num_chunks):
        first, stop = chunk_bounds(chunk, num_games, num_chunks)
        illegal_in_chunk[chunk] = first_illegal_action(tables, games, step_actions, first, stop)
    for chunk in range(num_chunks):  # every chunk checked before any game moves
        if illegal_in_chunk[chunk] >= 0:
            return illegal_in_chunk[chunk], 0
    finished = 0
    for chunk in prange(num_chunks):
        first, stop = chunk_bounds(chunk, num_games, num_chunks)
        finished += step_range(tables, settings, games, outcomes, step_actions, first, stop)
    return -1, finished
