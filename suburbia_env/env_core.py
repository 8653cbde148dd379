"""Compiled environment steps shared by the Gymnasium, PettingZoo and vector environments.

One learner step is one compiled call: apply the learner's action, let the compiled
opponents play until the learner decides again (or the game ends), compute the reward,
and write the observation and the action mask. Rules stay in the engine kernels; this
module only sequences them.
"""

import numpy as np
from numba import njit, prange

from . import state_layout as s
from .dale import dale_policy_action
from .legal_actions import is_legal_action, legal_action_mask
from .observation import copy_observation, update_observation
from .refcount_free import njit_without_refcounts
from .resolution import player_base
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

# Results of env_step.
STEP_RUNNING = 0
STEP_TERMINATED = 1
STEP_ILLEGAL = 2  # state untouched; the caller raises or ends the episode
STEP_GAME_OVER = 3  # the game was already over


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
def final_reward(state, learner, scheme):
    """Terminal reward of the learner under a scheme (R8.3 decides the winners)."""
    own = player_base(learner)
    if scheme == REWARD_MARGIN:
        best_other = -1
        for other in range(state[s.NUM_PLAYERS]):
            if other != learner:
                best_other = max(best_other, state[player_base(other) + s.SCORE_FINAL_POPULATION])
        return (state[own + s.SCORE_FINAL_POPULATION] - best_other) / 100.0
    if state[own + s.SCORE_WINNER] == 0:
        return -1.0
    for other in range(state[s.NUM_PLAYERS]):
        if other != learner and state[player_base(other) + s.SCORE_WINNER]:
            return 0.0
    return 1.0


@njit_without_refcounts
def write_outputs(state, tiles, basic_kinds, seat, observation, encoded, mask, actions):
    update_observation(state, tiles, seat, observation, encoded)
    legal_action_mask(state, tiles, basic_kinds, mask, actions)


@njit(cache=True)
def env_reset(state, tiles, goals, basic_kinds, num_players, mode, edition, random_goals,
              game_seed, learner, opponent_kinds, rng_words, observation, encoded, mask, actions,
              log):
    """New game, opponents up to the learner's first decision, outputs written."""
    avoid_zero_state(game_seed)
    avoid_zero_state(rng_words)
    new_game(state, tiles, goals, basic_kinds, num_players, mode, edition, random_goals,
             game_seed)
    play_opponents(state, tiles, goals, basic_kinds, learner, opponent_kinds, rng_words, mask,
                   actions, log)
    write_outputs(state, tiles, basic_kinds, learner, observation, encoded, mask, actions)


@njit_without_refcounts
def env_step(state, tiles, goals, basic_kinds, action, learner, opponent_kinds, rng_words,
             reward_scheme, population_shaping, observation, encoded, mask, actions, log):
    """One learner decision; returns (reward, STEP_* result)."""
    if state[s.GAME_OVER]:
        return 0.0, STEP_GAME_OVER
    if not is_legal_action(state, tiles, basic_kinds, action):
        return 0.0, STEP_ILLEGAL
    return env_step_legal(state, tiles, goals, basic_kinds, action, learner, opponent_kinds,
                          rng_words, reward_scheme, population_shaping, observation, encoded,
                          mask, actions, log)


@njit_without_refcounts
def env_step_legal(state, tiles, goals, basic_kinds, action, learner, opponent_kinds, rng_words,
                   reward_scheme, population_shaping, observation, encoded, mask, actions, log):
    """`env_step` for an action already known legal in a running game (the vector env
    checks its whole batch first)."""
    population_before = state[player_base(learner) + s.POPULATION]
    apply_legal_action(state, tiles, goals, basic_kinds, action, log)
    play_opponents(state, tiles, goals, basic_kinds, learner, opponent_kinds, rng_words, mask,
                   actions, log)
    return finish_learner_step(state, tiles, basic_kinds, learner, reward_scheme,
                               population_shaping, population_before, observation, encoded,
                               mask, actions)


@njit_without_refcounts
def finish_learner_step(state, tiles, basic_kinds, learner, reward_scheme, population_shaping,
                        population_before, observation, encoded, mask, actions):
    """Reward and outputs once the learner decides again or the game is over.

    Shaping pays `population_shaping` per point of population gained since the
    learner's previous decision; the terminal reward comes on top.
    """
    reward = population_shaping * (state[player_base(learner) + s.POPULATION]
                                   - population_before)
    write_outputs(state, tiles, basic_kinds, learner, observation, encoded, mask, actions)
    if state[s.GAME_OVER]:
        return reward + final_reward(state, learner, reward_scheme), STEP_TERMINATED
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
        populations[seat] = state[player_base(seat) + s.SCORE_FINAL_POPULATION]
        winners[seat] = state[player_base(seat) + s.SCORE_WINNER]


@njit_without_refcounts
def next_game_seed(rng_words, offset, out):
    """Four generator words for the next game, drawn from an environment's own generator."""
    for index in range(4):
        word = next_word(rng_words, offset)
        out[index] = word - 0x100000000 if word >= 0x80000000 else word


@njit(cache=True)
def _vector_reset_one(states, index, tiles, goals, basic_kinds, num_players, mode, edition,
                      random_goals, learners, random_seats, opponent_kinds, rng_words,
                      observations, encoded, masks, actions, log):
    seed = np.empty(4, dtype=np.int32)
    next_game_seed(rng_words[index], 0, seed)
    if random_seats:
        learners[index] = random_below(rng_words[index], 0, num_players)
    env_reset(states[index], tiles, goals, basic_kinds, num_players, mode, edition, random_goals,
              seed, learners[index], opponent_kinds[index], rng_words[index],
              observations[index], encoded[index], masks[index], actions, log)


@njit(cache=True)
def reset_range(first, stop, states, tiles, goals, basic_kinds, num_players, mode, edition,
                random_goals, learners, random_seats, opponent_kinds, rng_words, observations,
                encoded, masks):
    actions = np.empty(masks.shape[1], dtype=np.int32)
    log = np.zeros((1, 8), dtype=np.int32)
    for index in range(first, stop):
        _vector_reset_one(states, index, tiles, goals, basic_kinds, num_players, mode, edition,
                          random_goals, learners, random_seats, opponent_kinds, rng_words,
                          observations, encoded, masks, actions, log)


@njit_without_refcounts
def first_illegal_action(first, stop, states, tiles, basic_kinds, step_actions):
    """Index of the first of games first..stop-1 whose action is illegal or which is over,
    else -1: a batch is checked whole before any game moves."""
    for index in range(first, stop):
        if states[index, s.GAME_OVER] or not is_legal_action(states[index], tiles, basic_kinds,
                                                             step_actions[index]):
            return index
    return -1


@njit(cache=True)
def step_range(first, stop, states, tiles, goals, basic_kinds, step_actions, num_players, mode,
               edition, random_goals, learners, random_seats, opponent_kinds, rng_words,
               reward_scheme, population_shaping, observations, encoded, masks, rewards,
               terminated, results, final_observations, final_populations, final_winners):
    """Games first..stop-1 of a batch whose actions `first_illegal_action` passed; returns
    how many of them finished (and were reset)."""
    actions = np.empty(masks.shape[1], dtype=np.int32)
    log = np.zeros((1, 8), dtype=np.int32)
    finished = 0
    for index in range(first, stop):
        observation = observations[index]
        reward, result = env_step_legal(states[index], tiles, goals, basic_kinds,
                                        step_actions[index], learners[index],
                                        opponent_kinds[index], rng_words[index], reward_scheme,
                                        population_shaping, observation, encoded[index],
                                        masks[index], actions, log)
        rewards[index] = reward
        results[index] = result
        terminated[index] = result == STEP_TERMINATED
        if result == STEP_TERMINATED:
            finished += 1
            copy_observation(observation, final_observations[index], num_players)
            record_final_scores(states[index], final_populations[index], final_winners[index])
            _vector_reset_one(states, index, tiles, goals, basic_kinds, num_players, mode,
                              edition, random_goals, learners, random_seats, opponent_kinds,
                              rng_words, observations, encoded, masks, actions, log)
    return finished


@njit(cache=True)
def vector_reset_serial(states, tiles, goals, basic_kinds, num_players, mode, edition,
                        random_goals, learners, random_seats, opponent_kinds, rng_words,
                        observations, encoded, masks):
    """`vector_reset` on one thread."""
    reset_range(0, states.shape[0], states, tiles, goals, basic_kinds, num_players, mode,
                edition, random_goals, learners, random_seats, opponent_kinds, rng_words,
                observations, encoded, masks)


@njit(cache=True)
def vector_step_serial(states, tiles, goals, basic_kinds, step_actions, num_players, mode,
                       edition, random_goals, learners, random_seats, opponent_kinds, rng_words,
                       reward_scheme, population_shaping, observations, encoded, masks, rewards,
                       terminated, results, final_observations, final_populations,
                       final_winners):
    """`vector_step` on one thread."""
    illegal = first_illegal_action(0, states.shape[0], states, tiles, basic_kinds, step_actions)
    if illegal >= 0:
        return illegal, 0
    finished = step_range(0, states.shape[0], states, tiles, goals, basic_kinds, step_actions,
                          num_players, mode, edition, random_goals, learners, random_seats,
                          opponent_kinds, rng_words, reward_scheme, population_shaping,
                          observations, encoded, masks, rewards, terminated, results,
                          final_observations, final_populations, final_winners)
    return -1, finished


@njit(cache=True, parallel=True)
def vector_reset(states, tiles, goals, basic_kinds, num_players, mode, edition, random_goals,
                 learners, random_seats, opponent_kinds, rng_words, observations, encoded, masks,
                 num_chunks):
    """Reset every game of a batch, in `num_chunks` chunks over the cores (numba prange)."""
    num_envs = states.shape[0]
    for chunk in prange(num_chunks):
        first, stop = chunk_bounds(chunk, num_envs, num_chunks)
        reset_range(first, stop, states, tiles, goals, basic_kinds, num_players, mode, edition,
                    random_goals, learners, random_seats, opponent_kinds, rng_words,
                    observations, encoded, masks)


@njit(cache=True, parallel=True)
def vector_step(states, tiles, goals, basic_kinds, step_actions, num_players, mode, edition,
                random_goals, learners, random_seats, opponent_kinds, rng_words, reward_scheme,
                population_shaping, observations, encoded, masks, rewards, terminated, results,
                final_observations, final_populations, final_winners, num_chunks):
    """Step every game of a batch; a finished game is reset in the same step.

    The whole batch is checked first, each chunk on its core: with an illegal action (or
    a finished game) anywhere, nothing moves and (index of the first such game, 0) is
    returned, else (-1, number of games that finished and were reset).

    The observation of a finished game goes to `final_observations`, its final populations
    and winner flags (R8.2, R8.3) per seat to `final_populations` / `final_winners`, before
    the reset; `results` holds each game's STEP_* value; `encoded` holds the encoding
    cache of each observation row (observation.py).
    """
    num_envs = states.shape[0]
    illegal_in_chunk = np.empty(num_chunks, dtype=np.int64)
    for chunk in prange(num_chunks):
        first, stop = chunk_bounds(chunk, num_envs, num_chunks)
        illegal_in_chunk[chunk] = first_illegal_action(first, stop, states, tiles, basic_kinds,
                                                       step_actions)
    for chunk in range(num_chunks):  # every chunk checked before any game moves
        if illegal_in_chunk[chunk] >= 0:
            return illegal_in_chunk[chunk], 0
    finished = 0
    for chunk in prange(num_chunks):
        first, stop = chunk_bounds(chunk, num_envs, num_chunks)
        finished += step_range(first, stop, states, tiles, goals, basic_kinds, step_actions,
                               num_players, mode, edition, random_goals, learners, random_seats,
                               opponent_kinds, rng_words, reward_scheme, population_shaping,
                               observations, encoded, masks, rewards, terminated, results,
                               final_observations, final_populations, final_winners)
    return -1, finished
