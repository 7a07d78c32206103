"""The model: coordinates, nodes, element groups, loads and constraints.

A model is a vector of generalized coordinates ``q`` organised in *nodes*.  A node is a
set of named 3-vectors (``r``, ``r_x``, ``u``, …); elements of a family gather the fields
their :attr:`~fem.elements.ElementFamily.node_layout` asks for from the nodes they connect,
so elements that share a node share its coordinates.  Constraints and loads refer to
points and vectors as :class:`~fem.LinearMap` objects.  :meth:`Model.assemble` freezes the
structure into an :class:`~fem.assembly.Assembly` with the sparse patterns built once.

Nodes, element groups and constraints carry names; :meth:`Model.node`,
:meth:`Model.group` and :meth:`Model.constraint` find them again, so code that builds a
model and code that reads its results share names, not attributes added to the model.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple

import numpy as np

from .. import elements as _elements
from ..constraints import Coincident, Constraint, Dot, Fixed
from ..core.errors import ModelError
from ..core.validate import (
    CAMERAS,
    checked,
    choice,
    finite,
    indices,
    integer,
    matrix,
    nonnegative,
    optional,
    points,
    rotation,
    text,
    vector3,
)
from ..core.validate import rotation as _rotation
from ..elements.materials import Material
from ..elements.materials import material as validate_material
from ..maps.linear_map import LinearMap, constant
from ..maps.point_maps import PointMap, point_map

__all__ = ["Model", "ElementGroup", "Body"]


@dataclass
class ElementGroup:
    """A batch of elements of one family.

    A group built from a mesh (:meth:`Model.add_mesh`) also knows the mesh: ``mesh``, the
    cell vertices' node ids ``vertex_nodes`` (n_el, 3 or 2), and ``mesh_vertex_node``
    (mesh vertex → node id, −1 where unused); all three are None for other groups.
    """

    name: str
    family: _elements.ElementFamily
    nodes: np.ndarray          # (n_el, n_nodes) node ids
    dofs: np.ndarray           # (n_el, n_dof) global coordinate indices
    mesh: object | None = None                 # the Mesh it was built from
    vertex_nodes: np.ndarray | None = None     # (n_el, 3 or 2) node ids of cell vertices
    mesh_vertex_node: np.ndarray | None = None  # mesh vertex -> node id (−1: unused)

    @property
    def n_elements(self) -> int:
        return self.nodes.shape[0]

    def __repr__(self) -> str:
        family = self.family.name
        coords = len(np.unique(self.dofs)) if self.dofs.size else 0
        return (f"ElementGroup({self.name!r}: {self.n_elements} × {family}, "
                f"{coords} coordinates{', from a mesh' if self.mesh is not None else ''})")

    def material_point(self, element: int, xi) -> LinearMap:
        """The material point with reference coordinates ``xi`` of element ``element``."""
        element = integer(element, f"element group {self.name!r}: element index")
        if not 0 <= element < self.n_elements:
            raise ModelError(f"element group {self.name!r} has {self.n_elements} elements; "
                             f"no element {element}")
        try:
            x = np.atleast_2d(np.asarray(xi, float))
        except (TypeError, ValueError):
            raise ModelError(f"element group {self.name!r}: reference coordinates xi must be "
                             f"numbers; got {xi!r:.60}") from None
        if x.shape[0] != 1 or not np.all(np.isfinite(x)):
            raise ModelError(f"element group {self.name!r}: xi must be one finite point in "
                             f"the element's reference coordinates; got {xi!r:.60}")
        N = self.family.shape(x)[element, 0]
        coef = np.einsum("k,ij->ikj", N, np.eye(3)).reshape(3, -1)
        return LinearMap(self.dofs[element], coef, label=f"{self.name}[{element}]({xi})")


@dataclass
class Body:
    """A natural-coordinate rigid body (point ``r`` and vectors ``u, v, w``)."""

    name: str
    node: int
    model: Model = field(repr=False)
    sketch: np.ndarray | None = None     # body points drawn as a polyline (output)

    def point(self, x_body, label: str | None = None) -> LinearMap:
        """Body point with body coordinates ``x_body`` (along u, v, w from r)."""
        x = vector3(x_body, f"body {self.name!r}: point x_body (body coordinates)")
        dofs = self.model.node_dofs(self.node, ("r", "u", "v", "w"))
        coef = np.hstack([np.eye(3), x[0] * np.eye(3), x[1] * np.eye(3), x[2] * np.eye(3)])
        return LinearMap(dofs, coef, label=label or f"body {self.name!r} point {x.tolist()}")

    def vector(self, v_body, label: str | None = None) -> LinearMap:
        """Body-fixed direction with body components ``v_body`` (a combination of u, v, w)."""
        v = vector3(v_body, f"body {self.name!r}: vector v_body (body components)")
        dofs = self.model.node_dofs(self.node, ("u", "v", "w"))
        coef = np.hstack([v[0] * np.eye(3), v[1] * np.eye(3), v[2] * np.eye(3)])
        return LinearMap(dofs, coef, label=label or f"body {self.name!r} vector {v.tolist()}")

    @property
    def origin(self) -> LinearMap:
        return self.model.node_field(self.node, "r")

    def axis(self, i: int) -> LinearMap:
        """Body axis ``u`` (0), ``v`` (1) or ``w`` (2)."""
        i = integer(i, f"body {self.name!r}: axis index", minimum=0, maximum=2)
        return self.model.node_field(self.node, "uvw"[i])

    def rotation(self, q: np.ndarray) -> np.ndarray:
        """Columns u, v, w at ``q`` (3×3)."""
        return np.column_stack([self.axis(i)(q) for i in range(3)])


class Sketch(NamedTuple):
    """A drawing-only polyline or surface (:meth:`Model.add_sketch`)."""

    name: str
    points: list
    radius: float
    triangles: np.ndarray | None


class Model:
    """A multibody model of generalized coordinates.

    Parameters
    ----------
    name : str
    gravity : array_like (3,)
        Gravitational acceleration [m/s²], applied to every mass consistently with the
        mass matrix (``f_g = M (t ⊗ g)``, ``t`` the translation pattern).

    Attributes
    ----------
    view : {"iso", "xy", "xz", "yz"}
        The default camera of renderings (snapshots and animations written by
        :func:`fem.write_outputs`): ``"iso"`` (default) an isometric view; ``"xy"``,
        ``"xz"``, ``"yz"`` the view onto that coordinate plane (``"xz"`` for a mechanism
        moving in the XZ plane).  Set it in a case's ``build``: ``model.view = "xz"``;
        any other value raises :class:`~fem.ModelError` at the assignment.
    node_names : list of str
        The name of every node, by id (:meth:`node` finds a node by its name).
    groups : list of ElementGroup
        The element groups, in the order added (:meth:`group` finds one by its name).
    constraints : list of Constraint
        The constraints, in the order added (:meth:`constraint` finds one by its name).
    bodies : dict of str to Body
        The rigid bodies by name.

    A model holds what it is made of and nothing else: a case keeps its own state (a
    node it reads, a group it measures) as *names* and finds them with :meth:`node`,
    :meth:`group` and :meth:`constraint`, rather than as attributes added to the model.
    """

    drawing: ClassVar[str] = "elements"
    """How output draws the model (:func:`fem.io.output.drawing_for`): "elements" — its
    element groups, sketches and bodies (:class:`fem.io.drawing.Drawing`); the models in
    minimal coordinates of :mod:`fem.model.chains` declare "centrelines"."""
    _sealed: bool = False
    """Set at the end of ``__init__``: from then on only declared attributes are set."""

    def __init__(self, name: str = "model", gravity=(0.0, 0.0, 0.0)):
        self.name = text(name, "Model: name")
        self.gravity = vector3(gravity, f"model {name!r}: gravity")
        self._q0: list[np.ndarray] = []
        self._n_dof = 0
        self.node_fields: list[dict[str, int]] = []   # node -> field -> first dof
        self.node_names: list[str] = []
        self.groups: list[ElementGroup] = []
        self.constraints: list[Constraint] = []
        self.point_masses: list[tuple[LinearMap, float]] = []
        self.forces: list[tuple[LinearMap, Callable | np.ndarray, str]] = []
        self.distributed: list[tuple[ElementGroup, np.ndarray]] = []
        self.bodies: dict[str, Body] = {}
        self.actuators: list = []
        self.damping: list[tuple[ElementGroup, float]] = []
        self.strain_rate_damping: list[tuple[ElementGroup, float]] = []
        self.sketches: list[Sketch] = []
        self.link_frames: dict[str, tuple] = {}   # group or body name -> (origin, tip, side)
        self.nonlinear_bodies: list = []     # fem.bodies: floating-frame links, …
        self.coordinate_blocks: list[tuple[str, int, int]] = []   # (name, first, size)
        self.view = "iso"
        self._assembly = None
        self._sealed = True

    # ---------------------------------------------------------------- display
    def _overview(self) -> list[tuple[str, str]]:
        from ..core.display import count

        n_el = sum(g.n_elements for g in self.groups)
        groups = ", ".join(f"{g.name}: {g.n_elements} × {g.family.name}"
                           for g in self.groups[:3])
        if len(self.groups) > 3:
            groups += f", … {len(self.groups) - 3} more"
        lines = [("coordinates", str(self.n_dof)),
                 ("nodes", str(len(self.node_names))),
                 ("elements", f"{n_el} in {count(len(self.groups), 'group')}"
                              + (f" ({groups})" if groups else ""))]
        bodies = len(self.bodies) + len(self.nonlinear_bodies)
        if bodies:
            lines.append(("bodies", f"{len(self.bodies)} rigid, {len(self.nonlinear_bodies)} "
                                    "flexible (floating-frame or reduced)"))
        rows = None if self._assembly is None else self._assembly.m
        lines.append(("constraints", f"{len(self.constraints)}"
                      + (f" ({rows} rows with the elements' own)" if rows is not None
                         else " (rows counted when assembled)")))
        if self.actuators:
            lines.append(("actuators", str(len(self.actuators))))
        loads = [count(len(self.forces), "force"),
                 count(len(self.distributed), "distributed load"),
                 count(len(self.point_masses), "point mass", "point masses")]
        lines.append(("loads", ", ".join(x for x in loads if not x.startswith("0 "))
                      or "none"))
        lines.append(("gravity", "(" + ", ".join(f"{g:g}" for g in self.gravity)
                      + ") m/s²"))
        lines.append(("view", self.view))
        return lines

    def __repr__(self) -> str:
        from ..core.display import text

        return text(f"fem.Model {self.name!r}", self._overview())

    def _repr_html_(self) -> str:
        from ..core.display import html

        return html(f"fem.Model {self.name!r}", self._overview())

    def __setattr__(self, name: str, value) -> None:
        # the model is not a bag: after construction only its declared attributes may
        # be set (a subclass designs its own); a case keeps its state as names (node, group,
        # constraint lookups), not as attributes added to the model
        if (self._sealed and type(self) is Model
                and not name.startswith("_") and name not in self.__dict__
                and not hasattr(Model, name)):
            raise ModelError(
                f"model {self.name!r} has no attribute {name!r} to set: a model holds what "
                f"it is made of; keep case state in the case, or name the node, group or "
                f"constraint and find it again with Model.node/group/constraint")
        object.__setattr__(self, name, value)

    @property
    def view(self) -> str:
        """The default camera of renderings: ``"iso"``, ``"xy"``, ``"xz"`` or ``"yz"``."""
        return self._view

    @view.setter
    def view(self, value: str) -> None:
        if not isinstance(value, str):
            raise ModelError(f"model {self.name!r}: view (the camera of renderings) must be "
                             f"one of {', '.join(map(repr, CAMERAS))}; got {value!r}")
        self._view = choice(value, CAMERAS,
                            f"model {self.name!r}: view (the camera of renderings)")

    # ---------------------------------------------------------------- lookups
    def _named(self, kind: str, name: str, names: Sequence[str], where: str) -> int:
        """The index of the one item called ``name`` in ``names`` (``kind`` and ``where``,
        what the indices are, for messages)."""
        if not isinstance(name, str):
            article = "an" if kind[0] in "aeiou" else "a"
            raise ModelError(f"model {self.name!r}: {article} {kind} is looked up by its name "
                             f"(a str); got {name!r} ({type(name).__name__})"
                             f"{self._index_hint(kind, name)}")
        hits = [i for i, n in enumerate(names) if n == name]
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise ModelError(f"model {self.name!r}: {len(hits)} {kind}s are named {name!r} "
                             f"({where} {', '.join(map(str, hits[:3]))}"
                             f"{', …' if len(hits) > 3 else ''}); the name is ambiguous — "
                             f"give them distinct names")
        if not names:
            raise ModelError(f"model {self.name!r} has no {kind} named {name!r}: it has no "
                             f"{kind}s")
        unique = list(dict.fromkeys(names))
        low = name.lower()
        close = list(dict.fromkeys(difflib.get_close_matches(name, unique, n=3)
                                   + [n for n in unique if low in n.lower()]))[:3]
        shown = unique[:6]
        more = f", … ({len(names)} {kind}s in all)" if len(unique) > len(shown) else ""
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        raise ModelError(f"model {self.name!r} has no {kind} named {name!r}{hint}; known "
                         f"{kind}s: {', '.join(map(repr, shown))}{more}")

    def _index_hint(self, kind: str, name) -> str:
        """For a lookup by an integer: what that index is, if it exists."""
        if not isinstance(name, int | np.integer) or isinstance(name, bool):
            return ""
        if kind == "element group" and 0 <= name < len(self.groups):
            return (f"; model.groups[{name}] is the group named "
                    f"{self.groups[name].name!r}")
        if kind == "node" and 0 <= name < len(self.node_fields):
            return f"; node ids are integers already: use {name} itself"
        return ""

    def node(self, name: str) -> int:
        """The id of the node called ``name``.

        Parameters
        ----------
        name : str
            The name given to :meth:`add_node` / :meth:`add_nodes`, or by a builder
            (:func:`fem.straight_cable` names its nodes ``"<name> node <i>"``, or as its
            ``end_names`` say).

        Returns
        -------
        int
            The node id, as :meth:`node_dofs`, :meth:`point` and :meth:`fix` take it.

        Raises
        ------
        ModelError
            When no node has that name (the message lists some that exist) or more than
            one has.
        """
        return self._named("node", name, self.node_names, "node ids")

    def group(self, name: str) -> ElementGroup:
        """The element group called ``name`` (the ``name`` given to :meth:`add_elements`,
        :meth:`add_mesh`, a builder or :meth:`add_rigid_body`).

        Parameters
        ----------
        name : str

        Returns
        -------
        ElementGroup

        Raises
        ------
        ModelError
            When no group has that name (the message lists some that exist) or more than
            one has.
        """
        return self.groups[self._named("element group", name, [g.name for g in self.groups],
                                       "model.groups indices")]

    def constraint(self, name: str) -> Constraint:
        """The constraint called ``name`` (its ``name`` when added; joints made by
        :meth:`revolute` add ``"<name> point"`` and ``"<name> axis <i>"``).

        Parameters
        ----------
        name : str

        Returns
        -------
        Constraint

        Raises
        ------
        ModelError
            When no constraint has that name (the message lists some that exist) or more
            than one has.
        """
        return self.constraints[self._named("constraint", name,
                                            [c.name for c in self.constraints],
                                            "model.constraints indices")]

    # ------------------------------------------------------------------ nodes
    @property
    def n_dof(self) -> int:
        return self._n_dof

    @property
    def q0(self) -> np.ndarray:
        """Reference coordinates."""
        return np.concatenate(self._q0) if self._q0 else np.zeros(0)

    def _changed(self) -> None:
        self._assembly = None

    def add_node(self, name: str | None = None, **fields) -> int:
        """Add a node with the given 3-vector fields (e.g. ``r=(0,0,0), r_x=(1,0,0)``)."""
        what = "add_node" + (f" {name!r}" if isinstance(name, str) else "")
        if name is not None:
            text(name, "add_node: name")
        if not fields:
            raise ModelError(f"{what}: a node needs at least one field, e.g. r=(x, y, z)")
        ids = self.add_nodes(names=None if name is None else [name],
                             **{k: vector3(v, f"{what}: field {k}")[None]
                                for k, v in fields.items()})
        return int(ids[0])

    def add_nodes(self, names: Sequence[str] | None = None, **fields) -> np.ndarray:
        """Add ``n`` nodes at once; each field is an (n, 3) array.  Returns node ids."""
        if not fields:
            raise ModelError("add_nodes: a node needs at least one field, e.g. r=(x, y, z)")
        arrays = {k: points(v, f"add_nodes: field {k} (node field {k!r})")
                  for k, v in fields.items()}
        n = {a.shape[0] for a in arrays.values()}
        if len(n) != 1:
            raise ModelError("add_nodes: node fields must all be (n, 3) arrays of the same "
                             "n; got " + ", ".join(f"{k}: {a.shape}" for k, a in arrays.items()))
        n = n.pop()
        if names is not None:
            if isinstance(names, str) or not isinstance(names, Sequence | np.ndarray) \
                    or len(names) != n:
                raise ModelError(f"add_nodes: names must be a list of {n} names, one per "
                                 f"node; got {names!r:.80}")
            for nm in names:
                text(nm, "add_nodes: each of names")
        self._changed()
        first = len(self.node_fields)
        nf = len(arrays)
        block = np.stack([arrays[k] for k in arrays], axis=1).reshape(n, 3 * nf)
        self._q0.append(block.ravel())
        base = self._n_dof + 3 * nf * np.arange(n)
        keys = list(arrays)
        for i in range(n):
            self.node_fields.append({k: int(base[i]) + 3 * j for j, k in enumerate(keys)})
            self.node_names.append(names[i] if names is not None else f"node {first + i}")
        self._n_dof += 3 * nf * n
        return np.arange(first, first + n)

    def _check_node(self, node, what: str) -> int:
        if isinstance(node, bool) or not isinstance(node, int | np.integer):
            raise ModelError(f"{what}: a node id is an integer (from add_node/add_nodes); "
                             f"got {node!r}")
        if not 0 <= node < len(self.node_fields):
            raise ModelError(f"{what}: no node {node}; the model has "
                             f"{len(self.node_fields)} nodes (ids 0..{len(self.node_fields) - 1})")
        return int(node)

    def add_coordinates(self, name: str, values) -> np.ndarray:
        """A block of scalar coordinates that belong to no node (a body's elastic
        coordinates); returns their global indices."""
        try:
            values = np.asarray(values, float).ravel()
        except (TypeError, ValueError):
            raise ModelError(f"coordinates {name!r}: values must be numbers; got "
                             f"{values!r:.80}") from None
        if values.size == 0 or not np.all(np.isfinite(values)):
            raise ModelError(f"coordinates {name!r}: need at least one finite value")
        self._changed()
        first = self._n_dof
        self._q0.append(values.copy())
        self._n_dof += values.size
        self.coordinate_blocks.append((name, first, values.size))
        return np.arange(first, first + values.size)

    def dof_label(self, dof: int) -> str:
        """``"cable node 3 r_y"`` (or ``"link e[2]"``) for a global coordinate index."""
        for i, fields in enumerate(self.node_fields):
            for f, start in fields.items():
                if start <= dof < start + 3:
                    return f"{self.node_names[i]} {f}_{'xyz'[dof - start]}"
        for name, first, size in self.coordinate_blocks:
            if first <= dof < first + size:
                return f"{name}[{dof - first}]"
        return f"coordinate {dof}"

    @checked(name=text, position=vector3, rotation=optional(rotation),
             hub_mass=nonnegative, hub_inertia=optional(lambda v, w: matrix(v, w, (3, 3))))
    def add_floating_frame(self, name: str, link, position=(0.0, 0.0, 0.0),
                           rotation=None, rotary_inertia: str = "section",
                           point_masses=(), hub_mass: float = 0.0, hub_inertia=None):
        """A floating-frame flexible link (:class:`fem.bodies.FloatingFrameBody`).

        Parameters
        ----------
        name : str
        link : fem.elements.floating_frame.FloatingFrameLink
        position : array_like (3,)
            The link's root (frame origin) [m].
        rotation : array_like (3, 3) or None
            Frame axes as columns (``u`` along the link); identity by default.
        rotary_inertia : {"section", "twist"}
            The section's polar inertia in every rotation about the link axis
            ("section"), or on the elastic twist rate only (the paper's, "twist").
        point_masses : sequence of (x, m)
            Point masses [kg] on the centre line at ``x`` [m] from the root.
        hub_mass, hub_inertia : float, array_like (3, 3) or None
            A rigid part fixed to the frame at its origin (a hub): mass [kg] and inertia
            tensor about the origin in frame axes [kg·m²].

        The frame is a rigid body of the same name (:meth:`add_rigid_body`, its six
        rows keep ``u, v, w`` orthonormal), so ``body.origin`` and ``body.axis(i)`` are
        linear maps; ``body.point(x)`` and ``body.direction(x, axis)`` on the deformed
        link are point maps.  Any constraint joins them.
        """
        from ..bodies import FloatingFrameBody
        from ..bodies.floating_frame import check_arguments

        check_arguments(name, link, rotary_inertia, point_masses)
        if any(b.name == name for b in self.nonlinear_bodies):
            raise ModelError(f"there is already a floating frame named {name!r}")
        frame = self.add_rigid_body(name, hub_mass, position, rotation,
                                    inertia=hub_inertia,
                                    sketch=np.zeros((1, 3)))
        fdofs = self.node_dofs(frame.node, ("r", "u", "v", "w"))
        edofs = self.add_coordinates(f"{name} e", np.zeros(link.n_coordinates))
        body = FloatingFrameBody(name, link, frame, fdofs, edofs, rotary_inertia,
                                 point_masses)
        self.nonlinear_bodies.append(body)
        self._changed()
        return body

    def add_reduced_body(self, name: str, reduction, position=None, rotation=None,
                         fe_model=None):
        """A reduced-order flexible body (:class:`fem.bodies.ReducedBody`): the component
        modes of a linear FE model (:func:`fem.reduction.reduce_body`, or
        :meth:`fem.bodies.Reduction.load`) in a floating frame.

        Parameters
        ----------
        name : str
        reduction : fem.bodies.Reduction
        position, rotation : array_like (3,), (3, 3) or None
            The frame's origin and axes (columns); by default where the reduction put
            them in the FE model's reference configuration.
        fe_model : fem.Model or None
            The FE model the reduction came from: the body is then drawn on its full mesh
            with its fields (stresses, strains) by modal superposition.

        The frame is a ``rigid_body`` of the same name (``body.origin``, ``body.axis(i)``
        linear maps); ``body.interface(name)`` and ``body.map(linear_map_of_the_FE_model)``
        are point maps any constraint joins.
        """
        from ..bodies.reduced import ReducedBody, Reduction

        if not isinstance(reduction, Reduction):
            raise ModelError(f"reduced body {name!r}: reduction must be a "
                             f"fem.bodies.Reduction, got {type(reduction).__name__}")
        if any(b.name == name for b in self.nonlinear_bodies):
            raise ModelError(f"there is already a body named {name!r}")
        reduction.check(f"reduced body {name!r}")
        pos = reduction.origin if position is None else vector3(position, f"{name}: position")
        R = reduction.rotation if rotation is None else \
            _rotation(rotation, f"{name}: rotation")
        frame = self.add_rigid_body(name, 0.0, pos, R, sketch=np.zeros((1, 3)))
        fdofs = self.node_dofs(frame.node, ("r", "u", "v", "w"))
        mdofs = self.add_coordinates(f"{name} η", np.zeros(max(reduction.n_modes, 1))) \
            if reduction.n_modes else np.zeros(0, np.int64)
        body = ReducedBody(name, reduction, frame, fdofs, mdofs)
        if fe_model is not None:
            if not isinstance(fe_model, Model) or fe_model.n_dof != reduction.n_fe:
                raise ModelError(f"reduced body {name!r}: fe_model must be the fem.Model "
                                 f"the reduction came from ({reduction.n_fe} coordinates)")
            body.fe_model = fe_model
        self.nonlinear_bodies.append(body)
        self._changed()
        return body

    def add_body(self, body):
        """A body of your own that supplies its inertia and forces on existing
        coordinates (a :class:`fem.bodies.NonlinearBody`: ``dofs``, ``mass``,
        ``inertia``, ``forces``, ``energy``), such as the massless spring-damper between
        two points of :func:`fem.robot.add_spring`.  Its name must be new."""
        from ..bodies.base import NonlinearBody

        if not isinstance(body, NonlinearBody):
            raise ModelError(f"add_body expects a fem.bodies.NonlinearBody; got "
                             f"{type(body).__name__}")
        if any(b.name == body.name for b in self.nonlinear_bodies):
            raise ModelError(f"there is already a body named {body.name!r}")
        dofs = np.asarray(body.dofs)
        if dofs.size and (dofs.min() < 0 or dofs.max() >= self.n_dof):
            raise ModelError(f"body {body.name!r}: its dofs must be coordinates of the "
                             f"model (0 … {self.n_dof - 1})")
        self.nonlinear_bodies.append(body)
        self._changed()
        return body

    @staticmethod
    def _check_map(point, what: str) -> None:
        if not isinstance(point, LinearMap):
            raise ModelError(f"{what}: the point must be a fem.LinearMap (model.point(node), "
                             f"body.point(...), group.material_point(...)); got "
                             f"{type(point).__name__}")

    def node_dofs(self, node: int, fields: Sequence[str] | str = "r") -> np.ndarray:
        """Global coordinate indices of the given fields of a node."""
        if isinstance(fields, str):
            fields = (fields,)
        if not isinstance(fields, Sequence) or not all(isinstance(f, str) for f in fields):
            raise ModelError(f"node_dofs: fields are field names such as 'r' or ['r', 'r_x']; "
                             f"got {fields!r:.60}")
        node = self._check_node(node, "node_dofs")
        nf = self.node_fields[node]
        out = []
        for f in fields:
            if f not in nf:
                raise ModelError(f"{self.node_names[node]} has no field {f!r}; "
                                 f"it has {sorted(nf)}")
            out.append(np.arange(nf[f], nf[f] + 3))
        return np.concatenate(out)

    def node_field(self, node: int, field: str = "r") -> LinearMap:
        """A node's field as a point/vector usable in constraints and loads."""
        if not isinstance(field, str):
            raise ModelError(f"node_field: field is a field name such as 'r' or 'r_x'; got "
                             f"{field!r:.60}")
        return LinearMap(self.node_dofs(node, field), np.eye(3),
                         label=f"{self.node_names[node]} {field}")

    point = node_field

    @staticmethod
    def ground(x, label: str | None = None) -> LinearMap:
        """A fixed point or direction in space."""
        return constant(x, label)

    # --------------------------------------------------------------- elements
    def add_elements(self, element: str, nodes, material: Material | None = None,
                     name: str | None = None, **section) -> ElementGroup:
        """Add a batch of elements of one family.

        Parameters
        ----------
        element : str
            Registered family name (see :func:`fem.elements.available`).
        nodes : array_like of int, shape (n_el, n_nodes)
            Node ids per element, in the family's local node order.
        material : Material, optional
        **section
            Family-specific data (area, inertia, thickness, mass, ...).
        """
        if not isinstance(element, str):
            raise ModelError(f"add_elements: element is a family name (a str, see "
                             f"fem.elements.available()); got {element!r:.80}")
        cls = _elements.get(element)
        layout = cls.node_layout
        if name is not None:
            text(name, "add_elements: name")
        name = name or f"{element}#{len(self.groups)}"
        what = f"element group {name!r} ({element})"
        if material is not None:
            material = validate_material(material, f"{what}: material")
        nodes = indices(nodes, f"{what}: nodes (family {element!r} takes {len(layout)} "
                        f"nodes per element)", upper=len(self.node_fields), width=len(layout),
                        noun="node id")
        if nodes.shape[0] == 0:
            raise ModelError(f"{what}: no elements (nodes is empty)")
        dofs = np.empty((nodes.shape[0], 3 * cls.n_vectors()), dtype=np.int64)
        col = 0
        used = np.unique(nodes)
        for j, fields in enumerate(layout):
            for f in fields:
                # first coordinate of field f per used node (−1 where the node lacks it)
                start = np.full(len(self.node_fields), -1, dtype=np.int64)
                start[used] = [self.node_fields[nd].get(f, -1) for nd in used]
                starts = start[nodes[:, j]]
                if np.any(starts < 0):
                    e = int(np.flatnonzero(starts < 0)[0])
                    nd = int(nodes[e, j])
                    raise ModelError(
                        f"element {e} of group {name!r} ({element}): "
                        f"{self.node_names[nd]} has no field {f!r} "
                        f"(it has {sorted(self.node_fields[nd])}; the family needs "
                        f"{fields} at local node {j})")
                dofs[:, col:col + 3] = starts[:, None] + np.arange(3)
                col += 3
        X = self.q0[dofs]
        try:
            family = cls(X, material, **section)
        except ModelError as err:
            raise ModelError(f"element group {name!r}: {err}") from None
        group = ElementGroup(name, family, nodes, dofs)
        self.groups.append(group)
        for kind, a, b in family.internal_constraints():
            self._add_internal(group, kind, a, b)
        self._changed()
        return group

    def add_mesh(self, mesh, element: str, material: Material | None = None,
                 name: str | None = None, **section) -> ElementGroup:
        """Turn the cells of a :class:`~fem.model.mesh.Mesh` into elements of one family.

        The family's :attr:`cell` type selects the mesh cells ('triangle' or 'line').
        Families that share vertex coordinates between cells (they define
        ``node_fields(points)``, e.g. ``bezier_plate_shared``) get one node per mesh
        vertex; extra nodes of the layout (the plate centroid) are private.  Families
        whose coordinates are element-specific (``bezier_plate``: area-coordinate
        gradients) get private nodes per element, to be joined by continuity
        constraints (:func:`fem.elements.bezier_plate.add_continuity`).  Vertex positions
        and rigid-body families need only ``r`` and share vertices.

        The returned group has ``vertex_nodes``: (n_el, 3 or 2) node ids of the cell
        vertices, ``mesh`` and ``mesh_vertex_node`` (mesh vertex -> node id, −1 unused).
        """
        from .mesh import Mesh

        cls = _elements.get(element)
        name = name or f"{element}#{len(self.groups)}"
        if not isinstance(mesh, Mesh):
            import meshio

            if not isinstance(mesh, meshio.Mesh):
                raise ModelError(f"add_mesh({element!r}): expected a fem.Mesh (fem.read_mesh, "
                                 f"fem.load_builtin_mesh) or a meshio.Mesh; got "
                                 f"{type(mesh).__name__}")
            mesh = Mesh.from_meshio(mesh, name=name)
        if not cls.takes_mesh_cells():
            raise ModelError(f"element {element!r} takes {cls.cell!r} cells, not mesh cells")
        try:
            cells = mesh.cells_of(cls.cell)
        except ModelError as err:
            raise ModelError(f"mesh {mesh.name!r} cannot make {element!r} "
                             f"elements: {err}") from None
        if len(cells) == 0:
            raise ModelError(f"mesh {mesh.name!r} has no {cls.cell!r} cells, "
                             f"which element {element!r} needs (it has "
                             f"{mesh.cell_counts()})")
        from .mesh import cell_dim

        dim = cell_dim(cls.cell)
        unused = {t: n for t, n in mesh.cell_counts().items()
                  if t != cls.cell and cell_dim(t) == dim}
        if unused:      # they would be left out of the structure without a word
            raise ModelError(f"mesh {mesh.name!r}: element {element!r} takes "
                             f"{cls.cell!r} cells, but the mesh also has "
                             f"{', '.join(f'{n} {t!r}' for t, n in unused.items())} cells, "
                             f"which would be left out; split them into {cls.cell}s (or "
                             f"re-mesh with {cls.cell}s only)")
        P = np.asarray(mesh.vertices, float)
        nv = cells.shape[1]
        layout = cls.node_layout
        vnode = -np.ones(len(P), dtype=np.int64)
        X = cls.mesh_reference(P[cells], section.get("thickness"),
                               section.get("normal", (0.0, 0.0, 1.0)))
        fields = cls.mesh_node_fields(P, cells)
        if fields is not None:
            used = np.unique(cells)
            ids = self.add_nodes(names=[f"{name} vertex {v}" for v in used], **fields)
            vnode[used] = ids
            conn = [vnode[cells]]
        else:
            if X is None:
                raise ModelError(f"element {element!r} declares neither shared mesh nodes "
                                 "(mesh_node_fields) nor reference coordinates "
                                 "(mesh_reference): it cannot be built from a mesh")
            Xv = X.reshape(len(cells), -1, 3)
            conn, col = [], 0
            for j in range(nv):
                fields = {f: Xv[:, col + k] for k, f in enumerate(layout[j])}
                conn.append(self.add_nodes(**fields)[:, None])
                col += len(layout[j])
            conn = [np.hstack(conn)]
        # private extra nodes (e.g. the Bézier centroid)
        if len(layout) > nv:
            Xv = X.reshape(len(cells), -1, 3) if X is not None else None
            col = sum(len(f) for f in layout[:nv])
            for j in range(nv, len(layout)):
                fields = {f: Xv[:, col + k] for k, f in enumerate(layout[j])}
                conn.append(self.add_nodes(names=[f"{name} element {e} node {j}"
                                                  for e in range(len(cells))],
                                           **fields)[:, None])
                col += len(layout[j])
        nodes = np.hstack([c if c.ndim == 2 else c[:, None] for c in conn])
        sec = {k: v for k, v in section.items()}
        group = self.add_elements(element, nodes, material, name=name, **sec)
        group.vertex_nodes = nodes[:, :nv]
        group.mesh = mesh
        group.mesh_vertex_node = vnode
        return group

    def add_element(self, element: str, nodes: Sequence[int], material=None, name=None,
                    **section) -> ElementGroup:
        """Add one element (a group of one)."""
        return self.add_elements(element, [list(nodes)], material, name, **section)

    def _add_internal(self, group: ElementGroup, kind: str, a, b) -> None:
        from ..constraints.internal import ElementDot
        self.constraints.append(ElementDot(group, a, b, name=f"{group.name} rigidity"))

    @checked(name=text, mass=nonnegative, position=vector3, rotation=optional(rotation),
             com=vector3, inertia=optional(lambda v, w: matrix(v, w, (3, 3))),
             sketch=optional(points))
    def add_rigid_body(self, name: str, mass: float, position, rotation=None, com=(0, 0, 0),
                       inertia=None, sketch=None) -> Body:
        """A natural-coordinate rigid body (element ``rigid_body``).

        ``position`` is the body reference point, ``rotation`` (3×3) the body axes as
        columns (identity by default); ``com`` the centre of mass and ``inertia`` the
        inertia tensor about it, both in body axes.  ``sketch`` (k, 3) body points drawn
        as a polyline in VTK output and animations (default: reference point to COM).
        """
        if name in self.bodies:
            raise ModelError(f"there is already a body named {name!r}")
        R = np.eye(3) if rotation is None else np.asarray(rotation, float)
        node = self.add_node(name=f"body {name!r}", r=position, u=R[:, 0], v=R[:, 1],
                             w=R[:, 2])
        self.add_elements("rigid_body", [[node]], name=name, mass=mass, com=com,
                          inertia=np.zeros((3, 3)) if inertia is None else inertia)
        if sketch is None:
            sketch = np.array([np.zeros(3), np.asarray(com, float)])
        body = Body(name, node, self, points(sketch, f"add_rigid_body {name!r}: sketch"))
        self.bodies[name] = body
        return body

    def add_point_mass(self, point: LinearMap, mass: float) -> None:
        """A point mass at a point (payload): adds ``m CᵀC`` to M and its weight."""
        self._check_map(point, "add_point_mass")
        mass = finite(mass, f"point mass at {point.label}: mass [kg]")
        if mass < 0:
            raise ModelError(f"point mass at {point.label}: mass must be ≥ 0 kg, got {mass}")
        self.point_masses.append((point, mass))
        self._changed()

    # ------------------------------------------------------------ constraints
    def add_constraint(self, constraint: Constraint) -> Constraint:
        if not isinstance(constraint, Constraint):
            raise ModelError(f"add_constraint expects a fem.constraints.Constraint, "
                             f"got {type(constraint).__name__}")
        constraint.check(self)
        self.constraints.append(constraint)
        self._changed()
        return constraint

    def fix(self, node: int, fields: Sequence[str] | str | None = None,
            name: str | None = None) -> Constraint:
        """Clamp fields of a node to their reference values (all fields by default)."""
        self._check_node(node, "fix")
        fields = list(self.node_fields[node]) if fields is None else fields
        if isinstance(fields, str):
            fields = [fields]
        if not isinstance(fields, Sequence) or not all(isinstance(f, str) for f in fields):
            raise ModelError(f"fix: fields are field names such as 'r' or ['r', 'r_x']; "
                             f"got {fields!r:.80}")
        return self.add_constraint(Fixed(self.node_dofs(node, fields),
                                         name or f"fix {self.node_names[node]} {list(fields)}"))

    def spherical(self, p1: LinearMap, p2: LinearMap, name: str | None = None) -> Constraint:
        """Spherical joint: the two points coincide."""
        return self.add_constraint(Coincident(p1, p2, name))

    def revolute(self, p1: LinearMap, p2: LinearMap, axis2: LinearMap,
                 normals1: Sequence[LinearMap], name: str | None = None) -> list[Constraint]:
        """Revolute joint: points coincide and ``axis2`` stays perpendicular to two vectors
        ``normals1`` of the other body (both normal to the joint axis)."""
        point_map(p1, "revolute: p1")
        point_map(p2, "revolute: p2")
        point_map(axis2, "revolute: axis2")
        if isinstance(normals1, str) or not isinstance(normals1, Sequence):
            raise ModelError(f"revolute: normals1 must be a list of vectors (LinearMaps) of "
                             f"the other body; got {normals1!r:.80}")
        name = name or f"revolute({p1.label}, {p2.label})"
        out = [self.add_constraint(Coincident(p1, p2, f"{name} point"))]
        for i, n1 in enumerate(normals1):
            out.append(self.add_constraint(Dot(axis2, n1, 0.0, f"{name} axis {i}")))
        return out

    def add_damping(self, group: ElementGroup, beta: float, kind: str = "reference") -> None:
        """Structural damping of an element group.

        Parameters
        ----------
        group : ElementGroup
        beta : float
            ``kind="reference"``: the factor β [s] of ``C = β K``; ``"strain_rate"``: the
            retardation time η [s].  Either way a small vibration of frequency ω about
            the stress-free reference gets the damping ratio ``ζ = β ω / 2`` (or
            ``η ω / 2``): pick ``η = 2 ζ / ω₁`` for ``ζ`` on the first mode.
        kind : {"reference", "strain_rate"}
            ``"reference"`` (the default, unchanged): stiffness-proportional (Rayleigh)
            damping ``C = β K(q_ref)``, a constant matrix from the tangent in the
            reference configuration.  It leaves rigid translations alone but damps a
            finite rigid rotation (``K(q_ref)`` sees a turned link as strained): use it
            for parts that stay near their reference pose.  ``"strain_rate"``:
            Kelvin–Voigt damping, viscous stresses ``η D ṡ`` on the rates of the
            element's own strain measures (:meth:`fem.elements.ElementFamily.
            strain_rate_forces`; the ANCF cables, beams and Bézier plates), which
            spares rigid motion at any pose.  It makes the damping force depend on the
            configuration, so the compiled Newton loop of generalized-α is not used for
            such a model (the general path runs).
        """
        if not isinstance(group, ElementGroup):
            raise ModelError(f"add_damping expects an ElementGroup (returned by "
                             f"add_elements/add_mesh), got {type(group).__name__}")
        if kind not in ("reference", "strain_rate"):
            raise ModelError(f"damping of {group.name!r}: kind must be 'reference' or "
                             f"'strain_rate', got {kind!r}")
        what = "beta" if kind == "reference" else "eta (retardation time)"
        beta = nonnegative(beta, f"damping of {group.name!r}: {what}", "s")
        if not group.family.elastic:
            raise ModelError(f"damping of {group.name!r}: the group is rigid")
        if kind == "strain_rate":
            if not group.family.strain_rate_damping:
                raise ModelError(f"damping of {group.name!r}: element "
                                 f"{group.family.name!r} has no strain-rate damping (it "
                                 "exists for ANCF cables, beams and plates); use "
                                 "kind='reference'")
            self.strain_rate_damping.append((group, float(beta)))
        else:
            self.damping.append((group, float(beta)))
        self._changed()

    def add_link_frame(self, group, origin, tip, side) -> None:
        """Measure the elastic deformation of ``group`` (a flexible link: an
        :class:`ElementGroup`, or a body drawn on its FE model — a reduced body, whose
        mesh is then measured as a whole) against the rigid motion of the frame through
        two points: origin at ``origin``, x toward ``tip``, the xy-plane holding the
        vector ``side`` (maps of the coordinates).  Output then draws and magnifies the
        deformation relative to that frame: zero at the origin and across to the tip, so
        a magnified picture keeps the joints at both ends attached (without it, the
        best-fitting rigid motion of the link's points is used).  The points may be
        another body's: a link of several bodies end to end is measured against the
        frame through its two ends."""
        if not isinstance(group, ElementGroup) and getattr(group, "fe_model", None) is None:
            raise ModelError(f"add_link_frame expects an ElementGroup (returned by "
                             f"add_elements/add_mesh) or a body drawn on its FE model (a "
                             f"reduced body), got {type(group).__name__}")
        for m, what in ((origin, "origin"), (tip, "tip"), (side, "side")):
            point_map(m, f"add_link_frame {group.name!r}: {what}")
        self.link_frames[group.name] = (origin, tip, side)

    def add_modal_damping(self, body, ratio) -> np.ndarray:
        """Modal damping of a flexible body's elastic coordinates (a floating-frame link,
        :meth:`add_floating_frame`, or a reduced body, :meth:`add_reduced_body`).

        With ``M_ee`` and ``K_ee`` the body's mass and stiffness on its elastic
        coordinates ``e`` in the model's reference configuration and ``Φ`` their modes
        (``K_ee Φ = M_ee Φ Ω²``, ``Φᵀ M_ee Φ = I``), the damping matrix is::

            C_ee = M_ee Φ diag(2 ζᵢ ωᵢ) Φᵀ M_ee

        so mode ``i`` of the body with its frame held gets the damping ratio ``ζᵢ``.
        ``C`` acts on ``ė`` only: the frame's rigid motion is never damped.  It adds to
        any damping the body has already (a reduced body's ``Ψᵀ C Ψ``).

        Parameters
        ----------
        body : FloatingFrameBody or ReducedBody
        ratio : float or sequence of float
            ``ζ`` for every mode, or one per mode (lowest first; as many as the body has
            elastic coordinates).

        Returns
        -------
        ndarray
            The modes' frequencies ``ωᵢ`` [rad/s] (frame held, reference configuration).
        """
        from ..bodies.base import modal_damping_matrix
        from ..bodies.floating_frame import FloatingFrameBody
        from ..bodies.reduced import ReducedBody

        if not isinstance(body, FloatingFrameBody | ReducedBody) or \
                body not in self.nonlinear_bodies:
            raise ModelError("add_modal_damping expects a body of this model made by "
                             "add_floating_frame or add_reduced_body; got "
                             f"{type(body).__name__}")
        ne = body.dofs.size - 12
        if ne < 1 or not body.elastic:
            raise ModelError(f"modal damping of {body.name!r}: the body has no elastic "
                             "coordinates")
        q0 = self.q0
        M = body.mass(q0)[12:, 12:]
        K = body.forces(q0, np.zeros(3), tangent=True)[1][12:, 12:]
        C, omega = modal_damping_matrix(M, K, ratio, f"modal damping of {body.name!r}")
        D = np.zeros((body.k, body.k)) if body.damping_matrix is None \
            else np.array(body.damping_matrix, float)
        D[12:, 12:] += C
        body.damping_matrix = D
        self._changed()
        return omega

    def add_sketch(self, points: Sequence[LinearMap], name: str = "sketch",
                   radius: float = 0.0, triangles=None) -> None:
        """A polyline through points (fixed or moving) drawn in VTK output and
        animations only — e.g. the static platform of a robot, or the centre line of a
        link whose coordinates are not elements (a floating-frame link).  ``radius``
        [m]: drawn as a tube of that radius (the point data ``radius`` of ParaView's
        Tube filter); 0 draws a line.  ``triangles`` (k, 3) indices into ``points``: a
        surface through them instead (a rigid link's visual mesh, group
        ``<name> (mesh)``)."""
        pts = list(points)
        for i, p in enumerate(pts):
            point_map(p, f"add_sketch {name!r}: point {i}")
        radius = nonnegative(radius, f"add_sketch {name!r}: radius", "m")
        if triangles is not None:
            tri = np.asarray(triangles)
            if (tri.ndim != 2 or tri.shape[1] != 3 or not np.issubdtype(tri.dtype, np.integer)
                    or (tri.size and (tri.min() < 0 or tri.max() >= len(pts)))):
                raise ModelError(f"add_sketch {name!r}: triangles must be (k, 3) integer "
                                 f"indices into the {len(pts)} points")
            triangles = tri.astype(np.int64)
        self.sketches.append(Sketch(name, pts, radius, triangles))

    def add_actuator(self, actuator):
        """An actuator (see :mod:`fem.model.actuators`).  With ``effort=None`` its effort is an
        unknown of inverse dynamics, paired in order with the rows of servo constraints."""
        from .actuators import Actuator

        if not isinstance(actuator, Actuator):
            raise ModelError(f"add_actuator expects a fem.model.actuators actuator "
                             f"(RevoluteActuator, LinearActuator); got "
                             f"{type(actuator).__name__}")
        self.actuators.append(actuator)
        self._changed()
        return actuator

    # ------------------------------------------------------------------ loads
    def add_force(self, point: LinearMap, force, name: str | None = None) -> None:
        """A force on a point: constant (3,) or a function ``t -> (3,)``.  On a point of a
        reduced body (``body.interface(...)``, ``body.map(...)``) a constant force, carried
        by the body (its direction fixed in space, its point moving)."""
        body = point.body if isinstance(point, PointMap) else None
        if body is not None and body.carries_loads:
            if callable(force):
                raise ModelError(f"force on {point.label}: a point of a body takes a "
                                 "constant force (3,)")
            body.add_load(point, vector3(force, f"force on {point.label} [N]"))
            self._changed()
            return
        self._check_map(point, "add_force")
        if not callable(force):
            force = vector3(force, f"force on {point.label} [N]")
        self.forces.append((point, force, name or f"force on {point.label}"))
        self._changed()

    def add_distributed_load(self, group: ElementGroup, load) -> None:
        """A constant load per unit length/area on every element of ``group``."""
        if not isinstance(group, ElementGroup):
            raise ModelError(f"add_distributed_load expects an ElementGroup (returned by "
                             f"add_elements/add_mesh), got {type(group).__name__}")
        self.distributed.append((group, vector3(load, f"distributed load on {group.name!r}")))
        self._changed()

    # --------------------------------------------------------------- assembly
    def assemble(self, dense: bool | None = None):
        """Freeze the structure (cached until the model changes)."""
        from ..assembly.core import Assembly

        if self._assembly is None or (dense is not None and self._assembly.dense != dense):
            if self.n_dof == 0:
                raise ModelError(f"model {self.name!r} has no coordinates")
            self._assembly = Assembly(self, dense=dense)
        return self._assembly

    def energy(self, q: np.ndarray, v: np.ndarray) -> dict[str, float]:
        """Kinetic, gravitational potential and elastic energy [J] at a state."""
        return self.assemble().energy(q, v)

    def summary(self) -> str:
        a = self.assemble()
        lines = [f"model {self.name!r}: {self.n_dof} coordinates, {a.n_con} constraint rows"]
        for g in self.groups:
            lines.append(f"  {g.name}: {g.n_elements} × {g.family.name}")
        return "\n".join(lines)
