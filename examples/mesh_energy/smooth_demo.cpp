#include "examples/mesh_energy/smooth_demo.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples/mesh_energy/demo_output.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/smoothing.h"
#include "examples/mesh_energy/solve_plot.h"
#include "examples/render/mesh_view.h"
#include "solvers/gradient_descent.h"
#include "solvers/newton.h"

namespace dualjit::mesh_energy {
namespace {

constexpr int kMaxRings = 2000;
constexpr int kMaxSubdivisions = 6;

struct DemoMesh {
  TriMesh mesh;
  std::filesystem::path source;
};

// Uniform in [-1, 1) from a counter (splitmix64), the same on every platform, unlike the
// standard distributions.
double noise(uint64_t k) {
  uint64_t z = k * 0x9e3779b97f4a7c15ull + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-52 - 1.0;
}

// disk(rings) on the saddle z = 0.25 r^3 sin(3 theta) (the boundary on z = 0.25 sin(3 theta)),
// interior vertices displaced by noise of 0.35 ring spacings in each direction.
TriMesh noisy_saddle(int rings) {
  TriMesh m = disk(rings);
  const int64_t first_boundary = m.n_vertices() - 6 * int64_t(rings);  // the last ring
  const double h = 0.35 / rings;
  for (int64_t v = 0; v < m.n_vertices(); ++v) {
    double* p = &m.x[v * 3];
    const double r = std::hypot(p[0], p[1]), theta = std::atan2(p[1], p[0]);
    p[2] = 0.25 * r * r * r * std::sin(3 * theta);
    if (v >= first_boundary) continue;
    for (int c = 0; c < 3; ++c) p[c] += h * noise(uint64_t(v) * 3 + c);
  }
  return m;
}

DemoMesh demo_mesh(const DemoOptions& o, bool gpu) {
  if (o.size < 0) {
    throw std::invalid_argument("smooth demo: size " + std::to_string(o.size) +
                                " (rings of the built-in disk or subdivisions of a mesh file; 0 "
                                "for the default)");
  }
  if (o.mesh.empty()) {
    const int64_t rings = o.size > 0 ? o.size : (gpu ? 400 : 30);
    if (rings > kMaxRings) {
      throw std::invalid_argument("smooth demo: " + std::to_string(rings) +
                                  " rings for the built-in disk (at most " +
                                  std::to_string(kMaxRings) + ")");
    }
    return {noisy_saddle(static_cast<int>(rings)), "noisy saddle(" + std::to_string(rings) + ")"};
  }
  if (o.size > kMaxSubdivisions) {
    throw std::invalid_argument("smooth demo: " + std::to_string(o.size) + " subdivisions of " +
                                o.mesh.string() + " (at most " + std::to_string(kMaxSubdivisions) +
                                ")");
  }
  DemoMesh d{read_tri_mesh(o.mesh), o.mesh};
  for (int64_t k = 0; k < o.size; ++k) d.mesh = subdivide(d.mesh);
  return d;
}

}  // namespace

DemoReport run_smooth_demo(const DemoOptions& o) {
  const assembly::Backend backend = demo_backend(o);
  const bool gpu = backend == assembly::Backend::Cuda;
  const std::filesystem::path dir = demo_output_dir(o);
  DemoMesh d = demo_mesh(o, gpu);
  const TriMesh& m = d.mesh;
  Smoothing s = smoothing_problem(m, d.source, true);
  const bool pinned = !s.boundary.empty();

  assembly::AssemblerOptions ao;
  ao.backend = backend;
  assembly::Assembler assembler(s.problem, ao);
  solvers::AssemblerObjective objective(assembler);

  // The Hessian's largest eigenvalue is at most 4 x the largest valence (Gershgorin on
  // 2 (valence I - adjacency)): the stable step, where the line search starts.
  std::vector<int> valence(m.n_vertices(), 0);
  const std::vector<int32_t>& edges = s.problem.term(0).elements.conn;  // each edge once
  for (int32_t v : edges) ++valence[v];
  const int max_valence = std::max(1, *std::max_element(valence.begin(), valence.end()));
  solvers::GradientDescentOptions go;
  go.max_iterations = o.max_iterations > 0 ? o.max_iterations : (gpu ? 400 : 200);
  go.initial_step = 1.0 / (4.0 * max_valence);
  go.gradient_tolerance = 0;
  go.relative_gradient_tolerance = 1e-8;
  go.pinned = s.pinned;
  solvers::SolveResult gd = solvers::gradient_descent(objective, s.x, go);

  // Newton from the same start: one step to the minimum when the boundary holds the mesh; a
  // closed mesh's minimum is a point (a singular Hessian), and is not asked for.
  solvers::SolveResult newton;
  if (pinned) {
    solvers::NewtonOptions no;
    no.max_iterations = 5;
    no.linear_solver =
        gpu ? solvers::LinearSolver::BlockPcg : solvers::LinearSolver::SparseCholesky;
    no.pcg.relative_tolerance = 1e-10;
    no.pcg.max_iterations = 20000;
    no.gradient_tolerance = 0;
    no.relative_gradient_tolerance = 1e-8;
    no.decrement_tolerance = 1e-12 * gd.iterations.front().energy;
    no.pinned = s.pinned;
    newton = solvers::newton(objective, s.x, no);
  }

  const std::vector<double>& before = m.x;
  const std::vector<double>& after = gd.x;
  double boundary_moved = 0;
  for (int32_t v : s.boundary)
    for (int c = 0; c < 3; ++c)
      boundary_moved = std::max(boundary_moved, std::abs(after[v * 3 + c] - before[v * 3 + c]));
  bool monotone = true;
  for (size_t k = 1; k < gd.iterations.size(); ++k)
    monotone = monotone && gd.iterations[k].energy <= gd.iterations[k - 1].energy;
  const double e0 = gd.iterations.front().energy;
  const int gd_steps = gd.n_steps(), newton_steps = newton.n_steps();
  const bool gd_done = gd.converged() || gd.reason == solvers::StopReason::MaxIterations;
  const bool newton_ok = !pinned || (newton.converged() && newton_steps <= 2 &&
                                     newton.energy <= gd.energy * (1 + 1e-12));

  DemoReport rep;
  rep.name = "smooth";
  rep.backend = demo_backend_name(backend);
  rep.summary = d.source.string() + ": " + std::to_string(m.n_vertices()) + " vertices, " +
                std::to_string(edges.size() / 2) +
                " edges; sum of squared edge lengths, boundary pinned, gradient descent (Newton "
                "for comparison)";
  rep.facts = {
      {"mesh", d.source.string()},
      {"vertices", std::to_string(m.n_vertices())},
      {"edges", std::to_string(edges.size() / 2)},
      {"pinned boundary vertices", std::to_string(s.boundary.size())},
      {"energy before", number_text(e0, 12)},
      {"energy after gradient descent", number_text(gd.energy, 12)},
      {"gradient descent steps", std::to_string(gd_steps)},
      {"gradient descent stop", std::string(solvers::stop_reason_name(gd.reason))},
      {"time per gradient descent step",
       number_text(gd.seconds / std::max(1, gd_steps) * 1e3, 4) + " ms"},
  };
  if (pinned) {
    rep.facts.insert(
        rep.facts.end(),
        {{"energy at Newton's minimum", number_text(newton.energy, 12)},
         {"Newton steps", std::to_string(newton_steps) + " (" +
                              std::string(solvers::stop_reason_name(newton.reason)) + ")"},
         {"gradient descent's share of the possible decrease",
          number_text((e0 - gd.energy) / (e0 - newton.energy), 6)}});
  } else {
    rep.facts.push_back({"Newton", "not run: nothing is pinned, the minimum is a point"});
  }
  rep.facts.insert(rep.facts.end(), {{"max boundary displacement", number_text(boundary_moved)},
                                     {"energy non-increasing", monotone ? "yes" : "no"}});

  TriMesh out = m;
  out.x = after;
  rep.files.push_back(dir / "smooth.obj");
  write_obj(rep.files.back(), out);

  render::MeshViewOptions vo;
  vo.width = 600;
  vo.height = 500;
  vo.camera.up = {0, 0, 1};
  vo.camera.azimuth_deg = 20;
  vo.camera.elevation_deg = 35;
  vo.wireframe = m.n_faces() <= 20000;
  vo.crease_angle_deg = 0;  // flat shading: the noise shows face by face
  vo.title = "noisy input";
  const render::Image left = render::render_mesh(m, vo);
  vo.title = "after " + std::to_string(gd_steps) + " gradient descent steps";
  const render::Image right = render::render_mesh(out, vo);
  rep.files.push_back(dir / "smooth.png");
  render::write_png(render::side_by_side(left, right), rep.files.back());
  rep.files.push_back(dir / "convergence.png");
  render::write_png(solve_convergence_plot(gd, "smooth: gradient descent", "gradient descent step",
                                           pinned ? newton.energy : std::nan("")),
                    rep.files.back());

  rep.ok = gd_done && monotone && newton_ok && boundary_moved == 0;
  rep.solve = std::move(gd);
  return rep;
}

}  // namespace dualjit::mesh_energy
