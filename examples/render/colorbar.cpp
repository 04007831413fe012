#include "examples/render/colorbar.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "examples/render/raster.h"
#include "examples/render/text.h"

namespace dualjit::render {

namespace {

constexpr int kGap = 6;  // between the bar and its labels

std::string label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

int colorbar_room(int width, ValueRange range, int scale) {
  const double mid = 0.5 * (range.lo + range.hi);
  const int text = std::max({text_width(label(range.lo), scale), text_width(label(range.hi), scale),
                             text_width(label(mid), scale)});
  return width + kGap + text;
}

void draw_colorbar(Image& image, int x, int y, int width, int height, ValueRange range, int scale) {
  if (width <= 0 || height <= 1) return;
  for (int j = 0; j < height; ++j) {
    const Rgba c = viridis(1.0 - static_cast<double>(j) / (height - 1));
    for (int i = 0; i < width; ++i) image.set(x + i, y + j, c);
  }
  const double l = x - 0.5, r = x + width - 0.5, t = y - 0.5, b = y + height - 0.5;
  draw_line(image, {l, t}, {r, t}, kBlack);
  draw_line(image, {r, t}, {r, b}, kBlack);
  draw_line(image, {r, b}, {l, b}, kBlack);
  draw_line(image, {l, b}, {l, t}, kBlack);
  const int tx = x + width + kGap, th = text_height(scale);
  draw_text(image, tx, y, label(range.hi), kBlack, scale);
  draw_text(image, tx, y + (height - th) / 2, label(0.5 * (range.lo + range.hi)), kBlack, scale);
  draw_text(image, tx, y + height - th, label(range.lo), kBlack, scale);
}

}  // namespace dualjit::render
