"""Figures of the validation report: matplotlib without a display, PNG bytes out."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np

from .registry import Plot

__all__ = ["new_figure", "to_plot", "order_guide", "plain_ticks", "refinement_plot"]


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
                label: str | None = None, offset: float = 0.5) -> None:
    """Draw a dotted line of slope ``order`` on log-log axes, ``offset`` times the first
    point of ``(x, y)`` (below the data, so both stay visible)."""
    x = np.asarray(x, float)
    y0 = offset * float(np.asarray(y, float)[0])
    ax.loglog(x, y0 * (x / x[0]) ** order, ":", color="0.3", lw=1.5,
              label=label or f"slope {order:g}")


def plain_ticks(ax, values: Sequence[float], fmt: str = "{:g}") -> None:
    """Label a logarithmic x axis at ``values`` in plain numbers (no 2×10⁰)."""
    from matplotlib.ticker import FixedLocator, NullLocator

    ax.xaxis.set_major_locator(FixedLocator(list(values)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([fmt.format(v) for v in values])


def refinement_plot(name: str, caption: str, x: Sequence[float],
                    series: Sequence[tuple[Sequence[float], str, str]], guide: tuple[int, float],
                    xlabel: str, ylabel: str, size: tuple[float, float] = (6.4, 4.2),
                    level: tuple[float, str] | None = None) -> Plot:
    """Errors under refinement on log–log axes, as a :class:`Plot`.

    Parameters
    ----------
    name, caption : str
        As for :func:`to_plot`.
    x : sequence of float
        The refinement (elements, steps), labelled in plain numbers.
    series : sequence of ``(errors, style, label)``
        Each drawn as ``|errors|`` against ``x``.
    guide : ``(i, slope)``
        A dotted line of this slope below the series ``i`` (:func:`order_guide`).
    xlabel, ylabel : str
    size : (float, float)
        Figure size [in].
    level : ``(value, label)``, optional
        A dashed horizontal line (an error the refinement does not remove).
    """
    fig, ax = new_figure(size=size)
    for err, style, label in series:
        ax.loglog(x, np.abs(err), style, label=label)
    i, slope = guide
    order_guide(ax, x, np.abs(series[i][0]), slope,
                f"slope {slope:g} (order {abs(slope):g})".replace("-", "−"))
    if level is not None:
        ax.axhline(level[0], color="0.6", ls="--", label=level[1])
    ax.set(xlabel=xlabel, ylabel=ylabel)
    plain_ticks(ax, x)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return to_plot(fig, name, caption)
