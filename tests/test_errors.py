"""Bad input raises fem.ModelError with a message a user can act on."""

import numpy as np
import pytest

import fem


def test_unknown_element_lists_registered():
    m = fem.Model()
    n = m.add_nodes(r=[[0, 0, 0], [1, 0, 0]])
    with pytest.raises(fem.ModelError, match="unknown element 'beam9'.*ancf_cable.*rigid_bar"):
        m.add_elements("beam9", [n])


@pytest.mark.parametrize("E,nu,match", [(0.0, 0.3, "Young"), (-1e9, 0.3, "Young"),
                                        (2e11, 0.5, "Poisson"), (2e11, -1.0, "Poisson")])
def test_non_physical_material(E, nu, match):
    with pytest.raises(fem.ModelError, match=match):
        fem.Material(E, nu, 7850)


def test_zero_length_elements():
    m = fem.Model()
    n = m.add_nodes(r=[[0, 0, 0], [0, 0, 0]], r_x=[[1, 0, 0], [1, 0, 0]])
    with pytest.raises(fem.ModelError, match="zero-length elements \\[0\\]"):
        m.add_elements("ancf_cable", [n], fem.Material(1e9, 0.3, 1e3), area=1e-4,
                       inertia=1e-9)
    with pytest.raises(fem.ModelError, match="zero length"):
        m.add_elements("rigid_bar", [n], mass=1.0)


def test_missing_node_field_names_element_and_node():
    m = fem.Model()
    n = m.add_nodes(r=[[0, 0, 0], [1, 0, 0]])
    with pytest.raises(fem.ModelError, match="element 0 .* has no field 'r_x'"):
        m.add_elements("ancf_cable", [n], fem.Material(1e9, 0.3, 1e3), area=1e-4,
                       inertia=1e-9)


def test_redundant_constraints_are_named():
    m = fem.Model(gravity=(0, 0, -9.81))
    n = m.add_nodes(r=[[0, 0, 0], [1, 0, 0]])
    m.add_elements("rigid_bar", [n], mass=1.0)
    m.fix(n[0], name="pin A")
    m.add_constraint(fem.Coincident(m.point(n[0]), m.ground((0, 0, 0)), name="pin A again"))
    with pytest.raises(fem.ModelError, match="redundant or conflicting.*pin A"):
        fem.solve_static(m)


def _elastica_tip(alpha: float) -> tuple[float, float]:
    """Tip (x, z)/L of a cantilever elastica under a vertical dead tip load,
    alpha = P L² / EI, by shooting on θ'' = −α cos θ, θ(0) = 0, θ'(1) = 0."""
    from scipy.integrate import solve_ivp
    from scipy.optimize import brentq

    def end(k0):
        return solve_ivp(lambda s, y: [y[1], -alpha * np.cos(y[0]), np.cos(y[0]),
                                       -np.sin(y[0])], (0, 1), [0, k0, 0, 0],
                         rtol=1e-11, atol=1e-12).y[:, -1]

    k0 = brentq(lambda k: end(k)[1], 1e-9, 1.0001 * alpha)
    x, z = end(k0)[2:]
    return x, z


def _large_deflection_cantilever(n_el=16):
    # PL²/EI = 3: the tip drops by 60 % of the length
    m = fem.Model()
    _, nodes = fem.straight_cable(m, (0, 0, 0), (1, 0, 0), n_el, fem.Material(1e7, 0.3, 1e3),
                                  1e-4, 1e-9)
    m.fix(nodes[0])
    m.add_force(m.point(nodes[-1]), (0, 0, -0.03))
    return m, nodes


def test_newton_divergence_reports_where_and_residuals():
    m, _ = _large_deflection_cantilever(4)
    with pytest.raises(fem.ConvergenceError, match="load increment 1.*residual") as info:
        fem.solve_static(m, max_iter=3, adaptive=False)
    assert len(info.value.residuals) == 4
    assert "load_steps" in str(info.value)
    assert "largest force residual" in str(info.value)


def test_adaptive_load_increments_reach_the_elastica():
    # three iterations per increment are too few for the full load: the solver cuts the
    # increment and still reaches the elastica (shooting reference) to 0.5 %
    m, nodes = _large_deflection_cantilever(16)
    st = fem.solve_static(m, max_iter=3)
    assert st.info["increment_cuts"] >= 1
    x, z = _elastica_tip(3.0)
    tip = st.q[m.node_dofs(nodes[-1])]
    assert abs(tip[0] - x) < 5e-3 * abs(x) and abs(tip[2] - z) < 5e-3 * abs(z)


def test_unsupported_structure_is_singular():
    m = fem.Model(gravity=(0, 0, -9.81))
    fem.straight_cable(m, (0, 0, 0), (1, 0, 0), 2, fem.Material(1e9, 0.3, 1e3), 1e-4, 1e-9)
    with pytest.raises(fem.ModelError, match="singular"):
        fem.solve_static(m)


def test_bad_rho_inf_and_section():
    with pytest.raises(fem.ModelError, match="rho_inf"):
        fem.solvers.alpha_parameters(1.5)
    m = fem.Model()
    n = m.add_nodes(r=[[0, 0, 0], [1, 0, 0]], r_x=[[1, 0, 0], [1, 0, 0]])
    with pytest.raises(fem.ModelError, match="area must be > 0"):
        m.add_elements("ancf_cable", [n], fem.Material(1e9, 0.3, 1e3), area=0.0,
                       inertia=1e-9)
    with pytest.raises(fem.ModelError, match="needs section data inertia"):
        m.add_elements("ancf_cable", [n], fem.Material(1e9, 0.3, 1e3), area=1e-4)


def test_bad_node_input():
    m = fem.Model()
    with pytest.raises(fem.ModelError, match="non-finite"):
        m.add_node(r=(0, np.nan, 0))
    with pytest.raises(fem.ModelError, match="no node 5"):
        m.node_dofs(5)
