// Pictures of triangle meshes: a UV layout coloured by a per-triangle quantity (distortion),
// with flipped triangles in red, and a shaded 3D view of a mesh (cloth, sphere, the boundary of a
// tet mesh) from a camera around its bounding box.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "examples/mesh_energy/tri_mesh.h"
#include "examples/render/colormap.h"
#include "examples/render/image.h"

namespace dualjit::render {

struct UvLayoutOptions {
  int width = 800, height = 800;
  int margin = 24;                        // pixels kept free around the layout
  std::vector<double> face_values;        // one per triangle, coloured with viridis; empty: `fill`
  std::optional<ValueRange> value_range;  // default: the range of the finite face values
  bool colorbar = true;                   // a labelled scale on the right, with face_values
  Rgba fill{205, 215, 235, 255};
  Rgba flipped{230, 25, 25, 255};  // triangles with negative signed area in UV
  Rgba edge_color{40, 40, 40, 255};
  double edge_width = 1.0;  // 0 draws no edges
  Rgba background = kWhite;
  std::string title;
};

// The UV triangles of `mesh` fitted to the image (uniform scale, v pointing up), filled by face
// value, flipped ones in `flipped` (drawn last so that overlaps cannot hide them), each edge
// drawn once. Throws std::invalid_argument when the mesh has no UVs, a face index is out of
// range or face_values has the wrong size.
Image render_uv_layout(const mesh_energy::TriMesh& mesh, const UvLayoutOptions& options = {});

// Looks at the centre of the mesh's bounding box from the direction (azimuth, elevation) about
// the `up` axis, with `up` pointing up on the screen. Azimuth 0, elevation 0 looks from the
// reference side: +z projected normal to up (+x when up is within 25 degrees of the z axis);
// positive azimuth turns towards up x reference (+x for up = +y); positive elevation rises
// towards up (90: looking down).
struct Camera {
  double azimuth_deg = 30, elevation_deg = 25;
  std::array<double, 3> up{0, 1, 0};
  bool perspective = true;
  double fov_deg = 30;  // the perspective's strength; framing fits the mesh either way
};

struct MeshViewOptions {
  int width = 800, height = 600;
  int margin = 20;
  Camera camera;
  // Towards the light in the camera's frame (right, up, towards the viewer): upper left front.
  std::array<double, 3> light{-0.4, 0.5, 1.0};
  double ambient = 0.3;
  // The share of the diffuse light that comes from the camera instead, so that faces turned away
  // from the main light still show their shape.
  double headlight = 0.25;
  Rgba front_color{160, 185, 225, 255};
  Rgba back_color{225, 185, 140, 255};  // the side facing against the triangles' normals
  // Normals are averaged across edges whose dihedral angle is smaller (smooth surfaces), not
  // across sharper ones (the edges of a box); 0 gives flat shading.
  double crease_angle_deg = 40;
  std::vector<double> vertex_values;      // one per vertex, coloured with viridis; empty: colours
  std::optional<ValueRange> value_range;  // default: the range of the finite vertex values
  bool colorbar = true;                   // with vertex_values
  bool wireframe = false;
  Rgba wire_color{25, 25, 25, 255};
  double wire_width = 1.0;
  int supersample = 2;  // rendered this many times larger, then averaged: anti-aliasing
  Rgba background = kWhite;
  std::string title;
};

// Lambert (main light plus headlight) and ambient lighting, two-sided (a triangle seen from behind
// is lit as if it faced the viewer, in back_color), depth-buffered, optionally coloured per vertex
// and with a wireframe. Triangles with a non-finite corner are skipped. Throws
// std::invalid_argument for a face index out of range, vertex_values of the wrong size, or a zero
// `up`.
Image render_mesh(const mesh_energy::TriMesh& mesh, const MeshViewOptions& options = {});

}  // namespace dualjit::render
