"""The conventions users assume (issue 20, item 4): `suburbia --version`, a help text with
the allowed values for every option of every command, a LICENSE, a clear message naming
the extra to install when a core install lacks one, training that says how it rounds
--total-timesteps and prints each evaluation once, a match that ends without
multiprocessing warnings, and README scripts that make their own virtual environment
where the system Python refuses pip installs (PEP 668).

Missing packages are simulated in a subprocess by a sitecustomize module whose import
hook refuses them (the real packages stay installed); the PEP 668 logic of
scripts/python_env.sh runs against stub interpreters that record what they are asked,
so nothing is installed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

from repository import REPO
from suburbia_env.apps import cli, command_errors
from suburbia_env.apps.cli import main
from suburbia_env.game import Game
from suburbia_env.versions import ENV_ID, FORMAT_VERSION, PETTINGZOO_NAME, RULES_REVISION
from training.config import _parser as train_parser

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


def run(argv, capsys):
    """`suburbia ARGV` in this process: (status, stdout, stderr)."""
    try:
        status = main(list(argv))
    except SystemExit as stop:
        status = stop.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --version, --help, LICENSE ---------------------------------------------------------------

def test_version_names_the_package_rules_and_environment_ids(capsys):
    status, out, _ = run(["--version"], capsys)
    assert status == 0
    assert version("suburbia-env") == PYPROJECT["project"]["version"] == "0.1.0"
    assert out.strip() == (f"suburbia 0.1.0 (rules {RULES_REVISION}, {ENV_ID}, "
                           f"{PETTINGZOO_NAME}, state and record format version {FORMAT_VERSION})")


def all_parsers() -> dict[str, argparse.ArgumentParser]:
    """Every parser a user reaches with --help: the top level, each subcommand, and the
    own parsers of `train` and `bench` (which pass their options through)."""
    parser = cli.build_parser()
    parsers = {"suburbia": parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            parsers.update({f"suburbia {name}": sub for name, sub in action.choices.items()})
    parsers["suburbia train"] = train_parser()
    parsers["suburbia bench"] = cli.load_engine_speed().build_parser()
    return parsers


ALLOWED_RANGE = re.compile(r"\d\s*(\.\.|-)\s*\d|\d+ or more|above 0|up to \d|any number"
                           r"|players-1|\d+ to \d+ counts")


def test_every_option_of_every_command_has_help_with_its_allowed_values():
    """No option without a help text; an option with choices names each in its help; a
    numeric option without choices states its range (e.g. 2-4, 0..65535, 1 or more, any
    number)."""
    parsers = all_parsers()
    assert {"suburbia play", "suburbia match", "suburbia league", "suburbia train",
            "suburbia bench", "suburbia render", "suburbia serve", "suburbia replay",
            "suburbia convert-model"} <= set(parsers)
    problems, checked = [], 0
    for command, parser in parsers.items():
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            checked += 1
            name = "/".join(action.option_strings) or action.dest
            text = action.help or ""
            if not text.strip() or text == argparse.SUPPRESS:
                problems.append(f"{command} {name}: no help")
            if action.choices and not all(str(choice) in text for choice in action.choices):
                problems.append(f"{command} {name}: help does not name {list(action.choices)}")
            if action.type in (int, float) and not action.choices \
                    and not ALLOWED_RANGE.search(text):
                problems.append(f"{command} {name}: help gives no range: {text!r}")
    assert problems == []
    assert checked >= 90


def test_help_of_each_command_prints_and_exits_zero(capsys):
    for command in ("play", "match", "league", "train", "bench", "render", "serve", "replay"):
        status, out, _ = run([command, "--help"], capsys)
        assert status == 0 and "usage:" in out, command


def test_license_is_mit_as_pyproject_says():
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text
    assert PYPROJECT["project"]["license"] == {"text": "MIT"}


# A core install: the extra to install is named ------------------------------------------------

BLOCKER = textwrap.dedent('''
    import os
    import sys

    BLOCKED = set(filter(None, os.environ.get("SUBURBIA_TEST_BLOCK", "").split(",")))


    class RefuseBlockedModules:
        """An import hook: the named top-level packages look uninstalled."""

        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None


    sys.meta_path.insert(0, RefuseBlockedModules())
''')
OPTIONAL = ("torch,stable_baselines3,sb3_contrib,safetensors,tensorboard,rich,tqdm,openskill,"
            "matplotlib,fastapi,uvicorn,cryptography,pettingzoo,pyspiel,open_spiel")


def run_without(modules: str, argv: list[str], tmp_path: Path):
    """`python -m suburbia_env.apps.cli ARGV` in a subprocess (and its workers) where `modules`
    cannot be imported."""
    hook = tmp_path / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(BLOCKER)
    environment = {**os.environ, "SUBURBIA_TEST_BLOCK": modules,
                   "PYTHONPATH": os.pathsep.join([str(hook), str(REPO)])}
    environment.pop("SUBURBIA_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "suburbia_env.apps.cli", *argv], cwd=tmp_path,
                          env=environment, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("argv,blocked,extra,module", [
    (["match", "--agents", "random", "dale", "--mode", "dale", "--games", "1", "--workers",
      "1"], OPTIONAL, "bench", "tqdm"),
    (["match", "--agents", "ppo:models/baseline.safetensors", "dale", "--mode", "dale",
      "--games", "1"], OPTIONAL, "train", "torch"),
    (["league", "--agents", "random", "dale", "--players", "2", "--games", "1"],
     "openskill,matplotlib,tqdm", "bench", "tqdm"),
    (["train", "--total-timesteps", "64"], OPTIONAL, "train", "torch"),
    (["train", "--total-timesteps", "64"], "stable_baselines3", "train", "stable_baselines3"),
    (["serve", "--port", "0"], OPTIONAL, "web", "fastapi"),
])
def test_a_command_names_the_extra_it_needs(argv, blocked, extra, module, tmp_path):
    argv = [part.replace("models/", f"{REPO}/models/") for part in argv]
    completed = run_without(blocked, argv, tmp_path)
    assert completed.returncode == command_errors.EXIT_MISSING_EXTRA == 3, completed.stderr
    assert completed.stderr.strip() == (
        f"error: `suburbia {argv[0]}` needs the '{extra}' extra (the module {module!r} is not "
        f"installed): pip install -e \".[{extra}]\" in a clone, or pip install "
        f"\"suburbia-env[{extra}]\"")
    assert "Traceback" not in completed.stderr + completed.stdout


def test_train_help_and_option_errors_need_no_torch(tmp_path):
    completed = run_without(OPTIONAL, ["train", "--help"], tmp_path)
    assert completed.returncode == 0 and "--total-timesteps" in completed.stdout
    completed = run_without(OPTIONAL, ["train", "--mode", "chess"], tmp_path)
    assert completed.returncode == 2 and "invalid choice: 'chess'" in completed.stderr


def test_render_png_without_its_rasteriser_says_to_reinstall(tmp_path):
    """resvg-py is a core dependency: only a damaged install lacks it, and then the
    message says to reinstall instead of showing an ImportError traceback."""
    state = tmp_path / "state.json"
    state.write_text(Game(2, seed=3).to_json())
    completed = run_without("resvg_py", ["render", str(state), "--png",
                                         str(tmp_path / "board.png")], tmp_path)
    assert completed.returncode == 3
    assert completed.stderr.startswith("error: `suburbia render` needs the module 'resvg_py', "
                                       "a dependency of the core install that is missing: "
                                       "reinstall with pip install -e .")
    assert "Traceback" not in completed.stderr and not (tmp_path / "board.png").exists()
    completed = run_without("", ["render", str(state), "--png", str(tmp_path / "board.png")],
                            tmp_path)
    assert completed.returncode == 0 and (tmp_path / "board.png").read_bytes()[:4] == b"\x89PNG"


def test_a_missing_module_of_no_extra_is_still_an_internal_error():
    error = ModuleNotFoundError("No module named 'frobnicate'", name="frobnicate")
    assert cli.missing_module_message("match", error) is None
    tqdm = ModuleNotFoundError("No module named 'tqdm'", name="tqdm")
    assert "'train' extra" in cli.missing_module_message("train", tqdm)
    assert "'bench' extra" in cli.missing_module_message("league", tqdm)


# train: the steps it takes, each evaluation once --------------------------------------------------

def test_total_timesteps_rounding_is_said_up_front_and_each_evaluation_printed_once(
        tmp_path, capsys):
    status, out, _ = run(["train", "--total-timesteps", "100", "--num-envs", "2", "--n-steps",
                          "32", "--batch-size", "32", "--features-dim", "16", "--net-arch", "16",
                          "--eval-games", "2", "--eval-every", "64", "--checkpoint-every",
                          "1000000", "--no-progress-bar", "--output-dir", str(tmp_path)],
                         capsys)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == ("--total-timesteps 100: PPO learns from whole rollouts of n-steps x "
                        "num-envs = 32 x 2 = 64 steps, so this run trains 128 steps")
    evaluations = [int(re.match(r"\[eval +(\d+) steps\]", line).group(1))
                   for line in lines if line.startswith("[eval")]
    assert evaluations == [64, 128]  # the last after the last update, not also before it
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["timesteps"] == 128
    assert [row["timesteps"] for row in summary["evaluations"]] == [64, 128]
    assert len((tmp_path / "evaluations.jsonl").read_text().splitlines()) == 2


def test_no_rounding_message_when_the_steps_fill_whole_rollouts(tmp_path, capsys):
    from training.config import parse_config
    from training.train import announce_rounding, planned_timesteps
    config = parse_config(["--total-timesteps", "256", "--num-envs", "4", "--n-steps", "64"])
    announce_rounding(config)
    assert planned_timesteps(config) == 256 and capsys.readouterr().out == ""
    config = parse_config(["--total-timesteps", "257", "--num-envs", "4", "--n-steps", "64"])
    assert planned_timesteps(config) == 512


# match: no multiprocessing warnings ---------------------------------------------------------------

@pytest.mark.slow
def test_match_with_worker_processes_ends_without_warnings(tmp_path):
    environment = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONWARNINGS": "default"}
    completed = subprocess.run(
        [sys.executable, "-m", "suburbia_env.apps.cli", "match", "--agents", "random", "dale",
         "--mode", "dale", "--games", "3", "--workers", "2", "--no-progress", "--output-dir",
         str(tmp_path / "match")], cwd=tmp_path, env=environment, capture_output=True,
        text=True, timeout=600)
    assert completed.returncode == 0
    assert "win rate [95% CI]" in completed.stdout
    assert completed.stderr == ""  # e.g. no "resource_tracker: ... leaked semaphore objects"


# PEP 668: the README's scripts make and use their own virtual environment ---------------------

STUB_PYTHON = textwrap.dedent('''\
    #!/usr/bin/env bash
    # A stand-in interpreter: records every call, answers the PEP 668 query of
    # scripts/python_env.sh from STUB_STDLIB, makes a stand-in venv for `-m venv`, and
    # succeeds at everything else (pip install, pytest) without doing it.
    echo "$0 $*" >> "$STUB_LOG"
    if [ "$1" = "-c" ]; then
        case "$2" in
            *sysconfig*) echo "$STUB_STDLIB"; echo 0; exit 0 ;;
            *version_info*) exit 0 ;;
        esac
    fi
    if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
        [ -n "${STUB_VENV_FAILS:-}" ] && { echo "ensurepip is not available" >&2; exit 1; }
        target="${@: -1}"
        mkdir -p "$target/bin" && cp "$0" "$target/bin/python"
        exit 0
    fi
    exit 0
''')


@pytest.fixture
def stub_machine(tmp_path):
    """A PATH whose `python` is the stub, with its standard library folder."""
    bin_dir, stdlib = tmp_path / "bin", tmp_path / "stdlib"
    bin_dir.mkdir()
    stdlib.mkdir()
    python = bin_dir / "python"
    python.write_text(STUB_PYTHON)
    python.chmod(0o755)
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("VIRTUAL_ENV", "SUBURBIA_VENV")}
    environment.update(PATH=f"{bin_dir}:/usr/bin:/bin", STUB_LOG=str(tmp_path / "calls.log"),
                       STUB_STDLIB=str(stdlib), SUBURBIA_VENV=str(tmp_path / "venv"))
    return tmp_path, environment


def calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def run_test_script(environment, *arguments):
    return subprocess.run(["bash", str(REPO / "scripts" / "test.sh"), *arguments],
                          env=environment, capture_output=True, text=True, timeout=120)


def test_an_externally_managed_python_gets_a_venv_that_the_script_uses_and_reuses(
        stub_machine):
    tmp_path, environment = stub_machine
    (tmp_path / "stdlib" / "EXTERNALLY-MANAGED").write_text("[externally-managed]\n")
    completed = run_test_script(environment, "-q", "tests/rules/test_tiles.py")
    assert completed.returncode == 0, completed.stderr
    venv, base = tmp_path / "venv", tmp_path / "bin" / "python"
    assert f"{base} is externally managed (PEP 668): making a virtual environment in {venv}" \
        in completed.stderr
    assert f"Made the virtual environment {venv}" in completed.stderr
    assert calls(tmp_path)[-3:] == [
        f"{base} -m venv --system-site-packages {venv}",
        f"{venv}/bin/python -m pip install --quiet --disable-pip-version-check -e .[test]",
        f"{venv}/bin/python -m pytest -q tests/rules/test_tiles.py"]
    (tmp_path / "calls.log").unlink()
    completed = run_test_script(environment)
    assert completed.returncode == 0
    assert f"Using the project's virtual environment {venv}" in completed.stderr
    assert calls(tmp_path) == [
        f"{venv}/bin/python -m pip install --quiet --disable-pip-version-check -e .[test]",
        f"{venv}/bin/python -m pytest"]


def test_a_python_that_allows_installs_is_used_directly_as_on_ci(stub_machine):
    tmp_path, environment = stub_machine  # no EXTERNALLY-MANAGED marker
    completed = subprocess.run(["bash", str(REPO / "scripts" / "quickstart.sh")],
                               env=environment, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    base = tmp_path / "bin" / "python"
    assert not (tmp_path / "venv").exists()
    assert [line for line in calls(tmp_path) if " -m " in line] == [
        f"{base} -m pip install --disable-pip-version-check -e .[train,bench]",
        f"{base} -m suburbia_env.apps.cli train --recipe quickstart --run-dir runs/quickstart"]
    assert completed.stdout.startswith("[quickstart install] pip install -e .[train,bench]")
    assert "[quickstart install] done in " in completed.stdout


def test_an_active_virtual_environment_is_used_as_it_is(stub_machine):
    tmp_path, environment = stub_machine
    (tmp_path / "stdlib" / "EXTERNALLY-MANAGED").write_text("")
    active = tmp_path / "active"
    (active / "bin").mkdir(parents=True)
    (active / "bin" / "python").write_text(STUB_PYTHON)
    (active / "bin" / "python").chmod(0o755)
    completed = run_test_script({**environment, "VIRTUAL_ENV": str(active)})
    assert completed.returncode == 0
    assert f"Using the active virtual environment {active}" in completed.stderr
    assert not (tmp_path / "venv").exists()
    assert calls(tmp_path)[-1] == f"{active}/bin/python -m pytest"


def test_without_the_venv_module_the_script_says_what_to_install(stub_machine):
    tmp_path, environment = stub_machine
    (tmp_path / "stdlib" / "EXTERNALLY-MANAGED").write_text("")
    completed = run_test_script({**environment, "STUB_VENV_FAILS": "1"})
    assert completed.returncode != 0
    assert "apt-get install python3-venv" in completed.stderr
    assert not (tmp_path / "venv").exists()
    assert not any(" -m pip " in line for line in calls(tmp_path))


@pytest.mark.slow
def test_the_venv_is_made_for_real_and_sees_the_system_packages(tmp_path):
    """suburbia_python with this machine's interpreter, taken for externally managed (only
    its answer to the PEP 668 query is stubbed): a real venv is made, with pip, whose
    Python sees the packages installed beside the base interpreter (so torch is not
    downloaded again)."""
    (tmp_path / "stdlib").mkdir()
    (tmp_path / "stdlib" / "EXTERNALLY-MANAGED").write_text("")
    (tmp_path / "bin").mkdir()
    python = tmp_path / "bin" / "python"
    python.write_text(textwrap.dedent(f"""\
        #!/usr/bin/env bash
        if [ "$1" = "-c" ] && [[ "$2" == *sysconfig* ]]; then
            echo "{tmp_path / 'stdlib'}"; echo 0; exit 0
        fi
        exec "{sys.executable}" "$@"
    """))
    python.chmod(0o755)
    environment = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    environment.update(PATH=f"{tmp_path / 'bin'}:/usr/bin:/bin",
                       SUBURBIA_VENV=str(tmp_path / "venv"))
    completed = subprocess.run(
        ["bash", "-c", f"source {REPO}/scripts/python_env.sh; suburbia_python {REPO}"],
        env=environment, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    venv_python = tmp_path / "venv" / "bin" / "python"
    assert completed.stdout.strip() == str(venv_python)
    configuration = (tmp_path / "venv" / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = true" in configuration
    probe = ("import importlib.util as u, sys; print(sys.prefix != sys.base_prefix, "
             "u.find_spec('torch') is not None, u.find_spec('pip') is not None)")
    completed = subprocess.run([str(venv_python), "-c", probe], capture_output=True,
                               text=True, timeout=120)
    assert completed.stdout.split() == ["True", "True", "True"]


def test_this_interpreter_is_classified_as_pep_668_says(tmp_path):
    """The real query of suburbia_externally_managed on the interpreter running the tests."""
    import sysconfig
    expected = (sys.prefix == sys.base_prefix
                and Path(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED").is_file())
    completed = subprocess.run(
        ["bash", "-c", f"source {REPO}/scripts/python_env.sh; "
                       f"suburbia_externally_managed \"{sys.executable}\""], timeout=60)
    assert (completed.returncode == 0) == expected
