"""Old module paths of the flat package keep importing (issue 31, item 2): each warns
with a DeprecationWarning naming its new path and hands over the new module itself."""

import importlib
import importlib.resources
import importlib.util
import subprocess
import sys
import warnings

import pytest

import suburbia_env
from suburbia_env._moved import OLD_TO_NEW



@pytest.mark.parametrize("old", sorted(OLD_TO_NEW))
def test_an_old_path_is_the_new_module_with_a_warning(old):
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(OLD_TO_NEW[old])
    messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
    assert any(f"{old} moved to {OLD_TO_NEW[old]}" in message for message in messages)


def test_every_new_path_exists_and_no_old_path_is_a_file():
    package = suburbia_env.__path__[0]
    for old, new in OLD_TO_NEW.items():
        assert importlib.util.find_spec(new) is not None, new
        relative = old.split(".", 1)[1].replace(".", "/")
        assert not importlib.resources.files("suburbia_env").joinpath(relative + ".py").is_file()
        assert package


def test_from_package_import_old_name_still_works():
    sys.modules.pop("suburbia_env.state_layout", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from suburbia_env import state_layout
        from suburbia_env.web import sessions
    from suburbia_env.engine import state_layout as new_layout
    from suburbia_env.apps.web import sessions as new_sessions
    assert state_layout is new_layout and sessions is new_sessions


def test_the_warning_points_at_the_importing_line_in_a_script(tmp_path):
    """Python shows a DeprecationWarning by default only when it is attributed to
    __main__: the finder attributes it to the line that imported the old path."""
    script = tmp_path / "old_user.py"
    script.write_text("import suburbia_env.gym_env\n")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    assert f"{script}:1: DeprecationWarning: suburbia_env.gym_env moved to " \
           "suburbia_env.envs.gym_env" in run.stderr


def test_python_dash_m_suburbia_env_cli_still_runs():
    run = subprocess.run([sys.executable, "-m", "suburbia_env.cli", "--version"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "Suburbia-v1" in run.stdout
    assert "DeprecationWarning" not in run.stderr


def test_an_old_package_path_leaves_the_new_package_whole():
    """Importing the old path must not change the new module's spec: the web app finds
    its static files through it (importlib.resources)."""
    sys.modules.pop("suburbia_env.web", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = importlib.import_module("suburbia_env.web")
    assert old.__spec__.name == "suburbia_env.apps.web"
    static = importlib.resources.files("suburbia_env.apps.web").joinpath("static")
    assert static.joinpath("index.html").is_file()
