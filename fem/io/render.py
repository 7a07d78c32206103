"""Pictures without a display: PyVista snapshots and animations, matplotlib history plots.

Headless rendering
------------------
:func:`ensure_offscreen` (called by :func:`snapshot` and :func:`animate`) sets
``pyvista.OFF_SCREEN = True`` and, when there is no ``DISPLAY``/``WAYLAND_DISPLAY``, picks the
VTK render window through ``VTK_DEFAULT_OPENGL_WINDOW`` (unless the user set it already):

1. ``vtkEGLRenderWindow`` if ``libEGL`` is installed (Mesa's software rasterizer llvmpipe
   does the work: Debian packages ``libegl1 libgl1-mesa-dri``),
2. else ``vtkOSOpenGLRenderWindow`` if ``libOSMesa`` is installed (``libosmesa6``),
3. else, if an ``Xvfb`` binary exists, a private virtual X server is started and ``DISPLAY``
   set (needs ``xvfb libgl1 libglx-mesa0 libgl1-mesa-dri``),
4. else a ``RuntimeError`` says what to install.

VTK older than 9.4 cannot choose its window at run time; there the virtual X server (3.) is
the only headless route.

The VTK ≥ 9.4 wheels (pip ``vtk``) link no system graphics library; they load X11, EGL or
OSMesa at run time, and VTK falls back from EGL to OSMesa by itself if EGL cannot make a
context.  Choosing the window explicitly matters: left to itself VTK first probes X11 and,
with ``libX11`` absent, crashes (VTK 9.7).  Minimal install on Debian 12 / Ubuntu
(python:3.11-slim images)::

    apt-get update && apt-get install -y --no-install-recommends libegl1 libgl1-mesa-dri
    # or, instead:   apt-get install -y --no-install-recommends libosmesa6

MP4 files are encoded by the ffmpeg binary bundled with ``imageio-ffmpeg`` (no system
ffmpeg); without it, :func:`animate` writes a GIF instead.  History plots use matplotlib's
Agg canvas directly (no pyplot state, no display).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes.util
import os
import shutil
import subprocess
import sys
import time as _time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import meshio
import numpy as np
import numpy.typing as npt

from fem.core.errors import ModelError
from fem.core.files import temporary_path
from fem.core.validate import CAMERAS
from fem.io.vtk import Frame, read_series, to_meshio
from fem.model.mesh import Mesh, read_meshio

if TYPE_CHECKING:
    import pyvista as pv

__all__ = ["HistoryPanel", "animate", "camera_axes", "ensure_offscreen", "plot_histories",
           "snapshot"]

_BACKEND: str | None = None
_XVFB: subprocess.Popen | None = None
_INSTALL_HINT = (
    "no way to render without a display: install EGL "
    "(apt-get install -y --no-install-recommends libegl1 libgl1-mesa-dri) or OSMesa "
    "(apt-get install -y --no-install-recommends libosmesa6), or run under xvfb-run"
)


# ---------------------------------------------------------------------- headless setup
def ensure_offscreen() -> str:
    """Prepare PyVista/VTK for off-screen rendering; return the backend used.

    Returns
    -------
    str
        ``"display"`` (a display is available), ``"env"`` (``VTK_DEFAULT_OPENGL_WINDOW`` was
        already set), ``"egl"``, ``"osmesa"`` or ``"xvfb"``.  See the module docstring for the
        order and the system packages each needs.

    Raises
    ------
    RuntimeError
        If none of EGL, OSMesa or Xvfb is available on a machine without a display.
    """
    global _BACKEND
    import pyvista as pv

    pv.OFF_SCREEN = True
    if _BACKEND is not None:
        return _BACKEND
    if not sys.platform.startswith("linux") or os.environ.get("DISPLAY"):
        _BACKEND = "display"
    elif os.environ.get("WAYLAND_DISPLAY"):
        _BACKEND = "display"
    elif os.environ.get("VTK_DEFAULT_OPENGL_WINDOW"):
        _BACKEND = "env"
    elif tuple(pv.vtk_version_info) < (9, 4):  # older wheels: X only, so a virtual X server
        if not shutil.which("Xvfb"):
            raise RuntimeError(f"VTK {pv.vtk_version_info} renders through X only: {_INSTALL_HINT}")
        _start_xvfb()
        _BACKEND = "xvfb"
    elif ctypes.util.find_library("EGL"):
        os.environ["VTK_DEFAULT_OPENGL_WINDOW"] = "vtkEGLRenderWindow"
        _BACKEND = "egl"
    elif ctypes.util.find_library("OSMesa"):
        os.environ["VTK_DEFAULT_OPENGL_WINDOW"] = "vtkOSOpenGLRenderWindow"
        _BACKEND = "osmesa"
    elif shutil.which("Xvfb"):
        _start_xvfb()
        _BACKEND = "xvfb"
    else:
        raise RuntimeError(_INSTALL_HINT)
    return _BACKEND


def _start_xvfb() -> None:
    """Start a virtual X server on a free display number and point DISPLAY at it."""
    global _XVFB
    for number in range(99, 199):
        if Path(f"/tmp/.X11-unix/X{number}").exists() or Path(f"/tmp/.X{number}-lock").exists():
            continue
        proc = subprocess.Popen(
            ["Xvfb", f":{number}", "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):  # up to 5 s for the socket
            if Path(f"/tmp/.X11-unix/X{number}").exists() or proc.poll() is not None:
                break
            _time.sleep(0.05)
        if proc.poll() is None:
            _XVFB = proc
            atexit.register(proc.terminate)
            os.environ["DISPLAY"] = f":{number}"
            return
    raise RuntimeError("could not start Xvfb; " + _INSTALL_HINT)


# ---------------------------------------------------------------------- inputs
# How each meshio cell type is drawn; PolyData keyword that holds it.
_KIND = {"vertex": "point", "line": "line", "triangle": "surface", "quad": "surface"}
_POLY_KEY = {"point": "verts", "line": "lines", "surface": "faces"}
_COLOUR = {"surface": "lightsteelblue", "line": "dimgray", "point": "firebrick",
           "tube": "slategray", "sketch": "black", "ground": "silver", "path": "crimson",
           "support": "#303030"}
_UNITS = {"_Pa": "Pa", "_m": "m", "_N": "N", "_Nm": "N·m"}
_FIELD_UNITS = {"displacement magnitude": "m", "deformation magnitude": "m",
                "velocity magnitude": "m/s", "bending_moment": "N·m",
                "axial_force": "N", "curvature": "1/m", "axial_strain": "–"}
_QUANTITY = {"von_mises_top": "von Mises stress, top", "von_mises_bottom":
             "von Mises stress, bottom", "von_mises": "von Mises stress",
             "face_von_mises_top": "von Mises stress, top face",
             "face_von_mises_bottom": "von Mises stress, bottom face"}
# Larger units for large values (the first whose factor the largest value reaches).
_PREFIXED = {"Pa": (("GPa", 1e9), ("MPa", 1e6), ("kPa", 1e3)),
             "N": (("MN", 1e6), ("kN", 1e3)), "N·m": (("MN·m", 1e6), ("kN·m", 1e3))}
_SMALLER = {"m": (("mm", 1e-3, 1.0), ("µm", 1e-6, 1e-3))}   # unit, factor, below


def bar_title(name: str, largest: float | None = None) -> tuple[str, float]:
    """The colour-bar title of a field and the factor its values are divided by:
    ``von_mises_top_Pa`` with values up to 1.7e7 → ``("von Mises stress, top [MPa]",
    1e6)``; ``link_deformation_m`` up to 0.012 → ``("link deformation [mm]", 1e-3)``.
    The unit is the field name's suffix (or known for the field), scaled so that the
    labels read without exponents."""
    unit = ""
    for suffix, text in _UNITS.items():
        if name.endswith(suffix):
            name, unit = name[: -len(suffix)], text
            break
    unit = unit or _FIELD_UNITS.get(name, "")
    quantity = _QUANTITY.get(name) or name.replace("_", " ")
    scale = 1.0
    if largest is not None and np.isfinite(largest) and largest > 0:
        for prefixed, factor in _PREFIXED.get(unit, ()):
            if largest >= factor:
                unit, scale = prefixed, factor
                break
        else:
            for smaller, factor, below in _SMALLER.get(unit, ()):
                if largest < below:
                    unit, scale = smaller, factor
    title = f"{quantity} [{unit}]" if unit else quantity
    if len(title) > 18 and ", " in quantity:      # two lines: the bar's title stays inside
        title = title.replace(", ", ",\n", 1)
    return title, scale


def display_units(scenes: Sequence[_Scene], clim: Sequence[float] | None = None
                   ) -> Sequence[float] | None:
    """Rename the colour field of every scene to its colour-bar title and divide its
    values by the title's factor (:func:`bar_title`), the same for all frames.
    Returns the colour range ``clim`` (given in the field's own unit) in the new one."""
    names = {s.scalars for s in scenes if s.scalars}
    if len(names) != 1:
        return clim
    name = names.pop()
    finite = [np.abs(v[np.isfinite(v)]) for s in scenes for v in s.values]
    largest = max((float(v.max()) for v in finite if v.size), default=None)
    title, scale = bar_title(name, largest)
    for scene in scenes:
        for _, part in scene.parts:
            for data in (part.point_data, part.cell_data):
                if name in data:
                    values = np.asarray(data[name], dtype=float) / scale
                    data.remove(name)
                    data[title] = values
        scene.values = [v / scale for v in scene.values]
        scene.scalars = title
    return None if clim is None else [float(c) / scale for c in clim]


def _group_roles(m: meshio.Mesh) -> dict[int, str]:
    """Group ids of a frame drawn in their own style, from its field data
    (``group:<name>``, :meth:`fem.io.output.Drawing.frame`): ``"ground"`` for sketches
    (``<name> (sketch)``: their filled cells are the static platform, a wall), ``"path"``
    for the paths of prescribed points (``<name> (path)``)."""
    out = {}
    for key, value in m.field_data.items():
        if not key.startswith("group:"):
            continue
        ids = np.ravel(np.asarray(value))
        if not ids.size:
            continue
        if key.endswith(" (sketch)"):
            out[int(ids[0])] = "ground"
        elif key.endswith(" (path)"):
            out[int(ids[0])] = "path"
    return out


def _meshes(obj: Any) -> list[meshio.Mesh]:
    """meshio meshes from frames, meshio/fem meshes, PyVista datasets, files, or lists."""
    if isinstance(obj, meshio.Mesh):
        return [obj]
    if isinstance(obj, Frame | Mapping):
        return [to_meshio(obj)]
    if isinstance(obj, Mesh):
        return [obj.to_meshio(groups_as_data=False)]
    if isinstance(obj, str | os.PathLike):
        return [read_meshio(obj)]
    if type(obj).__module__.startswith("pyvista"):
        import pyvista as pv

        return [pv.to_meshio(obj)]
    if isinstance(obj, Sequence):
        return [m for item in obj for m in _meshes(item)]
    raise ModelError(f"cannot render a {type(obj).__name__}")


@dataclass
class _Scene:
    """What one frame draws: PolyData parts by kind, its colour array, extent, value range."""

    parts: list[tuple[str, Any]] = field(default_factory=list)
    scalars: str | None = None
    boxes: list[np.ndarray] = field(default_factory=list)  # (2, 3) per part
    values: list[np.ndarray] = field(default_factory=list)
    samples: list[np.ndarray] = field(default_factory=list)   # points to frame, (k, 3)
    detail: list[np.ndarray] = field(default_factory=list)    # points of the close-up


def _averaged_at_points(rows: list[np.ndarray], values: np.ndarray, n_points: int
                        ) -> np.ndarray:
    """Cell values averaged at each point over the cells that hold it (NaN cells left
    out; NaN where no cell has a value): ``rows`` are the cells as ``[size, i, j, …]``."""
    total = np.zeros(n_points)
    count = np.zeros(n_points)
    start = 0
    for block in rows:
        vals = values[start:start + len(block)]
        start += len(block)
        finite = np.isfinite(vals)
        idx = block[finite, 1:]
        np.add.at(total, idx.ravel(), np.repeat(vals[finite], idx.shape[1]))
        np.add.at(count, idx.ravel(), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1.0), np.nan)


def _magnitude(values: np.ndarray) -> np.ndarray:
    """Scalars as they are, vectors by their length."""
    return values if values.ndim == 1 else np.linalg.norm(values.reshape(len(values), -1), axis=1)


def _warped_points(
    m: meshio.Mesh,
    warp: str | bool | None,
    scale: float,
    deform: str | None = None,
    factor: float = 1.0,
) -> np.ndarray:
    """Reference points + ``scale`` × ``warp`` field + (``factor`` − 1) × ``deform`` field.

    With ``warp="displacement"`` (current − reference) and ``deform="deformation"`` (its
    elastic part) the picture is the current shape with the elastic deformation magnified
    ``factor`` times; rigid motion stays true to scale.
    """
    points = np.asarray(m.points, dtype=float)
    points = np.hstack([points, np.zeros((len(points), 3 - points.shape[1]))])
    for name, weight in ((("displacement" if warp is True else warp), scale),
                         (deform, factor - 1.0)):
        if not name or weight == 0.0:
            continue
        if name not in m.point_data:
            raise ModelError(f"cannot warp by '{name}': point data has {sorted(m.point_data)}")
        vec = np.asarray(m.point_data[name], dtype=float).reshape(len(points), -1)[:, :3]
        points[:, : vec.shape[1]] += weight * vec
    return points


def _line_parts(
    poly: pv.PolyData, radius: np.ndarray | None, tube_radius: float | None, joined: bool
) -> list[tuple[pv.PolyData, float]]:
    """Line cells as tubes: of ``tube_radius`` if given, else of the per-point ``radius``
    field where it is positive; lines whose points have no radius stay thin lines.
    Returns (PolyData, padding) pairs."""
    import pyvista as pv

    if tube_radius:
        base = poly.strip() if joined else poly
        return [(base.tube(radius=tube_radius, n_sides=16, capping=True), tube_radius)]
    if radius is None or not np.any(radius > 0):
        return [(poly, 0.0)]
    lines = poly.lines.reshape(-1, 3)
    thick = (radius[lines[:, 1:]] > 0).all(axis=1)
    parts = []
    for keep, is_tube in ((thick, True), (~thick, False)):
        if not keep.any():
            continue
        sub = pv.PolyData(poly.points, lines=lines[keep].ravel())
        for name in poly.point_data:
            sub.point_data[name] = poly.point_data[name]
        for name in poly.cell_data:
            sub.cell_data[name] = np.asarray(poly.cell_data[name])[keep]
        if is_tube:
            sub.point_data["radius"] = radius
            if joined:
                sub = sub.strip()
            sub = sub.tube(scalars="radius", absolute=True, n_sides=16, capping=True)
        parts.append((sub, float(radius.max()) if is_tube else 0.0))
    return parts


def build_scene(
    obj: Any,
    scalars: str | None,
    warp: str | bool | None,
    scale: float,
    tube_radius: float | None,
    deform: str | None = None,
    factor: float = 1.0,
    detail: Sequence[str] = (),
) -> _Scene:
    """Warp, colour and split the meshes of one frame into PolyData by cell kind;
    ``detail``: names of the groups a close-up shows (their points are collected)."""
    import pyvista as pv

    scene = _Scene()
    meshes = _meshes(obj)
    if scalars and not any(scalars in m.point_data or scalars in m.cell_data for m in meshes):
        have = sorted({k for m in meshes for k in (*m.point_data, *m.cell_data)})
        raise ModelError(f"no point or cell data '{scalars}' to colour by; available: {have}")
    for m in meshes:
        unknown = {b.type for b in m.cells} - set(_KIND)
        if unknown:
            raise ModelError(f"cannot render cell types {sorted(unknown)}; use {sorted(_KIND)}")
        points = _warped_points(m, warp, scale, deform, factor)
        radius = (np.asarray(m.point_data["radius"], dtype=float).ravel()
                  if "radius" in m.point_data else None)
        point_values = cell_values = None
        if scalars in m.point_data:
            point_values = np.asarray(m.point_data[scalars], dtype=float)
            vector = point_values.ndim > 1
        elif scalars in m.cell_data:
            cell_values = [np.asarray(v, dtype=float) for v in m.cell_data[scalars]]
            vector = cell_values[0].ndim > 1
        if point_values is not None or cell_values is not None:
            scene.scalars = f"{scalars} magnitude" if vector else scalars

        roles = _group_roles(m)
        if detail and "group" in m.cell_data:
            ids = [int(np.ravel(m.field_data[f"group:{name}"])[0]) for name in detail
                   if f"group:{name}" in m.field_data]
            for block, group in zip(m.cells, m.cell_data["group"], strict=True):
                chosen = np.isin(np.asarray(group).ravel().astype(np.int64), ids)
                if chosen.any():
                    shown = points[np.unique(np.asarray(block.data)[chosen])]
                    scene.detail.append(shown[:: max(1, len(shown) // 400)])
        for kind in ("surface", "line", "point"):
            index = [i for i, b in enumerate(m.cells) if _KIND[b.type] == kind and len(b.data)]
            if not index:
                continue
            cells = [np.asarray(m.cells[i].data, dtype=np.int64) for i in index]
            cells = [c.reshape(len(c), -1) for c in cells]
            sized = [np.hstack([np.full((len(c), 1), c.shape[1]), c]) for c in cells]
            # the role of each cell: ground sketches filled, prescribed paths, the rest
            role = np.full(sum(len(c) for c in cells), kind, dtype=object)
            if roles and "group" in m.cell_data:
                group = np.concatenate([np.asarray(m.cell_data["group"][i]).ravel()
                                        for i in index]).astype(np.int64)
                # (the group's role, the cells' role): a sketch's triangles fill the
                # ground, its points are supports; a path's lines are the path
                match, given = {"surface": ("ground", "ground"), "line": ("path", "path"),
                                "point": ("ground", "support")}[kind]
                for gid, r in roles.items():
                    if r == match:
                        role[group == gid] = given
            per_cell = None
            if cell_values is not None:
                per_cell = np.concatenate([_magnitude(cell_values[i]) for i in index])
            start = np.cumsum([0] + [len(c) for c in cells])
            for r in (kind, "ground", "path", "support"):
                keep = role == r
                if not keep.any():
                    continue
                rows = [sz[keep[a:b]] for sz, a, b in zip(sized, start[:-1], start[1:],
                                                            strict=True)]
                flat = np.concatenate([x.ravel() for x in rows])
                poly = pv.PolyData(points, **{_POLY_KEY[kind]: flat})
                used = np.unique(np.concatenate([x[:, 1:].ravel() for x in rows]))
                plain = r != kind          # ground and paths: never coloured by the field
                if point_values is not None and not plain:
                    poly.point_data[scene.scalars] = _magnitude(point_values)
                elif per_cell is not None and not plain and kind == "surface":
                    # surfaces: cell values averaged at the points (smooth colours over a
                    # connected plate; the .vtu keeps the cell values)
                    poly.point_data[scene.scalars] = _averaged_at_points(
                        rows, per_cell[keep], len(points))
                elif per_cell is not None and not plain:
                    poly.cell_data[scene.scalars] = per_cell[keep]
                if r == "line":
                    # Joined polylines give continuous tubes; stripping keeps point data only.
                    parts = _line_parts(poly, radius, tube_radius, joined=cell_values is None)
                else:
                    parts = [(poly, 0.0)]
                for part, pad in parts:
                    if scene.scalars in part.array_names:
                        values = np.asarray(part[scene.scalars], dtype=float)
                        scene.values.append(values)
                    scene.parts.append((r, part))
                    if pad > 0.0:     # a tube: its own extent
                        lo, hi = np.asarray(part.bounds, dtype=float).reshape(3, 2).T
                    else:
                        lo, hi = points[used].min(0), points[used].max(0)
                    scene.boxes.append(np.stack([lo, hi]))
                    shown = np.asarray(part.points if pad > 0.0 else points[used], dtype=float)
                    scene.samples.append(shown[:: max(1, len(shown) // 400)])
    return scene


# ---------------------------------------------------------------------- drawing
def draw_scene(
    plotter: pv.Plotter,
    scene: _Scene,
    clim: Sequence[float] | None,
    cmap: str,
    show_edges: bool,
    reset_camera: bool,
    bar: bool = True,
) -> None:
    bar_shown = not bar
    for i, (kind, poly) in enumerate(scene.parts):
        colour_by = scene.scalars if scene.scalars in poly.array_names else None
        if colour_by and not np.isfinite(np.asarray(poly[colour_by], dtype=float)).any():
            colour_by = None          # e.g. rigid links under a plate's stress: plain colour
        kwargs: dict[str, Any] = {
            "scalars": colour_by,
            "clim": clim,
            "cmap": cmap,
            "color": None if colour_by else _COLOUR[kind],
            "show_scalar_bar": colour_by is not None and not bar_shown,
            "name": f"{kind}{i}",
            "reset_camera": reset_camera,
        }
        if colour_by:
            bar_shown = True
            height = plotter.window_size[1]
            kwargs["scalar_bar_args"] = {
                "title": colour_by,
                "vertical": True,
                "position_x": 0.86,
                "position_y": 0.2,
                "height": 0.6,
                "width": 0.06,
                "color": "black",
                "title_font_size": max(8, height // 48),
                "label_font_size": max(8, height // 56),
                "n_labels": 3 if height < 500 else 5,
                "fmt": "%.3g",
            }
        if kind == "surface":
            kwargs.update(show_edges=show_edges, edge_color="black",
                          smooth_shading=not show_edges)     # a connected plate reads curved
        elif kind == "ground":              # the static platform, a wall: see-through
            kwargs.update(opacity=0.35, show_edges=False)
        elif kind == "path":                # the prescribed path of a point
            kwargs.update(line_width=3)
        elif kind == "support":             # a clamp, a pivot: a ground point
            kwargs.update(point_size=max(8, plotter.window_size[1] // 32),
                          render_points_as_spheres=True)
        elif kind == "line":
            kwargs.update(line_width=2)
            if poly.GetNumberOfStrips() + poly.GetNumberOfPolys():      # a tube
                kwargs.update(smooth_shading=True, color=None if colour_by else _COLOUR["tube"])
            elif not colour_by:
                kwargs.update(color=_COLOUR["sketch"])
        else:
            kwargs.update(point_size=10, render_points_as_spheres=True)
        plotter.add_mesh(poly, **kwargs)
        if kwargs["show_scalar_bar"]:
            _space_bar_title(plotter.scalar_bars[kwargs["scalar_bar_args"]["title"]],
                             plotter.window_size[1])


def _space_bar_title(bar: Any, height: int) -> None:
    """Keep the colour bar's title clear of its top label: the title sits a label's
    height above the bar (VTK centres the top label on the bar's end, half above it)."""
    bar.SetVerticalTitleSeparation(max(4, height // 40))
    bar.SetTextPad(max(2, height // 150))


def scene_bounds(scenes: Iterable[_Scene]) -> list[float]:
    """Union of the scenes' extents, padded by 2 %, as (xmin, xmax, ymin, ymax, zmin, zmax)."""
    boxes = [b for s in scenes for b in s.boxes]
    if not boxes:
        return [-1.0, 1.0, -1.0, 1.0, -1.0, 1.0]
    lo = np.min([b[0] for b in boxes], axis=0)
    hi = np.max([b[1] for b in boxes], axis=0)
    pad = 0.02 * max(float(np.max(hi - lo)), 1e-12)
    return [float(v) for pair in zip(lo - pad, hi + pad, strict=True) for v in pair]


def camera_samples(scenes: Sequence[_Scene]) -> np.ndarray:
    """Points of the scenes (a few hundred per part and frame) for fitting the camera."""
    pts = [p for s in scenes for p in s.samples if len(p)]
    return np.concatenate(pts) if pts else np.zeros((0, 3))


def scalar_range(scenes: Iterable[_Scene]) -> list[float] | None:
    values = [v[np.isfinite(v)] for s in scenes for v in s.values]
    values = [v for v in values if v.size]
    if not values:
        return None
    lo = float(min(v.min() for v in values))
    hi = float(max(v.max() for v in values))
    return [lo, hi if hi > lo else lo + max(abs(lo), 1.0) * 1e-6]


def _same_topology(shown: list, scene: _Scene) -> bool:
    if len(shown) != len(scene.parts):
        return False
    return all(ds.n_points == poly.n_points and ds.n_cells == poly.n_cells
               for ds, (_, poly) in zip(shown, scene.parts, strict=True))


def _caption(plotter: pv.Plotter, text: str) -> None:
    """Text in the upper-left corner, inset so that it lies fully inside the picture, on
    a half-transparent backing of the background's colour (links may pass behind it)."""
    w, h = plotter.window_size
    size = max(8, h // 60)
    actor = plotter.add_text(text, position=(int(0.02 * w), int(h - 0.03 * h - 2.2 * size)),
                             font_size=size, color="black", name="caption")
    prop = actor.GetTextProperty()
    prop.SetBackgroundColor(plotter.background_color.float_rgb)
    prop.SetBackgroundOpacity(0.75)


def _triad(plotter: pv.Plotter) -> None:
    """x/y/z axes in the lower-left corner (an orientation triad)."""
    plotter.add_axes(interactive=False, line_width=3, color="black", labels_off=False,
                     viewport=(0.0, 0.0, 0.16, 0.22))


def _magnified(title: str | None, deform: str | None, factor: float) -> str | None:
    """The caption with the magnification stated (every picture that warps says so)."""
    if title is None or not deform:
        return title
    return f"{title}    {deform} ×{factor:g}" + ("" if factor != 1 else " (true scale)")


# Named views: the direction from the scene towards the camera and the screen's up.
_DIRECTIONS = {"iso": ((1.0, 1.0, 1.0), (0.0, 0.0, 1.0)), "xy": ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
               "xz": ((0.0, -1.0, 0.0), (0.0, 0.0, 1.0)), "yz": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0))}


def camera_axes(camera: str | Mapping) -> tuple[np.ndarray, np.ndarray]:
    """The viewing direction (unit, from the scene towards the camera) and the screen's up
    vector (unit, perpendicular to it) of a camera given as data.

    Parameters
    ----------
    camera : str or mapping
        A named view, ``"iso"``, ``"xy"`` (along −z, y up), ``"xz"`` (along +y, z up) or
        ``"yz"`` (along −x, z up); or a mapping with ``"view"`` (a named view) and/or
        ``"direction"`` (3-vector towards the camera) and optionally ``"up"`` (3-vector:
        what points up on the screen, e.g. against gravity; ignored when parallel to the
        direction).

    Returns
    -------
    direction, up : (3,) ndarray
    """
    from fem.core.validate import vector3

    if isinstance(camera, str):
        camera = {"view": camera}
    _keys(camera, "camera", ("view", "direction", "up"),
          f"a camera is a named view ({', '.join(CAMERAS)}) or a mapping")
    view = camera.get("view", "iso")
    if view not in _DIRECTIONS:
        raise ModelError(f"unknown camera '{view}'; choose one of {', '.join(CAMERAS)}")
    direction, up = (np.asarray(v, float) for v in _DIRECTIONS[view])
    if camera.get("direction") is not None:
        direction = vector3(camera["direction"], "camera: direction")
    if camera.get("up") is not None:
        given = vector3(camera["up"], "camera: up")
        if np.linalg.norm(np.cross(given, direction)) > 1e-6 * np.linalg.norm(given) \
                * np.linalg.norm(direction):
            up = given
    norm = np.linalg.norm(direction)
    if norm == 0:
        raise ModelError("camera: direction must not be zero")
    direction = direction / norm
    up = up - (up @ direction) * direction
    if np.linalg.norm(up) < 1e-9:     # the default up along the direction: take another
        up = np.cross(direction, [1.0, 0.0, 0.0])
        if np.linalg.norm(up) < 1e-9:
            up = np.cross(direction, [0.0, 1.0, 0.0])
    return direction, up / np.linalg.norm(up)


def view_up(view: str) -> tuple[float, float, float]:
    """What points up on the screen in a named view (``"xy"``: y; the others: z)."""
    if view not in _DIRECTIONS:
        raise ModelError(f"unknown camera '{view}'; choose one of {', '.join(CAMERAS)}")
    return _DIRECTIONS[view][1]


def set_camera(plotter: pv.Plotter, camera: str | Mapping | Sequence, bounds: list[float],
                samples: np.ndarray | None = None, fill: float = 0.8) -> None:
    if isinstance(camera, str | Mapping):
        direction, up = camera_axes(camera)
        lo, hi = np.array(bounds[::2]), np.array(bounds[1::2])
        focal = (lo + hi) / 2
        distance = 3.0 * max(float(np.linalg.norm(hi - lo)), 1e-9)
        plotter.camera_position = [tuple(focal + distance * direction), tuple(focal),
                                   tuple(up)]
        plotter.reset_camera(bounds=bounds)
        if samples is None or not len(samples):
            samples = np.array([[x, y, z] for x in bounds[:2] for y in bounds[2:4]
                                for z in bounds[4:]])
        fit_view(plotter, samples, fill, right=0.62 if plotter.scalar_bars.keys() else 1.0)
    else:  # an explicit pyvista camera position is used as given
        plotter.camera_position = camera


def fit_view(plotter: pv.Plotter, corners: np.ndarray, fill: float = 0.8,
         right: float = 1.0) -> None:
    """Centre the points ``corners`` (k, 3) in the view and zoom until they fill ``fill``
    of it (reset_camera fits the bounding sphere, which leaves wide margins around a
    long, thin robot).  ``right`` < 1 keeps the right of the view (view coordinates
    ``right`` … 1, e.g. for a colour bar) free."""
    renderer = plotter.renderer
    cam = plotter.camera
    aspect = plotter.window_size[0] / plotter.window_size[1]
    target_x = (-1.0 + right) / 2
    width = (right + 1.0) / 2                  # half-width of the free region

    def projected() -> np.ndarray:
        out = []
        for c in corners:
            renderer.SetWorldPoint(*c, 1.0)
            renderer.WorldToView()
            out.append(renderer.GetViewPoint()[:2])
        return np.asarray(out)                 # view coordinates in [-1, 1]

    def shift(by: np.ndarray) -> None:
        focal, position = np.array(cam.focal_point), np.array(cam.position)
        distance = np.linalg.norm(position - focal)
        direction = (focal - position) / distance
        x_axis = np.cross(direction, np.array(cam.up))
        x_axis /= np.linalg.norm(x_axis)
        y_axis = np.cross(x_axis, direction)
        half_h = distance * np.tan(np.radians(cam.view_angle) / 2)
        move = by[0] * half_h * aspect * x_axis + by[1] * half_h * y_axis
        cam.focal_point = tuple(focal + move)
        cam.position = tuple(position + move)

    for _ in range(3):          # perspective: a few passes converge
        ndc = projected()
        lo, hi = ndc.min(axis=0), ndc.max(axis=0)
        shift(0.5 * (lo + hi))
        half = (hi - lo) / 2
        scale = min(fill * width / half[0] if half[0] > 0 else np.inf,
                    fill / half[1] if half[1] > 0 else np.inf)
        if np.isfinite(scale):
            cam.zoom(scale)
    ndc = projected()
    centre = 0.5 * (ndc.min(axis=0) + ndc.max(axis=0))
    shift(centre - np.array([target_x, 0.0]))
    renderer.ResetCameraClippingRange()


def _window(window_size: Sequence[int]) -> tuple[int, int]:
    """Window size rounded up to multiples of 16 (what H.264 encoders want)."""
    w, h = (int(v) for v in window_size)
    return (-(-w // 16) * 16, -(-h // 16) * 16)


def new_plotter(window_size: Sequence[int], background: str) -> pv.Plotter:
    ensure_offscreen()
    import pyvista as pv

    plotter = pv.Plotter(off_screen=True, window_size=list(_window(window_size)))
    plotter.set_background(background)
    return plotter


def snapshot(
    frame_or_meshes: Any,
    path: str | Path,
    *,
    scalars: str | None = None,
    camera: str | Sequence = "iso",
    warp: str | bool | None = None,
    scale: float = 1.0,
    tube_radius: float | None = None,
    window_size: Sequence[int] = (1024, 768),
    clim: Sequence[float] | None = None,
    cmap: str = "viridis",
    show_edges: bool = True,
    title: str | None = None,
    background: str = "white",
    deform: str | None = None,
    factor: float = 1.0,
    triad: bool = True,
) -> Path:
    """Render one picture (PNG, or any format the extension asks VTK/PIL for) headless.

    Parameters
    ----------
    frame_or_meshes
        A :class:`fem.io.vtk.Frame` or frame mapping, a :class:`meshio.Mesh`, a
        :class:`fem.model.mesh.Mesh`, a PyVista dataset, a mesh file path, or a list of these.
    path : str or Path
        Output image.
    scalars : str, optional
        Point or cell data to colour by; vectors are shown by magnitude (``|name|``).
    camera : {"iso", "xy", "xz", "yz"}, mapping or camera position
        View direction: a named view, or ``{"view", "direction", "up"}``
        (:func:`camera_axes`; e.g. ``up`` against gravity); the camera is fitted to the
        (warped) geometry.  A PyVista camera position is used as given.
    warp : str or bool, optional
        Point-data vector to displace the points by (``True`` means ``"displacement"``).
    scale : float
        Warp factor (exaggeration of the displacement).
    tube_radius : float, optional
        Draw line cells as tubes of this radius (in model units); plain lines otherwise.
    window_size : (width, height)
        Pixels (rounded up to multiples of 16).
    clim : (min, max), optional
        Colour range; the data range by default.
    title : str, optional
        Text in the upper-left corner.
    deform : str, optional
        Point-data vector (e.g. ``"deformation"``, the elastic part of the displacement)
        magnified `factor` times on top of the warp; the caption states the factor.
    factor : float
        Magnification of `deform`.
    triad : bool
        Draw an x/y/z axes triad in the lower-left corner.

    Returns
    -------
    Path
        The image written.

    Notes
    -----
    Works without a display: see :func:`ensure_offscreen` for the backend choice and the
    system packages (EGL or OSMesa) it needs.
    """
    path = Path(path)
    check_writable(path.parent, path)
    plotter = _composed(frame_or_meshes, scalars=scalars, camera=camera, warp=warp,
                        scale=scale, tube_radius=tube_radius, window_size=window_size,
                        clim=clim, cmap=cmap, show_edges=show_edges, title=title,
                        background=background, deform=deform, factor=factor, triad=triad)
    tmp = temporary_path(path, keep_suffix=True)     # the picture appears when complete
    try:
        plotter.screenshot(str(tmp))
        os.replace(tmp, path)
    except OSError as err:
        raise ModelError(f"cannot write the picture {path}: {_write_reason(err, path)}"
                         ) from None
    finally:
        plotter.close()
        tmp.unlink(missing_ok=True)
    return path


def _composed(obj: Any, *, scalars, camera, warp, scale, tube_radius, window_size, clim,
              cmap, show_edges, title, background, deform, factor, triad) -> pv.Plotter:
    """The off-screen plotter of one :func:`snapshot`, ready to render (caller closes)."""
    scene = build_scene(obj, scalars, warp, scale, tube_radius, deform, factor)
    clim = display_units([scene], clim)
    title = _magnified(title, deform, factor)
    plotter = new_plotter(window_size, background)
    try:
        draw_scene(plotter, scene, clim or scalar_range([scene]), cmap, show_edges,
                   reset_camera=True)
        set_camera(plotter, camera, scene_bounds([scene]), camera_samples([scene]))
        if triad:
            _triad(plotter)
        if title:
            _caption(plotter, title)
    except BaseException:
        plotter.close()
        raise
    return plotter


def _frame_time(item: Any, index: int) -> float:
    """The time of a frame, or its index where it has none (e.g. a meshio mesh)."""
    if isinstance(item, Frame):
        return float(item.time)
    if isinstance(item, Mapping) and "time" in item:
        return float(item["time"])
    return float(index)


def check_writable(folder: Path, target: Path) -> None:
    """Make ``folder`` and make sure a file can be written there, before any rendering:
    a read-only folder is "cannot write", not an ffmpeg broken pipe."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = temporary_path(folder / ".fem_render_probe")
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise ModelError(f"cannot write {target} (in {folder}): {err.strerror or err}; "
                         "render into a folder you can write to") from None


def _write_reason(err: BaseException | None, path: Path) -> str:
    """Why writing ``path`` failed, in words: the disk is full, the folder is not
    writable, or the encoder's own message (its last lines); "" when none is known."""
    folder = path.parent
    try:
        if shutil.disk_usage(folder).free < 1 << 20:
            return "the disk is full"
    except OSError:
        pass
    if not os.access(folder, os.W_OK):
        return f"the folder {folder} is not writable"
    if err is None:
        return ""
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    text = [ln for ln in str(err).strip().splitlines() if ln.strip()]
    return f"{type(err).__name__}: {' '.join(text[:2])[:300]}" if text else type(err).__name__


def _check_movie(path: Path, final: Path) -> None:
    """Make sure the encoder wrote a readable movie: imageio does not report ffmpeg's
    exit status, so a full disk would leave a truncated MP4 (no index) behind.  A stream
    copy to nowhere reads the container without decoding (a few ms)."""
    if path.suffix.lower() != ".mp4":
        return          # GIFs are written in this process: failures raise
    try:
        import imageio_ffmpeg

        exe = imageio_ffmpeg.get_ffmpeg_exe()
    except Exception:   # noqa: BLE001 - no ffmpeg to check with (it wrote the file though)
        return
    proc = subprocess.run([exe, "-v", "error", "-i", str(path), "-map", "0:v:0", "-c",
                           "copy", "-f", "null", "-"], capture_output=True, text=True,
                          timeout=120, check=False)
    if proc.returncode != 0:
        said = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
        reason = (_write_reason(None, final) or "the encoder (ffmpeg) failed and left an "
                  "unreadable file (a full disk or a file size limit?)")
        detail = f"; ffmpeg: {said[-1][:200]}" if said else ""
        raise ModelError(f"cannot write the movie {final}: {reason}{detail}")


def _open_writer(path: Path, fps: float) -> tuple[Any, Path]:
    """An imageio writer: MP4 through imageio-ffmpeg, else (or if asked) GIF."""
    import imageio.v2 as iio

    if path.suffix.lower() != ".gif":
        try:
            import imageio_ffmpeg

            imageio_ffmpeg.get_ffmpeg_exe()
            writer = iio.get_writer(
                path.with_suffix(".mp4"),
                format="FFMPEG",
                mode="I",
                fps=fps,
                codec="libx264",
                pixelformat="yuv420p",
                macro_block_size=16,
                ffmpeg_log_level="error",
            )
            return writer, path.with_suffix(".mp4")
        except Exception:  # no ffmpeg binary or codec: fall back to GIF below
            pass
    gif = path.with_suffix(".gif")
    return iio.get_writer(gif, mode="I", duration=1000.0 / fps, loop=0), gif


@dataclass
class HistoryPanel:
    """Time histories drawn beside the 3D view of an animation (the robot's actuator
    torques), with a marker moving with each frame's time.

    Parameters
    ----------
    time : (m,) array_like
        Times of the values [s].
    series : mapping label -> (m,) values
        One curve each (colour × line style, :func:`curve_style`).
    ylabel : str
        With its unit, e.g. ``"actuator torque [N·m]"``.
    title : str
    width : float
        Panel width as a fraction of the picture height.
    """

    time: npt.ArrayLike
    series: Mapping[str, npt.ArrayLike]
    ylabel: str = ""
    title: str = ""
    width: float = 0.75
    _figure: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.time = np.asarray(self.time, dtype=float).ravel()
        series = {}
        for label, values in self.series.items():
            y = np.asarray(values, dtype=float).ravel()
            if len(y) != len(self.time):
                raise ModelError(f"history panel: '{label}' has {len(y)} values for "
                                 f"{len(self.time)} times")
            series[str(label)] = y
        if not series:
            raise ModelError("history panel: no series to draw")
        self.series = series

    def pixels(self, height: int) -> int:
        """Panel width in pixels for a picture ``height`` pixels high (a multiple of 16)."""
        return max(16, int(round(self.width * height / 16)) * 16)

    def image(self, t: float, width: int, height: int) -> np.ndarray:
        """The panel at time ``t`` as an RGB image (height, width, 3)."""
        if self._figure is None or self._figure[0] != (width, height):
            self._figure = ((width, height), *self.draw_scene(width, height))
        _, fig, marker, dots = self._figure
        marker.set_xdata([t, t])
        for dot, y in zip(dots, self.series.values(), strict=True):
            dot.set_data([t], [np.interp(t, self.time, y)])
        fig.canvas.draw()
        rgba = np.asarray(fig.canvas.buffer_rgba())
        out = np.full((height, width, 3), 255, dtype=np.uint8)
        h, w = min(height, rgba.shape[0]), min(width, rgba.shape[1])
        out[:h, :w] = rgba[:h, :w, :3]
        return out

    def draw_scene(self, width: int, height: int):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        dpi = 100.0
        fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        size = max(8.0, min(width, 1.3 * height) / 48)
        dots = []
        for k, (label, y) in enumerate(self.series.items()):
            colour, style = curve_style(k)
            ax.plot(self.time, y, linestyle=style, color=colour, lw=1.6, label=label)
            dots.append(ax.plot([], [], "o", color=colour, ms=size * 0.7)[0])
        marker = ax.axvline(self.time[0], color="black", lw=1.0)
        ax.set_xlim(self.time[0], self.time[-1] if self.time[-1] > self.time[0]
                    else self.time[0] + 1.0)
        ax.set_xlabel("time [s]", fontsize=size)
        ax.set_ylabel(self.ylabel, fontsize=size)
        ax.tick_params(labelsize=size * 0.9)
        ax.ticklabel_format(axis="y", useOffset=False)
        if self.title:
            ax.set_title(self.title, fontsize=size * 1.1)
        ax.grid(True, alpha=0.3)
        rows = -(-len(dots) // 3)                   # legend rows below the time axis
        line = 1.45 * size * dpi / 72               # a text line in pixels
        fig.legend(loc="lower center", ncol=min(3, len(dots)), fontsize=size * 0.9,
                   frameon=False, borderaxespad=0.2)
        fig.subplots_adjust(left=min(0.3, 5.5 * line / width), right=0.95,
                            top=1 - 2.0 * line / height,
                            bottom=min(0.5, (2.8 + 1.1 * rows) * line / height))
        return fig, marker, dots


def animate(
    frames: Any,
    path: str | Path,
    fps: float = 20.0,
    *,
    scalars: str | None = None,
    camera: str | Sequence = "iso",
    warp: str | bool | None = None,
    scale: float = 1.0,
    tube_radius: float | None = None,
    window_size: Sequence[int] = (960, 720),
    clim: Sequence[float] | None = None,
    cmap: str = "viridis",
    show_edges: bool = True,
    title: str | None = "t = {time:.3f} s",
    stride: int = 1,
    background: str = "white",
    deform: str | None = None,
    factor: float = 1.0,
    triad: bool = True,
    times: Sequence[float] | None = None,
    panel: HistoryPanel | None = None,
    detail: Mapping | None = None,
    progress: Callable[[int], object] | None = None,
) -> tuple[Path, int]:
    """Render frames into a video, headless: MP4 (H.264) or, as a fallback, GIF.

    Parameters
    ----------
    frames
        A sequence of frames (anything :func:`snapshot` accepts, one item per frame), or the
        path of a ``.pvd`` collection (re-rendering a stored series).
    path : str or Path
        Output file; ``.gif`` asks for a GIF, anything else for MP4.  If no ffmpeg is
        available (imageio-ffmpeg bundles one) a GIF is written next to it instead.
    fps : float
        Frames per second of the video.
    title : str, optional
        Per-frame caption, formatted with ``time`` and ``index`` (``None`` for none).
    stride : int
        Render every `stride`-th frame.
    times : sequence of float, optional
        Time of each frame (default: the frames' own, or their index).
    panel : HistoryPanel, optional
        Histories drawn to the right of the 3D view (which keeps `window_size`), with a
        marker at each frame's time: the movie is wider by :meth:`HistoryPanel.pixels`.
    detail : mapping, optional
        A close-up beside the 3D view (above the panel): ``{"groups": [names], "camera":
        camera (default: the main one), "title": text}`` — the frames' groups
        (``group:<name>`` field data) it is fitted to, e.g. a platform small beside its
        robot.  The same scene, seen closer; frames without those groups have none.
    progress : callable, optional
        Called with 1 after each rendered frame (a progress bar's ``update``).
    scalars, camera, warp, scale, tube_radius, window_size, clim, cmap, show_edges
        As in :func:`snapshot`.  The camera and the colour range are fixed over the whole
        animation (fitted to all frames), so motion and colours compare between frames.
    deform, factor, triad
        As in :func:`snapshot`; with `deform` the caption states the magnification.

    Returns
    -------
    path : Path
        The file actually written (``.mp4`` or ``.gif``).
    n_frames : int
        Number of frames rendered into it.

    Notes
    -----
    Works without a display (see :func:`ensure_offscreen`).  GIF encoders may merge
    consecutive identical frames.
    """
    if isinstance(frames, str | os.PathLike) and str(frames).endswith(".pvd"):
        times, items = read_series(frames, skip_unreadable=True)
    else:
        items = list(frames)
        if times is None:
            times = [_frame_time(item, i) for i, item in enumerate(items)]
        elif len(times) != len(items):
            raise ModelError(f"animate: {len(times)} times for {len(items)} frames")
    if not items:
        raise ModelError("animate: no frames to render")
    selected = range(0, len(items), max(int(stride), 1))
    close_up = _close_up(detail)
    scenes = [build_scene(items[i], scalars, warp, scale, tube_radius, deform, factor,
                     close_up["groups"] if close_up else ()) for i in selected]
    clim = display_units(scenes, clim)
    title = _magnified(title, deform, factor)
    colour_range = clim or scalar_range(scenes)
    bounds = scene_bounds(scenes)
    detail_points = np.concatenate([p for s in scenes for p in s.detail]) if close_up and \
        any(s.detail for s in scenes) else None

    from fem.core.validate import in_range

    fps = in_range(fps, "animate: fps (frames per second)", 0.0, 1000.0, low_open=True)
    path = Path(path)
    check_writable(path.parent, path)
    # the column right of the 3D view: the close-up above the history panel
    height = _window(window_size)[1]
    column = 0
    if panel is not None:
        column = panel.pixels(height)
    elif detail_points is not None:
        column = max(16, int(round(0.75 * height / 16)) * 16)
    inset_height = 0
    if detail_points is not None:
        inset_height = height if panel is None else max(16, int(round(0.45 * height / 16)) * 16)
    # rendered to a private temporary name, renamed when complete: an interrupted or
    # failed movie never sits under the final name
    writer, partial = _open_writer(temporary_path(path, keep_suffix=True), fps)
    written = path.with_suffix(partial.suffix)
    plotter = new_plotter(window_size, background)
    inset = new_plotter((column, inset_height), _INSET_BACKGROUND) if inset_height else None
    views = [plotter] if inset is None else [plotter, inset]
    count = 0
    done = False
    shown: list | None = None      # datasets on screen, updated in place when the topology
    caption = None                 # stays the same (re-adding actors per frame is slow)
    try:
        for k, (i, scene) in enumerate(zip(selected, scenes, strict=True)):
            if shown is not None and _same_topology(shown, scene):
                for ds, (_, poly) in zip(shown, scene.parts, strict=True):
                    ds.points = poly.points
                    for name in poly.point_data:
                        ds.point_data[name] = poly.point_data[name]
                    for name in poly.cell_data:
                        ds.cell_data[name] = poly.cell_data[name]
            else:
                for view in views:
                    for bar in list(view.scalar_bars.keys()):
                        view.remove_scalar_bar(bar)   # or add_mesh would not redraw it
                    view.clear_actors()
                caption = None
                draw_scene(plotter, scene, colour_range, cmap, show_edges, reset_camera=False)
                if inset is not None:       # the same datasets: updated together
                    draw_scene(inset, scene, colour_range, cmap, show_edges, reset_camera=False,
                          bar=False)
                    _caption(inset, close_up["title"])
                # the datasets given to add_mesh, not the mappers' ones: with smooth shading
                # (tubes) PyVista puts a normals filter between them, whose cached output
                # keeps the first frame's colours when only it is updated
                shown = [poly for _, poly in scene.parts]
            if k == 0:
                set_camera(plotter, camera, bounds, camera_samples(scenes))
                if inset is not None:
                    set_camera(inset, close_up["camera"] or camera,
                                _box(detail_points), detail_points, fill=0.85)
                if triad:
                    _triad(plotter)
            if title:
                text = title.format(time=times[i], index=i)
                if caption is None:
                    _caption(plotter, text)
                    caption = plotter.actors.get("caption")
                else:
                    caption.SetInput(text)        # a vtkTextActor
            image = _picture(plotter)
            if column:
                side = []
                if inset is not None:
                    side.append(_picture(inset))
                if panel is not None:
                    side.append(panel.image(times[i], column, height - inset_height))
                image = np.hstack([image, np.vstack(side)])
            try:
                writer.append_data(image)
            except Exception as err:        # ffmpeg died: a full disk, a broken pipe
                raise ModelError(f"cannot write the movie {written}: "
                                 f"{_write_reason(err, written)}") from None
            count += 1
            if progress is not None:
                progress(1)
        try:
            writer.close()
        except Exception as err:            # the encoder's final write failed
            raise ModelError(f"cannot write the movie {written}: "
                             f"{_write_reason(err, written)}") from None
        _check_movie(partial, written)      # ffmpeg's own exit status is not reported
        try:
            os.replace(partial, written)
        except OSError as err:
            raise ModelError(f"cannot write the movie {written}: "
                             f"{_write_reason(err, written)}") from None
        done = True
    finally:
        for view in views:
            view.close()
        if not done:
            with contextlib.suppress(Exception):
                writer.close()
            partial.unlink(missing_ok=True)     # never a truncated movie left behind
    return written, count


_INSET_BACKGROUND = "#f2f2f2"


def _keys(value: Any, what: str, allowed: Sequence[str], kind: str) -> None:
    """Check that ``value`` is a mapping with no keys but ``allowed`` (picture settings
    as data: a camera, a close-up); ``kind`` says what it should be."""
    if not isinstance(value, Mapping):
        raise ModelError(f"{kind} with {', '.join(map(repr, allowed))}; got {value!r:.80}")
    unknown = set(value) - set(allowed)
    if unknown:
        raise ModelError(f"{what}: unknown keys {sorted(unknown)}; use "
                         f"{', '.join(map(repr, allowed))}")


def _close_up(detail: Mapping | None) -> dict | None:
    """The close-up of an animation, checked: ``{"groups": [...], "camera": ...,
    "title": ...}`` (see :func:`animate`); None for none."""
    if not detail:
        return None
    _keys(detail, "animate: detail", ("groups", "camera", "title"),
          "a close-up is a mapping with 'groups' (names of the groups to show close up)")
    if not detail.get("groups"):
        raise ModelError("animate: detail needs 'groups' (names of the groups to show "
                         "close up)")
    groups = [detail["groups"]] if isinstance(detail["groups"], str) else list(detail["groups"])
    camera = detail.get("camera")
    if camera is not None:
        camera_axes(camera)
    return {"groups": tuple(str(g) for g in groups), "camera": camera,
            "title": str(detail.get("title") or "close-up: " + ", ".join(groups))}


def _box(points: np.ndarray) -> list[float]:
    """The bounds (xmin, xmax, ymin, ymax, zmin, zmax) of points, padded by 2 %."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    pad = 0.02 * max(float(np.max(hi - lo)), 1e-12)
    return [float(v) for pair in zip(lo - pad, hi + pad, strict=True) for v in pair]


def _picture(plotter: pv.Plotter) -> np.ndarray:
    """The plotter's current picture (height, width, 3), rendered."""
    plotter.render()
    return np.asarray(plotter.screenshot(return_img=True))[..., :3]


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
    fig = _history_figure(time, series, ylabel, title, xlabel, logy, reference,
                          reference_label, figsize, dpi, styles)
    path = Path(path)
    check_writable(path.parent, path)
    tmp = temporary_path(path, keep_suffix=True)
    try:
        fig.savefig(tmp, bbox_inches="tight", format=path.suffix.lstrip(".") or "png")
        os.replace(tmp, path)
    except OSError as err:
        raise ModelError(f"cannot write the plot {path}: {_write_reason(err, path)}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return path


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
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    t = np.asarray(time, dtype=float).ravel()
    reference = dict(reference or {})
    unknown = set(reference) - set(series)
    if unknown:
        raise ModelError(f"reference curves {sorted(unknown)} have no series of the same label")
    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    cycle = [c["color"] for c in matplotlib.rcParams["axes.prop_cycle"]]
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
                colour = cycle[int(number) % len(cycle)]
            else:
                colour, style = curve_style(n_auto)
                n_auto += 1
                if ref:
                    style = "-"            # the reference is the dashed one
            drawn.append((name, y, colour, style))
            if j < len(ref):
                drawn.append((f"{ref[j][0]} ({reference_label})", ref[j][1], colour, "--"))
    offset = 0.0
    if not logy:
        offset, ylabel = _shifted(ylabel, [y for _, y, _, _ in drawn])
    for name, y, colour, style in drawn:
        if logy:
            y = np.where(y > 0, y, np.nan)
            if not np.isfinite(y).any():
                continue
        ax.plot(t, y - offset, linestyle=style, color=colour, label=name, lw=1.5)
    if not logy:
        ax.ticklabel_format(axis="y", useOffset=False)
    if logy:
        ax.set_yscale("log")
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
