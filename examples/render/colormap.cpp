#include "examples/render/colormap.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dualjit::render {

namespace {

struct Knot {
  double t, r, g, b;
};

// Every 16th entry of matplotlib's 256-entry viridis table (_cm_listed.py), at t = index / 255;
// linear interpolation between them stays within about 1/255 of the full table.
constexpr Knot kViridis[] = {
    {0 / 255.0, 0.267004, 0.004874, 0.329415},   {16 / 255.0, 0.282327, 0.094955, 0.417331},
    {32 / 255.0, 0.278826, 0.175490, 0.483397},  {48 / 255.0, 0.258965, 0.251537, 0.524736},
    {64 / 255.0, 0.229739, 0.322361, 0.545706},  {80 / 255.0, 0.199430, 0.387607, 0.554642},
    {96 / 255.0, 0.172719, 0.448791, 0.557885},  {112 / 255.0, 0.149039, 0.508051, 0.557250},
    {128 / 255.0, 0.127568, 0.566949, 0.550556}, {143 / 255.0, 0.120081, 0.622161, 0.534946},
    {159 / 255.0, 0.153894, 0.680203, 0.504172}, {175 / 255.0, 0.239374, 0.735588, 0.455688},
    {191 / 255.0, 0.360741, 0.785964, 0.387814}, {207 / 255.0, 0.506271, 0.828786, 0.300362},
    {223 / 255.0, 0.668054, 0.861999, 0.196293}, {239 / 255.0, 0.835270, 0.886029, 0.102646},
    {255 / 255.0, 0.993248, 0.906157, 0.143936},
};

uint8_t channel(double v) {
  return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255));
}

}  // namespace

Rgba viridis(double t) {
  if (std::isnan(t)) return {128, 128, 128, 255};
  t = std::clamp(t, 0.0, 1.0);
  const Knot* hi = std::lower_bound(std::begin(kViridis), std::end(kViridis), t,
                                    [](const Knot& k, double v) { return k.t < v; });
  if (hi == std::begin(kViridis)) hi = hi + 1;
  const Knot& a = hi[-1];
  const Knot& b = *hi;
  const double s = (t - a.t) / (b.t - a.t);
  return {channel(a.r + s * (b.r - a.r)), channel(a.g + s * (b.g - a.g)),
          channel(a.b + s * (b.b - a.b)), 255};
}

double ValueRange::normalize(double v) const {
  if (!(hi > lo)) return 0.5;
  return (v - lo) / (hi - lo);
}

ValueRange finite_range(const std::vector<double>& values) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values)
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (lo > hi) return {0, 1};
  return {lo, hi};
}

}  // namespace dualjit::render
