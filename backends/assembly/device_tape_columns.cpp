#include "backends/assembly/device_tape_columns.h"

#include <algorithm>

#include "backends/assembly/host_element_assembly.h"
#include "jit/emit_tape_columns.h"
#include "jit/tape_rest_kernel.h"

namespace dualjit::assembly {
namespace {

double* ptr(const cuda::DeviceBuffer& b) {
  return reinterpret_cast<double*>(b.get());
}

// At least `bytes`, keeping a larger buffer.
void ensure(cuda::DeviceBuffer& b, size_t bytes) {
  if (b.bytes() < bytes) b = cuda::DeviceBuffer(std::max<size_t>(bytes, 8));
}

}  // namespace

std::unique_ptr<DeviceTapeColumns> DeviceTapeColumns::make(const Term& term,
                                                           const jit::LaunchLayout& layout,
                                                           int group_slots) {
  const Kernel& k = *term.kernel;
  jit::LoweringOptions o = element_lowering(term, Mode::Jacobian, 0, 1);
  o.layout = layout;
  o.chunks = {0, 1};  // the tapes' chunk alone, when the kernel keeps tapes
  jit::LoweredKernel tapes = jit::lower(k, o);
  if (!tapes.writes_tape) return nullptr;
  std::unique_ptr<DeviceTapeColumns> c(new DeviceTapeColumns);
  c->pattern_ = jit::tape_pattern(k);
  const std::vector<jit::TapeLinearOutput> outs = jit::tape_linear_outputs(k, c->pattern_);
  if (!std::all_of(outs.begin(), outs.end(), [](const auto& x) { return x.linear; }))
    return nullptr;
  const jit::TapeColumnPlan plan =
      jit::plan_tape_columns(c->pattern_, outs, k.n_inputs(), group_slots);
  const jit::TapeRestKernel rest = jit::tape_rest_kernel(k, c->pattern_, outs, plan);
  jit::LoweringOptions ro = element_lowering(term, Mode::Jacobian);
  ro.layout = layout;
  ro.sparse_jacobian = true;
  c->n_params_ = k.n_params();
  c->tapes_ = std::make_unique<cuda::CudaKernel>(std::move(tapes));
  c->gather_ = std::make_unique<cuda::CudaKernel>(jit::lower_tape_gather(k, c->pattern_));
  c->rest_ = std::make_unique<cuda::CudaKernel>(jit::lower(rest.kernel, ro));
  const jit::JacobianPattern& rest_pattern = c->rest_->lowered().first_pattern;
  c->fill_ = std::make_unique<cuda::CudaKernel>(
      jit::lower_tape_aux(k, plan, rest_pattern, c->pattern_.size));
  c->columns_ = std::make_unique<cuda::CudaKernel>(
      jit::lower_tape_columns(k, plan, c->pattern_.size, {}, &rest_pattern));
  c->aux_size_ = jit::TapeColumnsAux(plan, k.n_inputs(), &rest_pattern).size();
  return c;
}

void DeviceTapeColumns::run(const jit::ElementLaunch& inputs, double* out, CUstream stream) {
  const int64_t ne = inputs.n_elements;
  if (ne <= 0) return;
  const int64_t nt = static_cast<int64_t>(pattern_.tapes.size());
  const jit::LoweredKernel& tl = tapes_->lowered();
  const jit::LoweredKernel& rl = rest_->lowered();
  ensure(tape_, jit::tape_doubles(pattern_.size, ne) * sizeof(double));
  ensure(values_,
         std::max<size_t>(ne * tl.plan.n_outputs, ne * rl.plan.n_outputs) * sizeof(double));
  ensure(params_, ne * (n_params_ + nt) * sizeof(double));
  ensure(rest_values_, ne * rl.plan.n_outputs * sizeof(double));
  ensure(rest_first_, ne * rl.first_size * sizeof(double));
  ensure(aux_, jit::tape_doubles(aux_size_, ne) * sizeof(double));
  {  // The tapes (its values and first derivatives: none; the pointers must be set).
    jit::ElementLaunch a = inputs;
    a.values = ptr(values_);
    a.first = ptr(values_);
    a.tape = ptr(tape_);
    tapes_->launch(a.args(), stream);
  }
  {
    jit::ArgValues g;
    g.set("n_elements", ne).set("tape", ptr(tape_)).set("params", inputs.params);
    g.set("out", static_cast<const void*>(ptr(params_)));
    gather_->launch(g, stream);
  }
  {
    jit::ElementLaunch a = inputs;
    a.params = ptr(params_);
    a.values = ptr(rest_values_);
    a.first = ptr(rest_first_);
    rest_->launch(a.args(), stream);
  }
  {
    jit::ArgValues f;
    f.set("n_elements", ne).set("tape", ptr(tape_)).set("rest_values", ptr(rest_values_));
    f.set("rest_first", ptr(rest_first_)).set("aux", static_cast<const void*>(ptr(aux_)));
    fill_->launch(f, stream);
  }
  jit::ArgValues b;
  b.set("n_elements", ne).set("tape", ptr(tape_)).set("aux", ptr(aux_));
  b.set("first", static_cast<const void*>(out));
  columns_->launch(b, stream);
}

}  // namespace dualjit::assembly
