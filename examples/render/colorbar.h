// A vertical colour scale with its end values, for pictures coloured by a scalar.
#pragma once

#include "examples/render/colormap.h"
#include "examples/render/image.h"

namespace dualjit::render {

// The bar fills (x, y, width, height) with viridis, hi at the top, framed in black; the values
// of the ends and the middle are written to its right (font scale `scale`).
void draw_colorbar(Image& image, int x, int y, int width, int height, ValueRange range,
                   int scale = 1);

// The room the bar and its labels need to the right of x, for laying out a picture.
int colorbar_room(int width, ValueRange range, int scale = 1);

}  // namespace dualjit::render
