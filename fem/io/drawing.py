"""The drawable geometry of a model as a *linear* map of ``q``.

All element families interpolate positions linearly, so a :class:`Drawing`, built once,
gives the drawn points ``P = D q + offset``: polylines for line elements and body
sketches, triangles for surface elements, the paths of prescribed points, the supports.
Its :meth:`Drawing.frame` is one frame of a ParaView series: displacement, its elastic
part (``deformation``), velocities, element fields (strains, the plates' von Mises
stresses), efforts and multipliers.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..maps.linear_map import LinearMap
from .cameras import camera_for, close_up

__all__ = ["Drawing", "effort_name", "face_von_mises"]


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


def link_frame(maps, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def against_link_frame(maps, q: np.ndarray, q0: np.ndarray, x: np.ndarray,
                       x0: np.ndarray) -> np.ndarray:
    """Points ``x`` (reference ``x0``) less the rigid motion, from ``q0`` to ``q``, of the
    frame of :meth:`fem.Model.add_link_frame` given by ``maps``: the elastic part that
    pictures magnify (zero at the frame's origin and across to its tip)."""
    o, R = link_frame(maps, q)
    o0, R0 = link_frame(maps, q0)
    return x - (o + (x0 - o0) @ (R @ R0.T).T)


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


def _ground_pins(model, drawn: np.ndarray) -> np.ndarray:
    """The fixed points of the model's coincidence constraints (a pivot, a base joint:
    :attr:`fem.constraints.Coincident.ground_point`), each once, leaving out those at a
    point of ``drawn`` (k, 3) already; (m, 3)."""
    from ..constraints import Coincident

    pins = [c.ground_point for c in model.constraints
            if isinstance(c, Coincident) and c.ground_point is not None]
    if not pins:
        return np.zeros((0, 3))
    pins = np.asarray(pins, float)
    size = float(np.ptp(np.vstack([pins, drawn]), axis=0).max()) or 1.0
    key = lambda x: np.round(np.asarray(x) / (1e-9 * size)).astype(np.int64)  # noqa: E731
    seen = {tuple(k) for k in key(drawn)} if len(drawn) else set()
    out = []
    for p, k in zip(pins, map(tuple, key(pins)), strict=True):
        if k not in seen:
            seen.add(k)
            out.append(p)
    return np.asarray(out).reshape(-1, 3)


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
        supports = []
        if len(held):
            _, first = np.unique(np.round(self.ref[held], 12), axis=0, return_index=True)
            supports = [held[i:i + 1] for i in np.sort(first)]
        # and the fixed points that points are pinned to (a pendulum's pivot, a robot's
        # base joints), where no support is drawn yet
        pins = self._add_fixed_points(_ground_pins(model, self.ref[held]))
        supports += [np.array([i]) for i in pins]
        if supports:
            self.cells["vertex"] += supports
            self.cell_group["vertex"] += [len(self.group_names)] * len(supports)
            self.group_names.append("supports (sketch)")

    def _add_fixed_points(self, points: np.ndarray) -> np.ndarray:
        """Append fixed drawn points (no coordinate moves them); their indices."""
        k = len(points)
        if not k:
            return np.zeros(0, np.int64)
        n = self.n_points
        self.D = sp.vstack([self.D, sp.csr_matrix((3 * k, self.D.shape[1]))], format="csr")
        self.offset = np.concatenate([self.offset, np.asarray(points, float).ravel()])
        self.radius = np.concatenate([self.radius, np.zeros(k)])
        self.n_points = n + k
        self.ref = self.points(self.model.q0)
        return n + np.arange(k)

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
                out[idx] = against_link_frame(frames[group], q, self.model.q0, x, x0)
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
        ``camera`` (:func:`fem.io.cameras.camera_for`: the model's view, gravity pointing
        down) and, when a plate is small beside the whole model (under a third of its
        size: the flagship's platform), a ``detail`` close-up of it
        (:func:`fem.io.movies.animate`), seen from 25° above the horizontal so that its sag
        shows."""
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
