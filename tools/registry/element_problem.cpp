#include "tools/registry/element_problem.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "backends/assembly/assembler.h"
#include "backends/cpu/cpu_kernel.h"
#include "backends/cuda/cuda_kernel.h"
#include "backends/tuning/element_config.h"
#include "dsl/reference_evaluator.h"
#include "jit/element_driver.h"

namespace dualjit::tools {
namespace {

double rel_err(double a, double b, double scale) {
  return std::abs(a - b) / std::max({1.0, std::abs(b), scale});
}

class ElementProblem;

// Element-major results of one run, wherever they were computed.
struct ElementOutputs {
  std::vector<double> values, first, second;
};

class ElementRun : public ProblemRun {
 public:
  ElementRun(const ElementProblem& p, jit::LoweredKernel lowered, Target target);
  void run() override;
  RunStats stats() const override { return stats_; }
  std::vector<CheckResult> check(int samples) override;

 private:
  ElementOutputs download() const;

  const ElementProblem& p_;
  Target target_;
  std::unique_ptr<cpu::CpuKernel> cpu_;
  std::unique_ptr<cuda::CudaKernel> gpu_;
  ElementOutputs host_;
  std::vector<double> directions_;
  cuda::DeviceBuffer d_conn_, d_field_, d_dir_, d_params_, d_values_, d_first_, d_second_;
  std::vector<double> host_tape_;  // kernels that keep tapes (jit/tape_pattern.h)
  cuda::DeviceBuffer d_tape_;
  jit::ElementLaunch args_;
  RunStats stats_;
};

class ElementProblem : public ProblemInstance {
 public:
  ElementProblem(std::shared_ptr<const Kernel> k, ElementProblemData d,
                 std::shared_ptr<const Kernel> value_kernel)
      : kernel_(std::move(k)), value_kernel_(std::move(value_kernel)), d_(std::move(d)) {
    const Kernel& k0 = *kernel_;
    if (value_kernel_) {
      try {
        assembly::check_kernel_slots("element problem of kernel '" + k0.name() + "'", k0,
                                     *value_kernel_);
      } catch (const assembly::ProblemError& e) {
        throw std::invalid_argument(e.what());
      }
    }
    const auto inputs = k0.slots_of(SlotKind::Input);
    if (d_.input_vertex.empty()) {
      for (size_t s = 0; s < inputs.size(); ++s) d_.input_vertex.push_back(static_cast<int>(s));
    }
    const auto fail = [&](const std::string& what) {
      throw std::invalid_argument("element problem of kernel '" + k0.name() + "': " + what);
    };
    if (d_.input_vertex.size() != inputs.size()) fail("input_vertex does not match the slots");
    for (const Slot& s : inputs) {
      if (s.size != d_.field_width) fail("input slot '" + s.name + "' is not field_width wide");
    }
    if (d_.vertices < 1 || d_.conn.size() % d_.vertices) fail("conn is not n x vertices");
    if (static_cast<int64_t>(d_.field.size()) != d_.n_nodes * d_.field_width)
      fail("field is not n_nodes x field_width");
    for (int32_t v : d_.conn) {
      if (v < 0 || v >= d_.n_nodes) fail("connectivity names node " + std::to_string(v));
    }
    if (static_cast<int64_t>(d_.params.size()) != n_elements() * k0.n_params())
      fail("params is not n_elements x " + std::to_string(k0.n_params()));
    if (static_cast<int>(d_.uniforms.size()) != k0.n_uniforms())
      fail("needs " + std::to_string(k0.n_uniforms()) + " uniforms");
  }

  std::string summary() const override { return d_.summary; }
  int64_t n_elements() const override { return static_cast<int64_t>(d_.conn.size()) / d_.vertices; }
  std::vector<const Kernel*> kernels() const override {
    if (value_kernel_) return {kernel_.get(), value_kernel_.get()};
    return {kernel_.get()};
  }

  std::vector<tuning::TuningCandidate> candidates(Mode, Target target) const override {
    std::vector<tuning::TuningCandidate> out;
    for (const auto& c : tuning::element_candidates(target, kernel_->n_inputs())) {
      out.push_back({tuning::describe_element(c), tuning::element_config_fields(c)});
    }
    return out;
  }
  tuning::TuningCandidate heuristic(Mode, Target target) const override {
    const auto c = tuning::element_heuristic(target, kernel_->n_inputs());
    return {tuning::describe_element(c), tuning::element_config_fields(c)};
  }
  std::vector<jit::LoweredKernel> lower(Mode mode, const jit::TuningConfig& config,
                                        Target) override {
    const tuning::ElementConfig c = tuning::element_config(config);
    jit::LoweringOptions o;
    o.mode = mode;
    o.width = c.width;
    o.layout = c.layout;
    o.input_vertex = d_.input_vertex;
    return {jit::lower(kernel_for(mode), o)};
  }
  std::unique_ptr<ProblemRun> prepare(Mode mode, const jit::TuningConfig& config,
                                      Target target) override {
    return std::make_unique<ElementRun>(*this, lower(mode, config, target).front(), target);
  }

  const Kernel& kernel() const { return *kernel_; }
  // The graph `mode` lowers: the value kernel for Mode::Value where there is one.
  const Kernel& kernel_for(Mode mode) const {
    return mode == Mode::Value && value_kernel_ ? *value_kernel_ : *kernel_;
  }
  const ElementProblemData& data() const { return d_; }

 private:
  std::shared_ptr<const Kernel> kernel_;
  std::shared_ptr<const Kernel> value_kernel_;  // null: kernel_ in every mode
  ElementProblemData d_;
};

ElementRun::ElementRun(const ElementProblem& p, jit::LoweredKernel lowered, Target target)
    : p_(p), target_(target) {
  const auto start = std::chrono::steady_clock::now();
  const auto structure_seconds = [&] {  // the rest of the constructor
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() -
           stats_.kernel_seconds;
  };
  const auto& d = p.data();
  const int64_t n = p.n_elements();
  const auto& l = lowered;
  const size_t n_out = static_cast<size_t>(l.plan.n_outputs);
  if (l.plan.mode == Mode::Hvp) {
    directions_.resize(d.field.size());
    for (size_t i = 0; i < directions_.size(); ++i) directions_[i] = std::sin(0.7 * i + 0.3);
  }
  stats_.kernels = l.symbol;
  stats_.bytes =
      n * (d.vertices * 4.0 +
           (d.input_vertex.size() * d.field_width * (directions_.empty() ? 1 : 2)) * 8.0 +
           p.kernel().n_params() * 8.0 + (n_out + l.first_size + l.second_size) * 8.0 +
           2.0 * l.tape_size * 8.0);  // a tape is written once and read back
  host_.values.resize(n * n_out);
  host_.first.resize(n * l.first_size);
  host_.second.resize(n * l.second_size);
  args_.n_elements = n;
  args_.vertices_per_element = d.vertices;
  args_.uniforms = d.uniforms;
  if (target == Target::Cpu) {
    const KernelStepTimer kernel_step;
    cpu_ = std::make_unique<cpu::CpuKernel>(std::move(lowered));
    kernel_step.stop(stats_);
    stats_.compiled_now = cpu_->compiled_now();
    args_.conn = d.conn.data();
    args_.fields.assign(d.input_vertex.size(), d.field.data());
    if (!directions_.empty()) args_.directions.assign(d.input_vertex.size(), directions_.data());
    args_.params = d.params.empty() ? nullptr : d.params.data();
    args_.values = host_.values.data();
    args_.first = host_.first.empty() ? nullptr : host_.first.data();
    args_.second = host_.second.empty() ? nullptr : host_.second.data();
    host_tape_.resize(jit::tape_doubles(cpu_->lowered().tape_size, n));
    args_.tape = host_tape_.empty() ? nullptr : host_tape_.data();
    stats_.structure_seconds = structure_seconds();
    return;
  }
  const KernelStepTimer kernel_step;
  gpu_ = std::make_unique<cuda::CudaKernel>(std::move(lowered));
  kernel_step.stop(stats_);
  stats_.compiled_now = gpu_->compiled_now();
  const auto attr = gpu_->attributes();
  stats_.registers = attr.registers;
  stats_.spill_bytes = attr.local_bytes;
  d_conn_ = cuda::DeviceBuffer::from(d.conn);
  d_field_ = cuda::DeviceBuffer::from(d.field);
  if (!directions_.empty()) d_dir_ = cuda::DeviceBuffer::from(directions_);
  if (!d.params.empty()) d_params_ = cuda::DeviceBuffer::from(d.params);
  d_values_ = cuda::DeviceBuffer(host_.values.size() * 8);
  d_first_ = cuda::DeviceBuffer(host_.first.size() * 8);
  d_second_ = cuda::DeviceBuffer(host_.second.size() * 8);
  const auto dp = [](const cuda::DeviceBuffer& b) { return reinterpret_cast<double*>(b.get()); };
  args_.conn = reinterpret_cast<const int32_t*>(d_conn_.get());
  args_.fields.assign(d.input_vertex.size(), dp(d_field_));
  if (!directions_.empty()) args_.directions.assign(d.input_vertex.size(), dp(d_dir_));
  args_.params = dp(d_params_);
  args_.values = dp(d_values_);
  args_.first = host_.first.empty() ? nullptr : dp(d_first_);
  args_.second = host_.second.empty() ? nullptr : dp(d_second_);
  if (const int64_t tape = jit::tape_doubles(gpu_->lowered().tape_size, n); tape > 0) {
    d_tape_ = cuda::DeviceBuffer(tape * 8);
    args_.tape = dp(d_tape_);
  }
  stats_.structure_seconds = structure_seconds();
}

void ElementRun::run() {
  if (cpu_) {
    cpu_->run(args_.args());
  } else {
    gpu_->launch(args_.args());
  }
}

ElementOutputs ElementRun::download() const {
  if (cpu_) return host_;
  cuda::check_last("element kernel");
  ElementOutputs out = host_;
  d_values_.download(out.values.data(), out.values.size() * 8);
  if (!out.first.empty()) d_first_.download(out.first.data(), out.first.size() * 8);
  if (!out.second.empty()) d_second_.download(out.second.data(), out.second.size() * 8);
  return out;
}

std::vector<CheckResult> ElementRun::check(int samples) {
  const ElementOutputs out = download();
  const auto& d = p_.data();
  const jit::LoweredKernel& l = cpu_ ? cpu_->lowered() : gpu_->lowered();
  const Mode mode = l.plan.mode;
  const Kernel& k = p_.kernel_for(mode);  // the graph that ran
  const int n_in = k.n_inputs(), n_out = k.n_outputs();
  const int64_t n = p_.n_elements();
  CheckResult r;
  r.what = "elements vs the reference evaluator (" + std::string(mode_name(mode)) + ")";
  r.tolerance = 1e-10;
  const int64_t step = std::max<int64_t>(1, n / std::max(samples, 1));
  for (int64_t e = 0; e < n; e += step) {
    std::vector<double> x, dir;
    for (int v : d.input_vertex) {
      const int64_t node = d.conn[e * d.vertices + v];
      for (int c = 0; c < d.field_width; ++c) {
        x.push_back(d.field[node * d.field_width + c]);
        if (!directions_.empty()) dir.push_back(directions_[node * d.field_width + c]);
      }
    }
    const std::span<const double> prm(d.params.data() + e * k.n_params(), k.n_params());
    const ElementArgs args{x, prm, d.uniforms};
    const auto cmp = [&](double got, double want, double scale) {
      r.worst = std::max(r.worst, rel_err(got, want, scale));
      ++r.checked;
    };
    if (mode == Mode::Value || mode == Mode::Jacobian) {
      const auto ref = evaluate_jacobian(k, args, n_in);
      for (int o = 0; o < n_out; ++o) cmp(out.values[e * n_out + o], ref.values[o], 0);
      if (mode == Mode::Jacobian) {
        for (size_t i = 0; i < l.first_size; ++i)
          cmp(out.first[e * l.first_size + i], ref.jacobian[i], 0);
      }
    } else if (mode == Mode::Hvp) {
      const auto ref = evaluate_hvp(k, args, dir);
      cmp(out.values[e], ref.value, 0);
      for (int i = 0; i < n_in; ++i) {
        cmp(out.first[e * l.first_size + i], ref.gradient[i], 0);
        cmp(out.second[e * l.second_size + i], ref.hvp[i], 0);
      }
    } else {  // Gradient, Hessian
      const auto ref = evaluate_hessian(k, args);
      cmp(out.values[e], ref.value, 0);
      for (int i = 0; i < n_in; ++i) cmp(out.first[e * l.first_size + i], ref.gradient[i], 0);
      if (mode == Mode::Hessian) {
        for (int i = 0; i < n_in; ++i) {
          for (int j = i; j < n_in; ++j) {
            cmp(out.second[e * l.second_size + packed_upper_index(n_in, i, j)],
                ref.hessian[i * n_in + j], 0);
          }
        }
      }
    }
  }
  std::vector<CheckResult> results = {r};
  // On the host, an energy's element gradients also go through the host Problem, which
  // assembles the global gradient: sampled rows must equal the sums of element gradients.
  if (cpu_ && k.scalar_output() && (mode == Mode::Gradient || mode == Mode::Hessian)) {
    assembly::Problem prob(d.n_nodes, d.field_width);
    assembly::Term t;
    t.name = k.name();
    t.kernel = std::shared_ptr<const Kernel>(&k, [](const Kernel*) {});
    t.elements = {"elements", d.vertices, d.conn};
    t.input_vertex = d.input_vertex;
    t.energy = true;
    t.params = d.params;
    t.uniforms = d.uniforms;
    prob.add_term(std::move(t));
    assembly::AssemblerOptions host;
    host.backend = assembly::Backend::Cpu;
    const std::vector<double> g = assembly::Assembler(prob, host).gradient(d.field);
    std::vector<double> sum(g.size(), 0.0);
    for (int64_t e = 0; e < n; ++e) {
      for (size_t s = 0; s < d.input_vertex.size(); ++s) {
        const int64_t node = d.conn[e * d.vertices + d.input_vertex[s]];
        for (int c = 0; c < d.field_width; ++c)
          sum[node * d.field_width + c] += out.first[e * l.first_size + s * d.field_width + c];
      }
    }
    CheckResult a;
    a.what = "assembled gradient (CPU Assembler) vs element sums";
    a.tolerance = 1e-10;
    double scale = 0;
    for (double v : sum) scale = std::max(scale, std::abs(v));
    for (size_t i = 0; i < g.size(); i += std::max<size_t>(1, g.size() / samples)) {
      a.worst = std::max(a.worst, rel_err(g[i], sum[i], scale));
      ++a.checked;
    }
    results.push_back(a);
  }
  return results;
}

}  // namespace

std::unique_ptr<ProblemInstance> make_element_problem(std::shared_ptr<const Kernel> kernel,
                                                      ElementProblemData data,
                                                      std::shared_ptr<const Kernel> value_kernel) {
  return std::make_unique<ElementProblem>(std::move(kernel), std::move(data),
                                          std::move(value_kernel));
}

}  // namespace dualjit::tools
