"""Benchmark: steel cantilever ANCF cable falling under gravity (issue 2).

Straight at rest at t = 0, generalized-α ρ∞ = 0.8, h = 1e-3 s, 1000 steps, Newton
tolerance 1e-6 relative; n ∈ {16, 64, 256} elements.  Prints one JSON line per n.
Not collected by pytest (run: ``python tests/benchmarks/cable_cantilever.py``).
Against Exudyn, interleaved: ``peer_compare.py`` (docs/performance.md, "Peer comparison").
"""

from __future__ import annotations

import json
import sys

from benchtools import cantilever_drop

import fem


def build(n: int):
    """The benchmark's cantilever: the ``cantilever_cable`` case (2 m steel bar, 20 mm
    square, clamped, under gravity) with ``n`` elements, assembled; returns the model and
    the tip's z coordinate index."""
    model = fem.cases.load_case("cantilever_cable").build(n_elements=n)
    model.assemble()
    return model, int(model.node_dofs(model.node("tip"))[2])


def run(n: int, steps: int = 1000, h: float = 1e-3) -> dict:
    model, tip = build(n)
    return cantilever_drop(model, tip, steps, h, elements=n)


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [16, 64, 256]
    for n in sizes:
        print(json.dumps(run(n)), flush=True)
