"""A reduced-order flexible body: a linear FE model's component modes in a floating frame.

The FE model (:func:`fem.reduction.reduce_body` makes one from any :class:`fem.Model`
of absolute-coordinate elements: ANCF cables, beams and plates, the Bézier plate, point
masses) has coordinates grouped in 3-vector *slots*: positions ``x_s`` (the ``r`` field
of a node) and vectors (gradients, directors).  A rigid motion ``(r, R)`` maps them as
``x_s → c_s r + R x_s`` (``c_s`` = 1 for a position, 0 for a vector).  The reduced body
keeps that motion exact and the deformation small, in ``m`` mode shapes ``Ψ_s`` (3, m)
given in the frame's axes:

    x_s(q) = c_s r + R (Q_s + Ψ_s η),   R = [u v w]  (the frame in natural coordinates)

with the body's coordinates ``q_b = [r, u, v, w, η]`` (12 + m; the frame is the node of a
``rigid_body``, its six rows keep ``u, v, w`` orthonormal, as for
:class:`~fem.bodies.FloatingFrameBody`).  Every slot is a fixed combination of the columns
of ``V = [c, Q_x, Q_y, Q_z, Ψ_x, Ψ_y, Ψ_z]`` (S × n_V, ``n_V = 4 + 3m``) and the
*generalized vectors* ``X(q)`` (n_V × 3, bilinear in the frame and ``η``):

    x = V X,   X = [r; u; v; w; η_k u; η_k v; η_k w]

The FE mass is slot-isotropic, ``M_FE = M̄ ⊗ I₃`` (true of every absolute-coordinate
element and of point masses), so the kinetic energy is ``T = ½ tr(Ẋᵀ W Ẋ)`` with the
**inertia invariants** ``W = Vᵀ M̄ V`` (n_V × n_V), computed once: evaluation costs
``O(n_V²)``, not the FE size.  Lagrange's equations of the exact ``T`` give

    f_inertia = Lᵀ (W ⊗ I₃) Ẍ,   Ẍ = [r̈; ü; v̈; ẅ; η_k ü + η̈_k u + 2 η̇_k u̇; …]

with ``L = ∂X/∂q``, hence ``M(q) = Lᵀ W L`` and the quadratic-velocity forces ``Lᵀ W
(2 η̇_k u̇ …)``; their tangents ``∂/∂q``, ``∂/∂q̇`` are exact (no term left out, no
finite differences).  Gravity is ``Lᵀ (W e_c ⊗ g)``, the modal stiffness ``K_r`` (and
damping ``C_r``) act on ``η``; or the FE model's damping ``C`` on the slots' absolute
velocities, ``Lᵀ C_X Ẋ`` with ``C_X = Vᵀ C V`` per component pair (a force that depends
on the pose, part of :meth:`ReducedBody.inertia`).  Any linear map of the FE model (a point, an edge
tangent: ``Σ_s c̄_s x_s``) is a point map of the body: ``v = Vᵀ c̄``, ``x = Xᵀ v``.

References: Shabana, *Dynamics of Multibody Systems* (Cambridge, 4th ed. 2020), ch. 5
(the floating frame of reference and its inertia shape integrals); Craig & Bampton,
AIAA J. 6 (1968) 1313.  Exudyn's ``ObjectFFRFreducedOrder`` and Chrono's
``ChModalAssembly`` are the same idea with Euler parameters or rotation vectors and
lumped translational nodes.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
from scipy.linalg.blas import dspmv as _dspmv

from ..core.errors import ModelError
from ..core.files import temporary_path
from ..core.validate import indices, integer, matrix, rotation
from ..maps.linear_map import LinearMap
from ..maps.point_maps import PointMap
from .base import NonlinearBody
from .reduced_kernels import reduced_kernels

_NO_BLOCK = np.empty((0, 0))   # no tangent blocks asked of the compiled inertia

__all__ = ["Reduction", "ReducedBody", "ReducedPoint"]

_FORMAT = "fem.reduction/2"
_BLOCKS = np.stack([np.hstack([np.eye(3) if j == i else np.zeros((3, 3)) for j in range(4)])
                    for i in range(4)]).reshape(4, 36)
"""Row ``j`` is the (3, 12) matrix with an identity in block ``j`` (flattened)."""


@dataclass
class Reduction:
    """The offline part of a reduced body (what :func:`fem.reduction.reduce_body` makes;
    :meth:`save`/:meth:`load` one ``.npz`` file).

    Attributes
    ----------
    c : (S,) float
        1 for a position slot, 0 for a vector slot.
    Q : (S, 3)
        Slot values in the reference configuration, in frame axes, positions relative to
        the frame origin.
    modes : (S, 3, m)
        Mode shapes ``Ψ`` per slot in frame axes (M-orthonormal, K-diagonal).
    W : (4 + 3m, 4 + 3m)
        Inertia invariants ``Vᵀ M̄ V``.
    K, C : (m, m)
        Modal stiffness and damping.
    f0 : (m,) or None
        Modal elastic force in the reference state (a prestressed state: the stresses of
        the state the model was linearized about); the elastic force is ``f0 + K η``.
    K2, K3 : (m, m, m), (m, m, m, m) or None
        The exact polynomial modal force of a geometrically nonlinear FE model
        (``nonlinear=True`` in :func:`fem.reduction.reduce_body`), fully symmetric
        tensors: ``f(η) = f0 + K η + ½ K2:ηη + ⅓ K3:ηηη`` and the tangent
        ``K + K2·η + K3:ηη`` (Green–Lagrange strains: the FE force is a cubic
        polynomial of the coordinates, so these are its projection, not a fit).
        ``K3`` is None when it is kept compressed (``K3_factor``).
    K3_factor : (P, r) or None
        ``K3`` compressed (``cubic_tol`` in :func:`fem.reduction.reduce_body`): its pair
        matrix ``S[p, p'] = K3[j, k, j', k']`` over the pairs ``j ≤ k`` (``P = m (m +
        1) / 2``, in ``np.triu_indices(m)`` order) is ``≈ G Gᵀ`` (positive semidefinite,
        as the Green–Lagrange quartic energy is), ``r ≪ P``.
    frequencies_hz : (m,)
        Of the reduced body with its frame held (``√K_kk / 2π``).
    origin, rotation : (3,), (3, 3)
        The frame's place in the FE model's reference configuration.
    slot_dofs : (S,) int
        The FE model's coordinate index of every slot's x component.
    n_fe : int
        The FE model's number of coordinates.
    C_fe : (4 + 3m, 3, 4 + 3m, 3) or None
        The FE model's damping on the generalized vectors (``damping="fe"`` in
        :func:`fem.reduction.reduce_body`): the body's damping force is then
        ``L(q)ᵀ C_fe L(q) q̇`` at the current pose, frame included (the FE model's own
        ``C ẋ``, exactly), instead of ``C`` on the modes alone
        (:meth:`ReducedBody.damping_terms`).
    interfaces : dict[str, (k, 3+…) arrays]
        Named points of the FE model as slot coefficients (sparse rows: ``slots``, ``coef``).
    info : dict
        How it was made (method, interfaces, state, timings).
    """

    c: np.ndarray
    Q: np.ndarray
    modes: np.ndarray
    W: np.ndarray
    K: np.ndarray
    C: np.ndarray
    frequencies_hz: np.ndarray
    origin: np.ndarray
    rotation: np.ndarray
    slot_dofs: np.ndarray
    n_fe: int
    f0: np.ndarray | None = None
    K2: np.ndarray | None = None
    K3: np.ndarray | None = None
    C_fe: np.ndarray | None = None
    K3_factor: np.ndarray | None = None
    interfaces: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    @property
    def n_modes(self) -> int:
        return int(self.modes.shape[2])

    @property
    def n_slots(self) -> int:
        return int(self.c.size)

    @cached_property
    def V(self) -> np.ndarray:
        """``[c, Q_x, Q_y, Q_z, Ψ_x, Ψ_y, Ψ_z]`` (S, 4 + 3m), built once."""
        return np.column_stack([self.c, self.Q, self.modes[:, 0, :], self.modes[:, 1, :],
                                self.modes[:, 2, :]])

    @property
    def mass(self) -> float:
        """Total mass [kg] (``cᵀ M̄ c``)."""
        return float(self.W[0, 0])

    def slot_coefficients(self, lmap: LinearMap) -> np.ndarray:
        """``c̄`` (S,) of a linear map of the FE model, ``x = Σ_s c̄_s x_s``.

        Raises :class:`ModelError` when the map is not a combination of whole slots with
        the same weight on x, y and z, or has a constant offset."""
        if not isinstance(lmap, LinearMap):
            raise ModelError(f"reduced body: a point must be a fem.LinearMap of the FE "
                             f"model, got {type(lmap).__name__}")
        if np.any(np.abs(lmap.offset) > 0):
            raise ModelError(f"reduced body: {lmap.label!r} has a constant offset; only "
                             "combinations of the FE model's coordinates move with the body")
        lookup = np.full(self.n_fe, -1, np.int64)
        for j in range(3):
            lookup[self.slot_dofs + j] = np.arange(self.n_slots) * 3 + j
        idx = lookup[np.asarray(lmap.dofs, np.int64)]
        if np.any(idx < 0):
            raise ModelError(f"reduced body: {lmap.label!r} uses coordinates outside the "
                             "reduced FE model")
        slot, comp = idx // 3, idx % 3
        cbar = np.zeros(self.n_slots)
        coef = np.asarray(lmap.coef, float)
        for i in range(3):
            own = comp == i
            other = ~own
            if np.any(np.abs(coef[i, other]) > 1e-12 * max(np.abs(coef).max(), 1.0)):
                raise ModelError(f"reduced body: {lmap.label!r} mixes the x, y, z components "
                                 "of a slot; only slot-wise combinations are rigid-motion "
                                 "invariant")
            vals = np.zeros(self.n_slots)
            np.add.at(vals, slot[own], coef[i, own])
            if i == 0:
                cbar = vals
            elif np.abs(vals - cbar).max() > 1e-12 * max(np.abs(cbar).max(), 1.0):
                raise ModelError(f"reduced body: {lmap.label!r} weights x, y and z of a "
                                 "slot differently")
        return cbar

    def check(self, where: str = "reduction") -> Reduction:
        """Check the arrays against each other (every shape follows from the slots ``S``
        and the modes ``m``), their finiteness, and that ``K`` is a stiffness (symmetric
        and positive semidefinite) and ``W`` has a positive mass.

        Called where a reduction enters (:meth:`fem.Model.add_reduced_body`,
        :meth:`load`), so a hand-made or edited reduction is refused with the array's
        name and shape instead of a numpy error or a diverging run.

        Parameters
        ----------
        where : str
            Who is checking (starts the message).

        Returns
        -------
        Reduction
            ``self``.

        Raises
        ------
        ModelError
            Naming the array, its shape (or the bad value) and the expected one.
        """
        if not isinstance(self.modes, np.ndarray) or np.ndim(self.modes) != 3 \
                or np.shape(self.modes)[1] != 3:
            raise ModelError(f"{where}: modes must be an (S, 3, m) array (S slots, m modes); "
                             f"got shape {np.shape(self.modes)}")
        S, _, m = self.modes.shape
        nV = 4 + 3 * m
        shapes = {"c": (S,), "Q": (S, 3), "modes": (S, 3, m), "W": (nV, nV), "K": (m, m),
                  "C": (m, m), "frequencies_hz": (m,), "origin": (3,)}
        if self.f0 is not None:
            shapes["f0"] = (m,)
        if self.K2 is not None:
            shapes["K2"] = (m, m, m)
        if self.K3 is not None:
            shapes["K3"] = (m, m, m, m)
        if self.C_fe is not None:
            shapes["C_fe"] = (nV, 3, nV, 3)
        for key, shape in shapes.items():
            setattr(self, key, matrix(getattr(self, key), f"{where}: {key} (for {S} slots "
                                      f"and {m} modes)", shape))
        self.rotation = rotation(self.rotation, f"{where}: rotation")
        self.n_fe = integer(self.n_fe, f"{where}: n_fe", minimum=1)
        self.slot_dofs = indices(self.slot_dofs, f"{where}: slot_dofs", upper=self.n_fe - 2,
                                 noun="coordinate index")
        if self.slot_dofs.shape != (S,):
            raise ModelError(f"{where}: slot_dofs must have one coordinate per slot ({S}); "
                             f"got shape {self.slot_dofs.shape}")
        if self.W[0, 0] <= 0:
            raise ModelError(f"{where}: W[0, 0] (the body's mass) must be > 0; got "
                             f"{self.W[0, 0]:g}")
        if m:
            scale = max(float(np.abs(self.K).max()), 1e-300)
            asym = float(np.abs(self.K - self.K.T).max())
            if asym > 1e-8 * scale:
                raise ModelError(f"{where}: K must be symmetric (an elastic force derives "
                                 f"from a potential); got |K − Kᵀ| = {asym:.3g} of max "
                                 f"|K| = {scale:.3g}; a round-off asymmetry: use "
                                 "(K + K.T) / 2, else the modal stiffness is wrong")
            low = float(np.linalg.eigvalsh(0.5 * (self.K + self.K.T)).min())
            if low < -1e-8 * scale:
                raise ModelError(f"{where}: K must be positive semidefinite (a stable "
                                 f"stiffness); its lowest eigenvalue is {low:.3g} (max |K| = "
                                 f"{scale:.3g}): the body would buckle or diverge; check "
                                 "the modal stiffness (its sign, its units)")
        if self.K3_factor is not None and self.K2 is None:
            raise ModelError(f"{where}: K3_factor needs K2 (the quadratic part of the "
                             "cubic modal force)")
        for key, arr in self.interfaces.items():
            self.interfaces[key] = matrix(arr, f"{where}: interface {key!r} (slot "
                                          "coefficients)", (S,))
        return self

    def vector_of(self, lmap: LinearMap) -> np.ndarray:
        """``v = Vᵀ c̄`` (n_V,): the map as a combination of the generalized vectors."""
        return self.V.T @ self.slot_coefficients(lmap)

    # ------------------------------------------------------------------ storage
    def save(self, path) -> Path:
        """Write one ``.npz`` (no pickled objects)."""
        path = Path(path)
        names = sorted(self.interfaces)
        arrays = {k: np.asarray(getattr(self, k)) for k in
                  ("c", "Q", "modes", "W", "K", "C", "frequencies_hz", "origin", "rotation",
                   "slot_dofs")}
        arrays["f0"] = np.zeros(self.n_modes) if self.f0 is None else np.asarray(self.f0)
        arrays["n_fe"] = np.array(self.n_fe)
        if self.K3 is not None:
            arrays["K2"], arrays["K3"] = np.asarray(self.K2), np.asarray(self.K3)
        elif self.K3_factor is not None:
            arrays["K2"], arrays["K3_factor"] = np.asarray(self.K2), np.asarray(self.K3_factor)
        if self.C_fe is not None:
            arrays["C_fe"] = np.asarray(self.C_fe)
        for i, nm in enumerate(names):
            arrays[f"interface_{i}"] = np.asarray(self.interfaces[nm], float)
        meta = {"format": _FORMAT, "interfaces": names, "info": self.info}
        arrays["meta"] = np.array(json.dumps(meta, default=str))
        tmp = temporary_path(path, keep_suffix=True)     # private to this process
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path) -> Reduction:
        """Read a file written by :meth:`save`."""
        path = Path(path)
        try:
            with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                fmt = meta.get("format") if isinstance(meta, dict) else None
                if isinstance(fmt, str) and fmt.startswith("fem.reduction/") \
                        and fmt != _FORMAT:
                    raise ModelError(f"{path}: a reduced body of another file format "
                                     f"({fmt!r}; this version of fem reads {_FORMAT!r}); "
                                     "make it again with fem.reduction.reduce_body and save "
                                     "it")
                if fmt != _FORMAT:
                    raise ModelError(f"{path}: not a reduced body (its format is {fmt!r}, "
                                     f"a reduced body's is {_FORMAT!r})")
                kw = {k: z[k] for k in ("c", "Q", "modes", "W", "K", "C", "frequencies_hz",
                                        "origin", "rotation", "slot_dofs", "f0")}
                inter = {nm: z[f"interface_{i}"] for i, nm in enumerate(meta["interfaces"])}
                if "K3" in z.files:
                    kw["K2"], kw["K3"] = z["K2"], z["K3"]
                elif "K3_factor" in z.files:
                    kw["K2"], kw["K3_factor"] = z["K2"], z["K3_factor"]
                if "C_fe" in z.files:
                    kw["C_fe"] = z["C_fe"]
                red = cls(**kw, n_fe=int(z["n_fe"]), interfaces=inter, info=meta["info"])
        except ModelError:
            raise
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile,
                TypeError, AttributeError) as err:
            raise ModelError(f"{path}: cannot read a reduced body — the file is damaged, "
                             f"truncated or not a .npz written by Reduction.save "
                             f"({type(err).__name__}: {err}); make it again with "
                             "fem.reduction.reduce_body and save it") from None
        return red.check(f"{path}")


def _single(a: np.ndarray) -> np.ndarray:
    """``a`` rounded to single precision, kept in double: the values the compiled kernels
    read from their single-precision copy (:func:`_packed_single`), so that the NumPy
    forms compute the same model."""
    return np.ascontiguousarray(np.asarray(a, np.float32), dtype=float)


def _packed_single(a: np.ndarray) -> np.ndarray:
    """``a`` in single precision, two values to a double slot (padded to even length)."""
    x = np.asarray(a, np.float32).ravel()
    if x.size % 2:
        x = np.append(x, np.float32(0.0))
    return x.view(np.float64)


class ReducedBody(NonlinearBody):
    """A reduced-order flexible body (see the module docstring); made by
    :meth:`fem.Model.add_reduced_body`."""

    carries_loads = True
    changes = 0
    """How many times a reduced body was given the FE model's forces
    (:meth:`use_fe_forces`) or a load (:meth:`add_load`): a
    :class:`~fem.bodies.reduced_batch.ReducedBatch` checks whether its bodies are still
    plain, and forms its load vectors again, only when this changed."""

    def __init__(self, name: str, reduction: Reduction, frame, frame_dofs: np.ndarray,
                 modal_dofs: np.ndarray):
        self.name = name
        self.reduction = red = reduction
        self.frame = frame
        self.frame_dofs = np.asarray(frame_dofs, np.int64)
        self.modal_dofs = np.asarray(modal_dofs, np.int64)
        self.dofs = np.concatenate([self.frame_dofs, self.modal_dofs])
        m = self.m = red.n_modes
        self.k = 12 + m
        self.nV = 4 + 3 * m
        self.W = np.ascontiguousarray(0.5 * (red.W + red.W.T))    # symmetric to the bit
        # W at the (a, k) rows, a-major: (3, n_V·m), for W B_i = Σ_a E[a, i] W_a
        self._Wm = np.ascontiguousarray(self.W[:, 4:].reshape(self.nV, 3, m)
                                        .transpose(1, 0, 2)).reshape(3, self.nV * m)
        self.Kr = np.asarray(red.K, float)
        self.Cr = np.asarray(red.C, float)
        self.f0 = np.zeros(red.n_modes) if red.f0 is None else np.asarray(red.f0, float)
        self._poly = None
        if red.K3 is not None or red.K3_factor is not None:
            # symmetric pairs (j ≤ k) only, a quarter of K3's work; the pair matrix is
            # symmetric itself (K3 is fully symmetric): kept packed (its upper triangle,
            # by columns: BLAS dspmv), half the memory to stream per evaluation — or
            # as its factor G (P × r) when compressed
            jj, kk = np.triu_indices(m)
            w = np.where(jj == kk, 1.0, 2.0)
            if red.K3 is not None:
                S = np.asarray(red.K3, float)[jj, kk][:, jj, kk]
                K3 = np.ascontiguousarray(S[np.tril_indices(S.shape[0])])
            else:
                K3 = np.ascontiguousarray(red.K3_factor, dtype=float)
                if K3.ndim != 2 or K3.shape[0] != jj.size:
                    raise ModelError(f"{name}: K3_factor must have {jj.size} rows (the "
                                     f"pairs of {m} modes), got shape {K3.shape}")
                K3 = _single(K3)        # a compressed polynomial: single precision
            K2p = np.ascontiguousarray(np.asarray(red.K2, float)[jj, kk])
            self._poly = (K2p if K3.ndim == 1 else _single(K2p), K3, jj, kk, w)
        self.elastic = m > 0
        # index sets of L = ∂X/∂q (nV, 3, k): the η-dependent entries
        a = np.repeat(np.arange(3), m)                  # vector u, v, w of each (a, k)
        kk = np.tile(np.arange(m), 3)
        self._pa, self._pk = a, kk
        self._rows = 4 + a * m + kk                      # row of X holding η_k e_a
        self._ecol = 3 + 3 * a                           # first column of e_a
        self._ncol = 12 + kk                             # column of η_k
        L0 = np.zeros((self.nV, 3, self.k))
        for i in range(3):
            L0[0, i, i] = 1.0
            for b in range(3):
                L0[1 + b, i, 3 + 3 * b + i] = 1.0
        self._L0 = L0
        self.loads: list[tuple[ReducedPoint, np.ndarray]] = []
        D = np.zeros((self.k, self.k))
        self._Cx = None
        if red.C_fe is not None:        # the FE model's damping at the current pose
            n3 = 3 * self.nV
            Cx = np.asarray(red.C_fe, float).reshape(n3, n3)
            self._Cx = _single(0.5 * (Cx + Cx.T)) if np.any(Cx) else None
        elif m:
            D[12:, 12:] = self.Cr
        self.damping_matrix = D if np.any(D) else None

    # ------------------------------------------------------------ kinematics
    def _parts(self, q):
        qb = q[self.dofs]
        return qb[3:12].reshape(3, 3), qb[12:], qb[:3]        # E rows = u, v, w

    def X(self, q: np.ndarray) -> np.ndarray:
        """Generalized vectors ``X`` (n_V, 3)."""
        E, eta, r = self._parts(q)
        X = np.empty((self.nV, 3))
        X[0] = r
        X[1:4] = E
        X[4:] = eta[self._pk, None] * E[self._pa]
        return X

    def _L(self, E, eta):
        L = self._L0.copy()
        for i in range(3):
            L[self._rows, i, self._ecol + i] = eta[self._pk]
            L[self._rows, i, self._ncol] = E[self._pa, i]
        return L

    def _bilinear(self, out, rows_vals):
        """Add ``Σ_rows val_i(row) ∂²X_i/∂q∂q`` terms: the symmetric (e_a, η_k) blocks."""
        for i in range(3):
            vals = rows_vals[:, i]
            np.add.at(out, (self._ecol + i, self._ncol), vals)
            np.add.at(out, (self._ncol, self._ecol + i), vals)

    def _LtWL(self, L, R):
        """``Σ_i L_iᵀ W R_i`` (k, k)."""
        out = np.zeros((self.k, self.k))
        for i in range(3):
            out += L[:, i, :].T @ (self.W @ R[:, i, :])
        return out

    def _project(self, E, eta, h):
        """``Lᵀ h = Σ_i L_iᵀ h_i`` (k,) for ``h`` (n_V, 3), without forming ``L``."""
        m = self.m
        f = np.empty(self.k)
        f[:3] = h[0]
        hm = h[4:].reshape(3, m, 3)                    # (a, k, i): the row of η_k e_a
        f[3:12] = (h[1:4] + np.einsum("k,aki->ai", eta, hm)).ravel()
        f[12:] = np.einsum("ai,aki->k", E, hm)
        return f

    # ------------------------------------------------------------ NonlinearBody
    def _rates(self, q, v, a):
        """``(E, η, Ė, η̇, Ë, η̈, h = W Ẍ)``; ``Ẍ = [r̈; Ë; η_k ë_a + η̈_k e_a + 2 η̇_k ė_a]``."""
        E, eta, _ = self._parts(q)
        vb, ab = v[self.dofs], a[self.dofs]
        Ed, etad = vb[3:12].reshape(3, 3), vb[12:]
        Edd, etadd = ab[3:12].reshape(3, 3), ab[12:]
        pa, pk = self._pa, self._pk
        G = np.empty((self.nV, 3))                     # Ẍ
        G[0] = ab[:3]
        G[1:4] = Edd
        G[4:] = (eta[pk, None] * Edd[pa] + etadd[pk, None] * E[pa]
                 + 2.0 * etad[pk, None] * Ed[pa])
        return E, eta, Ed, etad, Edd, etadd, self.W @ G

    def _LtWR(self, E, Ar, Er):
        """``Σ_i L_iᵀ W R_i`` (k, k) by blocks, for ``R`` shaped like ``L = ∂X/∂q``.

        Column ``i`` (r), ``3 + 3a + i`` (e_a) and ``12 + k`` (η_k) of ``L_i`` are the
        columns of ``A = [e_r, e_u + Σ η_k e_(u,k), …]`` (n_V, 4), the same for every
        ``i``, and of ``B_i`` with ``B_i[(a, k), k] = E[a, i]``; ``R_i`` likewise with
        ``Ar`` and ``Er`` (``L``: ``A``, ``E``; ``∂Ẍ/∂q̇``: ``2η̇``, ``2Ė``; ``∂Ẍ/∂q``:
        ``η̈``, ``Ë``).  So the product is four small blocks, ``O(n_V² + m²)`` work, not
        three dense ``n_V × n_V × k`` products.
        """
        m, nV = self.m, self.nV
        A = self._A
        WA = self.W @ Ar                                        # (n_V, 4)
        Z = (Er.T @ self._Wm).reshape(3, nV, m)                # W B'_i, rows i
        Zm = Z.reshape(3, nV * m)[:, 4 * m:].reshape(3, 3, m * m)       # (i, a, k'k)
        out = np.zeros((self.k, self.k))
        AWA = A.T @ WA
        for i in range(3):
            out[i:12:3, i:12:3] = AWA
        out[:12, 12:] = np.matmul(A.T, Z).transpose(1, 0, 2).reshape(12, m)
        out[12:, :12] = (E.T @ WA[4:].reshape(3, 4 * m)).reshape(3, m, 4) \
            .transpose(1, 2, 0).reshape(m, 12)
        out[12:, 12:] = (E[:, 0] @ Zm[0] + E[:, 1] @ Zm[1] + E[:, 2] @ Zm[2]).reshape(m, m)
        return out

    def _frame_columns(self, eta, scale: float = 1.0, rigid: bool = True):
        """``A`` of :meth:`_LtWR` for the modal weights ``eta``: ``e_r``, ``e_a`` (when
        ``rigid``) and ``Σ_k eta_k e_(a,k)``."""
        m = self.m
        A = np.zeros((self.nV, 4))
        if rigid:
            A[0, 0] = A[1, 1] = A[2, 2] = A[3, 3] = 1.0
        for a in range(3):
            A[4 + a * m:4 + (a + 1) * m, 1 + a] = scale * eta
        return A

    def inertia(self, q, v, a, tangent=False):
        from .kernels import reduced_inertia

        kernel = reduced_inertia()
        if kernel is None:
            f, T = self.inertia_blocks(q, v, a, tangent)
            if self._Cx is not None:
                fd, Td = self.damping_terms(q, v, tangent)
                f = f + fd
                if tangent:
                    T = (T[0], T[1] + Td[0], T[2] + Td[1])
            return f, T
        k = self.k                    # the same blocks, compiled (a test compares)
        f = np.empty(k)
        M, Kq, Cq = ((np.empty((k, k)), np.empty((k, k)), np.empty((k, k))) if tangent
                     else (_NO_BLOCK, _NO_BLOCK, _NO_BLOCK))
        d = self.dofs
        kernel(self.m, self.W, q[d], v[d], a[d], f, M, Kq, Cq)
        if self._Cx is not None:
            from .kernels import reduced_damping

            reduced_damping()(self.m, self._Cx.ravel(), q[d], v[d], f, Kq, Cq)
        return f, ((M, Kq, Cq) if tangent else None)

    def damping_terms(self, q, v, tangent=False):
        """The FE model's damping at the current pose (``damping="fe"`` in
        :func:`fem.reduction.reduce_body`): the force ``Lᵀ C_X Ẋ``, ``Ẋ = L(q) q̇``
        (the FE model's ``C ẋ`` on the slots' absolute velocities ``ẋ = V Ẋ``, exactly),
        and with ``tangent`` ``(∂/∂q, ∂/∂q̇ = Lᵀ C_X L)``; zeros without it.  The NumPy
        form (dense ``L``) of what :meth:`inertia` adds to the inertia forces; the
        compiled ``fem.bodies.kernels.reduced_damping`` replaces it (a test compares)."""
        k = self.k
        if self._Cx is None:
            return np.zeros(k), ((np.zeros((k, k)), np.zeros((k, k))) if tangent else None)
        E, eta, _ = self._parts(q)
        vb = v[self.dofs]
        L = self._L(E, eta).reshape(3 * self.nV, k)
        h = self._Cx @ (L @ vb)
        f = L.T @ h
        if not tangent:
            return f, None
        Gq = self._L(vb[3:12].reshape(3, 3), vb[12:]) - self._L0   # ∂Ẋ/∂q at fixed q̇
        Kq = L.T @ (self._Cx @ Gq.reshape(3 * self.nV, k))
        self._bilinear(Kq, h.reshape(self.nV, 3)[4:])
        return f, (Kq, L.T @ (self._Cx @ L))

    def inertia_blocks(self, q, v, a, tangent=False):
        """The NumPy form of :meth:`inertia` by blocks (:meth:`_LtWR`): the compiled
        kernel's fallback (``fem.bodies.kernels.reduced_inertia``)."""
        E, eta, Ed, etad, Edd, etadd, h = self._rates(q, v, a)
        f = self._project(E, eta, h)
        if not tangent:
            return f, None
        self._A = A = self._frame_columns(eta)
        M = self._LtWR(E, A, E)
        Cq = self._LtWR(E, self._frame_columns(etad, 2.0, False), 2.0 * Ed)
        Kq = self._LtWR(E, self._frame_columns(etadd, 1.0, False), Edd)
        m = self.m                   # ∂L/∂q · h: the symmetric (e_a, η_k) blocks
        hm = h[4:].reshape(3, m, 3)                             # (a, k, i)
        B = hm.transpose(0, 2, 1).reshape(9, m)                 # row 3a + i
        Kq[3:12, 12:] += B
        Kq[12:, 3:12] += B.T
        return f, (M, Kq, Cq)

    def inertia_numpy(self, q, v, a, tangent=False):
        """The NumPy form of :meth:`inertia` (dense products with ``L``; the compiled
        kernel's reference and fallback)."""
        E, eta, Ed, etad, Edd, etadd, h = self._rates(q, v, a)
        pa, pk = self._pa, self._pk
        L = self._L(E, eta)
        f = np.einsum("pik,pi->k", L, h)
        if not tangent:
            return f, None
        M = self._LtWL(L, L)
        Gv = np.zeros_like(L)                          # ∂Ẍ/∂q̇
        Gq = np.zeros_like(L)                          # ∂Ẍ/∂q (at fixed q̇, q̈)
        for i in range(3):
            Gv[self._rows, i, self._ecol + i] = 2.0 * etad[pk]
            Gv[self._rows, i, self._ncol] = 2.0 * Ed[pa, i]
            Gq[self._rows, i, self._ecol + i] = etadd[pk]
            Gq[self._rows, i, self._ncol] = Edd[pa, i]
        Cq = self._LtWL(L, Gv)
        Kq = self._LtWL(L, Gq)
        self._bilinear(Kq, h[4:])
        return f, (M, Kq, Cq)

    def mass(self, q):
        E, eta, _ = self._parts(q)
        self._A = A = self._frame_columns(eta)
        return self._LtWR(E, A, E)

    def forces(self, q, gravity, tangent=False):
        E, eta, _ = self._parts(q)
        hg = self._load_vectors(gravity)
        f = -self._project(E, eta, hg)
        fe, Ke = self._elastic(eta, tangent)
        f[12:] += fe
        if not tangent:
            return f, None
        K = np.zeros((self.k, self.k))
        K[12:, 12:] = Ke
        # minus ∂(Lᵀ h_g)/∂q: the symmetric (e_a, η_k) blocks, h_g at row (a, k), column i
        B = hg[4:].reshape(3, self.m, 3).transpose(0, 2, 1).reshape(9, self.m)
        K[3:12, 12:] = -B
        K[12:, 3:12] = -B.T
        return f, K

    def _load_vectors(self, gravity) -> np.ndarray:
        """``h_g`` (n_V, 3): the weight ``W e_c gᵀ`` and the point loads ``Σ v Fᵀ``."""
        hg = np.outer(self.W[:, 0], np.asarray(gravity, float))
        if self.loads:              # dead loads on points: −Σ Jᵀ F, as the weight
            hg = hg + sum(np.outer(pm.v, F) for pm, F in self.loads)
        return hg

    def compiled_kernel(self, gravity):
        """:meth:`NonlinearBody.compiled_kernel`: ``W``, ``K_r``, ``f0``, ``h_g`` and the
        cubic modal force's pair tensors (:mod:`fem.bodies.kernels`); None with the FE
        model's own forces (:meth:`use_fe_forces`)."""
        from .kernels import KIND_REDUCED

        if getattr(self, "_fe", None) is not None:
            return None
        parts = [self.W, self.Kr, self.f0, self._load_vectors(gravity)]
        # index: the pairs, K3's form (-1 packed, r ≥ 0 the factor's rank), where C_X
        # starts in the data (-1: no FE damping)
        index, P = np.array([-1, -1], np.int64), 0
        if self._poly is not None:
            K2p, K3s, jj, kk, w = self._poly
            # and room for the last pair vectors (the kernels' cache, kernels.py)
            parts += [K2p, K3s, w, np.zeros(1 + self.m + 2 * jj.size)]
            form = -1 if K3s.ndim == 1 else K3s.shape[1]
            if form >= 0:               # K2 and G in single precision (kernels.py)
                parts[-4], parts[-3] = _packed_single(K2p), _packed_single(K3s)
            index, P = np.concatenate([jj, kk, [form, -1]]), int(jj.size)
        if self._Cx is not None:        # and room for its last force (kernels.py)
            index[-1] = sum(np.size(x) for x in parts)
            parts += [_packed_single(self._Cx), np.zeros(1 + 2 * self.k + 3 * self.nV)]
        return (KIND_REDUCED, self.m, self.dofs,
                np.concatenate([np.ravel(x) for x in parts]), index, P)

    def use_fe_forces(self, fe_model) -> None:
        """Elastic forces from the FE model itself, ``Ψᵀ f_FE(x_ref + Ψ η)`` with the
        tangent ``Ψᵀ K_FE Ψ`` (geometric stiffening — membrane stress in a plate, a
        spinning beam's centrifugal stiffening — included), instead of the linear
        ``K_r η``.  Costs one FE force evaluation per call."""
        red = self.reduction
        asm = fe_model.assemble()
        if asm.n != red.n_fe:
            raise ModelError(f"{self.name}: the FE model has {asm.n} coordinates, the "
                             f"reduction {red.n_fe}")
        Psi = np.zeros((red.n_fe, self.m))
        xref = np.zeros(red.n_fe)
        for j in range(3):
            Psi[red.slot_dofs + j] = red.modes[:, j, :]
            xref[red.slot_dofs + j] = red.Q[:, j] + red.c * red.origin[j]
        self._fe = (asm, Psi, xref)
        ReducedBody.changes += 1        # batches holding it check their bodies again

    def _elastic(self, eta, tangent):
        if getattr(self, "_fe", None) is None:
            if self._poly is None:
                return self.f0 + self.Kr @ eta, (self.Kr if tangent else None)
            B, C = self._poly_terms(eta)
            f = self.f0 + self.Kr @ eta + (0.5 * B + C / 3.0) @ eta
            return f, (self.Kr + B + self._quartic_tangent(eta, C) if tangent else None)
        asm, Psi, xref = self._fe
        f, kv = asm.internal_forces(xref + Psi @ eta, tangent=tangent)
        if not tangent:
            return Psi.T @ f, None
        K = asm.stiffness(kv)
        return Psi.T @ f, Psi.T @ (K @ Psi)

    def _poly_terms(self, eta):
        """``(K2·η, K3:ηη)`` (m, m) of the cubic modal force, from the pair tensors."""
        K2p, K3s, jj, kk, w = self._poly
        ee = eta[jj] * eta[kk] * w
        B = np.empty((self.m, self.m))
        C = np.empty((self.m, self.m))
        B[jj, kk] = B[kk, jj] = K2p @ eta
        C[jj, kk] = C[kk, jj] = (_dspmv(jj.size, 1.0, K3s, ee, lower=0) if K3s.ndim == 1
                                 else K3s @ (K3s.T @ ee))
        return B, C

    def _quartic_tangent(self, eta, C):
        """The tangent of the quartic part ``⅓ C η``: ``C`` for a whole ``K3`` (fully
        symmetric); for a compressed one (symmetric in its pairs only, ``G Gᵀ``)
        ``⅓ C + ⅔ H Hᵀ``, ``H[i, r] = Σ_k G[(i,k), r] η_k``."""
        K3s, jj, kk = self._poly[1], self._poly[2], self._poly[3]
        if K3s.ndim == 1:
            return C
        # H[j] += G[p] η_k over the pairs p = (j, k) in order, then H[k] += G[p] η_j over
        # those with j ≠ k: the additions np.add.at made (a pair at a time), each row's
        # in the same order from a table of its terms (padded with a zero term: x + 0 =
        # x), all rows at a time (hexagon_96: 3.2 → 0.8 ms, the same values to the bit)
        off = jj != kk
        X = np.concatenate([K3s * eta[kk, None], K3s[off] * eta[jj[off], None],
                            np.zeros((1, K3s.shape[1]))])
        terms = self._pair_terms()
        H = np.zeros((self.m, K3s.shape[1]))
        for c in terms.T:                           # every row's next term
            H += X[c]
        return C / 3.0 + (2.0 / 3.0) * (H @ H.T)

    def _pair_terms(self) -> np.ndarray:
        """(m, L): for row ``j`` of :meth:`_quartic_tangent`'s ``H``, the rows of its
        stacked terms (the pairs ``(j, k)`` in order, then the pairs ``(i, j)``, ``i ≠ j``,
        in order), padded with the zero term; made once."""
        terms = getattr(self, "_terms_of_rows", None)
        if terms is None:
            jj, kk = self._poly[2], self._poly[3]
            off = np.flatnonzero(jj != kk)
            rows = [[] for _ in range(self.m)]
            for p, j in enumerate(jj.tolist()):
                rows[j].append(p)
            for i, p in enumerate(off.tolist()):
                rows[int(kk[p])].append(jj.size + i)
            zero = jj.size + off.size
            width = max(len(r) for r in rows)
            terms = np.full((self.m, width), zero, np.int64)
            for j, r in enumerate(rows):
                terms[j, :len(r)] = r
            self._terms_of_rows = terms
        return terms

    def failure_notes(self, q: np.ndarray) -> list[str]:
        """:meth:`NonlinearBody.failure_notes`: with the quartic potential compressed
        (``cubic_tol``), whether its tangent is indefinite at ``q``.  The compression's
        error grows with the square of the deflection, and it softens the potential: far
        beyond the deflections it was made for, it loses the whole potential's convexity
        first (docs/reduced_bodies.md, "The compression at large deflections")."""
        if self._poly is None or self._poly[1].ndim != 2 or getattr(self, "_fe", None):
            return []
        eta = np.asarray(q, float)[self.modal_dofs]
        if not np.all(np.isfinite(eta)):
            return []
        Kt = self._elastic(eta, True)[1]
        w = np.sqrt(np.maximum(np.abs(np.diag(self.Kr)), 1e-300))
        low = float(np.linalg.eigvalsh(0.5 * (Kt + Kt.T) / np.outer(w, w))[0])
        if low >= 0.0:
            return []
        tol = self.reduction.info.get("cubic_tol")
        return [f"{self.name}: its quartic potential is compressed (cubic_tol "
                f"{tol if tol is not None else '?'}, rank {self._poly[1].shape[1]} of "
                f"{self._poly[1].shape[0]}) and its elastic tangent is indefinite at the "
                f"last converged state (smallest eigenvalue {low:.2g} of the modal "
                f"stiffness); unless the body buckles there, the compression does not hold "
                f"at these deflections (its error grows with their square): reduce it "
                f"with a smaller cubic_tol (0: the whole potential)"]

    def add_load(self, point: ReducedPoint, force: np.ndarray) -> None:
        """A constant force [N] on a point of this body (:meth:`fem.Model.add_force`)."""
        if not isinstance(point, ReducedPoint) or point.body is not self:
            raise ModelError(f"{self.name}: a load needs a point of this body")
        self.loads.append((point, np.asarray(force, float)))
        ReducedBody.changes += 1        # batches holding it form their load vectors again

    def energy(self, q, v, gravity):
        vb = v[self.dofs]
        eta = q[self.modal_dofs]
        X = self.X(q)
        pot = -float(np.asarray(gravity, float) @ (self.W[0] @ X))
        pot -= sum(float(F @ (pm.v @ X)) for pm, F in self.loads)
        elastic = float(self.f0 @ eta) + 0.5 * float(eta @ self.Kr @ eta)
        if self._poly is not None:      # ∫ f dη of the cubic force: ⅙ K2:ηηη + 1/12 K3:ηηηη
            B, C = self._poly_terms(eta)
            elastic += float(eta @ (B / 6.0 + C / 12.0) @ eta)
        return {"kinetic_J": 0.5 * float(vb @ self.mass(q) @ vb), "potential_J": pot,
                "elastic_J": elastic}

    # ------------------------------------------------------------ points for users
    @property
    def origin(self) -> LinearMap:
        """The frame origin: a linear map."""
        return self.frame.origin

    def axis(self, i: int) -> LinearMap:
        """Frame axis ``u`` (0), ``v`` (1) or ``w`` (2): a linear map."""
        return self.frame.axis(i)

    def interface(self, name: str) -> ReducedPoint:
        """A named interface point or vector of the reduction (a point map)."""
        inter = self.reduction.interfaces
        if name not in inter:
            raise ModelError(f"{self.name}: no interface {name!r}; the reduction has "
                             f"{sorted(inter)}")
        return ReducedPoint(self, self.reduction.V.T @ inter[name], f"{self.name} {name}")

    def map(self, lmap: LinearMap, label: str | None = None) -> ReducedPoint:
        """Any linear map of the reduced FE model (a point, an edge tangent) as a point
        map of this body."""
        return ReducedPoint(self, self.reduction.vector_of(lmap),
                            label or f"{self.name} {lmap.label}")

    def slots(self, q: np.ndarray) -> np.ndarray:
        """Every slot of the FE model at ``q`` (S, 3), global axes."""
        return self.reduction.V @ self.X(q)

    def fe_coordinates(self, q: np.ndarray) -> np.ndarray:
        """The FE model's coordinate vector at ``q`` (for drawing and stresses: modal
        superposition in the moving frame)."""
        out = np.zeros(self.reduction.n_fe)
        x = self.slots(q)
        for j in range(3):
            out[self.reduction.slot_dofs + j] = x[:, j]
        return out

    def fe_velocities(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The FE model's coordinate rates at ``(q, q̇)``: ``V Ẋ`` with
        ``Ẋ = [ṙ; u̇; v̇; ẇ; η̇_k e_a + η_k ė_a]``."""
        E, eta, _ = self._parts(q)
        vb = v[self.dofs]
        Ed, etad = vb[3:12].reshape(3, 3), vb[12:]
        Xd = np.empty((self.nV, 3))
        Xd[0] = vb[:3]
        Xd[1:4] = Ed
        Xd[4:] = etad[self._pk, None] * E[self._pa] + eta[self._pk, None] * Ed[self._pa]
        xd = self.reduction.V @ Xd
        out = np.zeros(self.reduction.n_fe)
        for j in range(3):
            out[self.reduction.slot_dofs + j] = xd[:, j]
        return out

    def rotation(self, q: np.ndarray) -> np.ndarray:
        return q[self.frame_dofs[3:]].reshape(3, 3).T


class ReducedPoint(PointMap):
    """``x = Xᵀ v``: a point (``v_c = 1``) or vector (``v_c = 0``) of a reduced body,
    ``x = v_c r + Σ_a (v_a + Y_a·η) e_a`` — its Jacobian in ``O(m)``, its second
    derivatives constant."""

    constant_hessian = True

    def __init__(self, body: ReducedBody, v: np.ndarray, label: str = "?"):
        self.body, self.v = body, np.asarray(v, float)
        self.dofs = body.dofs
        self.label = label
        m = body.m
        self._Y = self.v[4:].reshape(3, m)                 # Y_a, a = u, v, w
        H = np.zeros((3, body.k, body.k))
        vr = self.v[body._rows]
        for i in range(3):
            np.add.at(H[i], (body._ecol + i, body._ncol), vr)
            np.add.at(H[i], (body._ncol, body._ecol + i), vr)
        H.setflags(write=False)
        self._H = H

    def bilinear_form(self, component: int):
        """``x_d = v_c r_d + (u_d, v_d, w_d)·(v_(u,v,w) + Y η)``: the frame's row ``d`` dotted
        with the modal weights of the axes (see :meth:`PointMap.bilinear_form`)."""
        b = self.body
        lin = self.v[0] * b.origin if self.v[0] != 0.0 else None
        d = int(component)
        rows = LinearMap(b.frame_dofs[[3 + d, 6 + d, 9 + d]], np.eye(3),
                         label=f"{b.name} frame row {'xyz'[d]}")
        weights = LinearMap(b.modal_dofs, self._Y, self.v[1:4], label=f"{self.label} weights")
        return lin, [(rows, weights)]

    def evaluate(self, q, second=False):
        b = self.body
        E, eta, r = b._parts(q)
        s = self.v[1:4] + self._Y @ eta                     # weights of u, v, w
        x = self.v[0] * r + s @ E
        J = np.empty((3, b.k))
        J[:, :12] = (np.concatenate(([self.v[0]], s)) @ _BLOCKS).reshape(3, 12)
        J[:, 12:] = E.T @ self._Y
        return x, J, (self._H if second else None)

    def batch_key(self) -> int:
        """Points with the same key are evaluated together (:meth:`evaluate_batch`): the
        points of all reduced bodies."""
        return 0

    @staticmethod
    def evaluate_batch(points: list[ReducedPoint]):
        """An evaluator ``q -> (x (n, 3), J)`` of ``n`` points at once (what
        :meth:`evaluate` gives each; their ``H`` are constant): ``J`` (n, 3, k) when
        the points are of one body, else flat, every point's (3, k) after the other's.
        Points of bodies of fewer modes than the most are padded with zero weights.  On
        the compiled path the ``points`` kernel of :mod:`fem.bodies.reduced_kernels`
        evaluates them (:class:`_PointsBatch`)."""
        return _PointsBatch(points)


class _PointsBatch:
    """The evaluator of :meth:`ReducedPoint.evaluate_batch`: ``x = v_c r + s E``, ``s =
    v_(u,v,w) + Y η`` and ``J = [v_c I, s_u I, s_v I, s_w I, Eᵀ Y]`` of every point, in
    NumPy (:meth:`numpy`) or by the compiled ``points`` kernel (:meth:`compiled`)."""

    def __init__(self, points: list[ReducedPoint]):
        bodies = list({id(p.body): p.body for p in points}.values())
        where = {id(b): i for i, b in enumerate(bodies)}
        self.one = len(bodies) == 1
        self.body = bodies[0]
        self.bi = np.array([where[id(p.body)] for p in points], np.int64)
        self.ms = ms = np.array([b.m for b in bodies], np.int64)
        self.mm = mm = int(ms.max())
        self.n = n = len(points)
        self.mask = np.arange(mm)[None, :] < ms[:, None]                 # (B, m̄)
        self.modal = np.concatenate([b.modal_dofs for b in bodies]).astype(np.int64)
        self.modal_pad = np.zeros((len(bodies), mm), np.int64)          # (B, m̄)
        self.modal_pad[self.mask] = self.modal
        self.frames = np.stack([b.frame_dofs for b in bodies]).astype(np.int64)   # (B, 12)
        self.v0 = np.array([p.v[0] for p in points])
        self.S0 = np.array([p.v[1:4] for p in points])                   # (n, 3)
        self.Y = np.zeros((n, 3, mm))
        for j, p in enumerate(points):
            self.Y[j, :, :p.body.m] = p._Y
        # the entries of the padded (n, 3, 12 + m̄) Jacobians that are the points' own
        self.kp = 12 + ms[self.bi]
        self.take = (np.arange(12 + mm)[None, None, :]
                     < self.kp[:, None, None]).repeat(3, axis=1)
        self.nJ = int(3 * self.kp.sum())
        self._ones = np.ones(n)
        self._xid = np.arange(3 * n, dtype=np.int64)
        self._jid = np.arange(self.nJ, dtype=np.int64)

    def __call__(self, q: np.ndarray) -> tuple:
        kern = reduced_kernels()
        if kern is not None:
            return self.compiled(kern[1], q)
        return self.numpy(q)

    def compiled(self, points_kernel, q: np.ndarray) -> tuple:
        """``(x, J)`` from the ``points`` kernel (or its ``py_func``)."""
        x = np.zeros(3 * self.n)
        J = np.zeros(self.nJ)
        points_kernel(np.ascontiguousarray(q, dtype=float), self.frames, self.modal_pad,
                      self.ms, self.bi, self.v0, self.S0, self.Y, self._ones, self._xid,
                      self._jid, x, J)
        return x.reshape(self.n, 3), (J.reshape(self.n, 3, self.body.k) if self.one else J)

    def add_into(self, q: np.ndarray, coef: np.ndarray, xdest: np.ndarray,
                 jdest: np.ndarray, x: np.ndarray, J: np.ndarray,
                 points_kernel=None) -> bool:
        """On the compiled path (or given the ``points`` kernel), add the points' values
        and Jacobians (the entries of :meth:`__call__`'s, in its order) times their
        ``coef`` (n,) into ``x[xdest]`` and ``J[jdest]`` (as ``np.add.at``) and return
        True; on the NumPy path return False (the caller adds :meth:`__call__`'s)."""
        if points_kernel is None:
            kern = reduced_kernels()
            if kern is None:
                return False
            points_kernel = kern[1]
        points_kernel(np.ascontiguousarray(q, dtype=float), self.frames, self.modal_pad,
                      self.ms, self.bi, self.v0, self.S0, self.Y, coef, xdest, jdest, x, J)
        return True

    def numpy(self, q: np.ndarray) -> tuple:
        """``(x, J)`` in NumPy (the reference)."""
        n, mm = self.n, self.mm
        if self.one:
            b = self.body
            E, eta, r = b._parts(q)
            s = self.S0 + (self.Y.reshape(3 * n, mm) @ eta).reshape(n, 3)
            x = self.v0[:, None] * r + s @ E
            J = np.empty((n, 3, b.k))
            J[:, :, :12] = (np.column_stack([self.v0, s]) @ _BLOCKS).reshape(n, 3, 12)
            J[:, :, 12:] = np.matmul(E.T, self.Y)
            return x, J
        bi = self.bi
        qf = q[self.frames]
        E = qf[:, 3:12].reshape(-1, 3, 3)[bi]                   # (n, 3, 3)
        eta = np.zeros(self.mask.shape)
        eta[self.mask] = q[self.modal]
        s = self.S0 + (self.Y @ eta[bi, :, None])[:, :, 0]
        x = self.v0[:, None] * qf[bi, :3] + (s[:, None, :] @ E)[:, 0]
        J = np.empty((n, 3, 12 + mm))
        J[:, :, :12] = (np.column_stack([self.v0, s]) @ _BLOCKS).reshape(n, 3, 12)
        J[:, :, 12:] = np.matmul(E.transpose(0, 2, 1), self.Y)
        return x, J[self.take]
