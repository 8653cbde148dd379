"""Imitation: fit the policy to a stronger player's choices.

Two uses: a warm start that imitates the greedy player (agents.greedy) before
reinforcement learning, and expert iteration, which distils a search agent built on the
policy (e.g. `ppo-rollout:models/baseline.safetensors`) back into it. Demonstrations are
games played by the demonstrator (any agent spec of agents.registry), against Dale
(R9.2) or, given `opponents`, in standard games of 2 to 4 players with the
demonstrator's seat rotating from game to game (R3.1). The games are played by the
tournaments' loop (agents/table.py): the demonstrator is reseeded with the game's seed,
every opponent with its seat's seed (`agent_seed`), every agent that observes is shown
the other seats' moves (a search with the inferred opponent model learns who it faces),
and an opponent that raises or answers an illegal action forfeits and the stand-in plays
its seat on, so the game still counts; a game in which the demonstrator forfeits gives
no demonstrations. A searching demonstrator (`ppo-rollout`, `ppo-search`) plays
LOCKSTEP_GAMES games at a time, each game on its own agents, their policy's forward
passes merged into one a round (agents/lockstep.py): the same demonstrations as one game
after another, in a fraction of the time (docs/performance.md). Each is recorded as the engine state before each of the
demonstrator's decisions, the action it chose and the game's final margin: its
population minus the best other seat's (R8.3; Dale's in his game). States (not
observations) are stored: an observation is 8759 floats, a state 2220 ints, and encoding
one takes microseconds. Pretraining fits the policy's masked action distribution to the
chosen actions (cross-entropy) and its value head to the final margin / 100, the scale
of the "margin" reward: `pretrain` for the stable-baselines3 policy, `fit_network` for
the fast learner's network (agents/networks.py), which reads demonstrations encoded once
(`EncodedDemonstrations`) rather than states encoded again every epoch.
"""

from __future__ import annotations

import multiprocessing
import time

import numpy as np
import torch

from agents.registry import agent_name, make_agent
from agents.table import Table
from suburbia_env import Game
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.errors import ConfigError
from suburbia_env.engine.legal_actions import legal_action_mask
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.engine.tile_data import TILES


LOCKSTEP_GAMES = 16
"""How many games of a part a rollout-search demonstrator plays together
(`_play_demonstrations`): their trials share one forward pass per move
(agents/lockstep.py). A game's demonstrations do not depend on it."""


def _play_demonstrations(arguments: tuple[int, int, str, str, tuple[str, ...]]
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The (states, actions, returns) of the demonstrator's decisions in `games` games
    from `first_seed`, and a line per forfeit (module docstring). A demonstrator that
    searches with a model (`ppo-rollout`, `ppo-search`) plays LOCKSTEP_GAMES games at a
    time, the same games as one at a time (agents/lockstep.py)."""
    first_seed, games, edition, demonstrator, opponents = arguments
    return _play_games(first_seed, games, edition, demonstrator, opponents,
                       LOCKSTEP_GAMES)


def _play_games(first_seed: int, games: int, edition: str, demonstrator: str,
                opponents: tuple[str, ...], lockstep: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """`_play_demonstrations` with `lockstep` games at a time for a searching
    demonstrator (1: one game after another, as every other demonstrator)."""
    from agents.lockstep import LockstepPolicy, play_in_lockstep
    from agents.value_search import ValueSearchAgent
    torch.set_num_threads(1)
    mode = "standard" if opponents else "dale"
    agent = make_agent(demonstrator, seed=first_seed)
    agent.check_mode(mode)
    seeds = range(first_seed, first_seed + games)
    if not isinstance(agent, ValueSearchAgent) or lockstep <= 1:
        others = [make_agent(spec) for spec in opponents]
        results = [_play_game(seed, edition, demonstrator, opponents, agent, others)
                   for seed in seeds]
    else:
        policy = agent.policy_agent.model.policy
        agent.policy_agent.model.policy = LockstepPolicy(policy)
        free: list[tuple] = [(agent, [make_agent(spec) for spec in opponents])]

        def game(seed: int):
            """One game on a set of agents no running game holds (at most `lockstep`
            sets, each reused game after game as above)."""
            if free:
                searcher, others = free.pop()
            else:
                searcher = make_agent(demonstrator, seed=first_seed)
                searcher.policy_agent.model.policy = LockstepPolicy(policy)
                others = [make_agent(spec) for spec in opponents]
            try:
                return _play_game(seed, edition, demonstrator, opponents, searcher, others)
            finally:
                free.append((searcher, others))

        results = play_in_lockstep((lambda seed=seed: game(seed) for seed in seeds),
                                   min(lockstep, games))
    states, actions, returns, forfeits = [], [], [], []
    for game_states, game_actions, margin, game_forfeits in results:
        forfeits.extend(game_forfeits)
        if margin is None:
            continue
        states.extend(game_states)
        actions.extend(game_actions)
        returns.extend([margin] * len(game_states))
    return (np.array(states, dtype=np.int32).reshape(len(states), s.STATE_SIZE),
            np.array(actions, dtype=np.int64), np.array(returns, dtype=np.float64), forfeits)


def _play_game(seed: int, edition: str, demonstrator: str, opponents: tuple[str, ...],
               agent, others: list) -> tuple[list, list, float | None, list[str]]:
    """One game of `_play_demonstrations`: the demonstrator's (states, actions), its final
    margin (None if it forfeited: no demonstrations kept) and a line per forfeit."""
    players = 1 + len(others)
    mode = "standard" if opponents else "dale"
    seat = seed % players if opponents else 0
    table = Table(dict(enumerate(others[:seat] + [agent] + others[seat:])))
    table.reseed(seed, {seat: seed})
    game = Game(players=players, mode=mode, edition=edition, seed=seed)
    game_states, game_actions, forfeits = [], [], []

    def record(mover: int, action: int, by_stand_in: bool) -> None:
        if mover == seat and not by_stand_in:
            game_states.append(game.state.copy())
            game_actions.append(action)

    forfeited = table.play_out(game, on_move=record)
    for index, (_, reason) in sorted(forfeited.items()):
        who = agent_name(demonstrator if index == seat
                         else opponents[index - (index > seat)])
        forfeits.append(f"{who} forfeited the game seeded {seed} in seat {index}: {reason}"
                        + (" (no demonstrations kept)" if index == seat else
                           " (the stand-in played the seat on)"))
    if seat in forfeited:
        return [], [], None, forfeits
    populations = [score["population"] for score in game.final_scores()]
    margin = (populations[seat] - max(populations[:seat] + populations[seat + 1:])) / 100.0
    return game_states, game_actions, margin, forfeits


def collect_demonstrations(games: int, seed: int = 1_000_000, workers: int = 2,
                           edition: str = "2nd", demonstrator: str = "greedy",
                           opponents: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """Games of `demonstrator` against Dale, or against `opponents` (1 to 3 agent specs)
    in standard games, seeds seed..seed+games-1, over worker processes.

    The demonstrator is checked before any worker starts, so a bad spec or a missing
    model file fails at once with the registry's error.
    """
    opponents = tuple(opponents)
    if len(opponents) > 3:
        raise ConfigError(f"a standard game seats at most 3 opponents (R3.1), "
                          f"not {len(opponents)}")
    mode = "standard" if opponents else "dale"
    make_agent(demonstrator).check_mode(mode)
    for spec in opponents:
        make_agent(spec).check_mode(mode)
    chunks = max(1, min(workers, games))
    bounds = np.linspace(0, games, chunks + 1).astype(int)
    jobs = [(seed + int(bounds[i]), int(bounds[i + 1] - bounds[i]), edition, demonstrator,
             opponents) for i in range(chunks) if bounds[i + 1] > bounds[i]]
    started = time.time()
    context = multiprocessing.get_context("spawn")
    with context.Pool(len(jobs)) as pool:
        parts = pool.map(_play_demonstrations, jobs)
    for line in (line for part in parts for line in part[3]):
        print(line, flush=True)
    data = {"states": np.concatenate([p[0] for p in parts]),
            "actions": np.concatenate([p[1] for p in parts]),
            "returns": np.concatenate([p[2] for p in parts])}
    against = " ".join(opponents) if opponents else "Dale"
    print(f"collected {len(data['actions'])} decisions from {games} {demonstrator} games "
          f"against {against} in {time.time() - started:.0f} s", flush=True)
    return data


def save_demonstrations(path, data: dict[str, np.ndarray]) -> None:
    np.savez_compressed(path, **data)


def load_demonstrations(paths: str) -> dict[str, np.ndarray]:
    """Demonstrations from one or more .npz files (comma-separated), concatenated."""
    parts = []
    for path in str(paths).split(","):
        with np.load(path.strip()) as archive:
            missing = {"states", "actions", "returns"} - set(archive.files)
            if missing:
                raise ValueError(f"{path}: not a demonstrations file "
                                 f"(missing {', '.join(sorted(missing))})")
            parts.append({name: archive[name] for name in ("states", "actions", "returns")})
    return {name: np.concatenate([part[name] for part in parts])
            for name in ("states", "actions", "returns")}


def _encode_batch(states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    observations = np.zeros((len(states), OBSERVATION_SIZE), dtype=np.float32)
    masks = np.zeros((len(states), NUM_ACTIONS), dtype=np.bool_)
    actions = np.zeros(NUM_ACTIONS, dtype=np.int32)
    for row, state in enumerate(states):
        seat = int(state[s.CURRENT_PLAYER])
        encode_observation(state, TILES.table, seat, observations[row])
        legal_action_mask(state, TILES.table, TILES.basic_kinds, masks[row], actions)
    return observations, masks


def _fit_start(module, learning_rate: float, seed: int, resume: dict | None):
    """Optimizer, shuffling generator and the epochs' history of a fit: fresh, or as a
    checkpoint left them, so a resumed fit goes on as if it had never stopped."""
    optimiser = torch.optim.Adam(module.parameters(), lr=learning_rate)
    generator = np.random.default_rng(seed)
    losses: list[float] = []
    agreements: list[float] = []
    if resume is not None:
        optimiser.load_state_dict(resume["optimizer"])
        generator.bit_generator.state = resume["generator"]
        losses, agreements = list(resume["losses"]), list(resume["agreements"])
    return optimiser, generator, losses, agreements


def pretrain(model, data: dict[str, np.ndarray], epochs: int = 5, batch_size: int = 256,
             learning_rate: float = 1e-3, seed: int = 0, resume: dict | None = None,
             on_epoch=None, on_batch=None) -> list[float]:
    """Fit the MaskablePPO policy to the demonstrations; returns the mean loss per epoch.

    After each epoch `on_epoch(checkpoint)` receives what continuing needs besides the
    policy's weights: {"epoch", "losses", "agreements", "optimizer" (its state_dict),
    "generator" (the shuffling generator's state)}. Given such a checkpoint as `resume`
    (and the policy holding that epoch's weights), the fit goes on after that epoch
    with the same optimizer and shuffling as if it had never stopped. `on_batch(rows)`
    is told how many rows of the epoch are done.
    """
    policy = model.policy
    policy.set_training_mode(True)
    optimiser, generator, losses, agreements = _fit_start(policy, learning_rate, seed,
                                                          resume)
    count = len(data["actions"])
    for epoch in range(len(losses), epochs):
        order = generator.permutation(count)
        total, batches, correct = 0.0, 0, 0
        for start in range(0, count, batch_size):
            index = order[start:start + batch_size]
            observations, masks = _encode_batch(data["states"][index])
            observation_tensor = torch.as_tensor(observations)
            actions = torch.as_tensor(data["actions"][index], dtype=torch.long)
            returns = torch.as_tensor(data["returns"][index], dtype=torch.float32)
            values, log_probability, _ = policy.evaluate_actions(
                observation_tensor, actions, action_masks=masks)
            loss = -log_probability.mean() + 0.5 * ((values.flatten() - returns) ** 2).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item()
            batches += 1
            with torch.no_grad():
                predicted = policy.get_distribution(observation_tensor, action_masks=masks)
                correct += int((predicted.mode() == actions).sum())
            if on_batch is not None:
                on_batch(min(start + batch_size, count))
        losses.append(total / batches)
        agreements.append(correct / count)
        print(f"pretrain epoch {epoch + 1}/{epochs}: loss {losses[-1]:.3f}, "
              f"agreement with the demonstrator {correct / count:.3f}", flush=True)
        if on_epoch is not None:
            on_epoch({"epoch": epoch + 1, "losses": list(losses),
                      "agreements": list(agreements), "optimizer": optimiser.state_dict(),
                      "generator": generator.bit_generator.state})
    policy.set_training_mode(False)
    return losses


class EncodedDemonstrations:
    """Demonstrations encoded once for a fit of the compact network (agents/networks.py):
    per decision the non-zero entries of its compact observation (feature, value) and its
    legal actions, both as flat arrays with each row's start; plus the chosen action and
    the return. About 180 entries a decision instead of 8759 floats and a 2123-wide mask,
    so an epoch gathers rows instead of encoding states again."""

    def __init__(self, data: dict[str, np.ndarray], chunk: int = 2048, on_rows=None,
                 observation_size: int = OBSERVATION_SIZE):
        from agents.networks import compact_inputs
        self.observation_size = observation_size
        states = data["states"]
        count = len(states)
        features, weights, feature_counts = [], [], []
        legal, legal_counts = [], []
        for start in range(0, count, chunk):
            observations, masks = _encode_batch(states[start:start + chunk])
            compact = compact_inputs(torch.from_numpy(observations), observation_size)
            rows, columns = compact.nonzero(as_tuple=True)
            features.append(columns.numpy())
            weights.append(compact[rows, columns].numpy())
            feature_counts.append(np.bincount(rows.numpy(), minlength=len(compact)))
            mask_rows, mask_actions = np.nonzero(masks)
            legal.append(mask_actions)
            legal_counts.append(np.bincount(mask_rows, minlength=len(masks)))
            if on_rows is not None:
                on_rows(min(start + chunk, count))
        self.features = np.concatenate(features).astype(np.int64)
        self.weights = np.concatenate(weights).astype(np.float32)
        self.feature_starts = _starts(np.concatenate(feature_counts))
        self.legal = np.concatenate(legal).astype(np.int64)
        self.legal_starts = _starts(np.concatenate(legal_counts))
        self.actions = np.asarray(data["actions"], dtype=np.int64)
        self.returns = np.asarray(data["returns"], dtype=np.float32)

    def __len__(self) -> int:
        return len(self.actions)

    def batch(self, index: np.ndarray):
        """(SparseInputs, legal rows, legal actions, chosen actions, returns) of the rows
        `index`, as tensors."""
        from agents.networks import SparseInputs
        positions, feature_counts = _gather(self.feature_starts, index)
        legal_positions, legal_counts = _gather(self.legal_starts, index)
        offsets = np.cumsum(feature_counts) - feature_counts
        inputs = SparseInputs(torch.from_numpy(self.features[positions]),
                              torch.from_numpy(self.weights[positions]),
                              torch.from_numpy(offsets), len(index))
        rows = torch.from_numpy(np.repeat(np.arange(len(index), dtype=np.int64), legal_counts))
        return (inputs, rows, torch.from_numpy(self.legal[legal_positions]),
                torch.from_numpy(self.actions[index]), torch.from_numpy(self.returns[index]))


def _starts(counts: np.ndarray) -> np.ndarray:
    starts = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    return starts


def _gather(starts: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The flat positions of rows `index` (in that order) and each row's length."""
    begins, lengths = starts[index], starts[index + 1] - starts[index]
    first = np.cumsum(lengths) - lengths
    positions = np.arange(lengths.sum(), dtype=np.int64) - np.repeat(first - begins, lengths)
    return positions, lengths


def fit_network(network, encoded: EncodedDemonstrations, epochs: int = 5,
                batch_size: int = 1024, learning_rate: float = 1e-3, seed: int = 0,
                resume: dict | None = None, on_epoch=None, on_batch=None) -> list[float]:
    """Fit a SparseActorCritic (agents/networks.py) to encoded demonstrations: the masked
    action distribution to the chosen actions (cross-entropy over the legal actions
    only, R5) and the value head to the final margin / 100. Checkpoints, `resume`,
    `on_epoch` and `on_batch` as `pretrain`; returns the mean loss per epoch."""
    if encoded.observation_size != network.observation_size:
        raise ValueError(f"demonstrations encoded for {encoded.observation_size} observation "
                         f"entries, the network reads {network.observation_size}")
    network.train(True)
    optimiser, generator, losses, agreements = _fit_start(network, learning_rate, seed,
                                                          resume)
    count = len(encoded)
    for epoch in range(len(losses), epochs):
        order = generator.permutation(count)
        total, batches, correct = 0.0, 0, 0
        for start in range(0, count, batch_size):
            inputs, rows, legal, chosen, returns = encoded.batch(order[start:start + batch_size])
            latent_policy, latent_value = network.latents(inputs)
            distribution = network.legal_pairs_distribution(latent_policy, rows, legal)
            values = network.values(latent_value)
            loss = -distribution.log_prob(chosen).mean() + 0.5 * ((values - returns) ** 2).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item()
            batches += 1
            correct += int((distribution.mode() == chosen).sum())
            if on_batch is not None:
                on_batch(min(start + batch_size, count))
        losses.append(total / batches)
        agreements.append(correct / count)
        if on_epoch is not None:
            on_epoch({"epoch": epoch + 1, "losses": list(losses),
                      "agreements": list(agreements), "optimizer": optimiser.state_dict(),
                      "generator": generator.bit_generator.state})
    network.train(False)
    return losses


def main(argv: list[str] | None = None) -> None:
    """`python -m training.imitation`: collect demonstrations into a .npz file."""
    from suburbia_env.arguments import ArgumentParser
    parser = ArgumentParser(
        prog="python -m training.imitation",
        description="Record an agent's games against Dale, or against other agents in "
                    "standard games, as demonstrations for "
                    "`suburbia train --demonstrations FILE`.")
    parser.add_argument("output", help="the .npz file to write")
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1_000_000, help="seed of the first game")
    parser.add_argument("--demonstrator", default="greedy", help="agent spec (agents.registry)")
    parser.add_argument("--opponents", nargs="+", default=[], metavar="SPEC",
                        help="1 to 3 agent specs: standard games against them, the "
                             "demonstrator's seat rotating (default: against Dale)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--edition", default="2nd")
    arguments = parser.parse_args(argv)
    if arguments.games < 1:
        parser.error("--games must be at least 1")
    data = collect_demonstrations(arguments.games, arguments.seed, arguments.workers,
                                  arguments.edition, arguments.demonstrator,
                                  tuple(arguments.opponents))
    save_demonstrations(arguments.output, data)


if __name__ == "__main__":
    main()
