"""numba's cache files read and written under a file lock (suburbia_env/engine/
kernel_cache.py, `lock_cache_files`): two processes adding entries to one index file at
once keep every entry, each with its own data. Without the lock each writes back the
index it read: on this machine 150 entries from each of two processes lost 6 and crossed
1 (a signature loading another's data)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from numba.core.caching import IndexDataCacheFile

ROOT = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent("""
    import sys
    import suburbia_env  # installs the lock
    from numba.core.caching import IndexDataCacheFile
    folder, prefix = sys.argv[1:3]
    cache = IndexDataCacheFile(folder, "shared", ("stamp", 1))
    for index in range(150):
        cache.save((prefix, index), f"{prefix}{index}")
        assert cache.load((prefix, index)) == f"{prefix}{index}"
""")


def test_two_processes_adding_to_one_index_keep_every_entry(tmp_path):
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), prefix],
                                env=environment, cwd=ROOT) for prefix in "ab"]
    assert [writer.wait(timeout=300) for writer in writers] == [0, 0]
    cache = IndexDataCacheFile(str(tmp_path), "shared", ("stamp", 1))
    loaded = {(prefix, index): cache.load((prefix, index))
              for prefix in "ab" for index in range(150)}
    assert loaded == {(prefix, index): f"{prefix}{index}"
                      for prefix in "ab" for index in range(150)}
    assert (tmp_path / "kernel_cache.lock").is_file()


def test_the_lock_is_installed_once_on_import():
    import suburbia_env  # noqa: F401
    from suburbia_env.engine.kernel_cache import lock_cache_files
    save = IndexDataCacheFile.save
    assert save.locked_by_kernel_cache
    lock_cache_files()
    assert IndexDataCacheFile.save is save
