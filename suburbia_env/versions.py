"""Versions of the rules, the environments and the file formats, kept in one place.

A change of rules changes results, so every public id that results are reported under
says which rules it plays (RULES.md "Revisions"). Bump them together when the rules
change, regenerate the golden playthroughs (tests/golden/) and re-measure every figure.

=========  ===========  ==============  ==========================  ===============
rules      gym id       PettingZoo      state and record formats    what changed
=========  ===========  ==============  ==========================  ===============
2026-11-25 Suburbia-v1  suburbia_v1     version 2                   R9.2: the Dale game's player draws two goals and keeps
                                                                    one; R9.1: Solitary fall-back below a red line +1/+1
original   Suburbia-v0  suburbia_v0     version 1                   the first release
=========  ===========  ==============  ==========================  ===============
"""

RULES_REVISION = "2026-11-25"
ENV_ID = "Suburbia-v1"
PETTINGZOO_NAME = "suburbia_v1"
FORMAT_VERSION = 2
"""The version of both the saved-state and the game-record format (serialization.py)."""

MODES_UNCHANGED_SINCE = {1: ("standard",)}
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
