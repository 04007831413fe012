#include "examples/kinetics/rate_law_kernels.h"

#include <cctype>

#include "examples/kinetics/rate_laws.h"

namespace dualjit::kinetics {
namespace {

std::string kernel_name(const Mechanism& m, const RateLawOptions& o) {
  std::string name = "kinetics_" + m.phase + "_" + std::string(reactor_state_name(o.state));
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name + std::string(rate_law_form_suffix(o.form));
}

}  // namespace

Kernel production_rates_kernel(const Mechanism& m, const RateLawOptions& o) {
  return Kernel(kernel_name(m, o), [&](KernelBuilder& kb) {
    const RateLaws laws = rate_laws(m, declare_cell_state(kb, m, o.state), o.form);
    std::vector<Expr> rates = laws.wdot;
    rates.push_back(laws.heat_release);
    kb.output("rates", rates);
  });
}

Kernel rate_constants_kernel(const Mechanism& m, const RateLawOptions& o) {
  return Kernel(kernel_name(m, o) + "_rate_constants", [&](KernelBuilder& kb) {
    const RateLaws laws = rate_laws(m, declare_cell_state(kb, m, o.state), o.form);
    kb.output("kf", laws.kf);
    kb.output("kr", laws.kr);
  });
}

}  // namespace dualjit::kinetics
