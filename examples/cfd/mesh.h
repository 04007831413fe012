// The mesh side of the CFD example: tetrahedral meshes, median-dual edge data, node orderings
// and the Gmsh reader, in one include.
#pragma once

#include "examples/cfd/edge_mesh.h"
#include "examples/cfd/gmsh_reader.h"
#include "examples/cfd/node_ordering.h"
#include "examples/cfd/tet_mesh.h"
