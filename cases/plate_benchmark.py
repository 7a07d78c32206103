"""Rectangular Bézier-triangle plate under uniform pressure: statics and modes vs Kirchhoff.

A flat rectangular plate ``span_x × span_y × thickness`` (centred at the origin, in the XY
plane) of the Bézier-triangle ANCF thick plate of Liu et al. (2023)
(``bezier_plate_shared`` by default, or the paper's 48-coordinate ``bezier_plate`` joined
by its continuity constraints) is simply supported or clamped on all four edges and loaded
by a uniform pressure ``p`` (towards −z), or analysed for its natural frequencies.  It
checks the element against the classical Kirchhoff plate:

* simply supported, any rectangle: Navier's double series for the centre deflection and
  ``ω_mn = π² (m²/a² + n²/b²) √(D/ρh)`` for the frequencies (Timoshenko &
  Woinowsky-Krieger, *Theory of Plates and Shells*, 2nd ed. 1959, ch. 5 (Table 8); Leissa,
  *Vibration of Plates*, NASA SP-160, 1969, ch. 4);
* clamped: a converged Ritz–Galerkin solution (Legendre polynomials times the clamped
  bubble ``(1 − ξ²)²(1 − η²)²``), which reproduces ``w·D/(q a⁴) = 0.00126532`` of the
  square (Taylor & Govindjee, Commun. Numer. Meth. Engng 20 (2004) 757–765), the values
  0.00126 / 0.00220 / 0.00254 of Timoshenko & Woinowsky-Krieger Table 35 for b/a = 1, 1.5, 2
  and the clamped-square frequency parameters 35.99, 73.41, 108.3 of Leissa (1969);

with ``D = E h³ / 12(1 − ν²)`` (all in :mod:`fem.references.plates`, re-exported here).
Choices (see ``docs/plate_benchmark.md``): the simply
supported edge is the *hard* support of thick-plate theory — the position, the slope along
the edge and the tilt of the director along the edge are held (``"simply_supported_soft"``
holds the vertex positions only, the advice of ``docs/bezier_plate.md``, and converges
slowly); the default pressure is the one that gives a Kirchhoff centre deflection of
``w_over_h`` = 1 % of the thickness, where the (geometrically nonlinear) static solve equals
the linear result to 2·10⁻⁴ relative.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

import fem
from fem.elements.bezier_plate import add_continuity
from fem.references.plates import (  # noqa: F401  (re-exported: the tests use them)
    CLAMPED_SQUARE,
    CLAMPED_TABLE_35,
    LEISSA_CLAMPED_SQUARE,
    clamped_ritz,
    flexural_rigidity,
    navier_center_deflection,
    navier_frequencies,
    navier_shear_deflection,
)

PICTURE = {"camera": {"view": "iso", "direction": [1.0, 0.45, 0.45], "up": [0.0, 0.0, 1.0]},
           "scalars": "displacement", "contours": 8}
"""The snapshot (``render.json``): 19° above the plate, coloured by the deflection with 8
level lines, which crowd towards the near edge of the magnified dish (coloured by the
stress, seen from low, it read as flat; the face stresses stay in the ``.vtu``)."""

PARAMS = {
    "support": "simply_supported",   # "simply_supported" (hard), "simply_supported_soft", "clamped"
    "span_x_m": 1.0,
    "span_y_m": 1.0,
    "thickness_m": 0.01,
    "divisions": 8,                  # elements per edge: n or [nx, ny] (or a built-in mesh name)
    "mesh": "diagonal",              # "diagonal", "crossed", or a built-in name like "square_u8"
    "element": "bezier_plate_shared",  # or "bezier_plate" (48 coordinates + continuity)
    "g1_continuity": False,          # shared family: add liu2023's middle G1 row per edge
    "shear_factor": "auto",          # "auto" (stabilized) or a number in (0, 1]; 1 = continuum
    "in_plane": "fixed",             # supported edges: "fixed" in-plane, or "free" (3 rows)
    "E_Pa": 2.1e11,
    "nu": 0.3,
    "rho_kgm3": 7850.0,
    "pressure_Pa": None,             # None: the pressure giving w_Kirchhoff = w_over_h · h
    "w_over_h": 0.01,
    "analysis": "static",            # "static" or "modal"
    "n_modes": 6,
    "load_steps": 1,
    "newton_tol": 1e-5,             # relative force residual (see the docs: round-off floor)
}

LIMITS = {"span_x_m": ">0", "span_y_m": ">0", "thickness_m": ">0", "rho_kgm3": ">=0",
          "analysis": ("static", "modal"), "newton_tol": ">0", "w_over_h": ">0",
          **fem.cases.STANDARD.limits("E_Pa", "nu", "n_modes", "load_steps")}

DOCS = {
    "support": "edges: simply_supported (hard: position, slope along the edge and director "
               "tilt held), simply_supported_soft (vertex positions only) or clamped",
    "span_x_m": "side of the plate along x",
    "span_y_m": "side of the plate along y",
    "thickness_m": "plate thickness",
    "divisions": "elements per edge: n, or [nx, ny] (ignored for a built-in mesh)",
    "mesh": "diagonal or crossed triangulation, or a built-in mesh such as square_u8",
    "element": "bezier_plate_shared (shared vertices) or bezier_plate (48 coordinates per "
               "element + continuity constraints)",
    "g1_continuity": "shared family: add the middle G¹ row per interior edge",
    "shear_factor": "transverse-shear factor: auto (stabilized) or a number in (0, 1] (1: "
                    "continuum) [-]",
    "in_plane": "in-plane motion of the supported edges: fixed or free",
    "rho_kgm3": "density",
    "pressure_Pa": "uniform pressure towards −z; null: the one giving a Kirchhoff centre "
                   "deflection of w_over_h × thickness",
    "w_over_h": "Kirchhoff centre deflection over thickness for the default pressure [-]",
    "analysis": "static deflection or modal frequencies",
    "load_steps": "first load increment of the static solve is 1/load_steps",
    "newton_tol": "relative force residual at which the static Newton stops (above the "
                  "round-off floor, see docs/plate_benchmark.md) [-]",
    **fem.cases.STANDARD.docs("E_Pa", "nu", "n_modes"),
}
"""What each parameter means, with its unit where the name does not carry it (``fem info``)."""
KERNELS = "numpy"
"""Its runs are too short to repay loading the compiled kernels: 33 % more CPU on them
(``tests/benchmarks/kernel_paths.py``, 3 rounds, 2026-11-29)."""
REFERENCES = ("liu2023",)
"""The papers this case reproduces (keys of :mod:`fem.references.citations`)."""

SUPPORTS = ("simply_supported", "simply_supported_soft", "clamped")
ELEMENTS = ("bezier_plate_shared", "bezier_plate")


def reference(**params) -> dict:
    """Kirchhoff values for the plate of ``params`` (see the module docstring).

    ``a`` is the shorter span (the convention of the clamped tables); the normalized
    deflection is ``w·D/(q a⁴)``.
    """
    p = _checked({**PARAMS, **params})
    ax, by, h = p["span_x_m"], p["span_y_m"], p["thickness_m"]
    a = min(ax, by)
    D = flexural_rigidity(p["E_Pa"], p["nu"], h)
    rho_h = p["rho_kgm3"] * h
    if p["support"] == "clamped":
        coef, lam = clamped_ritz(round(max(ax, by) / a, 12))
        k = min(p["n_modes"], 12)
        freqs = lam[:k] / a**2 * np.sqrt(D / rho_h) / (2 * np.pi)
        modes = []
    else:
        coef = navier_center_deflection(ax, by, 1.0, D) * D / a**4
        freqs, modes = navier_frequencies(ax, by, D, rho_h, p["n_modes"])
    q = pressure(p)
    out = {}
    if p["support"] == "simply_supported":
        G = p["E_Pa"] / (2.0 * (1.0 + p["nu"]))
        w_s = navier_shear_deflection(ax, by, q, G * h)
        out["mindlin_center_deflection_m"] = coef * q * a**4 / D + w_s
    return {**out, "kirchhoff_w_D_over_q_a4": coef,
            "kirchhoff_center_deflection_m": coef * q * a**4 / D,
            "kirchhoff_frequencies_hz": np.asarray(freqs).tolist(),
            "kirchhoff_mode_indices": [list(mn) for mn in modes],
            "flexural_rigidity_Nm": D, "pressure_Pa": q}


def pressure(p: dict) -> float:
    """The applied pressure [Pa]: ``pressure_Pa``, or the one giving a Kirchhoff centre
    deflection of ``w_over_h · h`` (linear range; see the module docstring)."""
    if p["pressure_Pa"] is not None:
        return float(p["pressure_Pa"])
    ax, by, h = p["span_x_m"], p["span_y_m"], p["thickness_m"]
    a = min(ax, by)
    D = flexural_rigidity(p["E_Pa"], p["nu"], h)
    if p["support"] == "clamped":
        coef = clamped_ritz(round(max(ax, by) / a, 12))[0]
    else:
        coef = navier_center_deflection(ax, by, 1.0, D) * D / a**4
    return p["w_over_h"] * h * D / (coef * a**4)


# --------------------------------------------------------------------------- model
def _checked(p: dict) -> dict:
    """Parameters validated and normalized; bad values raise :class:`fem.ModelError`."""
    unknown = sorted(set(p) - set(PARAMS))
    if unknown:
        raise fem.ModelError(f"plate_benchmark: unknown parameters {unknown}; it takes "
                             f"{', '.join(PARAMS)}")
    if p["support"] not in SUPPORTS:
        raise fem.ModelError(f"plate_benchmark: support must be one of {SUPPORTS}, "
                             f"got {p['support']!r}")
    if p["element"] not in ELEMENTS:
        raise fem.ModelError(f"plate_benchmark: element must be one of {ELEMENTS}, "
                             f"got {p['element']!r}")
    if p["analysis"] not in ("static", "modal"):
        raise fem.ModelError(f"plate_benchmark: analysis must be 'static' or 'modal', "
                             f"got {p['analysis']!r}")
    if p["in_plane"] not in ("fixed", "free"):
        raise fem.ModelError(f"plate_benchmark: in_plane must be 'fixed' or 'free', "
                             f"got {p['in_plane']!r}")
    for key in ("span_x_m", "span_y_m", "thickness_m", "E_Pa", "rho_kgm3"):
        try:
            value = float(p[key])
        except (TypeError, ValueError):
            raise fem.ModelError(f"plate_benchmark: {key} must be a number, "
                                 f"got {p[key]!r}") from None
        if not (np.isfinite(value) and value > 0):
            raise fem.ModelError(f"plate_benchmark: {key} must be finite and > 0, "
                                 f"got {p[key]!r}")
        p[key] = value
    for key in ("nu", "w_over_h", "newton_tol") + (("pressure_Pa",) if p["pressure_Pa"]
                                                   is not None else ()):
        try:
            p[key] = float(p[key])
        except (TypeError, ValueError):
            raise fem.ModelError(f"plate_benchmark: {key} must be a number, "
                                 f"got {p[key]!r}") from None
        if not np.isfinite(p[key]):
            raise fem.ModelError(f"plate_benchmark: {key} must be finite, got {p[key]!r}")
    if not -1.0 < p["nu"] < 0.5:
        raise fem.ModelError(f"plate_benchmark: nu must lie in (−1, 0.5), got {p['nu']!r}")
    if p["thickness_m"] >= min(p["span_x_m"], p["span_y_m"]):
        raise fem.ModelError(f"plate_benchmark: thickness_m = {p['thickness_m']} is not "
                             "smaller than the spans; this is a plate benchmark")
    if isinstance(p["shear_factor"], str) and p["shear_factor"] != "auto":
        try:
            p["shear_factor"] = float(p["shear_factor"])
        except ValueError:
            raise fem.ModelError(f"plate_benchmark: shear_factor must be 'auto' or a number "
                                 f"in (0, 1], got {p['shear_factor']!r}") from None
    if not (isinstance(p["n_modes"], int) and p["n_modes"] >= 1):
        raise fem.ModelError(f"plate_benchmark: n_modes must be an integer ≥ 1, "
                             f"got {p['n_modes']!r}")
    if not (isinstance(p["load_steps"], int) and p["load_steps"] >= 1):
        raise fem.ModelError(f"plate_benchmark: load_steps must be an integer ≥ 1, "
                             f"got {p['load_steps']!r}")
    if not p["w_over_h"] > 0 or not p["newton_tol"] > 0:
        raise fem.ModelError(f"plate_benchmark: w_over_h and newton_tol must be > 0, got "
                             f"{p['w_over_h']!r}, {p['newton_tol']!r}")
    return p


def _divisions(value) -> tuple[int, int]:
    n = [value, value] if np.ndim(value) == 0 else list(value)
    if len(n) != 2 or not all(isinstance(k, int | np.integer) and k >= 1 for k in n):
        raise fem.ModelError(f"plate_benchmark: divisions must be an integer ≥ 1 or "
                             f"[nx, ny], got {value!r}")
    return int(n[0]), int(n[1])


def plate_mesh(p: dict) -> fem.Mesh:
    """The triangle mesh of the plate, ``[−a/2, a/2] × [−b/2, b/2]`` at z = 0.

    ``mesh="diagonal"``: ``nx × ny`` rectangles, each split along its (−, −)→(+, +)
    diagonal (as the built-in ``square_s*``); ``"crossed"``: each split into four about its
    centre (as ``square_x*``); any other name (or a string ``divisions``): a built-in mesh
    of the unit square scaled to the spans.
    """
    ax, by = p["span_x_m"], p["span_y_m"]
    kind = p["divisions"] if isinstance(p["divisions"], str) else p["mesh"]
    if kind not in ("diagonal", "crossed"):
        base = fem.load_builtin_mesh(kind)
        lo, hi = base.vertices.min(axis=0), base.vertices.max(axis=0)
        if not (np.allclose(lo[:2], -0.5) and np.allclose(hi[:2], 0.5)):
            raise fem.ModelError(f"plate_benchmark: built-in mesh {kind!r} is not the unit "
                                 "square [−0.5, 0.5]² (use a square_* mesh)")
        V = base.vertices * np.array([ax, by, 0.0])
        return fem.Mesh.from_arrays(V, base.triangles, base.lines, base.groups,
                                    name=f"{kind} scaled to {ax} × {by} m")
    nx, ny = _divisions(p["divisions"])
    x = np.linspace(-ax / 2, ax / 2, nx + 1)
    y = np.linspace(-by / 2, by / 2, ny + 1)
    xx, yy = np.meshgrid(x, y, indexing="xy")
    V = np.column_stack([xx.ravel(), yy.ravel(), np.zeros(xx.size)])
    i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing="xy")
    a = (i + (nx + 1) * j).ravel()                 # corners a, b, c, d counter-clockwise
    b, c, d = a + 1, a + nx + 2, a + nx + 1
    if kind == "diagonal":
        T = np.concatenate([np.column_stack([a, b, c]), np.column_stack([a, c, d])])
    else:
        mid = len(V) + np.arange(len(a))
        V = np.vstack([V, 0.25 * (V[a] + V[b] + V[c] + V[d])])
        T = np.concatenate([np.column_stack([a, b, mid]), np.column_stack([b, c, mid]),
                            np.column_stack([c, d, mid]), np.column_stack([d, a, mid])])
    return fem.Mesh.from_arrays(V, T, groups={"plate": {"triangle": np.arange(len(T))}},
                                name=f"{kind} {nx}×{ny} plate {ax} × {by} m")


def vertex_fields(model: fem.Model, group: fem.ElementGroup, vertex: int
                  ) -> dict[str, fem.LinearMap]:
    """Position ``r`` and Cartesian gradients ``r_x, r_y, r_z`` at a mesh vertex.

    Shared family: the vertex node's fields.  48-coordinate family: those of one element
    touching the vertex (its copies are tied by the continuity constraints): the element
    holds ``g₁ = F t₁``, ``g₂ = F t₂`` (its two edges from the vertex) and ``r_χ = (h/2) F n̂``,
    so ``F e_i = Σ_k (T⁻¹)_{ki} g_k`` with ``T = [t₁ t₂ (h/2)n̂]``.
    """
    if group.family.name == "bezier_plate_shared":
        node = int(group.mesh_vertex_node[vertex])
        return {f: model.node_field(node, f) for f in ("r", "r_x", "r_y", "r_z")}
    cells = group.mesh.cells_of("triangle")
    e, k = (int(i[0]) for i in np.nonzero(cells == vertex))
    node = int(group.nodes[e, k])
    V = group.mesh.vertices[cells[e]]
    t1, t2 = V[(k + 1) % 3] - V[k], V[(k + 2) % 3] - V[k]
    n = np.cross(t1, t2)
    T = np.column_stack([t1, t2, 0.5 * group.family.thickness[e] * n / np.linalg.norm(n)])
    Tinv = np.linalg.inv(T)
    fields = group.family.node_layout[k][1:4]             # next, previous, r_chi
    dofs = model.node_dofs(node, fields)
    out = {"r": model.node_field(node, "r")}
    for i, name in enumerate(("r_x", "r_y", "r_z")):
        coef = np.hstack([Tinv[m, i] * np.eye(3) for m in range(3)])
        out[name] = fem.LinearMap(dofs, coef, label=f"{model.node_names[node]} {name}")
    return out


def _support_rows(p: dict, mesh: fem.Mesh) -> list[tuple[int, str, int]]:
    """(vertex, field, component) held by the supports.

    Per boundary vertex on an edge along ``s`` (x or y), with ``z`` the normal:
    clamped — ``r, r_x, r_y, r_z`` (Kirchhoff: w = ∂w/∂n = 0, hence the whole gradient);
    simply supported (hard) — ``r·z``, the slope along the edge ``r_s·z`` and the tilt of
    the director along the edge ``r_z·s`` (Kirchhoff: w = 0 along the edge, so ∂w/∂s = 0 and
    the normal does not turn about the edge normal); soft — ``r·z`` only.  With
    ``in_plane="fixed"`` the edge is also held in its plane (``r·x, r·y`` and, for the hard
    support, the in-plane components of ``r_s``); with ``"free"`` only three rows at two
    corners remove the in-plane rigid motion.  A clamped edge is always held in its plane
    (its gradient along the edge is fixed).
    """
    V = mesh.vertices
    ax, by = p["span_x_m"], p["span_y_m"]
    tol = 1e-9 * max(ax, by)
    on_x_edge = np.abs(np.abs(V[:, 1]) - by / 2) < tol     # edges along x (y = ±b/2)
    on_y_edge = np.abs(np.abs(V[:, 0]) - ax / 2) < tol     # edges along y (x = ±a/2)
    rows: list[tuple[int, str, int]] = []
    fixed_plane = p["in_plane"] == "fixed"
    for v in np.flatnonzero(on_x_edge | on_y_edge):
        v = int(v)
        if p["support"] == "clamped":
            comps = [(f, c) for f in ("r", "r_x", "r_y", "r_z") for c in range(3)]
        else:
            comps = [("r", 2)] + ([("r", 0), ("r", 1)] if fixed_plane else [])
            if p["support"] == "simply_supported":
                for along, s in ((on_x_edge[v], 0), (on_y_edge[v], 1)):
                    if along:
                        grad = ("r_x", "r_y")[s]
                        comps += [(grad, 2), ("r_z", s)]
                        comps += [(grad, 0), (grad, 1)] if fixed_plane else []
        rows += [(v, f, c) for f, c in dict.fromkeys(comps)]
    if not fixed_plane and p["support"] != "clamped":
        corner_a = int(np.argmin(np.hypot(V[:, 0] + ax / 2, V[:, 1] + by / 2)))
        corner_b = int(np.argmin(np.hypot(V[:, 0] - ax / 2, V[:, 1] + by / 2)))
        rows += [(corner_a, "r", 0), (corner_a, "r", 1), (corner_b, "r", 1)]
    return rows


def _add_supports(model: fem.Model, group: fem.ElementGroup, p: dict) -> fem.Linear:
    mesh = group.mesh
    rows = _support_rows(p, mesh)
    maps: dict[int, dict[str, fem.LinearMap]] = {}
    r_idx, c_idx, vals, labels = [], [], [], []
    for i, (v, f, c) in enumerate(rows):
        if v not in maps:
            maps[v] = vertex_fields(model, group, v)
        m = maps[v][f]
        nz = np.abs(m.coef[c]) > 0
        r_idx += [i] * int(nz.sum())
        c_idx += m.dofs[nz].tolist()
        vals += m.coef[c][nz].tolist()
        x, y = mesh.vertices[v, :2]
        labels.append(f"{p['support']} vertex {v} ({x:.4g}, {y:.4g}) {f}[{'xyz'[c]}]")
    A = sp.csr_matrix((vals, (r_idx, c_idx)), shape=(len(rows), model.n_dof))
    return model.add_constraint(fem.Linear(A, A @ model.q0, p["support"], labels))


def center_point(group: fem.ElementGroup, point=(0.0, 0.0)) -> fem.LinearMap:
    """The mid-surface material point over ``point`` (x, y), as a linear map of q."""
    mesh = group.mesh
    cells = mesh.cells_of("triangle")
    V = mesh.vertices[cells][:, :, :2]
    E1, E2 = V[:, 1] - V[:, 0], V[:, 2] - V[:, 0]
    d = np.asarray(point, float) - V[:, 0]
    det = E1[:, 0] * E2[:, 1] - E1[:, 1] * E2[:, 0]
    xi = (d[:, 0] * E2[:, 1] - d[:, 1] * E2[:, 0]) / det
    eta = (E1[:, 0] * d[:, 1] - E1[:, 1] * d[:, 0]) / det
    worst = np.minimum(np.minimum(xi, eta), 1.0 - xi - eta)
    e = int(np.argmax(worst))
    if worst[e] < -1e-9:
        raise fem.ModelError(f"plate_benchmark: point {tuple(point)} is outside the mesh")
    # flat elements with the identity reference gradient reproduce the affine map
    return group.material_point(e, (xi[e], eta[e], 0.0))


def build(**params) -> fem.Model:
    """The supported, loaded plate (``model.group("plate")`` is its element group)."""
    p = _checked({**PARAMS, **params})
    mesh = plate_mesh(p)
    model = fem.Model("plate_benchmark")
    material = fem.Material(p["E_Pa"], p["nu"], p["rho_kgm3"], name="plate")
    group = model.add_mesh(mesh, p["element"], material, name="plate",
                           thickness=p["thickness_m"], shear_factor=p["shear_factor"])
    if p["element"] == "bezier_plate" or p["g1_continuity"]:
        add_continuity(model, group)
    _add_supports(model, group, p)
    if p["analysis"] == "static":
        model.add_distributed_load(group, (0.0, 0.0, -pressure(p)))
    return model


def run(out=None, **params) -> dict:
    """Solve and compare with the Kirchhoff references (keys carry units)."""
    p = _checked({**PARAMS, **params})
    t0 = fem.cases.clock()
    model = build(**p)
    asm = model.assemble()
    t_build = fem.cases.clock() - t0
    ref = reference(**p)
    a = min(p["span_x_m"], p["span_y_m"])
    D = ref["flexural_rigidity_Nm"]
    plate = model.group("plate")
    center = center_point(plate)
    fam = plate.family
    figures: dict = {
        "support": p["support"], "element": p["element"], "mesh": plate.mesh.name,
        "n_elements": plate.n_elements, "n_coordinates": model.n_dof,
        "n_constraint_rows": asm.n_con,
        "span_over_thickness": a / p["thickness_m"],
        "flexural_rigidity_Nm": D,
        "shear_factor_min": float(fam.shear_factor.min()),
        "shear_factor_max": float(fam.shear_factor.max()),
        "kirchhoff_w_D_over_q_a4": ref["kirchhoff_w_D_over_q_a4"],
    }
    t1 = fem.cases.clock()
    if p["analysis"] == "static":
        q = ref["pressure_Pa"]
        # Shared family without G1 rows: every support row holds a different coordinate, so
        # the rows are independent by construction and the dense rank check (a QR of the
        # n × m Jacobian, most of the run time on fine meshes) is skipped.
        check = p["element"] != "bezier_plate_shared" or p["g1_continuity"]
        st = fem.solve_static(model, load_steps=p["load_steps"], tol=p["newton_tol"],
                              check_rank=check)
        w = -float((center(st.q) - center(model.q0))[2])
        wk = ref["kirchhoff_center_deflection_m"]
        figures.update({
            "pressure_Pa": q, "center_deflection_m": w,
            "kirchhoff_center_deflection_m": wk,
            "center_deflection_over_thickness": w / p["thickness_m"],
            "w_D_over_q_a4": w * D / (q * a**4),
            "error_vs_kirchhoff_percent": 100.0 * (w / wk - 1.0),
            **({"mindlin_center_deflection_m": ref["mindlin_center_deflection_m"],
                "error_vs_mindlin_percent":
                    100.0 * (w / ref["mindlin_center_deflection_m"] - 1.0)}
               if "mindlin_center_deflection_m" in ref else {}),
            "newton_iterations": st.iterations, "residual_relative": st.residual,
        })
        result, state = None, st
    else:
        mr = fem.modes(model, n_modes=p["n_modes"])
        f = mr.frequencies_hz
        # bending modes: the mid-surface moves mostly along z (with in_plane="free" the
        # in-plane modes of the corner-supported plate fall among them)
        r = np.concatenate([model.node_dofs(int(n), "r") for n in np.unique(plate.nodes)])
        u = mr.shapes[r].reshape(-1, 3, mr.shapes.shape[1])
        bending = np.linalg.norm(u[:, 2], axis=0) > np.linalg.norm(u[:, :2], axis=(0, 1))
        fb = f[bending]
        fk = np.asarray(ref["kirchhoff_frequencies_hz"])
        k = min(len(fb), len(fk))
        figures.update({
            "frequencies_hz": f.tolist(), "bending_frequencies_hz": fb.tolist(),
            "kirchhoff_frequencies_hz": fk.tolist(),
            "kirchhoff_mode_indices": ref["kirchhoff_mode_indices"],
            "frequency_errors_percent": (100.0 * (fb[:k] / fk[:k] - 1.0)).tolist(),
        })
        result, state = mr, model.q0      # the modes about the flat plate
    timing = {"solve_time_s": fem.cases.clock() - t1, "build_time_s": t_build,
              "wall_time_s": fem.cases.clock() - t0}
    if out is not None:
        fem.write_outputs(out, model, result, figures, state=state, picture=PICTURE)
    return {**figures, **timing}      # timings: run metadata (summary.json), not results
