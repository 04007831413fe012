// An 8-bit RGBA picture in memory: pixels, filling, alpha blending, box downsampling (for
// supersampled rendering) and PNG output, written without zlib (stored deflate blocks) so that
// demos need no third-party library.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace dualjit::render {

// A non-premultiplied 8-bit colour; a = 255 is opaque.
struct Rgba {
  uint8_t r = 0, g = 0, b = 0, a = 255;
  friend bool operator==(const Rgba&, const Rgba&) = default;
};

inline constexpr Rgba kWhite{255, 255, 255, 255};
inline constexpr Rgba kBlack{0, 0, 0, 255};
inline constexpr Rgba kTransparent{0, 0, 0, 0};

// Pixel (x, y) covers [x, x + 1) x [y, y + 1); y grows downwards, (0, 0) is the top-left pixel.
class Image {
 public:
  Image() = default;
  // Throws std::invalid_argument for a negative size or more than 2^28 pixels.
  Image(int width, int height, Rgba background = kWhite);

  int width() const { return width_; }
  int height() const { return height_; }
  bool contains(int x, int y) const { return x >= 0 && y >= 0 && x < width_ && y < height_; }

  // Throws std::out_of_range outside the image.
  Rgba at(int x, int y) const;
  void fill(Rgba color);
  // Overwrites; pixels outside the image are ignored so that drawing code can clip for free.
  void set(int x, int y, Rgba color);
  // Source-over compositing of `color` with its alpha scaled by `coverage` (0..1, the
  // anti-aliasing weight); outside the image, ignored.
  void blend(int x, int y, Rgba color, double coverage = 1.0);

  // Row-major RGBA bytes, 4 per pixel.
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  int width_ = 0, height_ = 0;
  std::vector<uint8_t> bytes_;
};

// The average of each factor x factor block (alpha-weighted, so that transparent pixels do not
// darken the result); the size is divided by factor, rounding down. Throws
// std::invalid_argument for factor < 1.
Image downsample(const Image& image, int factor);
// a and b next to each other (a on the left), top-aligned, on white.
Image side_by_side(const Image& a, const Image& b);

// The PNG file's bytes: 8-bit RGB when every pixel is opaque, else RGBA; no filtering, zlib
// stream of stored blocks. Throws std::invalid_argument for an empty image (PNG has none).
std::vector<uint8_t> encode_png(const Image& image);
// Throws std::runtime_error naming `file` when it cannot be written.
void write_png(const Image& image, const std::filesystem::path& file);

}  // namespace dualjit::render
