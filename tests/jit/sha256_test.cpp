#include "dsl/sha256.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using dualjit::Sha256;
using dualjit::sha256_hex;

TEST_CASE("sha256: FIPS 180-4 test vectors") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256: incremental updates match one-shot, and digest resets") {
  const std::string msg(1000000, 'a');
  Sha256 h;
  // Odd chunk sizes exercise the partial-block buffering path.
  for (size_t pos = 0; pos < msg.size();) {
    const size_t n = std::min<size_t>(msg.size() - pos, 1 + pos % 97);
    h.update(msg.data() + pos, n);
    pos += n;
  }
  CHECK(h.hex_digest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  h.update(std::string_view("abc"));
  CHECK(h.hex_digest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Lengths around the 55/56/64-byte padding boundaries agree with chunked hashing.
  for (size_t len : {55, 56, 57, 63, 64, 65, 119, 120}) {
    const std::string s(len, 'x');
    Sha256 a;
    a.update(s.substr(0, len / 2));
    a.update(s.substr(len / 2));
    CHECK(a.hex_digest() == sha256_hex(s));
  }
}

TEST_CASE("sha256: the x86 SHA extensions compute the portable compression") {
  namespace d = dualjit::sha256_detail;
  if (!d::x86_supported()) {
    MESSAGE(
        "skipped: this CPU has no SHA extensions (the FIPS vectors above ran the portable path)");
    return;
  }
  std::mt19937 rng(7);
  std::vector<uint8_t> data(64 * 37);
  for (uint8_t& b : data) b = static_cast<uint8_t>(rng());
  for (size_t blocks : {1, 2, 5, 37}) {
    uint32_t a[8], b[8];
    for (int i = 0; i < 8; ++i) a[i] = b[i] = static_cast<uint32_t>(rng());
    d::compress_portable(a, data.data(), blocks);
    d::compress_x86(b, data.data(), blocks);
    CHECK(std::equal(a, a + 8, b));
  }
}
