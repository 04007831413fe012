#include "solvers/objective.h"

namespace dualjit::solvers {

const assembly::DeviceBsr* Objective::device_hessian(std::span<const double>) {
  return nullptr;
}

int64_t AssemblerObjective::n_dofs() const {
  return a_.problem().n_nodes() * a_.problem().block_size();
}

int AssemblerObjective::block_size() const {
  return a_.problem().block_size();
}

double AssemblerObjective::energy(std::span<const double> x) {
  return a_.energy(x);
}

std::vector<double> AssemblerObjective::gradient(std::span<const double> x) {
  return a_.gradient(x);
}

mesh::BlockCsr<double> AssemblerObjective::hessian(std::span<const double> x) {
  return a_.hessian(x, mesh::Symmetry::General);
}

const assembly::DeviceBsr* AssemblerObjective::device_hessian(std::span<const double> x) {
  if (a_.backend() != assembly::Backend::Cuda) return nullptr;
  a_.set_state(x);
  device_hessian_ = a_.run_hessian(mesh::Symmetry::General);
  return &device_hessian_;
}

std::vector<double> AssemblerObjective::hvp(std::span<const double> x, std::span<const double> v) {
  return a_.hvp(x, v);
}

}  // namespace dualjit::solvers
