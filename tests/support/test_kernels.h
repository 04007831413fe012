// Kernels every backend is checked on: a Roe flux (10 inputs, vector output), a spring
// energy (Hessians), an Arrhenius-type rate law, plus random graphs (random_kernel.h).
#pragma once

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "dsl/kernel.h"
#include "examples/cfd/roe_flux.h"

namespace dualjit::test {

inline Kernel spring_kernel() {
  return Kernel("spring", [](KernelBuilder& kb) {
    auto xa = kb.input_vec<3>("xa");
    auto xb = kb.input_vec<3>("xb");
    auto rest = kb.param("rest", 1);
    Expr k = kb.uniform("k");
    Expr stretch = norm(xa - xb) / rest[0] - 1.0;
    kb.output("energy", 0.5 * k * rest[0] * stretch * stretch);
  });
}

// Two reversible reactions A + B <-> C, 2C -> A + B over (T, cA, cB, cC), modified
// Arrhenius forward rates, equilibrium-constant reverse rate.
inline Kernel arrhenius_kernel() {
  return Kernel("arrhenius", [](KernelBuilder& kb) {
    auto y = kb.input("state", 4);
    auto coef = kb.param("coef", 3);
    Expr pressure = kb.uniform("p");
    const Expr T = y[0], a = y[1], b = y[2], c = y[3];
    const Expr inv_rt = 1.0 / (8.314 * T);
    const Expr k1 = coef[0] * pow(T, 0.7) * exp(-30000.0 * inv_rt);
    const Expr keq = exp(coef[1] - 5000.0 * inv_rt) * pressure;
    const Expr k2 = coef[2] * sqrt(T) * exp(-12000.0 * inv_rt);
    const Expr r1 = k1 * (a * b - c / keq);
    const Expr r2 = k2 * c * c;
    kb.output("wdot", {-r1 + r2, -r1 + r2, r1 - 2.0 * r2});
  });
}

// One output per rewrite of dsl/normalize.h (negations moved out of sums, products,
// quotients, selects and abs; constant factors combined), and comparisons both as predicates
// that only selects read and as 0/1 values used as numbers. Built unsimplified
// (options.simplify = false) it is the reference the normalised kernel must equal.
inline Kernel negations_kernel(GraphOptions options = {}) {
  return Kernel(
      "negations",
      [](KernelBuilder& kb) {
        auto x = kb.input("x", 4);
        auto p = kb.param("p", 1);
        const Expr u = kb.uniform("u");
        const Expr a = x[0] * x[1] + p[0], b = sin(x[2]) * x[3], c = x[1] - u;
        const Expr d = 1.0 + x[3] * x[3];
        const Expr na = -a, nb = -b;
        kb.output("f", {na + nb, a + nb, na + b, a - nb, na - b, na - nb, na * b + a * nb * c,
                        na * nb, na / d + a / -d + na / -d, select(a < b, na, nb) + abs(nb),
                        (a + a) * 0.5 * c + (nb + nb) * c,
                        3.0 * (2.0 * b) + 0.25 * (3.0 * c) + 3.0 * (3.0 * a), a / 4.0 + b / 3.0,
                        a + (-2.0) * c + (c - (-0.5)), (a > c) * b + select(x[0] >= x[1], a * b, c),
                        min(na, nb) + max(a, nb)});
      },
      options);
}

// A density-like intermediate of every input entering every output (as rho does in a rate
// law): s of all six inputs, t of s and x0 (a cut of a cut), outputs of x_k, s and t; with
// `cuts`, s and t are cut() (dsl/expr.h), else plain. Vector output, or with `energy` the
// scalar sum of squares (gradient, Hessian, HVP).
inline Kernel cut_kernel(bool cuts, bool energy = false) {
  return Kernel(std::string(energy ? "cut_energy" : "cut_rates") + (cuts ? "_cut" : "_plain"),
                [cuts, energy](KernelBuilder& kb) {
                  auto x = kb.input("x", 6);
                  auto w = kb.param("w", 1);
                  Expr s = x[0] * x[0] + x[1] * x[2] + exp(0.5 * x[3]) + x[4] + 0.3 * x[5];
                  if (cuts) s = cut(s);
                  Expr t = s * x[0] + sin(s) + w[0];
                  if (cuts) t = cut(t);
                  std::vector<Expr> y;
                  for (int k = 0; k < 6; ++k)
                    y.push_back(x[k] * s + exp(0.1 * t * x[k]) + (k % 2 ? t : x[k] * x[k]));
                  if (!energy) {
                    kb.output("y", y);
                    return;
                  }
                  Expr e = y[0] * y[0];
                  for (int k = 1; k < 6; ++k) e = e + y[k] * y[k];
                  kb.output("e", e);
                });
}

// A small mechanism whose rates of progress are tapes (dsl/expr.h tape()) when `tapes`: state
// (T, y1..y5), concentrations through a density-like cut of every y, seven reactions whose
// progress q_r reads two or three species; rows: each species' net rate (sums of q_r), a
// heat-release-like row (T-dependent weights of every q_r), a row nonlinear in the q_r
// (values and tangents of a tape both read), and a tape computed from another tape.
inline Kernel tape_kernel(bool tapes) {
  return Kernel(
      std::string("tape_mechanism") + (tapes ? "_tapes" : "_plain"), [tapes](KernelBuilder& kb) {
        auto x = kb.input("x", 6);
        auto coef = kb.param("coef", 2);
        const Expr T = x[0];
        const auto mark = [tapes](const Expr& e) { return tapes ? tape(e) : e; };
        const Expr s = cut(1.0 / (x[1] + x[2] + x[3] + x[4] + x[5]));
        std::vector<Expr> c;
        for (int k = 1; k <= 5; ++k) c.push_back(s * x[k]);
        const int reactants[7][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {0, 2}, {1, 3}};
        const int products[7] = {2, 3, 4, 0, 1, 4, 0};
        std::vector<Expr> q;
        for (int r = 0; r < 7; ++r) {
          const Expr kf = coef[0] * exp(-(0.3 + 0.1 * r) / T) * pow(T, 0.1 * r);
          const Expr kr = coef[1] * exp(-0.2 / T);
          q.push_back(mark(kf * c[reactants[r][0]] * c[reactants[r][1]] - kr * c[products[r]]));
        }
        // A tape of a tape: through q_0's own tangent.
        q.push_back(mark(q[0] * x[2] + sin(T) * c[4]));
        std::vector<Expr> rows(5);
        const auto add = [&rows](int k, const Expr& e) {
          rows[k] = rows[k].valid() ? rows[k] + e : e;
        };
        for (int r = 0; r < 7; ++r) {
          add(reactants[r][0], -q[r]);
          add(reactants[r][1], -q[r]);
          add(products[r], q[r]);
        }
        add(2, 0.5 * q[7]);
        Expr heat = q[0] * (1.0 + 0.01 * T);
        for (int r = 1; r < 8; ++r) heat = heat + q[r] * (0.5 * r + log(T));
        rows.push_back(heat / T);
        rows.push_back(q[1] * q[2] + exp(0.1 * q[3]) * s);
        kb.output("wdot", rows);
      });
}

// A rate law of `n` reactions among five species with tapes, as tape_kernel, whose tape chunk
// is large enough to call its specials out of line and so read its fp64 constants from tables
// (jit/constant_tables.h): each rate constant's coefficients are no fp64 immediates, and one
// is picked by T's range from two constants, as the NASA polynomials' are. Without tapes, the
// same function.
inline Kernel large_tape_kernel(bool tapes = true, int n = 200) {
  return Kernel(std::string("large_tape_mechanism") + (tapes ? "_tapes" : "_plain"),
                [tapes, n](KernelBuilder& kb) {
                  auto x = kb.input("x", 6);
                  const Expr T = x[0], log_T = log(T), high = T > 1000.0;
                  const Expr s = cut(1.0 / (x[1] + x[2] + x[3] + x[4] + x[5]));
                  std::vector<Expr> c;
                  for (int k = 1; k <= 5; ++k) c.push_back(s * x[k]);
                  std::vector<Expr> rows(5);
                  const auto add = [&rows](int k, const Expr& e) {
                    rows[k] = rows[k].valid() ? rows[k] + e : e;
                  };
                  for (int r = 0; r < n; ++r) {
                    // Rate constants of order one: the rows' sums keep their digits.
                    const Expr a = select(high, T.constant(0.11 + 0.0013 * r), 0.07 - 0.0017 * r);
                    const Expr kf = exp((0.05 + 0.0013 * r) * log_T - (123.45 + 1.73 * r) / T + a);
                    const Expr kr = exp(0.3 * a - (0.021 + 0.0011 * r) * log_T);
                    const int i = r % 5, j = (r + 1) % 5, k = (r + 3) % 5;
                    const Expr rate = kf * c[i] * c[j] - kr * c[k];
                    const Expr q = tapes ? tape(rate) : rate;
                    add(i, -q);
                    add(j, -q);
                    add(k, q);
                  }
                  kb.output("wdot", rows);
                });
}

// Random but valid element data for a kernel: positive densities and energies for the
// Roe flux, temperatures around 1500 K for the rate law, generic values otherwise.
struct KernelData {
  std::function<double(int input, std::mt19937_64&)> input;
  std::function<double(int param, std::mt19937_64&)> param;
  std::vector<double> uniforms;
};

inline KernelData data_for(const std::string& kernel_name) {
  using R = std::mt19937_64;
  auto uni = [](double lo, double hi) {
    return [lo, hi](int, R& r) { return std::uniform_real_distribution<double>(lo, hi)(r); };
  };
  if (kernel_name == "roe_flux") {
    return {[](int i, R& r) {
              std::uniform_real_distribution<double> d(-0.3, 0.3);
              const int k = i % 5;
              if (k == 0) return 1.0 + d(r);  // rho
              if (k == 4) return 2.5 + d(r);  // E: keeps pressure positive
              return 0.3 * d(r) + 0.2;        // momenta
            },
            uni(-1.0, 1.0),
            {1.4}};
  }
  if (kernel_name == "arrhenius") {
    return {[](int i, R& r) {
              return i == 0 ? std::uniform_real_distribution<double>(1200, 1800)(r)
                            : std::uniform_real_distribution<double>(0.1, 1.0)(r);
            },
            [](int i, R& r) {
              return i == 1 ? std::uniform_real_distribution<double>(1.0, 3.0)(r)
                            : std::uniform_real_distribution<double>(1e3, 1e4)(r);
            },
            {1.3}};
  }
  if (kernel_name == "spring") return {uni(-1.0, 1.0), uni(0.5, 1.5), {50.0}};
  if (kernel_name.starts_with("tape_mechanism"))  // T around 1.5, positive amounts
    return {[](int i, R& r) {
              return std::uniform_real_distribution<double>(i == 0 ? 1.0 : 0.1,
                                                            i == 0 ? 2.0 : 1.0)(r);
            },
            uni(0.5, 2.0),
            {}};
  if (kernel_name.starts_with("large_tape_mechanism"))  // T on both sides of 1000 K
    return {[](int i, R& r) {
              return std::uniform_real_distribution<double>(i == 0 ? 700.0 : 0.1,
                                                            i == 0 ? 1300.0 : 1.0)(r);
            },
            uni(0.5, 2.0),
            {}};
  return {uni(-1.0, 1.0), uni(-1.0, 1.0), {0.7}};
}

// One element's random inputs and params for `k`, drawn from data_for(k.name()).
struct ElementPoint {
  std::vector<double> inputs, params;
};
inline ElementPoint random_point(const Kernel& k, std::mt19937_64& rng) {
  const KernelData data = data_for(k.name());
  ElementPoint pt;
  for (int i = 0; i < k.n_inputs(); ++i) pt.inputs.push_back(data.input(i, rng));
  for (int i = 0; i < k.n_params(); ++i) pt.params.push_back(data.param(i, rng));
  return pt;
}

}  // namespace dualjit::test
