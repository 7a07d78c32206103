"""The model a user builds: :class:`Model` (bodies, element groups, nodes, loads,
constraints) with what goes into it — meshes (:mod:`.mesh`), materials
(:mod:`.materials`), builders of straight cables and beams (:mod:`.builders`), linear and
nonlinear point maps (:mod:`.linear_map`, :mod:`.point_maps`), actuators
(:mod:`.actuators`) and prescribed motions (:mod:`.trajectory`).  The model is assembled
(:mod:`fem.assembly`) into the system the solvers see."""

from __future__ import annotations

__all__ = ['Body', 'ElementGroup', 'Model']

_WHERE = {'Model': 'core', 'Body': 'core', 'ElementGroup': 'core'}


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
