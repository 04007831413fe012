// The per-element AD paper's cloth benchmark (examples/mesh_energy/cloth_energy.h): energy,
// gradient and the full block-CSR Hessian (both (i, j) and (j, i), 3x3 fp64 blocks) of one
// implicit-Euler step of an n x n spring grid, on the GPU through assembly::Assembler with its
// default strategies, timed with CUDA events after warm-up (medians), against the byte floor:
// every input read once and every output written once at the device-to-device copy bandwidth
// measured in the same run. The configuration x is the grid perturbed by a fixed formula that
// the JAX peer (bench/peers/cloth_jax.py) uses too, so both print the same energy. "Hp" is the
// Hessian with every element's local Hessian projected to positive definite (eigenvalues
// clamped to 1e-9, AssemblerOptions::hessian_projection) and "Hp sum" the sum of its entries,
// which the peer prints for its eigh-projected Hessian.
//
//   cloth_step [N ...]   (default 100 500 1000)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "backends/assembly/assembler.h"
#include "backends/tuning/timing.h"
#include "examples/mesh_energy/cloth_energy.h"

using namespace dualjit;

namespace {

double median_ms(const std::function<void()>& run) {
  return tuning::median_gpu_ms(run, 3, 15);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {100, 500, 1000};
  if (!cuda::driver_available()) {
    std::printf("no GPU: %s\n", cuda::driver_unavailable_reason().c_str());
    return 1;
  }
  const auto& dev = cuda::Context::primary().device();
  cuda::DeviceBuffer src(1ull << 30), dst(1ull << 30);
  src.fill_bytes(1);
  const double bw =
      2.0 * src.bytes() / (median_ms([&] { dst.copy_from(src, src.bytes()); }) * 1e-3);
  std::printf("device %s (%s); copy bandwidth %.0f GB/s\n", dev.name.c_str(), dev.arch().c_str(),
              bw / 1e9);
  std::printf("%6s %9s %9s %9s %8s %8s %8s %8s %8s %8s  %-18s %s\n", "n", "vertices", "springs",
              "blocks", "E ms", "g ms", "H ms", "E+g+H", "floor", "Hp ms", "energy", "Hp sum");
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
    const double all_ms = median_ms([&] {
      a.run_energy();
      a.run_gradient();
      a.run_hessian();
    });
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
    std::printf("%6d %9lld %9lld %9lld %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f  %-18.15g %.12g\n", n,
                (long long)nv, (long long)ns, (long long)blocks, e_ms, g_ms, h_ms, all_ms,
                bytes / bw * 1e3, hp_ms, energy, hp_sum);
  }
  return 0;
}
