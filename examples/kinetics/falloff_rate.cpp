#include "examples/kinetics/falloff_rate.h"

#include <cmath>

#include "examples/kinetics/arrhenius_rate.h"

namespace dualjit::kinetics {
namespace {

constexpr double kSmallNumber = 1e-300;  // Cantera's SmallNumber
constexpr double kLn10 = 2.302585092994045684;

Expr pow10(const Expr& x) {
  return exp(kLn10 * x);
}

Expr troe(const Falloff& f, const Expr& Pr, const TemperatureTerms& t) {
  // A T3 or T1 of zero makes its term vanish (Cantera sets 1/T to infinity).
  Expr Fcent = t.T.constant(0.0);
  if (std::abs(f.troe_T3) >= kSmallNumber)
    Fcent = Fcent + (1.0 - f.troe_A) * exp(t.T * (-1.0 / f.troe_T3));
  if (std::abs(f.troe_T1) >= kSmallNumber) Fcent = Fcent + f.troe_A * exp(t.T * (-1.0 / f.troe_T1));
  if (f.troe_has_t2 && f.troe_T2 != 0.0) Fcent = Fcent + exp(-f.troe_T2 * t.inv_T);
  const Expr log_Fcent = log10(max(Fcent, t.T.constant(kSmallNumber)));
  const Expr lpr = log10(max(Pr, Pr.constant(kSmallNumber)));
  const Expr cc = -0.4 - 0.67 * log_Fcent;
  const Expr nn = 0.75 - 1.27 * log_Fcent;
  const Expr f1 = (lpr + cc) / (nn - 0.14 * (lpr + cc));
  return pow10(log_Fcent / (1.0 + f1 * f1));
}

Expr sri(const Falloff& f, const Expr& Pr, const TemperatureTerms& t) {
  Expr base = f.sri_A * exp(-f.sri_B * t.inv_T);
  if (f.sri_C != 0.0) base = base + exp(t.T * (-1.0 / f.sri_C));
  const Expr scale = f.sri_E == 0.0 ? t.T.constant(f.sri_D) : f.sri_D * exp(f.sri_E * t.log_T);
  const Expr lpr = log10(max(Pr, Pr.constant(kSmallNumber)));
  return pow(base, 1.0 / (1.0 + lpr * lpr)) * scale;
}

}  // namespace

Expr falloff_function(const Falloff& falloff, const Expr& Pr, const TemperatureTerms& t) {
  switch (falloff.form) {
    case FalloffForm::lindemann:
      return Pr.constant(1.0);
    case FalloffForm::troe:
      return troe(falloff, Pr, t);
    case FalloffForm::sri:
      return sri(falloff, Pr, t);
  }
  return Expr();
}

RateConstant falloff_rate(const Reaction& r, const RateContext& context, size_t index) {
  if (r.low.A * r.high.A < 0)
    throw MechanismError(reaction_label(*context.mechanism, index) +
                         ": the low- and high-pressure pre-exponential factors differ in sign");
  const Expr k0 = arrhenius(r.low, context.t).k, k_inf = arrhenius(r.high, context.t).k;
  const Expr M = third_body_concentration(context, index);
  // Cantera's guard against k_inf = 0.
  const Expr Pr = M * k0 / (k_inf + kSmallNumber);
  const Expr F = falloff_function(r.falloff, Pr, context.t);
  if (r.type == ReactionType::chemically_activated) return {F / (1.0 + Pr) * k0, Expr()};
  return {Pr * (F / (1.0 + Pr)) * k_inf, Expr()};
}

}  // namespace dualjit::kinetics
