"""Bodies drawn on their FE meshes: a model's drawing plus, for every body that declares an
``fe_model`` (a reduced body and the Bézier plate it came from), that model's own drawing
at the body's current FE coordinates.

A reduced platform is then written to ParaView as the full plate is: the same mesh, the
same ``displacement``/``deformation`` point data and the same cell fields (von Mises
stress and Green–Lagrange strains of the bottom and top layers), computed from the FE
coordinates that modal superposition gives (``body.fe_coordinates(q)``,
``body.fe_velocities(q, v)``).  Groups of the FE model are named ``<body>: <group>``.
"""

from __future__ import annotations

import numpy as np

from .drawing import against_link_frame

__all__ = ["BodyMeshes"]

_KINDS = ("triangle", "polyline", "vertex")


def _counts(cells: dict) -> dict[str, int]:
    return {k: len(cells[k]) for k in _KINDS if k in cells}


def _split(values, counts: dict[str, int]) -> dict[str, np.ndarray]:
    """A cell-data array over all cells (in ``_KINDS`` order) → per type."""
    values = np.asarray(values)
    out, start = {}, 0
    for k, n in counts.items():
        out[k] = values[start:start + n]
        start += n
    return out


class BodyMeshes:
    """The drawing of a model whose bodies declare FE meshes (see the module docstring).

    Parameters
    ----------
    model : fem.Model
    base : the model's own drawing (:class:`fem.io.drawing.Drawing`)
    """

    def __init__(self, model, base):
        from .drawing import Drawing

        self.base = base
        self.view = base.view
        self.parts = [(b, Drawing(b.fe_model)) for b in model.nonlinear_bodies
                      if b.fe_model is not None]
        names = list(base.group_names)
        self._group_offset = []
        for body, d in self.parts:
            self._group_offset.append(len(names))
            names += [f"{body.name}: {g}" for g in d.group_names]
        self.group_names = names
        # the FE model's own reference (the flat plate, as the full model's): the
        # displacement then carries the sag, as it does for the full plate
        self.ref = np.vstack([base.ref] + [d.ref for _, d in self.parts])
        self.link_frames = model.link_frames
        self.q0 = model.q0

    @property
    def picture(self) -> dict:
        """How the pictures are drawn (``render.json``): the model's
        (:attr:`fem.io.drawing.Drawing.picture`), with the close-up of a small FE plate."""
        from .cameras import close_up

        out = dict(self.base.picture)
        detail = close_up(out["camera"], self.ref, self.surfaces)
        if detail:
            out["detail"] = detail
        return out

    @property
    def surfaces(self) -> list[tuple[str, np.ndarray]]:
        """The elastic surfaces of the model and of the bodies' FE meshes (named as
        their groups in the frames)."""
        return list(self.base.surfaces) + [(f"{body.name}: {name}", pts)
                                           for body, d in self.parts
                                           for name, pts in d.surfaces]

    @staticmethod
    def draws(model) -> bool:
        """True when a body of ``model`` declares an FE model to be drawn on."""
        return any(b.fe_model is not None for b in model.nonlinear_bodies)

    def frame(self, t: float, q: np.ndarray, v: np.ndarray | None = None,
              lam: np.ndarray | None = None, sensors: dict | None = None):
        """The base frame with every body's FE frame appended (points, cells, point and
        cell data; the bodies' group ids offset); field data of the base frame."""
        from .vtk import Frame

        f = self.base.frame(t, q, v, lam, sensors)
        frames = [f]
        for (body, d), off in zip(self.parts, self._group_offset, strict=True):
            qf = body.fe_coordinates(q)
            vf = None if v is None else body.fe_velocities(q, v)
            g = d.frame(t, qf, vf)
            if body.name in self.link_frames:     # the link's frame, in the model's q
                g.point_data["deformation"] = against_link_frame(
                    self.link_frames[body.name], q, self.q0,
                    d.ref + np.asarray(g.point_data["displacement"]), d.ref)
            g.cell_data["group"] = np.asarray(g.cell_data["group"], float) + off
            frames.append(g)
        n_pts = [len(fr.points) for fr in frames]
        shift = np.cumsum([0] + n_pts[:-1])
        cells: dict = {}
        for fr, s in zip(frames, shift, strict=True):
            for k in _KINDS:
                if k not in fr.cells:
                    continue
                if k == "polyline":
                    cells.setdefault(k, []).extend(np.asarray(c) + s for c in fr.cells[k])
                else:
                    cells.setdefault(k, []).append(np.asarray(fr.cells[k]) + s)
        for k in ("triangle", "vertex"):
            if k in cells:
                cells[k] = np.vstack(cells[k])
        total = sum(n_pts)
        pd = {}
        for key in {k for fr in frames for k in fr.point_data}:
            parts = []
            for fr, n in zip(frames, n_pts, strict=True):
                if key in fr.point_data:
                    parts.append(np.asarray(fr.point_data[key], float))
                else:
                    shape = next(np.shape(x.point_data[key])[1:] for x in frames
                                 if key in x.point_data)
                    parts.append(np.zeros((n, *shape)))
            pd[key] = np.concatenate(parts)[:total]
        counts = [_counts(fr.cells) for fr in frames]
        cd = {}
        for key in {k for fr in frames for k in fr.cell_data}:
            per_type: dict[str, list] = {k: [] for k in _KINDS}
            shape = next(np.shape(x.cell_data[key])[1:] for x in frames if key in x.cell_data)
            for fr, c in zip(frames, counts, strict=True):
                vals = (_split(fr.cell_data[key], c) if key in fr.cell_data else
                        {k: np.full((n, *shape), np.nan) for k, n in c.items()})
                for k in c:
                    per_type[k].append(np.asarray(vals[k], float))
            cd[key] = np.concatenate([np.concatenate(per_type[k]) for k in _KINDS
                                      if per_type[k]])
        fd = dict(f.field_data)
        fd.update({f"group:{name}": i for i, name in enumerate(self.group_names)})
        return Frame(float(t), self.ref, cells, pd, cd, fd)
