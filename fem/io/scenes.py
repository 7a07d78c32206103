"""Line and surface drawings of stored frames: what one picture shows, and drawing it.

:func:`build_scene` warps a frame (``displacement``, the ``deformation`` magnified),
colours it by a field and splits it by cell kind into PyVista parts — plates as
surfaces, line elements as tubes, ground sketches filled, the paths of prescribed points,
supports as points; :func:`draw_scene` puts them on a plotter with their colour bar
(titled and scaled by :func:`bar_title`); captions and the axes triad.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import meshio
import numpy as np

from fem.core.errors import ModelError
from fem.io.vtk import Frame, to_meshio
from fem.model.mesh import Mesh
from fem.model.mesh_files import read_meshio

if TYPE_CHECKING:
    import pyvista as pv

__all__ = ["Scene", "add_caption", "add_triad", "magnified_title", "bar_title",
           "display_units", "unit_change", "rescale_field", "normalize", "MODE_SHAPE",
           "build_scene", "draw_scene", "scene_bounds", "camera_samples", "scalar_range"]


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


def display_units(scenes: Sequence[Scene], clim: Sequence[float] | None = None
                   ) -> Sequence[float] | None:
    """Rename the colour field of every scene to its colour-bar title and divide its
    values by the title's factor (:func:`bar_title`), the same for all frames.
    Returns the colour range ``clim`` (given in the field's own unit) in the new one."""
    change = unit_change(scenes)
    if change is None:
        return clim
    for scene in scenes:
        rescale_field(scene, *change)
    return None if clim is None else [float(c) / change[2] for c in clim]


def unit_change(scenes: Sequence[Scene]) -> tuple[str, str, float] | None:
    """What :func:`display_units` does to every scene: ``(name, title, scale)`` for
    :func:`rescale_field`, or None (no one colour field)."""
    names = {s.scalars for s in scenes if s.scalars}
    if len(names) != 1:
        return None
    name = names.pop()
    finite = [np.abs(v[np.isfinite(v)]) for s in scenes for v in s.values]
    largest = max((float(v.max()) for v in finite if v.size), default=None)
    title, scale = bar_title(name, largest)
    return name, title, scale


def rescale_field(scene: Scene, name: str, title: str, scale: float) -> None:
    """Divide the colour field ``name`` of ``scene`` by ``scale`` and call it ``title``:
    in its parts' point and cell data and in its value ranges."""
    for _, part in scene.parts:
        for data in (part.point_data, part.cell_data):
            if name in data:
                values = np.asarray(data[name], dtype=float) / scale
                data.remove(name)
                data[title] = values
    scene.values = [v / scale for v in scene.values]
    scene.scalars = title


MODE_SHAPE = "mode shape, normalized"
"""The colour-bar title of a mode's picture: a mode's shape has no scale of its own (it is
drawn at a fraction of the model's size), so its colours are its displacement over its
largest, without a unit."""


def normalize(scenes: Sequence[Scene], title: str = MODE_SHAPE) -> None:
    """Every scene's colour field divided by its own largest magnitude (0–1) and renamed
    ``title``: the colours of a mode shape, whose scale is arbitrary (the web view and
    the mode picture alike)."""
    for scene in scenes:
        name = scene.scalars
        if not name:
            continue
        finite = [np.abs(v[np.isfinite(v)]) for v in scene.values]
        largest = max((float(v.max()) for v in finite if v.size), default=0.0)
        rescale_field(scene, name, title, largest if largest > 0 else 1.0)


def _group_roles(m: meshio.Mesh) -> dict[int, str]:
    """Group ids of a frame drawn in their own style, from its field data
    (``group:<name>``, :meth:`fem.io.drawing.Drawing.frame`): ``"ground"`` for sketches
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
class Scene:
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
) -> Scene:
    """Warp, colour and split the meshes of one frame into PolyData by cell kind;
    ``detail``: names of the groups a close-up shows (their points are collected)."""
    import pyvista as pv

    scene = Scene()
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
    scene: Scene,
    clim: Sequence[float] | None,
    cmap: str,
    show_edges: bool,
    reset_camera: bool,
    bar: bool = True,
    contours: int = 0,
    shaded: bool = False,
) -> None:
    """Put the parts of ``scene`` on ``plotter``: coloured by the scene's field in the
    range ``clim`` (with one colour bar unless ``bar`` is false), plain elsewhere;
    ``contours`` > 0 draws that many black level lines of the field across surfaces
    coloured by it at points (a plate's dish reads from them).  ``shaded``: the parts
    drawn smooth (:func:`smooth_shaded`) come with their point normals
    (:func:`with_normals`) and are drawn as given, without PyVista's normals filter (a
    Python step of the pipeline, run at every render of a movie's updated frame)."""
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
                "title": _two_lines(colour_by),
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
        smooth = smooth_shaded(kind, poly, show_edges)
        if kind == "surface":
            kwargs.update(show_edges=show_edges, edge_color="black",
                          smooth_shading=smooth)     # a connected plate reads curved
        elif kind == "ground":              # the static platform, a wall: see-through
            kwargs.update(opacity=0.35, show_edges=False)
        elif kind == "path":                # the prescribed path of a point
            kwargs.update(line_width=3)
        elif kind == "support":             # a clamp, a pivot: a ground point
            kwargs.update(point_size=max(8, plotter.window_size[1] // 32),
                          render_points_as_spheres=True)
        elif kind == "line":
            kwargs.update(line_width=2)
            if smooth:                                                   # a tube
                kwargs.update(smooth_shading=True, color=None if colour_by else _COLOUR["tube"])
            elif not colour_by:
                kwargs.update(color=_COLOUR["sketch"])
        else:
            kwargs.update(point_size=10, render_points_as_spheres=True)
        if shaded and kwargs.get("smooth_shading"):
            kwargs["smooth_shading"] = False          # the normals are the dataset's own
            actor = plotter.add_mesh(poly, **kwargs)
            actor.prop.interpolation = "phong"        # what smooth shading draws with
        else:
            plotter.add_mesh(poly, **kwargs)
        if contours > 0 and kind == "surface" and colour_by in poly.point_data and clim:
            levels = np.linspace(clim[0], clim[1], contours + 2)[1:-1]
            lines = poly.compute_normals(point_normals=True, cell_normals=False,
                                         split_vertices=False).contour(
                isosurfaces=levels, scalars=colour_by)
            if lines.n_points:
                # on both faces, a little off the surface: not hidden in it (z-fighting)
                lift = 2e-3 * float(np.linalg.norm(np.ptp(poly.points, axis=0)))
                normals = np.asarray(lines.point_data["Normals"], float)
                both = lines.copy()
                lines.points = lines.points + lift * normals
                both.points = both.points - lift * normals
                plotter.add_mesh(lines.merge(both), color="black", line_width=1.5,
                                 name=f"contours{i}", reset_camera=reset_camera,
                                 show_scalar_bar=False)
        if kwargs["show_scalar_bar"]:
            _space_bar_title(plotter.scalar_bars[kwargs["scalar_bar_args"]["title"]],
                             plotter.window_size[1])


def _two_lines(title: str, width: int = 18) -> str:
    """A colour bar's title longer than ``width`` characters on two lines, broken at the
    space nearest its middle outside the unit (``displacement magnitude [µm]`` →
    ``displacement`` / ``magnitude [µm]``, ``link deformation [mm]`` → ``link
    deformation`` / ``[mm]``): the bar stands at the picture's right edge and a long
    title was cut there."""
    if len(title) <= width or "\n" in title:
        return title
    depth, spaces = 0, []
    for i, c in enumerate(title):             # spaces outside the unit's brackets
        depth += (c == "[") - (c == "]")
        if c == " " and depth == 0:
            spaces.append(i)
    if not spaces:
        return title
    cut = min(spaces, key=lambda i: abs(i - len(title) / 2))
    return title[:cut] + "\n" + title[cut + 1:]


def _space_bar_title(bar: Any, height: int) -> None:
    """Keep the colour bar's title clear of its top label: the title sits a label's
    height above the bar (VTK centres the top label on the bar's end, half above it)."""
    bar.SetVerticalTitleSeparation(max(4, height // 40))
    bar.SetTextPad(max(2, height // 150))


def scene_bounds(scenes: Iterable[Scene]) -> list[float]:
    """Union of the scenes' extents, padded by 2 %, as (xmin, xmax, ymin, ymax, zmin, zmax)."""
    boxes = [b for s in scenes for b in s.boxes]
    if not boxes:
        return [-1.0, 1.0, -1.0, 1.0, -1.0, 1.0]
    lo = np.min([b[0] for b in boxes], axis=0)
    hi = np.max([b[1] for b in boxes], axis=0)
    pad = 0.02 * max(float(np.max(hi - lo)), 1e-12)
    return [float(v) for pair in zip(lo - pad, hi + pad, strict=True) for v in pair]


def camera_samples(scenes: Sequence[Scene]) -> np.ndarray:
    """Points of the scenes (a few hundred per part and frame) for fitting the camera."""
    pts = [p for s in scenes for p in s.samples if len(p)]
    return np.concatenate(pts) if pts else np.zeros((0, 3))


def scalar_range(scenes: Iterable[Scene]) -> list[float] | None:
    values = [v[np.isfinite(v)] for s in scenes for v in s.values]
    values = [v for v in values if v.size]
    if not values:
        return None
    lo = float(min(v.min() for v in values))
    hi = float(max(v.max() for v in values))
    return [lo, hi if hi > lo else lo + max(abs(lo), 1.0) * 1e-6]


def add_caption(plotter: pv.Plotter, text: str) -> None:
    """Text in the upper-left corner, inset so that it lies fully inside the picture, on
    a half-transparent backing of the background's colour (links may pass behind it)."""
    w, h = plotter.window_size
    size = max(8, h // 60)
    actor = plotter.add_text(text, position=(int(0.02 * w), int(h - 0.03 * h - 2.2 * size)),
                             font_size=size, color="black", name="caption")
    prop = actor.GetTextProperty()
    prop.SetBackgroundColor(plotter.background_color.float_rgb)
    prop.SetBackgroundOpacity(0.75)


def smooth_shaded(kind: str, poly: Any, show_edges: bool) -> bool:
    """Whether :func:`draw_scene` draws a part smooth: a tube, a surface without edges."""
    if kind == "surface":
        return not show_edges
    return kind == "line" and bool(poly.GetNumberOfStrips() + poly.GetNumberOfPolys())


def with_normals(poly: Any) -> Any:
    """The dataset PyVista's smooth shading draws for ``poly``: ``poly`` itself where it
    has point normals or no faces, else its point normals computed as PyVista computes
    them (``compute_normals``, no split vertices; strips become triangles)."""
    if poly.point_data.active_normals is not None or \
            poly.n_verts + poly.n_lines == poly.n_cells:
        return poly
    return poly.compute_normals(cell_normals=False, split_vertices=False,
                                feature_angle=30.0)


def add_triad(plotter: pv.Plotter) -> None:
    """x/y/z axes in the lower-left corner (an orientation triad)."""
    plotter.add_axes(interactive=False, line_width=3, color="black", labels_off=False,
                     viewport=(0.0, 0.0, 0.16, 0.22))


def magnified_title(title: str | None, deform: str | None, factor: float) -> str | None:
    """The caption with the magnification stated (every picture that warps says so)."""
    if title is None or not deform:
        return title
    return f"{title}    {deform} ×{factor:g}" + ("" if factor != 1 else " (true scale)")
