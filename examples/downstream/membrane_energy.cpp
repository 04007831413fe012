// A triangle-mesh membrane energy defined in the DSL, assembled on the CPU backend, and its
// gradient and Hessian checked against central differences of the energy at a random
// configuration. Exits 1 when a check fails.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "backends/assembly/assembler.h"
#include "dsl/kernel.h"

using namespace dualjit;

// Per triangle: 0.5 k A0 (A / A0 - 1)^2, A the area of the deformed triangle and A0 its rest
// area; derivatives are taken with respect to the three vertex positions.
Kernel area_energy_kernel() {
  return Kernel("area_energy", [](KernelBuilder& kb) {
    auto a = kb.input_vec<3>("a");
    auto b = kb.input_vec<3>("b");
    auto c = kb.input_vec<3>("c");
    auto rest_area = kb.param("rest_area", 1);  // per element
    Expr k = kb.uniform("stiffness");           // per launch
    Expr area = 0.5 * norm(cross(b - a, c - a));
    Expr strain = area / rest_area[0] - 1.0;
    kb.output("energy", 0.5 * k * rest_area[0] * strain * strain);
  });
}

// An n x n grid of unit squares, two triangles each, nodes moved randomly off the plane.
struct Membrane {
  int64_t n_nodes = 0;
  mesh::ElementSet triangles{"triangles", 3, {}};
  std::vector<double> positions;  // n_nodes x 3
};

Membrane random_membrane(int n, std::mt19937_64& rng) {
  Membrane m;
  const int side = n + 1;
  m.n_nodes = int64_t{side} * side;
  std::uniform_real_distribution<double> jitter(-0.3, 0.3);
  for (int j = 0; j < side; ++j)
    for (int i = 0; i < side; ++i)
      m.positions.insert(m.positions.end(), {i + jitter(rng), j + jitter(rng), jitter(rng)});
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const int32_t v = j * side + i;
      m.triangles.conn.insert(m.triangles.conn.end(), {v, v + 1, v + side + 1});
      m.triangles.conn.insert(m.triangles.conn.end(), {v, v + side + 1, v + side});
    }
  return m;
}

// Everything this program asks of dualjit's assembly, in one place: the membrane's energy,
// gradient and Hessian (dense, row-major) at positions x, from the one assembler on the CPU
// backend.
class MembraneAssembly {
 public:
  MembraneAssembly(const Membrane& m, double stiffness) : problem_(m.n_nodes, 3) {
    assembly::Term term;
    term.name = "membrane";
    term.kernel = std::make_shared<Kernel>(area_energy_kernel());
    term.elements = m.triangles;
    term.energy = true;
    term.params.assign(m.triangles.size(), 0.5);  // rest area of every triangle
    term.uniforms = {stiffness};
    problem_.add_term(std::move(term));
    assembly::AssemblerOptions cpu;
    cpu.backend = assembly::Backend::Cpu;
    assembler_ = std::make_unique<assembly::Assembler>(problem_, cpu);
  }
  double energy(std::span<const double> x) { return assembler_->energy(x); }
  std::vector<double> gradient(std::span<const double> x) { return assembler_->gradient(x); }
  std::vector<double> hessian(std::span<const double> x) {
    const mesh::BlockCsr<double> h = assembler_->hessian(x);  // 3 x 3 blocks, one per node pair
    const mesh::BlockPattern& p = *h.pattern;
    const int64_t n = p.n_nodes() * 3;
    std::vector<double> dense(n * n);
    for (int64_t row = 0; row < p.n_nodes(); ++row)
      for (int64_t b = p.row_ptr()[row]; b < p.row_ptr()[row + 1]; ++b)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            dense[(row * 3 + i) * n + p.col_idx()[b] * 3 + j] = h.block(b)[i * 3 + j];
    return dense;
  }

 private:
  assembly::Problem problem_;
  std::unique_ptr<assembly::Assembler> assembler_;
};

// Largest difference relative to the largest reference entry; NaN or infinite when the
// reference is zero, so that a check against nothing fails.
double relative_error(const std::vector<double>& value, const std::vector<double>& reference) {
  if (value.size() != reference.size()) return std::numeric_limits<double>::quiet_NaN();
  double difference = 0, scale = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    difference = std::max(difference, std::abs(value[i] - reference[i]));
    scale = std::max(scale, std::abs(reference[i]));
  }
  return difference / scale;
}

bool report(const char* what, double error, double tolerance) {
  const bool ok = error < tolerance;
  std::printf("%-45s max relative error %.2e (tolerance %.0e): %s\n", what, error, tolerance,
              ok ? "ok" : "FAILED");
  return ok;
}

int main() try {
  std::mt19937_64 rng(2024);
  const Membrane membrane = random_membrane(2, rng);
  MembraneAssembly assembly(membrane, 50.0);
  const std::vector<double>& x = membrane.positions;
  const int n = static_cast<int>(x.size());

  std::printf("membrane: %lld nodes, %lld triangles, energy %.6g at a random configuration\n",
              static_cast<long long>(membrane.n_nodes),
              static_cast<long long>(membrane.triangles.size()), assembly.energy(x));

  // The energy with coordinate i of x moved by di and coordinate j by dj.
  auto energy_at = [&](int i, double di, int j = 0, double dj = 0) {
    std::vector<double> y = x;
    y[i] += di;
    y[j] += dj;
    return assembly.energy(y);
  };

  const std::vector<double> g = assembly.gradient(x);
  std::vector<double> fd_g(n);
  const double hg = 1e-6;
  for (int i = 0; i < n; ++i) fd_g[i] = (energy_at(i, hg) - energy_at(i, -hg)) / (2 * hg);

  const std::vector<double> H = assembly.hessian(x);
  std::vector<double> fd_h(n * n);
  const double hh = 1e-4;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      fd_h[i * n + j] = (energy_at(i, hh, j, hh) - energy_at(i, hh, j, -hh) -
                         energy_at(i, -hh, j, hh) + energy_at(i, -hh, j, -hh)) /
                        (4 * hh * hh);

  bool ok = report("gradient against central differences of E", relative_error(g, fd_g), 1e-6);
  ok &= report("Hessian against central differences of E", relative_error(H, fd_h), 1e-6);
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "membrane_energy: %s\n", e.what());
  return 1;
}
