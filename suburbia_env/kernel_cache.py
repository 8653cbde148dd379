"""Keep numba's on-disk cache in step with the kernel sources.

numba re-compiles a cached function only when its own file changes, not when a kernel
it calls (in another file) does, so an edited engine could silently run stale machine
code. On import the package hashes all of its source and data files (a kernel may hold data
tables as constants); when the hash differs
from the one stored beside the cache, every cached kernel of the package is dropped.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
MARKER_NAME = "kernel_sources.sha256"


def sources_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.glob("*.py")) + sorted(PACKAGE_DIR.glob("data/*.csv")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _cache_dirs() -> list[Path]:
    configured = os.environ.get("NUMBA_CACHE_DIR")
    if configured:
        return [Path(configured)]
    return [PACKAGE_DIR / "__pycache__"]


def drop_stale_kernels() -> bool:
    """Delete the package's cached kernels if the sources changed; True when dropped."""
    current = sources_digest()
    dropped = False
    for directory in _cache_dirs():
        marker = directory / MARKER_NAME
        try:
            if marker.exists() and marker.read_text() == current:
                continue
            for pattern in ("*.nbi", "*.nbc"):
                for cached in directory.rglob(pattern):
                    if "suburbia_env" in str(cached) or directory == PACKAGE_DIR / "__pycache__":
                        cached.unlink(missing_ok=True)
                        dropped = True
            directory.mkdir(parents=True, exist_ok=True)
            marker.write_text(current)
        except OSError:
            continue
    return dropped
