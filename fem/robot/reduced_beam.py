"""A slender link reduced from beam elements of it: :class:`ReducedBeam`, and how its
deformation reads as a beam's (:class:`ReducedBeamView`).

:class:`~fem.robot.Reduced` reduces any FE model of a link; a slender link is the common
case, and one whose results users read as a beam's — its centre line, its strain
gauges.  ``ReducedBeam`` builds the link's FE model itself (an :class:`~fem.robot.AncfBeam`
spec between the link's two frames), takes the end nodes (point and gradients ``r_x,
r_y, r_z``) as the interfaces, so that a joint there holds the deformed section, and
keeps ``modes`` fixed-interface modes.  The built link's ``beam`` is its
:class:`ReducedBeamView`.

A linear reduction misses the stiffening of a link's axial force (on the 3-RRRU robot's
links, one reduced body a link errs by 7.8 % of the motor torques' range): split the link
into segments joined end to end by fixed joints — two reduced beams' end nodes are then
*welded*, the nodes of one beam (:mod:`fem.robot.joints`) — and the segments' frames
recover it (three segments: 0.73 %, ``docs/performance.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import ModelError
from ..core.validate import integer
from .links import AncfBeam, LinkModel, Reduced, damping_ratio, link_span

__all__ = ["ReducedBeam", "ReducedBeamView", "fibre_strain"]


def fibre_strain(strains: dict, y: float, z: float):
    """The axial strain of the fibre at ``(y, z)`` of a section from a beam's strains
    (``axial_strain``, ``curvature_y``, ``curvature_z``: an ANCF beam family's
    ``strains``): ``ε − y κ_z − z κ_y``."""
    return strains["axial_strain"] - y * strains["curvature_z"] - z * strains["curvature_y"]


@dataclass
class ReducedBeam(LinkModel):
    """A slender flexible link reduced from ANCF beam elements of it (see the module
    docstring): ``beam`` gives the material, section and elements of its FE model,
    ``modes`` the fixed-interface modes kept besides the interfaces' static modes (12 at
    each end), ``damping`` a damping ratio of every mode."""

    beam: AncfBeam
    modes: int = 2
    damping: float = 0.0
    kind = "reduced"
    flexible = True
    spans_frames = True

    def __post_init__(self):
        if not isinstance(self.beam, AncfBeam):
            raise ModelError(f"reduced beam link: beam must be a fem.robot.AncfBeam (the "
                             f"material, section and elements of its FE model); got "
                             f"{type(self.beam).__name__}")
        if self.beam.elements < 2 and self.modes > 0:
            raise ModelError(f"reduced beam link: {self.beam.elements} element has no "
                             f"interior node, so no fixed-interface modes (modes = "
                             f"{self.modes}) — give the beam elements ≥ 2, or modes=0 for "
                             f"its static modes alone")
        self.modes = integer(self.modes, "reduced beam link: modes", minimum=0)
        self.damping = damping_ratio(self.damping, "reduced beam link")

    def stiffer(self, factor: float) -> ReducedBeam:
        return ReducedBeam(self.beam.stiffer(factor), self.modes, self.damping)

    def build(self, model, name, frames):
        from ..model.core import Model

        L = link_span(name, self.kind, frames)[2]
        fe = Model()
        built = self.beam.build(fe, name, frames)
        link = Reduced(fe, {f: [fr.origin, fr.tangent, fr.basis[1], fr.basis[2]]
                            for f, fr in built.frames.items()},
                       n_modes=self.modes, damping=self.damping).build(model, name, frames)
        link.beam = ReducedBeamView(link.body, built.group, L,
                                    model.q0[link.body.frame_dofs])
        return link


class ReducedBeamView:
    """A reduced beam link read as the beam it reduces: the centre line of its FE model
    (ANCF beam elements) at the FE coordinates that modal superposition in the body's
    frame gives (:meth:`fem.bodies.ReducedBody.fe_coordinates`), and its strains
    linearized about the reference, as the reduction's forces ``K η`` are (the beam's
    Green strain of the superposed modes would add a stretch ``θ²/2`` wherever the
    section turns by ``θ`` against the frame, which the reduced link does not carry).
    The same ``centreline`` and ``surface_strain`` as a floating-frame body's.

    Parameters
    ----------
    body : ReducedBody
        The link's body in the robot's model.
    group : ElementGroup
        The beam elements of its FE model, root to tip.
    length : float
        Its length [m].
    frame0 : (12,) array
        The body's frame coordinates where it was built (the FE model's place).
    """

    def __init__(self, body, group, length: float, frame0: np.ndarray):
        self.body, self.group, self.length = body, group, float(length)
        self.frame0 = np.array(frame0, float)
        self._ref = None
        self.edges = np.concatenate([[0.0], np.cumsum(group.family.L)])

    def fe_beam(self, q: np.ndarray) -> np.ndarray:
        """The beam elements' coordinates at the robot's ``q``."""
        return self.body.fe_coordinates(q)[self.group.dofs]

    def locate(self, s: float) -> tuple[int, float]:
        """The element holding arc length ``s`` [m] from the root, and its ``ξ`` ∈
        [−1, 1] there."""
        L = self.group.family.L
        e = int(min(max(np.searchsorted(self.edges, s, side="right") - 1, 0), len(L) - 1))
        return e, 2.0 * (s - self.edges[e]) / L[e] - 1.0

    def strains(self, q: np.ndarray, xi) -> dict:
        """The beam elements' strains at ``ξ`` (as the family's ``strains``), linear in
        the modal coordinates: the deformation carried back to the frame's place at
        build, ``d``, and ``(ε(q₀ + h d) − ε(q₀ − h d)) / 2h`` about the FE reference
        ``q₀`` (exact for the Green strains, quadratic; ``h`` small for the
        curvatures)."""
        b, fam = self.body, self.group.family
        at = np.array(q, float)
        at[b.frame_dofs] = self.frame0
        deformed = b.fe_coordinates(at)[self.group.dofs]
        if self._ref is None:          # the FE reference: the frame at build, no modes
            at[b.modal_dofs] = 0.0
            self._ref = b.fe_coordinates(at)[self.group.dofs]
        ref = self._ref
        h = 1e-3
        plus = fam.strains(ref + h * (deformed - ref), xi)
        minus = fam.strains(ref - h * (deformed - ref), xi)
        return {k: (plus[k] - minus[k]) / (2.0 * h) for k in plus}

    def centreline(self, q: np.ndarray, n_points: int = 21) -> np.ndarray:
        """Deformed centre line in space at ``n_points`` equally spaced points (n, 3)."""
        qe = self.fe_beam(q)
        fam = self.group.family
        return np.array([fam.centreline(qe, [[xi]])[e, 0] for e, xi in
                         (self.locate(s) for s in np.linspace(0.0, self.length, n_points))])

    def surface_strain(self, q: np.ndarray, x: float, y: float, z: float) -> float:
        """Axial strain of the fibre at ``(y, z)`` of the section at ``x`` [m] from the
        root (the element's strains at its point)."""
        e, xi = self.locate(x)
        return float(fibre_strain(self.strains(q, [[xi]]), y, z)[e, 0])

    def shear_angles(self, q: np.ndarray, x: float) -> np.ndarray:
        """The section's shear angles [rad] at ``x`` [m] (both planes)."""
        e, xi = self.locate(x)
        st = self.strains(q, [[xi]])
        return np.array([st["shear_angle_y"][e, 0], st["shear_angle_z"][e, 0]])

