// Every op's first and second derivatives from the reference duals, against complex-step
// differences (analytic ops) or central differences (non-smooth ops, away from kinks), at
// random points.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <functional>
#include <random>

#include "dsl/reference_evaluator.h"

using namespace dualjit;

namespace {

using Cx = std::complex<double>;
using DC = Dual<Cx>;

struct OpCase {
  const char* name;
  std::function<Expr(const Expr&, const Expr&)> f;
  double lo_u, hi_u, lo_w, hi_w;  // sampling box for (u, w)
  bool analytic;
};

// u = x0 + 0.3 x1, w = x1 - 0.4 x0 couple both inputs into every operand, so that mixed
// second derivatives are non-zero.
Kernel make_kernel(const OpCase& c) {
  return Kernel(c.name, [&](KernelBuilder& kb) {
    auto x = kb.input("x", 2);
    auto p = kb.param("p", 1);
    Expr s = kb.uniform("s");
    Expr u = x[0] + 0.3 * x[1];
    Expr w = x[1] - 0.4 * x[0];
    kb.output("f", p[0] * c.f(u, w) + s);
  });
}

std::array<double, 2> x_of(double u, double w) {
  return {(u - 0.3 * w) / 1.12, (w + 0.4 * u) / 1.12};
}

double rel_err(double a, double b) {
  return std::abs(a - b) / std::max(1.0, std::abs(b));
}

const std::vector<OpCase>& cases() {
  static const std::vector<OpCase> c = {
      {"add", [](auto& u, auto& w) { return u + w; }, -2, 2, -2, 2, true},
      {"sub", [](auto& u, auto& w) { return u - w; }, -2, 2, -2, 2, true},
      {"mul", [](auto& u, auto& w) { return u * w; }, -2, 2, -2, 2, true},
      {"div", [](auto& u, auto& w) { return u / w; }, -2, 2, 0.5, 2, true},
      {"neg", [](auto& u, auto& w) { return -(u * w); }, -2, 2, -2, 2, true},
      {"sqrt", [](auto& u, auto& w) { return sqrt(u) * w; }, 0.3, 3, -2, 2, true},
      {"cbrt+", [](auto& u, auto& w) { return cbrt(u * w); }, 0.3, 3, 0.3, 2, true},
      {"cbrt-", [](auto& u, auto& w) { return cbrt(u * w); }, 0.3, 3, -2, -0.3, true},
      {"exp", [](auto& u, auto& w) { return exp(u * w); }, -1, 1, -1, 1, true},
      {"log", [](auto& u, auto& w) { return log(u) * w; }, 0.3, 3, -2, 2, true},
      {"log10", [](auto& u, auto& w) { return log10(u * w); }, 0.3, 3, 0.3, 2, true},
      {"sin", [](auto& u, auto& w) { return sin(u * w); }, -2, 2, -2, 2, true},
      {"cos", [](auto& u, auto& w) { return cos(u * w); }, -2, 2, -2, 2, true},
      {"tan", [](auto& u, auto& w) { return tan(u * w); }, -1, 1, -1, 1, true},
      {"atan", [](auto& u, auto& w) { return atan(u * w); }, -2, 2, -2, 2, true},
      {"tanh", [](auto& u, auto& w) { return tanh(u * w); }, -2, 2, -2, 2, true},
      {"sinh", [](auto& u, auto& w) { return sinh(u * w); }, -2, 2, -1, 1, true},
      {"cosh", [](auto& u, auto& w) { return cosh(u * w); }, -2, 2, -1, 1, true},
      {"pow", [](auto& u, auto& w) { return pow(u, w); }, 0.3, 3, -2, 2, true},
      {"pow_const", [](auto& u, auto& w) { return pow(u, 2.5) * w; }, 0.3, 3, -2, 2, true},
      {"pow_int", [](auto& u, auto& w) { return pow(u, 5.0) + pow(w, -3.0); }, -2, 2, 0.5, 2, true},
      {"pow_base", [](auto& u, auto& w) { return pow(2.0, u * w); }, -2, 2, -2, 2, true},
      {"atan2_q1", [](auto& u, auto& w) { return atan2(u, w); }, 0.2, 2, 0.2, 2, true},
      {"atan2_q2", [](auto& u, auto& w) { return atan2(u, w); }, 0.2, 2, -2, -0.2, true},
      {"atan2_q3", [](auto& u, auto& w) { return atan2(u, w); }, -2, -0.2, -2, -0.2, true},
      {"abs", [](auto& u, auto& w) { return abs(u) * w; }, -2, 2, -2, 2, false},
      {"min", [](auto& u, auto& w) { return min(u * u, w); }, -2, 2, -2, 2, false},
      {"max", [](auto& u, auto& w) { return max(u * u, w); }, -2, 2, -2, 2, false},
      {"sign", [](auto& u, auto& w) { return sign(u) * w * w; }, -2, 2, -2, 2, false},
      {"select", [](auto& u, auto& w) { return select(u < w, u * w, u + w * w); }, -2, 2, -2, 2,
       false},
      {"compare", [](auto& u, auto& w) { return (u >= w) * u + (u <= w) * w; }, -2, 2, -2, 2,
       false},
  };
  return c;
}

bool near_kink(double u, double w) {
  return std::abs(u) < 1e-3 || std::abs(w) < 1e-3 || std::abs(u - w) < 1e-3 ||
         std::abs(u * u - w) < 1e-3;
}

}  // namespace

TEST_CASE("every op: first and second derivatives match complex-step or central differences") {
  std::mt19937_64 rng(20261122);
  for (const OpCase& c : cases()) {
    CAPTURE(c.name);
    const Kernel k = make_kernel(c);
    std::uniform_real_distribution<double> du(c.lo_u, c.hi_u), dw(c.lo_w, c.hi_w), dp(0.5, 2.0);
    int checked = 0;
    for (int trial = 0; trial < 6; ++trial) {
      const double u = du(rng), w = dw(rng);
      if (!c.analytic && near_kink(u, w)) continue;
      const auto x = x_of(u, w);
      const double p = dp(rng), s = dp(rng);
      const double params[1] = {p}, uniforms[1] = {s};
      ElementArgs args{x, params, uniforms};
      const auto jac = evaluate_jacobian(k, args, 2);
      const auto hes = evaluate_hessian(k, args);
      REQUIRE(jac.values.size() == 1);
      CHECK(rel_err(hes.value, jac.values[0]) == 0.0);
      for (int j = 0; j < 2; ++j) {
        CAPTURE(j);
        double fd;
        std::array<double, 2> fd_hess_row{};
        if (c.analytic) {
          // Complex step: exact to round-off, no subtractive cancellation.
          const double h = 1e-30;
          std::array<Cx, 2> xc = {x[0], x[1]};
          xc[j] += Cx(0.0, h);
          fd = evaluate_graph<Cx>(k, xc, params, uniforms)[0].imag() / h;
          // Second derivatives: complex step of the dual gradient.
          std::array<DC, 2> xd;
          for (int i = 0; i < 2; ++i) xd[i] = DC(Cx(x[i], i == j ? h : 0.0), {{i, Cx(1.0)}});
          const DC g = evaluate_graph<DC>(k, xd, params, uniforms)[0];
          for (int i = 0; i < 2; ++i) fd_hess_row[i] = g.d(i).imag() / h;
        } else {
          const double h = 1e-6;
          auto at = [&](double delta) {
            std::array<double, 2> xp = x;
            xp[j] += delta;
            return xp;
          };
          const auto xp = at(h), xm = at(-h);
          fd = (evaluate_values(k, {xp, params, uniforms})[0] -
                evaluate_values(k, {xm, params, uniforms})[0]) /
               (2 * h);
          const auto gp = evaluate_jacobian(k, {xp, params, uniforms}, 2).jacobian;
          const auto gm = evaluate_jacobian(k, {xm, params, uniforms}, 2).jacobian;
          for (int i = 0; i < 2; ++i) fd_hess_row[i] = (gp[i] - gm[i]) / (2 * h);
        }
        const double tol1 = c.analytic ? 1e-12 : 1e-7;
        const double tol2 = c.analytic ? 1e-11 : 1e-5;
        CHECK(rel_err(jac.jacobian[j], fd) < tol1);
        CHECK(rel_err(hes.gradient[j], fd) < tol1);
        for (int i = 0; i < 2; ++i) {
          CAPTURE(i);
          CHECK(rel_err(hes.hessian[j * 2 + i], fd_hess_row[i]) < tol2);
        }
      }
      ++checked;
    }
    CHECK(checked >= 3);
  }
}

TEST_CASE("derivative conventions at kinks are the documented ones") {
  // abs'(0) = 0; min/max take the first argument on ties; select follows its branch.
  const Kernel k("kinks", [](KernelBuilder& kb) {
    auto x = kb.input("x", 2);
    kb.output("f", {abs(x[0]), min(x[0], x[1]), max(x[1], x[0]), sign(x[0]) + x[1]});
  });
  const double x[2] = {0.0, 0.0};
  const auto j = evaluate_jacobian(k, {x, {}, {}}, 2);
  CHECK(j.jacobian == std::vector<double>{0, 0, 1, 0, 0, 1, 0, 1});
}
