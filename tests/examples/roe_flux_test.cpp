// The Roe flux's defining properties, on random states and normals.
#include <doctest/doctest.h>

#include <random>

#include "dsl/reference_evaluator.h"
#include "examples/cfd/roe_flux.h"

using namespace dualjit;

namespace {

std::vector<double> random_state(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  const double rho = 1.0 + 0.5 * d(rng);
  const double u = 0.8 * d(rng), v = 0.8 * d(rng), w = 0.8 * d(rng), p = 1.0 + 0.5 * d(rng);
  return {rho, rho * u, rho * v, rho * w, p / 0.4 + 0.5 * rho * (u * u + v * v + w * w)};
}

}  // namespace

TEST_CASE("Roe flux: consistency F(Q, Q, S) = |S| * physical flux") {
  const Kernel roe = cfd::roe_flux_kernel();
  const Kernel phys("euler_flux", [](KernelBuilder& kb) {
    auto q = kb.input("Q", 5);
    auto s = kb.param_vec<3>("S");
    Expr g = kb.uniform("gamma");
    auto f = cfd::euler_flux(q, s / norm(s), g);
    for (auto& c : f) c = c * norm(s);
    kb.output("F", f);
  });
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (int trial = 0; trial < 50; ++trial) {
    const auto q = random_state(rng);
    const std::vector<double> s = {d(rng), d(rng), d(rng)}, gamma = {1.4};
    std::vector<double> qq = q;
    qq.insert(qq.end(), q.begin(), q.end());
    const auto f = evaluate_values(roe, {qq, s, gamma});
    const auto ref = evaluate_values(phys, {q, s, gamma});
    for (int k = 0; k < 5; ++k) CHECK(f[k] == doctest::Approx(ref[k]).epsilon(1e-13).scale(1.0));
  }
}

TEST_CASE("Roe flux: F(QL, QR, S) = -F(QR, QL, -S)") {
  const Kernel roe = cfd::roe_flux_kernel();
  std::mt19937_64 rng(32);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (int trial = 0; trial < 50; ++trial) {
    const auto ql = random_state(rng), qr = random_state(rng);
    const std::vector<double> s = {d(rng), d(rng), d(rng)}, ms = {-s[0], -s[1], -s[2]};
    const std::vector<double> gamma = {1.4};
    std::vector<double> lr = ql, rl = qr;
    lr.insert(lr.end(), qr.begin(), qr.end());
    rl.insert(rl.end(), ql.begin(), ql.end());
    const auto f = evaluate_values(roe, {lr, s, gamma});
    const auto g = evaluate_values(roe, {rl, ms, gamma});
    for (int k = 0; k < 5; ++k) CHECK(f[k] == doctest::Approx(-g[k]).epsilon(1e-13).scale(1.0));
  }
}
