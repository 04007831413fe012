// A built-in 5 x 7 bitmap font (printable ASCII) for titles, axis labels and tick labels, so
// that pictures need no font library. Glyphs are drawn as solid scale x scale blocks.
#pragma once

#include <string_view>

#include "examples/render/image.h"

namespace dualjit::render {

// Right: left to right. Up: rotated a quarter turn counter-clockwise, reading bottom to top
// (a y-axis label).
enum class TextDirection { Right, Up };

// The length of the text along its direction, in pixels: 6 scale per character (5 for the glyph,
// 1 of spacing) less the trailing spacing.
int text_width(std::string_view text, int scale = 1);
// The thickness across the direction: 8 scale (7 rows and one for the descenders of g p q y).
int text_height(int scale = 1);

// Draws `text` in the box whose top-left corner is (x, y): text_width x text_height for Right,
// text_height x text_width for Up. Characters outside printable ASCII draw as '?'; pixels
// outside the image are clipped.
void draw_text(Image& image, int x, int y, std::string_view text, Rgba color, int scale = 1,
               TextDirection direction = TextDirection::Right);

}  // namespace dualjit::render
