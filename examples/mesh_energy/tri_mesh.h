// Triangle meshes for the energies: reading OFF and OBJ (validated: nothing is half-loaded),
// writing OBJ with UVs, the checks an energy needs (manifold edges, consistent orientation) and
// midpoint subdivision to scale a real mesh up. Tetrahedral meshes come from the Gmsh reader
// (examples/cfd/gmsh_reader.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "backends/mesh/read_error.h"

namespace dualjit::mesh_energy {

using mesh::MeshReadError;

struct TriMesh {
  std::vector<double> x;       // n_vertices x 3
  std::vector<int32_t> faces;  // n_faces x 3, counter-clockwise seen from outside
  std::vector<double> uv;      // n_vertices x 2, or empty
  int64_t n_vertices() const { return static_cast<int64_t>(x.size() / 3); }
  int64_t n_faces() const { return static_cast<int64_t>(faces.size() / 3); }
};

// Reads an ASCII OFF file (optional comments, "OFF" header with counts on the same or the next
// line, per-face vertex counts; only triangles) or a Wavefront OBJ file (v, vt, f with v, v/vt,
// v//vn, v/vt/vn references, negative indices counted from the end; other records skipped;
// per-vertex UVs taken from vt where every corner of a vertex names the same one; only
// triangles). read_tri_mesh picks by the extension (.off, .obj, any case). Throws
// MeshReadError naming the file and line for a missing file, a truncated file, a malformed or
// non-finite number, an index out of range, a face that is not a triangle, a degenerate face
// (a repeated vertex or zero area) and a repeated face (the same three vertices again); the
// element is named too ("face 12").
TriMesh read_off(const std::filesystem::path& file);
TriMesh read_obj(const std::filesystem::path& file);
TriMesh read_tri_mesh(const std::filesystem::path& file);

// Writes v (and vt, with f v/vt when the mesh has UVs) records, 17 significant digits so that
// reading back gives the same doubles. Throws std::runtime_error naming the file when it cannot
// be written.
void write_obj(const std::filesystem::path& file, const TriMesh& mesh);

// Throws MeshReadError naming `source` (a file or a generator) and the first offending face
// (line 0) for an edge shared by more than two faces, or two faces that traverse a shared edge
// in the same direction (inconsistent orientation).
void check_manifold(const TriMesh& mesh, const std::filesystem::path& source);

struct Topology {
  int64_t edges = 0, boundary_edges = 0, boundary_loops = 0;
  int64_t euler_characteristic = 0;  // V - E + F
};
// Of a manifold mesh (check_manifold first).
Topology topology(const TriMesh& mesh);

// Each triangle into four at its edge midpoints (shared midpoints shared); UVs likewise. The
// original vertices keep their indices and positions; the midpoint of edge (a, b) follows them.
TriMesh subdivide(const TriMesh& mesh);
// Subdivides until the mesh has at least `vertices` vertices.
TriMesh subdivide_to(const TriMesh& mesh, int64_t vertices);

}  // namespace dualjit::mesh_energy
