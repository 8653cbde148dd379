"""The policy network of the fast learner (training/fast_ppo.py), in plain torch, with
the few methods of a stable-baselines3 policy that the agents call.

Same function as the stable-baselines3 compact policy (agents/features.py with
net_arch [128]): the compact view (own borough in full, the other boroughs as per-plane
totals / 10, the rest as it is) -> dense 256, ReLU -> separate policy and value layers
(Tanh) -> action scores and value. What differs is how it is computed:

- The first layer reads only the non-zero entries of the compact view (about 120 of
  2798, mostly 0/1 planes): a weighted sum of the rows of its weight table that they
  name (an embedding bag), not a dense product.
- Action scores are computed for the legal actions only (about 60 of 2123 on
  average): one dot product per legal (row, action) pair; a softmax per row over those
  pairs is the masked categorical (illegal actions have probability 0, R5).

Both sparse layers are compiled loops (numba) inside torch autograd functions: on 2
cores they beat torch's dense products and its EmbeddingBag / gather backward several
times over (benchmarks/training_throughput.py --breakdown). Their sums run in a fixed
order, so results do not depend on threads.

Only public information enters (the observation, R10).

A network reads the first `observation_size` entries of the observation: the size it was
trained on. The encoder appends new parts at the end (observation.py), so a model of an
older, shorter observation (8714, before "goal_races") reads exactly what it read then,
and a new one reads everything.
"""

from __future__ import annotations

import numpy as np
import torch
from numba import njit
from torch import nn

from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.engine.constants import MAX_PLAYERS
from suburbia_env.engine.observation import (BOROUGH_SIZE, BOROUGHS_START, CELL_FEATURES,
                                             OBSERVATION_SIZE, OBSERVATION_SIZES,
                                             PLAYERS_START)

OTHER_BOROUGHS_SIZE = (MAX_PLAYERS - 1) * CELL_FEATURES
ACTIVATIONS = {"Tanh": nn.Tanh, "ReLU": nn.ReLU}
NETWORK_CLASS = "SparseActorCritic"


def compact_size(observation_size: int = OBSERVATION_SIZE) -> int:
    """Width of the compact view of the first `observation_size` observation entries."""
    return BOROUGH_SIZE + OTHER_BOROUGHS_SIZE + (observation_size - PLAYERS_START)


COMPACT_SIZE = compact_size()


def check_observation_size(observation_size: int) -> int:
    """`observation_size` if it is one the observation has had (OBSERVATION_SIZES: each a
    prefix of today's); ValueError otherwise."""
    if observation_size not in OBSERVATION_SIZES:
        raise ValueError(f"a network reads {' or '.join(map(str, OBSERVATION_SIZES))} "
                         f"observation entries, not {observation_size}")
    return int(observation_size)


def compact_inputs(observations: torch.Tensor,
                   observation_size: int = OBSERVATION_SIZE) -> torch.Tensor:
    """(batch, n >= observation_size) observations -> (batch, compact_size(observation_size)):
    the own borough in full, the other boroughs as per-plane totals / 10 (their goals count
    totals, R8.2), the rest of the first `observation_size` entries as it is."""
    if observations.shape[1] < observation_size:
        raise ValueError(f"observations of {observations.shape[1]} entries, the network reads "
                         f"{observation_size}")
    own = observations[:, BOROUGHS_START:BOROUGHS_START + BOROUGH_SIZE]
    others = observations[:, BOROUGHS_START + BOROUGH_SIZE:PLAYERS_START]
    others = others.reshape(-1, MAX_PLAYERS - 1, CELL_FEATURES, BOROUGH_SIZE // CELL_FEATURES)
    rest = observations[:, PLAYERS_START:observation_size]
    return torch.cat([own, others.sum(dim=3).flatten(1) / 10.0, rest], dim=1)


@njit(fastmath=True, cache=True, nogil=True)
def _bag_forward(table, features, weights, offsets, out):
    """out[row] = sum of weights[j] * table[features[j]] over the row's entries."""
    entries = features.shape[0]
    rows = offsets.shape[0]
    for row in range(rows):
        end = offsets[row + 1] if row + 1 < rows else entries
        for entry in range(offsets[row], end):
            feature, weight = features[entry], weights[entry]
            for unit in range(table.shape[1]):
                out[row, unit] += weight * table[feature, unit]


@njit(fastmath=True, cache=True, nogil=True)
def _bag_backward(grad_out, features, weights, offsets, grad_table):
    entries = features.shape[0]
    rows = offsets.shape[0]
    for row in range(rows):
        end = offsets[row + 1] if row + 1 < rows else entries
        for entry in range(offsets[row], end):
            feature, weight = features[entry], weights[entry]
            for unit in range(grad_table.shape[1]):
                grad_table[feature, unit] += weight * grad_out[row, unit]


@njit(fastmath=True, cache=True, nogil=True)
def _pair_scores(latent, weight, bias, rows, actions, out):
    """out[p] = latent[rows[p]] . weight[actions[p]] + bias[actions[p]]."""
    for pair in range(rows.shape[0]):
        row, action = rows[pair], actions[pair]
        total = np.float32(0.0)
        for unit in range(latent.shape[1]):
            total += latent[row, unit] * weight[action, unit]
        out[pair] = total + bias[action]


@njit(fastmath=True, cache=True, nogil=True)
def _pair_scores_backward(grad, latent, weight, rows, actions, grad_latent, grad_weight,
                          grad_bias):
    for pair in range(rows.shape[0]):
        row, action, value = rows[pair], actions[pair], grad[pair]
        grad_bias[action] += value
        for unit in range(latent.shape[1]):
            grad_latent[row, unit] += value * weight[action, unit]
            grad_weight[action, unit] += value * latent[row, unit]


def _array(tensor: torch.Tensor) -> np.ndarray:
    return tensor.detach().contiguous().numpy()


class _WeightedBag(torch.autograd.Function):
    """Sum of weighted table rows per row of entries (the first layer); gradient for the
    table only (the inputs are observations)."""

    @staticmethod
    def forward(ctx, table, features, weights, offsets):
        out = np.zeros((offsets.shape[0], table.shape[1]), dtype=np.float32)
        _bag_forward(_array(table), features.numpy(), weights.numpy(), offsets.numpy(), out)
        ctx.save_for_backward(features, weights, offsets)
        ctx.table_shape = table.shape
        return torch.from_numpy(out)

    @staticmethod
    def backward(ctx, grad_out):
        features, weights, offsets = ctx.saved_tensors
        grad_table = np.zeros(ctx.table_shape, dtype=np.float32)
        _bag_backward(_array(grad_out), features.numpy(), weights.numpy(), offsets.numpy(),
                      grad_table)
        return torch.from_numpy(grad_table), None, None, None


class _PairScores(torch.autograd.Function):
    """Action scores of the given (row, action) pairs only."""

    @staticmethod
    def forward(ctx, latent, weight, bias, rows, actions):
        out = np.empty(rows.shape[0], dtype=np.float32)
        _pair_scores(_array(latent), _array(weight), _array(bias), rows.numpy(),
                     actions.numpy(), out)
        ctx.save_for_backward(latent, weight, rows, actions)
        return torch.from_numpy(out)

    @staticmethod
    def backward(ctx, grad):
        latent, weight, rows, actions = ctx.saved_tensors
        grad_latent = np.zeros(latent.shape, dtype=np.float32)
        grad_weight = np.zeros(weight.shape, dtype=np.float32)
        grad_bias = np.zeros(weight.shape[0], dtype=np.float32)
        _pair_scores_backward(_array(grad), _array(latent), _array(weight), rows.numpy(),
                              actions.numpy(), grad_latent, grad_weight, grad_bias)
        return (torch.from_numpy(grad_latent), torch.from_numpy(grad_weight),
                torch.from_numpy(grad_bias), None, None)


class SparseInputs:
    """A batch of observations as EmbeddingBag input: compact feature per non-zero entry
    (`features`), its value times its factor (`weights`), and where each row starts
    (`offsets`)."""

    __slots__ = ("features", "weights", "offsets", "rows")

    def __init__(self, features: torch.Tensor, weights: torch.Tensor, offsets: torch.Tensor,
                 rows: int):
        self.features, self.weights, self.offsets, self.rows = features, weights, offsets, rows

    @classmethod
    def from_observations(cls, observations: torch.Tensor,
                          observation_size: int = OBSERVATION_SIZE) -> "SparseInputs":
        """(batch, n) float observations -> the non-zero entries of the compact view of
        their first `observation_size` entries (the network's `observation_size`)."""
        compact = compact_inputs(observations, observation_size)
        rows, features = compact.nonzero(as_tuple=True)
        counts = torch.bincount(rows, minlength=compact.shape[0])
        return cls(features, compact[rows, features], torch.cumsum(counts, 0) - counts,
                   compact.shape[0])

    def counts(self) -> torch.Tensor:
        ends = torch.cat([self.offsets[1:], torch.tensor([self.features.numel()])])
        return ends - self.offsets


class SparseActorCritic(nn.Module):
    """Compact first layer over non-zero entries, policy and value layers, legal-action
    scores (module docstring). `features_dim` and `net_arch` as the SB3 compact policy;
    `observation_size`: how many observation entries it reads (module docstring);
    `goal_prior_weight`: the weight of the goal prior's term its policy adds to these scores
    (agents/goal_prior.py; 0: none) and `goal_prior_denial` the term's denial of the others'
    public goals and `goal_chances` the term's refit chances (agents/one_ply.py
    `chance_with`; None: its own), kept in its description: a network trained with the
    term plays with it."""

    def __init__(self, features_dim: int = 256, net_arch: tuple[int, ...] = (128,),
                 activation_fn: str = "Tanh", observation_size: int = OBSERVATION_SIZE,
                 goal_prior_weight: float = 0.0, goal_prior_denial: float = 0.0,
                 goal_chances=None):
        super().__init__()
        from .one_ply import checked_goal_chances
        self.goal_prior_weight = float(goal_prior_weight)
        self.goal_prior_denial = float(goal_prior_denial)
        self.goal_chances = checked_goal_chances(goal_chances)
        if activation_fn not in ACTIVATIONS:
            raise ValueError(f"activation_fn must be one of {', '.join(ACTIVATIONS)}")
        self.observation_size = check_observation_size(observation_size)
        self.compact_size = compact_size(self.observation_size)
        self.features_dim = int(features_dim)
        self.net_arch = [int(units) for units in net_arch]
        self.activation_name = activation_fn
        self.encoder = nn.Module()
        self.encoder.weight = nn.Parameter(torch.zeros(self.compact_size, self.features_dim))
        self.encoder_bias = nn.Parameter(torch.zeros(self.features_dim))
        self.policy_net = self._layers(ACTIVATIONS[activation_fn])
        self.value_net = self._layers(ACTIVATIONS[activation_fn])
        last = self.net_arch[-1] if self.net_arch else self.features_dim
        self.action_net = nn.Linear(last, NUM_ACTIONS)
        self.value_head = nn.Linear(last, 1)

    def _layers(self, activation) -> nn.Sequential:
        layers, width = [], self.features_dim
        for units in self.net_arch:
            layers += [nn.Linear(width, units), activation()]
            width = units
        return nn.Sequential(*layers)

    def initialize(self, generator: torch.Generator) -> None:
        """Orthogonal weights as stable-baselines3 initialises its policies (gain sqrt 2
        for hidden layers, 0.01 for the action scores, 1 for the value), zero biases."""
        def orthogonal(weight: torch.Tensor, gain: float) -> None:
            rows, columns = weight.shape
            flat = torch.randn(max(rows, columns), min(rows, columns), generator=generator)
            q, r = torch.linalg.qr(flat)
            q = q * torch.sign(torch.diagonal(r))
            weight.copy_(gain * (q if rows >= columns else q.T)[:rows, :columns])

        with torch.no_grad():
            # the encoder's table is the transposed weight of the dense layer it replaces
            dense = torch.empty(self.features_dim, self.compact_size)
            orthogonal(dense, 2 ** 0.5)
            self.encoder.weight.copy_(dense.T)
            self.encoder_bias.zero_()
            for module in [*self.policy_net, *self.value_net]:
                if isinstance(module, nn.Linear):
                    orthogonal(module.weight, 2 ** 0.5)
                    module.bias.zero_()
            orthogonal(self.action_net.weight, 0.01)
            self.action_net.bias.zero_()
            orthogonal(self.value_head.weight, 1.0)
            self.value_head.bias.zero_()

    @classmethod
    def from_sb3_compact(cls, policy) -> "SparseActorCritic":
        """This network with the sizes and weights of a stable-baselines3 compact policy
        (`load_sb3_compact`), reading as many observation entries as its extractor."""
        extractor = getattr(policy, "features_extractor", None)
        if type(extractor).__name__ != "SuburbiaFeatures" or not isinstance(policy.net_arch,
                                                                            list):
            raise ValueError("not a stable-baselines3 compact policy (SuburbiaFeatures, one "
                             "net_arch for both heads)")
        network = cls(extractor.features_dim, tuple(policy.net_arch),
                      getattr(policy.activation_fn, "__name__", ""), extractor.observation_size)
        network.load_sb3_compact(policy)
        return network

    def load_sb3_compact(self, policy) -> None:
        """The weights of a stable-baselines3 compact policy (agents/features.py's
        extractor, shared by actor and critic, one activation throughout): the same
        function, so it plays and values exactly as that policy (up to float rounding)."""
        extractor = getattr(policy, "features_extractor", None)
        if (type(extractor).__name__ != "SuburbiaFeatures"
                or not policy.share_features_extractor
                or extractor.features_dim != self.features_dim
                or getattr(policy.activation_fn, "__name__", "") != self.activation_name
                or list(policy.net_arch if isinstance(policy.net_arch, list) else ())
                != self.net_arch):
            raise ValueError(f"not a stable-baselines3 compact policy with features_dim "
                             f"{self.features_dim}, net_arch {self.net_arch} and "
                             f"{self.activation_name}")
        weights = policy.state_dict()
        mapped = {"encoder.weight": weights["features_extractor.dense.0.weight"].T,
                  "encoder_bias": weights["features_extractor.dense.0.bias"],
                  "action_net.weight": weights["action_net.weight"],
                  "action_net.bias": weights["action_net.bias"],
                  "value_head.weight": weights["value_net.weight"],
                  "value_head.bias": weights["value_net.bias"]}
        for name in self.state_dict():
            for part in ("policy_net", "value_net"):
                if name.startswith(part + "."):
                    mapped[name] = weights[f"mlp_extractor.{name}"]
        self.load_state_dict({name: tensor.contiguous() for name, tensor in mapped.items()})

    def sb3_compact_state_dict(self) -> dict[str, torch.Tensor]:
        """These weights under a stable-baselines3 compact policy's names (the inverse of
        `load_sb3_compact`; the shared extractor under its three names), so the sb3
        learner can go on from a model of the fast learner (e.g. a recipe's fit stage
        after a fast ppo stage)."""
        weights = self.state_dict()
        mapped = {"action_net.weight": weights["action_net.weight"],
                  "action_net.bias": weights["action_net.bias"],
                  "value_net.weight": weights["value_head.weight"],
                  "value_net.bias": weights["value_head.bias"]}
        for extractor in ("features_extractor", "pi_features_extractor",
                          "vf_features_extractor"):
            mapped[f"{extractor}.dense.0.weight"] = weights["encoder.weight"].T.contiguous()
            mapped[f"{extractor}.dense.0.bias"] = weights["encoder_bias"]
        for name, tensor in weights.items():
            if name.startswith(("policy_net.", "value_net.")):
                mapped[f"mlp_extractor.{name}"] = tensor
        return {name: tensor.clone() for name, tensor in mapped.items()}

    def widened(self, observation_size: int = OBSERVATION_SIZE, features_dim: int | None = None,
                net_arch: tuple[int, ...] | None = None,
                generator: torch.Generator | None = None) -> "SparseActorCritic":
        """A copy reading `observation_size` entries (at least its own), with at least as
        many units in each layer (`features_dim`, `net_arch`: the same depth, each width at
        least its own), computing exactly this network's outputs: the new inputs' weights
        are zero, and so is every weight from a new unit into an old unit or a head, while
        the new units' own weights are drawn as `initialize` draws them (from `generator`).
        A warm start from an older or smaller model begins where it stood and trains the
        new units from there."""
        features_dim = self.features_dim if features_dim is None else int(features_dim)
        net_arch = tuple(self.net_arch) if net_arch is None else tuple(int(u) for u in net_arch)
        if (len(net_arch) != len(self.net_arch) or features_dim < self.features_dim
                or any(new < old for new, old in zip(net_arch, self.net_arch))):
            raise ValueError(f"cannot narrow a network of features_dim {self.features_dim} "
                             f"and net_arch {self.net_arch} to {features_dim} and "
                             f"{list(net_arch)}")
        wider = SparseActorCritic(features_dim, net_arch, self.activation_name,
                                  observation_size, self.goal_prior_weight,
                                  self.goal_prior_denial, self.goal_chances)
        if wider.compact_size < self.compact_size:
            raise ValueError(f"cannot narrow a network of {self.observation_size} observation "
                             f"entries to {observation_size}")
        grows = features_dim > self.features_dim or net_arch != tuple(self.net_arch)
        if grows:
            if generator is None:
                raise ValueError("adding units needs a generator for their weights")
            wider.initialize(generator)
        weights = {name: tensor.detach().clone() for name, tensor in wider.state_dict().items()}
        for name, old in self.state_dict().items():
            new = weights[name]
            if name == "encoder.weight":
                new[self.compact_size:] = 0.0
                new[:self.compact_size, :old.shape[1]] = old
            elif old.dim() == 2:  # a layer (out x in): new inputs into old units are cut
                new[:old.shape[0], :old.shape[1]] = old
                new[:old.shape[0], old.shape[1]:] = 0.0
            else:
                new[:old.shape[0]] = old
        wider.load_state_dict(weights)
        return wider

    def inputs(self, observations: torch.Tensor) -> SparseInputs:
        """The first layer's input from a batch of observations (the entries it reads)."""
        return SparseInputs.from_observations(observations, self.observation_size)

    def description(self) -> dict:
        """The `policy` part of a model description (agents/model_format.py)."""
        description = {"class": NETWORK_CLASS, "features_dim": self.features_dim,
                       "net_arch": list(self.net_arch), "activation_fn": self.activation_name}
        if self.goal_prior_weight:
            description["goal_prior_weight"] = self.goal_prior_weight
        if self.goal_prior_denial:
            description["goal_prior_denial"] = self.goal_prior_denial
        if len(self.goal_chances):
            description["goal_chances"] = self.goal_chances.tolist()
        return description

    # Forward --------------------------------------------------------------------------------

    def latents(self, inputs: SparseInputs) -> tuple[torch.Tensor, torch.Tensor]:
        if inputs.features.numel() and int(inputs.features.max()) >= self.compact_size:
            # the compiled bag does not check its indices: inputs of a wider observation
            raise ValueError(f"inputs name compact entries up to "
                             f"{int(inputs.features.max())}, the network reads "
                             f"{self.compact_size} (observation size {self.observation_size})")
        features = _WeightedBag.apply(self.encoder.weight, inputs.features, inputs.weights,
                                      inputs.offsets)
        features = torch.relu(features + self.encoder_bias)
        return self.policy_net(features), self.value_net(features)

    def values(self, latent_value: torch.Tensor) -> torch.Tensor:
        return self.value_head(latent_value).squeeze(-1)

    def legal_scores(self, latent_policy: torch.Tensor, rows: torch.Tensor,
                     actions: torch.Tensor) -> torch.Tensor:
        """Score of each (row, action) pair given: only these are computed."""
        return _PairScores.apply(latent_policy, self.action_net.weight, self.action_net.bias,
                                 rows, actions)

    def legal_distribution(self, latent_policy: torch.Tensor, masks: torch.Tensor
                           ) -> "LegalDistribution":
        rows, actions = masks.nonzero(as_tuple=True)
        if not bool((torch.bincount(rows, minlength=masks.shape[0]) > 0).all()):
            raise ValueError("every row needs at least one legal action")
        return self.legal_pairs_distribution(latent_policy, rows, actions)

    def legal_pairs_distribution(self, latent_policy: torch.Tensor, rows: torch.Tensor,
                                 actions: torch.Tensor, prior: torch.Tensor | None = None
                                 ) -> "LegalDistribution":
        """The masked categorical from the legal (row, action) pairs, rows ascending;
        `prior`, one number per pair, is added to the network's scores (the goal prior's
        term when training with one, training/fast_ppo.py)."""
        scores = self.legal_scores(latent_policy, rows, actions)
        if prior is not None:
            scores = scores + prior
        return LegalDistribution(scores, rows, actions, latent_policy.shape[0])

    def dense_scores(self, observations: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """(batch, NUM_ACTIONS) scores, -inf where illegal: what the agents read."""
        latent_policy, _ = self.latents(self.inputs(observations))
        distribution = self.legal_distribution(latent_policy, masks)
        scores = torch.full(masks.shape, -torch.inf)
        scores[distribution.rows, distribution.actions] = distribution.scores
        return scores


class LegalDistribution:
    """The masked categorical over the legal (row, action) pairs of a batch."""

    def __init__(self, scores: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor,
                 batch: int):
        self.scores, self.rows, self.actions, self.batch = scores, rows, actions, batch
        row_max = torch.full((batch,), -torch.inf).scatter_reduce(
            0, rows, scores.detach(), "amax", include_self=True)
        shifted = scores - row_max.index_select(0, rows)
        totals = torch.zeros(batch).index_add(0, rows, shifted.exp())
        self.log_probabilities = shifted - totals.log().index_select(0, rows)

    def entropy(self) -> torch.Tensor:
        terms = self.log_probabilities.exp() * self.log_probabilities
        return -torch.zeros(self.batch).index_add(0, self.rows, terms)

    def log_prob(self, chosen: torch.Tensor) -> torch.Tensor:
        """Log-probability of one legal action per row (chosen[row])."""
        hit = self.actions == chosen.index_select(0, self.rows)
        return torch.zeros(self.batch).index_add(
            0, self.rows, torch.where(hit, self.log_probabilities, 0.0))

    def sample(self, generator: torch.Generator) -> torch.Tensor:
        """One action per row, by the Gumbel-max trick over the legal pairs."""
        uniform = torch.rand(self.scores.shape, generator=generator).clamp_(min=1e-20)
        return self._argmax(self.log_probabilities.detach() - torch.log(-torch.log(uniform)))

    def mode(self) -> torch.Tensor:
        return self._argmax(self.log_probabilities.detach())

    def _argmax(self, values: torch.Tensor) -> torch.Tensor:
        """Per row, the action of the largest value (the lowest action on a tie)."""
        best = torch.full((self.batch,), -torch.inf).scatter_reduce(
            0, self.rows, values, "amax", include_self=True)
        winners = values == best.index_select(0, self.rows)
        chosen = torch.full((self.batch,), NUM_ACTIONS, dtype=torch.int64)
        return chosen.scatter_reduce(0, self.rows[winners], self.actions[winners], "amin",
                                     include_self=True)


class _DenseDistribution:
    """What SB3's masked distribution offers the agents: `.distribution.probs`, `mode()`."""

    def __init__(self, scores: torch.Tensor):
        self.distribution = torch.distributions.Categorical(logits=scores)

    def mode(self) -> torch.Tensor:
        return torch.argmax(self.distribution.probs, dim=1)


class SparsePolicy(nn.Module):
    """A SparseActorCritic with the methods of a stable-baselines3 policy that the agents,
    the evaluation and the self-play pool call (obs_to_tensor, get_distribution,
    predict_values, predict, set_training_mode); stochastic `predict` samples with the
    policy's own numpy generator (`reseed`), never a global one."""

    def __init__(self, network: SparseActorCritic, observation_space=None, action_space=None,
                 seed: int | None = None):
        super().__init__()
        from suburbia_env.envs.env_options import action_space as make_action_space
        from suburbia_env.envs.env_options import observation_spaces
        self.network = network
        self.observation_space = observation_space or observation_spaces("flat")
        self.action_space = action_space or make_action_space()
        self.generator = np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        self.generator = np.random.default_rng(seed)

    def set_training_mode(self, mode: bool) -> None:
        self.train(mode)

    def obs_to_tensor(self, observation) -> tuple[torch.Tensor, bool]:
        array = np.asarray(observation, dtype=np.float32)
        vectorized = array.ndim == 2
        return torch.as_tensor(array.reshape(-1, OBSERVATION_SIZE)), vectorized

    def get_distribution(self, observations: torch.Tensor, action_masks) -> _DenseDistribution:
        masks = torch.as_tensor(np.asarray(action_masks, dtype=np.bool_)
                                .reshape(-1, NUM_ACTIONS))
        return _DenseDistribution(self.network.dense_scores(observations, masks))

    def predict_values(self, observations: torch.Tensor) -> torch.Tensor:
        _, latent_value = self.network.latents(self.network.inputs(observations))
        return self.network.values(latent_value).unsqueeze(-1)

    def predict(self, observation, state=None, episode_start=None, deterministic: bool = False,
                action_masks=None):
        """Actions for a batch (or one) of observations with their masks, as SB3's."""
        tensor, vectorized = self.obs_to_tensor(observation)
        with torch.inference_mode():
            probabilities = self.get_distribution(tensor, action_masks).distribution.probs
        probabilities = probabilities.numpy().astype(np.float64)
        if deterministic:
            actions = probabilities.argmax(axis=1)
        else:
            cumulative = probabilities.cumsum(axis=1)
            draws = self.generator.random(len(probabilities)) * cumulative[:, -1]
            actions = (cumulative < draws[:, None]).sum(axis=1)
            legal = np.asarray(action_masks, dtype=np.bool_).reshape(-1, NUM_ACTIONS)
            for row in np.flatnonzero(~legal[np.arange(len(actions)),
                                             np.minimum(actions, NUM_ACTIONS - 1)]):
                actions[row] = np.flatnonzero(probabilities[row] > 0)[-1]  # rounding at the top
        return (actions if vectorized else actions[0]), state
