#include "examples/mesh_energy/cloth_demo.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "examples/mesh_energy/cloth_energy.h"
#include "examples/mesh_energy/demo_output.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/solve_plot.h"
#include "examples/render/mesh_view.h"
#include "solvers/newton.h"
#include "solvers/objective.h"

namespace dualjit::mesh_energy {

namespace {

constexpr double kStiffness = 1e5;  // the paper's cloth
constexpr double kGravity = 9.8;
constexpr double kMass = 1.0;  // kg, spread evenly over the vertices (ClothStep's default)
// The quasi-static step: long, so that the inertia term only regularises (it keeps the
// Hessian non-singular where the cloth is slack) and each minimum is all but the static one.
constexpr double kStep = 1.0;  // s
constexpr int kMaxSteps = 40;
constexpr double kRestMove = 1e-7;  // m: at rest when no vertex moved more in a step
// Each Newton solve stops when its gradient over the free DOFs, which is h^2 times a force
// (springs, gravity, and the inertia term's m (x - xhat) / h^2), is below h^2 x this share of
// the cloth's weight: far below anything visible, and above the round-off floor of the spring
// forces (about 3e-9 N at n = 30, growing like n^2).
constexpr double kForceTolerance = 1e-6 * kMass * kGravity;
constexpr double kSagCheck = 0.25;  // m: the centre must hang at least this far below the pins

double max_vertex_move(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (size_t v = 0; v < a.size() / 3; ++v) {
    const double dx = a[v * 3] - b[v * 3], dy = a[v * 3 + 1] - b[v * 3 + 1],
                 dz = a[v * 3 + 2] - b[v * 3 + 2];
    worst = std::max(worst, std::sqrt(dx * dx + dy * dy + dz * dz));
  }
  return worst;
}

// The steps' records as one history: the point where a step ends is where the next starts,
// so its last record gives way to the next step's first, which has the same point at the next
// step's energy. That energy is lower (the inertia term, >= 0, restarts at 0), so the history's
// energy falls monotonically when every step's does.
void append_step(solvers::SolveResult& all, const solvers::SolveResult& step) {
  if (all.iterations.empty()) {
    all = step;
    return;
  }
  all.iterations.pop_back();
  const int offset = static_cast<int>(all.iterations.size());
  for (solvers::IterationRecord r : step.iterations) {
    r.iteration += offset;
    all.iterations.push_back(r);
  }
  all.x = step.x;
  all.energy = step.energy;
  all.gradient_norm = step.gradient_norm;
  all.reason = step.reason;
  all.message = step.message;
  all.seconds += step.seconds;
}

// Springs and gravity alone at x: the cloth_problem step with h = 1 predicted at x itself, whose
// inertia term has no gradient there. The largest free force component (N).
double max_free_force(const ClothGrid& grid, const std::vector<double>& x,
                      const assembly::AssemblerOptions& ao, const solvers::PinnedDofs& pinned) {
  ClothStep statics;
  statics.k = kStiffness;
  statics.h = 1;
  assembly::Problem p = cloth_problem(grid, x, statics);
  assembly::Assembler a(p, ao);
  std::vector<double> g = a.gradient(x);
  pinned.zero(g);
  double worst = 0;
  for (double c : g) worst = std::max(worst, std::abs(c));
  return worst;
}

// Per vertex, the largest |length / rest length - 1| of its springs: where the cloth carries
// its weight.
std::vector<double> vertex_strain(const ClothGrid& grid, const std::vector<double>& x) {
  std::vector<double> out(x.size() / 3, 0.0);
  for (size_t s = 0; s < grid.rest.size(); ++s) {
    const int32_t i = grid.springs[s * 2], j = grid.springs[s * 2 + 1];
    double d2 = 0;
    for (int c = 0; c < 3; ++c) d2 += (x[i * 3 + c] - x[j * 3 + c]) * (x[i * 3 + c] - x[j * 3 + c]);
    const double strain = std::abs(std::sqrt(d2) / grid.rest[s] - 1);
    out[i] = std::max(out[i], strain);
    out[j] = std::max(out[j], strain);
  }
  return out;
}

}  // namespace

DemoReport run_cloth_demo(const DemoOptions& options) {
  if (!options.mesh.empty()) {
    throw std::invalid_argument("cloth demo: it builds its own grid and takes no input mesh (" +
                                options.mesh.string() + ")");
  }
  const assembly::Backend backend = demo_backend(options);
  const bool gpu = backend == assembly::Backend::Cuda;
  const int64_t n64 = options.size != 0 ? options.size : (gpu ? 300 : 40);
  if (n64 < 3 || n64 > 40000) {
    throw std::invalid_argument("cloth demo: the grid side must be in [3, 40000], got " +
                                std::to_string(n64));
  }
  const int n = static_cast<int>(n64);
  const std::filesystem::path dir = demo_output_dir(options);

  const ClothGrid grid = cloth_grid(n);
  const int64_t nv = grid.mesh.n_vertices();
  const int32_t corners[2] = {0, n - 1};  // (0, 0, 0) and (1, 0, 0)
  solvers::PinnedDofs pinned(nv, 3);
  for (int32_t v : corners) pinned.pin_node(v);

  assembly::AssemblerOptions ao;
  ao.backend = backend;
  ao.hessian_projection = {jit::ProjectionKind::Clamp, 1e-9};
  solvers::NewtonOptions no;
  no.pinned = pinned;
  no.max_iterations = options.max_iterations > 0 ? options.max_iterations : 100;
  no.relative_gradient_tolerance = 0;
  no.decrement_tolerance = 0;  // the forces decide
  // On the GPU the Hessian stays in device memory and PCG runs there.
  no.linear_solver = gpu ? solvers::LinearSolver::DevicePcg : solvers::LinearSolver::SparseCholesky;

  DemoReport report;
  report.name = "cloth";
  report.backend = demo_backend_name(backend);
  // Hung straight down from the pinned edge: the flat grid turned about the x axis, so that
  // every spring starts at its rest length and only gravity's stretching is left to solve for.
  std::vector<double> x = grid.mesh.x;
  for (int64_t v = 0; v < nv; ++v) {
    x[v * 3 + 1] = -grid.mesh.x[v * 3 + 2];
    x[v * 3 + 2] = 0;
  }
  ClothStep step;
  step.k = kStiffness;
  step.h = kStep;
  step.mass = kMass / static_cast<double>(nv);
  no.gradient_tolerance = kStep * kStep * kForceTolerance;
  double last_move = 0;
  bool all_converged = true;
  std::string per_step;
  int steps = 0;
  for (; steps < kMaxSteps; ++steps) {
    assembly::Problem problem = cloth_problem(grid, x, step);  // xhat = x: from rest
    assembly::Assembler assembler(problem, ao);
    solvers::AssemblerObjective objective(assembler);
    const solvers::SolveResult r = solvers::newton(objective, x, no);
    last_move = max_vertex_move(r.x, x);
    x = r.x;
    all_converged = all_converged && r.converged();
    per_step += (per_step.empty() ? "" : ", ") + std::to_string(r.n_steps());
    append_step(report.solve, r);
    if (!r.converged() || last_move < kRestMove) {
      ++steps;
      break;
    }
  }

  // What the drape came to.
  const int32_t centre = (n / 2) * n + n / 2, edge_middle = n / 2;
  bool pins_exact = true;
  for (int32_t v : corners)
    for (int c = 0; c < 3; ++c) pins_exact = pins_exact && x[v * 3 + c] == grid.mesh.x[v * 3 + c];
  const double centre_sag = -x[centre * 3 + 1], edge_sag = -x[edge_middle * 3 + 1];
  const double force = max_free_force(grid, x, ao, pinned);
  const bool at_rest = last_move < kRestMove;
  const bool forces_ok = force <= kForceTolerance;
  const std::vector<double> strain = vertex_strain(grid, x);
  const char* linear = gpu ? "PCG on the GPU" : "sparse Cholesky";
  report.summary = "cloth grid " + std::to_string(n) + " x " + std::to_string(n) + " (" +
                   std::to_string(nv) + " vertices, " + std::to_string(grid.rest.size()) +
                   " springs, k = 1e5, 1 kg) hanging from two corners; " + std::to_string(steps) +
                   " quasi-static implicit-Euler steps to rest, Newton on the projected Hessian (" +
                   linear + ")";
  report.facts = {
      {"vertices", std::to_string(nv)},
      {"springs", std::to_string(grid.rest.size())},
      {"time steps", std::to_string(steps) + " (h = " + fact_number(kStep) + " s)"},
      {"Newton iterations per step", per_step},
      {"Newton iterations in all", std::to_string(report.solve.n_steps())},
      {"largest move in the last step (m)", fact_number(last_move)},
      {"max |free force| at rest (N)", fact_number(force)},
      {"sag of the centre below the pins (m)", fact_number(centre_sag)},
      {"sag of the pinned edge's midpoint (m)", fact_number(edge_sag)},
      {"largest spring strain", fact_number(*std::max_element(strain.begin(), strain.end()))},
      {"pinned corners exactly fixed", pins_exact ? "yes" : "NO"},
  };
  report.ok = all_converged && at_rest && forces_ok && pins_exact && centre_sag > kSagCheck;

  TriMesh draped = grid.mesh;
  draped.x = x;
  const std::filesystem::path obj = dir / "cloth.obj", png = dir / "cloth.png",
                              plot = dir / "convergence.png";
  write_obj(obj, draped);
  render::MeshViewOptions view;
  view.camera.azimuth_deg = 30;
  view.camera.elevation_deg = 15;
  // The weight hangs from the pins: strain fans out from them over decades, so log10 shows it.
  for (double e : strain) view.vertex_values.push_back(std::log10(std::max(e, 1e-12)));
  view.wireframe = n <= 60;  // the grid's lines, where they do not turn the cloth black
  view.wire_color = {60, 60, 60, 255};
  view.title = "cloth hanging from two corners: log10 spring strain";
  render::write_png(render::render_mesh(draped, view), png);
  render::write_png(
      solve_convergence_plot(report.solve, "cloth: Newton, all steps", "Newton iteration"), plot);
  report.files = {obj, png, plot};
  return report;
}

}  // namespace dualjit::mesh_energy
