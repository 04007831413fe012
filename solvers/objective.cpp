#include "solvers/objective.h"

#include <algorithm>
#include <string>

#include "solvers/device_vector_space.h"
#include "solvers/solver_error.h"

namespace dualjit::solvers {

const assembly::DeviceBsr* Objective::device_hessian(const Vector&) {
  return nullptr;
}

AssemblerObjective::AssemblerObjective(assembly::Assembler& assembler)
    : a_(assembler), space_(&host_space()) {
  if (on_gpu()) {
    device_space_ = std::make_unique<DeviceSpace>();
    space_ = device_space_.get();
  }
}

AssemblerObjective::~AssemblerObjective() = default;

bool AssemblerObjective::on_gpu() const {
  return a_.backend() == assembly::Backend::Cuda;
}

int64_t AssemblerObjective::n_dofs() const {
  return a_.problem().n_nodes() * a_.problem().block_size();
}

int AssemblerObjective::block_size() const {
  return a_.problem().block_size();
}

void AssemblerObjective::check(const Vector& v, const char* call, const char* what) const {
  if (v.size() != n_dofs() || v.on_device() != on_gpu()) {
    throw SolverError(std::string("AssemblerObjective::") + call + ": " + what + " has " +
                      std::to_string(v.size()) + " values in " +
                      (v.on_device() ? "device" : "host") + " memory; expected " +
                      std::to_string(n_dofs()) + " in " + (on_gpu() ? "device" : "host") +
                      " memory (make vectors through space())");
  }
}

void AssemblerObjective::set_device_state(const Vector& x) {
  cuda::copy_on_device(a_.state_device(), x.data(), size_t(x.size()) * sizeof(double));
}

double AssemblerObjective::energy(const Vector& x) {
  check(x, "energy", "x");
  if (!on_gpu()) return a_.energy(x.host());
  set_device_state(x);
  double e = 0;
  cuda::download(&e, a_.run_energy(), sizeof e);
  return e;
}

void AssemblerObjective::gradient(const Vector& x, Vector& g) {
  check(x, "gradient", "x");
  check(g, "gradient", "g");
  if (!on_gpu()) {
    const std::vector<double> r = a_.gradient(x.host());
    std::copy(r.begin(), r.end(), g.host().begin());
    return;
  }
  set_device_state(x);
  cuda::copy_on_device(g.data(), a_.run_gradient(), size_t(g.size()) * sizeof(double));
}

mesh::BlockCsr<double> AssemblerObjective::hessian(const Vector& x) {
  check(x, "hessian", "x");
  if (!on_gpu()) return a_.hessian(x.host(), mesh::Symmetry::General);
  return a_.hessian(space_->to_host(x), mesh::Symmetry::General);
}

void AssemblerObjective::hvp(const Vector& x, const Vector& v, Vector& hv) {
  check(x, "hvp", "x");
  check(v, "hvp", "v");
  check(hv, "hvp", "hv");
  if (!on_gpu()) {
    const std::vector<double> r = a_.hvp(x.host(), v.host());
    std::copy(r.begin(), r.end(), hv.host().begin());
    return;
  }
  set_device_state(x);
  cuda::copy_on_device(a_.direction_device(), v.data(), size_t(v.size()) * sizeof(double));
  cuda::copy_on_device(hv.data(), a_.run_hvp(), size_t(hv.size()) * sizeof(double));
}

const assembly::DeviceBsr* AssemblerObjective::device_hessian(const Vector& x) {
  if (!on_gpu()) return nullptr;
  check(x, "device_hessian", "x");
  set_device_state(x);
  device_hessian_ = a_.run_hessian(mesh::Symmetry::General);
  return &device_hessian_;
}

}  // namespace dualjit::solvers
