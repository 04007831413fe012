#include "examples/kinetics/chebyshev_rate.h"

#include <cmath>

namespace dualjit::kinetics {
namespace {

constexpr double kLn10 = 2.302585092994045684;

// T_0(x) .. T_{n-1}(x) by the recurrence T_{j+1} = 2 x T_j - T_{j-1}.
std::vector<Expr> chebyshev_polynomials(const Expr& x, size_t n) {
  std::vector<Expr> T;
  for (size_t j = 0; j < n; ++j) {
    if (j == 0)
      T.push_back(x.constant(1.0));
    else if (j == 1)
      T.push_back(x);
    else
      T.push_back(2.0 * x * T[j - 1] - T[j - 2]);
  }
  return T;
}

}  // namespace

RateConstant chebyshev_rate(const Reaction& r, const RateContext& context, size_t index) {
  const Chebyshev& c = r.chebyshev;
  if (c.data.empty() || c.data[0].empty())
    throw MechanismError(reaction_label(*context.mechanism, index) + ": data: empty");
  const double t_num = -1.0 / c.t_min - 1.0 / c.t_max;
  const double t_den = 1.0 / (1.0 / c.t_max - 1.0 / c.t_min);
  const double p_num = -std::log10(c.p_min) - std::log10(c.p_max);
  const double p_den = 1.0 / (std::log10(c.p_max) - std::log10(c.p_min));
  const Expr Tr = (2.0 * context.t.inv_T + t_num) * t_den;
  const Expr Pr = (2.0 * context.log10_p + p_num) * p_den;
  const auto Tn = chebyshev_polynomials(Tr, c.data.size());
  const auto Pn = chebyshev_polynomials(Pr, c.data[0].size());
  Expr log10_k;
  for (size_t i = 0; i < c.data.size(); ++i) {
    // Pressure sum first, as Cantera: a function of p alone, shared by every T term.
    Expr row = Pr.constant(c.data[i][0]);
    for (size_t j = 1; j < c.data[i].size(); ++j) row = row + c.data[i][j] * Pn[j];
    log10_k = i == 0 ? row : log10_k + Tn[i] * row;
  }
  const Expr log_k = kLn10 * log10_k;
  return {exp(log_k), log_k};
}

}  // namespace dualjit::kinetics
