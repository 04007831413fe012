// The channel with a bump, the classic subsonic inviscid test (its exact solution has constant
// entropy): a box of tets whose floor rises by h sin^2(pi (x - x0) / (x1 - x0)) between x0 and
// x1, the nodes above moved proportionally; inflow and outflow planes far field, floor,
// ceiling and side walls slip walls (the side walls make it a 2-D flow in 3-D).
#pragma once

#include "examples/cfd/boundary.h"
#include "examples/cfd/edge_mesh.h"
#include "examples/cfd/tet_mesh.h"

namespace dualjit::cfd {

struct BumpChannel {
  double length = 3, width = 0.5, height = 1;
  double bump_start = 1, bump_end = 2, bump_height = 0.1;
};

// nx x ny x nz cells of box_tet_mesh, mapped. Throws std::invalid_argument for a bump that
// does not fit inside the channel.
TetMesh bump_channel_mesh(int nx, int ny, int nz, const BumpChannel& channel = {});

// Far field on the faces at x = 0 and x = length, slip wall elsewhere.
BoundaryAreas bump_channel_boundary(const EdgeMesh& em, const TetMesh& mesh,
                                    const BumpChannel& channel = {});

}  // namespace dualjit::cfd
