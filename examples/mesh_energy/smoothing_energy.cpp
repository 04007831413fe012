#include "examples/mesh_energy/smoothing_energy.h"

#include <algorithm>
#include <utility>

namespace dualjit::mesh_energy {

Kernel edge_length_squared_kernel() {
  return Kernel("edge_length_squared", [](KernelBuilder& kb) {
    const Vec<3> xa = kb.input_vec<3>("xa"), xb = kb.input_vec<3>("xb");
    kb.output("energy", squared_norm(xa - xb));
  });
}

std::vector<int32_t> mesh_edges(const TriMesh& m) {
  std::vector<std::pair<int32_t, int32_t>> e;
  e.reserve(m.faces.size());
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    for (int c = 0; c < 3; ++c) {
      const int32_t a = m.faces[f * 3 + c], b = m.faces[f * 3 + (c + 1) % 3];
      e.emplace_back(std::min(a, b), std::max(a, b));
    }
  }
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  std::vector<int32_t> out;
  out.reserve(e.size() * 2);
  for (const auto& [a, b] : e) out.insert(out.end(), {a, b});
  return out;
}

}  // namespace dualjit::mesh_energy
