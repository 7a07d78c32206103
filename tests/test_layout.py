"""The package layout of docs/architecture.md: every package imports only from the floors
below it, no two modules import each other, and module paths are the real ones (no
finder maps old names onto them).

Every ``import`` and ``from … import`` counts, wherever it stands (a function's body,
``if TYPE_CHECKING:``): an import deferred to first use is still a dependency.
"""

from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "fem"

FLOORS = [
    ("core",),
    ("maps", "bases", "rigid", "references"),
    ("constraints",),
    ("elements",),
    ("bodies",),
    ("assembly",),
    ("model",),
    ("solvers",),
    ("reduction", "io"),
    ("robot",),
    ("robots",),
    ("cases",),
    ("parametric",),
    ("fem",),
    ("validation",),
    ("cli",),
    ("__main__",),
]
"""The floors from the ground up (docs/architecture.md, "The map"): a package of ``fem``
(or a top-level module: ``cases``, ``cli``, ``__main__``; ``fem`` is the namespace,
``fem/__init__.py``) may import its own modules and those of the floors below it, never
those of its own floor or above."""

FLOOR = {name: level for level, names in enumerate(FLOORS) for name in names}


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module of ``fem``: dotted name → (file, whether it is a package)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


MODULES = _modules()


def _imports(name: str, path: Path, is_package: bool) -> list[tuple[str, int]]:
    """``(imported module of fem, line)`` for every import statement of the module."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            # `from pkg import mod` imports the module pkg.mod
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module
                       for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:        # an attribute of a module
                target = target.rpartition(".")[0]
            if target and target != name:
                out.append((target, node.lineno))
    return out


def _package(module: str) -> str:
    """``fem.model.core`` → ``model``; ``fem.cli`` → ``cli``; ``fem`` → ``fem``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "fem"


@functools.cache
def _all_imports() -> dict[str, list[tuple[str, int]]]:
    """Every module's imports of fem (parsed on first use, not at collection: both test
    processes collect this module, one runs its tests; 1.5 s of CPU)."""
    return {name: _imports(name, *where) for name, where in MODULES.items()}


def test_every_package_has_a_floor():
    packages = {_package(name) for name in MODULES}
    assert packages == set(FLOOR), (sorted(packages - set(FLOOR)),
                                    sorted(set(FLOOR) - packages))


def test_packages_import_only_from_the_floors_below():
    upward = []
    for name, imports in _all_imports().items():
        own = _package(name)
        for target, line in imports:
            other = _package(target)
            if other != own and FLOOR[other] >= FLOOR[own]:
                upward.append(f"{MODULES[name][0].relative_to(ROOT)}:{line} imports {target}")
    assert not upward, "\n".join(upward)


def test_core_imports_nothing_of_fem_above_it():
    above = [(name, target) for name, imports in _all_imports().items()
             if _package(name) == "core" for target, _ in imports
             if _package(target) != "core"]
    assert not above, above


def test_no_two_modules_import_each_other():
    """No cycle among modules.  A package's ``__init__`` may load its own modules on
    first use (the registries of element families and bases do) — those edges are its
    own business and left out; any other cycle is a room that should be split."""
    graph = {name: {t for t, _ in imports
                    if not (MODULES[name][1] and t.startswith(name + "."))}
             for name, imports in _all_imports().items()}
    cycles, index, low, stack, on_stack = [], {}, {}, [], set()

    def visit(v):                       # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, cycles


def test_fem_has_no_loose_modules_but_its_entry_points():
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "cases.py", "cli.py"], loose


@pytest.mark.parametrize("old", ["fem.output", "fem.chains", "fem.plates", "fem.system",
                                 "fem.validate", "fem.bodies.chains", "fem.io.results"])
def test_old_module_paths_are_gone(old):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


def test_import_fem_reaches_every_public_package():
    import fem

    packages = sorted(p.name for p in PACKAGE.iterdir()
                      if (p / "__init__.py").is_file())
    assert all(getattr(fem, name).__name__ == f"fem.{name}" for name in packages)
    assert set(packages) <= set(dir(fem))
    assert fem.frames.__name__ == "fem.reduction.frames"
