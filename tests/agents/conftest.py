"""A tiny untrained MaskablePPO model, built once for every agents test that loads,
converts, corrupts or plays a model file (the shipped baseline is in models/)."""

import pytest


@pytest.fixture(scope="session")
def model_path(tmp_path_factory):
    """The tiny model with the compact extractor, saved as training saves it (a zip)."""
    import torch
    from sb3_contrib import MaskablePPO

    from suburbia_env.envs.sb3 import SB3VectorEnv
    from agents.features import SuburbiaFeatures
    torch.set_num_threads(1)
    environment = SB3VectorEnv(num_envs=2, players=1, mode="dale")
    model = MaskablePPO("MlpPolicy", environment, n_steps=8, batch_size=16, seed=1,
                        device="cpu", policy_kwargs={
                            "net_arch": [16], "features_extractor_class": SuburbiaFeatures,
                            "features_extractor_kwargs": {"features_dim": 16}})
    path = tmp_path_factory.mktemp("tiny") / "tiny.zip"
    model.save(path)
    return path


@pytest.fixture(scope="session")
def safe_path(model_path):
    """The same model in the safe format (converted without unpickling)."""
    from agents.model_format import convert_pickled_model
    return convert_pickled_model(model_path, model_path.with_name("tiny.safetensors"))


@pytest.fixture(scope="session")
def tiny(model_path, safe_path):
    """(zip, safe weights path) of the tiny model; tests that change it work on copies."""
    return model_path, safe_path
