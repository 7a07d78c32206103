"""Old module paths kept working after the package layout of issue 24.

``import fem.output`` (or ``fem.output`` as an attribute) gives the module that now lives
at ``fem.io.output``: the same module object, so monkeypatching and ``isinstance`` work
through either name.  New code imports the new paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["MOVED", "install", "lazy_exports"]

MOVED: dict[str, str] = {
    'fem.mesh': 'fem.model.mesh',
    'fem.materials': 'fem.model.materials',
    'fem.builders': 'fem.model.builders',
    'fem.linear_map': 'fem.model.linear_map',
    'fem.point_maps': 'fem.model.point_maps',
    'fem.actuators': 'fem.model.actuators',
    'fem.trajectory': 'fem.model.trajectory',
    'fem.assembly_constraints': 'fem.assembly.constraints',
    'fem.linalg': 'fem.assembly.linalg',
    'fem.system': 'fem.assembly.system',
    'fem.chains': 'fem.bodies.chains',
    'fem.chain_inertia': 'fem.bodies.chain_inertia',
    'fem.frames': 'fem.bodies.frames',
    'fem.quadrature': 'fem.elements.quadrature',
    'fem.output': 'fem.io.output',
    'fem.results': 'fem.io.results',
    'fem.files': 'fem.io.files',
    'fem.errors': 'fem.core.errors',
    'fem.validate': 'fem.core.validate',
    'fem.units': 'fem.core.units',
    'fem.jit': 'fem.core.jit',
    'fem._threads': 'fem.core.threads',
    'fem._display': 'fem.core.display',
    'fem.registry': 'fem.core.registry',
    'fem.citations': 'fem.validation.citations',
    'fem.plates': 'fem.elements.bezier_plate.continuity',
}
"""Old module name → where it lives now."""


class _Moved(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name and loads it as the module under its new name."""

    def find_spec(self, name, path=None, target=None):
        if name in MOVED:
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module(MOVED[spec.name])
        self._own[spec.name] = module.__spec__
        return module

    def exec_module(self, module) -> None:
        # the import machinery stamped the old name's spec on the module: give it back
        own = self._own.pop(module.__spec__.name, None)
        if own is not None:
            module.__spec__ = own

    def __init__(self):
        self._own: dict = {}


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Moved) for f in sys.meta_path):
        sys.meta_path.insert(0, _Moved())


def lazy_exports(package: str, where: dict[str, str]):
    """``__getattr__`` and ``__dir__`` for a package that re-exports names of its modules
    on first use (``where``: name → module), so that importing one module of the package
    does not import the others."""
    scope = sys.modules[package].__dict__

    def __getattr__(name: str):
        if name in where:
            value = getattr(importlib.import_module(f".{where[name]}", package), name)
            scope[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(scope) | set(where))

    return __getattr__, __dir__
