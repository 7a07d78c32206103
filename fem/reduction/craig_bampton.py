"""Craig–Bampton reduction of one linear substructure and assembly of reduced components.

A substructure with coordinates ``u = [u_b; u_i]`` (boundary, interior) is represented by
(Ma and Mei 2010, eqs 3–13; Craig & Bampton, AIAA J. 6 (1968) 1313)::

    u = T x,   T = [[I, 0], [Ψ, Φ]],   x = [u_b; η]
    Ψ = -K_ii⁻¹ K_ib               static constraint modes (eqs 4, 6, 8, 10)
    K_ii Φ = M_ii Φ Ω²,  Φᵀ M_ii Φ = I   fixed-interface normal modes (eqs 3, 5, 7, 9)
    M_r = Tᵀ M T,   K_r = Tᵀ K T       (eqs 12–13)

Components are coupled either by *shared interface coordinates* (each boundary
coordinate of a component is one coordinate of the assembly: :class:`ComponentAssembly`), or by
compatibility ``B q = 0`` on the stacked component coordinates with the null-space map
``q = D q_f`` (eqs 22–24; :func:`null_space_basis`, :func:`constrain`).  Both give the
same reduced eigenproblem (eq 25).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..core.errors import ModelError
from ..core.validate import indices, integer
from ..solvers.linear import generalized_eigen, newmark  # noqa: F401  (newmark: old path)

__all__ = ["Component", "craig_bampton", "ComponentAssembly", "AssemblyModes", "null_space_basis",
           "constrain", "generalized_eigen", "newmark"]


def _square(A, what: str, n: int | None = None):
    A = A.tocsr() if sp.issparse(A) else np.asarray(A, dtype=float)
    if A.ndim != 2 or A.shape[0] != A.shape[1] or (n is not None and A.shape[0] != n):
        raise ModelError(f"{what} must be a square matrix"
                         f"{f' of size {n}' if n is not None else ''}; got shape {A.shape}")
    data = A.data if sp.issparse(A) else A
    if not np.all(np.isfinite(data)):
        raise ModelError(f"{what} has non-finite entries")
    return A


@dataclass
class Component:
    """A Craig–Bampton reduced substructure.

    Attributes
    ----------
    M, K : (r, r) ndarray
        Reduced matrices over ``x = [u_b; η]`` (``r = n_b + n_modes``).
    boundary : (n_b,) int array
        Boundary coordinates (indices into the substructure's own coordinates).
    T : (n, r) ndarray
        ``u = T x`` back to all substructure coordinates.
    frequencies_hz : (n_modes,) ndarray
        Fixed-interface natural frequencies.
    """

    M: np.ndarray
    K: np.ndarray
    boundary: np.ndarray
    T: np.ndarray
    frequencies_hz: np.ndarray
    name: str = ""

    @property
    def n_boundary(self) -> int:
        return len(self.boundary)

    @property
    def n_modes(self) -> int:
        return self.M.shape[0] - len(self.boundary)

    def expand(self, x: np.ndarray) -> np.ndarray:
        """Substructure coordinates ``u = T x`` (``x`` one vector or columns)."""
        return self.T @ x


def craig_bampton(M, K, boundary: Sequence[int], n_modes: int, name: str = ""
                  ) -> Component:
    """Reduce a linear substructure ``(M, K)`` to its boundary coordinates plus
    ``n_modes`` fixed-interface normal modes.

    Parameters
    ----------
    M, K : (n, n) array or sparse
        Symmetric mass and stiffness over the substructure's coordinates (any linear
        model: a frame, or an ANCF/plate model's tangent stiffness and mass at a state).
    boundary : sequence of int
        Interface coordinates (kept physically).  Fixing them must remove every rigid
        motion of the substructure (``K_ii`` nonsingular).
    n_modes : int
        Number of fixed-interface normal modes kept (0: Guyan reduction).

    Raises
    ------
    ModelError
        Bad sizes, repeated/out-of-range boundary coordinates, more modes than interior
        coordinates, or a singular ``K_ii`` (the fixed-interface substructure can move).
    """
    K = _square(K, "substructure K")
    n = K.shape[0]
    M = _square(M, "substructure M", n)
    b = np.asarray(boundary)
    if b.ndim != 1 or not np.issubdtype(b.dtype, np.integer):
        if b.ndim == 1 and b.size == 0:
            b = b.astype(np.int64)
        else:
            raise ModelError(f"{name or 'substructure'}: boundary must be a list of "
                             f"integer coordinate indices; got {boundary!r:.80}")
    if len(np.unique(b)) != len(b) or (b.size and (b.min() < 0 or b.max() >= n)):
        raise ModelError(f"{name or 'substructure'}: boundary indices must be distinct and in "
                         f"[0, {n - 1}]; got {b.tolist()}")
    interior = np.setdiff1d(np.arange(n), b)
    n_modes = integer(n_modes, f"{name or 'substructure'}: n_modes", 0)
    if n_modes > len(interior):
        raise ModelError(f"{name or 'substructure'}: n_modes = {n_modes} exceeds its "
                         f"{len(interior)} interior coordinates")
    Ms = sp.csr_matrix(M)
    Ks = sp.csr_matrix(K)
    Kii = Ks[interior][:, interior].tocsc()
    Kib = Ks[interior][:, b].toarray()
    Mii = Ms[interior][:, interior]
    if len(interior):
        try:
            lu = spla.splu(Kii)
            psi = -lu.solve(Kib) if b.size else np.zeros((len(interior), 0))
        except RuntimeError:
            raise ModelError(f"{name or 'substructure'}: K_ii is singular — with its boundary "
                             "coordinates fixed the substructure can still move; add "
                             "boundary coordinates") from None
        if not np.all(np.isfinite(psi)) or (
                lu.U.diagonal().size and np.abs(lu.U.diagonal()).min()
                < 1e-12 * np.abs(lu.U.diagonal()).max()):
            raise ModelError(f"{name or 'substructure'}: K_ii is (nearly) singular — with its "
                             "boundary fixed the substructure can still move")
        w2, phi = generalized_eigen(Mii, Kii, n_modes)
    else:
        psi, phi, w2 = np.zeros((0, len(b))), np.zeros((0, 0)), np.zeros(0)
    T = np.zeros((n, len(b) + n_modes))
    T[b, np.arange(len(b))] = 1.0
    T[np.ix_(interior, np.arange(len(b)))] = psi
    T[np.ix_(interior, len(b) + np.arange(n_modes))] = phi
    Mr = T.T @ (Ms @ T)
    Kr = T.T @ (Ks @ T)
    return Component((Mr + Mr.T) / 2, (Kr + Kr.T) / 2, b, T,
                     np.sqrt(np.clip(w2, 0, None)) / (2 * np.pi), name)


@dataclass
class AssemblyModes:
    """Frequencies [Hz] and mode shapes over the assembly's free coordinates."""

    frequencies_hz: np.ndarray
    shapes: np.ndarray


class ComponentAssembly:
    """Reduced components coupled by shared interface coordinates.

    ComponentAssembly coordinates: ``n_interface`` interface coordinates first, then the modal
    coordinates of every component in the order added.

    Parameters
    ----------
    n_interface : int
        Number of interface coordinates.
    """

    def __init__(self, n_interface: int):
        self.n_interface = integer(n_interface, "assembly n_interface", 0)
        self.components: list[Component] = []
        self.maps: list[np.ndarray] = []
        self.lumped_M = np.zeros((self.n_interface, self.n_interface))
        self.lumped_K = np.zeros((self.n_interface, self.n_interface))
        self.fixed: set[int] = set()

    def add(self, component: Component, interface: Sequence[int]) -> int:
        """Attach a component: ``interface[k]`` is the assembly coordinate of its k-th
        boundary coordinate.  Returns the component's index."""
        m = indices(interface, f"component {getattr(component, 'name', '')!r}: interface",
                    upper=self.n_interface, noun="coordinate index").ravel()
        if m.shape != (component.n_boundary,):
            raise ModelError(f"component {component.name!r}: {component.n_boundary} boundary "
                             f"coordinates but {m.size} interface indices")
        if m.size and (m.min() < 0 or m.max() >= self.n_interface):
            raise ModelError(f"component {component.name!r}: interface indices must lie in "
                             f"[0, {self.n_interface - 1}]")
        self.components.append(component)
        self.maps.append(m)
        return len(self.components) - 1

    def add_mass(self, coords: Sequence[int], mass) -> None:
        """Lumped mass on interface coordinates (a scalar per coordinate or a matrix)."""
        c = indices(coords, "lumped mass: coords", upper=self.n_interface,
                    noun="coordinate index").ravel()
        try:
            m = np.asarray(mass, float)
        except (TypeError, ValueError):
            raise ModelError(f"lumped mass must be numbers; got {mass!r:.60}") from None
        if not np.all(np.isfinite(m)):
            raise ModelError(f"lumped mass must be finite; got {mass!r:.60}")
        if m.ndim == 0:
            m = np.full(len(c), float(m))
        if m.ndim == 1:
            if np.any(m < 0):
                raise ModelError("lumped masses must be ≥ 0")
            m = np.diag(m)
        if m.shape != (len(c), len(c)):
            raise ModelError(f"lumped mass for {len(c)} coordinates has shape {m.shape}")
        self.lumped_M[np.ix_(c, c)] += m

    def add_stiffness(self, coords: Sequence[int], k) -> None:
        """A stiffness matrix on interface coordinates (springs, actuators)."""
        c = indices(coords, "stiffness: coords", upper=self.n_interface,
                    noun="coordinate index").ravel()
        try:
            k = np.atleast_2d(np.asarray(k, float))
        except (TypeError, ValueError):
            raise ModelError(f"stiffness must be numbers; got {k!r:.60}") from None
        if not np.all(np.isfinite(k)):
            raise ModelError("stiffness must be finite")
        if k.shape != (len(c), len(c)):
            raise ModelError(f"stiffness for {len(c)} coordinates has shape {k.shape}")
        self.lumped_K[np.ix_(c, c)] += k

    def fix(self, coords: Sequence[int]) -> None:
        """Fix interface coordinates (supports)."""
        self.fixed.update(int(c) for c in indices(coords, "fix: coords", upper=self.n_interface,
                                                  noun="coordinate index").ravel())

    @property
    def n_total(self) -> int:
        return self.n_interface + sum(c.n_modes for c in self.components)

    def locations(self) -> list[np.ndarray]:
        """Per component: the assembly coordinates of its reduced coordinates."""
        out, start = [], self.n_interface
        for c, m in zip(self.components, self.maps, strict=True):
            out.append(np.concatenate([m, start + np.arange(c.n_modes)]))
            start += c.n_modes
        return out

    def free(self) -> np.ndarray:
        return np.setdiff1d(np.arange(self.n_total), sorted(self.fixed))

    def matrices(self, free_only: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Assembled reduced ``(M, K)`` (dense; by default without fixed coordinates)."""
        n = self.n_total
        M = np.zeros((n, n))
        K = np.zeros((n, n))
        M[:self.n_interface, :self.n_interface] += self.lumped_M
        K[:self.n_interface, :self.n_interface] += self.lumped_K
        for c, loc in zip(self.components, self.locations(), strict=True):
            M[np.ix_(loc, loc)] += c.M
            K[np.ix_(loc, loc)] += c.K
        if free_only:
            f = self.free()
            return M[np.ix_(f, f)], K[np.ix_(f, f)]
        return M, K

    def modes(self, n_modes: int = 6) -> AssemblyModes:
        """Lowest natural frequencies of the assembly (eq 25); shapes over ``free()``."""
        M, K = self.matrices()
        w2, V = generalized_eigen(M, K, integer(n_modes, "n_modes", 1))
        return AssemblyModes(np.sqrt(np.clip(w2, 0, None)) / (2 * np.pi), V)

    def expand(self, x_free: np.ndarray) -> list[np.ndarray]:
        """Per component, its physical coordinates ``T x`` from assembly free coordinates
        (one vector or columns)."""
        x = np.zeros((self.n_total,) + np.shape(x_free)[1:])
        x[self.free()] = x_free
        return [c.expand(x[loc]) for c, loc in zip(self.components, self.locations(),
                                                    strict=True)]


def null_space_basis(B, tol: float = 1e-10) -> sp.csr_matrix:
    """Sparse ``D`` with ``B D = 0`` and ``q = D q_f`` (the paper's eq 23).

    The columns of ``B`` are split by a column-pivoted QR into ``r = rank B``
    independent columns ``B_a`` and the rest ``B_f``; then ``q_a = -B_a⁻¹ B_f q_f`` and
    ``q_f`` are the independent coordinates.
    """
    Bd = B.toarray() if sp.issparse(B) else np.asarray(B, float)
    if Bd.ndim != 2:
        raise ModelError(f"B must be a matrix; got shape {Bd.shape}")
    n = Bd.shape[1]
    if Bd.shape[0] == 0:
        return sp.identity(n, format="csr")
    _, R, piv = sla.qr(Bd, pivoting=True, mode="economic")
    d = np.abs(np.diag(R))
    r = int(np.sum(d > tol * max(d.max(), 1e-300)))
    a, f = piv[:r], np.sort(piv[r:])
    X = -np.linalg.solve(Bd[:, a].T @ Bd[:, a], Bd[:, a].T @ Bd[:, f])
    X[np.abs(X) < 1e-14] = 0.0
    D = sp.lil_matrix((n, len(f)))
    D[np.ix_(a, np.arange(len(f)))] = X
    D[f, np.arange(len(f))] = 1.0
    return D.tocsr()


def constrain(M, K, B) -> tuple[np.ndarray, np.ndarray, sp.csr_matrix]:
    """``(Dᵀ M D, Dᵀ K D, D)`` for compatibility ``B q = 0`` (the paper's eqs 22–25)."""
    D = null_space_basis(B)
    Md = D.T @ (M @ D)
    Kd = D.T @ (K @ D)
    dense = lambda A: A.toarray() if sp.issparse(A) else np.asarray(A)  # noqa: E731
    return dense(Md), dense(Kd), D


Assembly = ComponentAssembly
"""The former name of :class:`ComponentAssembly` (kept for old imports; distinct from
:class:`fem.assembly.Assembly`, the constrained system's assembly)."""
