"""What a body nonlinear in its coordinates supplies to the assembly."""

from __future__ import annotations

import numpy as np

__all__ = ["NonlinearBody", "inertia_from_points", "modal_damping_matrix"]


def modal_damping_matrix(M: np.ndarray, K: np.ndarray, ratio,
                         what: str = "modal damping") -> tuple[np.ndarray, np.ndarray]:
    """The damping matrix that gives each mode of ``(K, M)`` its damping ratio::

        C = M Φ diag(2 ζᵢ ωᵢ) Φᵀ M,      K Φ = M Φ Ω²,  Φᵀ M Φ = I

    so ``Φᵀ C Φ = diag(2 ζᵢ ωᵢ)``.

    Parameters
    ----------
    M, K : ndarray (n, n)
        Symmetric, ``M`` positive definite.
    ratio : float or sequence of n floats
        ``ζ`` of every mode or one per mode, lowest frequency first (each ≥ 0).
    what : str
        The name used in error messages.

    Returns
    -------
    C : ndarray (n, n)
    omega : ndarray (n,)
        The modes' circular frequencies [rad/s].
    """
    import scipy.linalg

    from ..core.errors import ModelError

    n = M.shape[0]
    z = np.asarray(ratio, dtype=float)
    if z.ndim == 0:
        z = np.full(n, float(z))
    if z.shape != (n,) or not np.all(np.isfinite(z)) or np.any(z < 0):
        raise ModelError(f"{what}: ratio must be one number ≥ 0 or {n} of them (one per "
                         f"mode); got {ratio!r:.80}")
    Ms, Ks = 0.5 * (M + M.T), 0.5 * (K + K.T)
    lam, Phi = scipy.linalg.eigh(Ks, Ms)
    omega = np.sqrt(np.maximum(lam, 0.0))
    MP = Ms @ Phi
    return (MP * (2.0 * z * omega)) @ MP.T, omega


def inertia_from_points(w: np.ndarray, J: np.ndarray, H: np.ndarray, v: np.ndarray,
                        a: np.ndarray, tangent: bool = False):
    """Inertia forces of weighted material points ``r_p(q)``: ``Σ w_p J_pᵀ r̈_p`` with
    ``r̈ = J a + q̇ᵀH q̇``, and with ``tangent`` ``(M, ∂/∂q, ∂/∂q̇)``.

    ``w`` (P,) masses (or second moments of directors), ``J`` (P, 3, k), ``H`` (P, 3, k, k)
    the second derivatives.  ``∂/∂q`` leaves out the third derivatives of ``r`` (modified
    Newton converges without them).  This is Lagrange's equation of ``T = ½ Σ w |ṙ|²``.
    """
    # every sum over the points and components as one 2-D product (BLAS), the points'
    # (P, 3) rows flattened: a few large calls, not many small batched ones
    P, _, k = J.shape
    Jf = J.reshape(3 * P, k)
    Hf = H.reshape(3 * P * k, k)
    Hv = (Hf @ v).reshape(3 * P, k)
    acc = Jf @ a + Hv @ v
    wJ = np.repeat(w, 3)[:, None] * Jf
    f = acc @ wJ
    if not tangent:
        return f, None
    M = wJ.T @ Jf
    C = 2.0 * (wJ.T @ Hv)
    Ha = (Hf @ a).reshape(3 * P, k)
    Kq = ((np.repeat(w, 3) * acc) @ H.reshape(3 * P, k * k)).reshape(k, k) + wJ.T @ Ha
    return f, (M, Kq, C)


class NonlinearBody:
    """A body whose mass depends on its coordinates (abstract; see the package docstring).

    Attributes
    ----------
    name : str
    dofs : ndarray (k,)
        Its global coordinates, in the order of every local array below.
    """

    name: str
    dofs: np.ndarray
    elastic: bool = True
    #: constant damping matrix (k, k) on the body's coordinates, or None
    damping_matrix: np.ndarray | None = None
    #: the FE model the body is drawn on, or None: then it supplies
    #: ``fe_coordinates(q)`` and ``fe_velocities(q, v)`` of that model
    #: (:class:`fem.io.fe_bodies.BodyMeshes` draws it with the model's own fields)
    fe_model = None
    #: whether the body carries a constant force on one of its points itself
    #: (``add_load(point, force)``, :meth:`fem.Model.add_force`)
    carries_loads: bool = False

    def inertia(self, q: np.ndarray, v: np.ndarray, a: np.ndarray, tangent: bool = False):
        """``M(q) a + f_qv(q, q̇)`` (k,) on the body's coordinates (arguments global)
        and, with ``tangent``, ``(M, ∂/∂q, ∂/∂q̇)`` (k, k) each.  ``f_qv`` holds every
        velocity-dependent force of the body: a damping that depends on the pose (the
        reduced body's FE damping) belongs here, a constant one in
        :attr:`damping_matrix`."""
        raise NotImplementedError

    def mass(self, q: np.ndarray) -> np.ndarray:
        """``M(q)`` (k, k)."""
        raise NotImplementedError

    def forces(self, q: np.ndarray, gravity: np.ndarray, tangent: bool = False):
        """Elastic forces less the weight (k,) and, with ``tangent``, their tangent."""
        raise NotImplementedError

    def compiled_kernel(self, gravity: np.ndarray):
        """The body's inertia and forces as data for the compiled entry point
        :func:`fem.bodies.kernels.body_terms`: ``(kind, m, dofs, data, index, P)`` (see
        :mod:`fem.bodies.kernels`), or None (the default) when only the Python methods
        evaluate it.  Tangents stay with :meth:`inertia` and :meth:`forces`."""
        return None

    def energy(self, q: np.ndarray, v: np.ndarray, gravity: np.ndarray) -> dict[str, float]:
        """``{"kinetic_J", "potential_J", "elastic_J"}``."""
        raise NotImplementedError

    def failure_notes(self, q: np.ndarray) -> list[str]:
        """What this body can say about a solver's failure at the state ``q`` (the last
        converged one): sentences for the diagnosis (:mod:`fem.solvers.diagnosis`);
        none by default."""
        return []
