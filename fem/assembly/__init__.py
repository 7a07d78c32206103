"""From a model to the system the solvers see: the declared solver contract
(:mod:`.system`), the sparse assembly with its patterns built once (:mod:`.core`), the
constraints' rows (:mod:`.constraints`) and the linear algebra (:mod:`.linalg`)."""

from __future__ import annotations

__all__ = ['Assembly', 'System']

_WHERE = {'Assembly': 'core', 'System': 'system'}


def __getattr__(name: str):
    # lazy: importing a module of this package must not import the whole package
    if name in _WHERE:
        import importlib

        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
