"""Properties every registered element family must have, checked over
``fem.elements.available()`` (a new family must add its example below, or this fails).

References, none of them the family's own output:

* the force tangent against central differences of the forces, and the forces against
  central differences of the strain energy;
* frame indifference: a rigid motion of a deformed element leaves its strain energy
  unchanged and turns its forces with it (positions move, directions turn);
* the mass matrix symmetric and positive semi-definite, and its translation mass equal to
  the element's total mass ``∫ρ dV`` (the mass of a rigid translation);
* the compiled kernel (``use_kernel``) against the family's NumPy form.
"""

from __future__ import annotations

import numpy as np
import pytest
from fdcheck import energy_gradient, force_tangent

import fem
from fem.elements import available

STEEL = fem.Material(2.0e11, 0.3, 7800.0)
SOFT = fem.Material(6.9e8, 0.3, 2700.0)


def _cable():
    m = fem.Model()
    g, _ = fem.straight_cable(m, (0, 0, 0), (1.0, 0.2, 0.1), 3, STEEL, 1e-4, 1e-8)
    return m, g, 1e-4 * 7800.0 * np.linalg.norm((1.0, 0.2, 0.1))


def _beam():
    m = fem.Model()
    g, _ = fem.straight_beam(m, (0, 0, 0), (1.0, 0.0, 0.2), 3, STEEL, section="circle",
                             radius=0.02)
    return m, g, np.pi * 0.02**2 * 7800.0 * np.hypot(1.0, 0.2)


def _plate(family):
    def build():
        m = fem.Model()
        mesh = fem.load_builtin_mesh("hexagon_6")
        g = m.add_mesh(mesh, family, SOFT, thickness=0.006)
        V = mesh.vertices[mesh.triangles]
        area = 0.5 * np.linalg.norm(np.cross(V[:, 1] - V[:, 0], V[:, 2] - V[:, 0]),
                                    axis=1).sum()
        return m, g, area * 0.006 * 2700.0
    return build


def _rigid_bar():
    m = fem.Model()
    a, b = m.add_node(r=(0, 0, 0)), m.add_node(r=(0.5, 0.3, 0.1))
    g = m.add_elements("rigid_bar", [[a, b]], mass=2.5)
    return m, g, 2.5


def _rigid_triangle():
    m = fem.Model()
    n = [m.add_node(r=x) for x in ((0, 0, 0), (0.4, 0, 0.1), (0.1, 0.3, 0))]
    g = m.add_elements("rigid_triangle", [n], mass=1.5)
    return m, g, 1.5


def _rigid_body():
    m = fem.Model()
    body = m.add_rigid_body("b", 3.0, (0.1, 0.2, 0.3), com=(0.05, 0.0, 0.02),
                            inertia=np.diag([0.02, 0.03, 0.04]))
    assert body.node == m.groups[-1].nodes[0, 0]
    return m, m.groups[-1], 3.0


EXAMPLES = {
    "ancf_cable": _cable,
    "ancf_beam": _beam,
    "bezier_plate": _plate("bezier_plate"),
    "bezier_plate_shared": _plate("bezier_plate_shared"),
    "rigid_bar": _rigid_bar,
    "rigid_triangle": _rigid_triangle,
    "rigid_body": _rigid_body,
}


def test_every_registered_family_has_an_example():
    assert sorted(EXAMPLES) == available()


def _deformed(m, g, scale, seed=0):
    rng = np.random.default_rng(seed)
    q = m.q0[g.dofs]
    return q + scale * np.abs(q).max() * rng.standard_normal(q.shape)


def _rotation():
    a = np.array([0.3, -0.5, 0.8])
    th = np.linalg.norm(a)
    k = a / th
    Kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(th) * Kx + (1 - np.cos(th)) * Kx @ Kx


def _moved(fam, q, R, t):
    """Element coordinates after the rigid motion x → R x + t (positions ``r`` move,
    every other field is a direction and turns)."""
    fields = [f for node in fam.node_layout for f in node]
    Q = q.reshape(len(q), -1, 3) @ R.T
    is_r = np.array([f == "r" for f in fields])
    Q[:, is_r] += t
    return Q.reshape(q.shape)


@pytest.fixture(params=sorted(EXAMPLES))
def example(request):
    return request.param, *EXAMPLES[request.param]()


def test_tangent_and_forces_match_finite_differences(example):
    name, m, g, _ = example
    fam = g.family
    q = _deformed(m, g, 2e-3)
    f, K = fam.forces(q, tangent=True)
    if not fam.elastic:
        assert np.abs(f).max() == 0.0 and np.abs(K).max() == 0.0
        return
    h = 1e-7 * np.abs(q).max()
    assert np.abs(K - force_tangent(fam, q, h)).max() <= 1e-5 * np.abs(K).max(), name
    # the forces are the gradient of the strain energy
    g_fd = energy_gradient(fam, q, 10 * h)
    assert np.abs(f - g_fd).max() <= 1e-5 * np.abs(f).max(), name


def test_rigid_motion_is_frame_indifferent(example):
    name, m, g, _ = example
    fam = g.family
    q = _deformed(m, g, 2e-3, seed=1)
    R, t = _rotation(), np.array([0.7, -1.1, 0.4])
    q2 = _moved(fam, q, R, t)
    e1, e2 = fam.energy(q), fam.energy(q2)
    assert np.allclose(e2, e1, rtol=1e-9, atol=1e-12 * max(np.abs(e1).max(), 1.0)), name
    f1, f2 = fam.forces(q)[0], fam.forces(q2)[0]
    f1_turned = (f1.reshape(len(f1), -1, 3) @ R.T).reshape(f1.shape)
    assert np.abs(f2 - f1_turned).max() <= 1e-8 * max(np.abs(f1).max(), 1e-300), name


def test_mass_is_symmetric_semidefinite_and_translates_the_total_mass(example):
    name, _, g, total = example
    fam = g.family
    m = fam.mass_scalar()
    assert np.allclose(m, np.swapaxes(m, 1, 2), rtol=0, atol=1e-14 * np.abs(m).max()), name
    assert np.linalg.eigvalsh(m).min() >= -1e-12 * np.abs(m).max(), name
    # a rigid translation moves every position field by the same vector and no direction
    fields = [f for node in fam.node_layout for f in node]
    u = np.array([f == "r" for f in fields], float)
    assert np.einsum("i,eij,j->", u, m, u) == pytest.approx(total, rel=1e-10), name


@pytest.mark.compiled
def test_compiled_kernel_matches_the_numpy_form(example):
    name, m, g, _ = example
    fam = g.family
    q = _deformed(m, g, 2e-3, seed=2)
    fam.use_kernel = True
    f1, K1 = fam.forces(q, tangent=True)
    fam.use_kernel = False
    f0, K0 = fam.forces(q, tangent=True)
    scale_f, scale_k = max(np.abs(f0).max(), 1e-300), max(np.abs(K0).max(), 1e-300)
    assert np.abs(f1 - f0).max() <= 1e-12 * scale_f, name
    assert np.abs(K1 - K0).max() <= 1e-12 * scale_k, name
