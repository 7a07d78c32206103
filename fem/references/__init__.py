"""Reference solutions of textbook systems (closed forms, series and independent ODEs)
and the literature the cases reproduce (citations).

The values the cases and tests check the framework against, kept out of ``cases/`` (a
package per idea).  Each function states its formula and source; nothing here uses the
finite-element machinery, so a reference stays independent of what it checks.  Only
NumPy and SciPy are imported, and only when this package is (``import fem`` does not).

:mod:`fem.references.beams`
    Euler–Bernoulli / Timoshenko cantilever: ``BETA_L`` (clamped–free βₙL),
    ``clamped_free_beta_l``, ``beam_beta_l`` (βₙL for clamped, free and pinned ends),
    ``cantilever_tip_deflection`` (qL⁴/8EI + FL³/3EI [+ shear]),
    ``cantilever_elastica`` (large deflection under a dead tip load, shooting),
    ``cantilever_frequencies`` ((βₙL)²√(EI/ρAL⁴)/2π), ``fixed_free_rod_frequencies``
    ((2n−1)c/4L, axial or torsion); spinning beams: ``rotating_rod_stretch``
    (ρΩ²L³/3E) and ``rotating_beam_frequency`` (first in-plane frequency of a clamped
    beam spinning at Ω, Frobenius power series).
:mod:`fem.references.plates`
    Kirchhoff rectangles: ``flexural_rigidity``, Navier's series
    ``navier_center_deflection``, ``navier_shear_deflection`` (Mindlin addition),
    ``navier_frequencies``; clamped edges: ``clamped_ritz`` (Ritz–Galerkin) and the
    tabulated ``CLAMPED_TABLE_35``, ``CLAMPED_SQUARE``, ``LEISSA_CLAMPED_SQUARE``.
:mod:`fem.references.pendulums`
    Planar rigid double pendulums by Lagrange's equations: ``double_pendulum_angles``
    (compound links), ``rod_double_pendulum_tip`` (two equal uniform rods).
:mod:`fem.references.citations`
    The papers the cases reproduce and the method literature, as data
    (``citations.toml``): ``cite``, ``PAPERS``, ``markdown`` (``docs/references.md``).

Import the submodules (``from fem.references.beams import rotating_beam_frequency``);
this ``__init__`` imports none of them.
"""

from ..core.lazy import lazy_exports

__all__ = ["beams", "plates", "pendulums", "citations"]

__getattr__, __dir__ = lazy_exports(__name__, {})
