#include "examples/mesh_energy/neo_hookean_problem.h"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

namespace dualjit::mesh_energy {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("elastic_box: " + what);
}

// Whether rest position p lies on `face` of the box; the generator puts boundary nodes exactly
// on 0 and on the lengths, so exact comparison is the right test.
bool on_face(const double* p, BoxFace face, const ElasticBox& b) {
  switch (face) {
    case BoxFace::XMin:
      return p[0] == 0;
    case BoxFace::XMax:
      return p[0] == b.lx;
    case BoxFace::YMin:
      return p[1] == 0;
    case BoxFace::YMax:
      return p[1] == b.ly;
    case BoxFace::ZMin:
      return p[2] == 0;
    case BoxFace::ZMax:
      return p[2] == b.lz;
  }
  return false;
}

}  // namespace

Kernel gravity_kernel() {
  return Kernel("gravity", [](KernelBuilder& kb) {
    const Vec<3> x = kb.input_vec<3>("x");
    const Expr m = kb.param("mass", 1)[0];
    const Vec<3> g({kb.uniform("gx"), kb.uniform("gy"), kb.uniform("gz")});
    kb.output("energy", -m * dot(g, x));
  });
}

ElasticBody elastic_box(const ElasticBox& b) {
  require(b.nx > 0 && b.ny > 0 && b.nz > 0, "cell counts must be positive, got " +
                                                std::to_string(b.nx) + "x" + std::to_string(b.ny) +
                                                "x" + std::to_string(b.nz));
  require(b.lx > 0 && b.ly > 0 && b.lz > 0, "box lengths must be positive");
  require(b.density > 0, "density must be positive, got " + std::to_string(b.density));
  for (double g : b.gravity) require(std::isfinite(g), "gravity must be finite");
  // The stable Neo-Hookean energy linearises to mu_lin = 3/4 mu and lambda_lin = lambda - 5/6
  // mu_lin (its log term softens it), so these parameters give E and nu at small strain
  // (Smith, de Goes & Kim 2018, section 3.4).
  const Lame linear = lame_parameters(b.young, b.poisson);  // throws for E and nu
  const Lame lame{4.0 / 3.0 * linear.mu, linear.lambda + 5.0 / 6.0 * linear.mu};

  cfd::TetMesh mesh = cfd::box_tet_mesh(b.nx, b.ny, b.nz, b.lx, b.ly, b.lz);
  const std::vector<double> params = neo_hookean_params(mesh.xyz, mesh.tets);
  // Lumped masses: each tet gives a quarter of its mass to each of its corners.
  std::vector<double> masses(mesh.n_nodes, 0.0);
  for (int64_t t = 0; t < mesh.n_tets(); ++t) {
    const double quarter = 0.25 * b.density * params[t * 10 + 9];
    for (int c = 0; c < 4; ++c) masses[mesh.tets[t * 4 + c]] += quarter;
  }

  assembly::Problem problem(mesh.n_nodes, 3);
  assembly::Term elastic;
  elastic.name = "elastic";
  elastic.kernel = std::make_shared<Kernel>(stable_neo_hookean_kernel());
  elastic.elements = {"tets", 4, mesh.tets};
  elastic.energy = true;
  elastic.params = params;
  elastic.uniforms = {lame.mu, lame.lambda};
  problem.add_term(std::move(elastic));
  assembly::Term gravity;
  gravity.name = "gravity";
  gravity.kernel = std::make_shared<Kernel>(gravity_kernel());
  gravity.elements = {"vertices", 1, {}};
  gravity.elements.conn.resize(mesh.n_nodes);
  for (int64_t v = 0; v < mesh.n_nodes; ++v) gravity.elements.conn[v] = static_cast<int32_t>(v);
  gravity.energy = true;
  gravity.params = masses;
  gravity.uniforms = {b.gravity[0], b.gravity[1], b.gravity[2]};
  problem.add_term(std::move(gravity));

  solvers::PinnedDofs pinned(mesh.n_nodes, 3);
  std::vector<int32_t> pinned_vertices;
  for (int64_t v = 0; v < mesh.n_nodes; ++v) {
    for (BoxFace f : b.pinned_faces) {
      if (on_face(&mesh.xyz[v * 3], f, b)) {
        pinned.pin_node(v);
        pinned_vertices.push_back(static_cast<int32_t>(v));
        break;
      }
    }
  }
  return ElasticBody{std::move(mesh),   std::move(problem), lame,
                     std::move(masses), std::move(pinned),  std::move(pinned_vertices)};
}

}  // namespace dualjit::mesh_energy
