// CRC-32C (Castagnoli, the iSCSI and ext4 checksum): the disk cache's check that an entry
// reads back as it was written. A warm start checksums megabytes of CUBIN and source; the
// SSE4.2 instruction does that about ten times faster than SHA-256 with the SHA extensions,
// and a cache that guards against damage, not against an adversary, needs no more.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace dualjit::jit {

// The CRC of `data`; crc32c(b, crc32c(a)) is the CRC of a followed by b.
uint32_t crc32c(std::string_view data, uint32_t crc = 0);

// Portable and SSE4.2 forms (where x86_supported()); crc32c takes the faster. Exposed so that
// tests compare the two.
namespace crc32c_detail {
uint32_t portable(const uint8_t* data, size_t n, uint32_t crc);
uint32_t x86(const uint8_t* data, size_t n, uint32_t crc);
bool x86_supported();
}  // namespace crc32c_detail

}  // namespace dualjit::jit
