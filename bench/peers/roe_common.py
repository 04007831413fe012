"""The Roe flux of examples/cfd/roe_flux.cpp written once over an array namespace, so that the
numpy reference, the JAX peer and the PyTorch peer evaluate the same expression.

roe_flux(ql, qr, s, ops): ql, qr (..., 5) conservative states, s (..., 3) directed area vector
(passive); returns (..., 5) = 0.5 |S| (F(QL).n + F(QR).n - |A| dQ), Roe averages, Harten entropy
fix on the acoustic eigenvalues: delta = 0.1 c, |lambda| < delta -> (lambda^2 + delta^2)/(2 delta).
"""
import numpy as np

GAMMA = 1.4
ENTROPY_FIX = 0.1


class Ops:
    """The few non-operator functions the flux needs, for one array library."""

    def __init__(self, sqrt, abs_, where, stack, less):
        self.sqrt, self.abs, self.where, self.stack, self.less = sqrt, abs_, where, stack, less


NUMPY_OPS = Ops(np.sqrt, np.abs, np.where, lambda xs: np.stack(xs, axis=-1), np.less)
# Complex-step reference: branches and |x| decided on the real part.
COMPLEX_OPS = Ops(np.sqrt, lambda x: np.where(x.real < 0, -x, x), np.where,
                  lambda xs: np.stack(xs, axis=-1), lambda a, b: a.real < b.real)


def _primitive(Q, gamma):
    rho = Q[..., 0]
    inv_rho = 1.0 / rho
    u = [Q[..., 1] * inv_rho, Q[..., 2] * inv_rho, Q[..., 3] * inv_rho]
    kinetic = 0.5 * (Q[..., 1] * u[0] + Q[..., 2] * u[1] + Q[..., 3] * u[2])
    p = (gamma - 1.0) * (Q[..., 4] - kinetic)
    H = (Q[..., 4] + p) * inv_rho
    return rho, u, p, H


def _physical_flux(rho, u, p, H, n):
    qn = u[0] * n[0] + u[1] * n[1] + u[2] * n[2]
    mass = rho * qn
    return [mass, mass * u[0] + p * n[0], mass * u[1] + p * n[1], mass * u[2] + p * n[2], mass * H]


def roe_flux(ql, qr, s, ops=NUMPY_OPS, gamma=GAMMA, entropy_fix=ENTROPY_FIX):
    area = ops.sqrt(s[..., 0] * s[..., 0] + s[..., 1] * s[..., 1] + s[..., 2] * s[..., 2])
    n = [s[..., 0] / area, s[..., 1] / area, s[..., 2] / area]
    rhoL, uL, pL, HL = _primitive(ql, gamma)
    rhoR, uR, pR, HR = _primitive(qr, gamma)

    r = ops.sqrt(rhoR / rhoL)
    wl = 1.0 / (1.0 + r)
    wr = r * wl
    rho = r * rhoL
    u = [uL[k] * wl + uR[k] * wr for k in range(3)]
    H = HL * wl + HR * wr
    q2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2]
    c = ops.sqrt((gamma - 1.0) * (H - 0.5 * q2))
    qn = u[0] * n[0] + u[1] * n[1] + u[2] * n[2]

    drho = rhoR - rhoL
    dp = pR - pL
    du = [uR[k] - uL[k] for k in range(3)]
    dqn = du[0] * n[0] + du[1] * n[1] + du[2] * n[2]

    delta = entropy_fix * c

    def harten(lam):
        a = ops.abs(lam)
        return ops.where(ops.less(a, delta), (a * a + delta * delta) / (2.0 * delta), a)

    l1 = harten(qn - c)
    l2 = ops.abs(qn)
    l3 = harten(qn + c)

    inv_2c2 = 1.0 / (2.0 * c * c)
    a1 = (dp - rho * c * dqn) * inv_2c2
    a2 = drho - dp / (c * c)
    a3 = (dp + rho * c * dqn) * inv_2c2
    shear = [du[k] - n[k] * dqn for k in range(3)]

    s1 = l1 * a1
    s3 = l3 * a3
    s2 = l2 * a2
    s2r = l2 * rho
    diss = [s1 + s2 + s3]
    for k in range(3):
        diss.append(s1 * (u[k] - c * n[k]) + s2 * u[k] + s2r * shear[k] + s3 * (u[k] + c * n[k]))
    udu = u[0] * du[0] + u[1] * du[1] + u[2] * du[2]
    diss.append(s1 * (H - c * qn) + s2 * (0.5 * q2) + s2r * (udu - qn * dqn) + s3 * (H + c * qn))

    fl = _physical_flux(rhoL, uL, pL, HL, n)
    fr = _physical_flux(rhoR, uR, pR, HR, n)
    return ops.stack([0.5 * area * (fl[k] + fr[k] - diss[k]) for k in range(5)])


def euler_flux(Q, n, gamma=GAMMA):
    rho, u, p, H = _primitive(Q, gamma)
    return np.stack(_physical_flux(rho, u, p, H, [n[..., 0], n[..., 1], n[..., 2]]), axis=-1)


def fd_jacobians(ql, qr, s, h_rel=1e-6):
    """Central-difference dF/dQL, dF/dQR (E, 5, 5) with numpy (reference for the peers)."""
    ql = np.asarray(ql, dtype=np.float64)
    qr = np.asarray(qr, dtype=np.float64)
    JL = np.empty(ql.shape[:-1] + (5, 5))
    JR = np.empty_like(JL)
    for j in range(5):
        for q, J, left in ((ql, JL, True), (qr, JR, False)):
            h = h_rel * np.maximum(np.abs(q[..., j]), 1.0)
            qp = q.copy()
            qm = q.copy()
            qp[..., j] += h
            qm[..., j] -= h
            fp = roe_flux(qp, qr, s) if left else roe_flux(ql, qp, s)
            fm = roe_flux(qm, qr, s) if left else roe_flux(ql, qm, s)
            J[..., :, j] = (fp - fm) / (2.0 * h[..., None])
    return JL, JR


def cs_jacobians(ql, qr, s, h=1e-30):
    """Complex-step dF/dQL, dF/dQR (E, 5, 5): exact to round-off (the 1e-9 reference)."""
    ql = np.asarray(ql, dtype=np.complex128)
    qr = np.asarray(qr, dtype=np.complex128)
    s = np.asarray(s, dtype=np.float64)
    JL = np.empty(ql.shape[:-1] + (5, 5))
    JR = np.empty_like(JL)
    for j in range(5):
        qp = ql.copy()
        qp[..., j] += 1j * h
        JL[..., :, j] = roe_flux(qp, qr, s, COMPLEX_OPS).imag / h
        qp = qr.copy()
        qp[..., j] += 1j * h
        JR[..., :, j] = roe_flux(ql, qp, s, COMPLEX_OPS).imag / h
    return JL, JR


def sonic_states(count=50, gamma=GAMMA):
    """Edges whose Roe-averaged normal velocity is near the speed of sound, so the entropy fix
    branch is taken (the mesh states never reach it). Returns ql, qr (count, 5), s (count, 3)."""
    t = np.arange(count)
    s = np.stack([0.3 + 0.01 * t, -0.2 + 0 * t, 0.5 + 0 * t], axis=1).astype(np.float64)
    n = s / np.linalg.norm(s, axis=1, keepdims=True)
    qs = []
    for side in range(2):
        rho = 1.0 + 0.05 * side + 0.002 * t
        p = (1.0 - 0.03 * side) + 0 * t
        c = np.sqrt(gamma * p / rho)
        un = (0.93 + 0.003 * t + 0.01 * side) * c
        u = un[:, None] * n + np.array([0.01, 0.0, -0.02])
        q = np.empty((count, 5))
        q[:, 0] = rho
        q[:, 1:4] = rho[:, None] * u
        q[:, 4] = p / (gamma - 1) + 0.5 * rho * np.sum(u * u, axis=1)
        qs.append(q)
    return qs[0], qs[1], s


def reference_rows(mesh, bcsr, n_sample=300):
    """Complex-step reference of the assembled rows of n_sample nodes spread over the mesh:
    returns nodes, Adiag_ref (k,5,5), off_slots, Aoff_ref (b,5,5), R_ref (k,5) and scales."""
    n = mesh.n_nodes
    nodes = np.unique(np.linspace(0, n - 1, num=min(n_sample, n)).astype(np.int64))
    is_sample = np.zeros(n, dtype=bool)
    is_sample[nodes] = True
    pos = np.full(n, -1, dtype=np.int64)
    pos[nodes] = np.arange(nodes.size)
    v0 = mesh.edges[:, 0].astype(np.int64)
    v1 = mesh.edges[:, 1].astype(np.int64)
    inc = np.nonzero(is_sample[v0] | is_sample[v1])[0]
    a, b = v0[inc], v1[inc]
    ql, qr, s = mesh.Q[a], mesh.Q[b], mesh.area[inc]
    JL, JR = cs_jacobians(ql, qr, s)
    F = roe_flux(ql, qr, s)
    Ad = np.zeros((nodes.size, 5, 5))
    R = np.zeros((nodes.size, 5))
    m0, m1 = is_sample[a], is_sample[b]
    np.add.at(Ad, pos[a[m0]], JL[m0])
    np.add.at(Ad, pos[b[m1]], -JR[m1])
    np.add.at(R, pos[a[m0]], F[m0])
    np.add.at(R, pos[b[m1]], -F[m1])
    slots = np.concatenate([bcsr.slot01[inc[m0]], bcsr.slot10[inc[m1]]])
    Ao = np.concatenate([JR[m0], -JL[m1]])
    expected = int(np.sum(bcsr.row_ptr[nodes + 1] - bcsr.row_ptr[nodes]))
    assert slots.size == expected, (slots.size, expected)
    # Scales: the largest contribution to each row (cancellation in the sums is expected).
    ad_scale = np.zeros(nodes.size)
    np.maximum.at(ad_scale, pos[a[m0]], np.abs(JL[m0]).max(axis=(1, 2)))
    np.maximum.at(ad_scale, pos[b[m1]], np.abs(JR[m1]).max(axis=(1, 2)))
    r_scale = np.zeros(nodes.size)
    np.maximum.at(r_scale, pos[a[m0]], np.abs(F[m0]).max(axis=1))
    np.maximum.at(r_scale, pos[b[m1]], np.abs(F[m1]).max(axis=1))
    return dict(nodes=nodes, Adiag=Ad, ad_scale=ad_scale, slots=slots, Aoff=Ao, R=R, r_scale=r_scale)


def check_assembled(ref, Adiag_rows, Aoff_blocks, R_rows=None):
    """Adiag_rows = Adiag[ref['nodes']], Aoff_blocks = Aoff[ref['slots']], R_rows = R[nodes]
    (numpy, gathered by the caller). Returns (pass, message)."""
    e_d = float(np.max(np.abs(Adiag_rows - ref["Adiag"]).max(axis=(1, 2)) / ref["ad_scale"]))
    Ao = np.asarray(Aoff_blocks, dtype=np.float64)
    blk = np.abs(ref["Aoff"]).max(axis=(1, 2))
    e_o = float(np.max(np.abs(Ao - ref["Aoff"]).max(axis=(1, 2)) / blk))
    ok = e_d < 1e-9 and e_o < 1e-6 and np.all(np.isfinite(Adiag_rows)) and np.all(np.isfinite(Ao))
    msg = (f"assembled rows of {ref['nodes'].size} nodes vs complex-step: Adiag (fp64) max rel err "
           f"{e_d:.2e}, Aoff (fp32, {ref['slots'].size} blocks) {e_o:.2e}")
    if R_rows is not None:
        e_r = float(np.max(np.abs(R_rows - ref["R"]).max(axis=1) / ref["r_scale"]))
        ok = ok and e_r < 1e-9
        msg += f", residual {e_r:.2e}"
    return ok, msg + ("  PASS" if ok else "  FAIL")


def rel_err(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def sample_edges(n_edges, k=1000):
    return np.unique(np.linspace(0, n_edges - 1, num=min(k, n_edges)).astype(np.int64))
