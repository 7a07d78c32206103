"""3-RRRU robot with flexible third links and a rigid triangular platform.

Reproduces §4 of Liu et al. (2018) (``docs/references.md``): links 3 as shear-deformable ANCF beams
(E = 6.9e8 Pa, ν = 0.3, round section r = 0.01 m), the rigid equilateral platform
(circumradius 0.06 m, 0.3 kg) in natural coordinates, links 1/2 rigid bars
(2.0/0.3 kg).  P follows one turn of radius 0.1 m in z = −0.8 m at 0.5 m/s with the
cosine (S-curve) acceleration and deceleration phases (40 % each, 2.094 s).  Analyses:
``static`` (the start of the path held: P at (0.1, 0, −0.8) with ``drive=path``, the
motors at the rigid robot's angles for it with ``drive=joints``); ``inverse`` (the path
followed — P prescribed with ``drive=path``, the motors' angles with ``drive=joints`` —
torques unknown); ``forward`` (driven by the rigid robot's torques from the rest state
those torques hold — 12.9 mm below P0 with the soft links — or with
``forward_torques='inverse'`` by this model's own inverse torques, which must retrace
the inverse run's motion); ``experiment`` (inverse with E = 6.9e10 Pa and a 1.6 kg
payload: the strain gauges of Table 3); ``sweep`` (inverse for each ``sweep_E_Pa``, through
:func:`fem.sweep`).  The rigid robot (:mod:`fem.robots.rrru3`, same masses) is the
reference throughout.  Model and choices: :mod:`fem.robots.rrru3_flexible_links`;
figures beside the paper's: ``docs/ancf_beam.md``.

``link_model=floating_frame`` builds links 3 as floating-frame bodies, by default 4
segments per link clamped end to end (``link_segments``): with ``drive=joints`` its
torques over the circle are within 0.34 % of their range of the converged ANCF robot
(64 elements, ``joint_sections=square``); one body per link misses by 1.5 %
(``docs/floating_frame.md``).  ``link_model=reduced`` builds each segment as a reduced
body (Craig–Bampton modes of an ANCF-beam FE model of it, ``link_coordinates`` modes;
the link's ``n_elements_per_link`` shared by its segments), the segments welded end to
end: at the defaults (4 segments of 4 elements) the torques are within 0.47 % of their
range of the ANCF robot's (16 elements), the mid-point deformation within 0.22 % and the
gauges' extremes within 2 %; one reduced body per link misses by 7.8 % (a linear
reduction misses the links' tension stiffening, which the segments' frames recover).

Defaults: the inverse analysis drives the motors (``drive=joints``: each
follows the angle the rigid robot needs for the circle, P leaves it by the links'
droop), 16 elements per link, gauges recovered from the element centres
(``gauges=recovered``).  **The paper's problem is one parameter away: ``-p
drive=path``** (P prescribed, the torques unknown), its figures beside the paper's on
``docs/papers/liu2018.md`` and ``docs/ancf_beam.md`` (at the defaults' 16 elements per
link and recovered gauges).

Convergence of the defaults (``tests/benchmarks/convergence_audit.py``,
``docs/validation.md``): every headline figure moves less than 1 % with ``dt_s`` halved
(largest: the torque deviation from the rigid robot, 0.67 %) and with 32 elements per
link (the gauge extremes, 0.49 %); the platform's tilt at the stop moves 0.04°, 1.8 % of
its 1.7° but 0.3 % of the tilt's 13.2° peak, which the audit compares it with (the tilt
falls through 58°/s at the stop).  The run takes the former default's time
(5.5–7.8 against 6.9 s on the idle 2-core machine, 12.1 against 11.4 s loaded; measured
2026-11-29).

The paper's problem is not converged and cannot be: prescribing P through flexible
links is non-minimum-phase (the servo-constrained linearization at the static state has
unstable internal dynamics, growth rates from 3.6e3 s⁻¹ up), so the inverse has no
bounded answer that refinement approaches — generalized-α's numerical damping
(ρ∞ = 0.1, h = 5 ms) regularizes it.  With ``drive=path`` and 8 elements, halving
``dt_s`` moves the torque histories by 2.9 % of their range and the largest torque
deviation from the rigid robot by 7.6 %; halving it again (with 16 elements) diverges;
16 elements per link move the torque histories by 3.7 %, 32 diverge in the first step
at 5 ms.  Those figures are the regularized inverse's at that step and mesh.  The
gauges read at their points (``gauges=point``) converge only with the element size
(the structural element's curvature is constant per element): 8 → 16 elements moved
their extremes over the circle by up to 7 %, the recovered ones by 2 %, 16 → 32 by
0.5 %.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import fem
from fem.robots import rrru3
from fem.robots.rrru3_flexible_links import (
    build_flexible_links_robot,
    equilibrium_under_torques,
    gauge_strains,
    link_midpoint_outputs,
    liu2018_circle_path,
    liu2018_geometry,
    platform_tilt,
    rigid_torque_functions,
)
from fem.robots.rrru3_model import histories, run_path

PARAMS = {
    "analysis": "inverse",         # "static", "inverse", "forward", "experiment", "sweep"
    "n_elements_per_link": 16,     # figures within 0.5 % of 32 (formerly 8; liu2018: 1)
    "E_Pa": 6.9e8,
    "nu": 0.3,
    "link_radius_m": 0.01,
    "payload_kg": 0.0,
    "speed_mps": 0.5,
    "dt_s": 0.005,
    "rho_inf": 0.1,
    "newton_tol": 1e-10,
    "forward_torques": "rigid",    # "rigid" or "inverse"
    "beam_formulation": "structural",   # or "continuum" (Poisson-locking, for comparison)
    "link_model": "ancf_beam",     # or "floating_frame" / "reduced": links 3 as those bodies
    "link_basis": "bezier",        # floating_frame: modes, fe, bezier, bspline
    "link_coordinates": 4,         # floating_frame: functions per field; reduced: modes
    "link_segments": 4,            # floating_frame, reduced: bodies per link 3, end to end
    "link_kinematics": "fourth_order",  # floating_frame: or "paper" (Fan and Zhang's)
    "joint_sections": "free",      # ancf_beam: "square" holds the sections at C, U square
    "drive": "joints",             # inverse: "joints" (motors follow the rigid robot's
                                   # angles; converges) or "path" (P prescribed, the paper's)
    "gauges": "recovered",         # ancf_beam: "recovered" (element centres) or "point"
    "sweep_E_Pa": [6.9e8, 6.9e9, 6.9e10, 6.9e11],
    "sweep_workers": 0,            # 0: the sweep's runs one after another here; N: N Dask workers
}

LIMITS = {"analysis": ("static", "inverse", "forward", "experiment", "sweep"),
          "n_elements_per_link": ">=1", "E_Pa": ">0", "nu": "(-1, 0.5)",
          "link_radius_m": ">0", "payload_kg": ">=0", "speed_mps": ">0", "dt_s": ">0",
          "rho_inf": "[0, 1]", "newton_tol": ">0", "forward_torques": ("rigid", "inverse"),
          "beam_formulation": ("structural", "continuum", "continuum_split"),
          "link_model": ("ancf_beam", "floating_frame", "reduced"), "drive": ("path", "joints"),
          "link_basis": ("modes", "fe", "bezier", "bspline"), "link_coordinates": ">=0",
          "link_segments": ">=1", "link_kinematics": ("fourth_order", "paper"),
          "joint_sections": ("free", "square"), "gauges": ("recovered", "point"),
          "sweep_workers": ">=0"}

DOCS = {
    "drive": "path: P follows the path, the motors' torques are the unknowns (the paper's "
             "non-collocated inverse dynamics); joints: each motor follows the rigid robot's "
             "angle for the path, P leaves it by the deflection (collocated, converges in "
             "the step and the mesh; the default; static and inverse "
             "analyses) [-]",
    "analysis": "static (the path's start held, see drive); inverse (the circle followed, "
                "see drive; torques unknown); forward (driven by given torques); experiment "
                "(inverse with E = 6.9e10 Pa and a 1.6 kg payload: the strain gauges); sweep "
                "(inverse for each sweep_E_Pa)",
    "E_Pa": "Young's modulus of the flexible links",
    "nu": "Poisson's ratio of the flexible links [-]",
    "link_radius_m": "radius of the round section of the flexible links",
    "payload_kg": "payload at the platform centre P",
    "speed_mps": "cruise speed of P on the circle",
    "dt_s": "time step",
    "rho_inf": "spectral radius at infinity of generalized-α (1: no numerical damping, 0: "
               "most) [-]",
    "newton_tol": "relative residual at which Newton stops [-]",
    "forward_torques": "forward analysis driven by the rigid robot's torques, or by this "
                       "model's own inverse torques",
    "beam_formulation": "strain model of the ANCF beam: structural (locking-free), or "
                        "continuum / continuum_split (Poisson locking; for comparison)",
    "link_model": "third links as ANCF beams, floating-frame bodies or reduced bodies "
                  "(Craig–Bampton modes of an ANCF-beam FE model of each segment)",
    "link_basis": "floating_frame links: deformation basis (fem.bases)",
    "link_coordinates": "floating_frame links: deformation functions per field (≥ 1); "
                        "reduced links: fixed-interface modes per segment (0: the "
                        "interfaces' static modes alone)",
    "link_segments": "floating_frame and reduced links: bodies per third link, each "
                     "joined to the one before (floating frames clamped to its tip "
                     "section; reduced segments welded to its end node) — the "
                     "kinematics' truncation, or the reduction's missing tension "
                     "stiffening, falls with the elastic rotation per body",
    "n_elements_per_link": "ANCF beam elements per flexible third link (16: every figure "
                           "within 0.5 % of 32's; 8, the paper page's: mid-point "
                           "deformation within 0.6 % of 16); reduced links: the elements "
                           "of the FE models of a link's segments together",
    "link_kinematics": "floating_frame links: centre line and curvature to fourth order "
                       "in the slopes, or to second (paper: Fan and Zhang (2016))",
    "joint_sections": "ancf_beam links: free (the joints turn r_z alone and may shear the "
                      "end node's section: the robot softens with the element count), or "
                      "square (r_y·r_z = 0 at C and U: converges in the elements)",
    "gauges": "ancf_beam links: strain gauges read from the element-centre strains "
              "interpolated linearly (recovered: converges with the element size squared) or "
              "at the gauge's point of its element (point: the curvature is constant per "
              "element, so it converges only with the element size) [-]",
    "sweep_E_Pa": "moduli of the sweep analysis",
    "sweep_workers": "sweep analysis: 0 runs the points one after another here, N on N Dask "
                     "worker processes",
}
"""What each parameter means, with its unit where the name does not carry it (``fem info``)."""
KERNELS = "numpy"
"""Its runs are too short to repay loading the compiled kernels: 7 % more CPU on them
(``tests/benchmarks/kernel_paths.py``, 3 rounds, 2026-11-29)."""
REFERENCES = ("liu2018",)
"""The papers this case reproduces (keys of :mod:`fem.references.citations`)."""

PAPER = {"forward_x_deviation_mm": 8.7, "forward_other_deviation_mm": 2.0,
        "tilt_start_stop_deg": 5.3, "tilt_cruise_deg": 0.5,
        "torque_range_Nm": [-11.1, -8.3], "actuator_angle_max_deg": 9.8,
        "torque_deviation_Nm": -0.39, "angle_deviation_deg": 0.84,
        "midpoint_deformation_mm": 7.73, "shear_angle_max_deg": 0.0004,
        "experiment_strain_peak": 1e-5, "gauge_distances_mm": [200.0, 407.5, 600.0]}

GAUGES_M = (0.200, 0.4075, 0.600)


def _elements(p: dict) -> int:
    """ANCF elements of a link (ANCF links) or of each segment's FE model (reduced links:
    the link's ``n_elements_per_link`` shared by its segments, two at least)."""
    n = int(p["n_elements_per_link"])
    if p["link_model"] == "reduced":
        return max(2, -(-n // max(1, int(p["link_segments"]))))
    return n


def _links(p: dict) -> dict:
    """The links' keyword arguments of :func:`build_flexible_links_robot`."""
    return {"E": float(p["E_Pa"]), "nu": float(p["nu"]), "radius": float(p["link_radius_m"]),
            "n_elements": _elements(p), "formulation": p["beam_formulation"],
            "link_model": p["link_model"], "link_basis": p["link_basis"],
            "link_coordinates": int(p["link_coordinates"]),
            "link_kinematics": p["link_kinematics"], "link_segments": int(p["link_segments"]),
            "joint_sections": p["joint_sections"]}


def _setup(p: dict, mode: str = "inverse", torques=None):
    geom = liu2018_geometry(float(p["payload_kg"]))
    path = liu2018_circle_path(geom, float(p["speed_mps"]))
    rm = build_flexible_links_robot(geom, mode=mode, path=path if mode == "inverse" else None,
                                    torques=torques, drive=p["drive"], **_links(p))
    return geom, path, rm


def _recovered(p: dict) -> bool:
    if p["gauges"] not in ("recovered", "point"):
        raise fem.ModelError(f"gauges must be 'recovered' or 'point', got {p['gauges']!r}")
    return p["gauges"] == "recovered"


def build(**params) -> fem.Model:
    p = {**PARAMS, **params}
    return _setup(p)[2].model


def _series(rm, res, p: dict) -> dict[str, np.ndarray]:
    """Tilt, link mid-point deformation and shear, gauge strains per recorded step."""
    n = len(res.t)
    tilt = np.zeros(n)
    defl, shear = np.zeros((n, 3)), np.zeros((n, 3, 2))
    gauges = np.zeros((n, len(GAUGES_M), 4))
    for i, q in enumerate(res.q):
        tilt[i] = platform_tilt(rm, q)
        mo = link_midpoint_outputs(rm, q)
        defl[i], shear[i] = mo["deformation"], mo["shear_angle"]
        gauges[i] = gauge_strains(rm, q, 0, GAUGES_M, recovered=_recovered(p))
    return {"tilt": tilt, "deformation": defl, "shear": shear, "gauges": gauges}


def _cruise(t: np.ndarray, T: float) -> np.ndarray:
    return (t > 0.4 * T) & (t < 0.6 * T)


def _flex_figures(t, s, T) -> dict:
    cr = _cruise(t, T)
    tilt = np.degrees(s["tilt"])
    return {
        "tilt_start_deg": float(tilt[0]), "tilt_end_deg": float(tilt[-1]),
        "tilt_max_deg": float(tilt.max()), "tilt_cruise_max_deg": float(tilt[cr].max()),
        "midpoint_deformation_max_mm": (1e3 * s["deformation"].max(axis=0)).tolist(),
        "shear_angle_max_deg": float(np.degrees(np.abs(s["shear"]).max())),
        "gauge_strain_range": {f"{1e3 * d:g} mm": [float(s["gauges"][:, i].min()),
                                                   float(s["gauges"][:, i].max())]
                               for i, d in enumerate(GAUGES_M)},
    }


def _inverse(p: dict, out=None):
    """The inverse run (streamed to ``out``'s ``result/`` and series when given)."""
    geom, path, rm = _setup(p)
    st = fem.solve_static(rm.model, tol=1e-12)
    res = run_path(rm, path.duration, float(p["dt_s"]), float(p["rho_inf"]), q0=st.q,
                   tol=float(p["newton_tol"]),
                   result=fem.io.output.stream(out, rm.model) if out is not None else None,
                   progress=out is not None and fem.io.options.OPTIONS.progress)
    h = histories(rm, res, path)
    ref = rrru3.reference_torques(path, res.t, geom)
    return geom, path, rm, st, res, h, ref


SIDES = ("+y", "−y", "+z", "−z")
"""The four gauges of a station, on the section's sides (the legend of the gauge plot)."""


def _plots(out, t, curves: dict[str, tuple]) -> None:
    from fem.io.plots import plot_histories

    for name, (series, ylabel, *more) in curves.items():
        ref, styles = (more + [None, None])[:2]
        plot_histories(t, series, out / f"{name}.png", ylabel, name.replace("_", " "),
                       reference=ref, styles=styles)


def _run_inverse(p: dict, out=None) -> dict:
    t0 = fem.cases.clock()
    geom, path, rm, st, res, h, ref = _inverse(p, out)
    s = _series(rm, res, p)
    tau, th = h["torque"], h["theta"]
    asm = rm.model.assemble()
    fig = {**rm.counts, "paper": PAPER, "duration_s": path.duration,
           "static_torque_Nm": [asm.efforts(st.lam)[a.name] for a in rm.actuators],
           "rigid_static_torque_Nm": rrru3.gravity_torques(geom, geom.start_point)[0].tolist(),
           "torque_range_per_limb_Nm": [[float(tau[:, k].min()), float(tau[:, k].max())]
                                        for k in range(3)],
           "rigid_torque_range_per_limb_Nm": [[float(ref["torque"][:, k].min()),
                                               float(ref["torque"][:, k].max())]
                                              for k in range(3)],
           "theta_range_deg": [float(np.degrees(th.min())), float(np.degrees(th.max()))],
           "theta_change_max_deg": float(np.degrees(np.abs(th - th[0]).max())),
           "max_torque_dev_vs_rigid_Nm": float(np.abs(tau - ref["torque"]).max()),
           "max_angle_dev_vs_rigid_deg": float(np.degrees(np.abs(th - ref["theta"]).max())),
           "max_path_error_m": float(h["path_error"].max()),
           "max_dynamics_residual": float(res.stats["residual_dynamics"].max()),
           "max_constraint_residual": float(res.stats["residual_constraints"].max()),
           "steps": len(res.t) - 1, "time_s": res.t.tolist(), "torque_Nm": tau.tolist()}
    fig.update(_flex_figures(res.t, s, path.duration))
    wall = fem.cases.clock() - t0
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        L = [f"limb {k + 1}" for k in range(3)]         # the links 3 of the limbs
        M = [f"motor {k + 1}" for k in range(3)]        # their motors, named as in the movie
        _plots(out, res.t, {
            "torques": ({k: tau[:, i] for i, k in enumerate(M)}, "actuator torque τ [N·m]",
                        {k: ref["torque"][:, i] for i, k in enumerate(M)}),
            "actuator_angles": ({k: np.degrees(th[:, i]) for i, k in enumerate(M)}, "θ [deg]"),
            "torque_deviation": ({k: tau[:, i] - ref["torque"][:, i] for i, k in enumerate(M)},
                                 "τ − τ_rigid [N·m]"),
            "angle_deviation": ({k: np.degrees(th[:, i] - ref["theta"][:, i])
                                 for i, k in enumerate(M)}, "θ − θ_rigid [deg]"),
            "platform_tilt": ({"tilt": np.degrees(s["tilt"])}, "normal vs Z [deg]"),
            "midpoint_deformation": ({k: 1e3 * s["deformation"][:, i]
                                      for i, k in enumerate(L)},
                                     "midpoint deformation [mm]"),
            # colour by limb, line style by the axis of the angle
            "midpoint_shear_angle": ({f"{k} {ax}": np.degrees(s["shear"][:, i, j])
                                      for i, k in enumerate(L) for j, ax in enumerate("yz")},
                                     "midpoint shear angle [deg]", None,
                                     {f"{k} {ax}": (i, style) for i, k in enumerate(L)
                                      for ax, style in zip("yz", ("-", "--"), strict=True)}),
            # colour by station along the link, line style by the side of the section
            "gauge_strains_limb1": ({f"{1e3 * d:g} mm, {pt}": 1e6 * s["gauges"][:, i, j]
                                     for i, d in enumerate(GAUGES_M)
                                     for j, pt in enumerate(SIDES)},
                                    "axial surface strain [µm/m]", None,
                                    {f"{1e3 * d:g} mm, {pt}": (i, style)
                                     for i, d in enumerate(GAUGES_M)
                                     for pt, style in zip(SIDES, ("-", "--", ":", "-."),
                                                          strict=True)}),
        })
        fem.write_outputs(out, rm.model, res, fig)
    return {**fig, "wall_s": wall}      # run metadata (summary.json), not a figure


def _run_forward(p: dict, out=None) -> dict:
    t0 = fem.cases.clock()
    geom = liu2018_geometry(float(p["payload_kg"]))
    path = liu2018_circle_path(geom, float(p["speed_mps"]))
    if p["forward_torques"] == "rigid":
        torques = rigid_torque_functions(geom, path)
        # start at rest where the rigid robot's start torques hold the flexible robot
        q0, P_start = equilibrium_under_torques(geom, [f(0.0) for f in torques],
                                                **_links(p))
    elif p["forward_torques"] == "inverse":
        # start at the static state of the inverse model (its torques hold P at P0): the
        # inverse run's own (it was solved a second time on a second model, 13 % of this run)
        P_start = np.asarray(geom.start_point, float)
        _, _, _, st_i, res_i, h_i, _ = _inverse(p)
        q0 = st_i.q
        torques = [lambda t, k=k: float(np.interp(t, res_i.t, h_i["torque"][:, k]))
                   for k in range(3)]
    else:
        raise fem.ModelError(f"forward_torques must be 'rigid' or 'inverse', got "
                             f"{p['forward_torques']!r}")
    _, _, rm = _setup(p, "forward", torques)
    res = fem.simulate(rm.model, path.duration, float(p["dt_s"]), rho_inf=float(p["rho_inf"]),
                       q0=q0, tol=float(p["newton_tol"]), constraint_tol=1e-11,
                       reuse="step", result=fem.io.output.stream(out, rm.model)
                       if out is not None else None,
                       progress=out is not None and fem.io.options.OPTIONS.progress)
    P = np.array([rm.P(q) for q in res.q])
    dev = P - np.asarray(path(res.t)[0])
    s = _series(rm, res, p)
    fig = {**rm.counts, "paper": PAPER, "forward_torques": p["forward_torques"],
           "start_offset_mm": (1e3 * (P_start - geom.start_point)).tolist(),
           "max_path_deviation_per_axis_mm": (1e3 * np.abs(dev).max(axis=0)).tolist(),
           "end_path_deviation_mm": (1e3 * dev[-1]).tolist(),
           "max_dynamics_residual": float(res.stats["residual_dynamics"].max()),
           "max_constraint_residual": float(res.stats["residual_constraints"].max()),
           "steps": len(res.t) - 1, "time_s": res.t.tolist()}
    fig.update(_flex_figures(res.t, s, path.duration))
    wall = fem.cases.clock() - t0
    if out is not None:
        out = Path(out)
        _plots(out, res.t, {
            "path_deviation": ({ax: 1e3 * dev[:, i] for i, ax in enumerate("xyz")},
                               "P (platform centre) − its path [mm]"),
            "platform_tilt": ({"tilt": np.degrees(s["tilt"])}, "normal vs Z [deg]")})
        fem.write_outputs(out, rm.model, res, fig)
    return {**fig, "wall_s": wall}      # run metadata (summary.json), not a figure


def _run_static(p: dict, out=None) -> dict:
    geom, path, rm = _setup(p)
    st = fem.solve_static(rm.model, tol=1e-12)
    asm = rm.model.assemble()
    mo = link_midpoint_outputs(rm, st.q)
    fig = {**rm.counts, "paper": PAPER,
           "static_torque_Nm": [asm.efforts(st.lam)[a.name] for a in rm.actuators],
           "rigid_static_torque_Nm": rrru3.gravity_torques(geom, geom.start_point)[0].tolist(),
           "tilt_deg": float(np.degrees(platform_tilt(rm, st.q))),
           "midpoint_deformation_mm": (1e3 * mo["deformation"]).tolist(),
           "shear_angle_deg": np.degrees(mo["shear_angle"]).tolist(),
           "gauge_strains_limb1": gauge_strains(rm, st.q, 0, GAUGES_M,
                                                recovered=_recovered(p)).tolist(),
           "newton_iterations": st.iterations, "residual_relative": st.residual}
    if out is not None:
        fem.write_outputs(out, rm.model, None, fig, state=st)
    return fig


def run(out=None, **params) -> dict:
    p = {**PARAMS, **params}
    a = p["analysis"]
    if a == "static":
        return _run_static(p, out)
    if a == "inverse":
        return _run_inverse(p, out)
    if a == "forward":
        return _run_forward(p, out)
    if a == "experiment":
        return _run_inverse({**p, "E_Pa": 6.9e10, "payload_kg": 1.6}, out)
    if a == "sweep":      # each modulus one inverse run of this case, through fem.sweep
        fixed = {k: v for k, v in params.items() if k != "analysis" and not k.startswith("sweep_")}
        study = fem.sweep(Path(__file__).stem, [{**fixed, "analysis": "inverse",
                                                 "E_Pa": float(E)} for E in p["sweep_E_Pa"]],
                          None if p["sweep_workers"] else "serial", workers=p["sweep_workers"],
                          out=out, progress=out is not None and fem.io.options.OPTIONS.progress)
        rows = []
        for E in p["sweep_E_Pa"]:
            f = study.figures(E_Pa=float(E))
            rows.append({"E_Pa": float(E),
                         "max_torque_dev_vs_rigid_Nm": f["max_torque_dev_vs_rigid_Nm"],
                         "max_angle_dev_vs_rigid_deg": f["max_angle_dev_vs_rigid_deg"],
                         "tilt_max_deg": f["tilt_max_deg"]})
        devs = [r["max_torque_dev_vs_rigid_Nm"] for r in rows]
        return {"modulus_sweep": rows, "deviation_falls_with_E": bool(np.all(np.diff(devs) < 0))}
    raise fem.ModelError(f"analysis must be 'static', 'inverse', 'forward', 'experiment' or "
                         f"'sweep', got {a!r}")
