"""Compiled kernels load from the disk cache in every new process.

numba caches a kernel on disk keyed by its code and what it refers to; a kernel that
calls another kernel held in its factory's closure refers to a dispatcher object that
is new in every process, and so misses the cache and is compiled again in every run
(the floating frame's inertia kernels cost 8 s of compiling at each run's start until
their shared helper became a module global).  Kernels call kernels as module globals
(``global _helper; _helper = helper``, as :mod:`fem.bodies.chain_kernels` does): this
checks every kernel file's source for the other form, without compiling anything."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fem.core import jit

PACKAGE = Path(jit.__file__).resolve().parents[1]


def _jitted(node: ast.AST) -> bool:
    return isinstance(node, ast.FunctionDef) and any(
        "njit" in ast.unparse(d) or "numba.jit" in ast.unparse(d) for d in node.decorator_list)


@pytest.mark.parametrize("source", jit.KERNEL_SOURCES)
def test_kernels_call_kernels_as_module_globals(source):
    tree = ast.parse((PACKAGE / source).read_text(encoding="utf-8"))
    bad = []
    for factory in ast.walk(tree):
        if not isinstance(factory, ast.FunctionDef):
            continue
        kernels = [f for f in factory.body if _jitted(f)]
        names = {f.name for f in kernels}
        declared = {n for g in factory.body if isinstance(g, ast.Global) for n in g.names}
        for f in kernels:
            used = {n.id for n in ast.walk(f)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            bad += [f"{factory.name}.{f.name} calls {u}" for u in sorted(used & names - {f.name})
                    if u not in declared]
    assert not bad, (f"{source}: kernels calling kernels of their factory's closure "
                     f"(compiled again in every process): {bad}")
