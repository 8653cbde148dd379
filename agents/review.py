"""What a game's decisions were worth, by the search (issue 33): the evaluation behind
`suburbia review` and the in-game `evaluate_position`.

A position is evaluated as the rollout search of value_search.py does it, with the model
playing every seat (its "model" opponent): the policy's `candidates` most probable legal
moves (and, in a review, the move played) are each tried on `samples` copies of the game in
which what the viewing seat cannot see is redrawn from what it can know (R10.2: the stack
order, One More Round, the other seats' goals); every copy is played to the end, each
seat making the policy's most probable legal move. The redraws serve every candidate and
come from the evaluator's own seeded generator, never from the true hidden facts, so two
positions a seat cannot tell apart get the same evaluation (tests/review).

Of a candidate's finished trials are kept, for every seat: its share of the win (1 for a
sole winner, 1/k for one of k tied winners, R8.3; 0 otherwise) and its final margin (its
final population minus the best other seat's, R8.2). Their means over the samples are the
candidate's win probability and expected final margin. The search ranks the candidates of
the deciding seat by its score: mean win/loss reward (+1 sole win, 0 shared, -1 loss) plus
`margin_weight` times the margin reward (margin / 100), the released search's criterion
(agents/registry.py, SEARCH_DEFAULTS["rollout"]). The best move is the argmax of the score,
so the score's cost of the played move is never negative; its costs in win probability and
margin are differences of means and may be (docs/review.md).

All the trials of many positions are played together, one forward pass of the policy per
move for all of them (`batch_rows` trials at a time).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np
from numba import njit

from suburbia_env import Game
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.engine.constants import MODE_NAMES
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.errors import ArgumentError, ConfigError, shown

from .calibration import IDENTITY, calibration_for
from .ppo_agent import PPOAgent
from .value_search import continue_trials, start_trials, trial_outputs

MODELS_FOLDER = Path(__file__).resolve().parents[1] / "models"
MODEL_OF_MODE = {"standard": MODELS_FOLDER / "multiplayer.safetensors",
                 "dale": MODELS_FOLDER / "baseline.safetensors"}
"""The released model each mode is evaluated with (models/README.md): the multiplayer
model at 2-4 players, the baseline against Dale (R9.2)."""

REVIEW_KNOWLEDGE = (
    "finished game: this review may use everything, and uses the whole record with every "
    "hidden fact (the final scores, each seat's private goal, the actual result as the "
    "graph's last point); each decision is evaluated from what the deciding seat knew at "
    "that moment (what it could not see redrawn, R10.2), so a move is judged on its "
    "player's information")
IN_GAME_KNOWLEDGE = (
    "game in progress: only what the viewing seat can know (R10.2: every hidden fact "
    "redrawn)")


@dataclass(frozen=True)
class SearchSettings:
    """How deep the evaluation looks (module docstring); the defaults meet the review's
    time budget on 2 cores (docs/review.md, "Speed")."""

    candidates: int = 4
    samples: int = 16
    margin_weight: float = 0.5
    policy_top: int = 5
    batch_rows: int = 2048
    threads: int = 1

    def __post_init__(self):
        for name, low, high in (("candidates", 1, 64), ("samples", 1, 256),
                                ("policy_top", 1, 64), ("batch_rows", 1, 65536),
                                ("threads", 1, 64)):
            value = getattr(self, name)
            if (not isinstance(value, (int, np.integer)) or isinstance(value, bool)
                    or not low <= value <= high):
                raise ConfigError(f"{name} must be a whole number {low}..{high}, "
                                  f"not {shown(value)}")
        if not (isinstance(self.margin_weight, (int, float))
                and 0.0 <= float(self.margin_weight) <= 100.0):
            raise ConfigError(f"margin_weight must be a number 0..100, "
                              f"not {shown(self.margin_weight)}")


@njit(cache=True)
def trial_results(trial_states, rows, players, win_shares, populations):
    """Every seat's share of the win and final population in the first `rows` trials."""
    for row in range(rows):
        winners = 0
        for player in range(players):
            winners += s.score_entry(trial_states[row], player, s.SCORE_WINNER) != 0
        for player in range(players):
            won = s.score_entry(trial_states[row], player, s.SCORE_WINNER) != 0
            win_shares[row, player] = 1.0 / winners if won and winners > 0 else 0.0
            populations[row, player] = s.score_entry(trial_states[row], player,
                                                     s.SCORE_FINAL_POPULATION)


class Position(NamedTuple):
    """A position to evaluate: its state, the seat whose knowledge the redraws keep, the
    candidate moves of the seat to act, and the generator words of its redraws."""

    state: np.ndarray
    viewer: int
    candidates: np.ndarray
    words: np.ndarray


@dataclass
class Evaluation:
    """The candidates of one position, tried on `samples` redraws (module docstring)."""

    candidates: np.ndarray
    win_probabilities: np.ndarray
    """float[candidate, seat]: mean share of the win after the candidate."""
    margins: np.ndarray
    """float[candidate, seat]: mean final margin (population points) after the candidate."""
    scores: np.ndarray
    """float[candidate]: the search's score for the seat to act (module docstring)."""
    calibrated: np.ndarray | None = None
    """float[candidate, seat]: `win_probabilities` through the model's calibration map
    (agents/calibration.py); the same values when it has none."""
    best: int = field(init=False)
    """Index of the search's best candidate (the first of equal scores)."""

    def __post_init__(self):
        self.best = int(np.argmax(self.scores))
        if self.calibrated is None:
            self.calibrated = self.win_probabilities


def margins_of(populations: np.ndarray) -> np.ndarray:
    """float[row, seat]: each seat's final population minus the best other seat's (R8.2)."""
    players = populations.shape[1]
    margins = np.empty(populations.shape, dtype=np.float64)
    for player in range(players):
        others = np.delete(populations, player, axis=1)
        margins[:, player] = populations[:, player] - (others.max(axis=1) if players > 1
                                                       else 0.0)
    return margins


class DecisionEvaluator:
    """The policy and search of one model, evaluating positions in batches."""

    def __init__(self, model: str | Path, settings: SearchSettings | None = None,
                 allow_pickle: bool = False, calibrate: bool = True):
        import torch
        self.settings = settings or SearchSettings()
        torch.set_num_threads(self.settings.threads)
        self.agent = PPOAgent(model, allow_pickle=allow_pickle)
        self.model_path = self.agent.path
        self.calibration = calibration_for(self.model_path) if calibrate else IDENTITY

    def calibration_description(self, mode: str, seats: int) -> dict | None:
        """What map calibrates this model's games of `mode` and `seats`, None if none."""
        return self.calibration.describe(mode, seats)

    def _tensor(self, observations: np.ndarray, masks: np.ndarray):
        """The network's input: flat observations as they are (no copy), dict ones through
        SB3's conversion."""
        import torch
        if not self.agent._dict_observations:
            return torch.from_numpy(observations)
        model_input = {"observation": observations, "action_mask": masks.astype(np.int8)}
        tensor, _ = self.agent.model.policy.obs_to_tensor(model_input)
        return tensor

    def policy_probabilities(self, observations: np.ndarray,
                             masks: np.ndarray) -> np.ndarray:
        """float64[position, action]: the masked policy, one forward pass for all."""
        import torch
        policy = self.agent.model.policy
        with torch.no_grad():
            distribution = policy.get_distribution(self._tensor(observations, masks),
                                                   action_masks=masks)
            probabilities = distribution.distribution.probs.cpu().numpy().astype(np.float64)
        probabilities[~masks] = 0.0
        return probabilities / probabilities.sum(axis=1, keepdims=True)

    def _policy_moves(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's most probable legal move in each row, the mode value_search plays,
        taken from the masked logits: the same network as `get_distribution`, without the
        distribution's normalisation, which took most of a review's time."""
        import torch
        from stable_baselines3.common.policies import BasePolicy
        policy = self.agent.model.policy
        with torch.no_grad():
            features = BasePolicy.extract_features(policy, self._tensor(observations, masks),
                                                   policy.pi_features_extractor)
            logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
            logits = logits.masked_fill(~torch.as_tensor(masks), -torch.inf)
            return torch.argmax(logits, dim=1).cpu().numpy().astype(np.int32)

    def evaluate(self, positions: list[Position],
                 progress: Callable[[int, int, int, bool], None] | None = None
                 ) -> list[Evaluation]:
        """The evaluation of every position; `progress(first, stop, total, done)` before
        (done False) and after (done True) each batch of positions first..stop-1."""
        samples = self.settings.samples
        evaluations: list[Evaluation] = []
        start = 0
        while start < len(positions):
            stop, rows = start, 0
            while stop < len(positions) and (
                    stop == start
                    or rows + positions[stop].candidates.size * samples
                    <= self.settings.batch_rows):
                rows += positions[stop].candidates.size * samples
                stop += 1
            if progress is not None:
                progress(start, stop, len(positions), False)
            evaluations.extend(self._evaluate_batch(positions[start:stop], rows))
            if progress is not None:
                progress(start, stop, len(positions), True)
            start = stop
        return evaluations

    def _evaluate_batch(self, positions: list[Position], rows: int) -> list[Evaluation]:
        samples = self.settings.samples
        trial_states = np.zeros((rows, s.STATE_SIZE), dtype=np.int32)
        offsets = []
        row = 0
        for position in positions:
            count = position.candidates.size * samples
            start_trials(position.state, TILES.table, GOALS.table, TILES.basic_kinds,
                         np.int64(position.viewer), position.candidates.astype(np.int32),
                         samples, position.words.copy(), trial_states[row:row + count])
            offsets.append(row)
            row += count
        self._play_out(trial_states, rows)
        players = int(positions[0].state[s.NUM_PLAYERS])
        win_shares = np.zeros((rows, players))
        populations = np.zeros((rows, players))
        trial_results(trial_states, rows, players, win_shares, populations)
        margins = margins_of(populations)
        evaluations = []
        for position, offset in zip(positions, offsets):
            count = position.candidates.size
            span = slice(offset, offset + count * samples)
            shares = win_shares[span].reshape(samples, count, players)
            margin = margins[span].reshape(samples, count, players)
            mover = int(position.state[s.CURRENT_PLAYER])
            share = shares[:, :, mover]
            win_loss = np.where(share >= 1.0, 1.0, np.where(share > 0.0, 0.0, -1.0))
            scores = (win_loss + self.settings.margin_weight * margin[:, :, mover] / 100.0)
            raw = shares.mean(axis=0)
            mode = MODE_NAMES[int(position.state[s.MODE])]
            evaluations.append(Evaluation(position.candidates.copy(), raw,
                                          margin.mean(axis=0), scores.mean(axis=0),
                                          self.calibration.apply(mode, players, raw)))
        return evaluations

    def _play_out(self, trial_states: np.ndarray, rows: int) -> None:
        """Play every trial to the end, each seat moving by the policy's mode."""
        observations = np.zeros((rows, OBSERVATION_SIZE), dtype=np.float32)
        masks = np.zeros((rows, NUM_ACTIONS), dtype=np.bool_)
        running = np.zeros(rows, dtype=np.bool_)
        seats = np.zeros(rows, dtype=np.int32)
        actions = np.zeros(rows, dtype=np.int32)
        trial_outputs(trial_states, rows, TILES.table, TILES.basic_kinds, observations, masks,
                      running, seats)
        while running.any():
            actions[running] = self._policy_moves(observations[running], masks[running])
            continue_trials(trial_states, rows, TILES.table, GOALS.table, TILES.basic_kinds,
                            actions, running)
            trial_outputs(trial_states, rows, TILES.table, TILES.basic_kinds, observations,
                          masks, running, seats)


def model_for(mode: str, model: str | Path | None = None) -> Path:
    """The model a game of `mode` is evaluated with: `model` if given, else the released
    one (MODEL_OF_MODE); Solitary Architect (R9.1) has no opponent to be measured against."""
    if model is not None:
        return Path(model)
    if mode not in MODEL_OF_MODE:
        raise ConfigError(f"a {mode} game has no win or margin to evaluate: Solitary "
                          f"Architect (R9.1) has no opponent; the review covers standard games "
                          f"(2-4 players) and games against Dale")
    return MODEL_OF_MODE[mode]


def redraw_words(generator: np.random.Generator) -> np.ndarray:
    """Generator words (int32[4]) of one position's redraws, as value_search draws them."""
    return generator.integers(1, 2**31, size=4, dtype=np.int64).astype(np.int32)


def top_moves(probabilities: np.ndarray, mask: np.ndarray, count: int) -> np.ndarray:
    """The `count` most probable legal moves, most probable first (ties: lower number)."""
    legal = np.flatnonzero(mask)
    return legal[np.argsort(-probabilities[legal], kind="stable")][:count]


def observation_of(state: np.ndarray, seat: int) -> np.ndarray:
    observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    encode_observation(state, TILES.table, seat, observation)
    return observation


@dataclass
class PositionEvaluation:
    """An in-game evaluation from `viewer`'s knowledge only (`evaluate_position`)."""

    viewer: int
    deciding_seat: int
    moves: list[dict]
    """The candidates of the seat to act, best first: move (notation), policy
    probability, the viewer's win probability (calibrated, and `win_probability_raw`
    before the map) and margin, the deciding seat's score."""
    win_probabilities: list[float]
    """Every seat's win probability if the seat to act plays the search's best move
    (calibrated, agents/calibration.py)."""
    margins: list[float]
    seed: int
    win_probabilities_raw: list[float] = field(default_factory=list)
    """The same before calibration."""
    knowledge: str = IN_GAME_KNOWLEDGE


def evaluate_position(game: Game, seat: int, model: str | Path | None = None,
                      settings: SearchSettings | None = None, seed: int | None = None,
                      evaluator: DecisionEvaluator | None = None) -> PositionEvaluation:
    """The search's view of a game in progress from `seat`'s knowledge alone (R10.2).

    Everything is computed on a redraw of what `seat` cannot see, from the evaluator's
    generator (`seed`; none given: 64 bits from the operating system's secure generator),
    so positions that differ only in facts hidden from `seat` get the same result."""
    if game.is_over:
        raise ConfigError("the game is over: there is no decision to evaluate")
    if (not isinstance(seat, (int, np.integer)) or isinstance(seat, bool)
            or not 0 <= seat < game.num_seats):
        raise ArgumentError(f"seat must be a seat 0..{game.num_seats - 1}, not {shown(seat)}")
    seed = secrets.randbits(64) if seed is None else int(seed)
    evaluator = evaluator or DecisionEvaluator(model_for(game.config.mode, model), settings)
    generator = np.random.default_rng(seed)
    view = game.copy()
    view.redraw_hidden(int(seat), redraw_words(generator))
    mover = view.current_player
    mask = view.legal_action_mask()
    probabilities = evaluator.policy_probabilities(observation_of(view.state, mover)[None],
                                                   mask[None])[0]
    candidates = top_moves(probabilities, mask, evaluator.settings.candidates).astype(np.int32)
    evaluation = evaluator.evaluate([Position(view.state, int(seat), candidates,
                                              redraw_words(generator))])[0]
    order = sorted(range(candidates.size), key=lambda index: -evaluation.scores[index])
    moves = [{"move": view.action_to_text(int(candidates[index])),
              "policy_probability": float(probabilities[candidates[index]]),
              "win_probability": float(evaluation.calibrated[index, seat]),
              "win_probability_raw": float(evaluation.win_probabilities[index, seat]),
              "margin": float(evaluation.margins[index, seat]),
              "score": float(evaluation.scores[index])} for index in order]
    return PositionEvaluation(int(seat), mover, moves,
                              evaluation.calibrated[evaluation.best].tolist(),
                              evaluation.margins[evaluation.best].tolist(), seed,
                              evaluation.win_probabilities[evaluation.best].tolist())


# Review of a finished game ------------------------------------------------------------------


class ReviewInputError(ConfigError):
    """A record that cannot be reviewed (not finished, a mode without opponents)."""


@dataclass
class Decision:
    """One decision of a reviewed game and what the search makes of it."""

    index: int
    round: int
    seat: int
    kind: str
    legal_moves: int
    move: str
    action: int
    best_move: str
    policy_probability: float
    policy_rank: int
    policy_top: list[dict]
    candidates: list[dict]
    played: int
    """Index of the played move among `candidates`."""
    best: int
    seat_win_probabilities: list[float]
    """Every seat's win probability after the played move (redraws of the deciding seat),
    calibrated (agents/calibration.py) when the model has a calibration map."""
    seat_win_probabilities_raw: list[float]
    """The same before calibration: each seat's mean share of the win over the copies."""

    def _of(self, which: int, key: str) -> float:
        return self.candidates[which][key]

    @property
    def win_probability_played(self) -> float:
        return self._of(self.played, "win_probability")

    @property
    def win_probability_best(self) -> float:
        return self._of(self.best, "win_probability")

    @property
    def win_probability_played_raw(self) -> float:
        return self._of(self.played, "win_probability_raw")

    @property
    def win_probability_best_raw(self) -> float:
        return self._of(self.best, "win_probability_raw")

    @property
    def margin_played(self) -> float:
        return self._of(self.played, "margin")

    @property
    def margin_best(self) -> float:
        return self._of(self.best, "margin")

    @property
    def score_played(self) -> float:
        return self._of(self.played, "score")

    @property
    def score_best(self) -> float:
        return self._of(self.best, "score")

    @property
    def cost_score(self) -> float:
        return self.score_best - self.score_played

    @property
    def cost_win_probability(self) -> float:
        return self.win_probability_best - self.win_probability_played

    @property
    def cost_margin(self) -> float:
        return self.margin_best - self.margin_played


@dataclass
class Review:
    """The review of a finished game (`review_record`)."""

    config: dict
    seed: int
    model: str
    settings: SearchSettings
    redraw_seed: int
    decisions: list[Decision]
    final_scores: list[dict]
    winners: list[int]
    record_decisions: int = 0
    """How many decisions the game had (`decisions` may hold fewer: `only`)."""
    record_rounds: int = 0
    """How many rounds the game had (the last decision's round)."""
    calibration: dict | None = None
    """The calibration map applied (agents/calibration.py `describe`), None if none."""
    knowledge: str = REVIEW_KNOWLEDGE

    @property
    def seats(self) -> int:
        return len(self.final_scores)

    def result_win_shares(self) -> list[float]:
        """Every seat's share of the actual win (the graph's last point)."""
        return [1.0 / len(self.winners) if seat in self.winners else 0.0
                for seat in range(self.seats)]

    def mistakes(self, seat: int, count: int = 3) -> list[Decision]:
        """The seat's `count` costliest decisions by the search's score, costliest first
        (a decision that played the best move costs nothing and is left out)."""
        costly = [d for d in self.decisions if d.seat == seat and d.played != d.best]
        return sorted(costly, key=lambda d: (-d.cost_score, d.index))[:count]


def replay_decisions(record) -> tuple[Game, list[tuple[np.ndarray, int, str, int, int, str]]]:
    """The finished game of a record and, for each decision, (state before it, seat,
    pending decision, round, action number, notation); StateFormatError names the field at
    fault, ReviewInputError a record that cannot be reviewed."""
    from suburbia_env.errors import StateFormatError, SuburbiaError
    from suburbia_env.formats.reading import quoted
    from suburbia_env.formats.records import RECORD_FORMAT, read_record
    if isinstance(record, dict) and record.get("format") not in (None, RECORD_FORMAT):
        raise StateFormatError(f"format: {quoted(str(record['format'])[:40])} is not a game "
                               f"record ({RECORD_FORMAT}): a saved state holds no decisions "
                               f"to review")
    config, seed, actions = read_record(record)
    model_for(config.mode)  # refuses Solitary Architect before any replay
    game = Game(config.players, config.mode, config.edition, seed, config.random_private_goals)
    decisions = []
    for index, text in enumerate(actions):
        state, seat = game.state.copy(), game.current_player
        kind, round_number = game.pending_decision, game.round + 1
        try:
            number = game.action_number(text)
            game.apply(number)
        except SuburbiaError as error:
            raise StateFormatError(f"actions[{index}]: {quoted(text)}: {error}") from None
        decisions.append((state, seat, kind, round_number, number,
                          game.history[-1]))
    if not game.is_over:
        raise ReviewInputError(
            f"the record ends before the game is over ({len(actions)} actions, round "
            f"{game.round + 1}, {game.pending_decision} of player {game.current_player}): a "
            f"review is of a finished game (a game in progress is evaluated from one seat's "
            f"knowledge, agents.review.evaluate_position)")
    return game, decisions


def review_record(record, model: str | Path | None = None,
                  settings: SearchSettings | None = None, seed: int | None = None,
                  progress: Callable[[str], None] | None = None,
                  allow_pickle: bool = False, evaluator: DecisionEvaluator | None = None,
                  only: list[int] | None = None, played_only: bool = False) -> Review:
    """Review every decision of a finished game record (a dict or JSON text).

    `seed` seeds the redraws (none given: 64 bits from the operating system's secure
    generator, kept in the review so that it can be made again); `progress` is called
    with a line of text as the work goes on. `evaluator` reuses a loaded model. `only`
    (decision indexes) evaluates those decisions alone, with the redraws a whole review
    of the same seed gives them (the calibration data, agents/calibration_data.py).
    `played_only` tries the move played alone: its values are those of a whole review (a
    candidate's copies do not depend on the other candidates), at a fifth of the work;
    its best move is then the move played."""
    import time
    say = progress or (lambda text: None)
    began = time.perf_counter()
    game, replayed = replay_decisions(record)
    settings = settings or SearchSettings()
    evaluator = evaluator or DecisionEvaluator(model_for(game.config.mode, model), settings,
                                               allow_pickle)
    settings = evaluator.settings
    redraw_seed = secrets.randbits(64) if seed is None else int(seed)
    generator = np.random.default_rng(redraw_seed)
    say(f"replayed {len(replayed)} decisions ({game.config.mode}, {game.num_seats} seats); "
        f"evaluating with {evaluator.model_path.name}, {settings.candidates} candidates x "
        f"{settings.samples} redraws")
    observations = np.stack([observation_of(state, seat) for state, seat, *_ in replayed])
    masks = np.zeros((len(replayed), NUM_ACTIONS), dtype=np.bool_)
    for row, (state, *_rest) in enumerate(replayed):
        masks[row] = Game.view(game.config, state).legal_action_mask()
    probabilities = evaluator.policy_probabilities(observations, masks)
    chosen = set(range(len(replayed)) if only is None else only)
    if not chosen <= set(range(len(replayed))):
        raise ArgumentError(f"only: decisions 0..{len(replayed) - 1}, not "
                            f"{shown(sorted(chosen - set(range(len(replayed)))))}")
    positions, played_index, rows = [], [], []
    for row, (state, seat, _kind, _round, action, _text) in enumerate(replayed):
        words = redraw_words(generator)
        if row not in chosen:
            continue
        rows.append(row)
        if played_only or masks[row].sum() == 1:
            candidates = np.array([action], dtype=np.int32)
        else:
            candidates = top_moves(probabilities[row], masks[row], settings.candidates)
            if action not in candidates:
                candidates = np.append(candidates, action)
        candidates = candidates.astype(np.int32)
        played_index.append(int(np.flatnonzero(candidates == action)[0]))
        positions.append(Position(state, seat, candidates, words))

    def evaluated(first: int, stop: int, total: int, done: bool) -> None:
        if done:
            say(f"evaluated {stop}/{total} decisions ({time.perf_counter() - began:.1f} s)")
        else:
            say(f"playing out decisions {first}-{stop - 1} of {total} "
                f"({stop - first} decisions, the earliest take longest)")

    evaluations = evaluator.evaluate(positions, evaluated)
    decisions = []
    for row, evaluation, played in zip(rows, evaluations, played_index):
        state, seat, kind, round_number, action, text = replayed[row]
        view = Game.view(game.config, state)
        legal = np.flatnonzero(masks[row])
        ranking = legal[np.argsort(-probabilities[row][legal], kind="stable")]
        candidates = [{"move": view.action_to_text(int(move)),
                       "policy_probability": float(probabilities[row][move]),
                       "win_probability": float(evaluation.calibrated[index, seat]),
                       "win_probability_raw": float(evaluation.win_probabilities[index, seat]),
                       "margin": float(evaluation.margins[index, seat]),
                       "score": float(evaluation.scores[index])}
                      for index, move in enumerate(evaluation.candidates)]
        decisions.append(Decision(
            index=row, round=round_number, seat=seat, kind=kind, legal_moves=int(legal.size),
            move=text, action=int(action),
            best_move=candidates[evaluation.best]["move"],
            policy_probability=float(probabilities[row][action]),
            policy_rank=int(np.flatnonzero(ranking == action)[0]) + 1,
            policy_top=[{"move": view.action_to_text(int(move)),
                         "probability": float(probabilities[row][move])}
                        for move in ranking[:settings.policy_top]],
            candidates=candidates, played=played, best=evaluation.best,
            seat_win_probabilities=evaluation.calibrated[played].tolist(),
            seat_win_probabilities_raw=evaluation.win_probabilities[played].tolist()))
    return Review(game.config.to_dict(), int(game.seed), str(evaluator.model_path), settings,
                  redraw_seed, decisions, game.final_scores(), game.winners,
                  record_decisions=len(replayed), record_rounds=replayed[-1][3],
                  calibration=evaluator.calibration_description(game.config.mode,
                                                                game.num_seats))
