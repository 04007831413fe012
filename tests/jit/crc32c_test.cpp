// CRC-32C: the standard check value and RFC 3720's vectors, the SSE4.2 form against the
// portable one, and the CRC of a concatenation from its parts.
#include "jit/crc32c.h"

#include <doctest/doctest.h>

#include <random>
#include <string>

using namespace dualjit::jit;

TEST_CASE("crc32c: the check value and RFC 3720's test vectors") {
  CHECK(crc32c("") == 0u);
  CHECK(crc32c("123456789") == 0xE3069283u);
  CHECK(crc32c(std::string(32, '\0')) == 0x8A9136AAu);
  CHECK(crc32c(std::string(32, '\xFF')) == 0x62A8AB43u);
  std::string ascending(32, '\0'), descending(32, '\0');
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<char>(i);
    descending[i] = static_cast<char>(31 - i);
  }
  CHECK(crc32c(ascending) == 0x46DD794Eu);
  CHECK(crc32c(descending) == 0x113FDB5Cu);
}

TEST_CASE("crc32c: SSE4.2 and portable agree at every length and alignment; parts extend") {
  MESSAGE("SSE4.2 CRC32 instruction: ", crc32c_detail::x86_supported() ? "used" : "absent");
  std::mt19937 rng(5);
  std::string data(4096 + 16, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(9), size_t(63), size_t(64),
                     size_t(1000), size_t(4096)}) {
      CAPTURE(offset);
      CAPTURE(n);
      const uint32_t p = crc32c_detail::portable(bytes + offset, n, 0);
      if (crc32c_detail::x86_supported()) CHECK(crc32c_detail::x86(bytes + offset, n, 0) == p);
      CHECK(crc32c(std::string_view(data).substr(offset, n)) == p);
    }
  }
  const std::string_view all(data);
  for (size_t cut : {size_t(0), size_t(3), size_t(8), size_t(2049), all.size()}) {
    CAPTURE(cut);
    CHECK(crc32c(all.substr(cut), crc32c(all.substr(0, cut))) == crc32c(all));
  }
  std::string flipped = data;
  flipped[1234] ^= 0x10;
  CHECK(crc32c(flipped) != crc32c(all));
}
