"""Tournaments and leagues on Ray (agents/ray_games.py): the same seeds give exactly the
rows of the local runner, whatever the backend and the number of games at once.

One small local Ray instance serves the whole module (2 CPUs, a 100 MB object store);
the runner uses a Ray already initialised in the process, as it would a notebook's.
"""

from __future__ import annotations

import pytest
import ray

from agents import GreedyAgent
from agents.league import run_league
from agents.registry import AgentSpecError
from agents.tournament import TournamentError, run_tournament


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, object_store_memory=100 * 1024 * 1024, include_dashboard=False,
             log_to_driver=False, runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}})
    yield ray
    ray.shutdown()


def test_standard_games_on_ray_equal_the_local_runner(local_ray):
    """Seats rotate (agents/tournament.py), random reseeded per game and seat, and an
    agent object (a greedy player with its own weights) travels pickled to the workers."""
    agents = ["random", GreedyAgent(money_weight=2.5), "dale"]
    local = run_tournament(agents, "standard", games=4, players=3, seed=11, workers=1,
                           progress=False)
    on_ray = run_tournament(agents, "standard", games=4, players=3, seed=11, workers=3,
                            progress=False, backend="ray")
    assert on_ray.rows == local.rows
    assert len(local.rows) == 12 and {row["seed"] for row in local.rows} == {11, 12, 13, 14}
    assert all(row["population"] is not None and row["forfeit"] is None for row in local.rows)
    assert on_ray.config["backend"] == "ray" and local.config["backend"] == "process"


def test_dale_mode_on_ray_equals_local_processes(local_ray):
    specs = ["random", "greedy"]
    local = run_tournament(specs, "dale", games=3, seed=5, workers=2, progress=False)
    on_ray = run_tournament(specs, "dale", games=3, seed=5, workers=1, progress=False,
                            backend="ray")
    assert on_ray.rows == local.rows
    assert [row["agent"] for row in local.rows].count("Dale (engine)") == 6


def test_league_on_ray_equals_the_local_league(local_ray):
    specs = ["greedy", "random", "dale"]
    rows, _, summary, config = run_league(specs, player_counts=(2, 3), games=3, seed=2,
                                          workers=1, progress=False)
    rows_ray, _, summary_ray, config_ray = run_league(specs, player_counts=(2, 3), games=3,
                                                      seed=2, workers=2, progress=False,
                                                      backend="ray")
    assert rows_ray == rows and summary_ray == summary
    assert config_ray["games_played"] == config["games_played"] == 6


def test_records_come_back_from_ray(local_ray):
    local = run_tournament(["greedy"], "solitary", games=2, seed=3, workers=1,
                           progress=False, keep_records=True)
    on_ray = run_tournament(["greedy"], "solitary", games=2, seed=3, workers=2,
                            progress=False, keep_records=True, backend="ray")
    assert on_ray.records == local.records and len(local.records) == 2


def test_bad_specs_and_settings_fail_before_any_game(local_ray):
    with pytest.raises(AgentSpecError, match="unknown agent spec"):
        run_tournament(["greedy", "nobody"], "standard", games=2, progress=False,
                       backend="ray")
    with pytest.raises(TournamentError, match="at least 1"):
        run_tournament(["greedy"], "dale", games=2, workers=0, progress=False, backend="ray")
    with pytest.raises(TournamentError, match="backend must be one of process, ray"):
        run_tournament(["greedy"], "dale", games=2, progress=False, backend="spark")
