#include "examples/render/image.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>

namespace dualjit::render {

namespace {

constexpr int64_t kMaxPixels = int64_t{1} << 28;

uint8_t to_byte(double v) {
  return static_cast<uint8_t>(std::lround(v > 0 ? std::min(v, 255.0) : 0.0));  // NaN -> 0
}

// CRC-32 (ISO-HDLC, reflected polynomial 0xEDB88320) as PNG chunks need it, table-driven.
std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}

uint32_t crc32(const uint8_t* data, size_t n) {
  static const std::array<uint32_t, 256> table = make_crc_table();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) c = table[(c ^ data[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t adler32(const std::vector<uint8_t>& data) {
  constexpr uint32_t kMod = 65521;
  uint32_t a = 1, b = 0;
  for (uint8_t v : data) {
    a = (a + v) % kMod;
    b = (b + a) % kMod;
  }
  return (b << 16) | a;
}

void put_u32_be(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

void put_chunk(std::vector<uint8_t>& out, const char (&type)[5], const std::vector<uint8_t>& data) {
  put_u32_be(out, static_cast<uint32_t>(data.size()));
  const size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  // The CRC covers the type and the data, not the length.
  put_u32_be(out, crc32(out.data() + start, out.size() - start));
}

// A zlib stream (RFC 1950) of deflate stored blocks (RFC 1951, BTYPE 00): no compression, so no
// zlib dependency; a stored block holds at most 65535 bytes.
std::vector<uint8_t> zlib_stored(const std::vector<uint8_t>& raw) {
  std::vector<uint8_t> z;
  z.reserve(raw.size() + raw.size() / 65535 * 5 + 16);
  z.push_back(0x78);  // deflate, 32 KiB window
  z.push_back(0x01);  // no preset dictionary, fastest; (0x78 * 256 + 0x01) % 31 == 0
  size_t pos = 0;
  do {
    const size_t n = std::min<size_t>(65535, raw.size() - pos);
    const bool last = pos + n == raw.size();
    z.push_back(last ? 1 : 0);  // BFINAL, BTYPE = 00; the rest of the byte is padding
    const uint16_t len = static_cast<uint16_t>(n), nlen = static_cast<uint16_t>(~len);
    z.push_back(len & 0xFF);
    z.push_back(len >> 8);
    z.push_back(nlen & 0xFF);
    z.push_back(nlen >> 8);
    z.insert(z.end(), raw.begin() + pos, raw.begin() + pos + n);
    pos += n;
  } while (pos < raw.size());
  put_u32_be(z, adler32(raw));
  return z;
}

}  // namespace

Image::Image(int width, int height, Rgba background) {
  if (width < 0 || height < 0 || int64_t{width} * height > kMaxPixels)
    throw std::invalid_argument("render::Image: invalid size " + std::to_string(width) + " x " +
                                std::to_string(height));
  width_ = width;
  height_ = height;
  bytes_.resize(static_cast<size_t>(width) * height * 4);
  fill(background);
}

Rgba Image::at(int x, int y) const {
  if (!contains(x, y))
    throw std::out_of_range("render::Image::at(" + std::to_string(x) + ", " + std::to_string(y) +
                            ") outside " + std::to_string(width_) + " x " +
                            std::to_string(height_));
  const uint8_t* p = &bytes_[(static_cast<size_t>(y) * width_ + x) * 4];
  return {p[0], p[1], p[2], p[3]};
}

void Image::fill(Rgba color) {
  for (size_t i = 0; i < bytes_.size(); i += 4) {
    bytes_[i] = color.r;
    bytes_[i + 1] = color.g;
    bytes_[i + 2] = color.b;
    bytes_[i + 3] = color.a;
  }
}

void Image::set(int x, int y, Rgba color) {
  if (!contains(x, y)) return;
  uint8_t* p = &bytes_[(static_cast<size_t>(y) * width_ + x) * 4];
  p[0] = color.r;
  p[1] = color.g;
  p[2] = color.b;
  p[3] = color.a;
}

void Image::blend(int x, int y, Rgba color, double coverage) {
  if (!contains(x, y) || !(coverage > 0)) return;
  const double sa = color.a / 255.0 * std::min(coverage, 1.0);
  if (sa >= 1.0) return set(x, y, color);
  uint8_t* p = &bytes_[(static_cast<size_t>(y) * width_ + x) * 4];
  const double da = p[3] / 255.0;
  const double oa = sa + da * (1 - sa);
  if (oa <= 0) return;
  // Non-premultiplied source-over: the colours are weighted by their alphas.
  const uint8_t src[3] = {color.r, color.g, color.b};
  for (int c = 0; c < 3; ++c) p[c] = to_byte((src[c] * sa + p[c] * da * (1 - sa)) / oa);
  p[3] = to_byte(oa * 255);
}

Image downsample(const Image& image, int factor) {
  if (factor < 1) throw std::invalid_argument("render::downsample: factor must be >= 1");
  Image out(image.width() / factor, image.height() / factor, kTransparent);
  const int n = factor * factor;
  for (int y = 0; y < out.height(); ++y)
    for (int x = 0; x < out.width(); ++x) {
      double sum[3] = {0, 0, 0}, alpha = 0;
      for (int j = 0; j < factor; ++j)
        for (int i = 0; i < factor; ++i) {
          const Rgba c = image.at(x * factor + i, y * factor + j);
          sum[0] += c.r * static_cast<double>(c.a);
          sum[1] += c.g * static_cast<double>(c.a);
          sum[2] += c.b * static_cast<double>(c.a);
          alpha += c.a;
        }
      if (alpha == 0) continue;
      out.set(x, y,
              {to_byte(sum[0] / alpha), to_byte(sum[1] / alpha), to_byte(sum[2] / alpha),
               to_byte(alpha / n)});
    }
  return out;
}

std::vector<uint8_t> encode_png(const Image& image) {
  if (image.width() == 0 || image.height() == 0)
    throw std::invalid_argument("render::encode_png: PNG cannot hold an empty image");
  const std::vector<uint8_t>& px = image.bytes();
  bool opaque = true;
  for (size_t i = 3; i < px.size() && opaque; i += 4) opaque = px[i] == 255;
  const int channels = opaque ? 3 : 4;

  // Scanlines, each after a filter-type byte of 0 (none).
  std::vector<uint8_t> raw;
  raw.reserve(static_cast<size_t>(image.height()) * (image.width() * channels + 1));
  for (int y = 0; y < image.height(); ++y) {
    raw.push_back(0);
    const uint8_t* row = &px[static_cast<size_t>(y) * image.width() * 4];
    for (int x = 0; x < image.width(); ++x)
      raw.insert(raw.end(), row + x * 4, row + x * 4 + channels);
  }

  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<uint8_t> ihdr;
  put_u32_be(ihdr, static_cast<uint32_t>(image.width()));
  put_u32_be(ihdr, static_cast<uint32_t>(image.height()));
  // Bit depth 8; colour type 2 (RGB) or 6 (RGBA); compression, filter, interlace methods 0.
  ihdr.insert(ihdr.end(), {8, static_cast<uint8_t>(opaque ? 2 : 6), 0, 0, 0});
  put_chunk(png, "IHDR", ihdr);
  put_chunk(png, "IDAT", zlib_stored(raw));
  put_chunk(png, "IEND", {});
  return png;
}

void write_png(const Image& image, const std::filesystem::path& file) {
  const std::vector<uint8_t> png = encode_png(image);
  std::ofstream out(file, std::ios::binary);
  if (out) out.write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
  if (out) out.close();
  if (!out) throw std::runtime_error("render::write_png: cannot write " + file.string());
}

Image side_by_side(const Image& a, const Image& b) {
  Image out(a.width() + b.width(), std::max(a.height(), b.height()), kWhite);
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) out.set(x, y, a.at(x, y));
  for (int y = 0; y < b.height(); ++y)
    for (int x = 0; x < b.width(); ++x) out.set(a.width() + x, y, b.at(x, y));
  return out;
}

}  // namespace dualjit::render
