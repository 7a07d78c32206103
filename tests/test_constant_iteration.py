"""The fused Newton iterations of systems with constant structure (issue 23):
:mod:`fem.solvers.constant_iteration` against the general path of
:class:`fem.solvers.dynamic.GeneralizedAlpha`, which reaches the same system through the
general methods of the solver contract.  The same decisions (a fixed cost ratio) on
values that differ by round-off: a residual that lands on the tolerance may take one
iteration more or less in a few steps, so the runs agree to the Newton tolerance."""

from __future__ import annotations

import numpy as np
import pytest
from saddlecheck import compiled_and_saddle

import fem
from fem.cases import load_case
from fem.solvers.dynamic import GeneralizedAlpha

needs_numba = pytest.mark.compiled(heavy=True)   # the compiled loop (conftest) against the general


def _cable(n: int = 8, damping: float = 0.0, drive: bool = False,
           use_kernel: bool = True) -> tuple[fem.Model, int]:
    """The cable benchmark's cantilever, optionally damped and with its tip's x coordinate
    driven back and forth (a linear constraint with a time-dependent offset)."""
    model = load_case("cantilever_cable").build(n_elements=n)
    model.groups[0].family.use_kernel = use_kernel
    if damping:
        model.add_damping(model.groups[0], damping)
    tip = model.node_dofs(model.node("tip"))
    if drive:
        x0 = float(model.q0[tip[0]])
        w, a = 40.0, 2e-3
        model.add_constraint(fem.constraints.PrescribedCoordinates(
            [int(tip[0])], lambda t: ([x0 + a * np.sin(w * t)], [a * w * np.cos(w * t)],
                                      [-a * w * w * np.sin(w * t)]), name="tip drive"))
    model.assemble()
    return model, int(tip[2])


def _agree(a: fem.Result, b: fem.Result) -> None:
    """Two runs of one model agree to the Newton tolerance (1e-8) in the same number of
    iterations within 3 %.  (2 % held until numba 0.68.1 on this machine: the damped
    16-element cable then took 271 iterations compiled against 277, a factorization
    renewed one step apart on a round-off of the contraction; the states still agree.)"""
    ia, ib = a.stats["iterations"].sum(), b.stats["iterations"].sum()
    assert abs(ia - ib) <= 0.03 * ib, (ia, ib)
    for key in ("q", "v", "lam"):
        x, y = getattr(a, key), getattr(b, key)
        assert np.abs(x - y).max() <= 1e-6 * np.abs(y).max(), key


def _simulate(model, general: bool, monkeypatch, **kw) -> fem.Result:
    asm = model.assemble()
    with monkeypatch.context() as mp:
        if general:        # the system as any other: through the general methods
            mp.setattr(asm, "constant_structure", lambda: None)
        return fem.simulate(model, 0.05, 1e-3, rho_inf=0.8, tol=1e-8, factor_cost=10.0,
                            **kw)


@pytest.mark.parametrize("damping, drive", [(0.0, False), (1e-4, False), (0.0, True)],
                         ids=["plain", "damped", "driven"])
def test_fused_iterations_give_the_general_path_to_round_off(monkeypatch, damping, drive):
    model, tip = _cable(8, damping, drive)
    fused = _simulate(model, False, monkeypatch)
    general = _simulate(model, True, monkeypatch)
    _agree(fused, general)
    # the motion is there, the constraints hold, the velocity residual (index 3: not
    # zero) is reported alike
    assert np.abs(fused.q[:, tip] - fused.q[0, tip]).max() > 1e-4
    assert fused.stats["residual_constraints"].max() < 1e-10
    np.testing.assert_allclose(fused.stats["residual_velocity"],
                               general.stats["residual_velocity"], rtol=1e-4, atol=1e-10)


@needs_numba
def test_the_cable_runs_compiled_and_without_its_kernel_the_fused_residual(monkeypatch):
    model, tip = _cable(8)
    assert GeneralizedAlpha(model, 0.8)._compiled_newton
    compiled = _simulate(model, False, monkeypatch)
    model, tip = _cable(8, use_kernel=False)         # NumPy forces: the residual fused
    ga = GeneralizedAlpha(model, 0.8)
    assert not ga._compiled_newton and ga._constant is not None
    numpy_forces = _simulate(model, False, monkeypatch)
    _agree(compiled, numpy_forces)


@needs_numba
def test_the_compiled_loop_runs_where_it_pays(monkeypatch):
    """``LOOP_LIMIT`` (issue 46, item 2): a system stored dense of more than 200 unknowns
    (the 32-element cable forced dense, 204; the flagship's full platform, 219) iterates
    as on the NumPy path, through the general methods with the compiled element and
    constraint kernels — the general path's run to the Newton tolerance, a rerun to the
    bit; stored banded (its own storage) or smaller, the compiled loop runs it."""
    from fem.assembly import linalg
    from fem.solvers.constant_iteration import LOOP_LIMIT

    model = _cable(32)[0]
    ga = GeneralizedAlpha(model, 0.8)
    assert model.assemble().storage == "banded" and ga._compiled_newton
    assert _cable(16)[0].assemble().n + 6 < LOOP_LIMIT
    assert GeneralizedAlpha(_cable(16)[0], 0.8)._compiled_newton
    with monkeypatch.context() as mp:
        mp.setattr(linalg, "STORAGE", "dense")
        model = _cable(32)[0]
        asm = model.assemble()
        assert asm.storage == "dense" and asm.n + asm.m > LOOP_LIMIT
        ga = GeneralizedAlpha(model, 0.8)
        assert ga._constant.compiled and not ga._constant.loops
        assert not ga._compiled_newton and not ga.can_march()
        # the fused residual only where the NumPy path has it too (a plain structure)
        assert ga._constant.fused == ga._constant.structure.plain
        runs = [_simulate(model, False, monkeypatch) for _ in range(2)]
        general = _simulate(model, True, monkeypatch)
    _agree(runs[0], general)
    for key in ("q", "v", "a", "lam"):
        assert np.array_equal(getattr(runs[0], key), getattr(runs[1], key)), key


def test_constant_structure_is_declared_only_where_it_holds():
    model, _ = _cable(4)
    cs = model.assemble().constant_structure()
    assert cs is not None and cs.jacobian.shape == (6, model.n_dof) and not cs.timed
    np.testing.assert_array_equal(cs.mass.toarray(), model.assemble().M_sparse.toarray())
    assert cs.plain
    # a distance between two nodes is quadratic in q: declared with its bilinear term
    model = load_case("cantilever_cable").build(n_elements=4)
    a, b = model.point(model.node("tip")), model.point(2)
    model.add_constraint(fem.constraints.Distance(a, b, name="tie"))
    cs = model.assemble().constant_structure()
    assert cs is not None and not cs.plain and cs.bilinear.A.nnz > 0
    # an actuator on a servo row (inverse dynamics) supplies its own reaction: declared
    # when it is affine in q, refused otherwise
    model = _servo_cable(4)
    cs = model.assemble().constant_structure()
    si = cs.servo.si if cs is not None else None
    assert cs is not None and not cs.plain and si[si[0]:si[1]].tolist() == [6]   # the row

    class Opaque(fem.model.actuators.LinearActuator):
        def affine(self):
            return None

    model = _servo_cable(4, Opaque)
    assert model.assemble().constant_structure() is None


def _servo_cable(n: int, kind=None) -> fem.Model:
    """The cantilever cable whose tip is driven up and down by a force found by inverse
    dynamics (a servo row on the tip's z, a linear actuator along z)."""
    model = load_case("cantilever_cable").build(n_elements=n)
    tip = model.point(model.node("tip"))
    z0 = float(tip(model.q0)[2])
    w, a = 30.0, 5e-3
    model.add_constraint(fem.constraints.PrescribedPoint(
        tip, lambda t: (np.array([0.0, 0.0, z0 + a * np.sin(w * t)]),
                        np.array([0.0, 0.0, a * w * np.cos(w * t)]),
                        np.array([0.0, 0.0, -a * w * w * np.sin(w * t)])),
        components=(2,), name="hold", servo=True))
    model.add_actuator((kind or fem.model.actuators.LinearActuator)(tip, (0.0, 0.0, 1.0), "push"))
    return model


@needs_numba
def test_a_servo_row_runs_compiled_as_the_general_path(monkeypatch):
    """Inverse dynamics: the force that drives the cable's tip up and down through the
    compiled loop (the servo row's reaction from its actuator, its column ``−B`` in the
    iteration matrix) and through the general methods; the force is the multiplier."""
    model = _servo_cable(8)
    assert GeneralizedAlpha(model, 0.8)._compiled_newton
    fused = _simulate(model, False, monkeypatch)
    general = _simulate(model, True, monkeypatch)
    _agree(fused, general)
    push = fused.lam[:, 6]
    assert np.abs(push).max() > 1e-3 and fused.stats["residual_constraints"].max() < 1e-10


@needs_numba
def test_a_bilinear_row_runs_compiled_as_the_general_path(monkeypatch):
    """A tie of fixed length between the tip and a middle node (one bilinear row, its
    Jacobian following q) through the compiled loop and through the general methods."""
    model, tip = _cable(8)
    a, b = model.point(model.node("tip")), model.point(4)
    model.add_constraint(fem.constraints.Distance(a, b, name="tie"))
    assert GeneralizedAlpha(model, 0.8)._compiled_newton
    fused = _simulate(model, False, monkeypatch)
    general = _simulate(model, True, monkeypatch)
    _agree(fused, general)
    assert fused.stats["residual_constraints"].max() < 1e-10
    assert np.abs(fused.q[:, tip] - fused.q[0, tip]).max() > 1e-4


def test_a_diverging_fused_step_still_says_where(monkeypatch):
    model, _ = _cable(4)
    with pytest.raises(fem.ConvergenceError, match="t = "):
        fem.simulate(model, 0.01, 1e-3, max_iter=1, tol=1e-14)


# ------------------------------------------------ the iteration matrix formed compiled
def _reduced_pendulum(nonlinear: bool, cubic_tol: float = 0.0) -> fem.Model:
    """A soft 4-element rod reduced (root rigid, 4 modes; with ``nonlinear`` the cubic
    modal force of 2 derivatives, its quartic part compressed with ``cubic_tol``) on a
    spherical hinge, with a point load at its tip."""
    from fem.reduction import reduce_body, rigid

    m = fem.Model("rod", gravity=(0.0, 0.0, -9.81))
    _, nodes = fem.straight_beam(m, (0, 0, 0), (1.0, 0, 0), 4,
                                 fem.Material(2e9, 0.35, 1150.0), section="circle",
                                 radius=0.01)
    red = reduce_body(m, {"root": rigid([nodes[0]])}, n_modes=4,
                      derivatives=2 if nonlinear else 0, nonlinear=nonlinear,
                      cubic_tol=cubic_tol)
    mb = fem.Model("hinged", gravity=(0.0, 0.0, -9.81))
    b = mb.add_reduced_body("rod", red)
    mb.add_constraint(fem.Coincident(b.map(m.point(nodes[0])), mb.ground((0, 0, 0)),
                                     "hinge"))
    mb.add_force(b.map(m.point(nodes[-1])), (0.0, 0.5, 0.0), "push")
    return mb


def _plate(element: str) -> fem.Model:
    """A Bézier plate under gravity held at three vertices (linear rows), damped (β K):
    the flagship's ``hexagon_6`` platform mesh with the shared family and its middle G¹
    rows, or two triangles of 0.2 m with the 48-coordinate family and its continuity
    rows (issue 23)."""
    from fem.elements.bezier_plate import add_continuity, plate_point

    model = fem.Model(element, gravity=(0.0, 0.0, -9.81))
    if element == "bezier_plate_shared":
        mesh, held = fem.load_builtin_mesh("hexagon_6"), (1, 3, 5)
    else:
        V = np.array([[0.0, 0.0, 0.0], [0.2, 0.0, 0.0], [0.2, 0.2, 0.0], [0.0, 0.2, 0.0]])
        mesh = fem.Mesh.from_arrays(V, np.array([[0, 1, 2], [0, 2, 3]]),
                                    groups={"plate": {"triangle": np.arange(2)}})
        held = (0, 1, 3)
    group = model.add_mesh(mesh, element, fem.Material(6.9e8, 0.3, 3000.0), name="plate",
                           thickness=0.006)
    add_continuity(model, group)
    for k in held:
        x = mesh.vertices[k]
        model.add_constraint(fem.Coincident(plate_point(group, x), model.ground(x),
                                            f"hold {k}"))
    model.add_damping(group, 1e-4)
    return model


def _cable_tie(n: int = 6) -> fem.Model:
    tie, _ = _cable(n)
    tie.add_constraint(fem.constraints.Distance(tie.point(tie.node("tip")), tie.point(3),
                                                name="tie"))
    return tie


_MODELS = {"cable, damped": lambda: _cable(6, damping=1e-4)[0], "cable, tie": _cable_tie,
           "cable, servo": lambda: _servo_cable(6),
           "reduced rod": lambda: _reduced_pendulum(False),
           "reduced rod, cubic": lambda: _reduced_pendulum(True),
           "reduced rod, compressed": lambda: _reduced_pendulum(True, 1e-4),
           "plate, shared": lambda: _plate("bezier_plate_shared"),
           "plate, 48": lambda: _plate("bezier_plate")}


# stored banded (the cable from 12 elements on): formed and factorized in band storage
_BANDED = {"cable 16, damped": lambda: _cable(16, damping=1e-4)[0],
           "cable 16, tie": lambda: _cable_tie(16),
           "cable 16, driven": lambda: _cable(16, drive=True)[0]}


@needs_numba
@pytest.mark.parametrize("name", list(_MODELS))
def test_compiled_iteration_matrix_is_the_assemblys_saddle(name):
    """The iteration matrix the compiled loop forms and factorizes itself (element
    tangents, damping, the bilinear rows' Hessian, a reduced body's inertia and force
    tangents, the Jacobian; the Bézier plates' tangents, issue 23) against
    :meth:`Assembly.saddle` from the general methods, at
    a perturbed state with random velocities, accelerations and multipliers: 1e-12 of
    the largest entry (measured ≤ 1e-15)."""
    model = _MODELS[name]()
    asm = model.assemble()
    rng = np.random.default_rng(7)
    q = asm.q0 + 1e-3 * rng.standard_normal(asm.n)
    v, a = rng.standard_normal(asm.n), rng.standard_normal(asm.n)
    S, ref = compiled_and_saddle(model, q, v, a, rng.standard_normal(asm.m))
    assert np.abs(S - ref).max() <= 1e-12 * np.abs(ref).max()


@needs_numba
@pytest.mark.parametrize("name", ["cable, damped", "reduced rod, cubic",
                                  "reduced rod, compressed", "plate, shared",
                                  "plate, 48", "cable 16, damped", "cable 16, driven"])
def test_factorizations_made_in_the_compiled_loop_keep_the_run(monkeypatch, name):
    """With the compiled loop renewing its factorizations itself (dense, or banded from
    12 cable elements on) the run is the general path's (the same decisions; iterations
    within 3 %, q, q̇, λ within 1e-6 of their peak) and its factorizations are counted.
    The plates (issue 23) run compiled as well: their forces come through
    :func:`fem.elements.kernels.group_forces`."""
    model = {**_MODELS, **_BANDED}[name]()
    assert GeneralizedAlpha(model, 0.8)._compiled_newton
    fused = _simulate(model, False, monkeypatch)
    general = _simulate(model, True, monkeypatch)
    _agree(fused, general)
    assert fused.info["factorizations"] >= 2
    assert abs(fused.info["factorizations"] - general.info["factorizations"]) \
        <= 0.1 * general.info["factorizations"] + 1
    ga = GeneralizedAlpha(model, 0.8)
    for _ in range(3):
        ga.step(1e-3)
    assert ga._factor_inside
    banded = name.startswith("cable 16")
    assert (ga.policy.lu.kind == "banded") == banded
    # a dropped factorization (a new step size) is renewed in a workspace of its storage
    ga.step(5e-4)
    assert ga.policy.lu is ga._constant.workspace() and ga.policy.lu.kind == (
        "banded" if banded else "dense")


# ------------------------------------------- banded iteration matrices formed compiled
@needs_numba
@pytest.mark.parametrize("name", ["cable 16, damped", "cable 16, tie"])
def test_compiled_banded_iteration_matrix_is_the_assemblys_saddle(name):
    """The band the compiled loop forms and factorizes itself (systems stored banded:
    the cable from 12 elements on) is :meth:`Assembly.saddle`'s, entry for entry in its
    ordering and band, fill space zero: 1e-12 of the largest entry."""
    model = _BANDED[name]()
    asm = model.assemble()
    rng = np.random.default_rng(11)
    q = asm.q0 + 1e-3 * rng.standard_normal(asm.n)
    v, a = rng.standard_normal(asm.n), rng.standard_normal(asm.n)
    S, ref = compiled_and_saddle(model, q, v, a, rng.standard_normal(asm.m), banded=True)
    assert (S.kl, S.ku) == (ref.kl, ref.ku) and np.array_equal(S.perm, ref.perm)
    assert np.abs(S.ab - ref.ab).max() <= 1e-12 * np.abs(ref.ab).max()
    assert not S.ab[: S.kl].any()


# --------------------------------- the constant linear rows eliminated from the solve
def _eliminated_solve(el, S: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(reduced saddle, x)``: ``S`` reduced and factorized by the compiled kernels of
    :mod:`fem.solvers.elimination` and ``S x = b`` solved with them."""
    from fem.assembly.linalg import dense_lu_kernel
    from fem.solvers.elimination import EliminatedFactorization, elimination_kernels

    lu = EliminatedFactorization(el)
    el.data[2][:] = S
    elimination_kernels()[0](el.data, lu.lu[0])
    R = lu.lu[0].copy()
    assert dense_lu_kernel()(lu.lu[0], lu.lu[1])
    return R, lu.solve(b)


@needs_numba
def test_eliminated_solve_of_a_random_saddle_with_a_servo_column():
    """A saddle of 30 coordinates and 12 rows, 7 of them linear (fixed coordinates, a
    coincidence, general rows) and one with a column that is not its row (a servo row):
    the eliminated solve is LAPACK's on the whole matrix to 1e-12, the reduced matrix
    the NumPy ``Tᵀ A T``; dependent linear rows are refused."""
    from fem.solvers.elimination import Elimination

    rng = np.random.default_rng(3)
    n, m = 30, 12
    J = np.zeros((m, n))
    J[0, 3] = J[1, 4] = J[2, 5] = 1.0
    J[3, 6], J[3, 9] = 1.0, -1.0
    J[4, 7], J[4, 10] = 1.0, -1.0
    J[5, 10:14] = rng.standard_normal(4)
    J[6, 12:18] = rng.standard_normal(6)
    J[7:] = rng.standard_normal((5, n))
    C = J.copy()
    C[-1] = rng.standard_normal(n)
    S = np.zeros((n + m, n + m))
    S[:n, :n] = rng.standard_normal((n, n)) + 10.0 * np.eye(n)
    S[:n, n:], S[n:, :n] = C.T, J
    el = Elimination(J[:7], np.arange(7), n, m)
    assert el.size == n + m - 14
    R, x = _eliminated_solve(el, S, b := rng.standard_normal(n + m))
    assert np.abs(R - el.reduce(S)).max() <= 1e-12 * np.abs(R).max()
    ref = np.linalg.solve(S, b)
    assert np.abs(x - ref).max() <= 1e-12 * np.abs(ref).max()
    with pytest.raises(ValueError, match="dependent"):
        Elimination(np.vstack([J[:7], J[5] - 2.0 * J[0]]), np.arange(8), n, m)


@needs_numba
@pytest.mark.parametrize("name", ["cable, damped", "cable, tie", "cable, servo",
                                  "plate, shared", "plate, 48", "cable 16, driven"])
def test_eliminated_solve_is_the_dense_solve_of_the_iteration_matrix(name):
    """The linear rows (clamps, couplings, the plates' holds and continuity rows, a
    driven coordinate) eliminated from the iteration matrix the compiled loop forms, at
    a perturbed state: the reduced matrix is the NumPy ``Tᵀ A T`` and the solve LAPACK's
    on the whole matrix, both to 1e-10 (whether or not the elimination pays)."""
    from fem.solvers.elimination import Elimination, linear_rows

    model = {**_MODELS, **_BANDED}[name]()
    asm = model.assemble()
    rng = np.random.default_rng(5)
    q = asm.q0 + 1e-3 * rng.standard_normal(asm.n)
    v, a = rng.standard_normal(asm.n), rng.standard_normal(asm.n)
    S, _ = compiled_and_saddle(model, q, v, a, rng.standard_normal(asm.m))
    structure = asm.constant_structure()
    rows = linear_rows(structure, asm.m)
    assert rows.size
    el = Elimination(structure.jacobian[rows].toarray(), rows, asm.n, asm.m)
    R, x = _eliminated_solve(el, S, b := rng.standard_normal(asm.n + asm.m))
    assert np.abs(R - el.reduce(S)).max() <= 1e-10 * np.abs(R).max()
    ref = np.linalg.solve(S, b)
    assert np.abs(x - ref).max() <= 1e-10 * np.abs(ref).max()


@needs_numba
@pytest.mark.parametrize("name", ["plate, shared", "cable, servo"])
def test_a_run_with_the_linear_rows_eliminated_is_the_run_without(monkeypatch, name):
    """The plate held at three vertices (eliminated where it pays: 150 → 96 unknowns)
    and the servo-driven cable (eliminated on demand here) run with the compiled loop's
    factorizations eliminated and not, with the same decisions (a fixed cost ratio):
    the same iterations and factorizations, q, q̇, λ to 1e-8 of their peak (round-off
    through the stiff plate's dynamics: measured 2e-9 on q̇), and the general path's
    to the Newton tolerance."""
    from fem.solvers import constant_iteration
    from fem.solvers.elimination import EliminatedFactorization, Elimination

    model = _MODELS[name]()
    runs = []
    for eliminate in (True, False):
        with monkeypatch.context() as mp:
            if not eliminate:
                mp.setattr(constant_iteration, "MIN_UNKNOWNS", 10**9)
            elif name == "cable, servo":
                mp.setattr(constant_iteration, "MIN_UNKNOWNS", 0)
                mp.setattr(Elimination, "pays", lambda self: True)
            ga = GeneralizedAlpha(model, 0.8)
            ga.step(1e-3)
            assert isinstance(ga.policy.lu, EliminatedFactorization) == eliminate
            runs.append(_simulate(model, False, monkeypatch))
    a, b = runs
    assert np.array_equal(a.stats["iterations"], b.stats["iterations"])
    assert a.info["factorizations"] == b.info["factorizations"] >= 2
    for key in ("q", "v", "lam"):
        x, y = getattr(a, key), getattr(b, key)
        assert np.abs(x - y).max() <= 1e-8 * np.abs(y).max(), key
    _agree(a, _simulate(model, True, monkeypatch))


def _cable_angle_drive(n: int = 8) -> fem.Model:
    """The cable with the chord from its middle node to its tip turned about y by a
    prescribed angle (an :class:`~fem.constraints.AngleDrive`: a bilinear row whose
    direction β(t) moves, so ∂Φ/∂t depends on q)."""
    model, _ = _cable(n)
    mid, tip = model.point(n // 2), model.point(model.node("tip"))
    model.add_constraint(fem.constraints.AngleDrive(
        mid, tip, [0.0, 1.0, 0.0], [1.0, 0.0, 0.0],
        lambda t: (0.05 * np.sin(10 * t), 0.5 * np.cos(10 * t), -5 * np.sin(10 * t)),
        name="chord drive"))
    model.assemble()
    return model


@needs_numba
def test_the_velocity_residual_of_moving_directions_is_the_finite_difference_one():
    """``ConstantStructure.rate_terms`` (∂Φ/∂t = ċ + Σ (A q + α)·β̇) and the compiled
    velocity residual built on it, against ``max |Φ_q q̇ + Φ_t|`` with ``Φ_t`` from a
    central difference of ``Φ(q, t)`` in t."""
    from fem.solvers.constant_iteration import ConstantIteration

    model = _cable_angle_drive()
    asm = model.assemble()
    s = asm.constant_structure()
    assert s.timed and s.rate_terms is not None
    rng = np.random.default_rng(3)
    q = asm.q0 + 1e-2 * rng.standard_normal(asm.n)
    v = rng.standard_normal(asm.n)
    t, eps = 0.13, 1e-6
    phi_t = (asm.phi(q, t + eps) - asm.phi(q, t - eps)) / (2 * eps)
    assert np.abs(phi_t).max() > 1e-2          # the drive's row moves
    cdot, bdot = s.rate_terms(t)
    a = s.bilinear.A @ q + s.bilinear.alpha
    mine = cdot + np.bincount(s.bilinear.row, (a * bdot).reshape(-1, 3).sum(axis=1),
                              minlength=asm.m)
    assert np.abs(mine - phi_t).max() <= 1e-7 * np.abs(phi_t).max()
    ref = np.abs(asm.jacobian(q, t) @ v + phi_t).max()
    got = ConstantIteration(s).velocity_residual(q, v, t)
    assert abs(got - ref) <= 1e-7 * ref


def _two_link() -> fem.Model:
    return load_case("two_link_arm_fall").build(n_coordinates=4)


def _cable_circle(n: int = 8) -> fem.Model:
    """The cable's tip driven on a small circle in the x–z plane by a path of
    :mod:`fem.model.trajectory` (its ``at_times``: a block's time terms in one call,
    ``ConstantStructure.terms_at``) through a servo row per component."""
    from fem.model.trajectory import CosineAccelerationProfile, circle_path

    model = load_case("cantilever_cable").build(n_elements=n)
    tip = model.point(model.node("tip"))
    p0 = np.asarray(tip(model.q0), float)
    r = 2e-3
    path = circle_path(p0 - np.array([r, 0.0, 0.0]), r, (0.0, 1.0, 0.0), 0.0,
                       CosineAccelerationProfile(duration=0.2, distance=2.0 * np.pi * r),
                       sweep=2.0 * np.pi)
    model.add_constraint(fem.constraints.PrescribedPoint(tip, path, (0, 2), "circle",
                                                         servo=True))
    for axis, name in (((1.0, 0.0, 0.0), "push x"), ((0.0, 0.0, 1.0), "push z")):
        model.add_actuator(fem.model.actuators.LinearActuator(tip, axis, name))
    return model


_BLOCK_MODELS = {
    "cable, dense": (lambda: _cable(8)[0], {}),
    "cable, banded": (lambda: _cable(16)[0], {}),
    "cable, driven tip": (lambda: _cable(8, drive=True)[0], {}),
    "cable, turned chord": (_cable_angle_drive, {}),
    "cable, tip on a circle": (_cable_circle, {}),
    "cable, damped, every 3rd": (lambda: _cable(8, damping=1e-4)[0], {"record_every": 3}),
    "cable, failing steps": (lambda: _cable(8)[0], {"max_iter": 3, "dt": 2e-3}),
    "two-link chain": (_two_link, {"dt": 5e-3, "rho_inf": 1.0}),
}


@needs_numba
@pytest.mark.parametrize("name", list(_BLOCK_MODELS))
def test_steps_in_compiled_blocks_are_the_steps_one_by_one(monkeypatch, name):
    """:func:`fem.simulate` in compiled blocks (:meth:`GeneralizedAlpha.advance_steps`)
    and step by step (an ``on_step`` callback asks for that): the same bits in every
    record, statistic and counter — with steps that fail inside a block (three
    iterations at most: fresh retries and halved steps) too."""
    build, kw = _BLOCK_MODELS[name]
    kw = {"rho_inf": 0.8, "dt": 1e-3, **kw}
    dt = kw.pop("dt")
    blocks = []
    advance_steps = GeneralizedAlpha.advance_steps

    def spy(self, h, count):
        out = advance_steps(self, h, count)
        blocks.append(0 if out is None else len(out.t))
        return out

    monkeypatch.setattr(GeneralizedAlpha, "advance_steps", spy)
    a = fem.simulate(build(), 0.3, dt, **kw)
    assert max(blocks) >= 30, blocks                 # blocks were taken
    b = fem.simulate(build(), 0.3, dt, on_step=lambda ga, st: None, **kw)
    assert len(a.t) == len(b.t) > 2
    for key in ("t", "q", "v", "a", "lam"):
        assert np.array_equal(getattr(a, key), getattr(b, key)), key
    assert a.stats.keys() == b.stats.keys()
    for key in a.stats:
        assert np.array_equal(a.stats[key], b.stats[key]), key
    assert a.info == b.info
    if name == "cable, failing steps":
        assert a.info["fresh_retries"] > 0 and a.stats["step_size"][1:].min() < dt
    if name == "cable, tip on a circle":     # the path moved the tip, in blocks of terms
        asm = build().assemble()
        times = np.linspace(0.0, 0.25, 7)
        c, beta, cdot, bdot = asm.constant_structure().terms_at(times)
        for i, t in enumerate(times.tolist()):
            assert np.array_equal(c[i], asm._timed_terms(t)[0])
            assert np.array_equal(beta[i], asm._timed_terms(t)[1])
            assert np.array_equal(cdot[i], asm._h(t, 1))
            assert np.array_equal(bdot[i], asm._beta(t, 1))
        assert np.ptp(a.q[:, -1]) > 1e-3
