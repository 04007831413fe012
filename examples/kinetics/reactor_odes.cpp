#include "examples/kinetics/reactor_odes.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "backends/cuda/driver.h"
#include "examples/kinetics/reactor_equations.h"

namespace dualjit::kinetics {
namespace {

ReactorCellsOptions cells_options(const Mechanism& m, const ReactorOdesOptions& o) {
  const double value = o.state == ReactorState::constant_volume ? o.density : o.pressure;
  if (!(value > 0) || !std::isfinite(value))
    throw MechanismError(m.file + ": a reactor's " +
                         (o.state == ReactorState::constant_volume ? "density" : "pressure") +
                         " must be finite and positive, not " + std::to_string(value));
  ReactorCellsOptions c;
  c.rate_law.state = o.state;
  c.pressure = o.pressure;
  c.density = o.density;
  c.assembler = o.assembler;
  return c;
}

// Cells of the kernel the Jacobians differentiate and, when its form differs, of the right-hand
// side's own.
ReactorCells reactor_cells(const Mechanism& m, int64_t cells, const ReactorOdesOptions& o) {
  Kernel jacobian = reactor_rhs_kernel(m, o.state, o.jacobian_form);
  if (o.rhs_form == o.jacobian_form)
    return ReactorCells(std::move(jacobian), cells, cells_options(m, o));
  return ReactorCells(std::move(jacobian), reactor_rhs_kernel(m, o.state, o.rhs_form), cells,
                      cells_options(m, o));
}

}  // namespace

assembly::AssemblerOptions reactor_odes_assembler_options() {
  assembly::AssemblerOptions o;
  o.element_layout.min_blocks = 1;
  return o;
}

ReactorOdes::ReactorOdes(const Mechanism& mechanism, int64_t max_cells, ReactorOdesOptions options)
    : mechanism_(mechanism),
      n_(static_cast<int>(mechanism.species.size()) + 1),
      max_cells_(std::max<int64_t>(max_cells, 1)),
      cells_(reactor_cells(mechanism, max_cells_, options)) {}

void ReactorOdes::check_states(std::span<const double> states) const {
  if (states.size() % n_ != 0)
    throw MechanismError(mechanism_.file + ": " + std::to_string(states.size()) +
                         " state values are not whole cells of " + std::to_string(n_));
  const auto cells = static_cast<int64_t>(states.size() / n_);
  for (int64_t c = 0; c < cells; ++c) {
    const double* s = &states[c * n_];
    const std::string cell = mechanism_.file + ": cell " + std::to_string(c) + ": ";
    if (!(s[0] > 0) || !std::isfinite(s[0]))
      throw MechanismError(cell + "temperature " + std::to_string(s[0]) +
                           " K (finite and positive expected)");
    double sum = 0;
    for (int k = 1; k < n_; ++k) {
      if (!(s[k] >= 0) || !std::isfinite(s[k]))
        throw MechanismError(cell + "mass fraction of " + mechanism_.species[k - 1].name + " is " +
                             std::to_string(s[k]));
      sum += s[k];
    }
    if (std::abs(sum - 1.0) > 1e-6)
      throw MechanismError(cell + "mass fractions sum to " + std::to_string(sum) +
                           " (normalised Y expected)");
  }
}

ReactorOdes::Tier& ReactorOdes::stage(int64_t m, const double* y) {
  m = std::max<int64_t>(m, 1);
  int64_t size = max_cells_;
  while (size / 2 >= m) size /= 2;
  auto found = tiers_.find(size);
  if (found == tiers_.end()) {
    ReactorCells* cells = &cells_;
    if (size != max_cells_) {
      auto made = std::make_unique<ReactorCells>(cells_.resized(size));
      cells = made.get();
      smaller_.emplace(size, std::move(made));
    }
    // A valid state for the rows beyond m: 1000 K and equal mass fractions.
    std::vector<double> filler(static_cast<size_t>(size) * n_, 1.0 / (n_ - 1));
    for (int64_t r = 0; r < size; ++r) filler[r * n_] = 1000.0;
    found = tiers_.emplace(size, Tier{cells, std::move(filler)}).first;
  }
  Tier& tier = found->second;
  std::copy_n(y, static_cast<size_t>(m) * n_, tier.host_states.begin());
  return tier;
}

const double* ReactorOdes::rhs(int64_t m, const double* y) {
  if (on_device()) {
    // The first m cells of the whole batch: f of m rows costs m rows.
    assembly::Assembler& a = cells_.assembler();
    cuda::copy_on_device(a.state_device(), y, static_cast<size_t>(m) * n_ * sizeof(double));
    return a.run_residual(nullptr, m);
  }
  Tier& tier = stage(m, y);
  host_out_ = tier.cells->rates(tier.host_states);
  return host_out_.data();
}

const double* ReactorOdes::jacobian(int64_t m, const double* y) {
  if (on_device()) {
    // The whole batch's cells, the first m of them: a Jacobian of a few rows (the BDF's
    // refreshes) costs a few rows.
    assembly::Assembler& a = cells_.assembler();
    cuda::copy_on_device(a.state_device(), y, static_cast<size_t>(m) * n_ * sizeof(double));
    return a.run_element_blocks(0, assembly::BlockOrder::CellMajor, nullptr, m);
  }
  Tier& tier = stage(m, y);
  host_out_ = tier.cells->jacobian(tier.host_states);
  return host_out_.data();
}

}  // namespace dualjit::kinetics
