"""Vehicle-mounted hydraulic manipulator: natural frequencies by Craig–Bampton CMS.

The planar (x–z) arm of Ma and Mei (2010) (``docs/references.md``) — rocker O–A–B, sleeve
E–D–B–C, telescopic rod C–F–G, gripper control rods G–H and H–F — is nine Euler–Bernoulli
substructures (axial + in-plane bending, :mod:`fem.frames`) with the paper's boundary
conditions: O–A and A–B hinged–clamped (hinges at the vehicle pivot O and the sleeve pivot
B), B–C and D–B clamped–clamped, D–E cantilever, C–F clamped–clamped, F–G hinged–clamped
(hinge at G), G–H and H–F hinged–hinged; motors of 0.553 kg at F and 0.84 kg at C; steel
E = 200 GPa, ρ = 7800 kg/m³; square hollow sections of constant wall.  Each substructure is
reduced to its interface coordinates plus ``n_modes`` fixed-interface modes
(:func:`fem.reduction.frame_cms`, the paper's eqs 3–25) or the same frame is solved whole
(``method="full"``).

The paper gives no lengths, sections, wall, grounding or cylinder stiffness.  Our choices
(all parameters; see ``docs/vehicle_manipulator_cms.md``): O is a pin on a rigid vehicle;
the lift cylinder runs from a vehicle pin P to A on the rocker, the sleeve cylinder from A
to D on the sleeve's tail; both are pin-ended axial members of stiffness
``cylinder_stiffness_Npm`` (oil column + hoses), massless for the modes (tiny ρ).

Analyses: ``modal`` (lowest frequencies, mode shapes, a ParaView series of the modes,
``frame.json``), ``sweep`` (each group's section over the paper's ranges and the
rocker × rod grid of its Fig. 5), ``convergence`` (CMS error against the full
model as modes are added), ``dynamic`` (the reduced arm under a vehicle bump, against
the full model) and ``large_motion`` (the same frame as a robot in the x–z plane,
:func:`arm`: nine links joined as the frame's hinges say, the lift cylinder swinging the
rocker through ``swing_deg`` in ``swing_time_s`` under gravity, the links as reduced
substructures against the same arm of ANCF cables; and both linearized at the start pose
against the ``modal`` analysis).  ``modal``, ``sweep``, ``convergence`` and ``dynamic``
are linear analyses of the frame about its pose (not multibody): they stay on the FE
frame (:mod:`fem.reduction.frames`, :func:`fem.reduction.frame_cms`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

import fem
import fem.cases
import fem.io.output
import fem.solvers.results
from fem.reduction import frame_cms, generalized_eigen, newmark, reduce_body
from fem.reduction.frames import Frame, rectangle

if TYPE_CHECKING:  # pragma: no cover
    from fem.robots.vehicle_arm import ArmModel

PARAMS = {
    "analysis": "modal",            # modal, sweep, convergence, dynamic, large_motion
    "method": "cms",                # cms or full
    "n_modes": 4,                   # fixed-interface modes per substructure
    "n_elements": 16,               # elements per substructure (8 moved the short
                                    # members' fixed-interface modes by 1.9 %; 16 → 32: 0.5 %)
    "n_frequencies": 6,
    # sections: outer side of the square hollow tube [m], constant wall
    "rocker_section_m": 0.10,
    "sleeve_section_m": 0.12,
    "rod_section_m": 0.07,
    "gripper_section_m": 0.03,
    "wall_m": 0.004,
    # geometry [m, deg]
    "rocker_length_m": 1.8,          # O-B
    "rocker_angle_deg": 45.0,        # O-B above horizontal
    "rocker_cylinder_at": 0.5,       # A at this fraction of O-B
    "lift_cylinder_base_m": [0.8, 0.0],   # vehicle pin P (x, z)
    "sleeve_front_m": 0.5,           # B-C
    "sleeve_tail_m": 0.4,            # B-E
    "sleeve_cylinder_at_m": 0.3,     # B-D
    "sleeve_angle_deg": 0.0,
    "rod_length_m": 2.4,             # C-F
    "gripper_length_m": 0.3,         # F-G
    "gripper_depth_m": 0.15,         # H below the F-G line, at its middle
    "cylinder_stiffness_Npm": 1.0e8,
    "motor_F_kg": 0.553,
    "motor_C_kg": 0.84,
    "E_Pa": 200e9,
    "rho_kgm3": 7800.0,
    "sweep_points": 9,
    "t_end_s": 1.0,
    "dt_s": 1e-3,
    # large_motion
    "body_model": "both",            # both, reduced, ancf
    "swing_deg": 60.0,
    "swing_time_s": 2.0,
    "rho_inf": 0.8,
}

LIMITS = {"analysis": ("modal", "sweep", "convergence", "dynamic", "large_motion"),
          "method": ("cms", "full"), "n_modes": ">=0", "n_elements": ">=2",
          "n_frequencies": ">=1", "rocker_section_m": ">0", "sleeve_section_m": ">0",
          "rod_section_m": ">0", "gripper_section_m": ">0", "wall_m": ">0",
          "rocker_length_m": ">0", "rocker_angle_deg": "(0, 180)",
          "rocker_cylinder_at": "(0, 1)", "lift_cylinder_base_m": None,
          "sleeve_front_m": ">0", "sleeve_tail_m": ">0", "sleeve_cylinder_at_m": ">0",
          "sleeve_angle_deg": "[-90, 90]", "rod_length_m": ">0", "gripper_length_m": ">0",
          "gripper_depth_m": ">0", "cylinder_stiffness_Npm": ">0", "motor_F_kg": ">=0",
          "motor_C_kg": ">=0", "E_Pa": ">0", "rho_kgm3": ">0", "sweep_points": ">=2",
          "t_end_s": ">0", "dt_s": ">0", "body_model": ("both", "reduced", "ancf"),
          "swing_deg": "(0, 90]", "swing_time_s": ">0", "rho_inf": "[0, 1]"}
LIMITS = {k: v for k, v in LIMITS.items() if v is not None}

DOCS = {
    "analysis": "modal (frequencies, mode shapes); sweep (sections over the paper's ranges); "
                "convergence (CMS error as modes are added); dynamic (a vehicle bump, reduced"
                " against full); large_motion (the rocker swung by its cylinder: reduced "
                "bodies against ANCF cables, and their frequencies at the start pose)",
    "method": "Craig–Bampton reduction (cms) or the whole frame (full)",
    "n_modes": "fixed-interface modes per substructure (large_motion: the in-plane part of "
               "2 n_modes modes of each 3-D cable model)",
    "n_elements": "frame elements per substructure (16 → 32 moves the short members' modes by"
                  " 0.5 %)",
    "n_frequencies": "lowest frequencies reported",
    "rocker_section_m": "outer side of the rocker's square hollow tube",
    "sleeve_section_m": "outer side of the sleeve's square hollow tube",
    "rod_section_m": "outer side of the telescopic rod's square hollow tube",
    "gripper_section_m": "outer side of the gripper rods' square hollow tubes",
    "wall_m": "wall thickness of every tube",
    "rocker_length_m": "rocker O–B",
    "rocker_angle_deg": "rocker O–B above the horizontal",
    "rocker_cylinder_at": "lift-cylinder pin A on O–B, as a fraction of its length [-]",
    "lift_cylinder_base_m": "vehicle pin P of the lift cylinder, (x, z)",
    "sleeve_front_m": "sleeve B–C",
    "sleeve_tail_m": "sleeve B–E",
    "sleeve_cylinder_at_m": "sleeve-cylinder pin D, distance B–D (between B and E)",
    "sleeve_angle_deg": "sleeve above the horizontal",
    "rod_length_m": "telescopic rod C–F",
    "gripper_length_m": "gripper F–G",
    "gripper_depth_m": "H below the F–G line, at its middle",
    "cylinder_stiffness_Npm": "axial stiffness of each hydraulic cylinder (oil column and "
                              "hoses)",
    "motor_F_kg": "motor mass at F",
    "motor_C_kg": "motor mass at C",
    "E_Pa": "Young's modulus of the tubes",
    "rho_kgm3": "density of the tubes",
    "sweep_points": "values per section in the sweep analysis",
    "t_end_s": "duration of the dynamic analysis",
    "dt_s": "time step of the dynamic and large_motion analyses",
    "body_model": "large_motion: the substructures as reduced bodies, as ANCF cables, or both "
                  "(compared)",
    "swing_deg": "large_motion: rocker swing the lift cylinder's length law gives a rigid "
                 "rocker (upwards from rocker_angle_deg)",
    "swing_time_s": "large_motion: duration of the swing (rest to rest, cosine acceleration)",
    "rho_inf": "large_motion: spectral radius of generalized-α at infinite frequency [-]",
}
"""What each parameter means, with its unit where the name does not carry it (``fem info``)."""
REFERENCES = ("ma2010", "craig1968")
"""The papers this case reproduces (keys of :mod:`fem.references.citations`)."""

SEED_RANGES_MM = {"rocker": (50, 150), "sleeve": (50, 100), "rod": (50, 100),
                  "gripper": (20, 50)}
"""Section ranges of Fig. 4 of ma2010 (gripper: not stated, ours)."""
SWEEP_MM = {"rocker": (50, 200), "sleeve": (50, 100), "rod": (50, 140), "gripper": (20, 50)}
SEED_F = {"rocker": "f1 4.4→8.4 Hz over 50→150 mm, then flat; f2 10→30 Hz",
          "sleeve": "f1, f2 nearly flat; f3 52–54 Hz",
          "rod": "f1 6.1→9.1 Hz over 50→100 mm; f2 11→26 Hz; f3 41→130 Hz",
          "gripper": "little effect"}
SUBSTRUCTURES = ("OA", "AB", "BC", "DB", "DE", "CF", "FG", "GH", "HF")
LAYOUT = [("OA", "O", "A", "rocker", True, False), ("AB", "A", "B", "rocker", False, True),
          ("BC", "B", "C", "sleeve", False, False), ("DB", "D", "B", "sleeve", False, False),
          ("DE", "D", "E", "sleeve", False, False), ("CF", "C", "F", "rod", False, False),
          ("FG", "F", "G", "rod", False, True), ("GH", "G", "H", "gripper", True, True),
          ("HF", "H", "F", "gripper", True, True)]
"""The substructures of ma2010 Fig. 2: (name, from, to, section group, hinge at from,
hinge at to)."""
LAYOUT_SECTIONS = {name: sec for name, _, _, sec, _, _ in LAYOUT}
CYLINDER_RHO = 1e-3   # kg/m³: "massless" pin-ended cylinders (kept positive for frame.json)


def _check(p: dict) -> dict:
    fem.cases.check_params(SimpleNamespace(PARAMS=PARAMS, LIMITS=LIMITS),
                           {k: v for k, v in p.items() if k in PARAMS})
    base = p["lift_cylinder_base_m"]
    if not (isinstance(base, list | tuple) and len(base) == 2):
        raise fem.ModelError(f"lift_cylinder_base_m must be [x, z]; got {base!r}")
    for key in ("rocker", "sleeve", "rod", "gripper"):
        s = p[f"{key}_section_m"]
        if 2 * p["wall_m"] >= s:
            raise fem.ModelError(f"{key}_section_m = {s:g} m is not more than twice "
                                 f"wall_m = {p['wall_m']:g} m")
    if p["sleeve_cylinder_at_m"] >= p["sleeve_tail_m"]:
        raise fem.ModelError("sleeve_cylinder_at_m must be less than sleeve_tail_m "
                             "(D lies between B and E)")
    return p


def points(**params) -> dict[str, np.ndarray]:
    """The named points O, A, B, C, D, E, F, G, H, P (x, z) [m]."""
    p = {**PARAMS, **params}
    a = np.radians(p["rocker_angle_deg"])
    s = np.radians(p["sleeve_angle_deg"])
    O = np.zeros(2)
    B = p["rocker_length_m"] * np.array([np.cos(a), np.sin(a)])
    A = p["rocker_cylinder_at"] * B
    ex = np.array([np.cos(s), np.sin(s)])
    ez = np.array([-np.sin(s), np.cos(s)])
    C = B + p["sleeve_front_m"] * ex
    D = B - p["sleeve_cylinder_at_m"] * ex
    E = B - p["sleeve_tail_m"] * ex
    F = C + p["rod_length_m"] * ex
    G = F + p["gripper_length_m"] * ex
    H = (F + G) / 2 - p["gripper_depth_m"] * ez
    P = np.asarray(p["lift_cylinder_base_m"], float)
    return dict(O=O, A=A, B=B, C=C, D=D, E=E, F=F, G=G, H=H, P=P)


def build(**params) -> tuple[Frame, dict]:
    """The frame and its member groups (the nine substructures + two cylinders)."""
    p = _check({**PARAMS, **params})
    pts = points(**p)
    fr = Frame("xz", name="vehicle_manipulator")
    nid = {k: fr.add_node(*v) for k, v in pts.items()}
    wall = p["wall_m"]
    sec = {k: rectangle(p[f"{k}_section_m"], p[f"{k}_section_m"], wall)
           for k in ("rocker", "sleeve", "rod", "gripper")}
    E, rho, n = p["E_Pa"], p["rho_kgm3"], p["n_elements"]
    groups = {}
    for name, i, j, s, hi, hj in LAYOUT:
        groups[name] = fr.add_member(nid[i], nid[j], E, rho, sec[s], hinge_i=hi, hinge_j=hj,
                                     n_elements=n, group=name)
    k = p["cylinder_stiffness_Npm"]
    for name, i, j in (("lift_cylinder", "P", "A"), ("sleeve_cylinder", "A", "D")):
        L = float(np.linalg.norm(pts[j] - pts[i]))
        area = k * L / E              # EA/L = k
        cyl = {"area": area, "iy": area * 1e-4, "iz": area * 1e-4, "j": 0.0}
        groups[name] = fr.add_member(nid[i], nid[j], E, CYLINDER_RHO, cyl, hinge_i=True,
                                     hinge_j=True, group=name)
    fr.fix(nid["O"], ("x", "z"))
    fr.fix(nid["P"], ("x", "z"))
    if p["motor_F_kg"] > 0:
        fr.add_mass(nid["F"], p["motor_F_kg"])
    if p["motor_C_kg"] > 0:
        fr.add_mass(nid["C"], p["motor_C_kg"])
    fr.named = nid
    return fr, groups


def frequencies(**params) -> np.ndarray:
    """Lowest ``n_frequencies`` natural frequencies [Hz] by ``method`` ("cms"/"full")."""
    p = {**PARAMS, **params}
    method, n = p["method"], p["n_frequencies"]
    fr, groups = build(**p)
    if method == "full":
        return fr.modes(n).frequencies_hz
    return frame_cms(fr, groups, p["n_modes"]).modes(n).frequencies_hz


def _solve(p):
    fr, groups = build(**p)
    n = p["n_frequencies"]
    if p["method"] == "full":
        res = fr.modes(n)
        return fr, res.frequencies_hz, res.shapes, fr.n_dof, None
    cms = frame_cms(fr, groups, p["n_modes"])
    res = cms.modes(n)
    return fr, res.frequencies_hz, cms.expand(res.shapes), cms.n_coordinates, cms


def sweep(**params) -> dict:
    """Frequencies over each group's section range (others at their defaults) and the
    rocker × rod grid (Figs 4 and 5 of Ma and Mei, 2010).  Every point is one ``modal``
    run of this case through :func:`fem.sweep` (the one sweep code path of the framework;
    here one point after another, nothing written per point)."""
    p = {**PARAMS, **params}
    m = p["sweep_points"]
    fixed = {k: v for k, v in p.items()
             if k in PARAMS and k not in ("analysis", "sweep_points")}
    lines = {key: np.linspace(lo, hi, m) / 1000 for key, (lo, hi) in SWEEP_MM.items()}
    r = np.linspace(*SWEEP_MM["rocker"], m) / 1000
    d = np.linspace(*SWEEP_MM["rod"], m) / 1000
    points = [{**fixed, "analysis": "modal", f"{key}_section_m": float(x)}
              for key, xs in lines.items() for x in xs]
    points += [{**fixed, "analysis": "modal", "rocker_section_m": float(a),
                "rod_section_m": float(b)} for a in r for b in d]
    study = fem.sweep(Path(__file__).stem, points, "serial",
                      progress=fem.io.options.OPTIONS.progress)
    if study.failures:
        bad = study.failures[0]
        raise fem.ModelError(f"sweep point {bad.name} failed: {bad.error}")
    f = iter(np.array(pt.figures["frequencies_hz"][:3]) for pt in study.points)
    out = {}
    for key, xs in lines.items():
        fk = np.array([next(f) for _ in xs])
        out[key] = {"section_mm": (xs * 1000).tolist(), "f1_hz": fk[:, 0].tolist(),
                    "f2_hz": fk[:, 1].tolist(), "f3_hz": fk[:, 2].tolist()}
    grid = np.array([[next(f) for _ in d] for _ in r])
    out["rocker_x_rod"] = {"rocker_mm": (r * 1000).tolist(), "rod_mm": (d * 1000).tolist(),
                           "f_hz": grid.tolist()}
    return out


def convergence(max_modes: int = 8, **params) -> dict:
    """CMS error of the lowest three frequencies against the full model of the same
    frame, for 0 … ``max_modes`` fixed-interface modes per substructure."""
    p = {**PARAMS, **params}
    f_full = frequencies(**{**p, "method": "full", "n_frequencies": 3})
    rows = []
    for k in range(max_modes + 1):
        f = frequencies(**{**p, "method": "cms", "n_frequencies": 3, "n_modes": k})
        rows.append({"n_modes": k, "f_hz": f.tolist(),
                     "error_percent": (100 * (f / f_full - 1)).tolist()})
    return {"full_hz": f_full.tolist(), "rows": rows}


def dynamic(**params) -> dict:
    """The reduced arm under a vertical vehicle bump (half-sine base acceleration of
    1 g for 50 ms, relative coordinates ``M ü + K u = -M r a_g(t)``), integrated by
    Newmark on the CMS coordinates and on the full frame; tip (G) vertical motion."""
    p = {**PARAMS, **params}
    fr, groups = build(**p)
    cms = frame_cms(fr, groups, p["n_modes"])
    g_dof = fr.dof(fr.named["G"], "z")

    def a_g(t):
        return 9.81 * np.sin(np.pi * t / 0.05) if t < 0.05 else 0.0

    steps = int(round(p["t_end_s"] / p["dt_s"]))
    # full model
    M, K = fr.matrices()
    free = fr.active_dofs(M, K)
    Mf, Kf = M[free][:, free].toarray(), K[free][:, free].toarray()
    r = np.zeros(fr.n_dof)
    r[[fr.dof(nd, "z") for nd in range(len(fr.nodes))]] = 1.0
    rf = Mf @ r[free]

    # the same 1 % Rayleigh damping on the two lowest modes of each model
    def damping(Mx, Kx):
        w = generalized_eigen(Mx, Kx, 2)[0] ** 0.5
        a, b = np.linalg.solve([[1 / (2 * w[0]), w[0] / 2], [1 / (2 * w[1]), w[1] / 2]],
                               [0.01, 0.01])
        return a * Mx + b * Kx

    t0 = time.perf_counter()
    t, qf = newmark(Mf, Kf, lambda t: -rf * a_g(t), p["dt_s"], steps,
                    C=damping(Mf, Kf))
    t_full = time.perf_counter() - t0
    tip_full = qf[:, np.searchsorted(free, g_dof)]
    # reduced: the rigid vertical translation is the interface z coordinates (the
    # constraint modes reproduce it exactly), modal coordinates zero
    Mr, Kr = cms.assembly.matrices()
    rr_all = np.zeros(cms.assembly.n_total)
    is_z = np.array([fr.dof_names[d % 3] == "z" for d in cms.interface_dofs])
    rr_all[:cms.assembly.n_interface][is_z] = 1.0
    rr = Mr @ rr_all[cms.assembly.free()]
    t0 = time.perf_counter()
    _, qr = newmark(Mr, Kr, lambda t: -rr * a_g(t), p["dt_s"], steps, C=damping(Mr, Kr))
    t_red = time.perf_counter() - t0
    tip_red = cms.expand(qr.T)[g_dof]
    return {"time_s": t, "tip_z_full_m": tip_full, "tip_z_cms_m": tip_red,
            "n_coordinates_full": len(free), "n_coordinates_cms": Mr.shape[0],
            "time_full_s": t_full, "time_cms_s": t_red,
            "tip_z_max_difference_m": float(np.abs(tip_full - tip_red).max()),
            "tip_z_peak_m": float(np.abs(tip_full).max())}


# -- large motion: the same frame as a planar robot ---------------------------------------
ARM_POINTS = ("P", "A", "O", "B", "E", "D", "C", "F", "G", "H")
"""The named points recorded in ``large_motion`` (``large_motion.npz``)."""
PICTURE = {"camera": {"view": "xz", "up": [0.0, 0.0, 1.0]}, "magnification": 20.0}
"""The pictures of the large-motion series: the arm's x–z plane, gravity down; the
deformation magnified 20× (each reduced body's is drawn about its own floating frame, so
a large factor opens visible gaps at the clamped junctions that the joints do not have)."""


def swing_angle(**params) -> Callable[[float], tuple[float, float, float]]:
    """The rocker's commanded swing ``t -> (θ, θ̇, θ̈)`` [rad]: ``swing_deg`` upwards in
    ``swing_time_s``, rest to rest, cosine acceleration over each half (acceleration zero
    at both ends; :class:`fem.model.trajectory.CosineAccelerationProfile`), held afterwards."""
    from fem.model.trajectory import CosineAccelerationProfile

    p = {**PARAMS, **params}
    T = float(p["swing_time_s"])
    prof = CosineAccelerationProfile(duration=T, distance=np.radians(p["swing_deg"]),
                                     accel_fraction=0.5)

    def angle(t):
        return prof(min(max(float(t), 0.0), T)) if t < T else \
            (np.radians(p["swing_deg"]), 0.0, 0.0)

    return angle


def arm(kind: str, cylinders: str = "drive", gravity: bool = True, **params) -> ArmModel:
    """The frame of :func:`build` as a robot in the plane x–z (``fem.Robot``): each of the
    nine substructures one link — ``kind`` "ancf" (a link of ANCF cables on the frame's
    mesh, its square tube's section) or "reduced" (a link of the in-plane Craig–Bampton
    modes of that same cable model, :class:`fem.robot.Substructure`) — held in the
    plane, joined as the frame's hinges say (a pin where a member end is hinged, a clamp
    where members are clamped together), pinned to the vehicle at O; the motors at C and
    F are point masses.  ``cylinders="drive"``: the lift cylinder follows the length that
    swings a rigid rocker by :func:`swing_angle`, the sleeve cylinder keeps its length;
    ``"spring"``: both are springs of ``cylinder_stiffness_Npm``, as in the linear frame
    (modal analysis)."""
    from fem.robot import (
        AncfCable,
        Robot,
        Substructure,
        add_cylinder,
        add_planar_joint,
        add_spring,
        keep_in_plane,
        pose,
    )
    from fem.robots.vehicle_arm import (
        ArmModel,
        crank_length_law,
        group_chains,
        in_plane,
        substructure_model,
    )

    p = _check({**PARAMS, **params})
    if cylinders not in ("drive", "spring"):
        raise fem.ModelError(f"cylinders must be 'drive' or 'spring'; got {cylinders!r}")
    fr, groups = build(**p)
    X = np.asarray(fr.nodes, float)
    name_of = {nd: k for k, nd in fr.named.items()}          # frame node → point name
    g = (0.0, 0.0, -9.81) if gravity else (0.0, 0.0, 0.0)
    steel = fem.Material(E=p["E_Pa"], nu=0.3, rho=p["rho_kgm3"])
    robot = Robot(f"{fr.name}_{kind}", gravity=g)
    # each substructure from its first to its last point, oriented alike along the
    # sleeve and rod so that clamped members continue each other's slope
    chains = group_chains(fr, groups, SUBSTRUCTURES)
    motors = {fr.named["C"]: p["motor_C_kg"], fr.named["F"]: p["motor_F_kg"]}
    carrier = {nd: next(ch.name for ch in chains if nd in ch.nodes) for nd in motors}
    cylinder_ends = {fr.named[k] for k in ("P", "A", "D")}
    info: dict = {}
    t0 = time.perf_counter()
    for ch in chains:
        ends = [name_of[ch.nodes[0]], name_of[ch.nodes[-1]]]
        frames = {k: pose(X[fr.named[k]], z="y", x=ch.t) for k in ends}
        if kind == "ancf":
            tube = LAYOUT_SECTIONS[ch.name]
            link = AncfCable(steel, section="rectangle", width=p[f"{tube}_section_m"],
                             height=p[f"{tube}_section_m"], wall=p["wall_m"],
                             elements=p["n_elements"])
        else:
            # the link's FE model (its motor, if any, on it) reduced with interfaces
            # where it is joined: the point at a hinge, point and slope at a clamp
            masses = [(nd, kg) for nd, kg in motors.items() if carrier[nd] == ch.name and kg]
            fe, nodes = substructure_model(ch, fr, masses, g, name=ch.name)
            maps = {k: fe.point(nodes[i]) if ch.hinge[s] else
                    [fe.point(nodes[i]), fe.node_field(nodes[i], "r_x")]
                    for s, (k, i) in enumerate(zip(ends, (0, -1), strict=True))}
            joined = {k: m for k, m in maps.items()
                      if sum(fr.named[k] in (c.nodes[0], c.nodes[-1]) for c in chains) > 1
                      or fr.named[k] in fr.supports or fr.named[k] in cylinder_ends}
            red = in_plane(reduce_body(fe, {("start" if k == ends[0] else "end"): m
                                            for k, m in joined.items()},
                                       n_modes=2 * p["n_modes"]))
            link = Substructure(red, fe, maps)
        robot.add_link(ch.name, link, frames)
    keep_in_plane(robot, "y")
    # joints where members meet: a pin where an end is hinged, else a clamp to the first
    # clamped end there
    at: dict[str, list] = {}
    for ch in chains:
        for side, k in enumerate((name_of[ch.nodes[0]], name_of[ch.nodes[-1]])):
            at.setdefault(k, []).append((ch.name, ch.hinge[side]))
    for k, members in at.items():
        first, clamped = members[0], next((m for m, hinged in members if not hinged), None)
        for member, hinged in members[1:]:
            if hinged or clamped == member:
                add_planar_joint(robot, f"{k} {member}", "revolute", (first[0], k),
                                 (member, k))
            else:
                add_planar_joint(robot, f"{k} {member}", "fixed", (clamped, k), (member, k))
    add_planar_joint(robot, "O", "revolute", "ground", (at["O"][0][0], "O"))
    robot.add_ground_frame("P", pose(X[fr.named["P"]]))
    if kind == "ancf":
        for nd, kg in motors.items():
            if kg:
                robot.model.add_point_mass(robot.frame(carrier[nd], name_of[nd]).origin, kg)
    pin = {k: ("ground", "P") if k == "P" else (at[k][0][0], k) for k in ("P", "A", "D")}
    drives = {}
    for gname, a, b in (("lift_cylinder", "P", "A"), ("sleeve_cylinder", "A", "D")):
        if cylinders == "spring":
            add_spring(robot, gname, pin[a], pin[b], stiffness=p["cylinder_stiffness_Npm"])
            continue
        law = None
        if gname == "lift_cylinder":
            pts = points(**p)
            law = crank_length_law(pts["O"], pts["A"], pts["P"], swing_angle(**p))
        drives[gname] = add_cylinder(robot, gname, pin[a], pin[b], length=law).constraint
    if kind == "reduced":
        info["reduction_wall_s"] = time.perf_counter() - t0
        info["modes_per_body"] = {n: lk.body.reduction.n_modes
                                  for n, lk in robot.links.items()}
    asm = robot.model.assemble()
    info.update({"coordinates": int(asm.n), "constraints": int(asm.m)})
    named = {k: robot.frame(*_frame_of_point(k, at)).origin for k in fr.named}
    return ArmModel(robot.model, kind, points=named, drives=drives, info=info,
                    bodies={n: lk.body for n, lk in robot.links.items() if lk.body},
                    robot=robot)


def _frame_of_point(k: str, at: dict) -> tuple[str, str]:
    """The frame of point ``k``: the first member end there, or the ground's (P)."""
    return ("ground", k) if k not in at else (at[k][0][0], k)


def start_pose_frequencies(**params) -> dict:
    """Lowest ``n_frequencies`` [Hz] at the start pose: the linear frame (``cms`` and
    ``full``, as ``analysis=modal``) and the nonlinear models linearized there (``ancf``,
    ``reduced``; :func:`lowest_frequencies` of the constrained system) with the cylinders
    as axial springs and, like the frame, no gravity (no prestress)."""
    p = {**PARAMS, **params}
    n = p["n_frequencies"]
    out = {"cms": frequencies(**{**p, "method": "cms"}).tolist(),
           "full": frequencies(**{**p, "method": "full"}).tolist()}
    for kind in _kinds(p):
        a = arm(kind, "spring", gravity=False, **p)
        out[kind] = lowest_frequencies(a.model, n).tolist()
    return out


def lowest_frequencies(model: fem.Model, n: int) -> np.ndarray:
    """The ``n`` lowest natural frequencies [Hz] of ``model`` about its reference state
    (unloaded), from the largest eigenvalues of ``L⁻¹ Mᵣ L⁻ᵀ`` with ``Kᵣ = L Lᵀ`` in the
    constraints' null space: the ANCF arm's stiffness spans some fourteen decades of ω²,
    and ``eigh(Kᵣ, Mᵣ)`` (:func:`fem.modes`) then moves its lowest frequencies by a few
    parts in 10⁶ with the coordinates' order alone; the inverse problem gives them to
    round-off."""
    import scipy.linalg as sla

    asm = model.assemble()
    q = asm.q0
    _, kv = asm.internal_forces(q, tangent=True)
    K, M = (x.toarray() if hasattr(x, "toarray") else np.asarray(x)
            for x in (asm.stiffness(kv, asm.hessian_values(np.zeros(asm.m), q)),
                      asm.mass_matrix(q)))
    N = sla.null_space(asm.jacobian(q, 0.0).toarray())
    Kr, Mr = N.T @ K @ N, N.T @ M @ N
    L = sla.cholesky(0.5 * (Kr + Kr.T), lower=True)
    A = sla.solve_triangular(L, sla.solve_triangular(L, Mr, lower=True).T, lower=True)
    k = A.shape[0]
    mu = sla.eigh(0.5 * (A + A.T), eigvals_only=True, subset_by_index=[k - n, k - 1])
    return np.sqrt(1.0 / mu[::-1]) / (2 * np.pi)


def _kinds(p) -> tuple[str, ...]:
    return ("ancf", "reduced") if p["body_model"] == "both" else (p["body_model"],)


def _rocker_angle(O, B) -> np.ndarray:
    d = np.asarray(B) - np.asarray(O)
    return np.unwrap(np.arctan2(d[:, 2], d[:, 0]))


def large_motion(out=None, t_end: float | None = None, **params) -> dict:
    """Swing the arm (:func:`arm`, ``cylinders="drive"``, gravity on) from its static
    equilibrium at t = 0 for ``swing_time_s`` (or up to ``t_end``) with generalized-α
    (``dt_s``, ``rho_inf``), each model of ``body_model``; the last one (the reduced arm
    when both run) streams its series and result arrays to ``out``.  Returns per model the
    times, the named points ``ARM_POINTS`` (k, 10, 3), the lift cylinder's force, the
    result and its wall times (metadata)."""
    p = _check({**PARAMS, **params})
    runs = {}
    kinds = _kinds(p)
    for kind in kinds:
        timing = {}
        t0 = time.perf_counter()
        a = arm(kind, "drive", **p)
        timing["build"] = time.perf_counter() - t0
        if "reduction_wall_s" in a.info:
            timing["reduction"] = a.info["reduction_wall_s"]
        maps = [a.points[k] for k in ARM_POINTS]
        lift = a.drives["lift_cylinder"]
        row = a.model.assemble().labels.index(lift.name)
        sensors = {"points": lambda t, q, v, acc, lam, maps=maps: np.array([m(q) for m in maps]),
                   "lift_force_N": lambda t, q, v, acc, lam, lift=lift, row=row:
                   lift.force(lam[row], q)}
        t0 = time.perf_counter()
        # q0 given: the static solver's no-load shortcut misjudges reduced bodies' weight
        st = fem.solve_static(a.model, q0=a.model.q0, tol=1e-10)
        timing["static"] = time.perf_counter() - t0
        primary = kind == kinds[-1] and out is not None
        result = fem.io.output.stream(out, a.model, sensors) if primary else None
        t0 = time.perf_counter()
        res = fem.simulate(a.model, t_end or p["swing_time_s"], p["dt_s"], rho_inf=p["rho_inf"],
                           q0=st.q, sensors=sensors, result=result,
                           progress=primary and fem.io.options.OPTIONS.progress)
        timing["dynamics"] = time.perf_counter() - t0
        runs[kind] = {"arm": a, "result": res, "t": np.asarray(res.t),
                      "points": np.asarray(res.sensors["points"]),
                      "lift_force_N": np.asarray(res.sensors["lift_force_N"], float).ravel(),
                      "timing_s": timing}
    return runs


def _large_motion_figures(p, runs, freqs) -> dict:
    iG, iO, iB = (ARM_POINTS.index(k) for k in ("G", "O", "B"))
    fig: dict = {"body_model": p["body_model"], "start_pose_frequencies_hz": freqs}
    for kind in _kinds(p):
        ref = "full" if kind == "ancf" else "cms"
        fig[f"start_pose_{kind}_vs_{ref}_percent"] = float(100 * np.abs(
            np.array(freqs[kind]) / np.array(freqs[ref]) - 1).max())
    swing, elastic, coords, force, resid = {}, {}, {}, {}, {}
    for kind, r in runs.items():
        P = r["points"]
        phi = _rocker_angle(P[:, iO], P[:, iB])
        swing[kind] = float(np.degrees(phi[-1] - phi[0]))
        # the gripper against the start pose turned rigidly with the rocker chord O-B
        dphi = phi - phi[0]
        g0 = P[0, iG] - P[0, iO]
        c, s = np.cos(dphi), np.sin(dphi)
        rigid = P[:, iO] + np.column_stack([c * g0[0] - s * g0[2], np.zeros_like(c),
                                            s * g0[0] + c * g0[2]])
        elastic[kind] = float(np.linalg.norm(P[:, iG] - rigid, axis=1).max())
        coords[kind] = r["arm"].info["coordinates"]
        force[kind] = [float(r["lift_force_N"].min()), float(r["lift_force_N"].max())]
        resid[kind] = float(np.max(r["result"].stats["residual_constraints"]))
    G = runs[next(iter(runs))]["points"][:, iG]
    fig.update({"rocker_swing_deg": swing,
                "gripper_travel_m": float(np.linalg.norm(np.diff(G, axis=0), axis=1).sum()),
                "gripper_chord_m": float(np.linalg.norm(G[-1] - G[0])),
                "gripper_motion_from_rigid_swing_max_m": elastic,
                "lift_cylinder_force_range_N": force, "coordinates": coords,
                "max_constraint_residual": resid,
                "steps": int(len(runs[next(iter(runs))]["t"]) - 1)})
    if "reduced" in runs:
        fig["modes_per_body"] = runs["reduced"]["arm"].info["modes_per_body"]
    if len(runs) == 2:
        d = np.linalg.norm(runs["reduced"]["points"][:, iG] - runs["ancf"]["points"][:, iG],
                           axis=1)
        fig["gripper_max_difference_m"] = float(d.max())
        fig["gripper_difference_over_travel"] = float(d.max() / fig["gripper_travel_m"])
    return fig


def _run_large_motion(p, outp, figures) -> dict:
    freqs = start_pose_frequencies(**p)
    runs = large_motion(outp, **p)
    figures.update(_large_motion_figures(p, runs, freqs))
    last = runs[_kinds(p)[-1]]
    timing = {f"{k}_{part}": v for k, r in runs.items() for part, v in r["timing_s"].items()}
    last["result"].info["timing_s"] = timing          # wall times: metadata, not figures
    figures.pop("method", None)
    if outp is not None:
        iG, iO, iB = (ARM_POINTS.index(k) for k in ("G", "O", "B"))
        arrays = {"time_s": last["t"]}
        for kind, r in runs.items():
            arrays[f"points_{kind}_m"] = r["points"]
            arrays[f"rocker_angle_{kind}_deg"] = np.degrees(
                _rocker_angle(r["points"][:, iO], r["points"][:, iB]))
            arrays[f"lift_force_{kind}_N"] = r["lift_force_N"]
        np.savez(outp / "large_motion.npz", point_names=np.array(ARM_POINTS), **arrays)
        if fem.io.options.OPTIONS.render:
            _plot_large_motion(p, runs, outp)
        fem.write_outputs(outp, last["arm"].model, last["result"], figures, picture=PICTURE)
    return figures


def _plot_large_motion(p, runs, outp) -> None:
    from fem.io import plots as rd

    iG, iO, iB = (ARM_POINTS.index(k) for k in ("G", "O", "B"))
    t = runs[next(iter(runs))]["t"]
    th = np.degrees(np.array([swing_angle(**p)(x)[0] for x in t]))
    turned = {}
    for k, r in runs.items():
        phi = _rocker_angle(r["points"][:, iO], r["points"][:, iB])
        turned[k] = np.degrees(phi - phi[0])
    rd.plot_histories(t, {**turned, "commanded (rigid rocker)": th},
                      outp / "rocker_swing.png", "rocker O–B turned [deg]",
                      "rocker swing by the lift cylinder")
    if len(runs) == 2:
        d = np.linalg.norm(runs["reduced"]["points"][:, iG] - runs["ancf"]["points"][:, iG],
                           axis=1)
        rd.plot_histories(t, {"|G reduced − G ANCF|": 1e6 * d},
                          outp / "gripper_difference.png", "difference [µm]",
                          "gripper G: reduced bodies against ANCF cables")
    fig = _figure((8.0, 6.0))
    ax = fig.add_subplot()
    chains = (("P", "A"), ("O", "A", "B"), ("E", "D", "B", "C", "F", "G"), ("G", "H", "F"),
              ("A", "D"))
    ref = runs["ancf"] if "ancf" in runs else runs[next(iter(runs))]
    P = ref["points"]
    for k in np.linspace(0, len(t) - 1, 5).astype(int):
        for ch in chains:
            xy = P[k][[ARM_POINTS.index(c) for c in ch]]
            ax.plot(xy[:, 0], xy[:, 2], "-", color="0.6", lw=1)
        ax.annotate(f"{t[k]:.1f} s", P[k, iG, [0, 2]], textcoords="offset points",
                    xytext=(4, 4), fontsize=8)
    styles = {"ancf": ("C0", "-", "ANCF cables"), "reduced": ("C3", "--", "reduced bodies")}
    for kind, r in runs.items():
        c, ls, lab = styles[kind]
        ax.plot(r["points"][:, iG, 0], r["points"][:, iG, 2], ls, color=c, lw=1.5,
                label=f"gripper G, {lab}")
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.set_title(f"large motion: rocker swung {p['swing_deg']:g}° in {p['swing_time_s']:g} s "
                 "(grey: the arm every quarter)", fontsize=10)
    ax.legend(fontsize=8, loc="lower left")
    fig.savefig(outp / "gripper_path.png", dpi=110, bbox_inches="tight")


# -- output -------------------------------------------------------------------------------
def _figure(size=(7.0, 4.5)):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    return fig


def _draw_frame(ax, fr, u=None, scale=0.0, **kw):
    X = np.array(fr.nodes)[:, [0, 2]]
    if u is not None:
        X = X + scale * u.reshape(-1, 3)[:, :2]
    for m in fr.members:
        cyl = m.group.endswith("cylinder")
        ax.plot(X[[m.i, m.j], 0], X[[m.i, m.j], 1], ("--" if cyl else "-"),
                color=kw.get("color", "C0") if not cyl else "0.5",
                lw=1 if cyl else kw.get("lw", 2.0))


def _plot_geometry(fr, path):
    from matplotlib.lines import Line2D

    X = np.array(fr.nodes)[:, [0, 2]]
    span = np.ptp(X, axis=0)
    fig = _figure((9.0, 1.2 + 7.0 * span[1] / span[0] + 1.2))   # the frame's own proportions
    ax = fig.add_subplot()
    _draw_frame(ax, fr)
    # points at the same place (a pin and a cylinder end) get one label
    labels: dict = {}
    for name, k in fr.named.items():
        labels.setdefault(tuple(np.round(X[k], 3)), []).append(name)
    for where, names in labels.items():
        ax.annotate("/".join(sorted(names)), where, textcoords="offset points",
                    xytext=(4, 5), fontsize=9)
    for n in fr.supports:
        ax.plot(*X[n], "k^", ms=9)
    for n, _kg, _ in fr.masses:
        ax.plot(*X[n], "ro", ms=7)
    ax.set_aspect("equal")
    ax.margins(x=0.04, y=0.15)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.set_title("vehicle manipulator (Ma and Mei 2010): geometry")
    keys = [Line2D([], [], color="C0", lw=2, label="substructures"),
            Line2D([], [], color="0.5", ls="--", lw=1, label="hydraulic cylinders"),
            Line2D([], [], color="k", marker="^", ls="", ms=8, label="pins to the vehicle"),
            Line2D([], [], color="r", marker="o", ls="", ms=7, label="motors (masses)")]
    ax.legend(handles=keys, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=4,
              fontsize=8, frameon=False)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return path


def _plot_modes(fr, f, shapes, path):
    k = min(6, len(f))
    fig = _figure((11, 4.8))
    span = np.ptp(np.array(fr.nodes)[:, [0, 2]], axis=0).max()
    cols = 3
    for j in range(k):
        ax = fig.add_subplot(2, cols, j + 1)
        u = shapes[:, j]
        tr = u.reshape(-1, 3)[:, :2]
        scale = 0.12 * span / max(np.abs(tr).max(), 1e-300)
        _draw_frame(ax, fr, color="0.8", lw=1)
        _draw_frame(ax, fr, u, scale, color="C3")
        ax.set_aspect("equal")
        ax.set_title(f"mode {j + 1}: {f[j]:.2f} Hz", fontsize=9)
        ax.tick_params(labelsize=7)
        if j >= k - cols:
            ax.set_xlabel("x [m]", fontsize=8)
        if j % cols == 0:
            ax.set_ylabel("z [m]", fontsize=8)
    fig.suptitle("mode shapes (red, largest displacement 12 % of the span) on the "
                 "undeformed frame (grey)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def _write_modes_series(out, fr, f, shapes):
    from fem.io.vtk import Frame as VtkFrame
    from fem.io.vtk import SeriesWriter

    pts = np.array(fr.nodes)
    lines = np.array([[m.i, m.j] for m in fr.members])
    group = np.array([float(SUBSTRUCTURES.index(m.group)) if m.group in SUBSTRUCTURES
                      else -1.0 for m in fr.members])
    span = np.ptp(pts, axis=0).max()
    w = SeriesWriter(out, "modes")
    for j in range(len(f)):
        tr = shapes[:, j].reshape(-1, 3)
        disp = np.column_stack([tr[:, 0], np.zeros(len(tr)), tr[:, 1]])
        disp *= 0.1 * span / max(np.abs(disp).max(), 1e-300)
        # the collection's "time" is the mode number; the frequency is field data
        w.add(VtkFrame(float(j + 1), pts, {"line": lines}, {"displacement": disp},
                       {"substructure": group},
                       fem.io.output.mode_fields(j + 1, f[j], (2 * np.pi * f[j]) ** 2)))
    return w.close()


def _write_modes_result(out, fr, f, shapes):
    """``result/`` of the modal analysis (``fem.Result.load`` gives the frequencies and
    the shapes over the frame's coordinates, about the undeformed frame) and the camera
    of the pictures (the arm's x–z plane)."""
    f = np.asarray(f, float)
    fem.solvers.results.Modes(f, np.sign(f) * (2 * np.pi * f) ** 2, np.asarray(shapes, float),
                      np.zeros(fr.n_dof), {"analysis": "modal"}).save(out / "result")
    _write_json(out / "render.json", {"camera": "xz"})


def _plot_sweeps(sw, path):
    fig = _figure((11, 7))
    for k, key in enumerate(("rocker", "sleeve", "rod", "gripper")):
        ax = fig.add_subplot(2, 2, k + 1)
        s = sw[key]
        for i in (1, 2, 3):
            ax.plot(s["section_mm"], s[f"f{i}_hz"], "o-", ms=3, label=f"f{i}")
        lo, hi = SEED_RANGES_MM[key]
        ax.axvspan(lo, hi, color="0.92", zorder=0)
        ax.set_xlabel(f"{key} section side [mm]")
        ax.set_ylabel("frequency [Hz]")
        ax.set_title(f"{key} (Ma and Mei 2010: {SEED_F[key]})", fontsize=8)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def _plot_grid(sw, path):
    g = sw["rocker_x_rod"]
    f = np.array(g["f_hz"])
    fig = _figure((13, 4))
    R, D = np.meshgrid(g["rocker_mm"], g["rod_mm"], indexing="ij")
    for i in range(3):
        ax = fig.add_subplot(1, 3, i + 1)
        cs = ax.contourf(R, D, f[:, :, i], levels=12)
        ax.contour(R, D, f[:, :, i], levels=12, colors="k", linewidths=0.4)
        fig.colorbar(cs, ax=ax, label=f"f{i + 1} [Hz]")
        ax.set_xlabel("rocker side [mm]")
        ax.set_ylabel("rod side [mm]")
        ax.set_title(f"f{i + 1} (cf. Ma and Mei 2010, Fig. 5{'abc'[i]})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def _plot_convergence(conv, path):
    fig = _figure((6, 4))
    ax = fig.add_subplot()
    k = [r["n_modes"] for r in conv["rows"]]
    e = np.abs(np.array([r["error_percent"] for r in conv["rows"]]))
    for i in range(3):
        ax.semilogy(k, np.maximum(e[:, i], 1e-12), "o-", label=f"f{i + 1}")
    ax.axhline(0.1, color="k", ls=":", lw=1)
    ax.set_xlabel("fixed-interface modes per substructure")
    ax.set_ylabel("|CMS / full - 1| [%]")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def _write_json(path, data):
    tmp = Path(path).with_suffix(".tmp")
    tmp.write_text(json.dumps(fem.io.output.jsonable(data), indent=1))
    tmp.replace(path)


def run(out=None, **params) -> dict:
    p = _check({**PARAMS, **params})
    t0 = time.perf_counter()
    figures: dict = {"analysis": p["analysis"], "method": p["method"]}
    render = fem.io.options.OPTIONS.render
    outp = Path(out) if out is not None else None
    if outp is not None:
        outp.mkdir(parents=True, exist_ok=True)
    if p["analysis"] == "large_motion":
        return _run_large_motion(p, outp, figures)
    if p["analysis"] == "modal":
        fr, f, shapes, ncoord, cms = _solve(p)
        figures.update({"frequencies_hz": f.tolist(), "n_coordinates": int(ncoord),
                        "n_coordinates_full": int(len(fr.active_dofs())),
                        "mass_kg": _mass(fr)})
        if cms is not None:
            figures["fixed_interface_hz"] = {
                c.name: c.frequencies_hz[:3].tolist() for c in cms.assembly.components
                if c.name in SUBSTRUCTURES}
        if outp is not None:
            _write_json(outp / "frame.json", fr.to_dict(f))
            _write_modes_series(outp, fr, f, shapes)
            _write_modes_result(outp, fr, f, shapes)
            if render:
                _plot_geometry(fr, outp / "geometry.png")
                _plot_modes(fr, f, shapes, outp / "mode_shapes.png")
    elif p["analysis"] == "sweep":
        sw = sweep(**p)
        figures["sweep"] = sw
        for key in ("rocker", "sleeve", "rod", "gripper"):
            figures[f"sweep_{key}"] = {k: np.round(v, 3).tolist() for k, v in sw[key].items()}
        if outp is not None:
            _write_json(outp / "sweep.json", sw)
            if render:
                _plot_sweeps(sw, outp / "sweep_sections.png")
                _plot_grid(sw, outp / "sweep_rocker_rod.png")
        figures.pop("sweep")
    elif p["analysis"] == "convergence":
        conv = convergence(**p)
        figures["full_hz"] = conv["full_hz"]
        figures["convergence"] = conv["rows"]
        if outp is not None and render:
            _plot_convergence(conv, outp / "cms_convergence.png")
    else:
        dyn = dynamic(**p)
        figures.update({k: v for k, v in dyn.items() if np.ndim(v) == 0})
        if outp is not None:
            np.savez(outp / "dynamic.npz", **{k: np.asarray(v) for k, v in dyn.items()})
            if render:
                from fem.io import plots as rd

                rd.plot_histories(dyn["time_s"], {"full": dyn["tip_z_full_m"],
                                                  "CMS": dyn["tip_z_cms_m"]},
                                  outp / "tip_z.png", "tip G z [m]",
                                  "vehicle bump: full vs Craig–Bampton")
    wall = time.perf_counter() - t0
    if outp is not None:
        _write_json(outp / "figures.json", figures)
    return {**figures, "wall_time_s": wall}      # run metadata (summary.json), not a result


def _mass(fr) -> float:
    M, _ = fr.matrices()
    r = np.zeros(fr.n_dof)
    r[::3] = 1.0
    return float(r @ (M @ r))
