// Reading tetrahedral meshes written by Gmsh (MSH 4.1 and legacy 2.2, ASCII).
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

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

}  // namespace dualjit::cfd
