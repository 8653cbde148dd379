"""Render the version history of suburbia_env/versions.py into the docs that show it.

    python scripts/version_tables.py            # rewrite every rendered place
    python scripts/version_tables.py --check    # exit 1, naming the files, if one drifted

The places: docs/reference.md ("Rules versions": the whole history and the old module
paths that still import), README.md ("Rules versions": the ids results are reported
under) and the "Version history" that ends the docstring of each environment
(ENVIRONMENT_MODULES). In Markdown the rendered text sits between two marker comments;
in a docstring it is everything after the "Version history" heading.
tests/docs/test_version_tables.py checks that every place is what this writes.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # this checkout's package, not another installed one

from suburbia_env import versions  # noqa: E402

ENVIRONMENT_MODULES = {"gym": "suburbia_env/envs/gym_env.py",
                       "vector": "suburbia_env/envs/vector_env.py",
                       "pettingzoo": "suburbia_env/envs/pettingzoo.py"}
MARKDOWN = {"docs/reference.md": "history", "README.md": "current"}
BEGIN = "<!-- versions: {name}, written by scripts/version_tables.py from suburbia_env/versions.py -->"
END = "<!-- versions: end -->"
HEADING = "Version history\n---------------\n"


def history_table() -> str:
    rows = ["| version | date | rules | Gymnasium id | PettingZoo | state and record formats "
            "| model format | league dataset | what changed |",
            "|---|---|---|---|---|---|---|---|---|"]
    for row in reversed(versions.HISTORY):
        rows.append(f"| {row.id} | {row.date} | {row.rules} | `{row.env_id}` | "
                    f"`{row.pettingzoo_name}` | {row.formats} | {_maybe(row.model_format)} | "
                    f"{_maybe(row.dataset_format)} | {row.changed} |")
    text = "\n".join(rows) + "\n"
    moved = [row for row in versions.HISTORY if row.aliases]
    for row in moved:
        text += "\n" + old_paths_table(row)
    return text


def old_paths_table(row: versions.Version) -> str:
    """The old module paths of a move (the row's `aliases` table), old and new."""
    module_name, _, table_name = row.aliases.rpartition(".")
    module = __import__(module_name, fromlist=[table_name])
    table = getattr(module, table_name)
    lines = [f"Old module paths that still import since {row.id} (`{row.aliases}`):", "",
             "| old path | new path |", "|---|---|"]
    lines += [f"| `{old}` | `{new}` |" for old, new in sorted(table.items())]
    return "\n".join(lines) + "\n"


def current_text() -> str:
    revision = next(row for row in reversed(versions.HISTORY) if row.rule_ids)
    rules = ", ".join(revision.rule_ids)
    return textwrap.fill(
        f"Results are reported under `{versions.ENV_ID}` and `{versions.PETTINGZOO_NAME}`, "
        f"the rules revision of {versions.RULES_REVISION} ({rules} changed; state and record "
        f"format version {versions.FORMAT_VERSION}); `suburbia --version` prints them. "
        f"What changed, which older files still load and the old module paths that still "
        f"import: [docs/reference.md](docs/reference.md#rules-versions).", 90) + "\n"


def environment_history(environment: str) -> str:
    """The end of an environment's docstring: its changes, newest first."""
    lines = []
    for row in reversed(versions.HISTORY):
        if environment in row.environments:
            name = row.pettingzoo_name if environment == "pettingzoo" else row.env_id
            lines.append(textwrap.fill(f"{name} ({row.date}, {row.id}): {row.note(environment)}",
                                       88, initial_indent="- ", subsequent_indent="  "))
    return ("(rendered from suburbia_env/versions.py by scripts/version_tables.py)\n"
            + "\n".join(lines) + "\n")


def _maybe(value) -> str:
    return "-" if value is None else str(value)


def rendered(path: str, text: str) -> str:
    """The file's text with its rendered place replaced by what the table gives now."""
    if path in MARKDOWN:
        name = MARKDOWN[path]
        body = history_table() if name == "history" else current_text()
        begin = BEGIN.format(name=name)
        if text.count(begin) != 1 or text.count(END) < 1:
            raise SystemExit(f"{path}: expected one '{begin}' ... '{END}' block")
        start = text.index(begin) + len(begin) + 1
        return text[:start] + body + text[text.index(END, start):]
    environment = next(name for name, module in ENVIRONMENT_MODULES.items() if module == path)
    start = text.index(HEADING) + len(HEADING)
    return text[:start] + environment_history(environment) + text[text.index('"""', start):]


def places() -> list[str]:
    return list(MARKDOWN) + list(ENVIRONMENT_MODULES.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if a rendered place is not what this script writes")
    arguments = parser.parse_args(argv)
    stale = []
    for path in places():
        text = (REPO / path).read_text(encoding="utf-8")
        new = rendered(path, text)
        if new != text:
            stale.append(path)
            if not arguments.check:
                (REPO / path).write_text(new, encoding="utf-8")
    if arguments.check and stale:
        print(f"out of date: {', '.join(stale)}; run python scripts/version_tables.py",
              file=sys.stderr)
        return 1
    print(("rewrote " + ", ".join(stale)) if stale else "every place is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
