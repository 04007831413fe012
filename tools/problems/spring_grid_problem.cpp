// spring-grid: the cloth step of the energy benchmarks (examples/mesh_energy/spring_grid.h:
// axis springs on a jittered n^3 lattice plus per-vertex inertia) assembled by
// assembly::Assembler with the configuration's element strategy, width and layout: per mode,
// the total energy (value), the gradient, H v (hvp) or the general block-CSR Hessian. Checked
// on sampled rows against the reference evaluator.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>

#include "backends/assembly/assembler.h"
#include "backends/mesh/incidence.h"
#include "backends/tuning/element_assembly_config.h"
#include "dsl/reference_evaluator.h"
#include "examples/mesh_energy/spring_grid.h"
#include "tools/problems/builtin_problems.h"

namespace dualjit::tools {
namespace {

constexpr int kBlock = 3;

class GridInstance;

class GridRun : public ProblemRun {
 public:
  GridRun(GridInstance& p, Mode mode, const assembly::AssemblerOptions& o);
  void run() override;
  RunStats stats() const override { return stats_; }
  std::vector<CheckResult> check(int samples) override;

 private:
  GridInstance& p_;
  Mode mode_;
  bool gpu_;
  std::unique_ptr<assembly::Assembler> a_;
  double energy_ = 0;
  std::vector<double> rows_;        // gradient or H v (CPU)
  mesh::BlockCsr<double> hessian_;  // CPU
  RunStats stats_;
};

class GridInstance : public ProblemInstance {
 public:
  // A lattice of side n has 3 n^2 (n - 1) springs: n from the requested spring count.
  explicit GridInstance(int64_t springs)
      : grid_(mesh_energy::spring_grid(std::max(
            2, static_cast<int>(std::lround(std::cbrt(std::max<int64_t>(springs, 1) / 3.0)))))) {}

  std::string summary() const override {
    const std::string n = std::to_string(grid_.n);
    return "spring grid " + n + "^3: " + std::to_string(grid_.problem.n_nodes()) + " vertices, " +
           std::to_string(n_elements()) + " springs, inertia per vertex";
  }
  int64_t n_elements() const override { return grid_.problem.term(0).elements.size(); }
  std::vector<const Kernel*> kernels() const override {
    return {grid_.problem.term(0).kernel.get(), grid_.problem.term(1).kernel.get()};
  }
  std::vector<tuning::TuningCandidate> candidates(Mode mode, Target target) const override {
    std::vector<tuning::TuningCandidate> out;
    for (const auto& o : tuning::element_assembly_candidates(target, mode, 2 * kBlock, kBlock)) {
      out.push_back(
          {tuning::describe_element_assembly(o, mode), tuning::element_assembly_config(o, mode)});
    }
    return out;
  }
  tuning::TuningCandidate heuristic(Mode mode, Target target) const override {
    const auto o = tuning::element_assembly_heuristic(target, mode, kBlock);
    return {tuning::describe_element_assembly(o, mode), tuning::element_assembly_config(o, mode)};
  }
  std::vector<jit::LoweredKernel> lower(Mode mode, const jit::TuningConfig& config,
                                        Target target) override {
    const assembly::AssemblerOptions o = options(config, mode, target);
    std::vector<jit::LoweredKernel> out;
    for (size_t ti = 0; ti < grid_.problem.n_terms(); ++ti) {
      out.push_back(jit::lower(grid_.problem.term(ti).kernel_for(mode),
                               assembly::element_kernel_lowering(grid_.problem, ti, mode, o)));
    }
    return out;
  }
  std::unique_ptr<ProblemRun> prepare(Mode mode, const jit::TuningConfig& config,
                                      Target target) override {
    return std::make_unique<GridRun>(*this, mode, options(config, mode, target));
  }

  static assembly::AssemblerOptions options(const jit::TuningConfig& config, Mode mode,
                                            Target target) {
    assembly::AssemblerOptions o;
    o.backend = target == Target::Cuda ? assembly::Backend::Cuda : assembly::Backend::Cpu;
    tuning::apply_element_assembly_config(config, mode, o);
    return o;
  }
  assembly::Problem& problem() { return grid_.problem; }
  const std::vector<double>& x() const { return grid_.x; }
  const std::vector<double>& v() const { return grid_.v; }

 private:
  mesh_energy::SpringGrid grid_;
};

GridRun::GridRun(GridInstance& p, Mode mode, const assembly::AssemblerOptions& o)
    : p_(p), mode_(mode), gpu_(o.backend == assembly::Backend::Cuda) {
  const auto start = std::chrono::steady_clock::now();
  assembly::Problem& prob = p.problem();
  const int64_t nv = prob.n_nodes(), ns = p.n_elements();
  // Read once: state (and direction), connectivity, params; written once: the output.
  stats_.bytes =
      nv * kBlock * 8.0 * (mode == Mode::Hvp ? 2 : 1) + ns * (2 * 4 + 8) + nv * (4 + 4 * 8);
  if (mode == Mode::Gradient || mode == Mode::Hvp) stats_.bytes += nv * kBlock * 8.0;
  if (mode == Mode::Hessian) stats_.bytes += prob.pattern().n_blocks() * kBlock * kBlock * 8.0;
  a_ = std::make_unique<assembly::Assembler>(prob, o);
  if (gpu_) {
    a_->set_state(p.x());
    a_->set_direction(p.v());
  }
  const KernelStepTimer kernel_step;
  run();  // compiles or loads the kernels and builds the pattern now
  if (gpu_) cuda::check_last("spring-grid assembly");
  kernel_step.stop(stats_);
  for (const assembly::KernelInfo& k : a_->kernels()) {
    stats_.registers = std::max(stats_.registers, k.registers);
    stats_.spill_bytes = std::max(stats_.spill_bytes, k.spill_bytes);
    stats_.kernels += (stats_.kernels.empty() ? "" : ", ") + k.symbol;
    stats_.compiled_now = stats_.compiled_now || k.compiled_now;
  }
  stats_.structure_seconds = -1;
  (void)start;
}

void GridRun::run() {
  assembly::Assembler& a = *a_;
  switch (mode_) {
    case Mode::Value:
      if (gpu_)
        a.run_energy();
      else
        energy_ = a.energy(p_.x());
      break;
    case Mode::Gradient:
      if (gpu_)
        a.run_gradient();
      else
        rows_ = a.gradient(p_.x());
      break;
    case Mode::Hvp:
      if (gpu_)
        a.run_hvp();
      else
        rows_ = a.hvp(p_.x(), p_.v());
      break;
    default:
      if (gpu_)
        a.run_hessian();
      else
        hessian_ = a.hessian(p_.x());
      break;
  }
}

std::vector<CheckResult> GridRun::check(int samples) {
  assembly::Problem& prob = p_.problem();
  assembly::Assembler& a = *a_;
  const auto& x = p_.x();
  const auto& v = p_.v();
  const int B = kBlock;
  const auto element_args = [&](const assembly::Term& t, int64_t e, std::vector<double>& in,
                                std::vector<double>* dir) {
    in.clear();
    if (dir) dir->clear();
    for (int s = 0; s < t.elements.k; ++s) {
      const int64_t m = t.elements.conn[e * t.elements.k + s];
      in.insert(in.end(), &x[m * B], &x[m * B] + B);
      if (dir) dir->insert(dir->end(), &v[m * B], &v[m * B] + B);
    }
    const int np = t.kernel->n_params();
    return ElementArgs{in, std::span<const double>(t.params.data() + e * np, np), t.uniforms};
  };
  std::vector<double> in, dir;
  if (mode_ == Mode::Value) {
    double want = 0;
    for (size_t ti = 0; ti < prob.n_terms(); ++ti) {
      const assembly::Term& t = prob.term(ti);
      for (int64_t e = 0; e < t.elements.size(); ++e)
        want += evaluate_values(t.kernel_for(Mode::Value), element_args(t, e, in, nullptr))[0];
    }
    const double got = a.energy(x);
    return {{"energy", 1, std::abs(got - want) / std::max(1.0, std::abs(want)), 1e-12}};
  }
  std::vector<double> rows;
  mesh::BlockCsr<double> h;
  if (mode_ == Mode::Hessian) {
    h = a.hessian(x);
  } else {
    rows = mode_ == Mode::Gradient ? a.gradient(x) : a.hvp(x, v);
  }
  std::vector<mesh::Incidence> inc;
  for (size_t ti = 0; ti < prob.n_terms(); ++ti)
    inc.push_back(mesh::build_incidence(prob.n_nodes(), prob.term(ti).elements));
  CheckResult cr{mode_ == Mode::Hessian    ? "Hessian blocks"
                 : mode_ == Mode::Gradient ? "gradient rows"
                                           : "H v rows",
                 0, 0, 1e-11};
  const int64_t step = std::max<int64_t>(1, prob.n_nodes() / std::max(samples, 1));
  for (int64_t node = 0; node < prob.n_nodes(); node += step) {
    std::vector<double> r(B, 0.0);
    std::map<int64_t, std::vector<double>> blocks;
    for (size_t ti = 0; ti < prob.n_terms(); ++ti) {
      const assembly::Term& t = prob.term(ti);
      const int k = t.elements.k, n = t.kernel->n_inputs();
      for (int64_t q = inc[ti].ptr[node]; q < inc[ti].ptr[node + 1]; ++q) {
        const int64_t e = inc[ti].element[q];
        const int lv = inc[ti].local_vertex[q];
        if (mode_ == Mode::Hvp) {
          const ElementArgs args = element_args(t, e, in, &dir);
          const HvpResult ref = evaluate_hvp(*t.kernel, args, dir);
          for (int c = 0; c < B; ++c) r[c] += ref.hvp[lv * B + c];
          continue;
        }
        const HessianResult ref = evaluate_hessian(*t.kernel, element_args(t, e, in, nullptr));
        if (mode_ == Mode::Gradient) {
          for (int c = 0; c < B; ++c) r[c] += ref.gradient[lv * B + c];
          continue;
        }
        for (int b = 0; b < k; ++b) {
          auto& blk = blocks[t.elements.conn[e * k + b]];
          blk.resize(B * B, 0.0);
          for (int i = 0; i < B; ++i)
            for (int j = 0; j < B; ++j) blk[i * B + j] += ref.hessian[(lv * B + i) * n + b * B + j];
        }
      }
    }
    const auto err = [](double got, double want, double scale) {
      return std::abs(got - want) / std::max({1e-300, std::abs(want), scale});
    };
    if (mode_ != Mode::Hessian) {
      double scale = 1e-3;
      for (double c : r) scale = std::max(scale, std::abs(c));
      for (int c = 0; c < B; ++c, ++cr.checked)
        cr.worst = std::max(cr.worst, err(rows[node * B + c], r[c], scale));
      continue;
    }
    double scale = 1e-3;
    for (const auto& [_, blk] : blocks)
      for (double c : blk) scale = std::max(scale, std::abs(c));
    for (const auto& [m, blk] : blocks) {
      const int64_t slot = h.pattern->find(node, m);
      for (int i = 0; i < B * B; ++i, ++cr.checked) {
        const double e = slot < 0 ? INFINITY : err(h.values[slot * B * B + i], blk[i], scale);
        cr.worst = std::max(cr.worst, e);
      }
    }
  }
  return {cr};
}

}  // namespace

ProblemRecipe spring_grid_recipe() {
  ProblemRecipe r;
  r.name = "spring-grid";
  r.description =
      "cloth step on a spring lattice: energy, gradient, H v, Hessian assembled over vertices";
  r.size_unit = "springs";
  r.modes = {Mode::Hessian, Mode::Gradient, Mode::Hvp, Mode::Value};
  r.cpu_size = 30000;
  r.gpu_size = 2970000;
  r.small_size = 24;
  r.build = [](int64_t springs) { return std::make_unique<GridInstance>(springs); };
  return r;
}

}  // namespace dualjit::tools
