#include "examples/kinetics/reactor_cells.h"

#include <limits>
#include <numeric>
#include <string>

namespace dualjit::kinetics {

namespace {

// The kernel of `form` when it differs from the Jacobians' kernel's; else null.
std::shared_ptr<const Kernel> kernel_of(const Mechanism& m, const ReactorCellsOptions& o,
                                        RateLawForm form) {
  if (form == o.rate_law.form) return nullptr;
  RateLawOptions law = o.rate_law;
  law.form = form;
  return std::make_shared<const Kernel>(production_rates_kernel(m, law));
}

}  // namespace

ReactorCells::ReactorCells(const Mechanism& mechanism, int64_t n_cells, ReactorCellsOptions options)
    : ReactorCells(
          std::make_shared<const Kernel>(production_rates_kernel(mechanism, options.rate_law)),
          kernel_of(mechanism, options, options.rates_form),
          options.assembler.element_tape_columns
              ? kernel_of(mechanism, options, options.columns_form)
              : nullptr,
          n_cells, options) {}

ReactorCells::ReactorCells(Kernel kernel, int64_t n_cells, ReactorCellsOptions options)
    : ReactorCells(std::make_shared<const Kernel>(std::move(kernel)), nullptr, nullptr, n_cells,
                   std::move(options)) {}

ReactorCells::ReactorCells(Kernel kernel, Kernel rates_kernel, int64_t n_cells,
                           ReactorCellsOptions options)
    : ReactorCells(std::make_shared<const Kernel>(std::move(kernel)),
                   std::make_shared<const Kernel>(std::move(rates_kernel)), nullptr, n_cells,
                   std::move(options)) {}

ReactorCells::ReactorCells(std::shared_ptr<const Kernel> kernel,
                           std::shared_ptr<const Kernel> rates_kernel,
                           std::shared_ptr<const Kernel> columns_kernel, int64_t n_cells,
                           ReactorCellsOptions options)
    : kernel_(std::move(kernel)),
      rates_kernel_(std::move(rates_kernel)),
      columns_kernel_(std::move(columns_kernel)),
      n_cells_(n_cells),
      options_(std::move(options)) {
  rebuild();
}

ReactorCells ReactorCells::resized(int64_t n_cells) const {
  return ReactorCells(kernel_, rates_kernel_, columns_kernel_, n_cells, options_);
}

void ReactorCells::rebuild() {
  // Connectivity is int32.
  if (n_cells_ < 0 || n_cells_ > std::numeric_limits<int32_t>::max())
    throw assembly::ProblemError("ReactorCells: " + std::to_string(n_cells_) +
                                 " cells (0 to 2^31 - 1 are possible)");
  assembler_.reset();  // refers to the problem
  const int B = kernel_->n_inputs();
  problem_ = std::make_unique<assembly::Problem>(n_cells_, B);
  assembly::Term t;
  t.name = "cells";
  t.kernel = kernel_;
  t.value_kernel = rates_kernel_;
  t.columns_kernel = columns_kernel_;
  t.elements.name = "cells";
  t.elements.k = 1;
  t.elements.conn.resize(static_cast<size_t>(n_cells_));
  std::iota(t.elements.conn.begin(), t.elements.conn.end(), 0);
  switch (options_.rate_law.state) {
    case ReactorState::constant_pressure:
      t.uniforms = {options_.pressure};
      break;
    case ReactorState::constant_volume:
      t.uniforms = {options_.density};
      break;
    case ReactorState::concentrations:
      break;
  }
  problem_->add_term(std::move(t));
  assembler_ = std::make_unique<assembly::Assembler>(*problem_, options_.assembler);
}

void ReactorCells::set_pressure(double pressure) {
  if (options_.rate_law.state != ReactorState::constant_pressure)
    throw assembly::ProblemError("ReactorCells::set_pressure: the " +
                                 std::string(reactor_state_name(options_.rate_law.state)) +
                                 " state takes no pressure");
  options_.pressure = pressure;
  rebuild();
}

void ReactorCells::set_density(double density) {
  if (options_.rate_law.state != ReactorState::constant_volume)
    throw assembly::ProblemError("ReactorCells::set_density: the " +
                                 std::string(reactor_state_name(options_.rate_law.state)) +
                                 " state takes no density");
  options_.density = density;
  rebuild();
}

std::vector<double> ReactorCells::rates(std::span<const double> states) {
  return assembler_->residual(states);
}

std::vector<double> ReactorCells::jacobian(std::span<const double> states,
                                           assembly::BlockOrder order) {
  return assembler_->element_blocks(0, states, order);
}

std::vector<double> ReactorCells::sparse_jacobian(std::span<const double> states,
                                                  assembly::BlockOrder order) {
  return assembler_->element_sparse_blocks(0, states, order);
}

}  // namespace dualjit::kinetics
