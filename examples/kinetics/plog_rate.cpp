#include "examples/kinetics/plog_rate.h"

#include <cmath>
#include <sstream>

#include "examples/kinetics/arrhenius_rate.h"
#include "examples/kinetics/units.h"

namespace dualjit::kinetics {
namespace {

// The lines at one pressure.
struct PressureGroup {
  double pressure = 0, log_p = 0;
  std::vector<Arrhenius> lines;
};

std::vector<PressureGroup> groups_of(const std::vector<PlogRate>& table) {
  std::vector<PressureGroup> groups;
  for (const PlogRate& line : table) {  // sorted by pressure (the loader's order)
    const double log_p = std::log(line.pressure);
    if (groups.empty() || groups.back().log_p != log_p)
      groups.push_back({line.pressure, log_p, {}});
    groups.back().lines.push_back(line.rate);
  }
  return groups;
}

double rate_at(const PressureGroup& g, double T) {
  double k = 0;
  for (const Arrhenius& a : g.lines)
    k += a.A * std::pow(T, a.b) * std::exp(-a.Ea / (kGasConstant * T));
  return k;
}

void validate(const std::vector<PressureGroup>& groups, const Mechanism& m, size_t index) {
  for (const PressureGroup& g : groups) {
    for (double T : {300.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0}) {
      if (rate_at(g, T) > 0) continue;
      std::ostringstream msg;
      msg.precision(12);
      msg << reaction_label(m, index) << ": rate-constants: k is not positive at P = " << g.pressure
          << " Pa, T = " << T << " K";
      throw MechanismError(msg.str());
    }
  }
}

Expr log_rate(const PressureGroup& g, const TemperatureTerms& t) {
  if (g.lines.size() == 1) return arrhenius_exponent(g.lines[0], t);  // A > 0: validated
  Expr k = t.T.constant(1e-300);  // Cantera's: keeps ln k finite
  for (const Arrhenius& a : g.lines) k = k + arrhenius(a, t).k;
  return log(k);
}

}  // namespace

RateConstant plog_rate(const Reaction& r, const RateContext& context, size_t index) {
  const auto groups = groups_of(r.plog);
  if (groups.empty())
    throw MechanismError(reaction_label(*context.mechanism, index) + ": rate-constants: empty");
  validate(groups, *context.mechanism, index);
  std::vector<Expr> log_k;
  for (const PressureGroup& g : groups) log_k.push_back(log_rate(g, context.t));
  // From the top: above the last pressure, the last group's value; each interval [p_j, p_j+1)
  // interpolates; below the first, the first group's value (Cantera's p < p_0 sentinel).
  const Expr& lp = context.log_p;
  Expr result = log_k.back();
  for (size_t j = groups.size() - 1; j-- > 0;) {
    const double lo = groups[j].log_p, inv_width = 1.0 / (groups[j + 1].log_p - lo);
    const Expr interpolated = log_k[j] + (log_k[j + 1] - log_k[j]) * ((lp - lo) * inv_width);
    result = select(lp < groups[j + 1].log_p, interpolated, result);
  }
  if (groups.size() > 1) result = select(lp < groups[0].log_p, log_k[0], result);
  return {exp(result), result};
}

}  // namespace dualjit::kinetics
