"""From a model and its result to files people look at.

* :class:`Drawing` — the drawable geometry of a model as a *linear* map of ``q`` (all
  families interpolate positions linearly), built once: polylines for line elements and
  body sketches, triangles for surface elements.  :func:`drawing_for` picks it, or for a
  floating-frame model in minimal coordinates the adapter
  :class:`fem.io.centreline.CentrelineDrawing`.
* :func:`stream` — a :class:`~fem.Result` that writes result chunks and one ``.vtu`` per
  output step (plus the ``.pvd`` collection) *while* the run goes on.
* :func:`write_outputs` — what ``fem run`` leaves in the output folder: result arrays,
  ParaView series, residual and sensor plots, the animation.
* :func:`render_directory` — ``fem render DIR``: animate a saved (possibly partial) run.
"""

from __future__ import annotations

import json
import time as _time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from ..maps.linear_map import LinearMap
from ..solvers.results import Modes, Result, jsonable

if TYPE_CHECKING:
    from .centreline import CentrelineDrawing

__all__ = ["OPTIONS", "Drawing", "drawing_for", "stream", "write_outputs", "request_pictures",
           "render_directory", "jsonable"]


@dataclass
class OutputOptions:
    render: bool = True      # write an animation
    every: int = 0           # VTK frame every N recorded steps (0: about max_vtk frames)
    max_vtk: int = 400
    progress: bool = True    # progress bars
    fps: int = 20
    max_frames: int = 150    # animation frames at most (VTK keeps every frame)
    window_size: tuple = (800, 600)
    defer_render: bool = False   # `fem run`: render after summary.json is written
    pending: list = field(default_factory=list)   # deferred pictures (folder, kind)


OPTIONS = OutputOptions()

TIMING: dict[str, float] = {"run": 0.0, "writing": 0.0, "rendering": 0.0, "compiling": 0.0}
"""Wall time [s] of the last case's ``run()`` (:func:`fem.cases.run_case`), and the time
spent in it writing results (series frames, result arrays, plots of
:func:`write_outputs`) and rendering pictures — for the terminal and ``summary.json`` of
``fem run`` only, never for a result."""


def _warn(message: str) -> None:
    from ..core.validate import warn

    warn(message)


def render_pictures(out: Path, kind: str) -> list[Path]:
    """The pictures of a run folder: ``"animation"`` (the series as a video),
    ``"snapshot"`` (the last frame of the series as ``snapshot.png``) or ``"modes"`` (the
    first mode of a modal series as ``mode_1.png``).  A rendering failure is a warning,
    never the loss of the run: the data are already on disk."""
    from . import render

    out = Path(out)
    t0 = _time.perf_counter()
    try:
        if kind == "animation":
            return render_directory(out, fps=OPTIONS.fps)
        camera = camera_of(out)
        written = []
        for pvd in sorted(out.glob("*.pvd")):
            files = _frame_files(pvd)
            if not files:
                continue
            with progress_bar(1, f"picture {pvd.stem}", "picture") as bar:
                if kind == "modes":     # a mode's stresses mean nothing: its shape
                    opts = _snapshot_options(files[0], out, title=_mode_title(files[0]))
                    opts.update(scalars="displacement", show_edges=False)
                    written.append(render.snapshot(files[0], out / "mode_1.png",
                                                   camera=camera, **opts))
                else:
                    written.append(render.snapshot(files[-1], out / "snapshot.png",
                                                   camera=camera,
                                                   **_snapshot_options(files[-1], out)))
                bar.update(1)
        return written
    except (Exception, KeyboardInterrupt) as err:   # noqa: BLE001 - reported, not lost
        if isinstance(err, KeyboardInterrupt):
            _warn(f"rendering in {out} interrupted; the data and summary are complete — "
                  f"`fem render {out}` makes the pictures later")
            raise
        _warn(f"rendering in {out} failed ({type(err).__name__}: {err}); the results are "
              f"complete — retry with `fem render {out}`")
        return []
    finally:
        TIMING["rendering"] += _time.perf_counter() - t0


def _mode_title(frame_file: Path) -> str | None:
    """``mode 1: 3.52 Hz`` from a mode frame's field data."""
    from ..model.mesh import read_meshio

    fd = read_meshio(frame_file).field_data
    if "mode" not in fd or "frequency_hz" not in fd:
        return None
    return f"mode {int(np.ravel(fd['mode'])[0])}: {float(np.ravel(fd['frequency_hz'])[0]):.4g} Hz"


def progress_bar(total: int | None, desc: str, unit: str = "it",
                 enabled: bool | None = None):
    """A tqdm progress bar on stderr for ``fem`` commands, removed when done: shown only
    on a terminal (tqdm's ``disable=None``) and when ``enabled`` (default
    ``OPTIONS.progress``: off for ``--json``)."""
    from tqdm import tqdm

    on = OPTIONS.progress if enabled is None else enabled
    return tqdm(total=total, desc=desc, unit=unit, leave=False, dynamic_ncols=True,
                disable=None if on else True)


def _snapshot_options(frame_file: Path, out: Path, title: str | None = None) -> dict:
    """:func:`picture_options` for one stored frame, its caption stating the magnification."""
    from ..model.mesh import read_meshio

    mesh = read_meshio(frame_file)
    opts = picture_options([mesh], picture_settings(out))
    opts["title"] = title or ("static state" if "deform" in opts else None)
    return opts


def plot_residuals(t: np.ndarray, stats: dict, path: Path, name: str) -> Path:
    """The converged Newton residuals of every step on a log axis: the dynamic
    equations relative to the force scale [–] and, when the model has constraints, the
    largest constraint violation max|Φ| [m; m² for products of lengths].  Exact zeros
    (nothing to show on a log axis) are left out, not clipped to a tiny number."""
    from . import render

    series = {"dynamics ‖r‖/‖f‖ [–]": stats["residual_dynamics"]}
    if "residual_constraints" in stats and np.any(np.asarray(stats["residual_constraints"]) > 0):
        series["constraints max|Φ| [m]"] = stats["residual_constraints"]
    return render.plot_histories(t, series, path, "residual at convergence",
                                 f"{name}: Newton residual per step", logy=True)


def render_pending() -> list[Path]:
    """Render what :func:`write_outputs` deferred (``OPTIONS.defer_render``)."""
    written = []
    while OPTIONS.pending:
        out, kind = OPTIONS.pending.pop(0)
        written += render_pictures(out, kind)
    return written


def camera_of(directory: Path) -> str | dict:
    """The camera of ``render.json``: a named view or a mapping (``view``, ``direction``,
    ``up``: :func:`fem.io.render.camera_axes`); ``"iso"`` when none or unreadable."""
    from ..core.errors import ModelError
    from .render import camera_axes

    settings = Path(directory) / "render.json"
    if not settings.is_file():
        return "iso"
    try:
        camera = json.loads(settings.read_text()).get("camera", "iso")
        camera_axes(camera)
        return camera
    except (json.JSONDecodeError, AttributeError, OSError, ModelError) as err:
        _warn(f"{settings} is unreadable ({err}); using the default camera")
        return "iso"


def _frame_files(pvd: Path) -> list[Path]:
    """The frame files of a collection that exist, in its order."""
    import xml.etree.ElementTree as ET

    try:
        files = [ds.get("file") for ds in ET.parse(pvd).getroot().iter("DataSet")]
    except (OSError, ET.ParseError):
        return []
    return [pvd.parent / f for f in files if f and (pvd.parent / f).is_file()]


def _parts(nodes: np.ndarray, element_points: list, ref: np.ndarray) -> list[np.ndarray]:
    """Drawn point indices of each connected part of an element group: elements that
    share a node or a reference drawing point are connected."""
    n_el = len(element_points)
    parent = list(range(n_el))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(owners):
        first = root(owners[0])
        for o in owners[1:]:
            parent[root(o)] = first

    seen: dict = {}
    for e in range(n_el):
        for nd in np.asarray(nodes[e]).ravel():
            seen.setdefault(("node", int(nd)), []).append(e)
    if n_el:
        pts = np.concatenate(element_points)
        size = float(np.ptp(ref[pts], axis=0).max()) or 1.0
        for e, idx in enumerate(element_points):
            for key in map(tuple, np.round(ref[idx] / (1e-7 * size)).astype(np.int64)):
                seen.setdefault(key, []).append(e)
    for owners in seen.values():
        if len(owners) > 1:
            join(owners)
    parts: dict = {}
    for e in range(n_el):
        parts.setdefault(root(e), []).append(element_points[e])
    return [np.unique(np.concatenate(p)) for p in parts.values()]


def _link_frame(maps, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Origin and axes (columns) of the frame of :meth:`fem.Model.add_link_frame`."""
    origin, tip, side = (np.asarray(m(q), float) for m in maps)
    x = tip - origin
    x /= np.linalg.norm(x)
    y = side - (side @ x) * x
    if np.linalg.norm(y) < 1e-6 * max(1.0, float(np.linalg.norm(side))):
        e = np.eye(3)[int(np.argmin(np.abs(x)))]      # a line's points need no side
        y = e - (e @ x) * x
    y /= np.linalg.norm(y)
    return origin, np.column_stack([x, y, np.cross(x, y)])


def camera_for(view: str, gravity=None) -> str | dict:
    """The camera of a model's pictures as data: its named ``view`` and, under gravity,
    the screen's up against it (a falling arm falls down the picture; ignored for a view
    along gravity).  The name alone when that is the view's own up (``"iso"`` under
    gravity −z, ``"xy"`` under −y).  See :func:`fem.io.render.camera_axes`."""
    from .render import camera_axes

    camera: dict = {"view": view}
    g = np.zeros(3) if gravity is None else np.asarray(gravity, float).ravel()
    if g.size == 3 and np.linalg.norm(g) > 0:
        camera["up"] = [float(v) for v in -g / np.linalg.norm(g)]
    if np.allclose(camera_axes(camera)[1], camera_axes(view)[1], atol=1e-12):
        return view
    return camera


def low_camera(camera: str | dict, elevation_deg: float) -> dict:
    """``camera`` turned about the screen's horizontal so that it looks from
    ``elevation_deg`` above the plane normal to its up vector (a plate's sag reads from
    low, not from above); unchanged when it looks along its up vector."""
    from .render import camera_axes, view_up

    camera = {"view": camera} if isinstance(camera, str) else camera
    direction, _ = camera_axes(camera)
    up = np.asarray(camera.get("up") or view_up(camera.get("view", "iso")), float)
    up = up / np.linalg.norm(up)
    level = direction - (direction @ up) * up
    if np.linalg.norm(level) < 1e-6:
        return dict(camera)
    a = np.radians(elevation_deg)
    turned = np.cos(a) * level / np.linalg.norm(level) + np.sin(a) * up
    return {**camera, "direction": [float(v) for v in turned], "up": [float(v) for v in up]}


def close_up(camera: str | dict, ref: np.ndarray, surfaces: list[tuple[str, np.ndarray]]
             ) -> dict | None:
    """The ``detail`` of a movie (:func:`fem.io.render.animate`): the surfaces (``(group
    name, reference points)``) under a third of the size of the whole drawing ``ref``
    (a platform beside its robot), seen 25° above the horizontal so that a sag shows;
    None when every surface is large (or there is none)."""
    size = float(np.linalg.norm(np.ptp(ref, axis=0))) if len(ref) else 0.0
    small = [name for name, pts in surfaces
             if len(pts) and np.linalg.norm(np.ptp(pts, axis=0)) < size / 3]
    if not small:
        return None
    shown = dict.fromkeys(name.split(": ")[0] for name in small)   # "platform: platform"
    return {"groups": small, "camera": low_camera(camera, 25.0),
            "title": "close-up: " + ", ".join(shown)}


def _prescribed_paths(model, n: int = 121) -> list[tuple[str, np.ndarray]]:
    """The paths of prescribed points (``PrescribedPoint`` constraints whose motion has a
    ``duration``: :mod:`fem.model.trajectory` lines and circles), ``n`` points each over
    ``[0, duration]``, for drawing: ``(constraint name, (n, 3) positions)``."""
    from ..constraints import PrescribedPoint

    out = []
    for con in model.constraints:
        duration = getattr(con.motion, "duration", None) if isinstance(
            con, PrescribedPoint) else None
        if duration is None or not np.isfinite(duration) or duration <= 0:
            continue
        xyz = np.array([np.asarray(con.motion(float(t))[0], float).reshape(3)
                        for t in np.linspace(0.0, float(duration), n)])
        if np.ptp(xyz, axis=0).max() > 0:          # a point held still draws no path
            out.append((con.name, xyz))
    return out


class Drawing:
    """Drawable points ``P = D q`` and their cells, for one model."""

    def __init__(self, model):
        self.model = model
        n = model.n_dof
        rows, cols, vals = [], [], []
        self.cells: dict[str, list] = {"polyline": [], "triangle": [], "vertex": []}
        self.cell_group: dict[str, list] = {"polyline": [], "triangle": [], "vertex": []}
        npts = 0

        def add_points(dofs, coef):   # coef (k, n_vec) scalar weights over 3-vector dofs
            nonlocal npts
            k = coef.shape[0]
            d3 = dofs.reshape(-1, 3)
            for j in range(d3.shape[0]):
                for c in range(3):
                    rows.append(3 * (npts + np.arange(k)) + c)
                    cols.append(np.full(k, d3[j, c]))
                    vals.append(coef[:, j])
            idx = npts + np.arange(k)
            npts += k
            return idx

        body_nodes = {b.node: b for b in model.bodies.values()}
        self._fields: list = []       # (group, kind, first cell, sample points, per element)
        self._bodies: list = []       # drawn points of each connected elastic part
        self._part_group: list = []   # the element group of each entry of _bodies
        radius: dict[int, float] = {}
        body_lines: list = []         # rigid-body sketches: drawn as tubes too
        surfaces: list = []           # drawn points of each elastic surface group
        surface_names: list = []
        for gi, grp in enumerate(model.groups):
            fam = grp.family
            if fam.drawing == "sketch":
                for e in range(grp.n_elements):
                    body = body_nodes.get(int(grp.nodes[e, 0]))
                    sk = body.sketch if body is not None else np.zeros((1, 3))
                    N = fam.shape(sk)[e]
                    idx = add_points(grp.dofs[e], N)
                    kind = "polyline" if len(idx) > 1 else "vertex"
                    self.cells[kind].append(idx if kind == "polyline" else idx[:1])
                    if kind == "polyline":
                        body_lines.append(idx)
                    self.cell_group[kind].append(gi)
                continue
            xi = fam.draw_points()
            N = fam.shape(xi)                      # (n_el, k, n_vec)
            tri = fam.draw_triangles() if fam.drawing == "surface" else None
            first_tri = len(self.cells["triangle"])
            first_line = len(self.cells["polyline"])
            area = fam.section.get("area")
            r_draw = float(np.sqrt(np.mean(area) / np.pi)) if area is not None else 0.005
            element_points = []
            for e in range(grp.n_elements):
                idx = add_points(grp.dofs[e], N[e])
                element_points.append(idx)
                if tri is not None:
                    for t in tri:
                        self.cells["triangle"].append(idx[t])
                        self.cell_group["triangle"].append(gi)
                else:
                    self.cells["polyline"].append(idx)
                    self.cell_group["polyline"].append(gi)
                    radius.update({int(i): r_draw for i in idx})
            if fam.elastic:
                self._bodies.append((grp.nodes, element_points))
                self._part_group.append(grp.name)
                if tri is not None:
                    surfaces.append(np.concatenate(element_points))
                    surface_names.append(grp.name)
            if fam.elastic and fam.drawing == "polyline":
                self._fields.append((grp, "polyline", first_line, np.zeros((1, 1)), 1))
            elif fam.elastic and tri is not None:
                cen = np.asarray(xi)[tri].mean(axis=1)[:, :2]
                layers = np.vstack([np.column_stack([cen, np.full(len(cen), c)])
                                    for c in (-1.0, 1.0)])
                self._fields.append((grp, "triangle", first_tri, layers, len(tri)))
        # sketches: polylines through points given as linear maps (ground or moving);
        # a closed sketch of ground points is also filled (the static platform, a wall);
        # then the paths of prescribed points (a servo's circle or line), on the ground
        sketches = list(model.sketches)
        paths = _prescribed_paths(model)
        n_groups = len(model.groups)
        offsets = {}
        self._nonlinear: list = []      # (drawn point, point map): evaluated, not D q
        for s_id, (_name, pts, r_sketch, s_tri) in enumerate(sketches):
            idx = npts + np.arange(len(pts))
            if r_sketch > 0:
                radius.update({int(i): r_sketch for i in idx})
            for j, lm in enumerate(pts):
                if not isinstance(lm, LinearMap):     # a floating frame's deformed point
                    self._nonlinear.append((npts + j, lm))
                    continue
                for c in range(3):
                    rows.append(np.full(len(lm.dofs), 3 * (npts + j) + c))
                    cols.append(lm.dofs)
                    vals.append(lm.coef[c])
                    offsets[3 * (npts + j) + c] = lm.offset[c]
            npts += len(pts)
            if s_tri is not None:                  # a surface: a link's visual mesh
                for t in s_tri:
                    self.cells["triangle"].append(idx[t])
                    self.cell_group["triangle"].append(n_groups + s_id)
                continue
            self.cells["polyline"].append(idx)
            self.cell_group["polyline"].append(n_groups + s_id)
            ground = all(isinstance(lm, LinearMap) and not np.any(lm.coef) for lm in pts)
            if ground and len(pts) >= 4 and np.allclose(pts[0].offset, pts[-1].offset):
                for k in range(1, len(pts) - 2):             # a fan over the polygon
                    self.cells["triangle"].append(idx[[0, k, k + 1]])
                    self.cell_group["triangle"].append(n_groups + s_id)
        for p_id, (_name, xyz) in enumerate(paths):
            idx = npts + np.arange(len(xyz))
            for j, x in enumerate(xyz):
                for c in range(3):
                    offsets[3 * (npts + j) + c] = x[c]
            npts += len(xyz)
            self.cells["polyline"].append(idx)
            self.cell_group["polyline"].append(n_groups + len(sketches) + p_id)
        self.n_points = npts
        # names of the `group` ids: element groups, then sketches, then paths
        self.group_names = [g.name for g in model.groups]
        self.group_names += [f"{sk.name} ({'sketch' if sk.triangles is None else 'mesh'})"
                             for sk in sketches]
        self.group_names += [f"{name} (path)" for name, _ in paths]
        self.radius = np.zeros(npts)
        for i, r in radius.items():
            self.radius[i] = r
        self.offset = np.zeros(3 * npts)
        for i, v in offsets.items():
            self.offset[i] = v
        self.D = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows),
                                                       np.concatenate(cols))),
                               shape=(3 * npts, n)) if rows else sp.csr_matrix((0, n))
        self.ref = self.points(model.q0)
        if surfaces:
            # one connected surface per plate: the points that elements share are one point
            new_of = self._merge_coincident(surfaces)
            body_lines = [new_of[idx] for idx in body_lines]
            self._bodies = [(nodes, [new_of[idx] for idx in pts])
                            for nodes, pts in self._bodies]
            surfaces = [np.unique(new_of[idx]) for idx in surfaces]
        self._surfaces = list(zip(surface_names, surfaces, strict=True))
        if body_lines and self.n_points:
            # a body sketch has no section: 0.8 % of the model's size reads as a solid link
            r_body = 0.008 * float(np.linalg.norm(np.ptp(self.ref, axis=0))) or 0.005
            for idx in body_lines:
                self.radius[idx] = np.where(self.radius[idx] > 0, self.radius[idx], r_body)
        split = [(name, part) for (nodes, pts), name in zip(self._bodies, self._part_group,
                                                            strict=True)
                 for part in _parts(nodes, pts, self.ref)]
        self._bodies = [part for _, part in split]
        self._part_group = [name for name, _ in split]
        # a part with a drawn point whose coordinates are all fixed is held (a clamp):
        # its whole displacement is deformation
        from ..constraints import Fixed

        fixed = np.zeros(n, bool)
        for con in model.constraints:
            if isinstance(con, Fixed):
                fixed[con.dofs] = True
        moving = np.asarray(abs(self.D) @ (~fixed).astype(float)).reshape(-1, 3).sum(axis=1)
        self._held = [bool(np.any(moving[idx] == 0)) for idx in self._bodies]
        # the supports: points of links and bodies whose coordinates are all fixed (a
        # clamp, a pivot, a motor's centre), drawn as ground points
        drawn = np.asarray(abs(self.D).sum(axis=1)).reshape(-1, 3).sum(axis=1) > 0
        on_links = np.zeros(self.n_points, bool)
        for idx, g in zip(self.cells["polyline"] + self.cells["vertex"],
                          self.cell_group["polyline"] + self.cell_group["vertex"],
                          strict=True):
            if g < len(model.groups):
                on_links[np.asarray(idx)] = True
        held = np.flatnonzero(on_links & drawn & (moving == 0))
        if len(held):
            _, first = np.unique(np.round(self.ref[held], 12), axis=0, return_index=True)
            self.cells["vertex"] += [held[i:i + 1] for i in np.sort(first)]
            self.cell_group["vertex"] += [len(self.group_names)] * len(first)
            self.group_names.append("supports (sketch)")

    def _merge_coincident(self, surfaces: list[np.ndarray]) -> np.ndarray:
        """Make the drawn points that elements of one surface share one point.

        Each element draws its own sub-triangulation, so a point on an edge between two
        elements is drawn twice (hexagon_6: 6 × 15 = 90 points for 61 places).  Points of
        one surface group at the same reference position become one, whose map is the
        mean of theirs: the same map for mesh-shared plates (their shared nodes), the
        mean of positions that continuity constraints hold together otherwise.  The
        ``.vtu`` then holds one connected surface (ParaView shows no seams) and the
        picture shades it smoothly.  Returns the new index of every old point.
        """
        n_old = self.n_points
        key = np.arange(n_old, dtype=np.int64)
        size = float(np.linalg.norm(np.ptp(self.ref, axis=0))) or 1.0
        for pts in surfaces:
            grid = np.round(self.ref[pts] / (1e-9 * size)).astype(np.int64)
            _, first, inverse = np.unique(grid, axis=0, return_index=True,
                                          return_inverse=True)
            key[pts] = pts[first[inverse.ravel()]]
        _, order, new_of = np.unique(key, return_index=True, return_inverse=True)
        # keep the drawing order: new indices follow the first occurrence
        rank = np.empty(len(order), dtype=np.int64)
        rank[np.argsort(order)] = np.arange(len(order))
        new_of = rank[new_of.ravel()]
        n_new = len(order)
        count = np.bincount(new_of, minlength=n_new).astype(float)
        merge = sp.csr_matrix((1.0 / count[new_of], (new_of, np.arange(n_old))),
                              shape=(n_new, n_old))
        merge3 = sp.kron(merge, sp.eye(3), format="csr")
        self.D = (merge3 @ self.D).tocsr()
        self.offset = merge3 @ self.offset
        radius = np.zeros(n_new)
        np.maximum.at(radius, new_of, self.radius)
        self.radius = radius
        for kind in ("triangle", "polyline", "vertex"):
            self.cells[kind] = [new_of[np.asarray(c)] for c in self.cells[kind]]
        self.n_points = n_new
        self._nonlinear = [(int(new_of[i]), m) for i, m in self._nonlinear]
        self.ref = self.points(self.model.q0)
        return new_of

    def deformation(self, q: np.ndarray) -> np.ndarray:
        """Elastic part of the displacement (n_points, 3): for each connected elastic part,
        current positions minus the rigid motion of the frame through its joints where the
        model declares one (:meth:`fem.Model.add_link_frame`: zero at both ends, so a
        magnified link stays on its joints), else minus the rigid motion that fits them
        best (least squares), or the whole displacement when a drawn point of the part has
        all its coordinates fixed (a clamp); zero on rigid bodies and sketches.
        Magnifying it shows a small sag without throwing a moving robot across the
        picture."""
        current = self.points(q)
        out = np.zeros_like(current)
        frames = self.model.link_frames
        for idx, held, group in zip(self._bodies, self._held, self._part_group, strict=True):
            x0, x = self.ref[idx], current[idx]
            if group in frames:          # the frame through the link's joints
                o, R = _link_frame(frames[group], q)
                o0, R0 = _link_frame(frames[group], self.model.q0)
                out[idx] = x - (o + (x0 - o0) @ (R @ R0.T).T)
                continue
            if held:
                out[idx] = x - x0      # held at a point (a cantilever): no rigid motion
                continue
            c0, c = x0.mean(axis=0), x.mean(axis=0)
            u, _, vt = np.linalg.svd((x0 - c0).T @ (x - c))
            d = np.sign(np.linalg.det(u @ vt)) or 1.0
            rot = (u @ np.diag([1.0, 1.0, d]) @ vt).T          # x ≈ c + rot (x0 − c0)
            out[idx] = x - (c + (x0 - c0) @ rot.T)
        return out

    @property
    def view(self) -> str:
        """The named view of the pictures: the model's ``view``."""
        return self.model.view

    @property
    def picture(self) -> dict:
        """How the pictures of this model are drawn, as data (``render.json``): the
        ``camera`` (:func:`camera_for`: the model's view, gravity pointing down) and, when a
        plate is small beside the whole model (under a third of its size: the flagship's
        platform), a ``detail`` close-up of it (:func:`fem.io.render.animate`), seen from
        25° above the horizontal so that its sag shows."""
        camera = camera_for(self.model.view, self.model.gravity)
        out: dict = {"camera": camera}
        detail = close_up(camera, self.ref, self.surfaces)
        if detail:
            out["detail"] = detail
        return out

    @property
    def surfaces(self) -> list[tuple[str, np.ndarray]]:
        """The elastic surfaces (plates): ``(group name, reference points (k, 3))``."""
        return [(name, self.ref[idx]) for name, idx in self._surfaces]

    def points(self, q: np.ndarray) -> np.ndarray:
        out = (self.D @ q + self.offset).reshape(-1, 3)
        for i, m in self._nonlinear:
            out[i] = m(q)
        return out

    def velocities(self, v: np.ndarray, q: np.ndarray | None = None) -> np.ndarray:
        out = (self.D @ v).reshape(-1, 3)
        if q is not None:
            for i, m in self._nonlinear:
                out[i] = m.jacobian(q) @ v[m.dofs]
        return out

    def frame(self, t: float, q: np.ndarray, v: np.ndarray | None = None,
              lam: np.ndarray | None = None, sensors: dict | None = None):
        """The VTK frame of state ``(t, q, v, λ)``.

        Point data: ``displacement`` (current − reference), ``deformation`` (its elastic
        part, see :meth:`deformation`), ``velocity``, ``radius`` (drawing radius of line
        elements, 0 elsewhere).  Cell data: ``group`` (id; its name is field data
        ``group:<name>``), line-element strains at element centres, and on plate
        sub-triangles the von Mises stress and the Green–Lagrange strain (global axes,
        6 components XX YY ZZ XY YZ XZ) at the bottom and top layers.  Field data:
        ``TimeValue``, the group names, and with ``lam`` the actuator and drive efforts
        (``effort:<actuator> [N·m]``), all multipliers (``lambda``) and those of each constraint
        (``lambda:<constraint>``), and the run's ``sensors`` at this step
        (``sensor:<name>``: a robot's joint angles, rates, motor efforts, link
        deflections; numbers and small arrays).
        """
        from .vtk import Frame

        cells = {}
        for kind in ("triangle", "polyline", "vertex"):
            if self.cells[kind]:
                cells[kind] = (self.cells[kind] if kind == "polyline"
                               else np.asarray(self.cells[kind]).reshape(len(self.cells[kind]),
                                                                         -1))
        pd = {"displacement": self.points(q) - self.ref}
        if self._bodies:
            pd["deformation"] = self.deformation(q)
        if v is not None:
            pd["velocity"] = self.velocities(v, q)
        cd = {}
        groups = np.concatenate([np.asarray(self.cell_group[k], float)
                                 for k in ("triangle", "polyline", "vertex") if self.cells[k]])
        cd["group"] = groups
        if self.radius.any():
            pd["radius"] = self.radius              # for ParaView's Tube filter
        # element fields: line elements at their centres, plates per drawn sub-triangle
        # at the bottom and top layers (NaN on cells of other groups)
        n_tri = len(self.cells["triangle"])
        for grp, kind, first, pts, per in self._fields:
            vals = grp.family.strains(q[grp.dofs], pts)
            start = first if kind == "triangle" else n_tri + first
            if kind == "polyline":
                for k, arr in vals.items():
                    if np.ndim(arr) == 2:
                        cd.setdefault(k, np.full(len(groups), np.nan))[
                            start:start + grp.n_elements] = arr[:, 0]
            else:
                vm = vals["von_mises"]                          # (n_el, 2 per)
                eg = vals["E_global"][..., _VOIGT[0], _VOIGT[1]]  # (n_el, 2 per, 6)
                face = face_von_mises(vals["E"], grp.family.material)
                n = grp.n_elements * per
                for j, layer in enumerate(("bottom", "top")):
                    cd.setdefault(f"von_mises_{layer}_Pa", np.full(len(groups), np.nan))[
                        start:start + n] = vm[:, j * per:(j + 1) * per].ravel()
                    cd.setdefault(f"face_von_mises_{layer}_Pa", np.full(len(groups), np.nan))[
                        start:start + n] = face[:, j * per:(j + 1) * per].ravel()
                    cd.setdefault(f"strain_{layer}", np.full((len(groups), 6), np.nan))[
                        start:start + n] = eg[:, j * per:(j + 1) * per].reshape(n, 6)
        fd: dict = {"TimeValue": float(t)}
        fd.update({f"group:{name}": i for i, name in enumerate(self.group_names)})
        if lam is not None:
            fd.update(self.multipliers(t, lam, q, v))
        from .vtk import sensor_fields

        fd.update(sensor_fields(sensors))
        return Frame(float(t), self.ref, cells, pd, cd, fd)

    def multipliers(self, t: float, lam: np.ndarray, q: np.ndarray | None = None,
                    v: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Field data of one step: ``effort:<actuator> [N·m]`` (or ``[N]``; inverse-dynamics
        efforts from ``λ``, prescribed ones from their time function), ``effort:<drive>
        [N·m]`` for each rotary drive constraint that is not a servo row (the torque that
        imposes its angle, from its multiplier and the state ``q``), ``lambda`` (all
        multipliers in row order) and ``lambda:<constraint>`` (the rows of each)."""
        lam = np.asarray(lam, float).ravel()
        asm = self.model.assemble()
        out: dict[str, np.ndarray] = {}
        if len(lam) != asm.n_con:
            return out
        efforts = asm.efforts(lam)
        for a in self.model.actuators:
            if a.name in efforts:
                value = efforts[a.name]
            elif a.feedback is not None:      # a controller's effort at this state
                if q is None:
                    continue
                value = a.feedback.value(t, q, np.zeros_like(q) if v is None else v)[0]
            else:
                value = float(a.effort(t))
            out[effort_name(a.name, a.units)] = np.array([value])
        rows: dict[str, list] = {}
        owners: dict[int, str] = {}
        drives: dict[str, object] = {}
        for i, con in enumerate(asm.owner):
            if id(con) not in owners:
                name, k = con.name, 2
                while name in rows:
                    name, k = f"{con.name} #{k}", k + 1
                owners[id(con)] = name
                rows[name] = []
                if callable(getattr(con, "torque", None)) and not getattr(con, "servo", False):
                    drives[name] = con
            rows[owners[id(con)]].append(i)
        if q is not None:
            for name, con in drives.items():
                out[effort_name(name, "N·m")] = np.atleast_1d(
                    np.asarray(con.torque(lam[rows[name]], q), float))
        out["lambda"] = lam
        out.update({f"lambda:{name}": lam[r] for name, r in rows.items()})
        return out


def effort_name(actuator: str, unit: str) -> str:
    """The field-data name of an effort: ``effort:<actuator> [<unit>]``."""
    return f"effort:{actuator} [{unit}]"


_VOIGT = (np.array([0, 1, 2, 0, 1, 0]), np.array([0, 1, 2, 1, 2, 2]))   # VTK tensor order


def face_von_mises(E: np.ndarray, material) -> np.ndarray:
    """Von Mises stress of a plate face from its in-plane strain: the faces are free of
    traction, so the transverse shear and normal stresses vanish there and the stress
    is plane, ``σ_αβ = λ* E_γγ δ_αβ + 2μ E_αβ`` (``λ* = 2λμ/(λ + 2μ)``), from the
    Green–Lagrange strain ``E`` (..., 3, 3) in the element's local frame (``t₃`` the
    normal).  The element's own ``von_mises`` uses its full 3D strain, whose transverse
    shear comes from the energy: with a stabilizing shear factor (the thick plate's
    ``shear_factor="auto"``) it is that factor's inverse too large, and dominates the
    picture near supports (``docs/output.md``)."""
    lam, mu = material.lame
    lam_plane = 2.0 * lam * mu / (lam + 2.0 * mu)
    e11, e22, e12 = E[..., 0, 0], E[..., 1, 1], E[..., 0, 1]
    s11 = lam_plane * (e11 + e22) + 2.0 * mu * e11
    s22 = lam_plane * (e11 + e22) + 2.0 * mu * e22
    s12 = 2.0 * mu * e12
    return np.sqrt(s11**2 - s11 * s22 + s22**2 + 3.0 * s12**2)


def drawing_for(model) -> Drawing | CentrelineDrawing:
    """The drawing of ``model``: a :class:`Drawing` of its element groups, or for a
    floating-frame model in minimal coordinates (one whose ``drawing`` is "centrelines")
    a :class:`fem.io.centreline.CentrelineDrawing`; with bodies drawn on
    their FE meshes (a reduced platform) a :class:`fem.io.fe_bodies.BodyMeshes`.  All give
    ``frame(t, q, v, lam)``, ``ref``, ``group_names`` and ``view`` (the camera)."""
    from .centreline import CentrelineDrawing
    from .fe_bodies import BodyMeshes

    if CentrelineDrawing.draws(model):
        return CentrelineDrawing(model)
    drawing = Drawing(model)
    return BodyMeshes(model, drawing) if BodyMeshes.draws(model) else drawing


def stream(out, model, sensors=None, name: str | None = None, every: int | None = None
           ) -> Result:
    """A Result that streams chunks to ``out/result/`` and VTK frames to ``out/`` as it
    records (memory only when ``out`` is None)."""
    if every is not None:
        from ..core.validate import integer

        every = integer(every, "stream: every (a VTK frame every N records; 0: automatic)",
                        minimum=0)
    if out is None:
        return Result(sensors)
    out = Path(out)
    from .vtk import SeriesWriter

    drawing = drawing_for(model)
    writer = SeriesWriter(out, name or model.name)

    def on_record(i, t, q, v, a, lam):
        k = every or OPTIONS.every or max(1, -(-res.expected_records // OPTIONS.max_vtk))
        if i % k == 0 or i == res.expected_records - 1:
            t0 = _time.perf_counter()
            writer.add(drawing.frame(t, q, v, lam, res.latest_sensors()))
            TIMING["writing"] += _time.perf_counter() - t0

    res = Result(sensors, directory=out / "result", on_record=on_record)
    res.expected_records = 1
    res.drawing, res.writer = drawing, writer
    return res


def write_outputs(out, model, result=None, figures: dict | None = None,
                  state=None, picture: dict | None = None) -> list[Path]:
    """Write what a finished run leaves behind: the result arrays in ``out/result/``
    (read by :meth:`fem.Result.load`), the ParaView series ``out/<model>.pvd`` with its
    frames in ``out/<model>/``, ``figures.json``, ``render.json``, residual and sensor
    plots, and (deferred under ``fem run``) the pictures.  See ``docs/output.md``.

    Parameters
    ----------
    out : folder
    model : the model (its drawing gives the frames)
    result : fem.Result, fem.ModalResult or None
        A time series (streamed by :func:`stream`, or in memory: then written here), or
        the modes of a modal analysis (about ``state``, default ``model.q0``).
    figures : dict
        The run's figures (``figures.json``).
    state : array or fem.StaticResult, optional
        Without a time series: a static equilibrium (a result with its multipliers gives
        the actuator efforts too); with modes: the configuration they are about.
    picture : dict, optional
        A case's own picture settings (``camera``, ``scalars``, ``magnification``,
        ``detail``), written to ``render.json`` over those its drawing declares
        (:attr:`Drawing.picture`).
    """
    from ..core.errors import ModelError
    from ..core.units import axis_label, split_unit
    from . import render

    if not isinstance(figures, dict):
        raise ModelError(f"write_outputs: figures must be a dict name -> value; got "
                         f"{figures!r:.60}")
    from ..solvers.modal import ModalResult

    if result is not None and not isinstance(result, Result | ModalResult | Modes):
        raise ModelError(f"write_outputs: result must be a fem.Result, a fem.ModalResult "
                         f"or None; got {type(result).__name__}")
    modal = result is not None and result.kind == "modal"
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    drawing = (result.drawing if isinstance(result, Result) else None) or drawing_for(model)
    t0 = _time.perf_counter()
    kind = None
    if modal:
        q, _ = _state(state)
        modes = Modes.of(result, model.q0 if q is None else q)
        modes.save(out / "result")
        written.append(_write_mode_series(out, model.name, drawing, modes))
        kind = "modes"
    elif result is not None and len(result):
        result.finish()
        if result.writer is None:
            from .vtk import SeriesWriter

            w = SeriesWriter(out, model.name)
            k = OPTIONS.every or max(1, -(-len(result.t) // OPTIONS.max_vtk))
            for i in range(0, len(result.t), k):
                w.add(drawing.frame(result.t[i], result.q[i], result.v[i], result.lam[i],
                                    {n: s[i] for n, s in result.sensors.items()}))
            w.close()
            result.save_folder(out / "result")
        else:
            result.writer.close()
        TIMING["writing"] += result.write_seconds
        written.append(out / f"{model.name}.pvd")
        st = result.stats
        if "residual_dynamics" in st and len(result.t) > 1:
            written.append(plot_residuals(result.t, st, out / "residuals.png", model.name))
        for k, v in result.sensors.items():
            v = np.asarray(v)
            if v.ndim <= 2 and v.shape[0] == len(result.t) and np.issubdtype(v.dtype,
                                                                             np.number):
                label = axis_label(k)                 # energy_J → energy [J]
                quantity = split_unit(k)[0].replace("_", " ")
                written.append(render.plot_histories(result.t, {quantity: v},
                                                     out / f"{k}.png", label,
                                                     f"{model.name}: {quantity}"))
        kind = "animation" if len(result.t) > 1 else "snapshot"
    elif state is not None:
        written.append(_write_static(out, model, drawing, state))
        kind = "snapshot"
    from ..core.files import atomic_write_text

    settings = {**drawing.picture, **(picture or {})}
    if "camera" in settings:
        from .render import camera_axes

        camera_axes(settings["camera"])          # a bad camera is named before the run ends
    if "camera" in (picture or {}) and "detail" in settings and "detail" not in picture:
        # the close-up follows the case's own camera
        settings["detail"] = {**settings["detail"],
                              "camera": low_camera(settings["camera"], 25.0)}
    atomic_write_text(out / "render.json", json.dumps(jsonable(settings)))
    # the figures are on disk before any picture is attempted: nothing computed is lost
    atomic_write_text(out / "figures.json", json.dumps(jsonable(
        {k: v for k, v in figures.items() if not isinstance(v, list) or len(v) < 50}),
        indent=1))
    written.append(out / "figures.json")
    TIMING["writing"] += _time.perf_counter() - t0
    if kind is not None:
        written += request_pictures(out, kind)
    return written


def _state(state) -> tuple:
    """``(q, λ)`` of a state given as a static equilibrium (``fem.StaticResult``, its
    multipliers with it) or as coordinates (no multipliers)."""
    from ..solvers.static import StaticResult

    return (state.q, state.lam) if isinstance(state, StaticResult) else (state, None)


def _write_static(out: Path, model, drawing, state) -> Path:
    """A static equilibrium: ``result/`` with its one record (time 0, zero rates, the
    multipliers when ``state`` is a solver result) and a one-frame series."""
    from .vtk import SeriesWriter

    q, lam = _state(state)
    q = np.asarray(q, float)
    res = Result(info={"analysis": "static"})
    res.record(0.0, q, np.zeros_like(q), np.zeros_like(q),
               np.zeros(0) if lam is None else np.asarray(lam, float))
    res.save_folder(out / "result")
    with SeriesWriter(out, model.name) as w:
        w.add(drawing.frame(0.0, q, None, lam))
    return w.pvd_path


def mode_scale(drawing, q: np.ndarray, shape: np.ndarray, fraction: float = 0.05) -> float:
    """The factor that makes a mode's largest drawn displacement ``fraction`` of the
    model's size (the diagonal of its drawn box), from the drawing's frames (any
    drawing: element groups, centre lines, bodies on their FE meshes)."""
    at, moved = drawing.frame(0.0, q), drawing.frame(0.0, q + shape)
    ref = np.asarray(at.points) + at.point_data["displacement"]
    size = float(np.linalg.norm(np.ptp(ref, axis=0))) or 1.0
    move = float(np.linalg.norm(moved.point_data["displacement"]
                                - at.point_data["displacement"], axis=1).max())
    return fraction * size / move if move > 0 else 0.0


def mode_fields(number: int, frequency_hz: float, omega2: float) -> dict[str, np.ndarray]:
    """Field data of a mode's frame: ``mode`` (1, 2, …), ``frequency_hz``, ``omega2``."""
    return {"mode": np.array([number]), "frequency_hz": np.array([float(frequency_hz)]),
            "omega2": np.array([float(omega2)])}


def _write_mode_series(out: Path, name: str, drawing, modes: Modes) -> Path:
    """One frame per mode: the state plus the mode shape scaled to 5 % of the model's
    size (:func:`mode_scale`); the collection's "time" is the mode number (ParaView steps
    through the modes), the frequency is field data of each frame."""
    from .vtk import SeriesWriter

    with SeriesWriter(out, name) as w:
        for j in range(len(modes)):
            shape = modes.shapes[:, j]
            q = modes.q + mode_scale(drawing, modes.q, shape) * shape
            frame = drawing.frame(float(j + 1), q)
            frame.field_data.pop("TimeValue", None)
            frame.field_data.update(mode_fields(j + 1, modes.frequencies_hz[j],
                                                modes.omega2[j]))
            w.add(frame)
    return w.pvd_path


def request_pictures(out, kind: str = "animation") -> list[Path]:
    """Ask for the pictures of a run folder whose ``.pvd`` series a case wrote itself:
    made now, or after ``summary.json`` under ``fem run`` (deferred), or not at all with
    ``--no-render``.  ``kind``: ``"animation"`` or ``"snapshot"``."""
    if not OPTIONS.render:
        return []
    if OPTIONS.defer_render:
        OPTIONS.pending.append((Path(out), kind))
        return []
    return render_pictures(Path(out), kind)


_COLOUR_BY = ("face_von_mises_top_Pa", "von_mises_top_Pa", "von_mises_Pa", "bending_moment",
              "curvature", "axial_strain", "link_deformation_m")
"""Fields a picture is coloured by, the first present (cell or point data) wins."""


def _nice(x: float) -> float:
    """The largest of 1, 2, 5 × 10^k not above ``x`` (for a stated magnification)."""
    k = np.floor(np.log10(x))
    return float(max(m for m in (1.0, 2.0, 5.0, 10.0) if m * 10**k <= x * (1 + 1e-12)) * 10**k)


def picture_options(meshes: list, settings: dict | None = None) -> dict:
    """How to draw a stored series so that it reads at a glance (used by ``fem run`` and
    ``fem render``): warp by ``displacement`` if present; colour by the first field of
    :data:`_COLOUR_BY` present (plate von Mises stress, cable bending moment, …, the length
    of a floating-frame link's deformation); magnify
    the elastic ``deformation`` so that its largest value over the series is about 5 % of
    the picture and at most 10 % of the size of the elastic parts (1, 2 or 5 × 10^k, at
    most 1000×; 1× when it is visible already).
    ``settings`` (``render.json``) may set ``magnification`` and ``scalars``."""
    settings = settings or {}
    opts: dict = {}
    if not meshes:
        return opts
    last = meshes[-1]
    if "displacement" in meshes[0].point_data:   # a case's own series may hold positions only
        opts["warp"] = "displacement"
    colour = settings.get("scalars")
    if colour is None:
        def finite(k):
            values = last.cell_data[k] if k in last.cell_data else [last.point_data[k]]
            return np.isfinite(np.concatenate([np.ravel(v) for v in values])).any()

        colour = next((k for k in _COLOUR_BY if (k in last.cell_data or k in last.point_data)
                       and finite(k)), None)
    if colour is not None:
        opts.update(scalars=colour, show_edges=False)    # colours read better without edges
    if "deformation" in last.point_data:
        lo = np.full(3, np.inf)
        hi = -lo
        d_max = 0.0
        elastic = np.zeros(len(last.points), bool)
        for m in meshes:
            x = m.points + m.point_data.get("displacement", 0.0)
            lo, hi = np.minimum(lo, x.min(0)), np.maximum(hi, x.max(0))
            d = np.linalg.norm(m.point_data["deformation"], axis=1)
            d_max = max(d_max, float(d.max()))
            if len(d) == len(elastic):
                elastic |= d > 0
        size = float(np.linalg.norm(hi - lo))
        # the elastic parts' own size: a plate small beside its robot is not bent out of
        # shape (its magnified deformation stays within 10 % of its size)
        part = float(np.linalg.norm(np.ptp(last.points[elastic], axis=0))) if elastic.any() \
            else size
        factor = settings.get("magnification")
        if factor is None:
            target = min(0.05 * size, 0.1 * part)
            factor = 1.0 if d_max <= 0 or d_max >= target else min(1000.0, _nice(target / d_max))
        opts.update(deform="deformation", factor=float(factor))
    return opts


def picture_settings(directory: Path) -> dict:
    path = Path(directory) / "render.json"
    try:
        data = json.loads(path.read_text()) if path.is_file() else {}
    except (json.JSONDecodeError, OSError):
        return {}
    return data if isinstance(data, dict) else {}


def _remove_stale_partials(directory: Path) -> None:
    """Delete movies a killed rendering left under their temporary names
    (``.name.<pid>.partial.mp4``) whose process no longer exists."""
    import re

    from ..core.files import process_alive, writer

    host = writer()["host"]
    for f in directory.glob(".*.partial.*"):
        m = re.match(r"^\..*\.(\d+)\.partial\.[^.]+$", f.name)
        if m and process_alive({"pid": int(m.group(1)), "host": host}) is False:
            f.unlink(missing_ok=True)


def effort_panel(times, meshes: list):
    """The torque panel of a movie: the efforts a series holds as field data in every
    frame (``effort:<actuator> [<unit>]``: the actuators, the rotary drives), as a
    :class:`fem.io.render.HistoryPanel` labelled by their unit; ``None`` for a series
    without efforts or of one frame."""
    from .render import HistoryPanel

    names = [k for k in (meshes[0].field_data if meshes else {}) if k.startswith("effort:")]
    if len(meshes) < 2 or not names:
        return None
    if any(set(names) - set(m.field_data) for m in meshes):
        return None                      # a frame without them: nothing consistent to plot
    series, units = {}, set()
    for key in names:
        label = key.removeprefix("effort:")
        if label.endswith("]") and " [" in label:
            label, unit = label[:-1].rsplit(" [", 1)
            units.add(unit)
        else:
            units.add("")
        series[label] = np.array([float(np.ravel(m.field_data[key])[0]) for m in meshes])
    ylabel, title = {frozenset({"N·m"}): ("torque [N·m]", "actuator torques"),
                     frozenset({"N"}): ("force [N]", "actuator forces")}.get(
        frozenset(units), ("effort [N·m or N]", "actuator efforts"))
    return HistoryPanel(np.asarray(times, float), series, ylabel, title)


def render_directory(directory, fps: int = 20) -> list[Path]:
    """Animate the ``.pvd`` series in ``directory`` (works on partial runs)."""
    from ..core.errors import ModelError
    from ..core.validate import integer
    from . import render
    from .vtk import read_series, series_entries

    fps = integer(fps, "fps (frames per second)", minimum=1, maximum=240)
    directory = Path(directory)
    try:
        is_dir = directory.is_dir()
    except OSError as err:
        raise ModelError(f"cannot read {directory}: {err.strerror or err}") from None
    if not is_dir:
        raise ModelError(f"{directory} is not a folder; give the --out folder of a run")
    pvds = sorted(directory.glob("*.pvd"))
    if not pvds:
        raise ModelError(f"no .pvd series in {directory}; run a case with --out {directory}")
    render.check_writable(directory, directory / f"{pvds[0].stem}.mp4")   # "cannot write", early
    _remove_stale_partials(directory)
    camera = camera_of(directory)
    out = []
    for pvd in pvds:
        n = len(series_entries(pvd))
        with progress_bar(n, f"reading {pvd.stem}", "frame") as bar:
            times, meshes = read_series(pvd, skip_unreadable=True, progress=bar.update)
        if len(meshes) == 0:
            _warn(f"{pvd}: no readable frame; nothing to animate")
            continue
        stride = max(1, int(np.ceil(len(meshes) / OPTIONS.max_frames)))
        settings = picture_settings(directory)
        with progress_bar(len(range(0, len(meshes), stride)), f"rendering {pvd.stem}.mp4",
                          "frame") as bar:
            path, _ = render.animate(meshes, directory / f"{pvd.stem}.mp4", fps=fps,
                                     stride=stride, camera=camera, times=times,
                                     window_size=OPTIONS.window_size, progress=bar.update,
                                     panel=effort_panel(times, meshes),
                                     detail=settings.get("detail"),
                                     **picture_options(meshes, settings))
        out.append(path)
    return out
