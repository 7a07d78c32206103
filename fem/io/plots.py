"""History plots without a display: matplotlib's Agg canvas directly (no pyplot state).

:func:`plot_histories` draws time histories (torques, energies, residuals) with a
reference beside each (dashed), the legend outside the data, an axis that says what it
shows when the curves barely vary; :func:`curve_style` gives every curve its colour and
line style (colour × style).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import numpy.typing as npt

from fem.core.errors import ModelError
from fem.core.files import temporary_path
from fem.io.render import check_writable, write_reason

__all__ = ["plot_histories", "curve_style", "LINE_STYLES"]


# ---------------------------------------------------------------------- plots
def plot_histories(
    time: npt.ArrayLike,
    series: Mapping[str, npt.ArrayLike],
    path: str | Path,
    ylabel: str = "",
    title: str = "",
    *,
    xlabel: str = "time [s]",
    logy: bool = False,
    reference: Mapping[str, npt.ArrayLike] | None = None,
    reference_label: str = "rigid",
    figsize: tuple[float, float] = (8.0, 4.0),
    dpi: int = 120,
    styles: Mapping[str, tuple[int, str]] | None = None,
) -> Path:
    """Plot time histories into an image (PNG, PDF, SVG by extension), without a display.

    Parameters
    ----------
    time : (m,) array_like
    series : mapping label -> (m,) or (m, c) values
        A 2D array draws c curves labelled ``label[0]`` … ``label[c-1]``.
    path : str or Path
    ylabel, title, xlabel : str
        Put the unit in the labels, e.g. ``"torque [N·m]"``.
    logy : bool
        Logarithmic y axis (residual norms); values that are not positive (an exact zero,
        NaN) cannot be drawn there and are left out of their curve.
    reference : mapping label -> values, optional
        Companion curves keyed like `series` (e.g. the rigid robot's torques beside the
        flexible one's): each is drawn dashed in the colour of its series and labelled
        ``"<label> (<reference_label>)"``; the series themselves are solid.
    reference_label : str
    styles : mapping label -> (colour number, line style), optional
        The look of chosen curves, to group many of them: e.g. the colour by gauge station
        and the line style (``"-"``, ``"--"``, ``":"``, ``"-."``) by side.  Other curves
        take the next colour of the cycle, and once the colours are used up the next
        line style (colour × style: no two curves look alike).

    Returns
    -------
    Path
        The image written.  The legend sits to the right of the axes, outside the data.
        When the curves vary by less than 10⁻⁴ of their size (an energy that is
        conserved), their change from the first value is drawn and the axis label says
        from what (``energy + 10.5224801 [J]``), instead of an offset no one can read.
    """
    path = Path(path)
    check_writable(path.parent, path)
    t, drawn = _curves(time, series, reference, reference_label, styles)
    args = (t, drawn, path, ylabel, title, xlabel, logy, figsize, dpi)
    from ..core import beside

    # under ``fem run``: drawn by the worker beside the run, which has matplotlib loaded,
    # a few plots at a time in two processes
    beside.call(_draw, *args, needs=("matplotlib",), batch=True)
    return path


def _draw(t, drawn, path, ylabel, title, xlabel, logy, figsize, dpi) -> None:
    """Draw the checked curves of :func:`plot_histories` and write the image (under a
    temporary name, renamed when complete)."""
    fig = _figure(t, drawn, ylabel, title, xlabel, logy, figsize, dpi)
    tmp = temporary_path(path, keep_suffix=True)
    try:
        # the layout fits the axes, labels and legend in the figure; the image is cropped
        # to what it draws (another full drawing of the text) only when something still
        # sticks out (a title wider than the figure)
        fmt = path.suffix.lstrip(".").lower() or "png"
        crop = _sticks_out(fig)
        if fmt == "png" and not crop:
            _write_png(fig, tmp)
        else:
            fig.savefig(tmp, bbox_inches="tight" if crop else None, format=fmt)
        os.replace(tmp, path)
    except OSError as err:
        raise ModelError(f"cannot write the plot {path}: {write_reason(err, path)}") from None
    finally:
        tmp.unlink(missing_ok=True)


def _write_png(fig, path: Path) -> None:
    """The figure drawn once on its Agg canvas and its pixels written as PNG.

    ``savefig`` draws a figure laid out by ``tight_layout`` twice (a layout pass, then
    the pixels: 0.08 of a plot's 0.37 s of CPU); the pixels are the same.  zlib level 3
    instead of Pillow's 6: a file about 8 % larger, 40 ms less a plot (a robot case writes
    up to 30)."""
    from PIL import Image

    fig.canvas.draw()
    width, height = fig.canvas.get_width_height(physical=True)
    image = Image.frombuffer("RGBA", (width, height), fig.canvas.buffer_rgba(), "raw",
                             "RGBA", 0, 1)
    dpi = float(fig.dpi)
    image.save(path, format="png", compress_level=3, dpi=(dpi, dpi))


def _sticks_out(fig) -> bool:
    """Whether the title or the legend of a laid-out figure reaches past its edges."""
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    for ax in fig.axes:
        for artist in (ax.title, ax.get_legend()):
            if artist is None or not artist.get_visible():
                continue
            if isinstance(artist, type(ax.title)) and not artist.get_text():
                continue
            ext = artist.get_window_extent(renderer)
            if ext.x0 < box.x0 - 0.5 or ext.x1 > box.x1 + 0.5 or ext.y0 < box.y0 - 0.5 \
                    or ext.y1 > box.y1 + 0.5:
                return True
    return False


LINE_STYLES = ("-", "--", ":", "-.")
"""Line styles after the colours: curve k of n colours is colour k mod n, style k // n."""


def curve_style(k: int, n_colours: int | None = None) -> tuple[str, str]:
    """Colour and line style of the ``k``-th curve of a plot: the colour cycle first, then
    the next line style with the colours again (colour × style)."""
    import matplotlib

    cycle = [c["color"] for c in matplotlib.rcParams["axes.prop_cycle"]]
    n = n_colours or len(cycle)
    return cycle[(k % n) % len(cycle)], LINE_STYLES[(k // n) % len(LINE_STYLES)]


def _shifted(ylabel: str, curves: list[np.ndarray]) -> tuple[float, str]:
    """The offset to subtract from curves that vary by less than 10⁻⁴ of their size, and
    the axis label saying so (``energy [J]`` → ``energy + 10.5224801 [J]``); (0, label)
    otherwise."""
    values = np.concatenate([c[np.isfinite(c)] for c in curves]) if curves else np.zeros(0)
    if not values.size:
        return 0.0, ylabel
    span, size = float(np.ptp(values)), float(np.abs(values).max())
    if size == 0.0 or span > 1e-4 * size:
        return 0.0, ylabel
    first = next(c[np.isfinite(c)][0] for c in curves if np.isfinite(c).any())
    offset = float(f"{first:.9g}")
    quantity, unit = ylabel, ""
    if ylabel.endswith("]") and " [" in ylabel:
        cut = ylabel.rindex(" [")
        quantity, unit = ylabel[:cut], ylabel[cut:]
    sign = "−" if offset > 0 else "+"
    return offset, f"{quantity or 'value'} {sign} {abs(offset):.9g}{unit}"


def _history_figure(time, series, ylabel, title, xlabel, logy, reference, reference_label,
                    figsize, dpi, styles=None):
    """The matplotlib Figure of :func:`plot_histories` (Agg canvas, no pyplot)."""
    t, drawn = _curves(time, series, reference, reference_label, styles)
    return _figure(t, drawn, ylabel, title, xlabel, logy, figsize, dpi)


def _curves(time, series, reference, reference_label, styles=None):
    """Check the histories of :func:`plot_histories` and give ``(t, drawn)``: every curve
    to draw as (label, values, colour, line style), the references dashed beside their
    series.  The colours stay numbers of the colour cycle (``int``) or the ``k``-th curve
    of :func:`curve_style` (``("auto", k)``), resolved where the figure is drawn
    (:func:`_figure`): checking needs no matplotlib (a third of a second to import)."""
    t = np.asarray(time, dtype=float).ravel()
    reference = dict(reference or {})
    unknown = set(reference) - set(series)
    if unknown:
        raise ModelError(f"reference curves {sorted(unknown)} have no series of the same label")
    styles = dict(styles or {})

    def curves(label: str, values: npt.ArrayLike) -> list[tuple[str, np.ndarray]]:
        y = np.asarray(values, dtype=float)
        if len(y) != len(t):
            raise ModelError(f"history '{label}' has {len(y)} values for {len(t)} times")
        if y.ndim == 1:
            return [(label, y)]
        y = y.reshape(len(t), -1)
        return [(f"{label}[{c}]", y[:, c]) for c in range(y.shape[1])]

    # (label, y, colour, style) of every curve: explicit styles, else colour × style
    drawn: list[tuple[str, np.ndarray, str, str]] = []
    n_auto = 0
    for label, values in series.items():
        ref = curves(label, reference[label]) if label in reference else []
        for j, (name, y) in enumerate(curves(label, values)):
            if name in styles:
                number, style = styles[name]
                colour = int(number)
            else:
                colour, style = ("auto", n_auto), None
                n_auto += 1
                if ref:
                    style = "-"            # the reference is the dashed one
            drawn.append((name, y, colour, style))
            if j < len(ref):
                drawn.append((f"{ref[j][0]} ({reference_label})", ref[j][1], colour, "--"))
    return t, drawn


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power_of_ten(value: float) -> str:
    """``value`` as ``10⁻¹⁰`` or ``2×10⁻⁵`` (Unicode superscripts, plain text)."""
    if not np.isfinite(value) or value <= 0.0:
        return ""
    exponent = int(np.floor(np.log10(value) + 1e-9))
    mantissa = value / 10.0 ** exponent
    power = f"10{str(exponent).translate(_SUPERSCRIPT)}"
    if abs(mantissa - round(mantissa)) > 1e-6 * mantissa:
        return f"{mantissa:.3g}×{power}"
    return power if round(mantissa) == 1 else f"{round(mantissa)}×{power}"


def _log_labels(ax) -> None:
    """A log y axis labelled in plain text (:func:`_power_of_ten`) where matplotlib writes
    mathtext (``$10^{-10}$``): the same reading and the same choice of labelled ticks,
    without parsing TeX for every label (a fifth of a log plot's CPU)."""
    from matplotlib.ticker import LogFormatter

    class Decades(LogFormatter):
        def _num_to_string(self, x, vmin, vmax):
            return _power_of_ten(x)

    ax.yaxis.set_major_formatter(Decades(10.0))
    ax.yaxis.set_minor_formatter(Decades(10.0, labelOnlyBase=False))


def _figure(t, drawn, ylabel, title, xlabel, logy, figsize, dpi):
    """The Figure of checked curves (:func:`_curves`)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    offset = 0.0
    if not logy:
        offset, ylabel = _shifted(ylabel, [y for _, y, _, _ in drawn])
    import matplotlib

    cycle = [c["color"] for c in matplotlib.rcParams["axes.prop_cycle"]]
    for name, y, colour, style in drawn:
        if isinstance(colour, tuple):             # ("auto", k): colour × line style
            colour, auto = curve_style(colour[1])
            style = style or auto
        else:
            colour = cycle[colour % len(cycle)]
        if logy:
            y = np.where(y > 0, y, np.nan)
            if not np.isfinite(y).any():
                continue
        ax.plot(t, y - offset, linestyle=style, color=colour, label=name, lw=1.5)
    if not logy:
        ax.ticklabel_format(axis="y", useOffset=False)
    if logy:
        ax.set_yscale("log")
        _log_labels(ax)
        positive = [y[np.isfinite(y) & (y > 0)] for _, y, _, _ in drawn]
        values = np.concatenate(positive) if positive else np.zeros(0)
        if values.size and np.log10(values.max() / values.min()) > 3.0:
            # over more than three decades the eight minor ticks a decade are a blur, and
            # matplotlib's tick objects were half of such a plot's time (0.35 of 0.7 s)
            from matplotlib.ticker import NullLocator

            ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  fontsize="small", frameon=False)
    fig.tight_layout()
    return fig
