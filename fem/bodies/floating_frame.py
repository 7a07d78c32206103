"""A floating-frame flexible link in the constrained core.

Coordinates: the frame in natural coordinates — its origin ``r₀`` and the unit vectors
``u, v, w`` of its axes (12 coordinates, the node of a ``rigid_body`` element, whose six
dot-product rows keep them orthonormal) — and the link's elastic coordinates ``e`` (any
:mod:`fem.bases` basis, :class:`~fem.elements.floating_frame.FloatingFrameLink`).  With
``R = [u v w]`` a material point of the centre line is

    r(x; q) = r₀ + R p(x; e) = r₀ + Σ_j p_j(x; e) R_j

— bilinear in the frame and the centre line ``p`` (quadratic in ``e`` with the
foreshortening coupling, quartic with the fourth-order kinematics).

**Why natural coordinates** (not Euler parameters): the rotation is *linear* in them, so
the frame's own points and axes — the root clamp, revolute axes at the root, drives — are
:class:`~fem.LinearMap` objects that stay in the compiled quadratic constraint form, and
only points on the deformed link are point maps; there is no singular parametrization
and no normalization to re-impose; a rigid ``rigid_body`` and a flexible link share the
node layout (``r, u, v, w``), so a link is made flexible without touching its joints.  The
cost is five coordinates and five constraint rows more than Euler parameters.

Mass: ``T = ½ Σ_p w_p |ṙ_p|²`` over the link's quadrature points (``w = ρA·weight``),
point masses on the link and, for the section's rotary inertia:

* ``rotary_inertia="section"`` (default): two section directors per quadrature point,
  ``d_y = v + φ w`` and ``d_z = w − φ v`` (``φ = X·e_torsion`` the twist, linearized), each
  with weight ``½ρI_p``.  The section then has its polar inertia in *every* rotation about
  the link axis — the frame's spin included — and ``½ρI_p`` about the two others (a round
  or square section's rotary inertia).
* ``"twist"``: the paper's model — ``ρI_p`` on the elastic twist rate only
  (``M_twist``), the frame's spin about the link axis carries no section inertia.  The
  minimal-coordinate chains of :mod:`fem.model.chains` use this one.

``M = Σ w JᵀJ`` and the quadratic-velocity forces ``Σ w Jᵀ(q̇ᵀHq̇)`` follow from the maps
(:func:`fem.bodies.base.inertia_from_points`).  Gravity ``−Σ w Jᵀ g`` over the centre line
and point masses; elastic forces ``∂U/∂e`` of the link.

**Several bodies of one shape** (the segments of a link, the same link of every limb) are
evaluated together on the NumPy path by a :class:`~fem.bodies.frame_batch.FrameBatch`
(formed by the assembly): centre lines, inertia and elastic forces, and the tip points
and section axes that joints use, in the same array operations for all of them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.errors import ModelError
from ..elements.floating_frame import FloatingFrameLink
from ..maps.linear_map import LinearMap
from ..maps.point_maps import PointMap
from .base import NonlinearBody, inertia_from_points

__all__ = ["FloatingFrameBody", "ROTARY_INERTIA", "axis_rotation", "check_arguments",
           "section_rotation"]

ROTARY_INERTIA = ("section", "twist")
_I3 = np.eye(3)
# index arrays of the natural coordinates' blocks: component c (rows, (3, 1)) of the
# frame columns 3j + c, j = 0 (r₀), 1, 2, 3 (u, v, w) and of the axis columns alone
XYZ = np.arange(3)[:, None]
FRAME_COLS = 3 * np.arange(1, 4)[None, :] + XYZ          # (3, 3): the axes u, v, w
AXIS_ROWS = 3 * np.arange(3)[None, :] + XYZ               # the same within H[3:12]
_P_OF_COL = np.arange(3)                                  # p_j multiplies axis j


def _frame(q: np.ndarray, fdofs: np.ndarray) -> np.ndarray:
    """``R = [u v w]`` (3, 3) from the frame coordinates."""
    return q[fdofs[3:]].reshape(3, 3).T


def axis_rotation(axis: int, a: float):
    """Rotation about a frame axis (0 x, 1 y, 2 z) by ``a``, and its first and second
    derivatives with respect to ``a``."""
    c, s = np.cos(a), np.sin(a)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    R, R1, R2 = np.eye(3), np.zeros((3, 3)), np.zeros((3, 3))
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    R1[i, i], R1[i, j], R1[j, i], R1[j, j] = -s, -c, c, -s
    R2[i, i], R2[i, j], R2[j, i], R2[j, j] = -c, s, -s, -c
    return R, R1, R2


def check_arguments(name: str, link, rotary_inertia: str, point_masses) -> None:
    """Refuse a floating frame's bad arguments with a :class:`~fem.ModelError`."""
    if not isinstance(link, FloatingFrameLink):
        raise ModelError(f"floating frame {name!r}: link must be a FloatingFrameLink, "
                         f"got {type(link).__name__}")
    if rotary_inertia not in ROTARY_INERTIA:
        raise ModelError(f"floating frame {name!r}: rotary_inertia must be one of "
                         f"{ROTARY_INERTIA}, got {rotary_inertia!r}")
    from ..core.validate import finite

    if link.GJ == 0:
        inertia = " and no inertia (polar_inertia_per_length = 0)" if link.rho_Ip == 0 else ""
        raise ModelError(f"floating frame {name!r}: the link's twist has no stiffness "
                         f"(GJ = 0, FloatingFrameLink's default){inertia}, so its twist "
                         "coordinates are free and every solve is singular; give "
                         "FloatingFrameLink(..., GJ=G·J, polar_inertia_per_length=ρ·I_p) "
                         "(a round section: J = I_p = 2 I)")
    try:
        pairs = [tuple(pm) for pm in point_masses]
    except TypeError:
        raise ModelError(f"floating frame {name!r}: point_masses is a list of (x, m) pairs; "
                         f"got {point_masses!r:.80}") from None
    for pm in pairs:
        if len(pm) != 2:
            raise ModelError(f"floating frame {name!r}: each point mass is a pair (x [m], "
                             f"m [kg]); got {pm!r:.80}")
        x = finite(pm[0], f"floating frame {name!r}: point mass position x [m]")
        m = finite(pm[1], f"floating frame {name!r}: point mass m [kg]")
        if not (0.0 <= x <= link.length * (1 + 1e-12)) or not m >= 0:
            raise ModelError(f"floating frame {name!r}: a point mass needs 0 <= x <= "
                             f"{link.length:g} m and a mass >= 0; got x = {x}, m = {m}")


class FloatingFrameBody(NonlinearBody):
    """A :class:`FloatingFrameLink` on a frame in natural coordinates (module docstring).

    Made by :meth:`fem.Model.add_floating_frame`; not constructed directly.

    Attributes
    ----------
    link : FloatingFrameLink
    frame : fem.model.Body
        The frame (origin ``r₀`` at the link's root, ``u`` along the link).
    frame_dofs, elastic_dofs, dofs : ndarray
        Global coordinates of the frame (12), of ``e``, and both.
    """

    def __init__(self, name: str, link: FloatingFrameLink, frame, frame_dofs: np.ndarray,
                 elastic_dofs: np.ndarray, rotary_inertia: str = "section",
                 point_masses=()):
        check_arguments(name, link, rotary_inertia, point_masses)
        self.name, self.link, self.frame = name, link, frame
        self.rotary_inertia = rotary_inertia
        self.frame_dofs = np.asarray(frame_dofs, np.int64)
        self.elastic_dofs = np.asarray(elastic_dofs, np.int64)
        self.dofs = np.concatenate([self.frame_dofs, self.elastic_dofs])
        ne = link.n_coordinates
        self.k = 12 + ne
        pm = [(float(x), float(m)) for x, m in point_masses]
        self.point_masses = pm
        # weighted centre-line samples: quadrature points, then point masses
        self._q_smp = link.quadrature_samples
        self._pm_smp = link.sample([x for x, _ in pm]) if pm else None
        self.w_line = np.concatenate([link.w * link.rho_A, [m for _, m in pm]])
        # section directors
        if rotary_inertia == "section" and link.rho_Ip > 0:
            X, _ = link.basis.axial(link.x)
            self._Xt = X                                   # twist functions (P, na)
            self.w_dir = np.concatenate([0.5 * link.rho_Ip * link.w] * 2)
        else:
            self._Xt = None
            self.w_dir = np.zeros(0)
        self.M_const = np.zeros((self.k, self.k))
        if rotary_inertia == "twist":
            self.M_const[12:, 12:] = link.M_twist
        self._sl_t = link.slices["torsion"]
        self._line_q = None          # the frame and elastic coordinates of _line_cache
        self._line_cache = None
        self._section_cache: dict[float, tuple] = {}    # see _section
        self._batch = None           # the FrameBatch evaluating it with its peers, if any
        self._batch_index = 0
        # every inertia point's J and H in one array each, written in place (the
        # directors' H is constant: written once): rows of the quadrature points, the
        # point masses, the directors
        P = link.x.size
        Pd = 0 if self._Xt is None else self._Xt.shape[0]
        self._rows = (P, P + len(pm), P + len(pm) + 2 * Pd)
        self._J_all = np.zeros((self._rows[2], 3, self.k))
        self._H_all = np.zeros((self._rows[2], 3, self.k, self.k))
        self._w_all = np.concatenate([self.w_line, self.w_dir])
        if self._Xt is not None:
            self._directors_constant()

    def _line(self, q: np.ndarray):
        """``r``, ``J``, ``H`` at the quadrature points (:meth:`_centre`), kept for the last
        coordinates: a Newton iteration asks for the elastic forces and the inertia forces
        at one q.  ``J`` and ``H`` are the first rows of the body's point arrays."""
        qb = q[self.dofs]
        if self._line_q is None or not np.array_equal(qb, self._line_q):
            batch = self._batch
            if batch is not None:
                if batch.evaluates():
                    batch.line(q, True)    # every body of the batch at once
                    return self._line_cache
                batch._q = batch._qH = batch._qkey = None   # its rows are about to change
                batch._bodies_cached = True
            P = self._rows[0]
            self._line_cache = self._centre(q, self._q_smp, self._J_all[:P],
                                            self._H_all[:P])
            self._line_q = qb
        return self._line_cache

    # ------------------------------------------------------------ kinematics
    def _centre(self, q: np.ndarray, samples, J=None, H=None):
        """``r`` (P, 3), ``J`` (P, 3, k), ``H`` (P, 3, k, k) at centre-line samples
        (written into ``J``, ``H`` when given)."""
        e = q[self.elastic_dofs]
        R = _frame(q, self.frame_dofs)
        p, Pe, Q = self.link.local(e, samples)
        return self._centre_from(q, R, p, Pe, Q, J, H)

    def _centre_first(self, q: np.ndarray, samples):
        """``r`` (P, 3) and ``J`` (P, 3, k) of :meth:`_centre` (no second derivatives)."""
        e = q[self.elastic_dofs]
        R = _frame(q, self.frame_dofs)
        p, Pe = self.link.local_first(e, samples)
        return self._position_jacobian(q, R, p, Pe)

    def _position_jacobian(self, q, R, p, Pe, J=None):
        P = p.shape[0]
        r = q[self.frame_dofs[:3]] + p @ R.T
        if J is None:
            J = np.zeros((P, 3, self.k))
        # ∂r/∂r₀ = I, ∂r/∂R_j = p_j I: J[:, c, 3j + c] = (1, p)_j
        J[:, XYZ, FRAME_COLS] = p[:, None, _P_OF_COL]
        J[:, XYZ, XYZ] = 1.0
        np.matmul(R, Pe, out=J[:, :, 12:])
        return r, J

    def _centre_from(self, q, R, p, Pe, Q, J=None, H=None):
        P, k = p.shape[0], self.k
        r, J = self._position_jacobian(q, R, p, Pe, J)
        if H is None:
            H = np.zeros((P, 3, k, k))
        # ∂²r/∂R_j∂e = I ⊗ P_e,j (the zeros of the other blocks stay)
        B = H[:, :, 3:12, 12:]
        B[:, XYZ, AXIS_ROWS] = Pe[:, None, :, :]
        H[:, :, 12:, 3:12] = B.transpose(0, 1, 3, 2)
        np.multiply(-R[None, :, 0, None, None], Q[:, None], out=H[:, :, 12:, 12:])
        return r, J, H

    def _directors_constant(self) -> None:
        """The constant parts of the section directors' ``J`` and their ``H`` (constant)."""
        Xt = self._Xt
        P = Xt.shape[0]
        o = self._rows[1]
        J, H = self._J_all[o:], self._H_all[o:]
        t = slice(12 + self._sl_t.start, 12 + self._sl_t.stop)
        iv, iw = slice(6, 9), slice(9, 12)
        J[:P, :, iv] = _I3
        J[P:, :, iw] = _I3
        cross = np.einsum("cd,pm->pcdm", _I3, Xt)                       # (P, 3, 3, nt)
        for rows, col3, sign in ((slice(0, P), iw, 1.0), (slice(P, 2 * P), iv, -1.0)):
            H[rows, :, col3, t] = sign * cross
            H[rows, :, t, col3] = sign * cross.transpose(0, 1, 3, 2)

    def _directors(self, q: np.ndarray):
        """``J``, ``H`` of the section directors ``d_y = v + φw``, ``d_z = w − φv``
        (the rows of the body's point arrays; ``H`` is constant)."""
        Xt = self._Xt
        P = Xt.shape[0]
        fd = self.frame_dofs
        vv, ww = q[fd[6:9]], q[fd[9:12]]
        phi = Xt @ q[self.elastic_dofs[self._sl_t]]
        o = self._rows[1]
        J = self._J_all[o:]
        t = slice(12 + self._sl_t.start, 12 + self._sl_t.stop)
        J[:P, XYZ, 9 + XYZ] = phi[:, None, None]                    # d_y: ∂/∂w = φ I
        J[P:, XYZ, 6 + XYZ] = -phi[:, None, None]                   # d_z: ∂/∂v = −φ I
        np.multiply(ww[None, :, None], Xt[:, None, :], out=J[:P, :, t])
        np.multiply(-vv[None, :, None], Xt[:, None, :], out=J[P:, :, t])
        return J, self._H_all[o:]

    def _section(self, q: np.ndarray, x: float, A: np.ndarray):
        """``R`` and the elastic rotation of the section at ``x`` with its derivatives
        (:func:`section_rotation` of ``α = A e``), kept for the last coordinates: the
        three axes of a section (three maps) share them."""
        qb = q[self.dofs]
        hit = self._section_cache.get(x)
        if hit is not None and np.array_equal(hit[0], qb):
            return hit[1]
        out = (_frame(q, self.frame_dofs), *section_rotation(A @ q[self.elastic_dofs]))
        self._section_cache[x] = (qb, out)
        return out

    def _inertia_points(self, q: np.ndarray):
        self._line(q)
        P, Pm, _ = self._rows
        if self._pm_smp is not None:
            self._centre(q, self._pm_smp, self._J_all[P:Pm], self._H_all[P:Pm])
        if self._Xt is not None:
            self._directors(q)
        return self._w_all, self._J_all, self._H_all

    # ------------------------------------------------------------ the contract part
    def inertia(self, q, v, a, tangent=False):
        if self._batch is not None and self._batch.evaluates():
            return self._batch.inertia(q, v, a, tangent, self._batch_index)
        w, J, H = self._inertia_points(q)
        d = self.dofs
        f, tan = inertia_from_points(w, J, H, v[d], a[d], tangent)
        f = f + self.M_const @ a[d]
        if tan is not None:
            tan = (tan[0] + self.M_const, tan[1], tan[2])
        return f, tan

    def mass(self, q):
        w, J, _ = self._inertia_points(q)
        Jf = J.reshape(-1, self.k)
        return (np.repeat(w, 3)[:, None] * Jf).T @ Jf + self.M_const

    def forces(self, q, gravity, tangent=False):
        if self._batch is not None and self._batch.evaluates():
            return self._batch.forces(q, gravity, tangent, self._batch_index)
        k = self.k
        f = np.zeros(k)
        K = np.zeros((k, k)) if tangent else None
        e = q[self.elastic_dofs]
        fe, Ke = self.link.elastic_forces(e, tangent)
        f[12:] = fe
        if tangent:
            K[12:, 12:] = Ke
        if np.any(gravity):
            _, J, H = self._line(q)
            P = J.shape[0]
            wg = (self.w_line[:P, None] * gravity).ravel()          # (3P,)
            f -= wg @ J.reshape(3 * P, k)
            if tangent:
                K -= (wg @ H.reshape(3 * P, k * k)).reshape(k, k)
            if self._pm_smp is not None:
                _, Jp, Hp = self._centre(q, self._pm_smp)
                wp = (self.w_line[P:, None] * gravity).ravel()
                f -= wp @ Jp.reshape(-1, k)
                if tangent:
                    K -= (wp @ Hp.reshape(-1, k * k)).reshape(k, k)
        return f, K

    def energy(self, q, v, gravity):
        vd = v[self.dofs]
        r, _, _ = self._line(q)
        pos = [r]
        if self._pm_smp is not None:
            pos.append(self._centre(q, self._pm_smp)[0])
        pot = -float(self.w_line @ (np.concatenate(pos) @ gravity))
        return {"kinetic_J": 0.5 * float(vd @ self.mass(q) @ vd), "potential_J": pot,
                "elastic_J": self.link.strain_energy(q[self.elastic_dofs])}

    # ------------------------------------------------------------ points for users
    @property
    def origin(self) -> LinearMap:
        """The frame origin (the link's root, ``x = 0``): a linear map."""
        return self.frame.origin

    def axis(self, i: int) -> LinearMap:
        """Frame axis ``u`` (0, along the link), ``v`` (1) or ``w`` (2): a linear map."""
        return self.frame.axis(i)

    def point(self, x: float, label: str | None = None) -> PointMap:
        """The centre-line point at ``x`` [m] from the root (a point map)."""
        return LinkPoint(self, float(x), label)

    def direction(self, x: float, axis: int, label: str | None = None) -> PointMap:
        """Axis ``axis`` (0 tangent, 1, 2 the section's) of the section at ``x``: the frame
        turned by the elastic rotation ``T(e) = R_z(Y′·b) R_y(−Y′·c) R_x(X·d)`` (the tip
        rotation of :class:`fem.model.chains.SpatialChain`)."""
        return SectionDirection(self, float(x), int(axis), label)

    def centreline(self, q: np.ndarray, n_points: int = 21) -> np.ndarray:
        """Deformed centre line in space (n_points, 3)."""
        x = np.linspace(0.0, self.link.length, n_points)
        p, _, _ = self.link.local(q[self.elastic_dofs], x)
        return q[self.frame_dofs[:3]] + p @ _frame(q, self.frame_dofs).T

    def rotation(self, q: np.ndarray) -> np.ndarray:
        """``R = [u v w]`` of the frame at ``q``."""
        return _frame(q, self.frame_dofs)

    def surface_strain(self, q: np.ndarray, x: float, y: float, z: float) -> float:
        """Axial strain at the section point ``(y, z)`` (frame axes ``v``, ``w``) at ``x``:
        ``X′·a − y Y″·b − z Y″·c`` (linear in ``e``)."""
        lk, e = self.link, q[self.elastic_dofs]
        xs = np.array([float(x)])
        _, dX = lk.basis.axial(xs)
        _, _, d2Y = lk.basis.bending(xs)
        s = lk.slices
        return float(dX[0] @ e[s["axial"]] - y * d2Y[0] @ e[s["y"]]
                     - z * d2Y[0] @ e[s["z"]])

    def local_deflection(self, q: np.ndarray, x: float) -> np.ndarray:
        """Displacement of the centre-line point at ``x`` in the frame: ``p(x; e) −
        (x, 0, 0)`` [m]."""
        p, _, _ = self.link.local(q[self.elastic_dofs], np.array([x]))
        return p[0] - np.array([x, 0.0, 0.0])


class LinkPoint(PointMap):
    """A centre-line point of a :class:`FloatingFrameBody`."""

    def __init__(self, body: FloatingFrameBody, x: float, label: str | None = None):
        self.body, self.x = body, x
        self.samples = body.link.sample([x])
        self.dofs = body.dofs
        self.label = label or f"{body.name} point x = {x:g} m"

    def evaluate(self, q, second=False):
        b = self.body
        if self.x == b.link.length and b._batch is not None and b._batch.evaluates():
            r, J, _, _ = b._batch.tips(q)             # every body's tip at once
            i = b._batch_index
            return r[i], J[i], (b._batch.tips_second(q)[0][i] if second else None)
        if not second:
            r, J = b._centre_first(q, self.samples)
            return r[0], J[0], None
        r, J, H = b._centre(q, self.samples)
        return r[0], J[0], H[0]

    def batch_key(self) -> tuple:
        """Points with the same key are evaluated together (:meth:`evaluate_batch`): the
        tips of the bodies of one :class:`~fem.bodies.frame_batch.FrameBatch`, else the
        points of one body."""
        return _batch_key(self)

    def second_pattern(self) -> np.ndarray:
        """``∂²r/∂R∂e`` (``P_e``: the elastic columns) and ``∂²r/∂e²`` (the coupling:
        the two bending fields only); ``r`` is linear in ``r₀`` and in ``R``."""
        b = self.body
        band = slice(12 + b.link.band.start, 12 + b.link.band.stop)
        return _frame_pattern(b.k, np.arange(12, b.k), band)

    def second_source(self) -> tuple | None:
        """The tip of a body of a batch: its slice of the batch's tip second derivatives
        (:meth:`~fem.bodies.frame_batch.FrameBatch.tips_second_compact`)."""
        return _tip_source(self, 0, 0)

    @staticmethod
    def evaluate_batch(points: list[LinkPoint]) -> Callable:
        """An evaluator ``q -> (x (n, 3), J (n, 3, k))`` of ``n`` points at once (what
        :meth:`evaluate` gives each, without second derivatives)."""
        return _batch_runner(points, 0)


class SectionDirection(PointMap):
    """A section axis of a :class:`FloatingFrameBody` at ``x`` (see
    :meth:`FloatingFrameBody.direction`)."""

    def __init__(self, body: FloatingFrameBody, x: float, axis: int, label=None):
        if axis not in (0, 1, 2):
            raise ModelError(f"{body.name}: section axis must be 0, 1 or 2; got {axis}")
        self.body, self.x, self.axis = body, x, axis
        self.dofs = body.dofs
        lk = body.link
        X, _ = lk.basis.axial(np.array([x]))
        _, dY, _ = lk.basis.bending(np.array([x]))
        A = np.zeros((3, lk.n_coordinates))       # angles about z, y, x = A e
        A[0, lk.slices["y"]] = dY[0]
        A[1, lk.slices["z"]] = -dY[0]
        A[2, lk.slices["torsion"]] = X[0]
        self.A = A
        self.label = label or f"{body.name} section axis {'xyz'[axis]} at x = {x:g} m"

    def batch_key(self) -> tuple:
        """Section axes with the same key are evaluated together (:meth:`evaluate_batch`,
        as :meth:`LinkPoint.batch_key`)."""
        return _batch_key(self)

    def second_pattern(self) -> np.ndarray:
        """``t = R T(A e) e_axis``: second derivatives only on ``R`` × the angles'
        elastic columns (those of ``A``) and among those columns."""
        cols = 12 + np.flatnonzero(np.any(self.A != 0.0, axis=0))
        return _frame_pattern(self.body.k, cols, cols)

    def second_source(self) -> tuple | None:
        """The tip section of a body of a batch: its slice of the batch's tip second
        derivatives (:meth:`~fem.bodies.frame_batch.FrameBatch.tips_second_compact`)."""
        return _tip_source(self, 1, self.axis)

    @staticmethod
    def evaluate_batch(points: list[SectionDirection]) -> Callable:
        """An evaluator ``q -> (x (n, 3), J (n, 3, k))`` of ``n`` section axes at once."""
        return _batch_runner(points, 1)

    def _t(self, alpha):
        """``t = R_z R_y R_x e_axis`` (3,), ``∂t/∂α`` (3, 3) and ``∂²t/∂α²`` (3, 3, 3)."""
        T, dT, ddT = section_rotation(alpha)
        a = self.axis
        return T[:, a], dT[:, :, a].T, ddT[:, :, :, a].transpose(2, 0, 1)

    def evaluate(self, q, second=False):
        b = self.body
        if self.x == b.link.length and b._batch is not None and b._batch.evaluates():
            _, _, d, Js = b._batch.tips(q)           # every body's tip section at once
            i, ax = b._batch_index, self.axis
            return d[i, ax], Js[i, ax], (b._batch.tips_second(q)[1][i, ax] if second
                                         else None)
        R, T, dT, ddT = b._section(q, self.x, self.A)
        ax = self.axis
        t, dt = T[:, ax], dT[:, :, ax].T                       # (3,), (3, 3): ∂t/∂α_i
        k = b.k
        J = np.zeros((3, k))
        J[XYZ, FRAME_COLS] = t[None, :]
        G = dt @ self.A                                            # ∂t/∂e (3, ne)
        J[:, 12:] = R @ G
        H = None
        if second:
            ddt = ddT[:, :, :, ax].transpose(2, 0, 1)
            H = np.zeros((3, k, k))
            B = np.einsum("jm,cd->cjdm", G, _I3).reshape(3, 9, -1)
            H[:, 3:12, 12:] = B
            H[:, 12:, 3:12] = B.transpose(0, 2, 1)
            T2 = np.einsum("jab,am,bn->jmn", ddt, self.A, self.A)   # ∂²t/∂e²
            H[:, 12:, 12:] = np.einsum("cj,jmn->cmn", R, T2)
        return R @ t, J, H


def _batch_key(m):
    b = m.body
    if b._batch is not None and m.x == b.link.length:
        return ("tips", id(b._batch))
    return ("body", id(b))


def _frame_pattern(k: int, cols, block) -> np.ndarray:
    """A mask (3, k, k) of second derivatives on the frame's axes ``R`` (coordinates
    3–11) × ``cols`` (both orders) and on ``block`` × ``block`` (``cols``, ``block``:
    index arrays or slices)."""
    m = np.zeros((3, k, k), bool)
    m[:, 3:12, cols] = True
    m[:, cols, 3:12] = True
    if isinstance(block, slice):
        m[:, block, block] = True
    else:
        m[:, block[:, None], block[None, :]] = True
    return m


def _tip_source(m, kind: int, axis: int) -> tuple | None:
    """:meth:`PointMap.second_source` of a tip point (``kind`` 0) or tip section axis
    (1) of a body of a :class:`~fem.bodies.frame_batch.FrameBatch`, else None."""
    b = m.body
    batch = b._batch
    if batch is None or m.x != b.link.length or not batch.evaluates():
        return None
    return (("tips", id(batch)), batch.tips_second_compact,
            batch.tip_second_index(b._batch_index, kind, axis))


def _batch_runner(points: list, kind: int):
    """``q -> (x (n, 3), J (n, 3, k))`` of tip points (``kind`` 0) or tip section axes
    (1) of one :class:`~fem.bodies.frame_batch.FrameBatch` from its :meth:`tips`, or of
    any points of one body one by one (also when the batch is off the NumPy path)."""
    b0 = points[0].body
    batch = b0._batch
    tips = batch is not None and all(p.body._batch is batch and p.x == p.body.link.length
                                     for p in points)
    rows = np.array([p.body._batch_index for p in points]) if tips else None
    axes = np.array([getattr(p, "axis", 0) for p in points])

    every = tips and kind == 0 and np.array_equal(rows, np.arange(len(batch.bodies)))

    def run(q):
        if tips and batch.evaluates():
            r, J, d, Js = batch.tips(q)
            if kind == 0:
                return (r, J) if every else (r[rows], J[rows])
            return d[rows, axes], Js[rows, axes]
        ev = [p.evaluate(q) for p in points]
        return np.array([e[0] for e in ev]), np.array([e[1] for e in ev])

    return run


# the order of the derivative of each factor R_z, R_y, R_x (m) in ∂T/∂α_i and ∂²T/∂α_i∂α_j
ORDER1 = np.eye(3, dtype=np.int64)                                  # [i, m]
ORDER2 = ORDER1[:, None, :] + ORDER1[None, :, :]                  # [i, j, m]


def section_rotation(alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``T = R_z(α₀) R_y(α₁) R_x(α₂)`` (3, 3), ``∂T/∂α_i`` (3 i, 3, 3) and
    ``∂²T/∂α_i∂α_j`` (3 i, 3 j, 3, 3): every product of the three factors or their
    derivatives in two batched matrix products."""
    # F[m, d]: the d-th derivative of factor m (about z, y, x)
    F = np.empty((3, 3, 3, 3))
    for m, axis in enumerate((2, 1, 0)):
        F[m] = axis_rotation(axis, alpha[m])
    ddT = F[0, ORDER2[..., 0]] @ F[1, ORDER2[..., 1]] @ F[2, ORDER2[..., 2]]
    dT = F[0, ORDER1[:, 0]] @ F[1, ORDER1[:, 1]] @ F[2, ORDER1[:, 2]]
    T = F[0, 0] @ F[1, 0] @ F[2, 0]
    return T, dT, ddT
