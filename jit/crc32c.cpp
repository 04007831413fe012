#include "jit/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define DUALJIT_CRC32C_X86 1
#endif

namespace dualjit::jit {
namespace crc32c_detail {
namespace {

// Reflected polynomial 0x1EDC6F41.
constexpr uint32_t kPolynomial = 0x82F63B78u;

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1u) ? kPolynomial : 0u);
    t[i] = c;
  }
  return t;
}

constexpr std::array<uint32_t, 256> kTable = make_table();

}  // namespace

uint32_t portable(const uint8_t* data, size_t n, uint32_t crc) {
  uint32_t s = ~crc;
  for (size_t i = 0; i < n; ++i) s = kTable[(s ^ data[i]) & 0xFFu] ^ (s >> 8);
  return ~s;
}

#ifdef DUALJIT_CRC32C_X86
bool x86_supported() {
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return supported;
}

__attribute__((target("sse4.2"))) uint32_t x86(const uint8_t* data, size_t n, uint32_t crc) {
  uint64_t s = ~crc;
  for (; n >= 8; n -= 8, data += 8) {
    uint64_t word;
    std::memcpy(&word, data, 8);
    s = _mm_crc32_u64(s, word);
  }
  uint32_t s32 = static_cast<uint32_t>(s);
  for (; n > 0; --n, ++data) s32 = _mm_crc32_u8(s32, *data);
  return ~s32;
}
#else
bool x86_supported() {
  return false;
}
uint32_t x86(const uint8_t* data, size_t n, uint32_t crc) {
  return portable(data, n, crc);
}
#endif

}  // namespace crc32c_detail

uint32_t crc32c(std::string_view data, uint32_t crc) {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  return crc32c_detail::x86_supported() ? crc32c_detail::x86(p, data.size(), crc)
                                        : crc32c_detail::portable(p, data.size(), crc);
}

}  // namespace dualjit::jit
