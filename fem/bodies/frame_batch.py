"""Floating-frame bodies of one shape evaluated together.

A robot's flexible links are often several :class:`~fem.bodies.FloatingFrameBody` of the
same basis, the same number of functions and the same kinematics (the segments of a
link, the same link of every limb).  Evaluated one by one, each spends its time in the
overhead of a few hundred small NumPy calls (the arrays are tens of entries); a
:class:`FrameBatch` evaluates all of them in the same calls on arrays with a leading
body axis — the centre line at the quadrature points with its first and second
derivatives, the section directors, the inertia forces and their tangents, the elastic
forces and the weight — and hands every body its slice.  In a residual (no tangent) the
section directors' inertia forces come in closed form from constant invariants of the
twist functions (:meth:`FrameBatch._director_invariants`) instead of their points.  The
arithmetic is that of the single body's methods (:meth:`FloatingFrameBody._centre`,
:func:`~fem.bodies.base.inertia_from_points`,
:meth:`~fem.elements.floating_frame.FloatingFrameLink.elastic_forces`), equal to
rounding.

The bodies' own point arrays become views of the batch's, so a body evaluated alone
(its point masses, its tangents, the compiled kernels) and the batch write the same
memory and keep one cache.  :func:`batch_bodies` forms the batches (the assembly calls
it), on both kernel paths (the batch is faster than the bodies alone with their compiled
kernels, :meth:`FrameBatch.evaluates`); a body with point masses, or of a shape no other
body has, is evaluated alone.

On the compiled path (:func:`fem.core.jit.path`) the batch's residual and tangents —
centre line, tips and their second derivatives, elastic forces with the weight, inertia
forces, and their tangents — come from the kernels of :mod:`fem.bodies.frame_kernels`
(plain loops over bodies and points, the sparsity of ``J`` and ``H`` used), with caches
of their own (the NumPy forms' arrays and the bodies' line caches are left as they are);
the NumPy forms here are their reference and the NumPy path's.
"""

from __future__ import annotations

import numpy as np

from .floating_frame import AXIS_ROWS, FRAME_COLS, ORDER1, ORDER2, XYZ, FloatingFrameBody
from .frame_kernels import frame_kernels

__all__ = ["FrameBatch", "batch_bodies"]

_K12 = np.array([1.0, 2.0, 1.0])
_ONE_I = np.array([1.0, 1j])            # (v, w) -> v + i w


def _signature(b: FloatingFrameBody):
    """Bodies with the same signature have arrays of the same shapes."""
    lk = b.link
    smp = lk.quadrature_samples
    rule = None if smp.rule is None else smp.rule.W.shape
    bend = None if not lk.nonlinear_curvature else lk._bend[1].shape
    return (type(b), b.k, lk.na, lk.nb, lk.x.size, lk.kinematics, lk.coupling, rule, bend,
            b._rows, None if b._Xt is None else b._Xt.shape, b.rotary_inertia)


def batch_bodies(bodies: list) -> list[FrameBatch]:
    """Group the floating-frame bodies of ``bodies`` (without point masses) by shape into
    :class:`FrameBatch` es of two or more; returns them.  A body of no batch (or of a
    batch formed before) keeps evaluating alone."""
    groups: dict = {}
    for b in bodies:
        if type(b) is FloatingFrameBody:
            b._batch = None
            if not b.point_masses:
                groups.setdefault(_signature(b), []).append(b)
    return [FrameBatch(g) for g in groups.values() if len(g) > 1]


class FrameBatch:
    """Floating-frame bodies of one shape (see the module docstring).

    Parameters
    ----------
    bodies : list of FloatingFrameBody
        Bodies of equal :func:`_signature`, without point masses.
    """

    def __init__(self, bodies: list):
        self.bodies = list(bodies)
        b0 = bodies[0]
        self._link0 = b0.link
        lk0 = b0.link
        lks = [b.link for b in bodies]
        self.idx = np.stack([b.dofs for b in bodies])                      # (B, k)
        self.k, self.na, self.nb = b0.k, lk0.na, lk0.nb
        smps = [lk.quadrature_samples for lk in lks]
        self.P = lk0.x.size
        self.L1 = np.stack([s.L1 for s in smps])                            # (B, P, 3, ne)
        self.p0 = np.stack([s.p0 for s in smps])
        self.Hc = np.stack([s.H for s in smps])                             # (B, P, nb, nb)
        self.fourth = smps[0].rule is not None
        if self.fourth:
            self.D = np.stack([s.rule.D for s in smps])                     # (B, N, nb)
            self.DT = np.ascontiguousarray(self.D.transpose(0, 2, 1))      # (B, nb, N)
            self.DD = np.stack([s.rule.DD for s in smps])                   # (B, N, nb²)
            self.DDT = np.ascontiguousarray(self.DD.transpose(0, 2, 1))    # (B, nb², N)
            self.W = np.stack([s.rule.W for s in smps])                     # (B, P, N)
        self.curvature = lk0.nonlinear_curvature
        if self.curvature:
            self.wb = np.stack([lk._bend[0] for lk in lks])                 # (B, Pb)
            self.Bz = np.stack([lk._bend[1] for lk in lks])                 # (B, Pb, 4, ne)
            # the same rows ordered (v′, v″, w′, w″) × point: z = (field, order, point)
            Bb, Pb, _, ne = self.Bz.shape
            self.BzT = np.ascontiguousarray(self.Bz.transpose(0, 2, 1, 3)).reshape(Bb, 4 * Pb, ne)
            self.BtT = np.ascontiguousarray(self.BzT.transpose(0, 2, 1))      # (B, ne, 4 Pb)
            self.wbT = self.wb[:, None, None, :]
            self.ei = np.array([[lk.EI_z, lk.EI_y] for lk in lks])
            self.eiT = self.ei[:, :, None]                                 # (B, 2, 1)
        self.K = np.stack([lk.K for lk in lks])
        self.M_const = np.stack([b.M_const for b in bodies])
        self.has_M_const = bool(np.any(self.M_const))
        w = np.stack([b._w_all for b in bodies])                            # (B, Pall)
        self.w3 = np.repeat(w, 3, axis=1)                                   # (B, 3 Pall)
        self.w_line = np.stack([b.w_line for b in bodies])                  # (B, P)
        self.Xt = None if b0._Xt is None else np.stack([b._Xt for b in bodies])
        self.rows = b0._rows
        self.sl = lk0.slices
        # the bodies' point arrays become views of the batch's (their constant parts,
        # the directors' H, copied over first)
        self.J = np.stack([b._J_all for b in bodies])                       # (B, Pall, 3, k)
        self.H = np.stack([b._H_all for b in bodies])
        self.J[:, :self.P, XYZ, XYZ] = 1.0                                     # ∂r/∂r₀ = I
        for i, b in enumerate(bodies):
            b._J_all, b._H_all = self.J[i], self.H[i]
            b._batch, b._batch_index = self, i
        self._tip_extend()
        self._flat = self.idx.ravel()
        self._unique = np.unique(self._flat).size == self._flat.size
        P, k = self.P, self.k
        self.Jc = self.J[:, :P].reshape(len(bodies), 3 * P, k)            # views of J
        st = self.J.strides              # J[:, :P, c, 3 + 3j + c] (the p_j I blocks)
        self.Jd = np.lib.stride_tricks.as_strided(
            self.J[:, :, 0, 3:], shape=(len(bodies), P, 3, 3),
            strides=(st[0], st[1], st[2] + st[3], 3 * st[3]))
        nb = self.nb
        Q2 = np.zeros((len(bodies), P + 1, 2 * nb, 2 * nb))            # Q of both fields
        Q2[:, :, :nb, :nb] = Q2[:, :, nb:, nb:] = self.Hcx
        self.Hc2 = Q2.reshape(len(bodies), (P + 1) * 2 * nb, 2 * nb)
        self._band = slice(12 + self.na, 12 + self.na + 2 * nb)
        self._bodies_cached = True
        if not np.shares_memory(self.Jc, self.J):
            raise AssertionError("the centre line's J is not a view of the points' J")
        self.w3c = self.w3[:, :3 * P]
        if self.Xt is not None:
            self._director_invariants(w)
        self._tips = None               # the last tips: (coordinates, values)
        self._tip_state = None          # what tips leaves for tips_second
        self._tips_second = None
        self._tips_compact = None
        self._q = None                  # the coordinates of the lines in J
        self._qkey = None               # their bytes
        self._qH = None                 # the same when H holds them too
        self._state = None              # what _first leaves for _second and _quadratic
        self._inertia_key = None
        self._inertia = None
        self._forces_key = None
        self._forces = None
        self._wg = None                 # (gravity, w g) of the weight
        self._kd = None                 # the compiled residual's arrays (_kernel_data)
        self._ckey = None               # the coordinates' bytes of its last line
        self._cqB = None                # the bodies' coordinates there (B, k)
        self._cg = None                 # the gravity of its last forces
        self._cout = None               # its last (forces, tip r, J, d, J_d)
        self._ccompact = None           # (its key, the tips' second derivatives compact)

    def evaluates(self) -> bool:
        """Whether the batch evaluates its bodies: always, on both kernel paths.  The
        bodies alone with the compiled fourth-order and bending kernels cost twice the
        batch on the compiled path (the 3-RRRU robot's floating-frame links, 2 segments
        × 4 functions: 2.7–3.1 against 1.3–1.55 CPU s for 0.5 s of motion), so the batch
        is the faster form on both.  On the compiled path its residual and tangents come
        from the kernels of :mod:`fem.bodies.frame_kernels` (:meth:`_compiled_line`,
        :meth:`_compiled_inertia`, :meth:`_compiled_elastic_tangent`,
        :meth:`tips_second_compact`), equal to the NumPy forms to round-off."""
        return True

    # ------------------------------------------------------------ the compiled residual
    def _kernel_data(self) -> dict:
        """The constant arrays and work buffers of :func:`~fem.bodies.frame_kernels.
        frame_kernels` (C-contiguous float64, the empty parts zero-sized: one compiled
        signature for every batch)."""
        if self._kd is None:
            B, P, k, nb = len(self.bodies), self.P, self.k, self.nb
            ne = k - 12
            c = np.ascontiguousarray
            N = self.DT.shape[2] if self.fourth else 0
            kd = dict(
                L1x=c(self.L1x), p0x=c(self.p0x), Hcx=c(self.Hcx),
                DT=c(self.DT) if self.fourth else np.zeros((B, nb, 0)),
                Wx=c(self.Wx) if self.fourth else np.zeros((B, P + 1, 0)),
                K=c(self.K, dtype=float),
                wb=c(self.wb) if self.curvature else np.zeros((B, 0)),
                Bz=c(self.Bz) if self.curvature else np.zeros((B, 0, 4, ne)),
                ei=c(self.ei, dtype=float) if self.curvature else np.zeros((B, 2)),
                w_line=c(self.w_line, dtype=float), A=c(self.A_tip),
                R=np.zeros((B, 3, 3)), pp=np.zeros((B, P + 1, 3)),
                Pe=np.zeros((B, P + 1, 3, ne)), ac=np.zeros((B, 3, N)),
                M_const=c(self.M_const) if self.has_M_const else np.zeros((0, k, k)))
            if self.Xt is not None:
                kd.update(m_dir=c(self.m_dir, dtype=float), s_dir=c(self.s_dir, dtype=float),
                          S_dir=c(self.S_dir, dtype=float), t0=int(self._tc.start))
            else:
                kd.update(m_dir=-np.ones(B), s_dir=np.zeros((B, 0)), S_dir=np.zeros((B, 0, 0)),
                          t0=12)
            self._kd = kd
        return self._kd

    def _compiled_line(self, kern, q: np.ndarray, gravity=None) -> tuple:
        """The compiled ``line_forces`` at the global coordinates ``q``, kept for their
        bytes and the gravity (None: any gravity, the last one or none, when only the
        line or the tips are asked for): ``(f, r, J, d, J_d)``; the bodies' coordinates
        it was evaluated at in ``_cqB`` (B, k)."""
        key = q.tobytes()            # the whole vector: no gather when the line is kept
        if key == self._ckey and (gravity is None or self._cg == tuple(gravity)):
            return self._cout
        if gravity is None:
            gravity = self._cg if self._cg is not None else (0.0, 0.0, 0.0)
        kd = self._kernel_data()
        qB = q[self.idx]
        self._cout = kern[0](qB, np.asarray(gravity, dtype=float), kd["L1x"], kd["p0x"],
                             kd["Hcx"], kd["DT"], kd["Wx"], kd["K"], kd["wb"], kd["Bz"],
                             kd["ei"], kd["w_line"], kd["A"], self.na, self.nb, kd["R"],
                             kd["pp"], kd["Pe"], kd["ac"])
        self._ckey, self._cqB = key, qB
        self._cg = tuple(float(x) for x in gravity)
        return self._cout

    def _compiled_inertia(self, kern, q, vB, aB, tangent: bool = False) -> tuple:
        """The compiled ``inertia`` (or with ``tangent`` ``inertia_tangent``) at ``(q,
        vB, aB)`` (global, (B, k), (B, k)): ``(f, None)`` or ``(f, (M, ∂f/∂q, ∂f/∂q̇))``
        as :meth:`_inertia_forces`."""
        self._compiled_line(kern, q)
        kd = self._kd
        out = kern[3 if tangent else 1](
            self._cqB, vB, aB, kd["R"], kd["pp"], kd["Pe"], kd["ac"], kd["Hcx"], kd["DT"],
            kd["Wx"], kd["w_line"], self.na, self.nb, kd["m_dir"], kd["s_dir"], kd["S_dir"],
            kd["t0"], kd["M_const"])
        return (out[0], out[1:]) if tangent else (out, None)

    def _compiled_elastic_tangent(self, kern, q) -> np.ndarray:
        """The compiled ``elastic_tangent`` at the global ``q`` with the gravity of the
        last :meth:`_compiled_line` (B, k, k): ``K`` with the bending Hessian and the
        weight's."""
        self._compiled_line(kern, q)
        kd = self._kd
        return kern[2](self._cqB, np.asarray(self._cg, dtype=float), kd["R"], kd["pp"],
                       kd["Pe"], kd["ac"], kd["Hcx"], kd["DT"], kd["Wx"], kd["K"], kd["wb"],
                       kd["Bz"], kd["ei"], kd["w_line"], self.na, self.nb)

    def add_into(self, f: np.ndarray, F: np.ndarray) -> None:
        """Add the bodies' forces ``F`` (B, k) into the global ``f``."""
        if self._unique:             # no coordinate shared by two bodies
            f[self._flat] += F.ravel()
        else:
            np.add.at(f, self._flat, F.ravel())

    def _director_invariants(self, w: np.ndarray) -> None:
        """The section directors' inertia invariants (constant): with the weights
        ``μ_p = ½ρI_p w_p`` of the director points (equal for ``d_y`` and ``d_z``) and
        the twist functions ``X_p``::

            m_d = Σ_p μ_p,   s = Σ_p μ_p X_p,   S = Σ_p μ_p X_p X_pᵀ

        (B,), (B, nt), (B, nt, nt): what :meth:`_director_forces` needs instead of the
        director points."""
        o, Pd = self.rows[1], self.Xt.shape[1]
        wy, wz = w[:, o:o + Pd], w[:, o + Pd:]
        if not np.array_equal(wy, wz) or self.rows[2] != o + 2 * Pd:
            raise AssertionError("the directors d_y, d_z have unequal weights")
        Xt = self.Xt
        self.m_dir = wy.sum(axis=1)
        self.s_dir = (wy[:, None, :] @ Xt)[:, 0]
        self.S_dir = Xt.transpose(0, 2, 1) @ (wy[:, :, None] * Xt)
        self._is_dir = 1j * self.s_dir
        t = self.sl["torsion"]
        self._tc = slice(12 + t.start, 12 + t.stop)

    @staticmethod
    def body_terms(F: np.ndarray, T, i: int) -> tuple:
        """Body ``i``'s force and tangent (or None) from what :meth:`inertia_all` or
        :meth:`forces_all` returned (``T`` (B, k, k) or a tuple of them)."""
        if T is None:
            return F[i], None
        return F[i], (tuple(x[i] for x in T) if isinstance(T, tuple) else T[i])

    # ------------------------------------------------------------ kinematics
    def line(self, q: np.ndarray, second: bool = False) -> np.ndarray:
        """The centre lines at the quadrature points at ``q``: ``r`` and ``J`` into the
        first rows of the point arrays and, with ``second``, ``H`` too and every body's
        line cache set (a Newton iteration's residual needs no ``H``: the
        quadratic-velocity forces come from :meth:`_quadratic`); returns the bodies'
        coordinates (B, k)."""
        qB = q[self.idx]
        key = qB.tobytes()           # the same bytes: the same line (cheaper than equal)
        if key != self._qkey:
            self._first(qB)
            self._qkey = key
        if second and self._qH is None:
            self._second()
        return self._q

    def _first(self, qB: np.ndarray) -> None:
        """``J`` of the centre lines (and what :meth:`_second`, :meth:`_quadratic` and
        :meth:`tips` take from them: ``R``, ``p``, ``P_e``, the running rule's values)."""
        B, P, na, nb = len(self.bodies), self.P, self.na, self.nb
        P1 = P + 1
        e = qB[:, 12:]
        R = qB[:, 3:12].reshape(B, 3, 3).transpose(0, 2, 1)
        eb = qB[:, self._band]                                # the y and z fields (B, 2nb)
        # the paper's part: p = p0 + L1 e − ½ x̂ eᵀQe, P_e = L1 − x̂ (Q e)ᵀ
        # the quadrature points and the tip (row P); ``corr`` holds what comes off
        # p_x (column 0) and off ∂p_x/∂e_band (the rest); Q e of both fields in one
        # product with the block-diagonal Q (Hc2)
        corr = np.empty((B, P1, 1 + 2 * nb))
        Qe = (self.Hc2 @ eb[:, :, None]).reshape(B, P1, 2 * nb)
        corr[:, :, 1:] = Qe
        corr[:, :, 0] = 0.5 * (Qe @ eb[:, :, None])[:, :, 0]
        p = self.p0x + (self.L1x.reshape(B, 3 * P1, -1) @ e[:, :, None]).reshape(B, P1, 3)
        rule = None
        if self.fourth:
            # u_x −= ⅛ ∫₀ˣ s² dξ (RunningRule.terms, its blocks left to _second)
            # (the rule points last: the elementwise work on rows of N contiguous
            # numbers, not on N rows of two)
            DT = self.DT
            ac = eb.reshape(B, 2, nb) @ DT                                 # (B, 2, N)
            a, c = ac[:, 0], ac[:, 1]
            s = a * a + c * c
            N = s.shape[1]
            F = np.empty((B, 1 + 2 * nb, N))
            F[:, 0] = 0.125 * s * s
            F[:, 1:] = (((0.5 * s)[:, None, :] * ac)[:, :, None, :]
                        * DT[:, None, :, :]).reshape(B, 2 * nb, N)
            corr += self.Wx @ F.transpose(0, 2, 1)
            rule = (a, c, s)
        p[:, :, 0] -= corr[:, :, 0]
        Pe = self.L1x.copy()
        Pe[:, :, 0, na:na + 2 * nb] -= corr[:, :, 1:]
        self._tip_first = (p[:, P], Pe[:, P])
        p, Pe = p[:, :P], Pe[:, :P]
        # J (FloatingFrameBody._position_jacobian): ∂r/∂R_j = p_j I on the strided
        # diagonal view, ∂r/∂e = R P_e (∂r/∂r₀ = I is constant)
        self.Jd[...] = p[:, :, None, :]
        np.matmul(R[:, None], Pe, out=self.J[:, :P, :, 12:])
        self._q, self._qH = qB, None
        self._state = (R, p, Pe, rule)
        if self._bodies_cached:        # their rows of H are not those of qB (yet)
            for b in self.bodies:
                b._line_q = None
            self._bodies_cached = False

    def _second(self) -> None:
        """``H`` of the centre lines at the coordinates of :meth:`_first`, and every body's
        line cache."""
        R, p, Pe, rule = self._state
        B, P, na, nb = len(self.bodies), self.P, self.na, self.nb
        Hc = self.Hc
        Qb = np.zeros((B, P, 2 * nb, 2 * nb))
        if rule is not None:
            a, c, s = rule
            N = a.shape[1]
            wq = np.empty((B, 3, 1, N))              # (the rule points last)
            wq[:, 0, 0] = 0.5 * (s + 2 * a * a)
            wq[:, 1, 0] = a * c
            wq[:, 2, 0] = 0.5 * (s + 2 * c * c)
            blocks = self.W @ (wq * self.DDT[:, None]).reshape(B, -1, N).transpose(0, 2, 1)
            blocks = blocks.reshape(B, P, 3, nb, nb)
            Qb[:, :, :nb, :nb] = blocks[:, :, 0]
            Qb[:, :, :nb, nb:] = blocks[:, :, 1]
            Qb[:, :, nb:, :nb] = blocks[:, :, 1].swapaxes(-1, -2)
            Qb[:, :, nb:, nb:] = blocks[:, :, 2]
        Qb[:, :, :nb, :nb] += Hc
        Qb[:, :, nb:, nb:] += Hc
        H = self.H[:, :P]
        Hb = H[..., 3:12, 12:]
        Hb[:, :, XYZ, AXIS_ROWS] = Pe[:, :, None]
        # the other half where it is nonzero (the rest of the block is zero: nothing
        # else is written there)
        H[..., 12:, 3:12].swapaxes(-1, -2)[:, :, XYZ, AXIS_ROWS] = Pe[:, :, None]
        bs = slice(12 + na, 12 + na + 2 * nb)
        np.multiply(-R[:, None, :, 0, None, None], Qb[:, :, None], out=H[..., bs, bs])
        self._qH = self._q
        r = self._q[:, None, :3] + p @ R.transpose(0, 2, 1)             # r = r₀ + R p
        for i, b in enumerate(self.bodies):
            b._line_cache = (r[i], b._J_all[:P], b._H_all[:P])
            b._line_q = self._q[i]
        self._bodies_cached = True

    def _quadratic(self, vB: np.ndarray) -> np.ndarray:
        """``q̇ᵀH q̇`` (B, P, 3) of the centre line's points at the coordinates of
        :meth:`_first` without ``H``: ``2 Ṙ ṗ − R x̂ (ėᵀQ ė)`` (``ṗ = P_e ė``, ``Q`` the
        coupling with the fourth-order blocks from the running rule)."""
        R, _, Pe, rule = self._state
        B, P, nb, na = len(self.bodies), self.P, self.nb, self.na
        ve = vB[:, 12:]
        Rd = vB[:, 3:12].reshape(B, 3, 3)                  # (Ṙᵀ)[j, c] = q̇ of axis j, c
        pdot = (Pe.reshape(B, 3 * P, -1) @ ve[:, :, None]).reshape(B, P, 3)
        vb = ve[:, na:na + 2 * nb].reshape(B, 2, nb).transpose(0, 2, 1)     # (B, nb, 2)
        Hv = (self.Hc.reshape(B, P * nb, nb) @ vb).reshape(B, P, nb * 2)
        sQ = (Hv @ vb.reshape(B, nb * 2, 1))[:, :, 0]                      # ėᵀ H ė, both
        if rule is not None:
            a, c, s = rule
            avc = vb.transpose(0, 2, 1) @ self.DT                           # (B, 2, N)
            av, cv = avc[:, 0], avc[:, 1]
            # [av cv] [[½(s + 2a²), ac], [ac, ½(s + 2c²)]] [av cv]ᵀ
            t = a * av + c * cv
            g = 0.5 * s * (av * av + cv * cv) + t * t
            sQ += (self.W @ g[:, :, None])[:, :, 0]
        return 2.0 * (pdot @ Rd) - R[:, None, :, 0] * sQ[:, :, None]

    def _director_forces(self, qB, vB, aB, f) -> None:
        """Add the section directors' inertia forces ``Σ_p μ_p J_pᵀ (J_p q̈ + q̇ᵀH_p q̇)``
        of ``d_y = v + φw``, ``d_z = w − φv`` (``φ_p = X_p·e_t``) into ``f`` (B, k), in
        closed form from the invariants ``m_d, s, S`` (:meth:`_director_invariants`).

        With ``d̈_y = v̈ + φẅ + φ̈w + 2φ̇ẇ`` and ``d̈_z = ẅ − φv̈ − φ̈v − 2φ̇v̇`` the sums
        over the points reduce to ``σ_x = s·x`` and ``κ_x = eᵀS x`` for ``x = e, ë, ė``
        (the terms ``±σ_e`` of the two directors cancel).  In the complex form
        ``z = v + i w``, ``χ_x = κ_x − i σ_x = x·(S e − i s)``::

            f_v + i f_w = (m_d + κ_e) z̈ + χ_ë z + 2 χ_ė ż
            f_e = Re(z̈·z̄) S e − Im(z̈·z̄) s + |z|² S ë + 2 Re(ż·z̄) S ė

        (``z̈·z̄ = v·v̈ + w·ẅ + i (v·ẅ − w·v̈)``): a few products on (B, 3) arrays instead
        of 2 × 6 director points per body."""
        B = f.shape[0]
        tc = self._tc
        E = np.concatenate((aB[:, tc], vB[:, tc], qB[:, tc]), axis=1).reshape(B, 3, -1)
        SE = E @ self.S_dir                                     # S ë, S ė, S e
        chi = (E @ (SE[:, 2] - self._is_dir)[:, :, None])[:, :, 0] * _K12   # χ_ë, 2χ_ė, χ_e
        chi[:, 2] = self.m_dir + chi[:, 2].real
        Y = np.concatenate((qB[:, 6:12], vB[:, 6:12], aB[:, 6:12]), axis=1).reshape(B, 3, 2, 3)
        Z = Y.transpose(0, 1, 3, 2) @ _ONE_I                    # z, ż, z̈ (B, 3, 3)
        fz = (chi[:, None, :] @ Z)[:, 0]
        f[:, 6:9] += fz.real
        f[:, 9:12] += fz.imag
        G = (Z @ Z[:, 0].conj()[:, :, None])[:, :, 0] * _K12    # |z|², 2 ż·z̄, z̈·z̄
        f[:, tc] += (G.real[:, None, :] @ SE)[:, 0] - G[:, 2:].imag * self.s_dir

    def _directors(self, qB: np.ndarray) -> None:
        """The section directors' ``J`` of every body (their ``H`` is constant)."""
        Xt = self.Xt
        Pd = Xt.shape[1]
        t = self.sl["torsion"]
        phi = (Xt @ qB[:, 12 + t.start:12 + t.stop, None])[:, :, 0]          # (B, Pd)
        o = self.rows[1]
        J = self.J
        tc = slice(12 + t.start, 12 + t.stop)
        J[:, o:o + Pd, XYZ, 9 + XYZ] = phi[:, :, None, None]
        J[:, o + Pd:, XYZ, 6 + XYZ] = -phi[:, :, None, None]
        np.multiply(qB[:, None, 9:12, None], Xt[:, :, None, :], out=J[:, o:o + Pd, :, tc])
        np.multiply(-qB[:, None, 6:9, None], Xt[:, :, None, :], out=J[:, o + Pd:, :, tc])

    # ------------------------------------------------------------ the tips
    def _tip_extend(self) -> None:
        """The line's samples with every body's tip ``x = L`` as one more point (its
        running rule: the whole pieces, already among the line's rule points), so that
        :meth:`_first` gives the tips' centre line too; and the angle matrices ``A``
        (B, 3, ne) of the tip sections (:class:`SectionDirection`)."""
        smps = [b.link.sample([b.link.length]) for b in self.bodies]
        B, ne = len(self.bodies), self.K.shape[1]
        A = np.zeros((B, 3, ne))
        sl = self.sl
        for i, b in enumerate(self.bodies):
            lk = b.link
            xs = np.array([lk.length])
            X, _ = lk.basis.axial(xs)
            _, dY, _ = lk.basis.bending(xs)
            A[i, 0, sl["y"]] = dY[0]
            A[i, 1, sl["z"]] = -dY[0]
            A[i, 2, sl["torsion"]] = X[0]
        self.A_tip = A
        ne = A.shape[2]
        self._AA_tip = (A[:, :, None, :, None] * A[:, None, :, None, :]).reshape(B, 9, ne * ne)
        self.L1x = np.concatenate([self.L1, np.stack([s.L1 for s in smps])], axis=1)
        self.p0x = np.concatenate([self.p0, np.stack([s.p0 for s in smps])], axis=1)
        self.Hcx = np.concatenate([self.Hc, np.stack([s.H for s in smps])], axis=1)
        if self.fourth:
            N = self.W.shape[2]
            w = np.zeros((B, 1, N))
            for i, (b, smp) in enumerate(zip(self.bodies, smps, strict=True)):
                KG = b.link._pieces[1].size           # the whole pieces' rule points
                if not np.array_equal(smp.rule.D[:KG], self.D[i, :KG]) or \
                        np.any(smp.rule.W[0, KG:]):
                    raise AssertionError("a tip's running rule is not the whole pieces'")
                w[i, 0, :KG] = smp.rule.W[0, :KG]
            self.Wx = np.concatenate([self.W, w], axis=1)
            # the tips' second derivatives: their weights over the rule points
            self.W_tip = w[:, 0]

    def tips(self, q: np.ndarray) -> tuple:
        """Every body's tip at ``q`` without second derivatives: the centre-line point
        ``r`` (B, 3) with ``J`` (B, 3, k), and the three axes of the tip section
        (:meth:`FloatingFrameBody.direction`) ``d`` (B, 3 axes, 3) with ``J`` (B, 3 axes,
        3, k): :class:`LinkPoint` and :class:`SectionDirection` at ``x = L`` of all the
        bodies in one pass, kept for the last coordinates (on the compiled path from
        :meth:`_compiled_line`)."""
        kern = frame_kernels()
        if kern is not None:
            return self._compiled_line(kern, q)[1:]
        return self._tips_numpy(q)

    def _tips_numpy(self, q: np.ndarray) -> tuple:
        """The NumPy form of :meth:`tips` (it also leaves what :meth:`tips_second`
        takes)."""
        qB = q[self.idx]
        key = qB.tobytes()
        if self._tips is not None and self._tips[0] == key:
            return self._tips[1]
        self.line(q)
        A = self.A_tip
        B, k = len(self.bodies), self.k
        e = qB[:, 12:]
        R = self._state[0]
        p, Pe = self._tip_first                 # the tips' centre line, from _first
        vals = self._state[3]
        r = qB[:, :3] + (R @ p[:, :, None])[:, :, 0]
        J = np.zeros((B, 3, k))
        J[:, XYZ, FRAME_COLS] = p[:, None, :]
        J[:, XYZ, XYZ] = 1.0
        J[:, :, 12:] = R @ Pe
        # the section's axes: T(α) R_z R_y R_x, α = A e (SectionDirection)
        alpha = (A @ e[:, :, None])[:, :, 0]                                # (B, 3)
        T, dT = _section_rotations(alpha)                                   # (B,3,3), (B,3,3,3)
        G = dT.transpose(0, 3, 2, 1) @ A[:, None]                           # (B, axis, 3, ne)
        Js = np.zeros((B, 3, 3, k))
        Js[:, :, XYZ, FRAME_COLS] = T.transpose(0, 2, 1)[:, :, None, :]
        Js[..., 12:] = R[:, None] @ G
        d = (R @ T).transpose(0, 2, 1)                                      # (B, axis, 3)
        out = (r, J, d, Js)
        self._tips = (key, out)
        self._tip_state = (R, Pe, vals, alpha, G)
        self._tips_second = None
        self._tips_compact = None
        return out

    def _tip_second_parts(self) -> tuple:
        """The blocks of the tips' second derivatives at the coordinates of the last
        :meth:`tips` (everything else in them is zero): the points' ``∂²r/∂R_j∂e = I ⊗
        P_e,j`` from ``P_e`` (B, 3 j, ne) and ``−R x̂ ⊗ Q`` on the bending coordinates
        (B, 3, 2nb, 2nb); the section axes' ``∂²t/∂R_j∂e = I ⊗ ∂t_j/∂e`` from ``G``
        (B, 3 axes, 3 j, ne) and ``∂²t/∂e² = R Σ ∂²T/∂α_i∂α_j A_i A_j`` (B, 3 axes, 3,
        ne, ne)."""
        Ht, A = self.Hcx[:, self.P], self.A_tip
        R, Pe, vals, alpha, G = self._tip_state
        B, nb = len(self.bodies), self.nb
        Qb = np.zeros((B, 2 * nb, 2 * nb))
        if vals is not None:
            W, DD = self.W_tip, self.DD
            a, c, s = vals
            wq = np.stack([0.5 * (s + 2 * a * a), a * c, 0.5 * (s + 2 * c * c)], axis=1)
            blocks = ((W[:, None, :] * wq) @ DD).reshape(B, 3, nb, nb)
            Qb[:, :nb, :nb] = blocks[:, 0]
            Qb[:, :nb, nb:] = blocks[:, 1]
            Qb[:, nb:, :nb] = blocks[:, 1].swapaxes(-1, -2)
            Qb[:, nb:, nb:] = blocks[:, 2]
        Qb[:, :nb, :nb] += Ht
        Qb[:, nb:, nb:] += Ht
        Hband = -R[:, :, 0, None, None] * Qb[:, None]
        _, _, ddT = _section_rotations(alpha, True)
        # R ∂²T/∂α_i∂α_j (B, i, j, c, a) against A_i ⊗ A_j (B, ij, mn): one product
        ne = A.shape[2]
        RT = (R[:, None, None] @ ddT).reshape(B, 9, 9).transpose(0, 2, 1)
        Hee = (RT @ self._AA_tip).reshape(B, 3, 3, ne, ne).transpose(0, 2, 1, 3, 4)
        return Pe, Hband, G, Hee

    def tips_second(self, q: np.ndarray) -> tuple:
        """The second derivatives of :meth:`tips`: ``H`` (B, 3, k, k) of the tip points
        and (B, 3 axes, 3, k, k) of the tip sections' axes (as
        :meth:`LinkPoint.evaluate` and :meth:`SectionDirection.evaluate` give them),
        kept for the last coordinates.  On the compiled path formed from
        :meth:`tips_second_compact` (the same numbers)."""
        B, k, na, nb = len(self.bodies), self.k, self.na, self.nb
        if frame_kernels() is not None:
            flat = self.tips_second_compact(q)
            if self._tips_second is not None and self._tips_second[0] is flat:
                return self._tips_second[1]
            ne, nq = k - 12, 2 * nb
            shapes = [(B, 3, ne), (B, 3, nq, nq), (B, 3, 3, ne), (B, 3, 3, ne, ne)]
            cuts = np.cumsum([np.prod(sh) for sh in shapes])[:-1]
            Pe, Hband, G, Hee = (x.reshape(sh) for x, sh in
                                 zip(np.split(flat, cuts), shapes, strict=True))
        else:
            self._tips_numpy(q)
            if self._tips_second is not None:
                return self._tips_second[1]
            flat = None
            Pe, Hband, G, Hee = self._tip_second_parts()
        Hp = np.zeros((B, 3, k, k))
        Hb = Hp[:, :, 3:12, 12:]
        Hb[:, XYZ, AXIS_ROWS] = Pe[:, None]
        Hp[:, :, 12:, 3:12] = Hb.swapaxes(-1, -2)
        bs = slice(12 + na, 12 + na + 2 * nb)
        Hp[:, :, bs, bs] = Hband
        Hs = np.zeros((B, 3, 3, k, k))
        Hsb = Hs[..., 3:12, 12:]
        Hsb[:, :, XYZ, AXIS_ROWS] = G[:, :, None]
        Hs[..., 12:, 3:12] = Hsb.swapaxes(-1, -2)
        Hs[..., 12:, 12:] = Hee
        self._tips_second = (flat, (Hp, Hs))
        return self._tips_second[1]

    def tips_second_compact(self, q: np.ndarray) -> np.ndarray:
        """:meth:`tips_second` without its zeros: the blocks of
        :meth:`_tip_second_parts` in one flat array; where each entry of a tip map's
        ``H`` is found in it: :meth:`tip_second_index`.  Kept for the last coordinates
        (on the compiled path from ``tip_second`` of :mod:`fem.bodies.frame_kernels`)."""
        kern = frame_kernels()
        if kern is not None:
            self._compiled_line(kern, q)
            if self._ccompact is None or self._ccompact[0] != self._ckey:
                kd = self._kd
                self._ccompact = (self._ckey, kern[4](self._cqB, kd["R"], kd["Pe"], kd["ac"],
                                                      kd["Hcx"], kd["DT"], kd["Wx"], kd["A"],
                                                      self.na, self.nb))
            return self._ccompact[1]
        self._tips_numpy(q)
        if self._tips_compact is None:
            self._tips_compact = np.concatenate([x.ravel()
                                                 for x in self._tip_second_parts()])
        return self._tips_compact

    def tip_second_index(self, i: int, kind: int, axis: int = 0) -> np.ndarray:
        """Where every entry of body ``i``'s tip point (``kind`` 0) or tip section axis
        ``axis`` (``kind`` 1) second derivatives ``H`` (3, k, k) is found in
        :meth:`tips_second_compact`: an index array of that shape, −1 where ``H`` is zero
        at every state."""
        B, k, na, nb = len(self.bodies), self.k, self.na, self.nb
        ne, nq = k - 12, 2 * nb
        sizes = [B * 3 * ne, B * 3 * nq * nq, B * 9 * ne, B * 9 * ne * ne]   # the parts
        base = np.concatenate([[0], np.cumsum(sizes)])
        idx = np.full((3, k, k), -1, np.int64)
        c, j, m = np.meshgrid(np.arange(3), np.arange(3), np.arange(ne), indexing="ij")
        rows, cols = 3 + 3 * j + c, 12 + m                  # ∂²/∂R_j∂e of component c
        if kind == 0:
            src = base[0] + (i * 3 + j) * ne + m
            idx[c, rows, cols] = idx[c, cols, rows] = src
            c2, a, b = np.meshgrid(np.arange(3), np.arange(nq), np.arange(nq), indexing="ij")
            idx[c2, 12 + na + a, 12 + na + b] = base[1] + ((i * 3 + c2) * nq + a) * nq + b
            return idx
        src = base[2] + ((i * 3 + axis) * 3 + j) * ne + m
        idx[c, rows, cols] = idx[c, cols, rows] = src
        on = np.flatnonzero(np.any(self.A_tip[i] != 0.0, axis=0))   # the angles' columns
        c2, a, b = np.meshgrid(np.arange(3), on, on, indexing="ij")
        idx[c2, 12 + a, 12 + b] = base[3] + (((i * 3 + axis) * 3 + c2) * ne + a) * ne + b
        return idx

    # ------------------------------------------------------------ the contract part
    def inertia_all(self, q: np.ndarray, v: np.ndarray, a: np.ndarray, tangent: bool,
                    into: np.ndarray | None = None) -> tuple:
        """Every body's :meth:`FloatingFrameBody.inertia` (B leading): ``f`` (B, k) and,
        with ``tangent``, ``(M, ∂/∂q, ∂/∂q̇)`` (B, k, k) each (else None); ``into`` is
        not used (the caller adds ``f``, :meth:`add_into`)."""
        idx = self.idx
        vB, aB = v[idx], a[idx]
        kern = frame_kernels()
        if kern is not None:
            self._inertia = self._compiled_inertia(kern, q, vB, aB, tangent)
            qB = self._cqB
        else:
            qB = self.line(q, tangent)
            if tangent and self.Xt is not None:
                self._directors(qB)
            self._inertia = self._inertia_forces(qB, vB, aB, tangent)
        self._inertia_key = (qB, vB, aB, tangent)
        return self._inertia

    def forces_all(self, q: np.ndarray, gravity: np.ndarray, tangent: bool,
                   into: np.ndarray | None = None) -> tuple:
        """Every body's :meth:`FloatingFrameBody.forces` (B leading; ``into`` as
        :meth:`inertia_all`)."""
        qB = q[self.idx]
        kern = frame_kernels()
        if kern is not None:
            F = self._compiled_line(kern, q, gravity)[0]
            self._forces = (F, self._compiled_elastic_tangent(kern, q) if tangent else None)
        else:
            self._forces = self._elastic_and_weight(q, gravity, tangent, qB)
        self._forces_key = (qB, np.array(gravity, float), tangent)
        return self._forces

    def inertia(self, q: np.ndarray, v: np.ndarray, a: np.ndarray, tangent: bool,
                i: int) -> tuple:
        """Body ``i``'s :meth:`FloatingFrameBody.inertia`, all bodies' formed together on
        the first call at ``(q, q̇, q̈)``."""
        idx = self.idx
        vB, aB = v[idx], a[idx]
        key = self._inertia_key
        if not (key is not None and (tangent <= key[3]) and np.array_equal(key[1], vB)
                and np.array_equal(key[2], aB) and np.array_equal(key[0], q[idx])):
            self.inertia_all(q, v, a, tangent)
        f, tan = self._inertia
        return f[i], (None if not tangent else (tan[0][i], tan[1][i], tan[2][i]))

    def _inertia_forces(self, qB, vB, aB, tangent):
        """:func:`~fem.bodies.base.inertia_from_points` of every body (B leading).

        Without ``tangent``: the centre line's points ``Σ_p w_p J_pᵀ (J_p q̈ + q̇ᵀH_p q̇)``
        (the quadratic-velocity part from :meth:`_quadratic`, no ``H``) and the section
        directors in closed form from their invariants (:meth:`_director_forces`, no
        director points); with it, every point's ``J`` and ``H``."""
        B, k = vB.shape
        if not tangent:
            Jc = self.Jc
            acc = (Jc @ aB[:, :, None])[:, :, 0] + self._quadratic(vB).reshape(B, -1)
            f = ((self.w3c * acc)[:, None, :] @ Jc)[:, 0]
            if self.Xt is not None:
                self._director_forces(qB, vB, aB, f)
            if self.has_M_const:
                f = f + (self.M_const @ aB[:, :, None])[:, :, 0]
            return f, None
        Jf = self.J.reshape(B, -1, k)
        n3 = Jf.shape[1]
        H = self.H
        Hf = H.reshape(B, -1, k)
        # H q̇ and H q̈ in one pass over H (the largest array here)
        Hva = (Hf @ np.stack((vB, aB), axis=2)).reshape(B, n3, k, 2)
        Hv, Ha = Hva[..., 0], Hva[..., 1]
        acc = (Jf @ aB[:, :, None])[:, :, 0] + (Hv @ vB[:, :, None])[:, :, 0]
        wJ = self.w3[:, :, None] * Jf
        f = (acc[:, None, :] @ wJ)[:, 0]
        if self.has_M_const:
            f = f + (self.M_const @ aB[:, :, None])[:, :, 0]
        wJt = wJ.transpose(0, 2, 1)
        M = wJt @ Jf
        C = 2.0 * (wJt @ Hv)
        Kq = ((self.w3 * acc)[:, None, :] @ H.reshape(B, n3, k * k)).reshape(B, k, k) \
            + wJt @ Ha
        return f, (M + self.M_const, Kq, C)

    def forces(self, q: np.ndarray, gravity: np.ndarray, tangent: bool, i: int) -> tuple:
        """Body ``i``'s :meth:`FloatingFrameBody.forces`, all bodies' formed together on
        the first call at ``q``."""
        qB = q[self.idx]
        key = self._forces_key
        if key is None or not (tangent <= key[2] and np.array_equal(key[0], qB)
                               and np.array_equal(key[1], gravity)):
            self.forces_all(q, gravity, tangent)
        f, K = self._forces
        return f[i], (K[i] if tangent else None)

    def _weights(self, gravity) -> np.ndarray:
        """``w_p g`` of the centre line's points (B, 1, 3P), kept for the last gravity."""
        key = tuple(gravity)
        if self._wg is None or self._wg[0] != key:
            B, P = self.w_line.shape
            self._wg = (key, (self.w_line[:, :, None] * gravity).reshape(B, 1, 3 * P))
        return self._wg[1]

    def _elastic_and_weight(self, q, gravity, tangent=False, qB=None):
        if qB is None:
            qB = q[self.idx]
        B, k = qB.shape
        e = qB[:, 12:]
        f = np.zeros((B, k))
        K = None
        fe = (self.K @ e[:, :, None])[:, :, 0]
        if tangent:
            K = np.zeros((B, k, k))
            K[:, 12:, 12:] = self.K
        if self.curvature:
            g, h = self._bending_gradient(e, tangent)
            fe = fe + g
            if tangent:
                K[:, 12:, 12:] += h
        f[:, 12:] = fe
        if any(gravity):                # (three numbers: no NumPy call)
            self.line(q, tangent)
            P = self.P
            wg = self._weights(gravity)
            f -= (wg @ self.J[:, :P].reshape(B, 3 * P, k))[:, 0]
            if tangent:
                K -= (wg @ self.H[:, :P].reshape(B, 3 * P, k * k)).reshape(B, k, k)
        return f, K

    def _bending_gradient(self, e: np.ndarray, hessian: bool = False):
        """The gradient (and with ``hessian`` the Hessian, else None) of the nonlinear
        bending energy of every body (the NumPy form of
        :meth:`~fem.elements.floating_frame.FloatingFrameLink._bending_correction`)."""
        wb, Bz = self.wb, self.Bz
        B, Pb, _, ne = Bz.shape
        # z = (v′, v″, w′, w″) at every point, the points last (B, field, order, Pb)
        z = (self.BzT @ e[:, :, None]).reshape(B, 2, 2, Pb)
        d1, d2 = z[:, :, 0], z[:, :, 1]                   # (a, c) = (v′, w′), (A, C)
        ei = self.eiT                                     # (EI₁, EI₂)
        # ∂κ/∂z, z = (v′, v″, w′, w″): d1 = e₁ + ½m e₀ + ½a ∂m/∂z, d2 likewise
        # (m = aA + cC, ∂m/∂z = (A, a, C, c), k₁ = A + ½am, k₂ = C + ½cm); the gradient
        # EI₁ k₁ d1 + EI₂ k₂ d2 − (0, EI₁ A, 0, EI₂ C) is, field by field,
        # (EIₖ kₖ ½m + u ∂ₖ, EIₖ (kₖ − ∂ₖ) + u ∂ₖ′) with u = ½ (EI₁ k₁ a + EI₂ k₂ c):
        # both fields in each operation
        hm = 0.5 * (d1 * d2).sum(axis=1, keepdims=True)                     # ½m
        k = d2 + d1 * hm
        ek = ei * k
        u = 0.5 * (ek * d1).sum(axis=1, keepdims=True)
        gz = np.empty((B, 2, 2, Pb))
        gz[:, :, 0] = ek * hm + u * d2
        gz[:, :, 1] = ei * (k - d2) + u * d1
        grad = (self.BtT @ (self.wbT * gz).reshape(B, 4 * Pb, 1))[:, :, 0]
        if not hessian:
            return grad, None
        d1, d2 = d1.transpose(0, 2, 1), d2.transpose(0, 2, 1)             # (B, Pb, 2)
        hm, ek = hm.transpose(0, 2, 1), ek.transpose(0, 2, 1)
        Bt = Bz.reshape(B, 4 * Pb, ne).transpose(0, 2, 1)
        # ∂k₁/∂z = ½a ∂m/∂z + (½m, 1, 0, 0), ∂k₂/∂z = ½c ∂m/∂z + (0, 0, ½m, 1) and
        # ∂²kᵢ/∂z² = ½(eⱼ ∂m/∂zᵀ + ∂m/∂z eⱼᵀ + aⱼ M₂) (j = 0, 2; a₀ = a, a₂ = c): the
        # Hessian Σᵢ EIᵢ (∂kᵢ/∂z ∂kᵢ/∂zᵀ + kᵢ ∂²kᵢ/∂z²) − diag(0, EI₁, 0, EI₂) as
        # X Yᵀ with X = [∂k₁/∂z, ∂k₂/∂z, g, ∂m/∂z], Y = [EI₁ ∂k₁/∂z, EI₂ ∂k₂/∂z, ∂m/∂z,
        # g], g = ½ (EI₁k₁, 0, EI₂k₂, 0), plus (g₀a + g₂c) M₂ (M₂ = ∂²m/∂z²)
        X = np.empty((B, Pb, 4, 4))
        Y = np.empty((B, Pb, 4, 4))
        dm = X[..., 3]
        dm[..., 0::2], dm[..., 1::2] = d2, d1                      # (A, a, C, c)
        np.multiply(dm[..., None, :], 0.5 * d1[..., :, None], out=X[..., :, :2].swapaxes(-1, -2))
        X[..., 0, 0] += hm[..., 0]
        X[..., 1, 0] += 1.0
        X[..., 2, 1] += hm[..., 0]
        X[..., 3, 1] += 1.0
        g = X[..., 2]
        g[..., 1::2] = 0.0
        g[..., 0::2] = 0.5 * ek
        np.multiply(X[..., :2], self.ei[:, None, None, :], out=Y[..., :2])
        Y[..., 2], Y[..., 3] = dm, g
        hz = X @ Y.swapaxes(-1, -2)
        sm = (g[..., 0::2] * d1).sum(axis=-1)                      # g₀a + g₂c
        hz[..., 0, 1] += sm
        hz[..., 1, 0] += sm
        hz[..., 2, 3] += sm
        hz[..., 3, 2] += sm
        hz[..., 1, 1] -= self.ei[:, None, 0]
        hz[..., 3, 3] -= self.ei[:, None, 1]
        hess = Bt @ ((wb[:, :, None, None] * hz) @ Bz).reshape(B, 4 * Pb, -1)
        return grad, hess


def _rotation_factors():
    """Index arrays of the entries of the three factors ``R_z, R_y, R_x`` (m) and their
    first and second derivatives (d) that depend on the angle, and the constant rest."""
    m_, d_, i_, j_, sign, trig = [], [], [], [], [], []
    F0 = np.zeros((3, 3, 3, 3))
    # entries (i,i), (i,j), (j,i), (j,j): R = [c −s; s c], R′ = [−s −c; c −s],
    # R″ = [−c s; −s −c]  (trig 0: cos, 1: sin)
    table = {0: ((1, 0), (-1, 1), (1, 1), (1, 0)), 1: ((-1, 1), (-1, 0), (1, 0), (-1, 1)),
             2: ((-1, 0), (1, 1), (-1, 1), (-1, 0))}
    for m, axis in enumerate((2, 1, 0)):
        i, j = [(1, 2), (2, 0), (0, 1)][axis]
        F0[m, 0, axis, axis] = 1.0
        for d in range(3):
            for (r, c), (sg, tr) in zip(((i, i), (i, j), (j, i), (j, j)), table[d],
                                        strict=True):
                m_.append(m)
                d_.append(d)
                i_.append(r)
                j_.append(c)
                sign.append(sg)
                trig.append(tr)
    idx = tuple(np.array(x) for x in (m_, d_, i_, j_))
    return F0, idx, np.array(sign, float), np.array(m_) + 3 * np.array(trig)


_F0, _F_IDX, _F_SIGN, _F_SRC = _rotation_factors()


def _section_rotations(alpha: np.ndarray, second: bool = False):
    """:func:`~fem.bodies.floating_frame.section_rotation` of every row of ``alpha``
    (B, 3): ``T`` (B, 3, 3), ``∂T/∂α_i`` (B, 3, 3, 3) and, with ``second``,
    ``∂²T/∂α_i∂α_j`` (B, 3, 3, 3, 3)."""
    B = alpha.shape[0]
    # T and ∂T/∂α_i (the orders (0,0,0), (1,0,0), (0,1,0), (0,0,1) of the factors) are
    # trilinear in g_m = (1, cos α_m, sin α_m): one product with the constant tensor
    g = np.empty((B, 3, 3))
    g[:, :, 0] = 1.0
    g[:, :, 1] = np.cos(alpha)
    g[:, :, 2] = np.sin(alpha)
    ggg = (g[:, 0, :, None] * g[:, 1, None, :]).reshape(B, 9, 1) * g[:, 2, None, :]
    if not second:
        P = (ggg.reshape(B, 27) @ _TRILINEAR01).reshape(B, 4, 3, 3)
        return P[:, 0], P[:, 1:]
    # the second derivatives (orders ORDER2) are trilinear in g_m too: one product more
    P = ggg.reshape(B, 27) @ _TRILINEAR012
    T, dT = P[:, :9].reshape(B, 3, 3), P[:, 9:36].reshape(B, 3, 3, 3)
    return T, dT, P[:, 36:].reshape(B, 3, 3, 3, 3)


_ORDER01 = np.concatenate([np.zeros((1, 3), np.int64), ORDER1])


def _trilinear(orders: np.ndarray) -> np.ndarray:
    """``C`` (27, n·9): the products ``F_z^(o₀) F_y^(o₁) F_x^(o₂)`` of the ``n`` orders
    ``orders`` (n, 3) as ``(g_z ⊗ g_y ⊗ g_x) C``, ``g_m = (1, cos α_m, sin α_m)``."""
    phi = np.zeros((3, 3, 3, 3, 3))          # factor m, derivative d, i, j, term of g_m
    phi[..., 0] = _F0
    for m, d, i, j, sg, src in zip(*_F_IDX, _F_SIGN, _F_SRC, strict=True):
        phi[m, d, i, j, 1 + src // 3] += sg
    o = orders
    C = np.einsum("oika,oklb,oljc->abcoij", phi[0, o[:, 0]], phi[1, o[:, 1]],
                  phi[2, o[:, 2]])
    return np.ascontiguousarray(C.reshape(27, 9 * len(o)))


_TRILINEAR01 = _trilinear(_ORDER01)
_TRILINEAR012 = _trilinear(np.concatenate([_ORDER01, ORDER2.reshape(9, 3)]))
