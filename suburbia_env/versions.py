"""Versions of the rules, the environments and the file formats: one table, HISTORY.

A change of rules changes results, so every public id that results are reported under
says which rules it plays (RULES.md "Revisions"). Each row of HISTORY is one change a
user can see, with the ids and format versions in force from it on; the constants below
are read from the newest row, and the code uses them. The docs render the table:
`python scripts/version_tables.py` writes docs/reference.md ("Rules versions"), README's
"Rules versions" and the "Version history" of each environment's docstring;
tests/docs/test_version_tables.py fails when one of them, or a page that names a current
version (docs/dataset.md, docs/performance.md), drifts, and tests/engine/test_versions.py
checks the table against RULES.md, the committed models and the ids themselves. A rules
change adds a row (docs/architecture.md, "How to change a rule").

This module is the foundation layer: it imports nothing of ours.
"""

from __future__ import annotations

from dataclasses import dataclass

ENVIRONMENTS = ("gym", "vector", "pettingzoo")
"""The environments whose docstrings carry a version history, for the rows' `environments`."""


@dataclass(frozen=True)
class Version:
    """One row of the history: what changed on `date`, and what is in force from then on."""

    id: str
    """`v<N>.<M>`: N is the Gymnasium id's version (it moves with the rules), M counts the
    changes since that kept the rules."""
    date: str
    changed: str
    """What changed, for the people who use it, citing rule ids and issues."""
    rules: str
    """The RULES.md revision played: the date of its "Revisions" entry, or "original"."""
    env_id: str
    """The Gymnasium id (`gym.make`); SuburbiaVectorEnv carries the same."""
    pettingzoo_name: str
    formats: int
    """The version of the state and the record formats (formats/, docs/state-format.md); they
    move together."""
    model_format: int | None
    """The version of the "suburbia-policy" model description (agents/model_format.py),
    None before it existed."""
    dataset_format: int | None
    """The version of the "suburbia-league-game" dataset line (agents/league_dataset.py),
    None before it existed."""
    modes: tuple[str, ...] = ()
    """For a rules revision, the modes whose rules changed (their older saves are refused);
    the first release made them all (constants.MODE_NAMES)."""
    rule_ids: tuple[str, ...] = ()
    """For a rules revision, the rule ids it changed (RULES.md "Revisions")."""
    environments: tuple[str, ...] = ()
    """The environments (ENVIRONMENTS) whose behaviour or id the change touches."""
    notes: tuple[tuple[str, str], ...] = ()
    """(environment, text): what the change means for one environment, where that says
    more than `changed`."""
    aliases: str = ""
    """For a move of modules: the table of old module paths that still import."""

    def note(self, environment: str) -> str:
        return dict(self.notes).get(environment, self.changed)


HISTORY = (
    Version("v0", "2026-11-22", "First release.", "original", "Suburbia-v0", "suburbia_v0",
            formats=1, model_format=None, dataset_format=None,
            modes=("standard", "solitary", "dale"),
            environments=ENVIRONMENTS,
            notes=(("gym", "First release. No longer registered: `gym.make(\"Suburbia-v0\")` "
                           "raises gymnasium's DeprecatedEnv naming v1."),)),
    Version("v1", "2026-11-25",
            "RULES.md revision: in the Dale game the player draws two goals and keeps one "
            "(R9.2); in Solitary Architect falling back below a red line gives +1/+1, not "
            "+2/+2 (R9.1). Saved states and records of version 1 still load for standard "
            "games, whose rules did not change; solo ones are refused naming the version.",
            "2026-11-25", "Suburbia-v1", "suburbia_v1", formats=2, model_format=None,
            dataset_format=None, modes=("solitary", "dale"), rule_ids=("R9.1", "R9.2"),
            environments=ENVIRONMENTS,
            notes=(("gym", "RULES.md revision. In mode \"dale\" the learner first keeps one "
                           "of two drawn goals (a `keep` decision; the observation already "
                           "shows both) and scores it at the end (R9.2); in \"solitary\" "
                           "falling back below a red line gives +1/+1, not +2/+2 (R9.1). "
                           "Results of v0 are not comparable in those modes; \"standard\" "
                           "is unchanged."),
                   ("vector", "The rules revision of SuburbiaEnv v1: a `keep` decision for "
                              "the learner in mode \"dale\" (R9.2), Solitary fall-back "
                              "+1/+1 (R9.1)."),
                   ("pettingzoo", "RULES.md revision; the standard game this environment "
                                  "plays is unchanged (the revision touches the solo modes "
                                  "only), the version moves with the project's other ids so "
                                  "results are reported under one rules version."))),
    Version("v1.1", "2026-11-25",
            "Models without code execution: the \"suburbia-policy\" model format, "
            "safetensors weights and a JSON description.",
            "2026-11-25", "Suburbia-v1", "suburbia_v1", formats=2, model_format=1,
            dataset_format=None),
    Version("v1.2", "2026-11-25",
            "The league's game dataset, one \"suburbia-league-game\" line per game "
            "(docs/dataset.md).",
            "2026-11-25", "Suburbia-v1", "suburbia_v1", formats=2, model_format=1,
            dataset_format=1),
    Version("v1.3", "2026-11-25",
            "The Gymnasium environment's `illegal_action` defaults to \"lose\" instead of "
            "\"raise\" (issue 20), so that gymnasium's and stable-baselines3's checkers and "
            "the standard random loop (`env.action_space.sample()`, with or without `mask=`) "
            "run with default settings. Code that relied on the "
            "exception passes `illegal_action=\"raise\"`. Rules and results of legal play "
            "are unchanged.",
            "2026-11-25", "Suburbia-v1", "suburbia_v1", formats=2, model_format=1,
            dataset_format=1, environments=("gym",)),
    Version("v1.4", "2026-11-26",
            "League dataset version 2: `forfeits`, a list (a seat that forfeits is played "
            "on by a stand-in to the end); version 1 lines, with `forfeit`, are read and "
            "converted.",
            "2026-11-25", "Suburbia-v1", "suburbia_v1", formats=2, model_format=1,
            dataset_format=2),
    Version("v1.5", "2026-11-27",
            "Modules moved into layer subpackages (engine/, formats/, display/, envs/, "
            "apps/; issue 31); the old module paths still import, with a DeprecationWarning "
            "naming the new one (the list is below). training.features, "
            "training.compact_input and training.rllib_module moved to agents/, which "
            "inference needs; their old paths still import too, training.features "
            "silently (released model zips name it). Behaviour, ids and file formats are "
            "unchanged.",
            "2026-11-25", "Suburbia-v1", "suburbia_v1", formats=2, model_format=1,
            dataset_format=2, environments=ENVIRONMENTS,
            notes=tuple((name, f"Moved to `suburbia_env.envs.{module}`; "
                               f"`suburbia_env.{module}` still imports, with a "
                               f"DeprecationWarning. Behaviour unchanged.")
                        for name, module in (("gym", "gym_env"), ("vector", "vector_env"),
                                             ("pettingzoo", "pettingzoo"))),
            aliases="suburbia_env._moved.OLD_TO_NEW"),
    Version("v1.6", "2026-11-27",
            "Game records and states of games that allowed hints carry the optional field "
            "`hints_used` (issue 33, docs/review.md \"Hints\"); readers before v1.6 refuse "
            "such a file, naming the field. Records and states of games without hints, ids "
            "and rules are unchanged.",
            "2026-11-25", "Suburbia-v1", "suburbia_v1", formats=2, model_format=1,
            dataset_format=2),
    Version("v1.7", "2026-11-27",
            "The review's files (`suburbia review`: decisions.json and decisions.csv, "
            "\"suburbia-review\" version 2) and the hints report calibrated win "
            "probabilities (issue 33 item 4, docs/calibration.md), the raw means beside "
            "them (`win_probability_raw`, `seat_win_probabilities_raw`, the CSV's `*_raw` "
            "columns) and the map applied (`calibration`). States, records, ids and rules "
            "are unchanged.",
            "2026-11-25", "Suburbia-v1", "suburbia_v1", formats=2, model_format=1,
            dataset_format=2),
    Version("v1.8", "2026-11-27",
            "The observation gains a last part, \"goal_races\" (5 x 9 = 45 entries, 8714 -> "
            "8759): for each public goal and the observer's own private goal, every seat's "
            "value on the goal's criterion, who alone is in front and the observer's lead "
            "(R8.2; never another player's private goal, R10.2). The first 8714 entries are "
            "unchanged, and models trained before (observation_size 8714) read that prefix "
            "and decide exactly as before. Rules, ids and file formats are unchanged.",
            "2026-11-25", "Suburbia-v1", "suburbia_v1", formats=2, model_format=1,
            dataset_format=2, environments=ENVIRONMENTS),
)
"""Oldest first."""

CURRENT = HISTORY[-1]
RULES_REVISION = CURRENT.rules
ENV_ID = CURRENT.env_id
PETTINGZOO_NAME = CURRENT.pettingzoo_name
FORMAT_VERSION = CURRENT.formats
"""The version of both the saved-state and the game-record format (formats/, docs/state-format.md)."""
MODEL_FORMAT_VERSION = CURRENT.model_format
DATASET_FORMAT_VERSION = CURRENT.dataset_format


def _modes_unchanged_since() -> dict[int, tuple[str, ...]]:
    """For each older format version, the modes that no later rules revision changed."""
    unchanged = {}
    for index, row in enumerate(HISTORY):
        if row.formats == FORMAT_VERSION:
            continue
        changed = {mode for later in HISTORY[index + 1:] if later.rules != row.rules
                   for mode in later.modes}
        unchanged[row.formats] = tuple(mode for mode in HISTORY[0].modes if mode not in changed)
    return unchanged


def revision_after(formats: int) -> Version:
    """The first rules revision after the files of format version `formats` were written:
    what a loader names when it refuses one of them."""
    return next(row for row in HISTORY if row.formats > formats and row.rule_ids)


MODES_UNCHANGED_SINCE = _modes_unchanged_since()
"""For each older format version, the modes whose rules are still today's: only those
games of that version load; the others are refused, naming the version."""


def package_version() -> str:
    """The installed version of the suburbia-env distribution (pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("suburbia-env")
    except PackageNotFoundError:
        return "unknown (run from a source tree that is not installed)"


def version_text() -> str:
    """`suburbia --version`: the package and what results made with it are reported under."""
    return (f"suburbia {package_version()} (rules {RULES_REVISION}, {ENV_ID}, "
            f"{PETTINGZOO_NAME}, state and record format version {FORMAT_VERSION})")
