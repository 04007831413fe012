#include "examples/mesh_energy/param_demo.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples/mesh_energy/demo_meshes.h"
#include "examples/mesh_energy/demo_output.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/parameterization.h"
#include "examples/mesh_energy/solve_plot.h"
#include "examples/render/mesh_view.h"
#include "solvers/newton.h"

namespace dualjit::mesh_energy {
namespace {

constexpr int kMaxRings = 2000;            // 24 M faces
constexpr int kMaxSubdivisions = 6;        // 4^6 = 4096 times the faces
constexpr int64_t kGpuVertices = 500'000;  // mannequin-devil is subdivided to at least this

struct DemoMesh {
  TriMesh mesh;
  std::filesystem::path source;  // the file, or the generator's name
  int levels = 0;                // midpoint subdivisions after the first solve
};

// disk(rings) with a bump and a dip, off centre: a surface of non-zero Gaussian curvature,
// which no flattening maps isometrically, so the optimum keeps some visible distortion.
TriMesh bumpy_disk(int rings) {
  TriMesh m = disk(rings);
  for (int64_t v = 0; v < m.n_vertices(); ++v) {
    double* p = &m.x[v * 3];
    const double a = (p[0] - 0.3) * (p[0] - 0.3) + (p[1] - 0.2) * (p[1] - 0.2);
    const double b = (p[0] + 0.35) * (p[0] + 0.35) + (p[1] + 0.25) * (p[1] + 0.25);
    p[2] = 0.6 * std::exp(-10 * a) - 0.4 * std::exp(-12 * b);
  }
  return m;
}

DemoMesh demo_mesh(const DemoOptions& o, bool gpu) {
  if (o.size < 0) {
    throw std::invalid_argument("param demo: size " + std::to_string(o.size) +
                                " (rings of the built-in disk or subdivisions of a mesh file; 0 "
                                "for the default)");
  }
  std::filesystem::path file = o.mesh;
  if (file.empty()) file = find_real_mesh("mannequin-devil").value_or("");
  if (file.empty()) {
    const int64_t rings = o.size > 0 ? o.size : (gpu ? 400 : 24);
    if (rings > kMaxRings) {
      throw std::invalid_argument("param demo: " + std::to_string(rings) +
                                  " rings for the built-in disk (at most " +
                                  std::to_string(kMaxRings) + ")");
    }
    return {bumpy_disk(static_cast<int>(rings)), "bumpy disk(" + std::to_string(rings) + ")"};
  }
  if (o.size > kMaxSubdivisions) {
    throw std::invalid_argument("param demo: " + std::to_string(o.size) + " subdivisions of " +
                                file.string() + " (at most " + std::to_string(kMaxSubdivisions) +
                                ")");
  }
  DemoMesh d{read_tri_mesh(file), file, static_cast<int>(o.size)};
  d.mesh.uv.clear();  // the UVs are what the demo computes
  // A mesh the user names is taken as it is unless size asks for subdivisions; the real mesh
  // the demo picks itself is scaled up to the GPU's default size there (each subdivision adds a
  // vertex per edge and turns each edge into two and each face's three inner ones).
  if (o.size == 0 && gpu && o.mesh.empty()) {
    check_manifold(d.mesh, file);
    int64_t v = d.mesh.n_vertices(), e = topology(d.mesh).edges, f = d.mesh.n_faces();
    while (v < kGpuVertices && d.levels < kMaxSubdivisions) {
      v += e, e = 2 * e + 3 * f, f *= 4;
      ++d.levels;
    }
  }
  return d;
}

// (|J|_F^2 + |J^-1|_F^2) / 4 per face, from the problem's params (Dm^-1 row-major, area): 1 at
// an isometry, infinite for a flipped or degenerate triangle.
std::vector<double> face_distortion(const TriMesh& m, const std::vector<double>& params,
                                    const std::vector<double>& uv) {
  std::vector<double> out(m.n_faces());
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const double* u0 = &uv[m.faces[f * 3] * 2];
    const double* u1 = &uv[m.faces[f * 3 + 1] * 2];
    const double* u2 = &uv[m.faces[f * 3 + 2] * 2];
    const double* p = &params[f * 5];
    const double ex = u1[0] - u0[0], ey = u1[1] - u0[1], gx = u2[0] - u0[0], gy = u2[1] - u0[1];
    // J = [e g] Dm^-1.
    const double j00 = ex * p[0] + gx * p[2], j01 = ex * p[1] + gx * p[3];
    const double j10 = ey * p[0] + gy * p[2], j11 = ey * p[1] + gy * p[3];
    const double det = j00 * j11 - j01 * j10;
    const double frob = j00 * j00 + j01 * j01 + j10 * j10 + j11 * j11;
    // |J^-1|_F^2 = |J|_F^2 / det^2 for 2 x 2.
    out[f] = det > 0 ? frob * (1 + 1 / (det * det)) / 4 : std::numeric_limits<double>::infinity();
  }
  return out;
}

// Projected Newton on one level's problem from `uv`, with the flip-free line search.
solvers::SolveResult solve_level(assembly::Problem& problem, const TriMesh& m,
                                 const std::vector<double>& uv, double area, bool gpu,
                                 const DemoOptions& o) {
  assembly::AssemblerOptions ao;
  ao.backend = gpu ? assembly::Backend::Cuda : assembly::Backend::Cpu;
  // Projected Newton: the symmetric Dirichlet energy's element Hessians are indefinite away from
  // the optimum, and the shifted fallback of plain Newton makes far slower progress.
  ao.hessian_projection = {jit::ProjectionKind::Clamp, 1e-9};
  assembly::Assembler assembler(problem, ao);
  solvers::AssemblerObjective objective(assembler);
  solvers::NewtonOptions no;
  no.max_iterations = o.max_iterations > 0 ? o.max_iterations : 100;
  // The energy is at least 4 x area: tolerances relative to that scale, so that the stop does not
  // depend on the mesh's units. Projected Newton's tail is slow (linear) near the optimum, so the
  // decrement test (predicted decrease below 1e-6 of the isometric energy) is what ends it.
  no.gradient_tolerance = 0;
  no.relative_gradient_tolerance = 1e-10;
  no.decrement_tolerance = 1e-6 * 4 * area;
  // A direct solve on the host; on a GPU, PCG there, on the Hessian the assembly leaves there.
  no.linear_solver = gpu ? solvers::LinearSolver::DevicePcg : solvers::LinearSolver::SparseCholesky;
  no.pcg.relative_tolerance = 1e-5;
  no.pcg.max_iterations = 10000;
  no.line_search.max_step = flip_free_step_bound(objective.space(), m.faces, m.n_vertices());
  return solvers::newton(objective, uv, no);
}

}  // namespace

// Subdivided meshes are solved coarse to fine: Tutte's embedding of the file's mesh and its
// optimum first, then each midpoint subdivision starts from the subdivided UVs, which map every
// child triangle as its parent was mapped (the same distortion, flip-free). Tutte's embedding of
// the fine mesh would start far worse, and block-Jacobi PCG on a GPU does not get projected
// Newton out of it (207 k vertices of mannequin-devil: 100 iterations, energy / (4 area) from
// 117 to 42).
DemoReport run_param_demo(const DemoOptions& o) {
  const assembly::Backend backend = demo_backend(o);
  const bool gpu = backend == assembly::Backend::Cuda;
  const std::filesystem::path dir = demo_output_dir(o);
  DemoMesh d = demo_mesh(o, gpu);
  TriMesh m = std::move(d.mesh);
  Parameterization p = parameterization(m, d.source, TutteWeights::MeanValue);
  const std::vector<double> first_params = p.problem.term(0).params;
  double area = 0;
  for (int64_t f = 0; f < m.n_faces(); ++f) area += first_params[f * 5 + 4];
  double start_energy = 0;
  {
    assembly::AssemblerOptions ao;
    ao.backend = backend;
    assembly::Assembler a(p.problem, ao);
    start_energy = a.energy(p.uv);
  }

  solvers::SolveResult r;  // every level's records, one history
  r.solver = "newton";
  std::string per_level;
  bool converged = true, monotone = true;
  assembly::Problem problem = std::move(p.problem);
  std::vector<double> uv = std::move(p.uv);
  for (int level = 0;; ++level) {
    solvers::SolveResult s = solve_level(problem, m, uv, area, gpu, o);
    converged = converged && s.converged();
    for (size_t k = 1; k < s.iterations.size(); ++k)
      monotone = monotone && s.iterations[k].energy <= s.iterations[k - 1].energy;
    if (!r.iterations.empty()) {
      // The level's start is the last level's end, subdivided: the same energy up to round-off.
      monotone = monotone && s.iterations.front().energy <= r.energy + 1e-12 * std::abs(r.energy);
    }
    per_level += (per_level.empty() ? "" : ", ") + std::to_string(s.n_steps()) + " (" +
                 std::to_string(m.n_vertices()) + " vertices)";
    const bool last = level == d.levels;
    if (!last) s.iterations.pop_back();  // its point is the next level's first record
    for (solvers::IterationRecord rec : s.iterations) {
      rec.iteration = static_cast<int>(r.iterations.size());
      r.iterations.push_back(rec);
    }
    r.seconds += s.seconds;
    r.x = std::move(s.x);
    r.energy = s.energy;
    r.gradient_norm = s.gradient_norm;
    r.reason = s.reason;
    r.message = s.message;
    if (last) break;
    m.uv = r.x;
    m = subdivide(m);
    uv = std::move(m.uv);
    m.uv.clear();
    problem = symmetric_dirichlet_problem(m, d.source);
  }
  const std::vector<double>& params = problem.term(0).params;

  const int64_t flipped = count_flipped(m.faces, r.x);
  const std::vector<double> distortion = face_distortion(m, params, r.x);
  double max_d = 0, sum_d = 0;
  for (double v : distortion) max_d = std::max(max_d, v), sum_d += v;
  const double start_ratio = start_energy / (4 * area), end_ratio = r.energy / (4 * area);

  DemoReport rep;
  rep.name = "param";
  rep.backend = demo_backend_name(backend);
  const char* solver_text = gpu ? "block-Jacobi PCG on the GPU" : "sparse Cholesky";
  rep.summary =
      d.source.string() + ": " + std::to_string(m.n_vertices()) + " vertices, " +
      std::to_string(m.n_faces()) + " faces" +
      (d.levels > 0 ? " (" + std::to_string(d.levels) + " subdivisions, solved coarse to fine)"
                    : std::string()) +
      "; symmetric Dirichlet from Tutte's embedding (mean value weights), projected "
      "Newton (" +
      solver_text + ", flip-free line search)";
  const int steps = r.n_steps();
  rep.facts = {
      {"mesh", d.source.string()},
      {"vertices", std::to_string(m.n_vertices())},
      {"faces", std::to_string(m.n_faces())},
      {"boundary vertices", std::to_string(boundary_loop(m, d.source).size())},
      {"energy / (4 area) at Tutte's start", number_text(start_ratio)},
      {"energy / (4 area)", number_text(end_ratio)},
      {"energy", number_text(r.energy, 10)},
      {"flipped triangles", std::to_string(flipped)},
      {"max face distortion", number_text(max_d)},
      {"mean face distortion", number_text(sum_d / double(std::max<int64_t>(1, m.n_faces())))},
      {"Newton iterations", std::to_string(steps)},
      {"Newton iterations per level", per_level},
      {"stop", std::string(solvers::stop_reason_name(r.reason))},
      {"linear solver", solver_text},
      {"time per Newton iteration", number_text(r.seconds / std::max(1, steps) * 1e3, 4) + " ms"},
      {"solve time", number_text(r.seconds, 4) + " s"},
      {"energy non-increasing", monotone ? "yes" : "no"},
  };

  TriMesh out = m;
  out.uv = r.x;
  rep.files.push_back(dir / "param.obj");
  write_obj(rep.files.back(), out);

  render::UvLayoutOptions uo;
  uo.face_values = distortion;
  // The tail of the distribution would squeeze everything else into one colour.
  std::vector<double> sorted;
  for (double v : distortion)
    if (std::isfinite(v)) sorted.push_back(v);
  std::sort(sorted.begin(), sorted.end());
  const double hi = sorted.empty() ? 2.0 : sorted[size_t(0.99 * double(sorted.size() - 1))];
  uo.value_range = render::ValueRange{1.0, std::clamp(hi, 1.0 + 1e-3, 10.0)};
  uo.edge_width = m.n_faces() <= 4000 ? 1.0 : m.n_faces() <= 30000 ? 0.4 : 0.0;
  uo.title = "distortion per face (1: isometric, red: flipped)";
  rep.files.push_back(dir / "param_uv.png");
  render::write_png(render::render_uv_layout(out, uo), rep.files.back());
  rep.files.push_back(dir / "convergence.png");
  render::write_png(solve_convergence_plot(r, "param: projected Newton", "Newton iteration"),
                    rep.files.back());

  rep.ok = converged && flipped == 0 && monotone && end_ratio < start_ratio;
  rep.solve = std::move(r);
  return rep;
}

}  // namespace dualjit::mesh_energy
