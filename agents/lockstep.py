"""Many games played together, their model's forward passes merged: one pass a round.

A rollout search (agents/value_search.py) batches the trials of one decision, a few dozen
rows, into each forward pass of its policy; at that size torch's cost per call outweighs
the arithmetic. Here many games run at once, each in its own greenlet (a coroutine that
can pause inside any call), and the agents that share one model are given a
`LockstepPolicy` in its place. Asked for the policy's distribution or values, it pauses
its game; once every game is paused (or done), the conductor (`play_in_lockstep`) puts
all their rows through the real policy in one pass and resumes each game with its own
rows of the result. Nothing else changes: every game keeps its own agents, seeded
generators and order of calls, so a game plays exactly as it does alone, whatever games
share its rounds, as long as the network's output for a row does not depend on the other
rows of its batch (true of the project's networks on this machine; tests/agents/
test_lockstep.py checks it, and games recorded 1 and 16 at a time are compared byte for
byte in tests/training/test_search_recording.py).

The search's rules stay in value_search.py alone: this module decides nothing in a game.
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np
import torch
from greenlet import getcurrent, greenlet

from suburbia_env.engine.action_space import NUM_ACTIONS

DISTRIBUTION, VALUES = "distribution", "values"


class _Game(greenlet):
    """A greenlet of `play_in_lockstep`: a lockstep policy called inside one pauses."""


class _Probabilities:
    """What the agents read of a policy's masked distribution: `.distribution.probs` and
    `mode()`, the most probable action (the first of equal ones, as torch.argmax), as
    stable-baselines3's masked categorical and agents/networks.py give them."""

    def __init__(self, probabilities: torch.Tensor):
        self.distribution = self
        self.probs = probabilities

    def mode(self) -> torch.Tensor:
        return torch.argmax(self.probs, dim=1)


class LockstepPolicy:
    """Stands for `policy` inside the games of `play_in_lockstep` (module docstring): its
    distributions and values are computed in the conductor's merged pass; everything else
    is the policy's own. Outside such a game it computes them at once."""

    def __init__(self, policy):
        self.policy = policy

    def __getattr__(self, name: str):
        if name == "policy":
            raise AttributeError(name)
        return getattr(self.policy, name)

    def get_distribution(self, observations, action_masks) -> _Probabilities:
        masks = np.asarray(action_masks, dtype=np.bool_).reshape(-1, NUM_ACTIONS)
        return _Probabilities(_ask(self.policy, DISTRIBUTION, observations, masks))

    def predict_values(self, observations) -> torch.Tensor:
        return _ask(self.policy, VALUES, observations, None)


def _ask(policy, kind: str, observations, masks):
    current = getcurrent()
    if not isinstance(current, _Game):
        return _compute(policy, kind, [observations], [masks])[0]
    answer = current.parent.switch((policy, kind, observations, masks))
    if isinstance(answer, BaseException):
        raise answer
    return answer


def _rows(observations) -> int:
    if isinstance(observations, dict):
        return int(next(iter(observations.values())).shape[0])
    return int(observations.shape[0])


def _concatenate(parts: list):
    if isinstance(parts[0], dict):
        return {key: torch.cat([part[key] for part in parts]) for key in parts[0]}
    return torch.cat(parts) if len(parts) > 1 else parts[0]


def _compute(policy, kind: str, observations: list, masks: list) -> list[torch.Tensor]:
    """The policy's probabilities (or values) for every part, in one forward pass."""
    with torch.no_grad():
        merged = _concatenate(observations)
        if kind == DISTRIBUTION:
            result = policy.get_distribution(merged, action_masks=np.concatenate(masks)
                                             if len(masks) > 1 else masks[0])
            result = result.distribution.probs
        else:
            result = policy.predict_values(merged)
    parts, start = [], 0
    for part in observations:
        stop = start + _rows(part)
        parts.append(result[start:stop])
        start = stop
    return parts


def _answers(requests: list[tuple]) -> list:
    """Each request's part of one merged pass per (policy, kind); where a merged pass
    raises, each request of it is computed alone, and one that raises gets its error."""
    answers: list = [None] * len(requests)
    groups: dict[tuple[int, str], list[int]] = {}
    for index, (policy, kind, _, _) in enumerate(requests):
        groups.setdefault((id(policy), kind), []).append(index)
    for indices in groups.values():
        policy, kind = requests[indices[0]][:2]
        try:
            results = _compute(policy, kind, [requests[i][2] for i in indices],
                               [requests[i][3] for i in indices])
        except Exception:
            results = []
            for i in indices:
                try:
                    results.append(_compute(policy, kind, [requests[i][2]],
                                            [requests[i][3]])[0])
                except Exception as error:
                    results.append(error)
        for i, result in zip(indices, results):
            answers[i] = result
    return answers


def play_in_lockstep(tasks: Iterable[Callable[[], object]], width: int) -> list:
    """Run the tasks, at most `width` at a time, their lockstep policies' passes merged
    (module docstring); returns their results in the tasks' order. A task that raises
    stops them all with its error."""
    if width < 1:
        raise ValueError(f"width must be at least 1, not {width}")
    queue = iter(enumerate(tasks))
    results: dict[int, object] = {}

    def slot() -> None:
        for index, task in queue:
            results[index] = task()

    waiting: dict[_Game, tuple] = {}
    outer = torch.is_grad_enabled()
    grad_modes: dict[_Game, bool] = {}

    def advance(game: _Game, *answer) -> None:
        # torch's grad mode is per thread, not per greenlet: a game paused inside its
        # `no_grad` block must not leave it off for the others, nor for the caller.
        torch.set_grad_enabled(grad_modes.get(game, outer))
        try:
            request = game.switch(*answer)
        finally:
            grad_modes[game] = torch.is_grad_enabled()
            torch.set_grad_enabled(outer)
        if not game.dead:
            waiting[game] = request

    for game in [_Game(slot) for _ in range(width)]:
        advance(game)
    while waiting:
        paused = list(waiting.items())
        waiting.clear()
        for (game, _), answer in zip(paused, _answers([request for _, request in paused])):
            advance(game, answer)
    return [results[index] for index in sorted(results)]
