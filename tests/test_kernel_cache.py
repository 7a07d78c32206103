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


@pytest.mark.slow
def test_every_warm_up_loads_its_kernels_in_a_new_process(tmp_path):
    # on a compiled cache (fem compile done), every warm-up run in a fresh process saves
    # no kernel: all load from disk (a closure kernel was saved anew in every run)
    import os
    import subprocess
    import sys
    from importlib.util import find_spec

    from fem.cases import WARMUPS

    if find_spec("numba") is None or not jit.kernels_ready():
        pytest.skip("the kernels are not compiled for these sources (fem compile)")
    env = dict(os.environ, NUMBA_DEBUG_CACHE="1", FEM_JIT="numba", FEM_JIT_BACKGROUND="0",
               OPENBLAS_NUM_THREADS="1")
    saved = {}
    for i, (case, params) in enumerate(WARMUPS):
        cmd = [sys.executable, "-m", "fem.cli", "run", case, "--no-render",
               "--out", str(tmp_path / str(i))]
        for k, v in params.items():
            cmd += ["-p", f"{k}={v}"]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path)
        assert out.returncode == 0, out.stderr[-600:]
        lines = [ln for ln in (out.stdout + out.stderr).splitlines() if "saved to" in ln]
        if lines:
            saved[f"{case} {params}"] = sorted({ln.rsplit("/", 1)[-1] for ln in lines})
    assert not saved, saved
