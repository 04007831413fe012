#pragma once
// SHA-256 (FIPS 180-4), self-contained so cache keys need no crypto library.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dualjit {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  void update(const void* data, size_t size);
  // Finishes the hash; the object is reset afterwards and can hash a new message.
  std::array<uint8_t, 32> digest();
  std::string hex_digest();

 private:
  void reset();
  void compress(const uint8_t* blocks, size_t n);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_;
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

std::string sha256_hex(std::string_view data);

// The compression function over n 64-byte blocks, portable and with the x86 SHA extensions
// (where x86_supported()); Sha256 takes the faster. Exposed so that tests compare the two.
namespace sha256_detail {
void compress_portable(uint32_t* state, const uint8_t* blocks, size_t n);
void compress_x86(uint32_t* state, const uint8_t* blocks, size_t n);
bool x86_supported();
}  // namespace sha256_detail

}  // namespace dualjit
