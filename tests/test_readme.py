"""Every Python block of README.md runs as printed, and what its comments say it prints
is what it prints (a README whose example drifts from the code misleads every newcomer)."""

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
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
