"""Module paths of releases before the layered packages, kept importable.

`import suburbia_env.state_layout` (any path of OLD_TO_NEW) warns with a
DeprecationWarning that names the new path and hands over the new module itself, so
code, pickles and notebooks written against the flat package keep working. The move is
a row of the version history (versions.py); the paths go in a later major release.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

OLD_TO_NEW = {
    "suburbia_env.action_space": "suburbia_env.engine.action_space",
    "suburbia_env.compiled_call": "suburbia_env.engine.compiled_call",
    "suburbia_env.constants": "suburbia_env.engine.constants",
    "suburbia_env.dale": "suburbia_env.engine.dale",
    "suburbia_env.dale_reference": "suburbia_env.engine.dale_reference",
    "suburbia_env.drawing": "suburbia_env.display.drawing",
    "suburbia_env.env_core": "suburbia_env.engine.env_core",
    "suburbia_env.env_options": "suburbia_env.envs.env_options",
    "suburbia_env.env_runner": "suburbia_env.envs.env_runner",
    "suburbia_env.event_log": "suburbia_env.engine.event_log",
    "suburbia_env.gym_env": "suburbia_env.envs.gym_env",
    "suburbia_env.hex_grid": "suburbia_env.engine.hex_grid",
    "suburbia_env.hidden_information": "suburbia_env.engine.hidden_information",
    "suburbia_env.invariants": "suburbia_env.engine.checks.invariants",
    "suburbia_env.kernel_cache": "suburbia_env.engine.kernel_cache",
    "suburbia_env.legal_actions": "suburbia_env.engine.legal_actions",
    "suburbia_env.market": "suburbia_env.engine.market",
    "suburbia_env.notation": "suburbia_env.formats.notation",
    "suburbia_env.observation": "suburbia_env.engine.observation",
    "suburbia_env.openspiel_game": "suburbia_env.envs.openspiel_game",
    "suburbia_env.pettingzoo": "suburbia_env.envs.pettingzoo",
    "suburbia_env.picture": "suburbia_env.display.picture",
    "suburbia_env.random_play": "suburbia_env.engine.random_play",
    "suburbia_env.refcount_free": "suburbia_env.engine.refcount_free",
    "suburbia_env.render": "suburbia_env.display.render",
    "suburbia_env.resolution": "suburbia_env.engine.resolution",
    "suburbia_env.rng": "suburbia_env.engine.rng",
    "suburbia_env.sb3": "suburbia_env.envs.sb3",
    "suburbia_env.scoring": "suburbia_env.engine.scoring",
    "suburbia_env.setup": "suburbia_env.engine.setup",
    "suburbia_env.state_layout": "suburbia_env.engine.state_layout",
    "suburbia_env.terminal_game": "suburbia_env.apps.terminal_game",
    "suburbia_env.tile_data": "suburbia_env.engine.tile_data",
    "suburbia_env.tile_text": "suburbia_env.display.tile_text",
    "suburbia_env.turn": "suburbia_env.engine.turn",
    "suburbia_env.vector_env": "suburbia_env.envs.vector_env",
    "suburbia_env.web": "suburbia_env.apps.web",
    "suburbia_env.web.agent_specs": "suburbia_env.apps.web.agent_specs",
    "suburbia_env.web.app": "suburbia_env.apps.web.app",
    "suburbia_env.web.database": "suburbia_env.apps.web.database",
    "suburbia_env.web.http_guards": "suburbia_env.apps.web.http_guards",
    "suburbia_env.web.sealing": "suburbia_env.apps.web.sealing",
    "suburbia_env.web.server": "suburbia_env.apps.web.server",
    "suburbia_env.web.sessions": "suburbia_env.apps.web.sessions",
}


class MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path of OLD_TO_NEW and loads it as the module at its new path."""

    def __init__(self):
        self._own_specs = {}

    def find_spec(self, name, path=None, target=None):
        if name not in OLD_TO_NEW:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        new = OLD_TO_NEW[spec.name]
        warnings.warn(f"{spec.name} moved to {new}; import it from there (the old path "
                      f"is kept for a while, see suburbia_env/versions.py)",
                      DeprecationWarning, stacklevel=2)  # the importer's line: import
        # machinery frames are skipped by warnings
        module = importlib.import_module(new)
        self._own_specs[new] = module.__spec__
        return module

    def exec_module(self, module):
        """The new module was executed by its own import; the machinery has just set the
        old path's spec on it, so it gets its own back (a package's spec says where its
        files are: importlib.resources and submodule imports read it)."""
        module.__spec__ = self._own_specs.pop(module.__name__, module.__spec__)


def install() -> None:
    """Put the finder on sys.meta_path once (suburbia_env/__init__.py calls it)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
