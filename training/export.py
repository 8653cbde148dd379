"""Export a trained model for release.

    python -m training.export --safe runs/baseline/best_model.zip models/baseline.safetensors
    python -m training.export --allow-pickle runs/baseline/best_model.zip runs/stage1.zip

`--safe` (the default when the destination ends in .safetensors or .json) writes the
safe format of agents/model_format.py: NAME.safetensors with the policy's weights and
NAME.json describing the network, the spaces, the env version and the provenance. It
reads the zip's weights and plain description only: nothing in the file is unpickled, so
a downloaded model can be converted safely (`suburbia convert-model` does the same).

The zip export loads the model with MaskablePPO.load, which runs the pickles stored in
the file, so it needs `--allow-pickle` (for your own training runs). A saved MaskablePPO
zip also holds the last rollout's observations and the Adam moments (together about
20 MB); neither matters for playing. The exported zip loads with `MaskablePPO.load` as
usual; training it further starts with fresh optimiser moments.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

DROPPED_ATTRIBUTES = ["_last_obs", "_last_original_obs", "_last_episode_starts",
                      "ep_info_buffer", "ep_success_buffer", "rollout_buffer"]


def export_model(source: str | Path, destination: str | Path,
                 allow_pickle: bool = False) -> Path:
    """The policy-only zip of a MaskablePPO zip; loading the source runs its pickles, so
    `allow_pickle=True` is required (ModelFormatError otherwise)."""
    from agents.ppo_agent import load_model
    model = load_model(source, allow_pickle=allow_pickle)
    policy = model.policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.learning_rate
                                              if isinstance(model.learning_rate, float) else 3e-4,
                                              **policy.optimizer_kwargs)
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    model.save(destination, exclude=DROPPED_ATTRIBUTES)
    return destination


def export_safe_model(source: str | Path, destination: str | Path, env_id: str | None = None,
                      notes: str | None = None) -> Path:
    """The safe format (NAME.safetensors + NAME.json) of a MaskablePPO zip, converted
    without unpickling anything; returns the weights path."""
    from agents.model_format import convert_pickled_model
    return convert_pickled_model(source, destination, env_id=env_id, notes=notes)


def main(argv: list[str] | None = None) -> None:
    from suburbia_env.errors import SuburbiaError
    from suburbia_env.arguments import ArgumentParser
    parser = ArgumentParser(
        prog="python -m training.export",
        description="Export a MaskablePPO model for release: the safe format (--safe, no "
                    "code from the file runs) or a policy-only zip (--allow-pickle).")
    parser.add_argument("source", type=Path, help="a stable-baselines3 MaskablePPO .zip")
    parser.add_argument("destination", type=Path,
                        help="NAME.safetensors (safe format, with NAME.json) or NAME.zip")
    parser.add_argument("--safe", action="store_true",
                        help="write the safe format (default for a .safetensors or .json "
                             "destination)")
    parser.add_argument("--allow-pickle", action="store_true",
                        help="for a .zip destination: load the source with MaskablePPO.load, "
                             "which runs code stored in the file")
    parser.add_argument("--env-id", default=None,
                        help="the gym id the model was trained on, e.g. Suburbia-v1 "
                             "(recorded in the description; default: unknown)")
    parser.add_argument("--notes", default=None, help="provenance text for the description")
    arguments = parser.parse_args(argv)
    safe = arguments.safe or arguments.destination.suffix in (".safetensors", ".json")
    try:
        if safe:
            path = export_safe_model(arguments.source, arguments.destination,
                                     arguments.env_id, arguments.notes)
            print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB) and "
                  f"{path.with_suffix('.json')}")
        else:
            path = export_model(arguments.source, arguments.destination,
                                arguments.allow_pickle)
            print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
    except (SuburbiaError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
