"""Export a trained model for release: the policy weights only, a few MB.

    python -m training.export runs/baseline/best_model.zip models/baseline.zip

A saved MaskablePPO zip also holds the last rollout's observations and the Adam
moments (together about 20 MB); neither matters for playing. The exported file loads
with `MaskablePPO.load` as usual (agents.PPOAgent); training it further starts with
fresh optimiser moments.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

DROPPED_ATTRIBUTES = ["_last_obs", "_last_original_obs", "_last_episode_starts",
                      "ep_info_buffer", "ep_success_buffer", "rollout_buffer"]


def export_model(source: str | Path, destination: str | Path) -> Path:
    from agents.ppo_agent import load_model
    model = load_model(source)
    policy = model.policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.learning_rate
                                              if isinstance(model.learning_rate, float) else 3e-4,
                                              **policy.optimizer_kwargs)
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    model.save(destination, exclude=DROPPED_ATTRIBUTES)
    return destination


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Export a MaskablePPO model for release.")
    parser.add_argument("source", type=Path)
    parser.add_argument("destination", type=Path)
    arguments = parser.parse_args(argv)
    path = export_model(arguments.source, arguments.destination)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
