"""Kane's spin-up beam: a flexible link on a driven hub.

Example 1 of Fan and Zhang (2016), after Kane et al. (1987) (``docs/references.md``).
An aluminium beam (L = 8 m, A = 7.2968e-5 m², I = 8.2189e-9 m⁴, ρ = 2766.7 kg/m³,
E = 6.8952e10 Pa, no gravity) is clamped to a hub turning about z with the prescribed rate

    θ̇ = Ω0 t/T − Ω0/(2π) sin(2πt/T)   (t ≤ T = 15 s),   θ̇ = Ω0   (t > T).

``basis`` chooses the discretization of the floating-frame link (:mod:`fem.bases`:
'modes', 'fe', 'bezier', 'bspline'; ``n_coordinates`` functions per transverse field)
or 'ancf': the same beam as ANCF cable elements of the DAE core, clamped to the hub by
a prescribed root slope — the independent method.  ``kinematics`` chooses the link's
centre line (:class:`fem.elements.floating_frame.FloatingFrameLink`): ``'fourth_order'``
(default) keeps the foreshortening and the curvature to the next order in the slopes and
stays within 1 % of the ANCF model over Ω0 = 2…10 rad/s; ``'paper'`` is the paper's
second-order model (linear curvature), 3 % off at Ω0 = 10 — the model of its Tables 1–3,
which ``analysis = 'compare'`` reproduces with it.  ``coupling = False`` (``'paper'`` kinematics
only) drops the foreshortening term (eq 2) of the floating frame: then nothing stiffens
the beam against the in-plane centrifugal softening and Ω0 = 10 rad/s diverges.

Figures: ``time_s``, ``tip_v_m`` (tip deflection transverse to the hub frame's x axis, in
the plane of rotation), ``tip_u_m`` (axial tip displacement in the hub frame),
``tip_v_rate_mps``, and the reference values ``axial_stretch_reference_m``
(ρΩ0²L³/3E) and ``inplane_frequency_reference_rad_s`` (first in-plane eigenfrequency of
the beam rotating at Ω0, :func:`fem.references.beams.rotating_beam_frequency`, re-exported
here as ``rotating_beam_frequency``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import fem
from fem.elements.floating_frame import KINEMATICS, FloatingFrameLink
from fem.model.chains import HubLink
from fem.references.beams import rotating_beam_frequency, rotating_rod_stretch

PARAMS = {
    "omega0_rad_s": 4.0,
    "basis": "bezier",          # modes, fe, bezier, bspline, ancf
    "n_coordinates": 4,         # functions per transverse field (ANCF: elements = 2 n)
    "coupling": True,
    "kinematics": "fourth_order",   # fourth_order, or fan2016's second-order "paper"
    "t_end_s": 20.0,
    "dt_s": 0.01,
    "rho_inf": 0.8,
    "spinup_time_s": 15.0,
    "length_m": 8.0,
    "area_m2": 7.2968e-5,
    "inertia_m4": 8.2189e-9,
    "rho_kgm3": 2766.7,
    "E_Pa": 6.8952e10,
    "analysis": "single",       # single run, or "compare": fan2016's Tables 1–3
    "compare_omegas_rad_s": [2.0, 4.0, 6.0, 8.0, 10.0],
}

LIMITS = {"omega0_rad_s": ">=0", "basis": ("modes", "fe", "bezier", "bspline", "ancf"),
          "n_coordinates": ">=1", "spinup_time_s": ">0", "length_m": ">0", "area_m2": ">0",
          "inertia_m4": ">0", "rho_kgm3": ">0", "analysis": ("single", "compare"),
          "kinematics": KINEMATICS,
          **fem.cases.STANDARD.limits("t_end_s", "dt_s", "rho_inf", "E_Pa")}

DOCS = {
    "omega0_rad_s": "final hub rate Ω0",
    "basis": "modes, fe, bezier or bspline (floating-frame link), or ancf (ANCF cables: the "
             "independent method)",
    "n_coordinates": "functions per transverse field (ancf: 2n elements)",
    "coupling": "keep the foreshortening term of the floating frame (false only with "
                "kinematics=paper; then Ω0 = 10 rad/s diverges)",
    "kinematics": "centre line of the link: fourth_order (within 1 % of ANCF), paper (the "
                  "paper's second-order model), or one correction alone",
    "spinup_time_s": "spin-up time T over which the hub reaches Ω0",
    "length_m": "beam length",
    "area_m2": "cross-section area",
    "inertia_m4": "second moment of area",
    "rho_kgm3": "density",
    "analysis": "single run, or compare: the paper's Tables 1–3 (every basis against ANCF) "
                "with our timings",
    "compare_omegas_rad_s": "hub rates of the compare analysis",
    **fem.cases.STANDARD.docs("t_end_s", "dt_s", "rho_inf", "E_Pa"),
}
"""What each parameter means, with its unit where the name does not carry it (``fem info``)."""
REFERENCES = ("fan2016", "kane1987")
"""The papers this case reproduces (keys of :mod:`fem.references.citations`)."""

BASES = ("modes", "fe", "bezier", "bspline")
SEED_SIZES = {"modes": 4, "fe": 10, "bezier": 4, "bspline": 4, "ancf": 8}
"""The bases compared in Tables 1–3 with the paper's sizes (transverse functions per
direction): 4 cantilever modes, 5 Hermite elements, the quintic Bézier, cubic B-splines
on 3 spans; the ANCF reference with 16 elements."""


def hub_motion(omega0: float, T: float):
    """The paper's hub angle ``t -> (θ, θ̇, θ̈)`` (rate above, integrated from θ(0) = 0)."""
    def motion(t: float):
        if t <= T:
            c = np.cos(2 * np.pi * t / T)
            th = omega0 * t * t / (2 * T) + omega0 * T / (4 * np.pi**2) * (c - 1.0)
            w = omega0 * t / T - omega0 / (2 * np.pi) * np.sin(2 * np.pi * t / T)
            a = omega0 / T * (1.0 - c)
            return th, w, a
        return omega0 * T / 2 + omega0 * (t - T), omega0, 0.0
    return motion


def build(**params):
    """A :class:`fem.model.chains.HubLink` (floating frame) or a :class:`fem.Model` (ANCF)."""
    p = {**PARAMS, **params}
    L, A, I, rho, E = (p["length_m"], p["area_m2"], p["inertia_m4"], p["rho_kgm3"],
                       p["E_Pa"])
    motion = hub_motion(p["omega0_rad_s"], p["spinup_time_s"])
    if p["basis"] == "ancf":
        model = fem.Model("spinup_beam_ancf")
        _, nodes = fem.straight_cable(model, (0, 0, 0), (L, 0, 0), 2 * p["n_coordinates"],
                                      fem.Material(E, 0.3, rho), A, I, name="beam",
                                      end_names=(None, "tip"))
        model.fix(nodes[0], "r", name="hub centre")

        def slope(t):
            th, w, a = motion(t)
            c, s = np.cos(th), np.sin(th)
            return (np.array([c, s, 0.0]), w * np.array([-s, c, 0.0]),
                    a * np.array([-s, c, 0.0]) - w * w * np.array([c, s, 0.0]))

        model.add_constraint(fem.PrescribedPoint(model.node_field(nodes[0], "r_x"), slope,
                                                 name="hub clamp"))
        return model
    link = FloatingFrameLink(L, p["basis"], p["n_coordinates"], rho * A, E * A, E * I,
                             E * I, GJ=E / 2.6 * 2 * I, polar_inertia_per_length=rho * 2 * I,
                             coupling=p["coupling"], kinematics=p["kinematics"])
    return HubLink(link, hub_angle=motion, name=f"spinup_beam_{p['basis']}")


def _tip_history(model, res, motion):
    t = np.asarray(res.t)
    if isinstance(model, HubLink):
        tip = np.array([model.tip_deflection(q) for q in res.q])
        pt = model.point(model.link.length)
        vel = np.array([pt.jacobian(q) @ v for q, v in zip(res.q, res.v, strict=True)])
        r = np.array([pt(q) for q in res.q])
        th = res.q[:, 0]
        w = res.v[:, 0]
    else:
        d = model.node_dofs(model.node("tip"))
        r, vel = res.q[:, d], res.v[:, d]
        th = np.array([motion(s)[0] for s in t])
        w = np.array([motion(s)[1] for s in t])
        L = model.q0[d][0]
        c, s = np.cos(th), np.sin(th)
        tip = np.column_stack([c * r[:, 0] + s * r[:, 1] - L, -s * r[:, 0] + c * r[:, 1],
                               r[:, 2]])
    c, s = np.cos(th), np.sin(th)
    # rate of the hub-frame deflection: v̇ = e_y·ṙ − θ̇ e_x·r
    v_rate = (-s * vel[:, 0] + c * vel[:, 1]) - w * (c * r[:, 0] + s * r[:, 1])
    return tip[:, 0], tip[:, 1], v_rate


def response_after_spinup(t, v, T: float, settle_s: float = 0.5) -> dict:
    """Frequency [rad/s], amplitude and mean of the tip deflection after the spin-up.

    Least-squares fit of ``c + A cos ωt + B sin ωt`` to ``v(t)`` for ``t > T + settle``:
    the linear parameters are solved for each ω, ω maximizes the fit, started from the
    strongest peak of the (zero-padded) spectrum."""
    t, v = np.asarray(t, float), np.asarray(v, float)
    sel = t > T + settle_s
    t, v = t[sel], v[sel]
    if t.size < 20:
        raise fem.ModelError("response_after_spinup: too few samples after the spin-up; "
                             "run longer (t_end_s > spinup_time_s + 2 periods)")
    dt = float(np.median(np.diff(t)))
    n = 16 * t.size
    spec = np.abs(np.fft.rfft(v - v.mean(), n))
    w0 = 2 * np.pi * np.fft.rfftfreq(n, dt)[int(np.argmax(spec[1:])) + 1]

    def fit(w):
        B = np.column_stack([np.ones_like(t), np.cos(w * t), np.sin(w * t)])
        c, *_ = np.linalg.lstsq(B, v, rcond=None)
        return c, float(np.sum((B @ c - v) ** 2))

    from scipy.optimize import minimize_scalar
    r = minimize_scalar(lambda w: fit(w)[1], bracket=(0.9 * w0, w0, 1.1 * w0),
                        tol=1e-12)
    c, _ = fit(r.x)
    return {"frequency_rad_s": float(r.x), "amplitude_m": float(np.hypot(c[1], c[2])),
            "mean_m": float(c[0])}


def run(out=None, **params) -> dict:
    p = {**PARAMS, **params}
    if p["analysis"] == "compare":
        return compare(out, **params)
    model = build(**params)
    motion = hub_motion(p["omega0_rad_s"], p["spinup_time_s"])
    # the run starts from rest with zero forces: measure residuals against the beam's
    # centrifugal force scale ρA L² Ω0²/2 (see fem.simulate's force_scale)
    scale = (0.5 * p["rho_kgm3"] * p["area_m2"] * p["length_m"] ** 2
             * max(p["omega0_rad_s"], 1.0) ** 2)
    res = fem.io.output.stream(out, model)
    diverged_at = None
    t0 = fem.cases.clock()
    try:
        fem.simulate(model, p["t_end_s"], p["dt_s"], rho_inf=p["rho_inf"],
                     force_scale=scale, result=res,
                     progress=out is not None and fem.io.options.OPTIONS.progress)
    except fem.ConvergenceError as err:
        # without the foreshortening coupling the beam loses its bending stiffness
        # above Ω = ω1 and the deflection grows without bound until Newton gives up
        diverged_at = np.inf
        failure = str(err).split(";")[0]
    wall = fem.cases.clock() - t0
    res.finish()
    if diverged_at is not None:
        diverged_at = float(res.t[-1])    # the last converged step
    u, v, vdot = _tip_history(model, res, motion)
    L, A, I, rho, E = (p["length_m"], p["area_m2"], p["inertia_m4"], p["rho_kgm3"],
                       p["E_Pa"])
    om = p["omega0_rad_s"]
    try:
        reference_w = rotating_beam_frequency(om, L, E * I, rho * A)
        reference_note = None
    except fem.ModelError as err:       # past the reference's range: the run still counts
        reference_w, reference_note = None, str(err)
    figures = {
        "basis": p["basis"], "coupling": bool(p["coupling"]),
        "kinematics": None if p["basis"] == "ancf" else p["kinematics"],
        "n_model_coordinates": int(model.n_dof),
        "time_s": np.asarray(res.t).tolist(), "tip_v_m": v.tolist(), "tip_u_m": u.tolist(),
        "tip_v_rate_mps": vdot.tolist(),
        "tip_v_peak_m": float(np.abs(v).max()),
        "axial_stretch_reference_m": rotating_rod_stretch(om, L, E, rho),
        "inplane_frequency_reference_rad_s": reference_w,
        "diverged_at_s": diverged_at,
    }
    if diverged_at is not None:
        figures["failure"] = failure
    if reference_note is not None:
        figures["inplane_frequency_reference_note"] = reference_note
    if isinstance(model, HubLink):
        lk = model.link
        X, _ = lk.basis.axial(np.array([lk.length]))
        figures["tip_stretch_m"] = (res.q[:, 1:][:, lk.slices["axial"]] @ X[0]).tolist()
    if diverged_at is None and p["t_end_s"] > p["spinup_time_s"] + 4 * np.pi / max(om, 1e-9):
        figures.update({f"after_spinup_{k}": val for k, val in response_after_spinup(
            res.t, v, p["spinup_time_s"]).items()})
    if out is not None:
        _plot(Path(out), figures, res.lam[:, 0] if isinstance(model, HubLink) else None,
              model.name)
        fem.write_outputs(out, model, res, figures)
    return {**figures, "wall_s": wall}      # run metadata (summary.json), not a result


def _plot(out: Path, figures: dict, torque, name: str) -> None:
    """Time histories of the tip in the hub frame and of the hub torque (the multiplier
    of the hub drive row of a :class:`HubLink`; None for the ANCF model)."""
    from fem.io.plots import plot_histories

    t = figures["time_s"]
    plot_histories(t, {"v (transverse)": figures["tip_v_m"], "u (axial)": figures["tip_u_m"]},
                   out / "tip_deflection.png", "tip displacement in the hub frame [m]",
                   f"{name}: tip deflection")
    if torque is not None:
        plot_histories(t, {"hub torque": torque}, out / "hub_torque.png",
                       "hub torque [N·m]", f"{name}: hub drive torque (its multiplier)")


def compare(out=None, **params) -> dict:
    """Tables 1–3 of Fan and Zhang (2016) with our timings.

    For Ω0 = 4 and 10 (Tables 1, 2): every basis and the ANCF model — wall time relative to
    the fastest, error ``max|v − v_ref| / max|v_ref|`` against a converged reference
    (Hermite elements with 16 transverse functions and half the step), the frequency and
    amplitude of the tip vibration after T beside the power-series eigenfrequency.  For
    ``compare_omegas_rad_s`` (Table 3): the error of every basis against the reference.
    Writes ``spinup_tables.md``, ``spinup_table{1,2,3}.csv`` and ``spinup_tip_v.png`` to
    ``out``.

    The floating-frame runs use the paper's second-order kinematics (``kinematics =
    'paper'``, the model of its tables) unless ``kinematics`` is given; the figures say
    which (``kinematics``)."""
    p = {**PARAMS, "kinematics": "paper", **params, "analysis": "single"}
    runs = {k: v for k, v in p.items() if k not in ("analysis", "compare_omegas_rad_s")}
    rows: list[dict] = []
    curves: dict = {}
    table_oms = (4.0, 10.0)
    trend_oms = [float(om) for om in p["compare_omegas_rad_s"]]

    def ref_key(om):
        return (om, "fe", 16, p["dt_s"] / 2)

    def key(om, basis):
        return (om, basis, SEED_SIZES[basis], p["dt_s"])

    # every run is one point of fem.sweep (the framework's one sweep code path), one
    # after another here so that the wall times compare
    keys = list(dict.fromkeys(
        [ref_key(om) for om in dict.fromkeys([*table_oms, *trend_oms])]
        + [key(om, b) for om in table_oms for b in (*BASES, "ancf")]
        + [key(om, b) for om in trend_oms for b in BASES]))
    study = fem.sweep(Path(__file__).stem, [
        {**runs, "analysis": "single", "omega0_rad_s": om, "basis": b, "n_coordinates": n,
         "dt_s": dt} for om, b, n, dt in keys], "serial",
        progress=fem.io.options.OPTIONS.progress)
    if study.failures:
        bad = study.failures[0]
        raise fem.ModelError(f"spin-up comparison: run {bad.name} failed: {bad.error}")
    result = {k: pt.figures for k, pt in zip(keys, study.points, strict=True)}

    def reference(om):
        ref = result[ref_key(om)]
        vr = np.interp(ref["time_s"][::2], ref["time_s"], ref["tip_v_m"])
        return vr, float(np.abs(vr).max())

    for om in table_oms:
        vr, peak = reference(om)
        for basis in (*BASES, "ancf"):
            f = result[key(om, basis)]
            v = np.asarray(f["tip_v_m"])
            curves[(om, basis)] = (f["time_s"], v)
            rows.append({"omega0_rad_s": om, "basis": basis,
                         "coordinates": f["n_model_coordinates"], "wall_s": f["wall_s"],
                         "error": float(np.abs(v - vr[: v.size]).max() / peak),
                         "frequency_rad_s": f.get("after_spinup_frequency_rad_s"),
                         "amplitude_m": f.get("after_spinup_amplitude_m"),
                         "frequency_reference_rad_s": f["inplane_frequency_reference_rad_s"]})
    for om in table_oms:
        sel = [r for r in rows if r["omega0_rad_s"] == om]
        fastest = min(r["wall_s"] for r in sel)
        for r in sel:
            r["relative_time"] = r["wall_s"] / fastest
    trend = []
    for om in trend_oms:
        vr, peak = reference(om)
        row = {"omega0_rad_s": om}
        for basis in BASES:
            v = np.asarray(result[key(om, basis)]["tip_v_m"])
            row[basis] = float(np.abs(v - vr[: v.size]).max() / peak)
        trend.append(row)
    figures = {"kinematics": p["kinematics"], "tables_1_2": rows, "table_3": trend,
               "fastest": {str(om): min((r for r in rows if r["omega0_rad_s"] == om
                                         and r["basis"] in BASES),
                                        key=lambda r: r["wall_s"])["basis"]
                           for om in (4.0, 10.0)},
               "most_accurate": {str(om): min((r for r in rows if r["omega0_rad_s"] == om
                                               and r["basis"] in BASES),
                                              key=lambda r: r["error"])["basis"]
                                 for om in (4.0, 10.0)}}
    if out is not None:
        _write_tables(Path(out), rows, trend, curves, p["kinematics"])
    return figures


def _write_tables(out: Path, rows, trend, curves, kinematics: str) -> None:
    import csv

    out.mkdir(parents=True, exist_ok=True)
    cols = ["omega0_rad_s", "basis", "coordinates", "wall_s", "relative_time", "error",
            "frequency_rad_s", "frequency_reference_rad_s", "amplitude_m"]
    md = ["# Spin-up beam: Tables 1–3 of Fan and Zhang (2016) with our timings", "",
          f"Floating-frame kinematics: `{kinematics}`.", ""]
    for k, om in ((1, 4.0), (2, 10.0)):
        sel = [r for r in rows if r["omega0_rad_s"] == om]
        with open(out / f"spinup_table{k}.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
            w.writeheader()
            w.writerows(sel)
        md += [f"## Table {k}: Ω0 = {om:g} rad/s", "",
               "| basis | coordinates | wall [s] | relative time | error | ω after T "
               "[rad/s] | ω reference [rad/s] | amplitude [m] |",
               "|---|---|---|---|---|---|---|---|"]
        for r in sel:
            fr = "–" if r["frequency_rad_s"] is None else f"{r['frequency_rad_s']:.4f}"
            am = "–" if r["amplitude_m"] is None else f"{r['amplitude_m']:.3e}"
            md.append(f"| {r['basis']} | {r['coordinates']} | {r['wall_s']:.2f} | "
                      f"{r['relative_time']:.2f} | {r['error']:.2e} | {fr} | "
                      f"{r['frequency_reference_rad_s']:.4f} | {am} |")
        md.append("")
    with open(out / "spinup_table3.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["omega0_rad_s", *BASES])
        w.writeheader()
        w.writerows(trend)
    md += ["## Table 3: error against the converged reference vs Ω0", "",
           "| Ω0 [rad/s] | " + " | ".join(BASES) + " |", "|---" * (len(BASES) + 1) + "|"]
    md += [f"| {r['omega0_rad_s']:g} | " + " | ".join(f"{r[b]:.2e}" for b in BASES) + " |"
           for r in trend]
    (out / "spinup_tables.md").write_text("\n".join(md) + "\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for ax, om in zip(axes[:2], (4.0, 10.0), strict=True):
        for (o, basis), (t, v) in curves.items():
            if o == om:
                ax.plot(t, v, label=basis, lw=1)
        ax.set(title=f"Ω0 = {om:g} rad/s", xlabel="t [s]", ylabel="tip v [m]")
        ax.legend()
    for b in BASES:
        axes[2].semilogy([r["omega0_rad_s"] for r in trend], [r[b] for r in trend], "o-",
                         label=b)
    axes[2].set(title="error vs Ω0", xlabel="Ω0 [rad/s]", ylabel="relative error")
    axes[2].legend()
    fig.tight_layout()
    fig.savefig(out / "spinup_tip_v.png", dpi=120)
    plt.close(fig)
