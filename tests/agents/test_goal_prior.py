"""The policy with a goal prior (agents/goal_prior.py): its goal term is the expected goal
bonus of each action's own-turn trial, read from what its player may know (R8.2, R10.2),
and with weight 0 it is the policy itself."""

import numpy as np
import pytest

from agents.goal_prior import GOAL_WEIGHT, GoalPriorAgent
from agents.one_ply import (OWN_CHANCES, OWN_TURN, chance_of_lead, expected_goal_bonus,
                            goal_bonus_table, goal_standing, goal_standings, play_trial,
                            trial_goal_bonuses, turns_left)
from agents.ppo_agent import PPOAgent
from agents.registry import AgentSpecError, make_agent
from agents.styles import STYLES, StyleAgent
from hidden_facts import with_other_hidden_facts
from suburbia_env import Game
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.engine.event_log import NUM_EVENT_FIELDS
from suburbia_env.engine.legal_actions import legal_action_mask
from suburbia_env.engine.scoring import goal_lead
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.tile_table import public_goal_bonus

MODEL = "models/multiplayer-styles.safetensors"


def positions(players: int, seed: int, every: int):
    """Every `every`-th position of a game among the styles (goal choices included)."""
    game = Game(players, "standard", "2nd", seed)
    names = list(STYLES)
    seats = [StyleAgent(names[(seed + seat) % len(names)], seed=seed + seat)
             for seat in range(game.num_seats)]
    index = 0
    while not game.is_over:
        if index % every == 0 or game.pending_decision == "keep_goal":
            yield game
        index += 1
        game.apply(seats[game.current_player].act(game))


def reference_bonuses(state) -> tuple[np.ndarray, np.ndarray]:
    """(legal actions, expected goal bonus after each one's own-turn trial), every trial
    scored by `expected_goal_bonus` alone."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(NUM_ACTIONS, dtype=np.int32)
    count = legal_action_mask(state, TILES.table, TILES.basic_kinds, mask, actions)
    bonuses = np.zeros(count)
    if count > 1:
        player, future = state[s.CURRENT_PLAYER], turns_left(state)
        scratch = np.empty_like(state)
        log = np.zeros((1, NUM_EVENT_FIELDS), dtype=np.int32)
        for index in range(count):
            play_trial(scratch, state, TILES.table, GOALS.table, TILES.basic_kinds, OWN_TURN,
                       actions[index], log)
            bonuses[index] = expected_goal_bonus(scratch, TILES.table, GOALS.table, player,
                                                 future, OWN_CHANCES)
    return actions[:count].copy(), bonuses


def reference_denial(state, player: int, future: float) -> float:
    """The other players' expected public goal bonuses in `state`: each public goal's bonus
    times the best chance of any other player to end alone in front (goal_lead, R8.2)."""
    total = 0.0
    for index in range(4):
        goal = s.public_goal(state, index)
        if goal < 0:
            continue
        total += public_goal_bonus(GOALS.table, goal) * max(
            chance_of_lead(GOALS.table, goal, goal_lead(state, TILES.table, GOALS.table, goal,
                                                        other), future)
            for other in range(state[s.NUM_PLAYERS]) if other != player)
    return total


@pytest.mark.parametrize("players, seed", [(2, 31), (3, 32), (4, 33)])
def test_the_denial_subtracts_the_others_expected_public_goal_bonuses(players, seed):
    """With a denial D the term is the own bonus less D x the best other player's chance
    on each public goal times its bonus, after the same trial; D = 0 is the own bonus."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(NUM_ACTIONS, dtype=np.int32)
    scratch_log = np.zeros((1, NUM_EVENT_FIELDS), dtype=np.int32)
    compared = differing = 0
    for game in positions(players, seed, every=4):
        state = game.state
        own = trial_goal_bonuses(state, TILES.table, GOALS.table, TILES.basic_kinds, mask,
                                 actions, 0.0, OWN_CHANCES)
        legal = actions[:len(own)].copy()
        denied = trial_goal_bonuses(state, TILES.table, GOALS.table, TILES.basic_kinds, mask,
                                    actions, 0.5, OWN_CHANCES)
        assert np.array_equal(actions[:len(denied)], legal)
        if len(legal) == 1:
            assert denied.tolist() == [0.0]
            continue
        player, future = state[s.CURRENT_PLAYER], turns_left(state)
        scratch = np.empty_like(state)
        for index, action in enumerate(legal):
            play_trial(scratch, state, TILES.table, GOALS.table, TILES.basic_kinds, OWN_TURN,
                       action, scratch_log)
            expected = own[index] - 0.5 * reference_denial(scratch, player, future)
            assert denied[index] == pytest.approx(expected, abs=1e-9)
            differing += denied[index] != own[index]
            compared += 1
    assert compared > 100 and differing > compared // 2


@pytest.mark.parametrize("players, seed", [(2, 41), (3, 42), (4, 43)])
def test_the_goal_standing_is_the_own_bonus_less_the_others_public_ones(players, seed):
    """goal_standing (the fast learner's goal shaping potential): the seat to move's
    expected goal bonus less the best other player's chance on each public goal times its
    bonus (R8.2), for every game of a batch (goal_standings); 0 once the game is over."""
    states, expected = [], []
    for game in positions(players, seed, every=2):
        state = game.state
        player, future = state[s.CURRENT_PLAYER], turns_left(state)
        states.append(state.copy())
        expected.append(expected_goal_bonus(state, TILES.table, GOALS.table, player, future,
                                            OWN_CHANCES)
                        - reference_denial(state, player, future))
        assert goal_standing(state, TILES.table, GOALS.table, OWN_CHANCES) == pytest.approx(
            expected[-1], abs=1e-9)
    batch = np.zeros(len(states))
    goal_standings(np.stack(states), TILES.table, GOALS.table, batch, OWN_CHANCES)
    assert batch == pytest.approx(expected, abs=1e-9)
    assert len(states) > 15 and batch.max() - batch.min() > 5
    assert goal_standing(game.state, TILES.table, GOALS.table, OWN_CHANCES) == 0.0
    assert game.is_over


@pytest.mark.parametrize("players, seed", [(2, 11), (3, 12), (4, 13)])
def test_the_goal_bonuses_of_the_trials_are_the_reference_ones(players, seed):
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(NUM_ACTIONS, dtype=np.int32)
    compared = varied = 0
    for game in positions(players, seed, every=3):
        before = game.state.copy()
        fast = trial_goal_bonuses(game.state, TILES.table, GOALS.table, TILES.basic_kinds,
                                  mask, actions, 0.0, OWN_CHANCES)
        legal, slow = reference_bonuses(game.state)
        assert np.array_equal(actions[:len(fast)], legal)
        assert np.array_equal(fast, slow)  # bit for bit
        assert np.array_equal(game.state, before)
        compared += len(fast)
        varied += int(len(fast) > 1 and fast.max() > fast.min() + 0.5)
    assert compared > 1000
    assert varied > 10  # some decisions move a goal's chances by half a population or more


def test_with_weight_zero_it_plays_as_the_policy():
    prior, policy = make_agent(f"ppo-goals:{MODEL},0"), make_agent(f"ppo:{MODEL}")
    game, moves = Game(3, seed=5), 0
    while not game.is_over:
        action = prior.act(game)
        assert action == policy.act(game)
        game.apply(action)
        moves += 1
    assert moves > 60


def test_its_choice_is_the_best_prior_score_and_sometimes_not_the_policys():
    agent = make_agent(f"ppo-goals:{MODEL}")
    assert isinstance(agent, GoalPriorAgent) and agent.weight == GOAL_WEIGHT
    policy = PPOAgent(MODEL)
    game, differ, decided = Game(2, seed=7), 0, 0
    while not game.is_over:
        legal, bonuses = reference_bonuses(game.state)
        chosen = agent.act(game)
        if len(legal) > 1:
            probabilities = agent.probabilities(game)
            scores = np.log(np.maximum(probabilities[legal], 1e-12)) + GOAL_WEIGHT * bonuses
            assert chosen == legal[np.argmax(scores)]
            differ += int(chosen != policy.act(game))
            decided += 1
        game.apply(chosen)
    assert decided > 20 and differ >= 1


def test_hidden_facts_do_not_change_its_choice():
    """R10.2: other players' goals, the stack order and One More Round's place are not read."""
    agent = make_agent(f"ppo-goals:{MODEL}")
    checked = differing = 0
    for seed in range(3):
        for game in positions(3, 40 + seed, every=7):
            twin = Game.from_state(game.config, with_other_hidden_facts(game.state, seed))
            differing += int((twin.state != game.state).any())
            assert agent.act(twin) == agent.act(game)
            checked += 1
    assert checked > 20 and differing > 20


@pytest.mark.parametrize("spec, message", [
    ("ppo-goals:", "give the model file"),
    (f"ppo-goals:{MODEL},-1", "at least 0"),
    (f"ppo-goals:{MODEL},inf", "finite"),
    (f"ppo-goals:{MODEL},heavy", "finite number"),
    (f"ppo-goals:{MODEL},1,2", "at most one setting"),
])
def test_bad_goal_prior_specs_say_what_is_wrong(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def _breakdown():
    import importlib.util
    from repository import REPO
    spec = importlib.util.spec_from_file_location(
        "score_breakdown", REPO / "benchmarks" / "score_breakdown.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_score_breakdown_adds_up_and_pairs_the_agents_on_the_same_deals():
    """benchmarks/score_breakdown.py: the parts of every score add up to the final
    population (R8.2), each agent meets the same deals and seats, and the weight-0 goal
    prior, which plays as the policy, differs from it in no game."""
    import io
    breakdown = _breakdown()
    out = io.StringIO()
    policy, same, prior = breakdown.main(
        ["--agents", f"ppo:{MODEL}", f"ppo-goals:{MODEL},0", f"ppo-goals:{MODEL}",
         "--opponent", "goals", "--games", "4", "--seed", "7600000", "--by-goal"], out=out)
    for records in (policy, same, prior):
        assert [record["seat"] for record in records] == [0, 1, 0, 1]
        for record in records:
            for side in ("agent", "opponent"):
                parts = record[side]
                assert (parts["population_before_goals"] + parts["public_goals"]
                        + parts["private_goal_bonus"] + parts["money_converted"]
                        == parts["population"])
            assert record["win"] in (0.0, 0.5, 1.0)
    assert same == policy
    text = out.getvalue()
    assert text.count("win share") == 3 and "+0.000 [+0.000, +0.000] (0 up, 0 down)" in text
    entry = breakdown.summary(prior)
    assert entry["win_rate"] == sum(record["win"] for record in prior) / 4
    # --by-goal: each game's public goals (two at 2 players, R3.6) went to one side or none
    for record in prior:
        taken = record["public_goals_taken"]
        assert len(taken) == 2 and set(taken.values()) <= {"agent", "opponent", "nobody"}
        assert ("agent" in taken.values()) == (record["agent"]["public_goals"] > 0)
        assert ("opponent" in taken.values()) == (record["opponent"]["public_goals"] > 0)
    table = breakdown.by_goal(prior)
    assert sum(row["games"] for row in table.values()) == 8
    for name, row in table.items():
        assert row["agent"] + row["opponent"] + row["nobody"] == row["games"]
        assert row["agent"] == sum(r["public_goals_taken"].get(name) == "agent" for r in prior)
        assert row["opponent_in_not_won"] == sum(
            r["public_goals_taken"].get(name) == "opponent" and r["win"] < 1 for r in prior)
        assert f"  {name:<24} {row['games']:>5}  " in text
    shares = [row["opponent"] / row["games"] for row in table.values()]
    assert shares == sorted(shares, reverse=True)


def test_a_search_of_one_candidate_with_the_goal_weight_plays_as_the_goal_prior():
    """The search's candidates are ranked by the goal prior when G is given: with one
    candidate it has nothing to choose and plays the goal prior's move."""
    search = make_agent(f"ppo-rollout:{MODEL},1,1,0,model,1", seed=3)
    prior = make_agent(f"ppo-goals:{MODEL},1")
    assert search.goal_weight == 1.0
    game, differ = Game(2, seed=9), 0
    for _ in range(14):  # the first decisions of a game: a rollout to the end each
        action = prior.act(game)
        assert search.act(game) == action
        differ += int(action != prior.policy.act(game))
        game.apply(action)
    assert differ >= 1


def test_inside_its_trials_the_search_plays_its_own_moves_as_the_goal_prior():
    """With G the trials go on as the searching agent would play (its candidates are the
    goal prior's): its own moves are the goal prior's choice, every other seat's the
    model's most probable move."""
    search = make_agent(f"ppo-rollout:{MODEL},4,4,0,model,1", seed=3)
    prior = make_agent(f"ppo-goals:{MODEL},1")
    own, others = [], []
    for game in positions(3, 21, 1):
        if game.current_player != 0:
            others.append(game.state.copy())
        elif prior.act(game) != prior.policy.act(game):  # where the two differ
            own.append(game.state.copy())
    assert len(own) >= 2 and len(others) >= 8
    states = own[:8] + others[:8]
    rows = len(states)
    search._trial_states[:rows] = states
    search._write_trial_outputs(rows)
    config = Game(3, seed=21).config
    which = search._running[:rows].copy()
    assert which.all()
    chosen = search._policy_actions(which, goal_seat=0)
    for row in range(rows):
        view = Game.view(config, search._trial_states[row])
        agent = prior if view.current_player == 0 else prior.policy
        assert chosen[row] == agent.act(view)


@pytest.mark.parametrize("chunks", [1, 2, 3])
def test_the_batched_goal_bonus_table_holds_each_rows_trial_bonuses(chunks):
    """goal_bonus_table (what the fast learner adds to the scores): row i holds the
    reference bonus of each legal action of position i and 0 at every illegal action,
    whatever the number of chunks."""
    states = np.stack([game.state.copy() for players, seed in [(2, 21), (3, 22), (4, 23)]
                       for game in positions(players, seed, every=9)])
    table = np.full((states.shape[0], NUM_ACTIONS), 7.0, dtype=np.float32)
    goal_bonus_table(states, TILES.table, GOALS.table, TILES.basic_kinds, table, chunks, 0.0,
                     OWN_CHANCES)
    nonzero = 0
    for state, row in zip(states, table):
        legal, bonuses = reference_bonuses(state)
        expected = np.zeros(NUM_ACTIONS, dtype=np.float32)
        expected[legal] = bonuses
        assert np.allclose(row, expected, rtol=1e-6, atol=1e-6)
        nonzero += np.count_nonzero(row)
    assert states.shape[0] > 20 and nonzero > 100


def carried_model(tmp_path, weight: float = GOAL_WEIGHT, denial: float = 0.0,
                  chances=OWN_CHANCES) -> str:
    """MODEL's network saved carrying a goal prior weight (and denial, refit chances), as a
    run with --goal-prior-weight (--goal-prior-denial, --goal-chances) saves it."""
    from agents.model_format import load_safe_model, save_safe_model
    model = load_safe_model(MODEL)
    model.policy.network.goal_prior_weight = weight
    model.policy.network.goal_prior_denial = denial
    model.policy.network.goal_chances = np.asarray(chances, dtype=np.float64)
    path = tmp_path / "carried.safetensors"
    save_safe_model(model.policy, path, model.gamma, training={"note": "test"})
    return str(path)


def test_a_network_trained_with_the_goal_prior_carries_it_and_plays_with_it(tmp_path):
    """The weight is in the model's description; `ppo:` on such a model plays as
    `ppo-goals:` with that weight on the plain network, and refuses to play from an
    observation alone (the term reads the state)."""
    import json
    from suburbia_env.errors import ConfigError
    path = carried_model(tmp_path, 1.5)
    description = json.loads((tmp_path / "carried.json").read_text())
    assert description["policy"]["goal_prior_weight"] == 1.5
    carried = make_agent(f"ppo:{path}")
    assert carried.goal_prior_weight == 1.5
    reference = GoalPriorAgent(MODEL, 1.5)
    plain = PPOAgent(MODEL)
    assert plain.goal_prior_weight == 0.0
    differ = 0
    for players, seed in [(2, 31), (4, 32)]:
        for game in positions(players, seed, every=4):
            assert carried.act(game) == reference.act(game)
            differ += carried.act(game) != plain.act(game)
    assert differ > 0
    with pytest.raises(ConfigError, match="plays with a goal prior .* call act\\(game\\)"):
        carried.act_on_observation(np.zeros(carried._observation.shape, np.float32),
                                   np.ones(NUM_ACTIONS, dtype=bool))


def test_the_search_on_a_carrying_model_uses_its_weight_unless_told(tmp_path):
    path = carried_model(tmp_path, 1.5)
    assert make_agent(f"ppo-rollout:{path},2,2").goal_weight == 1.5
    assert make_agent(f"ppo-rollout:{path},2,2,0,inferred,0").goal_weight == 0.0
    assert make_agent(f"ppo-rollout:{MODEL},2,2").goal_weight == 0.0


def test_the_greedy_evaluation_plays_a_carrying_model_with_its_prior(tmp_path):
    """training.evaluation (the recipes' gates): the same games as GoalPriorAgent in the
    learner's seat against greedy."""
    from agents.greedy import GreedyAgent
    from agents.model_format import load_safe_model
    from training.evaluation import play_against_greedy
    path = carried_model(tmp_path)
    played = play_against_greedy(load_safe_model(path), 0, 3, 500, 2)
    reference, greedy = GoalPriorAgent(MODEL), GreedyAgent()
    populations = []
    for index in range(3):
        game = Game(2, "standard", "2nd", 500 + index)
        while not game.is_over:
            seat = game.current_player
            game.apply((reference if seat == index % 2 else greedy).act(game))
        populations.append(game.final_scores()[index % 2]["population"])
    assert played["populations"] == populations


def assert_carried_term_played(carried, path: str, denial: float, chances) -> None:
    """The agent `carried` (`ppo:` of the model at `path`, weight 1) plays the argmax of
    the goal term with `denial` and `chances` on the plain network's probabilities, which
    differs from the plain term somewhere, and the recipes' evaluation plays its moves."""
    from agents.goal_term import goal_prior_scores
    own_term = GoalPriorAgent(MODEL, 1.0)
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(NUM_ACTIONS, dtype=np.int32)
    differ = 0
    for players, seed in [(2, 41), (3, 42)]:
        for game in positions(players, seed, every=3):
            legal, scores = goal_prior_scores(game.state, own_term.probabilities(game), 1.0,
                                              mask, actions, denial, chances)
            choice = carried.act(game)
            assert choice == legal[np.argmax(scores)]
            differ += choice != own_term.act(game)
    assert differ > 0
    assert_evaluation_plays_as(carried, path)


def assert_evaluation_plays_as(carried, path: str) -> None:
    """The recipes' greedy evaluation of the model at `path` plays the moves of the agent
    `carried` (two games against greedy, the same final populations)."""
    from agents.greedy import GreedyAgent
    from agents.model_format import load_safe_model
    from training.evaluation import play_against_greedy
    played = play_against_greedy(load_safe_model(path), 0, 2, 700, 2)
    greedy = GreedyAgent()
    for index in range(2):
        game = Game(2, "standard", "2nd", 700 + index)
        while not game.is_over:
            seat = game.current_player
            game.apply((carried if seat == index % 2 else greedy).act(game))
        assert played["populations"][index] == game.final_scores()[index % 2]["population"]


def test_a_carried_denial_is_played_by_the_policy_the_search_and_the_evaluation(tmp_path):
    """A model trained with --goal-prior-denial D plays the argmax of the goal term with
    that denial (goal_term.goal_prior_scores) on its plain network's probabilities, its
    search's candidates use it, and the recipes' greedy evaluation plays the same moves."""
    import json
    path = carried_model(tmp_path, 1.0, 0.5)
    description = json.loads((tmp_path / "carried.json").read_text())
    assert description["policy"]["goal_prior_denial"] == 0.5
    carried = make_agent(f"ppo:{path}")
    assert (carried.goal_prior_weight, carried.goal_prior_denial) == (1.0, 0.5)
    assert make_agent(f"ppo-rollout:{path},2,2").goal_denial == 0.5
    assert_carried_term_played(carried, path, 0.5, OWN_CHANCES)


def test_carried_goal_chances_are_played_by_the_policy_the_search_and_the_evaluation(
        tmp_path):
    """A model trained with --goal-chances carries them (policy.goal_chances): `ppo:` plays
    the argmax of the goal term with those chances, its search's candidates and rollouts
    use them, and the recipes' greedy evaluation plays the same moves."""
    import json
    refit = np.array([[0.13, 0.04, 0.24], [0.17, 0.04, -0.27], [3.6, 1.27, -2.9],
                      [0.05, 0.07, 0.7], [1.07, 1.07, 1.25], [2.0, 0.48, -1.69],
                      [0.03, 0.02, 0.05], [0.08, 0.06, 0.07]])
    path = carried_model(tmp_path, 1.0, 0.0, refit)
    description = json.loads((tmp_path / "carried.json").read_text())
    assert description["policy"]["goal_chances"] == refit.tolist()
    carried = make_agent(f"ppo:{path}")
    assert carried.goal_chances.tolist() == refit.tolist()
    assert make_agent(f"ppo-rollout:{path},2,2").goal_chances.tolist() == refit.tolist()
    assert_carried_term_played(carried, path, 0.0, refit)


@pytest.mark.parametrize("field, value, message", [
    ("goal_prior_weight", -1, "must be in 0..100"),
    ("goal_prior_weight", 1000, "must be in 0..100"),
    ("goal_prior_weight", "x", "must be a finite number"),
    ("goal_prior_denial", -0.5, "must be in 0..1"), ("goal_prior_denial", 1.5, "must be in 0..1"),
    ("goal_chances", [[1.0, 0.1, 0.5]] * 7, "must be 8 rows"),
    ("goal_chances", [[1.0, -0.1, 0.5]] * 8, "needs s0 > 0"),
    ("goal_chances", [[1.0, 0.1, "x"]] * 8, "must be a list of rows"),
    ("goal_chances", [[1.0, 0.1, float("nan")]] * 8, "must hold finite")])
def test_a_bad_carried_goal_term_setting_is_refused_by_name(tmp_path, field, value, message):
    import json
    from agents.model_format import load_safe_model
    from suburbia_env.errors import ModelFormatError
    path = carried_model(tmp_path)
    description_path = tmp_path / "carried.json"
    description = json.loads(description_path.read_text())
    description["policy"][field] = value
    description_path.write_text(json.dumps(description))
    with pytest.raises(ModelFormatError, match=f"policy.{field} {message}"):
        load_safe_model(path)
