"""Names of a package loaded on first use (PEP 562), so that importing one module of a
package does not import the others."""

from __future__ import annotations

import importlib
import sys

__all__ = ["lazy_exports"]


def lazy_exports(package: str, where: dict[str, str]):
    """``__getattr__`` and ``__dir__`` for a package that re-exports names of its modules
    on first use (``where``: name → module) and gives each of its modules and
    subpackages as an attribute, imported on first use (``fem.model.actuators`` after
    ``import fem``)."""
    scope = sys.modules[package].__dict__
    found: list[frozenset[str]] = []

    def modules() -> frozenset[str]:
        if not found:       # the package's folder listed once, on the first miss
            import pkgutil

            found.append(frozenset(m.name for m in pkgutil.iter_modules(scope["__path__"])))
        return found[0]

    def __getattr__(name: str):
        if name in where:
            value = getattr(importlib.import_module(f".{where[name]}", package), name)
            scope[name] = value
            return value
        if not name.startswith("__") and name in modules():
            return importlib.import_module(f".{name}", package)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(scope) | set(where) | modules())

    return __getattr__, __dir__
