#include "examples/cfd/roe_flux.h"

namespace dualjit::cfd {
namespace {

struct Primitive {
  Expr rho, p, H;
  Vec<3> u;
};

Primitive primitive(const std::vector<Expr>& Q, const Expr& gamma) {
  Primitive w;
  w.rho = Q[0];
  const Expr inv_rho = 1.0 / Q[0];
  w.u = Vec<3>({Q[1] * inv_rho, Q[2] * inv_rho, Q[3] * inv_rho});
  const Expr kinetic = 0.5 * (Q[1] * w.u[0] + Q[2] * w.u[1] + Q[3] * w.u[2]);
  w.p = (gamma - 1.0) * (Q[4] - kinetic);
  w.H = (Q[4] + w.p) * inv_rho;
  return w;
}

std::vector<Expr> physical_flux(const Primitive& w, const Vec<3>& n) {
  const Expr qn = dot(w.u, n);
  const Expr mass = w.rho * qn;
  return {mass, mass * w.u[0] + w.p * n[0], mass * w.u[1] + w.p * n[1], mass * w.u[2] + w.p * n[2],
          mass * w.H};
}

// Harten's fix: smooth and bounded away from zero near sonic points.
Expr harten(const Expr& lambda, const Expr& delta) {
  const Expr a = abs(lambda);
  return select(a < delta, (a * a + delta * delta) / (2.0 * delta), a);
}

}  // namespace

std::vector<Expr> euler_flux(const std::vector<Expr>& Q, const Vec<3>& n, const Expr& gamma) {
  return physical_flux(primitive(Q, gamma), n);
}

std::vector<Expr> roe_flux(const std::vector<Expr>& QL, const std::vector<Expr>& QR,
                           const Vec<3>& S, const Expr& gamma, double entropy_fix) {
  const Expr area = norm(S);
  const Vec<3> n = S / area;
  const Primitive L = primitive(QL, gamma), R = primitive(QR, gamma);

  // Roe averages.
  const Expr r = sqrt(R.rho / L.rho);
  const Expr wl = 1.0 / (1.0 + r), wr = r * wl;
  const Expr rho = r * L.rho;
  const Vec<3> u = L.u * wl + R.u * wr;
  const Expr H = L.H * wl + R.H * wr;
  const Expr q2 = dot(u, u);
  const Expr c = sqrt((gamma - 1.0) * (H - 0.5 * q2));
  const Expr qn = dot(u, n);

  // Jumps.
  const Expr drho = R.rho - L.rho, dp = R.p - L.p;
  const Vec<3> du = R.u - L.u;
  const Expr dqn = dot(du, n);

  // Eigenvalues with the entropy fix on the acoustic waves.
  const Expr delta = entropy_fix * c;
  const Expr l1 = harten(qn - c, delta), l2 = abs(qn), l3 = harten(qn + c, delta);

  // Wave strengths.
  const Expr inv_2c2 = 1.0 / (2.0 * c * c);
  const Expr a1 = (dp - rho * c * dqn) * inv_2c2;
  const Expr a2 = drho - dp / (c * c);
  const Expr a3 = (dp + rho * c * dqn) * inv_2c2;
  const Vec<3> shear = du - n * dqn;

  const Expr s1 = l1 * a1, s3 = l3 * a3, s2 = l2 * a2, s2r = l2 * rho;
  std::vector<Expr> diss(5);
  diss[0] = s1 + s2 + s3;
  for (int k = 0; k < 3; ++k) {
    diss[1 + k] = s1 * (u[k] - c * n[k]) + s2 * u[k] + s2r * shear[k] + s3 * (u[k] + c * n[k]);
  }
  diss[4] = s1 * (H - c * qn) + s2 * (0.5 * q2) + s2r * (dot(u, du) - qn * dqn) + s3 * (H + c * qn);

  const auto fl = physical_flux(L, n), fr = physical_flux(R, n);
  std::vector<Expr> F(5);
  for (int k = 0; k < 5; ++k) F[k] = 0.5 * area * (fl[k] + fr[k] - diss[k]);
  return F;
}

Kernel roe_flux_kernel() {
  return Kernel("roe_flux", [](KernelBuilder& kb) {
    const auto QL = kb.input("QL", 5);
    const auto QR = kb.input("QR", 5);
    const auto S = kb.param_vec<3>("S");
    const Expr gamma = kb.uniform("gamma");
    kb.output("F", roe_flux(QL, QR, S, gamma));
  });
}

}  // namespace dualjit::cfd
