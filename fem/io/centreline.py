"""Drawings of floating-frame models (minimal coordinates) for the ParaView series.

:class:`CentrelineDrawing` adapts a model that draws its links as centre lines —
``centrelines(q, n_points)`` (:class:`fem.model.chains.PlanarChain`,
:class:`fem.model.chains.SpatialChain`) or ``centreline(q, n_points)``
(:class:`fem.model.chains.HubLink`) — to the interface :mod:`fem.io.output` streams from:
:meth:`CentrelineDrawing.frame` gives the same frame as :meth:`fem.io.drawing.Drawing.frame`
(points, point data ``displacement``/``deformation``/``velocity``/``radius``, cell data
``group``, field data ``TimeValue``, group names, efforts and multipliers).

Two elastic parts of the displacement are written:

* ``link_deformation`` — each link's own, in its floating frame: the centre line in the
  moving frame less the undeformed one, ``R_i (p_i(x; e_i) − x e_x)``, in global axes.
  The rotation ``R_i`` of each link frame comes from ``frames(q)`` when the model declares
  it (spatial chains); otherwise the frames turn about the global z axis (hub links and
  planar chains) and ``R_i`` is the rotation about z that carries the link's local centre
  line onto its global one (exact: the two differ by a rigid motion).  Its length colours
  the pictures.
* ``deformation`` — the displacement less the motion of the same arm with rigid links
  (the elastic coordinates set to zero, the joint angles kept): ``r(q) − r(q_rigid)``.  On
  a hub link and on the first link of a chain it equals ``link_deformation``; on a later
  link it also carries the elastic tip deflection and slope of the links before it, so a
  magnified picture (``fem.io.pictures.picture_options`` magnifies ``deformation``) keeps the
  links joined.

What a model is, it declares as data, never found by class names or by looking for
methods: ``drawing`` ("centrelines"), ``chain`` and ``spatial`` (:class:`fem.model.chains.HubLink`
and its chains).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .vtk import Frame, sensor_fields

__all__ = ["CentrelineDrawing"]


def _rotation_z(phi: float) -> np.ndarray:
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


class CentrelineDrawing:
    """Links as tubes along their centre lines and a hub disc, as VTK frames.

    Parameters
    ----------
    model
        A model in minimal coordinates (:class:`fem.model.chains.HubLink`, its chains): a chain
        (``model.chain``) exposes ``centrelines(q, n_points)``, ``links`` and
        ``elastic_dofs`` (and ``frames(q)`` if ``model.spatial``), a hub link
        ``centreline(q, n_points)`` and ``link`` (``q = [θ, e]``); both ``q0``, ``n_dof``,
        ``name`` and ``gravity``.
    n_points : int
        Drawn points per link.
    hub_sides : int
        Sides of the polygon that draws the hub.

    Attributes
    ----------
    view : str
        The camera of the pictures: ``"xy"`` (along the z axis, y up) for models whose
        frames turn about z, ``"iso"`` for spatial chains.
    ref : (n, 3) ndarray
        Reference points (links at ``q0``, then the hub disc).
    radius : (n,) ndarray
        Drawing radius: 1.2 % of the reach on the links, 0 on the hub.
    """

    def __init__(self, model: Any, n_points: int = 21, hub_sides: int = 32):
        self.model = model
        self.n_points = int(n_points)
        self.chain = model.chain
        if self.chain:
            self.links = list(model.links)
            self.elastic = [np.asarray(d) for d in model.elastic_dofs]
        else:                                   # a hub link: q = [θ, e]
            self.links = [model.link]
            self.elastic = [np.arange(1, model.n_dof)]
        self.spatial = model.spatial
        self.view = "iso" if self.spatial else "xy"
        self.x = [np.linspace(0.0, lk.length, self.n_points) for lk in self.links]
        self.q0 = np.asarray(model.q0, float)
        reach = float(sum(lk.length for lk in self.links))
        r_link = 0.012 * reach
        self.hub_radius = 2.5 * r_link
        self._lines0 = self.lines(self.q0)
        self._hub_r0 = self._rotations(self.q0, self._lines0)[0]
        self._hub_c0 = self._lines0[0][0]
        ang = 2 * np.pi * np.arange(hub_sides) / hub_sides
        self._hub_offsets = self.hub_radius * np.column_stack(
            [np.cos(ang), np.sin(ang), np.zeros(hub_sides)])
        self._hub_offsets = np.vstack([np.zeros(3), self._hub_offsets])   # centre first
        n_link = self.n_link = len(self.links) * self.n_points
        n_hub = hub_sides + 1
        self.ref = self.points(self.q0)
        self.radius = np.concatenate([np.full(n_link, r_link), np.zeros(n_hub)])
        first = n_link
        self.triangles = np.array([[first, first + 1 + k, first + 1 + (k + 1) % hub_sides]
                                   for k in range(hub_sides)])
        self.polylines = [np.arange(i * self.n_points, (i + 1) * self.n_points)
                          for i in range(len(self.links))]
        nl = len(self.links)
        self.group_names = [f"link {i + 1}" for i in range(nl)] + ["hub"]
        self.cell_group = np.concatenate([np.full(hub_sides, nl), np.arange(nl)]).astype(float)

    @property
    def picture(self) -> dict:
        """How the pictures are drawn, as data (``render.json``, as
        :attr:`fem.io.drawing.Drawing.picture`): the camera (:attr:`view`, gravity pointing
        down)."""
        from .cameras import camera_for

        return {"camera": camera_for(self.view, self.model.gravity)}

    @staticmethod
    def draws(model: Any) -> bool:
        """Whether ``model`` is drawn by centre lines (it declares ``drawing`` as
        "centrelines")."""
        return model.drawing == "centrelines"

    # ----------------------------------------------------------------- geometry
    def lines(self, q: np.ndarray) -> list[np.ndarray]:
        """Deformed centre lines in space, one (n_points, 3) per link."""
        if self.chain:
            return [np.asarray(c, float) for c in self.model.centrelines(q, self.n_points)]
        return [np.asarray(self.model.centreline(q, self.n_points), float)]

    def _local(self, q: np.ndarray) -> list[np.ndarray]:
        """Centre lines in the link frames, one (n_points, 3) per link."""
        return [lk.local(q[d], x)[0] for lk, d, x in zip(self.links, self.elastic, self.x,
                                                        strict=True)]

    def _rotations(self, q: np.ndarray, lines: list[np.ndarray],
                   local: list[np.ndarray] | None = None) -> list[np.ndarray]:
        """The rotation of every link frame (3, 3)."""
        if self.spatial:
            return [np.asarray(R, float) for _, R in self.model.frames(q)]
        local = self._local(q) if local is None else local
        out = []
        for p, g in zip(local, lines, strict=True):
            a, b = p[:, :2] - p[:, :2].mean(0), g[:, :2] - g[:, :2].mean(0)
            out.append(_rotation_z(np.arctan2(np.sum(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]),
                                              np.sum(a * b))))
        return out

    def _hub(self, lines: list[np.ndarray], rotations: list[np.ndarray]) -> np.ndarray:
        """The hub disc at the root of the first link, turned with its frame."""
        turn = rotations[0] @ self._hub_r0.T
        return lines[0][0] + self._hub_offsets @ turn.T

    def points(self, q: np.ndarray) -> np.ndarray:
        """Current positions of the drawn points (n, 3)."""
        lines = self.lines(q)
        return np.vstack([*lines, self._hub(lines, self._rotations(q, lines))])

    def rigid(self, q: np.ndarray) -> np.ndarray:
        """``q`` with every elastic coordinate set to zero (the arm with rigid links)."""
        q = np.array(q, float)
        for d in self.elastic:
            q[d] = 0.0
        return q

    def deformation(self, q: np.ndarray, current: np.ndarray | None = None) -> np.ndarray:
        """Elastic part of the displacement (n, 3): current positions (``current``, if
        known) less those of the arm with rigid links at the same joint angles,
        ``r(q) − r(q_rigid)``; zero on the hub."""
        current = self.points(q) if current is None else current
        return current - self.points(self.rigid(q))

    def link_deformation(self, q: np.ndarray) -> np.ndarray:
        """Each link's elastic displacement in its floating frame (n, 3):
        ``R_i (p_i(x; e_i) − x e_x)`` (the centre line in the moving frame less the
        undeformed one, in global axes); zero on the hub."""
        local = self._local(q)
        rot = self._rotations(q, self.lines(q), local)
        parts = []
        for p, x, R in zip(local, self.x, rot, strict=True):
            d = p.copy()
            d[:, 0] -= x
            parts.append(d @ R.T)
        return np.vstack([*parts, np.zeros_like(self._hub_offsets)])

    def velocities(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Velocities of the drawn points (n, 3): the central difference of the positions
        along ``v`` (``J v`` to round-off: the step moves the coordinates by 1e-6)."""
        v = np.asarray(v, float)
        size = float(np.abs(v).max()) if v.size else 0.0
        if size == 0.0:
            return np.zeros_like(self.ref)
        h = 1e-6 / size
        return (self.points(q + h * v) - self.points(q - h * v)) / (2 * h)

    # -------------------------------------------------------------------- frames
    def frame(self, t: float, q: np.ndarray, v: np.ndarray | None = None,
              lam: np.ndarray | None = None, sensors: dict | None = None) -> Frame:
        """The VTK frame of state ``(t, q, v, λ)``, as :meth:`fem.io.drawing.Drawing.frame`.

        Point data: ``displacement`` (current − reference), ``deformation`` (its elastic
        part, :meth:`deformation`), ``link_deformation`` (each link's own,
        :meth:`link_deformation`), ``link_deformation_m`` (its length on the links, NaN on
        the hub: the colour of the pictures), ``velocity``, ``radius``.  Cell data:
        ``group`` (link 1, 2, …, hub).  Field data: ``TimeValue``, ``group:<name>``,
        with ``λ`` the multipliers (:meth:`multipliers`), and the ``sensors``
        (``sensor:<name>``).
        """
        q = np.asarray(q, float)
        current = self.points(q)
        own = self.link_deformation(q)
        size = np.linalg.norm(own, axis=1)
        size[self.n_link:] = np.nan
        pd = {"displacement": current - self.ref, "deformation": self.deformation(q, current),
              "link_deformation": own, "link_deformation_m": size}
        if v is not None:
            pd["velocity"] = self.velocities(q, v)
        pd["radius"] = self.radius
        fd: dict = {"TimeValue": float(t)}
        fd.update({f"group:{name}": i for i, name in enumerate(self.group_names)})
        if lam is not None:
            fd.update(self.multipliers(t, lam))
        fd.update(sensor_fields(sensors))
        cells = {"triangle": self.triangles, "polyline": self.polylines}
        return Frame(float(t), self.ref, cells, pd, {"group": self.cell_group}, fd)

    def multipliers(self, t: float, lam: np.ndarray) -> dict[str, np.ndarray]:
        """Field data of one step: ``lambda`` (all multipliers) and, for a hub link whose
        hub is driven (its one constraint row ``θ − θ_p(t) = 0``), the hub torque
        ``effort:hub drive [N·m]`` = its multiplier (also ``lambda:hub drive``)."""
        lam = np.asarray(lam, float).ravel()
        if lam.size == 0:
            return {}
        out = {"lambda": lam}
        if not self.chain and lam.size == 1:
            out["effort:hub drive [N·m]"] = lam[:1]
            out["lambda:hub drive"] = lam[:1]
        return out
