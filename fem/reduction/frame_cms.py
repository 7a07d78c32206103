"""Craig–Bampton synthesis of a :class:`fem.frames.Frame` split into substructures.

Each substructure is a set of members (a *group*).  Its coordinates are those its
members touch (a hinged end's rotation is not touched: the hinge is the release of that
member); its boundary coordinates are those shared with another group, supported, or
carrying a point mass (the paper's motor coordinates ``q_m``, eq 21).  Components meet
on shared interface coordinates; the supports and point masses act on the assembly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.errors import ModelError
from ..core.validate import integer
from .craig_bampton import AssemblyModes, ComponentAssembly, craig_bampton
from .frames import Frame

__all__ = ["FrameCMS", "frame_cms"]


@dataclass
class FrameCMS:
    """A frame reduced by component mode synthesis.

    Attributes
    ----------
    assembly : ComponentAssembly
    frame : Frame
    interface_dofs : (n_interface,) int array
        The frame coordinate of each interface coordinate.
    component_dofs : list of int arrays
        Per component, the frame coordinates of its substructure coordinates.
    groups : list of str
    """

    assembly: ComponentAssembly
    frame: Frame
    interface_dofs: np.ndarray
    component_dofs: list
    groups: list

    def modes(self, n_modes: int = 6) -> AssemblyModes:
        return self.assembly.modes(n_modes)

    def expand(self, x_free: np.ndarray) -> np.ndarray:
        """Frame coordinates (all ``frame.n_dof``, rows) from assembly free coordinates."""
        x_free = np.asarray(x_free)
        u = np.zeros((self.frame.n_dof,) + x_free.shape[1:])
        for dofs, ug in zip(self.component_dofs, self.assembly.expand(x_free), strict=True):
            u[dofs] = ug
        return u

    @property
    def n_coordinates(self) -> int:
        return len(self.assembly.free())


def frame_cms(frame: Frame, groups: Mapping[str, Sequence[int]],
              n_modes: int | Mapping[str, int] = 4) -> FrameCMS:
    """Split ``frame`` into the member groups ``groups`` (every member in exactly one),
    reduce each by Craig–Bampton with ``n_modes`` fixed-interface modes (one number, or
    per group; capped at the group's interior coordinates) and assemble."""
    owner = np.full(len(frame.members), -1)
    names = list(groups)
    for g, name in enumerate(names):
        ids = np.asarray(groups[name], int)
        if ids.size and (ids.min() < 0 or ids.max() >= len(frame.members)):
            raise ModelError(f"substructure {name!r}: member ids out of range")
        if np.any(owner[ids] >= 0):
            raise ModelError(f"substructure {name!r}: members {ids[owner[ids] >= 0].tolist()} "
                             "already belong to another substructure")
        owner[ids] = g
    if np.any(owner < 0):
        raise ModelError(f"members {np.flatnonzero(owner < 0).tolist()} belong to no "
                         "substructure")
    mats, touched = [], []
    for name in names:
        M, K = frame.matrices(groups[name], masses=False)
        t = np.flatnonzero((K.diagonal() != 0) | (M.diagonal() != 0))
        mats.append((M, K))
        touched.append(t)
    count = np.zeros(frame.n_dof, int)
    for t in touched:
        count[t] += 1
    special = np.zeros(frame.n_dof, bool)
    special[frame.fixed_dofs()] = True
    lumped = frame.mass_matrix().diagonal()
    special[lumped > 0] = True
    is_boundary = (count > 1) | special
    interface = np.flatnonzero(is_boundary & (count > 0))
    where = np.full(frame.n_dof, -1)
    where[interface] = np.arange(len(interface))
    asm = ComponentAssembly(len(interface))
    comp_dofs = []
    for name, (M, K), t in zip(names, mats, touched, strict=True):
        b_local = np.flatnonzero(is_boundary[t])
        n_int = len(t) - len(b_local)
        want = n_modes[name] if isinstance(n_modes, Mapping) else n_modes
        k = min(integer(want, f"n_modes of {name!r}", 0), n_int)
        comp = craig_bampton(M[t][:, t], K[t][:, t], b_local, k, name=name)
        asm.add(comp, where[t[b_local]])
        comp_dofs.append(t)
    m_at = np.flatnonzero(lumped > 0)
    if m_at.size:
        if np.any(where[m_at] < 0):
            raise ModelError("a point mass sits on a node no member touches")
        asm.add_mass(where[m_at], lumped[m_at])
    fixed = frame.fixed_dofs()
    asm.fix(where[fixed[where[fixed] >= 0]])
    return FrameCMS(asm, frame, interface, comp_dofs, names)
