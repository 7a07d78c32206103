"""A link from a reduction already made: :class:`Substructure`.

:class:`~fem.robot.Reduced` reduces the link's FE model itself.  A reduction made
beforehand — restricted to a plane's modes, cached on disk
(:func:`fem.reduction.cached_reduction`), loaded (:meth:`fem.bodies.Reduction.load`) or
made with options of one's own — becomes a link with :class:`Substructure`; its frames
are maps of the FE model it came from, as for ``Reduced``, and may also be a point with
the centre line's slope (the end of a reduced cable or frame member).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import ModelError
from .frames import Frame
from .links import (
    BuiltLink,
    LinkModel,
    checked_interfaces,
    chord_frame,
    damping_ratio,
    independent_directions,
    interface_maps,
)

__all__ = ["Substructure"]


@dataclass
class Substructure(LinkModel):
    """A link of a given reduction (a :class:`fem.bodies.Reduction`) of ``fe_model``.

    ``interfaces`` maps every frame of the link to maps of the FE model (each a
    :class:`fem.LinearMap`): a point (the frame's directions are then the floating
    frame's axes), ``[point, slope]`` (the frame carries the slope only, as an ANCF
    cable's frame carries its tangent: for planar joints, spherical joints and revolute
    joints about axes normal to it) or ``[point, x, y, z]``.  ``damping`` is a damping
    ratio of every mode.  The body is drawn on ``fe_model``'s mesh."""

    reduction: object
    fe_model: object
    interfaces: dict
    damping: float = 0.0
    kind = "reduced"
    flexible = True

    def __post_init__(self):
        from ..bodies.reduced import Reduction
        from ..model.core import Model

        if not isinstance(self.reduction, Reduction):
            raise ModelError(f"substructure link: reduction must be a fem.bodies.Reduction; "
                             f"got {type(self.reduction).__name__}")
        if not isinstance(self.fe_model, Model) or self.fe_model.n_dof != self.reduction.n_fe:
            raise ModelError(f"substructure link: fe_model must be the fem.Model the "
                             f"reduction came from ({self.reduction.n_fe} coordinates)")
        checked_interfaces(self.interfaces, "substructure link", "[point, slope], [point, x, y, z]")
        self.damping = damping_ratio(self.damping, "substructure link")

    def build(self, model, name, frames):
        spec = interface_maps(self.interfaces, frames, name, "substructure",
                               "[point, slope] or [point, x, y, z]")
        for f, maps in spec.items():
            if len(maps) == 4:
                independent_directions(np.column_stack([m(self.fe_model.q0)
                                                        for m in maps[1:]]), name, f)
        body = model.add_reduced_body(name, self.reduction, fe_model=self.fe_model)
        if self.damping > 0:
            model.add_modal_damping(body, self.damping)
        q0 = model.q0
        built = {}
        for f, p in frames.items():
            maps = spec[f]
            on = [body.map(m, f"{name} {f}" + (f" [{j}]" if j else ""))
                  for j, m in enumerate(maps)]
            if len(on) == 1:
                built[f] = Frame(name, f, p, on[0], [body.axis(i) for i in range(3)],
                                 self.reduction.rotation)
                continue
            values = np.column_stack([np.asarray(m(q0), float) for m in on[1:]])
            if len(on) == 2:
                t = values[:, 0]
                e = np.eye(3)[int(np.argmin(np.abs(t)))]
                n1 = np.cross(t, e)
                n1 /= np.linalg.norm(n1)
                basis0 = np.column_stack([t, n1, np.cross(t, n1) / np.linalg.norm(t)])
                built[f] = Frame(name, f, p, on[0], [on[1], None, None], basis0)
            else:
                built[f] = Frame(name, f, p, on[0], on[1:], values, gradients=on[1:])
        if len(built) == 2:                   # pictures: the bending against the chord
            model.add_link_frame(body, *chord_frame(built))
        fd = body.frame_dofs
        fields = [(int(fd[0]), True)] + [(int(fd[3 * j]), False) for j in (1, 2, 3)]
        return BuiltLink(name, self.kind, True, built, fields,
                         elastic=np.asarray(body.modal_dofs, np.int64), body=body)
