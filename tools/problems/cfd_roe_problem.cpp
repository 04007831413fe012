// cfd-roe: the Euler residual (Roe flux on interior edges, Roe far-field at boundary nodes)
// and its FUN3D-style Jacobian (Adiag fp64, Aoff fp32) on a box of tetrahedra, assembled in
// place by assembly::Assembler with the configuration's strategy. Baseline for `dualjit
// bench`: the two-pass path (element Jacobians to memory, then gathered into a general fp64
// block CSR: Assembler::jacobian), with the residual.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "backends/assembly/assembler.h"
#include "backends/cpu/cpu_kernel.h"
#include "backends/cuda/cuda_kernel.h"
#include "backends/mesh/incidence.h"
#include "backends/tuning/tuned_choice.h"
#include "dsl/reference_evaluator.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_problem.h"
#include "tools/problems/builtin_problems.h"

namespace dualjit::tools {
namespace {

constexpr int kBlock = 5;
using Split = mesh::SplitBlockCsr<float>;

class RoeInstance;

constexpr const char* kTwoPass = "two-pass";

class RoeRun : public ProblemRun {
 public:
  enum class Path { Fused, TwoPass };
  RoeRun(RoeInstance& p, const assembly::FusedOptions& o, Target target, Path path = Path::Fused);
  void run() override;
  RunStats stats() const override { return stats_; }
  std::vector<CheckResult> check(int samples) override;

 private:
  RoeInstance& p_;
  assembly::FusedOptions o_;
  Path path_;
  Target target_;
  std::unique_ptr<assembly::Assembler> assembler_;
  std::vector<double> residual_;
  std::unique_ptr<Split> jacobian_;
  mesh::BlockCsr<double> two_pass_jacobian_;
  RunStats stats_;
};

class RoeInstance : public ProblemInstance {
 public:
  explicit RoeInstance(int64_t edges) {
    // A box of n^3 hexahedra, 6 tets each, has about 7 n^3 edges.
    side_ =
        std::max(1, static_cast<int>(std::lround(std::cbrt(std::max<int64_t>(edges, 1) / 7.0))));
    const cfd::TetMesh mesh = cfd::box_tet_mesh(side_, side_, side_);
    em_ = cfd::build_edge_mesh(mesh);
    problem_ = std::make_unique<assembly::Problem>(cfd::roe_problem(em_));
    state_ = cfd::perturbed_state(em_.n_nodes, {}, 0.2, 3);
  }

  std::string summary() const override {
    const std::string n = std::to_string(side_);
    return "box of " + n + "x" + n + "x" + n +
           " hexahedra (6 tets each): " + std::to_string(em_.n_nodes) + " nodes, " +
           std::to_string(em_.n_edges()) + " edges, " + std::to_string(far_nodes()) +
           " far-field nodes";
  }
  int64_t n_elements() const override { return em_.n_edges(); }
  std::vector<const Kernel*> kernels() const override {
    return tuning::vector_term_kernels(*problem_);
  }
  std::vector<tuning::TuningCandidate> candidates(Mode mode, Target target) const override {
    std::vector<tuning::TuningCandidate> out;
    for (const auto& o : tuning::fused_candidates(target, kBlock, 2, mode == Mode::Jacobian)) {
      out.push_back({tuning::describe_fused(o), tuning::fused_config(o)});
    }
    return out;
  }
  tuning::TuningCandidate heuristic(Mode mode, Target target) const override {
    const auto o = tuning::fused_heuristic(target, kBlock, 2, mode == Mode::Jacobian);
    return {tuning::describe_fused(o), tuning::fused_config(o)};
  }
  std::vector<jit::LoweredKernel> lower(Mode mode, const jit::TuningConfig& config,
                                        Target target) override {
    assembly::FusedOptions o = tuning::fused_options(config);
    o.jacobian = mode == Mode::Jacobian;
    std::vector<jit::LoweredKernel> out;
    for (auto& f :
         assembly::fused_kernels(*problem_, o, /*off_single=*/true, target == Target::Cuda))
      out.push_back(std::move(f.lowered));
    return out;
  }
  std::unique_ptr<ProblemRun> prepare(Mode mode, const jit::TuningConfig& config,
                                      Target target) override {
    assembly::FusedOptions o = tuning::fused_options(config);
    o.jacobian = mode == Mode::Jacobian;
    return std::make_unique<RoeRun>(*this, o, target);
  }
  std::vector<BaselineInfo> baselines(Mode, Target target) const override {
    return {{kTwoPass, target == Target::Cuda
                           ? "element Jacobians to memory, then deterministic gather into an "
                             "fp64 BSR (DeviceElementAssembly)"
                           : "host Problem: element Jacobians, then serial assembly (fp32 Aoff)"}};
  }
  std::unique_ptr<ProblemRun> prepare_baseline(const std::string& name, Mode mode,
                                               Target target) override {
    if (name != kTwoPass) return ProblemInstance::prepare_baseline(name, mode, target);
    assembly::FusedOptions o;
    o.jacobian = mode == Mode::Jacobian;
    return std::make_unique<RoeRun>(*this, o, target, RoeRun::Path::TwoPass);
  }

  assembly::Problem& problem() { return *problem_; }
  const std::vector<double>& state() const { return state_; }
  const cfd::EdgeMesh& edge_mesh() const { return em_; }
  int64_t far_nodes() const {
    return problem_->n_terms() > 1 ? problem_->term(1).elements.size() : 0;
  }

 private:
  int side_ = 1;
  cfd::EdgeMesh em_;
  std::unique_ptr<assembly::Problem> problem_;
  std::vector<double> state_;
};

RoeRun::RoeRun(RoeInstance& p, const assembly::FusedOptions& o, Target target, Path path)
    : p_(p), o_(o), path_(path), target_(target) {
  const auto start = std::chrono::steady_clock::now();
  assembly::Problem& prob = p.problem();
  const int64_t n_nodes = prob.n_nodes(), n_edges = p.n_elements();
  const int64_t n_off = prob.off_pattern().n_blocks();
  // Inputs read once (state, edges, area vectors, far-field nodes and areas), outputs written
  // once (residual, and Adiag fp64 + Aoff fp32 for the Jacobian).
  stats_.bytes = n_nodes * kBlock * 8.0 + n_edges * (2 * 4 + 3 * 8.0) +
                 p.far_nodes() * (4 + 3 * 8.0) + n_nodes * kBlock * 8.0;
  if (o.jacobian) stats_.bytes += n_nodes * kBlock * kBlock * 8.0 + n_off * kBlock * kBlock * 4.0;
  assembly::AssemblerOptions ao;
  ao.backend = target == Target::Cuda ? assembly::Backend::Cuda : assembly::Backend::Cpu;
  ao.fused = o;
  residual_.assign(n_nodes * kBlock, 0.0);
  if (path == Path::TwoPass) {
    // The baseline is the two-pass path: element Jacobians to memory, then the gather.
    ao.vector_strategy = ao.matrix_strategy = assembly::ElementStrategy::Gather;
    stats_.kernels = "two-pass";
    assembler_ = std::make_unique<assembly::Assembler>(prob, ao);
    if (target == Target::Cuda) assembler_->set_state(p.state());
    run();  // compiles or loads the element and gather kernels now
    if (target == Target::Cuda) cuda::check_last("two-pass assembly");
    return;
  }
  // The kernels on their own first: the assembler compiles or loads them in between building
  // structure, and then finds them in the process's cache. (It lowers them again, about 10 ms
  // for the Roe kernels, counted as structure.)
  const KernelStepTimer kernel_step;
  for (assembly::FusedKernel& f :
       assembly::fused_kernels(prob, o, /*off_single=*/true, target == Target::Cuda)) {
    jit::LoweredKernel& l = f.lowered;
    const bool compiled = target == Target::Cuda ? cuda::CudaKernel(std::move(l)).compiled_now()
                                                 : cpu::CpuKernel(std::move(l)).compiled_now();
    stats_.compiled_now = stats_.compiled_now || compiled;
  }
  kernel_step.stop(stats_);
  assembler_ = std::make_unique<assembly::Assembler>(prob, ao);
  if (target == Target::Cuda) assembler_->set_state(p.state());
  run();  // builds the structure and loads the kernels now, so that run() times assembly alone
  if (target == Target::Cuda) cuda::check_last("fused assembly");
  for (const assembly::KernelInfo& k : assembler_->kernels()) {
    stats_.registers = std::max(stats_.registers, k.registers);
    stats_.spill_bytes = std::max(stats_.spill_bytes, k.spill_bytes);
    stats_.kernels += (stats_.kernels.empty() ? "" : ", ") + k.symbol;
  }
  stats_.structure_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() -
      stats_.kernel_seconds;
}

void RoeRun::run() {
  assembly::Assembler& a = *assembler_;
  const bool gpu = target_ == Target::Cuda;
  if (path_ == Path::TwoPass) {
    if (gpu) {
      a.run_residual();
      if (o_.jacobian) a.run_jacobian();
    } else {
      residual_ = a.residual(p_.state());
      if (o_.jacobian) two_pass_jacobian_ = a.jacobian(p_.state());
    }
    return;
  }
  if (gpu) {
    if (o_.jacobian) {
      a.run_jacobian_split<float>();
    } else {
      a.run_residual();
    }
    return;
  }
  if (o_.jacobian) {
    jacobian_ = std::make_unique<Split>(a.jacobian_split<float>(p_.state(), &residual_));
  } else {
    residual_ = a.residual(p_.state());
  }
}

// A general block-CSR matrix (diagonal blocks in the pattern) as Adiag (fp64) + Aoff (fp32)
// over the problem's off-diagonal pattern.
Split split_of(const mesh::BlockCsr<double>& m, assembly::Problem& prob) {
  Split out = Split::zeros(prob.off_pattern(), kBlock, kBlock);
  const mesh::BlockPattern& pat = *m.pattern;
  const int BB = kBlock * kBlock;
  for (int64_t row = 0; row < pat.n_nodes(); ++row) {
    for (int64_t q = pat.row_ptr()[row]; q < pat.row_ptr()[row + 1]; ++q) {
      const int64_t col = pat.col_idx()[q];
      const double* blk = m.values.data() + q * BB;
      if (col == row) {
        std::copy(blk, blk + BB, out.diag.data() + row * BB);
        continue;
      }
      const int64_t slot = out.pattern().find(row, col);
      if (slot < 0) {
        throw std::logic_error("two-pass Jacobian: block (" + std::to_string(row) + ", " +
                               std::to_string(col) + ") is not in the off-diagonal pattern");
      }
      std::copy(blk, blk + BB, out.off.values.data() + slot * BB);
    }
  }
  return out;
}

// Sampled rows against the reference evaluator: for node i, its residual row and every block
// of its Jacobian row, rebuilt from the elements incident to i.
std::vector<CheckResult> RoeRun::check(int samples) {
  assembly::Problem& prob = p_.problem();
  // The results of one more assembly of the same state, downloaded (the device runs enqueue
  // only); the two-pass general BSR is split into Adiag and Aoff for the comparison.
  std::vector<double> residual;
  std::unique_ptr<Split> jac;
  assembly::Assembler& a = *assembler_;
  if (path_ == Path::TwoPass) {
    residual = a.residual(p_.state());
    if (o_.jacobian) jac = std::make_unique<Split>(split_of(a.jacobian(p_.state()), prob));
  } else if (o_.jacobian) {
    jac = std::make_unique<Split>(a.jacobian_split<float>(p_.state(), &residual));
  } else {
    residual = a.residual(p_.state());
  }
  const auto& state = p_.state();
  const int64_t n_nodes = prob.n_nodes();
  const int B = kBlock;
  // Single tangents (fp32 derivative arithmetic) make both Jacobian parts fp32-accurate.
  const bool st = o_.single_tangents;
  CheckResult rr{"residual rows", 0, 0, 1e-10},
      rd{st ? "Jacobian diagonal blocks (fp64, fp32 tangents)" : "Jacobian diagonal blocks (fp64)",
         0, 0, st ? 2e-5 : 1e-10},
      ro{"Jacobian off-diagonal blocks (fp32)", 0, 0, st ? 2e-5 : 2e-6};
  std::vector<mesh::Incidence> inc;
  for (size_t ti = 0; ti < prob.n_terms(); ++ti) {
    inc.push_back(mesh::build_incidence(n_nodes, prob.term(ti).elements));
  }
  const int64_t step = std::max<int64_t>(1, n_nodes / std::max(samples, 1));
  for (int64_t node = 0; node < n_nodes; node += step) {
    std::vector<double> r(B, 0.0);
    std::map<int64_t, std::vector<double>> blocks;  // column node -> B x B
    for (size_t ti = 0; ti < prob.n_terms(); ++ti) {
      const assembly::Term& t = prob.term(ti);
      const int k = t.elements.k;
      const Kernel& kern = *t.kernel;
      for (int64_t q = inc[ti].ptr[node]; q < inc[ti].ptr[node + 1]; ++q) {
        const int64_t e = inc[ti].element[q];
        const int lv = inc[ti].local_vertex[q];
        std::vector<double> x;
        for (int v : t.input_vertex) {
          const int64_t m = t.elements.conn[e * k + v];
          x.insert(x.end(), &state[m * B], &state[m * B] + B);
        }
        const std::span<const double> prm(t.params.data() + e * kern.n_params(), kern.n_params());
        const JacobianResult ref = evaluate_jacobian(kern, {x, prm, t.uniforms}, kern.n_inputs());
        const int n_in = kern.n_inputs();
        for (size_t os = 0; os < t.output_scatter.size(); ++os) {
          for (const assembly::Scatter& sc : t.output_scatter[os]) {
            if (sc.vertex != lv) continue;
            for (int c = 0; c < B; ++c) r[c] += sc.sign * ref.values[os * B + c];
            for (size_t s = 0; s < t.input_vertex.size(); ++s) {
              const int64_t m = t.elements.conn[e * k + t.input_vertex[s]];
              auto& blk = blocks[m];
              blk.resize(B * B, 0.0);
              for (int a = 0; a < B; ++a) {
                for (int b = 0; b < B; ++b) {
                  blk[a * B + b] += sc.sign * ref.jacobian[(os * B + a) * n_in + s * B + b];
                }
              }
            }
          }
        }
      }
    }
    double rscale = 0, jscale = 0;
    for (double v : r) rscale = std::max(rscale, std::abs(v));
    for (const auto& [_, blk] : blocks)
      for (double v : blk) jscale = std::max(jscale, std::abs(v));
    const auto err = [](double got, double want, double scale) {
      return std::abs(got - want) / std::max({1e-300, std::abs(want), scale});
    };
    for (int c = 0; c < B; ++c) {
      rr.worst = std::max(rr.worst, err(residual[node * B + c], r[c], std::max(rscale, 1e-3)));
      ++rr.checked;
    }
    if (!o_.jacobian) continue;
    for (const auto& [m, blk] : blocks) {
      const bool diag = m == node;
      const int64_t slot = diag ? -1 : jac->pattern().find(node, m);
      CheckResult& cr = diag ? rd : ro;
      for (int i = 0; i < B * B; ++i) {
        const double got = diag       ? jac->diag[node * B * B + i]
                           : slot < 0 ? NAN
                                      : static_cast<double>(jac->off.values[slot * B * B + i]);
        const double e = err(got, blk[i], jscale);
        cr.worst = std::isnan(e) ? INFINITY : std::max(cr.worst, e);
        ++cr.checked;
      }
    }
  }
  if (!o_.jacobian) return {rr};
  return {rr, rd, ro};
}

}  // namespace

ProblemRecipe cfd_roe_recipe() {
  ProblemRecipe r;
  r.name = "cfd-roe";
  r.description = "Euler residual + FUN3D Jacobian (Roe flux, far field) on a box of tetrahedra";
  r.size_unit = "edges";
  r.modes = {Mode::Jacobian, Mode::Value};
  r.cpu_size = 20000;
  r.gpu_size = 6000000;
  r.small_size = 7;
  r.build = [](int64_t edges) { return std::make_unique<RoeInstance>(edges); };
  return r;
}

}  // namespace dualjit::tools
