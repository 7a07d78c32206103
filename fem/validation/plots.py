"""Figures of the validation report: matplotlib without a display, PNG bytes out."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np

from .registry import Plot

__all__ = ["new_figure", "to_plot", "order_guide"]


def new_figure(rows: int = 1, cols: int = 1, size: tuple[float, float] = (7.0, 4.2),
               **kw):
    """A matplotlib figure on the Agg backend (no display needed): ``(fig, axes)``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(rows, cols, figsize=size, **kw)


def to_plot(fig, name: str, caption: str, dpi: int = 110) -> Plot:
    """Render a figure to PNG bytes (the figure is closed) as a :class:`Plot`."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    return Plot(name, buf.getvalue(), caption)


def order_guide(ax, x: Sequence[float], y: Sequence[float], order: float,
                label: str | None = None) -> None:
    """Draw a dotted line of slope ``order`` on log-log axes through the first point of
    ``(x, y)``, labelled ``O(h^order)``."""
    x = np.asarray(x, float)
    y0 = float(np.asarray(y, float)[0])
    ax.loglog(x, y0 * (x / x[0]) ** order, ":", color="0.4",
              label=label or f"slope {order:g}")
