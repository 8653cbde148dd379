"""The search agents (agents/value_search.py) with the committed baseline model: legal,
reproducible play, the policy's own choice with one candidate, no use of hidden facts
(R10.2), and clear errors for modes and specs they cannot serve."""

from __future__ import annotations

import numpy as np
import pytest

from agents import AgentSpecError, PPOAgent, ValueSearchAgent, make_agent
from agents.greedy import GreedyAgent
from hidden_facts import seen_by, with_other_hidden_facts
from repository import REPO
from suburbia_env import Game
from suburbia_env.engine import state_layout as s
from suburbia_env.errors import ConfigError
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.engine.tile_data import TILES

BASELINE = REPO / "models" / "baseline.safetensors"


def _play(agent, seed, decisions=None):
    game = Game(1, "dale", "2nd", seed)
    agent.reset(seed)
    chosen = []
    while not game.is_over and (decisions is None or len(chosen) < decisions):
        action = agent.act(game)
        assert game.is_legal(action)
        chosen.append(action)
        game.apply(action)
    return game, chosen


@pytest.fixture(scope="module")
def rollout_agent():
    return make_agent(f"ppo-rollout:{BASELINE},3,2")


def test_specs_give_the_documented_settings():
    rollout = make_agent(f"ppo-rollout:{BASELINE}")
    assert (rollout.evaluation, rollout.candidates, rollout.samples, rollout.prior_weight,
            rollout.reward, rollout.margin_weight, rollout.opponent_name) == (
        "rollout", 4, 4, 0.0, "win_loss", 0.5, "inferred")
    critic = make_agent(f"ppo-search:{BASELINE},5,2,0.1")
    assert (critic.evaluation, critic.candidates, critic.samples, critic.prior_weight,
            critic.reward, critic.opponent_name) == ("critic", 5, 2, 0.1, "margin", "inferred")
    assert ValueSearchAgent(BASELINE).opponent_name == "inferred"


@pytest.mark.parametrize("spec,message", [
    ("ppo-rollout:", "give the model file"),
    (f"ppo-rollout:{BASELINE},0", "at least 1"),
    (f"ppo-search:{BASELINE},two", "whole numbers"),
    (f"ppo-search:{BASELINE},1,2,3,model,1,5", "up to five"),
    (f"ppo-search:{BASELINE},1,2,3,model,nan", "G .the goal prior's weight. must be a finite"),
    (f"ppo-rollout:{BASELINE},1,2,0,chess", "must be one of inferred, model, greedy, dale"),
])
def test_bad_search_specs_name_the_problem(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


@pytest.mark.slow
def test_a_whole_game_against_dale_is_legal_and_reproducible(rollout_agent):
    first, first_actions = _play(rollout_agent, seed=3)
    second, second_actions = _play(make_agent(f"ppo-rollout:{BASELINE},3,2"), seed=3)
    assert first.is_over
    assert first_actions == second_actions
    assert first.final_scores() == second.final_scores()


def test_one_candidate_is_the_policy_own_choice():
    """With one candidate nothing is searched: the agent plays the model's top action."""
    search = ValueSearchAgent(BASELINE, candidates=1, samples=1)
    policy = PPOAgent(BASELINE)
    game = Game(1, "dale", "2nd", 8)
    for _ in range(12):
        assert search.act(game) == policy.act(game)
        game.apply(policy.act(game))


@pytest.mark.parametrize("evaluation", ["rollout", "critic"])
def test_hidden_facts_do_not_change_the_choice(evaluation):
    """R10.2: positions that differ only in stack order, box split and the place of
    One More Round get the same action from the same agent seed."""
    agent = ValueSearchAgent(BASELINE, candidates=4, samples=2, evaluation=evaluation,
                             reward="margin")
    differing = 0
    for seed in range(4):
        game, _ = _play(PPOAgent(BASELINE), seed, decisions=3 * seed)
        other = Game.from_state(game.config, with_other_hidden_facts(game.state, seed))
        differing += int((other.state != game.state).any())
        agent.reset(seed)
        action = agent.act(game)
        agent.reset(seed)
        assert agent.act(other) == action
    assert differing == 4


def test_search_changes_some_choices(rollout_agent):
    """Not the policy in disguise: over a game some searched choices differ from it."""
    policy = PPOAgent(BASELINE)
    game = Game(1, "dale", "2nd", 5)
    rollout_agent.reset(5)
    differences = 0
    while not game.is_over:
        action = rollout_agent.act(game)
        differences += int(action != policy.act(game))
        game.apply(action)
    assert differences > 0


def _standard_position(players, seed, decisions):
    game = Game(players, "standard", "2nd", seed)
    policy = PPOAgent(BASELINE)
    for _ in range(decisions):
        game.apply(policy.act(game))
    return game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_standard_games_are_searched_legally_and_reproducibly(players):
    """The other seats are played inside the trials by the model (each from its own view)
    or greedy; the same agent seed gives the same choices."""
    game = _standard_position(players, seed=players, decisions=players + 3)
    chosen = []
    for _ in range(2):
        agent = make_agent(f"ppo-rollout:{BASELINE},2,1")
        agent.reset(11)
        replay = game.copy()
        actions = []
        for _ in range(3):
            action = agent.act(replay)
            assert replay.is_legal(action)
            actions.append(action)
            replay.apply(action)
        chosen.append(actions)
    assert chosen[0] == chosen[1]


# Positions of standard games (players, seed, decisions played by the policy): during the
# goal choice (R3.6: a player has kept a goal, the next is choosing), early and mid game.
STANDARD_POSITIONS = {players: [(players, 20 + players, 1), (players, 30 + players, players + 2),
                                (players, 40 + players, 6 * players + 5)]
                      for players in (2, 3, 4)}


def _hidden_facts_changed(game, seed):
    """`game` with everything its current player cannot see replaced (R10.2): the other
    players' kept and returned goals, the order of the stacks and their split with the
    box, the place of One More Round in its block (tests/hidden_facts.py) and the game's
    own generator words (which could replay the setup). Returns the new game and what
    differs."""
    viewer = game.current_player
    other = _twin_seen_by(game, viewer, seed)
    one_more_round = TILES.table.shape[0] - 1
    drawn = int(game.state[s.PILE_POSITION])
    pile, other_pile = (state[s.PILE + drawn:s.PILE + state[s.PILE_END]]
                        for state in (game.state, other.state))
    changed = {
        "goals": all(other.goal_options(p) != game.goal_options(p)
                     for p in range(game.num_seats) if p != viewer),
        "kept goals": [p for p in range(game.num_seats) if p != viewer
                       and game.private_goal(p) is not None
                       and other.private_goal(p) != game.private_goal(p)],
        "stacks": not np.array_equal(pile, other_pile),
        "one more round": (np.flatnonzero(pile == one_more_round).tolist()
                           != np.flatnonzero(other_pile == one_more_round).tolist()),
    }
    # what the player sees is the same: its observation and its legal actions
    assert np.array_equal(_observation(game), _observation(other))
    assert np.array_equal(game.legal_action_mask(), other.legal_action_mask())
    return other, changed


def _observation(game):
    observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    encode_observation(game.state, TILES.table, game.current_player, observation)
    return observation


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("evaluation,opponent", [("rollout", "model"), ("critic", "model"),
                                                 ("rollout", "greedy"), ("rollout", "mixed"),
                                                 ("rollout", "inferred")])
def test_hidden_facts_of_standard_games_do_not_change_the_search(players, evaluation,
                                                                 opponent):
    """R10.2 at 2, 3 and 4 players: with the search's own random stream fixed (reset to
    the same seed), positions that differ only in what the player cannot see get the
    same choice and, to the last bit, the same value for every candidate. A different
    seed of the search's own stream changes the values (the redraws are used, so the
    equality is not that of a search that ignores them)."""
    agent = ValueSearchAgent(BASELINE, candidates=3, samples=2, evaluation=evaluation,
                             reward="margin", opponent=opponent)
    changes = []
    values_moved_by_own_seed = 0
    for players_, seed, decisions in STANDARD_POSITIONS[players]:
        game = _standard_position(players_, seed, decisions)
        other, changed = _hidden_facts_changed(game, seed)
        changes.append(changed)
        candidates = np.flatnonzero(game.legal_action_mask())[:3].astype(np.int32)
        agent.reset(seed)
        action = agent.act(game)
        values = agent.candidate_values(game.state, candidates)
        agent.reset(seed)
        assert agent.act(other) == action
        assert np.array_equal(agent.candidate_values(other.state, candidates), values)
        agent.reset(seed + 1000)
        agent.act(game)
        values_moved_by_own_seed += not np.array_equal(
            agent.candidate_values(game.state, candidates), values)
    assert all(changed["goals"] and changed["stacks"] for changed in changes)
    assert any(changed["kept goals"] for changed in changes)
    assert any(changed["one more round"] for changed in changes)
    assert values_moved_by_own_seed >= 1


@pytest.mark.parametrize("players", [2, 4])
def test_the_mixed_opponent_is_the_model_in_even_redraws_and_greedy_in_odd_ones(players):
    """`mixed` values a candidate by the model playing the other seats in redraw 0 and the
    greedy player in redraw 1: its mean over two redraws is (model's redraw 0 + greedy's
    redraw 1) / 2, each read off searches with one and two redraws on the same stream."""
    game = _standard_position(players, 50 + players, 2 * players + 3)
    candidates = np.flatnonzero(game.legal_action_mask())[:3].astype(np.int32)

    def values(opponent, samples):
        agent = ValueSearchAgent(BASELINE, candidates=3, samples=samples, opponent=opponent)
        agent.act(game)
        agent.reset(9)
        return agent.candidate_values(game.state, candidates)

    model_0, greedy_0 = values("model", 1), values("greedy", 1)
    greedy_1 = 2 * values("greedy", 2) - greedy_0
    assert np.array_equal(values("mixed", 1), model_0)
    assert np.allclose(values("mixed", 2), (model_0 + greedy_1) / 2)
    assert not np.allclose(model_0, greedy_0)  # the two opponents play differently here
    assert make_agent(f"ppo-rollout:{BASELINE},2,2,0,mixed").opponent_name == "mixed"
    assert make_agent(f"ppo-rollout:{BASELINE},2,2,0,inferred").opponent_name == "inferred"
    styles = make_agent(f"ppo-rollout:{BASELINE},2,2,0,inferred-styles")
    assert styles.opponent_name == "inferred-styles" and styles.inferred and styles.models_styles


def _observed_game(seed, observer=0):
    """A 4-player game played by the baseline policy at seats 0 and 2 and by greedy at 1
    and 3, every move of seats 1-3 shown to an "inferred" search agent at `observer`;
    returns the agent and the shares it gave greedy after 18 moves of seats 1-3 (their
    goal choices included, which are no evidence) and at the end."""
    agent = ValueSearchAgent(BASELINE, candidates=2, samples=4, opponent="inferred")
    agent.reset(seed)
    players = {0: PPOAgent(BASELINE), 1: GreedyAgent(), 2: PPOAgent(BASELINE),
               3: GreedyAgent()}
    game = Game(4, "standard", "2nd", seed)
    shares, shown = [], 0
    while not game.is_over:
        action = game.action_number(players[game.current_player].act(game))
        if game.current_player != observer:
            agent.observe(game, action, observer)
            shown += 1
            if shown == 6 * 3:
                shares.append(agent.opponent_shares()[:4].copy())
        game.apply(action)
    shares.append(agent.opponent_shares()[:4].copy())
    return agent, shares


def test_inferred_opponents_are_told_apart_by_their_moves():
    """Shown the moves of two greedy players and a copy of its own model, "inferred" gives
    greedy the greedy seats' redraws and the model the other's, within five turns each;
    reset() forgets the game and plays as "mixed" again."""
    agent, (early, final) = _observed_game(seed=7)
    for shares in (early, final):
        assert shares[1] > 0.99 and shares[3] > 0.99 and shares[2] < 0.01
    assert final[0] == 0.5  # its own seat: no evidence
    assert np.array_equal(agent._opponent_redraws()[:, 1:4],
                          np.array([[True, False, True]] * 4))
    agent.reset(7)
    assert np.array_equal(agent.opponent_shares(), np.full(4, 0.5))
    mixed = ValueSearchAgent(BASELINE, candidates=2, samples=4, opponent="mixed")
    assert np.array_equal(agent._opponent_redraws(), mixed._opponent_redraws())
    assert np.array_equal(mixed._opponent_redraws()[:, 0], [False, True, False, True])


def _twin_seen_by(game, viewer, seed):
    """`game` with what `viewer` cannot see changed (tests/hidden_facts.py, R10.2), whoever
    decides now; the twin looks the same to `viewer`."""
    as_seen = game.state.copy()
    as_seen[s.CURRENT_PLAYER] = viewer
    other_state = with_other_hidden_facts(as_seen, seed)
    other_state[s.CURRENT_PLAYER] = game.current_player
    other_state[s.RNG_STATE:s.RNG_STATE + 4] = np.random.default_rng(seed).integers(
        1, 2**31, size=4)
    other = Game.from_state(game.config, other_state)
    assert np.array_equal(seen_by(game.state, viewer), seen_by(other.state, viewer))
    return other


def test_the_evidence_of_a_move_uses_only_what_the_observer_sees():
    """R10.2 for observe: seat 0 shown seat 1's turn, in two positions that differ only in
    what seat 0 cannot see (the other seats' goals, the stacks, One More Round, the game's
    generator), moves its odds the same way for every move seat 1 could make, and some
    of those moves are evidence. The model, reading seat 1's true view, would choose
    differently in the two: a search that asked it so would be caught."""
    game = _standard_position(4, 61, 22)
    assert game.current_player == 1 and game.pending_decision == "turn"
    other = _twin_seen_by(game, 0, 61)
    assert other.private_goal(1) != game.private_goal(1)
    model = PPOAgent(BASELINE)
    assert model.act(game) != model.act(other)
    agent = ValueSearchAgent(BASELINE, candidates=2, samples=2, opponent="inferred")
    moved = 0
    for action in game.legal_actions():
        odds, evidence = [], []
        for position in (game, other):
            agent.reset(5)
            agent.observe(position, int(action), 0)
            odds.append(agent.greedy_log_odds[1])
            evidence.append(agent.log_evidence.copy())
        assert odds[0] == odds[1]
        assert np.array_equal(evidence[0], evidence[1])  # the fallback's evidence too
        moved += odds[0] != 0.0
    assert moved >= 2


def test_with_evidence_hidden_facts_still_do_not_change_the_search():
    """R10.2 after observe: evidence gathered on twin positions (above), then a decision
    of seat 0 in twin positions, gives the same value to every candidate; the evidence
    is used (the values differ from those with none)."""
    shown = _standard_position(4, 61, 22)
    shown_twin = _twin_seen_by(shown, 0, 61)
    evidence = next(int(action) for action in shown.legal_actions()
                    if _odds_after(shown, int(action))[1] < -5)
    deciding = _standard_position(4, 61, 27)
    assert deciding.current_player == 0
    twin = _twin_seen_by(deciding, 0, 62)
    candidates = np.flatnonzero(deciding.legal_action_mask())[:3].astype(np.int32)
    agent = ValueSearchAgent(BASELINE, candidates=3, samples=2, opponent="inferred")
    agent.act(deciding)  # takes the game's configuration
    values = []
    for seen, position in ((shown, deciding), (shown_twin, twin), (None, deciding)):
        agent.reset(8)
        if seen is not None:
            agent.observe(seen, evidence, 0)
        values.append(agent.candidate_values(position.state, candidates))
    assert np.array_equal(values[0], values[1])
    assert not np.array_equal(values[0], values[2])


def _odds_after(game, action):
    agent = ValueSearchAgent(BASELINE, candidates=2, samples=2, opponent="inferred")
    agent.reset(8)
    agent.observe(game, action, 0)
    return agent.greedy_log_odds


def test_each_seat_is_played_by_the_kind_its_odds_name():
    """Certain odds for every seat give the values of the greedy or the model opponent
    exactly; odds that differ between seats give neither."""
    game = _standard_position(4, 63, 4 * 3 + 4)
    candidates = np.flatnonzero(game.legal_action_mask())[:3].astype(np.int32)

    def values(opponent, odds=None):
        agent = ValueSearchAgent(BASELINE, candidates=3, samples=2, opponent=opponent)
        agent.act(game)  # takes the game's configuration
        agent.reset(9)
        if odds is not None:
            agent.greedy_log_odds[:] = odds
        return agent.candidate_values(game.state, candidates)

    greedy, model = values("greedy"), values("model")
    assert not np.array_equal(greedy, model)
    assert np.array_equal(values("inferred", [60] * 4), greedy)
    assert np.array_equal(values("inferred", [-60] * 4), model)
    others = [seat for seat in range(4) if seat != game.current_player]
    odds = np.zeros(4)
    odds[others] = [60, -60, 60]
    split = values("inferred", odds)
    assert not np.array_equal(split, greedy) and not np.array_equal(split, model)


def test_the_goal_choice_is_no_evidence():
    """R3.6: which goal a player keeps is hidden, so showing it moves nothing."""
    game = Game(3, "standard", "2nd", 4)
    game.apply(game.legal_actions()[0])
    assert game.pending_decision == "keep_goal" and game.current_player == 1
    agent = ValueSearchAgent(BASELINE, candidates=2, samples=2, opponent="inferred")
    for action in game.legal_actions():
        agent.reset(3)
        agent.observe(game, int(action), 0)
        assert np.array_equal(agent.greedy_log_odds, np.zeros(4))


def test_against_dale_the_opponent_model_changes_nothing():
    """R9.2: Dale's turns are the engine's, so no opponent model plays inside the trials
    and the default search makes the choices of the `model` one, value for value."""
    game = Game(1, "dale", "2nd", 3)
    inferred, model = (ValueSearchAgent(BASELINE, candidates=3, samples=2, opponent=opponent)
                       for opponent in ("inferred", "model"))
    for _ in range(6):
        candidates = np.flatnonzero(game.legal_action_mask())[:3].astype(np.int32)
        values = []
        for agent in (inferred, model):
            agent.reset(len(game.history))
            values.append(agent.candidate_values(game.state, candidates))
        assert np.array_equal(values[0], values[1])
        game.apply(model.act(game))


def test_a_tournament_seats_the_search_in_a_standard_game():
    from agents.tournament import run_tournament
    result = run_tournament([f"ppo-rollout:{BASELINE},2,1,0,greedy", "greedy"],
                            mode="standard", games=1, workers=1, progress=False)
    assert len(result.rows) == 2 and sum(row["win"] for row in result.rows) == 1.0


def test_solitary_games_are_searched(rollout_agent):
    game, actions = _play_solitary(rollout_agent)
    assert game.is_over and len(actions) > 10


def _play_solitary(agent):
    game = Game(1, "solitary", "2nd", 2)
    agent.reset(2)
    actions = []
    while not game.is_over:
        actions.append(agent.act(game))
        game.apply(actions[-1])
    return game, actions


def test_bad_settings_are_refused():
    with pytest.raises(ConfigError, match="unknown evaluation"):
        ValueSearchAgent(BASELINE, evaluation="mcts")
    with pytest.raises(ConfigError, match="at least 1"):
        ValueSearchAgent(BASELINE, samples=0)
    with pytest.raises(ConfigError, match="unknown reward scheme"):
        ValueSearchAgent(BASELINE, reward="score")
    with pytest.raises(ConfigError, match="unknown opponent model 'foo': use one of "
                                          "inferred, model, greedy, dale, random, mixed, "
                                          "inferred-styles"):
        ValueSearchAgent(BASELINE, opponent="foo")
    assert ValueSearchAgent(BASELINE, opponent="Model").opponent_name == "model"


def _watched_game(opponent, seed, observer=0, until=None):
    """A 2-player game: seat 0 the baseline policy, seat 1 `opponent` (an Agent), every
    move of seat 1 shown to an "inferred" search agent at seat 0. Returns the agent and,
    after each of seat 1's moves, (round counted from 1, unexplained?, greedy share)."""
    agent = ValueSearchAgent(BASELINE, candidates=2, samples=2, opponent="inferred")
    agent.reset(seed)
    opponent.reset(seed)
    policy = PPOAgent(BASELINE)
    game = Game(2, "standard", "2nd", seed)
    seen = []
    while not game.is_over and (until is None or game.round + 1 < until):
        mover = game.current_player
        action = game.action_number((policy if mover == observer else opponent).act(game))
        if mover != observer:
            agent.observe(game, action, observer)
            seen.append((game.round + 1, bool(agent.unexplained_seats()[mover]),
                         float(agent.opponent_shares()[mover])))
        game.apply(action)
    return agent, seen


def test_a_greedy_seat_keeps_the_greedy_model():
    """Every move of a greedy seat is greedy's choice: after its first turns the seat is
    greedy in every redraw and never handed to the safe model."""
    agent, seen = _watched_game(GreedyAgent(), seed=12)
    later = [entry for entry in seen if entry[0] >= 3]
    assert later and not any(unexplained for _, unexplained, _ in seen)
    assert all(share > 0.99 for _, _, share in later)
    assert agent._opponent_redraws()[:, 1].all()
    assert agent.seat_styles()[1] == -1  # no style explains greedy better than greedy


def test_a_seat_nothing_explains_falls_back_to_the_safe_model():
    """A seat that plays greedy to round 5 and then Dale's procedure (R9.2, seated as a
    player), whose moves neither greedy nor the model predicts: it is explained as greedy
    before the switch and unexplained within a few of its moves after it, for the rest of
    the game; the trials then play it by the policy's sampled distribution, values that
    are neither those of the greedy model nor those of the model's first choices."""
    switching = make_agent("switching:greedy,dale,round=5", seed=4)
    agent, seen = _watched_game(switching, seed=13)
    before = [unexplained for round_, unexplained, _ in seen if 2 <= round_ < 5]
    after = [unexplained for round_, unexplained, _ in seen if round_ >= 5]
    assert before and not any(before)
    first = after.index(True)
    assert first <= 8 and all(after[first + 2:])

    game = _standard_position(2, 14, 9)
    assert game.current_player == 0
    candidates = np.flatnonzero(game.legal_action_mask())[:3].astype(np.int32)

    def values(opponent, unexplained):
        searcher = ValueSearchAgent(BASELINE, candidates=3, samples=2, opponent=opponent)
        searcher.act(game)  # takes the game's configuration
        searcher.reset(9)
        searcher.unexplained_log_odds[1] = unexplained
        table = searcher.candidate_value_table(game.state, candidates)
        return table, searcher._by_safe_model.copy()

    safe, marked = values("inferred", 3.0)
    assert marked.tolist() == [False, True, False, False]
    explained, marked = values("inferred", -3.0)
    assert not marked.any()
    assert not np.array_equal(safe, explained)
    assert not np.array_equal(safe, values("model", 0.0)[0])
    assert not np.array_equal(safe, values("greedy", 0.0)[0])
    # the safe model is used only by "inferred"
    assert not values("mixed", 3.0)[1].any()


def test_with_an_unexplained_seat_the_search_leaves_its_policy_only_when_clearly_better():
    """While a seat is unexplained, every choice is the policy's first one or a candidate
    ahead of it on the same redraws by more than SAFETY_Z standard errors; with no such
    seat the same positions give the plain best mean."""
    from agents.value_search import SAFETY_Z
    policy = PPOAgent(BASELINE)
    kept = left = 0
    for seed in range(3):
        game = _standard_position(2, 70 + seed, 4 + 2 * seed)
        for _ in range(4):
            if game.current_player != 0 or int(game.legal_action_mask().sum()) < 2:
                game.apply(policy.act(game))
                continue
            agent = ValueSearchAgent(BASELINE, candidates=4, samples=4, opponent="inferred")
            agent.act(game)
            mask = game.legal_action_mask()
            observation = _observation(game)
            probabilities = policy.action_probabilities(observation, mask)
            legal = np.flatnonzero(mask)
            candidates = legal[np.argsort(-probabilities[legal], kind="stable")][:4]
            agent.reset(seed)
            agent.unexplained_log_odds[1] = 1.0
            table = agent.candidate_value_table(game.state, candidates.astype(np.int32))
            best = int(np.argmax(table.mean(axis=0)))
            difference = table[:, best] - table[:, 0]
            clear = difference.mean() > SAFETY_Z * difference.std(ddof=1) / 2 \
                and difference.mean() > 0
            agent.reset(seed)
            agent.unexplained_log_odds[1] = 1.0
            chosen = agent.act(game)
            expected = candidates[best] if (best == 0 or clear) else candidates[0]
            assert chosen == expected
            kept += best != 0 and not clear
            left += best != 0 and clear
            agent.reset(seed)  # no unexplained seat: the best mean, whatever the policy's
            plain = agent.candidate_values(game.state, candidates.astype(np.int32))
            agent.reset(seed)
            assert agent.act(game) == candidates[int(np.argmax(plain))]
            game.apply(policy.act(game))
    assert kept >= 1


def test_at_three_or_four_seats_the_search_leaves_its_policy_only_when_clearly_better():
    """From GUARDED_SEATS seats on, the fallback's test holds with every seat explained:
    the choice is the policy's first candidate unless another is ahead of it on the same
    redraws by more than SAFETY_Z standard errors (at 2 seats the best mean is taken, the
    test above)."""
    from agents.value_search import GUARDED_SEATS, SAFETY_Z
    assert GUARDED_SEATS == 3
    policy = PPOAgent(BASELINE)
    kept = 0
    for players, seed in ((3, 80), (4, 81), (4, 82)):
        game = _standard_position(players, seed, 3 + players)
        for _ in range(3 * players):
            if int(game.legal_action_mask().sum()) < 2:
                game.apply(policy.act(game))
                continue
            agent = ValueSearchAgent(BASELINE, candidates=4, samples=4, opponent="model")
            mask = game.legal_action_mask()
            probabilities = policy.action_probabilities(_observation(game), mask)
            legal = np.flatnonzero(mask)
            candidates = legal[np.argsort(-probabilities[legal], kind="stable")][:4]
            agent.reset(seed)
            table = agent.candidate_value_table(game.state, candidates.astype(np.int32))
            best = int(np.argmax(table.mean(axis=0)))
            difference = table[:, best] - table[:, 0]
            clear = difference.mean() > SAFETY_Z * difference.std(ddof=1) / 2 \
                and difference.mean() > 0
            agent.reset(seed)
            assert not agent.unexplained_seats().any()
            assert agent.act(game) == (candidates[best] if best == 0 or clear
                                       else candidates[0])
            kept += best != 0 and not clear
            game.apply(policy.act(game))
    assert kept >= 1


def test_a_player_of_a_known_style_is_explained_and_played_by_a_style():
    """The hoarder (agents/styles.py) makes greedy's choice at only about half of its
    moves, so greedy and the model do not explain it; the styles do (module docstring,
    "Known styles"): after its first turns the seat is never unexplained, a style plays
    it, and the hoarder is the style most of its later moves point to (the styles agree
    on many moves, so a single game may point to another for a while)."""
    from agents.styles import StyleAgent
    from agents.value_search import STYLE_NAMES
    policy = PPOAgent(BASELINE)
    styles = []
    for seed in (15, 16, 17, 18):
        agent = ValueSearchAgent(BASELINE, candidates=2, samples=2, opponent="inferred-styles")
        agent.reset(seed)
        opponent = StyleAgent("hoarder")
        opponent.reset(seed)
        game = Game(2, "standard", "2nd", seed)
        while not game.is_over:
            mover = game.current_player
            action = game.action_number((policy if mover == 0 else opponent).act(game))
            if mover == 1:
                agent.observe(game, action, 0)
                if game.round + 1 >= 3:
                    assert not agent.unexplained_seats()[1]
                    styles.append(int(agent.seat_styles()[1]))
            game.apply(action)
        assert agent.seat_styles()[0] == -1  # the searcher's own seat is never modelled
    assert len(styles) >= 40 and min(styles) >= 0
    assert styles.count(STYLE_NAMES.index("hoarder")) >= 0.6 * len(styles)


def test_a_seat_of_a_known_style_is_played_by_that_style_in_every_redraw():
    """With seat 1 explained by the hoarder style, the trials are exactly those of a search
    told that a hoarder (with the same tie draws) plays every other seat."""
    from agents.styles import StyleAgent
    from agents.value_search import FIRST_STYLE, STYLE_NAMES, _style_seed
    game = _standard_position(2, 31, 7)
    assert game.current_player == 0
    candidates = np.flatnonzero(game.legal_action_mask())[:3].astype(np.int32)
    hoarder = STYLE_NAMES.index("hoarder")

    inferred = ValueSearchAgent(BASELINE, candidates=3, samples=4, opponent="inferred-styles")
    inferred.act(game)
    inferred.reset(5)
    inferred.log_evidence[1, FIRST_STYLE + hoarder] = 2.0
    inferred.style_log_evidence[1, hoarder] = 2.0
    assert inferred.seat_styles().tolist() == [-1, hoarder, -1, -1]
    modelled = inferred.candidate_value_table(game.state, candidates)

    told = ValueSearchAgent(BASELINE, candidates=3, samples=4,
                            opponent=StyleAgent("hoarder"))
    told.act(game)
    told.reset(5)
    told.opponent.reset(_style_seed(5, hoarder))
    assert np.array_equal(modelled, told.candidate_value_table(game.state, candidates))

    inferred.reset(5)  # no evidence: greedy and the model, as "mixed"
    assert inferred.seat_styles().tolist() == [-1, -1, -1, -1]
    assert not np.array_equal(modelled,
                              inferred.candidate_value_table(game.state, candidates))
