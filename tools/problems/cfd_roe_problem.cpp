// cfd-roe: the Euler residual (Roe flux on interior edges, Roe far-field at boundary nodes)
// and its FUN3D-style Jacobian (Adiag fp64, Aoff fp32) on a box of tetrahedra, assembled in
// place: assembly::DeviceAssembly on a GPU, assembly::assemble_on_host on the CPU.
#include <algorithm>
#include <cmath>

#include "backends/assembly/fused_assembly.h"
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

class RoeRun : public ProblemRun {
 public:
  RoeRun(RoeInstance& p, const assembly::FusedOptions& o, Target target);
  void run() override;
  RunStats stats() const override { return stats_; }
  std::vector<CheckResult> check(int samples) override;

 private:
  RoeInstance& p_;
  assembly::FusedOptions o_;
  std::unique_ptr<assembly::DeviceAssembly<float>> device_;
  std::vector<std::unique_ptr<cpu::CpuKernel>> host_kernels_;  // keeps the host code loaded
  std::vector<double> residual_;
  std::unique_ptr<Split> jacobian_;
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
    return assembly::fused_kernels(*problem_, o, /*off_single=*/true, target == Target::Cuda);
  }
  std::unique_ptr<ProblemRun> prepare(Mode mode, const jit::TuningConfig& config,
                                      Target target) override {
    assembly::FusedOptions o = tuning::fused_options(config);
    o.jacobian = mode == Mode::Jacobian;
    return std::make_unique<RoeRun>(*this, o, target);
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

RoeRun::RoeRun(RoeInstance& p, const assembly::FusedOptions& o, Target target) : p_(p), o_(o) {
  assembly::Problem& prob = p.problem();
  const int64_t n_nodes = prob.n_nodes(), n_edges = p.n_elements();
  const int64_t n_off = prob.off_pattern().n_blocks();
  // Inputs read once (state, edges, area vectors, far-field nodes and areas), outputs written
  // once (residual, and Adiag fp64 + Aoff fp32 for the Jacobian).
  stats_.bytes = n_nodes * kBlock * 8.0 + n_edges * (2 * 4 + 3 * 8.0) +
                 p.far_nodes() * (4 + 3 * 8.0) + n_nodes * kBlock * 8.0;
  if (o.jacobian) stats_.bytes += n_nodes * kBlock * kBlock * 8.0 + n_off * kBlock * kBlock * 4.0;
  if (target == Target::Cuda) {
    device_ = std::make_unique<assembly::DeviceAssembly<float>>(prob, o);
    device_->set_state(p.state());
    for (const auto& k : device_->kernels()) {
      const auto attr = k->attributes();
      stats_.registers = std::max(stats_.registers, attr.registers);
      stats_.spill_bytes = std::max(stats_.spill_bytes, attr.local_bytes);
      stats_.compiled_now = stats_.compiled_now || k->compiled_now();
      stats_.kernels += (stats_.kernels.empty() ? "" : ", ") + k->lowered().symbol;
    }
    return;
  }
  // Compile or load the host code now, so that run() times the assembly alone.
  for (jit::LoweredKernel& l :
       p.lower(o.jacobian ? Mode::Jacobian : Mode::Value, tuning::fused_config(o), Target::Cpu)) {
    stats_.kernels += (stats_.kernels.empty() ? "" : ", ") + l.symbol;
    host_kernels_.push_back(std::make_unique<cpu::CpuKernel>(std::move(l)));
    stats_.compiled_now = stats_.compiled_now || host_kernels_.back()->compiled_now();
  }
  residual_.assign(n_nodes * kBlock, 0.0);
  jacobian_ = std::make_unique<Split>(Split::zeros(prob.off_pattern(), kBlock, kBlock));
}

void RoeRun::run() {
  if (device_) {
    device_->run();
    return;
  }
  std::fill(residual_.begin(), residual_.end(), 0.0);
  if (o_.jacobian) jacobian_->set_zero();
  assembly::assemble_on_host<float>(p_.problem(), p_.state(), o_, residual_, *jacobian_);
}

// Sampled rows against the reference evaluator: for node i, its residual row and every block
// of its Jacobian row, rebuilt from the elements incident to i.
std::vector<CheckResult> RoeRun::check(int samples) {
  assembly::Problem& prob = p_.problem();
  std::vector<double> residual = residual_;
  std::unique_ptr<Split> device_jacobian;
  const Split* jac = jacobian_.get();
  if (device_) {
    cuda::check_last("fused assembly");
    residual = device_->residual();
    if (o_.jacobian) {
      device_jacobian = std::make_unique<Split>(device_->jacobian());
      jac = device_jacobian.get();
    }
  }
  const auto& state = p_.state();
  const int64_t n_nodes = prob.n_nodes();
  const int B = kBlock;
  CheckResult rr{"residual rows", 0, 0, 1e-10}, rd{"Jacobian diagonal blocks (fp64)", 0, 0, 1e-10},
      ro{"Jacobian off-diagonal blocks (fp32)", 0, 0, 2e-6};
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
