// Reading tetrahedral meshes written by Gmsh (MSH 4.1 and legacy 2.2, ASCII), optionally with
// their boundary triangles tagged by physical group (far field, wall, ...).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/mesh/read_error.h"
#include "examples/cfd/tet_mesh.h"

namespace dualjit::cfd {

using mesh::MeshReadError;  // backends/mesh/read_error.h

// Reads the 4-node tetrahedra (element type 4) of an ASCII Gmsh file, MSH 4.1 (entity blocks,
// node tags in any order and possibly with gaps) or legacy MSH 2.2; other elements (points,
// lines, triangles, ...) and other sections are skipped. Nodes are numbered in file order,
// keeping only nodes used by some tet (a node only on a skipped element would get no control
// volume). Negatively oriented tets are reoriented (two nodes swapped); degenerate ones (zero
// volume to round-off) are an error. Throws MeshReadError naming the file and line for: a
// missing file, a version other than 4.1/2.2 or binary data, a truncated section, a reference
// to an unknown node tag, a duplicate node tag, a non-numeric token, or a file without tets.
TetMesh read_gmsh(const std::filesystem::path& file);

// A boundary face of the tets with the physical surface group its triangle is in.
struct TaggedFace {
  std::array<int32_t, 3> nodes{};  // TetMesh node indices, ordered for an outward normal
  int32_t group = 0;               // index into GmshMesh::groups
};

// Tets with a tagged boundary: every boundary face of `mesh` (a face of a single tet) once.
struct GmshMesh {
  TetMesh mesh;
  std::vector<std::string> groups;   // the boundary's physical surface names, by physical tag
  std::vector<TaggedFace> boundary;  // ordered by the sorted node indices of each face
};

// read_gmsh, and the 3-node triangles (element type 2) that tag the boundary: each in the
// physical surface group of its entity (MSH 4.1, through $Entities) or its first element tag
// (MSH 2.2), named in $PhysicalNames. Triangles in no physical group are ignored; a triangle
// repeated in the same group (MSH 2.2 writes one per group) counts once. Throws MeshReadError
// naming the file and line for read_gmsh's errors and for: a triangle on an unknown node tag,
// a triangle that is not a boundary face of the tets (a face of no tet, or of two), a face
// tagged with two groups, a group without a name, a surface entity in several physical groups
// or missing from $Entities, a malformed $PhysicalNames or $Entities section, and a boundary
// face of the tets with no tagged triangle (named by its tet's element and line).
GmshMesh read_gmsh_tagged(const std::filesystem::path& file);

}  // namespace dualjit::cfd
