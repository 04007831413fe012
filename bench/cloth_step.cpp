// The per-element AD paper's cloth benchmark (examples/mesh_energy/cloth_energy.h): energy,
// gradient and the full block-CSR Hessian (both (i, j) and (j, i), 3x3 fp64 blocks) of one
// implicit-Euler step of an n x n spring grid, on the GPU through assembly::Assembler with its
// default strategies, timed with CUDA events after warm-up (medians), against the byte floor:
// every input read once and every output written once at the device-to-device copy bandwidth
// measured in the same run. The configuration x is the grid perturbed by a fixed formula that
// the JAX peer (bench/peers/cloth_jax.py) uses too, so both print the same energy. "Hp" is the
// Hessian with every element's local Hessian projected to positive definite (eigenvalues
// clamped to 1e-9, AssemblerOptions::hessian_projection) and "Hp sum" the sum of its entries,
// which the peer prints for its eigh-projected Hessian. "CUDA E+g+H" is the hand-written peer
// (bench/peers/cloth_closed_form.cu: closed-form derivatives, one thread per vertex row, one
// fused kernel; the faster of its two write patterns), checked against dualjit's gradient and
// Hessian ("agree": largest relative difference). "E+g+H" is Assembler::run_energy_gradient_
// hessian (one pass: the Hessian's kernels sum the energy and gradient too); the three separate
// calls are printed above each row.
//
//   cloth_step [N ...]   (default 100 500 1000)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

#include "backends/assembly/assembler.h"
#include "backends/cuda/source_module.h"
#include "backends/tuning/timing.h"
#include "bench/energy_bench.h"
#include "examples/mesh_energy/cloth_energy.h"

using namespace dualjit;

namespace {

double median_ms(const std::function<void()>& run) {
  return bench::median_ms(run, 15);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <class T>
T* dptr(const cuda::DeviceBuffer& b) {
  return reinterpret_cast<T*>(b.get());
}

double max_rel(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0, scale = 1e-300;
  for (double v : b) scale = std::max(scale, std::abs(v));
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst / scale;
}

// The hand-written peer's inputs and outputs on the device, and its time for E + g + H.
struct ClosedForm {
  double ms = 0, energy = 0, agree_g = 0, agree_h = 0;
};

// kernel: "cloth_closed_form" (rows written from registers) or "cloth_closed_form_staged"
// (rows through a shared-memory tile of each GPU block's 256 rows).
ClosedForm run_closed_form(const cuda::SourceModule& mod, const std::string& kernel,
                           const mesh_energy::ClothGrid& grid, const mesh::BlockPattern& pattern,
                           const std::vector<double>& x, const std::vector<double>& g_ref,
                           const std::vector<double>& h_ref) {
  const int64_t nv = grid.mesh.n_vertices();
  std::vector<double> slot_rest(pattern.n_blocks(), 1.0);
  for (size_t s = 0; s < grid.rest.size(); ++s) {
    const int32_t a = grid.springs[2 * s], b = grid.springs[2 * s + 1];
    slot_rest[pattern.find(a, b)] = grid.rest[s];
    slot_rest[pattern.find(b, a)] = grid.rest[s];
  }
  const auto row_ptr = cuda::DeviceBuffer::from(pattern.row_ptr32());
  const auto col_idx = cuda::DeviceBuffer::from(pattern.col_idx());
  const auto rest = cuda::DeviceBuffer::from(slot_rest);
  const auto dx = cuda::DeviceBuffer::from(x);
  const auto dxhat = cuda::DeviceBuffer::from(grid.mesh.x);
  cuda::DeviceBuffer grad(nv * 3 * sizeof(double)), vals(pattern.n_blocks() * 9 * sizeof(double));
  long long n = nv, blocks = (nv + 255) / 256;
  cuda::DeviceBuffer partial(blocks * sizeof(double)), energy(sizeof(double));
  const mesh_energy::ClothStep step;
  double m = 1.0 / double(nv), k = step.k, h = step.h, gx = step.g[0], gy = step.g[1],
         gz = step.g[2];
  int* rp = dptr<int>(row_ptr);
  int* ci = dptr<int>(col_idx);
  double *rs = dptr<double>(rest), *px = dptr<double>(dx), *pxh = dptr<double>(dxhat),
         *pg = dptr<double>(grad), *pv = dptr<double>(vals), *pp = dptr<double>(partial),
         *pe = dptr<double>(energy);
  void* a1[] = {&n, &rp, &ci, &rs, &px, &pxh, &m, &k, &h, &gx, &gy, &gz, &pg, &pv, &pp};
  void* a2[] = {&pp, &blocks, &pe};
  unsigned shared = 0;
  if (kernel == "cloth_closed_form_staged") {
    const auto& rp = pattern.row_ptr();
    int64_t most = 0;
    for (int64_t n0 = 0; n0 < nv; n0 += 256)
      most = std::max(most, rp[std::min(n0 + 256, nv)] - rp[n0]);
    shared = unsigned(most * 9 * sizeof(double));
    cuda::set_max_dynamic_shared(mod.function(kernel), int(shared));
  }
  const auto run = [&] {
    cuda::launch(mod.function(kernel), cuda::Dim3{unsigned(blocks)}, cuda::Dim3{256}, shared, a1);
    cuda::launch(mod.function("cloth_energy_sum"), cuda::Dim3{1}, cuda::Dim3{256}, 0, a2);
  };
  run();
  cuda::check_last("hand-written cloth kernel");
  ClosedForm r;
  r.ms = median_ms(run);
  energy.download(&r.energy, sizeof r.energy);
  r.agree_g = max_rel(grad.to_vector<double>(), g_ref);
  r.agree_h = max_rel(vals.to_vector<double>(), h_ref);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {100, 500, 1000};
  double bw = 0;
  if (!bench::open_device(false, &bw)) return 1;
  const cuda::SourceModule closed_form(
      "cloth_closed_form",
      read_text(std::string(DUALJIT_BENCH_DIR) + "/peers/cloth_closed_form.cu"));
  std::printf("%6s %9s %9s %9s %8s %8s %8s %8s %8s %8s %10s %9s  %-18s %s\n", "n", "vertices",
              "springs", "blocks", "E ms", "g ms", "H ms", "E+g+H", "floor", "Hp ms", "CUDA E+g+H",
              "agree", "energy", "Hp sum", "g sum");
  for (int n : sizes) {
    const mesh_energy::ClothGrid grid = mesh_energy::cloth_grid(n);
    const int64_t nv = grid.mesh.n_vertices(), ns = int64_t(grid.rest.size());
    // Compressed and stretched springs: a fixed perturbation of the rest grid.
    const double h = 1.0 / (n - 1);
    std::vector<double> x = grid.mesh.x;
    for (int64_t v = 0; v < nv; ++v)
      for (int c = 0; c < 3; ++c) x[v * 3 + c] += 0.2 * h * std::sin(0.7 * double(v) + 1.3 * c);
    assembly::Problem p = mesh_energy::cloth_problem(grid, grid.mesh.x);
    assembly::Assembler a(p);
    a.set_state(x);
    a.run_energy();
    a.run_gradient();
    a.run_hessian();
    cuda::check_last("cloth step");
    const double e_ms = median_ms([&] { a.run_energy(); });
    const double g_ms = median_ms([&] { a.run_gradient(); });
    const double h_ms = median_ms([&] { a.run_hessian(); });
    const double three_ms = median_ms([&] {
      a.run_energy();
      a.run_gradient();
      a.run_hessian();
    });
    // What a Newton step asks for: the three in one pass (the Hessian's kernels sum the energy
    // and gradient too).
    a.run_energy_gradient_hessian();
    const double all_ms = median_ms([&] { a.run_energy_gradient_hessian(); });
    const int64_t blocks = p.pattern().n_blocks();
    // Inputs once: x, springs (2 int32 + rest), inertia (vertex int32, xhat, mass); outputs
    // once: energy, gradient, Hessian blocks.
    const double bytes = nv * 24.0 + ns * 16.0 + nv * 36.0 + 8.0 + nv * 24.0 + blocks * 72.0;
    double energy = 0;
    cuda::download(&energy, a.run_energy(), sizeof energy);
    assembly::AssemblerOptions po;
    po.hessian_projection = {jit::ProjectionKind::Clamp, 1e-9};
    assembly::Assembler projected(p, po);
    projected.set_state(x);
    projected.run_hessian();
    const double hp_ms = median_ms([&] { projected.run_hessian(); });
    double hp_sum = 0;
    for (double v : projected.hessian(x).values) hp_sum += v;
    const std::vector<double> g = a.gradient(x);
    double g_sum = 0;  // the Dr.Jit peer prints its gradient's sum
    for (double v : g) g_sum += v;
    const std::vector<double> h_ref = a.hessian(x).values;
    const assembly::EnergyGradientHessian fused = a.energy_gradient_hessian(x);
    double fused_agree = std::abs(fused.energy - energy) / std::abs(energy);
    for (size_t i = 0; i < g.size(); ++i)
      fused_agree =
          std::max(fused_agree, std::abs(fused.gradient[i] - g[i]) / std::max(1.0, std::abs(g[i])));
    for (size_t i = 0; i < h_ref.size(); ++i)
      fused_agree = std::max(fused_agree, std::abs(fused.hessian.values[i] - h_ref[i]) /
                                              std::max(1.0, std::abs(h_ref[i])));
    std::printf("       E, g, H as three calls %.3f ms; in one pass %.3f ms (agree %.1e)\n",
                three_ms, all_ms, fused_agree);
    // Fewer rows per GPU block: a staged tile of fewer bytes, more blocks per SM (the springs'
    // kernel's occupancy is set by its tile).
    std::printf("       in one pass with R rows per block:");
    for (int rows : {32, 64, 96}) {
      assembly::AssemblerOptions ro;
      ro.element_layout = {1, rows};
      assembly::Assembler ra(p, ro);
      ra.set_state(x);
      ra.run_energy_gradient_hessian();
      std::printf(" R=%d %.3f ms;", rows, median_ms([&] { ra.run_energy_gradient_hessian(); }));
    }
    std::printf(" R=%d (default) %.3f ms\n",
                assembly::AssemblerOptions{}.element_layout.elements_per_block, all_ms);
    const ClosedForm plain =
        run_closed_form(closed_form, "cloth_closed_form", grid, p.pattern(), x, g, h_ref);
    const ClosedForm staged =
        run_closed_form(closed_form, "cloth_closed_form_staged", grid, p.pattern(), x, g, h_ref);
    std::printf(
        "       hand-written CUDA: rows from registers %.3f ms, through shared memory %.3f ms\n",
        plain.ms, staged.ms);
    const ClosedForm& cf = plain.ms <= staged.ms ? plain : staged;
    std::printf(
        "%6d %9lld %9lld %9lld %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %10.3f %9.1e  %-18.15g %.12g "
        "%.12g\n",
        n, (long long)nv, (long long)ns, (long long)blocks, e_ms, g_ms, h_ms, all_ms,
        bytes / bw * 1e3, hp_ms, cf.ms,
        std::max({cf.agree_g, cf.agree_h, std::abs(cf.energy - energy) / std::abs(energy)}), energy,
        hp_sum, g_sum);
  }
  return 0;
}
