"""Closed-loop control of the 3-RRRU robot with flexible links: what feedforward buys.

The robot of Liu et al. (2018) (``docs/references.md``; soft ANCF-beam third links,
E = 6.9e8 Pa) tracks its circle (one turn of radius 0.1 m, 2.094 s at 0.5 m/s) with a
joint-space PD controller on each motor, its reference the motor angles of the path.
Four runs, each forward dynamics from the servo-held static state:

* ``pd``: the PD alone (reference: the rigid robot's inverse kinematics);
* ``pd_rigid``: plus the rigid robot's torques as feedforward (:mod:`fem.robots.rrru3`);
* ``pd_collocated``: plus the flexible robot's torques with its motors following the
  rigid angles (the collocated inverse dynamics: joints on the path's angles, the links'
  sag left in P);
* ``pd_task``: plus the flexible robot's torques with P prescribed on the path (the
  paper's task-space inverse dynamics), and its motor angles as the reference;
* ``ct_rigid``: computed torque on the rigid robot's model
  (:class:`fem.robot.ComputedTorque` with :class:`fem.robot.InverseDynamics` of the robot
  with rigid links 3), ``K_p = ω_c²``, ``K_d = 2ζω_c``, sampled every ``period_s`` (or
  every step when 0), its reference the rigid robot's angles.

Every motor's effort is clipped to ``±effort_limit_Nm``.

Gains from a documented rule: the loop's natural frequency ``ω_c`` is
``bandwidth_ratio`` times the first natural frequency of the servo-held robot
(``fem.modes`` at the start), with damping ratio ``zeta``, on the inertia ``J`` of link 1
about its motor with links 2 and 3 and a third of the platform at its tip:
``k_p = J ω_c²``, ``k_d = 2 ζ J ω_c``.  Figures per run: P's path error during the motion
(peak and RMS [mm]), the residual error after the stop (largest over ``settle_s``), the
peak motor torque and its margin to the limit (also flat, ``peak_error_mm_<run>`` …, for
``fem sweep`` tables); the poles' frequency and damping ratio of the PD-controlled robot
at the start (``fem.closed_loop_poles``) and the least damping ratio of its poles below
twice the first servo-held frequency (the loop's and the first flexible ones).
Plots: ``tracking.png`` (path error, efforts with their limits, P's path beside the
circle); the animation draws the reference circle.
"""

from __future__ import annotations

import time

import numpy as np

import fem
from fem.robots.rrru3_flexible_links import (
    build_flexible_links_robot,
    liu2018_circle_path,
    liu2018_geometry,
    rigid_torque_functions,
)

PARAMS = {"E_Pa": 6.9e8, "n_elements_per_link": 4, "speed_mps": 0.5, "settle_s": 0.4,
          "dt_s": 0.005, "rho_inf": 0.5, "bandwidth_ratio": 0.25, "zeta": 0.7,
          "period_s": 0.0, "effort_limit_Nm": 20.0,
          "runs": "pd,pd_rigid,pd_collocated,pd_task,ct_rigid"}
RUNS = ("pd", "pd_rigid", "pd_collocated", "pd_task", "ct_rigid")
LIMITS = {"E_Pa": ">0", "n_elements_per_link": ">=1", "speed_mps": ">0", "settle_s": ">=0",
          "bandwidth_ratio": ">0", "zeta": ">0", "period_s": ">=0", "effort_limit_Nm": ">0",
          **fem.cases.STANDARD.limits("dt_s", "rho_inf")}
DOCS = {"E_Pa": "Young's modulus of links 3", "n_elements_per_link": "ANCF elements per "
        "link 3 [-]", "speed_mps": "cruise speed of P on the circle",
        "settle_s": "time after the stop over which the residual error is taken",
        "bandwidth_ratio": "loop frequency over the first servo-held natural frequency [-]",
        "zeta": "damping ratio of the loop [-]",
        "period_s": "controller sampling period (0: continuous; computed torque: every "
        "step)", "effort_limit_Nm": "every motor's effort limit",
        "runs": f"which runs, comma-separated, of {', '.join(RUNS)}",
        **fem.cases.STANDARD.docs("dt_s", "rho_inf")}
REFERENCES = ("liu2018",)


def build(**params) -> fem.Model:
    """The controlled robot with the rigid torques as feedforward (``pd_rigid``)."""
    p = {**PARAMS, **params}
    geom = liu2018_geometry()
    path = liu2018_circle_path(geom, p["speed_mps"])
    ctr = [dict(kp=1.0, kd=0.1, feedforward=f) for f in rigid_torque_functions(geom, path)]
    return build_flexible_links_robot(geom, E=p["E_Pa"], n_elements=p["n_elements_per_link"],
                                      mode="control", path=path, controllers=ctr).model


def run(out=None, **params) -> dict:
    p = {**PARAMS, **params}
    runs = [r.strip() for r in str(p["runs"]).split(",") if r.strip()]
    bad = [r for r in runs if r not in RUNS]
    if bad or not runs:
        raise fem.ModelError(f"runs: {bad or runs} — choose among {', '.join(RUNS)}")
    t_start = time.perf_counter()
    geom = liu2018_geometry()
    path = liu2018_circle_path(geom, p["speed_mps"])
    T = 2.0 * np.pi * 0.1 / (0.6 * p["speed_mps"])
    t_end = T + p["settle_s"]
    dt, ne, E = p["dt_s"], p["n_elements_per_link"], p["E_Pa"]
    kw = dict(E=E, n_elements=ne, path=path)
    # the servo-held robot: its static start and first natural frequency
    held = build_flexible_links_robot(geom, mode="inverse", drive="joints", **kw)
    st = held.robot.rest()
    f1 = float(fem.modes(held.model, st.q, st.lam, n_modes=1).frequencies_hz[0])
    m1, m2, m3 = geom.link_masses
    L1 = geom.link_lengths[0]
    J = m1 * L1**2 / 3 + (m2 + m3) * L1**2 + geom.platform_mass * L1**2 / 3
    wc = p["bandwidth_ratio"] * 2 * np.pi * f1
    kp, kd = J * wc**2, 2 * p["zeta"] * J * wc
    figures: dict = {"first_frequency_Hz": round(f1, 4), "kp_Nm_per_rad": round(kp, 4),
                     "kd_Nms_per_rad": round(kd, 4)}
    feed: dict = {}
    if "pd_rigid" in runs:
        feed["pd_rigid"] = (rigid_torque_functions(geom, path), None, st.q)
    if "pd_collocated" in runs:
        res = fem.simulate(held.model, t_end, dt, q0=st.q, rho_inf=p["rho_inf"])
        ff = held.robot.feedforward(res)
        feed["pd_collocated"] = ([ff[f"motor {k + 1}"]["feedforward"] for k in range(3)],
                                 None, st.q)
    if "pd_task" in runs:
        task = build_flexible_links_robot(geom, mode="inverse", drive="path", **kw)
        st_t = task.robot.rest()
        res = fem.simulate(task.model, t_end, dt, q0=st_t.q, rho_inf=0.1)
        ff = task.robot.feedforward(res)
        # (from the task-space static state: P on the path, the links' sag made up)
        feed["pd_task"] = ([ff[f"motor {k + 1}"]["feedforward"] for k in range(3)],
                           [ff[f"motor {k + 1}"]["reference"] for k in range(3)], st_t.q)
    period = p["period_s"] or None
    limit = p["effort_limit_Nm"]
    rows, hist = {}, {}
    first = None
    for name in runs:
        if name == "ct_rigid":
            rigid = build_flexible_links_robot(geom, mode="inverse", drive="joints",
                                               link_model="rigid", path=path)
            refs = [m.drive.motion for m in rigid.robot.motors.values()]
            ct = fem.robot.ComputedTorque(fem.robot.InverseDynamics(rigid.robot), wc**2,
                                          2 * p["zeta"] * wc, refs, period=period or dt,
                                          limit=limit)
            ctr, q0 = [ct] * 3, st.q
        else:
            ff, refs, q0 = feed.get(name, (None, None, st.q))
            ctr = []
            for k in range(3):
                c = dict(kp=kp, kd=kd, period=period, limit=limit,
                         feedforward=None if ff is None else ff[k])
                if refs is not None:
                    c["reference"] = refs[k]
                ctr.append(c)
        rm = build_flexible_links_robot(geom, mode="control", controllers=ctr, **kw)
        sensors = rm.robot.sensors(deflections=False)
        # full Newton (a fresh iteration matrix every iteration): the soft links' tangent
        # turns faster than a kept factorization follows; with modified Newton (the
        # default for elastic bodies) 75 attempts failed in the 210 steps of pd_rigid at
        # 1 m/s and 14 steps were halved, for 2.4 times the CPU (docs/control.md)
        res = fem.simulate(rm.model, t_end, dt, q0=q0, rho_inf=p["rho_inf"],
                           sensors=sensors, reuse=False)
        P = np.array([rm.P(q) for q in res.q])
        ref = np.array([np.ravel(path(t)[0]) for t in res.t])
        err = 1e3 * np.linalg.norm(P - ref, axis=1)
        moving, after = res.t <= T, res.t > T
        tau = np.array([res.sensors[f"motor {k + 1} effort_Nm"] for k in range(3)])
        peak = float(np.abs(tau).max())
        rows[name] = {"peak_error_mm": round(float(err[moving].max()), 3),
                      "rms_error_mm": round(float(np.sqrt(np.mean(err[moving] ** 2))), 3),
                      "residual_after_stop_mm": round(float(err[after].max()), 3)
                      if after.any() else 0.0,
                      "peak_torque_Nm": round(peak, 4),
                      "torque_margin_Nm": round(limit - peak, 4),
                      "iterations_per_step": round(float(np.mean(res.stats["iterations"])),
                                                   2)}
        hist[name] = (res.t, err, tau, P)
        if first is None and name != "ct_rigid":
            s = fem.closed_loop_poles(rm.model, res.q[0], res.v[0], res.lam[0], 0.0)
            osc = s[np.abs(s.imag) > 1e-6]
            figures["poles_Hz"] = [round(float(abs(x.imag)) / (2 * np.pi), 3)
                                   for x in osc[:3]]
            figures["poles_damping"] = [round(float(-x.real / abs(x)), 4) for x in osc[:3]]
            # the loop's poles and the first flexible ones (the links' higher modes
            # carry no damping in this model: ζ = 0 there says nothing of the gains)
            low = [x for x in s if 1e-9 < abs(x) < 2 * 2 * np.pi * f1]
            figures["least_damping_ratio"] = round(float(min(-x.real / abs(x)
                                                             for x in low)), 5)
            first = name
        last = (rm, res)
    figures["runs"] = rows
    for name, row in rows.items():       # flat, for sweep tables
        for key in ("peak_error_mm", "rms_error_mm", "residual_after_stop_mm",
                    "torque_margin_Nm"):
            figures[f"{key}_{name}"] = row[key]
    rm, res = last
    # the animation draws the reference circle beside the robot
    rm.model.add_sketch([rm.model.ground(np.ravel(path(t)[0]))
                         for t in np.linspace(0.0, T, 73)], "reference path")
    circle = np.array([np.ravel(path(t)[0]) for t in np.linspace(0.0, T, 361)])
    return fem.cases.finish_run(
        out, rm.model, res, figures, time.perf_counter() - t_start,
        plot=lambda folder, fig, name: _plot(folder, hist, circle, limit, T))


def _plot(folder, hist: dict, circle: np.ndarray, limit: float, stop: float) -> None:
    """``tracking.png``: each run's path error of P (log scale), the motors' efforts with
    the limit, and P's path in the horizontal plane beside the reference circle."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 3, figsize=(15, 4.4))
    for k, (name, (t, err, tau, P)) in enumerate(hist.items()):
        colour = f"C{k}"
        ax[0].semilogy(t, np.maximum(err, 1e-4), color=colour, label=name)
        for i in range(3):
            ax[1].plot(t, tau[i], color=colour, lw=1.0,
                       ls=("-", "--", ":")[i], label=name if i == 0 else None)
        ax[2].plot(1e3 * P[:, 0], 1e3 * P[:, 1], color=colour, lw=1.0, label=name)
    ax[0].axvline(stop, color="k", lw=0.8, ls=":")
    ax[0].set(xlabel="time [s]", ylabel="path error of P [mm]",
              title="tracking error (the stop dotted)")
    for y in (-limit, limit):
        ax[1].axhline(y, color="k", lw=0.8, ls="-.")
    ax[1].set(xlabel="time [s]", ylabel="motor torque [N·m]",
              title="efforts (— motor 1, -- 2, ·· 3; -· limit)")
    ax[2].plot(1e3 * circle[:, 0], 1e3 * circle[:, 1], color="k", lw=2.0, alpha=0.4,
               label="reference")
    ax[2].set(xlabel="x [mm]", ylabel="y [mm]", title="path of P (top view)",
              aspect="equal")
    for a in ax:
        a.grid(alpha=0.3)
    ax[0].legend(fontsize=8)
    ax[2].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / "tracking.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    print(run())
