"""A trained model that searches ahead at decision time, in every mode (R9, R3.1).

At each decision the policy proposes its `candidates` most probable legal actions. Each
is tried on `samples` copies of the game in which what the player cannot see is redrawn
from what it can know (suburbia_env.engine.hidden_information, R10.2): the stack order, One
More Round, and the other players' private and returned goals. The same redraws serve
every candidate, and they depend only on public facts, the player's own goals and the
agent's generator, never on the true hidden facts. Inside a trial the other seats are
played by the opponent model (`opponent`): by default ("inferred") each seat by the
greedy player in a share of the redraws that follows the moves it was seen to make
(`observe`, below) and by the model in the others; "mixed" gives each kind half the
redraws; "model" plays every seat by the model itself, from that seat's own observation
(the observation is always the acting seat's view); or a given agent (e.g. "greedy")
plays them all. Against Dale his turns are the engine's (R9.2). Two evaluations:

- "rollout" (the default, spec ``ppo-rollout:PATH``): every trial is played to the end,
  each move the acting seat's most probable legal action, all trials batched through
  one forward pass per move. A trial is worth its final reward under `reward` plus
  `margin_weight` times the margin reward (own minus best other population, /100).
- "critic" (spec ``ppo-search:PATH``): a trial is played until the searching player
  decides again; it is worth gamma times the model's critic there, or its final reward
  if the game ended first. `reward` must then be the scheme the model was trained with
  ("margin" for the committed baseline).

The agent plays the candidate with the best mean value over the redraws plus
`prior_weight` times the log of its policy probability. With a `goal_weight` G, the
candidates and the policy's "first choice" below are those of the goal prior
(agents/goal_prior.py: log-probability plus G x the expected goal bonus after the
action), not of the probabilities alone, and inside the rollouts the searching player's
own moves are the goal prior's choice too, so that a trial goes on as the agent would play
it. G defaults to the weight a model trained with the goal prior carries (0 for others).
The redraws come from the agent's own generator, reseeded by `reset(seed)`.

Opponent inference ("inferred"). Shown another seat's move (`observe`, called by the
tournament runner), the agent redraws what it cannot see, from a second generator of its
own, and asks what greedy and the model, playing that seat on that redraw, would have
chosen. Five explanations of the seat compete: greedy and the model, each taken to play
its own choice with probability 1 - GUESS_ERROR (the rest spread evenly over the other
legal moves); a player only like greedy or only like the model, making its choice with
probability LOOSE_HIT (they win over the first two when fewer than about 63% of the
seat's moves are that choice, as for a player of another style); and every legal move
equally likely. The last three leave the seat unexplained. Each keeps a
log-likelihood of the seat's moves in which older moves fade by FORGETTING per move of
that seat (a memory of about five moves), so that a seat whose style changes during a
game is judged on how it plays now. The greedy share of a seat is the logistic of
greedy's log-likelihood minus the model's; the greedy player takes round(share x
redraws) of them (half rounded down), odd redraws first, so that before any evidence it
plays as "mixed".

The fallback. When neither greedy nor the model explains a seat's recent moves (an
unexplaining log-likelihood is the highest: a seat that plays like neither, as Dale's
procedure, or only somewhat like one, as a player of another style or one that changed
its style), a confident wrong
model of that seat would make every trial misjudge the candidates, and the search could
then play worse than its policy alone, which is the yardstick it must not fall below.
So such a seat is played in every redraw by the safe model, moves sampled from the
policy's own distribution from that seat's view (broad where the model is unsure, never
one confident guess), and while any seat is unexplained the agent leaves its policy's
first choice only for a candidate whose value is higher on the same redraws by more
than SAFETY_Z standard errors of the paired difference. At a table of more than two
seats the same test holds always (`GUARDED_SEATS`): each other seat's model can be
wrong, and on the yardsticks' 4-player tables the search gained nothing over its policy
even against greedy, whom it models exactly, while against `reputation` it trended
weaker (docs/yardsticks.md). The evidence is public: the
move, and the position as this seat sees it, what it cannot see redrawn (R10.2); the
goal choice is never used, it is hidden (R3.6). The tournament runner, the recording of
demonstrations and the web page show the moves; where nothing does (the terminal game,
the OpenSpiel and Gym wrappers' opponents, a bare `act`), it stays "mixed".

Known styles ("inferred-styles", not the default). The four heuristic styles of
agents/styles.py (goals, lakes, reputation, hoarder) are explanations too, each taken to
play one of its best actions 3 times in 4 (a style breaks ties by a draw, so each of k
tied actions gets 3/4k), asked on the same redraw as greedy and the model. A seat that one of them explains better than
greedy and the model do (and that is not unexplained) is played by that style in every
redraw, with tie draws from a generator of its own; before any evidence no style is ahead,
so the search starts as "mixed" as "inferred" does. Which style a seat plays is told from
evidence that fades by STYLE_FORGETTING (the styles agree on many moves). The styles are
this project's yardsticks, so this knowledge could only help against them; measured, it
did not help enough to be the default (docs/yardsticks.md, "Modelling the styles").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from suburbia_env import Game
from suburbia_env.engine import constants as c
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.engine.env_core import REWARD_MARGIN, REWARD_NAMES, final_reward
from suburbia_env.errors import ConfigError
from suburbia_env.engine.event_log import NUM_EVENT_FIELDS
from suburbia_env.engine.hidden_information import redraw_hidden_information
from suburbia_env.engine.legal_actions import legal_action_mask
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.engine.resolution import copy_state
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.turn import apply_legal_action

from .base import Agent
from .dale_agent import DaleAgent
from .goal_term import goal_prior_scores
from .greedy import GreedyAgent
from .ppo_agent import PPOAgent
from .random_agent import RandomAgent
from .styles import STYLES, StyleAgent

EVALUATIONS = ("critic", "rollout")
MODEL_OPPONENT = "model"
MIXED_OPPONENT = "mixed"
"""The model in the even redraws, the greedy player in the odd ones (module docstring)."""
INFERRED_OPPONENT = "inferred"
"""The greedy player in a share of the redraws that each seat's moves set (module
docstring)."""
INFERRED_STYLES_OPPONENT = "inferred-styles"
""""inferred" with the heuristic styles as explanations too (module docstring, "Known
styles")."""
ROLLOUT_OPPONENTS = (INFERRED_OPPONENT, MODEL_OPPONENT, "greedy", "dale", "random",
                     MIXED_OPPONENT, INFERRED_STYLES_OPPONENT)
"""Who may play the other seats inside the trials, the default first (a spec's O)."""
GUESS_ERROR = 0.25
"""How often a greedy or model player is taken to make a move other than its own choice."""
FORGETTING = 0.8
"""Weight of a seat's earlier evidence at each new move of that seat (module docstring)."""
SAFETY_Z = 2.0
"""With an unexplained seat, how many standard errors of the paired difference over the
redraws a candidate must beat the policy's first choice by (module docstring). 1.0 left
the search weaker than its policy against the `goals` style; 2.0 was stronger on tuning
games (docs/yardsticks.md, "The fallback's threshold")."""
GUARDED_SEATS = 3
"""From this many seats on, the search leaves its policy's first choice only for a
clearly better candidate, explained seats or not (module docstring, "The fallback")."""
REVISION = 2
"""Counts the changes to what the search chooses for a given spec (2: the guard at
GUARDED_SEATS and, with G, the searching player's own moves in the trials by the goal
prior), so that measurements of one revision are never pooled with another's
(benchmarks/yardsticks.py)."""
LOOSE_HIT = 0.5
"""How often a seat that is only like greedy (or the model) is taken to make its choice:
such a seat is not explained by it (module docstring)."""
GREEDY, MODEL, LIKE_GREEDY, LIKE_MODEL, UNIFORM = range(5)
"""Columns of `ValueSearchAgent.log_evidence`: the explanations of a seat's moves; the
first two explain it, the next three leave it unexplained."""
EXPLAINING = 2
STYLE_NAMES = tuple(STYLES)
FIRST_STYLE = UNIFORM + 1
"""Columns FIRST_STYLE, FIRST_STYLE + 1, ... of `log_evidence`: each heuristic style of
agents/styles.py (in the order of STYLE_NAMES) playing one of its tied best actions 3
times in 4, which explain a seat as greedy and the model do (module docstring, "Known styles")."""
UNEXPLAINING = [LIKE_GREEDY, LIKE_MODEL, UNIFORM]
STYLE_FORGETTING = 0.95
"""Weight of earlier evidence in telling the styles apart (`style_log_evidence`): they
agree on many moves, so which style a seat plays shows over some twenty of its moves,
not five (module docstring, "Known styles")."""


def _rollout_agent(name: str, seed: int | None) -> Agent:
    """The agent a named opponent model is: built here, not through the registry, which
    builds this agent from its spec (the registry imports this module, not the reverse)."""
    if name == "random":
        return RandomAgent(seed)
    return {"greedy": GreedyAgent, "dale": DaleAgent}[name]()


@njit(cache=True)
def start_trials(state, tiles, goals, basic_kinds, viewer, candidates, samples, rng_words,
                 trial_states):
    """Row `sample * len(candidates) + index` of `trial_states` gets candidates[index]
    played, up to the next decision, on the sample-th redraw of what `viewer` cannot see
    (R10.2): the searching seat, or the seat a review takes the view of."""
    redrawn = np.empty_like(state)
    log = np.zeros((1, NUM_EVENT_FIELDS), dtype=np.int32)
    count = candidates.shape[0]
    for sample in range(samples):
        copy_state(redrawn, state)
        redraw_hidden_information(redrawn, tiles, goals, viewer, rng_words)
        for index in range(count):
            row = sample * count + index
            copy_state(trial_states[row], redrawn)
            apply_legal_action(trial_states[row], tiles, goals, basic_kinds, candidates[index],
                               log)


@njit(cache=True)
def trial_outputs(trial_states, rows, tiles, basic_kinds, observations, masks, running, seats):
    """Observation and mask of the acting seat (`seats`, -1 once over) for every
    unfinished trial among the first `rows` (`running` says which)."""
    actions = np.empty(NUM_ACTIONS, dtype=np.int32)
    for row in range(rows):
        state = trial_states[row]
        running[row] = state[s.GAME_OVER] == 0
        if not running[row]:
            seats[row] = -1
            continue
        seats[row] = state[s.CURRENT_PLAYER]
        encode_observation(state, tiles, seats[row], observations[row])
        legal_action_mask(state, tiles, basic_kinds, masks[row], actions)


@njit(cache=True)
def continue_trials(trial_states, rows, tiles, goals, basic_kinds, actions, running):
    """Play actions[row] in every trial that `running` marks (a rollout step)."""
    log = np.zeros((1, NUM_EVENT_FIELDS), dtype=np.int32)
    for row in range(rows):
        if running[row]:
            apply_legal_action(trial_states[row], tiles, goals, basic_kinds, actions[row], log)


@njit(cache=True)
def final_rewards(trial_states, rows, player, reward_scheme, out):
    for row in range(rows):
        out[row] = final_reward(trial_states[row], player, reward_scheme)


class ValueSearchAgent(Agent):
    """A trained model that plays its likeliest moves out before it chooses (module
    docstring). `opponent` names who plays the other seats inside the trials: "inferred"
    (the default: greedy or the model, per seat, as the moves shown to `observe`
    suggest), "mixed", "model", "greedy", "dale", "random", or an Agent."""

    name = "ppo-rollout"

    def __init__(self, path: str | Path, candidates: int = 4, samples: int = 4,
                 prior_weight: float = 0.0, evaluation: str = "rollout",
                 reward: str = "win_loss", margin_weight: float = 0.5,
                 seed: int | None = None, allow_pickle: bool = False,
                 opponent: str | Agent = INFERRED_OPPONENT, goal_weight: float | None = None):
        if candidates < 1 or samples < 1:
            raise ConfigError(f"candidates and samples must be at least 1, "
                              f"got {candidates} and {samples}")
        if reward not in REWARD_NAMES:
            raise ConfigError(f"unknown reward scheme {reward!r}: use one of {REWARD_NAMES}")
        if evaluation not in EVALUATIONS:
            raise ConfigError(f"unknown evaluation {evaluation!r}: use one of {EVALUATIONS}")
        if isinstance(opponent, str):
            opponent = opponent.lower()
            if opponent not in ROLLOUT_OPPONENTS:
                raise ConfigError(f"unknown opponent model {opponent!r}: use one of "
                                  f"{', '.join(ROLLOUT_OPPONENTS)} or an Agent")
        self.policy_agent = PPOAgent(path, allow_pickle=allow_pickle)
        self.opponent = opponent
        self._opponent_spec = opponent if isinstance(opponent, str) else None
        self.splits_redraws = opponent in (MIXED_OPPONENT, INFERRED_OPPONENT,
                                           INFERRED_STYLES_OPPONENT)
        self.inferred = opponent in (INFERRED_OPPONENT, INFERRED_STYLES_OPPONENT)
        self.models_styles = opponent == INFERRED_STYLES_OPPONENT
        if isinstance(opponent, str) and opponent != MODEL_OPPONENT:
            self.opponent = _rollout_agent("greedy" if self.splits_redraws else opponent, seed)
        self.path = self.policy_agent.path
        self.candidates = int(candidates)
        self.samples = int(samples)
        self.prior_weight = float(prior_weight)
        self.goal_weight = (self.policy_agent.goal_prior_weight if goal_weight is None
                            else float(goal_weight))
        self.goal_denial = self.policy_agent.goal_prior_denial
        self.goal_chances = self.policy_agent.goal_chances
        self._goal_mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
        self._goal_actions = np.zeros(NUM_ACTIONS, dtype=np.int32)
        self.evaluation = evaluation
        self.reward = reward
        self.margin_weight = float(margin_weight)
        self._reward_scheme = REWARD_NAMES.index(reward)
        self._gamma = float(self.policy_agent.model.gamma)
        self._generator = np.random.default_rng(seed)
        self._observing_generator = np.random.default_rng(_observing_seed(seed))
        self.log_evidence = np.zeros((c.MAX_PLAYERS, FIRST_STYLE + len(STYLE_NAMES)))
        self.style_agents = [StyleAgent(name, seed=_style_seed(seed, index))
                             for index, name in enumerate(STYLE_NAMES)]
        self.style_log_evidence = np.zeros((c.MAX_PLAYERS, len(STYLE_NAMES)))
        self._seat_styles = np.full(c.MAX_PLAYERS, -1, dtype=np.int64)
        self.greedy_log_odds = np.zeros(c.MAX_PLAYERS)
        self.unexplained_log_odds = np.zeros(c.MAX_PLAYERS)
        self.fallbacks = 0
        self._by_safe_model = np.zeros(c.MAX_PLAYERS, dtype=bool)
        rows = self.candidates * self.samples
        self._observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        self._trial_states = np.zeros((rows, s.STATE_SIZE), dtype=np.int32)
        self._observations = np.zeros((rows, OBSERVATION_SIZE), dtype=np.float32)
        self._masks = np.zeros((rows, NUM_ACTIONS), dtype=np.bool_)
        self._running = np.zeros(rows, dtype=np.bool_)
        self._seats = np.zeros(rows, dtype=np.int32)
        self._rewards = np.zeros(rows, dtype=np.float64)
        self._margins = np.zeros(rows, dtype=np.float64)
        self._by_opponent = np.zeros((rows, c.MAX_PLAYERS), dtype=np.bool_)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._generator = np.random.default_rng(seed)
            self._observing_generator = np.random.default_rng(_observing_seed(seed))
        self.log_evidence[:] = 0.0
        self.style_log_evidence[:] = 0.0
        self.greedy_log_odds[:] = 0.0
        self.unexplained_log_odds[:] = 0.0
        self.fallbacks = 0
        for index, agent in enumerate(self.style_agents):
            agent.reset(_style_seed(seed, index))
        if isinstance(self.opponent, Agent):
            self.opponent.reset(seed)

    def _rng_words(self, generator: np.random.Generator | None = None) -> np.ndarray:
        generator = self._generator if generator is None else generator
        return generator.integers(1, 2**31, size=4, dtype=np.int64).astype(np.int32)

    def observe(self, game: Game, action: int, seat: int) -> None:
        """Weigh another seat's turn as evidence of who plays it ("inferred", module
        docstring); `seat` is this agent's, whose view alone is used (R10.2)."""
        if not self.inferred or game.pending_decision in ("keep_goal", "none"):
            return
        action = game.action_number(action)
        mover = game.current_player
        view = game.copy()
        view.redraw_hidden(seat, self._rng_words(self._observing_generator))
        mask = view.legal_action_mask()
        legal = int(mask.sum())
        if legal < 2:
            return
        greedy_choice = view.action_number(self.opponent.act(view))
        encode_observation(view.state, TILES.table, mover, self._observation)
        model_choice = int(np.argmax(self.policy_agent.action_probabilities(
            self._model_input(self._observation, mask), mask)))

        def likelihood(choice, hit: float) -> float:
            """The chance of `action` if the seat plays `choice` (its best actions, tied)
            with chance `hit`, any other legal action evenly with the rest."""
            choices = np.atleast_1d(choice)
            if choices.size >= legal:
                return 1.0 / legal
            if action in choices:
                return hit / choices.size
            return (1.0 - hit) / (legal - choices.size)

        evidence = self.log_evidence[mover]
        evidence *= FORGETTING
        evidence[:FIRST_STYLE] += np.log([likelihood(greedy_choice, 1.0 - GUESS_ERROR),
                                          likelihood(model_choice, 1.0 - GUESS_ERROR),
                                          likelihood(greedy_choice, LOOSE_HIT),
                                          likelihood(model_choice, LOOSE_HIT), 1.0 / legal])
        self.greedy_log_odds[mover] = evidence[GREEDY] - evidence[MODEL]
        explaining = evidence[:EXPLAINING].max()
        if self.models_styles:
            style_terms = np.log([likelihood(agent.best_actions(view), 1.0 - GUESS_ERROR)
                                  for agent in self.style_agents])
            evidence[FIRST_STYLE:] += style_terms
            self.style_log_evidence[mover] *= STYLE_FORGETTING
            self.style_log_evidence[mover] += style_terms
            explaining = max(explaining, evidence[FIRST_STYLE:].max())
        self.unexplained_log_odds[mover] = evidence[UNEXPLAINING].max() - explaining

    def unexplained_seats(self) -> np.ndarray:
        """bool[MAX_PLAYERS]: the seats neither greedy nor the model explains ("inferred",
        module docstring), which the safe model plays."""
        if not self.inferred:
            return np.zeros(c.MAX_PLAYERS, dtype=bool)
        return self.unexplained_log_odds > 0.0

    def seat_styles(self) -> np.ndarray:
        """int[MAX_PLAYERS]: per seat, the index in STYLE_NAMES of the style that explains
        its moves better than greedy and the model do, or -1 ("inferred-styles", module
        docstring, "Known styles"); such a seat is played by that style in every redraw."""
        styles = np.full(c.MAX_PLAYERS, -1, dtype=np.int64)
        if not self.models_styles:
            return styles
        best = self.style_log_evidence.argmax(axis=1)
        ahead = ((self.log_evidence[np.arange(c.MAX_PLAYERS), FIRST_STYLE + best]
                  > self.log_evidence[:, :EXPLAINING].max(axis=1))
                 & ~self.unexplained_seats())
        styles[ahead] = best[ahead]
        return styles

    def opponent_shares(self) -> np.ndarray:
        """Per seat, the share of the redraws the opponent agent (greedy for "mixed" and
        "inferred") plays it in: 0 for "model", 1 for a given agent, 1/2 for "mixed"."""
        if self.splits_redraws:
            return 1.0 / (1.0 + np.exp(-np.clip(self.greedy_log_odds, -50.0, 50.0)))
        return np.full(c.MAX_PLAYERS, float(isinstance(self.opponent, Agent)))

    def _opponent_redraws(self) -> np.ndarray:
        """bool[samples, MAX_PLAYERS]: in which redraws each seat is played by the opponent
        agent, taking round(share x samples) redraws, odd ones first (module docstring)."""
        order = np.concatenate([np.arange(1, self.samples, 2), np.arange(0, self.samples, 2)])
        counts = np.ceil(self.opponent_shares() * self.samples - 0.5).astype(np.int64)
        rank = np.empty(self.samples, dtype=np.int64)
        rank[order] = np.arange(self.samples)
        return rank[:, None] < counts[None, :]

    def act(self, game: Game) -> int:
        state = game.state
        self._config = game.config
        encode_observation(state, TILES.table, game.current_player, self._observation)
        mask = game.legal_action_mask()
        probabilities = self.policy_agent.action_probabilities(
            self._model_input(self._observation, mask), mask)
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        if self.goal_weight:
            legal, keys = goal_prior_scores(state, probabilities, self.goal_weight,
                                            self._goal_mask, self._goal_actions,
                                            self.goal_denial, self.goal_chances)
        else:
            keys = probabilities[legal]
        order = legal[np.argsort(-keys, kind="stable")]
        candidates = order[:self.candidates].astype(np.int32)
        table = self.candidate_value_table(state, candidates)
        scores = table.mean(axis=0) + self.prior_weight * np.log(probabilities[candidates])
        best = int(np.argmax(scores))
        others = np.arange(c.MAX_PLAYERS) != game.current_player
        if best != 0 and ((self.unexplained_seats() & others).any()
                          or game.num_seats >= GUARDED_SEATS) \
                and not _clearly_better(table[:, best] - table[:, 0]):
            self.fallbacks += 1
            best = 0
        return int(candidates[best])

    def candidate_values(self, state: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """Mean value of each candidate action over the redraws (module docstring)."""
        return self.candidate_value_table(state, candidates).mean(axis=0)

    def candidate_value_table(self, state: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """float[samples, candidates]: the value of each candidate on each redraw."""
        rows = candidates.size * self.samples
        player = int(state[s.CURRENT_PLAYER])
        start_trials(state, TILES.table, GOALS.table, TILES.basic_kinds, np.int64(player),
                     candidates, self.samples, self._rng_words(), self._trial_states)
        running = self._running[:rows]
        # trial row = redraw x candidates + candidate
        self._by_opponent[:rows] = np.repeat(self._opponent_redraws(), candidates.size, axis=0)
        self._by_safe_model = self.unexplained_seats()
        self._by_safe_model[player] = False
        self._seat_styles = self.seat_styles()
        self._seat_styles[player] = -1
        self._write_trial_outputs(rows)
        if self.evaluation == "critic":
            self._play_trials(rows, player, until_player=True)
            final_rewards(self._trial_states, rows, player, self._reward_scheme, self._rewards)
            values = self._rewards[:rows].copy()
            values[running] = self._gamma * self._critic_values(running)
        else:
            self._play_trials(rows, player, until_player=False)
            final_rewards(self._trial_states, rows, player, self._reward_scheme, self._rewards)
            final_rewards(self._trial_states, rows, player, REWARD_MARGIN, self._margins)
            values = self._rewards[:rows] + self.margin_weight * self._margins[:rows]
        return values.reshape(self.samples, candidates.size)

    def _play_trials(self, rows: int, player: int, until_player: bool) -> None:
        """Move the trials on until every one is over, or (`until_player`) waits on
        `player`'s decision."""
        while True:
            moving = self._running[:rows].copy()
            if until_player:
                moving &= self._seats[:rows] != player
            if not moving.any():
                return
            continue_trials(self._trial_states, rows, TILES.table, GOALS.table,
                            TILES.basic_kinds, self._trial_actions(rows, moving, player), moving)
            self._write_trial_outputs(rows)

    def _write_trial_outputs(self, rows: int) -> None:
        trial_outputs(self._trial_states, rows, TILES.table, TILES.basic_kinds,
                      self._observations, self._masks, self._running, self._seats)

    def _trial_actions(self, rows: int, moving: np.ndarray, player: int) -> np.ndarray:
        """The move of every trial `moving` marks: the model's, or the opponent agent's
        for the other seats in the trials it plays."""
        by_model = moving.copy()
        actions = np.zeros(rows, dtype=np.int32)
        seats = np.maximum(self._seats[:rows], 0)
        by_safe = moving & (self._seats[:rows] >= 0) & self._by_safe_model[seats]
        styles = np.where(moving & (self._seats[:rows] >= 0), self._seat_styles[seats], -1)
        for row in np.flatnonzero(styles >= 0):
            view = Game.view(self._config, self._trial_states[row])
            actions[row] = view.action_number(self.style_agents[styles[row]].act(view))
            by_model[row] = False
        if isinstance(self.opponent, Agent):
            others = (moving & ~by_safe & (styles < 0) & (self._seats[:rows] != player)
                      & self._by_opponent[np.arange(rows), seats])
            for row in np.flatnonzero(others):
                view = Game.view(self._config, self._trial_states[row])
                actions[row] = view.action_number(self.opponent.act(view))
                by_model[row] = False
        if by_safe.any():
            actions[by_safe] = self._policy_actions(by_safe, sample=True)
            by_model &= ~by_safe
        if by_model.any():
            actions[by_model] = self._policy_actions(by_model, goal_seat=player)
        return actions

    def _model_input(self, observation: np.ndarray, mask: np.ndarray):
        if self.policy_agent._dict_observations:
            return {"observation": observation, "action_mask": mask.astype(np.int8)}
        return observation

    def _critic_values(self, running: np.ndarray) -> np.ndarray:
        """The critic's value of the running trials (`running` covers the first rows)."""
        import torch
        policy = self.policy_agent.model.policy
        rows = running.size
        tensor, _ = policy.obs_to_tensor(self._model_input(self._observations[:rows][running],
                                                           self._masks[:rows][running]))
        with torch.no_grad():
            return policy.predict_values(tensor).reshape(-1).cpu().numpy().astype(np.float64)

    def _policy_actions(self, which: np.ndarray, sample: bool = False,
                        goal_seat: int = -1) -> np.ndarray:
        """The model's most probable legal action in each trial `which` marks (it covers
        the first rows), or (`sample`) one drawn from its distribution by the agent's
        generator: the safe model of an unexplained seat."""
        import torch
        policy = self.policy_agent.model.policy
        rows = which.size
        masks = self._masks[:rows][which]
        tensor, _ = policy.obs_to_tensor(self._model_input(self._observations[:rows][which],
                                                           masks))
        with torch.no_grad():
            distribution = policy.get_distribution(tensor, action_masks=masks)
            if not sample:
                chosen = distribution.mode().cpu().numpy()
                own = np.flatnonzero(self._seats[:rows][which] == goal_seat)
                if self.goal_weight and own.size:
                    probabilities = distribution.distribution.probs.cpu().numpy()
                    states = self._trial_states[:rows][which]
                    for row in own:
                        legal, keys = goal_prior_scores(
                            states[row], probabilities[row].astype(np.float64),
                            self.goal_weight, self._goal_mask, self._goal_actions,
                            self.goal_denial, self.goal_chances)
                        chosen[row] = legal[np.argmax(keys)]
                return chosen
            probabilities = distribution.distribution.probs.cpu().numpy().astype(np.float64)
        probabilities[~masks] = 0.0
        cumulative = np.cumsum(probabilities, axis=1)
        draws = self._generator.random(len(cumulative)) * cumulative[:, -1]
        chosen = (cumulative <= draws[:, None]).sum(axis=1)  # the first sum above the draw
        last_legal = masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)
        return np.minimum(chosen, last_legal)

    def __repr__(self) -> str:
        return (f"ValueSearchAgent(path={str(self.path)!r}, candidates={self.candidates}, "
                f"samples={self.samples}, prior_weight={self.prior_weight}, "
                f"evaluation={self.evaluation!r}, reward={self.reward!r}, "
                f"opponent={self.opponent_name!r})")

    @property
    def opponent_name(self) -> str:
        """Who plays the other seats inside the trials, as a spec's O names it."""
        if self.splits_redraws:
            return self._opponent_spec if self.inferred else MIXED_OPPONENT
        return getattr(self.opponent, "name", self.opponent)


def _clearly_better(differences: np.ndarray) -> bool:
    """Whether paired differences over the redraws put a candidate ahead of the policy's
    first choice by more than SAFETY_Z standard errors (module docstring)."""
    mean = float(differences.mean())
    if differences.size < 2:
        return mean > 0.0
    error = float(differences.std(ddof=1)) / np.sqrt(differences.size)
    return mean > SAFETY_Z * error and mean > 0.0


def _observing_seed(seed: int | None) -> list[int] | None:
    """The seed of the generator `observe` redraws with, apart from the search's own."""
    return None if seed is None else [int(seed), 1]


def _style_seed(seed: int | None, index: int) -> list[int] | None:
    """The seed of the style agent that models style `index` (its tie draws), apart from
    the search's own generators."""
    return None if seed is None else [int(seed), 2 + index]
