"""Every Python block of README.md runs as printed, and what its comments say it prints
is what it prints (a README whose example drifts from the code misleads every newcomer)."""

import contextlib
import io
import re

import pytest

from repository import REPO

README = REPO / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs(index, monkeypatch):
    monkeypatch.chdir(README.parent)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(BLOCKS[index], f"README.md block {index}", "exec"), {})
    lines = printed.getvalue().splitlines()
    for statement in BLOCKS[index].splitlines():
        match = re.match(r"print\(.*\)\s+# (.*)$", statement)
        if match and not match.group(1).startswith(("market,", "what ")):
            expected = match.group(1).split(" (R")[0]
            assert expected in lines, f"README says {statement!r} prints {expected!r}"


# The README's commands and the documentation's links ---------------------------------------

ROOT = README.parent
COMMANDS = [command.strip()
            for block in re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.S)
            for line in block.splitlines()
            for command in line.split("#")[0].split("&&")
            if command.strip().startswith("suburbia ")]


def test_the_readme_shows_each_command_users_start_with():
    shown = {command.split()[1] for command in COMMANDS}
    assert {"play", "serve", "match", "league", "train", "render"} <= shown
    assert any("--backend rllib" in command for command in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_parses(command, monkeypatch):
    """Each `suburbia ...` line of the README is a valid command line: its options exist and
    their values are in range (the `suburbia` parser, then the trainer's own parser), and
    the files its agent specs name are in the repository."""
    import shlex

    from suburbia_env.apps.cli import build_parser
    monkeypatch.chdir(ROOT)
    argv = shlex.split(command)[1:]
    args, extra = build_parser().parse_known_args(argv)
    if args.command != "train":
        assert extra == []
    elif "--backend" in extra and extra[extra.index("--backend") + 1] == "rllib":
        from training.rllib_train import parse_options
        parse_options([word for word in extra if word not in ("--backend", "rllib")])
    elif "--recipe" in extra:
        from training.recipe import load_recipe
        load_recipe(extra[extra.index("--recipe") + 1])
    else:
        from training.config import parse_config
        parse_config(extra)
    for spec in getattr(args, "agents", None) or []:
        if ":" in spec:
            path = spec.split(":", 1)[1] if not spec.split(":")[0].endswith(".py") \
                else spec.split(":")[0]
            assert (ROOT / path).is_file(), f"{command!r} names {path}, which is missing"


def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


DOCUMENTS = [README, ROOT / "CONTRIBUTING.md", ROOT / "models" / "README.md",
             *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_relative_links_point_to_files_and_headings_that_exist(document):
    text = document.read_text(encoding="utf-8")
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # an address on the web
        path, _, anchor = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.*)$", linked.read_text(encoding="utf-8"), re.M)
            if anchor not in {_anchor(heading) for heading in headings}:
                broken.append(target)
    assert broken == [], f"{document.name}: broken links {broken}"
