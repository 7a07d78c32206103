"""The convergence audit's table (issue 21, item 2), from its stored output.

``tests/benchmarks/convergence_audit.py`` runs every case at its defaults, with the step
halved and with the mesh refined once, and prints one JSON record per configuration;
:func:`summarize` marks a record's headline figures and largest moves and
:func:`markdown` prints the table of ``docs/validation.md``.  The audit takes 5–8
minutes, so the report prints the records stored in ``data/convergence_audit.jsonl``
(regenerate: ``python tests/benchmarks/convergence_audit.py >
fem/validation/data/convergence_audit.jsonl``; rerun some cases into it: ``python
tests/benchmarks/convergence_audit.py CASE ... --store``).
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["BOOKKEEPING", "headline", "summarize", "markdown", "stored", "STORED"]

STORED = Path(__file__).resolve().parent / "data" / "convergence_audit.jsonl"
"""The audit's JSON lines as last run (committed)."""

BOOKKEEPING = ("wall", "time_s", "iteration", "residual", "n_coordinates", "n_elements",
               "n_constraints", "steps", "factorization", "reference", "paper", "params",
               "plots", "files", "status", "case", "parameters", "machine", "roundoff",
               "n_dof", "counts", "dofs", "size", "n_modes", "method_difference",
               "chain_residual", "loop_closure", "analysis", "mesh", "basis",
               "n_frequencies", "load_steps", "speedup", "error", "drift", "total_j",
               "shear_factor", "real_time", "span_over", "rigidity", "duration",
               "extrapolation")
"""Substrings of figure names that are not headline figures.  Error measures (an error
against a reference, an energy drift, the history of a conserved total energy) are left
out too: they measure the discretization error themselves and fall with the step by
design; so are inputs a case echoes (a plate's shear factor, which depends on the element
size by construction), the inputs of an extrapolation a case reports beside its result
(the flagship's coarser-mesh sag and the order) and, by the prefix ``rigid_``, the
figures of a case's rigid reference model."""


def headline(name: str) -> bool:
    """Whether a figure is a headline figure (a result, not bookkeeping: counts ``n_…``,
    inputs echoed, references, timings)."""
    low = name.lower()
    return (not low.startswith(("n_", "rigid_"))
            and not any(word in low for word in BOOKKEEPING))


def summarize(record: dict) -> dict:
    """Mark the headline figures of a record and its largest move per variant."""
    record["headline"] = [k for k in record["moves"] if headline(k)]
    worst = {}
    for key in record["headline"]:
        for label, m in record["moves"][key].items():
            if m > worst.get(label, (-1.0, ""))[0]:
                worst[label] = (m, key)
    record["worst"] = {label: {"move": m, "figure": key} for label, (m, key) in worst.items()}
    return record


def markdown(records: list[dict]) -> str:
    """The table of docs/validation.md: one row per configuration and variant."""
    lines = ["| case (defaults) | variant | wall [s] | largest move | of figure | "
             "figures over 1 % |",
             "|---|---|---|---|---|---|"]
    for r in records:
        label = r["case"] + "".join(f", {k}={v}" for k, v in r["overrides"].items())
        variants = [v for v in r["wall_s"] if v != "default"]
        if not variants:
            lines.append(f"| {label} | — | {r['wall_s'].get('default', '—')} | — | — | "
                         f"{r['notes'].get('default', 'no time step or mesh parameter')} |")
        for v in variants:
            if v in r["notes"]:
                note = r["notes"][v].split(";")[0].split(" (")[0]
                lines.append(f"| {label} | {v} | {r['wall_s'][v]} | — | — | {note} |")
                continue
            w = r.get("worst", {}).get(v)
            over = sorted((k for k in r["headline"] if r["moves"][k].get(v, 0.0) > 0.01),
                          key=lambda k: -r["moves"][k][v])
            listed = ", ".join(f"`{k}` {100 * r['moves'][k][v]:.2g} %" for k in over[:4])
            if len(over) > 4:
                listed += f" and {len(over) - 4} more"
            lines.append(f"| {label} | {v} | {r['wall_s']['default']} → {r['wall_s'][v]} | "
                         f"{'—' if w is None else format(100 * w['move'], '.3g') + ' %'} | "
                         f"{'—' if w is None else '`' + w['figure'] + '`'} | "
                         f"{listed or 'none'} |")
    return "\n".join(lines)



def stored(path: str | Path = STORED) -> list[dict]:
    """The stored audit records, summarized (empty if the file is missing)."""
    path = Path(path)
    if not path.is_file():
        return []
    return [summarize(json.loads(line)) for line in path.read_text().splitlines()
            if line.startswith("{")]
