// Line plots of (x, y) series, such as a solver's gradient norm per iteration on a log axis,
// with ticks, grid, title, axis labels and a legend; a series is a line, ring markers or both.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "examples/render/image.h"
#include "examples/render/raster.h"

namespace dualjit::render {

struct Series {
  std::string label;  // in the legend; empty: not listed
  std::vector<double> x, y;
  std::optional<Rgba> color;  // default: the series' index in a ten-colour palette
  double width = 2.0;         // of the line; 0: no line (markers only)
  double marker = 0.0;        // diameter of a ring drawn at each point, pixels; 0: none
};

struct PlotOptions {
  int width = 800, height = 500;
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;  // base 10; non-positive values are left out
  int font_scale = 2;
  bool legend = true;        // top right, when a series has a label
  bool legend_left = false;  // top left instead (data that rises to the right)
  Rgba background = kWhite;
};

// Where the data lands: the plot box in pixels (left < right, top < bottom; pixel centres, so
// the box lines are crisp) and the axis ranges in axis units (log10 of the data on a log axis),
// extended to whole ticks (linear: 1, 2 or 5 times a power of ten; log: whole decades).
struct PlotFrame {
  double left = 0, top = 0, right = 0, bottom = 0;
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  bool log_x = false, log_y = false;
  std::vector<double> x_ticks, y_ticks;  // in axis units
  // The pixel of a data point; NaN coordinates for a non-positive value on a log axis.
  Point to_pixel(double x, double y) const;
};

// Lays the plot out (the ranges cover every finite point that the axes can show). Throws
// std::invalid_argument for a series whose x and y differ in size, naming it.
PlotFrame plot_frame(const std::vector<Series>& series, const PlotOptions& options = {});

// The plot as plot_frame lays it out. Points that cannot be shown (NaN, infinite, non-positive
// on a log axis) break the line.
Image render_plot(const std::vector<Series>& series, const PlotOptions& options = {});

}  // namespace dualjit::render
