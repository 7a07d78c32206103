"""Checks of the beam elements, the reduced bodies and the frame element against closed
forms of the continuous beam (:mod:`fem.references.beams`) and their full FE models.

Each ``@check`` function measures the check of its name in ``checks.toml``, which declares
its subject, reference, limits and why."""

from __future__ import annotations

import numpy as np

from .plots import new_figure, refinement_plot, to_plot
from .registry import Measurement, check


def _case(name: str):
    from ..cases import load_case

    return load_case(name)


def orders(n: list[int] | np.ndarray, err: list[float] | np.ndarray) -> np.ndarray:
    """Observed convergence orders ``log(e_i / e_{i+1}) / log(n_{i+1} / n_i)`` of a
    refinement sequence."""
    n, e = np.asarray(n, float), np.abs(np.asarray(err, float))
    return np.log(e[:-1] / e[1:]) / np.log(n[1:] / n[:-1])


# ------------------------------------------------------------------ static tip deflection
@check
def cable_tip_convergence(quick: bool) -> Measurement:
    case = _case("cantilever_cable")
    light = case.reference(rho_kgm3=0.785)["tip_z_m"]
    linear = case.run(n_elements=1, rho_kgm3=0.785)["tip_z_m"] / light - 1
    ref = case.reference()["tip_z_m"]
    ns = [1, 2, 4, 8] if quick else [1, 2, 4, 8, 16]
    w = np.array([case.run(n_elements=n)["tip_z_m"] for n in ns])
    w_fine = case.run(n_elements=64)["tip_z_m"]
    err_closed = w / ref - 1
    err_mesh = w / w_fine - 1
    rates = orders(ns, err_mesh)
    default = case.PARAMS["n_elements"]
    e_default = float(err_closed[ns.index(default)])
    table = [{"elements": n, "error vs qL⁴/8EI": f"{ec:+.3e}",
              "error vs 64 elements": f"{em:+.3e}",
              "order": "" if i == 0 else f"{rates[i - 1]:.2f}"} for i, (n, ec, em)
             in enumerate(zip(ns, err_closed, err_mesh, strict=True))]
    plot = refinement_plot(
        "convergence", "ANCF cable cantilever under its weight: tip error against the linear "
        "closed form and against the 64-element solution.", ns,
        [(err_closed, "o-", "vs qL⁴/8EI (linear theory)"),
         (err_mesh, "s-", "vs 64 elements (mesh error)")], (1, -4),
        "elements", "|relative tip-deflection error| [-]",
        level=(abs(w_fine / ref - 1), "64 elements vs qL⁴/8EI (nonlinearity)"))
    return Measurement({"linear_one_element_error_rel": float(abs(linear)),
                        "order_min": float(rates.min()), "order_max": float(rates.max()),
                        "error_default_rel": abs(e_default),
                        "nonlinear_offset_rel": float(abs(w_fine / ref - 1))},
                       f"2 m steel bar 20 × 20 mm; {ns[0]}…{ns[-1]} elements at the case's "
                       f"load; one element at 1e-4 of it misses by {linear:+.1e}.",
                       table, [plot])


@check
def beam_tip_convergence(quick: bool) -> Measurement:
    case = _case("cantilever_beam")
    load = {"gravity": False, "tip_force_z_N": -2.0, "analysis": "static"}
    ns = [2, 4, 8, 16] if quick else [2, 4, 8, 16, 32]
    ref = case.reference(**load)["tip_z_m"]
    err = np.array([case.run(n_elements=n, **load)["tip_z_m"] / ref - 1 for n in ns])
    rates = orders(ns, err)
    table = [{"elements": n, "tip error": f"{e:+.3e}", "error × 4n²": f"{4 * n * n * e:+.4f}",
              "order": "" if i == 0 else f"{rates[i - 1]:.2f}"}
             for i, (n, e) in enumerate(zip(ns, err, strict=True))]
    plot = refinement_plot("convergence", "ANCF beam cantilever: tip-deflection error "
                           "against Timoshenko's PL³/3EI + PL/kGA under refinement.", ns,
                           [(err, "o-", "ANCF beam, tip deflection")], (0, -2), "elements",
                           "|relative error| [-]")
    return Measurement({"order_min": float(rates.min()), "order_max": float(rates.max()),
                        "error_finest_rel": float(abs(err[-1])),
                        "error_times_4n2": float(4 * ns[-1] ** 2 * err[-1])},
                       f"{ns[0]}…{ns[-1]} elements, 2 m steel bar 20 × 20 mm, tip force 2 N.",
                       table, [plot])


@check
def beam_elastica(quick: bool) -> Measurement:
    from fem.elements.ancf_beam import beam_section
    from fem.references.beams import cantilever_elastica

    case = _case("cantilever_beam")
    p = case.PARAMS
    EI = p["E_Pa"] * beam_section("rectangle", p["nu"], width=p["side_m"],
                                  height=p["side_m"])["iy"]
    L = p["length_m"]
    loads = (1.0, 2.0, 5.0)
    sizes = (16,) if quick else (8, 16)
    rows, worst = [], 0.0
    fe_points = {}
    for n in sizes:
        for k in loads:
            f = case.run(n_elements=n, gravity=False, tip_force_z_N=-k * EI / L**2,
                         load_steps=int(4 * k), analysis="static")
            x_ref, w_ref = cantilever_elastica(k)
            ex = f["tip_x_m"] / L / x_ref - 1
            ew = -f["tip_z_m"] / L / w_ref - 1
            rows.append({"elements": n, "PL²/EI": k, "x/L": f"{f['tip_x_m'] / L:.5f}",
                         "x/L elastica": f"{x_ref:.5f}", "w/L": f"{-f['tip_z_m'] / L:.5f}",
                         "w/L elastica": f"{w_ref:.5f}", "error x": f"{ex:+.2e}",
                         "error w": f"{ew:+.2e}"})
            if n == 16:
                worst = max(worst, abs(ex), abs(ew))
                fe_points[k] = (f["tip_x_m"] / L, -f["tip_z_m"] / L)
    kk = np.linspace(0.0, 6.0, 31)
    # the drawn curve by the eighth-order method at the same tolerances (~1e-13 from the
    # reference the limits use; 31 shooting solves took 3.4 s of CPU with the default)
    curve = np.array([cantilever_elastica(k, method="DOP853") for k in kk])
    fig, ax = new_figure(size=(6.4, 4.2))
    ax.plot(kk, curve[:, 1], "-", color="C0", label="w/L, elastica")
    ax.plot(kk, 1 - curve[:, 0], "-", color="C1", label="u/L = 1 − x/L, elastica")
    ks = np.array(list(fe_points))
    pts = np.array(list(fe_points.values()))
    ax.plot(ks, pts[:, 1], "o", color="C0", label="w/L, ANCF beam (16 el.)")
    ax.plot(ks, 1 - pts[:, 0], "s", color="C1", label="u/L, ANCF beam (16 el.)")
    ax.set(xlabel="load PL²/EI [-]", ylabel="tip displacement / L [-]")
    ax.grid(True, alpha=0.3)
    ax.legend()
    plot = to_plot(fig, "elastica", "Cantilever under a dead tip load: tip displacements of "
                   "the elastica (lines) and of the 16-element ANCF beam (markers).")
    return Measurement({"max_error_rel": worst},
                       f"2 m steel bar 20 × 20 mm, 4k load steps; elements "
                       f"{', '.join(map(str, sizes))}.", rows, [plot])


# ------------------------------------------------------------------ frequency tables
def _frame_beam(boundary: str, n_el: int, length: float, E: float, rho: float, sec: dict):
    from fem.reduction.frames import Frame

    fr = Frame("xz")
    a = fr.add_node(0.0, 0.0)
    b = fr.add_node(length, 0.0)
    fr.add_member(a, b, E, rho, sec, n_elements=n_el)
    held = {"clamped-free": ((a, None),), "free-free": (),
            "clamped-clamped": ((a, None), (b, None)),
            "pinned-pinned": ((a, ("x", "z")), (b, ("x", "z"))),
            "pinned-clamped": ((a, ("x", "z")), (b, None))}[boundary]
    for node, dofs in held:
        fr.fix(node, dofs)
    return fr


def _transverse(fr, res) -> np.ndarray:
    """Frequencies of the modes whose translations are mostly along z (bending)."""
    sh = res.shapes.reshape(len(fr.nodes), 3, -1)
    along, across = np.abs(sh[:, 0]).sum(0), np.abs(sh[:, 1]).sum(0)
    return res.frequencies_hz[(across > along) & (res.frequencies_hz > 1e-3)]


@check
def hermite_frequency_table(quick: bool) -> Measurement:
    from fem.reduction.frames import rectangle
    from fem.references.beams import BOUNDARIES, beam_beta_l

    E, rho, L = 2.0e11, 7800.0, 1.5
    sec = rectangle(0.03, 0.05, wall=0.004)
    n_el = 20
    rows, ratios, errors = [], [], []
    for boundary in BOUNDARIES:
        fr = _frame_beam(boundary, n_el, L, E, rho, sec)
        f = _transverse(fr, fr.modes(10))[:3]
        lam = beam_beta_l(boundary, 3)
        ref = lam**2 / L**2 * np.sqrt(E * sec["iy"] / (rho * sec["area"])) / (2 * np.pi)
        for i in range(3):
            err = f[i] / ref[i] - 1
            est = (lam[i] / n_el) ** 4 / 1440
            rows.append({"element": "frame", "ends": boundary, "mode": i + 1,
                         "βL": f"{lam[i]:.5f}", "reference [Hz]": f"{ref[i]:.4f}",
                         "FE [Hz]": f"{f[i]:.4f}", "error": f"{err:+.2e}",
                         "(βh)⁴/1440": f"{est:.2e}", "error/estimate": f"{err / est:.3f}"})
            ratios.append(err / est)
            errors.append((err, est))
    case = _case("cantilever_cable")
    n_cable = 16
    fig_c = case.run(n_elements=n_cable, analysis="modal", gravity=False, n_modes=12)
    f = np.array(fig_c["bending_z_frequencies_hz"][:3])
    ref = np.array(case.reference()["bending_frequencies_hz"])
    lam = beam_beta_l("clamped-free", 3)
    for i in range(3):
        err = f[i] / ref[i] - 1
        est = (lam[i] / n_cable) ** 4 / 1440
        rows.append({"element": "ANCF cable", "ends": "clamped-free", "mode": i + 1,
                     "βL": f"{lam[i]:.5f}", "reference [Hz]": f"{ref[i]:.4f}",
                     "FE [Hz]": f"{f[i]:.4f}", "error": f"{err:+.2e}",
                     "(βh)⁴/1440": f"{est:.2e}", "error/estimate": f"{err / est:.3f}"})
        ratios.append(err / est)
        errors.append((err, est))
    e = np.array(errors)
    fig, ax = new_figure(size=(6.0, 4.6))
    ax.loglog(e[:-3, 1], e[:-3, 0], "o", label="frame element, 20 el., 5 end conditions")
    ax.loglog(e[-3:, 1], e[-3:, 0], "s", label="ANCF cable, 16 el., cantilever")
    lo, hi = e[:, 1].min() / 2, e[:, 1].max() * 2
    ax.loglog([lo, hi], [lo, hi], "k:", label="error = (βₙh)⁴/1440")
    ax.set(xlabel="estimate (βₙh)⁴/1440 [-]", ylabel="relative frequency error [-]")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    plot = to_plot(fig, "errors", "Bending frequencies of cubic Hermite beams: measured "
                   "relative error against the leading-term estimate.")
    r = np.array(ratios)
    return Measurement({"ratio_min": float(r.min()), "ratio_max": float(r.max()),
                        "max_error_rel": float(np.abs(e[:, 0]).max())},
                       "Frame: 1.5 m steel box 30 × 50 mm, wall 4 mm; cable: the "
                       "cantilever_cable bar.", rows, [plot])


@check
def ancf_beam_frequencies(quick: bool) -> Measurement:
    case = _case("cantilever_beam")
    rows, worst, axial = [], 0.0, 0.0
    for section in ("square", "circle"):
        fig = case.run(analysis="modal", gravity=False, n_elements=32, n_modes=40,
                       section=section)
        ref = case.reference(section=section)
        for kind, rkind, k in (("bending_y", "bending", 3), ("bending_z", "bending", 3),
                               ("torsion", "torsion", 2), ("axial", "axial", 2)):
            f = np.array(fig[f"{kind}_frequencies_hz"][:k])
            r = np.array(ref[f"{rkind}_frequencies_hz"][:k])
            err = f / r - 1
            for i in range(k):
                rows.append({"section": section, "kind": kind, "mode": i + 1,
                             "reference [Hz]": f"{r[i]:.4f}", "FE [Hz]": f"{f[i]:.4f}",
                             "error": f"{err[i]:+.2e}"})
            worst = max(worst, float(np.abs(err).max()))
            if kind == "axial":
                axial = max(axial, float(np.abs(err).max()))
    return Measurement({"max_error_rel": worst, "axial_error_rel": axial},
                       "2 m steel bar, 20 × 20 mm square or 10 mm radius.", rows)


# ------------------------------------------------------------------ reduced bodies
def _steel_beam(n: int):
    import fem
    from fem.model.builders import straight_beam

    m = fem.Model("beam", gravity=(0.0, 0.0, 0.0))
    _, nodes = straight_beam(m, (0, 0, 0), (1.0, 0, 0), n, fem.Material(2.1e11, 0.3, 7800.0),
                             section="circle", radius=0.01)
    return m, nodes


@check
def reduced_free_free(quick: bool) -> Measurement:
    import fem
    from fem.reduction import reduce_body
    from fem.references.beams import beam_beta_l

    m, _ = _steel_beam(16)
    full = fem.modes(m, n_modes=14).frequencies_hz[6:]     # bending pairs (y, z) of the rod
    red = reduce_body(m, n_modes=8, method="free")
    mb = fem.Model("reduced", gravity=(0, 0, 0))
    mb.add_reduced_body("beam", red)
    body = fem.modes(mb, n_modes=14).frequencies_hz
    A, I = np.pi * 0.01**2, np.pi * 0.01**4 / 4
    lam = beam_beta_l("free-free", 3)
    eb = lam**2 * np.sqrt(2.1e11 * I / (7800.0 * A)) / (2 * np.pi)
    # the round section bends alike in y and z: each bending frequency twice
    pairs = float(np.abs(full[1::2] / full[0::2] - 1).max())
    rows = [{"mode": i + 1, "Euler–Bernoulli [Hz]": f"{eb[i]:.4f}",
             "FE (16 el.) [Hz]": f"{full[2 * i]:.4f}",
             "reduced body [Hz]": f"{body[6 + 2 * i]:.4f}",
             "body / FE − 1": f"{body[6 + 2 * i] / full[2 * i] - 1:+.1e}",
             "FE / EB − 1": f"{full[2 * i] / eb[i] - 1:+.2e}"} for i in range(3)]
    return Measurement({"body_vs_fe_rel": float(np.abs(body[6:] / full - 1).max()),
                        "rigid_modes_hz": float(np.abs(body[:6]).max()),
                        "fe_vs_euler_bernoulli_rel": float(abs(full[0] / eb[0] - 1))},
                       "1 m steel rod, radius 10 mm; 8 free–free modes kept; each bending "
                       f"frequency appears in y and z (pairs equal to {pairs:.0e}).", rows)


@check
def reduced_cantilever_static(quick: bool) -> Measurement:
    import fem
    from fem.reduction import reduce_body, rigid

    F = np.array([0.0, 0.0, -20.0])
    m, nodes = _steel_beam(8)
    m.fix(nodes[0])
    m.add_force(m.point(nodes[-1]), F)
    full = m.point(nodes[-1])(fem.solve_static(m).q)
    EI = 2.1e11 * np.pi * 0.01**4 / 4
    rows, worst = [], 0.0
    for n_modes in (0, 4):
        m2, nodes2 = _steel_beam(8)
        red = reduce_body(m2, {"root": rigid([nodes2[0]]), "tip": m2.point(nodes2[-1])},
                          n_modes=n_modes)
        mb = fem.Model("reduced", gravity=(0, 0, 0))
        b = mb.add_reduced_body("beam", red)
        mb.add_constraint(fem.Coincident(b.map(m2.point(nodes2[0])), mb.ground((0, 0, 0)),
                                         "clamp"))
        ry, rz = (b.map(m2.node_field(nodes2[0], f)) for f in ("r_y", "r_z"))
        mb.add_constraint(fem.Dot(ry, mb.ground((1, 0, 0)), 0.0, "clamp y ⊥ x"))
        mb.add_constraint(fem.Dot(rz, mb.ground((1, 0, 0)), 0.0, "clamp z ⊥ x"))
        mb.add_constraint(fem.Dot(rz, mb.ground((0, 1, 0)), 0.0, "clamp z ⊥ y"))
        mb.add_force(b.interface("tip"), F)
        tip = b.interface("tip")(fem.solve_static(mb).q)
        rel = abs(tip[2] - full[2]) / abs(full[2])
        worst = max(worst, rel)
        rows.append({"normal modes": n_modes, "reduced tip w [mm]": f"{1e3 * tip[2]:.5f}",
                     "full tip w [mm]": f"{1e3 * full[2]:.5f}", "difference": f"{rel:.1e}"})
    eb = -20.0 / (3 * EI)
    return Measurement({"body_vs_full_rel": worst,
                        "full_vs_euler_bernoulli_rel": float(abs(full[2] / eb - 1))},
                       f"1 m steel rod, radius 10 mm, 8 elements; FL³/3EI = {1e3 * eb:.4f} mm.",
                       rows)


@check
def cms_vs_full_frame(quick: bool) -> Measurement:
    vm = _case("vehicle_manipulator_cms")
    conv = vm.convergence(max_modes=6)
    err = np.array([r["error_percent"] for r in conv["rows"]])
    k = [r["n_modes"] for r in conv["rows"]]
    default = vm.PARAMS["n_modes"]
    rows = [{"modes per substructure": kk, **{f"f{i + 1} error [%]": f"{e[i]:.2e}"
                                              for i in range(3)}}
            for kk, e in zip(k, err, strict=True)]
    fig, ax = new_figure(size=(6.4, 4.2))
    for i in range(3):
        ax.semilogy(k, np.abs(err[:, i]), "o-", label=f"f{i + 1} (full: "
                    f"{conv['full_hz'][i]:.3f} Hz)")
    ax.axvline(default, color="0.5", ls=":", label=f"default ({default} modes)")
    ax.set(xlabel="fixed-interface modes per substructure",
           ylabel="CMS frequency error [%]")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    plot = to_plot(fig, "cms", "Vehicle manipulator: Craig–Bampton frequency error against "
                   "the full frame model.")
    return Measurement({"error_default_percent": float(err[k.index(default)].max()),
                        "error_min_percent": float(err.min()),
                        "largest_increase_percent": float(np.diff(err, axis=0).max())},
                       f"Full model: {', '.join(f'{f:.4f}' for f in conv['full_hz'])} Hz.",
                       rows, [plot])
