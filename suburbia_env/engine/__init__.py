"""Every rule of Suburbia (docs/rules/RULES.md), compiled: numba kernels over one flat
int32 state vector per game, the tables they read, and the machinery that compiles them.

A game runs in a handful of calls (what `Game` does for you, game.py):

    import numpy as np
    from suburbia_env.engine import action_space as a, constants as c, event_log as ev
    from suburbia_env.engine import state_layout as s
    from suburbia_env.engine.legal_actions import legal_action_mask
    from suburbia_env.engine.rng import seed_words
    from suburbia_env.engine.setup import new_game
    from suburbia_env.engine.tile_data import GOALS, TILES
    from suburbia_env.engine.turn import STATUS_OK, apply_action

    state = np.zeros(s.STATE_SIZE, dtype=np.int32)          # the whole game, one vector
    new_game(state, TILES.table, GOALS.table, TILES.basic_kinds, 2, c.MODE_STANDARD,
             c.EDITION_SECOND, 0, seed_words(7)[0])          # R2.3, R3: deal from seed 7
    mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
    log = ev.new_log(64)                                     # what each action caused
    while not state[s.GAME_OVER]:
        count = legal_action_mask(state, TILES.table, TILES.basic_kinds, mask, actions)
        status = apply_action(state, TILES.table, GOALS.table, TILES.basic_kinds,
                              actions[0], log)                # R5: up to the next decision
        assert status == STATUS_OK
    winners = [p for p in range(2) if s.score_entry(state, p, s.SCORE_WINNER)]  # R8.2, R8.3

`turn.apply_action` plays one decision and everything after it that nobody decides
(steps 2 to 4, Dale's turns, the end of the game and its scoring, scoring.score_game);
`turn.apply_legal_action` skips the legality check for callers that took the action
from the mask. Where each rule is implemented and tested: docs/rules-index.md.
"""
