"""The `suburbia` command (suburbia_env/apps/cli.py): every subcommand on small settings.

`play` is driven by feeding its input stream: the moves of a game computed beforehand
(so the final scores are known), malformed and illegal moves (a message and a new
prompt, never a crash), and the commands help, legal, board and quit.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from agents import DaleAgent, GreedyAgent, RandomAgent
from agents.table import agent_seed
from repository import REPO
from suburbia_env import Game
from suburbia_env.apps import cli
from suburbia_env.apps.cli import main
from suburbia_env.apps.terminal_screen import group_legal_moves
from suburbia_env.display.picture import render_picture


def run_cli(argv, text_input=""):
    stdout = io.StringIO()
    status = main(argv, stdin=io.StringIO(text_input), stdout=stdout)
    return status, stdout.getvalue()


def dale_game_moves(seed: int) -> Game:
    """A Dale-mode game (R9.2) whose player follows Dale's own procedure."""
    game = Game(1, "dale", seed=seed)
    agent = DaleAgent()
    while not game.is_over:
        game.apply(agent.act(game))
    return game


def score_columns(output: str, name: str) -> tuple[list[int], bool]:
    """The numbers (population, goals, money, final) and the winner mark of a seat's line
    in the final scores table."""
    table = output[output.index("Final scores (R8.2):"):].splitlines()
    line = next(text.strip() for text in table if text.strip().startswith(name + " "))
    rest = line[len(name):].split()
    return [int(value) for value in rest[:4]], rest[4:] == ["yes"]


def expected_columns(score: dict) -> tuple[list[int], bool]:
    goals = sum(score["public_goals"].values()) + score["private_goal_bonus"]
    return ([score["population_before_goals"], goals, score["money_converted"],
             score["population"]], score["winner"])


# Compact legal moves ------------------------------------------------------------------------

def test_legal_moves_are_grouped_by_verb_and_cells():
    moves = ["buy 2 @ -1,0", "buy 2 @ 1,0", "buy 4 @ -1,0", "buy 4 @ 1,0", "buy 5 @ 1,0",
             "lake 2 @ -1,0", "basic park @ -1,0", "basic park @ 1,0", "invest 0,0",
             "invest 0,1", "discard 3", "discard 5", "keep Developer", "keep Investor", "pass"]
    assert group_legal_moves(moves) == [
        "  buy <slot> @ <col>,<row>: slots 2 4; cells -1,0 1,0",
        "  buy <slot> @ <col>,<row>: slots 5; cells 1,0",
        "  lake <slot> @ <col>,<row>: slots 2; cells -1,0",
        "  basic <tile> @ <col>,<row>: tiles park; cells -1,0 1,0",
        "  invest <col>,<row>: 0,0 0,1",
        "  discard <slot>: 3 5",
        "  keep <goal>: Developer | Investor",
        "  pass"]


# play ---------------------------------------------------------------------------------------

def test_play_a_whole_dale_game_from_the_input_stream(tmp_path):
    """The moves of a finished game, with junk in between, replay to the same scores."""
    reference = dale_game_moves(seed=4)
    lines = ["help", "foo", "buy 9 @ 0,0", "buy 2 @ 6,8", "legal", "board", ""]
    lines += reference.history
    record = tmp_path / "game.json"
    status, output = run_cli(["play", "--no-board", "--seed", "4", "--save-record",
                              str(record)], "\n".join(lines) + "\n")
    assert status == 0
    assert "Commands:" in output  # help
    assert "Not accepted: 'foo' is not an action" in output
    assert "Not accepted: 'buy 9 @ 0,0': market slot 9 is outside 0..6" in output
    assert "Not accepted: illegal action 'buy 2 @ 6,8'" in output
    assert "Market (R4.1, slots 2-5 only, R9.2)" in output  # the 'board' command
    assert "Legal moves (" in output and "invest <col>,<row>: 0,0 0,1 0,2" in output
    assert output.count("you: ") == len(reference.history)
    assert "Dale pays $3 and places" in output  # Dale's turns appear among the events
    scores = reference.final_scores()
    assert score_columns(output, "you") == expected_columns(scores[0])
    assert score_columns(output, "Dale") == expected_columns(scores[1])
    saved = json.loads(record.read_text())
    assert saved["actions"] == reference.history and saved["seed"] == 4


def test_play_against_greedy_and_random_at_a_table_of_three():
    """Seats 1 and 2 are played by greedy and random (seeded from the game seed and the
    seat); the person at seat 0 keeps the first goal and then always plays the first
    legal move; we compute that game here and feed the person's moves."""
    seed = 6
    game = Game(3, seed=seed)
    opponents = {1: GreedyAgent(), 2: RandomAgent(agent_seed(seed, 2))}
    human_moves = []
    while not game.is_over:
        if game.current_player == 0:
            move = game.legal_actions_text()[0]
            human_moves.append(move)
            game.apply(move)
        else:
            game.apply(opponents[game.current_player].act(game))
    status, output = run_cli(["play", "--players", "3", "--opponents", "greedy", "random",
                              "--seed", str(seed)], "\n".join(human_moves) + "\n")
    assert status == 0
    first, second = Game(3, seed=seed).goal_options(0)
    assert f"\n  1) keep {first}: " in output and f"\n  2) keep {second}: " in output
    assert "player 1 (greedy): " in output and "player 2 (random): " in output
    assert "Suburbia: standard game, 3 players" in output  # the board is drawn
    for score in game.final_scores():
        name = ["you", "player 1 (greedy)", "player 2 (random)"][score["player"]]
        assert score_columns(output, name) == expected_columns(score)


def test_quit_and_end_of_input_leave_the_game(tmp_path, monkeypatch):
    """Leaving offers to save the unfinished game ('no' declines); when the input ends
    it is saved without asking, to the --save-record path or a new file here, named
    without the seed when the seed was drawn at random (it fixes the stacks, R10.2)."""
    monkeypatch.chdir(tmp_path)
    status, output = run_cli(["play", "--no-board"], "quit\nno\n")
    assert status == 0 and "You left the game." in output
    assert "The game was not saved." in output and list(tmp_path.iterdir()) == []
    status, output = run_cli(["play", "--no-board"], "")
    assert status == 1 and "End of input" in output
    saved = list(tmp_path.glob("suburbia-dale-*.json"))
    assert len(saved) == 1 and f"is saved in {saved[0].name}" in output
    assert "seed" not in saved[0].name
    position = json.loads(saved[0].read_text())  # no seed, nothing hidden (R10.2)
    assert position["format"] == "suburbia-state" and position["seed"] is None
    status, output = run_cli(["play", "--no-board", "--seed", "0"], "")
    assert status == 1 and len(list(tmp_path.glob("suburbia-dale-seed0-*.json"))) == 1
    status, output = run_cli(["play", "--no-board", "--save-record", "mine.json"], "quit\n\n")
    assert status == 0 and (tmp_path / "mine.json").is_file()
    assert "is saved in mine.json (your position, not what you cannot see)." \
        "\nContinue it with:\n" \
        "  suburbia play --resume mine.json\n" in output


@pytest.mark.parametrize("argv, message", [
    (["play", "--mode", "dale", "--opponents", "greedy"], "against Dale (R9.2) you play alone"),
    (["play", "--players", "5"], "2 to 4 players (R3.1), not 5"),
    (["play", "--players", "2", "--opponents", "greedy", "random"], "do not fit"),
    (["play", "--mode", "solitary", "--opponents", "greedy"], "no opponents"),
    (["play", "--players", "2", "--opponents", "alphazero"], "unknown agent spec"),
    (["play", "--players", "2", "--opponents", f"ppo:{REPO / 'models/baseline.zip'}"],
     "pickled stable-baselines3 model"),
])
def test_play_refuses_impossible_tables(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing is saved here: no game starts
    status, _ = run_cli(argv, "quit\nno\n")
    assert status == 2
    assert message in capsys.readouterr().err


def test_play_in_a_subprocess_reads_stdin(tmp_path):
    environment = dict(os.environ, OMP_NUM_THREADS="1")
    completed = subprocess.run([sys.executable, "-m", "suburbia_env.apps.cli", "play", "--mode",
                                "solitary", "--no-board"], input="pass please\nquit\nno\n",
                               capture_output=True, text=True, cwd=tmp_path, env=environment,
                               timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert "Not accepted: 'pass please' is not an action" in completed.stdout
    assert "You left the game." in completed.stdout


# match / tournament ------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["match", "tournament"])
def test_match_runs_the_tournament_and_writes_its_files(command, tmp_path):
    status, output = run_cli([command, "--agents", "greedy", "random", "--mode", "dale",
                              "--games", "2", "--workers", "1", "--no-progress",
                              "--output-dir", str(tmp_path)])
    assert status == 0
    assert "win rate [95% CI]" in output and "Dale (engine): mean population" in output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["config"]["agents"] == ["greedy", "random"]
    assert [summary["agents"][a]["games"] for a in ("greedy", "random")] == [2, 2]
    assert len((tmp_path / "results.csv").read_text().splitlines()) == 1 + 8  # 4 games x 2 seats
    assert (tmp_path / "populations.png").read_bytes()[:4] == b"\x89PNG"


def test_match_rejects_unknown_options():
    with pytest.raises(SystemExit):
        run_cli(["match", "--agents", "greedy", "--frobnicate"])


# train, bench --------------------------------------------------------------------------------

@pytest.mark.slow
def test_train_passes_its_options_through(tmp_path):
    status, _ = run_cli(["train", "--total-timesteps", "64", "--num-envs", "2", "--n-steps", "32",
                         "--batch-size", "32", "--features-dim", "16", "--net-arch", "16",
                         "--eval-games", "2", "--eval-every", "1000000",
                         "--checkpoint-every", "1000000", "--no-progress-bar",
                         "--output-dir", str(tmp_path)])
    assert status == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["timesteps"] == 64  # 2 envs x 32 steps: one rollout
    assert summary["final_evaluation"]["games"] == 2
    assert json.loads((tmp_path / "config.json").read_text())["features_dim"] == 16
    assert (tmp_path / "model.zip").is_file()
    # the safe format beside the zip: loads without unpickling and plays as the zip
    from agents import PPOAgent
    description = json.loads((tmp_path / "model.json").read_text())
    assert description["training"]["config"]["features_dim"] == 16
    assert description["environment"]["id"].startswith("Suburbia-v")
    safe = PPOAgent(tmp_path / "model.safetensors")
    with pytest.warns(UserWarning, match="runs code stored in the file"):
        pickled = PPOAgent(tmp_path / "model.zip", allow_pickle=True)
    game = Game(1, "dale", seed=1)
    for _ in range(5):
        action = safe.act(game)
        assert action == pickled.act(game)
        game.apply(action)


def test_train_continues_from_an_init_model(tmp_path):
    """--init-model loads a saved model's weights: with a zero learning rate the
    continued run ends with exactly the weights it started from."""
    small = ["--num-envs", "2", "--n-steps", "32", "--batch-size", "32", "--features-dim",
             "16", "--net-arch", "16", "--eval-games", "2", "--eval-every", "1000000",
             "--checkpoint-every", "1000000", "--no-progress-bar"]
    first, second = tmp_path / "first", tmp_path / "second"
    assert run_cli(["train", "--total-timesteps", "64", "--output-dir", str(first)]
                   + small)[0] == 0
    assert run_cli(["train", "--total-timesteps", "64", "--learning-rate", "0", "--seed", "5",
                    "--init-model", str(first / "model.zip"), "--output-dir", str(second)]
                   + small)[0] == 0
    import torch
    from sb3_contrib import MaskablePPO
    started = MaskablePPO.load(first / "model.zip", device="cpu").policy.state_dict()
    ended = MaskablePPO.load(second / "model.zip", device="cpu").policy.state_dict()
    assert started.keys() == ended.keys()
    for name in started:
        assert torch.equal(started[name], ended[name]), name
    # the safe format starts a run too (weights only)
    third = tmp_path / "third"
    assert run_cli(["train", "--total-timesteps", "64", "--learning-rate", "0", "--seed", "6",
                    "--init-model", str(first / "model.safetensors"), "--output-dir",
                    str(third)] + small)[0] == 0
    from agents.model_format import load_safe_model
    safe = load_safe_model(third / "model.safetensors").policy.state_dict()
    for name in started:
        assert torch.equal(started[name], safe[name]), name


@pytest.mark.slow
def test_train_imitates_the_named_demonstrator_first(tmp_path):
    """--pretrain-games N --demonstrator SPEC: N games of that agent against Dale are
    recorded (seeds from 1,000,000) and imitated before PPO starts."""
    status, _ = run_cli(["train", "--pretrain-games", "2", "--demonstrator", "dale",
                         "--pretrain-epochs", "1", "--total-timesteps", "64", "--num-envs",
                         "2", "--n-steps", "32", "--batch-size", "32", "--features-dim", "16",
                         "--net-arch", "16", "--eval-games", "2", "--eval-every", "1000000",
                         "--checkpoint-every", "1000000", "--no-progress-bar",
                         "--output-dir", str(tmp_path)])
    assert status == 0
    from agents.dale_agent import DaleAgent
    from suburbia_env import Game
    with np.load(tmp_path / "demonstrations.npz") as data:
        states, actions = data["states"], data["actions"]
    game, dale, seed = Game(players=1, mode="dale", seed=1_000_000), DaleAgent(), 1_000_000
    for state, action in zip(states, actions):
        if game.is_over:
            seed += 1
            game = Game(players=1, mode="dale", seed=seed)
        assert np.array_equal(game.state, state)
        assert action == dale.act(game)
        game.apply(int(action))
    assert game.is_over and seed == 1_000_001
    assert (tmp_path / "pretrained_model.zip").is_file()


def test_train_without_ppo_steps_evaluates_the_imitating_policy(tmp_path):
    """--total-timesteps 0: the policy fitted to the demonstrations is saved and
    evaluated as it is (the distillation step of models/README.md)."""
    status, _ = run_cli(["train", "--pretrain-games", "1", "--demonstrator", "dale",
                         "--pretrain-epochs", "1", "--total-timesteps", "0", "--num-envs", "2",
                         "--features-dim", "16", "--net-arch", "16", "--eval-games", "2",
                         "--no-progress-bar", "--output-dir", str(tmp_path)])
    assert status == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["timesteps"] == 0 and summary["final_evaluation"]["games"] == 2
    import torch
    from sb3_contrib import MaskablePPO
    pretrained = MaskablePPO.load(tmp_path / "pretrained_model.zip", device="cpu")
    saved = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    for name, weights in pretrained.policy.state_dict().items():
        assert torch.equal(weights, saved.policy.state_dict()[name]), name


def test_train_refuses_negative_timesteps(capsys):
    with pytest.raises(SystemExit, match="--total-timesteps must be 0 .* not -5"):
        run_cli(["train", "--total-timesteps", "-5"])


def test_train_names_a_missing_init_model(tmp_path, capsys):
    with pytest.raises(SystemExit, match="--init-model: no model file at .*nowhere.zip"):
        run_cli(["train", "--init-model", str(tmp_path / "nowhere.zip")])


def test_bench_passes_its_options_to_the_engine_speed_script(monkeypatch):
    """The real script's own parser answers `suburbia bench --help`; a run forwards
    every option unchanged (the run itself takes minutes, so it is stubbed here)."""
    with pytest.raises(SystemExit) as stopped:
        run_cli(["bench", "--help"])
    assert stopped.value.code == 0
    received = []
    module = cli.load_engine_speed()
    assert "--quick" in module.__doc__ and callable(module.main)
    monkeypatch.setattr(module, "main", received.append)
    monkeypatch.setattr(cli, "load_engine_speed", lambda: module)
    assert run_cli(["bench", "--games", "2", "--skip-cold"])[0] == 0
    assert received == [["--games", "2", "--skip-cold"]]


def test_bench_help_is_the_scripts_own(capsys):
    with pytest.raises(SystemExit):
        run_cli(["bench", "-h"])
    printed = capsys.readouterr().out
    assert "--quick" in printed and "--skip-cold" in printed and "--games" in printed


# replay, render -------------------------------------------------------------------------------

def test_replay_shows_each_action_and_the_final_scores(tmp_path):
    game = dale_game_moves(seed=2)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(game.record()))
    status, output = run_cli(["replay", str(path)])
    assert status == 0
    steps = [line for line in output.splitlines() if line[:1].isdigit()]
    assert len(steps) == len(game.history)
    assert steps[0] == f"1. round 1, player 0: {game.history[0]}"
    assert steps[-1].endswith(f": {game.history[-1]}")
    assert "the game is over" in output
    for seat, name in ((0, "player 0"), (1, "Dale")):
        assert score_columns(output, name) == expected_columns(game.final_scores()[seat])
    status, with_boards = run_cli(["replay", str(path), "--boards"])
    assert with_boards.count("Market (R4.1") == len(game.history) + 1


def test_replay_of_an_unfinished_record(tmp_path):
    game = Game(2, seed=1)
    for _ in range(4):
        game.apply(game.legal_actions()[0])
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(game.record()))
    status, output = run_cli(["replay", str(path)])
    assert status == 0
    assert "The record ends before the game is over (round 2" in output


def test_replay_names_a_broken_record(tmp_path, capsys):
    game = dale_game_moves(seed=2)
    record = game.record()
    record["actions"][3] = "buy 2 @ 6,8"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(record))
    assert run_cli(["replay", str(path)])[0] == 2
    assert "actions[3]: 'buy 2 @ 6,8'" in capsys.readouterr().err
    path.write_text("{not json")
    assert run_cli(["replay", str(path)])[0] == 2
    assert "is not JSON" in capsys.readouterr().err
    assert run_cli(["replay", str(tmp_path / "missing.json")])[0] == 2
    assert "cannot read the game record" in capsys.readouterr().err


@pytest.mark.slow
def test_render_writes_the_picture_and_prints_the_text(tmp_path):
    game = dale_game_moves(seed=3)
    state_path = tmp_path / "state.json"
    state_path.write_text(game.to_json())
    png = tmp_path / "pictures" / "board.png"
    status, output = run_cli(["render", str(state_path), "--png", str(png), "--text"])
    assert status == 0
    assert game.render() in output
    from matplotlib import image
    written = image.imread(png)
    expected = render_picture(game)
    assert written.shape[:2] == expected.shape[:2]
    assert np.array_equal(np.round(written[..., :3] * 255).astype(np.uint8), expected)
    # without --text only the picture is made; a record is replayed to its last state
    record_path = tmp_path / "record.json"
    record_path.write_text(json.dumps(game.record()))
    status, output = run_cli(["render", str(record_path)])
    assert status == 0 and output.strip() == game.render().strip()
    status, output = run_cli(["render", str(state_path), "--png", str(png)])
    assert "Suburbia:" not in output and "written to" in output
