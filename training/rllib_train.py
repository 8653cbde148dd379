"""Train PPO with RLlib on Ray: `suburbia train --backend rllib` (options: --help).

Two modes, both with the action-masking module of agents/rllib_module.py and RLlib's
current API stack (RLModule, Learner, EnvRunner):

- ``dale``: one learner against Dale's procedure (R9.2), the Gymnasium environment
  (gym_env.py) in mode "dale";
- ``self_play``: every seat of a 2-4 player table (R3.1) played by one shared policy,
  the PettingZoo environment (pettingzoo.py) through RLlib's PettingZoo wrapper.

Ray runs on this machine by default (a local instance, stopped at the end) or on an
existing cluster given `--address` (docs/distributed.md). Sampling is spread over
`--num-env-runners` env runners (Ray actors, anywhere in the cluster; custom resources
given by `--env-runner-resources` pin them to nodes that have them) and updates over
`--num-learners` learners (0: in this process).

Writes to `output_dir`: checkpoint/ (RLlib's checkpoint, to resume with RLlib, plus the
policy in a safe format that the agent spec `rllib:OUTPUT_DIR/checkpoint` plays,
agents/rllib_agent.py), progress.jsonl (one line per iteration) and summary.json (env
steps, throughput, the env steps each node's env runners sampled, the final evaluation).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

MODES = ("dale", "self_play")
DALE_ENV = "suburbia_dale"
TABLE_ENV = "suburbia_table"
SHARED_POLICY = "shared"
SINGLE_POLICY = "default_policy"  # RLlib's module id of a single-agent run
NODE_STEPS_KEY = "env_steps_by_node"
SAMPLE_TIMEOUT_SECONDS = 1800.0
"""How long an iteration waits for its env runners (RLlib's default, 60 s, can pass while
a new env runner loads the compiled kernels, and the iteration then trains nothing)."""


def _parser() -> argparse.ArgumentParser:
    from agents.ray_session import INSECURE_FLAG, AllowInsecureRay
    from suburbia_env.arguments import ArgumentParser
    parser = ArgumentParser(
        prog="suburbia train --backend rllib",
        description="Train PPO with RLlib on Ray, against Dale or with one shared policy at "
                    "every seat of a table (self-play).")
    add = parser.add_argument
    add("--mode", choices=MODES, default="dale",
        help="dale: one learner against Dale (R9.2); self_play: one shared policy plays "
             "every seat of a --players table (default dale)")
    add("--players", type=int, default=2, help="self_play: seats at the table, 2-4 (default 2)")
    add("--edition", choices=("2nd", "1st"), default="2nd", help="default 2nd")
    add("--reward", choices=("win_loss", "margin"), default="margin",
        help="win_loss: +1/0/-1 at the end; margin: (own - best other final population)/100 "
             "(default margin)")
    add("--total-timesteps", type=int, default=1_000_000,
        help="env steps to sample; training stops after the first iteration that reaches "
             "them (an iteration samples --train-batch-size steps, a few more when env "
             "runners finish their episodes' fragments) (default 1000000)")
    add("--seed", type=int, default=0, help="seed of RLlib, its env runners and the "
                                           "environments (default 0)")
    add("--output-dir", type=Path, default=Path("runs/rllib"),
        help="where checkpoint/, progress.jsonl and summary.json go (default runs/rllib)")
    add("--address", default=None, metavar="HOST:PORT",
        help="an existing Ray cluster's head, or 'auto' for the cluster this machine belongs "
             "to (default: a Ray instance started on this machine for the run)")
    add(INSECURE_FLAG, action=AllowInsecureRay)
    add("--num-cpus", type=int, default=None,
        help="local instance only: CPUs Ray may use (default: all of this machine's)")
    add("--object-store-memory", type=int, default=500, metavar="MB",
        help="local instance only: Ray's object store in MB (default 500)")
    add("--num-env-runners", type=int, default=1,
        help="Ray actors sampling episodes (0: sample in this process) (default 1)")
    add("--num-envs-per-env-runner", type=int, default=1,
        help="environments each env runner steps together (default 1)")
    add("--num-cpus-per-env-runner", type=float, default=1.0,
        help="CPUs reserved per env runner (default 1)")
    add("--env-runner-resources", type=json.loads, default=None, metavar="JSON",
        help="custom Ray resources per env runner, e.g. '{\"sampler\": 1}': env runners go "
             "only to nodes started with them (ray start --resources ...)")
    add("--num-learners", type=int, default=0,
        help="Ray actors updating the policy (0: in this process) (default 0)")
    add("--train-batch-size", type=int, default=4000,
        help="env steps per iteration, over all learners (default 4000)")
    add("--minibatch-size", type=int, default=512, help="default 512")
    add("--n-epochs", type=int, default=4, help="passes over each batch (default 4)")
    add("--learning-rate", type=float, default=3e-4, help="default 0.0003")
    add("--gamma", type=float, default=0.995, help="default 0.995")
    add("--gae-lambda", type=float, default=0.95, help="default 0.95")
    add("--clip-range", type=float, default=0.2, help="default 0.2")
    add("--ent-coef", type=float, default=0.01, help="default 0.01")
    add("--vf-coef", type=float, default=0.5, help="default 0.5")
    add("--max-grad-norm", type=float, default=0.5, help="default 0.5")
    add("--features-dim", type=int, default=256,
        help="width of the shared first layer (default 256)")
    add("--net-arch", type=int, nargs="+", default=[128], metavar="WIDTH",
        help="widths of the policy and value layers (default 128)")
    add("--torch-threads", type=int, default=1,
        help="torch threads of a learner in this process (default 1)")
    add("--eval-games", type=int, default=20,
        help="games of the final evaluation: against Dale, or (self_play) against the "
             "greedy player at 2 seats; 0: none (default 20)")
    return parser


def parse_options(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, checked (SystemExit naming the option)."""
    options = _parser().parse_args(argv)
    at_least = {"total_timesteps": 1, "num_envs_per_env_runner": 1, "train_batch_size": 1,
                "minibatch_size": 1, "n_epochs": 1, "features_dim": 1, "torch_threads": 1,
                "num_env_runners": 0, "num_learners": 0, "eval_games": 0, "seed": 0,
                "object_store_memory": 80}
    for name, low in at_least.items():
        if getattr(options, name) < low:
            raise SystemExit(f"--{name.replace('_', '-')} must be at least {low}, "
                             f"not {getattr(options, name)}")
    if options.num_cpus is not None and options.num_cpus < 1:
        raise SystemExit(f"--num-cpus must be at least 1, not {options.num_cpus}")
    if not options.num_cpus_per_env_runner > 0:
        raise SystemExit("--num-cpus-per-env-runner must be above 0")
    if options.mode == "self_play" and options.players not in (2, 3, 4):
        raise SystemExit(f"--players must be 2, 3 or 4 (R3.1), not {options.players}")
    if options.minibatch_size > options.train_batch_size:
        raise SystemExit(f"--minibatch-size ({options.minibatch_size}) must not exceed "
                         f"--train-batch-size ({options.train_batch_size})")
    if options.num_learners > 1 and options.train_batch_size % options.num_learners:
        raise SystemExit(f"--train-batch-size ({options.train_batch_size}) must divide among "
                         f"the {options.num_learners} learners")
    resources = options.env_runner_resources
    if resources is not None and not (isinstance(resources, dict) and all(
            isinstance(name, str) and isinstance(amount, (int, float))
            and not isinstance(amount, bool) and amount > 0 for name, amount in resources.items())):
        raise SystemExit("--env-runner-resources must be a JSON object of resource names and "
                         "positive amounts, e.g. '{\"sampler\": 1}'")
    if options.address and options.num_cpus is not None:
        raise SystemExit("--num-cpus is for a local instance; a cluster's CPUs are set by "
                         "ray start")
    return options


# Environments: thin makers, registered under names every Ray worker can look up ------------

def make_dale_env(env_config: dict):
    """One learner against Dale (gym_env.py), dict observations with the action mask."""
    from suburbia_env.envs.gym_env import SuburbiaEnv
    return SuburbiaEnv(mode="dale", observation_format="dict", **dict(env_config))


def make_table_env(env_config: dict):
    """A table of the PettingZoo environment (pettingzoo.py) as an RLlib MultiAgentEnv."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from suburbia_env.envs.pettingzoo import env
    return PettingZooEnv(env(**dict(env_config)))


def _shared_policy(agent_id, episode, **kwargs) -> str:
    return SHARED_POLICY


def node_report_callback():
    """An RLlib callback class counting, inside each env runner, the env steps it sampled
    under its Ray node id and the node address it runs with (summed over the run in the
    results: NODE_STEPS_KEY -> node id -> address -> steps)."""
    import ray
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class NodeReport(RLlibCallback):
        def on_sample_end(self, *, env_runner=None, metrics_logger=None, samples=None,
                          **kwargs):
            node = ray.get_runtime_context().get_node_id()
            address = ray.util.get_node_ip_address()
            steps = sum(episode.env_steps() for episode in samples)
            metrics_logger.log_value((NODE_STEPS_KEY, node, address), steps,
                                     reduce="lifetime_sum")

    return NodeReport


def algorithm_config(options: argparse.Namespace):
    """The PPOConfig of a run."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.rllib_module import SuburbiaRLModule
    module = RLModuleSpec(module_class=SuburbiaRLModule, model_config={
        "features_dim": options.features_dim, "hidden": list(options.net_arch)})
    env_config = {"edition": options.edition, "reward": options.reward}
    # RLlib's environment check steps unmasked random actions, which the environments
    # refuse as illegal (R10.1); the masked module never chooses one.
    config = PPOConfig()
    if options.mode == "dale":
        config = config.environment(DALE_ENV, env_config=env_config,
                                    disable_env_checking=True).rl_module(rl_module_spec=module)
    else:
        config = (config.environment(TABLE_ENV, env_config={**env_config,
                                                              "players": options.players},
                                     disable_env_checking=True)
                  .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=_shared_policy)
                  .rl_module(rl_module_spec=MultiRLModuleSpec(
                      rl_module_specs={SHARED_POLICY: module})))
    learners = max(1, options.num_learners)
    return (config
            .framework("torch")
            .env_runners(num_env_runners=options.num_env_runners,
                         num_envs_per_env_runner=options.num_envs_per_env_runner,
                         num_cpus_per_env_runner=options.num_cpus_per_env_runner,
                         custom_resources_per_env_runner=options.env_runner_resources or {},
                         sample_timeout_s=SAMPLE_TIMEOUT_SECONDS)
            .learners(num_learners=options.num_learners, num_gpus_per_learner=0)
            .training(lr=options.learning_rate, gamma=options.gamma,
                      lambda_=options.gae_lambda, clip_param=options.clip_range,
                      entropy_coeff=options.ent_coef, vf_loss_coeff=options.vf_coef,
                      grad_clip=options.max_grad_norm, use_kl_loss=False,
                      train_batch_size_per_learner=options.train_batch_size // learners,
                      minibatch_size=options.minibatch_size, num_epochs=options.n_epochs)
            .callbacks(node_report_callback())
            .debugging(seed=options.seed, log_level="ERROR"))


def _check_resources(ray, options: argparse.Namespace) -> None:
    """Stop with a message if the cluster lacks what the env runners and learners ask for
    (RLlib would wait for them forever); on a cluster that may grow, only warn."""
    available = ray.cluster_resources()
    wanted = {"CPU": options.num_env_runners * options.num_cpus_per_env_runner
              + options.num_learners}
    for name, amount in (options.env_runner_resources or {}).items():
        wanted[name] = wanted.get(name, 0) + amount * options.num_env_runners
    missing = [f"{name} {amount:g} (the cluster has {available.get(name, 0):g})"
               for name, amount in wanted.items() if amount > available.get(name, 0)]
    if not missing:
        return
    text = (f"the env runners and learners ask for more than the Ray cluster has: "
            f"{', '.join(missing)}")
    if not options.address:
        raise SystemExit(f"{text}; use fewer --num-env-runners / --num-learners, or "
                         f"--num-cpus-per-env-runner below 1")
    print(f"warning: {text}; waiting for the cluster to provide them", flush=True)


def _steps_per_second(steps, seconds) -> float | None:
    return round(steps / seconds, 1) if steps and seconds else None


def train_iteration(algorithm) -> dict:
    """One RLlib training iteration; returns the figures that progress.jsonl keeps.

    RLlib reports its timers as moving averages over the run; they are cleared first so
    that the sampling and update times are this iteration's. The learner's throughput is
    the env steps of the batch per second of the update (all epochs)."""
    from ray.rllib.utils.metrics import (ENV_RUNNER_SAMPLING_TIMER, LEARNER_UPDATE_TIMER,
                                         TIMERS)
    for timer in (ENV_RUNNER_SAMPLING_TIMER, LEARNER_UPDATE_TIMER):
        algorithm.metrics.delete(TIMERS, timer, key_error=False)
    started = time.perf_counter()
    result = algorithm.train()
    seconds = time.perf_counter() - started
    runners = result.get("env_runners", {})
    timers = result.get("timers", {})
    sampled = int(runners.get("num_env_steps_sampled", 0))
    sample_seconds = timers.get(ENV_RUNNER_SAMPLING_TIMER)
    learn_seconds = timers.get(LEARNER_UPDATE_TIMER)
    return {
        "iteration": result.get("training_iteration"),
        "env_steps": sampled,
        "env_steps_total": int(result.get("num_env_steps_sampled_lifetime", 0)),
        "episodes": int(runners.get("num_episodes", 0)),
        "agent_steps": {agent: int(steps) for agent, steps
                        in runners.get("num_agent_steps_sampled", {}).items()},
        "module_steps": {module: int(steps) for module, steps
                         in runners.get("num_module_steps_sampled", {}).items()},
        "episode_return_mean": runners.get("episode_return_mean"),
        "seconds": seconds, "sample_seconds": sample_seconds, "learn_seconds": learn_seconds,
        "env_steps_per_second": _steps_per_second(sampled, sample_seconds),
        "learner_steps_per_second": _steps_per_second(sampled, learn_seconds),
        NODE_STEPS_KEY: {node: {address: int(steps) for address, steps in by_address.items()}
                         for node, by_address in runners.get(NODE_STEPS_KEY, {}).items()},
    }


def export_policy(algorithm, options: argparse.Namespace, checkpoint: Path,
                  summary: dict) -> None:
    """The trained module's weights and description beside RLlib's checkpoint files."""
    from agents.rllib_agent import save_policy
    module_id = SINGLE_POLICY if options.mode == "dale" else SHARED_POLICY
    weights = algorithm.learner_group.get_weights([module_id])[module_id]
    save_policy(checkpoint, weights, {
        "model_config": {"features_dim": options.features_dim,
                         "hidden": list(options.net_arch)},
        "trained_by": "suburbia train --backend rllib", "mode": options.mode,
        "module_id": module_id, "env_steps": summary["env_steps"],
        "options": {name: (str(value) if isinstance(value, Path) else value)
                    for name, value in vars(options).items()}})


def evaluate(options: argparse.Namespace, checkpoint: Path) -> dict | None:
    """The final policy's win rate against Dale (R9.2), or in self-play against the greedy
    player at 2 seats, over --eval-games seeded games (agents/tournament.py)."""
    if options.eval_games == 0:
        return None
    from agents.tournament import run_tournament, summarise
    spec = f"rllib:{checkpoint}"
    if options.mode == "dale":
        result = run_tournament([spec], "dale", options.eval_games, seed=options.seed + 1,
                                edition=options.edition, workers=1, progress=False)
    else:
        result = run_tournament([spec, "greedy"], "standard", options.eval_games, players=2,
                                seed=options.seed + 1, edition=options.edition, workers=1,
                                progress=False)
    entry = summarise(result.rows, result.labels, result.config["mode"])["agents"][spec]
    return {"opponent": "dale" if options.mode == "dale" else "greedy",
            "games": entry["games"], "win_rate": entry["win_rate"],
            "win_rate_low": entry["win_rate_low"], "win_rate_high": entry["win_rate_high"],
            "mean_population": entry["mean_population"]}


def train(options: argparse.Namespace) -> dict:
    """Run one training (module docstring); returns the summary written to summary.json."""
    import torch

    from agents.ray_session import ray_session
    torch.set_num_threads(options.torch_threads)
    output_dir = Path(options.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    checkpoint = (output_dir / "checkpoint").resolve()
    iterations = math.ceil(options.total_timesteps / options.train_batch_size)
    print(f"RLlib PPO ({options.mode}): {options.total_timesteps} env steps, about "
          f"{iterations} iteration{'s' * (iterations != 1)} of {options.train_batch_size} "
          f"steps (training stops after the first iteration that reaches them)", flush=True)
    local_bytes = None if options.address else options.object_store_memory * 1024 * 1024
    with ray_session(options.address, options.num_cpus, local_bytes) as ray:
        from ray.tune.registry import register_env
        logging.getLogger("ray.rllib").setLevel(logging.ERROR)  # deprecation notices
        register_env(DALE_ENV, make_dale_env)
        register_env(TABLE_ENV, make_table_env)
        _check_resources(ray, options)
        algorithm = algorithm_config(options).build_algo()
        history, started, total = [], time.perf_counter(), 0
        try:
            with open(output_dir / "progress.jsonl", "w") as progress:
                while total < options.total_timesteps:
                    figures = train_iteration(algorithm)
                    total = figures["env_steps_total"]
                    history.append(figures)
                    progress.write(json.dumps(figures) + "\n")
                    progress.flush()
                    _print_iteration(figures)
            seconds = time.perf_counter() - started
            by_node = history[-1][NODE_STEPS_KEY] if history else {}
            summary = {
                "mode": options.mode, "env_steps": total, "iterations": len(history),
                "seconds": round(seconds, 1),
                "env_steps_per_second": _steps_per_second(total, seconds),
                "num_env_runners": options.num_env_runners,
                "num_learners": options.num_learners,
                "env_steps_by_node": [{"node_id": node, "address": address, "env_steps": steps}
                                      for node, by_address in by_node.items()
                                      for address, steps in by_address.items()],
                "checkpoint": str(checkpoint)}
            algorithm.save_to_path(str(checkpoint))
            export_policy(algorithm, options, checkpoint, summary)
        finally:
            algorithm.stop()
    summary["evaluation"] = evaluate(options, checkpoint)
    (output_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    _print_summary(summary)
    return summary


def _print_iteration(figures: dict) -> None:
    reward = figures["episode_return_mean"]
    print(f"iteration {figures['iteration']}: {figures['env_steps_total']} env steps "
          f"(+{figures['env_steps']}, {figures['episodes']} episodes ended), sampling "
          f"{figures['env_steps_per_second'] or 0:.0f} env steps/s, learner "
          f"{figures['learner_steps_per_second'] or 0:.0f} steps/s, mean return "
          f"{'-' if reward is None else f'{reward:.3f}'}", flush=True)


def _print_summary(summary: dict) -> None:
    nodes = ", ".join(f"{entry['address']} ({entry['node_id'][:8]}): {entry['env_steps']}"
                      for entry in summary["env_steps_by_node"])
    print(f"trained {summary['env_steps']} env steps in {summary['iterations']} iterations, "
          f"{summary['seconds']:.0f} s; env steps sampled per node: {nodes or '-'}")
    evaluation = summary["evaluation"]
    if evaluation:
        print(f"evaluation: win rate {evaluation['win_rate']:.3f} [{evaluation['win_rate_low']:.3f}"
              f", {evaluation['win_rate_high']:.3f}] against {evaluation['opponent']} over "
              f"{evaluation['games']} games, mean population {evaluation['mean_population']:.1f}")
    print(f"checkpoint: {summary['checkpoint']} (play it as the agent spec "
          f"rllib:{summary['checkpoint']})")


def main(argv: list[str] | None = None) -> dict:
    return train(parse_options(argv))


if __name__ == "__main__":
    main()
