"""From a model and its result to files people look at.

* :class:`Drawing` — the drawable geometry of a model as a *linear* map of ``q`` (all
  families interpolate positions linearly), built once: polylines for line elements and
  body sketches, triangles for surface elements.
* :func:`stream` — a :class:`~fem.Result` that writes result chunks and one ``.vtu`` per
  output step (plus the ``.pvd`` collection) *while* the run goes on.
* :func:`write_outputs` — what ``fem run`` leaves in the output folder: result arrays,
  ParaView series, residual and sensor plots, the animation.
* :func:`render_directory` — ``fem render DIR``: animate a saved (possibly partial) run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .results import Result, jsonable

__all__ = ["OPTIONS", "Drawing", "stream", "write_outputs", "request_pictures",
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


def _warn(message: str) -> None:
    from .validate import warn

    warn(message)


def render_pictures(out: Path, kind: str) -> list[Path]:
    """The pictures of a run folder: ``"animation"`` (the series as a video) or
    ``"snapshot"`` (the last frame of the series as a PNG).  A rendering failure is a
    warning, never the loss of the run: the data are already on disk."""
    from .io import render

    out = Path(out)
    try:
        if kind == "animation":
            return render_directory(out, fps=OPTIONS.fps)
        camera = _camera(out)
        written = []
        for pvd in sorted(out.glob("*.pvd")):
            last = _last_frame_file(pvd)
            if last is not None:
                written.append(render.snapshot(last, out / "snapshot.png", warp="displacement",
                                               camera=camera))
        return written
    except (Exception, KeyboardInterrupt) as err:   # noqa: BLE001 - reported, not lost
        if isinstance(err, KeyboardInterrupt):
            _warn(f"rendering in {out} interrupted; the data and summary are complete — "
                  f"`fem render {out}` makes the pictures later")
            raise
        _warn(f"rendering in {out} failed ({type(err).__name__}: {err}); the results are "
              f"complete — retry with `fem render {out}`")
        return []


def render_pending() -> list[Path]:
    """Render what :func:`write_outputs` deferred (``OPTIONS.defer_render``)."""
    written = []
    while OPTIONS.pending:
        out, kind = OPTIONS.pending.pop(0)
        written += render_pictures(out, kind)
    return written


def _camera(directory: Path) -> str:
    settings = Path(directory) / "render.json"
    if not settings.is_file():
        return "iso"
    try:
        return json.loads(settings.read_text()).get("camera", "iso")
    except (json.JSONDecodeError, AttributeError, OSError) as err:
        _warn(f"{settings} is unreadable ({err}); using the default camera")
        return "iso"


def _last_frame_file(pvd: Path) -> Path | None:
    import xml.etree.ElementTree as ET

    try:
        files = [ds.get("file") for ds in ET.parse(pvd).getroot().iter("DataSet")]
    except (OSError, ET.ParseError):
        return None
    files = [pvd.parent / f for f in files if f and (pvd.parent / f).is_file()]
    return files[-1] if files else None


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
        radius: dict[int, float] = {}
        for gi, grp in enumerate(model.groups):
            fam = grp.family
            if fam.name == "rigid_body":
                for e in range(grp.n_elements):
                    body = body_nodes.get(int(grp.nodes[e, 0]))
                    sk = body.sketch if body is not None else np.zeros((1, 3))
                    N = fam.shape(sk)[e]
                    idx = add_points(grp.dofs[e], N)
                    kind = "polyline" if len(idx) > 1 else "vertex"
                    self.cells[kind].append(idx if kind == "polyline" else idx[:1])
                    self.cell_group[kind].append(gi)
                continue
            xi = fam.draw_points()
            N = fam.shape(xi)                      # (n_el, k, n_vec)
            tri = getattr(fam, "draw_triangles", None)
            first_tri = len(self.cells["triangle"])
            first_line = len(self.cells["polyline"])
            area = fam.section.get("area")
            r_draw = float(np.sqrt(np.mean(area) / np.pi)) if area is not None else 0.005
            for e in range(grp.n_elements):
                idx = add_points(grp.dofs[e], N[e])
                if fam.cell == "triangle":
                    conn = np.asarray(tri()) if tri is not None else np.array([[0, 1, 2]])
                    for t in conn:
                        self.cells["triangle"].append(idx[t])
                        self.cell_group["triangle"].append(gi)
                else:
                    self.cells["polyline"].append(idx)
                    self.cell_group["polyline"].append(gi)
                    radius.update({int(i): r_draw for i in idx})
            if fam.elastic and fam.cell == "line":
                self._fields.append((grp, "polyline", first_line, np.zeros((1, 1)), 1))
            elif fam.elastic and fam.cell == "triangle" and tri is not None:
                conn = np.asarray(tri())
                cen = np.asarray(xi)[conn].mean(axis=1)[:, :2]
                layers = np.vstack([np.column_stack([cen, np.full(len(cen), c)])
                                    for c in (-1.0, 1.0)])
                self._fields.append((grp, "triangle", first_tri, layers, len(conn)))
        # sketches: polylines through points given as linear maps (ground or moving)
        offsets = {}
        for _name, pts in getattr(model, "sketches", []):
            idx = npts + np.arange(len(pts))
            for j, lm in enumerate(pts):
                for c in range(3):
                    rows.append(np.full(len(lm.dofs), 3 * (npts + j) + c))
                    cols.append(lm.dofs)
                    vals.append(lm.coef[c])
                    offsets[3 * (npts + j) + c] = lm.offset[c]
            npts += len(pts)
            self.cells["polyline"].append(idx)
            self.cell_group["polyline"].append(-1)
        self.n_points = npts
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

    def points(self, q: np.ndarray) -> np.ndarray:
        return (self.D @ q + self.offset).reshape(-1, 3)

    def velocities(self, v: np.ndarray) -> np.ndarray:
        return (self.D @ v).reshape(-1, 3)

    def frame(self, t: float, q: np.ndarray, v: np.ndarray | None = None):
        from .io.vtk import Frame

        cells = {}
        for kind in ("triangle", "polyline", "vertex"):
            if self.cells[kind]:
                cells[kind] = (self.cells[kind] if kind == "polyline"
                               else np.asarray(self.cells[kind]).reshape(len(self.cells[kind]),
                                                                         -1))
        pd = {"displacement": self.points(q) - self.ref}
        if v is not None:
            pd["velocity"] = self.velocities(v)
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
                vm = vals["von_mises"]                          # (n_el, 2 per, )
                n = grp.n_elements * per
                for j, layer in enumerate(("bottom", "top")):
                    cd.setdefault(f"von_mises_{layer}_Pa", np.full(len(groups), np.nan))[
                        start:start + n] = vm[:, j * per:(j + 1) * per].ravel()
        return Frame(float(t), self.ref, cells, pd, cd)


def stream(out, model, sensors=None, name: str | None = None, every: int | None = None
           ) -> Result:
    """A Result that streams chunks to ``out/result/`` and VTK frames to ``out/`` as it
    records (memory only when ``out`` is None)."""
    if out is None:
        return Result(sensors)
    out = Path(out)
    from .io.vtk import SeriesWriter

    drawing = Drawing(model)
    writer = SeriesWriter(out, name or model.name)

    def on_record(i, t, q, v, a, lam):
        k = every or OPTIONS.every or max(1, -(-res.expected_records // OPTIONS.max_vtk))
        if i % k == 0 or i == res.expected_records - 1:
            writer.add(drawing.frame(t, q, v))

    res = Result(sensors, directory=out / "result", on_record=on_record)
    res.expected_records = 1
    res.drawing, res.writer = drawing, writer
    return res


def write_outputs(out, model, result: Result | None, figures: dict,
                  state: np.ndarray | None = None) -> list[Path]:
    """Write what a finished run leaves behind (see module docstring).

    ``state``: a single configuration to export (static analyses) when there is no
    time series.
    """
    from .io import render

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    drawing = getattr(result, "drawing", None) or Drawing(model)
    if result is not None and len(result):
        result.finish()
        if getattr(result, "writer", None) is None:
            from .io.vtk import SeriesWriter

            w = SeriesWriter(out, model.name)
            k = OPTIONS.every or max(1, -(-len(result.t) // OPTIONS.max_vtk))
            for i in range(0, len(result.t), k):
                w.add(drawing.frame(result.t[i], result.q[i], result.v[i]))
            w.close()
            result.save(out / "result.npz")
            written.append(out / "result.npz")
        else:
            result.writer.close()
        written.append(out / f"{model.name}.pvd")
        st = result.stats
        if "residual_dynamics" in st and len(result.t) > 1:
            written.append(render.plot_histories(
                result.t, {"dynamics (relative)": np.maximum(st["residual_dynamics"], 1e-300),
                           "constraints max|Φ|": np.maximum(st["residual_constraints"],
                                                            1e-300)},
                out / "residuals.png", "residual", f"{model.name}: Newton residuals",
                logy=True))
        for k, v in result.sensors.items():
            v = np.asarray(v)
            if v.ndim <= 2 and v.shape[0] == len(result.t) and np.issubdtype(v.dtype,
                                                                             np.number):
                written.append(render.plot_histories(result.t, {k: v}, out / f"{k}.png", k,
                                                     f"{model.name}: {k}"))
        kind = "animation" if len(result.t) > 1 else "snapshot"
    elif state is not None:
        from .io.vtk import SeriesWriter

        w = SeriesWriter(out, model.name)
        w.add(drawing.frame(0.0, state))
        w.close()
        written.append(out / f"{model.name}.pvd")
        kind = "snapshot"
    else:
        kind = None
    (out / "render.json").write_text(json.dumps({"camera": getattr(model, "view", "iso")}))
    # the figures are on disk before any picture is attempted: nothing computed is lost
    tmp = out / ".figures.json.tmp"
    tmp.write_text(json.dumps(jsonable(
        {k: v for k, v in figures.items() if not isinstance(v, list) or len(v) < 50}),
        indent=1))
    tmp.replace(out / "figures.json")
    written.append(out / "figures.json")
    if kind is not None:
        written += request_pictures(out, kind)
    return written


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


def render_directory(directory, fps: int = 20) -> list[Path]:
    """Animate the ``.pvd`` series in ``directory`` (works on partial runs)."""
    from .errors import ModelError
    from .io import render
    from .io.vtk import read_series

    directory = Path(directory)
    if not directory.is_dir():
        raise ModelError(f"{directory} is not a folder; give the --out folder of a run")
    pvds = sorted(directory.glob("*.pvd"))
    if not pvds:
        raise ModelError(f"no .pvd series in {directory}; run a case with --out {directory}")
    camera = _camera(directory)
    out = []
    for pvd in pvds:
        times, meshes = read_series(pvd, skip_unreadable=True)
        if len(meshes) == 0:
            _warn(f"{pvd}: no readable frame; nothing to animate")
            continue
        stride = max(1, int(np.ceil(len(meshes) / OPTIONS.max_frames)))
        # series written by a case itself (centrelines) may carry positions only
        warp = "displacement" if "displacement" in meshes[0].point_data else None
        path, _ = render.animate(pvd, directory / f"{pvd.stem}.mp4", fps=fps,
                                 warp=warp, stride=stride, camera=camera,
                                 window_size=OPTIONS.window_size)
        out.append(path)
    return out
