"""General constraint rows: ``Φᵢ = Σ a(q)·b(q, t) + cᵢ + hᵢ(t)`` with point maps.

The rows of :mod:`fem.constraints` that involve a :class:`~fem.maps.point_maps.PointMap` (a
point or direction of a floating-frame body) cannot join the constant-Hessian quadratic
form of the assembly.  :class:`GeneralRows` evaluates them from the maps' own values,
Jacobians and second derivatives; each term's entries sit on the fixed pattern
``row × (dofs of a ∪ dofs of b)`` (Jacobian) and ``(a ∪ b) × (a ∪ b)`` (Hessian), appended
to the assembly's patterns once.  Per term ``a·b``::

    Φ_q  = J_aᵀ b + J_bᵀ a
    Φ_qq = Σ_c (b_c H_a,c + a_c H_b,c) + J_aᵀ J_b + J_bᵀ J_a
    γ    = −(q̇ᵀH_a q̇ · b + 2 (J_a q̇)·(J_b q̇) + a · q̇ᵀH_b q̇)

and with a prescribed direction ``b = β(t)``: ``Φ_t = a·β̇``,
``γ = −(q̇ᵀH_a q̇ · β + 2 (J_a q̇)·β̇ + a·β̈)``.  Every map is evaluated once per
configuration.

**Batched form** (:class:`_Batched`, used when every map is a sum of linear maps and
point maps with constant second derivatives — the points of reduced bodies): the maps'
values and Jacobians come from one evaluation per body for all of its points
(``evaluate_batch`` of the point class), and Φ, Φ_q and ``λ·Φ_qq`` of all terms from
index arrays built once (one gather, product and ``bincount`` each), not a Python loop
over terms.  Point maps whose second derivatives change with ``q`` but whose class has
``evaluate_batch`` (the floating frames' tip points and section axes) get the batched
Φ, Φ_q and ``λ·Φ_qq`` (the atoms' dense second derivatives evaluated at each call);
their ``γ`` and the compiled form stay with the loop.  The per-term loop stays as the
reference (``batched=False``) and for maps whose second derivatives change with ``q``
without ``evaluate_batch``; both give the same numbers to round-off.
"""

from __future__ import annotations

import numpy as np

from ..maps.linear_map import LinearMap
from ..maps.point_maps import MapSum, PointMap, evaluate
from .general_kernels import general_kernels

__all__ = ["GeneralRows"]


def _flat(r: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Positions of the block ``rows r × columns c`` in a flattened (k, k) matrix."""
    return (r[:, None] * k + c[None, :]).ravel()


class GeneralRows:
    """The general rows of an assembly (see module docstring).

    Parameters
    ----------
    terms : list of (row, a, b, beta)
        ``b`` a map, or None with ``beta = (motion, k)``: the row's direction is
        ``motion(t)[i][k]`` (value, first and second time derivative).
    n_con : int
        Number of constraint rows of the assembly.
    batched : bool
        Use the batched evaluation where the maps allow it (see the module docstring).
    """

    def __init__(self, terms, n_con: int, batched: bool = True):
        self.n_con = n_con
        maps, index = [], {}

        def slot(m):
            if m is None:
                return -1
            if id(m) not in index:
                index[id(m)] = len(maps)
                maps.append(m)
            return index[id(m)]

        self.maps = maps
        self.terms = []
        self._flat = []            # flat Hessian positions: (a,a), (b,b), (a,b), (b,a)
        jr, jc, hr, hc = [], [], [], []
        for row, a, b, beta in terms:
            ia, ib = slot(a), slot(b)
            dofs = [np.asarray(a.dofs, np.int64)]
            if b is not None:
                dofs.append(np.asarray(b.dofs, np.int64))
            u = np.unique(np.concatenate(dofs))
            ca = np.searchsorted(u, a.dofs)
            cb = np.searchsorted(u, b.dofs) if b is not None else None
            self.terms.append((row, ia, ib, ca, cb, u.size, beta))
            k = u.size
            self._flat.append((_flat(ca, ca, k), None if cb is None else _flat(cb, cb, k),
                               None if cb is None else _flat(ca, cb, k),
                               None if cb is None else _flat(cb, ca, k)))
            jr.append(np.full(u.size, row, np.int64))
            jc.append(u)
            hr.append(np.repeat(u, u.size))
            hc.append(np.tile(u, u.size))
        cat = lambda L: np.concatenate(L).astype(np.int64) if L else np.zeros(0, np.int64)
        self.jrows, self.jcols = cat(jr), cat(jc)
        self.hrows, self.hcols = cat(hr), cat(hc)
        self.rows = np.array([t[0] for t in self.terms], np.int64)
        self.directed = any(t[2] < 0 for t in self.terms)
        """Whether a term has a prescribed direction ``β(t)`` (else ``Φ_t`` is zero)."""
        self._last = None        # (q, with second derivatives, evaluations)
        self._batched = _Batched.build(self) if batched else None

    def __len__(self) -> int:
        return len(self.terms)

    def _eval(self, q, second=False):
        """``(x, J, H)`` of every map; the last configuration's are reused (the state,
        Hessian and ``γ`` of one Newton iteration share it)."""
        last = self._last
        if last is not None and (second <= last[1]) and np.array_equal(last[0], q):
            return last[2]
        ev = [evaluate(m, q, second) for m in self.maps]
        self._last = (q.copy(), second, ev)
        return ev

    @staticmethod
    def _beta(beta, t: float, deriv: int) -> np.ndarray:
        fn, k = beta
        return np.asarray(fn(t)[deriv], float)[k]

    def state(self, q: np.ndarray, t: float):
        """``(Φ contributions (n_con,), Jacobian values in pattern order)``."""
        if self._batched is not None:
            return self._batched.state(q, t)
        ev = self._eval(q)
        phi = np.zeros(self.n_con)
        jv = []
        for row, ia, ib, ca, cb, k, beta in self.terms:
            xa, Ja, _ = ev[ia]
            j = np.zeros(k)
            if ib < 0:
                b = self._beta(beta, t, 0)
                phi[row] += xa @ b
                j[ca] += b @ Ja
            else:
                xb, Jb, _ = ev[ib]
                phi[row] += xa @ xb
                j[ca] += xb @ Ja
                j[cb] += xa @ Jb
            jv.append(j)
        return phi, (np.concatenate(jv) if jv else np.zeros(0))

    def compiled_form(self, q: np.ndarray) -> tuple | None:
        """``(ints, floats, directions)``: the rows as data of
        :func:`fem.constraints.compiled.product_kernels` — every map's Taylor form about
        ``q`` (exact: its second derivatives are constant), the terms and their pattern
        positions — and ``directions(t, out)``, which writes the prescribed directions
        ``β(t)`` into ``out`` (None without such rows); None when a map's second
        derivatives change with ``q`` (floating-frame points)."""
        if self._batched is None or not self._batched.constant:
            return None
        q = np.asarray(q, float)
        dofs, qr, xr, Jr, hm, hc, ha, hb, hv = [], [], [], [], [], [], [], [], []
        for i, m in enumerate(self.maps):
            x, J, H = evaluate(m, q, True)
            d = np.asarray(m.dofs, np.int64)
            dofs.append(d)
            qr.append(q[d])
            xr.append(np.asarray(x, float))
            Jr.append(np.asarray(J, float).ravel())
            c, a, b = np.nonzero(H)
            hm.append(np.full(c.size, i, np.int64))
            hc.append(c)
            ha.append(a)
            hb.append(b)
            hv.append(H[c, a, b])
        cat = lambda L, dt=np.int64: (np.ascontiguousarray(np.concatenate(L), dtype=dt)
                                      if L else np.zeros(0, dt))
        ks = np.array([d.size for d in dofs], np.int64)
        offsets = lambda sizes: np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        ho = offsets([h.size for h in hm])       # the H entries, map after map
        t_row, t_a, t_b, t_k, ca, cb = [], [], [], [], [], []
        betas = []
        for row, ia, ib, a_pos, b_pos, k, beta in self.terms:
            t_row.append(row)
            t_a.append(ia)
            if ib < 0:
                t_b.append(-1 - len(betas))
                betas.append(beta)
                b_pos = np.zeros(0, np.int64)
            else:
                t_b.append(ib)
            t_k.append(k)
            ca.append(np.asarray(a_pos, np.int64))
            cb.append(np.asarray(b_pos, np.int64))
        ints = (cat(dofs), offsets(ks), offsets(3 * ks), ho, cat(hc), cat(ha), cat(hb),
                np.array(t_row, np.int64), np.array(t_a, np.int64),
                np.array(t_b, np.int64), offsets(t_k), cat(ca),
                offsets([c.size for c in ca]), cat(cb), offsets([c.size for c in cb]))
        floats = (cat(qr, float), cat(xr, float), cat(Jr, float), cat(hv, float),
                  np.zeros(3 * len(betas)), np.zeros(3 * len(self.maps)),
                  np.zeros(int(3 * ks.sum())), np.zeros(int(ks.sum())))

        def directions(t: float, out: np.ndarray) -> None:
            for j, beta in enumerate(betas):
                out[3 * j:3 * j + 3] = self._beta(beta, t, 0)

        return ints, floats, (directions if betas else None)

    def phi_t(self, q: np.ndarray, t: float) -> np.ndarray:
        out = np.zeros(self.n_con)
        for row, ia, ib, _ca, _cb, _k, beta in self.terms:
            if ib < 0:
                out[row] += self.maps[ia](q) @ self._beta(beta, t, 1)
        return out

    def gamma(self, q: np.ndarray, v: np.ndarray, t: float) -> np.ndarray:
        """Contributions to ``γ`` (``Φ_q q̈ = γ``)."""
        ev = self._eval(q, second=True)
        vel, kap = [], []
        for m, (_x, J, H) in zip(self.maps, ev, strict=True):
            vl = v[m.dofs]
            vel.append(J @ vl)
            kap.append(np.einsum("ijk,j,k->i", H, vl, vl))
        out = np.zeros(self.n_con)
        for row, ia, ib, _ca, _cb, _k, beta in self.terms:
            xa = ev[ia][0]
            if ib < 0:
                b, bd, bdd = (self._beta(beta, t, d) for d in range(3))
                out[row] -= kap[ia] @ b + 2.0 * vel[ia] @ bd + xa @ bdd
            else:
                xb = ev[ib][0]
                out[row] -= kap[ia] @ xb + 2.0 * vel[ia] @ vel[ib] + xa @ kap[ib]
        return out

    def hessian_values(self, lam: np.ndarray, q: np.ndarray, keep: np.ndarray,
                       t: float = 0.0) -> np.ndarray:
        """``λᵢ Φᵢ,qq`` of every term in pattern order (rows with ``keep`` 0 skipped)."""
        if self._batched is not None:
            return self._batched.hessian_values(lam, q, keep, t)
        ev = self._eval(q, second=True)
        out = []
        for (row, ia, ib, _ca, _cb, k, beta), (faa, fbb, fab, fba) in zip(
                self.terms, self._flat, strict=True):
            H = np.zeros(k * k)
            w = lam[row] * keep[row]
            if w != 0.0:
                xa, Ja, Ha = ev[ia]
                if ib < 0:
                    b = self._beta(beta, t, 0)
                    H[faa] += np.tensordot(b, Ha, 1).ravel()
                else:
                    xb, Jb, Hb = ev[ib]
                    H[faa] += np.tensordot(xb, Ha, 1).ravel()
                    H[fbb] += np.tensordot(xa, Hb, 1).ravel()
                    C = Ja.T @ Jb
                    H[fab] += C.ravel()
                    H[fba] += C.T.ravel()
                H *= w
            out.append(H)
        return np.concatenate(out) if out else np.zeros(0)


def _atoms(m, any_hessian: bool = False) -> list | None:
    """``[(c, atom)]`` with ``m = Σ c·atom``, atoms linear maps or constant-Hessian point
    maps; None when ``m`` has a part whose second derivatives change with ``q``.  With
    ``any_hessian`` also point maps whose second derivatives change with ``q`` when
    their class evaluates its points together (``evaluate_batch``: the floating frames'
    points and section axes)."""
    if isinstance(m, LinearMap):
        return [(1.0, m)]
    if isinstance(m, MapSum):
        out = []
        for c, t in m.terms:
            sub = _atoms(t, any_hessian)
            if sub is None:
                return None
            out.extend((c * ci, a) for ci, a in sub)
        return out
    if isinstance(m, PointMap) and (m.constant_hessian or (
            any_hessian and getattr(type(m), "evaluate_batch", None) is not None)):
        return [(1.0, m)]
    return None


class _Batched:
    """The batched evaluation of :class:`GeneralRows` (see the module docstring).

    Every map ``i`` has its value at ``X[3i:3i+3]`` and its Jacobian (3, kᵢ) on its own
    ``dofs`` flattened at ``J[oJ[i]:oJ[i] + 3kᵢ]``; the prescribed directions of the
    ``β`` rows follow the maps' values in ``X``.  Linear atoms contribute a constant to
    ``J`` and a dense product to ``X``; the point maps of one body are evaluated together.
    """

    @classmethod
    def build(cls, rows: GeneralRows):
        """The batched form, or None.  ``constant`` tells whether the maps' second
        derivatives are constant: else ``λ·Φ_qq`` takes the point atoms' second
        derivatives at every call, and ``γ`` and the compiled form stay with the
        per-term loop."""
        if not rows.terms:
            return None
        for constant in (True, False):
            atoms = [_atoms(m, not constant) for m in rows.maps]
            if not any(a is None for a in atoms):
                return cls(rows, atoms, constant)
        return None

    def __init__(self, rows: GeneralRows, atoms, constant: bool = True):
        self.rows = rows
        self.constant = constant
        maps = rows.maps
        ks = np.array([len(m.dofs) for m in maps], np.int64)
        self.nmap = nmap = len(maps)
        self._points = []        # every point atom: (atom, c, map, its columns in the map)
        oJ = np.concatenate([[0], np.cumsum(3 * ks)])
        self._J0 = np.zeros(oJ[-1])
        lin_rows, lin_cols, lin_vals = [], [], []
        x0 = np.zeros(3 * nmap)
        groups: dict = {}
        others = []
        for i, (m, parts) in enumerate(zip(maps, atoms, strict=True)):
            mdofs = np.asarray(m.dofs, np.int64)
            for c, a in parts:
                cols = np.searchsorted(mdofs, np.asarray(a.dofs, np.int64))
                dest = oJ[i] + (np.arange(3)[:, None] * ks[i] + cols[None, :])   # (3, ka)
                if isinstance(a, LinearMap):
                    np.add.at(self._J0, dest.ravel(), c * a.coef.ravel())
                    lin_rows.append(np.repeat(3 * i + np.arange(3), a.dofs.size))
                    lin_cols.append(np.tile(a.dofs, 3))
                    lin_vals.append(c * a.coef.ravel())
                    x0[3 * i:3 * i + 3] += c * a.offset
                    continue
                batch = getattr(type(a), "evaluate_batch", None)
                key = (type(a), a.batch_key()) if batch is not None else None
                entry = (a, c, 3 * i + np.arange(3), dest)
                self._points.append((a, c, i, cols))
                if key is None:
                    others.append(entry)
                else:
                    groups.setdefault(key, []).append(entry)
        cat = lambda L, dt=np.int64: np.concatenate(L).astype(dt) if L else np.zeros(0, dt)
        lr, lc, lv = cat(lin_rows), cat(lin_cols), cat(lin_vals, float)
        self._lin_dofs, inv = np.unique(lc, return_inverse=True)
        self._A = np.zeros((3 * nmap, self._lin_dofs.size))
        np.add.at(self._A, (lr, inv), lv)
        self._x0 = x0
        self._groups = []
        for (kind, _), entries in groups.items():
            pts = [e[0] for e in entries]
            coef = np.array([e[1] for e in entries])
            xdest = np.concatenate([e[2] for e in entries])
            jdest = np.concatenate([e[3].ravel() for e in entries])
            # every Jacobian entry's coefficient, in the evaluator's order (points of
            # one size, (n, 3, k); or of several, flat, point after point)
            jcoef = np.concatenate([np.full(e[3].size, e[1]) for e in entries])
            unique = np.unique(xdest).size == xdest.size and \
                np.unique(jdest).size == jdest.size
            pcoef = coef                     # one a point (the compiled evaluators')
            if np.all(coef == 1.0) and np.all(jcoef == 1.0):
                coef = jcoef = None          # the points as they are (no products)
            self._groups.append((kind.evaluate_batch(pts), coef, jcoef, xdest, jdest,
                                 unique, pcoef))
        self._others = others
        self._oJ, self._ks = oJ, ks
        # ---- the terms: Φ, Φ_q and the β slots of X
        nb = 0
        xa3, xb3, prow = [], [], []
        jo, jJ, jx = [], [], []
        self._beta_terms = []
        ojv = 0
        self._ojv = []
        for row, ia, ib, ca, cb, k, beta in rows.terms:
            ixa = 3 * ia + np.arange(3)
            if ib < 0:
                ixb = 3 * nmap + 3 * nb + np.arange(3)
                self._beta_terms.append(beta)
                nb += 1
            else:
                ixb = 3 * ib + np.arange(3)
            xa3.append(ixa)
            xb3.append(ixb)
            prow.append(np.full(3, row))
            for im, cols, ixo in ((ia, ca, ixb), (ib, cb, ixa)):   # J_aᵀ b, J_bᵀ a
                if im < 0:
                    continue
                km = ks[im]
                jo.append(np.tile(ojv + cols, 3))
                jJ.append(oJ[im] + np.arange(3 * km))
                jx.append(np.repeat(ixo, km))
            self._ojv.append(ojv)
            ojv += k
        self._n_beta = nb
        self._xa3, self._xb3, self._prow = cat(xa3), cat(xb3), cat(prow)
        self._jo, self._jJ, self._jx = cat(jo), cat(jJ), cat(jx)
        self._njv = ojv
        self._hess = None            # index arrays of λ·Φ_qq, built at the first call
        self._last = None

    # ------------------------------------------------------------------ evaluation
    def _maps(self, q: np.ndarray):
        """``(X of the maps (3 n_maps,), J (flat))`` at ``q``; the last is reused."""
        last = self._last
        key = q.tobytes()            # the same bytes: the same maps (cheaper than equal)
        if last is not None and last[0] == key:
            return last[1], last[2]
        x = self._A @ q[self._lin_dofs] + self._x0
        J = self._J0.copy()
        for run, coef, jcoef, xdest, jdest, unique, pcoef in self._groups:
            add = getattr(run, "add_into", None)
            if add is not None and add(q, pcoef, xdest, jdest, x, J):
                continue                     # compiled: added straight into x and J
            xb, Jb = run(q)
            if coef is None:
                xv, Jv = xb.ravel(), Jb.ravel()
            else:
                xv, Jv = (coef[:, None] * xb).ravel(), jcoef * Jb.ravel()
            if unique:
                x[xdest] += xv
                J[jdest] += Jv
            else:                    # two points of one body in one map
                np.add.at(x, xdest, xv)
                np.add.at(J, jdest, Jv)
        for a, c, xdest, dest in self._others:
            xa, Ja, _ = a.evaluate(q)
            x[xdest] += c * xa
            np.add.at(J, dest.ravel(), c * Ja.ravel())
        self._last = (key, x, J)
        return x, J

    def _X(self, q: np.ndarray, t: float, deriv: int = 0):
        x, J = self._maps(q)
        if not self._n_beta:
            return x, J
        b = [GeneralRows._beta(beta, t, deriv) for beta in self._beta_terms]
        return np.concatenate([x, *b]), J

    def state(self, q: np.ndarray, t: float):
        """``(Φ contributions, Φ_q values)`` as :meth:`GeneralRows.state`: the products
        ``X_a·X_b`` and ``J X`` gathered and summed (on the compiled path by the
        ``rows_state`` kernel of :mod:`fem.constraints.general_kernels`, else ``np.bincount``:
        the same sums in the same order)."""
        X, J = self._X(q, t)
        kern = general_kernels()
        if kern is not None:
            phi, jv = np.empty(self.rows.n_con), np.empty(self._njv)
            kern[0](X, J, self._xa3, self._xb3, self._prow, self._jo, self._jJ, self._jx,
                    phi, jv)
            return phi, jv
        phi = np.bincount(self._prow, X[self._xa3] * X[self._xb3],
                          minlength=self.rows.n_con)
        jv = np.bincount(self._jo, J[self._jJ] * X[self._jx], minlength=self._njv)
        return phi, jv

    def _build_hessian(self, q: np.ndarray) -> None:
        """Index arrays of ``λ·Φ_qq``: the maps' constant second derivatives times the
        other factor, and ``J_aᵀ J_b`` (both halves)."""
        rows = self.rows
        Hs = [evaluate(m, q, True)[2] for m in rows.maps]
        oJ, ks = self._oJ, self._ks
        ho, hv, hx = [], [], []          # constant H entry × X entry
        po, pa, pb = [], [], []          # J entry × J entry
        sizes = []
        oh = 0
        for (_row, ia, ib, _ca, _cb, k, _beta), (faa, fbb, fab, fba), ixb, ixa in zip(
                rows.terms, rows._flat, self._xb3.reshape(-1, 3), self._xa3.reshape(-1, 3),
                strict=True):
            for im, f, ixo in ((ia, faa, ixb), (ib, fbb, ixa)):
                if im < 0:
                    continue
                c, i, j = np.nonzero(Hs[im])
                km = ks[im]
                ho.append(oh + f.reshape(km, km)[i, j])
                hv.append(Hs[im][c, i, j])
                hx.append(ixo[c])
            if ib >= 0:
                _cross_entries(oJ, ks, ia, ib, fab, fba, oh, po, pa, pb)
            sizes.append(k * k)
            oh += k * k
        cat = lambda L, dt=np.int64: np.concatenate(L).astype(dt) if L else np.zeros(0, dt)
        self._hess = (cat(ho + po), cat(hv, float), cat(hx), cat(pa), cat(pb),
                      len(cat(ho)), np.asarray(sizes, np.int64), oh)

    def _build_hessian_changing(self, q: np.ndarray) -> None:
        """Index arrays of ``λ·Φ_qq`` when the point atoms' second derivatives change
        with ``q`` (:attr:`constant` False): the entries of every point atom's ``H``
        (3, kₐ, kₐ) that can be nonzero, atom after atom, times its coefficient and the
        other factor, and ``J_aᵀ J_b`` as in :meth:`_build_hessian`.  The atoms' ``H``
        are read from one flat array (:meth:`_second_all`): the arrays their batches form
        (:meth:`PointMap.second_source`, one per batch: its nonzero entries) and then the
        other atoms' own dense ``H`` (their entries in :meth:`PointMap.second_pattern`)."""
        rows = self.rows
        oJ, ks = self._oJ, self._ks
        by_map: dict = {}
        sources: dict = {}               # key -> (get, its size)
        where = []                       # per atom: (source key, index) or None
        for i_atom, (a, c, i, cols) in enumerate(self._points):
            by_map.setdefault(i, []).append((i_atom, c, cols))
            src = a.second_source()
            if src is None:
                where.append(None)
            else:
                key, get, index = src
                if key not in sources:
                    sources[key] = (get, get(q).size)
                where.append((key, index))
        base, off = {}, 0
        for key, (_get, size) in sources.items():
            base[key] = off
            off += size
        index = []                       # per atom: (3, kₐ, kₐ) positions in the array
        for u, (a, _c, _i, cols) in enumerate(self._points):
            ka = cols.size
            if where[u] is None:
                ix = off + np.arange(3 * ka * ka).reshape(3, ka, ka)
                mask = a.second_pattern()
                if mask is not None:
                    ix = np.where(mask, ix, -1)
                off += 3 * ka * ka
            else:
                key, ix = where[u]
                ix = np.where(ix >= 0, base[key] + ix, -1)
            index.append(ix)
        self._h_gets = [get for get, _size in sources.values()]
        self._h_own = [self._points[u][0] for u in range(len(self._points))
                       if where[u] is None]
        ho, hi, hc, hx = [], [], [], []
        po, pa, pb = [], [], []
        sizes = []
        oh = 0
        for (_row, ia, ib, _ca, _cb, k, _beta), (faa, fbb, fab, fba), ixb, ixa in zip(
                rows.terms, rows._flat, self._xb3.reshape(-1, 3), self._xa3.reshape(-1, 3),
                strict=True):
            for im, f, ixo in ((ia, faa, ixb), (ib, fbb, ixa)):
                if im < 0:
                    continue
                km = ks[im]
                fm = f.reshape(km, km)
                for u, c, cols in by_map.get(im, ()):
                    cc, i, j = np.nonzero(index[u] >= 0)
                    ho.append(oh + fm[cols[i], cols[j]])
                    hi.append(index[u][cc, i, j])
                    hc.append(np.full(cc.size, c))
                    hx.append(ixo[cc])
            if ib >= 0:
                _cross_entries(oJ, ks, ia, ib, fab, fba, oh, po, pa, pb)
            sizes.append(k * k)
            oh += k * k
        cat = lambda L, dt=np.int64: np.concatenate(L).astype(dt) if L else np.zeros(0, dt)
        self._hess = (cat(ho + po), cat(hi), cat(hc, float), cat(hx), cat(pa), cat(pb),
                      np.asarray(sizes, np.int64), oh)

    def _second_all(self, q: np.ndarray) -> np.ndarray:
        """The point atoms' second derivatives as :meth:`_build_hessian_changing` laid
        them out: the batches' arrays, then the other atoms' ``H`` (the batch's own
        array when there is nothing else)."""
        parts = [get(q) for get in self._h_gets]
        parts += [a.evaluate(q, True)[2].ravel() for a in self._h_own]
        if len(parts) == 1:
            return parts[0]
        return np.concatenate(parts) if parts else np.zeros(0)

    def hessian_values(self, lam, q, keep, t=0.0):
        """``λᵢ Φᵢ,qq`` of every term in pattern order (:meth:`GeneralRows.
        hessian_values`): the index arrays' products summed with ``np.bincount``, or with
        constant second derivatives on the compiled path by the ``rows_hessian`` kernel
        of :mod:`fem.constraints.general_kernels` (the same sums in the same order)."""
        if not self.constant:
            if self._hess is None:
                self._build_hessian_changing(q)
            out, hi, hc, hx, pa, pb, sizes, nout = self._hess
            X, J = self._X(q, t)
            Hall = self._second_all(q)
            w = np.repeat(lam[self.rows.rows] * keep[self.rows.rows], sizes)
            vals = np.concatenate([hc * Hall[hi] * X[hx], J[pa] * J[pb]])
            return np.bincount(out, vals, minlength=nout) * w
        if self._hess is None:
            self._build_hessian(q)
        out, hv, hx, pa, pb, nh, sizes, nout = self._hess
        X, J = self._X(q, t)
        kern = general_kernels()
        if kern is not None:         # the same sums and products, compiled
            res = np.empty(nout)
            kern[1](X, J, out, hv, hx, pa, pb,
                    np.ascontiguousarray(lam[self.rows.rows] * keep[self.rows.rows],
                                         dtype=float), sizes, res)
            return res
        w = np.repeat(lam[self.rows.rows] * keep[self.rows.rows], sizes)
        vals = np.concatenate([hv * X[hx], J[pa] * J[pb]])
        return np.bincount(out, vals, minlength=nout) * w


def _cross_entries(oJ, ks, ia, ib, fab, fba, oh, po, pa, pb) -> None:
    """Index arrays of a product row's ``J_aᵀ J_b`` part of ``λ·Φ_qq`` (both orders):
    appended to ``po`` (the row's Hessian slots, from offset ``oh``) and ``pa``, ``pb``
    (the two atoms' Jacobian entries)."""
    ka, kb = ks[ia], ks[ib]
    c, i, j = (g.ravel() for g in np.meshgrid(np.arange(3), np.arange(ka), np.arange(kb),
                                              indexing="ij"))
    ea, eb = oJ[ia] + c * ka + i, oJ[ib] + c * kb + j
    for f, ii, jj in ((fab, i, j), (fba, j, i)):
        po.append(oh + f.reshape(-1)[ii * (kb if f is fab else ka) + jj])
        pa.append(ea)
        pb.append(eb)
