#include "examples/kinetics/rate_laws.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "examples/kinetics/rate_constants.h"
#include "examples/kinetics/thermo.h"
#include "examples/kinetics/units.h"

namespace dualjit::kinetics {
namespace {

// Species index -> exponent, in species order (so that products over the same species are built
// in the same order and shared between reactions by hash-consing).
using Powers = std::map<size_t, double>;

Powers powers_of(const Mechanism& m, const Stoichiometry& side, size_t index) {
  Powers out;
  for (const auto& [name, nu] : side) out[reaction_species(m, name, index)] += nu;
  return out;
}

// Forward orders: the reactants' coefficients, overridden by explicit orders.
Powers forward_orders(const Mechanism& m, size_t index) {
  const Reaction& r = m.reactions[index];
  Powers out = powers_of(m, r.reactants, index);
  for (const auto& [name, order] : r.orders) out[reaction_species(m, name, index)] = order;
  return out;
}

// prod_k C_k^e_k. Integer powers are multiplications; a fractional one is C^e where C > 0
// and 0 otherwise, as Cantera's StoichManager (so a negative C gives no NaN).
Expr concentration_product(const Powers& powers, const std::vector<Expr>& C) {
  Expr product;
  for (const auto& [k, e] : powers) {
    if (e == 0.0) continue;
    const Expr& c = C[k];
    const Expr factor = e == std::nearbyint(e) ? pow(c, e) : select(c > 0.0, pow(c, e), 0.0);
    product = product.valid() ? product * factor : factor;
  }
  return product;
}

Expr times(const Expr& k, const Expr& product) {
  return product.valid() ? k * product : k;
}

// a + nu x, with nu = +-1 as an addition or subtraction; a may be invalid (empty sum).
Expr add_scaled(const Expr& a, double nu, const Expr& x) {
  if (!a.valid()) return nu == 1.0 ? x : (nu == -1.0 ? -x : nu * x);
  if (nu == 1.0) return a + x;
  if (nu == -1.0) return a - x;
  return a + nu * x;
}

// Everything the rate laws need per reaction, built from the shared context.
class ReactionBuilder {
 public:
  ReactionBuilder(const Mechanism& m, const CellState& s, RateLawForm form)
      : m_(m),
        s_(s),
        form_(form),
        context_{.mechanism = &m,
                 .t = TemperatureTerms(s.T),
                 .log_p = s.log_p,
                 .log10_p = s.log_p * (1.0 / std::log(10.0)),
                 .C = s.C,
                 .C_tot = s.C_tot,
                 .shared_exponentials = form == RateLawForm::values},
        log_RT_over_pref_(context_.t.log_T + std::log(kGasConstant / kOneAtm)),
        g_RT_(m.species.size()),
        h_RT_(m.species.size()),
        factor_(m.species.size()),
        inverse_factor_(m.species.size()) {}

  // sum_k nu_k h_k/RT over a reaction's net coefficients: its enthalpy change over RT.
  Expr enthalpy_change(const Powers& net) {
    Expr sum;
    for (const auto& [k, nu] : net)
      if (nu != 0.0) sum = add_scaled(sum, nu, h_RT(k));
    return sum;
  }

  const TemperatureTerms& t() const { return context_.t; }
  // g/RT and h/RT of species k, made on first use: the graph's creation order is the
  // node-major schedule's, so a value made where it is first needed is not live before.
  const Expr& g_RT(size_t k) {
    if (!g_RT_[k].valid()) g_RT_[k] = g_over_RT(m_.species[k].thermo, context_.t);
    return g_RT_[k];
  }
  const Expr& h_RT(size_t k) {
    if (!h_RT_[k].valid()) h_RT_[k] = h_over_RT(m_.species[k].thermo, context_.t);
    return h_RT_[k];
  }

  // kf, kr and the net rate of progress of reaction `index`; `net` gets its net coefficients.
  void build(size_t index, RateLaws& out, Powers& net) {
    const Reaction& r = m_.reactions[index];
    const RateConstant kf = forward_rate_constant(context_, index);
    out.kf.push_back(kf.k);
    const Powers reactants = powers_of(m_, r.reactants, index);
    const Powers products = powers_of(m_, r.products, index);
    net = products;
    for (const auto& [k, nu] : reactants) net[k] -= nu;
    Expr rop = times(kf.k, concentration_product(forward_orders(m_, index), s_.C));
    if (r.reversible) {
      const Expr kr = reverse_rate_constant(kf, net);
      out.kr.push_back(kr);
      rop = rop - times(kr, concentration_product(products, s_.C));
    } else {
      out.kr.push_back(s_.T.constant(0.0));
    }
    if (r.type == ReactionType::three_body) rop = third_body_concentration(context_, index) * rop;
    // For derivatives a tape (dsl/expr.h): a Jacobian computes each rate of progress and its
    // tangent once per cell, and the species' rows, three or four a reaction, read them.
    out.rop.push_back(form_ == RateLawForm::values ? rop : tape(rop));
  }

 private:
  // kr = kf / Kc. In the values' form, with integer coefficients of at most
  // kMaxFactorPower: 1/Kc = prod_k exp(g_k/RT)^nu_k (R T / p_ref)^(sum_k nu_k) as a product of
  // per-species factors (species_factor); products and reactants alternate so that the partial
  // products stay near the ratio they tend to. Otherwise ln(1/Kc) = sum_k nu_k g_k/RT +
  // (sum_k nu_k) ln(R T / p_ref) and one exp (one in all when kf is one too).
  Expr reverse_rate_constant(const RateConstant& kf, const Powers& net) {
    double dnu = 0;
    bool integral = form_ == RateLawForm::values;
    for (const auto& [k, nu] : net) {
      dnu += nu;
      integral = integral && nu == std::nearbyint(nu) && std::abs(nu) <= kMaxFactorPower;
    }
    if (integral) return times(kf.k, inverse_kc_product(net, dnu));
    Expr log_inv_Kc;
    if (form_ == RateLawForm::columns) {
      log_inv_Kc = g_over_RT_change(m_, net, context_.t);
    } else {
      for (const auto& [k, nu] : net)
        if (nu != 0.0) log_inv_Kc = add_scaled(log_inv_Kc, nu, g_RT(k));
    }
    if (dnu != 0.0) log_inv_Kc = add_scaled(log_inv_Kc, dnu, log_RT_over_pref_);
    if (!log_inv_Kc.valid()) return kf.k;  // Kc = 1
    if (kf.log_k.valid()) return exp(kf.log_k + log_inv_Kc);
    return kf.k * exp(log_inv_Kc);
  }

  // 1/Kc as species_factor's products for integer net coefficients; invalid (an empty
  // product) when Kc = 1.
  Expr inverse_kc_product(const Powers& net, double dnu) {
    std::vector<size_t> up, down;  // species, once per unit of coefficient
    for (const auto& [k, nu] : net)
      for (int i = 0; i < int(std::abs(nu)); ++i) (nu > 0 ? up : down).push_back(k);
    Expr inv_Kc;
    const auto times_factor = [&](const Expr& f) { inv_Kc = inv_Kc.valid() ? inv_Kc * f : f; };
    for (size_t i = 0; i < std::max(up.size(), down.size()); ++i) {
      if (i < up.size()) times_factor(species_factor(up[i], false));
      if (i < down.size()) times_factor(species_factor(down[i], true));
    }
    const Expr RT_over_pref = context_.t.T * (kGasConstant / kOneAtm);
    const Expr pref_over_RT = context_.t.inv_T * (kOneAtm / kGasConstant);
    for (int i = 0; i < int(std::abs(dnu)); ++i)
      times_factor(dnu > 0 ? RT_over_pref : pref_over_RT);
    return inv_Kc;
  }

  // exp(g_k/RT), or its reciprocal, made on first use. A factor overflows only where |g/RT| >
  // 709: at 300 K the five shipped mechanisms reach 330 (n-hexane's), so the product form holds
  // down to about 140 K, below where NASA7 fits begin (200 K). Alternating products and
  // reactants keeps the partial products there within e^337, the range of 1/Kc itself.
  const Expr& species_factor(size_t k, bool inverse) {
    if (!factor_[k].valid()) {
      factor_[k] = exp(g_RT(k));
      inverse_factor_[k] = 1.0 / factor_[k];
    }
    return inverse ? inverse_factor_[k] : factor_[k];
  }

  // A coefficient up to this size is that many factors; a larger one takes the exp form.
  static constexpr double kMaxFactorPower = 4;

  const Mechanism& m_;
  const CellState& s_;
  RateLawForm form_;
  RateContext context_;
  Expr log_RT_over_pref_;          // ln(R T / p_ref): the standard concentration's part of ln(1/Kc)
  std::vector<Expr> g_RT_, h_RT_;  // g_RT's and h_RT's, per species
  std::vector<Expr> factor_, inverse_factor_;  // species_factor's, per species
};

// Each form's name and kernel-name suffix.
struct FormName {
  RateLawForm form;
  std::string_view name, suffix;
};
constexpr FormName kFormNames[] = {{RateLawForm::derivatives, "derivatives", ""},
                                   {RateLawForm::values, "values", "_values"},
                                   {RateLawForm::columns, "columns", "_columns"}};

const FormName& form_name(RateLawForm form) {
  for (const FormName& f : kFormNames)
    if (f.form == form) return f;
  throw std::invalid_argument("rate-law form " + std::to_string(static_cast<int>(form)));
}

}  // namespace

std::string_view rate_law_form_name(RateLawForm form) {
  return form_name(form).name;
}

RateLawForm rate_law_form_named(std::string_view name) {
  for (const FormName& f : kFormNames)
    if (f.name == name) return f.form;
  throw std::invalid_argument("rate-law form '" + std::string(name) +
                              "': derivatives, values or columns");
}

std::string_view rate_law_form_suffix(RateLawForm form) {
  return form_name(form).suffix;
}

RateLaws rate_laws(const Mechanism& m, const CellState& s, RateLawForm form) {
  const size_t ns = m.species.size(), nr = m.reactions.size();
  ReactionBuilder builder(m, s, form);
  RateLaws out;
  // Each species' sum, and the heat release, are extended right after every reaction that
  // changes them, so that the graph's creation order is reaction-major: a rate of progress is
  // consumed soon after it is made instead of living until the end (the node-major schedule
  // follows creation order). For derivatives the heat release sums over reactions,
  // -RT sum_r dh_r/RT q_r: its derivatives then need one accumulator, not every species' sum.
  // For values and columns it sums over species at the end, from the finished wdot_k.
  const bool by_species = form != RateLawForm::derivatives;
  std::vector<Expr> wdot(ns);
  Expr enthalpy_sum;  // sum_r (dh_r / RT) q_r, or sum_k (h_k / RT) wdot_k
  const auto add_enthalpy = [&](const Expr& term) {
    enthalpy_sum = enthalpy_sum.valid() ? enthalpy_sum + term : term;
  };
  for (size_t i = 0; i < nr; ++i) {
    Powers net;
    try {
      builder.build(i, out, net);
    } catch (const DslError& e) {  // e.g. a parameter that makes a non-finite constant
      throw MechanismError(reaction_label(m, i) + ": " + e.what());
    }
    for (const auto& [k, nu] : net)
      if (nu != 0.0) wdot[k] = add_scaled(wdot[k], nu, out.rop[i]);
    if (by_species) continue;
    if (const Expr dh = builder.enthalpy_change(net); dh.valid()) add_enthalpy(dh * out.rop[i]);
  }
  for (size_t k = 0; k < ns; ++k) {
    out.wdot.push_back(wdot[k].valid() ? wdot[k] : s.T.constant(0.0));
    if (by_species && wdot[k].valid()) add_enthalpy(builder.h_RT(k) * wdot[k]);
  }
  // For derivatives the reactions' sum is a tape of its own: its tangent is taken once, in the
  // tapes' launch, where the rates' tangents are at hand, so the heat release's row reads one
  // tape instead of every reaction's, and its only tape-free factor is -RT.
  if (enthalpy_sum.valid() && !by_species) enthalpy_sum = tape(enthalpy_sum);
  out.heat_release =
      enthalpy_sum.valid() ? -(kGasConstant * s.T) * enthalpy_sum : s.T.constant(0.0);
  return out;
}

}  // namespace dualjit::kinetics
