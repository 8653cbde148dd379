"""The recipes' warm-up (training/warm_up.py): parts compiled in worker processes side by
side leave every kernel in numba's cache, each signature with its own code, so that a
later process loads them without compiling; a failing or dying worker ends the warm-up
with an error naming its part instead of a hang."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Two parts that compile one shared kernel, `shift`, with overlapping sets of literal
# arguments: each literal is a signature of its own, all saved in one index file.
KERNELS = textwrap.dedent("""
    import os, signal, time
    from numba import njit

    @njit(cache=True)
    def shift(value, amount):
        return value * 1000 + amount

    @njit(cache=True)
    def first_half():
        return (shift(1, 0), shift(1, 1), shift(1, 2), shift(1, 3), shift(1, 4),
                shift(1, 5), shift(1, 6), shift(1, 7), shift(1, 8), shift(1, 9))

    @njit(cache=True)
    def second_half():
        return (shift(2, 5), shift(2, 6), shift(2, 7), shift(2, 8), shift(2, 9),
                shift(2, 10), shift(2, 11), shift(2, 12), shift(2, 13), shift(2, 14))

    def compile_first():
        assert first_half() == tuple(1000 + amount for amount in range(10))

    def compile_second():
        assert second_half() == tuple(2000 + amount for amount in range(5, 15))

    def fails():
        raise ValueError("no such table")

    def dies():
        os.kill(os.getpid(), signal.SIGKILL)

    def sleeps():
        time.sleep(3600)
""")

WARM_UP = """
import sys
from training.warm_up import warm_up
parts = dict(zip(sys.argv[1::2], sys.argv[2::2]))
warm_up(lambda done, left: print("done", done, "left", len(left), flush=True), parts)
"""

# Counts numba's compiles (never its cache loads) while the given calls run.
COUNT_COMPILES = """
import importlib, sys
from numba.core import event
compiles = []
class Counter(event.Listener):
    def on_start(self, data):
        compiles.append(data.data["dispatcher"].py_func.__qualname__)
    def on_end(self, data):
        pass
event.register("numba:compile", Counter())
for spec in sys.argv[1:]:
    module, name = spec.split(":")
    getattr(importlib.import_module(module), name)()
print("compiled:", " ".join(compiles))
"""


def _environment(tmp_path: Path, **extra: str) -> dict:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
                   "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    environment.pop("NUMBA_CACHE_DIR", None)
    return {**environment, **extra}


def _python(code: str, arguments: list[str], environment: dict, timeout: float = 900):
    return subprocess.run([sys.executable, "-c", code, *arguments], env=environment,
                          cwd=ROOT, text=True, capture_output=True, timeout=timeout)


@pytest.fixture
def kernels(tmp_path: Path) -> Path:
    (tmp_path / "tiny_kernels.py").write_text(KERNELS)
    return tmp_path


@pytest.mark.slow
def test_parts_compiled_side_by_side_are_all_loaded_by_the_next_process(kernels):
    environment = _environment(kernels)
    parts = ["tiny_kernels:compile_first", "the first half",
             "tiny_kernels:compile_second", "the second half"]
    warmed = _python(WARM_UP, parts, environment)
    assert warmed.returncode == 0, warmed.stderr
    assert warmed.stdout.splitlines() == ["done 1 left 1", "done 2 left 0"]
    assert list((kernels / "__pycache__").glob("tiny_kernels.first_half-*.nbi"))
    calls = ["tiny_kernels:compile_first", "tiny_kernels:compile_second"]
    again = _python(COUNT_COMPILES, calls, environment)
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == ["compiled:"]
    # The shared kernel's twenty signatures, written by both workers into one index, are
    # all there and each loads its own code.
    shift = _python(COUNT_COMPILES + textwrap.dedent("""
        from tiny_kernels import shift
        from numba.core import types
        for value, amount in [(1, a) for a in range(10)] + [(2, a) for a in range(5, 15)]:
            entry = shift._cache.load_overload(
                (types.IntegerLiteral(value), types.IntegerLiteral(amount)),
                shift.targetctx)
            assert entry is not None, (value, amount)
            assert entry.entry_point(value, amount) == value * 1000 + amount
        print("twenty signatures")
        """), [], environment)
    assert shift.returncode == 0, shift.stderr
    assert shift.stdout.splitlines()[-1] == "twenty signatures"


def test_a_failing_part_is_named_and_the_other_worker_ended(kernels):
    parts = ["tiny_kernels:sleeps", "a part that takes an hour",
             "tiny_kernels:fails", "the failing part"]
    result = _python(WARM_UP, parts, _environment(kernels), timeout=1200)
    assert result.returncode == 1
    assert ("WarmUpError: compiling the kernels of the failing part (tiny_kernels:fails) "
            "failed in a warm-up worker:") in result.stderr
    assert "ValueError: no such table" in result.stderr


def test_a_dying_worker_is_named_not_waited_for(kernels):
    parts = ["tiny_kernels:sleeps", "a part that takes an hour",
             "tiny_kernels:dies", "the dying part"]
    result = _python(WARM_UP, parts, _environment(kernels), timeout=1200)
    assert result.returncode == 1
    assert ("WarmUpError: the warm-up worker compiling the dying part (tiny_kernels:dies) "
            "died with exit code -9 before it finished (signal 9)") in result.stderr


def test_one_worker_runs_the_parts_in_this_process_and_names_a_failure(kernels):
    code = WARM_UP.replace("parts)", "parts, workers=1)")
    parts = ["tiny_kernels:compile_first", "the first half",
             "tiny_kernels:fails", "the failing part"]
    result = _python(code, parts, _environment(kernels))
    assert result.stdout.splitlines() == ["done 1 left 1"]
    assert ("WarmUpError: compiling the kernels of the failing part (tiny_kernels:fails) "
            "failed: ValueError: no such table") in result.stderr


@pytest.mark.slow
def test_the_quickstarts_kernels_warmed_in_parallel_are_loaded_without_compiling(tmp_path):
    """A fresh installation's cache (empty), warmed by PARTS side by side: a later process
    that records a game and evaluates and fits the network compiles nothing."""
    environment = _environment(tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    warmed = _python("from training.warm_up import PARTS, kernels_cached, warm_up\n"
                     "print(kernels_cached()); warm_up(); print(kernels_cached())", [],
                     environment, timeout=1800)
    assert warmed.returncode == 0, warmed.stderr
    assert warmed.stdout.split() == ["False", "True"]
    from training.warm_up import PARTS
    again = _python(COUNT_COMPILES, list(PARTS), environment, timeout=600)
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == ["compiled:"]
