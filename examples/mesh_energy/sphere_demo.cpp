#include "examples/mesh_energy/sphere_demo.h"

#include <Eigen/SparseCholesky>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples/mesh_energy/demo_output.h"
#include "examples/mesh_energy/injective_bound.nvrtc.h"
#include "examples/mesh_energy/mesh_checks.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/solve_plot.h"
#include "examples/render/mesh_view.h"
#include "solvers/lbfgs.h"
#include "solvers/stopwatch.h"

namespace dualjit::embedded {
extern const char injective_bound_text[];
}

namespace dualjit::mesh_energy {
namespace {

constexpr int kMaxLevel = 9;         // 5.2 M faces
constexpr int kMaxSubdivisions = 5;  // 1024 times the faces
constexpr int kRoundIterations = 100;
constexpr double kGradientDrop = 1e-5;  // converged: |g| <= this x the first round's |g0|
constexpr double kStall = 1e-8;         // stalled: a round lowered E by less than this x E

constexpr double kInf = std::numeric_limits<double>::infinity();

struct DemoMesh {
  TriMesh mesh;
  std::filesystem::path source;
};

DemoMesh demo_mesh(const DemoOptions& o, bool gpu) {
  if (o.size < 0) {
    throw std::invalid_argument("sphere demo: size " + std::to_string(o.size) +
                                " (icosphere level of the built-in mesh or subdivisions of a mesh "
                                "file; 0 for the default)");
  }
  // Not bunny00 by default, though tools/fetch-meshes.sh fetches it: its ears, compressed about
  // 1e-7 times by any start we have (the Gauss map after conformal flow), take L-BFGS thousands
  // of iterations (600 on the CPU: energy 3.5e6 to 7e5, still far from the optimum), which is not
  // a demo's minute. Name it in DemoOptions::mesh to watch that.
  const std::filesystem::path& file = o.mesh;
  if (file.empty()) {
    const int64_t level = o.size > 0 ? o.size : (gpu ? 5 : 3);
    if (level > kMaxLevel) {
      throw std::invalid_argument("sphere demo: icosphere level " + std::to_string(level) +
                                  " for the built-in mesh (at most " + std::to_string(kMaxLevel) +
                                  ")");
    }
    return {lumpy_ellipsoid(static_cast<int>(level)),
            "lumpy ellipsoid(" + std::to_string(level) + ")"};
  }
  if (o.size > kMaxSubdivisions) {
    throw std::invalid_argument("sphere demo: " + std::to_string(o.size) + " subdivisions of " +
                                file.string() + " (at most " + std::to_string(kMaxSubdivisions) +
                                ")");
  }
  DemoMesh d{read_tri_mesh(file), file};
  for (int64_t k = 0; k < o.size; ++k) d.mesh = subdivide(d.mesh);
  d.mesh.uv.clear();
  return d;
}

// The per-face area ratio: spherical area (Van Oosterom and Strackee's formula) over the rest
// area scaled so that the rest mesh has the sphere's area, 4 pi.
std::vector<double> area_ratio(const TriMesh& m, const std::vector<double>& points) {
  std::vector<double> rest(m.n_faces());
  double total = 0;
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const double* a = &m.x[m.faces[f * 3] * 3];
    const double* b = &m.x[m.faces[f * 3 + 1] * 3];
    const double* c = &m.x[m.faces[f * 3 + 2] * 3];
    double e1[3], e2[3];
    for (int k = 0; k < 3; ++k) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k];
    const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                         e1[0] * e2[1] - e1[1] * e2[0]};
    rest[f] = 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    total += rest[f];
  }
  const double scale = 4 * M_PI / total;
  std::vector<double> out(m.n_faces());
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const double* a = &points[m.faces[f * 3] * 3];
    const double* b = &points[m.faces[f * 3 + 1] * 3];
    const double* c = &points[m.faces[f * 3 + 2] * 3];
    const double dot = [](const double* u, const double* v) {
      return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    }(a, b);
    const double denom =
        1 + dot + b[0] * c[0] + b[1] * c[1] + b[2] * c[2] + c[0] * a[0] + c[1] * a[1] + c[2] * a[2];
    out[f] = 2 * std::atan2(det3(a, b, c), denom) / (rest[f] * scale);
  }
  return out;
}

// Centres `x` at its surface's area centroid and scales it to unit area; the lumped mass of
// each vertex (a third of its faces' areas, after the scaling) into `mass` when given.
void normalize_area(const TriMesh& m, std::vector<double>& x, std::vector<double>* mass) {
  double centre[3] = {0, 0, 0}, total = 0;
  std::vector<double> face_area(m.n_faces());
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const double* a = &x[m.faces[f * 3] * 3];
    const double* b = &x[m.faces[f * 3 + 1] * 3];
    const double* c = &x[m.faces[f * 3 + 2] * 3];
    double e1[3], e2[3];
    for (int k = 0; k < 3; ++k) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k];
    const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                         e1[0] * e2[1] - e1[1] * e2[0]};
    face_area[f] = 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    total += face_area[f];
    for (int k = 0; k < 3; ++k) centre[k] += face_area[f] * (a[k] + b[k] + c[k]) / 3;
  }
  const double s = 1 / std::sqrt(total);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (x[i] - centre[i % 3] / total) * s;
  if (!mass) return;
  mass->assign(m.n_vertices(), 0.0);
  for (int64_t f = 0; f < m.n_faces(); ++f)
    for (int c = 0; c < 3; ++c) (*mass)[m.faces[f * 3 + c]] += face_area[f] / (3 * total);
}

// A start for meshes that are not star-shaped (the bunny's ears fold its Gauss map): conformalized
// mean curvature flow (Kazhdan, Solomon and Ben-Chen 2012), implicit steps
// (M_t + dt K_0) x_{t+1} = M_t x_t with the cotangent stiffness K_0 of the rest mesh kept fixed
// and the lumped mass M_t of the current one, at unit area, rounds the surface into a sphere-like
// shape without the pinches of plain mean curvature flow; its Gauss map is taken after each step
// until it inverts no face. Far less distorted than the stereographic fallback, which L-BFGS
// barely moves. Empty when max_steps steps do not suffice or a solve fails; `steps` gets the
// count.
std::vector<double> conformal_flow_map(const TriMesh& m, int max_steps, int* steps) {
  const int64_t n = m.n_vertices();
  std::vector<double> x = m.x;
  normalize_area(m, x, nullptr);
  // K_0: per face, per corner, half the cotangent of its angle on the opposite edge (j, k).
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(m.faces.size() * 4);
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    for (int c = 0; c < 3; ++c) {
      const int32_t i = m.faces[f * 3 + c], j = m.faces[f * 3 + (c + 1) % 3],
                    k = m.faces[f * 3 + (c + 2) % 3];
      double u[3], v[3];
      for (int q = 0; q < 3; ++q)
        u[q] = x[j * 3 + q] - x[i * 3 + q], v[q] = x[k * 3 + q] - x[i * 3 + q];
      const double cr[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                            u[0] * v[1] - u[1] * v[0]};
      const double w = 0.5 * (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) /
                       std::sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
      entries.emplace_back(j, k, -w);
      entries.emplace_back(k, j, -w);
      entries.emplace_back(j, j, w);
      entries.emplace_back(k, k, w);
    }
  }
  Eigen::SparseMatrix<double> stiffness(n, n);
  stiffness.setFromTriplets(entries.begin(), entries.end());
  constexpr double kTimeStep = 0.01;  // at unit area: a sphere-like shape in a few steps
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver;
  TriMesh shape = m;
  std::vector<double> mass;
  for (int step = 1; step <= max_steps; ++step) {
    normalize_area(m, x, &mass);
    Eigen::SparseMatrix<double> a = kTimeStep * stiffness;
    Eigen::MatrixXd rhs(n, 3);
    for (int64_t v = 0; v < n; ++v) {
      a.coeffRef(v, v) += mass[v];
      for (int c = 0; c < 3; ++c) rhs(v, c) = mass[v] * x[v * 3 + c];
    }
    if (step == 1) solver.analyzePattern(a);
    solver.factorize(a);
    if (solver.info() != Eigen::Success) break;
    const Eigen::MatrixXd y = solver.solve(rhs);
    for (int64_t v = 0; v < n; ++v)
      for (int c = 0; c < 3; ++c) x[v * 3 + c] = y(v, c);
    shape.x = x;
    std::vector<double> g = gauss_map(shape);
    if (count_inverted(m.faces, g) == 0) {
      *steps = step;
      return g;
    }
  }
  *steps = max_steps;
  return {};
}

// Each face with its own three corners, so that a per-face value colours it flat.
TriMesh unshared(const TriMesh& m, const std::vector<double>& x) {
  TriMesh out;
  out.x.reserve(m.faces.size() * 3);
  out.faces.resize(m.faces.size());
  for (size_t q = 0; q < m.faces.size(); ++q) {
    out.x.insert(out.x.end(), &x[m.faces[q] * 3], &x[m.faces[q] * 3] + 3);
    out.faces[q] = static_cast<int32_t>(q);
  }
  return out;
}

}  // namespace

solvers::ElementStepBound injective_step_bound(const solvers::VectorSpace& space,
                                               const SphericalMap& map) {
  const TriMesh& m = map.mesh();
  const std::vector<double>& p = map.points();
  const std::vector<double>& fr = map.frames();
  std::vector<double> frames(size_t(m.n_vertices()) * 9);
  for (int64_t v = 0; v < m.n_vertices(); ++v) {
    std::copy_n(&p[v * 3], 3, &frames[v * 9]);
    std::copy_n(&fr[v * 6], 6, &frames[v * 9 + 3]);
  }
  return solvers::ElementStepBound(space,
                                   {.name = "injective",
                                    .symbol = "dualjit::mesh_energy::injective_bound",
                                    .source = embedded::injective_bound_text,
                                    .host = &injective_bound,
                                    .nodes = 3,
                                    .width = 2,
                                    .data_width = 9},
                                   m.n_vertices(), m.faces, frames);
}

DemoReport run_sphere_demo(const DemoOptions& o) {
  const assembly::Backend backend = demo_backend(o);
  const bool gpu = backend == assembly::Backend::Cuda;
  const std::filesystem::path dir = demo_output_dir(o);
  const solvers::Stopwatch total;
  DemoMesh d = demo_mesh(o, gpu);
  // Not a closed genus-0 surface: SphericalMap says so, naming the mesh, before any flow runs.
  check_surface(d.mesh, d.source);
  const Topology t = topology(d.mesh);
  if (t.boundary_edges != 0 || t.euler_characteristic != 2) SphericalMap(d.mesh, d.source);
  int flow_steps = 0;
  std::vector<double> start = gauss_map(d.mesh);
  if (count_inverted(d.mesh.faces, start) > 0) start = conformal_flow_map(d.mesh, 30, &flow_steps);
  SphericalMap map(d.mesh, d.source, start);
  const TriMesh& m = map.mesh();
  const int max_iterations = o.max_iterations > 0 ? o.max_iterations : (gpu ? 2000 : 600);

  assembly::AssemblerOptions ao;
  ao.backend = backend;
  solvers::SolveResult all;
  all.solver = "lbfgs";
  const std::vector<double> zero(m.n_vertices() * 2, 0.0);
  double gradient_tolerance = 0, solve_seconds = 0, setup_seconds = 0;
  int rounds = 0, steps = 0;
  bool converged = false, stalled = false, monotone = true;
  std::string stop;
  while (!converged && !stalled && steps < max_iterations) {
    const solvers::Stopwatch setup;
    assembly::Problem problem = map.problem();
    assembly::Assembler assembler(problem, ao);
    solvers::AssemblerObjective objective(assembler);
    if (rounds == 0) {
      double g2 = 0;
      for (double g : assembler.gradient(zero)) g2 += g * g;
      gradient_tolerance = kGradientDrop * std::sqrt(g2);
    }
    setup_seconds += setup.seconds();

    solvers::LbfgsOptions lo;
    lo.max_iterations = std::min(kRoundIterations, max_iterations - steps);
    lo.gradient_tolerance = gradient_tolerance;
    lo.relative_gradient_tolerance = 0;
    lo.line_search.max_step = injective_step_bound(objective.space(), map);
    solvers::SolveResult r = solvers::lbfgs(objective, zero, lo);
    solve_seconds += r.seconds;
    steps += r.n_steps();
    ++rounds;
    for (size_t k = 1; k < r.iterations.size(); ++k)
      monotone = monotone && r.iterations[k].energy <= r.iterations[k - 1].energy;
    const double e0 = r.iterations.front().energy;
    map.retract(r.x);

    converged = r.gradient_norm <= gradient_tolerance;
    stalled = !converged && !(e0 - r.energy > kStall * std::abs(e0));
    // The point a round ends at is the next round's first record: keep it once.
    const bool last = converged || stalled || steps >= max_iterations;
    if (!last) r.iterations.pop_back();
    for (solvers::IterationRecord rec : r.iterations) {
      rec.iteration = static_cast<int>(all.iterations.size());
      all.iterations.push_back(rec);
    }
    all.energy = r.energy;
    all.gradient_norm = r.gradient_norm;
    all.reason = r.reason;
    if (converged) {
      stop = "gradient fell by " + number_text(kGradientDrop, 2);
    } else if (stalled) {
      stop = "energy stopped decreasing (round " + std::to_string(rounds) + " lowered it by " +
             number_text((e0 - r.energy) / std::abs(e0), 2) + " of it" +
             (r.message.empty() ? "" : "; " + r.message) + ")";
    } else if (last) {
      stop = "iteration limit (" + std::to_string(max_iterations) + ")";
    }
  }
  all.x = map.points();
  all.message = stop;
  all.seconds = total.seconds();

  const int64_t inverted = map.inverted();
  const std::vector<double> ratio = area_ratio(m, map.points());
  double lo_r = kInf, hi_r = 0;
  std::vector<double> log_ratio(ratio.size());
  for (size_t f = 0; f < ratio.size(); ++f) {
    lo_r = std::min(lo_r, ratio[f]);
    hi_r = std::max(hi_r, ratio[f]);
    log_ratio[f] = std::log2(ratio[f]);
  }

  const std::string start_text =
      map.started_from_fallback() ? "stereographic Tutte map"
      : flow_steps > 0 ? "Gauss map after " + std::to_string(flow_steps) + " conformal flow steps"
                       : "Gauss map";
  DemoReport rep;
  rep.name = "sphere";
  rep.backend = demo_backend_name(backend);
  rep.summary = d.source.string() + ": " + std::to_string(m.n_vertices()) + " vertices, " +
                std::to_string(m.n_faces()) + " faces; spherical map from the " + start_text +
                ", L-BFGS in rounds of " + std::to_string(kRoundIterations) +
                " with retraction (injective line search)";
  rep.facts = {
      {"mesh", d.source.string()},
      {"vertices", std::to_string(m.n_vertices())},
      {"faces", std::to_string(m.n_faces())},
      {"start", start_text},
      {"energy at the start", number_text(all.iterations.front().energy, 10)},
      {"energy", number_text(all.energy, 10)},
      {"inverted triangles", std::to_string(inverted)},
      {"rounds", std::to_string(rounds)},
      {"L-BFGS iterations", std::to_string(steps)},
      {"stop", stop},
      {"time per L-BFGS iteration",
       number_text(solve_seconds / std::max(1, steps) * 1e3, 4) + " ms"},
      {"round setup (problem, assembler)", number_text(setup_seconds, 4) + " s"},
      {"area ratio min / max", number_text(lo_r, 4) + " / " + number_text(hi_r, 4)},
      {"energy non-increasing within rounds", monotone ? "yes" : "no"},
  };

  TriMesh out = m;
  out.x = map.points();
  rep.files.push_back(dir / "sphere.obj");
  write_obj(rep.files.back(), out);

  // The same colours on the mesh and on its image, a symmetric range so that 0 (area kept) is
  // the middle colour: where the map compresses and where it stretches.
  std::vector<double> sorted;
  for (double v : log_ratio)
    if (std::isfinite(v)) sorted.push_back(std::abs(v));
  std::sort(sorted.begin(), sorted.end());
  const double span =
      std::max(sorted.empty() ? 1.0 : sorted[size_t(0.99 * double(sorted.size() - 1))], 0.05);
  render::MeshViewOptions vo;
  vo.width = 600;
  vo.height = 600;
  vo.value_range = render::ValueRange{-span, span};
  vo.vertex_values.reserve(m.faces.size());
  for (double v : log_ratio) vo.vertex_values.insert(vo.vertex_values.end(), 3, v);
  vo.colorbar = false;
  vo.title = "input mesh";
  const render::Image left = render::render_mesh(unshared(m, m.x), vo);
  vo.colorbar = true;
  vo.title = "on the sphere: log2 area ratio";
  const render::Image right = render::render_mesh(unshared(m, out.x), vo);
  rep.files.push_back(dir / "sphere.png");
  render::write_png(render::side_by_side(left, right), rep.files.back());
  rep.files.push_back(dir / "convergence.png");
  render::write_png(solve_convergence_plot(all, "sphere: L-BFGS in rounds", "L-BFGS iteration"),
                    rep.files.back());

  rep.ok = (converged || stalled) && inverted == 0 && monotone;
  rep.solve = std::move(all);
  return rep;
}

}  // namespace dualjit::mesh_energy
