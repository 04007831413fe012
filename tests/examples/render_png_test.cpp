// The picture type and its PNG output (examples/render/image.h): blending, downsampling, and PNG
// bytes read back by an independent minimal reader (signature, IHDR, chunk CRCs, stored
// deflate blocks, Adler-32, scanlines) that must reproduce every pixel.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples/render/image.h"

using namespace dualjit::render;

namespace {

// Bitwise CRC-32 (no table), so that a wrong table in the writer cannot hide here.
uint32_t crc32_bitwise(const uint8_t* p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
  }
  return ~c;
}

uint32_t be32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b.at(at)) << 24 | uint32_t(b.at(at + 1)) << 16 | uint32_t(b.at(at + 2)) << 8 |
         b.at(at + 3);
}

struct Decoded {
  int width = 0, height = 0, color_type = 0;
  int stored_blocks = 0;
  std::vector<Rgba> pixels;  // row-major
};

// A PNG reader for what the writer may produce: 8-bit RGB or RGBA, no interlace, IDAT holding a
// zlib stream of stored blocks, filter type 0. Throws std::runtime_error naming the first thing
// that is wrong.
Decoded read_png(const std::vector<uint8_t>& png) {
  const auto fail = [](const std::string& what) { throw std::runtime_error("png: " + what); };
  const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (png.size() < 8 || !std::equal(signature, signature + 8, png.begin())) fail("signature");
  Decoded d;
  std::vector<uint8_t> idat;
  size_t at = 8;
  bool ihdr = false, iend = false;
  while (!iend) {
    if (at + 12 > png.size()) fail("truncated chunk");
    const uint32_t len = be32(png, at);
    const std::string type(png.begin() + at + 4, png.begin() + at + 8);
    if (at + 12 + len > png.size()) fail("truncated " + type);
    if (crc32_bitwise(&png[at + 4], len + 4) != be32(png, at + 8 + len)) fail("CRC of " + type);
    const uint8_t* data = &png[at + 8];
    if (type == "IHDR") {
      if (len != 13) fail("IHDR length");
      d.width = static_cast<int>(be32(png, at + 8));
      d.height = static_cast<int>(be32(png, at + 12));
      if (data[8] != 8) fail("bit depth");
      d.color_type = data[9];
      if (d.color_type != 2 && d.color_type != 6) fail("colour type");
      if (data[10] != 0 || data[11] != 0 || data[12] != 0) fail("methods");
      ihdr = true;
    } else if (type == "IDAT") {
      if (!ihdr) fail("IDAT before IHDR");
      idat.insert(idat.end(), data, data + len);
    } else if (type == "IEND") {
      iend = true;
    } else {
      fail("unexpected chunk " + type);
    }
    at += 12 + len;
  }
  if (at != png.size()) fail("bytes after IEND");

  // zlib: header, stored blocks until BFINAL, Adler-32 of the inflated bytes.
  if (idat.size() < 6) fail("zlib stream too short");
  if ((idat[0] & 0x0F) != 8 || (idat[0] * 256 + idat[1]) % 31 != 0 || (idat[1] & 0x20))
    fail("zlib header");
  std::vector<uint8_t> raw;
  size_t p = 2;
  for (bool last = false; !last;) {
    if (p + 5 > idat.size()) fail("truncated deflate block");
    last = idat[p] & 1;
    if ((idat[p] >> 1 & 3) != 0) fail("not a stored block");
    const uint16_t n = idat[p + 1] | idat[p + 2] << 8, nn = idat[p + 3] | idat[p + 4] << 8;
    if (uint16_t(~n) != nn) fail("LEN/NLEN");
    if (p + 5 + n > idat.size()) fail("truncated stored data");
    raw.insert(raw.end(), idat.begin() + p + 5, idat.begin() + p + 5 + n);
    p += 5 + n;
    ++d.stored_blocks;
  }
  if (p + 4 != idat.size()) fail("zlib trailer");
  uint32_t a = 1, b = 0;
  for (uint8_t v : raw) {
    a = (a + v) % 65521;
    b = (b + a) % 65521;
  }
  if ((b << 16 | a) != be32(idat, p)) fail("Adler-32");

  const int channels = d.color_type == 6 ? 4 : 3;
  const size_t stride = size_t(d.width) * channels + 1;
  if (raw.size() != stride * d.height) fail("scanline bytes");
  for (int y = 0; y < d.height; ++y) {
    const uint8_t* row = &raw[y * stride];
    if (row[0] != 0) fail("filter type");
    for (int x = 0; x < d.width; ++x) {
      const uint8_t* q = row + 1 + x * channels;
      d.pixels.push_back({q[0], q[1], q[2], channels == 4 ? q[3] : uint8_t(255)});
    }
  }
  return d;
}

void check_round_trip(const Image& image, int color_type) {
  const Decoded d = read_png(encode_png(image));
  CHECK(d.width == image.width());
  CHECK(d.height == image.height());
  CHECK(d.color_type == color_type);
  REQUIRE(d.pixels.size() == size_t(image.width()) * image.height());
  int wrong = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      wrong += !(d.pixels[y * image.width() + x] == image.at(x, y));
  CHECK(wrong == 0);
}

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("dualjit_render_" + std::to_string(std::random_device{}()) + "_" + name);
}

}  // namespace

TEST_SUITE("render") {
  TEST_CASE("Image: size, fill, set, at, invalid sizes") {
    Image im(3, 2, {1, 2, 3, 255});
    CHECK(im.width() == 3);
    CHECK(im.height() == 2);
    CHECK(im.at(2, 1) == Rgba{1, 2, 3, 255});
    im.set(1, 0, {9, 8, 7, 6});
    CHECK(im.at(1, 0) == Rgba{9, 8, 7, 6});
    im.set(-1, 0, kBlack);  // clipped, not an error
    im.set(3, 1, kBlack);
    CHECK_THROWS_AS(im.at(3, 0), std::out_of_range);
    im.fill(kWhite);
    CHECK(im.at(1, 0) == kWhite);
    CHECK_THROWS_AS(Image(-1, 2), std::invalid_argument);
    CHECK_THROWS_AS(Image(1 << 15, 1 << 15), std::invalid_argument);
  }

  TEST_CASE("Image::blend: source-over with coverage, over opaque and transparent pixels") {
    Image im(2, 1, kWhite);
    im.blend(0, 0, {255, 0, 0, 255}, 0.5);
    const Rgba half = im.at(0, 0);
    CHECK(half.r == 255);
    CHECK(int(half.g) == doctest::Approx(127.5).epsilon(0.01));
    CHECK(int(half.b) == doctest::Approx(127.5).epsilon(0.01));
    CHECK(half.a == 255);
    im.blend(1, 0, {0, 0, 255, 255});  // full coverage of an opaque colour replaces
    CHECK(im.at(1, 0) == Rgba{0, 0, 255, 255});

    Image clear(1, 1, kTransparent);
    clear.blend(0, 0, {0, 200, 0, 128});
    // Over nothing the colour keeps its own value and alpha.
    CHECK(clear.at(0, 0) == Rgba{0, 200, 0, 128});
    clear.blend(0, 0, {0, 200, 0, 255}, 0.0);
    CHECK(clear.at(0, 0) == Rgba{0, 200, 0, 128});
  }

  TEST_CASE("downsample: averages blocks, alpha-weighted") {
    Image im(4, 2, kTransparent);
    for (int y = 0; y < 2; ++y) {
      im.set(0, y, {0, 0, 0, 255});
      im.set(1, y, {200, 100, 50, 255});
    }
    im.set(2, 0, {100, 100, 100, 255});  // the other three of that block are transparent
    const Image small = downsample(im, 2);
    REQUIRE(small.width() == 2);
    REQUIRE(small.height() == 1);
    CHECK(small.at(0, 0) == Rgba{100, 50, 25, 255});
    CHECK(small.at(1, 0) == Rgba{100, 100, 100, 64});
    CHECK_THROWS_AS(downsample(im, 0), std::invalid_argument);
  }

  TEST_CASE("side_by_side: a on the left, b on the right, top-aligned on white") {
    const Image a(3, 2, Rgba{10, 20, 30, 255}), b(2, 4, Rgba{40, 50, 60, 255});
    const Image s = side_by_side(a, b);
    REQUIRE(s.width() == 5);
    REQUIRE(s.height() == 4);
    CHECK(s.at(2, 1) == Rgba{10, 20, 30, 255});
    CHECK(s.at(2, 2) == kWhite);  // below a
    CHECK(s.at(3, 3) == Rgba{40, 50, 60, 255});
  }

  TEST_CASE("encode_png: opaque images are RGB, translucent ones RGBA; pixels read back") {
    Image opaque(5, 3);
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x)
        opaque.set(x, y, {uint8_t(40 * x), uint8_t(70 * y), uint8_t(x * y * 13), 255});
    check_round_trip(opaque, 2);

    Image translucent = opaque;
    translucent.set(4, 2, {10, 20, 30, 40});
    check_round_trip(translucent, 6);
  }

  TEST_CASE("encode_png: more than 64 KiB of scanlines spans several stored blocks") {
    Image im(200, 120);
    std::mt19937 rng(7);
    for (int y = 0; y < im.height(); ++y)
      for (int x = 0; x < im.width(); ++x)
        im.set(x, y, {uint8_t(rng()), uint8_t(rng()), uint8_t(rng()), uint8_t(rng() | 1)});
    const Decoded d = read_png(encode_png(im));
    CHECK(d.stored_blocks == 2);  // 120 * (200 * 4 + 1) = 96120 bytes
    check_round_trip(im, 6);
  }

  TEST_CASE("the test reader rejects a corrupted byte (the CRC check is live)") {
    Image im(4, 4, {10, 20, 30, 255});
    std::vector<uint8_t> png = encode_png(im);
    CHECK_NOTHROW(read_png(png));
    png[png.size() - 20] ^= 0x01;  // inside the IDAT data
    CHECK_THROWS_WITH_AS(read_png(png), doctest::Contains("CRC of IDAT"), std::runtime_error);
  }

  TEST_CASE("write_png: the file holds encode_png's bytes; failures name the path") {
    Image im(7, 3, {200, 10, 10, 255});
    const auto file = temp_path("w.png");
    write_png(im, file);
    std::ifstream in(file, std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
    std::filesystem::remove(file);
    CHECK(bytes == encode_png(im));

    const auto bad = temp_path("no_such_dir") / "x.png";
    const std::string name = bad.string();
    CHECK_THROWS_WITH_AS(write_png(im, bad), doctest::Contains(name.c_str()), std::runtime_error);
    CHECK_THROWS_AS(encode_png(Image(0, 4)), std::invalid_argument);
  }
}
