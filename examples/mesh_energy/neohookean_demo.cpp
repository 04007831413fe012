#include "examples/mesh_energy/neohookean_demo.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "examples/mesh_energy/demo_output.h"
#include "examples/mesh_energy/neo_hookean_problem.h"
#include "examples/mesh_energy/solve_plot.h"
#include "examples/render/boundary_faces.h"
#include "examples/render/mesh_view.h"
#include "solvers/newton.h"
#include "solvers/objective.h"

namespace dualjit::mesh_energy {

namespace {

// Newton stops when the free forces are this fraction of the beam's weight (far below anything
// visible), or when the decrement, the energy it still predicts to gain, is below this fraction
// of the energy: the stable Neo-Hookean energy carries a large constant (mu/2 log(I_C + 1) at
// rest), and below that the line search can no longer tell a decrease from round-off.
constexpr double kForceTolerance = 1e-7, kDecrementTolerance = 1e-14;

// Smallest ratio of deformed to rest volume over the tets (negative: an inverted tet).
double min_volume_ratio(const cfd::TetMesh& rest, const std::vector<double>& x) {
  cfd::TetMesh deformed = rest;
  deformed.xyz = x;
  double worst = std::numeric_limits<double>::infinity();
  for (int64_t t = 0; t < rest.n_tets(); ++t)
    worst = std::min(worst, cfd::tet_signed_volume(deformed, t) / cfd::tet_signed_volume(rest, t));
  return worst;
}

// "a, b, c": the gradient norms of the last `count` records.
std::string last_gradient_norms(const solvers::SolveResult& r, size_t count) {
  std::string out;
  const size_t n = r.iterations.size();
  for (size_t k = n > count ? n - count : 0; k < n; ++k)
    out += (out.empty() ? "" : ", ") + fact_number(r.iterations[k].gradient_norm);
  return out;
}

}  // namespace

DemoReport run_neohookean_demo(const DemoOptions& options) {
  if (!options.mesh.empty()) {
    throw std::invalid_argument(
        "neohookean demo: it builds its own beam and takes no input mesh (" +
        options.mesh.string() + ")");
  }
  const assembly::Backend backend = demo_backend(options);
  const bool gpu = backend == assembly::Backend::Cuda;
  const int64_t s64 = options.size != 0 ? options.size : (gpu ? 24 : 6);
  if (s64 < 1 || s64 > 300) {
    throw std::invalid_argument("neohookean demo: cells across the beam must be in [1, 300], got " +
                                std::to_string(s64));
  }
  const int s = static_cast<int>(s64);
  const std::filesystem::path dir = demo_output_dir(options);

  ElasticBox box;
  box.nx = 4 * s;
  box.ny = box.nz = s;
  box.lx = 4;
  box.ly = box.lz = 1;
  box.young = 5e6;
  box.poisson = 0.3;
  box.density = 1000;
  box.gravity = {0, 0, -9.8};
  box.pinned_faces = {BoxFace::XMin};
  ElasticBody body = elastic_box(box);
  const cfd::TetMesh& rest = body.mesh;
  const double weight = box.density * box.lx * box.ly * box.lz * 9.8;

  // The exact Hessian: at rest it is the (positive definite) linear elasticity stiffness, and
  // Newton shifts it where it is indefinite on the way. Projecting each tet's Hessian instead
  // (AssemblerOptions::hessian_projection) clamps the negative curvature of the compressed
  // side of the bending beam, and Newton then converges only linearly: 12 iterations to the
  // exact Hessian's 7 at s = 4, each ~100 times the assembly cost on the CPU.
  assembly::AssemblerOptions ao;
  ao.backend = backend;
  assembly::Assembler assembler(body.problem, ao);
  solvers::AssemblerObjective objective(assembler);
  solvers::NewtonOptions no;
  no.pinned = body.pinned;
  no.max_iterations = options.max_iterations > 0 ? options.max_iterations : 100;
  no.gradient_tolerance = kForceTolerance * weight;
  no.relative_gradient_tolerance = 0;
  no.decrement_tolerance = kDecrementTolerance * std::abs(assembler.energy(rest.xyz));
  no.linear_solver = gpu ? solvers::LinearSolver::DevicePcg : solvers::LinearSolver::SparseCholesky;

  DemoReport report;
  report.name = "neohookean";
  report.backend = demo_backend_name(backend);
  report.solve = solvers::newton(objective, rest.xyz, no);
  const std::vector<double>& x = report.solve.x;

  // The tip: the free end's vertices, their mean drop and the largest displacement anywhere.
  double tip_drop = 0, largest = 0;
  int64_t tip_vertices = 0;
  std::vector<double> displacement(rest.n_nodes);
  for (int64_t v = 0; v < rest.n_nodes; ++v) {
    double d2 = 0;
    for (int c = 0; c < 3; ++c)
      d2 += (x[v * 3 + c] - rest.xyz[v * 3 + c]) * (x[v * 3 + c] - rest.xyz[v * 3 + c]);
    displacement[v] = std::sqrt(d2);
    largest = std::max(largest, displacement[v]);
    if (rest.xyz[v * 3] == box.lx) {
      tip_drop += rest.xyz[v * 3 + 2] - x[v * 3 + 2];
      ++tip_vertices;
    }
  }
  tip_drop /= static_cast<double>(tip_vertices);
  bool clamp_exact = true;
  for (int32_t v : body.pinned_vertices)
    for (int c = 0; c < 3; ++c) clamp_exact = clamp_exact && x[v * 3 + c] == rest.xyz[v * 3 + c];
  const double j_min = min_volume_ratio(rest, x);
  // Euler-Bernoulli, small deflection: q L^4 / (8 E I) with q = rho g A, I = b h^3 / 12.
  const double beam_theory = box.density * 9.8 * box.ly * box.lz * std::pow(box.lx, 4) /
                             (8 * box.young * box.ly * std::pow(box.lz, 3) / 12);

  int shifted = 0;
  for (const solvers::IterationRecord& k : report.solve.iterations) shifted += k.shift > 0;
  const char* linear = gpu ? "PCG on the GPU" : "sparse Cholesky";
  report.summary = "cantilever 4 x 1 x 1 m of " + std::to_string(rest.n_tets()) +
                   " stable Neo-Hookean tets (E = 5 MPa, nu = 0.3, 1000 kg/m^3) clamped at x = 0 "
                   "under gravity; Newton on the exact Hessian (" +
                   linear + ")";
  report.facts = {
      {"tets", std::to_string(rest.n_tets())},
      {"vertices", std::to_string(rest.n_nodes)},
      {"clamped vertices", std::to_string(body.pinned_vertices.size())},
      {"Newton iterations", std::to_string(report.solve.n_steps())},
      {"iterations with a shifted Hessian", std::to_string(shifted)},
      {"|g| of the last iterations (N)", last_gradient_norms(report.solve, 4)},
      {"tip deflection (m)", fact_number(tip_drop)},
      {"small-deflection beam theory (m)", fact_number(beam_theory)},
      {"largest displacement (m)", fact_number(largest)},
      {"smallest volume ratio J", fact_number(j_min)},
      {"clamped vertices exactly fixed", clamp_exact ? "yes" : "NO"},
  };
  report.ok = report.solve.converged() && clamp_exact && j_min > 0 && tip_drop > 0;

  TriMesh surface = render::boundary_surface(x, rest.tets);
  const std::filesystem::path obj = dir / "neohookean.obj", png = dir / "neohookean.png",
                              plot = dir / "convergence.png";
  write_obj(obj, surface);
  render::MeshViewOptions view;
  view.camera.up = {0, 0, 1};
  view.camera.azimuth_deg = -70;  // from -y, a little from the free end: x runs to the right
  view.camera.elevation_deg = 15;
  view.crease_angle_deg = 30;  // the box's edges stay sharp
  view.vertex_values = displacement;
  view.wireframe = s <= 8;
  view.wire_color = {60, 60, 60, 255};
  view.title = "cantilever under gravity: displacement (m)";
  render::write_png(render::render_mesh(surface, view), png);
  render::write_png(solve_convergence_plot(report.solve, "neohookean: Newton", "Newton iteration"),
                    plot);
  report.files = {obj, png, plot};
  return report;
}

}  // namespace dualjit::mesh_energy
