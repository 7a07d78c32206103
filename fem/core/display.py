"""How models and results show themselves in a terminal and in a notebook.

Each object gives a title and ``(label, value)`` lines; :func:`text` makes its
``__repr__`` and :func:`html` its ``_repr_html_`` (a small table, values escaped).
"""

from __future__ import annotations

import html as _html
from collections.abc import Sequence

__all__ = ["text", "html", "span", "count"]


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 node"``, ``"3 nodes"``."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def span(values, unit: str = "", fmt: str = ".4g") -> str:
    """``"0 … 0.2 s"`` of a sequence of numbers (``"–"`` when empty)."""
    vals = [float(v) for v in values]
    if not vals:
        return "–"
    lo, hi = min(vals), max(vals)
    body = f"{lo:{fmt}}" if lo == hi else f"{lo:{fmt}} … {hi:{fmt}}"
    return f"{body} {unit}".rstrip()


def text(title: str, lines: Sequence[tuple[str, str]]) -> str:
    """``title`` and the lines as ``label: value``, one per line, labels aligned."""
    width = max((len(k) for k, _ in lines), default=0)
    return "\n".join([title, *(f"  {k + ':':<{width + 1}s} {v}" for k, v in lines)])


def html(title: str, lines: Sequence[tuple[str, str]],
         table: tuple[Sequence[str], Sequence[Sequence[str]]] | None = None) -> str:
    """A titled two-column table of the lines; optionally a second table
    ``(header, rows)`` below it (a mode list, a sweep's points)."""
    esc = _html.escape
    rows = "".join(f"<tr><th style='text-align:left'>{esc(k)}</th>"
                   f"<td style='text-align:left'>{esc(v)}</td></tr>" for k, v in lines)
    out = [f"<div><strong>{esc(title)}</strong><table>{rows}</table>"]
    if table is not None:
        header, body = table
        head = "".join(f"<th>{esc(h)}</th>" for h in header)
        cells = "".join("<tr>" + "".join(f"<td>{esc(str(c))}</td>" for c in r) + "</tr>"
                        for r in body)
        out.append(f"<table><tr>{head}</tr>{cells}</table>")
    out.append("</div>")
    return "".join(out)
