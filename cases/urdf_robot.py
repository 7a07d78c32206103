"""Any URDF robot, any of its links made flexible: inverse dynamics along a joint path.

``urdf`` is a URDF file (``ur5``: the UR5-like arm shipped in ``cases/robots/``, built
from the kinematic and inertial parameters Universal Robots publish).  The links named in
``flexible`` (comma-separated; empty: none) become aluminium tubes of outer radius
``radius_m`` and wall ``wall_m`` between their parent and child joints (ANCF beams of
``elements`` each — 6 by default: 12 move the tool deflection by 0.35 %, the torques by
0.03 %; ``link_model="floating_frame"`` for floating-frame rods), with their
mass matched to the URDF's (``flexible_mass``).  Every moving joint gets a servo motor
on a rest-to-rest pick-and-place motion: each joint turns by ``stroke_rad`` times a
fixed pattern (within its URDF limits) in ``T_s``, from the static equilibrium of the
start pose (the links sag before anything moves).

Figures: each motor's peak torque; the tool frame's largest deflection from the
flexible links (``tool_deflection_mm``: the last flexible link's tip relative to its
rigid motion); the rigid robot's peak torques (the flexible links as rigid bodies with
the tubes' mass distribution, exact inverse dynamics) and the largest difference
``torque_difference_pct`` (of each joint's torque range); the first natural frequencies
of the servo-held arm at the start and the middle of the motion (``f1_start_Hz``,
``f1_mid_Hz``) beside a hand estimate ``f1_estimate_Hz`` (the flexible links as one
cantilever from the first flexible joint, with the rest of the arm as a tip mass).
``stiffness_factor`` multiplies E: at 1000 the torques are the rigid robot's.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

import fem
from fem.robot import AncfBeam, FloatingFrame, from_urdf, rest_to_rest

HERE = Path(__file__).resolve().parent
PARAMS = {"urdf": "ur5", "flexible": "upper_arm_link,forearm_link", "link_model": "ancf_beam",
          "radius_m": 0.03, "wall_m": 0.003, "E_Pa": 7.0e10, "stiffness_factor": 1.0,
          "elements": 6, "flexible_mass": "urdf", "stroke_rad": 0.6, "T_s": 1.0,
          "t_end_s": 1.3, "dt_s": 1e-3, "rho_inf": 0.8, "compare_rigid": True}
LIMITS = {"link_model": ("ancf_beam", "floating_frame"), "radius_m": ">0", "wall_m": ">=0",
          "E_Pa": ">0", "stiffness_factor": ">0", "elements": ">=1",
          "flexible_mass": ("urdf", "material"), "stroke_rad": ">0", "T_s": ">0",
          **fem.cases.STANDARD.limits("t_end_s", "dt_s", "rho_inf")}
DOCS = {"urdf": "URDF file, or 'ur5' for the shipped UR5-like arm",
        "flexible": "links made flexible, comma-separated (empty: the rigid robot)",
        "link_model": "model of the flexible links",
        "radius_m": "outer radius of the flexible links' tubes",
        "wall_m": "wall of the tubes (0: solid rods)",
        "E_Pa": "Young's modulus of the tubes (aluminium)",
        "stiffness_factor": "factor on E (1000: the stiff limit) [-]",
        "elements": "elements (ANCF) or basis functions (floating frame) per link [-]",
        "flexible_mass": "'urdf': the tubes weigh what the URDF's links weigh; 'material': "
                         "what aluminium tubes of that section weigh",
        "stroke_rad": "largest joint turn of the motion", "T_s": "duration of the motion",
        "compare_rigid": "also compute the rigid robot's torques [-]",
        **fem.cases.STANDARD.docs("t_end_s", "dt_s", "rho_inf")}
REFERENCES = ()

PATTERN = (1.0, -0.6, 0.9, -0.8, 0.7, 1.0)      # each joint's share of the stroke


def urdf_path(value: str) -> Path:
    if value == "ur5":
        return HERE / "robots" / "ur5.urdf"
    return Path(value).expanduser()


def motion(amplitude: float, T: float):
    """Rest to rest in ``T``: θ = A s(t/T), s = 35τ⁴ − 84τ⁵ + 70τ⁶ − 20τ⁷."""
    return rest_to_rest(amplitude, T)


def flexible_links(p: dict) -> dict:
    names = [n.strip() for n in str(p["flexible"]).split(",") if n.strip()]
    al = fem.Material(E=p["E_Pa"] * p["stiffness_factor"], nu=0.33, rho=2700.0,
                      name="aluminium")
    wall = p["wall_m"] or None
    if p["link_model"] == "floating_frame":
        return {n: FloatingFrame(al, radius=p["radius_m"], wall=wall, functions=p["elements"])
                for n in names}
    return {n: AncfBeam(al, radius=p["radius_m"], wall=wall, elements=p["elements"])
            for n in names}


def robot(rigid: bool = False, **params) -> fem.Robot:
    """The robot with its servo motors; ``rigid``: the flexible links as rigid bodies
    with their mass distribution."""
    p = {**PARAMS, **params}
    arm = from_urdf(urdf_path(p["urdf"]), flexible=flexible_links(p),
                    flexible_mass=p["flexible_mass"], rigid_equivalent=rigid)
    for i, (name, j) in enumerate(arm.joints.items()):
        span = PATTERN[i % len(PATTERN)] * p["stroke_rad"]
        lim = j.limits
        if lim and lim["upper"] > lim["lower"]:
            span = float(np.clip(span, lim["lower"], lim["upper"]))
        arm.add_motor(f"motor {name}", name, servo=motion(span, p["T_s"]))
    arm.model.view = "iso"
    return arm


def build(**params) -> fem.Model:
    return robot(**params).model


def _frequency(arm: fem.Robot, t: float) -> float:
    st = arm.rest(t)
    return float(fem.modes(arm.model, st.q, st.lam, t=t, n_modes=1).frequencies_hz[0])


def _estimate(arm: fem.Robot, p: dict, names: list[str]) -> float:
    """A cantilever of the flexible links' total length from the first flexible joint,
    its own mass as 0.24 of it at the tip, the links beyond as a tip mass:
    f = √(3 E I / (L³ (m_tip + 0.24 m)))/(2π)."""
    s = fem.robot.section_properties("circle", "tube", p["radius_m"], wall=p["wall_m"] or None)
    lengths = {n: float(np.linalg.norm(np.subtract(*[f.pose.position for f in
                                                     arm.links[n].frames.values()])))
               for n in names}
    L = sum(lengths.values())
    m = sum(arm.links[n].spec.material.rho * s["area"] * lengths[n] for n in names)
    after = [ln for ln in list(arm.links)[list(arm.links).index(names[-1]) + 1:]]
    m_tip = sum(arm.links[ln].spec.mass for ln in after)
    E = p["E_Pa"] * p["stiffness_factor"]
    return float(np.sqrt(3 * E * s["iy"] / (L**3 * (m_tip + 0.24 * m))) / (2 * np.pi))


def run(out=None, **params) -> dict:
    p = {**PARAMS, **params}
    t0 = time.perf_counter()
    arm = robot(**p)
    names = [n for n, b in arm.links.items() if b.flexible]
    motors = list(arm.motors)
    res, tau = fem.cases.servo_run(arm, p, out)
    figures = {"joints": list(arm.joints), "flexible_links": names,
               "peak_torque_Nm": np.abs(tau).max(axis=1).round(4).tolist()}
    if names:
        figures["tool_deflection_mm"] = round(1e3 * float(np.max(
            [np.linalg.norm(arm.deflection(names[-1], q)) for q in res.q])), 4)
        figures["f1_start_Hz"] = round(_frequency(arm, 0.0), 3)
        figures["f1_mid_Hz"] = round(_frequency(arm, 0.5 * p["T_s"]), 3)
        figures["f1_estimate_Hz"] = round(_estimate(arm, p, names), 3)
    if p["compare_rigid"] and names:
        rigid = robot(rigid=True, **p)
        ref = fem.driven_inverse_dynamics(rigid.model, res.t)
        tau_r = np.array([[rigid.efforts(ref.q[k], ref.lam[k])[m] for m in motors]
                          for k in range(len(res.t))]).T
        figures.update(fem.cases.rigid_comparison(tau, tau_r))
    return fem.cases.finish_run(out, arm.model, res, figures, time.perf_counter() - t0)


if __name__ == "__main__":
    print(run())
