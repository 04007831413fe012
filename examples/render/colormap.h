// Scalar-to-colour maps for per-element quantities (distortion, stress, error) on meshes.
#pragma once

#include <vector>

#include "examples/render/image.h"

namespace dualjit::render {

// Matplotlib's viridis (perceptually uniform, readable in grey and by colour-blind viewers) at
// t in [0, 1]; t outside is clamped, NaN gives grey.
Rgba viridis(double t);

// A value range for colouring: lo maps to 0, hi to 1.
struct ValueRange {
  double lo = 0, hi = 1;
  // (v - lo) / (hi - lo), or 0.5 for an empty range so that constant data gets one colour.
  double normalize(double v) const;
};

// The smallest range holding every finite value ({0, 1} when none is finite).
ValueRange finite_range(const std::vector<double>& values);

}  // namespace dualjit::render
