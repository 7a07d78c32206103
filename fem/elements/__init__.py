"""Element registry and the batched element interface.

An element family is a class derived from :class:`ElementFamily` and registered by name::

    @register("ancf_cable")
    class AncfCable(ElementFamily):
        cell = "line"
        node_layout = (("r", "r_x"), ("r", "r_x"))
        ...

One instance of a family holds a *batch* of elements (all elements of one group) and
evaluates everything for the whole batch at once; arrays are shaped
``(n_elements, n_quadrature_points, ...)``.  Every family in this framework interpolates
positions linearly in its coordinates, ``r(ξ) = (N(ξ) ⊗ I₃) q_e``, with the element
coordinates stacked as 3-vectors; this makes mass matrices ``m ⊗ I₃``, gravity
``M · (t ⊗ g)`` and material points simple linear maps of ``q``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..core.errors import ModelError
from ..core.lazy import lazy_exports
from ..core.registry import Registry
from .materials import Material

__all__ = ["ElementFamily", "register", "get", "available"]

_REGISTRY: Registry = Registry("element", "elements", lambda: _load_builtin())
# the registry's bound methods, as before: register(name), get(name), available()
register = _REGISTRY.register
get = _REGISTRY.get
available = _REGISTRY.available


def _load_builtin() -> None:
    # Import the built-in families lazily so that `register` exists before they load.
    from . import ancf_beam, ancf_cable, ncf  # noqa: F401

    try:
        from . import bezier_plate  # noqa: F401
    except ImportError:  # pragma: no cover - optional while the plate is being built
        pass


class ElementFamily:
    """A batch of elements of one family.

    Parameters
    ----------
    X : ndarray, shape (n_elements, n_dof)
        Reference element coordinates (the nodal 3-vectors of each element, in the order
        of :attr:`node_layout`).
    material : Material or None
    **section
        Family-specific section data (area, second moment, thickness, mass, ...).

    Class attributes
    ----------------
    name : str
        Registry name.
    cell : str
        The mesh cell type the family takes ('line', 'triangle', 'body').
    node_layout : tuple of tuple of str
        For each local node, the names of the 3-vector fields it carries.  The field
        ``"r"`` is a position; anything else (gradients, axis vectors) is a direction.
    elastic : bool
        False for rigid families (no internal forces, no tangent).
    drawing : str
        How output draws the family (:attr:`drawing`).

    Optional capabilities are declared here with neutral defaults, never discovered by
    ``hasattr``: :meth:`draw_triangles`, :meth:`takes_mesh_cells`,
    :meth:`mesh_reference` and :meth:`mesh_node_fields` (how :meth:`fem.Model.add_mesh`
    turns mesh cells into elements).
    """

    name: ClassVar[str] = "?"
    cell: ClassVar[str] = "?"
    node_layout: ClassVar[tuple[tuple[str, ...], ...]] = ()
    elastic: ClassVar[bool] = True
    constant_mass: ClassVar[bool] = True
    use_kernel: bool = False
    """Whether :meth:`forces` runs a compiled kernel (:mod:`fem.elements.kernels`); a
    family that has one sets it True and falls back to its NumPy form when it is False
    or numba is missing (the same results to round-off)."""
    drawing: ClassVar[str] = "polyline"
    """How output draws an element: "polyline" (a line through :meth:`draw_points`, drawn
    as a tube), "surface" (the triangles :meth:`draw_triangles` over
    :meth:`draw_points`), or "sketch" (a rigid body: the polyline through its body's
    sketch points)."""
    section_keys: ClassVar[tuple[str, ...] | None] = None
    """Every section key the family reads (None: not declared, anything accepted); a key
    outside it — a typo such as ``n_gaus=`` — is refused instead of silently ignored."""
    section_rules: ClassVar[dict[str, str]] = {}
    """What each section value must be, checked before the family sees it: "positive",
    "nonnegative" or "finite" (a number or one per element), "count" (an integer ≥ 1),
    "flag" (True/False), "vector3" (one 3-vector, or one per element), "tensor33" (one
    3×3, or one per element).  Any other numeric value must at least be finite."""

    def __init__(self, X: np.ndarray, material: Material | None = None, **section):
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.n_dof:
            raise ModelError(
                f"element {self.name!r}: reference coordinates must have shape "
                f"(n_elements, {self.n_dof}), got {X.shape}"
            )
        if not np.all(np.isfinite(X)):
            bad = np.flatnonzero(~np.all(np.isfinite(X), axis=1))
            raise ModelError(f"element {self.name!r}: non-finite reference coordinates in "
                             f"elements {bad[:10].tolist()}")
        self.X = X
        if material is not None:
            from .materials import material as validate_material

            validate_material(material, f"element {self.name!r}: material")
        self.material = material
        if self.section_keys is not None:
            unknown = [k for k in section if k not in self.section_keys]
            if unknown:
                import difflib

                close = difflib.get_close_matches(unknown[0], self.section_keys, n=1)
                raise ModelError(f"element {self.name!r}: unknown section data {unknown[0]!r}"
                                 f"{f' (did you mean {close[0]!r}?)' if close else ''}; it "
                                 f"takes {', '.join(self.section_keys)}")
        for key, value in section.items():
            check_section(self.name, key, value, self.section_rules.get(key), X.shape[0])
        self.section = dict(section)

    # ----------------------------------------------------------------- layout
    @classmethod
    def n_vectors(cls) -> int:
        return sum(len(f) for f in cls.node_layout)

    @property
    def n_dof(self) -> int:
        return 3 * self.n_vectors()

    @property
    def n_elements(self) -> int:
        return self.X.shape[0]

    @classmethod
    def translation_pattern(cls) -> np.ndarray:
        """``t`` (n_vectors,): 1 for position vectors, 0 for directions.

        ``q + t ⊗ d`` is the element translated rigidly by ``d``.
        """
        return np.array([1.0 if f == "r" else 0.0 for fs in cls.node_layout for f in fs])

    # ------------------------------------------------------------- kinematics
    def shape(self, xi: np.ndarray) -> np.ndarray:
        """Scalar shape functions ``N`` at reference points ``xi``: (n_el, n_pts, n_vectors).

        Position of the material point: ``r = Σ_k N_k q_k``.
        """
        raise NotImplementedError

    def positions(self, q: np.ndarray, xi: np.ndarray) -> np.ndarray:
        """Positions of reference points ``xi`` in every element: (n_el, n_pts, 3)."""
        N = self._shape_at(np.atleast_2d(np.asarray(xi, dtype=float)))
        return np.einsum("epk,ekd->epd", N, q.reshape(self.n_elements, -1, 3))

    def _shape_at(self, xi: np.ndarray) -> np.ndarray:
        """:meth:`shape` at ``xi``, kept (read-only) for points asked again: outputs read
        the same points at every recorded step."""
        key = xi.tobytes() + bytes(str(xi.shape), "ascii")
        cache = self.__dict__.setdefault("_positions_cache", {})
        N = cache.get(key)
        if N is None:
            N = np.array(self.shape(xi))         # a copy: never a family's own array
            N.flags.writeable = False
            if len(cache) >= 64:
                cache.clear()
            cache[key] = N
        return N

    def draw_points(self) -> np.ndarray:
        """Reference points used to draw one element (for VTK output)."""
        raise NotImplementedError

    def draw_triangles(self) -> np.ndarray | None:
        """Triangles (k, 3) over :meth:`draw_points` that draw one element of a
        ``"surface"`` family; None for the others."""
        return None

    # ------------------------------------------------------------- from a mesh
    @classmethod
    def takes_mesh_cells(cls) -> bool:
        """Whether the family's :attr:`cell` is a cell type of meshes ('line',
        'triangle'): what :meth:`fem.Model.add_mesh` builds elements on."""
        return cls.cell in ("triangle", "line")

    @classmethod
    def mesh_reference(cls, vertices: np.ndarray, thickness=None,
                       normal=None) -> np.ndarray | None:
        """Reference coordinates (n_el, n_dof) of elements on mesh cells whose vertices
        are ``vertices`` (n_el, n_cell_vertices, 3), or None when the nodes' fields
        (:meth:`mesh_node_fields`) give them."""
        return None

    @classmethod
    def mesh_node_fields(cls, points: np.ndarray,
                         cells: np.ndarray) -> dict[str, np.ndarray] | None:
        """Fields of the nodes shared at the mesh vertices that ``cells`` use (in the order
        of ``np.unique(cells)``), keyed like :attr:`node_layout`; None when each element
        keeps private vertex nodes (to be joined by constraints, from
        :meth:`mesh_reference`).

        The default shares positions (a layout of ``r`` only) and positions with slopes
        (``r, r_x``: the unit direction of an adjacent line cell; the family checks that
        the reference chain is straight)."""
        layout = cls.node_layout[: cells.shape[1]]
        used = np.unique(cells)
        P = np.asarray(points, float)
        if all(f == ("r",) for f in layout):
            return {"r": P[used]}
        if all(f == ("r", "r_x") for f in layout):
            d = P[cells[:, 1]] - P[cells[:, 0]]
            d /= np.maximum(np.linalg.norm(d, axis=1), 1e-300)[:, None]
            tang = np.zeros_like(P)
            tang[cells[:, 1]] = d
            tang[cells[:, 0]] = d
            return {"r": P[used], "r_x": tang[used]}
        return None

    # ---------------------------------------------------------------- inertia
    def mass_scalar(self) -> np.ndarray:
        """Scalar mass matrices ``m`` (n_el, n_vectors, n_vectors); ``M_e = m ⊗ I₃``."""
        raise NotImplementedError

    def mass(self) -> np.ndarray:
        """Element mass matrices (n_el, n_dof, n_dof)."""
        m = self.mass_scalar()
        return np.einsum("eij,kl->eikjl", m, np.eye(3)).reshape(
            self.n_elements, self.n_dof, self.n_dof
        )

    def shape_integral(self) -> np.ndarray:
        """``∫ N dΩ`` over the element's length/area (n_el, n_vectors): a distributed load
        ``w`` per unit length/area gives the generalized force ``(∫N dΩ) ⊗ w``."""
        raise ModelError(f"element {self.name!r} takes no distributed loads")

    # ----------------------------------------------------------------- forces
    def forces(
        self, q: np.ndarray, v: np.ndarray | None = None, tangent: bool = False
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Internal (elastic) generalized forces and optionally their tangent.

        Returns ``f_int`` (n_el, n_dof) with the sign of a restoring force on the left-hand
        side, ``M q̈ + f_int = f_ext``, and ``K = ∂f_int/∂q`` (n_el, n_dof, n_dof) or None.
        """
        z = np.zeros((self.n_elements, self.n_dof))
        return z, (np.zeros((self.n_elements, self.n_dof, self.n_dof)) if tangent else None)

    def add_forces(self, q: np.ndarray, v: np.ndarray | None, dofs: np.ndarray,
                   out: np.ndarray, tangent: bool = False) -> np.ndarray | None:
        """Add the batch's internal forces to the global vector ``out`` (in place) and
        return its tangent values (n_el, n_dof, n_dof), or None without ``tangent``.

        ``q``, ``v`` are the global coordinates and velocities, ``dofs`` (n_el, n_dof) the
        batch's global coordinate indices.  Contributions are summed in element order,
        as ``np.bincount`` does; a family with a compiled kernel may override this to
        gather and scatter in the kernel itself (one call per iteration).
        """
        fe, Ke = self.forces(q[dofs], None if v is None else v[dofs], tangent)
        out += np.bincount(dofs.ravel(), fe.ravel(), minlength=out.size)
        return Ke

    strain_rate_damping: ClassVar[bool] = False
    """Whether the family has strain-rate (Kelvin–Voigt) damping,
    :meth:`strain_rate_forces` (:meth:`fem.Model.add_damping` with
    ``kind="strain_rate"``)."""

    def strain_rate_forces(self, q: np.ndarray, v: np.ndarray, eta: np.ndarray,
                           tangent: bool = False):
        """Strain-rate (Kelvin–Voigt) damping forces of the batch.

        With the family's strain measures ``s(q)`` and section stiffnesses ``D`` (its
        energy ``U = ½ ∫ sᵀ D s``), the viscous stresses are ``η D ṡ`` and the damping
        force is their virtual work, ``f_d = η ∫ (∂s/∂q)ᵀ D ṡ``, ``ṡ = (∂s/∂q) q̇``:
        zero whenever the strains do not change (a rigid motion), and ``η K q̇`` for a
        small vibration about the stress-free reference (``K`` its stiffness), so a
        mode of frequency ω gets the damping ratio ``ζ = η ω / 2``.

        Parameters
        ----------
        q, v : ndarray (n_el, n_dof)
            Element coordinates and velocities.
        eta : ndarray (n_el,)
            Retardation time [s] of each element.
        tangent : bool
            Also return ``∂f_d/∂q`` and ``∂f_d/∂q̇``.

        Returns
        -------
        f_d : ndarray (n_el, n_dof)
        dq, dv : ndarray (n_el, n_dof, n_dof) or None
            ``∂f_d/∂q`` and ``∂f_d/∂q̇`` (None without ``tangent``).
        """
        raise ModelError(f"element {self.name!r} has no strain-rate damping; use "
                         "add_damping(group, beta) (kind='reference')")

    def compiled_forces(self) -> tuple | None:
        """The family's force kernel as data for compiled solvers:
        ``(kind, arrays3, arrays2)`` — the kernel's number in
        :func:`fem.elements.kernels.group_forces` and its two tuples of work arrays
        (C-contiguous float, 3-D and 2-D, in the common layout of
        :func:`fem.elements.kernels.work_arrays`) — or None (the default: no such kernel, or
        numba missing or turned off).  It computes what :meth:`add_forces` does, without
        velocities (elastic forces only)."""
        return None

    def energy(self, q: np.ndarray) -> np.ndarray:
        """Elastic strain energy per element (n_el,)."""
        return np.zeros(self.n_elements)

    def strains(self, q: np.ndarray, xi: np.ndarray) -> dict[str, np.ndarray]:
        """Strain-like fields at reference points ``xi``: name -> (n_el, n_pts, ...)."""
        return {}

    # ------------------------------------------------------------ constraints
    def internal_constraints(self) -> list[tuple[str, list, list]]:
        """Constraints the family needs on its own coordinates (rigidity).

        Returns a list of ``(kind, a, b)`` with kind 'dot' meaning
        ``(a·q_e)·(b·q_e) = const`` where ``a`` and ``b`` are lists of
        ``(vector_index, coefficient)`` pairs over the element's 3-vectors.
        """
        return []


def check_section(family: str, key: str, value, rule: str | None, n: int) -> None:
    """Check one section value of ``n`` elements of ``family`` against its declared
    ``rule`` (:attr:`ElementFamily.section_rules`); undeclared numbers must be finite.
    An infinite area or a NaN thickness is refused here, before any solve could blame it
    on buckling."""
    from ..core import validate as v

    what = f"element {family!r}: section {key}"
    if value is None:
        return              # not given: the family's default or its own "needs ..." message
    if rule is None:
        if isinstance(value, str | bool | type(None)) or callable(value):
            return
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            return          # not numeric: the family decides what it is
        if not np.all(np.isfinite(arr)):
            raise ModelError(f"{what} must be finite; got {v.shown(value)}")
        return
    if rule == "count":
        v.integer(value, what, minimum=1)
    elif rule == "flag":
        v.boolean(value, what)
    elif rule in ("positive", "nonnegative", "finite"):
        if isinstance(value, str | bytes | bool) or value is None:
            raise ModelError(f"{what} must be a number (or one per element); got "
                             f"{v.shown(value)}")
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise ModelError(f"{what} must be a number (or one per element); got "
                             f"{v.shown(value)}") from None
        if arr.ndim > 1 or (arr.ndim == 1 and arr.size not in (1, n)):
            raise ModelError(f"{what} must be a number or {n} numbers (one per element); "
                             f"got shape {arr.shape}")
        per_element = arr.ndim == 1
        arr = arr.ravel()
        sign = {"positive": ("> 0", ~(arr > 0)), "nonnegative": ("≥ 0", ~(arr >= 0)),
                "finite": ("", np.zeros(arr.size, bool))}[rule]
        if per_element:             # one value per element: name the elements
            bad = ~np.isfinite(arr) | sign[1]
            if bad.any():
                idx = np.flatnonzero(bad)
                need = f"finite and {sign[0]}" if sign[0] else "finite"
                raise ModelError(f"{what} must be {need} (elements {idx[:10].tolist()}); "
                                 f"got {float(arr[idx[0]])!r}")
        elif not np.isfinite(arr[0]):
            raise ModelError(f"{what} must be finite; got {float(arr[0])!r}")
        elif sign[1][0]:
            raise ModelError(f"{what} must be {sign[0]}; got {float(arr[0])!r}")
    elif rule in ("vector3", "tensor33"):
        shape = (3,) if rule == "vector3" else (3, 3)
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            arr = None
        if arr is None or isinstance(value, str | bytes) or not (
                arr.shape == shape or arr.shape == (n, *shape)):
            kind = "3-vector" if rule == "vector3" else "3×3 array"
            raise ModelError(f"{what} must be a {kind} of numbers (or one per element); got "
                             f"{v.shown(value)}")
        if not np.all(np.isfinite(arr)):
            raise ModelError(f"{what} must be finite; got {v.shown(value)}")
    else:       # pragma: no cover - a declaration error
        raise TypeError(f"unknown section rule {rule!r} for {family}.{key}")

# every module of the package an attribute, imported on first use
__getattr__, __dir__ = lazy_exports(__name__, {})
