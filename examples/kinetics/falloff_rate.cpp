#include "examples/kinetics/falloff_rate.h"

#include <cmath>

#include "examples/kinetics/arrhenius_rate.h"

namespace dualjit::kinetics {
namespace {

constexpr double kSmallNumber = 1e-300;  // Cantera's SmallNumber
constexpr double kLn10 = 2.302585092994045684;

// ln F of the Troe form: ln Fcent / (1 + f1^2), Fcent clamped from below as Cantera clamps it.
Expr troe_log_F(const Falloff& f, const Expr& log10_Pr, const TemperatureTerms& t) {
  // A T3 or T1 of zero makes its term vanish (Cantera sets 1/T to infinity).
  Expr Fcent = t.T.constant(0.0);
  if (std::abs(f.troe_T3) >= kSmallNumber)
    Fcent = Fcent + (1.0 - f.troe_A) * exp(t.T * (-1.0 / f.troe_T3));
  if (std::abs(f.troe_T1) >= kSmallNumber) Fcent = Fcent + f.troe_A * exp(t.T * (-1.0 / f.troe_T1));
  if (f.troe_has_t2 && f.troe_T2 != 0.0) Fcent = Fcent + exp(-f.troe_T2 * t.inv_T);
  const Expr log_Fcent = log(max(Fcent, t.T.constant(kSmallNumber)));
  const Expr log10_Fcent = log_Fcent * (1.0 / kLn10);
  const Expr cc = -0.4 - 0.67 * log10_Fcent;
  const Expr nn = 0.75 - 1.27 * log10_Fcent;
  // f1 = x / y and ln F = ln Fcent / (1 + f1^2) = ln Fcent y^2 / (x^2 + y^2): one reciprocal
  // (large kernels take 1 / x without a branch, jit/driver_text.h; a quotient keeps one).
  const Expr x = log10_Pr + cc, y = nn - 0.14 * x;
  return log_Fcent * (y * y) * (1.0 / (x * x + y * y));
}

Expr sri_F(const Falloff& f, const Expr& log10_Pr, const TemperatureTerms& t) {
  Expr base = f.sri_A * exp(-f.sri_B * t.inv_T);
  if (f.sri_C != 0.0) base = base + exp(t.T * (-1.0 / f.sri_C));
  const Expr scale = f.sri_E == 0.0 ? t.T.constant(f.sri_D) : f.sri_D * exp(f.sri_E * t.log_T);
  return pow(base, 1.0 / (1.0 + log10_Pr * log10_Pr)) * scale;
}

// F(T, Pr) of the reaction's form.
Expr falloff_F(const Falloff& f, const Expr& log10_Pr, const TemperatureTerms& t) {
  switch (f.form) {
    case FalloffForm::lindemann:
      return log10_Pr.constant(1.0);
    case FalloffForm::troe:
      return exp(troe_log_F(f, log10_Pr, t));
    case FalloffForm::sri:
      return sri_F(f, log10_Pr, t);
  }
  return Expr();
}

// k0 F from ln k0 and log10 Pr; Troe's ln F joins ln k0 in one exp.
Expr k0_times_F(const Falloff& f, const Expr& log_k0, const Expr& log10_Pr,
                const TemperatureTerms& t) {
  if (f.form == FalloffForm::troe) return exp(log_k0 + troe_log_F(f, log10_Pr, t));
  return exp(log_k0) * falloff_F(f, log10_Pr, t);  // Lindemann's F = 1 folds away
}

}  // namespace

RateConstant falloff_rate(const Reaction& r, const RateContext& context, size_t index) {
  if (r.low.A * r.high.A < 0)
    throw MechanismError(reaction_label(*context.mechanism, index) +
                         ": the low- and high-pressure pre-exponential factors differ in sign");
  const TemperatureTerms& t = context.t;
  const Expr M = third_body_concentration(context, index);
  const bool activated = r.type == ReactionType::chemically_activated;
  if (r.low.A > 0 && r.high.A > 0) {
    // Both limits as logs: Pr = [M] exp(ln k0 - ln k_inf), log10 Pr from the same sum and one
    // log of [M] (shared by the reactions with the same efficiencies), and since k_inf Pr =
    // [M] k0,
    //   falloff:              k = [M] k0 F / (1 + Pr),
    //   chemically activated: k =     k0 F / (1 + Pr).
    // A Troe reaction takes two exps besides its Fcent's and one log, where Cantera's form
    // takes three and two. Cantera's guards hold where they bind: log10 Pr is clamped at
    // log10(1e-300), and k_inf's 1e-300 is below the rounding of any positive k_inf.
    const Expr log_k0 = arrhenius_exponent(r.low, t);
    const Expr log_ratio = log_k0 - arrhenius_exponent(r.high, t);
    const Expr log_M = log(max(M, M.constant(kSmallNumber)));
    const Expr log10_Pr =
        max((log_M + log_ratio) * (1.0 / kLn10), M.constant(std::log10(kSmallNumber)));
    const Expr Pr = M * exp(log_ratio);
    const Expr k0_F = k0_times_F(r.falloff, log_k0, log10_Pr, t);
    return {(activated ? k0_F : M * k0_F) * (1.0 / (1.0 + Pr)), Expr()};
  }
  // Negative pre-exponential factors (or a zero one): Cantera's form, term by term.
  const Expr k0 = arrhenius(r.low, t).k, k_inf = arrhenius(r.high, t).k;
  const Expr Pr = M * k0 / (k_inf + kSmallNumber);
  const Expr log10_Pr = log(max(Pr, Pr.constant(kSmallNumber))) * (1.0 / kLn10);
  const Expr F = falloff_F(r.falloff, log10_Pr, t);
  if (activated) return {F / (1.0 + Pr) * k0, Expr()};
  return {Pr * (F / (1.0 + Pr)) * k_inf, Expr()};
}

}  // namespace dualjit::kinetics
