"""Rigid-body inverse dynamics by Newton–Euler, solved chain by chain (Shen et al. 2021, §3).

Every rigid link ``i`` obeys the Newton–Euler balance (Shen et al. 2021 eqs 26–27)::

    Σ_j s_ij F_j + m_i g + F_ext,i                          = m_i a_i
    Σ_j s_ij [(p_j − c_i) × F_j + M_j] + M_ext,i            = I_i ε_i + ω_i × (I_i ω_i)

with ``c_i`` the centre of mass, ``a_i`` its acceleration, ``ω_i, ε_i`` the angular
velocity and acceleration and ``I_i`` the inertia tensor about ``c_i`` in the world frame.
A joint ``j`` at the point ``p_j`` between ``link`` and ``other`` carries the reaction
``(F_j, M_j)`` that ``other`` exerts on ``link``; ``link`` sees it with ``s = +1``,
``other`` with ``s = −1`` (action and reaction), the ground is ``other = None``.  The
reaction is unknown only along the joint's declared axes::

    F_j = Σ_k f_k a_k        M_j = Σ_k μ_k b_k

(three force axes and two moment axes perpendicular to the hinge for a revolute joint, plus
the hinge axis itself when the joint is driven: that component is the actuator torque).

**Ordered single open chains (SOC).**  The links are partitioned into chains that are
solved one after the other: a chain owns the unknowns of its joints and writes the six
balance equations of each of its links; reactions of joints owned by a chain solved
earlier enter as known loads (Shen et al. 2021: SKC2 = platform 4 + link 5 first, then
SKC1 = links 3, 2, 1 with the input torque).  Each chain is a small dense system per time
step, ``A x = b``, solved for all time steps at once by a column-scaled SVD.  A chain may
have more equations than unknowns when some balance row is identically zero (a slender rod
between two spherical joints has no moment equation about its own axis); the system must
then be consistent, which is checked.

Units are whatever the caller uses consistently (SI in this framework).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import ModelError, refuse_first

__all__ = [
    "Link",
    "Joint",
    "Chain",
    "NewtonEulerResult",
    "revolute",
    "spherical",
    "universal",
    "solve_inverse_dynamics",
]

_FORCE_LABELS = ("Fx", "Fy", "Fz")


@dataclass
class Link:
    """A rigid link with its motion over ``n`` time steps (world frame).

    Parameters
    ----------
    name : str
        Unique name, used by joints and chains.
    mass : float
        Mass [kg], ≥ 0.
    com, com_acc, omega, omega_dot : array_like, shape (n, 3)
        Centre of mass, its acceleration, angular velocity and angular acceleration.
    inertia : array_like, shape (3, 3) or (n, 3, 3)
        Inertia tensor about the centre of mass, world frame.
    force, moment : array_like, shape (3,) or (n, 3), optional
        External force through the centre of mass and external moment (payload,
        process loads); gravity is added by the solver.
    """

    name: str
    mass: float
    com: ArrayLike
    com_acc: ArrayLike
    omega: ArrayLike
    omega_dot: ArrayLike
    inertia: ArrayLike
    force: ArrayLike | None = None
    moment: ArrayLike | None = None


@dataclass
class Joint:
    """A joint and the unknown components of its reaction.

    Parameters
    ----------
    name : str
        Unique name.
    link : str
        Link that receives ``+F, +M``.
    other : str or None
        Link that receives ``−F, −M``; ``None`` for the ground.
    point : array_like, shape (3,) or (n, 3)
        Joint centre, where the reaction force acts.
    force_axes : array_like, shape (kf, 3) or (n, kf, 3)
        Directions of the unknown force components (default: the three Cartesian axes).
    moment_axes : array_like, shape (km, 3) or (n, km, 3)
        Directions of the unknown moment components (default: none).
    labels : sequence of str, optional
        One name per unknown, forces first (default ``Fx, Fy, Fz`` / ``F0 …`` and
        ``M0 …``).
    """

    name: str
    link: str
    other: str | None
    point: ArrayLike
    force_axes: ArrayLike = field(default_factory=lambda: np.eye(3))
    moment_axes: ArrayLike = field(default_factory=lambda: np.zeros((0, 3)))
    labels: Sequence[str] | None = None


@dataclass
class Chain:
    """A sub-kinematic chain: the links whose balance it writes, the joints it solves for."""

    name: str
    links: Sequence[str]
    joints: Sequence[str]


@dataclass
class NewtonEulerResult:
    """Joint reactions over time.

    Attributes
    ----------
    forces, moments : dict[str, ndarray (n, 3)]
        Reaction force and moment that ``joint.other`` exerts on ``joint.link``.
    components : dict[str, ndarray (n, k)]
        The solved unknowns of each joint along its axes.
    labels : dict[str, tuple[str, ...]]
        Names of those components.
    residual : dict[str, ndarray (n,)]
        Norm of the balance residual ``A x − b`` of each chain (consistency check), in
        force units: moment rows are divided by the chain's largest lever arm.
    """

    forces: dict[str, np.ndarray]
    moments: dict[str, np.ndarray]
    components: dict[str, np.ndarray]
    labels: dict[str, tuple[str, ...]]
    residual: dict[str, np.ndarray]

    def component(self, joint: str, label: str) -> np.ndarray:
        """History of one unknown, e.g. ``component("R1", "M_axis")`` (the drive torque)."""
        if joint not in self.labels:
            raise ModelError(f"no joint {joint!r}; joints: {', '.join(self.labels)}")
        if label not in self.labels[joint]:
            raise ModelError(f"joint {joint!r} has no component {label!r}; "
                             f"it has {', '.join(self.labels[joint])}")
        return self.components[joint][:, self.labels[joint].index(label)]


# --------------------------------------------------------------------------- joint helpers

def _unit(v: np.ndarray, what: str) -> np.ndarray:
    norm = np.linalg.norm(v, axis=-1, keepdims=True)
    if np.any(norm <= 1e-14 * max(1.0, float(np.max(np.abs(v), initial=0.0)))):
        raise ModelError(f"{what}: zero-length axis")
    return v / norm


def _perpendicular_pair(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors completing ``axis`` to a right-handed orthonormal frame.

    The first is the Cartesian axis least aligned with ``axis``, projected; for
    ``axis = X`` this gives ``(Y, Z)``.  Works on stacks ``(..., 3)``.
    """
    pick = np.argmin(np.abs(axis), axis=-1)
    ref = np.eye(3)[pick]
    p1 = ref - np.sum(ref * axis, axis=-1, keepdims=True) * axis
    p1 /= np.linalg.norm(p1, axis=-1, keepdims=True)
    return p1, np.cross(axis, p1)


def revolute(name: str, link: str, other: str | None, point: ArrayLike, axis: ArrayLike,
             *, driven: bool = False) -> Joint:
    """Revolute joint: full reaction force, moment perpendicular to ``axis``.

    With ``driven=True`` the moment about the axis is an unknown too, labelled
    ``M_axis``: the actuator torque that ``other`` applies to ``link`` about ``+axis``.
    Labels: ``Fx, Fy, Fz, M_perp1, M_perp2[, M_axis]``.
    """
    a = _unit(np.asarray(axis, dtype=float), f"revolute joint {name!r}")
    p1, p2 = _perpendicular_pair(a)
    axes = [p1, p2, a] if driven else [p1, p2]
    labels = _FORCE_LABELS + ("M_perp1", "M_perp2") + (("M_axis",) if driven else ())
    return Joint(name, link, other, point, np.eye(3), np.stack(axes, axis=-2), labels)


def spherical(name: str, link: str, other: str | None, point: ArrayLike) -> Joint:
    """Spherical (ball) joint: reaction force only.  Labels ``Fx, Fy, Fz``."""
    return Joint(name, link, other, point, np.eye(3), np.zeros((0, 3)), _FORCE_LABELS)


def universal(name: str, link: str, other: str | None, point: ArrayLike,
              axis_link: ArrayLike, axis_other: ArrayLike) -> Joint:
    """Universal (Hooke) joint with cross axes ``axis_link`` and ``axis_other``.

    It transmits the full force and the moment about ``axis_link × axis_other``
    (label ``M_twist``).
    """
    twist = np.cross(np.asarray(axis_link, dtype=float), np.asarray(axis_other, dtype=float))
    twist = _unit(twist, f"universal joint {name!r} (parallel cross axes)")
    return Joint(name, link, other, point, np.eye(3), twist[..., None, :],
                 _FORCE_LABELS + ("M_twist",))


# --------------------------------------------------------------------------- validation

def _series(value: ArrayLike, n: int, shape: tuple[int, ...], what: str) -> np.ndarray:
    """``value`` as an array of shape ``(n, *shape)``, constant values broadcast over time."""
    arr = np.asarray(value, dtype=float)
    if arr.shape == shape:
        arr = np.broadcast_to(arr, (n, *shape))
    elif arr.shape != (n, *shape):
        raise ModelError(f"{what}: expected shape {shape} or {(n, *shape)}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ModelError(f"{what}: contains NaN or inf")
    return arr


@dataclass
class _JointData:
    joint: Joint
    point: np.ndarray          # (n, 3)
    axes_f: np.ndarray         # (n, kf, 3)
    axes_m: np.ndarray         # (n, km, 3)
    labels: tuple[str, ...]

    @property
    def n_unknowns(self) -> int:
        return self.axes_f.shape[1] + self.axes_m.shape[1]


def _joint_data(joint: Joint, n: int) -> _JointData:
    where = f"joint {joint.name!r}"
    point = _series(joint.point, n, (3,), f"{where}: point")
    kf = np.shape(joint.force_axes)[-2] if np.ndim(joint.force_axes) >= 2 else -1
    km = np.shape(joint.moment_axes)[-2] if np.ndim(joint.moment_axes) >= 2 else -1
    if kf < 0 or km < 0:
        raise ModelError(f"{where}: force_axes and moment_axes must be (k, 3) or (n, k, 3)")
    axes_f = _series(joint.force_axes, n, (kf, 3), f"{where}: force_axes")
    axes_m = _series(joint.moment_axes, n, (km, 3), f"{where}: moment_axes")
    if joint.labels is None:
        labels = (_FORCE_LABELS if kf == 3 else tuple(f"F{k}" for k in range(kf)))
        labels += tuple(f"M{k}" for k in range(km))
    else:
        labels = tuple(joint.labels)
    if len(labels) != kf + km:
        raise ModelError(f"{where}: {len(labels)} labels for {kf + km} unknowns")
    return _JointData(joint, point, axes_f, axes_m, labels)


def _check_topology(links: Sequence[Link], joints: Sequence[Joint],
                    chains: Sequence[Chain]) -> None:
    link_names = [lk.name for lk in links]
    joint_names = [jt.name for jt in joints]
    for kind, names in (("link", link_names), ("joint", joint_names)):
        dup = sorted({x for x in names if names.count(x) > 1})
        if dup:
            raise ModelError(f"duplicate {kind} names: {', '.join(dup)}")
    for jt in joints:
        for end in (jt.link, jt.other):
            if end is not None and end not in link_names:
                raise ModelError(f"joint {jt.name!r} refers to unknown link {end!r}")
        if jt.link == jt.other:
            raise ModelError(f"joint {jt.name!r} connects link {jt.link!r} to itself")
    for kind, names, attr in (("link", link_names, "links"), ("joint", joint_names, "joints")):
        owned = [x for ch in chains for x in getattr(ch, attr)]
        for x in owned:
            if x not in names:
                raise ModelError(f"a chain lists unknown {kind} {x!r}")
        missing = [x for x in names if x not in owned]
        twice = sorted({x for x in owned if owned.count(x) > 1})
        if missing:
            raise ModelError(f"{kind}s not in any chain: {', '.join(missing)}")
        if twice:
            raise ModelError(f"{kind}s in more than one chain: {', '.join(twice)}")
    # The SOC order: a link's balance may only use reactions solved in its own chain or
    # in an earlier one.
    solved: set[str] = set()
    for ch in chains:
        now = solved | set(ch.joints)
        for jt in joints:
            touches = jt.link in ch.links or jt.other in ch.links
            if touches and jt.name not in now:
                later = next(c.name for c in chains if jt.name in c.joints)
                raise ModelError(
                    f"chain {ch.name!r}: joint {jt.name!r} acts on one of its links but is "
                    f"solved later (in chain {later!r}); reorder the chains or move the joint")
        solved = now


# --------------------------------------------------------------------------- solver

def _batched_lstsq(A: np.ndarray, b: np.ndarray, chain: str, labels: list[str],
                   rcond: float) -> tuple[np.ndarray, np.ndarray]:
    """Solve ``A x = b`` per time step by a column-scaled SVD; check rank and consistency."""
    if A.shape[2] > A.shape[1]:
        raise ModelError(
            f"chain {chain!r}: the joint reactions are not determined: {A.shape[2]} unknowns "
            f"({', '.join(labels)}) but only {A.shape[1]} balance equations. Release some "
            f"reaction components or move joints between chains")
    col = np.linalg.norm(A, axis=1)                              # (n, cols)
    zero_col = col <= 0.0
    if np.any(zero_col):
        step, c = np.argwhere(zero_col)[0]
        raise ModelError(f"chain {chain!r}: unknown {labels[c]} appears in no balance "
                         f"equation of the chain (step {step})")
    As = A / col[:, None, :]
    U, s, Vt = np.linalg.svd(As, full_matrices=False)
    ratio = s[:, -1] / s[:, 0]
    if np.any(ratio < rcond):
        step = int(np.argmin(ratio))
        null = Vt[step, -1] / col[step]
        involved = [labels[k] for k in np.argsort(-np.abs(null))[:4] if abs(null[k]) > 1e-3 *
                    np.abs(null).max()]
        raise ModelError(
            f"chain {chain!r}: the joint reactions are not determined by the balance "
            f"equations (step {step}, singular-value ratio {ratio[step]:.2e}); the "
            f"undetermined combination involves {', '.join(involved)}. Release some "
            f"reaction components or move joints between chains")
    x = np.einsum("nji,nj->ni", U, b)
    x = np.einsum("nij,ni->nj", Vt, x / s) / col
    resid = np.einsum("nij,nj->ni", A, x) - b
    rnorm = np.linalg.norm(resid, axis=1)
    scale = np.linalg.norm(b, axis=1) + np.linalg.norm(A, axis=(1, 2)) * np.linalg.norm(x, axis=1)
    refuse_first(rnorm > 1e-8 * np.maximum(scale, np.finfo(float).tiny), lambda step: (
        f"chain {chain!r}: the loads cannot be balanced by the declared reactions "
        f"(step {step}, residual {rnorm[step]:.3e}); a joint is missing or has too few "
        f"reaction components"))
    return x, rnorm


def solve_inverse_dynamics(links: Sequence[Link], joints: Sequence[Joint],
                           chains: Sequence[Chain], gravity: ArrayLike = (0.0, 0.0, -9.81),
                           *, rcond: float = 1e-10) -> NewtonEulerResult:
    """Joint reactions and actuator torques of a rigid mechanism, chain by chain.

    Parameters
    ----------
    links, joints : sequences of :class:`Link` and :class:`Joint`
        The mechanism; all link data share the same number ``n`` of time steps.
    chains : sequence of :class:`Chain`
        Solve order (the SOC order of Shen et al. 2021 §3.1): each chain solves for its joints'
        unknowns from the balance of its links, using reactions already solved.
    gravity : array_like, shape (3,)
        Gravitational acceleration vector.
    rcond : float
        Smallest accepted ratio of singular values of a (column-scaled) chain system.

    Returns
    -------
    NewtonEulerResult

    Raises
    ------
    ModelError
        Bad names or shapes, a chain order that uses reactions not solved yet, a chain
        whose reactions are not determined (statically indeterminate) or whose loads
        cannot be balanced.
    """
    if not links:
        raise ModelError("solve_inverse_dynamics: no links given")
    _check_topology(links, joints, chains)
    n = np.shape(links[0].com)[0] if np.ndim(links[0].com) == 2 else -1
    if n < 1:
        raise ModelError(f"link {links[0].name!r}: com must have shape (n, 3)")
    g = np.asarray(gravity, dtype=float)
    if g.shape != (3,):
        raise ModelError(f"gravity must be a 3-vector, got shape {g.shape}")

    link_by_name = {lk.name: lk for lk in links}
    jdata = {jt.name: _joint_data(jt, n) for jt in joints}
    forces: dict[str, np.ndarray] = {}
    moments: dict[str, np.ndarray] = {}
    components: dict[str, np.ndarray] = {}
    residual: dict[str, np.ndarray] = {}

    for ch in chains:
        cols: dict[str, slice] = {}
        labels: list[str] = []
        for name in ch.joints:
            jd = jdata[name]
            cols[name] = slice(len(labels), len(labels) + jd.n_unknowns)
            labels += [f"{name}.{lab}" for lab in jd.labels]
        A = np.zeros((n, 6 * len(ch.links), len(labels)))
        b = np.zeros((n, 6 * len(ch.links)))
        lever = 0.0
        for r, lname in enumerate(ch.links):
            lk = link_by_name[lname]
            where = f"link {lname!r}"
            if not np.isfinite(lk.mass) or lk.mass < 0:
                raise ModelError(f"{where}: mass must be finite and ≥ 0, got {lk.mass}")
            c = _series(lk.com, n, (3,), f"{where}: com")
            acc = _series(lk.com_acc, n, (3,), f"{where}: com_acc")
            w = _series(lk.omega, n, (3,), f"{where}: omega")
            wd = _series(lk.omega_dot, n, (3,), f"{where}: omega_dot")
            inertia = _series(lk.inertia, n, (3, 3), f"{where}: inertia")
            f_ext = (np.zeros((n, 3)) if lk.force is None
                     else _series(lk.force, n, (3,), f"{where}: force"))
            m_ext = (np.zeros((n, 3)) if lk.moment is None
                     else _series(lk.moment, n, (3,), f"{where}: moment"))
            rf, rm = slice(6 * r, 6 * r + 3), slice(6 * r + 3, 6 * r + 6)
            # Right-hand side: inertia forces minus the known loads.
            Iw = np.einsum("nij,nj->ni", inertia, w)
            b[:, rf] = lk.mass * (acc - g) - f_ext
            b[:, rm] = np.einsum("nij,nj->ni", inertia, wd) + np.cross(w, Iw) - m_ext
            for jd in jdata.values():
                jt = jd.joint
                if lname not in (jt.link, jt.other):
                    continue
                sign = 1.0 if jt.link == lname else -1.0
                arm = jd.point - c
                lever = max(lever, float(np.max(np.linalg.norm(arm, axis=1))))
                if jt.name in cols:               # unknown of this chain
                    cs = cols[jt.name]
                    kf = jd.axes_f.shape[1]
                    cf = slice(cs.start, cs.start + kf)
                    cm = slice(cs.start + kf, cs.stop)
                    A[:, rf, cf] += sign * np.swapaxes(jd.axes_f, 1, 2)
                    A[:, rm, cf] += sign * np.swapaxes(np.cross(arm[:, None, :], jd.axes_f),
                                                       1, 2)
                    A[:, rm, cm] += sign * np.swapaxes(jd.axes_m, 1, 2)
                else:                              # solved in an earlier chain
                    F, M = forces[jt.name], moments[jt.name]
                    b[:, rf] -= sign * F
                    b[:, rm] -= sign * (np.cross(arm, F) + M)
        # Moment rows carry a length; scale them by the chain's largest lever arm so that
        # the rank and consistency tests compare like with like.
        if lever > 0.0:
            moment_rows = (np.arange(A.shape[1]) % 6) >= 3
            A[:, moment_rows] /= lever
            b[:, moment_rows] /= lever
        x, rnorm = _batched_lstsq(A, b, ch.name, labels, rcond)
        residual[ch.name] = rnorm
        for name in ch.joints:
            jd = jdata[name]
            comp = x[:, cols[name]]
            kf = jd.axes_f.shape[1]
            components[name] = comp
            forces[name] = np.einsum("nk,nki->ni", comp[:, :kf], jd.axes_f)
            moments[name] = np.einsum("nk,nki->ni", comp[:, kf:], jd.axes_m)

    labels_out = {name: jdata[name].labels for name in jdata}
    return NewtonEulerResult(forces, moments, components, labels_out, residual)
