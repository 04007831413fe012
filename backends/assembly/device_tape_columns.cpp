#include "backends/assembly/device_tape_columns.h"

#include <algorithm>
#include <string>
#include <vector>

#include "jit/cuda_image.h"

namespace dualjit::assembly {
namespace {

double* ptr(const cuda::DeviceBuffer& b) {
  return reinterpret_cast<double*>(b.get());
}

// At least `bytes`, keeping a larger buffer.
void ensure(cuda::DeviceBuffer& b, size_t bytes) {
  if (b.bytes() < bytes) b = cuda::DeviceBuffer(std::max<size_t>(bytes, 8));
}

// The launches compiled in parallel (or loaded from the cache), in order.
std::vector<std::unique_ptr<cuda::CudaKernel>> compile(std::vector<jit::LoweredKernel> launches) {
  const std::string arch = cuda::Context::primary().device().arch();
  const auto options_of = [&](const jit::LoweredKernel& k) {
    return jit::default_compile_options(k, arch);
  };
  std::vector<jit::CudaImage> images = jit::cuda_images(launches, options_of);
  std::vector<std::unique_ptr<cuda::CudaKernel>> out;
  for (size_t i = 0; i < launches.size(); ++i) {
    const jit::CompileOptions options = options_of(launches[i]);
    out.push_back(
        std::make_unique<cuda::CudaKernel>(std::move(launches[i]), options, std::move(images[i])));
  }
  return out;
}

}  // namespace

std::unique_ptr<DeviceTapeColumns> DeviceTapeColumns::make(const Term& term,
                                                           const TapeColumnsSettings& settings,
                                                           ColumnStores stores) {
  std::optional<TapeColumnsLaunches> l = tape_columns_launches(term, settings);
  if (!l) return nullptr;
  std::unique_ptr<DeviceTapeColumns> c(new DeviceTapeColumns);
  c->pattern_ = std::move(l->pattern);
  c->aux_size_ = l->aux_size;
  c->n_params_ = term.kernel->n_params();
  c->direct_size_ = l->direct_size;
  c->uncompiled_ = std::move(l->columns);
  c->uncompiled_expand_ = std::move(l->expand);
  std::vector<jit::LoweredKernel> launches;
  launches.push_back(std::move(l->tapes));
  launches.push_back(std::move(l->rest));
  launches.push_back(std::move(l->fill));
  const bool gathers = l->gather.has_value();
  if (gathers) launches.push_back(std::move(*l->gather));
  const size_t common = launches.size();
  c->take_columns(stores, launches);
  std::vector<std::unique_ptr<cuda::CudaKernel>> kernels = compile(std::move(launches));
  c->tapes_ = std::move(kernels[0]);
  c->rest_ = std::move(kernels[1]);
  c->fill_ = std::move(kernels[2]);
  if (gathers) c->gather_ = std::move(kernels[3]);
  kernels.erase(kernels.begin(), kernels.begin() + static_cast<std::ptrdiff_t>(common));
  c->adopt_columns(stores, std::move(kernels));
  return c;
}

void DeviceTapeColumns::take_columns(ColumnStores stores, std::vector<jit::LoweredKernel>& out) {
  for (jit::LoweredKernel& k : uncompiled_.at(stores)) out.push_back(std::move(k));
  uncompiled_.erase(stores);
  if (stores == ColumnStores::DirectTiles) out.push_back(std::move(*uncompiled_expand_));
}

void DeviceTapeColumns::adopt_columns(ColumnStores stores,
                                      std::vector<std::unique_ptr<cuda::CudaKernel>> kernels) {
  if (stores == ColumnStores::DirectTiles) {
    expand_ = std::move(kernels.back());
    kernels.pop_back();
    uncompiled_expand_.reset();
  }
  columns_[stores] = std::move(kernels);
}

std::vector<const cuda::CudaKernel*> DeviceTapeColumns::kernels() const {
  std::vector<const cuda::CudaKernel*> out = {tapes_.get(), rest_.get(), fill_.get()};
  if (gather_) out.push_back(gather_.get());
  if (expand_) out.push_back(expand_.get());
  for (const auto& [stores, columns] : columns_)
    for (const auto& k : columns) out.push_back(k.get());
  return out;
}

void DeviceTapeColumns::run(const jit::ElementLaunch& inputs, double* out, ColumnStores stores,
                            CUstream stream) {
  const int64_t ne = inputs.n_elements;
  if (ne <= 0) return;
  const bool expands = stores == ColumnStores::DirectTiles;
  if (!columns_.contains(stores)) {
    std::vector<jit::LoweredKernel> launches;
    take_columns(stores, launches);
    adopt_columns(stores, compile(std::move(launches)));
  }
  const int64_t nt = static_cast<int64_t>(pattern_.tapes.size());
  const jit::LoweredKernel& tl = tapes_->lowered();
  const jit::LoweredKernel& rl = rest_->lowered();
  ensure(tape_, jit::tape_doubles(pattern_.size, ne) * sizeof(double));
  ensure(values_,
         std::max<size_t>(ne * tl.plan.n_outputs, ne * rl.plan.n_outputs) * sizeof(double));
  if (gather_) ensure(params_, jit::tape_doubles(n_params_ + nt, ne) * sizeof(double));
  ensure(rest_values_, jit::tape_doubles(rl.plan.n_outputs, ne) * sizeof(double));
  ensure(rest_first_,
         jit::stored_elements(rl.options.first_stores, ne) * rl.first_size * sizeof(double));
  ensure(aux_, jit::tape_doubles(aux_size_, ne) * sizeof(double));
  if (expands) ensure(direct_, jit::tape_doubles(direct_size_, ne) * sizeof(double));
  {  // The tapes (its values and first derivatives: none; the pointers must be set).
    jit::ElementLaunch a = inputs;
    a.values = ptr(values_);
    a.first = ptr(values_);
    a.tape = ptr(tape_);
    tapes_->launch(a.args(), stream);
  }
  if (gather_) {
    jit::ArgValues g;
    g.set("n_elements", ne).set("tape", ptr(tape_)).set("params", inputs.params);
    g.set("out", static_cast<const void*>(ptr(params_)));
    gather_->launch(g, stream);
  }
  {
    jit::ElementLaunch a = inputs;
    a.params = gather_ ? ptr(params_) : ptr(tape_);
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
  b.set("first", static_cast<const void*>(expands ? ptr(direct_) : out));
  for (const auto& columns : columns_.at(stores))
    columns->launch(jit::pack_launch(columns->lowered(), b), stream);
  if (expands) {
    jit::ArgValues x;
    x.set("n_elements", ne).set("direct", ptr(direct_)).set("aux", ptr(aux_));
    x.set("first", static_cast<const void*>(out));
    expand_->launch(jit::pack_launch(expand_->lowered(), x), stream);
  }
}

}  // namespace dualjit::assembly
